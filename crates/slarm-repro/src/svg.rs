//! Figures drawn as SVG with plotters, in the manner of the papers' own figures: axes with
//! labels and units, a light grid, one colour and one marker shape per series, our series solid
//! with filled markers, published series dashed with hollow markers, and the legend in a strip
//! under the plot so that it never hides data. Log axes are drawn on log10-transformed data
//! with tick labels at the powers of ten, in the original units.

use plotters::coord::Shift;
use plotters::prelude::*;
use slarm_report::{Figure, FigureKind, Series};

use crate::ReproError;

/// One job rectangle of a Gantt chart: time span and processors `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GanttBox {
    /// Start time within the window (s).
    pub from: f64,
    /// End time within the window (s).
    pub to: f64,
    /// First processor.
    pub lo: u32,
    /// Last processor.
    pub hi: u32,
    /// Index of the job (for its colour).
    pub job: usize,
}

/// Canvas size in pixels.
const SIZE: (u32, u32) = (720, 480);
/// Font of tick labels, legend entries (px).
const SMALL: u32 = 15;
/// Font of axis descriptions (px).
const MEDIUM: u32 = 16;
/// Font of the caption (px).
const LARGE: u32 = 19;
/// Height of one legend row (px).
const LEGEND_ROW: u32 = 22;
/// Series with more points than this are drawn without markers (curves, CDFs).
const MAX_MARKED_POINTS: usize = 40;

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Marker shapes, cycled per series (as the papers distinguish series in black and white).
#[derive(Debug, Clone, Copy)]
enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Cross,
];

/// How series `i` is drawn.
#[derive(Debug, Clone, Copy)]
struct Look {
    color: RGBColor,
    shape: Shape,
    /// Published values: dashed lines, hollow markers, pale bars.
    published: bool,
    /// Whether points get markers.
    marked: bool,
}

impl Look {
    fn of(f: &Figure, i: usize, s: &Series) -> Self {
        let marked = match f.kind {
            FigureKind::Scatter => true,
            FigureKind::Line => s.points.len() <= MAX_MARKED_POINTS,
            FigureKind::Step | FigureKind::Bar => false,
        };
        Self {
            color: PALETTE[i % PALETTE.len()],
            shape: SHAPES[i % SHAPES.len()],
            published: s.published,
            marked,
        }
    }

    fn line(&self) -> ShapeStyle {
        ShapeStyle {
            color: self.color.to_rgba(),
            filled: false,
            stroke_width: 2,
        }
    }

    /// Draws this series' marker centred at pixel `at` of `area`.
    fn draw_marker(
        &self,
        area: &DrawingArea<SVGBackend<'_>, Shift>,
        at: (i32, i32),
    ) -> Result<(), String> {
        let style = ShapeStyle {
            color: self.color.to_rgba(),
            filled: !self.published,
            stroke_width: if self.published { 2 } else { 1 },
        };
        let m = || EmptyElement::at(at);
        let outline = |pts: Vec<(i32, i32)>| {
            if self.published {
                area.draw(&(m() + PathElement::new(pts, style)))
            } else {
                area.draw(&(m() + Polygon::new(pts, style)))
            }
        };
        match self.shape {
            Shape::Circle => area.draw(&(m() + Circle::new((0, 0), 4, style))),
            Shape::Square => area.draw(&(m() + Rectangle::new([(-4, -4), (4, 4)], style))),
            Shape::Triangle => outline(vec![(0, -5), (5, 4), (-5, 4), (0, -5)]),
            Shape::Diamond => outline(vec![(0, -5), (5, 0), (0, 5), (-5, 0), (0, -5)]),
            Shape::Cross => area.draw(&(m() + Cross::new((0, 0), 4, style.stroke_width(2)))),
        }
        .map_err(|x| x.to_string())
    }
}

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

/// Superscript digits for powers of ten.
fn superscript(k: i64) -> String {
    let digits = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::new();
    if k < 0 {
        s.push('⁻');
    }
    for c in k.unsigned_abs().to_string().chars() {
        s.push(c.to_digit(10).map_or(c, |d| digits[d as usize]));
    }
    s
}

/// A tick label. On a log axis spanning at least one decade only powers of ten are labelled
/// (`0.01`..`1000` plainly, `10⁴` and beyond with an exponent).
fn tick(v: f64, log: bool, span: f64) -> String {
    if log && span >= 1.0 {
        let k = v.round();
        if (v - k).abs() > 1e-6 {
            return String::new();
        }
        let k = k as i64;
        return if (-2..=3).contains(&k) {
            plain(10f64.powi(k as i32))
        } else {
            format!("10{}", superscript(k))
        };
    }
    plain(if log { 10f64.powf(v) } else { v })
}

