//! Builds a codec from a config string such as `mag_bdi`, `e2mc16:pdw=4,mfv=1024`
//! or `adaptive:lambda=6,candidates=fpc/cpack_z/mag_bdi:bases=8+4+2`.
//!
//! Unknown names and knobs are errors that list what is valid, so a typo in a
//! simulator config stops the run with one clear line.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use super::adaptive::{Adaptive, DEFAULT_CANDIDATES, DEFAULT_LAMBDA};
use super::latency_knobs;
use super::none::NoCompression;
use super::Codec;
use crate::error::ConfigError;
use crate::geometry::Geometry;

/// A parsed codec request: name, geometry and knobs.
#[derive(Debug, Clone, PartialEq)]
pub struct CodecSpec {
    pub name: String,
    pub geometry: Geometry,
    knobs: BTreeMap<String, String>,
    /// An E2MC code table as JSON (offline probabilities). The library does no
    /// I/O, so the caller reads the file and hands over its text.
    pub table_json: Option<String>,
}

impl CodecSpec {
    pub fn new(name: &str, geometry: Geometry) -> Self {
        CodecSpec { name: name.to_string(), geometry, knobs: BTreeMap::new(), table_json: None }
    }

    /// Parses `name[:key=value[,key=value...]]`. Each knob may be given once.
    /// `candidates` (adaptive's list of codec specs, which have `,`-separated
    /// knobs of their own) takes the rest of the text, so it comes last.
    pub fn parse(text: &str, geometry: Geometry) -> Result<Self, ConfigError> {
        let text = text.trim();
        let (name, mut rest) = text.split_once(':').unwrap_or((text, ""));
        let mut spec = CodecSpec::new(name.trim(), geometry);
        while !rest.is_empty() {
            let (pair, tail) = if rest.trim_start().starts_with(LIST_KNOB) {
                (rest, "")
            } else {
                rest.split_once(',').unwrap_or((rest, ""))
            };
            rest = tail;
            if pair.trim().is_empty() {
                continue;
            }
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                ConfigError::new(
                    "codec knob",
                    pair.trim(),
                    format!("key=value (adaptive's candidates are separated by '{CANDIDATE_SEPARATOR}')"),
                )
            })?;
            let key = key.trim();
            if spec.has(key) {
                return Err(ConfigError::new(format!("{} knob", spec.name), key, "each knob once"));
            }
            spec.set(key, value.trim());
        }
        Ok(spec)
    }

    /// Sets a knob (the simulator maps its `-memzip_*` flags onto knobs).
    pub fn set(&mut self, key: &str, value: &str) {
        self.knobs.insert(key.to_string(), value.to_string());
    }

    pub fn has(&self, key: &str) -> bool {
        self.knobs.contains_key(key)
    }

    pub fn raw(&self, key: &str) -> Option<&str> {
        self.knobs.get(key).map(String::as_str)
    }

    /// `adaptive`'s candidates as specs: the `candidates` knob, or the
    /// paper's defaults. Each has this spec's geometry and inherits its
    /// `table_json`, so an offline E2MC table reaches an E2MC candidate.
    pub fn candidate_specs(&self) -> Result<Vec<CodecSpec>, ConfigError> {
        let texts: Vec<&str> = match self.raw("candidates") {
            Some(list) => split_candidates(list),
            None => DEFAULT_CANDIDATES.to_vec(),
        };
        let mut candidates: Vec<CodecSpec> = Vec::new();
        for text in texts {
            // `candidates=fpc/bdi,lambda=2`: adaptive's own knob ended up in a candidate.
            let own_knob = text
                .split(',')
                .skip(1)
                .map(str::trim_start)
                .find_map(|piece| ["lambda=", "candidates="].into_iter().find(|knob| piece.starts_with(*knob)));
            if let Some(knob) = own_knob {
                return Err(ConfigError::new(
                    "adaptive.candidates",
                    format!("{knob}... after candidates"),
                    "candidates as adaptive's last knob (its list runs to the end of the spec)",
                ));
            }
            let mut candidate = CodecSpec::parse(text, self.geometry)?;
            candidate.table_json.clone_from(&self.table_json);
            if candidates.contains(&candidate) {
                return Err(ConfigError::new("adaptive.candidates", candidate.to_string(), "each candidate once"));
            }
            candidates.push(candidate);
        }
        Ok(candidates)
    }

    /// Replaces the `candidates` knob with these specs (their knobs included).
    pub fn set_candidates(&mut self, candidates: &[CodecSpec]) {
        let list: Vec<String> = candidates.iter().map(CodecSpec::to_string).collect();
        self.set("candidates", &list.join(CANDIDATE_SEPARATOR));
    }

    /// A knob's value parsed as `T`, or `default` when absent; `expected`
    /// describes valid values for the error message.
    pub fn knob<T: FromStr>(&self, key: &str, default: T, expected: &str) -> Result<T, ConfigError> {
        match self.knobs.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| ConfigError::new(format!("{}.{key}", self.name), v.as_str(), expected)),
        }
    }

    fn check_knobs(&self, allowed: &[&str]) -> Result<(), ConfigError> {
        match self.knobs.keys().find(|k| !allowed.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(ConfigError::new(
                format!("{} knob", self.name),
                k.as_str(),
                if allowed.is_empty() { "no knobs".to_string() } else { allowed.join(", ") },
            )),
        }
    }
}

