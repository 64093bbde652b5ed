//! From the simulator's `-memzip_*` flags ([`crate::flags`]) to what a run
//! simulates: the codec spec, the controller options, the energy constants
//! and where online sampling ends, resolved once per simulator run. Every
//! error names the flag a user has to fix.

use memzip::codec::spec::CodecSpec;
use memzip::mc::{ApproximableMemory, EnergyParams, McOptions, MdcConfig, PartialReads, PartialWrites, SamplingWindow};
use memzip::{ConfigError, Geometry};

use crate::codec_flags::{self, OnlineWindow};
use crate::flags::{energy_flag_names, Options};

/// What the flags describe.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The codec, every codec in it carrying the codec flags.
    pub spec: CodecSpec,
    pub mc_options: McOptions,
    pub energy: EnergyParams,
    /// Simulated instructions after which online sampling ends; 0 when no
    /// codec in use samples online or the window counts blocks (the
    /// controller then ends it itself).
    pub sampling_instructions: u64,
    /// The program's approximable allocations (`-memzip_approx_allocs`).
    pub approximable: ApproximableMemory,
}

/// The flag a library knob comes from, for error messages. Codec knobs
/// (`e2mc16.pdw`, `adaptive.candidates`, ...) are checked where the codec
/// flags are applied ([`codec_flags`]), so what remains comes from
/// `-memzip_codec`.
fn flag_for(knob: &str) -> &'static str {
    match knob {
        "block_bytes" => "-memzip_block_bytes",
        "mag_bytes" => "-memzip_mag_bytes",
        "mdc_assoc" => "-memzip_mdc_assoc",
        "mdc_bytes" | "mdc_line_bytes" => "-memzip_mdc_bytes",
        _ => "-memzip_codec",
    }
}

/// "-memzip_x: invalid y 'v': expected z" — one line naming the flag.
pub fn flag_error(e: &ConfigError) -> String {
    format!("{}: {e}", flag_for(&e.knob))
}

/// Resolves the flags: parses the codec, applies the codec flags (reading an
/// offline table once), checks that everything builds and converts the rest.
pub fn resolve(options: &Options) -> Result<Resolved, String> {
    let geometry =
        Geometry::new(options.block_bytes as usize, options.mag_bytes as usize).map_err(|e| flag_error(&e))?;
    let mut spec = CodecSpec::parse(&options.codec, geometry).map_err(|e| format!("-memzip_codec: {e}"))?;
    let window = codec_flags::apply(&mut spec, options)?;
    codec_flags::check_builds(&spec, options)?;
    if options.latency_mhz == 0 {
        return Err("-memzip_latency_mhz: invalid value '0': expected a clock in MHz".into());
    }
    let partial_writes =
        named_policy("partial_writes", &options.partial_writes, PartialWrites::from_name, &PartialWrites::NAMES)?;
    let partial_reads =
        named_policy("partial_reads", &options.partial_reads, PartialReads::from_name, &PartialReads::NAMES)?;
    let mc_options = McOptions {
        partial_writes,
        partial_reads,
        compress_latency: u32::try_from(options.comp_latency).ok(),
        decompress_latency: u32::try_from(options.decomp_latency).ok(),
        verify: options.verify,
        // One metadata line per DRAM atom, so a miss costs exactly one extra
        // atom-sized DRAM access ("MAG-aware BDI" uses 128-byte lines; the
        // capacity in blocks is the same either way).
        mdc: MdcConfig {
            capacity_bytes: options.mdc_bytes as usize,
            assoc: options.mdc_assoc as usize,
            line_bytes: options.mag_bytes as usize,
        },
        sampling: match window {
            None => SamplingWindow::None,
            Some(OnlineWindow::Instructions(_)) => SamplingWindow::External,
            Some(OnlineWindow::Blocks(blocks)) => SamplingWindow::Blocks(blocks),
        },
        ..McOptions::default()
    };
    let sampling_instructions = match window {
        Some(OnlineWindow::Instructions(instructions)) => instructions,
        _ => 0,
    };
    let approximable =
        ApproximableMemory::parse(&options.approx_allocs).map_err(|e| format!("-memzip_approx_allocs: {e}"))?;
    Ok(Resolved { spec, mc_options, energy: energy_params(&options.energy)?, sampling_instructions, approximable })
}

