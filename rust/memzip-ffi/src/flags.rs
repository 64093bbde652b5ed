//! The simulator's `-memzip_*` flags. This table is the one place a flag is
//! declared: its name, default, help text and how its value is read. The
//! simulator registers every flag it lists as a text option and hands the
//! values back as text, in the table's order; [`read`] turns them into
//! [`Options`], and an error names the flag.

use memzip::codec::registry::codec_names;
use memzip::mc::{EnergyParams, MdcConfig, PartialReads, PartialWrites};

/// E2MC's default online sampling window: the first 20M instructions, as
/// "E2MC: Entropy Encoding Based Memory Compression for GPUs" (IPDPS 2017),
/// Section III-B2, samples.
const DEFAULT_SAMPLING: &str = "online:20000000";

/// Every `-memzip_*` value, as read. Numbers below zero mean "the codec's
/// default".
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `-memzip_codec`: a codec spec (`none`, `bdi`, `mag_bdi:bases=8+4+2`, `adaptive`, ...).
    pub codec: String,
    pub block_bytes: u32,
    pub mag_bytes: u32,
    pub mdc_bytes: u32,
    pub mdc_assoc: u32,
    pub comp_latency: i32,
    pub decomp_latency: i32,
    pub e2mc_pdw: i32,
    pub e2mc_mfv: i32,
    /// `online:<instructions>`, `online:blocks=<N>` or `offline:<table.json>`.
    pub e2mc_sampling: String,
    pub adaptive_lambda: i32,
    /// Codec specs separated by `/` (each may carry knobs: `mag_bdi:bases=8+4+2/fpc`).
    pub adaptive_candidates: String,
    pub verify: bool,
    /// `rmw` or `raw`: what a write of part of a compressed block does
    /// (`memzip::mc::PartialWrites`).
    pub partial_writes: String,
    /// `sector` or `fill`: what the L2 keeps of a compressed block a sector
    /// read fetched whole (`memzip::mc::PartialReads`).
    pub partial_reads: String,
    /// The device allocations a lossy codec may approximate,
    /// `n[:label]` or `first-last[:label]` items separated by `,`
    /// ([`memzip::mc::ApproximableMemory`]); empty: none.
    pub approx_allocs: String,
    /// A file for the DRAM block trace; empty: none.
    pub trace: String,
    /// A file for the statistics as JSON, rewritten at every kernel end; empty: none.
    pub stats_json: String,
    /// The clock (MHz) the codecs' latencies count, converted to core cycles.
    pub latency_mhz: u32,
    /// The `-memzip_energy_*` values, in [`ENERGY_FLAGS`] order.
    pub energy: Vec<f64>,
}

/// Where a flag's value goes, and so how it is read.
#[derive(Clone, Copy)]
enum Slot {
    Text(fn(&mut Options) -> &mut String),
    Count(fn(&mut Options) -> &mut u32),
    Signed(fn(&mut Options) -> &mut i32),
    /// 0 or 1: the simulator's own boolean options abort on other values.
    Switch(fn(&mut Options) -> &mut bool),
    /// The `-memzip_energy_*` value at this index.
    Energy(usize),
}

/// One flag as the simulator registers it.
pub struct Flag {
    pub name: String,
    pub default_value: String,
    pub help: String,
    slot: Slot,
}

