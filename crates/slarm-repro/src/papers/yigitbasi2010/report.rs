//! Assembly of the `yigitbasi2010` report from typed cell rows: Tables III, IV and VI beside
//! the published values, the Fig. 3–8 statistics, the sweeps and sensitivities, and the
//! orderings the paper states in §VI and §VII as claims.

use slarm_report::{Cell, Check, Figure, FigureKind, PaperReport, RunConfig, Series, Table};
use slarm_stats::ConfidenceInterval;

use super::{
    strategy_tag, CellBackground, CellParams, CellResult, Variant, Yigitbasi2010,
    BACKGROUND_CONFIGS, BACKGROUND_VARIANTS, KAPPAS, MONITOR_PERIODS_S, TABLE3_PUBLISHED,
    TABLE3_STRATEGIES, TABLE4_PUBLISHED, TABLE6_INITIAL_MEAN_MAKESPAN_MIN, TABLE6_PUBLISHED,
    TABLE6_SPAN_DAYS, VARIANT_KAPPAS,
};
use slarm_grid::metrics::{improvement_pct_truncated, reduction_pct_truncated, BoxStats};
use slarm_grid::provision::StrategyKind;
use slarm_grid::sched::BotPolicy;
use slarm_report::Experiment;

/// One cell's parameters and result.
pub type Row = (CellParams, CellResult);

/// κ values of the Table III columns (1.0 = NO).
const COLUMNS: [f64; 5] = [1.0, 1.5, 2.0, 2.5, 3.0];

/// What the report is built into.
#[derive(Default)]
struct Sections {
    tables: Vec<Table>,
    checks: Vec<Check>,
    figures: Vec<Figure>,
    notes: Vec<String>,
}

fn mean_of<'a>(rows: impl Iterator<Item = &'a Row>, f: impl Fn(&CellResult) -> f64) -> Option<f64> {
    let v: Vec<f64> = rows.map(|(_, r)| f(r)).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Rows of experiment `exp` for strategy `s` at κ `k` (κ = 1 selects NO).
fn select<'a>(
    rows: &'a [Row],
    exp: &'a str,
    s: StrategyKind,
    k: f64,
) -> impl Iterator<Item = &'a Row> {
    rows.iter().filter(move |(p, _)| {
        p.exp == exp
            && ((k == 1.0 && p.strategy == StrategyKind::None)
                || (p.strategy == s && (p.kappa - k).abs() < 1e-9))
    })
}

fn t3(rows: &[Row], s: StrategyKind, k: f64) -> impl Iterator<Item = &Row> {
    select(rows, "t3", s, k)
}

/// `C_d, C_s, waited BoTs` of one Table III cell (means over seeds), for reasons.
fn measured(rows: &[Row], s: StrategyKind, k: f64) -> String {
    let sel: Vec<&Row> = t3(rows, s, k).collect();
    if sel.is_empty() {
        return format!("{} kappa {k:.1}: not run", s.label());
    }
    let bots = mean_over(&sel, |r| r.bots as f64);
    format!(
        "{} kappa {k:.1}: C_d {:.2}, C_s {:.2}, {:.0} of {bots:.0} BoTs waited",
        if k == 1.0 { "NO" } else { s.label() },
        mean_over(&sel, |r| r.c_d),
        mean_over(&sel, |r| r.c_s),
        mean_over(&sel, |r| r.waited_bots as f64),
    )
}

/// The run's own load and background, as measured on the initial system of Table III.
fn load_context(rows: &[Row]) -> String {
    let no: Vec<&Row> = t3(rows, StrategyKind::None, 1.0).collect();
    if no.is_empty() {
        return "no initial-system run".into();
    }
    let bg = match no.first().map(|(p, _)| CellBackground::of(p)) {
        Some(CellBackground::Synthetic(_)) => {
            "synthetic background (the DAS-3 June 2008 trace of §V-A is not available)".into()
        }
        Some(CellBackground::File(name)) => format!("background trace {name} (§V-A)"),
        _ => "no background".to_string(),
    };
    format!(
        "initial system: realised BoT load {:.3} (the paper's level: {:.2}, §V-A) at offered load {:.2}, i.e. arrivals over {:.2} h, {bg} busy share {:.3}, {} seed(s)",
        mean_over(&no, |r| r.realised_load),
        no[0].0.load,
        mean_over(&no, |r| r.load),
        mean_over(&no, |r| r.span_days * 24.0),
        mean_over(&no, |r| r.busy_share_background),
        no.len()
    )
}

/// Whether `a` and `b` (means over seeds of `f`) differ by less than their seed noise, as text.
fn noise_note(rows: &[Row], a: (StrategyKind, f64), b: (StrategyKind, f64)) -> String {
    let sa: Vec<&Row> = t3(rows, a.0, a.1).collect();
    let sb: Vec<&Row> = t3(rows, b.0, b.1).collect();
    if sa.len() < 2 || sb.len() < 2 {
        return "one seed: no interval to tell noise from effect".into();
    }
    let hw = ci_half_width(&sa, |r| r.c_d).max(ci_half_width(&sb, |r| r.c_d));
    let d = (mean_over(&sa, |r| r.c_d) - mean_over(&sb, |r| r.c_d)).abs();
    if d <= hw {
        format!("C_d difference {d:.2} within the 95 % half-width {hw:.2}: seed noise")
    } else {
        format!("C_d difference {d:.2} beyond the 95 % half-width {hw:.2}")
    }
}

/// The paper's statements about its inputs (Yigitbasi & Epema 2010, §V-A, Table II, §VI-A,
/// §VII) beside the measured facts of our default workload: §VI from the initial-system runs
/// of Table III (means over seeds) and the ECT run of Fig. 3, §VII from Table VI's
/// initial-system runs.
fn workload_facts(rows: &[Row], out: &mut Sections) {
    let no: Vec<&Row> = t3(rows, StrategyKind::None, 1.0).collect();
    let t6: Vec<&Row> = select(rows, "t6", StrategyKind::None, 1.0).collect();
    if no.is_empty() && t6.is_empty() {
        return;
    }
    let mut t = Table::new(
        "workload-facts",
        "Default workload: measured input facts beside the paper's statements (Yigitbasi & Epema 2010, §V-A, Table II, §VI-A, §VII)",
        &["section", "fact", "ours", "paper"],
    );
    let iat = |r: &CellResult| r.span_days * 86_400.0 / (r.bots.max(2) - 1) as f64;
    let mut push = |sec: &str, fact: &str, ours: f64, paper: &str| {
        t.push(vec![
            Cell::Text(sec.into()),
            Cell::Text(fact.into()),
            Cell::Num(ours),
            Cell::Text(paper.into()),
        ]);
    };
    if !no.is_empty() {
        let m = |f: fn(&CellResult) -> f64| mean_over(&no, f);
        push(
            "§VI",
            "BoTs",
            m(|r| r.bots as f64),
            "approximately 1650 (§V-A)",
        );
        push("§VI", "tasks", m(|r| r.tasks as f64), "10K (§V-A)");
        push(
            "§VI",
            "arrival span, days",
            m(|r| r.span_days),
            "1 to 7 (§V-A); 2.38 = 1649 × 124.6 s (Table II)",
        );
        push(
            "§VI",
            "mean inter-arrival time, s",
            m(iat),
            "124.6 (Table II)",
        );
        push(
            "§VI",
            "mean BoT size",
            m(|r| r.tasks as f64 / r.bots.max(1) as f64),
            "6.1 (Table II)",
        );
        push(
            "§VI",
            "mean task runtime, s",
            m(|r| r.mean_runtime_s),
            "7859.7 (Table II)",
        );
        if let Some((_, ect)) = rows
            .iter()
            .find(|(p, _)| p.exp == "e2" && p.policy == slarm_grid::sched::BotPolicy::Ect)
        {
            push(
                "§VI",
                "ECT previous-two predictor accuracy",
                ect.predictor_accuracy,
                "around 0.40 (§VI-A)",
            );
        }
        push(
            "§VI",
            "realised BoT load of the initial system",
            m(|r| r.realised_load),
            "0.80 (§V-A)",
        );
        push(
            "§VI",
            "offered BoT load (work / (591.8 × span))",
            m(|r| r.load),
            "0.80 (§V-A)",
        );
        push(
            "§VI",
            "cost horizon T, h",
            m(|r| r.horizon_h),
            "69.4 (Table IV: All / (kappa × 544))",
        );
    }
    if !t6.is_empty() {
        let m = |f: fn(&CellResult) -> f64| mean_over(&t6, f);
        push("§VII", "BoTs", m(|r| r.bots as f64), "32,860 (§VII)");
        push(
            "§VII",
            "arrival span, days",
            m(|r| r.span_days),
            "approximately one and a half month (§VII)",
        );
        push(
            "§VII",
            "mean inter-arrival time, s",
            m(iat),
            "124.6 (Table II)",
        );
        push(
            "§VII",
            "initial system mean BoT makespan, min",
            m(|r| r.mean_makespan_s / 60.0),
            "roughly 3120 (§VII)",
        );
        push(
            "§VII",
            "realised BoT load of the initial system",
            m(|r| r.realised_load),
            "not stated",
        );
    }
    out.tables.push(t);
}

