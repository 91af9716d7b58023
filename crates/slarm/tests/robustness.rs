//! Cross-crate robustness (issue 10): random and hostile inputs through the `slarm` facade.
//!
//! Every public constructor gets random model parameters from [`Gen::nasty`] (NaN, ±inf,
//! ±0, subnormal, huge, negative and ordinary values) and must return `Ok` or a typed error,
//! never panic; when it returns `Ok`, the validated object must satisfy its documented
//! invariants (probabilities in [0, 1], stable queues, ...). The SWF reader gets random
//! bytes and randomly corrupted real SWF lines (strict: a job or a typed error naming the
//! line; lenient: a counted skip, never an error for a bad job line).
//!
//! The facade has no proptest dependency, so the cases come from a small deterministic
//! generator over `slarm::stats::rng::splitmix64` (fixed seeds: a failure names its case
//! and reproduces exactly). Case counts are the constants below; docs/reliability.md lists
//! them.

use slarm::stats::rng::splitmix64;

/// Cases per constructor property.
const CASES: u64 = 2000;
/// Cases per reader property (each parses a whole small trace twice).
const READER_CASES: u64 = 500;
/// Cases per scheduler property (each simulates 8 small batteries).
const SCHEDULER_CASES: u64 = 200;

/// A deterministic case generator (SplitMix64 chain).
struct Gen(u64);

impl Gen {
    fn new(test: &str, case: u64) -> Self {
        let seed = test.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Gen(splitmix64(seed ^ splitmix64(case)))
    }
    fn u64(&mut self) -> u64 {
        self.0 = splitmix64(self.0);
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.u64() % n
        }
    }
    fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Special values half of the time, ordinary ranges otherwise.
    fn nasty(&mut self) -> f64 {
        const SPECIAL: [f64; 12] = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE / 2.0,
            f64::MAX,
            f64::MIN,
            1e-300,
            1e300,
            -1.0,
            1.0,
        ];
        match self.below(4) {
            0 | 1 => SPECIAL[self.below(SPECIAL.len() as u64) as usize],
            2 => (self.unit() - 0.5) * 2e6,
            _ => self.unit() * 100.0,
        }
    }
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.u64() as u8).collect()
    }
}

/// Runs `body` for `cases` generated cases of property `name`.
fn property(name: &str, cases: u64, mut body: impl FnMut(&mut Gen, u64)) {
    for case in 0..cases {
        let mut g = Gen::new(name, case);
        body(&mut g, case);
    }
}

mod stats {
    use super::*;
    use slarm::stats::{ks_test, ConfidenceInterval, Ecdf, GridDist, Rounding};

    #[test]
    fn grid_dist_constructors_never_panic() {
        property("grid_dist", CASES, |g, case| {
            let (origin, step) = (g.nasty(), g.nasty());
            let n = g.below(8);
            let masses: Vec<f64> = (0..n).map(|_| g.nasty()).collect();
            for d in [
                GridDist::new(origin, step, masses.clone()),
                GridDist::defective(origin, step, masses.clone()),
            ]
            .into_iter()
            .flatten()
            {
                assert!(d.step() > 0.0 && d.step().is_finite(), "case {case}");
                assert!(
                    d.masses().iter().all(|m| m.is_finite() && *m >= 0.0),
                    "case {case}"
                );
                assert!(
                    d.cdf_values()
                        .iter()
                        .all(|c| (0.0..=1.0 + 1e-9).contains(c)),
                    "case {case}"
                );
            }
            if let Ok(d) = GridDist::dirac(origin, step) {
                assert!((d.total_mass() - 1.0).abs() < 1e-12, "case {case}");
            }
            let _ = GridDist::from_cdf(origin, step, &masses);
        });
    }

    #[test]
    fn grid_dist_operations_never_panic() {
        let d = GridDist::new(0.0, 60.0, vec![0.25, 0.5, 0.25]).unwrap();
        property("grid_ops", CASES, |g, case| {
            let (a, b) = (g.nasty(), g.nasty());
            let _ = d.shift(a);
            // Steps far finer than the grid overflow: see the ignored test below.
            if b.abs() >= 1e-3 {
                let _ = d.rebin(b, Rounding::Up);
            }
            // Kill times far beyond the grid overflow: see the ignored test below.
            if a.abs() < 1e9 {
                let _ = d.truncate_at(a);
            }
            let _ = d.given_exceeds(b);
            if let Ok(q) = d.quantile(a) {
                assert!(q.is_finite(), "case {case}");
            }
            let c = d.cdf(b);
            assert!(
                c.is_nan() || (0.0..=1.0).contains(&c),
                "case {case}: cdf {c}"
            );
            let _ = (d.pmf(a), d.survival(b));
        });
    }

