//! Energy model of the memory controller: what compression costs (the
//! compressor and decompressor, the metadata cache) and what it saves (DRAM
//! bursts), so a run can be judged by energy and energy-delay product as
//! the E2MC paper (Fig. 13) and the adaptive-compression paper (Fig. 7) judge it.
//!
//! Every constant is a field of [`EnergyParams`], one `-memzip_energy_*`
//! flag each (see `rust/memzip-ffi/src/options.rs`); defaults and their
//! derivation:
//!
//! - **Codecs** — each codec's figure is declared in its own file, with its
//!   source (`codec::declaration::EnergyFigure`; the registry looks it up by
//!   name): FPC, BDI and C-Pack(+Z) from the adaptive-compression paper's
//!   Table III, split and scaled to the block by [`CodecEnergy::from_table3`];
//!   MAG-aware BDI from BDI's and the MAG-aware paper's §IV-E; E2MC (and SLC,
//!   E2MC16's) from the E2MC paper's Table III; BPC an estimate derived from
//!   FPC's and BDI's (`codec/bpc.rs`).
//! - **Metadata cache** — the MAG-aware paper §V-B (CACTI 6.5, 32 nm, 16 KB): 0.0014 nJ
//!   per read, 0.00097 nJ per write; not rescaled for other capacities. A
//!   read-back looks the block up (one read); a write-back updates its
//!   metadata (one write); a miss fills the line (one more write).
//! - **DRAM** — the simulator's own power model: GPUWattch's empirical DRAM
//!   coefficients in gpgpu-sim's GTX480 configuration (`gpuwattch_gtx480.xml`,
//!   v3.2.1 and dev alike): a read command costs `dram_rd_coeff x MEM_RD` =
//!   7.747e-8 J x 0.33 = 25.6 nJ, a write `dram_wr_coeff x MEM_WR` =
//!   3.547e-8 J x 0.40 = 14.2 nJ, a precharge `dram_pre_coeff x MEM_PRE` =
//!   3.848e-8 J x 0.11 = 4.23 nJ (the activation coefficient is 0: a row
//!   activation is charged through the precharge that closes it). A GTX480
//!   command moves a 64-byte atom (burst 8 x 32-bit bus x 2 devices), so per
//!   bit: read 49.9 pJ, write 27.7 pJ; a burst at the MAG costs that times the
//!   MAG's bits. These fitted coefficients lump DRAM background power into the
//!   per-access terms, so they sit above datasheet GDDR5 I/O figures; the
//!   flags take any other figure.
//!
//! The 7 nm (the adaptive-compression paper) and 32 nm (the E2MC and MAG-aware papers) figures are used as
//! published, not rescaled to one node.
//!
//! What each event costs is [`EnergyModel`](super::EnergyModel)'s (`energy_model.rs`).

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The block size the adaptive-compression paper's Table III figures are for.
pub const PAPER004_BLOCK_BITS: usize = 512;

/// The DRAM atom the GPUWattch GTX480 coefficients are per command of.
pub const GPUWATTCH_GTX480_ATOM_BITS: f64 = 512.0;

/// One row of the adaptive-compression paper Table III: power (mW) and latency (cycles at 1 GHz)
/// of the compressor and decompressor (the rows are in the codecs' files).
#[derive(Debug, Clone, Copy)]
pub struct PowerLatency {
    pub compress_mw: f64,
    pub compress_cycles: f64,
    pub decompress_mw: f64,
    pub decompress_cycles: f64,
}

impl PowerLatency {
    /// The share of the combined energy spent compressing.
    pub fn compress_share(&self) -> f64 {
        let compress = self.compress_mw * self.compress_cycles;
        compress / (compress + self.decompress_mw * self.decompress_cycles)
    }
}

