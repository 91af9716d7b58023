//! [`Replay`]: the batch simulation of [`simulate_with`] fed its jobs as a log is read.
//!
//! [`simulate_with`]: super::simulate_with

use slarm_workload::JobTable;

use super::{check_finite, check_lengths, prepare, ArrivalOrder, Ev, QueueOrder, Schedule, State};
use crate::error::{Result, SimError};
use crate::kernel::Simulation;
use crate::policy::SchedulingPolicy;

/// A batch simulation fed with its jobs as they become known, a log while it is read: each
/// [`Replay::advance`] simulates every instant before the last known job's submit time
/// (a job not yet known arrives at that time or later, so nothing it could change is
/// decided), and [`Replay::finish`] the rest. The schedule is the one [`simulate_with`]
/// gives for the whole table, however the jobs were fed.
///
/// The table only grows between calls, in queue order (submit time, then job number; its
/// [`JobTable::summary`] says so). A replay made by [`Replay::new`] refuses a job that
/// cannot run, as [`simulate_with`] does; one made by [`Replay::dropping`] leaves such jobs
/// out, as [`slarm_workload::Workload`]'s drop rules do, and gives the schedule of the
/// cleaned table ([`Replay::run_out`], then [`Replay::schedule`] of the cleaned table).
///
/// ```
/// use slarm_sim::batch::{simulate_with, QueueOrder, Replay};
/// use slarm_sim::policy::Easy;
/// use slarm_workload::{Job, JobTable};
///
/// let jobs = [
///     Job::new(1, 0.0, 100.0, 6, 100.0),
///     Job::new(2, 1.0, 50.0, 8, 50.0),
///     Job::new(3, 2.0, 90.0, 4, 90.0),
/// ];
/// let (mut policy, order) = (Easy::default(), QueueOrder::Fcfs);
/// let mut replay = Replay::new(10, &mut policy, &order, None)?;
/// let mut table = JobTable::new();
/// for job in jobs {
///     table.push(job)?;
///     replay.advance(&table)?; // simulates up to the new job's submit time
/// }
/// let streamed = replay.finish(&table)?;
/// let whole = simulate_with(&table, 10, &mut Easy::default(), &order, None)?;
/// assert_eq!(streamed, whole);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`simulate_with`]: super::simulate_with
pub struct Replay<'a, P: ?Sized> {
    state: State<'a, P>,
    /// The kernel, from the first job's submit time on (none before the first job).
    sim: Option<Simulation<Ev>>,
    /// Simulated to the end ([`Replay::run_out`]).
    ran_out: bool,
    /// The simulation stopped at an error (a policy's, say): the replay cannot go on.
    failed: bool,
    /// After the run is out: submit time (bits) and job number of the last job that was not
    /// left out, which the table of [`Replay::schedule`] must end with.
    last_ran: Option<(u64, u64)>,
}

impl<P: ?Sized> std::fmt::Debug for Replay<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("known", &self.state.known())
            .field("started", &self.state.started)
            .field("ran_out", &self.ran_out)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

/// The error of a replay fed a table that is not the one it was fed before, grown.
fn not_grown(value: String, reason: &'static str) -> SimError {
    SimError::InvalidParameter {
        name: "replayed jobs",
        value,
        reason,
    }
}

impl<'a, P: SchedulingPolicy + ?Sized> Replay<'a, P> {
    /// A replay on `capacity` processors under `policy`, the queue kept in `order`, with an
    /// optional latest start per job (as in [`simulate_with`](super::simulate_with); a key
    /// or expiry vector covers at least the jobs fed, and at the end exactly all of them).
    pub fn new(
        capacity: u32,
        policy: &'a mut P,
        order: &'a QueueOrder,
        expiry: Option<&'a [f64]>,
    ) -> Result<Self> {
        Ok(Self {
            state: State::new(capacity, policy, order, expiry)?,
            sim: None,
            ran_out: false,
            failed: false,
            last_ran: None,
        })
    }

