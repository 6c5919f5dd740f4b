//! The cluster–portal graph (HPA*-style) over the occupancy tree: the square is cut into clusters
//! (the tree's nodes at a fixed level); a portal is a point on a side shared by two clusters,
//! in the middle of a run where the free leaves on both sides meet (long runs get one every
//! [`SPACING`] finest cells). The stretches between two portals of one cluster are found lazily,
//! by the leaf search kept inside the cluster, pulled straight and cached; adding or removing an
//! obstacle drops only the portals of the clusters its inflated box meets and the stretches of
//! those clusters and their neighbours.

use super::clusters::{Cells, Stretch};
use super::planner::Planner;
use super::tree::State;
use glam::DVec2;
use std::sync::Arc;

/// Cluster level relative to the tree's depth: about 2^`CLUSTERS` clusters a side.
const CLUSTERS: u8 = 5;
/// Cluster side, finest cells, as a power of two: at least this …
const LEVEL_MIN: u8 = 3;
/// … and at most this.
const LEVEL_MAX: u8 = 7;
/// A run of free side longer than this many finest cells gets more than one portal.
const SPACING: u32 = 32;

impl Planner<'_> {
    /// The cluster level: clusters are 2^level finest cells wide.
    pub(crate) fn cluster_level(&self) -> u8 {
        self.tree.depth.saturating_sub(CLUSTERS).clamp(LEVEL_MIN, LEVEL_MAX).min(self.tree.depth)
    }

    /// Clusters a side.
    pub(crate) fn clusters_per_side(&self) -> u32 {
        1 << (self.tree.depth - self.cluster_level())
    }

    /// The cluster holding `p` (in the region).
    pub(crate) fn cluster_of(&self, p: DVec2) -> u64 {
        let t = &self.tree;
        let u = ((p - t.origin) / t.cell).floor();
        let last = t.side() as f64 - 1.0;
        let l = self.cluster_level();
        let (i, j) = (u.x.clamp(0.0, last) as u32 >> l, u.y.clamp(0.0, last) as u32 >> l);
        j as u64 * self.clusters_per_side() as u64 + i as u64
    }

    /// The finest cells of cluster `c`.
    pub(crate) fn cluster_cells(&self, c: u64) -> Cells {
        let n = self.clusters_per_side() as u64;
        let l = self.cluster_level();
        let (x0, y0) = (((c % n) as u32) << l, ((c / n) as u32) << l);
        Cells { x0, y0, x1: x0 + (1 << l), y1: y0 + (1 << l) }
    }

    /// Whether cluster `c` lies in one free leaf.
    pub(crate) fn cluster_free(&self, c: u64) -> bool {
        let w = self.cluster_cells(c);
        let n = self.tree.leaf_at(w.x0, w.y0);
        let nd = &self.tree.nodes[n as usize];
        nd.state == State::Free && nd.level >= self.cluster_level()
    }

    /// The two clusters of a side.
    pub(crate) fn side_clusters(&self, side: u64) -> [u64; 2] {
        let c = side / 2;
        let n = self.clusters_per_side() as u64;
        [c, if side.is_multiple_of(2) { c + 1 } else { c + n }]
    }

    /// The sides of cluster `c` (those inside the square).
    pub(crate) fn cluster_sides(&self, c: u64) -> impl Iterator<Item = u64> {
        let n = self.clusters_per_side() as u64;
        let (i, j) = (c % n, c / n);
        [
            (i + 1 < n).then_some(2 * c),
            (j + 1 < n).then_some(2 * c + 1),
            (i > 0).then(|| 2 * (c - 1)),
            (j > 0).then(|| 2 * (c - n) + 1),
        ]
        .into_iter()
        .flatten()
    }

    /// The portals of a side (cached).
    pub(crate) fn side_portals(&mut self, side: u64) -> Arc<[DVec2]> {
        if let Some(p) = self.clusters.sides.get(&side) {
            return p.clone();
        }
        let p: Arc<[DVec2]> = self.find_portals(side).into();
        self.clusters.sides.insert(side, p.clone());
        p
    }

    /// Portals of a side: the runs where free leaves meet across it, cut into pieces of at most
    /// [`SPACING`] finest cells, one portal at the middle of each.
    fn find_portals(&self, side: u64) -> Vec<DVec2> {
        let t = &self.tree;
        let w = self.cluster_cells(side / 2);
        let vertical = side.is_multiple_of(2);
        // The line (finest-cell coordinate) and the stretch along it.
        let (line, start, end) = if vertical { (w.x1, w.y0, w.y1) } else { (w.y1, w.x0, w.x1) };
        let at = |along: u32, across: u32| if vertical { t.leaf_at(across, along) } else { t.leaf_at(along, across) };
        let end_of = |n: u32| {
            let nd = &t.nodes[n as usize];
            if vertical {
                nd.y + nd.size()
            } else {
                nd.x + nd.size()
            }
        };
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let mut p = start;
        while p < end {
            let (l, r) = (at(p, line - 1), at(p, line));
            let next = end_of(l).min(end_of(r)).min(end);
            if t.nodes[l as usize].state == State::Free && t.nodes[r as usize].state == State::Free {
                match runs.last_mut() {
                    Some(run) if run.1 == p => run.1 = next,
                    _ => runs.push((p, next)),
                }
            }
            p = next;
        }
        let mut out = Vec::new();
        for (r0, r1) in runs {
            let pieces = (r1 - r0).div_ceil(SPACING);
            for k in 0..pieces {
                let along = r0 as f64 + (k as f64 + 0.5) * (r1 - r0) as f64 / pieces as f64;
                let u = if vertical { DVec2::new(line as f64, along) } else { DVec2::new(along, line as f64) };
                out.push(t.origin + u * t.cell);
            }
        }
        out
    }

    /// The stretch between portals `(kp, p)` and `(kq, q)` of cluster `c` (cached), its corners
    /// from `p` to `q`.
    pub(crate) fn stretch(
        &mut self,
        c: u64,
        (kp, p): (u64, DVec2),
        (kq, q): (u64, DVec2),
    ) -> Option<(f64, Arc<[DVec2]>, bool)> {
        if self.cluster_free(c) {
            return Some((p.distance(q), Arc::from([p, q].as_slice()), false));
        }
        let (key, flip) = if kp <= kq { ((kp, kq), false) } else { ((kq, kp), true) };
        if let Some(s) = self.clusters.stretches.get(&c).and_then(|m| m.get(&key)) {
            return s.as_ref().map(|(l, pts)| (*l, pts.clone(), flip));
        }
        let (from, to) = if flip { (q, p) } else { (p, q) };
        let s = self.local(c, from, to);
        self.clusters.stretches.entry(c).or_default().insert(key, s.clone());
        s.map(|(l, pts)| (l, pts, flip))
    }

    /// A path from `a` to `b` inside cluster `c`, pulled straight: its length and corners.
    pub(crate) fn local(&mut self, c: u64, a: DVec2, b: DVec2) -> Stretch {
        let w = self.cluster_cells(c);
        let mut pts = self.corridor_in(a, b, Some(w)).ok()?;
        self.smooth(&mut pts);
        let l = pts.windows(2).map(|s| s[0].distance(s[1])).sum();
        Some((l, pts.into()))
    }

    /// Drops what the change of free space in the world box [lo, hi] makes stale: the portals
    /// of the clusters it meets, the stretches of those clusters and their neighbours.
    pub(crate) fn forget(&mut self, lo: DVec2, hi: DVec2) {
        if self.clusters.sides.is_empty() && self.clusters.stretches.is_empty() {
            return;
        }
        let t = &self.tree;
        let l = self.cluster_level();
        let n = self.clusters_per_side() as i64;
        let cl = |v: f64| ((v.floor() as i64).clamp(0, t.side() as i64 - 1) >> l).clamp(0, n - 1);
        let (ulo, uhi) = ((lo - t.origin) / t.cell - 1.0, (hi - t.origin) / t.cell + 1.0);
        let (i0, i1, j0, j1) = (cl(ulo.x), cl(uhi.x), cl(ulo.y), cl(uhi.y));
        for j in (j0 - 1).max(0)..=(j1 + 1).min(n - 1) {
            for i in (i0 - 1).max(0)..=(i1 + 1).min(n - 1) {
                let c = (j * n + i) as u64;
                self.clusters.stretches.remove(&c);
                if (i0..=i1).contains(&i) && (j0..=j1).contains(&j) {
                    let sides: Vec<u64> = self.cluster_sides(c).collect();
                    for s in sides {
                        self.clusters.sides.remove(&s);
                    }
                }
            }
        }
    }
}
