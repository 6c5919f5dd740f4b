//! Queries on a [`ProximityGrid`]: every overlapping pair, everything in a box or a sphere, the first
//! object a ray meets, and the smallest cell around a region.

use super::cells::{self, Cell};
use super::lists::Key;
use super::{ProximityGrid, Slot};
use glam::{DVec2, DVec3};

/// Whether two spheres overlap or touch.
#[inline]
fn touch(a: &Slot, b: &Slot) -> bool {
    within(a.center - b.center, a.radius + b.radius)
}

/// Whether |d| ≤ r. The squares are compared directly where they are normal numbers; otherwise
/// (lengths below ~1e-154 or above ~1e154, whose squares underflow or overflow) at the scale of the
/// largest of them, so that spheres 1e-160 apart answer as they do at unit scale.
#[inline]
pub(crate) fn within(d: DVec3, r: f64) -> bool {
    let (d2, r2) = (d.length_squared(), r * r);
    if d2.is_normal() && r2.is_normal() && d2 < f64::MAX && r2 < f64::MAX {
        return d2 <= r2;
    }
    let s = d.abs().max_element().max(r);
    if s == 0.0 {
        return true;
    }
    let (d, r) = (d / s, r / s);
    d.length_squared() <= r * r
}

/// A ray query's step for one object that the ray's bounding sphere test says it enters at
/// `enter`: asks `exact(id, enter, limit)` when that is no later than the best hit so far, and keeps
/// the earlier hit (at equal t the lower id).
#[inline]
pub(crate) fn offer<I: Copy + Ord>(
    best: &mut Option<(I, f64)>,
    id: I,
    enter: Option<f64>,
    max_t: f64,
    exact: &mut impl FnMut(I, f64, f64) -> Option<f64>,
) {
    let Some(t) = enter else { return };
    let limit = best.map_or(max_t, |b| b.1);
    if t <= limit {
        if let Some(t) = exact(id, t, limit).filter(|&t| t <= max_t) {
            if best.is_none_or(|b| t < b.1 || (t == b.1 && id < b.0)) {
                *best = Some((id, t));
            }
        }
    }
}

impl ProximityGrid {
    /// The objects with their slots.
    fn live(&self) -> impl Iterator<Item = (usize, &Slot)> {
        self.slots.iter().enumerate().filter(|(_, s)| !s.is_free())
    }

    /// The levels that hold objects, from `from` up.
    fn levels_from(&self, from: i32) -> impl Iterator<Item = (i32, &Vec<u32>)> {
        self.levels.range(from..).map(|(&l, v)| (l, v))
    }

    /// Calls `visit(a, b)` once for every pair of objects whose spheres overlap or touch (ids as
    /// given; which of the two comes first is unspecified).
    pub fn pairs(&self, visit: impl FnMut(u64, u64)) {
        if self.top.is_some() {
            self.pairs_on_own_level(visit)
        } else {
            self.pairs_climbing(visit)
        }
    }

    /// Mirtich's pair search for a [hierarchical](ProximityGrid::hierarchical) grid: each object
    /// looks only at the cells of its own level — the objects of that level there, and the smaller
    /// ones registered up into them; each pair reported in the cell of the larger object's level
    /// that holds the lower corner of the two boxes' overlap.
    fn pairs_on_own_level(&self, mut visit: impl FnMut(u64, u64)) {
        for (ai, a) in self.live() {
            let (lo, _) = Self::box_of(a.center, a.radius);
            let level = a.level;
            let r = a.range;
            for i in r[0]..=r[1] {
                for j in r[2]..=r[3] {
                    let key = Key { level, i, j };
                    let same = self.cells.get(&key).into_iter().flatten().filter(|&&bi| bi as usize > ai);
                    let smaller = self.upper.get(&key).into_iter().flatten();
                    for &bi in same.chain(smaller) {
                        let b = &self.slots[bi as usize];
                        if self.pair_is_here(a, lo, b, level, i, j) {
                            visit(a.id, b.id);
                        }
                    }
                }
            }
        }
    }

