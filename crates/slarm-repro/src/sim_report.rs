//! The report of `slarm simulate --report DIR`: the series a schedule is looked at with
//! (utilisation, waiting jobs and processor demand over time, the distribution of waits,
//! bounded slowdown by job class, a Gantt chart with processors) and the static page that
//! shows them (`DIR/index.html` with sibling SVG figures, no network, no JavaScript).
//!
//! The input is plain data ([`SimJob`]), one schedule per policy, so that this module does not
//! depend on the simulator's types; the caller passes each job's bounded slowdown as its
//! simulator defines it (Feitelson et al. 1997: `max(1, response / max(run, tau))`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use slarm_report::{Figure, FigureKind, Series};

use crate::fsutil::{ensure_dir, write_atomic};
use crate::ReproError;

/// Most points of one time series or CDF on the page (larger series are down-sampled).
pub const MAX_POINTS: usize = 500;
/// Most job rectangles drawn in one Gantt chart (the jobs starting first in the window).
pub const MAX_GANTT_JOBS: usize = 3000;
/// Length of the default Gantt window: one day.
pub const DAY_S: f64 = 86_400.0;

/// Upper bounds (exclusive, seconds) of the run-time classes; the last class is open.
pub const RUNTIME_BOUNDS_S: [f64; 6] = [60.0, 600.0, 3600.0, 14_400.0, 43_200.0, 86_400.0];
/// Names of the run-time classes (one more than the bounds).
const RUNTIME_NAMES: [&str; 7] = [
    "< 1 min",
    "1-10 min",
    "10 min-1 h",
    "1-4 h",
    "4-12 h",
    "12-24 h",
    ">= 24 h",
];

/// One job of a simulated schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimJob {
    /// Submit time (s).
    pub submit: f64,
    /// Start time (s).
    pub start: f64,
    /// End time (s).
    pub end: f64,
    /// Processors used.
    pub procs: u32,
    /// Bounded slowdown of the job, as the simulator computes it.
    pub bounded_slowdown: f64,
}

impl SimJob {
    fn wait(&self) -> f64 {
        self.start - self.submit
    }
}

/// A step function: `(t, v)` means value `v` from `t` until the next point's time.
pub type Steps = Vec<(f64, f64)>;

/// Busy processors over time (a step function from the first start to the last end).
pub fn busy_processors(jobs: &[SimJob]) -> Steps {
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(jobs.len() * 2);
    for j in jobs {
        events.push((j.start, f64::from(j.procs)));
        events.push((j.end, -f64::from(j.procs)));
    }
    accumulate(events)
}

/// Waiting jobs and waiting processor demand over time (jobs submitted and not started).
pub fn waiting(jobs: &[SimJob]) -> (Steps, Steps) {
    // One series at a time: the events of one are dropped before the other's are built.
    let series = |size: fn(&SimJob) -> f64| {
        let mut events = Vec::with_capacity(jobs.len() * 2);
        for j in jobs.iter().filter(|j| j.start > j.submit) {
            events.push((j.submit, size(j)));
            events.push((j.start, -size(j)));
        }
        accumulate(events)
    };
    (series(|_| 1.0), series(|j| f64::from(j.procs)))
}

/// The step function of the running sum of `(time, change)` events: one point per distinct
/// time, the value after all the changes at that time.
fn accumulate(mut events: Vec<(f64, f64)>) -> Steps {
    // The order of the changes at one time does not matter: whole numbers below 2^53 add
    // exactly in any order.
    events.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    // The steps overwrite the events in place: step `w` is written after event `w` was read.
    let mut level = 0.0;
    let mut w = 0;
    for r in 0..events.len() {
        let (t, d) = events[r];
        level += d;
        if w > 0 && events[w - 1].0 == t {
            events[w - 1].1 = level;
        } else {
            events[w] = (t, level);
            w += 1;
        }
    }
    events.truncate(w);
    events
}