fn plain(x: f64) -> String {
    let a = x.abs();
    if a < 1e-12 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
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

/// Legend entries: label and look, in series order.
fn legend_entries(f: &Figure) -> Vec<(String, Look)> {
    f.series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let label = if s.published && !s.name.to_lowercase().contains("published") {
                format!("{} (published)", s.name)
            } else {
                s.name.clone()
            };
            (label, Look::of(f, i, s))
        })
        .collect()
}

/// Estimated width of a legend entry in pixels (sample, gap, text).
fn entry_width(label: &str) -> u32 {
    44 + (label.chars().count() as u32 * SMALL) / 2
}

/// Lays legend entries out in rows that fit `width`; returns each entry's (row, x offset).
fn legend_layout(entries: &[(String, Look)], width: u32) -> (Vec<(u32, u32)>, u32) {
    let mut pos = Vec::with_capacity(entries.len());
    let (mut row, mut x) = (0, 0);
    for (label, _) in entries {
        let w = entry_width(label);
        if x > 0 && x + w > width {
            row += 1;
            x = 0;
        }
        pos.push((row, x));
        x += w + 16;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    (pos, rows)
}

fn draw_legend(
    f: &Figure,
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entries: &[(String, Look)],
    pos: &[(u32, u32)],
) -> Result<(), ReproError> {
    let e = err(f);
    let left = 70;
    for ((label, look), &(row, x)) in entries.iter().zip(pos) {
        let y = (row * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        let x0 = left + x as i32;
        let sample: Vec<(i32, i32)> = vec![(x0, y), (x0 + 30, y)];
        match f.kind {
            FigureKind::Bar => {
                let fill = if look.published {
                    look.color.mix(0.3).filled()
                } else {
                    look.color.filled()
                };
                area.draw(&Rectangle::new([(x0 + 8, y - 6), (x0 + 22, y + 6)], fill))
                    .map_err(|x| e(x.to_string()))?;
                area.draw(&Rectangle::new(
                    [(x0 + 8, y - 6), (x0 + 22, y + 6)],
                    look.line().stroke_width(1),
                ))
                .map_err(|x| e(x.to_string()))?;
            }
            FigureKind::Scatter => {}
            _ if look.published => {
                area.draw(&plotters::element::DashedPathElement::new(
                    sample.clone(),
                    5,
                    3,
                    look.line(),
                ))
                .map_err(|x| e(x.to_string()))?;
            }
            _ => {
                area.draw(&PathElement::new(sample.clone(), look.line()))
                    .map_err(|x| e(x.to_string()))?;
            }
        }
        if look.marked {
            look.draw_marker(area, (x0 + 15, y)).map_err(&e)?;
        }
        area.draw(&Text::new(
            label.clone(),
            (x0 + 38, y - (SMALL as i32) / 2),
            ("sans-serif", SMALL).into_font(),
        ))
        .map_err(|x| e(x.to_string()))?;
    }
    Ok(())
}

/// The x range: category slots for bars, else the data.
fn x_range(f: &Figure, data: &[Vec<(f64, f64)>]) -> (f64, f64) {
    if f.kind == FigureKind::Bar {
        let n = data
            .iter()
            .flatten()
            .map(|p| p.0.max(0.0) as usize + 1)
            .max()
            .unwrap_or(1)
            .max(f.categories.len());
        (-0.5, n as f64 - 0.5)
    } else {
        range(data.iter().flatten().map(|p| p.0), false)
    }
}

/// A step function's corner points: horizontal to the next x, then vertical.
fn steps(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut v = Vec::with_capacity(pts.len() * 2);
    for (j, &(x, y)) in pts.iter().enumerate() {
        if j > 0 {
            v.push((x, pts[j - 1].1));
        }
        v.push((x, y));
    }
    v
}

fn draw(f: &Figure, root: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), ReproError> {
    let e = err(f);
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let entries = legend_entries(f);
    let (pos, rows) = legend_layout(&entries, SIZE.0 - 90);
    let legend_h = if rows == 0 { 0 } else { rows * LEGEND_ROW + 6 };
    let (plot, legend) = root.split_vertically(SIZE.1 - legend_h);
    let data = transformed(f);
    let bar = f.kind == FigureKind::Bar;
    let (x0, x1) = x_range(f, &data);
    let (y0, y1) = range(data.iter().flatten().map(|p| p.1), bar && !f.y_log);
    let mut chart = ChartBuilder::on(&plot)
        .caption(&f.title, ("sans-serif", LARGE))
        .margin_top(8)
        .margin_left(10)
        .margin_right(24)
        .margin_bottom(4)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|x| e(x.to_string()))?;
    let cats = f.categories.clone();
    let (xl, yl) = (f.x_log, f.y_log);
    let (xs, ys) = (x1 - x0, y1 - y0);
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
            tick(*v, xl, xs)
        }
    };
    let y_fmt = move |v: &f64| tick(*v, yl, ys);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_label.as_str())
        .y_desc(f.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .max_light_lines(0)
        .bold_line_style(RGBColor(225, 225, 225))
        .axis_style(BLACK)
        .label_style(("sans-serif", SMALL))
        .axis_desc_style(("sans-serif", MEDIUM));
    if bar {
        mesh.disable_x_mesh();
        if !f.categories.is_empty() && f.categories.len() <= 24 {
            // One label per category (the formatter blanks the half steps between them).
            mesh.x_labels(f.categories.len() * 2 + 1);
        }
    }
    mesh.draw().map_err(|x| e(x.to_string()))?;
    let n = f.series.len().max(1) as f64;
    for (i, ((_, look), pts)) in entries.iter().zip(&data).enumerate() {
        match f.kind {
            FigureKind::Line | FigureKind::Step => {
                let path = if f.kind == FigureKind::Step {
                    steps(pts)
                } else {
                    pts.clone()
                };
                if look.published {
                    chart
                        .draw_series(DashedLineSeries::new(path, 7, 4, look.line()))
                        .map_err(|x| e(x.to_string()))?;
                } else {
                    chart
                        .draw_series(LineSeries::new(path, look.line()))
                        .map_err(|x| e(x.to_string()))?;
                }
            }
            FigureKind::Scatter => {}
            FigureKind::Bar => {
                let w = 0.8 / n;
                let base = if f.y_log { y0 } else { 0.0 };
                let fill = if look.published {
                    look.color.mix(0.3).filled()
                } else {
                    look.color.filled()
                };
                let rect = |&(x, y): &(f64, f64)| {
                    let left = x - 0.4 + w * i as f64;
                    [(left, base), (left + w * 0.92, y)]
                };
                chart
                    .draw_series(pts.iter().map(|p| Rectangle::new(rect(p), fill)))
                    .map_err(|x| e(x.to_string()))?;
                chart
                    .draw_series(
                        pts.iter()
                            .map(|p| Rectangle::new(rect(p), look.line().stroke_width(1))),
                    )
                    .map_err(|x| e(x.to_string()))?;
            }
        }
        if look.marked {
            for p in pts {
                look.draw_marker(root, chart.backend_coord(p)).map_err(&e)?;
            }
        }
    }
    draw_legend(f, &legend, &entries, &pos)?;
    root.present().map_err(|x| e(x.to_string()))
}

