//! Our experiments for `slarm reproduce yigitbasi2010`, covering the figures and tables
//! of the paper (§II, §V–§VII) and the load sweep that §V-A mentions: the Fig. 1 probe BoTs
//! ([`probe`]), the Fig. 2 background utilisation ([`background`]), Fig. 3/4 policy
//! comparisons, Table III (C_d, C_s), Table IV (CPU-hours), Table VI (feedback controller;
//! §VII does not state the load of its workload, so we run it at Table II's mean
//! inter-arrival time, as §VI, and with the load calibrated so that the initial system's mean
//! makespan is §VII's 3120 min), the load sweep,
//! the monitoring-period sweep and a background-load sensitivity, with the published values
//! beside ours and the orderings stated in §VI and §VII as claims ([`report`]).
//!
//! Workload of every cell (docs/decisions.md, Yigitbasi & Epema 2010: the experiment workload): the Iosup
//! model with our readings of Table II (§V-A) and a runtime cap of our own (the paper has
//! none) set so that the expected task runtime equals Table II's reported average (7859.7 s);
//! our synthetic background, standing in for the DAS-3 June 2008 trace of §V-A, with its
//! defaults (single-processor jobs, 15 % per cluster), or, when the run has one
//! ([`RunConfig::background`]), a background trace file under §VI's cells ([`CellBackground`]).
//! Every table names its background.
//!
//! Every strategy of one seed runs on the same workload (the paper reruns "the same
//! workload"): the workload streams are keyed by seed, load, size and background only.

pub mod background;
pub mod probe;
pub mod report;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use slarm_report::{
    CellOutput, CellSpec, Experiment, ExperimentError, PaperReport, RunConfig, Scale,
};
use slarm_stats::RngStreams;

use slarm_grid::metrics::{bots_meeting, ecdf, BoxStats};
use slarm_grid::platform::{Das3Unit, Platform};
use slarm_grid::provision::StrategyKind;
use slarm_grid::run::{
    load_level, run_at_level, BackgroundSpec, LoadDefinition, LoadLevel, Scenario, ScenarioResult,
};
use slarm_grid::sched::BotPolicy;
use slarm_grid::workload::{read_background_file, BackgroundSkip, BackgroundTrace, SiteMapping};
use slarm_grid::workload::{IosupBotModel, SyntheticBackground};
use slarm_grid::workload::{RuntimeSharing, RuntimeSpread};

pub use report::assemble_rows;

const PAPER: &str = "yigitbasi2010";

/// The κ values of Tables III and IV (beyond NO).
pub const KAPPAS: [f64; 4] = [1.5, 2.0, 2.5, 3.0];

/// Strategies of Table III in the paper's row order.
pub const TABLE3_STRATEGIES: [StrategyKind; 4] = [
    StrategyKind::All,
    StrategyKind::Largest,
    StrategyKind::Number,
    StrategyKind::Dynamic,
];

/// Table III as published: (C_d, C_s) per strategy row and κ = 1, 1.5, 2, 2.5, 3.
pub const TABLE3_PUBLISHED: [[(f64, f64); 5]; 4] = [
    [
        (29.59, 12.05),
        (15.13, 10.54),
        (4.72, 9.33),
        (2.64, 7.36),
        (2.62, 5.38),
    ],
    [
        (29.59, 12.05),
        (16.88, 11.57),
        (3.67, 9.27),
        (2.63, 7.38),
        (2.63, 5.58),
    ],
    [
        (29.59, 12.05),
        (17.71, 10.61),
        (3.75, 9.12),
        (2.70, 6.90),
        (2.42, 5.67),
    ],
    [
        (29.59, 12.05),
        (14.65, 10.27),
        (3.50, 8.64),
        (2.42, 6.36),
        (2.10, 4.60),
    ],
];

/// Table IV as published: (κ, All, Dynamic, reduction %).
pub const TABLE4_PUBLISHED: [(f64, f64, f64, f64); 4] = [
    (1.5, 56655.0, 32446.0, 42.7),
    (2.0, 75540.0, 49427.0, 34.5),
    (2.5, 94425.0, 69572.0, 26.3),
    (3.0, 113310.0, 85484.0, 24.5),
];

/// Table VI as published: (release min, target min, without, with, improvement %).
pub const TABLE6_PUBLISHED: [(f64, f64, usize, usize, i64); 3] = [
    (250.0, 300.0, 4732, 26849, 67),
    (700.0, 750.0, 5900, 21870, 48),
    (1000.0, 1250.0, 6959, 20219, 40),
];

/// Total BoTs of the §VII workload.
pub const TABLE6_BOTS: usize = 32_860;

