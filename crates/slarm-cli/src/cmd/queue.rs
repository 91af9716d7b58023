//! `slarm queue`: multiclass M/M/m response-time SLAs after Hu 2009.
//!
//! - `cdf`: Erlang C, the response-time CDF F(x) and the means of one M/M/m FCFS pool.
//! - `size`: nodes per class (DA), per strategy (every set partition), the best strategy,
//!   Hu's heuristic (Algorithm 2 or 3 for 2 or 3 classes) and, with `--discipline hol|pdp`,
//!   the simulated size of one shared pool under that discipline; with `--batch FILE` the
//!   minimum nodes (Algorithm 1) of every row `lambda,mu,x,y` of a CSV file.
//! - `simulate`: event-driven simulation of one shared pool under FCFS, HOL or PDP.

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};
use slarm::queueing::heuristics::{heuristic_partition, HeuristicConfig};
use slarm::queueing::partition::all_strategies;
use slarm::queueing::procedures::hol_order;
use slarm::queueing::sim::{min_nodes_sim, simulate, Discipline, QueueSimConfig};
use slarm::queueing::sizing::{min_nodes_batch, SizingQuery};
use slarm::queueing::{min_nodes, nodes_for_partition, JobClass, Mmm, Partition, QueueError, Sla};
use std::io::BufRead;

use crate::error::{num, shown, CliError, CliResult};
use crate::limits;
use crate::output::Output;

/// Arguments of `slarm queue`.
#[derive(Debug, Args)]
pub struct QueueArgs {
    #[command(subcommand)]
    command: QueueCommand,
}

#[derive(Debug, Subcommand)]
enum QueueCommand {
    /// Erlang C, F(x) = P(T <= x) and mean response of an M/M/m FCFS pool.
    Cdf(CdfArgs),
    /// Minimum nodes for SLAs: dedicated, shared, every partition, best, heuristic.
    Size(SizeArgs),
    /// Simulate a shared pool under FCFS, HOL or PDP.
    Simulate(SimulateArgs),
}

/// `slarm queue cdf`.
#[derive(Debug, Args)]
struct CdfArgs {
    /// Arrival rate lambda.
    #[arg(long, allow_hyphen_values = true)]
    lambda: f64,
    /// Service rate mu.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    mu: f64,
    /// Number of servers m.
    #[arg(long, allow_hyphen_values = true)]
    servers: u64,
    /// Response-time threshold x.
    #[arg(long, allow_hyphen_values = true)]
    x: f64,
}

/// Discipline of the shared pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DisciplineArg {
    /// First come, first served.
    Fcfs,
    /// Head-of-the-line priority (larger G first, or --hol-order).
    Hol,
    /// Probability dependent priority.
    Pdp,
}

/// Simulation settings shared by `size` and `simulate`.
#[derive(Debug, Args)]
struct SimArgs {
    /// Arrivals stop at this time.
    #[arg(long, allow_hyphen_values = true, default_value_t = 20_000.0)]
    horizon: f64,
    /// Jobs arriving before this time are not measured.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1_000.0)]
    warmup: f64,
    /// Independent replications.
    #[arg(long, default_value_t = 10, allow_hyphen_values = true)]
    replications: u32,
    /// Root seed.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    seed: u64,
    /// HOL priority order, 1-based class numbers highest first (default: larger G first).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    hol_order: Vec<usize>,
}

/// `slarm queue size`.
#[derive(Debug, Args)]
struct SizeArgs {
    /// Service rate mu.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    mu: f64,
    /// A class as LAMBDA:X:Y (SLA P(T <= X) >= Y); repeat for each class.
    #[arg(
        long = "class",
        required_unless_present = "batch",
        allow_hyphen_values = true
    )]
    classes: Vec<String>,
    /// Discipline of the shared pool (hol/pdp are sized by simulation).
    #[arg(long, value_enum, default_value = "fcfs", allow_hyphen_values = true)]
    discipline: DisciplineArg,
    /// Size one pool per row of a CSV file with header `lambda,mu,x,y` (`-` for stdin):
    /// prints `line,lambda,mu,x,y,nodes,error` per row; exit code 2 if any row failed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["classes", "mu", "discipline"], allow_hyphen_values = true)]
    batch: Option<String>,
    #[command(flatten)]
    sim: SimArgs,
}

