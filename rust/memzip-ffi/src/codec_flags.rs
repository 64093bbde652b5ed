//! The codec flags (`-memzip_e2mc_*`, `-memzip_adaptive_*`) applied to every
//! codec `-memzip_codec` builds: the top-level codec and each of adaptive's
//! candidates get the same E2MC settings.
//!
//! Each flag is checked once, whether or not a codec in use reads it, so a
//! bad value never passes silently; a flag and a knob of `-memzip_codec`
//! that set the same thing are a conflict, not a silent override. Every
//! error names the flag (and, for a table, the file) the user has to fix.

use std::sync::Arc;

use memzip::codec::e2mc::table::MAX_MFV;
use memzip::codec::e2mc::{CodeTable, PDW_CHOICES};
use memzip::codec::registry;
use memzip::codec::spec::CodecSpec;

use crate::flags::Options;

/// Where an online sampling phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineWindow {
    /// `online:<N>`: after N simulated instructions, GPU-wide (the E2MC paper's 20M).
    Instructions(u64),
    /// `online:blocks=<N>`: after each controller stored N blocks.
    Blocks(u64),
}

/// How E2MC gets its probabilities (`-memzip_e2mc_sampling`).
enum Sampling {
    /// Sample until the window ends, then build the table.
    Online(OnlineWindow),
    /// A table file: its path and the table it holds (read and checked once).
    Offline { path: String, table: Arc<CodeTable> },
}

/// The checked E2MC flags.
struct E2mcFlags {
    pdw: Option<usize>,
    mfv: Option<usize>,
    sampling: Sampling,
}

/// Codecs that code with E2MC and so take its flags: `e2mc<bits>` and SLC
/// (E2MC16 underneath).
fn is_e2mc(name: &str) -> bool {
    name.starts_with("e2mc") || name == "slc"
}

/// The symbol length of `e2mc<bits>` (16 for SLC).
fn symbol_bits(name: &str) -> Option<u32> {
    if name == "slc" {
        return Some(16);
    }
    name.strip_prefix("e2mc").and_then(|bits| bits.parse().ok())
}

/// A numeric flag where a negative value means "the codec's default".
fn optional_flag(
    flag: &str,
    value: i32,
    valid: impl Fn(usize) -> bool,
    expected: &str,
) -> Result<Option<usize>, String> {
    match usize::try_from(value) {
        Err(_) => Ok(None),
        Ok(v) if valid(v) => Ok(Some(v)),
        Ok(v) => Err(format!("{flag}: invalid value '{v}': expected {expected} (or -1: the codec's default)")),
    }
}

/// `online:<instructions>`, `online:blocks=<N>` (the window) or
/// `offline:<path>` (the path).
fn parse_sampling(text: &str) -> Result<Result<OnlineWindow, &str>, String> {
    let invalid = || {
        format!(
            "-memzip_e2mc_sampling: invalid value '{text}': expected online:<instructions, at least 1>, \
             online:blocks=<blocks per controller, at least 1> or offline:<table.json>"
        )
    };
    let count = |n: &str| n.trim().parse::<u64>().ok().filter(|&n| n > 0);
    if let Some(window) = text.strip_prefix("online:") {
        let window = match window.trim().strip_prefix("blocks=") {
            Some(blocks) => count(blocks).map(OnlineWindow::Blocks),
            None => count(window).map(OnlineWindow::Instructions),
        };
        window.map(Ok).ok_or_else(invalid)
    } else {
        text.strip_prefix("offline:").map(str::trim).filter(|p| !p.is_empty()).map(Err).ok_or_else(invalid)
    }
}

