//! slarm-report: checks, tables and figures built from hostile numbers (NaN, ±inf, huge).

use slarm_report::{Cell, Check, Figure, FigureKind, Series, Table, Verdict};

use crate::{property, CASES};

#[test]
fn checks_tables_and_figures() {
    property("report/checks, tables, figures", CASES, false, |g, t| {
        let at = t.at();
        let (ours, published, tol) = (g.nasty(), g.nasty(), g.nasty());
        let checks = [
            Check::numeric("n", "numeric", ours, Some(published), tol),
            Check::numeric("u", "unpublished", ours, None, tol),
            Check::relative("r", "relative", ours, published, tol),
            Check::claim("c", "claim", g.coin(), "detail").with_reason("why"),
        ];
        for c in &checks[..3] {
            // A NaN on either side can never match or lie within a tolerance.
            if ours.is_nan() || (published.is_nan() && c.id != "u") {
                assert!(
                    !matches!(c.verdict, Verdict::Match | Verdict::WithinTolerance),
                    "{at}: {c:?}"
                );
            }
        }
        let mut table = Table::of_checks("t", "checks", &checks).with_note("note");
        table.push(vec![
            Cell::Num(ours),
            Cell::Int(g.u64() as i64),
            Cell::Empty,
        ]);
        assert!(!table.to_csv().is_empty(), "{at}");
        let points: Vec<(f64, f64)> = (0..g.below(5)).map(|_| (g.nasty(), g.nasty())).collect();
        let figure = Figure::new("f", "title", "x", "y", FigureKind::Line)
            .with_series(Series::ours("ours", points.clone()))
            .with_series(Series::published("paper", points));
        assert_eq!(figure.series.len(), 2, "{at}");
        assert!(!Cell::Num(published).render().is_empty(), "{at}");
        t.infallible();
    });
}
