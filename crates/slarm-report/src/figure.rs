//! Figures as data: series of points that the CLI draws as SVG.

use serde::{Deserialize, Serialize};

/// How a figure is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// Lines through the points of each series.
    Line,
    /// Markers only.
    Scatter,
    /// Grouped bars; x values are category indices `0, 1, ...` named by `categories`.
    Bar,
    /// Step function (e.g. a CDF or kappa over time).
    Step,
}

/// One named series of `(x, y)` points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Whether these are the published values (drawn dashed), not ours.
    pub published: bool,
}

impl Series {
    /// Our series.
    pub fn ours(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            published: false,
        }
    }

    /// A series of published values, read from the source.
    pub fn published(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            published: true,
        }
    }
}

/// A figure: axes, labels and series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// File-name-safe identifier, e.g. `"fig4.6"`.
    pub id: String,
    /// Caption.
    pub title: String,
    /// X axis label with unit.
    pub x_label: String,
    /// Y axis label with unit.
    pub y_label: String,
    /// Drawing style.
    pub kind: FigureKind,
    /// Logarithmic x axis.
    pub x_log: bool,
    /// Logarithmic y axis.
    pub y_log: bool,
    /// Category names for bar charts (x = index).
    pub categories: Vec<String>,
    /// The data.
    pub series: Vec<Series>,
}

impl Figure {
    /// A linear-axes figure of the given kind with no series yet.
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        kind: FigureKind,
    ) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            kind,
            x_log: false,
            y_log: false,
            categories: Vec::new(),
            series: Vec::new(),
        }
    }

    /// Adds a series.
    pub fn with_series(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }
}