// ---------------------------------------------------------------- energy

/// The energy constants the flag values describe (empty: the defaults).
pub fn energy_params(values: &[f64]) -> Result<EnergyParams, String> {
    let names = energy_flag_names();
    if values.is_empty() {
        return Ok(EnergyParams::default());
    }
    if values.len() != names.len() {
        return Err(format!("-memzip_energy_*: {} values given, expected {}", values.len(), names.len()));
    }
    let per_symbol = |v: f64| (v >= 0.0).then_some(v);
    let params = EnergyParams {
        fpc_pj: values[0],
        bdi_pj: values[1],
        cpack_pj: values[2],
        mag_bdi_unit_ratio: values[3],
        e2mc_compress_pj_per_symbol: per_symbol(values[4]),
        e2mc_decompress_pj_per_symbol: per_symbol(values[5]),
        mdc_read_pj: values[6],
        mdc_write_pj: values[7],
        dram_read_pj_per_bit: values[8],
        dram_write_pj_per_bit: values[9],
        dram_activation_pj: values[10],
        bpc_pj: values[11],
    };
    params.validate().map_err(|(name, value)| {
        format!("-memzip_energy_{name}: invalid value '{value}': expected a finite number, at least 0")
    })?;
    Ok(params)
}

/// A `-memzip_<flag>` policy read by name; the error names the flag and its values.
fn named_policy<T>(flag: &str, value: &str, from_name: fn(&str) -> Option<T>, names: &[&str]) -> Result<T, String> {
    from_name(value)
        .ok_or_else(|| format!("-memzip_{flag}: invalid value '{value}': expected one of {}", names.join(", ")))
}

#[cfg(test)]
mod energy_tests {
    use super::*;

    #[test]
    fn energy_flags_round_trip_to_the_default_params() {
        assert_eq!(energy_flag_names()[0], "-memzip_energy_fpc_pj");
        assert_eq!(energy_flag_names()[11], "-memzip_energy_bpc_pj");
        assert_eq!(energy_params(&crate::flags::defaults().energy).unwrap(), EnergyParams::default());
        assert_eq!(energy_params(&[]).unwrap(), EnergyParams::default());
    }