/// Mean BoT makespan of the paper's §VII initial system, minutes (the calibration target of
/// the `t6cal` variant: §VII does not state the load of its workload, so we calibrate the load
/// to this makespan).
pub const TABLE6_INITIAL_MEAN_MAKESPAN_MIN: f64 = 3120.0;

/// Span of the paper's §VII workload, days ("approximately one and a half month", §VII).
pub const TABLE6_SPAN_DAYS: f64 = 45.0;

/// Load of the §VI workloads (§V-A: 80 % "of the initial system"), realised on the initial
/// system unless a variant says otherwise, and of the literal §VII variant (our reading:
/// §VII does not state the load of its workload).
pub const PAPER_LOAD: f64 = 0.8;

/// A reading of the paper where it is ambiguous; every cell runs under one, and the report
/// labels the tables that are not under [`Variant::Spec`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The readings of the paper's stated inputs: arrivals at Table II's mean inter-arrival
    /// time of 124.6 s (the load measured), 544 processors, Table II's runtime spread as a
    /// standard deviation, runtimes per task, synthetic background (§V-A, §VI).
    #[default]
    Spec,
    /// The load level as offered work over the arrival span.
    OfferedLoad,
    /// The arrival scale searched until the initial system's processors are busy with BoT
    /// tasks 80 % of the time between the first and the last arrival.
    RealisedLoad,
    /// Table II's runtime spread 6.1 read as the variance it is printed as.
    SpreadVariance,
    /// DAS-3 scheduled per dual-processor node (272 units).
    Nodes,
    /// One runtime shared by all tasks of a BoT.
    SharedPerBot,
    /// No background load.
    NoBackground,
}

impl Variant {
    /// Every variant, [`Variant::Spec`] first.
    pub const ALL: [Variant; 7] = [
        Variant::Spec,
        Variant::OfferedLoad,
        Variant::RealisedLoad,
        Variant::SpreadVariance,
        Variant::Nodes,
        Variant::SharedPerBot,
        Variant::NoBackground,
    ];

    /// Label in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::Spec => {
                "stated inputs (mean inter-arrival 124.6 s, 544 processors, sd 6.1, per-task runtimes)"
            }
            Self::OfferedLoad => "offered load 80 % (work over the arrival span)",
            Self::RealisedLoad => "realised load 80 % (arrival scale searched on the initial system)",
            Self::SpreadVariance => "runtime spread 6.1 as variance",
            Self::Nodes => "272 dual-processor nodes, a task per node",
            Self::SharedPerBot => "runtimes shared per BoT",
            Self::NoBackground => "no background",
        }
    }

    /// The readings of Table VI's sensitivity table besides [`Variant::Spec`] (§VII runs
    /// without background, so [`Variant::NoBackground`] is its own setting).
    pub const TABLE6: [Variant; 4] = [
        Variant::OfferedLoad,
        Variant::SpreadVariance,
        Variant::Nodes,
        Variant::SharedPerBot,
    ];

    /// The DAS-3 scheduling unit of this reading.
    fn das3_unit(self) -> Das3Unit {
        match self {
            Self::Nodes => Das3Unit::Node,
            _ => Das3Unit::Processor,
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::OfferedLoad => "offered",
            Self::RealisedLoad => "realised",
            Self::SpreadVariance => "variance",
            Self::Nodes => "nodes",
            Self::SharedPerBot => "shared",
            Self::NoBackground => "nobg",
        }
    }
}

/// κ columns of the variant sensitivity table (Table III's C_d of All, NO at κ = 1).
pub const VARIANT_KAPPAS: [f64; 5] = [1.0, 1.5, 2.0, 2.5, 3.0];

/// Upper end of the load search of the `t6cal` calibration (offered load 1000 %, the generator's limit): short
/// workloads need a high offered load before their heavy-tailed work queues.
pub const MAX_CALIBRATED_LOAD: f64 = 10.0;

/// Synthetic backgrounds `(utilisation, processors per job)` of the sensitivity table.
pub const BACKGROUND_VARIANTS: [(f64, u64); 4] = [(0.30, 1), (0.60, 1), (0.30, 8), (0.60, 8)];

/// Configurations `(strategy, κ)` of the background sensitivity table.
pub const BACKGROUND_CONFIGS: [(StrategyKind, f64); 5] = [
    (StrategyKind::None, 1.0),
    (StrategyKind::All, 1.5),
    (StrategyKind::Dynamic, 1.5),
    (StrategyKind::All, 2.5),
    (StrategyKind::Dynamic, 2.5),
];

/// Monitoring periods of the Dynamic strategy swept at κ = 2 (our choice: the paper does not
/// give the monitoring period, §III, §V-B).
pub const MONITOR_PERIODS_S: [f64; 4] = [30.0, 60.0, 300.0, 600.0];

