//! The cluster–portal graph's cache ([`hier`](super::hier)): the portals found on the clusters'
//! sides and the stretches between them, keyed by integers; the box of finest cells a cluster
//! covers; the portal graph search's state, kept between queries.

use super::tree::Node;
use glam::DVec2;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// A box of finest cells, [x0, x1) × [y0, y1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cells {
    pub(crate) x0: u32,
    pub(crate) y0: u32,
    pub(crate) x1: u32,
    pub(crate) y1: u32,
}

impl Cells {
    /// Whether node `nd` lies inside.
    #[inline]
    pub(crate) fn holds(&self, nd: &Node) -> bool {
        let s = nd.size();
        nd.x >= self.x0 && nd.y >= self.y0 && nd.x + s <= self.x1 && nd.y + s <= self.y1
    }
}

pub(crate) use crate::rng::IntMap as Map;

/// A stretch between two portals: its length and its corners (from the lower key to the higher).
pub(crate) type Stretch = Option<(f64, Arc<[DVec2]>)>;

/// The cached portals and stretches.
#[derive(Default)]
pub(crate) struct Clusters {
    /// Portals of side `2 * cluster + 0` (east) and `2 * cluster + 1` (north).
    pub(crate) sides: Map<u64, Arc<[DVec2]>>,
    /// Per cluster, the stretches between its portals, keyed by the pair of portal keys (lower
    /// first).
    pub(crate) stretches: Map<u64, Map<(u64, u64), Stretch>>,
}

impl Clusters {
    /// Bytes held, roughly.
    pub(crate) fn bytes(&self) -> usize {
        let sides: usize = self.sides.values().map(|v| 16 * v.len() + 32).sum();
        let stretches: usize = self
            .stretches
            .values()
            .flat_map(|m| m.values())
            .map(|s| 48 + s.as_ref().map_or(0, |s| 16 * s.1.len()))
            .sum();
        sides + stretches
    }
}

/// A portal's key: its side and its index there.
#[inline]
pub(crate) fn portal_key(side: u64, k: usize) -> u64 {
    (side << 12) | k as u64
}

/// The side of a portal key.
#[inline]
pub(crate) fn key_side(key: u64) -> u64 {
    key >> 12
}

/// A node of the portal search: the start, the goal or a portal.
pub(crate) struct PortalNode {
    /// Where it is.
    pub(crate) at: DVec2,
    /// Its portal key (for the stretch cache; unused for the start and the goal).
    pub(crate) key: u64,
    /// Its best cost so far (`reached`), final once `closed`.
    pub(crate) g: f64,
    /// The node before on its best way so far.
    pub(crate) from: u32,
    pub(crate) reached: bool,
    pub(crate) closed: bool,
    /// The corners from `from` to it (reversed when `flip`); `None`: the straight segment.
    pub(crate) pts: Option<Arc<[DVec2]>>,
    pub(crate) flip: bool,
}

/// A heap entry: a key (smallest first) and a node (exact) or a lazy edge (`LAZY` bit set).
#[derive(Clone, Copy)]
pub(crate) struct Queued {
    pub(crate) f: f64,
    pub(crate) id: u32,
}

/// The bit of [`Queued::id`] that marks a lazy edge (an index into [`PortalSearch::edges`]).
pub(crate) const LAZY: u32 = 1 << 31;

impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Queued {}

impl Ord for Queued {
    fn cmp(&self, o: &Self) -> Ordering {
        // Smallest key first; on a tie, exact entries (no `LAZY` bit) before lazy ones.
        o.f.total_cmp(&self.f).then(o.id.cmp(&self.id))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// A queued edge whose stretch is not found yet: from node, to node, through cluster.
#[derive(Clone, Copy)]
pub(crate) struct LazyEdge {
    pub(crate) from: u32,
    pub(crate) to: u32,
    pub(crate) cluster: u64,
}

/// The portal search's state, kept between queries for its capacity: dense arrays indexed by
/// node (portals numbered as the search first meets their side) and by side and cluster, each
/// entry valid when its stamp is the query's (nothing is cleared per side; no hashing).
#[derive(Default)]
pub(crate) struct PortalSearch {
    /// The query's number (entries of `sides` and `clusters` from other queries are stale).
    pub(crate) stamp: u32,
    /// Per side: the stamp, the side's first node and its number of portals.
    pub(crate) sides: Vec<(u32, u32, u32)>,
    /// Per cluster: the stamp and whether it lies in one free leaf.
    pub(crate) clusters: Vec<(u32, bool)>,
    pub(crate) nodes: Vec<PortalNode>,
    pub(crate) edges: Vec<LazyEdge>,
    pub(crate) heap: BinaryHeap<Queued>,
}

impl PortalSearch {
    /// Starts a query over `clusters` clusters (`2 * clusters` sides).
    pub(crate) fn reset(&mut self, clusters: usize) {
        if self.clusters.len() != clusters || self.stamp == u32::MAX {
            self.clusters = vec![(0, false); clusters];
            self.sides = vec![(0, 0, 0); 2 * clusters];
            self.stamp = 0;
        }
        self.stamp += 1;
        self.nodes.clear();
        self.edges.clear();
        self.heap.clear();
    }

    /// Adds a node at `at` (portal key `key`): its id.
    pub(crate) fn add(&mut self, at: DVec2, key: u64) -> u32 {
        self.nodes.push(PortalNode { at, key, g: 0.0, from: 0, reached: false, closed: false, pts: None, flip: false });
        (self.nodes.len() - 1) as u32
    }

    /// Bytes held, roughly.
    pub(crate) fn bytes(&self) -> usize {
        12 * self.sides.capacity()
            + 8 * self.clusters.capacity()
            + std::mem::size_of::<PortalNode>() * self.nodes.capacity()
            + 16 * (self.edges.capacity() + self.heap.capacity())
    }
}
