//! From the simulator's `-memzip_*` flags to a codec spec and controller
//! options. Every error names the flag a user has to fix.

use memzip::codec::registry::CodecSpec;
use memzip::mc::{McOptions, MdcConfig, SamplingWindow};
use memzip::{ConfigError, Geometry};

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

/// The flag a library knob comes from, for error messages.
fn flag_for(knob: &str) -> &'static str {
    let leaf = knob.rsplit('.').next().unwrap_or(knob);
    match leaf {
        "block_bytes" => "-memzip_block_bytes",
        "mag_bytes" => "-memzip_mag_bytes",
        "pdw" => "-memzip_e2mc_pdw",
        "mfv" => "-memzip_e2mc_mfv",
        "sampling" | "table" => "-memzip_e2mc_sampling",
        "lambda" => "-memzip_adaptive_lambda",
        "candidates" => "-memzip_adaptive_candidates",
        _ if knob.contains("mdc") && knob.contains("assoc") => "-memzip_mdc_assoc",
        _ if knob.contains("mdc") => "-memzip_mdc_bytes",
        _ => "-memzip_codec",
    }
}

/// "-memzip_x: invalid y 'v': expected z" — one line naming the flag.
pub fn flag_error(e: &ConfigError) -> String {
    format!("{}: {e}", flag_for(&e.knob))
}

fn is_e2mc(name: &str) -> bool {
    name.starts_with("e2mc")
}

fn candidate_names(options: &Options) -> Vec<String> {
    options
        .adaptive_candidates
        .split([',', '+'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether any codec in use learns online (E2MC, alone or as a candidate).
fn samples_online(spec: &CodecSpec, options: &Options) -> bool {
    let e2mc_in_use = is_e2mc(&spec.name)
        || (spec.name == "adaptive" && candidate_names(options).iter().any(|c| is_e2mc(c)));
    e2mc_in_use && options.e2mc_sampling.trim().starts_with("online")
}

/// The codec spec and controller options the flags describe.
pub fn controller_parts(options: &Options) -> Result<(CodecSpec, McOptions), String> {
    let geometry = Geometry::new(options.block_bytes as usize, options.mag_bytes as usize).map_err(|e| flag_error(&e))?;
    let mut spec = CodecSpec::parse(&options.codec, geometry).map_err(|e| flag_error(&e))?;
    if is_e2mc(&spec.name) {
        apply_e2mc_flags(&mut spec, options)?;
    }
    if spec.name == "adaptive" {
        if options.adaptive_lambda >= 0 {
            spec.set("lambda", &options.adaptive_lambda.to_string());
        }
        let candidates = candidate_names(options);
        if !candidates.is_empty() {
            spec.set("candidates", &candidates.join("+"));
        }
    }
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
        sampling: if samples_online(&spec, options) {
            match online_window(options.e2mc_sampling.trim())? {
                OnlineWindow::Instructions(_) => SamplingWindow::External,
                OnlineWindow::Blocks(blocks) => SamplingWindow::Blocks(blocks),
            }
        } else {
            SamplingWindow::None
        },
        ..McOptions::default()
    };
    Ok((spec, mc_options))
}

fn apply_e2mc_flags(spec: &mut CodecSpec, options: &Options) -> Result<(), String> {
    if options.e2mc_pdw >= 0 {
        spec.set("pdw", &options.e2mc_pdw.to_string());
    }
    if options.e2mc_mfv >= 0 {
        spec.set("mfv", &options.e2mc_mfv.to_string());
    }
    let sampling = options.e2mc_sampling.trim();
    if let Some(path) = sampling.strip_prefix("offline:") {
        // The library does no I/O: the bridge reads the table file for it.
        let json = std::fs::read_to_string(path).map_err(|e| format!("-memzip_e2mc_sampling: cannot read '{path}': {e}"))?;
        spec.set("sampling", "offline");
        spec.table_json = Some(json);
    } else {
        online_window(sampling)?;
        spec.set("sampling", "online");
    }
    Ok(())
}

/// Where an online sampling phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnlineWindow {
    /// `online:<N>`: after N simulated instructions, GPU-wide (paper 000's 20M).
    Instructions(u64),
    /// `online:blocks=<N>`: after each controller stored N blocks.
    Blocks(u64),
}

fn online_window(sampling: &str) -> Result<OnlineWindow, String> {
    let count = |n: &str| n.trim().parse::<u64>().ok().filter(|&n| n > 0);
    let window = sampling.strip_prefix("online:").and_then(|rest| match rest.trim().strip_prefix("blocks=") {
        Some(blocks) => count(blocks).map(OnlineWindow::Blocks),
        None => count(rest).map(OnlineWindow::Instructions),
    });
    window.ok_or_else(|| {
        format!(
            "-memzip_e2mc_sampling: invalid value '{sampling}': expected online:<instructions, at least 1>, \
             online:blocks=<blocks per controller, at least 1> or offline:<table.json>"
        )
    })
}

/// Simulated instructions after which the online sampling phase ends; 0 when
/// no codec in use samples online or the window counts blocks (the
/// controller then ends it itself).
pub fn online_sampling_instructions(options: &Options) -> Result<u64, String> {
    let geometry = Geometry::new(options.block_bytes as usize, options.mag_bytes as usize).map_err(|e| flag_error(&e))?;
    let spec = CodecSpec::parse(&options.codec, geometry).map_err(|e| flag_error(&e))?;
    if !samples_online(&spec, options) {
        return Ok(0);
    }
    Ok(match online_window(options.e2mc_sampling.trim())? {
        OnlineWindow::Instructions(instructions) => instructions,
        OnlineWindow::Blocks(_) => 0,
    })
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
        assert!(err.contains("cannot read '/nonexistent/table.json'"), "{err}");
        assert_eq!(flag_error(&ConfigError::new("codec", "zip", "one of none")), "-memzip_codec: invalid codec 'zip': expected one of none");
        assert_eq!(flag_for("e2mc16.pdw"), "-memzip_e2mc_pdw");
        assert_eq!(flag_for("adaptive.candidates"), "-memzip_adaptive_candidates");
    }

    #[test]
    fn flags_become_knobs_of_the_right_codec() {
        let (spec, mc) = controller_parts(&with(|o| {
            o.codec = "adaptive".into();
            o.adaptive_lambda = 2;
            o.adaptive_candidates = "bdi, e2mc16".into();
            o.e2mc_pdw = 4;
            o.comp_latency = 7;
        }))
        .unwrap();
        assert_eq!(spec.raw("lambda"), Some("2"));
        assert_eq!(spec.raw("candidates"), Some("bdi+e2mc16"));
        assert!(!spec.has("pdw"), "e2mc flags only apply to an e2mc codec");
        assert_eq!(mc.compress_latency, Some(7));
        let sampling = with(|o| {
            o.codec = "adaptive".into();
            o.adaptive_candidates = "bdi,e2mc16".into();
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