    /// [`Replay::new`] for a log before cleaning: a job that cannot run on `capacity`
    /// processors (a run time that is not positive, processors outside 1..=capacity: the
    /// jobs [`slarm_workload::Workload`]'s drop rules drop) is left out instead of refused.
    /// A key or expiry vector has a value for every row fed, left out or not.
    ///
    /// ```
    /// use slarm_sim::batch::{simulate_workload, BatchConfig, QueueOrder, Replay};
    /// use slarm_sim::policy::{Easy, PolicyKind};
    /// use slarm_workload::{Job, JobTable, Workload};
    ///
    /// let log = JobTable::try_from_jobs([
    ///     Job::new(1, 0.0, 100.0, 6, 100.0),
    ///     Job::new(2, 1.0, 0.0, 8, 50.0), // never ran: dropped by cleaning
    ///     Job::new(3, 2.0, 90.0, 4, 90.0),
    /// ])?;
    /// let (mut policy, order) = (Easy::default(), QueueOrder::Fcfs);
    /// let mut replay = Replay::dropping(10, &mut policy, &order, None)?;
    /// replay.run_out(&log)?;
    /// let cleaned = Workload::from_table("log", log, 10)?;
    /// let streamed = replay.schedule(&cleaned.jobs)?;
    /// assert_eq!(streamed, simulate_workload(&cleaned, &BatchConfig::new(PolicyKind::Easy))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dropping(
        capacity: u32,
        policy: &'a mut P,
        order: &'a QueueOrder,
        expiry: Option<&'a [f64]>,
    ) -> Result<Self> {
        let mut replay = Self::new(capacity, policy, order, expiry)?;
        replay.state.left_out = Some(Vec::new());
        Ok(replay)
    }

    /// Jobs fed so far.
    pub fn known(&self) -> usize {
        self.state.known()
    }

    /// Takes the jobs `jobs` holds beyond those fed before, and simulates every instant
    /// before the submit time of its last job.
    ///
    /// Refuses, the replay staying as it was, a table that is not in queue order or lost or
    /// changed jobs fed before, new jobs after [`Replay::run_out`], a job that cannot run
    /// (one with a time that is not finite in a replay that drops jobs) and a key or expiry
    /// vector shorter than the table. An error of the simulation itself (a policy's, or a
    /// pass that breaks the machine, as in [`simulate_with`](super::simulate_with)) ends the
    /// replay: every later call errors.
    pub fn advance(&mut self, jobs: &JobTable) -> Result<()> {
        self.check_going()?;
        let (from, n) = (self.state.known(), jobs.len());
        let last_fed = || {
            from.checked_sub(1)
                .map(|i| (jobs.submit(i).to_bits(), jobs.id(i)))
        };
        let fed = self.state.last_known.map(|(t, id)| (t.to_bits(), id));
        if n < from || last_fed() != fed {
            return Err(not_grown(
                format!("{n} jobs after {from} were fed"),
                "the table may only grow between calls",
            ));
        }
        if self.ran_out && n > from {
            return Err(not_grown(
                format!("{n} jobs after {from} were simulated to the end"),
                "a replay run out takes no more jobs",
            ));
        }
        if !jobs.summary().queue_ordered {
            return Err(not_grown(
                format!("{n} jobs"),
                "a replay takes its jobs in queue order (submit time, job number)",
            ));
        }
        if self.state.left_out.is_some() {
            check_finite(jobs, from..n)?;
        } else {
            prepare(jobs, from..n, self.state.capacity)?;
        }
        check_lengths(self.state.order, self.state.expiry, n, false)?;
        if n == from {
            return Ok(());
        }
        self.state.arrival_order = ArrivalOrder::Slice { from: 0, to: n };
        self.state.know(jobs, n);
        self.simulate_to(jobs, jobs.submit(n - 1))
    }

    /// Errors once the simulation stopped at an error.
    fn check_going(&self) -> Result<()> {
        if self.failed {
            return Err(not_grown(
                format!("{} jobs", self.state.known()),
                "the replay ended at an error of its simulation",
            ));
        }
        Ok(())
    }

    /// Simulates every instant before `horizon` (infinite: to the end); an error ends the
    /// replay. The kernel starts at the first job that runs, as in
    /// [`simulate_with`](super::simulate_with) (at 0 for a run without one).
    fn simulate_to(&mut self, jobs: &JobTable, horizon: f64) -> Result<()> {
        if self.sim.is_none() {
            let origin = match self.state.arrival_order.get(self.state.next_arrival) {
                Some(first) => jobs.submit(first),
                None if horizon == f64::INFINITY => 0.0,
                // Only jobs left out so far.
                None => return Ok(()),
            };
            if let Err(e) = self.state.policy.begin(self.state.capacity, origin) {
                self.failed = true;
                return Err(e);
            }
            self.sim = Some(Simulation::starting_at(origin));
        }
        let Some(sim) = self.sim.as_mut() else {
            return Ok(());
        };
        let result = self.state.run(jobs, sim, horizon);
        self.failed |= result.is_err();
        result
    }

    /// Takes the last jobs (as [`Replay::advance`]) and simulates to the end.
    pub fn run_out(&mut self, jobs: &JobTable) -> Result<()> {
        self.advance(jobs)?;
        check_lengths(self.state.order, self.state.expiry, jobs.len(), true)?;
        self.simulate_to(jobs, f64::INFINITY)?;
        self.ran_out = true;
        let left_out = self.state.left_out.as_deref().unwrap_or_default();
        self.last_ran = (0..jobs.len())
            .rev()
            .find(|i| left_out.binary_search(i).is_err())
            .map(|i| (jobs.submit(i).to_bits(), jobs.id(i)));
        Ok(())
    }

    /// The schedule after [`Replay::run_out`], of `ran`: the table fed or, in a replay that
    /// drops jobs, the table fed without them (the cleaned table). Errors before the run is
    /// out and on a table with another number of jobs or another last job.
    pub fn schedule(mut self, ran: &JobTable) -> Result<Schedule> {
        self.check_going()?;
        if !self.ran_out {
            return Err(not_grown(
                format!("{} jobs", self.state.known()),
                "run the replay out before taking its schedule",
            ));
        }
        let sim = self.sim.take().unwrap_or_default();
        let left_out = self.state.left_out.as_ref().map_or(0, Vec::len);
        let last = ran
            .len()
            .checked_sub(1)
            .map(|i| (ran.submit(i).to_bits(), ran.id(i)));
        if ran.len() + left_out != self.state.known() || last != self.last_ran {
            return Err(not_grown(
                format!(
                    "{} jobs for {} replayed",
                    ran.len(),
                    self.state.known() - left_out
                ),
                "the schedule is of the jobs replayed",
            ));
        }
        Ok(self.state.schedule(ran, &sim))
    }

    /// [`Replay::run_out`], then the schedule of the whole table (see [`Replay::schedule`]
    /// for a replay that drops jobs).
    pub fn finish(mut self, jobs: &JobTable) -> Result<Schedule> {
        self.run_out(jobs)?;
        self.schedule(jobs)
    }
}
