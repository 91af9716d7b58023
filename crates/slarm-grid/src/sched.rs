//! The four BoT scheduling policies of the global resource manager (Yigitbasi & Epema
//! 2010, §IV-B).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{GridNameError, Result};
use crate::platform::largest_remainder;
use crate::site::{Dispatch, SiteState};
use crate::workload::Bot;

/// A BoT-level scheduling policy: decides the site of every task of an arriving BoT and
/// submits it through the [`Dispatch`] interface (immediate push dispatch at arrival; §IV-A leaves the timing open).
pub trait BotScheduler {
    /// Short name (`static`, `dyn-per-task`, `dyn-per-bot`, `ect`).
    fn name(&self) -> &'static str;
    /// Places every task of `bot`.
    fn place(&mut self, bot: &Bot, grid: &mut dyn Dispatch) -> Result<()>;
}

/// The policy names of the CLI and the experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum BotPolicy {
    /// Static proportional partitioning.
    Static,
    /// Dynamic Per Task (least-loaded site per task); used for Tables III, IV, VI.
    DynPerTask,
    /// Dynamic Per BoT (whole BoT to the least-loaded site).
    DynPerBot,
    /// Earliest Completion Time with the last-two-average predictor.
    Ect,
}

impl BotPolicy {
    /// All four, in the order of Fig. 3.
    pub const ALL: [BotPolicy; 4] = [
        BotPolicy::Static,
        BotPolicy::DynPerTask,
        BotPolicy::DynPerBot,
        BotPolicy::Ect,
    ];

    /// Parses `static|dyn-per-task|dyn-per-bot|ect`.
    #[deprecated(
        since = "0.2.0",
        note = "use str::parse (FromStr), whose error names the value"
    )]
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    /// The name [`str::parse`] reads (`static`, `dyn-per-task`, `dyn-per-bot`, `ect`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::DynPerTask => "dyn-per-task",
            Self::DynPerBot => "dyn-per-bot",
            Self::Ect => "ect",
        }
    }

    /// Label used in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::Static => "Static",
            Self::DynPerTask => "DynPerTask",
            Self::DynPerBot => "DynPerBoT",
            Self::Ect => "ECT",
        }
    }

    /// A fresh scheduler of this kind.
    pub fn build(self) -> Box<dyn BotScheduler + Send> {
        match self {
            Self::Static => Box::new(StaticProportional),
            Self::DynPerTask => Box::new(DynamicPerTask),
            Self::DynPerBot => Box::new(DynamicPerBot),
            Self::Ect => Box::new(Ect),
        }
    }
}

impl std::str::FromStr for BotPolicy {
    type Err = GridNameError;
    /// Parses `static`, `dyn-per-task` (or `dynamic-per-task`, `per-task`), `dyn-per-bot` (or
    /// `dynamic-per-bot`, `per-bot`) and `ect`.
    fn from_str(s: &str) -> std::result::Result<Self, GridNameError> {
        Ok(match s {
            "static" => Self::Static,
            "dyn-per-task" | "dynamic-per-task" | "per-task" => Self::DynPerTask,
            "dyn-per-bot" | "dynamic-per-bot" | "per-bot" => Self::DynPerBot,
            "ect" => Self::Ect,
            _ => {
                return Err(GridNameError {
                    what: "policy",
                    given: s.to_owned(),
                    expected: "static, dyn-per-task, dyn-per-bot or ect",
                })
            }
        })
    }
}

/// The former name of [`BotPolicy`].
#[deprecated(since = "0.1.0", note = "renamed to BotPolicy")]
pub type PolicyKind = BotPolicy;

/// Least-loaded eligible site by (used/size, queued demand/size, larger size, lower index)
/// (§IV-B: load = fraction of used processors; ties, which the paper leaves open, by queued demand, then the larger site, then the index); `None` if no site has ready processors.
pub fn least_loaded(sites: &[SiteState]) -> Option<usize> {
    let mut best: Option<(usize, f64, f64)> = None;
    for (i, s) in sites.iter().enumerate() {
        if s.size() == 0 {
            continue;
        }
        let n = s.size() as f64;
        let load = s.used() as f64 / n;
        let queued = s.queued_demand() as f64 / n;
        let better = match best {
            None => true,
            Some((b, bl, bq)) => {
                load < bl
                    || (load == bl && queued < bq)
                    || (load == bl && queued == bq && s.size() > sites[b].size())
            }
        };
        if better {
            best = Some((i, load, queued));
        }
    }
    best.map(|b| b.0)
}

/// Static Scheduling: each BoT is split over the sites in proportion to their sizes
/// (largest-remainder apportionment; §IV-B does not say how to round).
#[derive(Debug, Clone, Copy, Default)]
pub struct StaticProportional;

