//! Figures drawn as SVG with plotters: axes with labels and units, a legend, our series solid,
//! published series dashed. Log axes are drawn on log10-transformed data with tick labels in
//! the original units.

use plotters::coord::Shift;
use plotters::prelude::*;
use slarm_report::{Figure, FigureKind};

use crate::ReproError;

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn tr(v: f64, log: bool) -> Option<f64> {
    if !v.is_finite() {
        return None;
    }
    if log {
        (v > 0.0).then(|| v.log10())
    } else {
        Some(v)
    }
}

/// Data of each series after the axis transforms; non-finite (or non-positive on a log
/// axis) points are left out.
fn transformed(f: &Figure) -> Vec<Vec<(f64, f64)>> {
    f.series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter_map(|&(x, y)| Some((tr(x, f.x_log)?, tr(y, f.y_log)?)))
                .collect()
        })
        .collect()
}

fn range(vals: impl Iterator<Item = f64>, include_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if include_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let pad = if lo.abs() > 0.0 { lo.abs() * 0.1 } else { 1.0 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.05;
    (
        if include_zero && lo >= 0.0 {
            lo
        } else {
            lo - pad
        },
        hi + pad,
    )
}

fn tick(v: f64, log: bool) -> String {
    let x = if log { 10f64.powf(v) } else { v };
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{x:.0e}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn err(f: &Figure) -> impl Fn(String) -> ReproError + '_ {
    move |message| ReproError::Figure {
        id: f.id.clone(),
        message,
    }
}

fn draw(f: &Figure, root: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), ReproError> {
    let e = err(f);
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let data = transformed(f);
    let bar = f.kind == FigureKind::Bar;
    let (x0, x1) = if bar {
        (
            -0.5,
            f.categories.len().max(
                data.iter()
                    .flatten()
                    .map(|p| p.0 as usize + 1)
                    .max()
                    .unwrap_or(1),
            ) as f64
                - 0.5,
        )
    } else {
        range(data.iter().flatten().map(|p| p.0), false)
    };
    let (y0, y1) = range(data.iter().flatten().map(|p| p.1), bar && !f.y_log);
    let mut chart = ChartBuilder::on(root)
        .caption(&f.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|x| e(x.to_string()))?;
    let cats = f.categories.clone();
    let (xl, yl) = (f.x_log, f.y_log);
    let x_fmt = move |v: &f64| {
        if bar {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                cats.get(i as usize)
                    .cloned()
                    .unwrap_or_else(|| format!("{i}"))
            } else {
                String::new()
            }
        } else {
            tick(*v, xl)
        }
    };
    let y_fmt = move |v: &f64| tick(*v, yl);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_label.as_str())
        .y_desc(f.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt);
    if bar {
        mesh.x_labels(f.categories.len().max(1) * 2 + 1)
            .disable_x_mesh();
    }
    mesh.draw().map_err(|x| e(x.to_string()))?;
    let n = f.series.len().max(1) as f64;
    for (i, (s, pts)) in f.series.iter().zip(&data).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle {
            color: color.to_rgba(),
            filled: false,
            stroke_width: 2,
        };
        let anno = match f.kind {
            FigureKind::Line | FigureKind::Step => {
                let path: Vec<(f64, f64)> = if f.kind == FigureKind::Step {
                    let mut v = Vec::with_capacity(pts.len() * 2);
                    for (j, &(x, y)) in pts.iter().enumerate() {
                        if j > 0 {
                            v.push((x, pts[j - 1].1));
                        }
                        v.push((x, y));
                    }
                    v
                } else {
                    pts.clone()
                };
                if s.published {
                    chart
                        .draw_series(DashedLineSeries::new(path, 6, 4, style))
                        .map_err(|x| e(x.to_string()))?
                } else {
                    chart
                        .draw_series(LineSeries::new(path, style))
                        .map_err(|x| e(x.to_string()))?
                }
            }
            FigureKind::Scatter => chart
                .draw_series(pts.iter().map(|&p| {
                    if s.published {
                        Circle::new(p, 4, style).into_dyn()
                    } else {
                        Cross::new(p, 4, style).into_dyn()
                    }
                }))
                .map_err(|x| e(x.to_string()))?,
            FigureKind::Bar => {
                let w = 0.8 / n;
                let base = if f.y_log { y0 } else { 0.0 };
                chart
                    .draw_series(pts.iter().map(|&(x, y)| {
                        let left = x - 0.4 + w * i as f64;
                        let fill = if s.published {
                            color.mix(0.35).filled()
                        } else {
                            color.filled()
                        };
                        Rectangle::new([(left, base), (left + w * 0.95, y)], fill)
                    }))
                    .map_err(|x| e(x.to_string()))?
            }
        };
        let label = if s.published {
            format!("{} (published)", s.name)
        } else {
            s.name.clone()
        };
        anno.label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    if !f.series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|x| e(x.to_string()))?;
    }
    root.present().map_err(|x| e(x.to_string()))
}

/// Renders a figure as a 720x480 SVG document.
pub fn render_svg(f: &Figure) -> Result<String, ReproError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (720, 480)).into_drawing_area();
        draw(f, &root)?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use slarm_report::Series;

    #[test]
    fn renders_every_kind_deterministically() {
        for kind in [
            FigureKind::Line,
            FigureKind::Scatter,
            FigureKind::Bar,
            FigureKind::Step,
        ] {
            let mut f = Figure::new("f", "A <title>", "x (s)", "y", kind)
                .with_series(Series::ours(
                    "ours",
                    vec![(0.0, 1.0), (1.0, 2.0), (2.0, f64::NAN)],
                ))
                .with_series(Series::published("paper", vec![(0.0, 1.5), (1.0, 2.5)]));
            f.categories = vec!["a".into(), "b".into()];
            let a = render_svg(&f).unwrap();
            let b = render_svg(&f).unwrap();
            assert_eq!(a, b);
            assert!(
                a.starts_with("<svg") && a.contains("(published)") && a.contains("x (s)"),
                "{kind:?}"
            );
        }
        let mut f = Figure::new("g", "log", "x", "y", FigureKind::Line).with_series(Series::ours(
            "s",
            vec![(1.0, 10.0), (100.0, 1000.0), (0.0, -1.0)],
        ));
        f.x_log = true;
        f.y_log = true;
        assert!(render_svg(&f).unwrap().contains("100"));
        // An empty figure still renders (axes only).
        assert!(render_svg(&Figure::new("e", "empty", "x", "y", FigureKind::Line)).is_ok());
    }
}
