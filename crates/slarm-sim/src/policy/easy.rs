//! FCFS and EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001) as passes over a
//! queue slice ([`fcfs_pass`], [`easy_pass`]), and as [`SchedulingPolicy`] implementations
//! ([`Fcfs`], [`Easy`]) that keep no state between passes.

use crate::error::Result;
use crate::policy::{Candidate, MachineState, PassOutcome, RunningSet, SchedulingPolicy};

/// First come, first served without backfilling: [`fcfs_pass`] at every pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fcfs;

impl SchedulingPolicy for Fcfs {
    fn name(&self) -> &str {
        "fcfs"
    }

    /// Its decisions depend on the machine, the queue and the plan only, which are empty
    /// at an idle instant.
    fn fresh_when_idle(&self) -> bool {
        true
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()> {
        fcfs_pass_into(machine.free, queue, out);
        Ok(())
    }
}

/// EASY backfilling: [`easy_pass`] at every pass, with a reused scratch buffer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Easy {
    scratch: Vec<(f64, u32)>,
}

impl SchedulingPolicy for Easy {
    fn name(&self) -> &str {
        "easy"
    }

    /// Its decisions depend on the machine, the queue and the plan only, which are empty
    /// at an idle instant.
    fn fresh_when_idle(&self) -> bool {
        true
    }

    fn schedule(
        &mut self,
        machine: &MachineState<'_>,
        queue: &[Candidate],
        out: &mut PassOutcome,
    ) -> Result<()> {
        if machine.free == 0 {
            // Nothing can start, and the head's reservation waits for a pass that can
            // start something (as the simulator has always recorded it).
            out.clear();
            return Ok(());
        }
        easy_pass_into(
            machine.now,
            machine.free,
            machine.running,
            queue,
            out,
            &mut self.scratch,
        );
        Ok(())
    }
}

/// FCFS pass: start jobs in queue order while they fit in `free` processors.
pub fn fcfs_pass(free: u32, queue: &[Candidate]) -> PassOutcome {
    let mut out = PassOutcome::default();
    fcfs_pass_into(free, queue, &mut out);
    out
}

/// [`fcfs_pass`] writing into a reused outcome (no allocation once it has grown).
fn fcfs_pass_into(free: u32, queue: &[Candidate], out: &mut PassOutcome) {
    out.clear();
    let mut free = free;
    for (pos, c) in queue.iter().enumerate() {
        if c.procs > free {
            break;
        }
        free -= c.procs;
        out.start.push(pos);
    }
}

/// EASY pass at time `now` with `free` processors free and `running` jobs (Mu'alem & Feitelson
/// 2001).
///
/// Jobs are started in order while they fit. The first job that does not fit (the head)
/// gets a reservation at the shadow time: the earliest predicted end at which enough
/// processors are free. `extra` = processors free at the shadow time beyond the head's
/// need, counting every running job predicted to end at or before the shadow time (also
/// the other jobs that end exactly then, not only the one that first covers the head).
/// A later job starts now iff it fits and either ends by the shadow time
/// (`now + estimate <= shadow`) or uses no more than `extra` processors (then `extra`
/// shrinks by its size).
pub fn easy_pass(now: f64, free: u32, running: &RunningSet, queue: &[Candidate]) -> PassOutcome {
    let mut out = PassOutcome::default();
    easy_pass_into(now, free, running, queue, &mut out, &mut Vec::new());
    out
}

/// [`easy_pass`] writing into a reused outcome, with a reused scratch buffer for the
/// predicted ends of the jobs started in this pass.
fn easy_pass_into(
    now: f64,
    free: u32,
    running: &RunningSet,
    queue: &[Candidate],
    out: &mut PassOutcome,
    just_started: &mut Vec<(f64, u32)>,
) {
    fcfs_pass_into(free, queue, out);
    let head_pos = out.start.len();
    let Some(head) = queue.get(head_pos) else {
        return;
    };
    let mut free = free - out.start.iter().map(|&p| queue[p].procs).sum::<u32>();
    // Shadow time: walk running jobs (including those just started) by predicted end.
    just_started.clear();
    just_started.extend(
        out.start
            .iter()
            .map(|&p| (now + queue[p].estimate, queue[p].procs)),
    );
    just_started.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (shadow, extra) = shadow_and_extra(free, head.procs, running, just_started);
    let mut extra = extra;
    out.shadow = Some(shadow);
    out.head = Some(head_pos);
    for (pos, c) in queue.iter().enumerate().skip(head_pos + 1) {
        if free == 0 {
            break;
        }
        if c.procs > free {
            continue;
        }
        if now + c.estimate <= shadow {
            free -= c.procs;
            out.start.push(pos);
        } else if i64::from(c.procs) <= extra {
            free -= c.procs;
            extra -= i64::from(c.procs);
            out.start.push(pos);
        }
    }
}