impl E2mcFlags {
    /// Checks every E2MC flag. The offline table is read (the library itself
    /// does no I/O) only when `load` is set: an E2MC codec is in use.
    fn parse(options: &Options, load: bool) -> Result<Option<Self>, String> {
        let pdw = optional_flag("-memzip_e2mc_pdw", options.e2mc_pdw, |v| PDW_CHOICES.contains(&v), "1, 2, 4 or 8")?;
        let mfv = optional_flag(
            "-memzip_e2mc_mfv",
            options.e2mc_mfv,
            |v| (1..=MAX_MFV).contains(&v),
            &format!("an integer in 1..={MAX_MFV}"),
        )?;
        let sampling = parse_sampling(options.e2mc_sampling.trim())?;
        if !load {
            return Ok(None);
        }
        let sampling = match sampling {
            Ok(window) => Sampling::Online(window),
            Err(path) => {
                let json = std::fs::read_to_string(path)
                    .map_err(|e| format!("-memzip_e2mc_sampling: cannot read table '{path}': {e}"))?;
                let table =
                    CodeTable::from_json(&json).map_err(|e| format!("-memzip_e2mc_sampling: table '{path}': {e}"))?;
                Sampling::Offline { path: path.to_string(), table: Arc::new(table) }
            }
        };
        Ok(Some(E2mcFlags { pdw, mfv, sampling }))
    }

    /// Puts the flags on one E2MC codec's spec.
    fn apply(&self, spec: &mut CodecSpec) -> Result<(), String> {
        let name = spec.name.clone();
        let bits = symbol_bits(&name).unwrap_or(0);
        // A `sampling` knob may name the mode the flag gives (a study labels
        // its online and offline runs that way); anything else is a conflict.
        let mode = match self.sampling {
            Sampling::Online(_) => "online",
            Sampling::Offline { .. } => "offline",
        };
        if let Some(knob) = spec.raw("sampling").filter(|&knob| knob != mode) {
            return Err(format!(
                "-memzip_codec: {name}'s sampling={knob} conflicts with -memzip_e2mc_sampling ({mode}): set it with the flag"
            ));
        }
        for (flag, knob, value) in [("-memzip_e2mc_pdw", "pdw", self.pdw), ("-memzip_e2mc_mfv", "mfv", self.mfv)] {
            let Some(value) = value else { continue };
            if let Some(knob_value) = spec.raw(knob) {
                return Err(format!(
                    "{flag}: {value} conflicts with {knob}={knob_value} of {name} in the codec: set it in one place"
                ));
            }
            // Only 16/32-bit symbols keep most frequent values (the E2MC paper §III-B2b).
            if knob == "mfv" && bits < 16 {
                continue;
            }
            set_knob(spec, knob, &value.to_string())?;
        }
        match &self.sampling {
            Sampling::Online(_) => set_knob(spec, "sampling", "online")?,
            Sampling::Offline { path, table } => {
                if table.symbol_bits != bits {
                    return Err(format!(
                        "-memzip_e2mc_sampling: table '{path}' codes {}-bit symbols, {name} needs {bits}-bit ones",
                        table.symbol_bits
                    ));
                }
                set_knob(spec, "sampling", "offline")?;
                spec.table = Some(Arc::clone(table));
            }
        }
        Ok(())
    }
}

/// `-memzip_adaptive_candidates`: codec specs separated by `/`, as in the
/// codec's `candidates` knob (empty: not given).
fn candidates_flag(options: &Options) -> &str {
    options.adaptive_candidates.trim()
}

/// Applies `-memzip_adaptive_lambda` and `-memzip_adaptive_candidates` to an
/// adaptive spec; each conflicts with the same knob in `-memzip_codec`.
fn apply_adaptive_flags(spec: &mut CodecSpec, options: &Options) -> Result<(), String> {
    if options.adaptive_lambda >= 0 {
        if let Some(knob) = spec.raw("lambda") {
            return Err(format!(
                "-memzip_adaptive_lambda: {} conflicts with lambda={knob} in the codec: set it in one place",
                options.adaptive_lambda
            ));
        }
        set_knob(spec, "lambda", &options.adaptive_lambda.to_string())?;
    }
    let candidates = candidates_flag(options);
    if !candidates.is_empty() {
        if spec.has("candidates") {
            return Err("-memzip_adaptive_candidates: the codec already lists candidates: set them in one place".into());
        }
        spec.set("candidates", candidates).map_err(|e| format!("-memzip_adaptive_candidates: {e}"))?;
    }
    Ok(())
}

