//! The assembled cell results of `yeo-buyya`, by figure: look-ups, tables and figures.

use std::collections::BTreeMap;

use slarm_report::{Cell, Figure, FigureKind, Series, Table};

use super::{CellResult, SeriesResult, BETAS};

/// Which metric of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Metric {
    /// Job QoS Satisfaction (eq. 7).
    Jqs,
    /// Cluster Profitability (eq. 8).
    Cp,
}

impl Metric {
    /// Mean over seeds of this metric.
    pub(super) fn of(self, s: &SeriesResult) -> f64 {
        match self {
            Metric::Jqs => s.jqs.mean,
            Metric::Cp => s.cp.mean,
        }
    }

    /// Short name (`JQS`, `CP`).
    pub(super) fn label(self) -> &'static str {
        match self {
            Metric::Jqs => "JQS",
            Metric::Cp => "CP",
        }
    }

    /// Axis title.
    fn title(self) -> &'static str {
        match self {
            Metric::Jqs => "Job QoS Satisfaction",
            Metric::Cp => "Cluster Profitability",
        }
    }
}

/// Cell results grouped by figure id (`fig2` ... `fig6`, `fig3ref`, `sigma`).
pub(super) struct FigureData {
    pub(super) by_fig: BTreeMap<String, Vec<CellResult>>,
}

impl FigureData {
    fn cells(&self, fig: &str) -> &[CellResult] {
        self.by_fig.get(fig).map_or(&[][..], Vec::as_slice)
    }

    /// The series `name` of figure `fig` at `x`. In `fig3` every cell holds one Libra+$
    /// series (named by its β), found under any name.
    fn get(&self, fig: &str, x: f64, name: &str) -> Option<&SeriesResult> {
        let cell = self.cells(fig).iter().find(|c| (c.x - x).abs() < 1e-12)?;
        if fig == "fig3" {
            cell.series.first()
        } else {
            cell.series.iter().find(|s| s.name == name)
        }
    }

    /// `metric` of series `name` of `fig` at `x` (NaN when absent, which fails any claim).
    pub(super) fn value(&self, fig: &str, x: f64, name: &str, metric: Metric) -> f64 {
        self.get(fig, x, name).map_or(f64::NAN, |s| metric.of(s))
    }

    /// Mean deadline misses among accepted jobs of series `name` of `fig` at `x`.
    pub(super) fn value_misses(&self, fig: &str, x: f64, name: &str) -> f64 {
        self.get(fig, x, name)
            .map_or(f64::NAN, |s| s.deadline_misses)
    }

    /// The 95 % half width over seeds of `metric` of series `name` of `fig` at `x`.
    pub(super) fn ci95(&self, fig: &str, x: f64, name: &str, metric: Metric) -> f64 {
        self.get(fig, x, name).map_or(f64::NAN, |s| match metric {
            Metric::Jqs => s.jqs.ci95,
            Metric::Cp => s.cp.ci95,
        })
    }

    /// `metric` of a policy in the default-settings reference cell of Fig. 3.
    pub(super) fn reference(&self, name: &str, metric: Metric) -> f64 {
        self.value("fig3ref", 0.0, name, metric)
    }

    /// Series names of a figure, in first-seen order (`fig3`: the single `Libra+$`).
    fn names(&self, fig: &str) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for c in self.cells(fig) {
            for s in &c.series {
                let n = if fig == "fig3" { "Libra+$" } else { &s.name };
                if !names.iter().any(|m| m == n) {
                    names.push(n.to_string());
                }
            }
        }
        names
    }

    /// (x, metric) of series `name` of `fig`, by x ascending.
    pub(super) fn points(&self, fig: &str, name: &str, metric: Metric) -> Vec<(f64, f64)> {
        let mut pts: Vec<(f64, f64)> = self
            .cells(fig)
            .iter()
            .filter_map(|c| self.get(fig, c.x, name).map(|s| (c.x, metric.of(s))))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    }

    /// The values of series `name` of `fig` by x ascending, e.g. `0.142 0.253 0.349`.
    pub(super) fn line(&self, fig: &str, name: &str, metric: Metric) -> String {
        self.points(fig, name, metric)
            .iter()
            .map(|p| format!("{:.3}", p.1))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// [`line`](Self::line) of several series: `name: values; name: values`.
    pub(super) fn lines<S: AsRef<str>>(&self, fig: &str, names: &[S], metric: Metric) -> String {
        names
            .iter()
            .map(|n| format!("{}: {}", n.as_ref(), self.line(fig, n.as_ref(), metric)))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Every series of `fig` at every x (Fig. 3 with its default-settings references).
    pub(super) fn table(&self, fig: &str, x_label: &str) -> Table {
        let mut t = Table::new(
            fig,
            format!("{fig}: JQS and CP vs {x_label}"),
            &[
                "x",
                "series",
                "jqs",
                "jqs_ci95",
                "cp",
                "cp_ci95",
                "acceptance",
                "deadline_misses",
            ],
        );
        let refs = if fig == "fig3" {
            self.cells("fig3ref")
        } else {
            &[]
        };
        for c in self.cells(fig).iter().chain(refs) {
            for s in &c.series {
                let x: Cell = if c.figure == "fig3ref" {
                    "default".into()
                } else {
                    c.x.into()
                };
                t.push(vec![
                    x,
                    s.name.clone().into(),
                    s.jqs.mean.into(),
                    s.jqs.ci95.into(),
                    s.cp.mean.into(),
                    s.cp.ci95.into(),
                    s.acceptance.mean.into(),
                    s.deadline_misses.into(),
                ]);
            }
        }
        t
    }

    /// Part `part` (`a`: JQS, `b`: CP) of figure `fig`; Fig. 3 draws the default-settings
    /// references as horizontal lines.
    pub(super) fn figure(&self, fig: &str, x_label: &str, part: &str, metric: Metric) -> Figure {
        let number = fig.strip_prefix("fig").unwrap_or(fig);
        let mut out = Figure::new(
            format!("{fig}{part}"),
            format!("Fig. {number} ({part}) {}", metric.title()),
            x_label,
            metric.title(),
            FigureKind::Line,
        );
        for name in self.names(fig) {
            out = out.with_series(Series::ours(name.clone(), self.points(fig, &name, metric)));
        }
        if fig == "fig3" {
            for s in self.cells("fig3ref").iter().flat_map(|c| &c.series) {
                let v = metric.of(s);
                out = out.with_series(Series::ours(
                    s.name.clone(),
                    BETAS.iter().map(|&b| (b, v)).collect(),
                ));
            }
        }
        out
    }
}