/// Renders a figure as a 720x480 SVG document.
pub fn render_svg(f: &Figure) -> Result<String, ReproError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        draw(f, &root)?;
    }
    Ok(buf)
}

/// The colour of job `job` in a Gantt chart: hues a golden section of the colour wheel apart,
/// so that jobs next to each other in the queue differ clearly and no colour comes back after
/// a few jobs; a job has its colour in every policy's chart.
fn job_colour(job: usize) -> HSLColor {
    const GOLDEN: f64 = 0.618_033_988_749_894_9;
    HSLColor((job as f64 * GOLDEN).fract(), 0.6, 0.45)
}

/// Renders a Gantt chart as a 720x480 SVG document: time (h) across, processors up, one
/// filled rectangle per job and processor interval of `boxes`, coloured by job.
pub fn render_gantt_svg(
    id: &str,
    title: &str,
    window: (f64, f64),
    capacity: u32,
    boxes: &[GanttBox],
) -> Result<String, ReproError> {
    let e = |message: String| ReproError::Figure {
        id: id.to_string(),
        message,
    };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
        let (a, b) = (window.0 / 3600.0, window.1 / 3600.0);
        let b = if b > a { b } else { a + 1.0 };
        let top = f64::from(capacity.max(1));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", LARGE))
            .margin_top(8)
            .margin_left(10)
            .margin_right(24)
            .margin_bottom(4)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(a..b, 0.0..top)
            .map_err(|x| e(x.to_string()))?;
        let span = b - a;
        let x_fmt = move |v: &f64| tick(*v, false, span);
        let y_fmt = |v: &f64| tick(*v, false, top);
        chart
            .configure_mesh()
            .x_desc("time since the first submission (h)")
            .y_desc("processor")
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .max_light_lines(0)
            .bold_line_style(RGBColor(225, 225, 225))
            .axis_style(BLACK)
            .label_style(("sans-serif", SMALL))
            .axis_desc_style(("sans-serif", MEDIUM))
            .draw()
            .map_err(|x| e(x.to_string()))?;
        let rect = |g: &GanttBox| {
            [
                (g.from / 3600.0, f64::from(g.lo)),
                (g.to / 3600.0, f64::from(g.hi) + 1.0),
            ]
        };
        chart
            .draw_series(
                boxes
                    .iter()
                    .map(|g| Rectangle::new(rect(g), job_colour(g.job).mix(0.75).filled())),
            )
            .map_err(|x| e(x.to_string()))?;
        chart
            .draw_series(
                boxes
                    .iter()
                    .map(|g| Rectangle::new(rect(g), WHITE.stroke_width(1))),
            )
            .map_err(|x| e(x.to_string()))?;
        root.present().map_err(|x| e(x.to_string()))?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs next to each other get hues far apart (a golden section of the wheel, 0.38
    /// either way), and the first 500 jobs get 500 different hues.
    #[test]
    fn gantt_colours_differ_between_neighbours_and_do_not_repeat() {
        let hue = |j: usize| job_colour(j).0;
        for j in 0..500 {
            let d = (hue(j + 1) - hue(j)).rem_euclid(1.0);
            assert!(d.min(1.0 - d) > 0.38, "jobs {j} and {}: {d}", j + 1);
        }
        let mut hues: Vec<f64> = (0..500).map(hue).collect();
        hues.sort_by(f64::total_cmp);
        assert!(hues.windows(2).all(|w| w[1] - w[0] > 1e-4));
    }

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
                a.starts_with("<svg") && a.contains("paper (published)") && a.contains("x (s)"),
                "{kind:?}"
            );
            // The title is escaped, not markup.
            assert!(
                a.contains("A &lt;title&gt;") && !a.contains("<title>"),
                "{kind:?}"
            );
        }
        let mut f = Figure::new("g", "log", "x", "y", FigureKind::Line).with_series(Series::ours(
            "s",
            vec![(1.0, 10.0), (100.0, 1e6), (0.0, -1.0)],
        ));
        f.x_log = true;
        f.y_log = true;
        let svg = render_svg(&f).unwrap();
        assert!(svg.contains(">\n100\n<") || svg.contains("100"), "{svg}");
        assert!(
            svg.contains("10⁶"),
            "powers of ten beyond 1000 as exponents"
        );
        // An empty figure still renders (axes only).
        assert!(render_svg(&Figure::new("e", "empty", "x", "y", FigureKind::Line)).is_ok());
    }

    #[test]
    fn log_ticks_label_only_powers_of_ten() {
        assert_eq!(tick(2.0, true, 3.0), "100");
        assert_eq!(tick(-2.0, true, 3.0), "0.01");
        assert_eq!(tick(5.0, true, 3.0), "10⁵");
        assert_eq!(tick(-4.0, true, 3.0), "10⁻⁴");
        assert_eq!(tick(2.5, true, 3.0), "");
        // Less than a decade: every tick, in plain numbers.
        assert_eq!(tick(0.5, true, 0.8), "3.162");
        assert_eq!(tick(0.25, false, 1.0), "0.25");
        assert_eq!(tick(2e6, false, 1.0), "2e6");
    }

    #[test]
    fn legend_wraps_into_rows() {
        let mut f = Figure::new("f", "t", "x", "y", FigureKind::Line);
        for i in 0..12 {
            f = f.with_series(Series::ours(
                format!("a fairly long series name {i}"),
                vec![],
            ));
        }
        let entries = legend_entries(&f);
        let (pos, rows) = legend_layout(&entries, 630);
        assert!(rows > 2);
        assert!(pos.iter().all(|&(_, x)| x < 630));
        assert_eq!(legend_layout(&[], 630).1, 0);
    }
}
