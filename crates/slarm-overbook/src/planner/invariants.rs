//! Invariants of the plan and the nodes, checked after every event time when
//! `BatteryConfig::check_invariants` is set, and the kill rule at a slot end
//! (Birkenheuer 2012, §5.2.2).

use super::*;

impl OnlinePlanner<'_> {
    /// The invariants of the plan and the nodes at `now` (see [`Self::check_invariants`]).
    pub(super) fn check(&mut self, now: Time) -> Result<()> {
        let fail = |reason: String| Err(OverbookError::Invariant { time: now, reason });
        let mut owned = vec![None; self.up.len()];
        for (i, r) in self.recs.iter().enumerate() {
            let job = &self.jobs[i];
            let running = r.state == JobState::Running;
            if !(running || r.state == JobState::Planned) {
                continue;
            }
            if r.start < job.release || r.kill > job.deadline || r.kill <= r.start {
                return fail(format!(
                    "job {i} slot [{}, {}) outside [{}, {}]",
                    r.start, r.kill, job.release, job.deadline
                ));
            }
            if !r.overbooked && r.kill - r.start < job.estimate {
                return fail(format!("job {i} is not overbooked but gets less than x"));
            }
            if r.start > self.promised[i] {
                return fail(format!(
                    "job {i} moved from its planned start {} to {}",
                    self.promised[i], r.start
                ));
            }
            let cut = r.kill < (r.start + job.estimate).min(job.deadline);
            if running && cut && !self.failure_seen && !self.kill_needed(i, now)? {
                return fail(format!(
                    "running job {i} is to be killed at {} although no planned job needs its nodes then",
                    r.kill
                ));
            }
            if running {
                if r.start > now || r.nodes.len() != job.nodes {
                    return fail(format!("running job {i} inconsistent"));
                }
                for &nd in &r.nodes {
                    if !self.up[nd] || self.owner[nd] != Some(i) || owned[nd].is_some() {
                        return fail(format!("node {nd} of running job {i} not exclusive/up"));
                    }
                    owned[nd] = Some(i);
                }
            } else if r.start < now {
                return fail(format!(
                    "planned job {i} should have started at {}",
                    r.start
                ));
            }
        }
        if let Some(nd) = (0..owned.len()).find(|&nd| owned[nd] != self.owner[nd]) {
            return fail(format!(
                "node {nd} is owned by {:?} (state {:?}) but the running jobs give {:?}",
                self.owner[nd],
                self.owner[nd].map(|j| self.recs[j].state),
                owned[nd]
            ));
        }
        for i in 0..self.recs.len() {
            if matches!(self.recs[i].state, JobState::Planned | JobState::Running) {
                self.promised[i] = self.recs[i].start;
            }
        }
        if self.comprehensive() {
            for nd in 0..self.plan.nodes() {
                for w in self.plan.timeline(nd).windows(2) {
                    if w[0].end > w[1].start {
                        return fail(format!("overlapping reservations on node {nd}: {w:?}"));
                    }
                }
            }
        } else {
            let p = self.heuristic_profile(now, usize::MAX)?;
            if let Some(t) = p.first_negative() {
                return fail(format!("free-node profile negative at {t}"));
            }
        }
        Ok(())
    }

    /// Invariant checks: true when running job `i`'s kill time (short of x and of its deadline)
    /// is the start of another planned job on its nodes (comprehensive) or a time from which
    /// the other accepted jobs leave fewer than its `n` nodes free (heuristic).
    pub(super) fn kill_needed(&self, i: usize, now: Time) -> Result<bool> {
        let r = &self.recs[i];
        if self.comprehensive() {
            return Ok(r.nodes.iter().any(|&nd| {
                self.plan
                    .timeline(nd)
                    .iter()
                    .any(|o| o.job != i && o.start == r.kill)
            }));
        }
        let p = self.heuristic_profile(now, i)?;
        let n = self.jobs[i].nodes as i64;
        Ok(time(p.free_until(secs(r.kill), n)) == r.kill)
    }
}
