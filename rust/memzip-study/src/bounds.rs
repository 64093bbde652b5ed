//! How much faster the DRAM model lets a codec run go than its program's
//! `none` run, from the simulator's DRAM counters (`total.dram_device` of
//! `stats.json`: DRAM cycles, data-bus busy cycles and row activations,
//! summed over the channels).
//!
//! - **Bus estimate** (not a bound): if a codec takes `busy_none -
//!   busy_codec` cycles off the data bus and nothing else changes, the run
//!   is that much shorter: `1 / (1 - u * (1 - busy_codec / busy_none))`,
//!   where `u` is the `none` run's bus utilisation: Amdahl's law on the bus
//!   busy time. A run exceeds it whenever its DRAM also idles fewer cycles
//!   than under `none` (its warps wait less for something else: the write
//!   delay of a compressor letting reads go first, fewer queued requests,
//!   other work when the kernel count differs), and committed runs do (the
//!   reports mark and list them).
//! - **Activation bound**: a channel opens at most one row every tRRD
//!   cycles, so a run takes at least `activations x tRRD` DRAM cycles:
//!   `cycles_none / (activations_codec x tRRD)`. Compression sends fewer
//!   bursts per access but opens the same rows. This one holds: no committed
//!   run exceeds it (a test of memzip-cli checks every one).
//!
//! A speedup's estimate is the smaller of the two; [`gain_share`] says how
//! much of the gain it allows the run took.

use crate::gpu::Gpu;
use crate::sim_log::KernelDram;

/// A run's DRAM counters, summed over the channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramCounters {
    /// DRAM command cycles.
    pub cycles: u64,
    /// Cycles the data bus was busy.
    pub busy_cycles: u64,
    /// Row activations.
    pub activations: u64,
    /// Read and write commands (one burst each).
    pub commands: u64,
}

impl DramCounters {
    /// Bus cycles one command's burst takes (the counters' own ratio).
    pub fn burst_cycles(&self) -> Option<f64> {
        (self.commands > 0).then(|| self.busy_cycles as f64 / self.commands as f64)
    }
}

/// tRRD of the GTX580-MAG32 configuration the study runs on (12 DRAM
/// command cycles at 2004 MHz, dev and v3.2.1 alike;
/// `gpgpu-sim-patch/*/configs/GTX580-MAG32`): the activation bound of a run
/// whose log, `run.json` and sweep options do not give it.
pub const GTX580_MAG32_RRD_CYCLES: u64 = 12;

/// How much faster a codec run would be than the `none` run if only its bus
/// cycles changed (Amdahl's law on the bus busy time; an estimate, not a
/// bound: see the module doc); `None` without bus cycles to compare.
pub fn bus_estimate(none: &DramCounters, codec: &DramCounters) -> Option<f64> {
    if none.cycles == 0 || none.busy_cycles == 0 {
        return None;
    }
    let utilization = none.busy_cycles as f64 / none.cycles as f64;
    let saved = 1.0 - codec.busy_cycles as f64 / none.busy_cycles as f64;
    let remaining = 1.0 - utilization * saved;
    (remaining > 0.0).then(|| 1.0 / remaining)
}

/// The most a codec run may run faster than the `none` run when each of its
/// row activations holds its channel for `rrd_cycles`; `None` without
/// activations.
pub fn activation_bound(none: &DramCounters, codec: &DramCounters, rrd_cycles: u64) -> Option<f64> {
    let floor = codec.activations.checked_mul(rrd_cycles).filter(|&c| c > 0)?;
    Some(none.cycles as f64 / floor as f64)
}

/// Below this gain an estimate is within the timing noise (one more DRAM cycle
/// moves the study's programs by up to 0.7%, transpose by 2.5%:
/// `benchmarks/results/noise`), and a share of it says nothing.
pub const MIN_BOUND_GAIN: f64 = 0.01;

/// The share of its estimated gain a run took: `(speedup - 1) / (estimate - 1)`;
/// `None` when the estimate allows less than [`MIN_BOUND_GAIN`] or either
/// is missing.
pub fn gain_share(speedup: Option<f64>, estimate: Option<f64>) -> Option<f64> {
    let (speedup, estimate) = (speedup?, estimate?);
    (estimate >= 1.0 + MIN_BOUND_GAIN).then(|| (speedup - 1.0) / (estimate - 1.0))
}