/// The energy constants; every field is a `-memzip_energy_*` flag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyParams {
    /// FPC compress + decompress, pJ per 512-bit block (the adaptive-compression paper Table III).
    pub fpc_pj: f64,
    /// BDI compress + decompress, pJ per 512-bit block (the adaptive-compression paper Table III).
    pub bdi_pj: f64,
    /// C-Pack+Z compress + decompress, pJ per 512-bit block (the adaptive-compression paper Table III).
    pub cpack_pj: f64,
    /// MAG-aware BDI's compressor units over BDI's (the MAG-aware paper: 3 of 6).
    pub mag_bdi_unit_ratio: f64,
    /// E2MC pJ per symbol compressed; `None`: the E2MC paper Table III for the SL.
    pub e2mc_compress_pj_per_symbol: Option<f64>,
    /// E2MC pJ per symbol decompressed; `None`: the E2MC paper Table III for the SL.
    pub e2mc_decompress_pj_per_symbol: Option<f64>,
    /// Metadata-cache read, pJ (the MAG-aware paper: 0.0014 nJ for 16 KB).
    pub mdc_read_pj: f64,
    /// Metadata-cache write, pJ (the MAG-aware paper: 0.00097 nJ for 16 KB).
    pub mdc_write_pj: f64,
    /// DRAM read, pJ per bit moved (GPUWattch GTX480).
    pub dram_read_pj_per_bit: f64,
    /// DRAM write, pJ per bit moved (GPUWattch GTX480).
    pub dram_write_pj_per_bit: f64,
    /// DRAM row activation (with its precharge), pJ (GPUWattch GTX480).
    pub dram_activation_pj: f64,
    /// BPC compress + decompress, pJ per 512-bit block: an estimate derived
    /// from FPC's and BDI's Table III figures (`codec/bpc.rs`).
    pub bpc_pj: f64,
}

impl Default for EnergyParams {
    fn default() -> Self {
        EnergyParams {
            fpc_pj: 36.9,
            bdi_pj: 1.3,
            cpack_pj: 40.0,
            mag_bdi_unit_ratio: 3.0 / 6.0,
            e2mc_compress_pj_per_symbol: None,
            e2mc_decompress_pj_per_symbol: None,
            mdc_read_pj: 1.4,
            mdc_write_pj: 0.97,
            dram_read_pj_per_bit: 7.74707143e-8 * 0.33 * 1e12 / GPUWATTCH_GTX480_ATOM_BITS,
            dram_write_pj_per_bit: 3.54664286e-8 * 0.40 * 1e12 / GPUWATTCH_GTX480_ATOM_BITS,
            dram_activation_pj: 3.8475e-8 * 0.11 * 1e12,
            bpc_pj: 36.9 + 1.3,
        }
    }
}

/// What one codec's compressor and decompressor cost per block.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CodecEnergy {
    pub compress_pj: f64,
    pub decompress_pj: f64,
}

impl CodecEnergy {
    /// A total of the adaptive-compression paper's Table III, split by power x latency of its
    /// `row` and scaled linearly from 512 bits to the block (each unit
    /// processes the block's words once).
    pub fn from_table3(total_pj_per_512_bits: f64, row: PowerLatency, block_bits: usize) -> Self {
        let total = total_pj_per_512_bits * block_bits as f64 / PAPER004_BLOCK_BITS as f64;
        let share = row.compress_share();
        CodecEnergy { compress_pj: total * share, decompress_pj: total * (1.0 - share) }
    }

    /// Both halves added (a unit built from two others).
    pub fn plus(self, other: CodecEnergy) -> Self {
        CodecEnergy {
            compress_pj: self.compress_pj + other.compress_pj,
            decompress_pj: self.decompress_pj + other.decompress_pj,
        }
    }

    /// Both halves scaled by `factor`.
    pub fn scaled(self, factor: f64) -> Self {
        CodecEnergy { compress_pj: self.compress_pj * factor, decompress_pj: self.decompress_pj * factor }
    }

    pub fn total_pj(&self) -> f64 {
        self.compress_pj + self.decompress_pj
    }
}

impl EnergyParams {
    /// Energy of one DRAM burst at a MAG of `mag_bytes`: (read, write).
    pub fn burst_pj(&self, mag_bytes: usize) -> (f64, f64) {
        let bits = (mag_bytes * 8) as f64;
        (self.dram_read_pj_per_bit * bits, self.dram_write_pj_per_bit * bits)
    }

