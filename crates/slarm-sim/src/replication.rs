//! Replication driver: runs independent replications, each with its own seeded stream
//! from [`slarm_stats::RngStreams`], in parallel (feature `parallel`), and collects the results in replication
//! order so the outcome never depends on the number of threads.
//!
//! ```
//! use rand::RngExt;
//! use slarm_sim::replication::{replicate, summarize};
//! use slarm_stats::RngStreams;
//!
//! let streams = RngStreams::new(7);
//! let means = replicate(&streams, &[1, 2], 8, |_, rng| {
//!     (0..100).map(|_| rng.random::<f64>()).sum::<f64>() / 100.0
//! });
//! assert_eq!(means.len(), 8);
//! let ci = summarize(&means, 0.95)?;
//! assert!(ci.contains(0.5));
//! # Ok::<(), slarm_sim::SimError>(())
//! ```

#[cfg(feature = "parallel")]
use rayon::prelude::*;
use slarm_stats::{ConfidenceInterval, RngStreams, SimRng};

use crate::error::Result;

/// Runs `n` replications of `f(index, rng)`; replication `i` uses the stream at
/// `path ++ [i]`. Results are returned in replication order.
///
/// With the `parallel` feature the replications run on the rayon thread pool; without it
/// they run one after another. Each replication owns its stream, so the results are the
/// same either way.
pub fn replicate<T, F>(streams: &RngStreams, path: &[u64], n: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize, &mut SimRng) -> T + Sync,
{
    let one = |i: usize| {
        let mut p = path.to_vec();
        p.push(i as u64);
        let mut rng = streams.stream(&p);
        f(i, &mut rng)
    };
    map_indices(n, one)
}

/// `(0..n).map(g)` in index order, on the rayon pool.
#[cfg(feature = "parallel")]
fn map_indices<T: Send, G: Fn(usize) -> T + Sync + Send>(n: usize, g: G) -> Vec<T> {
    (0..n).into_par_iter().map(g).collect()
}

/// `(0..n).map(g)` in index order, on the calling thread.
#[cfg(not(feature = "parallel"))]
fn map_indices<T: Send, G: Fn(usize) -> T + Sync + Send>(n: usize, g: G) -> Vec<T> {
    (0..n).map(g).collect()
}

/// A Student-t confidence interval at `level` over replication results.
pub fn summarize(values: &[f64], level: f64) -> Result<ConfidenceInterval> {
    Ok(ConfidenceInterval::of_samples(values, level)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn replications_are_deterministic_and_distinct() {
        let s = RngStreams::new(3);
        let a = replicate(&s, &[9], 5, |_, r| r.random::<u64>());
        let b = replicate(&s, &[9], 5, |_, r| r.random::<u64>());
        assert_eq!(a, b);
        let mut d = a.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 5);
        // Replication i equals a direct draw from stream path ++ [i].
        assert_eq!(a[3], s.stream(&[9, 3]).random::<u64>());
        assert!(summarize(&[1.0], 0.95).is_err());
    }
}
