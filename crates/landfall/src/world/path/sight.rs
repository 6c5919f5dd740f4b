//! Quick line of sight over a coarse grid of the region: per bucket, the inflated discs whose box
//! meets it and whether steep ground is near. A segment crossing no steep bucket is clear exactly
//! when no disc of the buckets it crosses is closer to it than its radius: a few buckets and
//! discs, where the tree's walk steps through every leaf on the way (many small ones near the
//! obstacles, each found from the root).

use super::geom::{segment_dist2, Disc};
use super::slope::SlopeGrid;
use glam::DVec2;

/// Buckets a side at most.
const BUCKETS: usize = 32;
/// Slack on the buckets a segment crosses, in buckets (rounding: a bucket more, never one less).
const SLACK: f64 = 1e-6;

/// The coarse grid: inflated discs by bucket, and the buckets near steep ground.
pub(crate) struct Sight {
    origin: DVec2,
    bucket: f64,
    nb: usize,
    discs: Vec<Vec<(u32, Disc)>>,
    steep: Vec<bool>,
}

impl Sight {
    /// No discs yet, over the square of side `side` from `origin` (`finest` cells a side), with
    /// the steep cells of `slope`.
    pub(crate) fn new(origin: DVec2, side: f64, finest: usize, slope: &SlopeGrid) -> Self {
        let nb = finest.clamp(1, BUCKETS);
        let bucket = side / nb as f64;
        let steep = (0..nb * nb)
            .map(|k| {
                let lo = origin + DVec2::new((k % nb) as f64, (k / nb) as f64) * bucket;
                // The cells meeting the closed bucket, and a cell more each way (rounding).
                let (i0, j0, i1, j1) = slope.cells_in(lo, lo + bucket);
                let m = slope.n;
                slope.count(i0.saturating_sub(1), j0.saturating_sub(1), (i1 + 2).min(m), (j1 + 2).min(m)) > 0
            })
            .collect();
        Self { origin, bucket, nb, discs: vec![Vec::new(); nb * nb], steep }
    }

    /// Adds disc `id` (inflated).
    pub(crate) fn add(&mut self, id: u32, d: Disc) {
        self.for_buckets(d, |b| b.push((id, d)));
    }

    /// Removes disc `id` (inflated `d`).
    pub(crate) fn remove(&mut self, id: u32, d: Disc) {
        self.for_buckets(d, |b| b.retain(|e| e.0 != id));
    }

    /// Calls `f` with each bucket the disc's box meets.
    fn for_buckets(&mut self, d: Disc, mut f: impl FnMut(&mut Vec<(u32, Disc)>)) {
        let (u, v) =
            ((d.center - d.radius - self.origin) / self.bucket, (d.center + d.radius - self.origin) / self.bucket);
        let n = self.nb as f64;
        if !(v.x >= 0.0 && v.y >= 0.0 && u.x < n && u.y < n) {
            return;
        }
        let c = |t: f64| (t.max(0.0) as usize).min(self.nb - 1);
        for j in c(u.y)..=c(v.y) {
            for i in c(u.x)..=c(v.x) {
                f(&mut self.discs[j * self.nb + i]);
            }
        }
    }

    /// Whether the segment `a`–`b` (both in the region) is clear of every inflated disc (none
    /// closer than its radius); `None` when a bucket it crosses before a disc that blocks it is
    /// near steep ground.
    pub(crate) fn clear(&self, a: DVec2, b: DVec2) -> Option<bool> {
        self.scan(a, b, |_, ds| !ds.iter().any(|(_, d)| hits(a, b, d)))
    }

    /// The first inflated disc along the segment `a`–`b` (both in the region) closer to it than
    /// its radius (where the segment enters it: least parameter), `Some(None)` when none is;
    /// `None` when a bucket it crosses before that disc is near steep ground.
    pub(crate) fn first(&self, a: DVec2, b: DVec2) -> Option<Option<Disc>> {
        let mut best: (f64, Option<Disc>) = (f64::INFINITY, None);
        self.scan(a, b, |t_row, ds| {
            for (_, d) in ds.iter().filter(|(_, d)| hits(a, b, d)) {
                let t = entry(a, b, d);
                if t < best.0 {
                    best = (t, Some(*d));
                }
            }
            // Rows come in the order of travel: none after this one is entered earlier.
            t_row <= best.0
        })?;
        Some(best.1)
    }

    /// Calls `visit` with each bucket the segment `a`–`b` crosses, row by row in the order of
    /// travel, with the parameter (0 at `a`, 1 at `b`) where the segment enters the bucket's
    /// row, until it returns false: whether it never did; `None` at a steep bucket before.
    fn scan(&self, a: DVec2, b: DVec2, mut visit: impl FnMut(f64, &[(u32, Disc)]) -> bool) -> Option<bool> {
        let (u, v) = ((a - self.origin) / self.bucket, (b - self.origin) / self.bucket);
        let last = self.nb - 1;
        // Non-negative values truncate as they floor.
        let c = |t: f64| (t.max(0.0) as usize).min(last);
        let (ylo, yhi) = (u.y.min(v.y), u.y.max(v.y));
        let (xlo, xhi) = (u.x.min(v.x), u.x.max(v.x));
        let dy = v.y - u.y;
        let slope = (v.x - u.x) / dy;
        let (j0, j1) = (c(ylo - SLACK), c(yhi + SLACK));
        let up = dy >= 0.0;
        for k in 0..=j1 - j0 {
            let j = if up { j0 + k } else { j1 - k };
            // Where the segment enters the row, and its x range there (all of it when the
            // segment runs along the row).
            let (t_row, x0, x1) = if dy == 0.0 || !slope.is_finite() {
                (0.0, xlo, xhi)
            } else {
                let y0 = (j as f64).max(ylo);
                let y1 = ((j + 1) as f64).min(yhi);
                let (p, q) = (u.x + (y0 - u.y) * slope, u.x + (y1 - u.y) * slope);
                let t = if up { (j as f64 - u.y) / dy } else { ((j + 1) as f64 - u.y) / dy };
                (t.max(0.0), p.min(q).max(xlo), p.max(q).min(xhi))
            };
            for i in c(x0 - SLACK)..=c(x1 + SLACK) {
                let k = j * self.nb + i;
                if self.steep[k] {
                    return None;
                }
                if !visit(t_row, &self.discs[k]) {
                    return Some(false);
                }
            }
        }
        Some(true)
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.steep.len()
            + self
                .discs
                .iter()
                .map(|b| b.capacity() * std::mem::size_of::<(u32, Disc)>() + std::mem::size_of::<Vec<(u32, Disc)>>())
                .sum::<usize>()
    }
}

/// Whether disc `d` is closer to the segment `a`–`b` than its radius (the walk's test).
#[inline]
fn hits(a: DVec2, b: DVec2, d: &Disc) -> bool {
    segment_dist2(a, b, d.center) < d.radius * d.radius
}

/// Where the segment `a`–`b` enters disc `d` (that it hits): the least parameter of a point of
/// the segment inside it (0 at `a`), or its nearest point's where rounding finds none.
fn entry(a: DVec2, b: DVec2, d: &Disc) -> f64 {
    let (e, w) = (b - a, a - d.center);
    let (ee, we) = (e.length_squared(), w.dot(e));
    if ee == 0.0 {
        return 0.0;
    }
    let disc = we * we - ee * (w.length_squared() - d.radius * d.radius);
    let t = if disc >= 0.0 { (-we - disc.sqrt()) / ee } else { -we / ee };
    t.clamp(0.0, 1.0)
}

#[cfg(test)]
#[path = "sight_tests.rs"]
mod tests;
