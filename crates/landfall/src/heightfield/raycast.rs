//! Ray casts: front-to-back descent of the min/max pyramid, then a walk of the cells under the
//! projected ray (the 2017 paper's sections 3.2–3.5, with height pruning and no queue or sort).
//!
//! **Traversal.** The ray is first clipped to the grid rectangle and to the terrain's height slab.
//! A ray that enters the slab through its top or bottom (from above the highest ground, or below
//! the lowest) and spans many leaves is walked front to back with a small stack from the lowest
//! 4 × 4 block of nodes that holds all of it, two levels per step (`stack_walk`): the sixteen
//! nodes of a block are tested together (their t intervals split at the block's inner lines, then
//! cut to where the ray's height is within the node's height range, one AVX2 register per row of
//! nodes); the nearest one whose interval is not empty is visited at once and the others wait on
//! the stack with their block, nearest first, without a branch per node. A leaf's cells are walked
//! only over its cut interval. Every other ray walks
//! stackless, climbing only after pruned nodes:
//! test the node the ray is in; when the ray may cross its height range, descend into the child
//! that holds the ray; otherwise (or after walking a leaf) step to the next node at the same level
//! and ascend while that step left the parent. It starts at the leaf under the ray's start when the
//! ray starts near the ground (a line of sight, a walker's ray), else at the lowest level whose
//! nodes span the ray. It wins where the ray stays low or is short: it does not re-descend at every
//! parent boundary, nor test four children where the ray crosses one. Either way t only grows.
//!
//! **Watertightness.** Along the ray, the walk visits a sequence of intervals, each inside one
//! triangle (split at cell edges and at the cell diagonal). On each the gap
//! `f(t) = z_ray(t) − z_terrain(t)` is linear, so the ray crosses that triangle iff `f` changes sign
//! (or is zero) between the interval's ends. The value of `f` at a breakpoint is computed once and
//! carried into the next interval, so consecutive intervals agree exactly at their shared point:
//! if `f` changes sign anywhere along a run of walked intervals, some interval sees the change. No
//! ray can slip between two triangles through their shared edge or vertex. A run is broken only by a
//! hole (no ground there), by a node or cell that is pruned, or by the part of a node's interval
//! cut off by its height range; pruning and cutting need the ray to stay strictly above or below the
//! node's heights (by a margin), where `f` cannot change sign.
//!
//! **Touches.** A ray that only touches the surface (tangent at a crease, a peak or a flat patch)
//! counts as a hit. Whether an exact touch survives rounding is luck, so a gap smaller than
//! [`TOUCH_EPS`] relative to the heights involved counts as zero.

use super::cell::{self, cell_along, to_f, Half};
use super::Heightfield;
use crate::geom::{Hit, Ray, TriangleId};
use glam::DVec3;
use rayon::prelude::*;
use std::ops::ControlFlow;

/// Work counters of the ray walk (feature `stats`): node steps, leaves walked, cells visited, cells
/// tested exactly. Per thread; read and reset with [`take_stats`].
#[cfg(feature = "stats")]
pub mod stats {
    use std::cell::Cell;
    thread_local! {
        /// [node steps, leaves walked, cells visited, cells tested exactly]
        pub static COUNTS: Cell<[u64; 4]> = const { Cell::new([0; 4]) };
    }
    #[inline(always)]
    pub(crate) fn bump(k: usize) {
        COUNTS.with(|c| {
            let mut v = c.get();
            v[k] += 1;
            c.set(v)
        });
    }
}

/// Returns and resets this thread's walk counters: [node steps, leaves walked, cells visited, cells
/// tested exactly].
#[cfg(feature = "stats")]
pub fn take_stats() -> [u64; 4] {
    stats::COUNTS.with(|c| c.replace([0; 4]))
}

macro_rules! count {
    ($k:expr) => {
        #[cfg(feature = "stats")]
        crate::heightfield::raycast::stats::bump($k);
    };
}
pub(super) use count;

/// Relative tolerance under which the ray–terrain gap counts as zero (a touch).
pub const TOUCH_EPS: f64 = 1e-10;

