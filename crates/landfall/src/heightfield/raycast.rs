//! Ray casts: front-to-back descent of the min/max pyramid, then a walk of the cells under the
//! projected ray (the 2017 paper's sections 3.2–3.5, with height pruning and no queue or sort).
//!
//! **Watertightness.** Along the ray, the walk visits a sequence of intervals, each inside one
//! triangle (split at cell edges and at the cell diagonal). On each the gap
//! `f(t) = z_ray(t) − z_terrain(t)` is linear, so the ray crosses that triangle iff `f` changes sign
//! (or is zero) between the interval's ends. The value of `f` at a breakpoint is computed once and
//! carried into the next interval, so consecutive intervals agree exactly at their shared point:
//! if `f` changes sign anywhere along a run of walked intervals, some interval sees the change. No
//! ray can slip between two triangles through their shared edge or vertex. A run is broken only by a
//! hole (no ground there) or by a pyramid node that is pruned, and pruning needs the ray to stay
//! strictly above or below the node, where `f` cannot change sign.
//!
//! **Touches.** A ray that only touches the surface (tangent at a crease, a peak or a flat patch)
//! counts as a hit. Whether an exact touch survives rounding is luck, so a gap smaller than
//! [`TOUCH_EPS`] relative to the heights involved counts as zero.

use super::cell::{self, Half};
use super::pyramid::Level;
use super::Heightfield;
use crate::geom::{Hit, Ray, TriangleId};
use glam::DVec3;
use rayon::prelude::*;
use std::ops::ControlFlow;

/// The ray in grid space: u, v in cell units from sample (0, 0); z and t unchanged.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridRay {
    pub u0: f64,
    pub v0: f64,
    pub z0: f64,
    pub du: f64,
    pub dv: f64,
    pub dz: f64,
    pub inv_du: f64,
    pub inv_dv: f64,
}

impl GridRay {
    #[inline(always)]
    fn u(&self, t: f64) -> f64 {
        self.u0 + self.du * t
    }
    #[inline(always)]
    fn v(&self, t: f64) -> f64 {
        self.v0 + self.dv * t
    }
    #[inline(always)]
    fn z(&self, t: f64) -> f64 {
        self.z0 + self.dz * t
    }
}

/// Last evaluated breakpoint of the current run: `f` at `t`, NaN when the run is broken.
struct Chain {
    t: f64,
    f: f64,
}

/// Where crossings go: the first-hit search stops at the first, `crossings` visits them all.
trait Sink {
    fn crossing(&mut self, hit: Hit) -> ControlFlow<()>;
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

/// One pending pyramid node of the descent.
#[derive(Clone, Copy, Default)]
struct Pending {
    level: u8,
    bi: u32,
    bj: u32,
    t0: f64,
    t1: f64,
}

impl Heightfield {
    /// First crossing of `ray` with the terrain for t in [0, `max_t`] (`f64::INFINITY` for
    /// unbounded), from either side. An invalid ray (NaN or infinite components, zero direction) or a
    /// NaN or negative `max_t` is a miss; call [`Ray::validate`] to tell these apart.
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

    fn grid_ray(&self, ray: &Ray) -> GridRay {
        let (u0, v0) = self.to_grid(ray.origin.x, ray.origin.y);
        let du = ray.dir.x * self.inv_spacing.x;
        let dv = ray.dir.y * self.inv_spacing.y;
        GridRay { u0, v0, z0: ray.origin.z, du, dv, dz: ray.dir.z, inv_du: 1.0 / du, inv_dv: 1.0 / dv }
    }

    fn cast(&self, ray: &Ray, t_min: f64, t_max: f64, sink: &mut impl Sink) -> ControlFlow<()> {
        let r = self.grid_ray(ray);
        if r.du == 0.0 && r.dv == 0.0 {
            return self.cast_vertical(ray, &r, t_min, t_max, sink);
        }
        let (ncx, ncy) = self.pyramid.cells();
        // The grid rectangle, widened by rounding room so rays aimed at its border do not slip off;
        // the walk clamps to the real cells.
        let e = super::vertical::BORDER_EPS;
        let Some((t0, t1)) = clip_2d(&r, -e, ncx as f64 + e, -e, ncy as f64 + e, t_min, t_max) else {
            return ControlFlow::Continue(());
        };
        let top = self.pyramid.depth() - 1;
        if !self.may_cross(&r, self.pyramid.range(self.pyramid.level(top), 0, 0), t0, t1) {
            return ControlFlow::Continue(());
        }
        let mut stack = [Pending::default(); 128];
        stack[0] = Pending { level: top as u8, bi: 0, bj: 0, t0, t1 };
        let mut len = 1;
        let mut chain = Chain { t: f64::NAN, f: f64::NAN };
        while len > 0 {
            len -= 1;
            let n = stack[len];
            let lv = self.pyramid.level(n.level as usize);
            let (bi, bj) = (n.bi as usize, n.bj as usize);
            if n.level == 0 {
                let (ci0, cj0) = (bi * lv.span, bj * lv.span);
                let (ci1, cj1) = ((ci0 + lv.span).min(ncx), (cj0 + lv.span).min(ncy));
                self.walk_cells(ray, &r, [ci0, ci1, cj0, cj1], n.t0, n.t1, &mut chain, sink)?;
                continue;
            }
            let child = self.pyramid.level(n.level as usize - 1);
            let mut kids = [Pending::default(); 3];
            let nk = self.split(&r, n, lv, child, &mut kids);
            for k in kids[..nk].iter().rev() {
                stack[len] = *k;
                len += 1;
            }
        }
        ControlFlow::Continue(())
    }

