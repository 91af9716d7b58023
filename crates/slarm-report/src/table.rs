//! Tables of reproduced results.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Value};

/// One table cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cell {
    /// An integer.
    Int(i64),
    /// A real number.
    Num(f64),
    /// Text.
    Text(String),
    /// Nothing (missing or not applicable).
    Empty,
}

impl Cell {
    /// Text form used in CSV and HTML: numbers to 7 significant digits (at most 6 decimals,
    /// trailing zeros dropped; scientific notation from 1e7 and below 1e-4). The JSON files
    /// keep full precision.
    pub fn render(&self) -> String {
        match self {
            Cell::Int(i) => i.to_string(),
            Cell::Num(x) if !x.is_finite() => x.to_string(),
            Cell::Num(x) => {
                let a = x.abs();
                let s = if a >= 1e7 || (a < 1e-4 && *x != 0.0) {
                    format!("{x:.6e}")
                } else {
                    let int_digits = if a >= 1.0 {
                        a.log10().floor() as i32 + 1
                    } else {
                        0
                    };
                    let decimals = (7 - int_digits).clamp(0, 6) as usize;
                    format!("{x:.decimals$}")
                };
                trim_zeros(s)
            }
            Cell::Text(s) => s.clone(),
            Cell::Empty => String::new(),
        }
    }
}

/// A check's value as a cell: numbers stay numbers, a claim reads "holds" / "does not hold".
impl From<&Value> for Cell {
    fn from(v: &Value) -> Self {
        match v {
            Value::Num(x) => Cell::Num(*x),
            Value::Bool(b) => Cell::Text(if *b { "holds" } else { "does not hold" }.into()),
            Value::Text(s) => Cell::Text(s.clone()),
        }
    }
}

fn trim_zeros(s: String) -> String {
    if let Some((mant, exp)) = s.split_once('e') {
        return format!("{}e{}", trim_zeros(mant.to_string()), exp);
    }
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        t.to_string()
    } else {
        s
    }
}

impl From<f64> for Cell {
    fn from(x: f64) -> Self {
        Cell::Num(x)
    }
}
impl From<i64> for Cell {
    fn from(x: i64) -> Self {
        Cell::Int(x)
    }
}
impl From<usize> for Cell {
    fn from(x: usize) -> Self {
        Cell::Int(x as i64)
    }
}
impl From<u32> for Cell {
    fn from(x: u32) -> Self {
        Cell::Int(i64::from(x))
    }
}
impl From<&str> for Cell {
    fn from(x: &str) -> Self {
        Cell::Text(x.to_string())
    }
}
impl From<String> for Cell {
    fn from(x: String) -> Self {
        Cell::Text(x)
    }
}
impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(x: Option<T>) -> Self {
        x.map_or(Cell::Empty, Into::into)
    }
}

/// A table: a title, column names and rows of cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// File-name-safe identifier, e.g. `"table4.3"`.
    pub id: String,
    /// Caption, e.g. the paper's table title.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows; each has as many cells as there are columns.
    pub rows: Vec<Vec<Cell>>,
    /// Optional remark shown under the table.
    pub note: Option<String>,
}

impl Table {
    /// An empty table with the given columns.
    pub fn new(id: impl Into<String>, title: impl Into<String>, columns: &[&str]) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            note: None,
        }
    }

    /// Appends a row; short rows are padded with [`Cell::Empty`], long ones truncated.
    pub fn push(&mut self, row: Vec<Cell>) {
        let mut row = row;
        row.resize(self.columns.len(), Cell::Empty);
        self.rows.push(row);
    }

    /// Sets the note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// A table listing checks: id, description, ours, published, deviation, verdict, reason.
    pub fn of_checks(id: impl Into<String>, title: impl Into<String>, checks: &[Check]) -> Self {
        let mut t = Table::new(
            id,
            title,
            &[
                "id",
                "quantity",
                "ours",
                "published",
                "deviation",
                "verdict",
                "reason",
            ],
        );
        for c in checks {
            t.push(vec![
                c.id.clone().into(),
                c.description.clone().into(),
                Cell::from(&c.ours),
                c.published.as_ref().map_or(Cell::Empty, Cell::from),
                c.deviation.into(),
                c.verdict.label().into(),
                c.reason.clone().into(),
            ]);
        }
        t
    }

    /// RFC 4180 CSV with a header line; fields quoted when needed.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let line = |cells: &mut dyn Iterator<Item = String>, out: &mut String| {
            let v: Vec<String> = cells.map(|c| csv_field(&c)).collect();
            out.push_str(&v.join(","));
            out.push('\n');
        };
        line(&mut self.columns.iter().cloned(), &mut out);
        for r in &self.rows {
            line(&mut r.iter().map(Cell::render), &mut out);
        }
        out
    }

    /// A Markdown table (header, separator, one line per row); `|` in a cell is escaped and
    /// line breaks become spaces.
    ///
    /// ```
    /// use slarm_report::{Cell, Table};
    ///
    /// let mut t = Table::new("t", "T", &["a", "b"]);
    /// t.push(vec![Cell::Num(0.5), Cell::Text("x|y".into())]);
    /// assert_eq!(t.to_markdown(), "| a | b |\n|---|---|\n| 0.5 | x\\|y |\n");
    /// ```
    pub fn to_markdown(&self) -> String {
        let line = |cells: &mut dyn Iterator<Item = String>| {
            let v: Vec<String> = cells
                .map(|c| c.replace('|', "\\|").replace('\n', " "))
                .collect();
            format!("| {} |\n", v.join(" | "))
        };
        let mut out = line(&mut self.columns.iter().cloned());
        out.push_str(&format!("|{}\n", "---|".repeat(self.columns.len())));
        for r in &self.rows {
            out.push_str(&line(&mut r.iter().map(Cell::render)));
        }
        out
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_rendering() {
        let mut t = Table::new("t", "T", &["a", "b", "c"]);
        t.push(vec![1i64.into(), 0.25.into(), "x, y".into()]);
        t.push(vec![Cell::Num(1234567.0)]);
        assert_eq!(t.to_csv(), "a,b,c\n1,0.25,\"x, y\"\n1234567,,\n");
        assert_eq!(Cell::Num(2.0).render(), "2");
        assert_eq!(Cell::Num(0.00001).render(), "1e-5");
        // Seven significant digits, at most six decimals.
        assert_eq!(Cell::Num(82357.439167).render(), "82357.44");
        assert_eq!(Cell::Num(-63.9849251).render(), "-63.98493");
        assert_eq!(Cell::Num(5.2110554).render(), "5.211055");
        assert_eq!(Cell::Num(0.001055).render(), "0.001055");
        assert_eq!(Cell::Num(99999.999).render(), "100000");
        assert_eq!(Cell::Num(12345678.0).render(), "1.234568e7");
        assert_eq!(Cell::Num(f64::NAN).render(), "NaN");
    }
}