/// The lowest `top` level (see [`Heightfield::raycast`]'s walk) from which a ray entering the height
/// slab through its top or bottom takes the stack walk: shorter rays cost less without its set-up.
const STACK_WALK_MIN_LEVEL: usize = 3;

/// Minimum and maximum without NaN handling (the walk never sees NaN in these): the second operand
/// when the compare is false, as SSE's and AVX's `min` and `max` (the stack walk's scalar node test
/// relies on that).
#[inline(always)]
pub(super) fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

#[inline(always)]
pub(super) fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// One ray prepared for the walk: grid-space parametrisation (u, v in cells from sample (0, 0);
/// z and t unchanged) and per-ray constants.
#[derive(Clone, Copy, Debug)]
pub(super) struct Walk {
    pub(super) u0: f64,
    pub(super) v0: f64,
    pub(super) z0: f64,
    pub(super) du: f64,
    pub(super) dv: f64,
    pub(super) dz: f64,
    pub(super) inv_du: f64,
    pub(super) inv_dv: f64,
    /// 1 / dz (±∞ for a level ray).
    pub(super) inv_dz: f64,
    /// Absolute z margin of the pruning tests (covers rounding in t, u, v and z).
    pub(super) prune_eps: f64,
}

impl Walk {
    #[inline(always)]
    pub(super) fn u(&self, t: f64) -> f64 {
        self.u0 + self.du * t
    }
    #[inline(always)]
    pub(super) fn v(&self, t: f64) -> f64 {
        self.v0 + self.dv * t
    }
    #[inline(always)]
    fn z(&self, t: f64) -> f64 {
        self.z0 + self.dz * t
    }

    /// False only when the ray stays strictly above or strictly below [lo, hi] over [ta, tb].
    #[inline(always)]
    fn may_cross(&self, lo: f64, hi: f64, ta: f64, tb: f64) -> bool {
        self.may_cross_z(lo, hi, self.z(ta), self.z(tb))
    }

    /// [`may_cross`](Self::may_cross) with the ray's heights at the interval's ends given.
    #[inline(always)]
    fn may_cross_z(&self, lo: f64, hi: f64, za: f64, zb: f64) -> bool {
        let (zlo, zhi) = if za < zb { (za, zb) } else { (zb, za) };
        zhi >= lo - self.prune_eps && zlo <= hi + self.prune_eps
    }
}

/// One axis of the pyramid DDA: `x` = t where the ray leaves the current node along this axis,
/// `d` = t to cross one node of the current level, `pos` = the ray moves toward higher indices.
#[derive(Clone, Copy, Debug)]
struct Axis {
    x: f64,
    d: f64,
    pos: bool,
    moving: bool,
}

impl Axis {
    /// The axis state for node `b` (of `span` cells) holding the ray.
    #[inline(always)]
    fn new(p0: f64, dp: f64, inv: f64, b: usize, span: usize) -> Self {
        let moving = dp != 0.0;
        let pos = dp > 0.0;
        let plane = to_f(if pos { b + 1 } else { b }) * to_f(span);
        if moving {
            Axis { x: (plane - p0) * inv, d: to_f(span) * inv.abs(), pos, moving }
        } else {
            Axis { x: f64::INFINITY, d: f64::INFINITY, pos, moving }
        }
    }

    /// Moves to the child half holding the ray at `t` (mid-line at `m` along this axis); returns
    /// 1 for the higher-index child. When that child lies beyond the grid (`high_exists` false: the
    /// ray is in the rounding room past the last cell), the lower child is taken, with its state.
    #[inline(always)]
    fn descend(&mut self, t: f64, p0: f64, m: f64, high_exists: bool) -> u8 {
        if !self.moving {
            return u8::from(p0 >= m && high_exists);
        }
        self.d *= 0.5;
        let mid = self.x - self.d;
        let far = t >= mid;
        let high = far == self.pos && high_exists;
        // The lower child is the near half when moving up, the far half when moving down.
        if high != self.pos {
            self.x = mid;
        }
        u8::from(high)
    }

    /// Steps to the next node along this axis (the caller checked that node `b` is not
    /// [`at_border`](Self::at_border)).
    #[inline(always)]
    fn step(&mut self, b: &mut usize) {
        self.x += self.d;
        *b = (*b + 2 * usize::from(self.pos)).wrapping_sub(1);
    }

