//! The cluster–portal graph's cache ([`hier`](super::hier)): the portals found on the clusters'
//! sides and the stretches between them, keyed by integers; the box of finest cells a cluster
//! covers.

use super::tree::Node;
use glam::DVec2;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
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

/// Hasher for integer keys (SplitMix64's finaliser).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        crate::rng::mix(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(29) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

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