/// Down-samples a step function to at most `max_points` points (at least 2): unchanged when
/// small enough, else the time average over `max_points - 1` equal intervals from the first
/// to the last point's time (each interval's point at its start, and the last point's value
/// closing the series), which keeps the area under the curve.
pub fn downsample(steps: &[(f64, f64)], max_points: usize) -> Steps {
    let max_points = max_points.max(2);
    if steps.len() <= max_points {
        return steps.to_vec();
    }
    let (t0, t1) = (steps[0].0, steps[steps.len() - 1].0);
    let bins = max_points - 1;
    let width = (t1 - t0) / bins as f64;
    if width <= 0.0 {
        return vec![steps[0], steps[steps.len() - 1]];
    }
    let mut area = vec![0.0; bins];
    for w in steps.windows(2) {
        let (a, v, b) = (w[0].0, w[0].1, w[1].0);
        if b <= a {
            continue;
        }
        let first = (((a - t0) / width) as usize).min(bins - 1);
        let last = (((b - t0) / width) as usize).min(bins - 1);
        for (k, cell) in area.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = t0 + width * k as f64;
            let hi = if k + 1 == bins {
                t1
            } else {
                t0 + width * (k + 1) as f64
            };
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                *cell += v * overlap;
            }
        }
    }
    let mut out: Steps = area
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let lo = t0 + width * k as f64;
            let hi = if k + 1 == bins {
                t1
            } else {
                t0 + width * (k + 1) as f64
            };
            (lo, a / (hi - lo))
        })
        .collect();
    out.push(steps[steps.len() - 1]);
    out
}

/// The empirical CDF of the waits, `(wait, fraction of jobs waiting at most that long)`, one
/// point per distinct wait, or, beyond `max_points` distinct waits, at `max_points` evenly
/// spaced ranks (always including the largest wait).
pub fn wait_cdf(jobs: &[SimJob], max_points: usize) -> Vec<(f64, f64)> {
    let mut waits: Vec<f64> = jobs.iter().map(SimJob::wait).collect();
    waits.sort_unstable_by(f64::total_cmp);
    let n = waits.len();
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for (i, &w) in waits.iter().enumerate() {
        if i + 1 < n && waits[i + 1] == w {
            continue;
        }
        pts.push((w, (i + 1) as f64 / n as f64));
    }
    let max_points = max_points.max(2);
    if pts.len() <= max_points {
        return pts;
    }
    let last = pts.len() - 1;
    (0..max_points)
        .map(|k| pts[k * last / (max_points - 1)])
        .collect()
}

/// The width classes: `1`, `2`, `3-4`, `5-8`, ... (powers of two) up to the class holding
/// `capacity`. Returns each class's largest width.
pub fn width_bounds(capacity: u32) -> Vec<u32> {
    let mut v = vec![1u32];
    while v[v.len() - 1] < capacity {
        let next = v[v.len() - 1].saturating_mul(2);
        v.push(next);
    }
    v
}

fn width_names(bounds: &[u32]) -> Vec<String> {
    let mut prev = 0;
    bounds
        .iter()
        .map(|&b| {
            let name = if b == prev + 1 {
                b.to_string()
            } else {
                format!("{}-{b}", prev + 1)
            };
            prev = b;
            name
        })
        .collect()
}

/// Mean bounded slowdown and job count per class; `class` maps a job to its class index.
fn by_class(jobs: &[SimJob], classes: usize, class: impl Fn(&SimJob) -> usize) -> Vec<(f64, u64)> {
    let mut sum = vec![(0.0, 0u64); classes];
    for j in jobs {
        let c = class(j).min(classes - 1);
        sum[c].0 += j.bounded_slowdown;
        sum[c].1 += 1;
    }
    sum.into_iter()
        .map(|(s, n)| (if n == 0 { f64::NAN } else { s / n as f64 }, n))
        .collect()
}

/// Mean bounded slowdown (and count) per width class of [`width_bounds`] (NaN when empty).
pub fn slowdown_by_width(jobs: &[SimJob], capacity: u32) -> Vec<(f64, u64)> {
    let bounds = width_bounds(capacity);
    by_class(jobs, bounds.len(), |j| {
        bounds.partition_point(|&b| b < j.procs)
    })
}

/// Mean bounded slowdown (and count) per run-time class of [`RUNTIME_BOUNDS_S`] (NaN when
/// empty); the run time is `end - start`.
pub fn slowdown_by_runtime(jobs: &[SimJob]) -> Vec<(f64, u64)> {
    by_class(jobs, RUNTIME_NAMES.len(), |j| {
        RUNTIME_BOUNDS_S.partition_point(|&b| b <= j.end - j.start)
    })
}

