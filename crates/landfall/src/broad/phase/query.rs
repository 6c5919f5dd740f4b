//! Queries on a [`BroadPhase`]: the objects meeting a box or a sphere, and the first one a ray meets.
//!
//! They read the levels as the last rebuild (by [`BroadPhase::find_pairs`] or
//! [`BroadPhase::refresh`]) sorted them: on each occupied level, the rows of cells (of each layer,
//! on a level split by height) whose objects' fat boxes can meet the query, each row a contiguous
//! range of the sorted arrays, each object found tested on its own sphere; a level holding fewer
//! objects than the query covers cells is scanned whole. Once an object left its fat sphere, came
//! or went, until the next rebuild, they scan every object instead: the same answers, in time
//! proportional to the objects.

use super::boxes::Box32;
use super::level::{Level, Sphere};
use super::BroadPhase;
use crate::broad::queries::{offer, within};
use crate::geom::ray_ball;
use glam::DVec3;

/// Relative widening of every interval a query derives, far beyond its rounding.
const SLACK: f64 = 1e-9;

impl BroadPhase {
    /// Rebuilds the levels for the queries if an object left its fat sphere, came or went since
    /// they were last rebuilt (by this or by [`Self::find_pairs`]); the next frame then searches
    /// every pair anew.
    pub fn refresh(&mut self) {
        if !self.fresh {
            self.rebuild();
        }
    }

