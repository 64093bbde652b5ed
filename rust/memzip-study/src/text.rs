//! Plain-text and CSV rendering of small tables.

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table of strings with a header row; numbers are formatted by the caller
/// so the text and CSV forms can differ in precision.
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            header: columns.iter().map(|(name, _)| name.to_string()).collect(),
            align: columns.iter().map(|&(_, align)| align).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; it must have one cell per column.
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len(), "row width differs from the header");
        self.rows.push(row);
    }

    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// Columns padded to their widest cell, separated by two spaces, no
    /// trailing blanks.
    pub fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| std::iter::once(&self.header).chain(&self.rows).map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .zip(&self.align)
                .map(|((cell, &width), align)| match align {
                    Align::Left => format!("{cell:<width$}"),
                    Align::Right => format!("{cell:>width$}"),
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }

    /// A GitHub-flavoured markdown table (for issue notes and READMEs); `|`
    /// inside a cell is escaped.
    pub fn render_markdown(&self) -> String {
        let line = |cells: &[String]| {
            let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let rule: Vec<String> = self
            .align
            .iter()
            .map(|align| match align {
                Align::Left => ":---".to_string(),
                Align::Right => "---:".to_string(),
            })
            .collect();
        let mut out = line(&self.header);
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// One CSV line (RFC 4180 quoting where a cell needs it).
pub fn csv_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|cell| {
            if cell.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", cell.replace('"', "\"\""))
            } else {
                cell.clone()
            }
        })
        .collect();
    quoted.join(",") + "\n"
}

/// A ratio with a fixed number of decimals, or `-` when there is none.
pub fn fmt_opt(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        Some(v) if v > 0.0 => "inf".to_string(),
        Some(_) => "-".to_string(),
        None => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&[("name", Align::Left), ("n", Align::Right)]);
        t.push(vec!["a".into(), "100".into()]);
        t.push(vec!["long".into(), "2".into()]);
        assert_eq!(t.render(), "name    n\na     100\nlong    2\n");
    }

    #[test]
    fn markdown_marks_alignment_and_escapes_pipes() {
        let mut t = Table::new(&[("name", Align::Left), ("n", Align::Right)]);
        t.push(vec!["a|b".into(), "1".into()]);
        assert_eq!(t.render_markdown(), "| name | n |\n|:---|---:|\n| a\\|b | 1 |\n");
    }

    #[test]
    fn csv_quotes_only_when_needed() {
        assert_eq!(csv_line(&["a".into(), "b,c".into(), "say \"x\"".into()]), "a,\"b,c\",\"say \"\"x\"\"\"\n");
    }

    #[test]
    fn formats_missing_and_infinite_ratios() {
        assert_eq!(fmt_opt(Some(1.23456), 3), "1.235");
        assert_eq!(fmt_opt(None, 3), "-");
        assert_eq!(fmt_opt(Some(f64::INFINITY), 2), "inf");
    }
}
