//! The pair search over the sorted levels: within a level, each occupied cell against itself and
//! half of its 3×3 neighbourhood (3×3×3 on a level split by height); across levels, each object of
//! a finer level against the cells of each coarser occupied level that can hold a partner (2 per
//! axis, 3 at most), found by walking the coarser level's sorted cells in the finer level's order.
//! Every candidate is tested on f32 boxes rounded outward, and the survivors on the f64 spheres.

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
    /// Occupied levels split by height ([`Vertical`](super::Vertical)).
    pub vertical: usize,
    /// Candidate pairs whose f32 boxes were tested.
    pub candidates: u64,
    /// Candidates whose boxes overlap (tested on the spheres).
    pub box_hits: u64,
    /// Pairs whose spheres overlap or touch.
    pub pairs: u64,
    /// Objects whose pairs were searched anew (all of them on a frame that rebuilt the levels;
    /// the candidates and box hits above count that search only).
    pub dirty: u64,
    /// Pairs whose fat spheres overlap or touch (kept from frame to frame, each tested exactly).
    pub fat_pairs: u64,
}

impl std::ops::AddAssign for SearchStats {
    fn add_assign(&mut self, o: Self) {
        self.levels += o.levels;
        self.vertical += o.vertical;
        self.candidates += o.candidates;
        self.box_hits += o.box_hits;
        self.pairs += o.pairs;
        self.dirty += o.dirty;
        self.fat_pairs += o.fat_pairs;
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

/// A pair as one sortable word: lower proxy in the high half.
#[inline]
pub(super) fn word(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// Pairs as sortable words ([`word`]).
impl PairOut for Vec<u64> {
    #[inline(always)]
    fn pair(&mut self, a: u32, b: u32) {
        self.push(word(a, b));
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
/// next cell of its row and the three cells of the next row around it, and on a level split by
/// height the nine cells of the next layer around it (the other half of the neighbourhood asks the
/// same of this cell).
fn same_level(lv: &Level, from: usize, to: usize, out: &mut impl PairOut, st: &mut SearchStats) {
    let mut fingers = [from; 4];
    let mut rows = [(0, 0); 4];
    for u in from..to {
        let key = lv.cells[u];
        let (i, j, k) = lv.cell(key);
        let (s, e) = (lv.cstart[u] as usize, lv.cstart[u + 1] as usize);
        let next = if i + 1 < lv.imin + lv.nx && lv.cells.get(u + 1) == Some(&(key + 1)) {
            (e, lv.cstart[u + 2] as usize)
        } else {
            (e, e)
        };
        rows[0] = lv.row(j + 1, k, i - 1, i + 1, &mut fingers[0]);
        let n = if lv.vertical {
            for (d, (row, finger)) in rows[1..].iter_mut().zip(&mut fingers[1..]).enumerate() {
                *row = lv.row(j - 1 + d as i64, k + 1, i - 1, i + 1, finger);
            }
            4
        } else {
            1
        };
        for a in s..e {
            let me = (&lv.boxes[a], &lv.spheres[a], lv.proxies[a]);
            against(me, lv, a + 1, e, out, st);
            against(me, lv, next.0, next.1, out, st);
            for &(from, to) in &rows[..n] {
                against(me, lv, from, to, out, st);
            }
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
    let mut fingers = [0usize; 9];
    for a in from..to {
        let me = (&fine.boxes[a], &fine.spheres[a], fine.proxies[a]);
        against_level(levels, me, coarse, &mut fingers, out, st);
    }
}

/// The pairs between one object (box, sphere, proxy) and the objects of level `lv` (any level: it
/// holds each object in the cell of its centre, its box within `lv.hmax` of it), found in the cells
/// the object's box widened by `hmax` meets. `fingers`: places in `lv`'s cells near the last
/// object's answers (any values are correct).
pub(super) fn against_level(
    levels: &Levels,
    (b, sa, pa): (&Box32, &Sphere, u32),
    lv: &Level,
    fingers: &mut [usize; 9],
    out: &mut impl PairOut,
    st: &mut SearchStats,
) {
    let (t, h) = (lv.t, lv.hmax);
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
    // The f64 box (the f32 one may be infinite beyond f32's range).
    let ha = sa.h();
    let (i0, i1) = (levels.index(t, lower(sa.c.x - ha)), levels.index(t, upper(sa.c.x + ha)));
    let (j0, j1) = (levels.index(t, lower(sa.c.y - ha)), levels.index(t, upper(sa.c.y + ha)));
    let (k0, k1) = lv.layers(levels, lower(sa.c.z - ha), upper(sa.c.z + ha));
    if !lv.may_hold((i0, i1), (j0, j1), (k0, k1)) {
        return;
    }
    // Rows and layers within the level's; where they outnumber its objects (an object far larger
    // than the level's cells), the level is tested whole.
    let (j0, j1) = (j0.max(lv.jmin), j1.min(lv.jmin + lv.ny - 1));
    let (k0, k1) = (k0.max(lv.kmin), k1.min(lv.kmin + lv.nz - 1));
    if (j1 - j0 + 1) as u128 * (k1 - k0 + 1) as u128 > lv.proxies.len() as u128 {
        against((b, sa, pa), lv, 0, lv.proxies.len(), out, st);
        return;
    }
    for k in k0..=k1 {
        for j in j0..=j1 {
            let finger = &mut fingers[(3 * k.rem_euclid(3) + j.rem_euclid(3)) as usize];
            let (from, to) = lv.row(j, k, i0, i1, finger);
            against((b, sa, pa), lv, from, to, out, st);
        }
    }
}
