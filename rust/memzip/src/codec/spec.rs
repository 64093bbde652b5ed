//! A codec request: a name, the geometry, the codec's own knobs, and the two
//! parts that are not text once parsed: adaptive's candidates (specs of
//! their own) and an E2MC code table (offline probabilities).
//!
//! The text form is `name[:key=value[,key=value...]]`, e.g. `mag_bdi`,
//! `e2mc16:pdw=4,mfv=1024` or
//! `adaptive:lambda=6,candidates=fpc/cpack_z/mag_bdi:bases=8+4+2`. The
//! registry ([`super::registry`]) builds a codec from a spec; each codec reads
//! its knobs with [`CodecSpec::knob`].

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::e2mc::table::CodeTable;
use crate::error::ConfigError;
use crate::geometry::Geometry;

/// Separates adaptive's candidates: not `,` (separates knobs), `+`
/// (separates `mag_bdi` bases) nor `;` (gpgpu-sim splits some option strings
/// on it), and needs no quoting in a shell.
pub const CANDIDATE_SEPARATOR: &str = "/";

/// The adaptive selector's candidates when its spec lists none: the
/// adaptive-compression paper's three (Section IV).
pub const DEFAULT_CANDIDATES: [&str; 3] = ["fpc", "cpack_z", "bdi"];

/// The knob whose value, adaptive's candidate list, runs to the end of a spec.
const CANDIDATES: &str = "candidates";

/// A parsed codec request.
#[derive(Debug, Clone, PartialEq)]
pub struct CodecSpec {
    pub name: String,
    pub geometry: Geometry,
    /// The codec's own knobs as given (each codec parses its values).
    knobs: BTreeMap<String, String>,
    /// Adaptive's candidates, parsed once; `None`: the spec lists none (the
    /// selector's defaults, [`DEFAULT_CANDIDATES`]).
    candidates: Option<Vec<CodecSpec>>,
    /// An E2MC code table (offline probabilities). The library does no I/O:
    /// the caller reads and checks the table once, and every codec built from
    /// this spec, adaptive's E2MC candidates included, shares it.
    pub table: Option<Arc<CodeTable>>,
}

impl CodecSpec {
    pub fn new(name: &str, geometry: Geometry) -> Self {
        CodecSpec { name: name.to_string(), geometry, knobs: BTreeMap::new(), candidates: None, table: None }
    }

    /// Parses `name[:key=value[,key=value...]]`. Each knob may be given once.
    /// `candidates` (adaptive's list of codec specs, which have `,`-separated
    /// knobs of their own) takes the rest of the text, so it comes last.
    pub fn parse(text: &str, geometry: Geometry) -> Result<Self, ConfigError> {
        let text = text.trim();
        let (name, mut rest) = text.split_once(':').unwrap_or((text, ""));
        let mut spec = CodecSpec::new(name.trim(), geometry);
        while !rest.is_empty() {
            let (pair, tail) = if rest.trim_start().starts_with("candidates=") {
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
            spec.set(key, value.trim())?;
        }
        Ok(spec)
    }

    /// Sets a knob (the simulator maps its `-memzip_*` flags onto knobs);
    /// `candidates` is parsed into specs (the error says what is wrong).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        if key == CANDIDATES {
            let candidates = parse_candidates(value, self.geometry)?;
            self.set_candidates(candidates);
        } else {
            self.knobs.insert(key.to_string(), value.to_string());
        }
        Ok(())
    }

    pub fn has(&self, key: &str) -> bool {
        if key == CANDIDATES {
            self.candidates.is_some()
        } else {
            self.knobs.contains_key(key)
        }
    }

    /// A knob's text as given (`None` for `candidates`: see [`Self::candidate_specs`]).
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.knobs.get(key).map(String::as_str)
    }

    /// The knobs the spec sets, `candidates` included, in name order.
    pub fn knob_names(&self) -> impl Iterator<Item = &str> + '_ {
        let candidates = self.candidates.as_ref().map(|_| CANDIDATES);
        let mut names: Vec<&str> = self.knobs.keys().map(String::as_str).chain(candidates).collect();
        names.sort_unstable();
        names.into_iter()
    }

    /// `adaptive`'s candidates: the ones the spec lists, or the selector's
    /// defaults. Each has this spec's geometry and, unless it has a table of
    /// its own, this spec's table, so an offline E2MC table reaches an E2MC
    /// candidate.
    pub fn candidate_specs(&self) -> Result<Vec<CodecSpec>, ConfigError> {
        let mut candidates = match &self.candidates {
            Some(listed) => listed.clone(),
            None => DEFAULT_CANDIDATES
                .iter()
                .map(|text| CodecSpec::parse(text, self.geometry))
                .collect::<Result<Vec<_>, _>>()?,
        };
        for candidate in candidates.iter_mut().filter(|c| c.table.is_none()) {
            candidate.table.clone_from(&self.table);
        }
        Ok(candidates)
    }

    /// Sets adaptive's candidates (their knobs included).
    pub fn set_candidates(&mut self, candidates: Vec<CodecSpec>) {
        self.candidates = Some(candidates);
    }

    /// A knob's value parsed as `T`, or `default` when absent; `expected`
    /// describes valid values for the error message.
    pub fn knob<T: FromStr>(&self, key: &str, default: T, expected: &str) -> Result<T, ConfigError> {
        match self.knobs.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| ConfigError::new(format!("{}.{key}", self.name), v.as_str(), expected)),
        }
    }
}