    /// Splits node `n`'s ray interval at its two mid-lines into the (up to 3) children the ray
    /// crosses, front to back, keeping those whose height range the ray may cross.
    #[inline(always)]
    fn split(&self, r: &GridRay, n: Pending, lv: Level, child: Level, out: &mut [Pending; 3]) -> usize {
        let half = (lv.span / 2) as f64;
        let um = (2 * n.bi as usize + 1) as f64 * half;
        let vm = (2 * n.bj as usize + 1) as f64 * half;
        let tu = if r.du != 0.0 { (um - r.u0) * r.inv_du } else { f64::INFINITY };
        let tv = if r.dv != 0.0 { (vm - r.v0) * r.inv_dv } else { f64::INFINITY };
        // Side of each mid-line at the entry point (ties broken by the direction of travel).
        let side = |p: f64, m: f64, d: f64| p > m || (p == m && d > 0.0);
        let mut hi_u = side(r.u(n.t0), um, r.du);
        let mut hi_v = side(r.v(n.t0), vm, r.dv);
        let (mut ea, mut eb) = (tu, tv);
        let (mut a_is_u, mut b_is_u) = (true, false);
        if eb < ea {
            std::mem::swap(&mut ea, &mut eb);
            std::mem::swap(&mut a_is_u, &mut b_is_u);
        }
        let mut count = 0;
        let mut t = n.t0;
        for (e, is_u) in [(ea, a_is_u), (eb, b_is_u), (f64::INFINITY, false)] {
            let end = if e > t && e < n.t1 {
                e
            } else if e >= n.t1 {
                n.t1
            } else {
                continue;
            };
            let (ci, cj) = (2 * n.bi as usize + hi_u as usize, 2 * n.bj as usize + hi_v as usize);
            if ci < child.nbx && cj < child.nby && self.may_cross(r, self.pyramid.range(child, ci, cj), t, end) {
                out[count] = Pending { level: n.level - 1, bi: ci as u32, bj: cj as u32, t0: t, t1: end };
                count += 1;
            }
            if end >= n.t1 {
                break;
            }
            if is_u {
                hi_u = !hi_u;
            } else {
                hi_v = !hi_v;
            }
            t = end;
        }
        count
    }

    /// False only when the ray stays strictly above or strictly below `range` over [t0, t1], with
    /// a margin that covers rounding in t and z.
    #[inline(always)]
    fn may_cross(&self, r: &GridRay, range: [f32; 2], t0: f64, t1: f64) -> bool {
        let (lo, hi) = (range[0] as f64, range[1] as f64);
        let (za, zb) = (r.z(t0), r.z(t1));
        let eps = 1e-9 * (1.0 + lo.abs().max(hi.abs())) + 1e-12 * r.dz.abs() * (t0.abs() + t1.abs());
        za.max(zb) >= lo - eps && za.min(zb) <= hi + eps
    }

    /// Walks the cells `[ci0, ci1) × [cj0, cj1)` under the ray from t0 to t1 (DDA), in order.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn walk_cells(
        &self,
        ray: &Ray,
        r: &GridRay,
        [ci0, ci1, cj0, cj1]: [usize; 4],
        t0: f64,
        t1: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        if chain.t != t0 {
            chain.f = f64::NAN;
        }
        let start = |p: f64, d: f64, lo: usize, hi: usize| {
            let mut c = (p.max(0.0) as usize).clamp(lo, hi - 1);
            if d < 0.0 && c as f64 == p && c > lo {
                c -= 1;
            }
            c
        };
        let (mut i, mut j) = (start(r.u(t0), r.du, ci0, ci1), start(r.v(t0), r.dv, cj0, cj1));
        // An axis whose next cell is outside the range is blocked: the rest of [t0, t1] (rounding
        // room at the range's edge) stays in the last cell, extrapolating its planes.
        let (mut block_u, mut block_v) = (r.du == 0.0, r.dv == 0.0);
        let mut t = t0;
        loop {
            let tx = if block_u {
                f64::INFINITY
            } else if r.du > 0.0 {
                ((i + 1) as f64 - r.u0) * r.inv_du
            } else {
                (i as f64 - r.u0) * r.inv_du
            };
            let ty = if block_v {
                f64::INFINITY
            } else if r.dv > 0.0 {
                ((j + 1) as f64 - r.v0) * r.inv_dv
            } else {
                (j as f64 - r.v0) * r.inv_dv
            };
            let te = tx.min(ty).min(t1).max(t);
            self.cell_interval(ray, r, i, j, t, te, chain, sink)?;
            if te >= t1 {
                return ControlFlow::Continue(());
            }
            if tx <= ty {
                if r.du > 0.0 && i + 1 < ci1 {
                    i += 1;
                } else if r.du < 0.0 && i > ci0 {
                    i -= 1;
                } else {
                    block_u = true;
                }
            } else if r.dv > 0.0 && j + 1 < cj1 {
                j += 1;
            } else if r.dv < 0.0 && j > cj0 {
                j -= 1;
            } else {
                block_v = true;
            }
            t = te;
        }
    }

