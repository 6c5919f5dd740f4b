//! The exact line-of-sight test of the viewshed: the segment from a target sample to the observer
//! against the (possibly curvature-lowered) triangles of a heightfield, pruned by the min/max
//! pyramid.
//!
//! Along the segment X(s) = P + s·(O − P) (s = 0 at the target, 1 at the observer) the terrain is
//! piecewise linear: linear inside each triangle, with breakpoints where the segment's projection
//! crosses a grid line or a cell diagonal. The segment is a line too, so over each piece (the part
//! of the segment above one triangle) the height difference is linear, and the segment meets that
//! triangle exactly when the differences at the piece's two ends bracket zero: checking the pieces
//! is the exact test. (Over a hole the segment may pass under the surface without meeting it, as
//! through a tunnel; the bracket test, unlike "terrain above the line somewhere", gets that right.)
//! Breakpoints are computed from the target's end (s = 0 at P exactly), so the target's own
//! triangles, which the segment reaches at P, never block by rounding. Only pieces over existing
//! triangles are reported: over a hole there is no surface.

use crate::heightfield::cell::{self, Corners, Half};
use crate::heightfield::Heightfield;
use std::ops::ControlFlow;

/// A heightfield seen from one observer: lowered heights and the observer's place in grid units.
pub(crate) struct Sight<'a> {
    pub hf: &'a Heightfield,
    /// Curvature coefficient: a sample at horizontal distance d is lowered by `curv·d²`.
    pub curv: f64,
    /// Observer in grid coordinates.
    pub ou: f64,
    pub ov: f64,
    /// Observer elevation (lowered ground + observer height).
    pub zo: f64,
}

/// What a walk reports: each piece of the segment over one triangle.
pub(crate) trait Probe {
    /// Whether a node whose (lowered) heights are at most `hi` over s ∈ [sa, sb] can matter.
    fn matters(&self, hi: f64, sa: f64, sb: f64) -> bool;
    /// The piece s ∈ [s1, s2] ⊂ [0, 1] lies over one triangle, whose heights at its ends are `h1`
    /// and `h2` (linear between them).
    fn piece(&mut self, s1: f64, h1: f64, s2: f64, h2: f64) -> ControlFlow<()>;
}

