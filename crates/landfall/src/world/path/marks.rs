//! The search's per-node marks, reused across queries (stamped, so nothing is cleared between
//! them), and its heap entries.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Per-node marks reused across queries (stamped, so nothing is cleared between them).
#[derive(Default)]
pub(crate) struct Search {
    pub(crate) stamp: u32,
    pub(crate) seen: Vec<u32>,
    pub(crate) closed: Vec<u32>,
    pub(crate) g: Vec<f64>,
    pub(crate) parent: Vec<u32>,
    /// Cost from a node to the goal when it sees the goal (stamped by `target`).
    pub(crate) target: Vec<u32>,
    pub(crate) to_goal: Vec<f64>,
    pub(crate) heap: BinaryHeap<Entry>,
}

#[derive(PartialEq)]
pub(crate) struct Entry {
    pub(crate) f: f64,
    pub(crate) node: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Search {
    /// Ready for a search over `nodes` nodes: a new stamp.
    pub(crate) fn reset(&mut self, nodes: usize) {
        for v in [&mut self.seen, &mut self.closed, &mut self.target] {
            v.resize(nodes, 0);
        }
        self.g.resize(nodes, 0.0);
        self.parent.resize(nodes, 0);
        self.to_goal.resize(nodes, 0.0);
        self.heap.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for v in [&mut self.seen, &mut self.closed, &mut self.target] {
                v.fill(0);
            }
            self.stamp = 1;
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.seen.capacity() * 32 + self.heap.capacity() * 16
    }
}