    /// The ray's interval [a, b] inside cell (i, j): split at the diagonal, test each piece.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn cell_interval(
        &self,
        ray: &Ray,
        r: &GridRay,
        i: usize,
        j: usize,
        a: f64,
        b: f64,
        chain: &mut Chain,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        let masked = self.is_cell_masked(i, j);
        let anti = self.diagonal.is_anti(i, j);
        let (fi, fj) = (i as f64, j as f64);
        let (ua, va, ub, vb) = (r.u(a) - fi, r.v(a) - fj, r.u(b) - fi, r.v(b) - fj);
        let (sa, sb) = (cell::diagonal_side(anti, ua, va), cell::diagonal_side(anti, ub, vb));
        let k = self.corners(i, j);
        if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
            let tm = a + (b - a) * (sa / (sa - sb));
            let first = if sa < 0.0 { Half::South } else { Half::North };
            let second = if sa < 0.0 { Half::North } else { Half::South };
            self.piece(ray, r, i, j, anti, first, masked, &k, a, tm, chain, sink)?;
            self.piece(ray, r, i, j, anti, second, masked, &k, tm, b, chain, sink)
        } else {
            let half = if sa + sb <= 0.0 { Half::South } else { Half::North };
            self.piece(ray, r, i, j, anti, half, masked, &k, a, b, chain, sink)
        }
    }

    /// One piece [a, b] of the ray inside one triangle: extend the chain and report a sign change.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn piece(
        &self,
        ray: &Ray,
        r: &GridRay,
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
            if b > a {
                chain.f = f64::NAN;
            }
            chain.t = b;
            return ControlFlow::Continue(());
        }
        let (fi, fj) = (i as f64, j as f64);
        let gap = |t: f64| snap(r.z(t), p.eval(r.u(t) - fi, r.v(t) - fj));
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
    fn cast_vertical(&self, ray: &Ray, r: &GridRay, t_min: f64, t_max: f64, sink: &mut impl Sink) -> ControlFlow<()> {
        let Some(l) = self.locate(r.u0, r.v0) else {
            return ControlFlow::Continue(());
        };
        let t = (l.plane.eval(l.fu, l.fv) - r.z0) / r.dz;
        if t >= t_min && t <= t_max {
            return sink.crossing(self.make_hit(ray, t, l.i, l.j, l.half, &l.plane));
        }
        ControlFlow::Continue(())
    }

    #[inline(always)]
    fn make_hit(&self, ray: &Ray, t: f64, i: usize, j: usize, half: Half, p: &cell::CellPlane) -> Hit {
        Hit {
            t,
            point: ray.at(t),
            normal: self.frame.orient_up(self.plane_normal(p)),
            triangle: TriangleId::Cell { i: i as u32, j: j as u32, half },
        }
    }
}

/// Relative tolerance under which the ray–terrain gap counts as zero (a touch).
pub const TOUCH_EPS: f64 = 1e-10;

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

/// Slab clip of the grid ray against the rectangle [u_lo, u_hi] × [v_lo, v_hi], within [t_min, t_max].
#[inline(always)]
pub(crate) fn clip_2d(
    r: &GridRay,
    u_lo: f64,
    u_hi: f64,
    v_lo: f64,
    v_hi: f64,
    t_min: f64,
    t_max: f64,
) -> Option<(f64, f64)> {
    let lo = DVec3::new(u_lo, v_lo, f64::NEG_INFINITY);
    let hi = DVec3::new(u_hi, v_hi, f64::INFINITY);
    let o = DVec3::new(r.u0, r.v0, 0.0);
    let d = DVec3::new(r.du, r.dv, 0.0);
    crate::geom::Aabb::new(lo, hi).clip_ray(o, d, t_min, t_max)
}