/// `slarm queue simulate`.
#[derive(Debug, Args)]
struct SimulateArgs {
    /// Number of servers m.
    #[arg(long, allow_hyphen_values = true)]
    servers: u64,
    /// Service rate mu.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0)]
    mu: f64,
    /// A class as LAMBDA:X:Y; repeat for each class.
    #[arg(long = "class", required = true, allow_hyphen_values = true)]
    classes: Vec<String>,
    /// Discipline.
    #[arg(long, value_enum, default_value = "fcfs", allow_hyphen_values = true)]
    discipline: DisciplineArg,
    #[command(flatten)]
    sim: SimArgs,
}

/// Runs `slarm queue`.
pub fn run(args: &QueueArgs, as_json: bool) -> CliResult<Output> {
    match &args.command {
        QueueCommand::Cdf(a) => cdf(a),
        QueueCommand::Size(a) => match &a.batch {
            Some(path) => size_batch(path, as_json),
            None => size(a),
        },
        QueueCommand::Simulate(a) => sim(a),
    }
}

fn model(e: QueueError) -> CliError {
    CliError::bad_input(e)
}

fn parse_class(s: &str) -> CliResult<JobClass> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || {
        CliError::bad_input(format!(
            "--class {}: expected LAMBDA:X:Y, e.g. 10:3:0.95",
            shown(s)
        ))
    };
    if parts.len() != 3 {
        return Err(bad());
    }
    let nums: Vec<f64> = parts
        .iter()
        .map(|p| p.trim().parse::<f64>().map_err(|_| bad()))
        .collect::<CliResult<_>>()?;
    let sla = Sla::new(nums[1], nums[2])
        .map_err(|e| CliError::bad_input(format!("--class {}: {e}", shown(s))))?;
    JobClass::new(nums[0], sla)
        .map_err(|e| CliError::bad_input(format!("--class {}: {e}", shown(s))))
}

fn parse_classes(v: &[String]) -> CliResult<Vec<JobClass>> {
    v.iter().map(|s| parse_class(s)).collect()
}

/// Longest simulated horizon (time units of 1 / mu).
const MAX_HORIZON: f64 = 1e9;
/// Most replications.
const MAX_REPLICATIONS: u64 = 10_000;
/// Most simulated arrivals of one simulation (sum of lambda x horizon x replications).
const MAX_ARRIVALS: f64 = 1e9;
/// Most servers of a simulated pool (each server is simulated).
const MAX_SIM_SERVERS: u64 = 1_000_000;
/// Most sizes `queue size --discipline hol|pdp` tries above its starting size.
const MAX_EXTRA_SIZES: u64 = 10_000;
/// Most simulated arrivals of a whole sizing by simulation (every size tried, each one
/// simulation of sum of lambda x horizon x replications arrivals).
const MAX_SIZING_ARRIVALS: f64 = 1e10;

/// The sizes a simulated sizing may try, bounded so that their simulated arrivals stay under
/// [`MAX_SIZING_ARRIVALS`]. The search ([`min_nodes_sim`]) starts at `start` (the FCFS size of
/// the shared pool, at least the stability floor `floor(lambda / mu) + 1`), walks down while a
/// size meets every SLA, else up. Refuses (exit 2) when the downward walk alone, in the worst
/// case every size down to the floor, could exceed the bound; otherwise returns how many
/// sizes above `start` the upward walk may try (at most [`MAX_EXTRA_SIZES`]).
fn sizing_steps(a: &SimArgs, classes: &[JobClass], mu: f64, start: u64) -> CliResult<u64> {
    let rate: f64 = classes.iter().map(|c| c.lambda()).sum();
    let per_simulation = rate * a.horizon * f64::from(a.replications);
    let floor = slarm::queueing::sim::stability_floor(classes, mu);
    let start = start.max(floor);
    let down = start - floor + 1;
    limits::work(
        "simulated arrivals of the sizing",
        down as f64 * per_simulation,
        MAX_SIZING_ARRIVALS,
        &format!(
            "{down} sizes from {start} down to the stability floor {floor} x {} arrivals per \
             simulation = total lambda x --horizon x --replications; lower --horizon or \
             --replications",
            num(per_simulation.round())
        ),
    )?;
    // Whole sizes that fit the rest of the bound; at least 0 by the check above.
    let room = (MAX_SIZING_ARRIVALS / per_simulation.max(1.0)).floor() - down as f64;
    Ok(if room >= MAX_EXTRA_SIZES as f64 {
        MAX_EXTRA_SIZES
    } else {
        // 0 <= room < MAX_EXTRA_SIZES: exact in u64.
        room.max(0.0) as u64
    })
}