/// The `-memzip_energy_*` flags, one per constant of `memzip::mc::EnergyParams`
/// (sources and derivations in rust/memzip/src/mc/energy.rs): suffix after
/// `-memzip_energy_`, default, help text.
fn energy_flags() -> [(&'static str, f64, &'static str); 12] {
    let d = EnergyParams::default();
    [
        ("fpc_pj", d.fpc_pj, "FPC compress+decompress energy, pJ per 512-bit block (adaptive multi-GPU compression paper, Table III, 7 nm); split by power x latency, scaled to the block"),
        ("bdi_pj", d.bdi_pj, "BDI compress+decompress energy, pJ per 512-bit block (adaptive multi-GPU compression paper, Table III, 7 nm)"),
        ("cpack_pj", d.cpack_pj, "C-Pack+Z (and C-Pack) compress+decompress energy, pJ per 512-bit block (adaptive multi-GPU compression paper, Table III, 7 nm)"),
        ("mag_bdi_unit_ratio", d.mag_bdi_unit_ratio, "MAG-aware BDI compression energy as a fraction of BDI's (MAG-aware BDI paper: 3 of BDI's 6 compressor units)"),
        ("e2mc_comp_pj_per_symbol", -1.0, "E2MC compression energy per symbol, pJ (-1: E2MC paper Table III power / frequency for the symbol length)"),
        ("e2mc_decomp_pj_per_symbol", -1.0, "E2MC decompression energy per symbol, pJ (-1: E2MC paper Table III power / frequency for the symbol length)"),
        ("mdc_read_pj", d.mdc_read_pj, "metadata-cache read energy, pJ (MAG-aware BDI paper: 0.0014 nJ, 16 KB, 32 nm)"),
        ("mdc_write_pj", d.mdc_write_pj, "metadata-cache write energy, pJ (MAG-aware BDI paper: 0.00097 nJ, 16 KB, 32 nm)"),
        ("dram_read_pj_per_bit", d.dram_read_pj_per_bit, "DRAM read energy, pJ per bit (GPUWattch GTX480: dram_rd_coeff x MEM_RD per 64-byte command)"),
        ("dram_write_pj_per_bit", d.dram_write_pj_per_bit, "DRAM write energy, pJ per bit (GPUWattch GTX480: dram_wr_coeff x MEM_WR per 64-byte command)"),
        ("dram_activation_pj", d.dram_activation_pj, "DRAM row activation (and its precharge) energy, pJ (GPUWattch GTX480: dram_pre_coeff x MEM_PRE)"),
        ("bpc_pj", d.bpc_pj, "BPC compress+decompress energy, pJ per 512-bit block: an estimate, BDI's figure (delta stage) plus FPC's (plane coding) from the adaptive multi-GPU compression paper's Table III; derivation in rust/memzip/src/codec/bpc.rs"),
    ]
}

/// The `-memzip_energy_*` names, in the order of [`Options::energy`].
pub fn energy_flag_names() -> Vec<String> {
    energy_flags().iter().map(|(suffix, _, _)| format!("-memzip_energy_{suffix}")).collect()
}