    /// The pair search of a grid that registers objects on their base level only: each object
    /// climbs through every coarser level that holds objects.
    fn pairs_climbing(&self, mut visit: impl FnMut(u64, u64)) {
        for (ai, a) in self.live() {
            let (lo, hi) = Self::box_of(a.center, a.radius);
            for (level, _) in self.levels_from(a.level) {
                let r = if level == a.level { a.range } else { self.range(level, lo, hi) };
                for i in r[0]..=r[1] {
                    for j in r[2]..=r[3] {
                        let Some(list) = self.cells.get(&Key { level, i, j }) else { continue };
                        for &bi in list {
                            let b = &self.slots[bi as usize];
                            // On a's own level each pair once (the lower slot asks); above it, the
                            // finer object always asks.
                            if (level == a.level && (bi as usize) <= ai) || b.level != level {
                                continue;
                            }
                            if self.pair_is_here(a, lo, b, level, i, j) {
                                visit(a.id, b.id);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether `a` (its box's lower corner `lo`) and `b` touch and their pair is reported in cell
    /// (i, j) of `level`: the cell holding the lower corner of the two boxes' overlap (the cheap
    /// sphere test first: most candidates fail it).
    #[inline]
    fn pair_is_here(&self, a: &Slot, lo: [f64; 2], b: &Slot, level: i32, i: i64, j: i64) -> bool {
        if !touch(a, b) {
            return false;
        }
        let (blo, _) = Self::box_of(b.center, b.radius);
        let corner = [lo[0].max(blo[0]), lo[1].max(blo[1])];
        let home = self.range(level, corner, corner);
        home[0] == i && home[2] == j
    }

    /// Every overlapping pair, brute force over all pairs: the reference the tests compare with
    /// (the same exact test of a pair as the search).
    pub fn pairs_brute_force(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for (k, a) in self.live() {
            for b in self.slots[k + 1..].iter().filter(|b| !b.is_free()) {
                if touch(a, b) {
                    out.push((a.id.min(b.id), a.id.max(b.id)));
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Calls `visit(id)` once for every object whose sphere meets the box from `min` to `max`
    /// (closed; z included).
    pub fn within_box(&self, min: DVec3, max: DVec3, mut visit: impl FnMut(u64)) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        let meets = |s: &Slot| within(s.center.clamp(min, max) - s.center, s.radius);
        for (level, list) in self.levels_from(i32::MIN) {
            // An object that meets the box shares a point with it, and that point's cell is in both
            // the object's range and the box's.
            let r = self.range(level, [min.x, min.y], [max.x, max.y]);
            let n_cells = (r[1] as f64 - r[0] as f64 + 1.0) * (r[3] as f64 - r[2] as f64 + 1.0);
            if n_cells > list.len() as f64 {
                // Fewer objects on this level than cells under the box: look at each of them.
                for &s in list {
                    let s = &self.slots[s as usize];
                    if meets(s) {
                        visit(s.id);
                    }
                }
                continue;
            }
            for i in r[0]..=r[1] {
                for j in r[2]..=r[3] {
                    let Some(list) = self.cells.get(&Key { level, i, j }) else { continue };
                    for &s in list {
                        let s = &self.slots[s as usize];
                        // Once: in the first cell of the object's range inside the box's range.
                        let first = (s.range[0].max(r[0]), s.range[2].max(r[2]));
                        if first == (i, j) && meets(s) {
                            visit(s.id);
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit(id)` once for every object whose sphere meets the sphere of `radius` around `p`.
    pub fn within_radius(&self, p: DVec3, radius: f64, mut visit: impl FnMut(u64)) {
        if !(p.is_finite() && radius.is_finite() && radius >= 0.0) {
            return;
        }
        let r = DVec3::splat(radius);
        self.within_box(p - r, p + r, |id| {
            let s = &self.slots[self.by_id[&id] as usize];
            if within(s.center - p, radius + s.radius) {
                visit(id);
            }
        });
    }

    /// The first object the ray `origin + t·dir`, t in [0, `max_t`], meets (its id and t), from
    /// outside or inside a sphere (a ray starting inside meets it at t = 0).
    pub fn raycast(&self, origin: DVec3, dir: DVec3, max_t: f64) -> Option<(u64, f64)> {
        self.raycast_with(origin, dir, max_t, |_, t, _| Some(t))
    }

    /// The first hit of the ray among the objects' own shapes: `exact(id, t, limit)` is asked for
    /// each object whose sphere the ray enters at `t` no later than the best hit so far (`limit`),
    /// and answers where the ray meets the object itself, if it does before `limit`. The spheres
    /// must hold the shapes. Returns the id and t of the first hit.
    pub fn raycast_with(
        &self,
        origin: DVec3,
        dir: DVec3,
        max_t: f64,
        mut exact: impl FnMut(u64, f64, f64) -> Option<f64>,
    ) -> Option<(u64, f64)> {
        if !(origin.is_finite() && dir.is_finite() && dir != DVec3::ZERO) || max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let mut best: Option<(u64, f64)> = None;
        let mut test = |s: &Slot, best: &mut Option<(u64, f64)>| {
            offer(best, s.id, crate::geom::ray_ball(origin, dir, s.center, s.radius), max_t, &mut exact)
        };
        for (level, list) in self.levels_from(i32::MIN) {
            let w = cells::width(self.unit, level);
            // The part of the ray that can meet this level's objects: within the box of their cells.
            let (mut lo, mut hi) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
            for &s in list {
                let s = &self.slots[s as usize];
                lo = lo.min(s.center.truncate() - s.radius);
                hi = hi.max(s.center.truncate() + s.radius);
            }
            let limit = best.map_or(max_t, |b| b.1.min(max_t));
            let Some((t0, t1)) = clip(origin.truncate(), dir.truncate(), lo, hi, limit) else { continue };
            let (a, b) = (origin.truncate() + dir.truncate() * t0, origin.truncate() + dir.truncate() * t1);
            let span = ((b - a).abs() / w).element_sum() + 2.0;
            if span > list.len() as f64 {
                for &s in list {
                    test(&self.slots[s as usize], &mut best);
                }
                continue;
            }
            // Walk the cells under the ray's clipped projection (a 2-D DDA), each object's cells.
            let idx = |x: f64| cells::index(self.layout, self.unit, level, x);
            let (mut i, mut j) = (idx(a.x), idx(a.y));
            let (ie, je) = (idx(b.x), idx(b.y));
            let d = dir.truncate();
            let step = |v: f64| if v > 0.0 { 1 } else { -1 };
            // t at which the ray leaves cell index c along `axis` (cells are square, so the cell
            // (c, c) gives the bounds of column c and of row c alike).
            let next_t = |c: i64, axis: usize| -> f64 {
                let dv = d[axis];
                if dv == 0.0 {
                    return f64::INFINITY;
                }
                let cell = cells::cell(self.layout, self.unit, level, c, c);
                let edge = if dv > 0.0 { cell.max.x } else { cell.min.x };
                (edge - origin.truncate()[axis]) / dv
            };
            let mut visit_cell = |i: i64, j: i64, best: &mut Option<(u64, f64)>| {
                if let Some(l) = self.cells.get(&Key { level, i, j }) {
                    for &s in l {
                        test(&self.slots[s as usize], best);
                    }
                }
            };
            let steps = (ie - i).abs() + (je - j).abs() + 1;
            for _ in 0..=steps {
                visit_cell(i, j, &mut best);
                if (i, j) == (ie, je) {
                    break;
                }
                let (tx, ty) = (next_t(i, 0), next_t(j, 1));
                if (tx - ty).abs() <= 1e-12 * tx.abs().max(ty.abs()) {
                    // Through a corner, or within rounding of one: both side cells too.
                    visit_cell(i + step(d.x), j, &mut best);
                    visit_cell(i, j + step(d.y), &mut best);
                }
                if tx <= ty {
                    i += step(d.x);
                } else {
                    j += step(d.y);
                }
            }
            visit_cell(ie, je, &mut best);
        }
        best
    }

    /// The smallest cell whose interior holds the box from `min` to `max` (x, y): in the dual layout
    /// there always is one, of level at most `max(⌊log₂ w⌋, 0) + 4` for a box w units wide, at most
    /// 16 × 2^⌊log₂ w⌋ wide (the thesis' 4.3.1, whose summary says one level less); in the primal
    /// layout a box across a boundary of every level has none.
    pub fn containing_cell(&self, min: DVec2, max: DVec2) -> Option<Cell> {
        cells::containing(self.layout, self.unit, min, max)
    }
}

/// The ray's t interval inside the closed rectangle `lo`–`hi`, within [0, `limit`].
pub(crate) fn clip(o: DVec2, d: DVec2, lo: DVec2, hi: DVec2, limit: f64) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, limit);
    for a in 0..2 {
        if d[a] == 0.0 {
            if o[a] < lo[a] || o[a] > hi[a] {
                return None;
            }
            continue;
        }
        let (ta, tb) = ((lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]);
        t0 = t0.max(ta.min(tb));
        t1 = t1.min(ta.max(tb));
    }
    (t0 <= t1 && t1.is_finite()).then_some((t0, t1))
}

/// The t in [0, `limit`] where the ray lies in the box `lo`–`hi` (infinite bounds: no limit on that
/// axis), widened by 10⁻⁹ of the crossings' t beyond rounding; `None` when it never does.
pub(crate) fn slab(o: DVec3, d: DVec3, lo: [f64; 3], hi: [f64; 3], limit: f64) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, limit);
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < lo[k] || o[k] > hi[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]);
        let slack = 1e-9 * a.abs().max(b.abs());
        t0 = t0.max(a.min(b) - slack);
        t1 = t1.min(a.max(b) + slack);
    }
    (t0 <= t1).then_some((t0, t1))
}

/// The t in [`t0`, `t1`] where a ray's y (origin `o`, direction `d`) lies in the row `ra`–`rb` of
/// cells `width` wide, widened by 10⁻⁹ of the crossings' t and a cell beyond rounding (all of
/// [`t0`, `t1`] for a ray along the rows).
pub(crate) fn row_t(o: f64, d: f64, (ra, rb): (f64, f64), width: f64, (t0, t1): (f64, f64)) -> (f64, f64) {
    if d == 0.0 {
        return (t0, t1);
    }
    let (a, b) = ((ra - o) / d, (rb - o) / d);
    let slack = 1e-9 * (a.abs().max(b.abs()) + width / d.abs());
    ((a.min(b) - slack).max(t0), (a.max(b) + slack).min(t1))
}
