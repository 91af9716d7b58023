//! Replanning after a change (a job end, kill, node failure or repair, the passing of time):
//! the heuristic and comprehensive profiles, moving planned jobs, and renegotiating a job that
//! lost a node (Birkenheuer 2012, §3.3.2.1, §3.6, §5.2.2).

use super::*;

impl OnlinePlanner<'_> {
    pub(super) fn renegotiate(&mut self, i: usize, now: Time) -> Result<()> {
        if self.cfg.check_invariants && !self.failure_seen {
            return Err(OverbookError::Invariant {
                time: now,
                reason: format!("job {i} lost its slot although no node has failed"),
            });
        }
        if self.recs[i].state == JobState::Planned {
            let nodes = std::mem::take(&mut self.recs[i].nodes);
            self.plan.remove(i, &nodes);
        }
        self.recs[i].state = JobState::Disabled;
        if self.comprehensive() {
            self.plan.prune(now);
        }
        match self.negotiate(&self.jobs[i], now)? {
            Some(p) => {
                self.place(i, p);
                if self.recs[i].start <= now && !self.start_now(i, now) {
                    // The plan offered a slot at `now` on nodes that are not free: a plan/node
                    // inconsistency (never observed with the invariant checks on). Renegotiating
                    // again would loop, so the job fails.
                    return Err(OverbookError::Invariant {
                        time: now,
                        reason: format!("job {i} renegotiated onto busy or crashed nodes"),
                    });
                }
            }
            None => self.recs[i].state = JobState::Failed,
        }
        Ok(())
    }

    /// Replanning (heuristic; our reading of an open rule, docs/decisions.md) or moving jobs earlier on their nodes (comprehensive
    /// overbooking, thesis §3.6.2) after ends, failures and repairs.
    pub(super) fn on_change(&mut self, now: Time, renegotiate: &mut Vec<usize>) -> Result<()> {
        match self.cfg.strategy {
            Strategy::CompBackfill | Strategy::CompOverbook if !self.early_release() => Ok(()),
            Strategy::CompBackfill | Strategy::CompOverbook => {
                let mut planned: Vec<usize> = (0..self.recs.len())
                    .filter(|&i| {
                        self.recs[i].state == JobState::Planned && self.recs[i].start > now
                    })
                    .collect();
                planned.sort_by_key(|&i| (self.recs[i].start, i));
                for i in planned {
                    if self.jobs[i].release > now {
                        continue;
                    }
                    let ok = self.recs[i].nodes.iter().all(|&nd| {
                        self.up[nd] && self.owner[nd].is_none() && self.plan.is_first(nd, i)
                    });
                    if ok {
                        let nodes = self.recs[i].nodes.clone();
                        let kill = self.recs[i].kill;
                        self.plan.update(i, &nodes, now, kill);
                        self.try_start(i, now)?;
                    }
                }
                Ok(())
            }
            Strategy::HeurPlan | Strategy::HeurOverbook => self.replan(now, renegotiate),
        }
    }

    /// The up nodes minus the running jobs, from `now` on (a planning profile: every
    /// reservation boundary is a candidate start).
    pub(super) fn base_profile(&self, now: Time, exclude: usize) -> Result<Profile> {
        let up = self.up.iter().filter(|&&u| u).count();
        let mut p = Profile::planning(u32::try_from(up).unwrap_or(u32::MAX), secs(now))?;
        for (i, r) in self.recs.iter().enumerate() {
            if r.state == JobState::Running && i != exclude {
                p.book(secs(now), secs(r.kill.max(now)), self.jobs[i].nodes as i64)?;
            }
        }
        Ok(p)
    }

    /// Heuristic replanning after a job end, failure or repair (thesis §3.3.2.1, §5.2.2).
    ///
    /// 1. The free-node profile is rebuilt from the running jobs (booked up to their kill times).
    /// 2. Waiting jobs are re-placed in order of (planned start, acceptance order), each with its
    ///    own allotment at the earliest start not later than its previous one. No job is placed
    ///    with more than its allotment here, so no job can take capacity that a later accepted
    ///    job holds: "an SLA violation of one job has no influence on other jobs". Without a
    ///    node failure every job fits again (moving a job earlier with the same length frees
    ///    capacity at every time after its old start); a job that no longer fits (capacity lost
    ///    to a crash) is renegotiated like a disabled job.
    /// 3. Overbooked jobs, running or waiting, regain runtime toward x only from the capacity
    ///    that is then free ("even overbooked jobs can get their full runtime if previous jobs
    ///    finish earlier"); each is killed where the capacity is next needed by a planned job,
    ///    at x or at its deadline.
    pub(super) fn replan(&mut self, now: Time, renegotiate: &mut Vec<usize>) -> Result<()> {
        let mut profile = self.base_profile(now, usize::MAX)?;
        let mut waiting: Vec<usize> = (0..self.recs.len())
            .filter(|&i| self.recs[i].state == JobState::Planned)
            .collect();
        waiting.sort_by_key(|&i| (self.recs[i].start, i));
        for i in waiting {
            let job = &self.jobs[i];
            let n = job.nodes as i64;
            let from = job.release.max(now);
            let old = self.recs[i].start.max(from);
            let allotted = self.recs[i].kill - self.recs[i].start;
            match profile.earliest_fit_until(secs(from), n, secs(allotted), secs(old)) {
                Some(s) => {
                    let s = time(s);
                    profile.book(secs(s), secs(s + allotted), n)?;
                    let r = &mut self.recs[i];
                    r.start = s;
                    r.kill = s + allotted;
                }
                None => {
                    self.recs[i].state = JobState::Disabled;
                    renegotiate.push(i);
                }
            }
        }
        let mut short: Vec<usize> = (0..self.recs.len())
            .filter(|&i| {
                let r = &self.recs[i];
                matches!(r.state, JobState::Planned | JobState::Running)
                    && r.kill - r.start < self.jobs[i].estimate
            })
            .collect();
        short.sort_by_key(|&i| (self.recs[i].start, i));
        for i in short {
            let job = &self.jobs[i];
            let n = job.nodes as i64;
            let r = &self.recs[i];
            let running = r.state == JobState::Running;
            // A running job is booked from `now` in the base profile.
            let from = if running { now } else { r.start };
            let (start, kill) = (r.start, r.kill);
            profile.book(secs(from), secs(kill), -n)?;
            let until = time(profile.free_until(secs(from), n));
            let new_kill = until.min(job.deadline).min(start + job.estimate).max(kill);
            profile.book(secs(from), secs(new_kill), n)?;
            let r = &mut self.recs[i];
            r.kill = new_kill;
            r.overbooked = new_kill - start < job.estimate;
        }
        Ok(())
    }

    pub(super) fn heuristic_profile(&self, now: Time, exclude: usize) -> Result<Profile> {
        let mut p = self.base_profile(now, exclude)?;
        for (i, r) in self.recs.iter().enumerate() {
            if r.state == JobState::Planned && i != exclude {
                p.book(secs(r.start), secs(r.kill), self.jobs[i].nodes as i64)?;
            }
        }
        Ok(p)
    }
}
