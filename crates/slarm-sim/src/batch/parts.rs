//! [`simulate_in_parts`]: one batch simulation run as several, split where the machine is
//! idle.
//!
//! At an instant when no job runs, none waits and no event is pending, what happens next
//! depends only on the jobs that arrive from then on, for a policy that keeps nothing of
//! the jobs before ([`SchedulingPolicy::fresh_when_idle`]). A log whose quiet hours empty
//! the machine (a weekend, a maintenance) is then several independent simulations. Where
//! the idle instants fall is known only by simulating, so the parts are guessed, run at
//! once, and checked: each part runs up to the next part's first arrival; if it is idle
//! there, the next part's run is its continuation; if not, that run is thrown away and the
//! part goes on through the next part's jobs itself. The schedule is the one
//! [`simulate_with`](super::simulate_with) gives, bit for bit, whatever the number of parts
//! and threads.

use std::cmp::Reverse;

use slarm_workload::JobTable;

use super::{
    check_lengths, prepare, simulate_with, ArrivalOrder, Ev, JobSource, QueueOrder, Ran, Schedule,
    State,
};
use crate::error::Result;
use crate::kernel::Simulation;
use crate::policy::{OrdF64, SchedulingPolicy};

/// A part of the run: its state and kernel, simulated up to the next part's first arrival.
struct Part<'a, P: ?Sized> {
    state: State<'a, P>,
    sim: Simulation<Ev>,
}

/// The first arrival of the rows from `to` on (none: the run's end).
fn horizon(jobs: &JobTable, to: usize) -> f64 {
    if to < jobs.len() {
        jobs.submit(to)
    } else {
        f64::INFINITY
    }
}

impl<'a, P: SchedulingPolicy + ?Sized> Part<'a, P> {
    /// Simulates the rows `from..to` (in arrival order) from an idle machine at the first
    /// one's arrival, up to the first arrival after them.
    fn run(
        jobs: &JobTable,
        capacity: u32,
        policy: &'a mut P,
        order: &'a QueueOrder,
        expiry: Option<&'a [f64]>,
        (from, to): (usize, usize),
    ) -> Result<Self> {
        let mut state = State::new(capacity, policy, order, expiry)?;
        state.base = from;
        let origin = jobs.submit(from);
        state.policy.begin(capacity, origin)?;
        let mut part = Self {
            state,
            sim: Simulation::starting_at(origin),
        };
        part.extend(jobs, to)?;
        Ok(part)
    }

    /// Every job of the part arrived, none runs or waits and no event is pending: the run
    /// stopped at an idle instant.
    fn idle(&mut self) -> bool {
        let state = &self.state;
        state.arrival_order.get(state.next_arrival).is_none()
            && state.queue.is_empty()
            && self.sim.peek_key().is_none()
    }

    /// Goes on through the rows up to `to`, up to the first arrival after them.
    fn extend(&mut self, jobs: &JobTable, to: usize) -> Result<()> {
        let from = self.state.base;
        self.state.arrival_order = ArrivalOrder::Slice { from, to };
        self.state.know(jobs, to);
        self.state.run(jobs, &mut self.sim, horizon(jobs, to))
    }

    fn ran(self) -> Ran {
        Ran {
            start: self.state.start,
            reservation: self.state.reservation,
            started: self.state.started,
            expired: self.state.expired,
            events: self.sim.delivered(),
        }
    }
}

/// Where the machine is idle under FCFS without backfilling, and how much work lies
/// between: a guess at the idle instants of the backfilling policies, which drain the queue
/// sooner, that costs a heap of running jobs and no events ([`simulate_in_parts`] checks
/// each guess).
#[derive(Debug, PartialEq)]
struct Guess {
    /// Each row (in arrival order) at whose arrival every job before it has ended, with the
    /// work of the rows before it.
    idle: Vec<(usize, u64)>,
    /// The work of all rows: one for each job and one for each job waiting when it arrives
    /// (a planning policy's compression visits every waiting job).
    work: u64,
}

