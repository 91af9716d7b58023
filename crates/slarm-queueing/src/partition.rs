//! Allocation strategies as set partitions of the classes (Hu 2009, §4.2 and §6.1-6.2,
//! Eqs. 4.2-4.3 and 6.1-6.4): dedicated (DA),
//! shared (SA), mixed, and the exhaustive optimum over all partitions (up to 8 classes).

use crate::error::{QueueError, Result};
use crate::sizing::min_nodes;
use crate::sla::JobClass;
use slarm_stats::check;

/// Largest class count for exhaustive partition search (Bell(8) = 4140).
pub const MAX_EXHAUSTIVE_CLASSES: usize = 8;

/// A set partition of class indices `0..n`: each block is one FCFS pool.
/// Canonical form: blocks sorted, each block sorted, blocks ordered by first element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Partition {
    n: usize,
    blocks: Vec<Vec<usize>>,
}

impl Partition {
    /// Validates that `blocks` cover `0..n` exactly once, with no empty block.
    pub fn new(n: usize, blocks: Vec<Vec<usize>>) -> Result<Self> {
        let mut seen = vec![false; n];
        let mut blocks = blocks;
        for b in &mut blocks {
            if b.is_empty() {
                return Err(QueueError::InvalidPartition("empty block".into()));
            }
            b.sort_unstable();
            for &i in b.iter() {
                match seen.get_mut(i) {
                    None => {
                        return Err(QueueError::InvalidPartition(format!(
                            "class {i} out of range 0..{n}"
                        )))
                    }
                    Some(s) if *s => {
                        return Err(QueueError::InvalidPartition(format!("class {i} repeated")))
                    }
                    Some(s) => *s = true,
                }
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(QueueError::InvalidPartition(format!("class {i} missing")));
        }
        blocks.sort_by_key(|b| b[0]);
        Ok(Self { n, blocks })
    }
    /// DA: every class in its own pool.
    pub fn dedicated(n: usize) -> Self {
        Self {
            n,
            blocks: (0..n).map(|i| vec![i]).collect(),
        }
    }
    /// SA: one pool for all classes.
    pub fn shared(n: usize) -> Self {
        Self {
            n,
            blocks: if n == 0 {
                vec![]
            } else {
                vec![(0..n).collect()]
            },
        }
    }
    /// Mixed (3 classes): `j, k` shared, the rest dedicated.
    pub fn mixed(n: usize, j: usize, k: usize) -> Result<Self> {
        if j == k {
            return Err(QueueError::InvalidPartition(
                "shared pair must differ".into(),
            ));
        }
        let mut blocks = vec![vec![j, k]];
        blocks.extend((0..n).filter(|&i| i != j && i != k).map(|i| vec![i]));
        Self::new(n, blocks)
    }
    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.n
    }
    /// The pools.
    pub fn blocks(&self) -> &[Vec<usize>] {
        &self.blocks
    }
    /// Thesis-style name with 1-based classes: `DA`, `SA`, `S12D3`, or `{1,2}{3,4}` beyond.
    pub fn name(&self) -> String {
        if self.n > 1 && self.blocks.len() == self.n {
            return "DA".into();
        }
        if self.blocks.len() == 1 && self.n > 1 {
            return "SA".into();
        }
        if self.blocks.iter().all(|b| b.len() <= 2)
            && self.blocks.iter().filter(|b| b.len() == 2).count() == 1
            && self.n <= 9
        {
            let mut s = String::from("S");
            let mut d = String::from("D");
            for b in &self.blocks {
                let target = if b.len() == 2 { &mut s } else { &mut d };
                for i in b {
                    target.push_str(&(i + 1).to_string());
                }
            }
            return if d.len() > 1 { s + &d } else { s };
        }
        self.blocks
            .iter()
            .map(|b| {
                let inner: Vec<String> = b.iter().map(|i| (i + 1).to_string()).collect();
                format!("{{{}}}", inner.join(","))
            })
            .collect()
    }
    /// Every set partition of `0..n` (restricted growth strings; SA first, DA last).
    pub fn all(n: usize) -> Result<Vec<Partition>> {
        if n == 0 || n > MAX_EXHAUSTIVE_CLASSES {
            return Err(QueueError::InvalidConfig(format!(
                "exhaustive partitions need 1..={MAX_EXHAUSTIVE_CLASSES} classes, got {n}"
            )));
        }
        let mut out = Vec::new();
        let mut a = vec![0usize; n];
        loop {
            let k = a.iter().copied().max().unwrap_or(0) + 1;
            let mut blocks = vec![Vec::new(); k];
            for (i, &b) in a.iter().enumerate() {
                blocks[b].push(i);
            }
            out.push(Partition { n, blocks });
            // next restricted growth string
            let mut i = n;
            loop {
                if i <= 1 {
                    return Ok(out);
                }
                i -= 1;
                let max_prefix = a[..i].iter().copied().max().unwrap_or(0);
                if a[i] <= max_prefix {
                    a[i] += 1;
                    for v in a.iter_mut().skip(i + 1) {
                        *v = 0;
                    }
                    break;
                }
            }
        }
    }
}

/// Nodes of one shared FCFS pool serving `members`: `max_i m(sum lambda, SLA_i)` (Eq. 4.3/6.4).
pub fn pool_nodes(classes: &[JobClass], members: &[usize], mu: f64) -> Result<u64> {
    check::positive("mu", mu)?;
    let mut lambda = 0.0;
    for &i in members {
        lambda += classes
            .get(i)
            .ok_or_else(|| QueueError::InvalidPartition(format!("class {i} out of range")))?
            .lambda();
    }
    let mut best = 0;
    for &i in members {
        best = best.max(min_nodes(lambda, mu, classes[i].sla())?);
    }
    Ok(best)
}

