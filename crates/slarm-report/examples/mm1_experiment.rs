//! An outside experiment on the slarm-report contract: the mean waiting time of an M/M/1 queue
//! by Lindley's recursion, one cell per load, checked against the closed form
//! W_q = rho / (mu - lambda) (Kleinrock 1975, §3.2) as the "published" value.
//!
//! Run with `cargo run -p slarm-report --example mm1_experiment`. The reproduction engine
//! (slarm-repro) would run the cells in parallel, store and resume them and render the report;
//! here they run in a loop so the example needs nothing but this crate.

use rand::RngExt;
use serde_json::json;
use slarm_report::{
    CellOutput, CellSpec, Check, Experiment, ExperimentError, PaperReport, RunConfig, Scale, Table,
};

/// M/M/1 waiting times at a few loads (mu = 1).
struct Mm1Waiting;

const LOADS: [f64; 3] = [0.3, 0.5, 0.7];

impl Experiment for Mm1Waiting {
    fn paper(&self) -> &'static str {
        "mm1-waiting"
    }

    fn title(&self) -> &'static str {
        "M/M/1 mean waiting time by Lindley's recursion"
    }

    fn cells(&self, _cfg: &RunConfig) -> Result<Vec<CellSpec>, ExperimentError> {
        Ok(LOADS
            .iter()
            .map(|rho| CellSpec::new(format!("rho{rho}"), json!({ "rho": rho })))
            .collect())
    }

    fn run_cell(
        &self,
        cfg: &RunConfig,
        cell: &CellSpec,
    ) -> Result<serde_json::Value, ExperimentError> {
        let rho = cell.params["rho"]
            .as_f64()
            .ok_or_else(|| ExperimentError::malformed(&cell.id, "rho is not a number"))?;
        let customers = match cfg.scale {
            Scale::Quick => 200_000,
            Scale::Paper => 2_000_000,
        };
        // One random stream per cell, derived from the run's seed: same bits however the cells
        // are scheduled.
        let mut rng = cfg.streams(self.paper(), &cell.id).stream(&[0]);
        let mut exp = |rate: f64| -(1.0 - rng.random::<f64>()).ln() / rate;
        let (mut wait, mut sum) = (0.0_f64, 0.0_f64);
        for _ in 0..customers {
            sum += wait;
            // Lindley: W_{n+1} = max(0, W_n + S_n - A_{n+1}).
            wait = (wait + exp(1.0) - exp(rho)).max(0.0);
        }
        Ok(json!({ "rho": rho, "mean_wait": sum / customers as f64 }))
    }

    fn assemble(
        &self,
        _cfg: &RunConfig,
        outputs: &[CellOutput],
    ) -> Result<PaperReport, ExperimentError> {
        let mut checks = Vec::new();
        for out in outputs {
            let field = |name: &str| {
                out.result[name]
                    .as_f64()
                    .ok_or_else(|| ExperimentError::malformed(&out.cell.id, name))
            };
            let (rho, ours) = (field("rho")?, field("mean_wait")?);
            let exact = rho / (1.0 - rho);
            checks.push(
                Check::relative(
                    format!("wq/{}", out.cell.id),
                    format!("W_q at rho = {rho}"),
                    ours,
                    exact,
                    0.05,
                )
                .explain(|c| {
                    format!(
                        "relative gap {:+.3}: a run of finite length from an empty queue",
                        c.deviation.unwrap_or(0.0) / exact
                    )
                }),
            );
        }
        Ok(PaperReport {
            paper: self.paper().into(),
            title: self.title().into(),
            workload: "Poisson arrivals, exponential service, mu = 1".into(),
            tables: vec![Table::of_checks(
                "checks",
                "W_q, ours beside the closed form",
                &checks,
            )],
            checks,
            figures: Vec::new(),
            notes: Vec::new(),
        })
    }
}

fn main() -> Result<(), ExperimentError> {
    let cfg = RunConfig {
        scale: Scale::Quick,
        seed: 1,
        traces: None,
        background: None,
    };
    let experiment = Mm1Waiting;
    let mut outputs = Vec::new();
    for cell in experiment.cells(&cfg)? {
        let result = experiment.run_cell(&cfg, &cell)?;
        outputs.push(CellOutput { cell, result });
    }
    let report = experiment.assemble(&cfg, &outputs)?;
    for check in &report.checks {
        println!(
            "{:<10} ours - published {:+.4}  {}",
            check.id,
            check.deviation.unwrap_or(f64::NAN),
            check.verdict.label()
        );
    }
    match report.unexplained_checks().first() {
        Some(c) => Err(ExperimentError::model(
            &c.id,
            "a differing check has no reason",
        )),
        None => Ok(()),
    }
}