/// The BoT model of every experiment cell: our readings of Table II, runtime cap such that
/// the expected task runtime is Table II's 7859.7 s (≈ 1.745e6 s).
pub fn experiment_model() -> IosupBotModel {
    slarm_grid::run::paper_model()
}

/// The synthetic background of the experiments, our stand-in for the DAS-3 June 2008 trace of
/// §V-A: the generator with its defaults (15 % per cluster, single-processor jobs,
/// exponential 1 h runtimes).
pub fn experiment_background() -> SyntheticBackground {
    SyntheticBackground::default()
}

/// The experiment of `slarm reproduce yigitbasi2010`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Yigitbasi2010;

/// Sizes of one run of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    /// Seeds of Tables III/IV and VI and of the background sensitivity.
    pub seeds: usize,
    /// BoTs of the §VI workloads.
    pub bots: usize,
    /// BoTs of the §VII controller workload.
    pub controller_bots: usize,
    /// Load levels of the load sweep.
    pub sweep_loads: &'static [f64],
    /// Submissions of the Fig. 1 probe BoT (one every 15 minutes).
    pub probe_submissions: usize,
}

impl Plan {
    /// The plan of a scale.
    pub fn of(scale: Scale) -> Self {
        match scale {
            Scale::Quick => Self {
                seeds: 1,
                bots: 1650,
                controller_bots: 6000,
                sweep_loads: &[0.4, 0.8],
                probe_submissions: 160,
            },
            Scale::Paper => Self {
                seeds: 5,
                bots: 1650,
                controller_bots: TABLE6_BOTS,
                sweep_loads: &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
                probe_submissions: 7 * 96,
            },
        }
    }
}

/// One cell's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellParams {
    /// Experiment id: `e2`, `e3`, `t3`, `t6`, `t6cal`, `e8`, `period`, `bgs`.
    pub exp: String,
    /// Strategy.
    pub strategy: StrategyKind,
    /// κ.
    pub kappa: f64,
    /// Policy.
    pub policy: BotPolicy,
    /// Offered load (`t6cal`: ignored, calibrated).
    pub load: f64,
    /// Seed index.
    pub seed: usize,
    /// BoTs.
    pub bots: usize,
    /// Background on.
    pub background: bool,
    /// Synthetic background `(utilisation, processors)` replacing the default one.
    #[serde(default)]
    pub background_variant: Option<(f64, u64)>,
    /// Dynamic monitoring period, seconds (default 60).
    #[serde(default)]
    pub period_s: Option<f64>,
    /// Controller (target, release) in minutes, if any.
    pub controller_min: Option<(f64, f64)>,
    /// Reading of the paper's ambiguities.
    #[serde(default)]
    pub variant: Variant,
    /// File name of the background trace (`slarm reproduce --background`) that replaces the
    /// default synthetic background of this cell; the file is the run's
    /// ([`RunConfig::background`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_file: Option<String>,
}

/// The background a cell runs on top of: one decision for the scenario and its label.
#[derive(Debug, Clone, PartialEq)]
pub enum CellBackground {
    /// None (§VII, and the no-background reading).
    None,
    /// The synthetic generator (our stand-in for §V-A's DAS-3 trace).
    Synthetic(SyntheticBackground),
    /// The run's background trace file, by file name.
    File(String),
}

impl CellBackground {
    /// The background of a cell's parameters.
    pub fn of(p: &CellParams) -> Self {
        if !p.background || p.variant == Variant::NoBackground {
            return Self::None;
        }
        match (&p.background_file, p.background_variant) {
            (_, Some((utilisation, procs))) => Self::Synthetic(SyntheticBackground {
                utilisation,
                procs,
                ..experiment_background()
            }),
            (Some(file), None) => Self::File(file.clone()),
            (None, None) => Self::Synthetic(experiment_background()),
        }
    }

    /// Label in tables: `none`, `synthetic (15 %, 1-processor jobs)` or `trace FILE`.
    pub fn label(&self) -> String {
        match self {
            Self::None => "none".into(),
            Self::Synthetic(b) => format!(
                "synthetic ({:.0} %, {}-processor jobs)",
                b.utilisation * 100.0,
                b.procs
            ),
            Self::File(name) => format!("trace {name}"),
        }
    }
}

/// How a background trace file was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceUse {
    /// Jobs read.
    pub jobs: usize,
    /// Lines skipped, per reason.
    pub skipped: Vec<(BackgroundSkip, usize)>,
}