impl BotScheduler for StaticProportional {
    fn name(&self) -> &'static str {
        "static"
    }
    fn place(&mut self, bot: &Bot, grid: &mut dyn Dispatch) -> Result<()> {
        let sizes: Vec<u64> = grid.sites().iter().map(SiteState::size).collect();
        let counts = largest_remainder(bot.tasks.len() as u64, &sizes);
        let mut task = 0;
        for (site, &c) in counts.iter().enumerate() {
            for _ in 0..c {
                grid.submit(site, task)?;
                task += 1;
            }
        }
        Ok(())
    }
}

/// Dynamic Per Task: every task goes to the currently least-loaded site; the state is updated
/// after each submission.
#[derive(Debug, Clone, Copy, Default)]
pub struct DynamicPerTask;

impl BotScheduler for DynamicPerTask {
    fn name(&self) -> &'static str {
        "dyn-per-task"
    }
    fn place(&mut self, bot: &Bot, grid: &mut dyn Dispatch) -> Result<()> {
        for task in 0..bot.tasks.len() {
            let site = least_loaded(grid.sites()).unwrap_or(0);
            grid.submit(site, task)?;
        }
        Ok(())
    }
}

/// Dynamic Per BoT: the whole BoT goes to the least-loaded site.
#[derive(Debug, Clone, Copy, Default)]
pub struct DynamicPerBot;

impl BotScheduler for DynamicPerBot {
    fn name(&self) -> &'static str {
        "dyn-per-bot"
    }
    fn place(&mut self, bot: &Bot, grid: &mut dyn Dispatch) -> Result<()> {
        let site = least_loaded(grid.sites()).unwrap_or(0);
        for task in 0..bot.tasks.len() {
            grid.submit(site, task)?;
        }
        Ok(())
    }
}

/// Total order wrapper for times in a heap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct T(f64);
impl Eq for T {}
impl PartialOrd for T {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for T {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// FCFS what-if of one site: processor free times and the last start (no overtaking).
struct WhatIf {
    free: BinaryHeap<Reverse<T>>,
    last_start: f64,
}

impl WhatIf {
    /// Predicted state of `site` at `now` with predicted reference runtime `p` (§IV-B, the predictor of its ref. [17]):
    /// a running job ends at max(start + p_job, now); queued jobs start in order.
    fn new(site: &SiteState, now: f64, p: f64, speed_ref: f64) -> Self {
        let p_task = p * speed_ref / site.speed_ghz();
        let p_of = |is_task: bool| if is_task { p_task } else { p };
        let mut free = BinaryHeap::with_capacity(site.size() as usize);
        let mut busy = 0;
        for r in site.running() {
            let end = (r.start_s + p_of(r.is_task)).max(now);
            for _ in 0..r.procs {
                free.push(Reverse(T(end)));
            }
            busy += r.procs;
        }
        for _ in busy..site.size() {
            free.push(Reverse(T(now)));
        }
        let mut w = Self {
            free,
            last_start: now,
        };
        for q in site.queued() {
            w.occupy(q.procs, p_of(q.is_task));
        }
        w
    }

    /// Earliest start of a job of `procs` processors (FCFS: not before the last start).
    fn occupy(&mut self, procs: u64, runtime: f64) -> f64 {
        let k = procs.min(self.free.len() as u64).max(1);
        let mut start = self.last_start;
        for _ in 0..k {
            if let Some(Reverse(T(t))) = self.free.pop() {
                start = start.max(t);
            }
        }
        for _ in 0..k {
            self.free.push(Reverse(T(start + runtime)));
        }
        self.last_start = start;
        start
    }

    fn peek_start(&self) -> f64 {
        self.free
            .peek()
            .map_or(f64::INFINITY, |Reverse(T(t))| *t)
            .max(self.last_start)
    }
}

/// ECT: every task goes to the site with the earliest predicted completion, with the
/// predicted runtime = mean of the last two completed BoT tasks (§IV-B).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ect;

impl BotScheduler for Ect {
    fn name(&self) -> &'static str {
        "ect"
    }
    fn place(&mut self, bot: &Bot, grid: &mut dyn Dispatch) -> Result<()> {
        let now = grid.now();
        let p = grid.predicted_runtime_s();
        let speed_ref = grid.reference_speed_ghz();
        let mut whatif: Vec<Option<WhatIf>> = grid
            .sites()
            .iter()
            .map(|s| (s.size() > 0).then(|| WhatIf::new(s, now, p, speed_ref)))
            .collect();
        let speeds: Vec<f64> = grid.sites().iter().map(SiteState::speed_ghz).collect();
        for task in 0..bot.tasks.len() {
            let mut best: Option<(usize, f64)> = None;
            for (i, w) in whatif.iter().enumerate() {
                if let Some(w) = w {
                    let done = w.peek_start() + p * speed_ref / speeds[i];
                    if best.is_none_or(|(_, b)| done < b) {
                        best = Some((i, done));
                    }
                }
            }
            let site = best.map_or(0, |b| b.0);
            if let Some(w) = whatif[site].as_mut() {
                w.occupy(1, p * speed_ref / speeds[site]);
            }
            grid.submit(site, task)?;
        }
        Ok(())
    }
}
