//! The report's figures: grouped bar charts as standalone SVG (no plotting
//! library; the files are committed, so the same data draws the same bytes).

use std::fmt::Write as _;

/// A named row of bars, one value per group (None: no bar).
pub type Series = (String, Vec<Option<f64>>);

/// One figure: groups along x, one bar per series in each group.
pub struct BarChart<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub groups: Vec<String>,
    pub series: Vec<Series>,
    /// A dashed reference line (e.g. 1.0 for ratios).
    pub reference: Option<f64>,
}

const COLORS: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A round axis maximum and tick step above `max`.
fn axis(max: f64) -> (f64, f64) {
    let max = if max > 0.0 { max } else { 1.0 };
    let raw_step = max / 5.0;
    let magnitude = 10f64.powf(raw_step.log10().floor());
    let step =
        [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw_step).unwrap_or(magnitude * 10.0);
    ((max / step).ceil() * step, step)
}

impl BarChart<'_> {
    pub fn to_svg(&self) -> String {
        let (left, right, top, bottom) = (80.0, 170.0, 50.0, 90.0);
        let plot_h = 320.0;
        let per_group = 24.0 * self.series.len().max(1) as f64 + 24.0;
        let plot_w = (per_group * self.groups.len().max(1) as f64).max(300.0);
        let (width, height) = (left + plot_w + right, top + plot_h + bottom);
        let max = self.series.iter().flat_map(|(_, v)| v.iter().flatten().copied()).fold(0.0, f64::max);
        let (y_max, step) = axis(max.max(self.reference.unwrap_or(0.0)));
        let y = |v: f64| top + plot_h * (1.0 - v / y_max);
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="28" font-size="16" text-anchor="middle" font-weight="bold">{}</text>"#,
            left + plot_w / 2.0,
            escape(self.title)
        );
        let mut tick = 0.0;
        while tick <= y_max + step / 2.0 {
            let ty = y(tick);
            let _ = writeln!(svg, r##"<line x1="{left}" x2="{}" y1="{ty}" y2="{ty}" stroke="#ddd"/>"##, left + plot_w);
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
                left - 6.0,
                ty + 4.0,
                fmt_tick(tick, step)
            );
            tick += step;
        }
        let _ = writeln!(
            svg,
            r#"<text transform="translate(22,{}) rotate(-90)" text-anchor="middle" font-size="13">{}</text>"#,
            top + plot_h / 2.0,
            escape(self.y_label)
        );
        for (g, group) in self.groups.iter().enumerate() {
            let gx = left + g as f64 * per_group + 12.0;
            for (s, (_, values)) in self.series.iter().enumerate() {
                if let Some(v) = values.get(g).copied().flatten() {
                    let (bx, by) = (gx + s as f64 * 24.0, y(v));
                    let _ = writeln!(
                        svg,
                        r#"<rect x="{bx}" y="{by}" width="20" height="{}" fill="{}"><title>{}: {v:.3}</title></rect>"#,
                        (top + plot_h - by).max(0.0),
                        COLORS[s % COLORS.len()],
                        escape(group)
                    );
                }
            }
            let lx = gx + (per_group - 24.0) / 2.0;
            let _ = writeln!(
                svg,
                r#"<text transform="translate({lx},{}) rotate(-25)" text-anchor="end">{}</text>"#,
                top + plot_h + 16.0,
                escape(group)
            );
        }
        if let Some(r) = self.reference {
            let _ = writeln!(
                svg,
                r#"<line x1="{left}" x2="{}" y1="{}" y2="{}" stroke="black" stroke-dasharray="6,4"/>"#,
                left + plot_w,
                y(r),
                y(r)
            );
        }
        let _ = writeln!(
            svg,
            r#"<line x1="{left}" x2="{left}" y1="{top}" y2="{}" stroke="black"/><line x1="{left}" x2="{}" y1="{}" y2="{}" stroke="black"/>"#,
            top + plot_h,
            left + plot_w,
            top + plot_h,
            top + plot_h
        );
        for (s, (name, _)) in self.series.iter().enumerate() {
            let (lx, ly) = (left + plot_w + 20.0, top + 10.0 + s as f64 * 20.0);
            let _ = writeln!(
                svg,
                r#"<rect x="{lx}" y="{}" width="14" height="14" fill="{}"/>"#,
                ly - 11.0,
                COLORS[s % COLORS.len()]
            );
            let _ = writeln!(svg, r#"<text x="{}" y="{ly}">{}</text>"#, lx + 20.0, escape(name));
        }
        svg.push_str("</svg>\n");
        svg
    }
}

fn fmt_tick(value: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{value:.0}")
    } else if step >= 0.1 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}