/// What a cell returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// C_d (all size groups).
    pub c_d: f64,
    /// C_s (all size groups).
    pub c_s: f64,
    /// C_d over groups of ≥ 5 BoTs.
    pub c_d_min5: Option<f64>,
    /// C_s over groups of ≥ 5 BoTs.
    pub c_s_min5: Option<f64>,
    /// CPU-hours (default cost model).
    pub cpu_hours: f64,
    /// Busy grid processor-hours within the cost horizon.
    #[serde(default)]
    pub grid_busy_hours: f64,
    /// Σ ⌈cloud lease hours⌉ within the cost horizon.
    #[serde(default)]
    pub cloud_lease_hours: u64,
    /// Cost horizon T (first to last BoT arrival), hours.
    #[serde(default)]
    pub horizon_h: f64,
    /// NSL box statistics.
    pub nsl: BoxStats,
    /// Mean makespan, seconds.
    pub mean_makespan_s: f64,
    /// p90 makespan, seconds.
    pub p90_makespan_s: f64,
    /// Time-averaged κ.
    pub kappa_time_avg: f64,
    /// Predictor accuracy (meaningful for ECT).
    pub predictor_accuracy: f64,
    /// BoTs.
    pub bots: usize,
    /// BoTs of which at least one task waited in a local queue.
    pub waited_bots: usize,
    /// Tasks.
    pub tasks: usize,
    /// Offered load the workload was generated at (the calibrated one for `t6cal`).
    pub load: f64,
    /// Fraction of the initial system's processors busy with BoT tasks from the first to the
    /// last arrival, measured on the initial system at that offered load.
    pub realised_load: f64,
    /// Whether the realised-load search reached its tolerance.
    pub load_converged: bool,
    /// This run's busy share of BoT tasks (fraction of S × arrival span).
    pub busy_share_bot: f64,
    /// This run's busy share of background jobs.
    pub busy_share_background: f64,
    /// First to last BoT arrival, days.
    pub span_days: f64,
    /// Busy processor-time (BoT and background, grid and cloud) within the cost horizon, as a
    /// fraction of S × T (S = 544 initial processors).
    pub busy_fraction: f64,
    /// Mean task runtime of the workload, seconds.
    pub mean_runtime_s: f64,
    /// Largest task runtime.
    pub max_runtime_s: f64,
    /// NSL CDF points (Fig. 3/4 policy cells only).
    pub nsl_cdf: Vec<(f64, f64)>,
    /// κ(t) points in days (Table VI controller cells only).
    pub kappa_series: Vec<(f64, f64)>,
    /// BoTs under each Table VI target (controller cells only), in Table VI order.
    pub meeting: Vec<usize>,
    /// The background trace file as read, for cells on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_trace: Option<TraceUse>,
}

pub(crate) fn scenario(cfg: &RunConfig, p: &CellParams) -> Result<Scenario, ExperimentError> {
    let mut sc = Scenario::paper(p.strategy, p.kappa);
    sc.model = experiment_model();
    match p.variant {
        Variant::Spec | Variant::NoBackground => {}
        Variant::OfferedLoad => sc.load_definition = LoadDefinition::Offered,
        Variant::RealisedLoad => sc.load_definition = LoadDefinition::Realised,
        Variant::SpreadVariance => {
            // The literal reading's mean runtime (28.7 s) is below Table II's average, so the
            // runtime cap of the experiments does not apply.
            sc.model.spread = RuntimeSpread::LiteralVariance;
            sc.model.max_runtime_s = None;
        }
        Variant::Nodes => sc.platform = Platform::das3_in(p.variant.das3_unit()),
        Variant::SharedPerBot => sc.model.sharing = RuntimeSharing::SharedPerBot,
    }
    if p.exp == "t6cal" {
        // The calibration searches the offered load itself.
        sc.load_definition = LoadDefinition::Offered;
    }
    if p.exp == "e8" {
        // The load sweep of §V-A ("10 %, 20 %, …, 100 %"): each level realised on the initial
        // system.
        sc.load_definition = LoadDefinition::Realised;
    }
    sc.background = match CellBackground::of(p) {
        CellBackground::None => BackgroundSpec::None,
        CellBackground::Synthetic(b) => BackgroundSpec::Synthetic(b),
        CellBackground::File(label) => BackgroundSpec::Trace {
            jobs: background_trace(cfg, &sc.platform, p.variant.das3_unit())?
                .jobs
                .clone(),
            label,
        },
    };
    sc.policy = p.policy;
    sc.load = p.load;
    sc.n_bots = p.bots;
    if let Some((t, r)) = p.controller_min {
        sc.feedback_s = (t * 60.0, r * 60.0);
    }
    if let Some(period) = p.period_s {
        sc.dynamic.period_s = period;
    }
    Ok(sc)
}