/// The window `[s, s + len]` with the most processor-seconds of running work (the integral of
/// [`busy_processors`] over it), `s` within `[first start, last end - len]` (the earliest such
/// `s` on ties); a schedule shorter than `len` gives `[first start, first start + len]`.
/// `None` for an empty schedule.
pub fn busiest_window(jobs: &[SimJob], len: f64) -> Option<(f64, f64)> {
    let busy = busy_processors(jobs);
    let (first, last) = (busy.first()?.0, busy.last()?.0);
    if last - len <= first {
        return Some((first, first + len));
    }
    // Cumulative work at each breakpoint.
    let mut cum = Vec::with_capacity(busy.len());
    let mut acc = 0.0;
    for (i, &(t, _)) in busy.iter().enumerate() {
        if i > 0 {
            acc += busy[i - 1].1 * (t - busy[i - 1].0);
        }
        cum.push(acc);
    }
    // The work done until `t`, for times `t` that never decrease from one call to the next
    // (its breakpoint index only moves forward).
    let work_until = |i: &mut usize, t: f64| -> f64 {
        while *i < busy.len() && busy[*i].0 <= t {
            *i += 1;
        }
        match *i {
            0 => 0.0,
            i => cum[i - 1] + busy[i - 1].1 * (t - busy[i - 1].0),
        }
    };
    // The work in a sliding window is piecewise linear in s: its maximum is where s or s + len
    // is a breakpoint (the first start and the last end minus `len` among them). The
    // candidates t and t - len, both ascending, are merged so that s only grows.
    let hi = last - len;
    let mut best = (f64::NEG_INFINITY, first);
    let (mut at_s, mut at_end) = (0, 0);
    let (mut a, mut b) = (0, 0);
    while a < busy.len() || b < busy.len() {
        let s = if b == busy.len() || (a < busy.len() && busy[a].0 <= busy[b].0 - len) {
            a += 1;
            busy[a - 1].0
        } else {
            b += 1;
            busy[b - 1].0 - len
        };
        if !(first..=hi).contains(&s) {
            continue;
        }
        let w = work_until(&mut at_end, s + len) - work_until(&mut at_s, s);
        if w > best.0 || (w == best.0 && s < best.1) {
            best = (w, s);
        }
    }
    Some((best.1, best.1 + len))
}

pub use crate::svg::GanttBox;

/// The rectangles of the jobs running in `[a, b]` (clipped to it), at most `max_jobs` jobs (the
/// ones starting first); returns the rectangles and the number of jobs in the window.
pub fn gantt_boxes<P: AsRef<[(u32, u32)]>>(
    jobs: &[SimJob],
    processors: &[P],
    window: (f64, f64),
    max_jobs: usize,
) -> (Vec<GanttBox>, usize) {
    let (a, b) = window;
    let mut inside: Vec<usize> = (0..jobs.len().min(processors.len()))
        .filter(|&i| jobs[i].start < b && jobs[i].end > a && jobs[i].end > jobs[i].start)
        .collect();
    let total = inside.len();
    inside.sort_unstable_by(|&x, &y| jobs[x].start.total_cmp(&jobs[y].start).then(x.cmp(&y)));
    inside.truncate(max_jobs);
    let boxes = inside
        .into_iter()
        .flat_map(|i| {
            let j = jobs[i];
            processors[i]
                .as_ref()
                .iter()
                .map(move |&(lo, hi)| GanttBox {
                    from: j.start.max(a),
                    to: j.end.min(b),
                    lo,
                    hi,
                    job: i,
                })
        })
        .collect();
    (boxes, total)
}

/// Everything the page shows of one policy, computed from its schedule (bounded in size).
#[derive(Debug, Clone)]
pub struct PolicySeries {
    /// Policy name.
    pub name: String,
    /// Utilisation over time (busy processors over capacity), down-sampled.
    pub utilisation: Steps,
    /// Waiting jobs over time, down-sampled.
    pub waiting_jobs: Steps,
    /// Waiting processor demand over time, down-sampled.
    pub waiting_procs: Steps,
    /// CDF of waits.
    pub wait_cdf: Vec<(f64, f64)>,
    /// Mean bounded slowdown and count per width class.
    pub by_width: Vec<(f64, u64)>,
    /// Mean bounded slowdown and count per run-time class.
    pub by_runtime: Vec<(f64, u64)>,
    /// Gantt rectangles of the window.
    pub gantt: Vec<GanttBox>,
    /// Jobs running in the window (more than drawn when capped).
    pub gantt_jobs: usize,
    /// Jobs drawn.
    pub gantt_drawn: usize,
}