/// The bus utilisation a pure stream reaches on each GPU and simulator
/// (`benchmarks/kernels/patterns.cu ints 2097152` under none, 8 MB in and
/// 8 MB out, one kernel; `benchmarks/results/ceiling/`): on the GTX580, dev's
/// DRAM bus can be kept busy 0.89 of the time, v3.2.1's only 0.62 (its L2 and
/// interconnect deliver no more requests). `simulator` is run.json's
/// (`dev-6b244a5`, `v3.2.1`); `None` for a pair not measured.
pub fn stream_ceiling(simulator: &str, gpu: Gpu) -> Option<f64> {
    let dev = simulator.starts_with("dev");
    match gpu {
        Gpu::Gtx580 if dev => Some(0.89),
        Gpu::Gtx580 if simulator.starts_with("v3.2.1") => Some(0.62),
        Gpu::Qv100 if dev => QV100_CEILING,
        Gpu::Rtx3070 if dev => RTX3070_CEILING,
        _ => None,
    }
}

/// The memory-bound line on `gpu` under gpgpu-sim dev: `gtx580_line` (the
/// utilisation at which the GTX580's programs count as memory-bound, 0.40 in
/// the manifests' `BOUND`) scaled by how busy a pure stream keeps each GPU's
/// bus, so that a program is memory-bound on every GPU at the same share of
/// what its bus can carry (benchmarks/README.md, "The study on the QV100").
/// `None` for a GPU whose ceiling is not measured.
pub fn memory_bound_line(gpu: Gpu, gtx580_line: f64) -> Option<f64> {
    let ceiling = stream_ceiling("dev", gpu)?;
    let gtx580 = stream_ceiling("dev", Gpu::Gtx580)?;
    Some(gtx580_line * ceiling / gtx580)
}

/// The QV100's and the RTX3070's stream ceilings under dev
/// (`benchmarks/results/ceiling/`), with `benchmarks/kernels/stream.cu`,
/// which fills every SM: `patterns.cu`'s 64 blocks, enough for the GTX580's
/// 15 SMs, kept the QV100's bus busy only 0.357 of the time.
const QV100_CEILING: Option<f64> = Some(0.80);
const RTX3070_CEILING: Option<f64> = Some(0.85);

/// A kernel saturates the bus when its utilisation is at least this share
/// of its simulator's [`stream_ceiling`].
pub const SATURATED_OF_CEILING: f64 = 0.8;

/// The share of a run's DRAM cycles spent in kernels whose bus utilisation
/// is at least `threshold`: how much of the run a codec's saved bus cycles
/// can shorten. An average utilisation hides a program whose kernels
/// alternate between a saturated bus and an idle one.
pub fn saturated_share(kernels: &[KernelDram], burst_cycles: f64, threshold: f64) -> Option<f64> {
    let total: u64 = kernels.iter().map(|k| k.dram_cycles).sum();
    if total == 0 {
        return None;
    }
    let saturated: u64 = kernels.iter().filter(|k| saturates(k, burst_cycles, threshold)).map(|k| k.dram_cycles).sum();
    Some(saturated as f64 / total as f64)
}

/// Whether a kernel keeps the data bus busy in at least `threshold` of its
/// DRAM cycles.
pub fn saturates(kernel: &KernelDram, burst_cycles: f64, threshold: f64) -> bool {
    kernel.utilization(burst_cycles).is_some_and(|u| u >= threshold)
}