/// `name[:key=value,...]`, the text [`CodecSpec::parse`] reads back
/// (`candidates` last, each candidate in this form).
impl fmt::Display for CodecSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        let mut knobs: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if let Some(candidates) = &self.candidates {
            let list: Vec<String> = candidates.iter().map(CodecSpec::to_string).collect();
            knobs.push(format!("{CANDIDATES}={}", list.join(CANDIDATE_SEPARATOR)));
        }
        if !knobs.is_empty() {
            write!(f, ":{}", knobs.join(","))?;
        }
        Ok(())
    }
}

/// Adaptive's `candidates` value: `/`-separated codec specs, each once.
fn parse_candidates(list: &str, geometry: Geometry) -> Result<Vec<CodecSpec>, ConfigError> {
    let mut candidates: Vec<CodecSpec> = Vec::new();
    for text in list.split(CANDIDATE_SEPARATOR).map(str::trim) {
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
        let candidate = CodecSpec::parse(text, geometry)?;
        if candidates.contains(&candidate) {
            return Err(ConfigError::new("adaptive.candidates", candidate.to_string(), "each candidate once"));
        }
        candidates.push(candidate);
    }
    Ok(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn candidates_are_specs_parsed_once_and_read_back() {
        let spec =
            CodecSpec::parse("adaptive:lambda=2,candidates=e2mc16:pdw=2,mfv=64/fpc", Geometry::default()).unwrap();
        assert_eq!(spec.raw("lambda"), Some("2"));
        assert!(spec.has("candidates") && spec.raw("candidates").is_none());
        let candidates = spec.candidate_specs().unwrap();
        assert_eq!(candidates[0].knob("pdw", 0u32, "").unwrap(), 2);
        let texts: Vec<String> = candidates.iter().map(|c| c.to_string()).collect();
        assert_eq!(texts, ["e2mc16:mfv=64,pdw=2", "fpc"]);
        assert_eq!(spec.to_string(), "adaptive:lambda=2,candidates=e2mc16:mfv=64,pdw=2/fpc");
        assert_eq!(CodecSpec::parse(&spec.to_string(), Geometry::default()).unwrap(), spec);
        let defaults: Vec<String> = CodecSpec::new("adaptive", Geometry::default())
            .candidate_specs()
            .unwrap()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(defaults, DEFAULT_CANDIDATES);
    }

    #[test]
    fn candidates_share_the_table() {
        let mut sampler = super::super::e2mc::table::Sampler::new(4).unwrap();
        sampler.feed(&[7u8; 128]);
        let table = Arc::new(sampler.build_table(0).unwrap());
        let mut spec = CodecSpec::parse("adaptive:candidates=e2mc4/fpc", Geometry::default()).unwrap();
        spec.table = Some(Arc::clone(&table));
        assert!(spec
            .candidate_specs()
            .unwrap()
            .iter()
            .all(|c| c.table.as_ref().is_some_and(|t| Arc::ptr_eq(t, &table))));
    }

    #[test]
    fn bad_candidate_lists_are_errors() {
        let parse = |text| CodecSpec::parse(text, Geometry::default()).unwrap_err().to_string();
        assert!(parse("adaptive:candidates=fpc/bdi,lambda=2").contains("candidates as adaptive's last knob"));
        assert_eq!(
            parse("adaptive:candidates=fpc/bdi/fpc"),
            "invalid adaptive.candidates 'fpc': expected each candidate once"
        );
        assert_eq!(parse("adaptive:lambda=1,lambda=2"), "invalid adaptive knob 'lambda': expected each knob once");
    }
}
