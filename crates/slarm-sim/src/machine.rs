//! The machine model: a space-shared cluster of identical processors, optionally grouped
//! into nodes (for the models that fail and repair whole nodes).

use crate::error::{Result, SimError};

/// A homogeneous, space-shared machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Machine {
    nodes: u32,
    procs_per_node: u32,
}

impl Machine {
    /// A machine of `procs` processors, one per node.
    pub fn processors(procs: u32) -> Result<Self> {
        Self::nodes(procs, 1)
    }

    /// A machine of `nodes` nodes with `procs_per_node` processors each.
    pub fn nodes(nodes: u32, procs_per_node: u32) -> Result<Self> {
        if nodes == 0 || procs_per_node == 0 {
            return Err(SimError::InvalidParameter {
                name: "machine size",
                value: format!("{nodes} nodes x {procs_per_node} processors"),
                reason: "needs at least one node with at least one processor",
            });
        }
        if nodes.checked_mul(procs_per_node).is_none() {
            return Err(SimError::InvalidParameter {
                name: "machine size",
                value: format!("{nodes} nodes x {procs_per_node} processors"),
                reason: "too many processors",
            });
        }
        Ok(Self {
            nodes,
            procs_per_node,
        })
    }

    /// Number of nodes.
    pub fn node_count(&self) -> u32 {
        self.nodes
    }

    /// Processors per node.
    pub fn procs_per_node(&self) -> u32 {
        self.procs_per_node
    }

    /// Total processors.
    pub fn total_procs(&self) -> u32 {
        self.nodes * self.procs_per_node
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_sizes() {
        assert_eq!(Machine::nodes(144, 8).unwrap().total_procs(), 1152);
        assert_eq!(Machine::processors(128).unwrap().node_count(), 128);
        assert!(Machine::processors(0).is_err());
        assert!(Machine::nodes(u32::MAX, 2).is_err());
    }
}