    /// True when node `b`, one of `n` along this axis at its level, is the last one in the ray's
    /// direction, so that leaving it along this axis leaves the grid. Both directions computed and
    /// one picked: the direction is random from ray to ray, and a branch on it is mispredicted at
    /// the start of many rays.
    #[inline(always)]
    fn at_border(&self, b: usize, n: usize) -> bool {
        (self.pos & (b + 1 >= n)) | (!self.pos & (b == 0))
    }

    /// Moves up to the parent of node `b`.
    #[inline(always)]
    fn ascend(&mut self, b: usize) {
        if self.moving {
            let far = (b & 1 == 1) == self.pos;
            if !far {
                self.x += self.d;
            }
            self.d *= 2.0;
        }
    }
}

/// Last evaluated breakpoint of the current run: `f` at `t`, NaN when the run is broken.
pub(super) struct Chain {
    pub(super) t: f64,
    pub(super) f: f64,
}

impl Chain {
    /// The run is broken over [a, b] (hole or pruned cell); an empty interval does not break it.
    #[inline(always)]
    fn skip(&mut self, a: f64, b: f64) {
        if b > a {
            self.f = f64::NAN;
        }
        self.t = b;
    }
}

/// [`Heightfield::cast`] walks a direction as given when its largest component lies within
/// [`DIR_MIN`, `DIR_MAX`] (2^±64), and scaled by a power of two otherwise.
const DIR_MAX: f64 = (1u128 << 64) as f64;
/// See [`DIR_MAX`].
const DIR_MIN: f64 = 1.0 / DIR_MAX;

/// Where crossings go: the first-hit search stops at the first, `crossings` visits them all.
pub(super) trait Sink {
    fn crossing(&mut self, hit: Hit) -> ControlFlow<()>;
}

/// Crossings of a ray walked with its direction scaled by `a · b`: their t scaled back. A t that
/// overflows f64 ends the walk (no later crossing is representable either).
struct Rescaled<'a, S> {
    a: f64,
    b: f64,
    inner: &'a mut S,
}

impl<S: Sink> Sink for Rescaled<'_, S> {
    #[inline]
    fn crossing(&mut self, mut hit: Hit) -> ControlFlow<()> {
        hit.t = hit.t * self.a * self.b;
        if !hit.t.is_finite() {
            return ControlFlow::Break(());
        }
        self.inner.crossing(hit)
    }
}

struct First(Option<Hit>);

impl Sink for First {
    #[inline]
    fn crossing(&mut self, hit: Hit) -> ControlFlow<()> {
        self.0 = Some(hit);
        ControlFlow::Break(())
    }
}

struct Every<F> {
    last_t: f64,
    f: F,
}

impl<F: FnMut(Hit) -> ControlFlow<()>> Sink for Every<F> {
    #[inline]
    fn crossing(&mut self, hit: Hit) -> ControlFlow<()> {
        // A touch exactly on a breakpoint can be seen from both sides of a hole; report it once.
        if hit.t <= self.last_t {
            return ControlFlow::Continue(());
        }
        self.last_t = hit.t;
        (self.f)(hit)
    }
}