/// Applies the codec flags to `spec` and returns where online sampling ends
/// (`None`: no codec in use samples online).
pub fn apply(spec: &mut CodecSpec, options: &Options) -> Result<Option<OnlineWindow>, String> {
    let adaptive = spec.name == "adaptive";
    if adaptive {
        apply_adaptive_flags(spec, options)?;
    }
    let mut candidates =
        if adaptive { spec.candidate_specs().map_err(|e| codec_error(options, &e))? } else { Vec::new() };
    let uses_e2mc = is_e2mc(&spec.name) || candidates.iter().any(|c| is_e2mc(&c.name));
    let Some(flags) = E2mcFlags::parse(options, uses_e2mc)? else {
        return Ok(None);
    };
    if is_e2mc(&spec.name) {
        flags.apply(spec)?;
    }
    for candidate in candidates.iter_mut().filter(|c| is_e2mc(&c.name)) {
        flags.apply(candidate)?;
    }
    if adaptive {
        spec.set_candidates(candidates);
        // The candidates inherit the table (see CodecSpec::candidate_specs).
        if let Sampling::Offline { table, .. } = &flags.sampling {
            spec.table = Some(Arc::clone(table));
        }
    }
    Ok(match flags.sampling {
        Sampling::Online(window) => Some(window),
        Sampling::Offline { .. } => None,
    })
}

/// Sets a knob a flag gives (a plain value: only `candidates` can be refused).
fn set_knob(spec: &mut CodecSpec, knob: &str, value: &str) -> Result<(), String> {
    spec.set(knob, value).map_err(|e| format!("-memzip_codec: {e}"))
}

/// An error about adaptive's candidates, under the flag that listed them.
fn codec_error(options: &Options, e: &memzip::ConfigError) -> String {
    let flag = if candidates_flag(options).is_empty() { "-memzip_codec" } else { "-memzip_adaptive_candidates" };
    format!("{flag}: {e}")
}