    /// Found by this file: `GridDist::truncate_at` with a kill time far beyond the grid
    /// (here 1e300 s) and `rebin`/`regrid` onto a subnormal step overflow the bin index
    /// (`k + 1`, `max_k + 1`) in debug builds (panic) and would otherwise try to allocate
    /// that many bins. Owner: slarm-stats. Run with `--ignored` once fixed.
    #[test]
    #[ignore = "known defect in slarm-stats: bin index overflow in truncate_at / regrid"]
    fn truncate_at_far_beyond_the_grid() {
        let d = GridDist::new(0.0, 60.0, vec![0.25, 0.5, 0.25]).unwrap();
        let _ = d.rebin(f64::MIN_POSITIVE, Rounding::Up);
        let _ = d.truncate_at(1e300);
        let defective = GridDist::defective(0.0, 60.0, vec![0.25, 0.5]).unwrap();
        let _ = defective.truncate_at(1e300);
    }

    #[test]
    fn intervals_and_ecdf_never_panic() {
        property("intervals", CASES, |g, case| {
            let n = g.below(6);
            let samples: Vec<f64> = (0..n).map(|_| g.nasty()).collect();
            let (level, mean, var) = (g.nasty(), g.nasty(), g.nasty());
            if let Ok(ci) = ConfidenceInterval::of_samples(&samples, level) {
                assert!(ci.level > 0.0 && ci.level < 1.0, "case {case}");
            }
            let _ = ConfidenceInterval::from_summary(mean, var, g.below(5), level);
            if let Ok(e) = Ecdf::new(&samples) {
                assert!((0.0..=1.0).contains(&e.eval(mean)), "case {case}");
            }
            if let Ok(ks) = ks_test(&samples, |x: f64| x.clamp(0.0, 1.0)) {
                assert!((0.0..=1.0).contains(&ks.d), "case {case}");
            }
        });
    }
}

mod queueing {
    use super::*;
    use slarm::queueing::{erlang_b, erlang_c, min_nodes, JobClass, Mmm, Sla};

    #[test]
    fn mmm_and_erlang_never_panic() {
        property("mmm", CASES, |g, case| {
            let (lambda, mu, x) = (g.nasty(), g.nasty(), g.nasty());
            let m = g.below(2000);
            if let Ok(q) = Mmm::new(lambda, mu, m) {
                assert!((m as f64) > q.rho(), "case {case}");
                assert!((0.0..=1.0).contains(&q.erlang_c()), "case {case}");
                let f = q.response_cdf(x);
                if !x.is_nan() {
                    assert!(
                        (-1e-12..=1.0 + 1e-12).contains(&f),
                        "case {case}: Mmm({lambda}, {mu}, {m}).response_cdf({x}) = {f}"
                    );
                }
                assert!(q.mean_response() > 0.0, "case {case}");
            }
            if let Ok(b) = erlang_b(m, lambda) {
                assert!((0.0..=1.0).contains(&b), "case {case}: B {b}");
            }
            if let Ok(c) = erlang_c(m, lambda) {
                assert!((0.0..=1.0).contains(&c), "case {case}: C {c}");
            }
        });
    }

    /// Found by this file (fixed in slarm-queueing): when `rho > m - 1`, `response_cdf(x)`
    /// was NaN once `(rho - m + 1) mu x > ~709`, `e^{-mu x}` underflowing to 0 while
    /// `phi(z)` overflowed (M/M/2 with rho = 1.5 at x = 1500 mean service times, where
    /// F = 1), and with `mu = f64::MAX`.
    #[test]
    fn response_cdf_far_in_the_tail_is_a_probability() {
        for (lambda, mu, m, x) in [(1.5, 1.0, 2, 1500.0), (20.83, f64::MAX, 73, 52_252.3)] {
            let f = Mmm::new(lambda, mu, m).unwrap().response_cdf(x);
            assert!(
                (0.0..=1.0).contains(&f),
                "Mmm({lambda}, {mu}, {m}).response_cdf({x}) = {f}"
            );
        }
    }

