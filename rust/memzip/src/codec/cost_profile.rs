//! Cost profiles: the latencies (and FPC prefix table) a codec spec gets
//! where it sets none itself.
//!
//! memzip's codecs default to the DRAM-side figures their own papers give
//! (FPC 6/10 cycles, BDI 1/1, C-Pack+Z 16/9). A multi-GPU fabric study uses
//! the figures of "Exploiting Adaptive Data Compression to Improve
//! Performance and Energy-Efficiency of Compute Workloads in Multi-GPU
//! Systems" (IPDPS 2019) instead: [`CostProfile::Paper004`] writes them into
//! the spec as knobs, so the resolved spec names every number it runs with.
//! Energies need no profile: the energy model's defaults
//! ([`EnergyParams`](crate::mc::EnergyParams)) already follow that paper's
//! Table III for these three codecs.

use super::latency_knobs::{COMP_LATENCY, DECOMP_LATENCY};
use super::spec::CodecSpec;
use super::Latency;
use crate::error::ConfigError;

/// Which latencies a spec gets where it sets none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CostProfile {
    /// Each codec's own defaults (the DRAM-side figures).
    #[default]
    CodecDefaults,
    /// Table III of the IPDPS 2019 multi-GPU compression paper (7 nm,
    /// 1 GHz): FPC compresses in 3 cycles and decompresses in 5, BDI 2 and 1,
    /// C-Pack+Z 16 and 9 (Section III-B gives the same figures in prose).
    /// FPC also takes that paper's prefix table (Table II,
    /// `fpc:variant=paper004`) unless the spec names a variant. Applies to
    /// the adaptive selector's candidates, its defaults included.
    Paper004,
}

impl std::str::FromStr for CostProfile {
    type Err = ConfigError;

    /// The names tools take: `memzip` (each codec's own) and `paper004`.
    fn from_str(text: &str) -> Result<Self, ConfigError> {
        match text {
            "memzip" => Ok(CostProfile::CodecDefaults),
            "paper004" => Ok(CostProfile::Paper004),
            other => Err(ConfigError::new("costs", other, "memzip or paper004")),
        }
    }
}

/// Table III's latencies, by registry name.
pub const PAPER004_LATENCIES: [(&str, Latency); 3] =
    [("fpc", Latency::new(3, 5)), ("bdi", Latency::new(2, 1)), ("cpack_z", Latency::new(16, 9))];

impl CostProfile {
    /// The spec with this profile's figures wherever it sets none itself;
    /// knobs the spec sets are kept. An adaptive spec's candidates are
    /// written out (its defaults too), each with the profile applied.
    pub fn apply(self, spec: &CodecSpec) -> Result<CodecSpec, ConfigError> {
        let mut resolved = spec.clone();
        if self == CostProfile::CodecDefaults {
            return Ok(resolved);
        }
        if spec.name == "adaptive" {
            let candidates =
                spec.candidate_specs()?.iter().map(|candidate| self.apply(candidate)).collect::<Result<Vec<_>, _>>()?;
            resolved.set_candidates(candidates);
            return Ok(resolved);
        }
        if let Some((_, latency)) = PAPER004_LATENCIES.iter().find(|(name, _)| *name == spec.name) {
            set_default(&mut resolved, COMP_LATENCY, &latency.compress_cycles.to_string())?;
            set_default(&mut resolved, DECOMP_LATENCY, &latency.decompress_cycles.to_string())?;
        }
        if spec.name == "fpc" {
            set_default(&mut resolved, "variant", "paper004")?;
        }
        Ok(resolved)
    }
}

fn set_default(spec: &mut CodecSpec, knob: &str, value: &str) -> Result<(), ConfigError> {
    if !spec.has(knob) {
        spec.set(knob, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::fpc::{Fpc, FpcVariant};
    use crate::codec::registry::{build, codec_names};
    use crate::geometry::Geometry;

    fn spec(text: &str) -> CodecSpec {
        CodecSpec::parse(text, Geometry::with_granule(64, 1).unwrap()).unwrap()
    }

    fn paper004(text: &str) -> String {
        CostProfile::Paper004.apply(&spec(text)).unwrap().to_string()
    }

    #[test]
    fn table_iii_latencies_and_the_paper_fpc_table() {
        assert_eq!(paper004("fpc"), "fpc:comp_latency=3,decomp_latency=5,variant=paper004");
        assert_eq!(paper004("bdi"), "bdi:comp_latency=2,decomp_latency=1");
        assert_eq!(paper004("cpack_z"), "cpack_z:comp_latency=16,decomp_latency=9");
        for (name, latency) in PAPER004_LATENCIES {
            let codec = build(&CostProfile::Paper004.apply(&spec(name)).unwrap()).unwrap();
            assert_eq!(codec.latency(), latency, "{name}");
        }
        assert_eq!(paper004("mag_bdi"), "mag_bdi", "codecs the table has no row for keep their defaults");
        assert_eq!(paper004("e2mc16:pdw=2"), "e2mc16:pdw=2");
    }

    #[test]
    fn the_spec_wins_over_the_profile() {
        assert_eq!(
            paper004("fpc:variant=original,comp_latency=9"),
            "fpc:comp_latency=9,decomp_latency=5,variant=original"
        );
        assert_eq!(paper004("bdi:decomp_latency=0"), "bdi:comp_latency=2,decomp_latency=0");
    }

    #[test]
    fn reaches_adaptives_candidates_default_or_given() {
        assert_eq!(
            paper004("adaptive"),
            "adaptive:candidates=fpc:comp_latency=3,decomp_latency=5,variant=paper004/\
             cpack_z:comp_latency=16,decomp_latency=9/bdi:comp_latency=2,decomp_latency=1"
        );
        assert_eq!(
            paper004("adaptive:lambda=0,candidates=bdi:comp_latency=4/mag_bdi"),
            "adaptive:lambda=0,candidates=bdi:comp_latency=4,decomp_latency=1/mag_bdi"
        );
        let resolved = CostProfile::Paper004.apply(&spec("adaptive:lambda=32")).unwrap();
        assert_eq!(CodecSpec::parse(&resolved.to_string(), resolved.geometry).unwrap(), resolved, "reads back");
        let codec = build(&resolved).unwrap();
        assert_eq!(codec.latency(), Latency::new(16, 9), "the slowest candidate bounds a sample");
        let bad_candidate = CodecSpec::parse("adaptive:candidates=fpc:oops", Geometry::with_granule(64, 1).unwrap());
        assert!(bad_candidate.is_err(), "a candidate is parsed with its list");
    }

    #[test]
    fn codec_defaults_change_nothing() {
        for name in codec_names() {
            assert_eq!(CostProfile::CodecDefaults.apply(&spec(name)).unwrap(), spec(name));
        }
        let fpc = Fpc::new(Geometry::default(), FpcVariant::default());
        assert_ne!(crate::Codec::latency(&fpc), PAPER004_LATENCIES[0].1, "the profile changes FPC's figures");
    }
}