/// Every flag, in the order the simulator registers them and hands back their values.
pub fn table() -> Vec<Flag> {
    let mdc = MdcConfig::default();
    let flag = |name: &str, default: &str, help: &str, slot| Flag {
        name: format!("-memzip_{name}"),
        default_value: default.to_string(),
        help: format!("memzip: {help}"),
        slot,
    };
    let mut flags = vec![
        flag(
            "codec",
            "none",
            &format!("DRAM compression codec, one of: {} (none = unchanged simulator)", codec_names().join(", ")),
            Slot::Text(|o| &mut o.codec),
        ),
        flag(
            "block_bytes",
            "128",
            "compression block size in bytes (the L2 line)",
            Slot::Count(|o| &mut o.block_bytes),
        ),
        flag(
            "mag_bytes",
            "32",
            "memory access granularity in bytes (one DRAM burst)",
            Slot::Count(|o| &mut o.mag_bytes),
        ),
        flag(
            "mdc_bytes",
            &mdc.capacity_bytes.to_string(),
            "metadata cache capacity in bytes per controller",
            Slot::Count(|o| &mut o.mdc_bytes),
        ),
        flag("mdc_assoc", &mdc.assoc.to_string(), "metadata cache associativity", Slot::Count(|o| &mut o.mdc_assoc)),
        flag(
            "comp_latency",
            "-1",
            "compression latency in cycles (-1: the codec's)",
            Slot::Signed(|o| &mut o.comp_latency),
        ),
        flag(
            "decomp_latency",
            "-1",
            "decompression latency in cycles (-1: the codec's)",
            Slot::Signed(|o| &mut o.decomp_latency),
        ),
        flag("e2mc_pdw", "-1", "E2MC parallel decoding ways (-1: the codec's)", Slot::Signed(|o| &mut o.e2mc_pdw)),
        flag("e2mc_mfv", "-1", "E2MC most frequent values kept (-1: the codec's)", Slot::Signed(|o| &mut o.e2mc_mfv)),
        flag(
            "e2mc_sampling",
            DEFAULT_SAMPLING,
            "E2MC table: online:<instructions>, online:blocks=<N per controller> or offline:<table.json>",
            Slot::Text(|o| &mut o.e2mc_sampling),
        ),
        flag(
            "adaptive_lambda",
            "-1",
            "adaptive selector lambda (-1: the codec's)",
            Slot::Signed(|o| &mut o.adaptive_lambda),
        ),
        flag(
            "adaptive_candidates",
            "",
            "adaptive candidate codecs, /-separated, knobs allowed: mag_bdi:bases=8+4+2/fpc (empty: the codec's)",
            Slot::Text(|o| &mut o.adaptive_candidates),
        ),
        flag(
            "verify",
            "0",
            "decompress every compressed block and compare (stop on mismatch), 0 or 1",
            Slot::Switch(|o| &mut o.verify),
        ),
        // Sectored L2s write back lines with only some sectors dirty;
        // rust/memzip/src/mc/controller/partial.rs models both choices.
        flag(
            "partial_writes",
            PartialWrites::default().name(),
            "a write of part of a block: rmw (a compressed block is read, merged, recompressed, written; a raw \
             one takes the write as it is), raw (a compressed block is stored raw, metadata marks it) or rmw_all \
             (as rmw, and a raw block's other units are read to compress it)",
            Slot::Text(|o| &mut o.partial_writes),
        ),
        flag(
            "partial_reads",
            PartialReads::default().name(),
            "a sector read that fetches a compressed block whole: sector (the L2 fills the sectors it asked for) \
             or fill (the L2 fills every sector of the line it does not hold; needs a sectored L2)",
            Slot::Text(|o| &mut o.partial_reads),
        ),
        flag(
            "approx_allocs",
            "",
            "device allocations a lossy codec (slc) may approximate: <n>[:<label>] or <first>-<last>[:<label>], \
             separated by commas, n the program's n-th allocation from 1 (empty: none)",
            Slot::Text(|o| &mut o.approx_allocs),
        ),
        flag("trace", "", "write every DRAM block access to this zstd trace file", Slot::Text(|o| &mut o.trace)),
        flag(
            "stats_json",
            "",
            "write the statistics as JSON to this file at every kernel end",
            Slot::Text(|o| &mut o.stats_json),
        ),
        // The E2MC paper counts (de)compression cycles at the GTX580's
        // memory-controller clock (1002 MHz); gpgpu-sim's DRAM latency queue
        // runs on the core clock.
        flag(
            "latency_mhz",
            "1002",
            "clock of the (de)compression latencies in MHz (converted to core cycles)",
            Slot::Count(|o| &mut o.latency_mhz),
        ),
    ];
    for (index, (suffix, default, help)) in energy_flags().into_iter().enumerate() {
        flags.push(flag(&format!("energy_{suffix}"), &default.to_string(), help, Slot::Energy(index)));
    }
    flags
}

/// Every flag at its default.
pub fn defaults() -> Options {
    let mut options = Options {
        codec: String::new(),
        block_bytes: 0,
        mag_bytes: 0,
        mdc_bytes: 0,
        mdc_assoc: 0,
        comp_latency: 0,
        decomp_latency: 0,
        e2mc_pdw: 0,
        e2mc_mfv: 0,
        e2mc_sampling: String::new(),
        adaptive_lambda: 0,
        adaptive_candidates: String::new(),
        verify: false,
        partial_writes: String::new(),
        partial_reads: String::new(),
        approx_allocs: String::new(),
        trace: String::new(),
        stats_json: String::new(),
        latency_mhz: 0,
        energy: vec![0.0; energy_flags().len()],
    };
    for flag in table() {
        // The defaults are this table's own numbers: they read back.
        let _ = flag.read(&flag.default_value, &mut options);
    }
    options
}

