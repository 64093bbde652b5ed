//! From the simulator's `-memzip_*` flags to a codec spec and controller
//! options. Every error names the flag a user has to fix.

use memzip::codec::registry::CodecSpec;
use memzip::mc::{McOptions, MdcConfig, SamplingWindow};
use memzip::{ConfigError, Geometry};

use crate::codec_flags::{self, OnlineWindow};
use crate::ffi::Options;

/// E2MC's default online sampling window (paper 000: the first 20M instructions).
const DEFAULT_SAMPLING: &str = "online:20000000";

pub fn defaults() -> Options {
    let mdc = MdcConfig::default();
    Options {
        codec: "none".into(),
        block_bytes: 128,
        mag_bytes: 32,
        mdc_bytes: mdc.capacity_bytes as u32,
        mdc_assoc: mdc.assoc as u32,
        comp_latency: -1,
        decomp_latency: -1,
        e2mc_pdw: -1,
        e2mc_mfv: -1,
        e2mc_sampling: DEFAULT_SAMPLING.into(),
        adaptive_lambda: -1,
        adaptive_candidates: String::new(),
        verify: false,
    }
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

/// What the flags describe: the codec spec (every codec in it carrying the
/// codec flags), the controller options, and the simulated instructions
/// after which online sampling ends (0: no codec in use samples online).
pub fn resolve(options: &Options) -> Result<(CodecSpec, McOptions, u64), String> {
    let geometry = Geometry::new(options.block_bytes as usize, options.mag_bytes as usize).map_err(|e| flag_error(&e))?;
    let mut spec = CodecSpec::parse(&options.codec, geometry).map_err(|e| format!("-memzip_codec: {e}"))?;
    let window = codec_flags::apply(&mut spec, options)?;
    codec_flags::check_builds(&spec, options)?;
    let mc_options = McOptions {
        compress_latency: u32::try_from(options.comp_latency).ok(),
        decompress_latency: u32::try_from(options.decomp_latency).ok(),
        verify: options.verify,
        // One metadata line per DRAM atom, so a miss costs exactly one extra
        // atom-sized DRAM access (paper 002 uses 128-byte lines; the capacity
        // in blocks is the same either way).
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
    Ok((spec, mc_options, sampling_instructions))
}

/// The codec spec and controller options the flags describe.
pub fn controller_parts(options: &Options) -> Result<(CodecSpec, McOptions), String> {
    resolve(options).map(|(spec, mc_options, _)| (spec, mc_options))
}

/// Simulated instructions after which the online sampling phase ends; 0 when
/// no codec in use samples online or the window counts blocks (the
/// controller then ends it itself).
pub fn online_sampling_instructions(options: &Options) -> Result<u64, String> {
    resolve(options).map(|(_, _, window)| window)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut Options)) -> Options {
        let mut o = defaults();
        f(&mut o);
        o
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
        assert_eq!(flag_error(&ConfigError::new("codec", "zip", "one of none")), "-memzip_codec: invalid codec 'zip': expected one of none");
        assert_eq!(flag_for("e2mc16.pdw"), "-memzip_codec", "flags are checked before the codec is built");
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
        assert_eq!(spec.raw("candidates"), Some("bdi/e2mc16:pdw=4,sampling=online"));
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
            assert!(err.starts_with("-memzip_e2mc_sampling: invalid value") && err.contains("online:blocks="), "{bad}: {err}");
        }
    }
}