/// `name[:key=value,...]`, the text [`CodecSpec::parse`] reads back
/// (`candidates` last).
impl fmt::Display for CodecSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        let (list, others): (Vec<_>, Vec<_>) = self.knobs.iter().partition(|(k, _)| k.as_str() == "candidates");
        let knobs: Vec<String> = others.into_iter().chain(list).map(|(k, v)| format!("{k}={v}")).collect();
        if !knobs.is_empty() {
            write!(f, ":{}", knobs.join(","))?;
        }
        Ok(())
    }
}

/// Separates adaptive's candidates: not `,` (separates knobs), `+`
/// (separates `mag_bdi` bases) nor `;` (gpgpu-sim splits some option strings
/// on it), and needs no quoting in a shell.
pub const CANDIDATE_SEPARATOR: &str = "/";

/// The knob whose value runs to the end of a spec.
const LIST_KNOB: &str = "candidates=";

fn split_candidates(list: &str) -> Vec<&str> {
    list.split(CANDIDATE_SEPARATOR).map(str::trim).collect()
}

type Builder = fn(&CodecSpec) -> Result<Box<dyn Codec>, ConfigError>;

struct Entry {
    name: &'static str,
    knobs: &'static [&'static str],
    build: Builder,
}

/// Every codec memzip knows, in the order `codec_names` lists them.
const CODECS: &[Entry] = &[
    Entry { name: "none", knobs: &[], build: |s| Ok(Box::new(NoCompression::new(s.geometry))) },
    Entry { name: "bdi", knobs: &[], build: |s| Ok(Box::new(super::bdi::Bdi::new(s.geometry))) },
    Entry {
        name: "mag_bdi",
        knobs: &["bases", "deltas"],
        build: |s| Ok(Box::new(super::mag_bdi::MagBdi::from_spec(s)?)),
    },
    Entry { name: "fpc", knobs: &["variant"], build: super::fpc::build },
    Entry { name: "cpack", knobs: &[], build: |s| Ok(Box::new(super::cpack::CPack::new(s.geometry, false))) },
    Entry { name: "cpack_z", knobs: &[], build: |s| Ok(Box::new(super::cpack::CPack::new(s.geometry, true))) },
    Entry { name: "bpc", knobs: &[], build: |s| Ok(Box::new(super::bpc::Bpc::new(s.geometry))) },
    Entry { name: "e2mc4", knobs: &["pdw", "sampling"], build: |s| Ok(Box::new(super::e2mc::E2mc::from_spec(s, 4)?)) },
    Entry { name: "e2mc8", knobs: &["pdw", "sampling"], build: |s| Ok(Box::new(super::e2mc::E2mc::from_spec(s, 8)?)) },
    Entry {
        name: "e2mc16",
        knobs: &["pdw", "mfv", "sampling"],
        build: |s| Ok(Box::new(super::e2mc::E2mc::from_spec(s, 16)?)),
    },
    Entry {
        name: "e2mc32",
        knobs: &["pdw", "mfv", "sampling"],
        build: |s| Ok(Box::new(super::e2mc::E2mc::from_spec(s, 32)?)),
    },
    Entry {
        name: "slc",
        knobs: &["variant", "threshold", "pdw", "mfv", "sampling"],
        build: |s| Ok(Box::new(super::slc::Slc::from_spec(s)?)),
    },
    Entry { name: "adaptive", knobs: &["lambda", "candidates"], build: build_adaptive },
];

