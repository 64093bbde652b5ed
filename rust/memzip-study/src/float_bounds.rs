//! The entropy bounds that matter for tensors (issue 51), computed while
//! `memzip analyze --element-format FORMAT` streams a trace:
//!
//! * **whole value**: the order-0 entropy H(v) of the elements as `w`-bit
//!   symbols; no coder of single elements beats `w / H(v)`;
//! * **exponent field**: H(e) of the exponent field alone, with sign and
//!   mantissa stored raw (their bits are close to uniform in trained
//!   tensors): `w / (H(e) + 1 + mantissa bits)`, the bound of exponent
//!   coders such as DFloat11 and `fpexp`; at the MAG the block can at best
//!   shrink to that many bits, rounded up to whole bursts (reported too);
//! * the counts of `fpexp`'s symbols (zero, offset below the block's largest
//!   exponent, escape): the profile its code tables were designed from, and
//!   their entropy (plus the per-block header) as the bound of a coder of
//!   those symbols.
//!
//! For `int8` only the whole-value bound exists.

use memzip::codec::e2mc::entropy::entropy_bits;
use memzip::codec::fpexp::{count_symbols, FloatFormat};
use memzip::Geometry;
use serde::Serialize;

use crate::error::AnalyzeError;
use crate::shannon::{ShannonResult, ShannonRun};

/// What the elements of a trace are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementFormat {
    Float(FloatFormat),
    Int8,
}

impl ElementFormat {
    /// Every name `--element-format` accepts.
    pub fn names() -> Vec<&'static str> {
        FloatFormat::ALL.iter().map(|f| f.name()).chain(["int8"]).collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            ElementFormat::Float(f) => f.name(),
            ElementFormat::Int8 => "int8",
        }
    }

    pub fn width_bits(self) -> u32 {
        match self {
            ElementFormat::Float(f) => f.width_bits(),
            ElementFormat::Int8 => 8,
        }
    }
}

impl std::str::FromStr for ElementFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match (s, FloatFormat::from_name(s)) {
            ("int8", _) => Ok(ElementFormat::Int8),
            (_, Some(f)) => Ok(ElementFormat::Float(f)),
            _ => Err(format!("unknown element format '{s}' (expected one of {})", ElementFormat::names().join(", "))),
        }
    }
}

/// The exponent-field bound of a float format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExponentBound {
    pub exponent_bits: u32,
    /// H(e), bits per element.
    pub exponent_entropy_bits: f64,
    /// `w / (H(e) + 1 + mantissa bits)`.
    pub ideal_ratio: f64,
    /// Block bytes over the bound's block size rounded up to the MAG: the
    /// best effective ratio of a coder that reaches the bound on every block.
    pub ideal_effective_ratio: f64,
    /// Elements whose bits are all zero.
    pub zero_fraction: f64,
    /// fpexp's symbols: ZERO, offsets 0, 1, .. below the block's largest
    /// exponent, and (8-bit exponents) ESCAPE.
    pub fpexp_symbol_counts: Vec<u64>,
    /// Entropy of those symbols, bits per element.
    pub fpexp_symbol_entropy_bits: f64,
}

/// Every bound of one trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FloatBounds {
    pub format: &'static str,
    pub elements: u64,
    /// The whole-value bound (order-0, the element as one symbol).
    pub value: ShannonResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exponent: Option<ExponentBound>,
}

/// Counts one trace's elements.
pub struct FloatBoundsRun {
    format: ElementFormat,
    geometry: Geometry,
    value: ShannonRun,
    exponents: Vec<u64>,
    symbols: Vec<u64>,
    zeros: u64,
    elements: u64,
}

impl FloatBoundsRun {
    pub fn new(format: ElementFormat, geometry: Geometry, max_distinct: usize) -> Result<Self, AnalyzeError> {
        let (exponents, symbols) = match format {
            ElementFormat::Float(f) => (vec![0; 1 << f.exponent_bits()], vec![0; f.symbol_count()]),
            ElementFormat::Int8 => (Vec::new(), Vec::new()),
        };
        // Every block size memzip takes (32, 64, 128 bytes) is whole elements.
        debug_assert!(geometry.block_bits().is_multiple_of(format.width_bits() as usize));
        Ok(FloatBoundsRun {
            format,
            geometry,
            value: ShannonRun::new(format.width_bits(), max_distinct)?,
            exponents,
            symbols,
            zeros: 0,
            elements: 0,
        })
    }

    pub fn feed(&mut self, block: &[u8]) {
        self.value.feed(block);
        let width = self.format.width_bits() as usize / 8;
        self.elements += (block.len() / width) as u64;
        let ElementFormat::Float(f) = self.format else { return };
        for chunk in block.chunks_exact(width) {
            let mut word = [0u8; 4];
            word[..width].copy_from_slice(chunk);
            let word = u32::from_le_bytes(word);
            self.zeros += (word == 0) as u64;
            self.exponents[f.exponent(word) as usize] += 1;
        }
        count_symbols(f, block, &mut self.symbols);
    }

