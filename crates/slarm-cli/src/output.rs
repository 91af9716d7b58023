//! What a command prints: one JSON object with `--json`, else a readable table.

use std::io::Write;

use serde_json::Value;

/// The result of a command: its JSON object and its human-readable rendering.
#[derive(Debug, Clone)]
pub struct Output {
    /// The JSON object printed with `--json` (field names fixed by the contract in docs/cli.md).
    pub json: Value,
    /// The text printed otherwise.
    pub text: String,
    /// The exit code after printing: 0, or 2 when the output reports failed parts (such as
    /// rows of `queue size --batch`) with the one-line summary `failure` on stderr.
    pub exit_code: i32,
    /// The one line for stderr when `exit_code` is not 0.
    pub failure: Option<String>,
    /// With `--json`, this already serialized JSON object is printed instead of `json` (for
    /// outputs too large to hold as a `Value`, such as a million rows of `queue size --batch`).
    pub json_text: Option<String>,
}

impl Output {
    /// An output whose text is a key/value table of the JSON object's scalar fields.
    pub fn from_json(json: Value) -> Self {
        let text = render_value(&json, 0);
        Self::new(json, text)
    }

    /// An output with its own text rendering.
    pub fn new(json: Value, text: String) -> Self {
        Self {
            json,
            text,
            exit_code: 0,
            failure: None,
            json_text: None,
        }
    }

    /// An output printed only with `--json`, given as serialized JSON text.
    pub fn json_text(text: String) -> Self {
        let mut out = Self::new(Value::Null, String::new());
        out.json_text = Some(text);
        out
    }

    /// The same output, ending with exit code 2 and `message` on stderr after it is printed.
    pub fn partly_failed(mut self, message: impl Into<String>) -> Self {
        self.exit_code = 2;
        self.failure = Some(message.into());
        self
    }

    /// Writes the output as JSON or as text to `w` (stdout), and flushes it.
    pub fn write_to(&self, as_json: bool, w: &mut dyn Write) -> std::io::Result<()> {
        if as_json {
            match &self.json_text {
                Some(t) => writeln!(w, "{t}")?,
                None => writeln!(w, "{}", self.json)?,
            }
        } else {
            w.write_all(self.text.as_bytes())?;
            if !self.text.ends_with('\n') {
                writeln!(w)?;
            }
        }
        w.flush()
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("-".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(x) if n.is_f64() => format_num(x),
            _ => n.to_string(),
        }),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Formats a number with 6 significant digits, plainly where that is readable.
pub fn format_num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e7).contains(&x.abs()) {
        // Six significant digits: one before the point for x >= 1, more decimals below 1.
        let magnitude = if x == 0.0 {
            0
        } else {
            x.abs().log10().floor() as i32
        };
        let digits = (5 - magnitude).max(0) as usize;
        let s = format!("{x:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{x:.5e}")
    }
}

/// Renders a JSON value as an indented key/value listing; arrays of objects become tables.
pub fn render_value(v: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    match v {
        Value::Object(map) => {
            let width = map.keys().map(String::len).max().unwrap_or(0);
            for (k, val) in map {
                match scalar(val) {
                    Some(s) => out.push_str(&format!("{pad}{k:<width$}  {s}\n")),
                    None => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        out.push_str(&render_value(val, indent + 2));
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(table) = render_table(items, indent) {
                out.push_str(&table);
            } else {
                for (i, item) in items.iter().enumerate() {
                    match scalar(item) {
                        Some(s) => out.push_str(&format!("{pad}[{i}] {s}\n")),
                        None => {
                            out.push_str(&format!("{pad}[{i}]\n"));
                            out.push_str(&render_value(item, indent + 2));
                        }
                    }
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other).unwrap_or_default())),
    }
    out
}

/// An array of flat objects with the same keys as an aligned table.
fn render_table(items: &[Value], indent: usize) -> Option<String> {
    let first = items.first()?.as_object()?;
    let keys: Vec<&String> = first.keys().collect();
    let mut rows = Vec::new();
    for it in items {
        let o = it.as_object()?;
        if o.len() != keys.len() {
            return None;
        }
        let mut row = Vec::new();
        for k in &keys {
            row.push(scalar(o.get(*k)?)?);
        }
        rows.push(row);
    }
    let header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    Some(text_table(&header, &rows, indent))
}

/// An aligned plain-text table.
pub fn text_table(header: &[String], rows: &[Vec<String>], indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut w: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < w.len() {
                w[i] = w[i].max(c.len());
            }
        }
    }
    let fmt_row = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:>width$}", width = w.get(i).copied().unwrap_or(0)))
            .collect();
        format!("{pad}{}\n", cells.join("  ").trim_end())
    };
    let mut out = fmt_row(header);
    out.push_str(&format!(
        "{pad}{}\n",
        w.iter()
            .map(|n| "-".repeat(*n))
            .collect::<Vec<_>>()
            .join("  ")
    ));
    for r in rows {
        out.push_str(&fmt_row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_objects_and_tables() {
        let v = json!({"a": 1, "b": [{"x": 1.5, "y": "z"}, {"x": 2.0, "y": "w"}]});
        let t = render_value(&v, 0);
        assert!(t.contains("a  1"));
        assert!(t.contains("  x  y"));
        assert_eq!(format_num(0.123456789), "0.123457");
        assert_eq!(format_num(1234.5), "1234.5");
        assert_eq!(format_num(1e-7), "1.00000e-7");
        assert_eq!(format_num(0.0), "0");
        assert_eq!(format_num(-0.5), "-0.5");
        assert_eq!(format_num(0.00123456789), "0.00123457");
    }
}
