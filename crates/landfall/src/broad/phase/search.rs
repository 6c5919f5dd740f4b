//! The pair search over the sorted levels: within a level, each occupied cell against itself and
//! half of its 3×3 neighbourhood; across levels, each object of a finer level against the cells of
//! each coarser occupied level that can hold a partner (2×2 of them, 3 per axis at most), found by
//! walking the coarser level's sorted cells in the finer level's order. Every candidate is tested
//! on f32 boxes rounded outward, and the survivors on the f64 spheres.

use super::boxes::Box32;
use super::level::{Level, Sphere};
use super::levels::Levels;
use crate::broad::queries::within;

/// Counts of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchStats {
    /// Occupied levels.
    pub levels: usize,
    /// Candidate pairs whose f32 boxes were tested.
    pub candidates: u64,
    /// Candidates whose boxes overlap (tested on the spheres).
    pub box_hits: u64,
    /// Pairs whose spheres overlap or touch.
    pub pairs: u64,
}

impl std::ops::AddAssign for SearchStats {
    fn add_assign(&mut self, o: Self) {
        self.levels += o.levels;
        self.candidates += o.candidates;
        self.box_hits += o.box_hits;
        self.pairs += o.pairs;
    }
}

/// Where a search puts its pairs: a list, or a callback (a caller that streams them).
pub(super) trait PairOut {
    fn pair(&mut self, a: u32, b: u32);
}

impl PairOut for Vec<(u32, u32)> {
    #[inline(always)]
    fn pair(&mut self, a: u32, b: u32) {
        self.push((a, b));
    }
}

/// A callback as a [`PairOut`].
pub(super) struct Each<F>(pub F);

impl<F: FnMut(u32, u32)> PairOut for Each<F> {
    #[inline(always)]
    fn pair(&mut self, a: u32, b: u32) {
        (self.0)(a, b);
    }
}

/// Tests object `a` (box, sphere, proxy) against the objects `from..to` of `lv`, pushing the pairs
/// whose spheres touch (lower proxy first).
#[inline]
fn against(
    (ba, sa, pa): (&Box32, &Sphere, u32),
    lv: &Level,
    from: usize,
    to: usize,
    out: &mut impl PairOut,
    st: &mut SearchStats,
) {
    st.candidates += (to - from) as u64;
    for b in from..to {
        if ba.overlaps(&lv.boxes[b]) {
            st.box_hits += 1;
            let sb = &lv.spheres[b];
            if within(sa.c - sb.c, sa.r + sb.r) {
                let pb = lv.proxies[b];
                out.pair(pa.min(pb), pa.max(pb));
            }
        }
    }
}

/// A share of the search: the pairs within level `fine` (its occupied cells `from..to`), or between
/// `fine` (its objects `from..to`) and the coarser level `coarse`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Task {
    pub fine: usize,
    pub coarse: Option<usize>,
    pub from: usize,
    pub to: usize,
}

/// Objects (or cells) per task when the search is split.
const TASK_SIZE: usize = 4096;

/// The tasks of a search over `levels` (finest first), in the order their pairs are reported:
/// for each level, its own pairs, then its pairs with each coarser level. `split`: several tasks
/// per level and pair of levels, `TASK_SIZE` objects or cells each.
pub(super) fn tasks(levels: &[Level], split: bool, out: &mut Vec<Task>) {
    out.clear();
    let mut push = |fine: usize, coarse: Option<usize>, n: usize| {
        let step = if split { TASK_SIZE } else { n.max(1) };
        for from in (0..n).step_by(step) {
            out.push(Task { fine, coarse, from, to: (from + step).min(n) });
        }
    };
    for (x, lv) in levels.iter().enumerate() {
        push(x, None, lv.cells.len());
        for y in x + 1..levels.len() {
            push(x, Some(y), lv.spheres.len());
        }
    }
}

/// Runs `task` on `levels`.
pub(super) fn run(levels: &Levels, built: &[Level], task: Task, out: &mut impl PairOut, st: &mut SearchStats) {
    match task.coarse {
        None => same_level(&built[task.fine], task.from, task.to, out, st),
        Some(c) => across(levels, &built[task.fine], &built[c], task.from, task.to, out, st),
    }
}

/// The pairs within level `lv` found from its occupied cells `from..to`: each cell with itself, the
/// next cell of its row and the three cells of the next row around it (the other half of the
/// neighbourhood asks the same of this cell).
fn same_level(lv: &Level, from: usize, to: usize, out: &mut impl PairOut, st: &mut SearchStats) {
    let nx = lv.nx as u64;
    let mut finger = from;
    for u in from..to {
        let k = lv.cells[u];
        let (i, j) = ((k % nx) as i64 + lv.imin, (k / nx) as i64 + lv.jmin);
        let (s, e) = (lv.cstart[u] as usize, lv.cstart[u + 1] as usize);
        let next = if i + 1 < lv.imin + lv.nx && lv.cells.get(u + 1) == Some(&(k + 1)) {
            (e, lv.cstart[u + 2] as usize)
        } else {
            (e, e)
        };
        let above = lv.row(j + 1, i - 1, i + 1, &mut finger);
        for a in s..e {
            let me = (&lv.boxes[a], &lv.spheres[a], lv.proxies[a]);
            against(me, lv, a + 1, e, out, st);
            against(me, lv, next.0, next.1, out, st);
            against(me, lv, above.0, above.1, out, st);
        }
    }
}

/// The pairs between the objects `from..to` of `fine` and those of the coarser level `coarse`: an
/// object of `coarse` has its centre in its cell and its box within `coarse.hmax` of its centre, so
/// a partner of a fine object's box lies in the cells that the box widened by `hmax` meets.
fn across(
    levels: &Levels,
    fine: &Level,
    coarse: &Level,
    from: usize,
    to: usize,
    out: &mut impl PairOut,
    st: &mut SearchStats,
) {
    let (t, h) = (coarse.t, coarse.hmax);
    let mut fingers = [0usize; 3];
    // The widened box's corners, moved outward by far more than their rounding, so that a centre
    // within it never falls in a cell outside the range.
    let lower = |x: f64| {
        let q = x - h;
        q - (q.abs() + h) * f64::EPSILON * 16.0
    };
    let upper = |x: f64| {
        let q = x + h;
        q + (q.abs() + h) * f64::EPSILON * 16.0
    };
    for a in from..to {
        // The f64 box (the f32 one may be infinite beyond f32's range).
        let (sa, b) = (&fine.spheres[a], &fine.boxes[a]);
        let ha = sa.h();
        let (i0, i1) = (levels.index(t, lower(sa.c.x - ha)), levels.index(t, upper(sa.c.x + ha)));
        let (j0, j1) = (levels.index(t, lower(sa.c.y - ha)), levels.index(t, upper(sa.c.y + ha)));
        if !coarse.may_hold(i0, i1, j0, j1) {
            continue;
        }
        let me = (b, sa, fine.proxies[a]);
        for j in j0..=j1 {
            let (from, to) = coarse.row(j, i0, i1, &mut fingers[j.rem_euclid(3) as usize]);
            against(me, coarse, from, to, out, st);
        }
    }
}