impl Guess {
    /// Jobs start in arrival order, each when it has arrived, the one before it has
    /// started and its processors are free.
    fn of(jobs: &JobTable, capacity: u32) -> Self {
        // Running jobs by end, earliest first.
        let mut running = std::collections::BinaryHeap::new();
        // Start times of the jobs not started at the last arrival (ascending).
        let mut waiting = std::collections::VecDeque::new();
        let (mut free, mut clock) = (capacity, f64::NEG_INFINITY);
        let (mut busy_until, mut idle, mut work) = (f64::NEG_INFINITY, Vec::new(), 0u64);
        for i in 0..jobs.len() {
            let submit = jobs.submit(i);
            if i > 0 && busy_until < submit {
                idle.push((i, work));
            }
            while waiting.front().is_some_and(|&start| start <= submit) {
                waiting.pop_front();
            }
            work += 1 + waiting.len() as u64;
            clock = clock.max(submit);
            // `prepare` checked that the processors lie in 1..=capacity.
            let procs = jobs.procs(i) as u32;
            while let Some(&Reverse((OrdF64(end), p))) = running.peek() {
                if free >= procs && end > clock {
                    break;
                }
                clock = clock.max(end);
                free += p;
                running.pop();
            }
            free -= procs;
            waiting.push_back(clock);
            let end = clock + jobs.effective_runtime(i);
            busy_until = busy_until.max(end);
            running.push(Reverse((OrdF64(end), procs)));
        }
        Self { idle, work }
    }

    /// Where to cut `n` rows into at most `parts` parts of about equal work: the idle row
    /// nearest to each `k / parts` of the work. Returns the parts' bounds, from 0 to `n`.
    fn cuts(&self, n: usize, parts: usize) -> Vec<usize> {
        let mut bounds = vec![0];
        for k in 1..parts as u64 {
            let target = k * self.work / parts as u64;
            let at = self.idle.partition_point(|&(_, w)| w < target);
            let near = [at.checked_sub(1), Some(at)]
                .into_iter()
                .flatten()
                .filter_map(|a| self.idle.get(a).copied())
                .min_by_key(|&(_, w)| w.abs_diff(target));
            if let Some((r, _)) = near.filter(|&(r, _)| r > bounds[bounds.len() - 1] && r < n) {
                bounds.push(r);
            }
        }
        bounds.push(n);
        bounds
    }
}

/// Jobs below which a part of a split run is not worth its thread.
const PART_JOBS: usize = 10_000;

/// How many parts [`simulate_in_parts`] should split a run of `jobs` jobs into on this
/// machine: four for each of rayon's threads (parts of unequal cost then even out over the
/// threads), each of at least 10,000 jobs; 1 on one thread or without the `parallel`
/// feature.
pub fn parallel_parts(jobs: usize) -> usize {
    #[cfg(feature = "parallel")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    let threads = 1;
    if threads < 2 {
        return 1;
    }
    (4 * threads).min(jobs / PART_JOBS).max(1)
}

/// Runs `f` on each item, on rayon's threads with the `parallel` feature.
fn each<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.into_iter().map(f).collect()
    }
}

/// [`simulate_with`] run as up to `parts` simulations at once (on rayon's threads with the
/// `parallel` feature), split at instants where the machine is idle: the same schedule, bit
/// for bit, in less time on a machine with several processors when the log has such
/// instants (see the module documentation). `make` gives a fresh policy for each part.
///
/// The jobs must be in arrival order (a cleaned workload is) and the policy must keep
/// nothing of the jobs before an idle instant
/// ([`SchedulingPolicy::fresh_when_idle`]); otherwise, and for `parts` below 2, this is
/// [`simulate_with`] on one policy. A guess that proves wrong costs the time of the part
/// run for nothing: the run is never longer than the slowest part plus [`simulate_with`].
///
/// ```
/// use slarm_sim::batch::{simulate_in_parts, simulate_with, QueueOrder};
/// use slarm_sim::policy::Conservative;
/// use slarm_workload::Job;
///
/// // Two busy hours a day apart: the machine is idle in between.
/// let jobs: Vec<Job> = (0..40u32)
///     .map(|k| {
///         let day = f64::from(k / 20) * 86_400.0;
///         let submit = day + f64::from(k % 20) * 60.0;
///         Job::new(u64::from(k) + 1, submit, 900.0, i64::from(1 + k % 7), 1800.0)
///     })
///     .collect();
/// let order = QueueOrder::Fcfs;
/// let split = simulate_in_parts(&jobs, 8, Conservative::default, &order, None, 2)?;
/// let whole = simulate_with(&jobs, 8, &mut Conservative::default(), &order, None)?;
/// assert_eq!(split, whole);
/// # Ok::<(), slarm_sim::SimError>(())
/// ```
pub fn simulate_in_parts<J, P, F>(
    jobs: &J,
    capacity: u32,
    make: F,
    order: &QueueOrder,
    expiry: Option<&[f64]>,
    parts: usize,
) -> Result<Schedule>
where
    J: JobSource + ?Sized,
    P: SchedulingPolicy + Send,
    F: Fn() -> P + Sync,
{
    let table = jobs.job_table()?;
    let jobs: &JobTable = &table;
    let mut first = make();
    let in_order = ArrivalOrder::in_order(jobs);
    let parts = parts.min(jobs.len() / 2);
    if parts < 2 || !in_order || !first.fresh_when_idle() {
        return simulate_with(jobs, capacity, &mut first, order, expiry);
    }
    prepare(jobs, 0..jobs.len(), capacity)?;
    check_lengths(order, expiry, jobs.len(), true)?;
    let name = first.name().to_string();
    let bounds = Guess::of(jobs, capacity).cuts(jobs.len(), parts);
    let (ran, _) = run_parts(jobs, capacity, first, &make, order, expiry, &bounds)?;
    Ok(ran.schedule(jobs, capacity, name))
}

