//! A downstream user on rand 0.10 that passes its own `rand::rngs::StdRng` to three slarm
//! generators and checks what they return: the synthetic SWF workload model (calibrated
//! preset of CTC-SP2), the Iosup et al. bag-of-tasks model of Yigitbasi & Epema (2010, §V-A)
//! and the arrival profile of Sung (2006, §5.1.1, Eq. 5.1). Each check is exact (a structural
//! property or a same-seed-same-output identity) or a sample mean against the model's own
//! expectation within four standard errors.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use slarm_grid::platform::Platform;
use slarm_grid::workload::{ArrivalScale, IosupBotModel, TABLE2_MEAN_IAT_S, TABLE2_MEAN_RUNTIME_S};
use slarm_provision::ArrivalProfile;
use slarm_workload::synth::preset_for;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn ensure(ok: bool, what: String) -> Res<()> {
    if ok {
        Ok(())
    } else {
        Err(what.into())
    }
}

/// Mean and standard error of the mean.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// `observed` is within four standard errors of `expected`.
fn near(name: &str, observed: (f64, f64), expected: f64) -> Res<()> {
    let (m, se) = observed;
    ensure(
        (m - expected).abs() <= 4.0 * se,
        format!("{name}: sample mean {m} is not within 4 x {se} of the model's {expected}"),
    )
}

fn workload(seed: u64) -> Res<String> {
    let preset = preset_for("CTC-SP2-1996-3.1-cln.swf.gz").ok_or("no CTC-SP2 preset")?;
    let model = preset.model(5000);
    let w = model.generate(&mut StdRng::seed_from_u64(seed))?;
    ensure(w.jobs.len() == 5000, format!("{} jobs, not 5000", w.jobs.len()))?;
    ensure(w.jobs.first().map(|j| j.submit) == Some(0.0), "first submit is not at 0".into())?;
    ensure(
        (1..w.jobs.len()).all(|i| w.jobs.submit(i - 1) <= w.jobs.submit(i)),
        "submit times go backwards".into(),
    )?;
    ensure(
        w.jobs.iter().all(|j| {
            j.runtime > 0.0 && j.procs() >= 1 && j.procs() <= i64::from(model.machine_procs)
        }),
        "a job with no run time or a width outside the machine".into(),
    )?;
    // Inter-arrival gaps are exponential with the preset's mean.
    let gaps: Vec<f64> = (1..w.jobs.len()).map(|i| w.jobs.submit(i) - w.jobs.submit(i - 1)).collect();
    near("workload inter-arrival (s)", mean_se(&gaps), model.mean_interarrival_s)?;
    // Same seed, same workload.
    let again = model.generate(&mut StdRng::seed_from_u64(seed))?;
    ensure(again.jobs == w.jobs, "same seed gave a different workload".into())?;
    Ok(format!("workload {} jobs", w.jobs.len()))
}

fn bots(rng: &mut StdRng) -> Res<String> {
    let model = IosupBotModel::default().with_mean_runtime(TABLE2_MEAN_RUNTIME_S)?;
    let n = 400;
    let bots = model.generate_scaled(
        n,
        ArrivalScale::MeanInterArrival(TABLE2_MEAN_IAT_S),
        &Platform::das3(),
        rng,
    )?;
    ensure(bots.len() == n, format!("{} BoTs, not {n}", bots.len()))?;
    ensure(bots[0].arrival_s == 0.0, "first BoT does not arrive at 0".into())?;
    ensure(
        bots.windows(2).all(|p| p[0].arrival_s <= p[1].arrival_s),
        "BoT arrivals go backwards".into(),
    )?;
    let mean_iat = bots[n - 1].arrival_s / (n - 1) as f64;
    ensure(
        (mean_iat - TABLE2_MEAN_IAT_S).abs() < 1e-9 * TABLE2_MEAN_IAT_S,
        format!("mean inter-arrival {mean_iat} s, not {TABLE2_MEAN_IAT_S} s"),
    )?;
    let cap = model.max_runtime_s.unwrap_or(f64::INFINITY);
    let runtimes: Vec<f64> = bots
        .iter()
        .flat_map(|b| b.tasks.iter().map(|t| t.runtime_ref_s))
        .collect();
    ensure(
        bots.iter().all(|b| !b.tasks.is_empty())
            && runtimes.iter().all(|&r| r > 0.0 && r <= cap),
        "an empty BoT or a task runtime outside (0, cap]".into(),
    )?;
    near("BoT task runtime (s)", mean_se(&runtimes), model.expected_runtime_s())?;
    Ok(format!("{n} BoTs, {} tasks", runtimes.len()))
}

fn arrivals(rng: &mut StdRng) -> Res<String> {
    let profile = ArrivalProfile::thesis();
    let streams = 300;
    let mut counts = Vec::with_capacity(streams);
    for _ in 0..streams {
        let s = profile.generate(rng);
        ensure(
            s.windows(2).all(|p| p[0] <= p[1]) && s.iter().all(|&t| (0.0..=57_600.0).contains(&t)),
            "an arrival stream out of order or outside [0, 57,600] s".into(),
        )?;
        counts.push(s.len() as f64);
    }
    near("arrivals per stream", mean_se(&counts), profile.expected_count())?;
    Ok(format!("{streams} arrival streams"))
}

fn main() -> std::process::ExitCode {
    // The downstream's own generator: its seed comes from its own draws.
    let mut rng = StdRng::seed_from_u64(20_260_208);
    let seed: u64 = rng.random();
    let mut run = || -> Res<String> {
        let a = workload(seed)?;
        let b = bots(&mut rng)?;
        let c = arrivals(&mut rng)?;
        Ok(format!("{a}; {b}; {c}"))
    };
    match run() {
        Ok(line) => {
            println!("downstream ok (rand 0.10 StdRng): {line}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("downstream (rand 0.10): {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