/// Builds the report from typed rows (used by [`Experiment::assemble`]).
pub fn assemble_rows(cfg: &RunConfig, rows: &[Row]) -> PaperReport {
    let mut out = Sections::default();
    let seeds = rows
        .iter()
        .filter(|(p, _)| p.exp == "t3")
        .map(|(p, _)| p.seed + 1)
        .max()
        .unwrap_or(0);
    workload_facts(rows, &mut out);
    table3(rows, seeds, &mut out);
    table4(rows, &mut out);
    table6(rows, "t6", &mut out);
    table6(rows, "t6cal", &mut out);
    policies(rows, &mut out);
    nsl_boxes(rows, &mut out);
    load_sweep(rows, &mut out);
    period_sweep(rows, &mut out);
    background_sensitivity(rows, &mut out);
    variant_sensitivity(rows, &mut out);
    table6_variants(rows, &mut out);
    dynamic_band(rows, &mut out);
    workload_notes(cfg, rows, seeds, &mut out);
    label_backgrounds(rows, &mut out.tables);
    PaperReport {
        paper: super::PAPER.into(),
        title: Yigitbasi2010.title().into(),
        workload: format!("Iosup BoT model with BoTs arriving at Table II's mean inter-arrival time of 124.6 s (the load measured, not targeted; the 80 % realised-load search is a labelled variant; runtime cap so that the mean task runtime is Table II's 7859.7 s) on simulated DAS-3 with {} and none in §VII's", match section6_background(rows) {
            CellBackground::File(name) => format!("the background trace {name} in §VI's experiments"),
            _ => "a synthetic background in §VI's experiments (15 % per cluster, single-processor jobs; labelled synthetic, no GWA trace)".into(),
        }),
        tables: out.tables,
        checks: out.checks,
        figures: out.figures,
        notes: out.notes,
    }
}

fn kappa_columns(metrics: &[&str]) -> Vec<String> {
    let mut cols = vec!["Strategy".to_string()];
    for k in COLUMNS {
        for m in metrics {
            cols.push(format!("k={k:.1} {m}"));
        }
    }
    cols
}

fn table_with(id: &str, title: String, cols: &[String]) -> Table {
    let refs: Vec<&str> = cols.iter().map(String::as_str).collect();
    Table::new(id, title, &refs)
}

/// One table of per-strategy, per-κ values computed by `f` over the seeds' rows.
fn per_kappa_table(
    rows: &[Row],
    id: &str,
    title: String,
    metrics: &[&str],
    f: impl Fn(&[&Row]) -> Vec<f64>,
) -> Table {
    let mut t = table_with(id, title, &kappa_columns(metrics));
    for s in TABLE3_STRATEGIES {
        let mut row = vec![Cell::Text(s.label().into())];
        for k in COLUMNS {
            let sel: Vec<&Row> = t3(rows, s, k).collect();
            row.extend(f(&sel).into_iter().map(Cell::Num));
        }
        t.push(row);
    }
    t
}

fn mean_over(sel: &[&Row], f: impl Fn(&CellResult) -> f64) -> f64 {
    mean_of(sel.iter().copied(), f).unwrap_or(f64::NAN)
}

fn ci_half_width(sel: &[&Row], f: impl Fn(&CellResult) -> f64) -> f64 {
    let xs: Vec<f64> = sel.iter().map(|(_, r)| f(r)).collect();
    ConfidenceInterval::of_samples(&xs, 0.95).map_or(f64::NAN, |c| 0.5 * (c.upper() - c.lower()))
}

fn table3(rows: &[Row], seeds: usize, out: &mut Sections) {
    let mut grid3 = [[(f64::NAN, f64::NAN); 5]; 4];
    let mut pub3 = table_with(
        "table3-published",
        "Table III as published".into(),
        &kappa_columns(&["C_d", "C_s"]),
    );
    for (si, s) in TABLE3_STRATEGIES.iter().enumerate() {
        let mut prow = vec![Cell::Text(s.label().into())];
        for (ki, &k) in COLUMNS.iter().enumerate() {
            let cd = mean_of(t3(rows, *s, k), |r| r.c_d).unwrap_or(f64::NAN);
            let cs = mean_of(t3(rows, *s, k), |r| r.c_s).unwrap_or(f64::NAN);
            grid3[si][ki] = (cd, cs);
            let (pd, ps) = TABLE3_PUBLISHED[si][ki];
            prow.push(Cell::Num(pd));
            prow.push(Cell::Num(ps));
            if !cd.is_finite() || (ki == 0 && si > 0) {
                continue;
            }
            for (metric, ours, published) in [("C_d", cd, pd), ("C_s", cs, ps)] {
                out.checks.push(
                    Check::relative(
                        format!("table3/{}/k{k:.1}/{metric}", strategy_tag(*s)),
                        format!("{metric} of {} at kappa {k:.1}", s.label()),
                        ours,
                        published,
                        0.5,
                    )
                    .with_reason_if_differs(format!(
                        "{} vs the paper's {published:.2} (§VI-B, Table III); {}; {}",
                        measured(rows, *s, k),
                        if ki == 0 { load_context(rows) } else { measured(rows, StrategyKind::None, 1.0) },
                        if mean_of(t3(rows, *s, k), |r| r.waited_bots as f64) == Some(0.0) {
                            "no BoT waited here, so the value is the no-queueing spread of NSL = makespan / work that the per-task runtime draws of Table II give (§V-A)"
                        } else {
                            "BoTs that waited behind the queue have NSLs far above 1, and they set C_d"
                        }
                    )),
                );
            }
        }
        pub3.push(prow);
    }
    out.tables.push(per_kappa_table(
        rows,
        "table3",
        format!("Table III: consistency at Table II's arrival rate, DynPerTask (ours, mean of {seeds} seeds)"),
        &["C_d", "C_s"],
        |sel| vec![mean_over(sel, |r| r.c_d), mean_over(sel, |r| r.c_s)],
    ));
    out.tables.push(pub3);
    if seeds > 1 {
        out.tables.push(per_kappa_table(
            rows,
            "table3-ci95",
            format!("Table III: half-width of the Student-t 95 % interval over {seeds} seeds"),
            &["C_d ±", "C_s ±"],
            |sel| vec![ci_half_width(sel, |r| r.c_d), ci_half_width(sel, |r| r.c_s)],
        ));
    }
    out.tables.push(per_kappa_table(
        rows,
        "table3-min5",
        "Table III with size groups of at least 5 BoTs (ours; Yigitbasi & Epema 2010, Sec. VI do not say how sparse size groups are treated)".into(),
        &["C_d", "C_s"],
        |sel| {
            vec![
                mean_over(sel, |r| r.c_d_min5.unwrap_or(f64::NAN)),
                mean_over(sel, |r| r.c_s_min5.unwrap_or(f64::NAN)),
            ]
        },
    ));
    out.tables.push(per_kappa_table(
        rows,
        "table3-waited",
        "BoTs of which at least one task waited in a local queue (ours, mean over seeds, of 1650)"
            .into(),
        &["waited"],
        |sel| vec![mean_over(sel, |r| r.waited_bots as f64)],
    ));
    if seeds > 0 {
        claims_table3(rows, &grid3, &mut out.checks);
    }
}