/// Nodes of a strategy: the sum over its pools of `max_{i in pool} m(sum lambda, SLA_i)`, the
/// general form of Hu 2009 Eqs. 4.2-4.3 and 6.1-6.4 for any partition.
pub fn nodes_for_partition(classes: &[JobClass], partition: &Partition, mu: f64) -> Result<u64> {
    if partition.classes() != classes.len() {
        return Err(QueueError::InvalidPartition(format!(
            "partition of {} classes for {} classes",
            partition.classes(),
            classes.len()
        )));
    }
    partition
        .blocks()
        .iter()
        .map(|b| pool_nodes(classes, b, mu))
        .sum()
}

/// `m_D` (Eq. 4.2/6.1).
pub fn m_da(classes: &[JobClass], mu: f64) -> Result<u64> {
    nodes_for_partition(classes, &Partition::dedicated(classes.len()), mu)
}

/// `m_S` (Eq. 4.3/6.3).
pub fn m_sa(classes: &[JobClass], mu: f64) -> Result<u64> {
    nodes_for_partition(classes, &Partition::shared(classes.len()), mu)
}

/// One strategy with its node count.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StrategyNodes {
    /// The partition.
    pub partition: Partition,
    /// Total nodes.
    pub nodes: u64,
}

/// Node counts of every partition (pool sizes memoised per subset), in [`Partition::all`] order.
pub fn all_strategies(classes: &[JobClass], mu: f64) -> Result<Vec<StrategyNodes>> {
    let parts = Partition::all(classes.len())?;
    let mut memo: Vec<Option<u64>> = vec![None; 1 << classes.len()];
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        let mut total = 0;
        for b in p.blocks() {
            let mask: usize = b.iter().map(|i| 1usize << i).sum();
            let v = match memo[mask] {
                Some(v) => v,
                None => {
                    let v = pool_nodes(classes, b, mu)?;
                    memo[mask] = Some(v);
                    v
                }
            };
            total += v;
        }
        out.push(StrategyNodes {
            partition: p,
            nodes: total,
        });
    }
    Ok(out)
}

/// The optimal (minimum-node) partition by exhaustive search; ties go to the earliest in
/// [`Partition::all`] order (SA first).
///
/// ```
/// use slarm_queueing::{optimal_partition, JobClass, Sla};
/// // Hu 2009 Table 4.2, case 2 recomputed from the formulas: DA 8 beats SA 10.
/// let c = [JobClass::new(0.6, Sla::new(3.0, 0.95).unwrap()).unwrap(),
///          JobClass::new(3.6, Sla::new(5.0, 0.80).unwrap()).unwrap()];
/// let best = optimal_partition(&c, 1.0).unwrap();
/// assert_eq!((best.partition.name().as_str(), best.nodes), ("DA", 8));
/// ```
pub fn optimal_partition(classes: &[JobClass], mu: f64) -> Result<StrategyNodes> {
    let all = all_strategies(classes, mu)?;
    all.into_iter()
        .min_by_key(|s| s.nodes)
        .ok_or_else(|| QueueError::InvalidConfig("no classes".into()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::sla::fixtures::class;

    #[test]
    fn bell_numbers() {
        let bell = [1, 2, 5, 15, 52, 203, 877, 4140];
        for (n, b) in (1..=8).zip(bell) {
            let all = Partition::all(n).unwrap();
            assert_eq!(all.len(), b);
            let mut uniq = all.clone();
            uniq.dedup();
            assert_eq!(uniq.len(), b);
        }
        assert!(Partition::all(9).is_err());
        assert_eq!(Partition::all(3).unwrap()[0].name(), "SA");
        assert_eq!(Partition::all(3).unwrap()[4].name(), "DA");
    }

    #[test]
    fn names_and_validation() {
        assert_eq!(Partition::mixed(3, 0, 2).unwrap().name(), "S13D2");
        assert_eq!(Partition::mixed(3, 1, 2).unwrap().name(), "S23D1");
        assert!(Partition::new(3, vec![vec![0, 1]]).is_err());
        assert!(Partition::new(2, vec![vec![0, 1], vec![1]]).is_err());
        assert!(Partition::new(2, vec![vec![0, 5]]).is_err());
    }

    /// Hu 2009 Table 4.2 recomputed: the printed m_D/m_S (5/6 and 8/7) do not follow from
    /// Eqs. 4.2-4.3, so the test holds the values the formulas give.
    #[test]
    fn table_4_2_recomputed() {
        let case1 = [class(0.6, 3.0, 0.80), class(3.0, 5.0, 0.95)];
        assert_eq!(m_da(&case1, 1.0).unwrap(), 6);
        assert_eq!(m_sa(&case1, 1.0).unwrap(), 5);
        let case2 = [class(0.6, 3.0, 0.95), class(3.6, 5.0, 0.80)];
        assert_eq!(m_da(&case2, 1.0).unwrap(), 8);
        assert_eq!(m_sa(&case2, 1.0).unwrap(), 10);
    }

    #[test]
    fn optimum_is_min_of_all() {
        let c = [
            class(5.0, 3.0, 0.95),
            class(12.0, 5.0, 0.8),
            class(0.7, 2.5, 0.85),
        ];
        let all = all_strategies(&c, 1.0).unwrap();
        assert_eq!(all.len(), 5);
        let best = optimal_partition(&c, 1.0).unwrap();
        assert_eq!(best.nodes, all.iter().map(|s| s.nodes).min().unwrap());
        for s in &all {
            assert_eq!(s.nodes, nodes_for_partition(&c, &s.partition, 1.0).unwrap());
        }
    }
}
