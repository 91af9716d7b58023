//! The job record: the 18 fields of the Standard Workload Format (Chapin et al. 1999) plus
//! the derived processors, estimate and effective run time.
//!
//! [`Job`] is slarm's **canonical trace job**: the one record every trace-driven model reads
//! (the SWF reader produces it, the cleaning, transforms, SLA synthesis and generators of this
//! crate work on it, and slarm-sim schedules it). A model crate that keeps a job type of its
//! own converts from this one rather than parsing traces itself.

/// One SWF job line, the canonical trace job of slarm (see the [module docs](self)). `-1`
/// means missing, as in the archive. Times are seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Job {
    /// Field 1: job number.
    pub id: u64,
    /// Field 2: submit time.
    pub submit: f64,
    /// Field 3: wait time in the original log.
    pub wait: f64,
    /// Field 4: run time.
    pub runtime: f64,
    /// Field 5: allocated processors.
    pub alloc_procs: i64,
    /// Field 6: average CPU time used.
    pub avg_cpu: f64,
    /// Field 7: used memory (KB per processor).
    pub used_mem: f64,
    /// Field 8: requested processors.
    pub req_procs: i64,
    /// Field 9: requested time (the user's estimate).
    pub req_time: f64,
    /// Field 10: requested memory (KB per processor).
    pub req_mem: f64,
    /// Field 11: status.
    pub status: i64,
    /// Field 12: user id.
    pub user: i64,
    /// Field 13: group id.
    pub group: i64,
    /// Field 14: executable (application) number.
    pub app: i64,
    /// Field 15: queue number.
    pub queue: i64,
    /// Field 16: partition number.
    pub partition: i64,
    /// Field 17: preceding job number.
    pub preceding: i64,
    /// Field 18: think time from the preceding job.
    pub think_time: f64,
}

impl Job {
    /// A job with the given number, submit time, run time, processors and estimate; every
    /// other field is `-1` (missing). Convenient for tests and generators.
    pub fn new(id: u64, submit: f64, runtime: f64, procs: i64, req_time: f64) -> Self {
        Self {
            id,
            submit,
            wait: -1.0,
            runtime,
            alloc_procs: procs,
            avg_cpu: -1.0,
            used_mem: -1.0,
            req_procs: procs,
            req_time,
            req_mem: -1.0,
            status: 1,
            user: -1,
            group: -1,
            app: -1,
            queue: -1,
            partition: -1,
            preceding: -1,
            think_time: -1.0,
        }
    }

    /// Processors of the job: requested processors (field 8) if > 0, else allocated
    /// (field 5). May be <= 0 for a job that the drop rules remove.
    pub fn procs(&self) -> i64 {
        if self.req_procs > 0 {
            self.req_procs
        } else {
            self.alloc_procs
        }
    }

    /// Runtime estimate: requested time (field 9) if > 0, else the run time.
    pub fn estimate(&self) -> f64 {
        if self.req_time > 0.0 {
            self.req_time
        } else {
            self.runtime
        }
    }

    /// How long the job occupies its processors: min(run time, estimate), since it is
    /// killed when its estimate runs out.
    pub fn effective_runtime(&self) -> f64 {
        self.runtime.min(self.estimate())
    }

    /// The 18 fields in SWF order, as numbers.
    pub fn to_fields(&self) -> [f64; 18] {
        [
            self.id as f64,
            self.submit,
            self.wait,
            self.runtime,
            self.alloc_procs as f64,
            self.avg_cpu,
            self.used_mem,
            self.req_procs as f64,
            self.req_time,
            self.req_mem,
            self.status as f64,
            self.user as f64,
            self.group as f64,
            self.app as f64,
            self.queue as f64,
            self.partition as f64,
            self.preceding as f64,
            self.think_time,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_fields_follow_design_section_3() {
        let mut j = Job::new(1, 0.0, 100.0, 4, 50.0);
        assert_eq!(j.procs(), 4);
        assert_eq!(j.estimate(), 50.0);
        assert_eq!(j.effective_runtime(), 50.0); // killed at its estimate
        j.req_procs = -1;
        j.alloc_procs = 8;
        j.req_time = -1.0;
        assert_eq!(j.procs(), 8);
        assert_eq!(j.estimate(), 100.0);
        assert_eq!(j.effective_runtime(), 100.0);
        assert_eq!(j.to_fields()[4], 8.0);
    }
}