fn claims_table3(rows: &[Row], g: &[[(f64, f64); 5]; 4], checks: &mut Vec<Check>) {
    // Dynamic lowest C_d and C_s in every column kappa >= 1.5.
    let mut lowest = true;
    let mut detail = Vec::new();
    let mut beaten = Vec::new();
    let mut dyn_le_all = 0;
    for ki in 1..5 {
        let (dd, ds) = g[3][ki];
        let min_d = (0..3).map(|s| g[s][ki].0).fold(f64::INFINITY, f64::min);
        let min_s = (0..3).map(|s| g[s][ki].1).fold(f64::INFINITY, f64::min);
        lowest &= dd <= min_d && ds <= min_s;
        if dd > min_d || ds > min_s {
            let best = (0..3)
                .min_by(|&a, &b| g[a][ki].0.total_cmp(&g[b][ki].0))
                .unwrap_or(0);
            beaten.push(format!(
                "{}; {} ({})",
                measured(rows, StrategyKind::Dynamic, COLUMNS[ki]),
                measured(rows, TABLE3_STRATEGIES[best], COLUMNS[ki]),
                noise_note(
                    rows,
                    (StrategyKind::Dynamic, COLUMNS[ki]),
                    (TABLE3_STRATEGIES[best], COLUMNS[ki])
                )
            ));
        }
        detail.push(format!(
            "k={}: Dyn {dd:.2}/{ds:.2} vs best static {min_d:.2}/{min_s:.2}",
            COLUMNS[ki]
        ));
        dyn_le_all += usize::from(dd <= g[0][ki].0) + usize::from(ds <= g[0][ki].1);
    }
    checks.push(
        Check::claim(
            "table3/dynamic-lowest",
            "Dynamic has the lowest C_d and C_s in every column (kappa 1.5-3)",
            lowest,
            detail.join("; "),
        )
        .with_reason_if_differs(format!(
            "Dynamic is not lowest where: {} (§VI-B, Table III; {})",
            beaten.join(" | "),
            load_context(rows)
        )),
    );
    let dyn_vs_all: Vec<String> = KAPPAS
        .iter()
        .map(|&k| {
            format!(
                "{} vs {}",
                measured(rows, StrategyKind::Dynamic, k),
                measured(rows, StrategyKind::All, k)
            )
        })
        .collect();
    checks.push(
        Check::claim(
            "table3/dynamic-le-all",
            "Dynamic <= All for at least 6 of the 8 (C_d, C_s) pairs (paper: 8 of 8)",
            dyn_le_all >= 6,
            format!("{dyn_le_all} of 8"),
        )
        .with_reason_if_differs(format!("{} (§VI-B, Table III)", dyn_vs_all.join("; "))),
    );
    // Both metrics fall or stay flat as kappa rises (5 % slack for "flat").
    let mut bad = Vec::new();
    let mut rises = Vec::new();
    for (si, s) in TABLE3_STRATEGIES.iter().enumerate() {
        for ki in 1..5 {
            let (d0, s0) = g[si][ki - 1];
            let (d1, s1) = g[si][ki];
            if d1 > 1.05 * d0 || s1 > 1.05 * s0 {
                bad.push(format!(
                    "{} {}->{}",
                    s.label(),
                    COLUMNS[ki - 1],
                    COLUMNS[ki]
                ));
                rises.push(format!(
                    "{} -> {} ({})",
                    measured(rows, *s, COLUMNS[ki - 1]),
                    measured(rows, *s, COLUMNS[ki]),
                    noise_note(rows, (*s, COLUMNS[ki - 1]), (*s, COLUMNS[ki]))
                ));
            }
        }
    }
    checks.push(
        Check::claim(
            "table3/monotone",
            "C_d and C_s fall or stay flat (within 5 %) as kappa rises, for every strategy",
            bad.is_empty(),
            if bad.is_empty() {
                "holds for all 16 steps".to_string()
            } else {
                format!("rises at {}", bad.join(", "))
            },
        )
        .with_reason_if_differs(format!(
            "where it rises: {} (§VI-B, Table III)",
            rises.join(" | ")
        )),
    );
    // Knee near 2.5.
    let big_gain = g[0][0].0 / g[0][3].0;
    checks.push(
        Check::claim(
            "table3/knee-gain",
            "C_d(NO) / C_d(All, kappa 2.5) >= 5 (paper 11.2)",
            big_gain >= 5.0,
            format!("{big_gain:.2}"),
        )
        .with_reason_if_differs(format!(
            "{} against {} (paper 29.59 against 2.64, §VI-B): our initial system's C_d is {}",
            measured(rows, StrategyKind::None, 1.0),
            measured(rows, StrategyKind::All, 2.5),
            if g[0][0].0 < TABLE3_PUBLISHED[0][0].0 {
                format!("far below the paper's ({})", load_context(rows))
            } else {
                "as high as the paper's, but overprovisioning does not lower it enough".into()
            }
        )),
    );
    let flat = g[0][3].0 / g[0][4].0;
    checks.push(Check::claim(
        "table3/knee-flat",
        "C_d(All, 2.5) / C_d(All, 3.0) <= 1.15: little gain beyond the critical value (paper 1.008)",
        flat <= 1.15,
        format!("{flat:.3}"),
    )
    .with_reason_if_differs(format!(
        "{} -> {} ({}; §VI-B)",
        measured(rows, StrategyKind::All, 2.5),
        measured(rows, StrategyKind::All, 3.0),
        noise_note(rows, (StrategyKind::All, 2.5), (StrategyKind::All, 3.0))
    )));
}

fn table4(rows: &[Row], out: &mut Sections) {
    let mut t4 = Table::new(
        "table4",
        "Table IV: cost in CPU-hours, All vs Dynamic (ours beside published)",
        &[
            "kappa",
            "T h (ours)",
            "All (ours)",
            "Dynamic (ours)",
            "Reduction % (ours)",
            "T h (paper, All / (kappa × 544))",
            "All (paper)",
            "Dynamic (paper)",
            "Reduction % (paper)",
        ],
    );
    let mut reds = Vec::new();
    let mut all_costs = Vec::new();
    for &(k, pa, pd, pr) in &TABLE4_PUBLISHED {
        let a = mean_of(t3(rows, StrategyKind::All, k), |r| r.cpu_hours).unwrap_or(f64::NAN);
        let d = mean_of(t3(rows, StrategyKind::Dynamic, k), |r| r.cpu_hours).unwrap_or(f64::NAN);
        // Both costs run over the same T, the span of the one workload All and Dynamic share.
        let t_h = mean_of(t3(rows, StrategyKind::All, k), |r| r.horizon_h).unwrap_or(f64::NAN);
        let red = reduction_pct_truncated(a, d);
        reds.push(red);
        all_costs.push((k, a, d));
        t4.push(vec![
            Cell::Num(k),
            Cell::Num((t_h * 10.0).round() / 10.0),
            Cell::Num(a.round()),
            Cell::Num(d.round()),
            Cell::Num(red),
            Cell::Num((pa / (k * 544.0) * 10.0).round() / 10.0),
            Cell::Num(pa),
            Cell::Num(pd),
            Cell::Num(pr),
        ]);
        if red.is_finite() {
            out.checks.push(
                Check::numeric(
                    format!("table4/k{k:.1}/reduction"),
                    format!("cost reduction of Dynamic vs All at kappa {k:.1} (%)"),
                    red,
                    Some(pr),
                    10.0,
                )
                .with_reason_if_differs(cost_reason(rows, k, pa, pd)),
            );
        }
    }
    out.tables.push(t4);
    if all_costs.iter().all(|c| c.1.is_finite() && c.2.is_finite()) && !all_costs.is_empty() {
        claims_table4(rows, &all_costs, &reds, &mut out.checks);
    }
    // Static cost equality across static strategies at equal kappa (§VI-B, Table IV).
    for k in KAPPAS {
        let costs: Vec<f64> = [
            StrategyKind::All,
            StrategyKind::Largest,
            StrategyKind::Number,
        ]
        .iter()
        .filter_map(|&s| mean_of(t3(rows, s, k), |r| r.cpu_hours))
        .collect();
        if costs.len() == 3 {
            let same = costs
                .iter()
                .all(|c| (c - costs[0]).abs() <= 1e-6 * costs[0].abs());
            out.checks.push(Check::claim(
                format!("table4/k{k:.1}/static-equal"),
                format!("static strategies cost the same at kappa {k:.1}"),
                same,
                format!(
                    "All {:.0}, Largest {:.0}, Number {:.0}",
                    costs[0], costs[1], costs[2]
                ),
            ));
        }
    }
}