    /// Checks every constant is a finite, non-negative number; the error
    /// names the field (the flag is `-memzip_energy_<field>`).
    pub fn validate(&self) -> Result<(), (&'static str, f64)> {
        let optional = |v: Option<f64>| v.unwrap_or(0.0);
        let fields = [
            ("fpc_pj", self.fpc_pj),
            ("bdi_pj", self.bdi_pj),
            ("cpack_pj", self.cpack_pj),
            ("mag_bdi_unit_ratio", self.mag_bdi_unit_ratio),
            ("e2mc_comp_pj_per_symbol", optional(self.e2mc_compress_pj_per_symbol)),
            ("e2mc_decomp_pj_per_symbol", optional(self.e2mc_decompress_pj_per_symbol)),
            ("mdc_read_pj", self.mdc_read_pj),
            ("mdc_write_pj", self.mdc_write_pj),
            ("dram_read_pj_per_bit", self.dram_read_pj_per_bit),
            ("dram_write_pj_per_bit", self.dram_write_pj_per_bit),
            ("dram_activation_pj", self.dram_activation_pj),
            ("bpc_pj", self.bpc_pj),
        ];
        match fields.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
            Some(&(name, value)) => Err((name, value)),
            None => Ok(()),
        }
    }
}

/// Energy spent so far, by component, in pJ. Plain sums: merge adds them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EnergyStats {
    /// Compressors, kernel write-backs.
    pub compress_pj: f64,
    /// Decompressors, kernel reads of compressed blocks.
    pub decompress_pj: f64,
    pub mdc_reads: u64,
    pub mdc_writes: u64,
    pub mdc_read_pj: f64,
    pub mdc_write_pj: f64,
    /// DRAM read bursts (blocks and metadata line fills).
    pub dram_read_pj: f64,
    /// DRAM write bursts (blocks and dirty metadata lines).
    pub dram_write_pj: f64,
    /// Row activations as the simulator's DRAM model counts them (0 until
    /// the simulator reports them; see [`with_activations`](Self::with_activations)).
    pub dram_activations: u64,
    pub dram_activation_pj: f64,
    /// The energy of one activation in effect (`EnergyParams`), to price
    /// the activations the simulator reports.
    pub activation_pj_each: f64,
    /// Compressors during host-to-device copies (not in the total).
    pub copy_compress_pj: f64,
    /// Simulated core cycles and core clock (Hz) of the run, for the
    /// energy-delay product; 0 when unknown.
    pub simulated_cycles: u64,
    pub core_hz: f64,
}

impl EnergyStats {
    pub fn codec_pj(&self) -> f64 {
        self.compress_pj + self.decompress_pj
    }

    pub fn metadata_pj(&self) -> f64 {
        self.mdc_read_pj + self.mdc_write_pj
    }

    pub fn dram_pj(&self) -> f64 {
        self.dram_read_pj + self.dram_write_pj + self.dram_activation_pj
    }

    /// DRAM + codec + metadata cache (kernel time only).
    pub fn total_pj(&self) -> f64 {
        self.dram_pj() + self.codec_pj() + self.metadata_pj()
    }

    /// Simulated seconds, when the cycles and clock are known.
    pub fn simulated_seconds(&self) -> Option<f64> {
        (self.simulated_cycles > 0 && self.core_hz > 0.0).then(|| self.simulated_cycles as f64 / self.core_hz)
    }

    /// Energy-delay product in joule-seconds.
    pub fn edp_js(&self) -> Option<f64> {
        self.simulated_seconds().map(|s| self.total_pj() * 1e-12 * s)
    }

    /// These stats with `activations` row activations priced in (the
    /// simulator's cumulative count replaces any earlier one).
    pub fn with_activations(&self, activations: u64) -> EnergyStats {
        EnergyStats {
            dram_activations: activations,
            dram_activation_pj: activations as f64 * self.activation_pj_each,
            ..*self
        }
    }

    pub fn merge(&mut self, other: &EnergyStats) {
        self.compress_pj += other.compress_pj;
        self.decompress_pj += other.decompress_pj;
        self.mdc_reads += other.mdc_reads;
        self.mdc_writes += other.mdc_writes;
        self.mdc_read_pj += other.mdc_read_pj;
        self.mdc_write_pj += other.mdc_write_pj;
        self.dram_read_pj += other.dram_read_pj;
        self.dram_write_pj += other.dram_write_pj;
        self.dram_activations += other.dram_activations;
        self.dram_activation_pj += other.dram_activation_pj;
        self.copy_compress_pj += other.copy_compress_pj;
        // One run: the controllers share the constants, the clock and the
        // cycle count.
        self.activation_pj_each = self.activation_pj_each.max(other.activation_pj_each);
        self.simulated_cycles = self.simulated_cycles.max(other.simulated_cycles);
        self.core_hz = self.core_hz.max(other.core_hz);
    }
}

