//! What memzip knows of a run directory once it is read ([`super::load_run`]).

use std::collections::BTreeMap;

use crate::bounds::{self, DramCounters};
use crate::gpu::Gpu;
use crate::output_error::OutputError;
use crate::power::GpuEnergy;
use crate::sim_log::{KernelDram, MemoryWait};

/// What a run directory holds: its stats, its run.json, its sweep record
/// and, with the power model on, whole-GPU energy.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub dir: String,
    /// From `run.json`; `None` groups the run with the others that have none.
    pub program: Option<String>,
    /// The label shown: `run.json`'s codec, else the stats' codec, then the
    /// sweep's variant in brackets when its `sweep.json` names one
    /// (`mag_bdi [mdc4k]`: runs of one codec with other controller options).
    pub label: String,
    /// The codec the simulator reports in `stats.json`.
    pub stats_codec: String,
    pub cycles: u64,
    /// What the codec compresses: DRAM (gpgpu-sim) or the fabric between
    /// GPUs (MGPUSim); it names what `dram_bytes` counts.
    pub medium: Medium,
    /// Kernel DRAM bytes, metadata traffic included; for a fabric run, the
    /// bytes that crossed the fabric.
    pub dram_bytes: u64,
    pub raw_cr: Option<f64>,
    pub effective_cr: Option<f64>,
    pub mdc_hit_rate: Option<f64>,
    /// DRAM data-bus busy cycles over DRAM cycles, averaged over channels
    /// (the simulator's own counters; absent in stats of older builds).
    pub dram_utilization: Option<f64>,
    pub verify_checked: u64,
    pub verify_failures: u64,
    pub output_ok: Option<bool>,
    pub wall_seconds: Option<f64>,
    /// The timing model the run was simulated under, from its `sweep.json`
    /// ([`TIMING_MODEL`]); `None` for a run made outside a sweep.
    pub timing_model: Option<u32>,
    /// The hash of the sources its simulator was built from (`run.json`'s
    /// `simulator_sources`, scripts/lib.sh); `None` for runs before it was recorded.
    pub simulator_sources: Option<String>,
    /// The simulator it ran on (`run.json`'s `simulator`: `dev-6b244a5`, `v3.2.1`).
    pub simulator: Option<String>,
    /// The GPU it simulated (`run.json`'s `gpu`; the GTX580 for runs made
    /// before there was a choice, and for multi-GPU runs).
    pub gpu: Gpu,
    /// Energy by component, when the stats carry it.
    pub energy: Option<RunEnergy>,
    /// Whole-GPU energy from the simulator's power model, when it was on.
    pub gpu_power: Option<GpuEnergy>,
    /// Blocks per stored size in bytes at the MAG, write-backs and copies
    /// together (`total.{writes,memcpy}.mag_sizes`); empty in stats without it.
    pub stored_sizes: BTreeMap<u64, u64>,
    /// The simulator's DRAM counters (`total.dram_device`), absent in stats
    /// of older builds.
    pub dram: Option<DramCounters>,
    /// What the sectored L2 of a modern GPU cost the codec
    /// (`total.partial`); absent in stats of older builds.
    pub partial: Option<PartialCounters>,
    /// Kernels the program launched (and finished), from `sim.log` or
    /// `run.json`'s `kernel_launches`; `None` for runs committed before it
    /// was recorded.
    pub kernel_launches: Option<u64>,
    /// Each kernel's DRAM work, from `sim.log` or `run.json`'s `kernel_dram`
    /// (`[dram_cycles, commands]` per kernel).
    pub kernel_dram: Option<Vec<KernelDram>>,
    /// tRRD in DRAM command cycles: from `sim.log` or `run.json`'s
    /// `dram_rrd`, else the `-gpgpu_dram_timing_opt` of its sweep's option
    /// lines; `None` when none says (the study's config has 12,
    /// [`crate::bounds::GTX580_MAG32_RRD_CYCLES`]).
    pub rrd_cycles: Option<u64>,
    /// What its cores waited on memory (mean fetch latency, DRAM-full
    /// stalls), from `sim.log` or `run.json`; empty for runs committed before
    /// it was recorded and for multi-GPU runs.
    pub memory_wait: MemoryWait,
    /// The error a lossy codec cost on the program's output (`run.json`'s
    /// `output_error`), for a run whose benchmark marks approximable data.
    pub output_error: Option<OutputError>,
    /// What the run missed of this memzip's model (a change that left a
    /// mark in the files of later runs, [`super::missed_model_change`]);
    /// `None` when it is current or no sweep record says what it ran.
    pub model_change: Option<&'static str>,
}