/// The run's background trace file ([`RunConfig::background`]) on `platform`, read once per
/// process: sites by [`SiteMapping::Modulo`] (DAS-3's clusters `fs0`-`fs4` by their number),
/// shifted so that its first job is submitted at t = 0 with the first BoTs, processors in the
/// platform's scheduling units.
pub fn background_trace(
    cfg: &RunConfig,
    platform: &Platform,
    unit: Das3Unit,
) -> Result<Arc<BackgroundTrace>, ExperimentError> {
    type Memo = Mutex<HashMap<(std::path::PathBuf, usize, Das3Unit), Arc<BackgroundTrace>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let Some(path) = &cfg.background else {
        return Err(ExperimentError::Trace {
            path: String::new(),
            message: "a cell runs on a background trace but the run has no --background file"
                .into(),
        });
    };
    let n_sites = platform.sites().len();
    let key = (path.clone(), n_sites, unit);
    let memo = MEMO.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(t) = memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(t);
    }
    let mut trace = read_background_file(path, &SiteMapping::Modulo, n_sites, 0.0)
        .map_err(|e| ExperimentError::Trace {
            path: path.display().to_string(),
            message: e.to_string(),
        })?
        .starting_at_zero();
    for j in &mut trace.jobs {
        j.procs = unit.units_for(j.procs);
    }
    let trace = Arc::new(trace);
    if let Ok(mut m) = memo.lock() {
        m.insert(key, Arc::clone(&trace));
    }
    Ok(trace)
}

fn kappa_tag(k: f64) -> String {
    format!("k{:02}", (k * 10.0).round() as u32)
}

fn cell(id: String, p: CellParams) -> CellSpec {
    cell_spec(id, &p)
}

/// A cell whose parameters are `p` as JSON.
fn cell_spec(id: String, p: &impl Serialize) -> CellSpec {
    CellSpec::new(
        id,
        serde_json::to_value(p).unwrap_or(serde_json::Value::Null),
    )
}

fn policy_tag(p: BotPolicy) -> &'static str {
    p.name()
}

fn strategy_tag(s: StrategyKind) -> &'static str {
    s.name()
}

/// The cells of a plan, in a stable order (the Fig. 1 and Fig. 2 cells last, so the earlier cells keep their
/// places). `background_file`: the file name of the run's background trace, which replaces
/// the synthetic background of §VI's cells (not the sensitivity's synthetic variants) and adds
/// a trace row to the Table VI readings.
pub fn plan_cells(plan: &Plan, background_file: Option<&str>) -> Vec<CellSpec> {
    let base = |exp: &str, strategy, kappa, seed| CellParams {
        exp: exp.into(),
        strategy,
        kappa,
        policy: BotPolicy::DynPerTask,
        load: PAPER_LOAD,
        seed,
        bots: plan.bots,
        background: true,
        background_variant: None,
        period_s: None,
        controller_min: None,
        variant: Variant::Spec,
        background_file: background_file.map(str::to_string),
    };
    let mut cells = Vec::new();
    for (exp, strategy, kappa) in [
        ("e2", StrategyKind::None, 1.0),
        ("e3", StrategyKind::All, 2.0),
    ] {
        for policy in BotPolicy::ALL {
            let mut p = base(exp, strategy, kappa, 0);
            p.policy = policy;
            cells.push(cell(format!("{exp}-{}", policy_tag(policy)), p));
        }
    }
    for seed in 0..plan.seeds {
        cells.push(cell(
            format!("t3-none-k10-s{seed}"),
            base("t3", StrategyKind::None, 1.0, seed),
        ));
        for k in KAPPAS {
            for s in TABLE3_STRATEGIES {
                cells.push(cell(
                    format!("t3-{}-{}-s{seed}", strategy_tag(s), kappa_tag(k)),
                    base("t3", s, k, seed),
                ));
            }
        }
    }
    for exp in ["t6", "t6cal"] {
        for seed in 0..plan.seeds {
            let mut p = base(exp, StrategyKind::None, 1.0, seed);
            p.bots = plan.controller_bots;
            p.background = false;
            p.background_file = None;
            cells.push(cell(format!("{exp}-none-s{seed}"), p.clone()));
            for (i, &(rel, target, ..)) in TABLE6_PUBLISHED.iter().enumerate() {
                let mut q = p.clone();
                q.strategy = StrategyKind::Feedback;
                q.controller_min = Some((target, rel));
                cells.push(cell(format!("{exp}-feedback{i}-s{seed}"), q));
            }
        }
    }
    for &load in plan.sweep_loads {
        let strategies = [
            StrategyKind::None,
            StrategyKind::All,
            StrategyKind::Largest,
            StrategyKind::Number,
            StrategyKind::Dynamic,
        ];
        for s in strategies {
            let k = if s == StrategyKind::None { 1.0 } else { 2.0 };
            let mut p = base("e8", s, k, 0);
            p.load = load;
            let load_tag = (load * 100.0).round() as u32;
            cells.push(cell(format!("e8-{}-l{load_tag:03}", strategy_tag(s)), p));
        }
    }
    for period in MONITOR_PERIODS_S {
        let mut p = base("period", StrategyKind::Dynamic, 2.0, 0);
        p.period_s = Some(period);
        cells.push(cell(format!("period-{period:.0}s"), p));
    }
    for (u, procs) in BACKGROUND_VARIANTS {
        for seed in 0..plan.seeds {
            for (s, k) in BACKGROUND_CONFIGS {
                let mut p = base("bgs", s, k, seed);
                p.background_variant = Some((u, procs));
                p.background_file = None;
                let u_tag = (u * 100.0).round() as u32;
                cells.push(cell(
                    format!(
                        "bgs-u{u_tag}-p{procs}-{}-{}-s{seed}",
                        strategy_tag(s),
                        kappa_tag(k)
                    ),
                    p,
                ));
            }
        }
    }
    for v in Variant::ALL.into_iter().skip(1) {
        for k in VARIANT_KAPPAS {
            let s = if k == 1.0 {
                StrategyKind::None
            } else {
                StrategyKind::All
            };
            let mut p = base("var", s, k, 0);
            p.variant = v;
            if v == Variant::NoBackground {
                p.background_file = None;
            }
            cells.push(cell(
                format!("var-{}-{}-{}", v.tag(), strategy_tag(s), kappa_tag(k)),
                p,
            ));
        }
    }
    // Table VI (§VII: no background) under each reading, seed 0, and on the background trace
    // when one is given.
    let t6_readings = Variant::TABLE6
        .into_iter()
        .map(|v| (v.tag(), v, false))
        .chain(background_file.map(|_| ("bgfile", Variant::Spec, true)));
    for (tag, v, on_trace) in t6_readings {
        let mut p = base("t6var", StrategyKind::None, 1.0, 0);
        p.bots = plan.controller_bots;
        p.variant = v;
        p.background = on_trace;
        if !on_trace {
            p.background_file = None;
        }
        cells.push(cell(format!("t6var-{tag}-none-s0"), p.clone()));
        for (i, &(rel, target, ..)) in TABLE6_PUBLISHED.iter().enumerate() {
            let mut q = p.clone();
            q.strategy = StrategyKind::Feedback;
            q.controller_min = Some((target, rel));
            cells.push(cell(format!("t6var-{tag}-feedback{i}-s0"), q));
        }
    }
    cells.extend(probe::cells(plan));
    cells.extend(background::cells(plan));
    cells
}

fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max == 0 {
        return points.to_vec();
    }
    let step = points.len().div_ceil(max);
    let mut out: Vec<(f64, f64)> = points.iter().step_by(step).copied().collect();
    if let Some(&last) = points.last() {
        if out.last() != Some(&last) {
            out.push(last);
        }
    }
    out
}

/// Workload streams of a cell: keyed by seed, size and background, and by the load except in
/// the calibrated `t6cal` variant, whose load is searched over one fixed set of draws.
pub(crate) fn workload_streams(cfg: &RunConfig, p: &CellParams) -> RngStreams {
    let load = if p.exp == "t6cal" {
        "cal".to_string()
    } else {
        p.load.to_string()
    };
    let bg = match p.background_variant {
        None => p.background.to_string(),
        Some((u, procs)) => format!("u{u}p{procs}"),
    };
    let variant = match p.variant {
        Variant::Spec => String::new(),
        v => format!("-{}", v.tag()),
    };
    cfg.streams(
        PAPER,
        &format!("workload-s{}-l{load}-n{}-bg{bg}{variant}", p.seed, p.bots),
    )
}

/// The load level of a cell's workload, memoised per process: [`load_level`] on the cell's
/// scenario (for the realised definition a search over the offered load on the initial
/// system). It is a pure function of the run config and the cell's workload key (seed, load,
/// size, background, variant), so every strategy of a seed runs on the same workload whichever
/// thread or shard computes it.
pub fn cell_load_level(cfg: &RunConfig, p: &CellParams) -> Result<LoadLevel, ExperimentError> {
    static MEMO: OnceLock<Mutex<HashMap<String, LoadLevel>>> = OnceLock::new();
    let mut q = p.clone();
    if q.exp == "t6cal" {
        q.load = calibrated_controller_load(cfg, p)?;
    }
    q.strategy = StrategyKind::None;
    q.kappa = 1.0;
    q.controller_min = None;
    q.period_s = None;
    let key = format!(
        "{}-{}-{}",
        cfg.seed,
        cfg.scale.name(),
        serde_json::to_string(&(
            &q.exp == "t6cal",
            q.load,
            q.seed,
            q.bots,
            q.background,
            q.background_variant,
            q.variant,
            q.policy
        ))
        .unwrap_or_default()
    );
    // On a background trace the level depends on the file: its name keys the streams (so
    // the results do not depend on where the file is), its path the memo.
    let (key, memo_key) = match &q.background_file {
        Some(name) if matches!(CellBackground::of(&q), CellBackground::File(_)) => (
            format!("{key}-bgfile-{name}"),
            format!("{key}-bgfile-{:?}", cfg.background),
        ),
        _ => (key.clone(), key),
    };
    let memo = MEMO.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(l) = memo.lock().ok().and_then(|m| m.get(&memo_key).copied()) {
        return Ok(l);
    }
    let sim_streams = cfg.streams(PAPER, &format!("load-level-{key}"));
    let level = load_level(
        &scenario(cfg, &q)?,
        &workload_streams(cfg, &q),
        &sim_streams,
    )
    .map_err(|e| ExperimentError::model("load-level", e))?;
    if let Ok(mut m) = memo.lock() {
        m.insert(memo_key, level);
    }
    Ok(level)
}