/// The ranges of the simulation settings and the arrivals they ask for (docs/cli.md).
fn check_sim(a: &SimArgs, classes: &[JobClass]) -> CliResult<()> {
    limits::above("--horizon", a.horizon, 0.0, MAX_HORIZON)?;
    limits::within("--warmup", a.warmup, 0.0, MAX_HORIZON)?;
    limits::count("--replications", a.replications, 1, MAX_REPLICATIONS)?;
    let rate: f64 = classes.iter().map(|c| c.lambda()).sum();
    limits::work(
        "simulated arrivals",
        rate * a.horizon * f64::from(a.replications),
        MAX_ARRIVALS,
        &format!(
            "total lambda {} x --horizon {} x --replications {}",
            num(rate),
            num(a.horizon),
            a.replications
        ),
    )
}

fn sim_config(a: &SimArgs) -> QueueSimConfig {
    QueueSimConfig {
        horizon: a.horizon,
        warmup: a.warmup,
        replications: a.replications,
        seed: a.seed,
    }
}

fn discipline(
    d: DisciplineArg,
    classes: &[JobClass],
    mu: f64,
    a: &SimArgs,
) -> CliResult<Discipline> {
    Ok(match d {
        DisciplineArg::Fcfs => Discipline::Fcfs,
        DisciplineArg::Pdp => Discipline::Pdp,
        DisciplineArg::Hol => {
            let order = if a.hol_order.is_empty() {
                let cfg = HeuristicConfig {
                    mu,
                    ..HeuristicConfig::default()
                };
                hol_order(classes, &cfg).map_err(model)?
            } else {
                a.hol_order
                    .iter()
                    .map(|&i| {
                        i.checked_sub(1).ok_or_else(|| {
                            CliError::bad_input("--hol-order classes are numbered from 1")
                        })
                    })
                    .collect::<CliResult<_>>()?
            };
            Discipline::Hol { order }
        }
    })
}

fn cdf(a: &CdfArgs) -> CliResult<Output> {
    let q = Mmm::new(a.lambda, a.mu, a.servers).map_err(model)?;
    if !a.x.is_finite() {
        return Err(CliError::bad_input(format!(
            "--x {}: must be a finite number",
            num(a.x)
        )));
    }
    Ok(Output::from_json(json!({
        "lambda": a.lambda,
        "mu": a.mu,
        "servers": a.servers,
        "x": a.x,
        "rho": q.rho(),
        "utilization": q.rho() / a.servers as f64,
        "erlang_c": q.erlang_c(),
        "p0": q.p0(),
        "cdf": q.response_cdf(a.x),
        "mean_response": q.mean_response(),
        "mean_waiting": q.mean_waiting(),
        "mean_in_system": q.mean_in_system(),
    })))
}

fn strat(p: &Partition, nodes: u64) -> Value {
    json!({ "partition": p.name(), "nodes": nodes })
}