/// Runs the parts between `bounds` at once (`first` and policies from `make`), then keeps
/// each run that begins where the run before it ended idle and continues the others'
/// predecessors through their rows. Returns what was decided and how many runs were kept.
fn run_parts<P, F>(
    jobs: &JobTable,
    capacity: u32,
    first: P,
    make: &F,
    order: &QueueOrder,
    expiry: Option<&[f64]>,
    bounds: &[usize],
) -> Result<(Ran, usize)>
where
    P: SchedulingPolicy + Send,
    F: Fn() -> P + Sync,
{
    let mut policies: Vec<P> = std::iter::once(first)
        .chain((2..bounds.len()).map(|_| make()))
        .collect();
    let runs: Vec<_> = policies
        .iter_mut()
        .zip(bounds.windows(2))
        .map(|(p, w)| (p, (w[0], w[1])))
        .collect();
    let runs = each(runs, |(p, rows)| {
        Part::run(jobs, capacity, p, order, expiry, rows)
    });
    // The chain of runs so far: a run is kept when the one before it ended idle, else the
    // one before it goes on through its rows. A run thrown away may fail where the whole
    // run does not, so only a kept run's error is the simulation's.
    let mut done = Vec::new();
    let mut current: Option<Part<'_, P>> = None;
    for (run, &to) in runs.into_iter().zip(&bounds[1..]) {
        let goes_on = current.as_mut().is_some_and(|before| !before.idle());
        match current.as_mut() {
            Some(before) if goes_on => before.extend(jobs, to)?,
            _ => done.extend(current.replace(run?).map(Part::ran)),
        }
    }
    done.extend(current.map(Part::ran));
    let kept = done.len();
    let mut whole = Ran {
        start: Vec::with_capacity(jobs.len()),
        reservation: Vec::with_capacity(jobs.len()),
        started: 0,
        expired: Vec::new(),
        events: 0,
    };
    for part in done {
        whole.start.extend(part.start);
        whole.reservation.extend(part.reservation);
        whole.started += part.started;
        whole.expired.extend(part.expired);
        whole.events += part.events;
    }
    Ok((whole, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Candidate, Conservative, Fcfs, MachineState, PassOutcome};
    use slarm_workload::Job;

    /// `bursts` bursts of 20 jobs a day apart, the machine of 8 processors busy within
    /// each (jobs of 1 to 7 processors, run 900 s, estimate 1,800 s, a minute apart).
    fn bursts(bursts: u32) -> JobTable {
        let jobs: Vec<Job> = (0..20 * bursts)
            .map(|k| {
                let day = f64::from(k / 20) * 86_400.0;
                let at = day + f64::from(k % 20) * 60.0;
                Job::new(u64::from(k) + 1, at, 900.0, i64::from(1 + k % 7), 1800.0)
            })
            .collect();
        JobTable::try_from(jobs.as_slice()).unwrap()
    }

    #[test]
    fn fcfs_finds_the_rows_that_arrive_on_an_idle_machine_and_the_work_before() {
        // 4 processors: job 1 (0-10, 4 procs), job 2 at 5 waits for it (10-20), job 3 at
        // 20 arrives as job 2 ends (not idle: the end is not before it), job 4 at 50 arrives
        // on an idle machine, job 5 at 51 beside it. No job finds another waiting when it
        // arrives: one unit of work each.
        let jobs = JobTable::try_from(
            [
                Job::new(1, 0.0, 10.0, 4, 10.0),
                Job::new(2, 5.0, 10.0, 4, 10.0),
                Job::new(3, 20.0, 10.0, 2, 10.0),
                Job::new(4, 50.0, 10.0, 2, 10.0),
                Job::new(5, 51.0, 10.0, 2, 10.0),
            ]
            .as_slice(),
        )
        .unwrap();
        let guess = Guess::of(&jobs, 4);
        assert_eq!(
            guess,
            Guess {
                idle: vec![(3, 3)],
                work: 5
            }
        );
        // One processor: job 1 runs at once, job 2 waits behind it (work 1), job 3 finds
        // job 2 waiting (work 2), job 4 arrives on an idle machine.
        let queued = JobTable::try_from(
            [
                Job::new(1, 0.0, 10.0, 1, 10.0),
                Job::new(2, 1.0, 10.0, 1, 10.0),
                Job::new(3, 2.0, 10.0, 1, 10.0),
                Job::new(4, 100.0, 10.0, 1, 10.0),
            ]
            .as_slice(),
        )
        .unwrap();
        assert_eq!(
            Guess::of(&queued, 1),
            Guess {
                idle: vec![(3, 4)],
                work: 5
            }
        );
        let busy = Guess::of(&bursts(3), 8);
        assert_eq!(
            busy.idle.iter().map(|&(r, _)| r).collect::<Vec<_>>(),
            vec![20, 40]
        );
    }

    #[test]
    fn cuts_are_the_idle_rows_nearest_to_equal_shares_of_the_work() {
        let guess = Guess {
            idle: vec![(10, 10), (30, 30), (45, 45), (90, 90)],
            work: 100,
        };
        assert_eq!(guess.cuts(100, 2), vec![0, 45, 100]);
        assert_eq!(guess.cuts(100, 4), vec![0, 30, 45, 90, 100]);
        // The work, not the rows, is shared: rows 0-44 hold 80 of 100.
        let front = Guess {
            idle: vec![(10, 40), (30, 70), (45, 80), (90, 95)],
            work: 100,
        };
        assert_eq!(front.cuts(100, 2), vec![0, 10, 100]);
        // Two shares nearest to one idle row cut once; no idle row, no cut.
        let one = Guess {
            idle: vec![(50, 50)],
            work: 100,
        };
        assert_eq!(one.cuts(100, 4), vec![0, 50, 100]);
        let none = Guess {
            idle: vec![],
            work: 100,
        };
        assert_eq!(none.cuts(100, 4), vec![0, 100]);
    }

    #[test]
    fn parts_that_begin_on_an_idle_machine_are_kept() {
        let jobs = bursts(4);
        let order = QueueOrder::Fcfs;
        let whole = simulate_with(&jobs, 8, &mut Conservative::default(), &order, None).unwrap();
        let bounds = Guess::of(&jobs, 8).cuts(jobs.len(), 4);
        assert_eq!(bounds, vec![0, 20, 40, 60, 80]);
        let make = Conservative::default;
        let (ran, kept) = run_parts(&jobs, 8, make(), &make, &order, None, &bounds).unwrap();
        assert_eq!(kept, 4);
        assert_eq!(ran.schedule(&jobs, 8, "conservative".into()), whole);
    }

    /// FCFS that asks for a pass a long time after each: a wake-up is pending when the
    /// machine empties, so no part begins on an idle run.
    #[derive(Default)]
    struct WakeLate(Fcfs);

    impl SchedulingPolicy for WakeLate {
        fn name(&self) -> &str {
            "wake-late"
        }
        fn fresh_when_idle(&self) -> bool {
            true
        }
        fn schedule(
            &mut self,
            machine: &MachineState<'_>,
            queue: &[Candidate],
            out: &mut PassOutcome,
        ) -> Result<()> {
            self.0.schedule(machine, queue, out)?;
            out.wake = Some(machine.now + 10.0 * 86_400.0);
            Ok(())
        }
    }

    #[test]
    fn a_part_whose_predecessor_is_not_idle_is_run_again_by_it() {
        let jobs = bursts(4);
        let order = QueueOrder::Fcfs;
        let whole = simulate_with(&jobs, 8, &mut WakeLate::default(), &order, None).unwrap();
        let bounds = [0, 20, 40, 60, 80];
        let make = WakeLate::default;
        let (ran, kept) = run_parts(&jobs, 8, make(), &make, &order, None, &bounds).unwrap();
        assert_eq!(kept, 1);
        assert_eq!(ran.schedule(&jobs, 8, "wake-late".into()), whole);
        let split = simulate_in_parts(&jobs, 8, make, &order, None, 4).unwrap();
        assert_eq!(split, whole);
    }
}