/// Our calibration of the §VII workload, whose load the paper does not state: the offered
/// load at which the initial system (NO, DynPerTask, no background) has a mean BoT makespan of
/// [`TABLE6_INITIAL_MEAN_MAKESPAN_MIN`], by bisection on log(load) in [0.8, [`MAX_CALIBRATED_LOAD`]] over one fixed
/// set of draws (the mean makespan grows with the load). Memoised per process: it is a pure
/// function of the run config and the cell's seed and size, so every `t6cal` cell of a seed
/// gets the same value whichever thread or shard computes it.
pub fn calibrated_controller_load(cfg: &RunConfig, p: &CellParams) -> Result<f64, ExperimentError> {
    static MEMO: OnceLock<Mutex<HashMap<String, f64>>> = OnceLock::new();
    let key = format!("{}-{}-{}-{}", cfg.seed, cfg.scale.name(), p.seed, p.bots);
    let memo = MEMO.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(l) = memo.lock().ok().and_then(|m| m.get(&key).copied()) {
        return Ok(l);
    }
    let mut q = p.clone();
    q.strategy = StrategyKind::None;
    q.controller_min = None;
    let streams = workload_streams(cfg, &q);
    let sim_streams = cfg.streams(PAPER, &format!("t6cal-search-{key}"));
    let target_s = TABLE6_INITIAL_MEAN_MAKESPAN_MIN * 60.0;
    let mut mean_at = |load: f64| -> Result<f64, ExperimentError> {
        q.load = load;
        let level = LoadLevel {
            definition: LoadDefinition::Offered,
            target: load,
            offered: load,
            realised: f64::NAN,
            runs: 0,
            converged: true,
        };
        let r = run_at_level(&scenario(cfg, &q)?, &level, &streams, &sim_streams)
            .map_err(|e| ExperimentError::model("t6cal-search", e))?;
        Ok(r.mean_makespan_s)
    };
    let (mut lo, mut hi) = (PAPER_LOAD.ln(), MAX_CALIBRATED_LOAD.ln());
    let load_at = |x: f64| x.exp().clamp(PAPER_LOAD, MAX_CALIBRATED_LOAD);
    let load = if mean_at(PAPER_LOAD)? >= target_s {
        PAPER_LOAD
    } else if mean_at(MAX_CALIBRATED_LOAD)? <= target_s {
        MAX_CALIBRATED_LOAD
    } else {
        for _ in 0..20 {
            let mid = 0.5 * (lo + hi);
            if mean_at(load_at(mid))? < target_s {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        load_at(0.5 * (lo + hi))
    };
    if let Ok(mut m) = memo.lock() {
        m.insert(key, load);
    }
    Ok(load)
}

/// Runs one cell's scenario (pure function of the run config and the parameters).
pub fn run_params(
    cfg: &RunConfig,
    id: &str,
    p: &CellParams,
) -> Result<CellResult, ExperimentError> {
    let mut p = p.clone();
    let level = cell_load_level(cfg, &p)?;
    if p.exp == "t6cal" {
        p.load = level.target;
    }
    let sc = scenario(cfg, &p)?;
    let background_trace = match CellBackground::of(&p) {
        CellBackground::File(_) => {
            let t = background_trace(cfg, &sc.platform, p.variant.das3_unit())?;
            Some(TraceUse {
                jobs: t.jobs.len(),
                skipped: t.skip_counts(),
            })
        }
        _ => None,
    };
    let r: ScenarioResult = run_at_level(
        &sc,
        &level,
        &workload_streams(cfg, &p),
        &cfg.streams(PAPER, id),
    )
    .map_err(|e| ExperimentError::model(id, e))?;
    let min5 = r
        .consistency_min_group
        .iter()
        .find(|(m, _)| *m == 5)
        .and_then(|(_, c)| c.clone());
    let nsls: Vec<f64> = r.run.bots.iter().map(|b| b.nsl).collect();
    let is_t6 = p.exp.starts_with("t6");
    Ok(CellResult {
        c_d: r.consistency.c_d,
        c_s: r.consistency.c_s,
        c_d_min5: min5.as_ref().map(|c| c.c_d),
        c_s_min5: min5.as_ref().map(|c| c.c_s),
        cpu_hours: r.run.cpu_hours,
        grid_busy_hours: r.run.cost.grid_busy_hours,
        cloud_lease_hours: r.run.cost.cloud_lease_hours,
        horizon_h: r.run.horizon_s / 3600.0,
        nsl: r.nsl,
        mean_makespan_s: r.mean_makespan_s,
        p90_makespan_s: r.p90_makespan_s,
        kappa_time_avg: r.run.kappa_time_avg,
        predictor_accuracy: r.run.predictor_accuracy,
        bots: r.run.bots.len(),
        waited_bots: r.run.bots.iter().filter(|b| b.max_wait_s > 0.0).count(),
        tasks: r.workload.tasks,
        load: level.offered,
        realised_load: level.realised,
        load_converged: level.converged,
        busy_share_bot: r.busy_share.bot,
        busy_share_background: r.busy_share.background,
        span_days: r.workload.span_s / 86_400.0,
        busy_fraction: if r.run.horizon_s > 0.0 {
            r.run.cost.busy_only * 3600.0 / (r.run.base_procs as f64 * r.run.horizon_s)
        } else {
            0.0
        },
        mean_runtime_s: r.workload.mean_runtime_s,
        max_runtime_s: r.workload.max_runtime_s,
        nsl_cdf: if p.exp == "e2" {
            ecdf(&nsls, 200)
        } else {
            vec![]
        },
        kappa_series: if is_t6 {
            let days: Vec<(f64, f64)> = r
                .run
                .kappa_series
                .iter()
                .map(|&(t, k)| (t / 86400.0, k))
                .collect();
            downsample(&days, 300)
        } else {
            vec![]
        },
        meeting: if is_t6 {
            TABLE6_PUBLISHED
                .iter()
                .map(|&(_, target, ..)| bots_meeting(&r.run.bots, target * 60.0))
                .collect()
        } else {
            vec![]
        },
        background_trace,
    })
}

impl Experiment for Yigitbasi2010 {
    fn paper(&self) -> &'static str {
        PAPER
    }

    fn title(&self) -> &'static str {
        "Yigitbasi & Epema 2010: static and dynamic overprovisioning for performance consistency in grids"
    }

    fn cells(&self, cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        let file = cfg
            .background
            .as_deref()
            .and_then(std::path::Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        Ok(plan_cells(&Plan::of(cfg.scale), file.as_deref()))
    }

    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError> {
        let id = cell.id.as_str();
        let json = |r: Result<serde_json::Value, serde_json::Error>| {
            r.map_err(|e| ExperimentError::malformed(id, e))
        };
        match experiment_of(&cell.params) {
            probe::EXP => {
                let p = parse(id, &cell.params)?;
                json(serde_json::to_value(probe::run(cfg, id, &p)?))
            }
            background::EXP => {
                let p = parse(id, &cell.params)?;
                json(serde_json::to_value(background::run(cfg, id, &p)?))
            }
            _ => {
                let p: CellParams = parse(id, &cell.params)?;
                json(serde_json::to_value(run_params(cfg, id, &p)?))
            }
        }
    }

    fn assemble(
        &self,
        cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        let mut rows = Vec::with_capacity(outputs.len());
        let mut probes = Vec::new();
        let mut backgrounds = Vec::new();
        for o in outputs {
            let id = o.cell.id.as_str();
            match experiment_of(&o.cell.params) {
                probe::EXP => probes.push(row(id, o)?),
                background::EXP => backgrounds.push(row(id, o)?),
                _ => rows.push(row(id, o)?),
            }
        }
        let mut report = assemble_rows(cfg, &rows);
        probe::report(&probes, &mut report);
        background::report(&backgrounds, &mut report);
        Ok(report)
    }
}

/// The `exp` field of a cell's parameters (`""` if absent).
fn experiment_of(params: &serde_json::Value) -> &str {
    params
        .get("exp")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// A cell's parameters or results as `T`.
fn parse<T: serde::de::DeserializeOwned>(
    id: &str,
    v: &serde_json::Value,
) -> Result<T, ExperimentError> {
    serde_json::from_value(v.clone()).map_err(|e| ExperimentError::malformed(id, e))
}

/// A cell output as typed (parameters, result).
fn row<P: serde::de::DeserializeOwned, R: serde::de::DeserializeOwned>(
    id: &str,
    o: &CellOutput,
) -> Result<(P, R), ExperimentError> {
    Ok((parse(id, &o.cell.params)?, parse(id, &o.result)?))
}