fn size(a: &SizeArgs) -> CliResult<Output> {
    let classes = parse_classes(&a.classes)?;
    let mu = a.mu;
    let mut per_class = Vec::new();
    for (i, c) in classes.iter().enumerate() {
        let m = min_nodes(c.lambda(), mu, c.sla()).map_err(model)?;
        per_class.push(json!({
            "class": i + 1,
            "lambda": c.lambda(),
            "x": c.sla().x(),
            "y": c.sla().y(),
            "dedicated_nodes": m,
        }));
    }
    let all = all_strategies(&classes, mu).map_err(model)?;
    let best = all
        .iter()
        .min_by_key(|s| s.nodes)
        .ok_or_else(|| CliError::bad_input("no classes"))?;
    let cfg = HeuristicConfig {
        mu,
        ..HeuristicConfig::default()
    };
    let heuristic = match heuristic_partition(&classes, &cfg).map_err(model)? {
        Some(p) => {
            let n = nodes_for_partition(&classes, &p, mu).map_err(model)?;
            strat(&p, n)
        }
        None => Value::Null,
    };
    let mut out = json!({
        "mu": mu,
        "classes": per_class,
        "strategies": all.iter().map(|s| strat(&s.partition, s.nodes)).collect::<Vec<_>>(),
        "best": strat(&best.partition, best.nodes),
        "heuristic": heuristic,
        "discipline": format!("{:?}", a.discipline).to_lowercase(),
    });
    if a.discipline != DisciplineArg::Fcfs {
        check_sim(&a.sim, &classes)?;
        let d = discipline(a.discipline, &classes, mu, &a.sim)?;
        let sa = all
            .iter()
            .find(|s| s.partition == Partition::shared(classes.len()))
            .map_or(best.nodes, |s| s.nodes);
        let extra = sizing_steps(&a.sim, &classes, mu, sa)?;
        let n = min_nodes_sim(&classes, mu, &d, &sim_config(&a.sim), sa, extra).map_err(
            |e| match e {
                QueueError::IterationCap { cap } => CliError::bad_input(format!(
                    "no size from {sa} to {} meets every SLA under {}: the sizing is bounded \
                     by {} simulated arrivals (lower --horizon or --replications to try more \
                     sizes)",
                    sa.saturating_add(cap),
                    d.name(),
                    num(MAX_SIZING_ARRIVALS)
                )),
                other => model(other),
            },
        )?;
        out["shared_simulated"] = json!({
            "discipline": d.name(),
            "partition": Partition::shared(classes.len()).name(),
            "nodes": n,
            "seed": a.sim.seed,
        });
    }
    Ok(Output::from_json(out))
}

fn sim(a: &SimulateArgs) -> CliResult<Output> {
    let classes = parse_classes(&a.classes)?;
    limits::count("--servers", a.servers, 1, MAX_SIM_SERVERS)?;
    check_sim(&a.sim, &classes)?;
    let d = discipline(a.discipline, &classes, a.mu, &a.sim)?;
    let r = simulate(&classes, a.mu, a.servers, &d, &sim_config(&a.sim)).map_err(model)?;
    let exact = Mmm::new(classes.iter().map(|c| c.lambda()).sum(), a.mu, a.servers).ok();
    let per: Vec<Value> = r
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "class": i + 1,
                "mean_response": c.mean_response,
                "mean_response_ci95": c.mean_response_ci95,
                "sla_fraction": c.sla_fraction,
                "sla_fraction_ci95": c.sla_fraction_ci95,
                "sla_target": classes[i].sla().y(),
                "sla_met": c.sla_met,
                "completed": c.completed,
            })
        })
        .collect();
    Ok(Output::from_json(json!({
        "servers": a.servers,
        "mu": a.mu,
        "discipline": d.name(),
        "classes": per,
        "mean_in_system": r.mean_in_system,
        "mean_in_system_ci95": r.mean_in_system_ci95,
        "mean_in_system_exact": exact.map(|q| q.mean_in_system()),
        "horizon": a.sim.horizon,
        "warmup": a.sim.warmup,
        "replications": a.sim.replications,
        "seed": a.sim.seed,
    })))
}

/// Most data rows `queue size --batch` reads (a larger file is refused with exit code 2).
const MAX_BATCH_ROWS: usize = 1_000_000;

/// One data row of a `--batch` file: its line number, its text as written (one allocation
/// per row, so a million rows stay small), and the query it makes or why it makes none.
struct BatchRow {
    line: usize,
    text: String,
    query: Result<SizingQuery, String>,
}

impl BatchRow {
    /// Field `k` (0-based) as written, trimmed.
    fn field(&self, k: usize) -> Option<&str> {
        self.text.split(',').nth(k).map(str::trim)
    }
}

