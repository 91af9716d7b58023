//! Probability of success of a slot under the comprehensive strategies: the end
//! distributions of the job's predecessors, their joint start and the job's end
//! (Birkenheuer 2012, §3.2.2-3.2.3).

use super::*;

impl OnlinePlanner<'_> {
    /// End-time CDFs of the distinct active predecessors on the slot's nodes, in order of first
    /// appearance; conditioned on not having ended by `now` when so configured
    /// ([`BatteryConfig::condition_on_elapsed`]).
    pub(super) fn predecessors(&self, s: &Slot, now: Time) -> Result<Vec<Cow<'_, GridDist>>> {
        let (_, cdfs) = self.predecessors_keyed(s, now)?;
        Ok(cdfs)
    }

    /// [`Self::predecessors`] and their job indices, in the same order.
    pub(super) fn predecessors_keyed(
        &self,
        s: &Slot,
        now: Time,
    ) -> Result<(Vec<usize>, Vec<Cow<'_, GridDist>>)> {
        let mut seen = JobSet::default();
        let mut jobs = Vec::new();
        let mut v = Vec::new();
        for &nd in &s.nodes {
            if let Some(p) = self.plan.predecessor(nd, s.start) {
                if !self.active(p.job) || !seen.insert(p.job) {
                    continue;
                }
                if let Some(c) = self.recs[p.job].end_cdf.as_ref() {
                    v.push(self.not_ended_by(c, now)?);
                    jobs.push(p.job);
                }
            }
        }
        Ok((jobs, v))
    }

    /// A predecessor's end distribution given that it has not ended by `now` (unchanged unless
    /// [`BatteryConfig::condition_on_elapsed`]). All of its mass at or before `now` means it ends
    /// at its kill time within the current grid step: a point at the next step.
    pub(super) fn not_ended_by<'a>(
        &self,
        end: &'a GridDist,
        now: Time,
    ) -> Result<Cow<'a, GridDist>> {
        let t = now as f64;
        if !self.cfg.condition_on_elapsed || end.cdf(t) <= 0.0 {
            return Ok(Cow::Borrowed(end));
        }
        match end.given_exceeds(t) {
            Ok(c) => Ok(Cow::Owned(c)),
            Err(_) => Ok(Cow::Owned(self.grid.point(self.grid.down(now) + 1)?)),
        }
    }

    pub(super) fn comprehensive_slot<'p>(
        &self,
        job: &SlaJob,
        now: Time,
        s: &Slot,
        full: bool,
        predecessors: &'p [&'p GridDist],
    ) -> ComprehensiveSlot<'p> {
        ComprehensiveSlot {
            predecessors,
            earliest: job.release.max(now),
            start: s.start,
            slot_end: if full { s.start + job.estimate } else { s.end },
            estimate: job.estimate,
        }
    }

    /// PoS of a comprehensive slot. Full slots need no convolution (`P_executable = 1`); an
    /// overbooked slot is convolved only if the cheap upper bound of its PoS passes the test.
    pub(super) fn eval_comprehensive(
        &self,
        job: &SlaJob,
        now: Time,
        s: &Slot,
        runtime: &SumTable<'_>,
        memo: &mut ExecutableMemo,
    ) -> Result<f64> {
        let full = s.len() >= job.estimate;
        if self.cfg.strategy == Strategy::CompBackfill {
            // Outage-only PoF, stored but not tested (Listing 3.1).
            let booked = s.len().min(job.estimate) as f64;
            return Ok(outage_pos_homogeneous(
                &self.cfg.failure_model,
                job.nodes,
                booked,
            ));
        }
        if full {
            let slot = self.comprehensive_slot(job, now, s, true, &[]);
            return Ok(comprehensive_pos_factors(
                runtime,
                &self.grid,
                &self.failures,
                &s.nodes,
                slot,
            )?
            .pos());
        }
        let (jobs, owned) = self.predecessors_keyed(s, now)?;
        let preds: Vec<&GridDist> = owned.iter().map(|c| c.as_ref()).collect();
        let slot = self.comprehensive_slot(job, now, s, false, &preds);
        let bound = comprehensive_pos_bound(runtime, &self.grid, &self.failures, &s.nodes, slot)?;
        // Margin against round-off: the exact PoS can never exceed the bound by more.
        if !self.acceptable(false, (bound * (1.0 + 1e-9)).min(1.0), job) {
            return Ok(bound);
        }
        let executable = || comprehensive_executable(runtime, &self.grid, slot);
        if jobs.is_empty() {
            // Without predecessors it depends on the start too, and costs O(runtime).
            return Ok(comprehensive_pos_with(&self.failures, &s.nodes, slot, executable)?.pos());
        }
        let key = ExecutableKey {
            predecessors: jobs,
            earliest: self.grid.up(slot.earliest.max(0)),
            end: self.grid.down(slot.slot_end),
        };
        let pos = comprehensive_pos_with(&self.failures, &s.nodes, slot, || {
            memo.get_or_compute(key, executable)
        })?;
        Ok(pos.pos())
    }

    /// The chosen placement's end-time CDF (for its successors).
    pub(super) fn end_cdf(
        &self,
        job: &SlaJob,
        now: Time,
        s: &Slot,
        full: bool,
        runtime: &GridDist,
    ) -> Result<GridDist> {
        let owned = self.predecessors(s, now)?;
        let preds: Vec<&GridDist> = owned.iter().map(|c| c.as_ref()).collect();
        comprehensive_end(
            runtime,
            &self.grid,
            self.comprehensive_slot(job, now, s, full, &preds),
        )
    }
}