    /// Calls `visit(proxy)` once for every object whose sphere meets the closed box from `min` to
    /// `max` (z included). Nothing for a box that is not finite or whose `min` exceeds `max`.
    ///
    /// ```
    /// use landfall::broad::BroadPhase;
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// let tree = bp.insert(DVec3::new(10.0, 0.0, 2.0), 2.0).unwrap();
    /// bp.insert(DVec3::new(50.0, 0.0, 2.0), 2.0).unwrap();
    /// bp.refresh();
    /// let mut near = Vec::new();
    /// bp.within_box(DVec3::new(0.0, -1.0, 0.0), DVec3::new(8.5, 1.0, 2.0), |p| near.push(p));
    /// assert_eq!(near, [tree]);
    /// ```
    pub fn within_box(&self, min: DVec3, max: DVec3, mut visit: impl FnMut(u32)) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        let meets = |s: &Sphere| within(s.c.clamp(min, max) - s.c, s.r);
        if !self.fresh {
            self.live().filter(|(_, s)| meets(s)).for_each(|(p, _)| visit(p));
            return;
        }
        let qb = Box32::around(min.to_array(), max.to_array());
        let mut test = |lv: &Level, k: usize| {
            if lv.boxes[k].overlaps(&qb) && meets(&self.spheres[lv.proxies[k] as usize]) {
                visit(lv.proxies[k]);
            }
        };
        for lv in &self.built[..self.occupied] {
            let (i0, i1) = self.columns(lv, min.x, max.x);
            let (j0, j1) = self.rows(lv, min.y, max.y);
            let (k0, k1) = self.layers(lv, min.z, max.z);
            let cells = (i1 - i0 + 1) as f64 * (j1 - j0 + 1) as f64 * (k1 - k0 + 1) as f64;
            if cells > lv.proxies.len() as f64 {
                (0..lv.proxies.len()).for_each(|x| test(lv, x));
                continue;
            }
            let mut finger = 0;
            for k in k0..=k1 {
                for j in j0..=j1 {
                    let (a, b) = lv.row(j, k, i0, i1, &mut finger);
                    (a..b).for_each(|x| test(lv, x));
                }
            }
        }
    }

    /// Calls `visit(proxy)` once for every object whose sphere meets the sphere of `radius` around
    /// `p` (touching counts).
    pub fn within_radius(&self, p: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
        if !(p.is_finite() && radius.is_finite() && radius >= 0.0) {
            return;
        }
        let r = DVec3::splat(radius);
        self.within_box(p - r, p + r, |q| {
            let s = &self.spheres[q as usize];
            if within(s.c - p, radius + s.r) {
                visit(q);
            }
        });
    }

    /// The first object the ray `origin + t·dir`, t in [0, `max_t`], meets: its proxy and t (a ray
    /// starting inside a sphere meets it at t = 0; at equal t the lower proxy).
    ///
    /// ```
    /// use landfall::broad::BroadPhase;
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// bp.insert(DVec3::new(30.0, 0.0, 0.0), 1.0).unwrap();
    /// let near = bp.insert(DVec3::new(10.0, 0.0, 0.0), 1.0).unwrap();
    /// bp.refresh();
    /// assert_eq!(bp.raycast(DVec3::ZERO, DVec3::X, 100.0), Some((near, 9.0)));
    /// ```
    pub fn raycast(&self, origin: DVec3, dir: DVec3, max_t: f64) -> Option<(u32, f64)> {
        self.raycast_with(origin, dir, max_t, |_, t, _| Some(t))
    }

    /// The first hit of the ray among the objects' own shapes: `exact(proxy, t, limit)` is asked for
    /// each object whose sphere the ray enters at `t` no later than the best hit so far (`limit`),
    /// and answers where the ray meets the object itself, if it does before `limit`. The spheres
    /// must hold the shapes. Returns the proxy and t of the first hit (at equal t the lower proxy).
    pub fn raycast_with(
        &self,
        origin: DVec3,
        dir: DVec3,
        max_t: f64,
        mut exact: impl FnMut(u32, f64, f64) -> Option<f64>,
    ) -> Option<(u32, f64)> {
        if !(origin.is_finite() && dir.is_finite() && dir != DVec3::ZERO) || max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let mut best: Option<(u32, f64)> = None;
        let mut test = |p: u32, s: &Sphere, best: &mut Option<(u32, f64)>| {
            offer(best, p, ray_ball(origin, dir, s.c, s.r), max_t, &mut exact)
        };
        if !self.fresh {
            self.live().for_each(|(p, s)| test(p, s, &mut best));
            return best;
        }
        let at = |o: f64, d: f64, t: f64| if d == 0.0 { o } else { o + d * t };
        for lv in &self.built[..self.occupied] {
            let limit = best.map_or(max_t, |b| b.1);
            // The part of the ray whose projection passes within the level's reach of its cells.
            let w = self.levels.width(lv.t);
            let m = self.reach(lv, origin.abs().max_element());
            // A level not split by height reaches every z.
            let (zlo, zhi) = if lv.vertical {
                ((lv.kmin as f64 - 0.5) * w - m, ((lv.kmin + lv.nz) as f64 - 0.5) * w + m)
            } else {
                (f64::NEG_INFINITY, f64::INFINITY)
            };
            let lo = [(lv.imin as f64 - 0.5) * w - m, (lv.jmin as f64 - 0.5) * w - m, zlo];
            let hi = [((lv.imin + lv.nx) as f64 - 0.5) * w + m, ((lv.jmin + lv.ny) as f64 - 0.5) * w + m, zhi];
            let Some((t0, t1)) = crate::broad::queries::slab(origin, dir, lo, hi, limit) else { continue };
            let (ya, yb) = (at(origin.y, dir.y, t0), at(origin.y, dir.y, t1));
            let (j0, j1) = self.rows(lv, ya.min(yb), ya.max(yb));
            if (j1 - j0 + 1) as f64 > lv.proxies.len() as f64 {
                (0..lv.proxies.len()).for_each(|k| {
                    let p = lv.proxies[k];
                    test(p, &self.spheres[p as usize], &mut best)
                });
                continue;
            }
            // Rows in the ray's order: once a row's nearest t passes the best hit, so do the rest.
            let mut finger = 0;
            for n in 0..=j1 - j0 {
                let j = if dir.y >= 0.0 { j0 + n } else { j1 - n };
                // The t where the ray is within the reach of the row's centres.
                let (ra, rb) = ((j as f64 - 0.5) * w - m, (j as f64 + 0.5) * w + m);
                let (ta, tb) = crate::broad::queries::row_t(origin.y, dir.y, (ra, rb), w, (t0, t1));
                if ta > tb {
                    continue;
                }
                if ta > best.map_or(max_t, |b| b.1) {
                    break;
                }
                let (xa, xb) = (at(origin.x, dir.x, ta), at(origin.x, dir.x, tb));
                let (i0, i1) = self.columns(lv, xa.min(xb), xa.max(xb));
                // z along the ray, widened by the rounding of o + d·t (|d·t| ≤ |o| + |z|).
                let (za, zb) = (at(origin.z, dir.z, ta), at(origin.z, dir.z, tb));
                let zs = SLACK * origin.z.abs();
                let (k0, k1) = self.layers(lv, za.min(zb) - zs, za.max(zb) + zs);
                for k in k0..=k1 {
                    let (a, b) = lv.row(j, k, i0, i1, &mut finger);
                    (a..b).for_each(|x| {
                        let p = lv.proxies[x];
                        test(p, &self.spheres[p as usize], &mut best)
                    });
                }
            }
        }
        best
    }

    /// The live objects with their proxies.
    pub(super) fn live(&self) -> impl Iterator<Item = (u32, &Sphere)> {
        self.spheres
            .iter()
            .zip(&self.size_level)
            .enumerate()
            .filter(|(_, (_, &l))| l != super::FREE)
            .map(|(p, (s, _))| (p as u32, s))
    }

    /// How far from a cell an object of level `lv` may reach, for queries near coordinate `near`:
    /// the level's largest half-width, widened beyond the rounding of the query's arithmetic.
    fn reach(&self, lv: &Level, near: f64) -> f64 {
        lv.hmax + SLACK * (near + self.levels.width(lv.t))
    }

    /// The columns of `lv` whose objects may reach x in [lo, hi], clamped to the level's span.
    fn columns(&self, lv: &Level, lo: f64, hi: f64) -> (i64, i64) {
        let m = self.reach(lv, lo.abs().max(hi.abs()));
        let span = (lv.imin, lv.imin + lv.nx - 1);
        (self.levels.index_within(lv.t, lo - m, span), self.levels.index_within(lv.t, hi + m, span))
    }

    /// The rows of `lv` whose objects may reach y in [lo, hi], clamped to the level's span.
    fn rows(&self, lv: &Level, lo: f64, hi: f64) -> (i64, i64) {
        let m = self.reach(lv, lo.abs().max(hi.abs()));
        let span = (lv.jmin, lv.jmin + lv.ny - 1);
        (self.levels.index_within(lv.t, lo - m, span), self.levels.index_within(lv.t, hi + m, span))
    }

    /// The layers of `lv` whose objects may reach z in [lo, hi], clamped to the level's span
    /// (`(0, 0)` on a level not split by height).
    fn layers(&self, lv: &Level, lo: f64, hi: f64) -> (i64, i64) {
        if !lv.vertical {
            return (0, 0);
        }
        let m = self.reach(lv, lo.abs().max(hi.abs()));
        let span = (lv.kmin, lv.kmin + lv.nz - 1);
        (self.levels.index_within(lv.t, lo - m, span), self.levels.index_within(lv.t, hi + m, span))
    }
}
