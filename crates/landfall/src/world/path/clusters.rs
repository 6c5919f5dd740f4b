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

/// A queued edge `from` → `node` through `cluster`: `exact` once its stretch is known.
pub(crate) struct Entry {
    pub(crate) f: f64,
    pub(crate) g: f64,
    pub(crate) node: u64,
    pub(crate) from: u64,
    pub(crate) cluster: u64,
    pub(crate) exact: bool,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        o.f.total_cmp(&self.f).then(o.node.cmp(&self.node)).then(self.exact.cmp(&o.exact))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// What a node was reached by: its cost, the node before, the corners on the way (reversed
/// when `flip`; `None`: the straight segment from the node before).
pub(crate) struct Reached {
    pub(crate) g: f64,
    pub(crate) from: u64,
    pub(crate) pts: Option<Arc<[DVec2]>>,
    pub(crate) flip: bool,
}

/// The search's state, kept between queries for its capacity (cleared at each).
#[derive(Default)]
pub(crate) struct PortalSearch {
    pub(crate) at: Map<u64, DVec2>,
    pub(crate) reached: Map<u64, Reached>,
    pub(crate) closed: Map<u64, ()>,
    pub(crate) heap: BinaryHeap<Entry>,
    pub(crate) portals: Vec<(u64, DVec2)>,
}