/// Builds the codec once so that a bad knob stops the run under the flag it
/// came from: a candidate of `-memzip_adaptive_candidates` under that flag,
/// anything else under `-memzip_codec`.
pub fn check_builds(spec: &CodecSpec, options: &Options) -> Result<(), String> {
    if spec.name == "adaptive" && !candidates_flag(options).is_empty() {
        for candidate in spec.candidate_specs().map_err(|e| codec_error(options, &e))? {
            // adaptive checks that a candidate is selectable; nothing else of it.
            let mut adaptive_of_one = CodecSpec::new("adaptive", spec.geometry);
            adaptive_of_one.set_candidates(vec![candidate]);
            adaptive_of_one.table.clone_from(&spec.table);
            registry::build(&adaptive_of_one).map_err(|e| codec_error(options, &e))?;
        }
    }
    registry::build(spec).map(|_| ()).map_err(|e| format!("-memzip_codec: {e}"))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use memzip::codec::e2mc::E2mc;
    use memzip::{Codec, Geometry};
    use tempfile::TempDir;

    use crate::flags::defaults;
    use crate::options;

    /// The codec spec, controller options and instruction window the flags give.
    fn resolve(options: &Options) -> Result<(CodecSpec, memzip::mc::McOptions, u64), String> {
        options::resolve(options).map(|r| (r.spec, r.mc_options, r.sampling_instructions))
    }

    use super::*;

    fn with(f: impl FnOnce(&mut Options)) -> Options {
        let mut o = defaults();
        f(&mut o);
        o
    }

    /// Small integers: what the tables below are learnt from.
    fn int_block(seed: u32) -> Vec<u8> {
        (0..32u32).flat_map(|i| ((i * 7 + seed) % 50).to_le_bytes()).collect()
    }

    /// An E2MC table learnt from `int_block`s, written to a file of its own
    /// in `dir` (a temporary folder the test removes).
    fn table_file(dir: &TempDir, name: &str, symbol_bits: u32) -> PathBuf {
        let mut codec = E2mc::new(symbol_bits, Geometry::default(), 4, 1024).unwrap();
        for seed in 0..64 {
            codec.compress(&int_block(seed)).unwrap();
        }
        codec.end_sampling().unwrap();
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, codec.table().unwrap().to_json()).unwrap();
        path
    }

    fn error_of(f: impl FnOnce(&mut Options)) -> String {
        resolve(&with(f)).expect_err("the options must be rejected")
    }

    #[test]
    fn an_offline_table_reaches_an_adaptive_candidate() {
        let dir = tempfile::tempdir().unwrap();
        let table = table_file(&dir, "adaptive-offline", 16);
        let sampling = format!("offline:{}", table.display());
        for (codec, candidates) in [("adaptive", "e2mc16"), ("adaptive:candidates=e2mc16", "")] {
            let (spec, _, window) = resolve(&with(|o| {
                o.codec = codec.into();
                o.adaptive_candidates = candidates.into();
                o.e2mc_sampling = sampling.clone();
            }))
            .unwrap();
            assert_eq!(window, 0, "an offline table never samples");
            let mut built = registry::build(&spec).unwrap();
            let compressed = (0..20).filter(|&s| built.compress(&int_block(s)).unwrap().is_compressed()).count();
            assert_eq!(compressed, 20, "{codec}: e2mc16 codes every block with the table from the start");
        }
    }

    #[test]
    fn an_adaptive_candidate_samples_online_and_its_window_ends() {
        for (codec, candidates) in [("adaptive:candidates=e2mc16", ""), ("adaptive", "bdi/e2mc16")] {
            let options = with(|o| {
                o.codec = codec.into();
                o.adaptive_candidates = candidates.into();
                o.e2mc_sampling = "online:20000".into();
            });
            assert_eq!(resolve(&options).unwrap().2, 20000, "{codec} {candidates}");
        }
        let none_sample = with(|o| o.codec = "adaptive:candidates=bdi/fpc".into());
        assert_eq!(resolve(&none_sample).unwrap().2, 0);
    }

    #[test]
    fn every_e2mc_flag_is_checked_wherever_the_codec_is() {
        for codec in ["e2mc16", "adaptive:candidates=e2mc16", "bdi"] {
            let err = error_of(|o| {
                o.codec = codec.into();
                o.e2mc_pdw = 3;
            });
            assert_eq!(err, "-memzip_e2mc_pdw: invalid value '3': expected 1, 2, 4 or 8 (or -1: the codec's default)");
            let err = error_of(|o| {
                o.codec = codec.into();
                o.e2mc_mfv = 0;
            });
            assert!(err.starts_with("-memzip_e2mc_mfv: invalid value '0'"), "{err}");
        }
        let (spec, _, _) = resolve(&with(|o| {
            o.codec = "adaptive:candidates=e2mc16/e2mc8".into();
            o.e2mc_pdw = 2;
            o.e2mc_mfv = 64;
        }))
        .unwrap();
        let candidates = spec.candidate_specs().unwrap();
        assert_eq!(candidates[0].to_string(), "e2mc16:mfv=64,pdw=2,sampling=online");
        assert_eq!(candidates[1].to_string(), "e2mc8:pdw=2,sampling=online", "e2mc8 keeps no most frequent values");
    }

    #[test]
    fn slc_takes_the_e2mc16_flags() {
        let (spec, _, window) = resolve(&with(|o| {
            o.codec = "slc:variant=pred".into();
            o.e2mc_pdw = 2;
            o.e2mc_sampling = "online:5000".into();
        }))
        .unwrap();
        assert_eq!((spec.to_string().as_str(), window), ("slc:pdw=2,sampling=online,variant=pred", 5000));
        let dir = tempfile::tempdir().unwrap();
        let eight = table_file(&dir, "slc-eight", 8);
        let err = error_of(|o| {
            o.codec = "slc".into();
            o.e2mc_sampling = format!("offline:{}", eight.display());
        });
        assert!(err.contains("codes 8-bit symbols, slc needs 16-bit ones"), "{err}");
        let sixteen = table_file(&dir, "slc-sixteen", 16);
        let (spec, _, window) = resolve(&with(|o| {
            o.codec = "slc".into();
            o.e2mc_sampling = format!("offline:{}", sixteen.display());
        }))
        .unwrap();
        assert_eq!(window, 0);
        assert!(registry::build(&spec).unwrap().compress(&int_block(3)).unwrap().is_compressed());
    }

    #[test]
    fn a_missing_or_bad_table_names_the_flag_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-table.json");
        let err = error_of(|o| {
            o.codec = "adaptive".into();
            o.adaptive_candidates = "e2mc16".into();
            o.e2mc_sampling = format!("offline:{}", missing.display());
        });
        assert!(
            err.starts_with(&format!("-memzip_e2mc_sampling: cannot read table '{}':", missing.display())),
            "{err}"
        );
        let corrupt = dir.path().join("corrupt.json");
        std::fs::write(&corrupt, "{\"symbol_bits\": 16,").unwrap();
        let err = error_of(|o| {
            o.codec = "e2mc16".into();
            o.e2mc_sampling = format!("offline:{}", corrupt.display());
        });
        assert!(err.starts_with(&format!("-memzip_e2mc_sampling: table '{}': invalid", corrupt.display())), "{err}");
        let eight = table_file(&dir, "eight", 8);
        let err = error_of(|o| {
            o.codec = "adaptive:candidates=e2mc16".into();
            o.e2mc_sampling = format!("offline:{}", eight.display());
        });
        assert!(err.contains("codes 8-bit symbols, e2mc16 needs 16-bit ones"), "{err}");
        // Without an E2MC codec the table is not read, but the value is checked.
        assert!(resolve(&with(|o| o.e2mc_sampling = format!("offline:{}", missing.display()))).is_ok());
        assert!(error_of(|o| o.e2mc_sampling = "offline:".into()).starts_with("-memzip_e2mc_sampling: invalid value"));
    }

    #[test]
    fn a_flag_and_a_codec_knob_for_the_same_thing_conflict() {
        let err = error_of(|o| {
            o.codec = "adaptive:candidates=e2mc16:pdw=8".into();
            o.e2mc_pdw = 4;
        });
        assert!(err.starts_with("-memzip_e2mc_pdw: 4 conflicts with pdw=8 of e2mc16"), "{err}");
        let err = error_of(|o| o.codec = "e2mc16:sampling=offline".into());
        assert!(
            err.starts_with("-memzip_codec: e2mc16's sampling=offline conflicts with -memzip_e2mc_sampling (online)"),
            "{err}"
        );
        // A knob naming the flag's own mode is a label, not a conflict.
        let (spec, _, window) = resolve(&with(|o| {
            o.codec = "e2mc16:sampling=online".into();
            o.e2mc_sampling = "online:5000".into();
        }))
        .unwrap();
        assert_eq!((spec.raw("sampling"), window), (Some("online"), 5000));
        let err = error_of(|o| {
            o.codec = "adaptive:lambda=6".into();
            o.adaptive_lambda = 2;
        });
        assert!(err.starts_with("-memzip_adaptive_lambda: 2 conflicts with lambda=6"), "{err}");
        let err = error_of(|o| {
            o.codec = "adaptive:candidates=fpc".into();
            o.adaptive_candidates = "bdi".into();
        });
        assert!(err.starts_with("-memzip_adaptive_candidates: the codec already lists candidates"), "{err}");
    }

    #[test]
    fn a_bad_knob_is_reported_under_the_flag_that_set_it() {
        let err = error_of(|o| o.codec = "e2mc16:pdw=3".into());
        assert!(err.starts_with("-memzip_codec: invalid e2mc16.pdw '3'"), "{err}");
        let err = error_of(|o| {
            o.codec = "adaptive".into();
            o.adaptive_candidates = "bdi/zip".into();
        });
        assert!(err.starts_with("-memzip_adaptive_candidates: invalid adaptive.candidates 'zip'"), "{err}");
        let err = error_of(|o| {
            o.codec = "adaptive:lambda=x".into();
            o.adaptive_candidates = "bdi".into();
        });
        assert!(err.starts_with("-memzip_codec: invalid adaptive.lambda 'x'"), "{err}");
    }
}
