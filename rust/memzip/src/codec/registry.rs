//! Builds a codec from a spec ([`CodecSpec`], parsed from a string such as
//! `mag_bdi`, `e2mc16:pdw=4,mfv=1024` or
//! `adaptive:lambda=6,candidates=fpc/cpack_z/mag_bdi:bases=8+4+2`).
//!
//! The registry holds no codec facts of its own: each codec declares its
//! name, knobs, lossiness, energy figure, default latency and builder in its
//! own file ([`Declaration`]), and [`REGISTERED`] collects the declarations.
//! Unknown names and knobs are errors that list what is valid, so a typo in a
//! simulator config stops the run with one clear line.

use super::declaration::{Declaration, DefaultLatency, Knob, Registry};
use super::latency_knobs;
use super::spec::CodecSpec;
use super::Codec;
use crate::error::ConfigError;
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// Every codec memzip knows, one line per codec file, in the order
/// [`codec_names`] lists them. That order is every tool's output order (the
/// rows of `memzip analyze` and its JSON, Python's `codec_names()`, the C
/// ABI's `memzip_codec_names`, the simulator flag's help, MGPUSim's
/// `Names()`), so it is chosen, not accidental: the baseline first; then the
/// papers' codecs from the simplest hardware to the most elaborate (BDI and
/// its MAG-aware form, FPC, C-Pack, BPC, E2MC by symbol length), then
/// fpexp (floating-point blocks, E2MC-style codes over exponent fields); then
/// the lossy SLC, which builds on E2MC16; the adaptive selector last, since it
/// picks among the codecs above. A new codec goes where its rows should
/// appear; the golden tests then ask for its rows to be blessed.
pub const REGISTERED: &[&[Declaration]] = &[
    super::none::DECLARATIONS,
    super::bdi::DECLARATIONS,
    super::mag_bdi::DECLARATIONS,
    super::fpc::DECLARATIONS,
    super::cpack::DECLARATIONS,
    super::bpc::DECLARATIONS,
    super::e2mc::DECLARATIONS,
    super::fpexp::DECLARATIONS,
    super::slc::DECLARATIONS,
    super::adaptive::DECLARATIONS,
];

/// Every declaration, in registry order.
pub fn declarations() -> impl Iterator<Item = &'static Declaration> {
    REGISTERED.iter().flat_map(|file| file.iter())
}

/// What a builder may ask of the registry (see [`Registry`]).
const FOR_BUILDERS: Registry = Registry { declarations: || declarations().collect(), build };

/// The declaration of the codec `name`, if it is registered.
pub fn declaration(name: &str) -> Option<&'static Declaration> {
    declarations().find(|d| d.name == name)
}

/// The codec `name` may approximate data marked approximable.
pub fn is_lossy(name: &str) -> bool {
    declaration(name).is_some_and(|d| d.lossy)
}

/// Names accepted by [`build`].
pub fn codec_names() -> Vec<&'static str> {
    declarations().map(|d| d.name).collect()
}

/// The per-block energy the codec `name` declares, under `params`, for
/// blocks of `block_bits`; `None` for a name the registry does not know or a
/// codec charged through its candidates (the adaptive selector).
pub fn energy(name: &str, params: &EnergyParams, block_bits: usize) -> Option<CodecEnergy> {
    declaration(name)?.energy(params, block_bits)
}

/// The latency knobs every codec with a latency of its own takes.
const LATENCY_KNOBS: [Knob; 2] = [
    Knob { name: latency_knobs::COMP_LATENCY, accepts: "cycles" },
    Knob { name: latency_knobs::DECOMP_LATENCY, accepts: "cycles" },
];

/// Builds the codec a spec names. Every codec with a latency of its own also
/// takes the latency knobs (`comp_latency`, `decomp_latency`; see
/// [`latency_knobs`]); the adaptive selector's are its candidates'.
pub fn build(spec: &CodecSpec) -> Result<Box<dyn Codec>, ConfigError> {
    let declared = declaration(&spec.name)
        .ok_or_else(|| ConfigError::new("codec", spec.name.as_str(), format!("one of {}", codec_names().join(", "))))?;
    if declared.latency == DefaultLatency::OfCandidates {
        if let Some(knob) = latency_knobs::KNOBS.into_iter().find(|&knob| spec.has(knob)) {
            return Err(ConfigError::new(
                format!("{} knob", declared.name),
                knob,
                format!(
                    "{} (latencies are per candidate: \
                     {}:candidates=fpc:{knob}=3/bdi:{knob}=2)",
                    declared.knob_names().join(", "),
                    declared.name
                ),
            ));
        }
        check_knobs(spec, declared.knobs.iter())?;
        return (declared.build)(spec, &FOR_BUILDERS);
    }
    check_knobs(spec, declared.knobs.iter().chain(&LATENCY_KNOBS))?;
    latency_knobs::apply(spec, (declared.build)(spec, &FOR_BUILDERS)?)
}

/// An error naming the first knob of `spec` the codec does not take, listing
/// the ones it does with what each accepts.
fn check_knobs<'a>(spec: &CodecSpec, allowed: impl Iterator<Item = &'a Knob> + Clone) -> Result<(), ConfigError> {
    let Some(unknown) = spec.knob_names().find(|name| !allowed.clone().any(|knob| knob.name == *name)) else {
        return Ok(());
    };
    let described: Vec<String> = allowed.map(|knob| format!("{} ({})", knob.name, knob.accepts)).collect();
    let expected = if described.is_empty() { "no knobs".to_string() } else { described.join(", ") };
    Err(ConfigError::new(format!("{} knob", spec.name), unknown, expected))
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
    fn unknown_knob_is_an_error_listing_what_each_knob_accepts() {
        let err = build_str("none:pdw=4", Geometry::default()).err().unwrap();
        assert!(err.to_string().contains("pdw"), "{err}");
        let err = build_str("mag_bdi:base=4", Geometry::default()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "invalid mag_bdi knob 'base': expected bases (4 (default) or 8+4+2), deltas (signed (default) or \
             unsigned), comp_latency (cycles), decomp_latency (cycles)"
        );
        let err = build_str("adaptive:pdw=4", Geometry::default()).err().unwrap();
        assert!(err.expected.starts_with("lambda (a non-negative integer (default 6)), candidates ("), "{err}");
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