/// Dynamic's cost at κ `k` as the run measured it: busy grid hours plus ceiled cloud lease
/// hours over the horizon T, beside All's κ · 544 · T (§V-C, Table IV).
fn dynamic_cost_parts(rows: &[Row], k: f64) -> String {
    let m = |f: fn(&CellResult) -> f64| {
        mean_of(t3(rows, StrategyKind::Dynamic, k), f).unwrap_or(f64::NAN)
    };
    format!(
        "kappa {k:.1}: T = {:.2} h, All = {k:.1} × 544 × T = {:.0}, Dynamic = {:.0} busy grid + {:.0} ceiled cloud lease hours = {:.0}",
        m(|r| r.horizon_h),
        mean_of(t3(rows, StrategyKind::All, k), |r| r.cpu_hours).unwrap_or(f64::NAN),
        m(|r| r.grid_busy_hours),
        m(|r| r.cloud_lease_hours as f64),
        m(|r| r.cpu_hours),
    )
}

/// Why a Table IV reduction differs, from the run's own costs, beside the horizon the paper's
/// All cost implies (All = κ · 544 · T).
fn cost_reason(rows: &[Row], k: f64, p_all: f64, p_dyn: f64) -> String {
    format!(
        "{} (the paper: T = {:.1} h, Dynamic {:.1} % of All; §VI-C, Table IV)",
        dynamic_cost_parts(rows, k),
        p_all / (k * 544.0),
        100.0 * p_dyn / p_all,
    )
}

