//! The cluster–portal graph's cache ([`hier`](super::hier)): the portals found on the clusters'
//! sides and the stretches between them, keyed by integers; the box of finest cells a cluster
//! covers.

use super::tree::Node;
use glam::DVec2;
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