/// The controller's counters of partial requests (`total.partial` of
/// `stats.json`): on a GPU whose L2 asks for 32-byte sectors of a 128-byte
/// line, a read of some sectors of a compressed line fetches the whole
/// compressed line (over-fetched bursts), and a write-back of some dirty
/// sectors into a compressed line reads the rest first (read-modify-write)
/// or stores the line raw (raw fallbacks). The GTX580's whole-line requests
/// never do either: its runs count zeros.
pub use memzip::mc::PartialStats as PartialCounters;

/// What a run's codec compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Medium {
    #[default]
    Dram,
    /// The fabric between GPUs.
    Fabric,
}

impl Medium {
    /// The word tables use for it.
    pub fn name(self) -> &'static str {
        match self {
            Medium::Dram => "DRAM",
            Medium::Fabric => "fabric",
        }
    }
}

/// A run's energy (pJ) by component, from `total.energy` of `stats.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEnergy {
    pub total_pj: f64,
    pub dram_pj: f64,
    pub codec_pj: f64,
    pub metadata_pj: f64,
    /// Core clock (Hz) the cycles count; `None` when unknown.
    pub core_hz: Option<f64>,
}

impl Run {
    /// Energy-delay product in joule-seconds: total energy x simulated time.
    pub fn edp_js(&self) -> Option<f64> {
        let energy = self.energy?;
        let hz = energy.core_hz.filter(|hz| *hz > 0.0)?;
        Some(energy.total_pj * 1e-12 * self.cycles as f64 / hz)
    }

    /// Whole-GPU energy (pJ): the power model's, plus memzip's codec and
    /// metadata-cache energy (not in the simulator's model; memzip's DRAM
    /// energy is, as the power model counts the simulator's DRAM bursts).
    pub fn gpu_total_pj(&self) -> Option<f64> {
        let gpu = self.gpu_power.as_ref()?;
        let memzip_pj = self.energy.map_or(0.0, |e| e.codec_pj + e.metadata_pj);
        Some(gpu.gpu_pj + memzip_pj)
    }

    /// Whole-GPU energy-delay product in joule-seconds.
    pub fn gpu_edp_js(&self) -> Option<f64> {
        let hz = self.energy?.core_hz.filter(|hz| *hz > 0.0)?;
        Some(self.gpu_total_pj()? * 1e-12 * self.cycles as f64 / hz)
    }

    /// The share of its DRAM cycles spent in kernels that saturate the data
    /// bus ([`crate::bounds::saturated_share`] at
    /// [`crate::bounds::SATURATED_OF_CEILING`] of its simulator's stream
    /// ceiling); `None` without a per-kernel record or a known simulator.
    pub fn saturated_share(&self) -> Option<f64> {
        let (burst_cycles, threshold) = self.saturation_test()?;
        bounds::saturated_share(self.kernel_dram.as_deref()?, burst_cycles, threshold)
    }

    /// Which of its kernels, in launch order, saturate the data bus (as
    /// [`Self::saturated_share`] counts them); `None` as there.
    pub fn saturated_kernels(&self) -> Option<Vec<bool>> {
        let (burst_cycles, threshold) = self.saturation_test()?;
        Some(self.kernel_dram.as_deref()?.iter().map(|k| bounds::saturates(k, burst_cycles, threshold)).collect())
    }

    /// The bus cycles of one burst and the utilisation at which a kernel of
    /// this run saturates the bus.
    fn saturation_test(&self) -> Option<(f64, f64)> {
        let ceiling = bounds::stream_ceiling(self.simulator.as_deref()?, self.gpu)?;
        Some((self.dram?.burst_cycles()?, bounds::SATURATED_OF_CEILING * ceiling))
    }

    /// Whether this is a `none` run (the baseline its program's others are
    /// compared with).
    pub fn is_baseline(&self) -> bool {
        self.stats_codec == "none"
    }
}