/// A codec run's speedup over its `none` run on the kernels `chosen` picks
/// (by launch order): their DRAM cycles under `none` over theirs under the
/// codec. A kernel's DRAM cycles count every cycle it ran on every channel,
/// so their ratio is its speedup (over a whole run it equals the cycles'
/// ratio to 5 digits: FWT on `walsh` under BDI, 1.27725 against 1.27723).
/// `None` when the runs launched other numbers of kernels (other work) or
/// `chosen` picks no cycles.
pub fn kernels_speedup(none: &[KernelDram], codec: &[KernelDram], chosen: &[bool]) -> Option<f64> {
    if none.len() != codec.len() || none.len() != chosen.len() {
        return None;
    }
    let picked = |kernels: &[KernelDram]| -> u64 {
        kernels.iter().zip(chosen).filter(|(_, &c)| c).map(|(k, _)| k.dram_cycles).sum()
    };
    let (none_cycles, codec_cycles) = (picked(none), picked(codec));
    (none_cycles > 0 && codec_cycles > 0).then(|| none_cycles as f64 / codec_cycles as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_bound_line_scales_with_each_gpus_stream_ceiling() {
        assert_eq!(memory_bound_line(Gpu::Gtx580, 0.4), Some(0.4), "the manifests' BOUND line as it was");
        let qv100 = memory_bound_line(Gpu::Qv100, 0.4).unwrap();
        assert!((qv100 - 0.4 * 0.80 / 0.89).abs() < 1e-12, "{qv100}");
        assert_eq!(stream_ceiling("v3.2.1", Gpu::Qv100), None, "v3.2.1 runs the GTX580 only");
        assert_eq!(stream_ceiling("v3.2.1", Gpu::Gtx580), Some(0.62));
        assert_eq!(stream_ceiling("dev-6b244a5", Gpu::Qv100), Some(0.80));
        assert_eq!(stream_ceiling("dev-6b244a5", Gpu::Rtx3070), Some(0.85));
    }

    fn counters(cycles: u64, busy_cycles: u64, activations: u64) -> DramCounters {
        DramCounters { cycles, busy_cycles, activations, commands: busy_cycles / 2 }
    }

    /// lbm at `study` under none and under MAG-aware BDI, which ran 1.442x.
    fn lbm_study() -> (DramCounters, DramCounters) {
        let none =
            DramCounters { cycles: 15_746_982, busy_cycles: 12_751_520, activations: 865_563, commands: 6_375_760 };
        let codec =
            DramCounters { cycles: 10_916_760, busy_cycles: 3_321_986, activations: 853_396, commands: 1_660_993 };
        (none, codec)
    }

    #[test]
    fn bus_estimate_is_the_time_left_when_only_the_bus_shrinks() {
        // lbm at `study` under none and MAG-aware BDI (benchmarks/results/study):
        // bus busy 0.81 of the time, 26% of its bus cycles left: up to 2.49x.
        let (none, codec) = lbm_study();
        assert!((bus_estimate(&none, &codec).unwrap() - 2.4926).abs() < 1e-4);
        // Halving the bus cycles of a run busy 80% of the time: 1 / 0.6.
        let b = bus_estimate(&counters(1000, 800, 1), &counters(900, 400, 1)).unwrap();
        assert!((b - 1.0 / 0.6).abs() < 1e-12);
        // No bus cycles saved: no gain; more bus cycles: an estimate below 1.
        assert_eq!(bus_estimate(&counters(1000, 800, 1), &counters(1000, 800, 1)), Some(1.0));
        assert!(bus_estimate(&counters(1000, 800, 1), &counters(1000, 900, 1)).unwrap() < 1.0);
        assert_eq!(bus_estimate(&counters(1000, 0, 1), &counters(1000, 0, 1)), None);
    }

    #[test]
    fn activation_bound_is_none_cycles_over_the_activations_floor() {
        // 1000 DRAM cycles; 50 activations x 12 cycles = 600 at the least.
        let b = activation_bound(&counters(1000, 800, 60), &counters(700, 400, 50), 12).unwrap();
        assert!((b - 1000.0 / 600.0).abs() < 1e-12);
        // lbm: its 853,396 activations x 12 cycles fill 94% of the MAG-aware BDI
        // run's DRAM cycles, so it could run at most 1.54x (it ran 1.442x).
        let (none, codec) = lbm_study();
        assert!((activation_bound(&none, &codec, 12).unwrap() - 1.5377).abs() < 1e-4);
        assert!((853_396.0 * 12.0 / 10_916_760.0 - 0.938f64).abs() < 1e-3);
        assert_eq!(activation_bound(&counters(1000, 800, 60), &counters(700, 400, 0), 12), None);
    }

    #[test]
    fn gain_share_relates_the_gain_to_the_estimate() {
        assert!((gain_share(Some(1.2), Some(1.5)).unwrap() - 0.4).abs() < 1e-12);
        assert!(gain_share(Some(0.98), Some(1.5)).unwrap() < 0.0);
        assert_eq!(gain_share(Some(1.01), Some(1.009)), None, "an estimate within the noise");
        assert_eq!(gain_share(None, Some(1.5)), None);
    }

    #[test]
    fn saturated_share_weights_kernels_by_their_dram_cycles() {
        let kernels = [
            KernelDram { dram_cycles: 600, commands: 240 }, // 0.8 at 2 cycles a burst
            KernelDram { dram_cycles: 400, commands: 70 },  // 0.35
        ];
        assert!((saturated_share(&kernels, 2.0, 0.7).unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(saturated_share(&kernels, 2.0, 0.9), Some(0.0));
        assert_eq!(saturated_share(&[], 2.0, 0.7), None);
    }

    #[test]
    fn kernels_speedup_compares_the_chosen_kernels_dram_cycles() {
        let kernel = |dram_cycles| KernelDram { dram_cycles, commands: 0 };
        let none = [kernel(600), kernel(400), kernel(200)];
        let codec = [kernel(400), kernel(380), kernel(100)];
        assert!((kernels_speedup(&none, &codec, &[true, false, true]).unwrap() - 800.0 / 500.0).abs() < 1e-12);
        assert!((kernels_speedup(&none, &codec, &[false, true, false]).unwrap() - 400.0 / 380.0).abs() < 1e-12);
        assert_eq!(kernels_speedup(&none, &codec, &[false; 3]), None, "no kernel chosen");
        assert_eq!(kernels_speedup(&none, &codec[..2], &[true; 3]), None, "another number of kernels");
    }
}
