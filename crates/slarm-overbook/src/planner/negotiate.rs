//! Negotiation: the candidate slots for a new or renegotiated job, their evaluation by the
//! acceptance test and the choice among them (Birkenheuer 2012, §3.1, §3.6, §5.2.3).

use super::*;

impl OnlinePlanner<'_> {
    pub(super) fn acceptable(&self, full: bool, pos: f64, job: &SlaJob) -> bool {
        if full {
            !self.cfg.test_full_slots || self.test.accepts(pos, job.fee, job.penalty)
        } else {
            self.cfg.strategy.overbooks() && self.test.accepts(pos, job.fee, job.penalty)
        }
    }

    /// The placement the strategy gives `job` at `now` (`None`: no acceptable slot); changes
    /// nothing. The one negotiation of the crate: offers, renegotiations after node failures
    /// and the battery simulation all come here.
    pub(super) fn negotiate(&self, job: &SlaJob, now: Time) -> Result<Option<Placement>> {
        if job.nodes > self.up.len() {
            return Ok(None);
        }
        let from = job.release.max(now);
        if from >= job.deadline {
            return Ok(None);
        }
        if self.comprehensive() {
            let key = (self.registry.class_for_job(job), job.estimate);
            let cached = self.runtimes.lock().ok().and_then(|mut c| c.remove(&key));
            let (runtime, sums) = match cached {
                Some(c) => c,
                None => (
                    self.grid
                        .runtime(self.registry.for_job(job), job.estimate)?,
                    Vec::new(),
                ),
            };
            let sums = SumTable::with_sums(&runtime, sums);
            let chosen = self.negotiate_comprehensive(job, now, from, &runtime, &sums);
            let sums = sums.into_sums();
            if let Ok(mut c) = self.runtimes.lock() {
                if c.len() >= RUNTIME_CACHE {
                    c.clear();
                }
                c.insert(key, (runtime, sums));
            }
            chosen
        } else {
            let profile = self.heuristic_profile(now, usize::MAX)?;
            let mut slots: Vec<Slot> = profile
                .gaps(secs(from), secs(job.deadline), job.nodes as i64)
                .into_iter()
                .map(|(start, end)| Slot {
                    start: time(start),
                    end: time(end),
                    nodes: Vec::new(),
                })
                .collect();
            let chosen = self.select(job, &slots, |sim, s| Ok(sim.eval_heuristic(job, s)))?;
            Ok(chosen
                .map(|(k, full, pos)| self.placement(job, slots.swap_remove(k), full, pos, None)))
        }
    }

    /// [`Self::negotiate`] of the comprehensive strategies, with the job's runtime on the grid
    /// and its running sums.
    pub(super) fn negotiate_comprehensive(
        &self,
        job: &SlaJob,
        now: Time,
        from: Time,
        runtime: &GridDist,
        sums: &SumTable<'_>,
    ) -> Result<Option<Placement>> {
        let mut memo = ExecutableMemo::default();
        let mut eval = |s: &Slot| self.eval_comprehensive(job, now, s, sums, &mut memo);
        let chosen = if self.lazy() {
            self.first_lazy(job, from, &mut eval)?
        } else {
            let mut slots = Vec::new();
            for c in self.plan.candidate_starts(from, job.deadline) {
                if let Some(s) = self.plan.choose(c, job.nodes, job.deadline, &self.up) {
                    slots.push(s);
                }
            }
            self.select(job, &slots, |_, s| eval(s))?
                .map(|(k, full, pos)| (slots.swap_remove(k), full, pos))
        };
        let Some((slot, full, pos)) = chosen else {
            return Ok(None);
        };
        let end_cdf = if self.cfg.strategy == Strategy::CompOverbook {
            Some(self.end_cdf(job, now, &slot, full, runtime)?)
        } else {
            None
        };
        Ok(Some(self.placement(job, slot, full, pos, end_cdf)))
    }

    /// The comprehensive choice of a lazy policy (see [`Self::lazy`]): the first full slot at
    /// a candidate start if there is one, else (for an overbooking strategy) the first
    /// overbooked slot whose PoS passes the test. This is what [`Self::select`] picks from the
    /// slots at every candidate start, but nodes are chosen only where the choice can matter:
    /// a start is first tested for a full slot by counting nodes ([`NodeSweep::fits`]; none
    /// after `deadline - estimate`), and overbooked slots are chosen and evaluated in order
    /// only up to the first acceptable one. Returns (slot, full, PoS).
    pub(super) fn first_lazy(
        &self,
        job: &SlaJob,
        from: Time,
        eval: &mut impl FnMut(&Slot) -> Result<f64>,
    ) -> Result<Option<(Slot, bool, f64)>> {
        let starts = self.plan.candidate_starts(from, job.deadline);
        let last_full = job.deadline.saturating_sub(job.estimate);
        let at_from = NodeSweep::new(&self.plan, &self.up, from);
        let mut sweep = at_from.clone();
        for &c in starts.iter().take_while(|&&c| c <= last_full) {
            sweep.advance_to(c);
            if !sweep.fits(job.nodes, c.saturating_add(job.estimate)) {
                continue;
            }
            if let Some(s) = sweep.choose(job.nodes, job.deadline) {
                if s.len() >= job.estimate {
                    let pos = eval(&s)?;
                    return Ok(Some((s, true, pos)));
                }
            }
        }
        if !self.cfg.strategy.overbooks() {
            return Ok(None);
        }
        let mut sweep = at_from;
        for c in starts {
            sweep.advance_to(c);
            if let Some(s) = sweep.choose(job.nodes, job.deadline) {
                let pos = eval(&s)?;
                if self.acceptable(false, pos, job) {
                    return Ok(Some((s, false, pos)));
                }
            }
        }
        Ok(None)
    }

    /// True when the policy may stop at the first full slot (near best fit, first fit).
    pub(super) fn lazy(&self) -> bool {
        self.cfg.policy.lazy() && !self.cfg.test_full_slots
    }

    pub(super) fn placement(
        &self,
        job: &SlaJob,
        slot: Slot,
        full: bool,
        pos: f64,
        end_cdf: Option<GridDist>,
    ) -> Placement {
        let kill = if full {
            slot.start + job.estimate
        } else {
            slot.end
        };
        Placement {
            overbooked: !full,
            pof: 1.0 - pos,
            end_cdf,
            slot,
            kill,
        }
    }

    /// Picks a slot per the placement policy; `eval` gives a slot's PoS (or, for a slot that
    /// cannot pass the test, any upper bound of it). Returns (index, full, PoS).
    pub(super) fn select(
        &self,
        job: &SlaJob,
        slots: &[Slot],
        mut eval: impl FnMut(&Self, &Slot) -> Result<f64>,
    ) -> Result<Option<(usize, bool, f64)>> {
        if self.lazy() {
            if let Some((k, s)) = slots
                .iter()
                .enumerate()
                .find(|(_, s)| s.len() >= job.estimate)
            {
                return Ok(Some((k, true, eval(self, s)?)));
            }
            if self.cfg.strategy.overbooks() {
                for (k, s) in slots.iter().enumerate() {
                    let pos = eval(self, s)?;
                    if self.acceptable(false, pos, job) {
                        return Ok(Some((k, false, pos)));
                    }
                }
            }
            return Ok(None);
        }
        let mut evals: Vec<Evaluated> = Vec::with_capacity(slots.len());
        for (k, s) in slots.iter().enumerate() {
            let full = s.len() >= job.estimate;
            let pos = eval(self, s)?;
            evals.push(Evaluated {
                index: k,
                start: s.start,
                full,
                pos,
                acceptable: self.acceptable(full, pos, job),
            });
        }
        Ok(self
            .cfg
            .policy
            .select(&evals, job.fee, job.penalty)
            .map(|c| (c.index, c.full, c.pos)))
    }

    pub(super) fn eval_heuristic(&self, job: &SlaJob, s: &Slot) -> f64 {
        if !self.cfg.strategy.overbooks() && s.len() < job.estimate {
            return 0.0;
        }
        heuristic_pos(
            self.registry.for_job(job),
            job.estimate,
            s.len(),
            job.nodes,
            &self.cfg.failure_model,
        )
        .pos()
    }
}
