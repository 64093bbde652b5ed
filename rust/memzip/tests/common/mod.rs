//! Helpers shared by the integration tests and benchmarks.
#![allow(dead_code)]

pub mod mix;

use memzip::codec::registry::{build, codec_names};
use memzip::codec::spec::CodecSpec;
use memzip::{Codec, Geometry};

/// Knob settings that change a codec's bitstream layout, checked beside
/// every registered codec at its defaults (see [`codecs`]).
pub const KNOB_VARIANTS: &[(&str, &[(&str, &str)])] = &[
    ("mag_bdi", &[("bases", "8+4+2")]),
    ("fpc", &[("variant", "paper004")]),
    ("e2mc8", &[("pdw", "8")]),
    ("e2mc16", &[("pdw", "1")]),
    ("e2mc32", &[("pdw", "2"), ("mfv", "64")]),
    ("fpexp", &[("format", "fp32")]),
    ("fpexp", &[("format", "fp16")]),
    ("fpexp", &[("format", "e4m3")]),
    ("fpexp", &[("format", "e5m2")]),
];

/// (name, knobs): every registered codec at its defaults, in registry order,
/// each followed by its [`KNOB_VARIANTS`]. Read from the registry, so a new
/// codec is checked (and asked for golden digests) without editing a list.
pub fn codecs() -> Vec<(&'static str, &'static [(&'static str, &'static str)])> {
    let mut all = Vec::new();
    for name in codec_names() {
        all.push((name, &[] as &[(&str, &str)]));
        all.extend(KNOB_VARIANTS.iter().filter(|(variant, _)| *variant == name).copied());
    }
    all
}

/// `name:k=v,...` for messages and golden lines.
pub fn label(name: &str, knobs: &[(&str, &str)]) -> String {
    let knobs: Vec<String> = knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if knobs.is_empty() {
        name.to_string()
    } else {
        format!("{name}:{}", knobs.join(","))
    }
}

/// Builds a codec from a name and knobs (set one by one, not parsed).
pub fn codec(name: &str, knobs: &[(&str, &str)], geometry: Geometry) -> Box<dyn Codec> {
    let mut spec = CodecSpec::new(name, geometry);
    for (k, v) in knobs {
        spec.set(k, v).unwrap_or_else(|e| panic!("{}: {e}", label(name, knobs)));
    }
    build(&spec).unwrap_or_else(|e| panic!("{}: {e}", label(name, knobs)))
}