    #[test]
    fn sla_class_and_sizing_never_panic() {
        property("sla", CASES, |g, case| {
            let (x, y, lambda, mu) = (g.nasty(), g.nasty(), g.nasty(), g.nasty());
            let Ok(sla) = Sla::new(x, y) else { return };
            assert!(sla.x() > 0.0 && sla.x().is_finite(), "case {case}");
            assert!(sla.y() > 0.0 && sla.y() < 1.0, "case {case}");
            if let Ok(c) = JobClass::new(lambda, sla) {
                assert!(c.lambda() >= 0.0 && c.lambda().is_finite(), "case {case}");
            }
            // Only loads the sizing answers quickly; larger ones are capped by the crate.
            if lambda.abs() < 1e4 && mu.abs() > 1e-2 {
                if let Ok(m) = min_nodes(lambda, mu, sla) {
                    if m > 0 {
                        let q = Mmm::new(lambda, mu, m).unwrap();
                        assert!(q.response_cdf(sla.x()) >= sla.y(), "case {case}");
                    }
                }
            }
        });
    }
}

mod workload {
    use super::*;
    use slarm::workload::reader::{read_trace, read_trace_from, ReadOptions};
    use slarm::workload::{Job, Workload};

    /// Real SWF job lines (the first jobs of KTH-SP2) when the trace folder is present.
    fn real_lines() -> Result<Vec<String>, String> {
        let dir = std::env::var_os("SLARM_TRACES")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/traces").into()
            });
        let path = dir.join("KTH-SP2-1996-2.1-cln.swf.gz");
        if !path.is_file() {
            eprintln!(
                "robustness: {} absent; corrupting synthetic SWF lines instead",
                path.display()
            );
            return Ok((1..=50)
                .map(|i| {
                    Job::new(
                        i,
                        i as f64 * 30.0,
                        100.0 * i as f64,
                        1 + (i % 8) as i64,
                        200.0 * i as f64,
                    )
                })
                .map(|j| fields_line(&j))
                .collect());
        }
        let trace = read_trace(&path, ReadOptions::default()).map_err(|e| e.to_string())?;
        Ok(trace.jobs.iter().take(200).map(fields_line).collect())
    }

    fn fields_line(j: &Job) -> String {
        j.to_fields()
            .iter()
            .map(|v| format!("{v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    const JUNK: [&str; 10] = [
        "x",
        "-",
        "1e999",
        "NaN",
        "\u{0}",
        "99999999999999999999",
        "-0",
        "; c",
        "",
        "\u{fffd}\t",
    ];

    /// One corruption: replace, drop or duplicate a field, splice junk bytes, truncate.
    fn corrupt(g: &mut Gen, line: &str) -> String {
        let mut f: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let junk = JUNK[g.below(JUNK.len() as u64) as usize];
        let i = g.below(f.len().max(1) as u64) as usize;
        match g.below(5) {
            0 if !f.is_empty() => f[i] = junk.to_string(),
            1 if !f.is_empty() => {
                f.remove(i);
            }
            2 => f.insert(i.min(f.len()), junk.to_string()),
            3 => {
                let cut = line
                    .char_indices()
                    .map(|(k, _)| k)
                    .nth(g.below(line.len() as u64) as usize)
                    .unwrap_or(0);
                return format!("{}{}{}", &line[..cut], junk, &line[cut..]);
            }
            _ => f.truncate(i),
        }
        f.join(" ")
    }

    fn read_both(input: &[u8]) {
        for lenient in [false, true] {
            match read_trace_from(
                std::io::Cursor::new(input.to_vec()),
                "fuzz.swf",
                ReadOptions { lenient },
            ) {
                Ok(trace) => {
                    if let Ok(w) = Workload::from_trace(trace, None) {
                        assert!(w.jobs.iter().all(|j| j.procs() > 0));
                    }
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        property("random_bytes", READER_CASES, |g, _| {
            read_both(&g.bytes(512))
        });
    }

    #[test]
    fn gzip_magic_with_junk_never_panics() {
        property("gzip_junk", READER_CASES, |g, _| {
            let mut input = vec![0x1f, 0x8b, 0x08, 0x00];
            input.extend(g.bytes(256));
            read_both(&input);
        });
    }

    #[test]
    fn corrupted_real_lines_give_typed_errors_or_counted_skips() {
        let lines = real_lines().unwrap();
        let (mut strict_errors, mut skipped) = (0u64, 0u64);
        property("corrupt_lines", READER_CASES, |g, case| {
            let start = g.below(lines.len().saturating_sub(30) as u64) as usize;
            let window = &lines[start..(start + 30).min(lines.len())];
            let bad = 1 + g.below(3);
            let mut text = String::from("; MaxProcs: 100\n");
            for (n, line) in window.iter().enumerate() {
                if (n as u64) < bad {
                    text.push_str(&corrupt(g, line));
                } else {
                    text.push_str(line);
                }
                text.push('\n');
            }
            let read = |lenient| {
                read_trace_from(
                    std::io::Cursor::new(text.clone().into_bytes()),
                    "c.swf",
                    ReadOptions { lenient },
                )
            };
            let lenient =
                read(true).unwrap_or_else(|e| panic!("case {case}: lenient read failed: {e}"));
            match read(false) {
                Ok(strict) => assert_eq!(strict.jobs.len(), lenient.jobs.len(), "case {case}"),
                Err(e) => {
                    strict_errors += 1;
                    assert!(
                        e.to_string().contains("c.swf"),
                        "case {case}: error names no file: {e}"
                    );
                    assert!(
                        lenient.skipped_lines > 0,
                        "case {case}: strict failed ({e}) but lenient skipped nothing"
                    );
                }
            }
            skipped += lenient.skipped_lines;
        });
        eprintln!("robustness: corrupted lines: {strict_errors} strict errors, {skipped} lenient skips over {READER_CASES} traces");
        assert!(strict_errors > 0, "the corruptions never produced an error");
    }
}

mod sim {
    use super::*;
    use slarm::sim::machine::Machine;
    use slarm::sim::profile::Profile;

    #[test]
    fn machine_and_profile_never_panic() {
        property("machine", CASES, |g, case| {
            let procs = g.below(5000) as u32;
            if Machine::processors(procs).is_ok() {
                assert!(procs > 0, "case {case}");
            }
            let _ = Machine::nodes(g.below(100) as u32, procs);
            let _ = Profile::new(procs, g.nasty());
        });
    }
}

mod pricing {
    use super::*;
    use slarm::pricing::node::Node;
    use slarm::pricing::pricing::{FixedRate, LibraPlusDollar, LibraStatic, ResourceWindow};
    use slarm::pricing::spec::{Job, JobSpec, Urgency};

    #[test]
    fn pricing_constructors_never_panic() {
        property("pricing", CASES, |g, case| {
            let (a, b, c) = (g.nasty(), g.nasty(), g.nasty());
            let _ = LibraPlusDollar::new(a, b, c);
            let _ = LibraStatic::new(a, b);
            let _ = FixedRate::new(a);
            if let Ok(w) = ResourceWindow::new(a, b, c) {
                // Finite inputs near f64::MAX may sum to -inf; never NaN.
                assert!(
                    !w.free().is_nan(),
                    "case {case}: window ({a}, {b}, {c}) free {}",
                    w.free()
                );
            }
            let _ = Node::new(3, a).and_then(|n| n.with_capacity(b, c));
        });
    }

    #[test]
    fn job_spec_and_job_never_panic() {
        property("job_spec", CASES, |g, case| {
            let (est, deadline, budget) = (g.nasty(), g.nasty(), g.nasty());
            let procs = g.below(64) as u32;
            if let Ok(spec) = JobSpec::simple(1, est, procs, deadline, budget) {
                assert!(procs > 0, "case {case}");
                let _ = Job::new(spec, g.nasty(), g.nasty(), Urgency::High);
            }
        });
    }
}

mod overbook {
    use super::*;
    use slarm::overbook::acceptance::{PofThreshold, RiskTest};
    use slarm::overbook::failure::FailureModel;

    #[test]
    fn failure_and_acceptance_never_panic() {
        property("overbook", CASES, |g, case| {
            let (a, b, t) = (g.nasty(), g.nasty(), g.nasty());
            if let Ok(m) = FailureModel::exponential(a, b) {
                let s = m.survival(t.abs());
                assert!(
                    s.is_nan() || (0.0..=1.0).contains(&s),
                    "case {case}: survival {s}"
                );
                assert!((0.0..=1.0).contains(&m.availability()), "case {case}");
            }
            if let Ok(p) = PofThreshold::new(a) {
                assert!((0.0..=1.0).contains(&p.max()), "case {case}");
            }
            let _ = RiskTest::with_security(a);
            if let Ok(g) = slarm::overbook::grid::TimeGrid::new(a) {
                assert!(g.step() > 0.0 && g.step().is_finite(), "case {case}");
            }
        });
    }
}

mod overbook_schedulers {
    use super::*;
    use slarm::overbook::acceptance::TestSpec;
    use slarm::overbook::classes::{ClassRegistry, RegistryConfig};
    use slarm::overbook::job::Job;
    use slarm::overbook::sim::{simulate_battery, SimConfig};
    use slarm::overbook::strategy::Strategy;

    /// Random small batteries (4-24 jobs, estimates 1-120 min, real runtimes from a tenth
    /// of to past the estimate, up to cluster + 1 nodes) under all four strategies: every
    /// job ends in exactly one final state, the counts add up, money is finite and >= 0.
    #[test]
    fn every_strategy_accounts_for_every_job() {
        let (mut ok, mut overbooked, mut errors) = (0u64, 0usize, 0u64);
        property("overbook_battery", SCHEDULER_CASES, |g, case| {
            let cluster = 1 + g.below(8) as usize;
            let n = 4 + g.below(21);
            let mut t = 0i64;
            let jobs: Vec<Job> = (0..n)
                .map(|i| {
                    t += g.below(1800) as i64;
                    let est = 60 * (1 + g.below(120) as i64);
                    let run = (est as f64 * (0.1 + 1.1 * g.unit())).max(1.0) as i64;
                    let nodes = 1 + g.below(cluster as u64 + 1) as usize;
                    Job::with_sla(i, t, est, run, nodes, 2.0 * g.unit()).unwrap()
                })
                .collect();
            let reg = ClassRegistry::learn(&jobs, RegistryConfig::default()).unwrap();
            for strategy in [
                Strategy::CompBackfill,
                Strategy::HeurPlan,
                Strategy::CompOverbook,
                Strategy::HeurOverbook,
            ] {
                for test in [TestSpec::Pof { max: g.unit() }, TestSpec::Pof { max: 0.0 }] {
                    let cfg = SimConfig::new(strategy, test);
                    match simulate_battery(&jobs, cluster, &reg, &[], &cfg) {
                        Ok(r) => {
                            ok += 1;
                            overbooked += r.overbooked;
                            let what = format!("case {case}: {strategy:?} cluster {cluster}");
                            assert_eq!(r.successful + r.failed + r.dropped, jobs.len(), "{what}");
                            assert_eq!(r.outcomes.len(), jobs.len(), "{what}");
                            let mut ids: Vec<u64> = r.outcomes.iter().map(|o| o.id).collect();
                            ids.sort_unstable();
                            ids.dedup();
                            assert_eq!(ids.len(), jobs.len(), "{what}: a job reported twice");
                            assert!(
                                r.outcomes.iter().all(|o| o.state.is_final()),
                                "{what}: a job not in a final state"
                            );
                            assert!(r.overbooked <= r.successful + r.failed, "{what}");
                            for v in [r.fees, r.penalties, r.failed_fees] {
                                assert!(v.is_finite() && v >= 0.0, "{what}: money {v}");
                            }
                        }
                        Err(e) => {
                            errors += 1;
                            assert!(!e.to_string().is_empty());
                        }
                    }
                }
            }
        });
        eprintln!("robustness: overbook batteries: {ok} simulated, {errors} typed errors, {overbooked} overbooked jobs");
        assert!(
            ok > 0 && overbooked > 0,
            "the batteries never exercised overbooking"
        );
    }
}

mod provision {
    use super::*;
    use slarm::provision::{Cost, CostShape, Params};

    #[test]
    fn params_and_cost_never_panic() {
        property("provision", CASES, |g, case| {
            let mut p = Params::thesis();
            p.delta_secs = g.nasty();
            p.y = g.nasty();
            p.mean_service_secs = g.nasty();
            p.penalty_factor = g.nasty();
            p.u = g.below(200) as usize;
            p.d = g.below(200) as usize;
            p.p_min = g.below(50) as usize;
            p.p_max = g.below(50) as usize;
            if let Ok(v) = p.validated() {
                assert!(v.u < v.d && v.p_min <= v.p_max, "case {case}");
                assert!(v.y > 0.0 && v.y <= 1.0, "case {case}");
            }
            let _ = Cost::preset(
                CostShape::Quadratic1,
                g.below(200) as usize,
                g.nasty(),
                g.nasty(),
            );
        });
    }
}

mod grid {
    use super::*;
    use slarm::grid::kappa::Kappa;
    use slarm::grid::platform::Platform;

    #[test]
    fn kappa_and_platform_never_panic() {
        property("grid", CASES, |g, case| {
            let (num, den) = (g.below(50), g.below(50));
            if Kappa::new(num, den).is_ok() {
                assert!(den > 0 && num >= den, "case {case}");
            }
            let _ = Kappa::from_f64(g.nasty());
            let sites: Vec<(String, u64, f64)> = (0..g.below(4))
                .map(|i| (format!("s{i}"), g.below(1000), g.nasty()))
                .collect();
            let _ = Platform::new(sites);
        });
    }
}