impl PolicySeries {
    /// Computes the series of one schedule; `processors[i]` is job `i`'s processor intervals.
    pub fn of<P: AsRef<[(u32, u32)]>>(
        name: impl Into<String>,
        jobs: &[SimJob],
        processors: &[P],
        capacity: u32,
        window: (f64, f64),
    ) -> Self {
        let cap = f64::from(capacity.max(1));
        let mut util = busy_processors(jobs);
        util.iter_mut().for_each(|p| p.1 /= cap);
        let utilisation = downsample(&util, MAX_POINTS);
        drop(util);
        let (wj, wp) = waiting(jobs);
        let (gantt, gantt_jobs) = gantt_boxes(jobs, processors, window, MAX_GANTT_JOBS);
        let mut drawn: Vec<usize> = gantt.iter().map(|g| g.job).collect();
        drawn.dedup();
        Self {
            name: name.into(),
            utilisation,
            waiting_jobs: downsample(&wj, MAX_POINTS),
            waiting_procs: downsample(&wp, MAX_POINTS),
            wait_cdf: wait_cdf(jobs, MAX_POINTS),
            by_width: slowdown_by_width(jobs, capacity),
            by_runtime: slowdown_by_runtime(jobs),
            gantt,
            gantt_jobs,
            gantt_drawn: drawn.len(),
        }
    }
}

/// How the Gantt window was chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WindowChoice {
    /// Given with `--gantt-window`.
    Given,
    /// The busiest day of the first policy's schedule ([`busiest_window`]).
    BusiestDay,
}

/// The page's input.
#[derive(Debug, Clone)]
pub struct SimReport {
    /// Trace name.
    pub trace: String,
    /// The command line, as typed (quoted for a shell).
    pub command: String,
    /// Machine size.
    pub capacity: u32,
    /// Bounded-slowdown threshold (s).
    pub tau_s: f64,
    /// Summary table: header and rows of text (the numbers `simulate` prints).
    pub summary: (Vec<String>, Vec<Vec<String>>),
    /// Trace-level fields shown above the table (name, value).
    pub fields: Vec<(String, String)>,
    /// Gantt window.
    pub window: (f64, f64),
    /// How the window was chosen.
    pub window_choice: WindowChoice,
    /// One entry per policy, in the order given.
    pub policies: Vec<PolicySeries>,
}

/// Ids of the figures the page shows, in order (the Gantt charts are `gantt-1`, `gantt-2`,
/// ... one per policy, after these).
pub const FIGURE_IDS: [&str; 6] = [
    "utilisation",
    "waiting-jobs",
    "waiting-procs",
    "wait-cdf",
    "slowdown-width",
    "slowdown-runtime",
];

fn time_figure(
    id: &str,
    title: &str,
    y: &str,
    r: &SimReport,
    pick: fn(&PolicySeries) -> &Steps,
) -> Figure {
    let mut f = Figure::new(
        id,
        title,
        "time since the first submission (h)",
        y,
        FigureKind::Step,
    );
    for p in &r.policies {
        let pts = pick(p).iter().map(|&(t, v)| (t / 3600.0, v)).collect();
        f = f.with_series(Series::ours(p.name.clone(), pts));
    }
    f
}

fn class_figure(
    id: &str,
    title: &str,
    x: &str,
    cats: Vec<String>,
    r: &SimReport,
    pick: fn(&PolicySeries) -> &[(f64, u64)],
) -> Figure {
    let mut f = Figure::new(id, title, x, "mean bounded slowdown", FigureKind::Bar);
    f.categories = cats;
    for p in &r.policies {
        let pts = pick(p)
            .iter()
            .enumerate()
            .filter(|(_, (v, _))| v.is_finite())
            .map(|(i, &(v, _))| (i as f64, v))
            .collect();
        f = f.with_series(Series::ours(p.name.clone(), pts));
    }
    f
}

/// The figures of the page (without the Gantt charts).
pub fn figures(r: &SimReport) -> Vec<Figure> {
    let tau = r.tau_s;
    let mut cdf = Figure::new(
        "wait-cdf",
        "Distribution of waits",
        "wait (s, log scale; waits under 1 s at 1 s)",
        "fraction of jobs",
        FigureKind::Step,
    );
    cdf.x_log = true;
    for p in &r.policies {
        cdf = cdf.with_series(Series::ours(
            p.name.clone(),
            p.wait_cdf.iter().map(|&(w, y)| (w.max(1.0), y)).collect(),
        ));
    }
    vec![
        time_figure(
            "utilisation",
            "Utilisation over time",
            "busy processors / machine",
            r,
            |p| &p.utilisation,
        ),
        time_figure(
            "waiting-jobs",
            "Waiting jobs over time",
            "jobs waiting",
            r,
            |p| &p.waiting_jobs,
        ),
        time_figure(
            "waiting-procs",
            "Waiting processor demand over time",
            "processors requested by waiting jobs",
            r,
            |p| &p.waiting_procs,
        ),
        cdf,
        class_figure(
            "slowdown-width",
            &format!("Mean bounded slowdown by job width (tau = {tau} s)"),
            "processors",
            width_names(&width_bounds(r.capacity)),
            r,
            |p| &p.by_width,
        ),
        class_figure(
            "slowdown-runtime",
            &format!("Mean bounded slowdown by run time (tau = {tau} s)"),
            "run time",
            RUNTIME_NAMES.iter().map(|s| s.to_string()).collect(),
            r,
            |p| &p.by_runtime,
        ),
    ]
}