/// `candidates` is a `/`-separated list of codec specs, each with its own
/// knobs, e.g. `adaptive:lambda=6,candidates=fpc:variant=paper004/mag_bdi:bases=8+4+2`;
/// it is adaptive's last knob (see [`CodecSpec::parse`]).
fn build_adaptive(spec: &CodecSpec) -> Result<Box<dyn Codec>, ConfigError> {
    let lambda = spec.knob("lambda", DEFAULT_LAMBDA, "a non-negative integer")?;
    // SLC is lossy only for data marked approximable, which adaptive's
    // size-only selection does not know about.
    let selectable: Vec<&str> =
        codec_names().into_iter().filter(|n| !["none", "adaptive", "slc"].contains(n)).collect();
    let candidates = spec
        .candidate_specs()?
        .iter()
        .map(|candidate| {
            if !selectable.contains(&candidate.name.as_str()) {
                return Err(ConfigError::new(
                    "adaptive.candidates",
                    candidate.to_string(),
                    format!("'{CANDIDATE_SEPARATOR}'-separated names from {}", selectable.join(", ")),
                ));
            }
            build(candidate)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(Adaptive::new(candidates, lambda)?))
}

/// Names accepted by [`build`].
pub fn codec_names() -> Vec<&'static str> {
    CODECS.iter().map(|e| e.name).collect()
}

/// Builds the codec a spec names. Every codec but the adaptive selector
/// also takes the latency knobs (`comp_latency`, `decomp_latency`; see
/// [`latency_knobs`](super::latency_knobs)).
pub fn build(spec: &CodecSpec) -> Result<Box<dyn Codec>, ConfigError> {
    let entry = CODECS
        .iter()
        .find(|e| e.name == spec.name)
        .ok_or_else(|| ConfigError::new("codec", spec.name.as_str(), format!("one of {}", codec_names().join(", "))))?;
    if entry.name == "adaptive" {
        if let Some(knob) = latency_knobs::KNOBS.into_iter().find(|&knob| spec.has(knob)) {
            return Err(ConfigError::new(
                "adaptive knob",
                knob,
                format!(
                    "lambda, candidates (latencies are per candidate: \
                     adaptive:candidates=fpc:{knob}=3/bdi:{knob}=2)"
                ),
            ));
        }
        spec.check_knobs(entry.knobs)?;
        return (entry.build)(spec);
    }
    let allowed: Vec<&str> = entry.knobs.iter().copied().chain(latency_knobs::KNOBS).collect();
    spec.check_knobs(&allowed)?;
    latency_knobs::apply(spec, (entry.build)(spec)?)
}