/// The head's shadow time and `extra` (Mu'alem & Feitelson 2001): releases of the running jobs and
/// of the jobs just started (both sorted by predicted end) are merged until `need` processors
/// are free; every release at that same instant still counts towards `extra`. Infinite
/// shadow and no extra when the head can never fit (not reachable for a job that fits the
/// machine).
fn shadow_and_extra(
    free: u32,
    need: u32,
    running: &RunningSet,
    just_started: &[(f64, u32)],
) -> (f64, i64) {
    let need = i64::from(need);
    let mut avail = i64::from(free);
    let mut shadow = f64::INFINITY;
    let mut js = just_started.iter().peekable();
    let mut rs = running.iter().peekable();
    loop {
        let (end, procs) = match (rs.peek(), js.peek()) {
            (Some(&(re, _, rp)), Some(&&(je, jp))) => {
                if re <= je {
                    rs.next();
                    (re, rp)
                } else {
                    js.next();
                    (je, jp)
                }
            }
            (Some(&(re, _, rp)), None) => {
                rs.next();
                (re, rp)
            }
            (None, Some(&&(je, jp))) => {
                js.next();
                (je, jp)
            }
            (None, None) => break,
        };
        if end > shadow {
            break;
        }
        avail += i64::from(procs);
        if avail >= need && shadow.is_infinite() {
            shadow = end;
        }
    }
    if shadow.is_finite() {
        (shadow, avail - need)
    } else {
        (shadow, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Candidate, RunningSet};

    fn c(key: usize, procs: u32, estimate: f64) -> Candidate {
        Candidate {
            key,
            procs,
            estimate,
        }
    }

    #[test]
    fn fcfs_stops_at_first_blocked_job() {
        let q = [c(0, 3, 1.0), c(1, 5, 1.0), c(2, 1, 1.0)];
        assert_eq!(fcfs_pass(4, &q).start, vec![0]);
    }

    #[test]
    fn easy_uses_extra_processors() {
        // 10 procs; running: 4 until 100, 4 until 200; free 2. Head needs 8: shadow 200
        // (2 + 4 + 4 = 10, extra = 2).
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 4);
        r.insert(11, 200.0, 4);
        let q = [c(0, 8, 10.0), c(1, 2, 1000.0), c(2, 1, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!(p.shadow, Some(200.0));
        assert_eq!(p.start, vec![1]); // uses the 2 extra; job 2 no longer fits (free 0)
                                      // Extra exhausted: a long job that does not fit in extra must
                                      // wait.
        let q = [c(0, 10, 10.0), c(1, 2, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!((p.shadow, p.start.len()), (Some(200.0), 0));
    }

    #[test]
    fn extra_counts_three_tied_ends_and_ignores_later_ones() {
        // 14 procs, 4 free; jobs of 3, 4 and 3 processors all predicted to end at t = 100.
        // The head needs 5: covered once the first ends (4 + 3 = 7), but all three free
        // their processors at the shadow time, so extra = 14 - 5 = 9 (not 7 - 5 = 2) and a
        // long 4-processor job backfills.
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 3);
        r.insert(11, 100.0, 4);
        r.insert(12, 100.0, 3);
        let q = [c(0, 5, 10.0), c(1, 4, 1000.0)];
        let p = easy_pass(0.0, 4, &r, &q);
        assert_eq!((p.shadow, p.start), (Some(100.0), vec![1]));
        // A job ending after the shadow time does not count: extra = 1 + 5 - 6 = 0.
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 5);
        r.insert(11, 101.0, 5);
        let q = [c(0, 6, 10.0), c(1, 1, 1000.0)];
        let p = easy_pass(0.0, 1, &r, &q);
        assert_eq!((p.shadow, p.start), (Some(100.0), Vec::<usize>::new()));
    }

    #[test]
    fn extra_counts_every_job_ending_at_the_shadow_time() {
        // 10 procs; two running jobs of 4 both predicted to end at 100; free 2. The head
        // needs 6: shadow 100, where 2 + 4 + 4 = 10 are free, so extra = 4 (not the 0 left
        // after the first of the two jobs alone covers the head).
        let mut r = RunningSet::new();
        r.insert(10, 100.0, 4);
        r.insert(11, 100.0, 4);
        let q = [c(0, 6, 10.0), c(1, 2, 1000.0)];
        let p = easy_pass(0.0, 2, &r, &q);
        assert_eq!(p.shadow, Some(100.0));
        assert_eq!(p.start, vec![1]);
    }
}
