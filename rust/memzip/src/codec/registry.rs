//! Builds a codec from a spec ([`CodecSpec`], parsed from a string such as
//! `mag_bdi`, `e2mc16:pdw=4,mfv=1024` or
//! `adaptive:lambda=6,candidates=fpc/cpack_z/mag_bdi:bases=8+4+2`).
//!
//! Unknown names and knobs are errors that list what is valid, so a typo in a
//! simulator config stops the run with one clear line.

use super::adaptive::{Adaptive, DEFAULT_LAMBDA};
use super::latency_knobs;
use super::none::NoCompression;
use super::spec::{CodecSpec, CANDIDATE_SEPARATOR};
use super::Codec;
use crate::error::ConfigError;
use crate::geometry::Geometry;

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
        codec_names().into_iter().filter(|&n| !["none", "adaptive"].contains(&n) && !is_lossy(n)).collect();
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

/// Codecs that may store a block the program marks approximable as an
/// approximation (`Codec::compress_approximable_into`); every other codec
/// stores every block exactly.
const LOSSY: &[&str] = &["slc"];

/// The codec `name` may approximate data marked approximable.
pub fn is_lossy(name: &str) -> bool {
    LOSSY.contains(&name)
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
}