impl Heightfield {
    /// First crossing of `ray` with the terrain for t in [0, `max_t`] (`f64::INFINITY` for
    /// unbounded), from either side. An invalid ray (NaN or infinite components, zero direction) or a
    /// NaN or negative `max_t` is a miss; call [`Ray::validate`] to tell these apart. So is a ray
    /// whose origin lies ~1e308 grid spacings away (its grid coordinates overflow f64). A direction of
    /// any length gives the same crossing: one far from unit length (largest component outside
    /// 2^±64) is walked scaled by a power of two, exactly, and its t scaled back (a t beyond f64 is a
    /// miss). A horizontal component under 1e-300 spacings per unit t of that walk is zero.
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let mut sink = First(None);
        let _ = self.cast(ray, 0.0, max_t, &mut sink);
        sink.0
    }

    /// [`raycast`](Self::raycast) for many rays (each with its own `max_t`), in parallel.
    pub fn raycast_batch(&self, rays: &[(Ray, f64)]) -> Vec<Option<Hit>> {
        rays.par_iter().with_min_len(256).map(|(r, m)| self.raycast(r, *m)).collect()
    }

    /// Calls `visit` with every crossing of the ray with the terrain for t in [`t_min`, `t_max`], in
    /// increasing t, until it returns `Break`. Tangent touches count once. Invalid input visits
    /// nothing.
    pub fn crossings(&self, ray: &Ray, t_min: f64, t_max: f64, visit: impl FnMut(Hit) -> ControlFlow<()>) {
        if ray.validate(0.0).is_err() || t_min.is_nan() || t_max.is_nan() || t_min > t_max {
            return;
        }
        let mut sink = Every { last_t: f64::NEG_INFINITY, f: visit };
        let _ = self.cast(ray, t_min, t_max, &mut sink);
    }

    fn cast(&self, ray: &Ray, t_min: f64, t_max: f64, sink: &mut impl Sink) -> ControlFlow<()> {
        let longest = ray.dir.abs().max_element();
        if !(DIR_MIN..=DIR_MAX).contains(&longest) {
            return self.cast_rescaled(ray, longest, t_min, t_max, sink);
        }
        self.cast_walk(ray, t_min, t_max, sink)
    }

    /// [`cast`](Self::cast) for a direction whose largest component lies within [`DIR_MIN`,
    /// `DIR_MAX`].
    fn cast_walk(&self, ray: &Ray, t_min: f64, t_max: f64, sink: &mut impl Sink) -> ControlFlow<()> {
        let (u0, v0) = self.to_grid(ray.origin.x, ray.origin.y);
        // With the direction's largest component within 2^±64, a component under 1e-300 cells per
        // unit t moves the ray less than 1e-9 cells before it has moved 1e270 cells along another
        // axis, far past the grid (and its inverse would overflow): it is zero.
        let tiny = |d: f64| if d.abs() < 1e-300 { 0.0 } else { d };
        let du = tiny(ray.dir.x * self.inv_spacing.x);
        let dv = tiny(ray.dir.y * self.inv_spacing.y);
        // Grid-space values beyond f64 (origin ~1e308 spacings away): no answer.
        if !(u0.is_finite() && v0.is_finite() && du.is_finite() && dv.is_finite()) {
            return ControlFlow::Continue(());
        }
        if du == 0.0 && dv == 0.0 {
            return self.cast_vertical(ray, u0, v0, t_min, t_max, sink);
        }
        let Some((lo, hi)) = self.height_range() else { return ControlFlow::Continue(()) };
        let (lo, hi) = (lo as f64, hi as f64);
        let (ncx, ncy) = self.pyramid.cells();
        let mut w = Walk {
            u0,
            v0,
            z0: ray.origin.z,
            du,
            dv,
            dz: ray.dir.z,
            inv_du: 1.0 / du,
            inv_dv: 1.0 / dv,
            inv_dz: 1.0 / ray.dir.z,
            prune_eps: 0.0,
        };
        // Clip to the grid rectangle (widened by rounding room so rays aimed at its border do not
        // slip off; the walk clamps to the real cells), then to the terrain's height slab. The grid
        // clip multiplies by the inverses, finite here: a division is several times slower.
        let e = super::BORDER_EPS;
        let (mut t0, mut t1) = (t_min, t_max);
        for (p, d, inv, n) in [(u0, du, w.inv_du, ncx), (v0, dv, w.inv_dv, ncy)] {
            if d == 0.0 {
                if p < -e || p > to_f(n) + e {
                    return ControlFlow::Continue(());
                }
            } else {
                let (ta, tb) = ((-e - p) * inv, (to_f(n) + e - p) * inv);
                t0 = max(t0, min(ta, tb));
                t1 = min(t1, max(ta, tb));
            }
        }
        let zmag = max(w.z(t0).abs(), w.z(t1).abs()).min(1e300);
        w.prune_eps = 1e-9 * (1.0 + lo.abs().max(hi.abs()) + zmag);
        let t_grid = t0;
        if w.dz != 0.0 {
            // (Divided: 1 / dz overflows for a subnormal dz, and 0 · ∞ would be NaN.)
            let (ta, tb) = ((lo - w.prune_eps - w.z0) / w.dz, (hi + w.prune_eps - w.z0) / w.dz);
            t0 = max(t0, min(ta, tb));
            t1 = min(t1, max(ta, tb));
        } else if w.z0 < lo - w.prune_eps || w.z0 > hi + w.prune_eps {
            return ControlFlow::Continue(());
        }
        if t0 > t1 {
            return ControlFlow::Continue(());
        }
        // The lowest level whose nodes span the whole ray: the stackless walk never climbs above it.
        let extent = max((w.u(t1) - w.u(t0)).abs(), (w.v(t1) - w.v(t0)).abs());
        let top = self.pyramid.level_spanning(extent);
        // A ray that enters the height slab through its top or bottom (from above the highest
        // ground, or below the lowest) and spans many leaves is walked with a stack from the node
        // that holds all of it: most of it is pruned at once, sixteen nodes per test. (Not a ray
        // parallel to a grid axis, which is rare: the stack walk takes the ray's order of a block's
        // nodes from its direction alone.)
        if t0 > t_grid && top >= STACK_WALK_MIN_LEVEL && du != 0.0 && dv != 0.0 {
            let z2t = code_to_t(&w, self.pyramid.quantum_eps(w.prune_eps));
            // (Not for a ray so nearly level that t at a code overflows, which the direction's scaling
            // should rule out: the stackless walk would take it.)
            if (65535.0 * z2t[0].abs() + z2t[1].abs() + z2t[2].abs()).is_finite() {
                return self.walk_stack(ray, &w, &z2t, t0, t1, sink);
            }
        }
        // A ray that starts near the ground (inside the height slab, within a sixteenth of the
        // terrain's relief of the height range of the leaf under its start: a line of sight, a ray
        // from a walker) starts at that leaf and climbs as nodes are pruned: a descent from `top`
        // would test two nodes per level on the way down to the surface it starts on. Any other
        // ray starts at `top`.
        let leaf = self.pyramid.level(0);
        let p = &self.pyramid;
        let (li, lj) = (p.leaf_of(cell_along(w.u(t0), du, 0, ncx)), p.leaf_of(cell_along(w.v(t0), dv, 0, ncy)));
        let near_ground = t0 == t_grid && {
            // The start leaf's samples are fetched while its range is read and tested: a ray that
            // starts there walks its cells first.
            self.prefetch_leaf(li, lj);
            let (nlo, nhi) = self.pyramid.range(leaf, li, lj);
            let (z, reach) = (w.z(t0), (hi - lo) * (1.0 / 16.0));
            z >= nlo - reach && z <= nhi + reach
        };
        let k0 = if near_ground { 0 } else { top };
        let (mut k, mut bi, mut bj) = (k0, li >> k0, lj >> k0);
        let lv = self.pyramid.level(k);
        // Incremental DDA per axis: t at which the ray leaves the current node (`x`), and the t it
        // takes to cross one node of the current level (`d`); ∞ on an axis the ray does not move
        // along. Descending halves `d` and moves `x` to the mid-line when the ray is in the near
        // half; ascending doubles `d` and moves `x` out to the parent's far side.
        let mut au = Axis::new(u0, du, w.inv_du, bi, lv.span);
        let mut av = Axis::new(v0, dv, w.inv_dv, bj, lv.span);
        let mut t = t0;
        let mut chain = Chain { t: f64::NAN, f: f64::NAN };
        loop {
            count!(0);
            let lv = self.pyramid.level(k);
            // A node on the grid's border runs to the clip's t1 (rounding room beyond the border).
            let (border_u, border_v) = (au.at_border(bi, lv.nbx), av.at_border(bj, lv.nby));
            let xu = if border_u { f64::INFINITY } else { au.x };
            let xv = if border_v { f64::INFINITY } else { av.x };
            let t_exit = max(min(min(xu, xv), t1), t);
            let (nlo, nhi) = self.pyramid.range(lv, bi, bj);
            let crossed = w.may_cross(nlo, nhi, t, t_exit);
            if crossed {
                if k > 0 {
                    let child = self.pyramid.level(k - 1);
                    let (mu, mv) = (to_f(2 * bi + 1) * to_f(child.span), to_f(2 * bj + 1) * to_f(child.span));
                    bi = 2 * bi + au.descend(t, u0, mu, 2 * bi + 1 < child.nbx) as usize;
                    bj = 2 * bj + av.descend(t, v0, mv, 2 * bj + 1 < child.nby) as usize;
                    k -= 1;
                    if k == 0 {
                        // The leaf's samples are fetched while its range is tested.
                        self.prefetch_leaf(bi, bj);
                    } else {
                        // So are the node's children, while the node is tested.
                        self.pyramid.prefetch_descendants(k, bi, bj, 1, 1);
                    }
                    continue;
                }
                count!(1);
                self.walk_leaf(ray, &w, bi, bj, t, t_exit, &mut chain, sink)?;
            }
            if t_exit >= t1 {
                return ControlFlow::Continue(());
            }
            let (mut pi, mut pj) = (bi, bj);
            let (step_u, step_v) = (xu <= t_exit, xv <= t_exit);
            if !(step_u || step_v) {
                // No progress is possible (only with non-finite values); never loop forever.
                return ControlFlow::Continue(());
            }
            if (step_u && border_u) || (step_v && border_v) {
                return ControlFlow::Continue(());
            }
            if step_u {
                au.step(&mut bi);
            }
            if step_v {
                av.step(&mut bj);
            }
            // Ascend only when the ray is clear of the node it leaves: near the surface, staying
            // low saves a re-descent per parent boundary.
            while !crossed && k < top && (bi >> 1 != pi >> 1 || bj >> 1 != pj >> 1) {
                au.ascend(bi);
                av.ascend(bj);
                (bi, bj, pi, pj, k) = (bi >> 1, bj >> 1, pi >> 1, pj >> 1, k + 1);
            }
            t = t_exit;
        }
    }

    /// [`cast`](Self::cast) for a direction whose largest component `longest` (> 0) is outside
    /// [`DIR_MIN`, `DIR_MAX`]: the same ray with its direction scaled by a power of two (exact),
    /// its t range and crossings converted back.
    #[cold]
    #[inline(never)]
    fn cast_rescaled(&self, ray: &Ray, longest: f64, t_min: f64, t_max: f64, sink: &mut impl Sink) -> ControlFlow<()> {
        // The scale 2^e brings the largest component near 1. It is applied as two factors: 2^e
        // alone may not be representable (e up to 1,074 for a subnormal direction).
        let e = -(longest.log2().floor() as i32);
        let (a, b) = (2f64.powi(e / 2), 2f64.powi(e - e / 2));
        let scaled = Ray::new(ray.origin, ray.dir * a * b);
        // o + t·d = o + t'·(a·b·d) with t = t'·a·b.
        let mut back = Rescaled { a, b, inner: sink };
        self.cast_walk(&scaled, t_min / a / b, t_max / a / b, &mut back)
    }

    /// Walks the cells of leaf (bi, bj) under the ray from t0 to t1 (both walks' leaf step).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn walk_leaf(
        &self,
        ray: &Ray,
        w: &Walk,
        bi: usize,
        bj: usize,
        t0: f64,
        t1: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        let ((ncx, ncy), span) = (self.pyramid.cells(), self.pyramid.leaf_size());
        let (ci0, cj0) = (bi * span, bj * span);
        let cells = [ci0, (ci0 + span).min(ncx), cj0, (cj0 + span).min(ncy)];
        if self.has_holes() {
            self.walk_cells::<true>(ray, w, cells, t0, t1, chain, sink)
        } else {
            self.walk_cells::<false>(ray, w, cells, t0, t1, chain, sink)
        }
    }

    /// Walks the cells `[ci0, ci1) × [cj0, cj1)` under the ray from t0 to t1 (DDA), in order.
    /// Out of line: it keeps the node loop small. `HOLES` = false is the fast path for terrains
    /// without NaN samples or masked cells.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn walk_cells<const HOLES: bool>(
        &self,
        ray: &Ray,
        w: &Walk,
        [ci0, ci1, cj0, cj1]: [usize; 4],
        t0: f64,
        t1: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        if chain.t != t0 {
            chain.f = f64::NAN;
        }
        let (mut i, mut j) = (cell_along(w.u(t0), w.du, ci0, ci1), cell_along(w.v(t0), w.dv, cj0, cj1));
        // An axis whose next cell is outside the range is blocked: the rest of [t0, t1] (rounding
        // room at the range's edge) stays in the last cell, extrapolating its planes.
        let (mut block_u, mut block_v) = (w.du == 0.0, w.dv == 0.0);
        // Per axis, for the ray's direction: the step to the next cell, the last cell of the range,
        // and the cell line the ray leaves a cell by (1 past its index, or 0). Selected, not branched
        // on: the direction is a coin toss from ray to ray.
        let (up_u, up_v) = (w.du > 0.0, w.dv > 0.0);
        let (step_i, step_j) = (if up_u { 1 } else { usize::MAX }, if up_v { 1 } else { usize::MAX });
        // (An axis the ray does not move along is blocked from the start and never steps.)
        let (last_i, last_j) = (if up_u { ci1 - 1 } else { ci0 }, if up_v { cj1 - 1 } else { cj0 });
        let (exit_u, exit_v) = (usize::from(up_u), usize::from(up_v));
        let mut t = t0;
        let mut za = w.z(t0);
        let run = self.cell_run(ci0, cj0);
        loop {
            let tx = if block_u { f64::INFINITY } else { (to_f(i + exit_u) - w.u0) * w.inv_du };
            let ty = if block_v { f64::INFINITY } else { (to_f(j + exit_v) - w.v0) * w.inv_dv };
            let te = max(min(min(tx, ty), t1), t);
            count!(2);
            let c = run.corners(i - ci0, j - cj0);
            // Cheap reject: the ray stays strictly above or below the cell's four corners, so no
            // triangle of the cell can be crossed and the run restarts after it. (With holes, a
            // NaN corner drops out of min/max: the remaining triangle lies within its valid
            // corners.)
            let (lo, hi) = if HOLES {
                (c[0].min(c[1]).min(c[2].min(c[3])), c[0].max(c[1]).max(c[2].max(c[3])))
            } else {
                let (a, b) = if c[0] < c[1] { (c[0], c[1]) } else { (c[1], c[0]) };
                let (p, q) = if c[2] < c[3] { (c[2], c[3]) } else { (c[3], c[2]) };
                (if a < p { a } else { p }, if b > q { b } else { q })
            };
            let zb = w.z(te);
            if w.may_cross_z(lo as f64, hi as f64, za, zb) {
                self.cell_interval::<HOLES>(ray, w, i, j, &cell::Corners::from(c), t, te, chain, sink)?;
            } else {
                chain.skip(t, te);
            }
            za = zb;
            if te >= t1 {
                return ControlFlow::Continue(());
            }
            if tx <= ty {
                if i != last_i {
                    i = i.wrapping_add(step_i);
                } else {
                    block_u = true;
                }
            } else if j != last_j {
                j = j.wrapping_add(step_j);
            } else {
                block_v = true;
            }
            t = te;
        }
    }

    /// The ray's interval [a, b] inside cell (i, j) with corners `k`: split it at the diagonal and
    /// test each piece exactly. Out of line: most cells are rejected before this.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn cell_interval<const HOLES: bool>(
        &self,
        ray: &Ray,
        w: &Walk,
        i: usize,
        j: usize,
        k: &cell::Corners,
        a: f64,
        b: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        count!(3);
        let masked = HOLES && self.is_cell_masked(i, j);
        let anti = self.diagonal.is_anti(i, j);
        let (fi, fj) = (to_f(i), to_f(j));
        let (ua, va, ub, vb) = (w.u(a) - fi, w.v(a) - fj, w.u(b) - fi, w.v(b) - fj);
        let (sa, sb) = (cell::diagonal_side(anti, ua, va), cell::diagonal_side(anti, ub, vb));
        if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
            let tm = a + (b - a) * (sa / (sa - sb));
            let first = if sa < 0.0 { Half::South } else { Half::North };
            let second = if sa < 0.0 { Half::North } else { Half::South };
            self.piece(ray, w, i, j, anti, first, masked, k, a, tm, chain, sink)?;
            self.piece(ray, w, i, j, anti, second, masked, k, tm, b, chain, sink)
        } else {
            let half = if sa + sb <= 0.0 { Half::South } else { Half::North };
            self.piece(ray, w, i, j, anti, half, masked, k, a, b, chain, sink)
        }
    }

    /// One piece [a, b] of the ray inside one triangle: extend the chain and report a sign change.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn piece(
        &self,
        ray: &Ray,
        w: &Walk,
        i: usize,
        j: usize,
        anti: bool,
        half: Half,
        masked: bool,
        k: &cell::Corners,
        a: f64,
        b: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        let p = cell::plane(anti, half, k);
        if masked || p.is_hole() {
            // Only reachable with holes (NaN corners make a NaN plane).
            chain.skip(a, b);
            return ControlFlow::Continue(());
        }
        let (fi, fj) = (to_f(i), to_f(j));
        let gap = |t: f64| snap(w.z(t), p.eval(w.u(t) - fi, w.v(t) - fj));
        let fa = if chain.f.is_nan() || chain.t != a {
            let fa = gap(a);
            if fa == 0.0 {
                sink.crossing(self.make_hit(ray, a, i, j, half, &p))?;
            }
            fa
        } else {
            chain.f
        };
        let fb = gap(b);
        chain.t = b;
        chain.f = fb;
        if fb == 0.0 {
            return sink.crossing(self.make_hit(ray, b, i, j, half, &p));
        }
        if (fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0) {
            let t = (a + (b - a) * (fa / (fa - fb))).clamp(a, b);
            return sink.crossing(self.make_hit(ray, t, i, j, half, &p));
        }
        ControlFlow::Continue(())
    }

    /// Vertical rays: one triangle, solved directly (the 2017 paper's section 3.6).
    fn cast_vertical(
        &self,
        ray: &Ray,
        u0: f64,
        v0: f64,
        t_min: f64,
        t_max: f64,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        let Some(l) = self.locate(u0, v0) else {
            return ControlFlow::Continue(());
        };
        let z = l.plane.eval(l.fu, l.fv);
        // A direction with negligible horizontal motion and no vertical one stays at its height:
        // it meets the ground only if it starts on it.
        let t = if ray.dir.z == 0.0 {
            if snap(ray.origin.z, z) == 0.0 {
                t_min.max(0.0)
            } else {
                return ControlFlow::Continue(());
            }
        } else {
            (z - ray.origin.z) / ray.dir.z
        };
        if t >= t_min && t <= t_max {
            // Built inline: this path is a whole query, not a rare event in a walk.
            return sink.crossing(Hit {
                t,
                point: DVec3::new(ray.origin.x, ray.origin.y, z),
                normal: self.frame.orient_up(self.plane_normal(&l.plane)),
                triangle: TriangleId::Cell { i: l.i as u32, j: l.j as u32, half: l.half },
            });
        }
        ControlFlow::Continue(())
    }

    #[cold]
    #[inline(never)]
    fn make_hit(&self, ray: &Ray, t: f64, i: usize, j: usize, half: Half, p: &cell::CellPlane) -> Hit {
        Hit {
            t,
            point: ray.at(t),
            normal: self.frame.orient_up(self.plane_normal(p)),
            triangle: TriangleId::Cell { i: i as u32, j: j as u32, half },
        }
    }
}

/// Per-ray constants of the stack walk: the ray's t at the height of code `c` is `c · [0] + [1]` at
/// a node's low end and `c · [0] + [2]` at its high end (`q` from `Pyramid::quantum_eps`, its
/// margin included), so that a code becomes a t in one multiply and one add.
#[inline(always)]
fn code_to_t(w: &Walk, q: [f64; 3]) -> [f64; 3] {
    [q[0] * w.inv_dz, (q[1] - w.z0) * w.inv_dz, (q[2] - w.z0) * w.inv_dz]
}

/// The gap `z − h`, snapped to 0 within rounding (`TOUCH_EPS` relative), so a ray that only touches
/// the surface at an edge or vertex is reported whatever the rounding of its breakpoints.
#[inline(always)]
fn snap(z: f64, h: f64) -> f64 {
    let f = z - h;
    if f.abs() <= TOUCH_EPS * (1.0 + z.abs() + h.abs()) {
        0.0
    } else {
        f
    }
}
