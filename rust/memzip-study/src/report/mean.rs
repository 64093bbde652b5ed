//! The report's averages.

/// Geometric mean of the positive values; None when there are none.
pub fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let logs: Vec<f64> = values.into_iter().filter(|v| *v > 0.0).map(f64::ln).collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}
