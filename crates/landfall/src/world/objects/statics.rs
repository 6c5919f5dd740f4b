//! The objects' bounding spheres, found through the cells that made them: no broad phase to edit
//! when cells come and go.
//!
//! A cell's objects are already listed in the slot of that cell ([`Tracked`], a toroidal array
//! addressed as the cache's own cells), and an object's sphere lies within its cell widened by its
//! level's *reach* (how far any sphere of the level has stood out of its cell in x or y, raised as
//! objects come). A query visits, on each followed level, the cells of the window whose widened
//! squares meet it (a ray: row after row in the ray's order, stopping once a row begins beyond the
//! best hit), and tests each of their objects' spheres exactly: the answers are those of a test of
//! every sphere. Generating or dropping a cell costs nothing here but writing its spheres.

use crate::broad::queries::{offer, within};
use crate::geom::ray_ball;
use crate::torus::Attached;
use crate::world::query::floor_i64;
use glam::DVec3;

/// Relative widening of every interval a query derives, far beyond its rounding.
const SLACK: f64 = 1e-9;

/// A level whose cells the objects follow: its window now and the objects of each of its cells,
/// kept in the slot of the cell (addressed as the cache's own cells).
pub(super) struct Tracked {
    pub level: u8,
    /// The window's origin, `None` while the layer is inactive.
    pub window: Option<[i64; 2]>,
    pub objects: Attached<Vec<u32>>,
    /// The level's cell width.
    pub width: f64,
    /// How far a sphere of this level has stood out of its cell in x or y (−∞: none yet).
    pub reach: f64,
}

impl Tracked {
    /// Level `level`, cells `width` wide, in windows of `side` cells.
    pub fn new(level: u8, width: f64, side: usize) -> Self {
        Self { level, window: None, objects: Attached::new(side), width, reach: f64::NEG_INFINITY }
    }

    /// The window's cells whose squares, widened by the reach, meet x in `xs` and y in `ys`:
    /// inclusive column and row ranges (`None`: none, or the level holds no object).
    fn cells(&self, side: i64, xs: [f64; 2], ys: [f64; 2]) -> Option<([i64; 2], [i64; 2])> {
        Some((self.span(side, 0, xs)?, self.span(side, 1, ys)?))
    }

    /// The window's columns (`axis` 0) or rows (1) whose cells, widened by the reach, meet
    /// [`lo`, `hi`] on that axis.
    fn span(&self, side: i64, axis: usize, [lo, hi]: [f64; 2]) -> Option<[i64; 2]> {
        let o = self.window.filter(|_| self.reach > f64::NEG_INFINITY)?[axis];
        let (s, m) = (self.width, self.margin(lo.abs().max(hi.abs())));
        let (a, b) = ((lo - m) / s, (hi + m) / s);
        (a <= (o + side) as f64 && b >= o as f64).then(|| [index(a, o, side), index(b, o, side)])
    }

    /// The reach, widened beyond the rounding of a query's arithmetic near coordinate `near`.
    fn margin(&self, near: f64) -> f64 {
        self.reach.max(0.0) + SLACK * (near + self.width)
    }
}

/// The cell holding coordinate `v` (in cell widths), clamped to the window's `side` cells from `o`.
fn index(v: f64, o: i64, side: i64) -> i64 {
    floor_i64(v.clamp(o as f64, (o + side - 1) as f64))
}

/// The objects' bounding spheres by slot.
pub(super) struct Statics {
    /// By slot (radius −1: none).
    spheres: Vec<(DVec3, f64)>,
    /// The windows' width in cells.
    side: i64,
}

impl Statics {
    /// No spheres, for windows `side` cells wide.
    pub fn new(side: usize) -> Self {
        Self { spheres: Vec::new(), side: side as i64 }
    }

    /// Gives slot, an object of cell (i, j) of `t`, the sphere (`c`, `r`). A sphere that is not
    /// finite or has a negative radius leaves the slot without one: it meets nothing.
    pub fn set(&mut self, t: &mut Tracked, (i, j): (i64, i64), slot: u32, c: DVec3, r: f64) {
        let s = slot as usize;
        if self.spheres.len() <= s {
            self.spheres.resize(s + 1, (DVec3::ZERO, -1.0));
        }
        if !(c.is_finite() && r.is_finite() && r >= 0.0) {
            self.spheres[s] = (DVec3::ZERO, -1.0);
            return;
        }
        self.spheres[s] = (c, r);
        let w = t.width;
        let (x0, y0) = (i as f64 * w, j as f64 * w);
        let out = (x0 - (c.x - r)).max(c.x + r - (x0 + w)).max(y0 - (c.y - r)).max(c.y + r - (y0 + w));
        t.reach = t.reach.max(out);
    }

    /// Takes slot's sphere away.
    pub fn remove(&mut self, slot: u32) {
        if let Some(s) = self.spheres.get_mut(slot as usize) {
            *s = (DVec3::ZERO, -1.0);
        }
    }

    /// Slot's sphere, if it has one.
    pub fn get(&self, slot: u32) -> Option<(DVec3, f64)> {
        self.spheres.get(slot as usize).copied().filter(|s| s.1 >= 0.0)
    }