/// Parses and builds in one step.
pub fn build_str(text: &str, geometry: Geometry) -> Result<Box<dyn Codec>, ConfigError> {
    build(&CodecSpec::parse(text, geometry)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_by_name() {
        let codec = build_str("none", Geometry::default()).unwrap();
        assert_eq!(codec.name(), "none");
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let err = build_str("zip", Geometry::default()).err().unwrap();
        assert_eq!(err.knob, "codec");
        assert!(err.expected.contains("none"), "{err}");
    }

    #[test]
    fn unknown_knob_is_an_error() {
        let err = build_str("none:pdw=4", Geometry::default()).err().unwrap();
        assert!(err.to_string().contains("pdw"), "{err}");
    }

    #[test]
    fn every_codec_builds_for_every_geometry() {
        for block in [32, 64, 128] {
            for mag in [16, 32, 64].into_iter().filter(|&m| m <= block) {
                let geometry = Geometry::new(block, mag).unwrap();
                for name in codec_names() {
                    let codec = build_str(name, geometry).unwrap_or_else(|e| panic!("{name} at {block}/{mag}: {e}"));
                    assert_eq!(codec.name(), name);
                    assert_eq!(codec.geometry(), geometry);
                }
            }
        }
    }

    #[test]
    fn every_codec_builds_at_link_granules() {
        for geometry in crate::codec::test_support::geometries() {
            for name in codec_names() {
                let spec = crate::codec::test_support::spec_at(name, geometry);
                let codec = build_str(&spec, geometry).unwrap_or_else(|e| panic!("{spec} at {geometry:?}: {e}"));
                assert_eq!(codec.geometry(), geometry);
            }
        }
    }

    proptest::proptest! {
        /// A multi-GPU link: 64-byte cache lines, sized to the byte.
        #[test]
        fn every_codec_round_trips_64_byte_blocks_at_a_1_byte_granule(
            blocks in proptest::collection::vec(crate::codec::test_support::structured_block(64), 1..12)
        ) {
            let geometry = Geometry::with_granule(64, 1).unwrap();
            for name in codec_names() {
                let mut codec = build_str(&crate::codec::test_support::spec_at(name, geometry), geometry).unwrap();
                for (index, block) in blocks.iter().enumerate() {
                    if index == 4 {
                        codec.end_sampling().unwrap(); // E2MC: code the rest
                    }
                    let compressed = crate::codec::test_support::assert_round_trips(codec.as_mut(), block)?;
                    proptest::prop_assert_eq!(
                        compressed.is_compressed(),
                        compressed.compressed_bits.div_ceil(8) < 64,
                        "{}: stored compressed only when that saves a byte, else raw", name
                    );
                }
            }
        }
    }

    #[test]
    fn adaptive_uses_the_papers_candidates_by_default() {
        let codec = build_str("adaptive", Geometry::default()).unwrap();
        let names = codec.encoding_names();
        assert!(names.iter().any(|n| n.starts_with("fpc/")), "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("cpack_z/")), "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("bdi/")), "{names:?}");
        let err = build_str("adaptive:candidates=fpc/adaptive", Geometry::default()).err().unwrap();
        assert!(err.expected.contains("cpack_z") && !err.expected.contains("none"), "{err}");
        assert!(build_str("adaptive:candidates=fpc:variant=paper004/bdi", Geometry::default()).is_ok());
    }

    #[test]
    fn candidates_carry_their_own_knobs() {
        let codec = build_str("adaptive:lambda=2,candidates=mag_bdi:bases=8+4+2/fpc", Geometry::default()).unwrap();
        let names = codec.encoding_names();
        assert!(
            names.iter().any(|n| n.starts_with("mag_bdi/")) && names.iter().any(|n| n.starts_with("fpc/")),
            "{names:?}"
        );
        let spec =
            CodecSpec::parse("adaptive:lambda=2,candidates=e2mc16:pdw=2,mfv=64/fpc", Geometry::default()).unwrap();
        assert_eq!(spec.raw("lambda"), Some("2"));
        let candidates: Vec<String> = spec.candidate_specs().unwrap().iter().map(|c| c.to_string()).collect();
        assert_eq!(candidates, ["e2mc16:mfv=64,pdw=2", "fpc"]);
        assert_eq!(spec.to_string(), "adaptive:lambda=2,candidates=e2mc16:pdw=2,mfv=64/fpc");
        assert_eq!(CodecSpec::parse(&spec.to_string(), Geometry::default()).unwrap(), spec);
        let err = build_str("adaptive:candidates=fpc/bdi,lambda=2", Geometry::default()).err().unwrap();
        assert!(err.to_string().contains("candidates as adaptive's last knob"), "{err}");
        let err = build_str("adaptive:candidates=fpc+bdi", Geometry::default()).err().unwrap();
        assert!(err.to_string().contains("'/'-separated"), "{err}");
    }

    #[test]
    fn duplicate_knobs_and_candidates_are_errors() {
        let err = build_str("e2mc16:pdw=4,pdw=8", Geometry::default()).err().unwrap();
        assert_eq!(err.to_string(), "invalid e2mc16 knob 'pdw': expected each knob once");
        let err = build_str("adaptive:lambda=1,lambda=2", Geometry::default()).err().unwrap();
        assert_eq!((err.knob.as_str(), err.value.as_str()), ("adaptive knob", "lambda"));
        let err = build_str("adaptive:candidates=fpc/bdi/fpc", Geometry::default()).err().unwrap();
        assert_eq!(err.to_string(), "invalid adaptive.candidates 'fpc': expected each candidate once");
        let err =
            build_str("adaptive:candidates=mag_bdi:bases=8+4/mag_bdi: bases=8+4", Geometry::default()).err().unwrap();
        assert_eq!(err.value, "mag_bdi:bases=8+4");
        assert!(build_str("adaptive:candidates=fpc/fpc:variant=paper004", Geometry::default()).is_ok());
    }

    #[test]
    fn parses_knobs() {
        let spec = CodecSpec::parse("e2mc16:pdw=4, mfv=512", Geometry::default()).unwrap();
        assert_eq!(spec.name, "e2mc16");
        assert_eq!(spec.knob("pdw", 1u32, "1, 2, 4, 8").unwrap(), 4);
        assert_eq!(spec.knob("mfv", 1024u32, "a count").unwrap(), 512);
        assert_eq!(spec.knob("absent", 7u32, "").unwrap(), 7);
        assert!(spec.knob::<u32>("pdw", 1, "").is_ok());
        let bad = CodecSpec::parse("e2mc16:pdw=four", Geometry::default()).unwrap();
        assert_eq!(bad.knob("pdw", 1u32, "1, 2, 4, 8").unwrap_err().value, "four");
        assert!(CodecSpec::parse("bdi:oops", Geometry::default()).is_err());
    }
}