fn parse_batch_row(line: usize, text: &str) -> BatchRow {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let query = (|| {
        if fields.len() != 4 {
            return Err(format!(
                "expected 4 fields lambda,mu,x,y, got {}",
                fields.len()
            ));
        }
        let mut v = [0.0; 4];
        for (k, (name, f)) in ["lambda", "mu", "x", "y"].iter().zip(&fields).enumerate() {
            v[k] = f
                .parse::<f64>()
                .map_err(|_| format!("{name} {f:?} is not a number"))?;
        }
        let sla = Sla::new(v[2], v[3]).map_err(|e| e.to_string())?;
        SizingQuery::new(v[0], v[1], sla).map_err(|e| e.to_string())
    })();
    BatchRow {
        line,
        text: text.to_string(),
        query,
    }
}

/// Reads the header and the data rows (blank lines are skipped), at most [`MAX_BATCH_ROWS`].
fn read_batch(path: &str) -> CliResult<Vec<BatchRow>> {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        let f =
            std::fs::File::open(path).map_err(|e| CliError::bad_input(format!("{path}: {e}")))?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| CliError::bad_input(format!("{path}: line {}: {e}", i + 1)))?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if !header_seen {
            let names: Vec<&str> = text.split(',').map(str::trim).collect();
            if names != ["lambda", "mu", "x", "y"] {
                return Err(CliError::bad_input(format!(
                    "{path}: line {}: expected the header lambda,mu,x,y, got {text:?}",
                    i + 1
                )));
            }
            header_seen = true;
            continue;
        }
        if rows.len() == MAX_BATCH_ROWS {
            return Err(CliError::bad_input(format!(
                "{path}: more than {MAX_BATCH_ROWS} rows (the --batch bound); split the file"
            )));
        }
        rows.push(parse_batch_row(i + 1, text));
    }
    if !header_seen {
        return Err(CliError::bad_input(format!(
            "{path}: empty, expected the header lambda,mu,x,y"
        )));
    }
    Ok(rows)
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `queue size --batch`: Algorithm 1 for every row at once ([`min_nodes_batch`]).
fn size_batch(path: &str, as_json: bool) -> CliResult<Output> {
    let rows = read_batch(path)?;
    let queries: Vec<SizingQuery> = rows.iter().filter_map(|r| r.query.clone().ok()).collect();
    let mut answers = min_nodes_batch(&queries).into_iter();
    let results: Vec<Result<u64, String>> = rows
        .iter()
        .map(|r| match &r.query {
            Ok(_) => answers
                .next()
                .unwrap_or_else(|| Err(QueueError::InvalidConfig("missing answer".into())))
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        })
        .collect();
    let failed = results.iter().filter(|r| r.is_err()).count();
    let out = if as_json {
        // Serialized row by row: a `Value` of a million rows would take gigabytes.
        let mut text = String::with_capacity(96 * rows.len() + 16);
        text.push_str("{\"results\":[");
        for (i, (r, res)) in rows.iter().zip(&results).enumerate() {
            let num = |k: usize| r.field(k).and_then(|f| f.parse::<f64>().ok());
            if i > 0 {
                text.push(',');
            }
            let item = json!({
                "line": r.line,
                "lambda": num(0),
                "mu": num(1),
                "x": num(2),
                "y": num(3),
                "nodes": res.as_ref().ok(),
                "error": res.as_ref().err(),
            });
            text.push_str(&item.to_string());
        }
        text.push_str("]}");
        Output::json_text(text)
    } else {
        let mut text = String::with_capacity(32 * (rows.len() + 1));
        text.push_str("line,lambda,mu,x,y,nodes,error\n");
        for (r, res) in rows.iter().zip(&results) {
            let field = |k: usize| r.field(k).map_or(String::new(), csv_field);
            let (nodes, error) = match res {
                Ok(m) => (m.to_string(), String::new()),
                Err(e) => (String::new(), csv_field(e)),
            };
            text.push_str(&format!(
                "{},{},{},{},{},{nodes},{error}\n",
                r.line,
                field(0),
                field(1),
                field(2),
                field(3)
            ));
        }
        Output::new(Value::Null, text)
    };
    let source = if path == "-" { "stdin" } else { path };
    Ok(if failed > 0 {
        out.partly_failed(format!(
            "{failed} of {} rows of {source} failed (see their error field)",
            rows.len()
        ))
    } else {
        out
    })
}