fn claims_table4(rows: &[Row], costs: &[(f64, f64, f64)], reds: &[f64], checks: &mut Vec<Check>) {
    let parts: Vec<String> = costs
        .iter()
        .map(|c| dynamic_cost_parts(rows, c.0))
        .collect();
    let per_k: Vec<f64> = costs.iter().map(|c| c.1 / c.0).collect();
    let linear = per_k
        .iter()
        .all(|x| (x - per_k[0]).abs() <= 1e-9 * per_k[0].abs());
    checks.push(Check::claim(
        "table4/static-linear",
        "static (All) cost is exactly linear in kappa (paper: 37 770 kappa)",
        linear,
        format!("All/kappa = {:.1}", per_k[0]),
    ));
    checks.push(
        Check::claim(
            "table4/dynamic-cheaper",
            "Dynamic costs less than All at every kappa",
            costs.iter().all(|c| c.2 < c.1),
            reds.iter()
                .map(|r| format!("{r:.1} %"))
                .collect::<Vec<_>>()
                .join(", "),
        )
        .with_reason_if_differs(format!("{} (§V-C, Table IV)", parts.join("; "))),
    );
    let in_paper_range = reds.iter().all(|&r| (24.0..=43.0).contains(&r));
    let in_accept_range = reds.iter().all(|&r| (15.0..=55.0).contains(&r));
    checks.push(
        Check::claim(
            "table4/reduction-range",
            "Dynamic is 24-43 % cheaper than All (acceptance: within 15-55 %, from Yigitbasi & Epema 2010, Sec. VI, Table IV)",
            in_accept_range,
            format!("reductions {reds:?}; inside the paper's 24-43 %: {in_paper_range}"),
        )
        .with_reason_if_differs(format!(
            "reductions outside 15-55 %: {}",
            costs
                .iter()
                .zip(reds)
                .filter(|(_, r)| !(15.0..=55.0).contains(*r))
                .map(|(c, r)| format!(
                    "kappa {:.1}: All {:.0}, Dynamic {:.0} CPU-hours, {r:.1} % (§VI-C, Table IV)",
                    c.0, c.1, c.2
                ))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    );
    checks.push(
        Check::claim(
            "table4/reduction-falls",
            "the cost reduction falls as kappa rises",
            reds.windows(2).all(|w| w[1] <= w[0]),
            format!("{reds:?}"),
        )
        .with_reason_if_differs(format!("{} (§VI-C, Table IV)", parts.join("; "))),
    );
}

/// Table VI of one variant: `t6` (arrivals at Table II's mean inter-arrival time, the load
/// measured, our literal reading of §VII, which does not state the load) or `t6cal` (load calibrated so that the initial system's mean makespan is
/// §VII's 3120 min).
fn table6(rows: &[Row], exp: &str, out: &mut Sections) {
    let t6: Vec<&Row> = rows.iter().filter(|(p, _)| p.exp == exp).collect();
    if t6.is_empty() {
        return;
    }
    let (id, what) = if exp == "t6cal" {
        (
            "table6-calibrated",
            "initial system calibrated to the paper's 3120-min mean makespan (Yigitbasi & Epema 2010, Sec. VII)",
        )
    } else {
        ("table6", "arrivals at Table II's mean inter-arrival time")
    };
    let no_ctl: Vec<&Row> = t6
        .iter()
        .copied()
        .filter(|(p, _)| p.strategy == StrategyKind::None)
        .collect();
    let total = no_ctl.first().map_or(0, |(_, r)| r.bots);
    let mut t = Table::new(
        id,
        format!("Table VI, {what}: BoTs with makespan < TargetMakespan out of {total} (ours, mean over seeds) beside 32 860 (paper)"),
        &[
            "[Release-Target]",
            "w/o Controller (ours)",
            "w Controller (ours)",
            "Improvement % (ours)",
            "time-avg kappa (ours)",
            "w/o (paper)",
            "w (paper)",
            "Improvement % (paper)",
        ],
    );
    let mut wo_list = Vec::new();
    let mut w_list = Vec::new();
    let mut imp_list = Vec::new();
    let mean_ms = mean_over(&no_ctl, |r| r.mean_makespan_s / 60.0);
    let span = mean_over(&no_ctl, |r| r.span_days);
    let load = mean_over(&no_ctl, |r| r.load);
    let context = format!(
        "initial system of {total} BoTs without background: offered load {load:.2}, realised load {:.3}, {:.0} BoTs waited, mean makespan {mean_ms:.0} min (paper ≈3120 for 32 860 BoTs, §VII)",
        mean_over(&no_ctl, |r| r.realised_load),
        mean_over(&no_ctl, |r| r.waited_bots as f64),
    );
    for (i, &(rel, target, pwo, pw, pimp)) in TABLE6_PUBLISHED.iter().enumerate() {
        let met = |r: &CellResult| r.meeting.get(i).copied().unwrap_or(0) as f64;
        let ctl = |p: &CellParams| p.controller_min == Some((target, rel));
        let with: Vec<&Row> = t6.iter().copied().filter(|(p, _)| ctl(p)).collect();
        let wo = mean_over(&no_ctl, met);
        let w = mean_over(&with, met);
        let kavg = mean_over(&with, |r| r.kappa_time_avg);
        let imp = improvement_pct_truncated(w.round() as usize, wo.round() as usize, total);
        wo_list.push(wo);
        w_list.push(w);
        imp_list.push(imp);
        t.push(vec![
            Cell::Text(format!("[{rel:.0}m-{target:.0}m]")),
            Cell::Num(wo.round()),
            Cell::Num(w.round()),
            Cell::Int(imp),
            Cell::Num(kavg),
            Cell::Int(pwo as i64),
            Cell::Int(pw as i64),
            Cell::Int(pimp),
        ]);
        out.checks.push(
            Check::numeric(
                format!("{id}/{i}/improvement"),
                format!("{what}: improvement in BoTs meeting {target:.0} min (% of all BoTs)"),
                imp as f64,
                Some(pimp as f64),
                15.0,
            )
            .with_reason_if_differs(format!(
                "{context}; meeting {target:.0} min: {wo:.0} without and {w:.0} with the controller (time-averaged kappa {kavg:.2}), the paper {pwo} and {pw} of 32 860 (§VII, Table VI)"
            )),
        );
        if let Some((_, r)) = with.iter().find(|(p, _)| p.seed == 0) {
            out.figures.push(
                Figure::new(
                    format!("fig8-{id}-kappa-{i}"),
                    format!(
                        "Fig. 8 ({what}): kappa(t) with the controller [{rel:.0}m-{target:.0}m]"
                    ),
                    "time (days)",
                    "kappa",
                    FigureKind::Step,
                )
                .with_series(Series::ours(
                    format!("[{rel:.0}m-{target:.0}m]"),
                    r.kappa_series.clone(),
                )),
            );
        }
    }
    out.tables.push(t);
    claims_table6(id, &context, &wo_list, &w_list, &imp_list, &mut out.checks);
    out.checks.push(
        Check::relative(
            format!("{id}/initial-mean-makespan"),
            format!("{what}: mean BoT makespan of the initial system (min)"),
            mean_ms,
            TABLE6_INITIAL_MEAN_MAKESPAN_MIN,
            0.10,
        )
        .with_reason_if_differs(if exp == "t6cal" {
            format!(
                "the calibration target of this variant; the search over the offered load stopped at {load:.2} (bounds {:.1}-{:.1}) with {context}",
                super::PAPER_LOAD,
                super::MAX_CALIBRATED_LOAD
            )
        } else {
            context.clone()
        }),
    );
    out.checks.push(
        Check::relative(
            format!("{id}/span"),
            format!("{what}: span of the workload (days)"),
            span,
            TABLE6_SPAN_DAYS,
            0.25,
        )
        .with_reason_if_differs(format!(
            "{total} BoTs at offered load {load:.2} span {span:.1} days (the paper's 32 860 BoTs ≈45 days, §VII); one load knob sets both span and congestion"
        )),
    );
    out.notes.push(format!(
        "Table VI ({what}): {total} BoTs, no background, offered load {load:.3}, span {span:.1} days (paper ≈45), initial-system mean makespan {mean_ms:.0} min (paper ≈3120)."
    ));
}

fn claims_table6(
    id: &str,
    context: &str,
    wo: &[f64],
    w: &[f64],
    imp: &[i64],
    checks: &mut Vec<Check>,
) {
    let why = format!(
        "{context}; meeting the three targets without the controller {wo:.0?}, with it {w:.0?}, improvement {imp:?} points (paper 4732/5900/6959, 26849/21870/20219, 67/48/40; §VII, Table VI)"
    );
    checks.push(
        Check::claim(
            format!("{id}/without-rises"),
            "without the controller, the count meeting the target rises as the target loosens",
            wo.windows(2).all(|x| x[1] >= x[0]),
            format!("{wo:?}"),
        )
        .with_reason_if_differs(why.clone()),
    );
    checks.push(
        Check::claim(
            format!("{id}/with-falls"),
            "with the controller, the count meeting the target falls as the target loosens",
            w.windows(2).all(|x| x[1] <= x[0]),
            format!("{w:?}"),
        )
        .with_reason_if_differs(why.clone()),
    );
    checks.push(Check::claim(
        format!("{id}/improvement-large"),
        "the controller raises the share of BoTs meeting the target by tens of points (> 25 for the tight pair) and the gain falls from tight to loose",
        imp.first().is_some_and(|&i| i > 25) && imp.windows(2).all(|x| x[1] <= x[0]),
        format!("{imp:?} points"),
    )
    .with_reason_if_differs(why));
}

fn policies(rows: &[Row], out: &mut Sections) {
    for (exp, title) in [
        (
            "e2",
            "Fig. 3: policies on the initial system (kappa 1), NSL statistics",
        ),
        ("e3", "Fig. 4: policies under All, kappa 2, NSL statistics"),
    ] {
        let sel: Vec<&Row> = rows.iter().filter(|(p, _)| p.exp == exp).collect();
        if sel.is_empty() {
            continue;
        }
        let mut t = Table::new(
            format!("{exp}-policies"),
            title,
            &[
                "Policy",
                "C_d",
                "C_s",
                "min",
                "Q1",
                "median",
                "mean",
                "Q3",
                "max",
                "waited BoTs",
                "prediction accuracy",
            ],
        );
        for (p, r) in &sel {
            let mut row = vec![
                Cell::Text(p.policy.label().into()),
                Cell::Num(r.c_d),
                Cell::Num(r.c_s),
            ];
            row.extend(box_cells(&r.nsl));
            row.push(Cell::Int(r.waited_bots as i64));
            row.push(if p.policy == BotPolicy::Ect {
                Cell::Num(r.predictor_accuracy)
            } else {
                Cell::Empty
            });
            t.push(row);
        }
        out.tables.push(t);
        if exp == "e2" {
            let mut f = Figure::new(
                "fig3-nsl-cdf",
                "Fig. 3: NSL CDF per policy (kappa 1)",
                "NSL",
                "CDF",
                FigureKind::Step,
            );
            f.x_log = true;
            for (p, r) in &sel {
                f = f.with_series(Series::ours(p.policy.label(), r.nsl_cdf.clone()));
            }
            out.figures.push(f);
        }
        let get = |k: BotPolicy| sel.iter().find(|(p, _)| p.policy == k).map(|(_, r)| r);
        if let (Some(ect), Some(pt), Some(pb), Some(st)) = (
            get(BotPolicy::Ect),
            get(BotPolicy::DynPerTask),
            get(BotPolicy::DynPerBot),
            get(BotPolicy::Static),
        ) {
            policy_claims(exp, [st, pt, pb, ect], &mut out.checks);
        }
    }
}

/// The Fig. 3 (`e2`) or Fig. 4 (`e3`) claims on [Static, DynPerTask, DynPerBoT, ECT].
fn policy_claims(exp: &str, [st, pt, pb, ect]: [&CellResult; 4], checks: &mut Vec<Check>) {
    if exp == "e2" {
        checks.push(
            Check::claim(
                "fig3/ect-worst",
                "ECT has the worst NSL on the initial system (highest mean NSL)",
                ect.nsl.mean >= pt.nsl.mean.max(pb.nsl.mean).max(st.nsl.mean),
                format!(
                    "mean NSL: ECT {:.3}, DynPerTask {:.3}, DynPerBoT {:.3}, Static {:.3}",
                    ect.nsl.mean, pt.nsl.mean, pb.nsl.mean, st.nsl.mean
                ),
            )
            .with_reason_if_differs(format!(
                "on the initial system the BoTs that waited were: ECT {}, DynPerTask {}, DynPerBoT {}, Static {} of {}; ECT's predictor accuracy {:.3} (§VI-A, Fig. 3)",
                ect.waited_bots, pt.waited_bots, pb.waited_bots, st.waited_bots, pt.bots, ect.predictor_accuracy
            )),
        );
        checks.push(
            Check::numeric(
                "fig3/ect-accuracy",
                "ECT prediction accuracy (mean min/max)",
                ect.predictor_accuracy,
                Some(0.40),
                0.15,
            )
            .with_reason_if_differs(format!(
                "ECT's last-two-average predictor reaches a mean min/max accuracy of {:.3} over {} tasks whose runtimes are drawn independently per task from Table II's log-normal (§V-A), so the two previous runtimes say little about the next (the paper reports ≈0.40, §VI-A)",
                ect.predictor_accuracy, ect.tasks
            )),
        );
    } else {
        let iqr = |r: &CellResult| r.nsl.q3 - r.nsl.q1;
        checks.push(Check::claim(
            "fig4/dynamic-better",
            "under All kappa 2, DynPerTask and DynPerBoT have a smaller NSL interquartile range than Static and ECT",
            iqr(pt).max(iqr(pb)) <= iqr(st).min(iqr(ect)),
            format!(
                "IQR: DynPerTask {:.3}, DynPerBoT {:.3}, Static {:.3}, ECT {:.3}",
                iqr(pt),
                iqr(pb),
                iqr(st),
                iqr(ect)
            ),
        )
        .with_reason_if_differs(format!(
            "under All kappa 2 the BoTs that waited in a local queue were: DynPerTask {}, DynPerBoT {}, Static {}, ECT {} of {}{} (§VI-A, Fig. 4)",
            pt.waited_bots, pb.waited_bots, st.waited_bots, ect.waited_bots, pt.bots,
            if pt.waited_bots.max(pb.waited_bots).max(st.waited_bots) * 100 <= pt.bots {
                "; DynPerTask, DynPerBoT and Static hardly queue, so their NSL spreads come from the runtime draws and differ by where the tasks land"
            } else {
                ""
            }
        )));
    }
}

fn box_cells(b: &BoxStats) -> [Cell; 6] {
    [
        Cell::Num(b.min),
        Cell::Num(b.q1),
        Cell::Num(b.median),
        Cell::Num(b.mean),
        Cell::Num(b.q3),
        Cell::Num(b.max),
    ]
}

fn nsl_boxes(rows: &[Row], out: &mut Sections) {
    let mut boxes = Table::new(
        "fig5-7-nsl-boxes",
        "Figs. 5-7: NSL box statistics per strategy and kappa (ours, seed 0)",
        &[
            "Strategy", "kappa", "min", "Q1", "median", "mean", "Q3", "max",
        ],
    );
    for (p, r) in rows.iter().filter(|(p, _)| p.exp == "t3" && p.seed == 0) {
        let mut row = vec![Cell::Text(p.strategy.label().into()), Cell::Num(p.kappa)];
        row.extend(box_cells(&r.nsl));
        boxes.push(row);
    }
    out.tables.push(boxes);
}

/// Column names of [`run_cells`].
const RUN_COLUMNS: [&str; 6] = [
    "C_d",
    "C_s",
    "CPU-hours",
    "NSL median",
    "time-avg kappa",
    "waited BoTs",
];

/// C_d, C_s, CPU-hours, NSL median, time-averaged κ and waited BoTs of one run.
fn run_cells(r: &CellResult) -> [Cell; 6] {
    [
        Cell::Num(r.c_d),
        Cell::Num(r.c_s),
        Cell::Num(r.cpu_hours.round()),
        Cell::Num(r.nsl.median),
        Cell::Num(r.kappa_time_avg),
        Cell::Int(r.waited_bots as i64),
    ]
}

fn load_sweep(rows: &[Row], out: &mut Sections) {
    let mut e8 = Table::new(
        "e8-load-sweep",
        "Load sweep at kappa 2 (NO at kappa 1), DynPerTask",
        &[&["load", "Strategy"][..], &RUN_COLUMNS].concat(),
    );
    for (p, r) in rows.iter().filter(|(p, _)| p.exp == "e8") {
        let mut row = vec![Cell::Num(p.load), Cell::Text(p.strategy.label().into())];
        row.extend(run_cells(r));
        e8.push(row);
    }
    out.tables.push(e8);
}

fn period_sweep(rows: &[Row], out: &mut Sections) {
    let mut t = Table::new(
        "dynamic-period",
        "Dynamic at kappa 2: monitoring period sweep (ours, the period is not stated in Yigitbasi & Epema 2010, Sec. III; seed 0)",
        &[&["period (s)"][..], &RUN_COLUMNS].concat(),
    );
    for period in MONITOR_PERIODS_S {
        if let Some((_, r)) = rows
            .iter()
            .find(|(p, _)| p.exp == "period" && p.period_s == Some(period))
        {
            let mut row = vec![Cell::Num(period)];
            row.extend(run_cells(r));
            t.push(row);
        }
    }
    out.tables.push(t);
}

fn background_sensitivity(rows: &[Row], out: &mut Sections) {
    let mut cols = vec!["background".to_string()];
    for (s, k) in BACKGROUND_CONFIGS {
        for m in ["C_d", "C_s", "waited"] {
            cols.push(format!("{} k={k:.1} {m}", s.label()));
        }
    }
    let mut t = table_with(
        "background-sensitivity",
        "Sensitivity to the synthetic background (not the paper's setup): C_d, C_s and BoTs that waited, mean over seeds".into(),
        &cols,
    );
    for (u, procs) in BACKGROUND_VARIANTS {
        let mut row = vec![Cell::Text(format!(
            "{:.0} %, {procs}-processor jobs",
            u * 100.0
        ))];
        for (s, k) in BACKGROUND_CONFIGS {
            let sel: Vec<&Row> = select(rows, "bgs", s, k)
                .filter(|(p, _)| p.background_variant == Some((u, procs)))
                .collect();
            row.push(Cell::Num(mean_over(&sel, |r| r.c_d)));
            row.push(Cell::Num(mean_over(&sel, |r| r.c_s)));
            row.push(Cell::Num(mean_over(&sel, |r| r.waited_bots as f64)));
        }
        t.push(row);
    }
    out.tables.push(t);
}

/// Table III's C_d of All (NO at κ = 1) under every reading of the paper's ambiguities
/// ([`Variant`]), seed 0, with the realised load and the BoTs that waited on the initial
/// system.
fn variant_sensitivity(rows: &[Row], out: &mut Sections) {
    let mut cols = vec![
        "variant".to_string(),
        "background".into(),
        "realised load".into(),
        "waited (NO)".into(),
    ];
    cols.extend(VARIANT_KAPPAS.iter().map(|k| format!("C_d k={k:.1}")));
    let mut t = table_with(
        "table3-variants",
        "Table III's C_d of All (NO at kappa 1) under each reading of the paper (seed 0); the paper: 29.59, 15.13, 4.72, 2.64, 2.62".into(),
        &cols,
    );
    for v in Variant::ALL {
        let exp = if v == Variant::Spec { "t3" } else { "var" };
        let cell = |k: f64| {
            rows.iter().find(|(p, _)| {
                p.exp == exp
                    && p.seed == 0
                    && p.variant == v
                    && if k == 1.0 {
                        p.strategy == StrategyKind::None
                    } else {
                        p.strategy == StrategyKind::All && (p.kappa - k).abs() < 1e-9
                    }
            })
        };
        let Some((p, no)) = cell(1.0) else { continue };
        let mut row = vec![
            Cell::Text(v.label().into()),
            Cell::Text(CellBackground::of(p).label()),
            Cell::Num(no.realised_load),
            Cell::Int(no.waited_bots as i64),
        ];
        row.extend(
            VARIANT_KAPPAS
                .iter()
                .map(|&k| cell(k).map_or(Cell::Empty, |(_, r)| Cell::Num(r.c_d))),
        );
        t.push(row);
    }
    out.tables.push(t);
}

/// Table VI (§VII: no background) under every reading of Table VI's ambiguities
/// ([`Variant::TABLE6`]) beside the spec readings, seed 0, and on the background trace when one
/// is given; the paper's row last.
fn table6_variants(rows: &[Row], out: &mut Sections) {
    let mut cols = vec![
        "variant".to_string(),
        "background".into(),
        "offered load".into(),
        "realised load".into(),
        "waited (NO)".into(),
        "mean makespan NO (min)".into(),
    ];
    for &(rel, target, ..) in &TABLE6_PUBLISHED {
        for m in ["w/o", "w", "improvement %"] {
            cols.push(format!("[{rel:.0}m-{target:.0}m] {m}"));
        }
    }
    let mut t = table_with(
        "table6-variants",
        "Table VI under each reading of the paper (seed 0, arrivals at Table II's mean inter-arrival time of 124.6 s unless the reading says otherwise): BoTs with makespan < TargetMakespan without and with the controller".into(),
        &cols,
    );
    let seed0 = |exp: &'static str| move |(p, _): &&Row| p.exp == exp && p.seed == 0;
    let spec = rows.iter().filter(seed0("t6"));
    let others = rows.iter().filter(seed0("t6var"));
    let mut readings: Vec<Vec<&Row>> = vec![spec.collect()];
    for v in Variant::TABLE6 {
        readings.push(
            others
                .clone()
                .filter(|(p, _)| p.variant == v && !p.background)
                .collect(),
        );
    }
    readings.push(others.filter(|(p, _)| p.background).collect());
    for sel in readings {
        let Some((p, no)) = sel.iter().find(|(p, _)| p.strategy == StrategyKind::None) else {
            continue;
        };
        let total = no.bots;
        let mut row = vec![
            Cell::Text(p.variant.label().into()),
            Cell::Text(CellBackground::of(p).label()),
            Cell::Num(no.load),
            Cell::Num(no.realised_load),
            Cell::Int(no.waited_bots as i64),
            Cell::Num(no.mean_makespan_s / 60.0),
        ];
        for (i, &(rel, target, ..)) in TABLE6_PUBLISHED.iter().enumerate() {
            let met = |r: &CellResult| r.meeting.get(i).copied().unwrap_or(0);
            let with = sel
                .iter()
                .find(|(q, _)| q.controller_min == Some((target, rel)));
            let wo = met(no);
            match with {
                Some((_, w)) => row.extend([
                    Cell::Int(wo as i64),
                    Cell::Int(met(w) as i64),
                    Cell::Int(improvement_pct_truncated(met(w), wo, total)),
                ]),
                None => row.extend([Cell::Int(wo as i64), Cell::Empty, Cell::Empty]),
            }
        }
        t.push(row);
    }
    let mut paper = vec![
        Cell::Text(format!("paper (§VII, {} BoTs)", super::TABLE6_BOTS)),
        Cell::Text("none".into()),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Num(TABLE6_INITIAL_MEAN_MAKESPAN_MIN),
    ];
    for &(_, _, wo, w, imp) in &TABLE6_PUBLISHED {
        paper.extend([Cell::Int(wo as i64), Cell::Int(w as i64), Cell::Int(imp)]);
    }
    t.push(paper);
    out.tables.push(t);
}

/// The background of §VI's experiments in this run (that of the Table III cells).
fn section6_background(rows: &[Row]) -> CellBackground {
    rows.iter()
        .find(|(p, _)| p.exp == "t3")
        .map_or(CellBackground::None, |(p, _)| CellBackground::of(p))
}

/// Names the background in the title of every table without a background column: §VII's
/// Table VI runs none, the others §VI's ([`section6_background`]); published tables are the
/// paper's.
fn label_backgrounds(rows: &[Row], tables: &mut [Table]) {
    let six = section6_background(rows).label();
    for t in tables {
        if t.id.ends_with("-published") || t.columns.iter().any(|c| c == "background") {
            continue;
        }
        let bg = if t.id.starts_with("table6") {
            "none (§VII)"
        } else {
            six.as_str()
        };
        t.title = format!("{} [background: {bg}]", t.title);
    }
}

/// Dynamic's time-averaged κ lies in its band (§V-B: within ±10 % of the specified κ).
fn dynamic_band(rows: &[Row], out: &mut Sections) {
    let mut in_band = true;
    let mut detail = Vec::new();
    for k in KAPPAS {
        if let Some(avg) = mean_of(t3(rows, StrategyKind::Dynamic, k), |r| r.kappa_time_avg) {
            in_band &= avg >= 0.9 * k - 1e-9 && avg <= 1.1 * k + 1e-9;
            detail.push(format!("k={k}: {avg:.3}"));
        }
    }
    if !detail.is_empty() {
        out.checks.push(
            Check::claim(
                "dynamic/kappa-band",
                "Dynamic keeps the time-averaged kappa within ±10 % of the target",
                in_band,
                detail.join(", "),
            )
            .with_reason_if_differs(format!(
                "time averages over horizons of {} hours, started at the target (§V-B)",
                KAPPAS
                    .iter()
                    .filter_map(|&k| mean_of(t3(rows, StrategyKind::Dynamic, k), |r| r.horizon_h))
                    .map(|h| format!("{h:.2}"))
                    .collect::<Vec<_>>()
                    .join("/")
            )),
        );
    }
}

fn workload_notes(cfg: &RunConfig, rows: &[Row], seeds: usize, out: &mut Sections) {
    let t3_rows = || rows.iter().filter(|(p, _)| p.exp == "t3");
    let max_rt = t3_rows().map(|(_, r)| r.max_runtime_s).fold(0.0, f64::max);
    let mean_rt = mean_of(t3_rows(), |r| r.mean_runtime_s).unwrap_or(f64::NAN);
    let span = mean_of(t3_rows(), |r| r.span_days).unwrap_or(f64::NAN);
    let background = match section6_background(rows) {
        CellBackground::File(name) => {
            let read = t3_rows().find_map(|(_, r)| r.background_trace.as_ref());
            format!(
                "the trace {name} (first job at t = 0, sites modulo the 5 clusters; {} jobs read, lines skipped per reason {:?})",
                read.map_or(0, |t| t.jobs),
                read.map_or(&[][..], |t| &t.skipped[..])
            )
        }
        _ => "synthetic (defaults read from Yigitbasi & Epema 2010, Sec. V: 15 % per cluster, single-processor jobs, exponential 1 h runtimes; the DAS-3 June 2008 GWA trace is not available)".into(),
    };
    out.notes.push(format!(
        "Workload: Iosup et al. BoT model (Table II; shape-first Weibulls, log2 runtime std dev 6.1, per-task runtimes, size max(1, round(2^X))), arrivals at Table II's mean inter-arrival time of 124.6 s (Yigitbasi & Epema 2010, Table II; the load is measured, table workload-facts; the 80 % realised-load and offered-load readings are the table3-variants rows 'realised load 80 %' and 'offered load 80 %'); runtime cap {:.4e} s, set so that the expected task runtime is Table II's 7859.7 s (sample means {mean_rt:.0} s, largest task {max_rt:.3e} s, mean span {span:.2} days). Background: {background}. {} scale, seed {}, {seeds} seed(s) per Table III/IV/VI cell. See docs/decisions.md, Yigitbasi & Epema 2010: the experiment workload.",
        super::experiment_model().max_runtime_s.unwrap_or(f64::INFINITY),
        cfg.scale.name(),
        cfg.seed
    ));
    let busy = mean_of(select(rows, "t3", StrategyKind::None, 1.0), |r| {
        r.busy_fraction
    })
    .unwrap_or(f64::NAN);
    let waited_over = |pred: fn(f64) -> bool| {
        mean_of(t3_rows().filter(|(p, _)| pred(p.kappa)), |r| {
            r.waited_bots as f64
        })
        .unwrap_or(f64::NAN)
    };
    let no = || select(rows, "t3", StrategyKind::None, 1.0);
    out.notes.push(format!(
        "Realised load: on the initial system BoT tasks keep {:.1} % of the 544 processors busy from first to last arrival (the paper's level 80 %, offered load {:.2} of 591.8 reference processors), all work {:.1} %. BoTs with a task that waited in a local queue, mean per Table III run: {:.2} at kappa 1, {:.2} at kappa >= 1.5. The paper's Table IV implies a grid busy time of 19-22k CPU-hours for Dynamic, 51-59 % of 544 × 69.4 h.",
        100.0 * mean_of(no(), |r| r.realised_load).unwrap_or(f64::NAN),
        mean_of(no(), |r| r.load).unwrap_or(f64::NAN),
        100.0 * busy,
        waited_over(|k| k <= 1.0),
        waited_over(|k| k > 1.0),
    ));
    // Where congestion could come from: the initial system on the default workload, and on
    // each synthetic background of the sensitivity table (means over seeds).
    let bgs: Vec<String> = super::BACKGROUND_VARIANTS
        .iter()
        .filter_map(|&(u, procs)| {
            let sel: Vec<&Row> = select(rows, "bgs", StrategyKind::None, 1.0)
                .filter(|(p, _)| p.background_variant == Some((u, procs)))
                .collect();
            (!sel.is_empty()).then(|| {
                format!(
                    "{:.0} % of {procs}-processor jobs: {:.1} BoTs waited, C_d {:.2}",
                    u * 100.0,
                    mean_over(&sel, |r| r.waited_bots as f64),
                    mean_over(&sel, |r| r.c_d)
                )
            })
        })
        .collect();
    if !bgs.is_empty() {
        let waited = mean_of(no(), |r| r.waited_bots as f64).unwrap_or(f64::NAN);
        let conclusion = if waited == 0.0 {
            "so queueing in §VI can only come from the background"
        } else {
            "so the BoTs alone already queue on it"
        };
        out.notes.push(format!(
            "Congestion: on the default workload {waited:.1} of {:.0} BoTs waited in a local queue on the initial system (realised BoT load {:.3}), {conclusion}; the DAS-3 June 2008 trace of §V-A is not available, and on the synthetic backgrounds of the sensitivity table the initial system has {} (Yigitbasi & Epema 2010, §V-A, Table III).",
            mean_of(no(), |r| r.bots as f64).unwrap_or(f64::NAN),
            mean_of(no(), |r| r.realised_load).unwrap_or(f64::NAN),
            bgs.join("; ")
        ));
    }
    out.notes.push("Costs use the BusyGridPlusCloudLeases model (our reading of Yigitbasi & Epema 2010, Sec. VI, where static and dynamic costs are counted differently): static = provisioned processors × T with T = first to last BoT arrival; Dynamic = busy grid processor-hours + ceiled cloud lease hours within T.".into());
}

#[cfg(test)]
mod tests {
    use super::super::{plan_cells, Plan};
    use super::*;
    use slarm_report::{CellOutput, CellSpec, ExperimentError, Scale};

    /// A small GWF background trace written for the test (no real data): `n` jobs of 4
    /// processors and 2 h, one a minute in Unix time from 2008-06-01, round-robin over the
    /// DAS-3 clusters `fs0`-`fs4`, then one line of an unknown site (`-1`).
    fn gwf_fixture(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
        let tail = "UNITARY -1 -1 -1 -1 linux -1 -1 -1 vo1 -1";
        let mut text = String::from("# small GWF fixture\n");
        for i in 0..n {
            text.push_str(&format!(
                "{} {} 0 7200 4 -1 -1 4 7200 -1 1 1 1 1 1 -1 fs{} -1 {tail}\n",
                i + 1,
                1_212_278_400 + 60 * i,
                i % 5
            ));
        }
        text.push_str(&format!(
            "{} 1212278400 0 60 1 -1 -1 1 60 -1 1 1 1 1 1 -1 -1 -1 {tail}\n",
            n + 1
        ));
        let path = dir.join("das3-small.gwf");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_background_trace_replaces_the_synthetic_background_of_section_six_only() {
        let dir = tempfile::tempdir().unwrap();
        let synthetic = RunConfig {
            scale: Scale::Quick,
            seed: 7,
            traces: None,
            background: None,
        };
        let on_trace = RunConfig {
            background: Some(gwf_fixture(dir.path(), 300)),
            ..synthetic.clone()
        };
        let plan = Plan {
            seeds: 1,
            bots: 120,
            controller_bots: 200,
            sweep_loads: &[0.8],
            probe_submissions: 20,
        };
        let exp = Yigitbasi2010;
        let plain = exp.cells(&synthetic).unwrap();
        let cells = exp.cells(&on_trace).unwrap();
        let plain_ids: Vec<&str> = plain.iter().map(|c| c.id.as_str()).collect();
        let ids: Vec<&str> = cells.iter().map(|c| c.id.as_str()).collect();
        assert!(!plain_ids.iter().any(|id| id.starts_with("t6var-bgfile")));
        assert!(ids.contains(&"t6var-bgfile-feedback2-s0"));
        assert!(plain_ids.iter().all(|id| ids.contains(id)));
        let cells = plan_cells(&plan, Some("das3-small.gwf"));
        let plain = plan_cells(&plan, None);
        let find = |cs: &[CellSpec], id: &str| cs.iter().find(|c| c.id == id).unwrap().clone();
        let wanted = [
            "t3-none-k10-s0",
            "t3-all-k15-s0",
            "t6-none-s0",
            "bgs-u30-p1-none-k10-s0",
            "t6var-bgfile-none-s0",
            "t6var-bgfile-feedback0-s0",
            "t6var-nodes-none-s0",
        ];
        let outputs: Vec<CellOutput> = wanted
            .iter()
            .map(|id| {
                let cell = find(&cells, id);
                let result = exp.run_cell(&on_trace, &cell).unwrap();
                CellOutput { cell, result }
            })
            .collect();
        // §VI's cells read the file: 300 jobs, the unknown site skipped and counted.
        let t3 = &outputs[0].result;
        assert_eq!(t3["background_trace"]["jobs"], 300, "{t3}");
        assert_eq!(
            t3["background_trace"]["skipped"],
            serde_json::json!([["unknown_site", 1]])
        );
        let t3_synthetic = exp
            .run_cell(&synthetic, &find(&plain, "t3-none-k10-s0"))
            .unwrap();
        assert!(t3_synthetic.get("background_trace").is_none());
        assert_ne!(
            t3["busy_share_background"], t3_synthetic["busy_share_background"],
            "the trace replaces the synthetic background"
        );
        // §VII and the synthetic sensitivity do not: same cells, same results as without it.
        for id in ["t6-none-s0", "bgs-u30-p1-none-k10-s0"] {
            let k = wanted.iter().position(|w| *w == id).unwrap();
            assert_eq!(outputs[k].cell, find(&plain, id));
            assert_eq!(
                outputs[k].result,
                exp.run_cell(&synthetic, &find(&plain, id)).unwrap()
            );
        }
        // A cell on a trace without a trace in the run is an error, not a silent synthetic.
        assert!(matches!(
            exp.run_cell(&synthetic, &find(&cells, "t3-none-k10-s0")),
            Err(ExperimentError::Trace { .. })
        ));
        // Every table names its background.
        let report = exp.assemble(&on_trace, &outputs).unwrap();
        let title = |id: &str| {
            report
                .tables
                .iter()
                .find(|t| t.id == id)
                .map(|t| t.title.clone())
                .unwrap_or_else(|| panic!("{id} missing"))
        };
        assert!(title("table3").ends_with("[background: trace das3-small.gwf]"));
        assert!(title("table6").ends_with("[background: none (§VII)]"));
        let t6v = report
            .tables
            .iter()
            .find(|t| t.id == "table6-variants")
            .unwrap();
        let backgrounds: Vec<&str> = t6v
            .rows
            .iter()
            .map(|r| match &r[1] {
                Cell::Text(t) => t.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(
            backgrounds,
            ["none", "none", "trace das3-small.gwf", "none"],
            "spec, nodes, the trace, the paper"
        );
        assert!(report
            .notes
            .iter()
            .any(|n| n.contains("300 jobs read") && n.contains("UnknownSite")));
    }

    #[test]
    fn quick_plan_runs_and_assembles_on_a_reduced_config() {
        // A reduced plan (few BoTs) so the full cells -> run_cell -> assemble path is covered.
        let cfg = RunConfig {
            scale: Scale::Quick,
            seed: 7,
            traces: None,
            background: None,
        };
        let plan = Plan {
            seeds: 2,
            bots: 120,
            controller_bots: 200,
            sweep_loads: &[0.8],
            probe_submissions: 20,
        };
        let cells = plan_cells(&plan, None);
        let ids: std::collections::BTreeSet<&str> = cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), cells.len(), "cell ids are unique");
        assert!(cells.iter().all(|c| c
            .id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch))));
        let exp = Yigitbasi2010;
        let outputs: Vec<CellOutput> = cells
            .iter()
            .map(|c| CellOutput {
                cell: c.clone(),
                result: exp.run_cell(&cfg, c).unwrap(),
            })
            .collect();
        // Determinism: a cell is a pure function of (cfg, cell).
        assert_eq!(exp.run_cell(&cfg, &cells[9]).unwrap(), outputs[9].result);
        let report = exp.assemble(&cfg, &outputs).unwrap();
        let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
        for want in [
            "table3",
            "table3-published",
            "table3-ci95",
            "table3-waited",
            "table4",
            "table6",
            "table6-calibrated",
            "e2-policies",
            "dynamic-period",
            "background-sensitivity",
            "fig1-probe",
            "fig2-background-utilisation",
        ] {
            assert!(ids.contains(&want), "{want} missing from {ids:?}");
        }
        for want in [
            "table3/dynamic-lowest",
            "table4/static-linear",
            "table6/improvement-large",
            "table6-calibrated/improvement-large",
            "table6-calibrated/initial-mean-makespan",
            "fig1/max-min-ratio",
            "fig1/large-variation",
            "fig1/mostly-stable",
            "fig2/overall/mean-utilisation",
            "fig2/leiden/mean-utilisation",
        ] {
            assert!(report.checks.iter().any(|c| c.id == want), "{want} missing");
        }
        let figures: Vec<&str> = report.figures.iter().map(|f| f.id.as_str()).collect();
        assert!(figures.contains(&"fig1-probe-makespan"), "{figures:?}");
        assert!(
            figures.contains(&"fig2-background-utilisation"),
            "{figures:?}"
        );
        // The Fig. 1 and Fig. 2 checks always explain a difference (at 120 BoTs some older ones, e.g.
        // fig3/ect-worst, may differ without a reason: their reasons target the real scales).
        let unexplained: Vec<&str> = report
            .unexplained_checks()
            .iter()
            .map(|c| c.id.as_str())
            .filter(|id| id.starts_with("fig1/") || id.starts_with("fig2/"))
            .collect();
        assert!(unexplained.is_empty(), "{unexplained:?}");
        // Static cost is exactly linear in kappa by construction.
        let lin = report
            .checks
            .iter()
            .find(|c| c.id == "table4/static-linear")
            .unwrap();
        assert_eq!(lin.verdict, slarm_report::Verdict::Match);
        // The same workload is shared by all strategies of a seed: equal task counts.
        for seed in 0..2 {
            let tasks: Vec<u64> = outputs
                .iter()
                .filter(|o| {
                    o.cell.id.starts_with("t3-") && o.cell.id.ends_with(&format!("-s{seed}"))
                })
                .map(|o| o.result["tasks"].as_u64().unwrap())
                .collect();
            assert!(tasks.windows(2).all(|w| w[0] == w[1]));
        }
        // Every t6cal cell of a seed runs at the same calibrated load, whose initial system
        // has a mean makespan of 3120 min unless the search hit a bound.
        let cal: Vec<(f64, f64, String)> = outputs
            .iter()
            .filter(|o| o.cell.id.starts_with("t6cal-") && o.cell.id.ends_with("-s0"))
            .map(|o| {
                (
                    o.result["load"].as_f64().unwrap(),
                    o.result["mean_makespan_s"].as_f64().unwrap(),
                    o.cell.id.clone(),
                )
            })
            .collect();
        assert_eq!(cal.len(), 4);
        assert!(cal.iter().all(|c| c.0 == cal[0].0));
        let (load, ms, _) = cal.iter().find(|c| c.2.contains("none")).unwrap();
        let at_bound = (*load - super::super::PAPER_LOAD).abs() < 1e-12
            || (*load - super::super::MAX_CALIBRATED_LOAD).abs() < 1e-9;
        assert!(
            at_bound || (ms / 60.0 / 3120.0 - 1.0).abs() < 0.05,
            "{load} {ms}"
        );
    }
}