fn esc(s: &str) -> String {
    crate::html::esc(s)
}

fn hours(t: f64) -> String {
    format!("{t} s ({:.2} h)", t / 3600.0)
}

/// Writes `DIR/index.html` and its SVG figures; `dir` is created when missing and must not be
/// a file. Returns the files written.
pub fn write_sim_report(dir: &Path, r: &SimReport) -> Result<Vec<PathBuf>, ReproError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ReproError::BadRequest(format!(
            "{}: exists and is not a folder",
            dir.display()
        )));
    }
    // Draw everything first: a failure leaves DIR as it was.
    let mut files: Vec<(String, String)> = Vec::new();
    for f in figures(r) {
        files.push((format!("{}.svg", f.id), crate::svg::render_svg(&f)?));
    }
    for (i, p) in r.policies.iter().enumerate() {
        let title = format!(
            "{}: jobs on processors, {}-{} s",
            p.name, r.window.0, r.window.1
        );
        files.push((
            format!("gantt-{}.svg", i + 1),
            crate::svg::render_gantt_svg(
                &format!("gantt-{}", i + 1),
                &title,
                r.window,
                r.capacity,
                &p.gantt,
            )?,
        ));
    }
    files.push(("index.html".into(), page(r)));
    ensure_dir(dir)?;
    let mut written = Vec::with_capacity(files.len());
    for (name, text) in files {
        let path = dir.join(name);
        write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

fn figure_html(o: &mut String, id: &str, series: usize, caption: &str) {
    let _ = writeln!(
        o,
        "<figure id=\"fig-{id}\" data-series=\"{series}\"><img src=\"{id}.svg\" alt=\"{c}\" width=\"720\" height=\"480\"><figcaption>{c}</figcaption></figure>",
        c = esc(caption)
    );
}

/// The page.
fn page(r: &SimReport) -> String {
    let mut o = String::new();
    let title = format!("slarm simulate: {}", r.trace);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        crate::html::STYLE,
        esc(&title)
    );
    let _ = writeln!(
        o,
        "<p class=\"meta\">Command: <code id=\"command\">{}</code></p>",
        esc(&r.command)
    );
    o.push_str("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"fields\"><tbody>");
    for (k, v) in &r.fields {
        let _ = write!(o, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    o.push_str("</tbody></table>\n<table class=\"policies\"><thead><tr>");
    for h in &r.summary.0 {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr></thead><tbody>");
    for row in &r.summary.1 {
        o.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let class = if i == 0 { "" } else { " class=\"n\"" };
            let _ = write!(o, "<td{class}>{}</td>", esc(c));
        }
        o.push_str("</tr>");
    }
    let _ = writeln!(
        o,
        "</tbody></table>\n<p class=\"note\">Wait = start - submit; bounded slowdown = max(1, (wait + run) / max(run, tau)) with tau = {} s, the usual threshold (Feitelson et al. 1997); utilisation = busy processor-seconds / ({} processors x makespan).</p></section>",
        r.tau_s, r.capacity
    );
    let n = r.policies.len();
    o.push_str("<section id=\"over-time\"><h2>Over time</h2>\n");
    let _ = writeln!(
        o,
        "<p class=\"note\">Series with more than {MAX_POINTS} points are drawn as time averages over {} equal intervals (area under the curve kept).</p>",
        MAX_POINTS - 1
    );
    figure_html(
        &mut o,
        "utilisation",
        n,
        "Utilisation over time, per policy",
    );
    figure_html(
        &mut o,
        "waiting-jobs",
        n,
        "Jobs waiting (submitted, not started) over time",
    );
    figure_html(
        &mut o,
        "waiting-procs",
        n,
        "Processors requested by waiting jobs over time",
    );
    o.push_str("</section>\n<section id=\"waits\"><h2>Waits and slowdown</h2>\n");
    let _ = writeln!(
        o,
        "<p class=\"note\">The CDF has one point per distinct wait, at most {MAX_POINTS} (evenly spaced ranks beyond). Width classes are powers of two (1, 2, 3-4, 5-8, ... processors); run-time classes (run = end - start) have bounds 1 min, 10 min, 1 h, 4 h, 12 h and 24 h. A class with no job has no bar. Bounded slowdown with tau = {} s.</p>",
        r.tau_s
    );
    figure_html(&mut o, "wait-cdf", n, "CDF of waits, per policy");
    figure_html(
        &mut o,
        "slowdown-width",
        n,
        &format!("Mean bounded slowdown (tau = {} s) by job width", r.tau_s),
    );
    figure_html(
        &mut o,
        "slowdown-runtime",
        n,
        &format!("Mean bounded slowdown (tau = {} s) by run time", r.tau_s),
    );
    class_table(
        &mut o,
        "Jobs per width class",
        &width_names(&width_bounds(r.capacity)),
        r,
        |p| &p.by_width,
    );
    class_table(
        &mut o,
        "Jobs per run-time class",
        &RUNTIME_NAMES.map(String::from),
        r,
        |p| &p.by_runtime,
    );
    o.push_str("</section>\n<section id=\"gantt\"><h2>Gantt chart</h2>\n");
    let how = match r.window_choice {
        WindowChoice::Given => "the window given with --gantt-window".to_string(),
        WindowChoice::BusiestDay => format!(
            "the busiest day: the {DAY_S} s window with the most processor-seconds of running work in the first policy's schedule ({}), the same window for every policy",
            esc(r.policies.first().map_or("", |p| p.name.as_str()))
        ),
    };
    let _ = writeln!(
        o,
        "<p class=\"note\">Window {} to {}: {how}. Each job is drawn on the processors it was assigned (lowest free processors first, as in the Batsim output); colours only tell neighbouring jobs apart. At most {MAX_GANTT_JOBS} jobs are drawn per chart.</p>",
        hours(r.window.0),
        hours(r.window.1)
    );
    for (i, p) in r.policies.iter().enumerate() {
        let mut caption = format!("{}: {} jobs running in the window", p.name, p.gantt_jobs);
        if p.gantt_drawn < p.gantt_jobs {
            let _ = write!(
                caption,
                ", capped: the first {} by start time drawn",
                p.gantt_drawn
            );
        }
        figure_html(&mut o, &format!("gantt-{}", i + 1), 1, &caption);
    }
    o.push_str("</section>\n</body></html>\n");
    o
}

fn class_table(
    o: &mut String,
    title: &str,
    names: &[String],
    r: &SimReport,
    pick: fn(&PolicySeries) -> &[(f64, u64)],
) {
    let _ = write!(
        o,
        "<table class=\"classes\"><caption>{}</caption><thead><tr><th>policy</th>",
        esc(title)
    );
    for n in names {
        let _ = write!(o, "<th>{}</th>", esc(n));
    }
    o.push_str("</tr></thead><tbody>");
    for p in &r.policies {
        let _ = write!(o, "<tr><td>{}</td>", esc(&p.name));
        for (v, n) in pick(p) {
            let v = if v.is_finite() {
                format!("{v:.3}")
            } else {
                "-".into()
            };
            let _ = write!(o, "<td class=\"n\">{n} jobs, {v}</td>");
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: f64, start: f64, end: f64, procs: u32) -> SimJob {
        let run = end - start;
        SimJob {
            submit,
            start,
            end,
            procs,
            bounded_slowdown: ((end - submit) / run.max(10.0)).max(1.0),
        }
    }

    /// Four jobs on a 4-processor machine: a runs 0-100 on 2; b runs 0-50 on 2; c, submitted
    /// at 10, runs 50-150 on 2; d, submitted at 20, runs 150-155 on all 4.
    fn small() -> Vec<SimJob> {
        vec![
            job(0.0, 0.0, 100.0, 2),
            job(0.0, 0.0, 50.0, 2),
            job(10.0, 50.0, 150.0, 2),
            job(20.0, 150.0, 155.0, 4),
        ]
    }

    #[test]
    fn utilisation_is_the_busy_processor_step_function() {
        assert_eq!(
            busy_processors(&small()),
            vec![
                (0.0, 4.0),
                (50.0, 4.0),
                (100.0, 2.0),
                (150.0, 4.0),
                (155.0, 0.0)
            ]
        );
    }

    #[test]
    fn waiting_jobs_and_demand() {
        let (jobs, procs) = waiting(&small());
        assert_eq!(
            jobs,
            vec![(10.0, 1.0), (20.0, 2.0), (50.0, 1.0), (150.0, 0.0)]
        );
        assert_eq!(
            procs,
            vec![(10.0, 2.0), (20.0, 6.0), (50.0, 4.0), (150.0, 0.0)]
        );
    }

    #[test]
    fn wait_cdf_has_one_point_per_distinct_wait() {
        assert_eq!(
            wait_cdf(&small(), 100),
            vec![(0.0, 0.5), (40.0, 0.75), (130.0, 1.0)]
        );
        // Capped: evenly spaced ranks, the largest wait kept.
        let many: Vec<SimJob> = (0..100)
            .map(|i| job(0.0, f64::from(i), f64::from(i) + 1.0, 1))
            .collect();
        let cdf = wait_cdf(&many, 5);
        assert_eq!(
            cdf,
            vec![
                (0.0, 0.01),
                (24.0, 0.25),
                (49.0, 0.5),
                (74.0, 0.75),
                (99.0, 1.0)
            ]
        );
    }

    #[test]
    fn slowdown_classes() {
        // Bounded slowdowns: a 1, b 1, c 140/100 = 1.4, d 135/10 = 13.5.
        assert_eq!(width_bounds(4), vec![1, 2, 4]);
        assert_eq!(width_bounds(5), vec![1, 2, 4, 8]);
        assert_eq!(width_names(&width_bounds(8)), ["1", "2", "3-4", "5-8"]);
        let w = slowdown_by_width(&small(), 4);
        assert!(w[0].0.is_nan() && w[0].1 == 0);
        assert_eq!(w[1], ((1.0 + 1.0 + 1.4) / 3.0, 3));
        assert_eq!(w[2], (13.5, 1));
        let r = slowdown_by_runtime(&small());
        // Runs 100, 50, 100, 5: b and d under 1 min, a and c in 1-10 min.
        assert_eq!(r[0], ((1.0 + 13.5) / 2.0, 2));
        assert_eq!(r[1], ((1.0 + 1.4) / 2.0, 2));
        assert!(r[2..].iter().all(|c| c.0.is_nan() && c.1 == 0));
        // A bound belongs to the class above it.
        assert_eq!(slowdown_by_runtime(&[job(0.0, 0.0, 60.0, 1)])[1].1, 1);
        assert_eq!(slowdown_by_width(&[job(0.0, 0.0, 60.0, 3)], 4)[2].1, 1);
    }

    #[test]
    fn busiest_window_maximises_the_work() {
        // Busy: 4 on [0, 100), 2 on [100, 150), 4 on [150, 155). Window 20: any s in [0, 80]
        // gives 80; the earliest is 0.
        assert_eq!(busiest_window(&small(), 20.0), Some((0.0, 20.0)));
        // A quiet start: the best 10 s window is the 8-processor job.
        let jobs = vec![
            job(0.0, 0.0, 100.0, 1),
            job(0.0, 200.0, 210.0, 8),
            job(0.0, 300.0, 400.0, 1),
        ];
        assert_eq!(busiest_window(&jobs, 10.0), Some((200.0, 210.0)));
        // Window straddling: 15 s around [200, 210] gets 80 + 0; earliest s is 195.
        assert_eq!(busiest_window(&jobs, 15.0), Some((195.0, 210.0)));
        // Shorter schedule than the window.
        assert_eq!(busiest_window(&jobs, 1000.0), Some((0.0, 1000.0)));
        assert_eq!(busiest_window(&[], 10.0), None);
    }

    /// The busiest window by definition: every candidate start (each breakpoint `t` and
    /// `t - len`, kept within range) evaluated with the work found by binary search.
    fn busiest_window_by_search(jobs: &[SimJob], len: f64) -> Option<(f64, f64)> {
        let busy = busy_processors(jobs);
        let (first, last) = (busy.first()?.0, busy.last()?.0);
        if last - len <= first {
            return Some((first, first + len));
        }
        let mut cum = vec![0.0];
        for w in busy.windows(2) {
            cum.push(cum[cum.len() - 1] + w[0].1 * (w[1].0 - w[0].0));
        }
        let work_until = |t: f64| match busy.partition_point(|p| p.0 <= t) {
            0 => 0.0,
            i => cum[i - 1] + busy[i - 1].1 * (t - busy[i - 1].0),
        };
        let hi = last - len;
        let mut best = (f64::NEG_INFINITY, first);
        for s in busy.iter().flat_map(|&(t, _)| [t, t - len]) {
            if (first..=hi).contains(&s) {
                let w = work_until(s + len) - work_until(s);
                if w > best.0 || (w == best.0 && s < best.1) {
                    best = (w, s);
                }
            }
        }
        Some((best.1, best.1 + len))
    }

    proptest::proptest! {
        /// The sweep with forward-moving cursors finds the window the definition does.
        #[test]
        fn busiest_window_sweep_matches_the_search(
            runs in proptest::collection::vec((0u32..500, 0u32..120, 1u32..9), 0..60),
            len in 1u32..300,
        ) {
            let jobs: Vec<SimJob> = runs
                .iter()
                .map(|&(s, d, p)| job(0.0, f64::from(s), f64::from(s + d), p))
                .collect();
            let len = f64::from(len);
            proptest::prop_assert_eq!(
                busiest_window(&jobs, len),
                busiest_window_by_search(&jobs, len)
            );
        }
    }

    #[test]
    fn downsampling_keeps_the_bound_and_the_area() {
        let steps: Steps = (0..10_000)
            .map(|i| (f64::from(i), f64::from(i % 7)))
            .collect();
        let area = |s: &[(f64, f64)]| {
            s.windows(2)
                .map(|w| w[0].1 * (w[1].0 - w[0].0))
                .sum::<f64>()
        };
        for max in [2, 3, 10, 999, 1000] {
            let d = downsample(&steps, max);
            assert!(d.len() <= max, "{max}: {}", d.len());
            assert_eq!(d.first().map(|p| p.0), Some(0.0));
            assert_eq!(d.last(), steps.last());
            assert!(
                (area(&d) - area(&steps)).abs() < 1e-6 * area(&steps),
                "{max}"
            );
        }
        // Small series are unchanged.
        assert_eq!(downsample(&steps[..5], 10), steps[..5].to_vec());
        // Exact values: [0,1)=2, [1,2)=4, [2,4)=0, end at 4; two bins of width 2.
        let s = vec![(0.0, 2.0), (1.0, 4.0), (2.0, 0.0), (4.0, 0.0)];
        assert_eq!(downsample(&s, 3), vec![(0.0, 3.0), (2.0, 0.0), (4.0, 0.0)]);
    }

    #[test]
    fn gantt_clips_and_caps() {
        let jobs = small();
        let procs = vec![vec![(0, 1)], vec![(2, 3)], vec![(2, 3)], vec![(0, 3)]];
        let (boxes, total) = gantt_boxes(&jobs, &procs, (40.0, 120.0), 10);
        assert_eq!(total, 3);
        assert_eq!(
            boxes
                .iter()
                .map(|b| (b.from, b.to, b.lo, b.hi))
                .collect::<Vec<_>>(),
            vec![(40.0, 100.0, 0, 1), (40.0, 50.0, 2, 3), (50.0, 120.0, 2, 3)]
        );
        let (boxes, total) = gantt_boxes(&jobs, &procs, (40.0, 120.0), 1);
        assert_eq!((boxes.len(), total), (1, 3));
    }

    #[test]
    fn page_states_its_bounds_and_writes_every_figure() {
        let jobs = small();
        let procs = vec![vec![(0, 1)], vec![(2, 3)], vec![(2, 3)], vec![(0, 3)]];
        let p = PolicySeries::of("easy", &jobs, &procs, 4, (0.0, 200.0));
        let r = SimReport {
            trace: "t<1>".into(),
            command: "slarm simulate".into(),
            capacity: 4,
            tau_s: 10.0,
            summary: (vec!["policy".into()], vec![vec!["easy".into()]]),
            fields: vec![("jobs".into(), "4".into())],
            window: (0.0, 200.0),
            window_choice: WindowChoice::BusiestDay,
            policies: vec![
                p.clone(),
                PolicySeries {
                    name: "b".into(),
                    ..p
                },
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r");
        let files = write_sim_report(&out, &r).unwrap();
        assert_eq!(files.len(), FIGURE_IDS.len() + 2 + 1);
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        assert!(html.contains("t&lt;1&gt;") && html.contains("tau = 10 s"));
        for id in FIGURE_IDS {
            assert!(html.contains(&format!("src=\"{id}.svg\"")), "{id}");
            assert!(out.join(format!("{id}.svg")).is_file());
        }
        // A file where the folder should be is refused and kept.
        let file = dir.path().join("f");
        std::fs::write(&file, "keep").unwrap();
        assert!(write_sim_report(&file, &r).is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
    }
}
