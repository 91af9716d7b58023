//! Cross-crate robustness: random and hostile inputs through the `slarm` facade.
//!
//! - Every public constructor and validator of every library crate gets random parameters from
//!   [`Gen::nasty`] (NaN, ±inf, ±0, subnormal, huge, negative and ordinary values) and must
//!   return `Ok` or a typed error, never panic; when it returns `Ok`, the validated object must
//!   satisfy its documented invariants (probabilities in [0, 1], stable queues, ...).
//! - The SWF reader gets random bytes and randomly corrupted real SWF lines (strict: a job or a
//!   typed error naming the file; lenient: a counted skip, never an error for a bad job line).
//! - Every scheduler gets random small workloads and its outcomes are checked against
//!   invariants: FCFS/EASY/conservative ([`sim`]), Libra, Libra+$ and the three EASY
//!   baselines ([`pricing`]), the four overbooking strategies ([`overbook`]), the grid
//!   strategies and scheduling policies ([`grid`]), Sung's provisioning policies
//!   ([`provision`]).
//!
//! Parameters that set an amount of work (horizons, job counts, numbers of nodes) are drawn
//! from bounded ranges, with zero, negative and non-finite values still tried: a valid but
//! astronomically large request is a long computation, not bad input.
//!
//! The facade has no proptest dependency, so the cases come from a small deterministic
//! generator over `slarm::stats::rng::splitmix64` (fixed seeds: a failure names its case and
//! reproduces exactly). Each property prints one `robustness:` line with its counts (run with
//! `--nocapture`); docs/reliability.md lists them.

// Test helpers outside #[test] functions build valid fixtures; a failed unwrap there is a
// test failure, which is what it should be.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod grid;
mod overbook;
mod pricing;
mod provision;
mod queueing;
mod reader;
mod report;
mod sim;
mod stats;
mod workload;

use std::fmt::Display;

use slarm::stats::rng::splitmix64;

/// Cases per constructor property.
pub const CASES: u64 = 2000;
/// Cases per reader property (each parses a whole small trace twice).
pub const READER_CASES: u64 = 500;
/// Cases per scheduler property (each simulates several small workloads).
pub const SCHEDULER_CASES: u64 = 200;

/// A deterministic case generator (SplitMix64 chain).
pub struct Gen(u64);

impl Gen {
    fn new(test: &str, case: u64) -> Self {
        let seed = test.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Gen(splitmix64(seed ^ splitmix64(case)))
    }
    /// The next raw 64-bit value.
    pub fn u64(&mut self) -> u64 {
        self.0 = splitmix64(self.0);
        self.0
    }
    /// Uniform on `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.u64() % n
        }
    }
    /// Uniform on `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.u64() & 1 == 1
    }
    /// Uniform on [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform on [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Special values half of the time, ordinary ranges otherwise.
    pub fn nasty(&mut self) -> f64 {
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
    /// A hostile value most of the time, a value in `[lo, hi)` otherwise, so that the
    /// properties also reach the code behind the validation.
    pub fn mostly(&mut self, lo: f64, hi: f64) -> f64 {
        if self.below(3) == 0 {
            self.nasty()
        } else {
            self.uniform(lo, hi)
        }
    }
    /// A hostile count: 0, 1, a small or a huge value.
    pub fn count(&mut self, small: u64) -> u64 {
        match self.below(6) {
            0 => 0,
            1 => 1,
            2 => u64::MAX >> self.below(4),
            _ => self.below(small + 1),
        }
    }
    /// 0 to `max` random bytes.
    pub fn bytes(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.u64() as u8).collect()
    }
    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// What one property tried and what the calls returned.
#[derive(Debug, Default)]
pub struct Tally {
    name: &'static str,
    /// The case being run (for assertion messages).
    pub case: u64,
    cases: u64,
    calls: u64,
    ok: u64,
    errors: u64,
}

impl Tally {
    /// Records one fallible call: `Some` on `Ok`; a typed error must say something.
    pub fn call<T, E: Display>(&mut self, r: Result<T, E>) -> Option<T> {
        self.calls += 1;
        match r {
            Ok(v) => {
                self.ok += 1;
                Some(v)
            }
            Err(e) => {
                self.errors += 1;
                assert!(
                    !e.to_string().is_empty(),
                    "{} case {}: empty error message",
                    self.name,
                    self.case
                );
                None
            }
        }
    }
    /// Records one infallible call (it returned, so it did not panic).
    pub fn infallible(&mut self) {
        self.calls += 1;
        self.ok += 1;
    }
    /// `Ok` calls so far.
    pub fn oks(&self) -> u64 {
        self.ok
    }
    /// Typed errors so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }
    /// A label for assertion messages.
    pub fn at(&self) -> String {
        format!("{} case {}", self.name, self.case)
    }
}

/// Runs `body` for `cases` generated cases of property `name`, prints the counts and checks
/// that the property reached both outcomes (some `Ok`, some typed error) unless `both` is
/// false (schedulers on valid workloads).
pub fn property(
    name: &'static str,
    cases: u64,
    both: bool,
    mut body: impl FnMut(&mut Gen, &mut Tally),
) -> Tally {
    let mut t = Tally {
        name,
        ..Tally::default()
    };
    for case in 0..cases {
        let mut g = Gen::new(name, case);
        t.case = case;
        t.cases += 1;
        body(&mut g, &mut t);
    }
    eprintln!(
        "robustness: {name}: {} cases, {} calls: {} Ok, {} typed errors, 0 panics",
        t.cases, t.calls, t.ok, t.errors
    );
    assert!(t.ok > 0, "{name}: no call ever succeeded");
    if both {
        assert!(t.errors > 0, "{name}: no call was ever rejected");
    }
    t
}

/// Asserts that jobs given as `(time, +procs)` start and `(time, -procs)` end events never
/// hold more than `capacity` processors at once (ends before starts at equal times).
pub fn assert_within_capacity(mut events: Vec<(f64, i64)>, capacity: i64, at: &str) {
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut used = 0;
    for (time, delta) in events {
        used += delta;
        assert!(used <= capacity, "{at}: {used} > {capacity} busy at {time}");
    }
}