impl Sight<'_> {
    /// Squared horizontal distance from the observer to grid point (u, v).
    #[inline(always)]
    pub fn dist2(&self, u: f64, v: f64) -> f64 {
        let sp = self.hf.spacing();
        let (a, b) = ((u - self.ou) * sp.x, (v - self.ov) * sp.y);
        a * a + b * b
    }

    /// Sample (i, j) lowered for curvature (NaN for nodata).
    #[inline(always)]
    pub fn lowered(&self, i: usize, j: usize) -> f64 {
        let h = self.hf.sample(i, j) as f64;
        if self.curv == 0.0 {
            h
        } else {
            h - self.curv * self.dist2(i as f64, j as f64)
        }
    }

    /// Writes `out.len()` samples lowered for curvature from (i, j) on, along i (`along_i`) or j.
    pub fn lowered_into(&self, i: usize, j: usize, along_i: bool, out: &mut [f64]) {
        let n = out.len();
        let at = |k: usize| if along_i { (i + k, j) } else { (i, j + k) };
        let Some(h) = self.hf.rows().filter(|_| n > 0) else {
            for (k, o) in out.iter_mut().enumerate() {
                let (i, j) = at(k);
                *o = self.lowered(i, j);
            }
            return;
        };
        let stride = if along_i { 1 } else { self.hf.nx() };
        let first = j * self.hf.nx() + i;
        let run = h[first..=first + (n - 1) * stride].iter().step_by(stride).map(|&z| z as f64);
        if self.curv == 0.0 {
            for (o, z) in out.iter_mut().zip(run) {
                *o = z;
            }
        } else {
            for (k, (o, z)) in out.iter_mut().zip(run).enumerate() {
                let (i, j) = at(k);
                *o = z - self.curv * self.dist2(i as f64, j as f64);
            }
        }
    }

    /// Lowered corners of cell (i, j); all NaN when the cell is masked.
    #[inline(always)]
    pub fn corners(&self, i: usize, j: usize) -> Corners {
        if self.hf.is_cell_masked(i, j) {
            return Corners { h00: f64::NAN, h10: f64::NAN, h01: f64::NAN, h11: f64::NAN };
        }
        Corners {
            h00: self.lowered(i, j),
            h10: self.lowered(i + 1, j),
            h01: self.lowered(i, j + 1),
            h11: self.lowered(i + 1, j + 1),
        }
    }

    /// Walks the breakpoints of the segment from target sample (pi, pj) to the observer in
    /// increasing s, skipping pyramid nodes the probe says cannot matter.
    pub fn walk(&self, pi: usize, pj: usize, probe: &mut impl Probe) {
        self.walk_part(pi, pj, 0.0, 1.0, probe);
    }

    /// [`walk`](Self::walk) over s ∈ [lo, hi] only.
    pub fn walk_part(&self, pi: usize, pj: usize, lo: f64, hi: f64, probe: &mut impl Probe) {
        let (pu, pv) = (pi as f64, pj as f64);
        let seg = Seg { pu, pv, du: self.ou - pu, dv: self.ov - pv, lo, hi };
        if seg.du == 0.0 && seg.dv == 0.0 {
            return;
        }
        // A short part is walked cell by cell: the pyramid's descent would cost more than it saves.
        let pyr = self.hf.pyramid();
        if (hi - lo) * seg.du.abs().max(seg.dv.abs()) <= pyr.leaf_size() as f64 {
            let (ncx, ncy) = (self.hf.nx() - 1, self.hf.ny() - 1);
            if let Some((sa, sb)) = seg.clip(0.0, ncx as f64, 0.0, ncy as f64) {
                let _ = self.leaf(&seg, 0, ncx, 0, ncy, sa, sb, probe);
            }
            return;
        }
        let top = pyr.depth() - 1;
        let _ = self.node(&seg, top, 0, 0, probe);
    }

    fn node(&self, seg: &Seg, k: usize, bi: usize, bj: usize, probe: &mut impl Probe) -> ControlFlow<()> {
        let pyr = self.hf.pyramid();
        let l = pyr.level(k);
        let (ncx, ncy) = (self.hf.nx() - 1, self.hf.ny() - 1);
        let (x0, y0) = (bi * l.span, bj * l.span);
        let (x1, y1) = ((x0 + l.span).min(ncx), (y0 + l.span).min(ncy));
        let Some((sa, sb)) = seg.clip(x0 as f64, x1 as f64, y0 as f64, y1 as f64) else {
            return ControlFlow::Continue(());
        };
        let (_, hi) = pyr.range(l, bi, bj);
        if hi == f64::NEG_INFINITY {
            return ControlFlow::Continue(());
        }
        // Lowering only lowers: the node's bound minus the least lowering over its block.
        let hi = if self.curv == 0.0 {
            hi
        } else {
            let cu = self.ou.clamp(x0 as f64, x1 as f64);
            let cv = self.ov.clamp(y0 as f64, y1 as f64);
            hi - self.curv * self.dist2(cu, cv)
        };
        if !probe.matters(hi, sa, sb) {
            return ControlFlow::Continue(());
        }
        if k == 0 {
            return self.leaf(seg, x0, x1, y0, y1, sa, sb, probe);
        }
        let c = pyr.level(k - 1);
        let mut kids: [(f64, usize, usize); 4] = [(f64::INFINITY, 0, 0); 4];
        let mut n = 0;
        for (ci, cj) in [(2 * bi, 2 * bj), (2 * bi + 1, 2 * bj), (2 * bi, 2 * bj + 1), (2 * bi + 1, 2 * bj + 1)] {
            if ci >= c.nbx || cj >= c.nby {
                continue;
            }
            let (cx0, cy0) = (ci * c.span, cj * c.span);
            let (cx1, cy1) = ((cx0 + c.span).min(ncx), (cy0 + c.span).min(ncy));
            if let Some((a, _)) = seg.clip(cx0 as f64, cx1 as f64, cy0 as f64, cy1 as f64) {
                kids[n] = (a, ci, cj);
                n += 1;
            }
        }
        let kids = &mut kids[..n];
        kids.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for &(_, ci, cj) in kids.iter() {
            self.node(seg, k - 1, ci, cj, probe)?;
        }
        ControlFlow::Continue(())
    }

    /// The breakpoints within one leaf block (cells [x0, x1) × [y0, y1)) for s ∈ [sa, sb].
    #[allow(clippy::too_many_arguments)]
    fn leaf(
        &self,
        seg: &Seg,
        x0: usize,
        x1: usize,
        y0: usize,
        y1: usize,
        sa: f64,
        sb: f64,
        probe: &mut impl Probe,
    ) -> ControlFlow<()> {
        // Grid-line crossings in increasing s, merged from the two axes.
        let mut us = Crossings::new(seg.pu, seg.du, x0, x1, sa, sb);
        let mut vs = Crossings::new(seg.pv, seg.dv, y0, y1, sa, sb);
        let mut s1 = sa;
        loop {
            let s2 = match (us.peek(), vs.peek()) {
                (Some(a), Some(b)) if a <= b => us.next_s(),
                (Some(_), Some(_)) => vs.next_s(),
                (Some(_), None) => us.next_s(),
                (None, Some(_)) => vs.next_s(),
                (None, None) => sb,
            };
            if s2 > s1 {
                self.piece(seg, x0, x1, y0, y1, s1, s2, probe)?;
                s1 = s2;
            }
            if s2 >= sb {
                return ControlFlow::Continue(());
            }
        }
    }

    /// One piece of the segment inside one cell, s ∈ [s1, s2], split at the cell's diagonal.
    #[allow(clippy::too_many_arguments)]
    fn piece(
        &self,
        seg: &Seg,
        x0: usize,
        x1: usize,
        y0: usize,
        y1: usize,
        s1: f64,
        s2: f64,
        probe: &mut impl Probe,
    ) -> ControlFlow<()> {
        let sm = 0.5 * (s1 + s2);
        let (um, vm) = (seg.pu + sm * seg.du, seg.pv + sm * seg.dv);
        let i = cell::cell_index(um, x0, x1 - 1);
        let j = cell::cell_index(vm, y0, y1 - 1);
        let anti = self.hf.diagonal().is_anti(i, j);
        // Cell-local coordinates: fu(s) = au + s·du, fv(s) = av + s·dv, exact at s = 0.
        let (au, av) = (seg.pu - i as f64, seg.pv - j as f64);
        // Side of the diagonal, a + b·s (≤ 0: the south half).
        let (a, b) = if anti { (au + av - 1.0, seg.du + seg.dv) } else { (av - au, seg.dv - seg.du) };
        let sd = if b != 0.0 { -a / b } else { f64::NAN };
        if sd > s1 && sd < s2 {
            self.part(seg, um, vm, 0.5 * (s1 + sd), s1, sd, probe)?;
            self.part(seg, um, vm, 0.5 * (sd + s2), sd, s2, probe)
        } else {
            self.part(seg, um, vm, sm, s1, s2, probe)
        }
    }

    /// A part s ∈ [s1, s2] of the segment over one triangle (or over an edge or the diagonal that
    /// two triangles share): reported with the heights of a triangle that holds it and is not a
    /// hole, if any. (`um`, `vm`: the piece's midpoint, which tells whether it runs along a grid
    /// line.)
    #[allow(clippy::too_many_arguments)]
    fn part(&self, seg: &Seg, um: f64, vm: f64, sm: f64, s1: f64, s2: f64, probe: &mut impl Probe) -> ControlFlow<()> {
        let (ncx, ncy) = (self.hf.nx() - 1, self.hf.ny() - 1);
        let (u, v) = (seg.pu + sm * seg.du, seg.pv + sm * seg.dv);
        // Cells holding the part: one, or both sides of a grid line the piece runs along.
        let along_u = seg.du == 0.0 && um == floor(um) as f64;
        let along_v = seg.dv == 0.0 && vm == floor(vm) as f64;
        let fi = floor(u);
        let fj = floor(v);
        let is = if along_u { [fi - 1, fi] } else { [fi, fi] };
        let js = if along_v { [fj - 1, fj] } else { [fj, fj] };
        for ci in is {
            for cj in js {
                let (ci, cj) = (ci.clamp(0, ncx as i64 - 1) as usize, cj.clamp(0, ncy as i64 - 1) as usize);
                let anti = self.hf.diagonal().is_anti(ci, cj);
                let (au, av) = (seg.pu - ci as f64, seg.pv - cj as f64);
                let side = cell::diagonal_side(anti, au + sm * seg.du, av + sm * seg.dv);
                let k = self.corners(ci, cj);
                for half in [Half::South, Half::North] {
                    if (half == Half::South && side > 0.0) || (half == Half::North && side < 0.0) {
                        continue;
                    }
                    let p = cell::plane(anti, half, &k);
                    if !p.is_hole() {
                        let h = |s: f64| p.eval(au + s * seg.du, av + s * seg.dv);
                        return probe.piece(s1, h(s1), s2, h(s2));
                    }
                }
            }
        }
        // Over a hole: an end of the part may still be a vertex of an existing triangle (a line
        // through a vertex between holes touches the surface there).
        for s in [s1, s2] {
            let (x, y) = (seg.pu + s * seg.du, seg.pv + s * seg.dv);
            let (i, j) = (x.round(), y.round());
            if (x - i).abs() <= 1e-9 && (y - j).abs() <= 1e-9 {
                if let Some(h) = self.vertex(i as usize, j as usize) {
                    probe.piece(s, h, s, h)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The lowered height of sample (i, j) when some existing triangle has it as a vertex.
    fn vertex(&self, i: usize, j: usize) -> Option<f64> {
        let (nx, ny) = (self.hf.nx(), self.hf.ny());
        let h = self.lowered(i, j);
        if h.is_nan() {
            return None;
        }
        for (ci, cj) in [(i.wrapping_sub(1), j.wrapping_sub(1)), (i, j.wrapping_sub(1)), (i.wrapping_sub(1), j), (i, j)]
        {
            if ci >= nx - 1 || cj >= ny - 1 {
                continue;
            }
            let anti = self.hf.diagonal().is_anti(ci, cj);
            let k = self.corners(ci, cj);
            // The corner (i, j) is in the cell's half on its side of the diagonal, or in both.
            let (fu, fv) = ((i - ci) as f64, (j - cj) as f64);
            let side = cell::diagonal_side(anti, fu, fv);
            for half in [Half::South, Half::North] {
                if (half == Half::South && side > 0.0) || (half == Half::North && side < 0.0) {
                    continue;
                }
                if !cell::plane(anti, half, &k).is_hole() {
                    return Some(h);
                }
            }
        }
        None
    }
}

/// The segment in grid coordinates: (pu, pv) + s·(du, dv), for s ∈ [lo, hi] ⊂ [0, 1].
struct Seg {
    pu: f64,
    pv: f64,
    du: f64,
    dv: f64,
    lo: f64,
    hi: f64,
}

impl Seg {
    /// The s-interval within [lo, hi] where the projection lies in [x0, x1] × [y0, y1].
    fn clip(&self, x0: f64, x1: f64, y0: f64, y1: f64) -> Option<(f64, f64)> {
        let (mut a, mut b) = (self.lo, self.hi);
        for (p, d, lo, hi) in [(self.pu, self.du, x0, x1), (self.pv, self.dv, y0, y1)] {
            if d == 0.0 {
                if p < lo || p > hi {
                    return None;
                }
            } else {
                let (t0, t1) = ((lo - p) / d, (hi - p) / d);
                let (t0, t1) = if t0 < t1 { (t0, t1) } else { (t1, t0) };
                a = a.max(t0);
                b = b.min(t1);
            }
        }
        (a <= b).then_some((a, b))
    }
}

/// The s at which the segment crosses the grid lines m = lo..=hi of one axis, in increasing s,
/// within (sa, sb).
struct Crossings {
    p: f64,
    d: f64,
    m: i64,
    step: i64,
    end: i64,
    sb: f64,
}

impl Crossings {
    fn new(p: f64, d: f64, lo: usize, hi: usize, sa: f64, sb: f64) -> Self {
        if d == 0.0 {
            return Self { p, d, m: 0, step: 1, end: -1, sb };
        }
        // The first line past the position at sa, in the direction of travel.
        let at = p + sa * d;
        let (m, step, end) = if d > 0.0 {
            ((floor(at) + 1).max(lo as i64), 1, hi as i64)
        } else {
            ((-floor(-at) - 1).min(hi as i64), -1, lo as i64)
        };
        let mut c = Self { p, d, m, step, end, sb };
        // Rounding of `at` may put the first line at or before sa: skip such lines.
        while c.in_range() && c.s() <= sa {
            c.m += c.step;
        }
        c
    }

    fn in_range(&self) -> bool {
        self.d != 0.0 && (self.m - self.end) * self.step <= 0
    }

    fn s(&self) -> f64 {
        (self.m as f64 - self.p) / self.d
    }

    fn peek(&self) -> Option<f64> {
        if !self.in_range() {
            return None;
        }
        let s = self.s();
        (s < self.sb).then_some(s)
    }

    fn next_s(&mut self) -> f64 {
        let s = self.s();
        self.m += self.step;
        s
    }
}

/// ⌊x⌋ for grid coordinates (|x| < 2⁶²), without the library call `f64::floor` is on baseline
/// x86-64.
#[inline(always)]
pub(crate) fn floor(x: f64) -> i64 {
    let t = x as i64;
    t - i64::from((t as f64) > x)
}