    /// Calls `visit(slot)` for every slot of the cells of `tracked` within columns `is` and rows
    /// `js` (its window's), with its sphere.
    fn each_in(&self, t: &Tracked, [i0, i1]: [i64; 2], [j0, j1]: [i64; 2], visit: &mut impl FnMut(u32, DVec3, f64)) {
        for j in j0..=j1 {
            for i in i0..=i1 {
                for &slot in t.objects.get(i, j).map_or(&[][..], |v| &v[..]) {
                    if let Some((c, r)) = self.get(slot) {
                        visit(slot, c, r);
                    }
                }
            }
        }
    }

    /// Calls `visit(slot)` once for every sphere meeting the closed box from `min` to `max`.
    /// Nothing for a box that is not finite or whose `min` exceeds `max`.
    pub fn within_box(&self, tracked: &[Tracked], min: DVec3, max: DVec3, mut visit: impl FnMut(u32)) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        for t in tracked {
            let Some((is, js)) = t.cells(self.side, [min.x, max.x], [min.y, max.y]) else { continue };
            self.each_in(t, is, js, &mut |slot, c, r| {
                if within(c.clamp(min, max) - c, r) {
                    visit(slot);
                }
            });
        }
    }

    /// Calls `visit(slot)` once for every sphere meeting the sphere of `radius` around `p`
    /// (touching counts: the pairs' own test).
    pub fn within_radius(&self, tracked: &[Tracked], p: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
        if !(p.is_finite() && radius.is_finite() && radius >= 0.0) {
            return;
        }
        for t in tracked {
            let Some((is, js)) = t.cells(self.side, [p.x - radius, p.x + radius], [p.y - radius, p.y + radius]) else {
                continue;
            };
            self.each_in(t, is, js, &mut |slot, c, r| {
                if within(c - p, radius + r) {
                    visit(slot);
                }
            });
        }
    }

    /// Calls `visit(a, b)` (a < b) for every pair of spheres that overlap or touch.
    pub fn pairs(&self, tracked: &[Tracked], mut visit: impl FnMut(u32, u32)) {
        for a in 0..self.spheres.len() as u32 {
            let Some((c, r)) = self.get(a) else { continue };
            self.within_radius(tracked, c, r, |b| {
                if b > a {
                    visit(a, b);
                }
            });
        }
    }

    /// The first hit of the ray `origin + t·dir`, t in [0, `max_t`], among the objects' own shapes:
    /// `exact(slot, t, limit)` is asked for each sphere the ray enters at `t` no later than the best
    /// hit so far (`limit`), and answers where the ray meets the slot's own shape before `limit`.
    /// The first hit's t.
    pub fn raycast_with(
        &self,
        tracked: &[Tracked],
        origin: DVec3,
        dir: DVec3,
        max_t: f64,
        mut exact: impl FnMut(u32, f64, f64) -> Option<f64>,
    ) -> Option<f64> {
        if !(origin.is_finite() && dir.is_finite() && dir != DVec3::ZERO) || max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let mut best: Option<(u32, f64)> = None;
        let at = |o: f64, d: f64, t: f64| if d == 0.0 { o } else { o + d * t };
        for t in tracked {
            let Some(o) = t.window.filter(|_| t.reach > f64::NEG_INFINITY) else { continue };
            let (s, side) = (t.width, self.side);
            let limit = best.map_or(max_t, |b| b.1);
            // The part of the ray whose projection passes over the window widened by the reach.
            let far = ((o[0].abs().max(o[1].abs()) + side) as f64 * s).max(origin.x.abs().max(origin.y.abs()));
            let m = t.margin(far);
            let lo = [o[0] as f64 * s - m, o[1] as f64 * s - m];
            let hi = [(o[0] + side) as f64 * s + m, (o[1] + side) as f64 * s + m];
            // The square as a box unbounded in z.
            let (lo, hi) = ([lo[0], lo[1], f64::NEG_INFINITY], [hi[0], hi[1], f64::INFINITY]);
            let Some((t0, t1)) = crate::broad::queries::slab(origin, dir, lo, hi, limit) else { continue };
            let (ya, yb) = (at(origin.y, dir.y, t0), at(origin.y, dir.y, t1));
            let Some([j0, j1]) = t.span(side, 1, [ya.min(yb), ya.max(yb)]) else { continue };
            // Rows in the ray's order: once a row's nearest t passes the best hit, so do the rest.
            for n in 0..=j1 - j0 {
                let j = if dir.y >= 0.0 { j0 + n } else { j1 - n };
                let (ra, rb) = (j as f64 * s - m, (j + 1) as f64 * s + m);
                let (ta, tb) = crate::broad::queries::row_t(origin.y, dir.y, (ra, rb), s, (t0, t1));
                if ta > tb {
                    continue;
                }
                if ta > best.map_or(max_t, |b| b.1) {
                    break;
                }
                let (xa, xb) = (at(origin.x, dir.x, ta), at(origin.x, dir.x, tb));
                let Some([i0, i1]) = t.span(side, 0, [xa.min(xb), xa.max(xb)]) else { continue };
                self.each_in(t, [i0, i1], [j, j], &mut |slot, c, r| {
                    offer(&mut best, slot, ray_ball(origin, dir, c, r), max_t, &mut exact)
                });
            }
        }
        best.map(|b| b.1)
    }
}
