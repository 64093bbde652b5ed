//! Helpers shared by the integration tests and benchmarks.
#![allow(dead_code)]

pub mod mix;

use memzip::codec::registry::build;
use memzip::codec::spec::CodecSpec;
use memzip::{Codec, Geometry};

/// (name, knobs): every registry codec, plus knob settings that change the
/// bitstream layout.
pub const CODECS: &[(&str, &[(&str, &str)])] = &[
    ("none", &[]),
    ("bdi", &[]),
    ("mag_bdi", &[]),
    ("mag_bdi", &[("bases", "8+4+2")]),
    ("fpc", &[]),
    ("fpc", &[("variant", "paper004")]),
    ("cpack", &[]),
    ("cpack_z", &[]),
    ("e2mc4", &[]),
    ("e2mc8", &[]),
    ("e2mc8", &[("pdw", "8")]),
    ("e2mc16", &[]),
    ("e2mc16", &[("pdw", "1")]),
    ("e2mc32", &[]),
    ("e2mc32", &[("pdw", "2"), ("mfv", "64")]),
    ("adaptive", &[]),
];

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