    #[test]
    fn energy_flag_values_override_and_bad_ones_name_the_flag() {
        let mut values = crate::flags::defaults().energy;
        values[4] = 2.5;
        values[10] = 0.0;
        values[11] = 40.0;
        let p = energy_params(&values).unwrap();
        assert_eq!(p.bpc_pj, 40.0);
        assert_eq!(
            (p.e2mc_compress_pj_per_symbol, p.e2mc_decompress_pj_per_symbol, p.dram_activation_pj),
            (Some(2.5), None, 0.0)
        );
        values[7] = -3.0;
        let err = energy_params(&values).unwrap_err();
        assert_eq!(err, "-memzip_energy_mdc_write_pj: invalid value '-3': expected a finite number, at least 0");
        assert!(energy_params(&[1.0]).unwrap_err().contains("1 values given, expected 12"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::defaults;

    fn with(f: impl FnOnce(&mut Options)) -> Options {
        let mut o = defaults();
        f(&mut o);
        o
    }

    fn controller_parts(options: &Options) -> Result<(CodecSpec, McOptions), String> {
        resolve(options).map(|r| (r.spec, r.mc_options))
    }

    fn online_sampling_instructions(options: &Options) -> Result<u64, String> {
        resolve(options).map(|r| r.sampling_instructions)
    }

    #[test]
    fn defaults_build_the_baseline() {
        let (spec, mc) = controller_parts(&defaults()).unwrap();
        assert_eq!(spec.name, "none");
        assert_eq!((mc.mdc.capacity_bytes, mc.mdc.assoc, mc.mdc.line_bytes), (16 * 1024, 4, 32));
        assert_eq!(mc.compress_latency, None);
        assert_eq!(online_sampling_instructions(&defaults()).unwrap(), 0);
    }

    #[test]
    fn partial_policies_are_read_by_name() {
        assert_eq!(controller_parts(&defaults()).unwrap().1.partial_writes, PartialWrites::ReadModifyWrite);
        let raw = with(|o| o.partial_writes = "raw".into());
        assert_eq!(controller_parts(&raw).unwrap().1.partial_writes, PartialWrites::StoreRaw);
        let err = controller_parts(&with(|o| o.partial_writes = "rwm".into())).unwrap_err();
        assert_eq!(err, "-memzip_partial_writes: invalid value 'rwm': expected one of rmw, raw, rmw_all");
        assert_eq!(controller_parts(&defaults()).unwrap().1.partial_reads, PartialReads::Sector);
        let fill = with(|o| o.partial_reads = "fill".into());
        assert_eq!(controller_parts(&fill).unwrap().1.partial_reads, PartialReads::Fill);
        let err = controller_parts(&with(|o| o.partial_reads = "all".into())).unwrap_err();
        assert_eq!(err, "-memzip_partial_reads: invalid value 'all': expected one of sector, fill");
    }

    #[test]
    fn errors_name_the_flag() {
        let err = controller_parts(&with(|o| o.mag_bytes = 48)).unwrap_err();
        assert!(err.starts_with("-memzip_mag_bytes:"), "{err}");
        let err = controller_parts(&with(|o| {
            o.codec = "e2mc16".into();
            o.e2mc_sampling = "sometimes".into();
        }))
        .unwrap_err();
        assert!(err.starts_with("-memzip_e2mc_sampling:"), "{err}");
        let err = controller_parts(&with(|o| {
            o.codec = "e2mc16".into();
            o.e2mc_sampling = "offline:/nonexistent/table.json".into();
        }))
        .unwrap_err();
        assert!(err.starts_with("-memzip_e2mc_sampling: cannot read table '/nonexistent/table.json'"), "{err}");
        assert_eq!(
            flag_error(&ConfigError::new("codec", "zip", "one of none")),
            "-memzip_codec: invalid codec 'zip': expected one of none"
        );
        assert_eq!(flag_for("e2mc16.pdw"), "-memzip_codec", "flags are checked before the codec is built");
        let err = controller_parts(&with(|o| o.latency_mhz = 0)).unwrap_err();
        assert_eq!(err, "-memzip_latency_mhz: invalid value '0': expected a clock in MHz");
    }

    #[test]
    fn flags_become_knobs_of_the_right_codec() {
        let (spec, mc) = controller_parts(&with(|o| {
            o.codec = "adaptive".into();
            o.adaptive_lambda = 2;
            o.adaptive_candidates = "bdi/ e2mc16".into();
            o.e2mc_pdw = 4;
            o.comp_latency = 7;
        }))
        .unwrap();
        assert_eq!(spec.raw("lambda"), Some("2"));
        let candidates: Vec<String> = spec.candidate_specs().unwrap().iter().map(|c| c.to_string()).collect();
        assert_eq!(candidates, ["bdi", "e2mc16:pdw=4,sampling=online"]);
        assert!(!spec.has("pdw"), "e2mc flags only apply to e2mc codecs");
        assert_eq!(mc.compress_latency, Some(7));
        let sampling = with(|o| {
            o.codec = "adaptive".into();
            o.adaptive_candidates = "bdi/e2mc16".into();
            o.e2mc_sampling = "online:1000".into();
        });
        assert_eq!(online_sampling_instructions(&sampling).unwrap(), 1000);
        assert_eq!(controller_parts(&sampling).unwrap().1.sampling, SamplingWindow::External);
    }

    #[test]
    fn a_block_window_is_the_controllers_own() {
        let blocks = with(|o| {
            o.codec = "e2mc16".into();
            o.e2mc_sampling = "online:blocks=5000".into();
        });
        assert_eq!(online_sampling_instructions(&blocks).unwrap(), 0, "no instruction window");
        assert_eq!(controller_parts(&blocks).unwrap().1.sampling, SamplingWindow::Blocks(5000));
        let not_e2mc = with(|o| o.e2mc_sampling = "online:blocks=5000".into());
        assert_eq!(controller_parts(&not_e2mc).unwrap().1.sampling, SamplingWindow::None);
        for bad in ["online:blocks=0", "online:blocks=", "online:blocks=x", "online:block=5"] {
            let o = with(|o| {
                o.codec = "e2mc16".into();
                o.e2mc_sampling = bad.into();
            });
            let err = controller_parts(&o).unwrap_err();
            assert!(
                err.starts_with("-memzip_e2mc_sampling: invalid value") && err.contains("online:blocks="),
                "{bad}: {err}"
            );
        }
    }
}