    pub fn finish(self) -> FloatBounds {
        let exponent = match self.format {
            ElementFormat::Float(f) => Some(self.exponent_bound(f)),
            ElementFormat::Int8 => None,
        };
        FloatBounds { format: self.format.name(), elements: self.elements, value: self.value.finish(), exponent }
    }

    fn exponent_bound(&self, f: FloatFormat) -> ExponentBound {
        let h = entropy_bits(&self.exponents);
        let bits_per_element = h + 1.0 + f.mantissa_bits() as f64;
        let elements = f.elements(self.geometry.block_bytes()) as f64;
        let block_bits = (bits_per_element * elements).ceil() as usize;
        let stored = self.geometry.mag_rounded_bytes(block_bits).min(self.geometry.block_bytes());
        ExponentBound {
            exponent_bits: f.exponent_bits(),
            exponent_entropy_bits: h,
            ideal_ratio: f.width_bits() as f64 / bits_per_element,
            ideal_effective_ratio: self.geometry.block_bytes() as f64 / stored as f64,
            zero_fraction: if self.elements == 0 { 0.0 } else { self.zeros as f64 / self.elements as f64 },
            fpexp_symbol_counts: self.symbols.clone(),
            fpexp_symbol_entropy_bits: entropy_bits(&self.symbols),
        }
    }
}

/// The text lines `memzip analyze` prints for the bounds.
pub fn render(bounds: &FloatBounds) -> String {
    let value = &bounds.value.bound;
    let mut out = format!(
        "Element format {} ({} elements): whole value H = {:.3} bits, bound {:.3}{}\n",
        bounds.format,
        bounds.elements,
        value.entropy_bits,
        value.ideal_ratio,
        if bounds.value.complete { "" } else { " (first blocks only: distinct-value cap)" },
    );
    if let Some(e) = &bounds.exponent {
        out.push_str(&format!(
            "  exponent field: H(e) = {:.3} of {} bits, bound {:.3} (sign and mantissa raw), {:.3} at the MAG; \
             zeros {:.1}%; fpexp symbols H = {:.3}\n  fpexp symbols (zero, offsets 0.., escape): {:?}\n",
            e.exponent_entropy_bits,
            e.exponent_bits,
            e.ideal_ratio,
            e.ideal_effective_ratio,
            100.0 * e.zero_fraction,
            e.fpexp_symbol_entropy_bits,
            e.fpexp_symbol_counts,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bf16_bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| ((v.to_bits() >> 16) as u16).to_le_bytes()).collect()
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("bf16".parse::<ElementFormat>(), Ok(ElementFormat::Float(FloatFormat::Bf16)));
        assert_eq!("int8".parse::<ElementFormat>(), Ok(ElementFormat::Int8));
        let err = "fp64".parse::<ElementFormat>().unwrap_err();
        assert!(err.contains("'fp64'") && err.contains("e5m2, int8"), "{err}");
    }

    #[test]
    fn two_exponents_half_each_give_one_bit() {
        // 1.0 and 2.0 (exponents 127 and 128) with a zero mantissa.
        let block = bf16_bytes(&[1.0, 2.0].repeat(32));
        let mut run =
            FloatBoundsRun::new(ElementFormat::Float(FloatFormat::Bf16), Geometry::default(), 1 << 10).unwrap();
        run.feed(&block);
        let bounds = run.finish();
        let e = bounds.exponent.unwrap();
        assert_eq!(bounds.elements, 64);
        assert!((e.exponent_entropy_bits - 1.0).abs() < 1e-12);
        assert!((e.ideal_ratio - 16.0 / 9.0).abs() < 1e-12);
        // 64 x 9 bits = 72 bytes: three 32-byte bursts.
        assert!((e.ideal_effective_ratio - 128.0 / 96.0).abs() < 1e-12);
        // Offsets 0 (2.0) and 1 (1.0), 32 each.
        assert_eq!(&e.fpexp_symbol_counts[..3], &[0, 32, 32]);
        assert!((bounds.value.bound.entropy_bits - 1.0).abs() < 1e-12);
    }

    #[test]
    fn int8_has_only_the_value_bound() {
        let mut run = FloatBoundsRun::new(ElementFormat::Int8, Geometry::default(), 1 << 10).unwrap();
        run.feed(&[7u8; 128]);
        let bounds = run.finish();
        assert!(bounds.exponent.is_none());
        assert_eq!(bounds.elements, 128);
        assert!(render(&bounds).contains("int8 (128 elements)"));
    }
}