impl Flag {
    /// Reads `text` into the flag's place in `options`.
    fn read(&self, text: &str, options: &mut Options) -> Result<(), String> {
        let value = text.trim();
        let invalid = |expected: &str| format!("{}: invalid value '{value}': expected {expected}", self.name);
        match self.slot {
            Slot::Text(place) => *place(options) = text.to_string(),
            Slot::Count(place) => *place(options) = value.parse().map_err(|_| invalid("a non-negative integer"))?,
            Slot::Signed(place) => *place(options) = value.parse().map_err(|_| invalid("an integer"))?,
            Slot::Switch(place) => {
                *place(options) = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(invalid("0 or 1")),
                }
            }
            Slot::Energy(index) => options.energy[index] = value.parse().map_err(|_| invalid("a number"))?,
        }
        Ok(())
    }
}

/// The options the simulator's values give: one text per flag of
/// [`table`], in its order.
pub fn read(values: &[String]) -> Result<Options, String> {
    let table = table();
    if values.len() != table.len() {
        return Err(format!("-memzip_*: {} values given, expected {}", values.len(), table.len()));
    }
    let mut options = defaults();
    for (flag, value) in table.iter().zip(values) {
        flag.read(value, &mut options)?;
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_values() -> Vec<String> {
        table().into_iter().map(|f| f.default_value).collect()
    }

    #[test]
    fn each_flag_once_named_and_explained() {
        let flags = table();
        let mut names: Vec<&str> = flags.iter().map(|f| f.name.as_str()).collect();
        assert!(flags.iter().all(|f| f.name.starts_with("-memzip_") && f.help.starts_with("memzip: ")));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), flags.len(), "no flag twice");
        assert!(flags[0].help.contains("mag_bdi, fpc"), "the codec's help lists the codecs");
    }

    #[test]
    fn the_defaults_read_back() {
        let options = read(&default_values()).unwrap();
        assert_eq!(options, defaults());
        assert_eq!((options.codec.as_str(), options.block_bytes, options.mag_bytes), ("none", 128, 32));
        assert_eq!((options.mdc_bytes, options.mdc_assoc, options.latency_mhz), (16 * 1024, 4, 1002));
        assert_eq!((options.e2mc_pdw, options.verify, options.e2mc_sampling.as_str()), (-1, false, DEFAULT_SAMPLING));
        assert_eq!(options.energy.len(), energy_flag_names().len());
        assert_eq!(options.energy[0], EnergyParams::default().fpc_pj);
    }

    #[test]
    fn a_bad_value_names_its_flag() {
        let at = |name: &str, value: &str| {
            let mut values = default_values();
            let index = table().iter().position(|f| f.name == name).unwrap();
            values[index] = value.to_string();
            read(&values)
        };
        assert_eq!(at("-memzip_verify", "2").unwrap_err(), "-memzip_verify: invalid value '2': expected 0 or 1");
        assert!(at("-memzip_verify", " 1").unwrap().verify);
        assert_eq!(
            at("-memzip_block_bytes", "-4").unwrap_err(),
            "-memzip_block_bytes: invalid value '-4': expected a non-negative integer"
        );
        assert_eq!(at("-memzip_e2mc_pdw", "2").unwrap().e2mc_pdw, 2);
        assert_eq!(
            at("-memzip_energy_bdi_pj", "lots").unwrap_err(),
            "-memzip_energy_bdi_pj: invalid value 'lots': expected a number"
        );
        assert!(read(&default_values()[1..]).unwrap_err().contains("values given"));
    }
}