impl Serialize for EnergyStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("EnergyStats", 19)?;
        s.serialize_field("total_pj", &self.total_pj())?;
        s.serialize_field("dram_pj", &self.dram_pj())?;
        s.serialize_field("codec_pj", &self.codec_pj())?;
        s.serialize_field("metadata_pj", &self.metadata_pj())?;
        s.serialize_field("dram_read_pj", &self.dram_read_pj)?;
        s.serialize_field("dram_write_pj", &self.dram_write_pj)?;
        s.serialize_field("dram_activations", &self.dram_activations)?;
        s.serialize_field("dram_activation_pj", &self.dram_activation_pj)?;
        s.serialize_field("compress_pj", &self.compress_pj)?;
        s.serialize_field("decompress_pj", &self.decompress_pj)?;
        s.serialize_field("mdc_reads", &self.mdc_reads)?;
        s.serialize_field("mdc_writes", &self.mdc_writes)?;
        s.serialize_field("mdc_read_pj", &self.mdc_read_pj)?;
        s.serialize_field("mdc_write_pj", &self.mdc_write_pj)?;
        s.serialize_field("copy_compress_pj", &self.copy_compress_pj)?;
        s.serialize_field("simulated_cycles", &self.simulated_cycles)?;
        s.serialize_field("core_hz", &self.core_hz)?;
        s.serialize_field("simulated_seconds", &self.simulated_seconds())?;
        s.serialize_field("edp_js", &self.edp_js())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registered codec's declared figure (the registry looks it up).
    fn figure(p: &EnergyParams, name: &str, block_bits: usize) -> Option<CodecEnergy> {
        crate::codec::registry::energy(name, p, block_bits)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn table3_split_keeps_the_papers_totals_and_scales_to_the_block() {
        let p = EnergyParams::default();
        for (name, total) in [("fpc", 36.9), ("bdi", 1.3), ("cpack_z", 40.0), ("cpack", 40.0)] {
            let e = figure(&p, name, 512).unwrap();
            assert!(close(e.compress_pj + e.decompress_pj, total), "{name}: {e:?}");
            let e128 = figure(&p, name, 1024).unwrap();
            assert!(close(e128.compress_pj, 2.0 * e.compress_pj), "{name}");
        }
        // FPC: 4.6 mW x 3 cycles : 4.6 mW x 5 cycles.
        let fpc = figure(&p, "fpc", 512).unwrap();
        assert!(close(fpc.compress_pj, 36.9 * 3.0 / 8.0) && close(fpc.decompress_pj, 36.9 * 5.0 / 8.0));
        // BDI: 0.6 x 2 : 0.2 x 1; MAG-aware BDI compresses with half the units.
        let bdi = figure(&p, "bdi", 1024).unwrap();
        assert!(close(bdi.compress_pj, 2.6 * 1.2 / 1.4) && close(bdi.decompress_pj, 2.6 * 0.2 / 1.4));
        let mag = figure(&p, "mag_bdi", 1024).unwrap();
        assert!(close(mag.compress_pj, bdi.compress_pj / 2.0) && close(mag.decompress_pj, bdi.decompress_pj));
        assert_eq!(figure(&p, "none", 1024), Some(CodecEnergy::default()));
        assert_eq!(figure(&p, "zip", 1024), None);
    }

    #[test]
    fn bpc_is_estimated_as_bdi_plus_fpc_and_scaled_by_its_flag() {
        let p = EnergyParams::default();
        let bpc = figure(&p, "bpc", 512).unwrap();
        assert!(close(bpc.compress_pj, 36.9 * 3.0 / 8.0 + 1.3 * 1.2 / 1.4), "{bpc:?}");
        assert!(close(bpc.decompress_pj, 36.9 * 5.0 / 8.0 + 1.3 * 0.2 / 1.4), "{bpc:?}");
        assert!(close(bpc.total_pj(), 38.2) && close(p.bpc_pj, 38.2));
        let at_128_bytes = figure(&p, "bpc", 1024).unwrap();
        assert!(close(at_128_bytes.compress_pj, 2.0 * bpc.compress_pj));
        let doubled = figure(&EnergyParams { bpc_pj: 76.4, ..p }, "bpc", 512).unwrap();
        assert!(close(doubled.decompress_pj, 2.0 * bpc.decompress_pj), "the flag scales both halves");
        let cheaper_fpc = figure(&EnergyParams { fpc_pj: 1.0, ..p }, "bpc", 512).unwrap();
        assert_eq!(cheaper_fpc, bpc, "FPC's flag does not move BPC's estimate");
    }

    #[test]
    fn e2mc_costs_power_over_frequency_per_symbol() {
        let p = EnergyParams::default();
        let e16 = figure(&p, "e2mc16", 1024).unwrap();
        assert!(close(e16.compress_pj, 64.0 * 5.47 / 1.43), "{e16:?}");
        assert!(close(e16.decompress_pj, 64.0 * 11.89 / 0.80), "{e16:?}");
        let e4 = figure(&p, "e2mc4", 1024).unwrap();
        assert!(close(e4.compress_pj, 256.0 * 1.43 / 1.67));
        let e32 = figure(&p, "e2mc32", 512).unwrap();
        assert!(close(e32.decompress_pj, 16.0 * 14.30 / 0.80));
        assert_eq!(figure(&p, "e2mc12", 1024), None);
        let overridden = EnergyParams { e2mc_decompress_pj_per_symbol: Some(2.0), ..p };
        assert!(close(figure(&overridden, "e2mc8", 1024).unwrap().decompress_pj, 256.0));
    }

    #[test]
    fn dram_figures_come_from_gpuwattch_per_bit() {
        let p = EnergyParams::default();
        let (read, write) = p.burst_pj(32);
        assert!(close(read, 7.74707143e-8 * 0.33 * 1e12 / 2.0), "a 32-byte burst is half a GTX480 command");
        assert!(close(write, 3.54664286e-8 * 0.40 * 1e12 / 2.0));
        assert!(close(p.dram_activation_pj, 4232.25));
        assert!(close(p.burst_pj(64).0, 2.0 * read));
    }

    #[test]
    fn validate_names_the_bad_constant() {
        assert_eq!(EnergyParams::default().validate(), Ok(()));
        let bad = EnergyParams { mdc_write_pj: -1.0, ..EnergyParams::default() };
        assert_eq!(bad.validate(), Err(("mdc_write_pj", -1.0)));
        let nan = EnergyParams { e2mc_compress_pj_per_symbol: Some(f64::NAN), ..EnergyParams::default() };
        assert_eq!(nan.validate().unwrap_err().0, "e2mc_comp_pj_per_symbol");
    }

    #[test]
    fn stats_sum_components_and_edp() {
        let mut a = EnergyStats {
            compress_pj: 10.0,
            decompress_pj: 5.0,
            mdc_read_pj: 1.0,
            mdc_write_pj: 2.0,
            dram_read_pj: 100.0,
            dram_write_pj: 50.0,
            dram_activation_pj: 20.0,
            copy_compress_pj: 7.0,
            ..Default::default()
        };
        assert!(close(a.total_pj(), 188.0));
        assert_eq!(a.edp_js(), None, "no time yet");
        a.simulated_cycles = 822;
        a.core_hz = 822e6;
        assert!(close(a.edp_js().unwrap(), 188e-12 * 1e-6));
        let mut b = a;
        b.merge(&a);
        assert!(close(b.total_pj(), 376.0));
        let priced = EnergyStats { activation_pj_each: 4.0, ..EnergyStats::default() }.with_activations(5);
        assert_eq!((priced.dram_activations, priced.dram_activation_pj, priced.total_pj()), (5, 20.0, 20.0));
        assert_eq!(b.simulated_cycles, 822, "controllers of one run share the time");
        let json = serde_json::to_value(b).unwrap();
        assert!(close(json["total_pj"].as_f64().unwrap(), 376.0));
        assert!(close(json["copy_compress_pj"].as_f64().unwrap(), 14.0));
    }
}
