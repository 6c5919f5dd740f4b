//! Rays on a [`GeoSurface`]. Grids within 10° (away from the poles) take the strip walk
//! (`strips.rs`: meridian wedges, rows with margins, a height lower bound); the others a
//! front-to-back descent of the box tree (children visited nearest first, anything beyond the best
//! hit so far skipped), then, in each leaf, every cell's four corners mapped into the ray's
//! sheared space once, cells whose four corners lie on one side of the line skipped
//! ([`Shear::sides`]), and each triangle tested watertightly ([`Shear`]). Both map a vertex by the
//! same arithmetic from whichever cell or leaf reaches it, so a ray through a shared edge or
//! vertex never slips between triangles, and both give the same t on the same triangle.

use super::boxes::{overlaps, SlabRay};
use super::shear::{Mapped, Shear};
use super::surface::{triangle_hit, GeoPoint, GeoSurface};
use super::wgs84::Geodetic;
use crate::geom::{Half, Hit, Ray, TriangleId};
use arrayvec::ArrayVec;
use glam::DVec3;

/// A ray's gap to the surface this small (metres) counts as a touch: a ray starting on the surface
/// hits at t = 0.
pub const GEO_TOUCH: f64 = 1e-9;

/// A ray's first crossing with a [`GeoSurface`], in every coordinate system at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoHit {
    /// Ray parameter (metres when the direction is a unit vector).
    pub t: f64,
    /// The point (geodetic, ENU in the surface's frame), the triangle's normal (ENU) and identity.
    pub point: GeoPoint,
    /// The point in ECEF.
    pub ecef: DVec3,
}

/// Most nodes waiting at once: 3 per level plus one (the tree has at most 33 levels).
type Stack = ArrayVec<(u8, u32, u32, f64), 112>;

/// What a leaf walk does with each crossing: keep the first, or report all.
pub(super) trait Sink {
    /// The largest t still of interest.
    fn limit(&self) -> f64;
    fn take(&mut self, t: f64, i: usize, j: usize, half: Half);
    /// [`Sink::take`] with the triangle's ENU vertices as [`GeoSurface::cell_triangle`] gives them
    /// (the same bits), which the first hit keeps for its normal.
    #[inline(always)]
    fn take_with(&mut self, t: f64, i: usize, j: usize, half: Half, _v: &[DVec3; 3]) {
        self.take(t, i, j, half);
    }
}

struct First {
    best: f64,
    found: Option<(f64, usize, usize, Half)>,
    /// The found triangle's vertices, where the walk gave them.
    tri: Option<[DVec3; 3]>,
}

impl Sink for First {
    #[inline(always)]
    fn limit(&self) -> f64 {
        self.best
    }
    #[inline(always)]
    fn take(&mut self, t: f64, i: usize, j: usize, half: Half) {
        if t < self.best || self.found.is_none() {
            self.best = t;
            self.found = Some((t, i, j, half));
            self.tri = None;
        }
    }
    #[inline(always)]
    fn take_with(&mut self, t: f64, i: usize, j: usize, half: Half, v: &[DVec3; 3]) {
        if t < self.best || self.found.is_none() {
            self.best = t;
            self.found = Some((t, i, j, half));
            self.tri = Some(*v);
        }
    }
}

struct All {
    t1: f64,
    hits: Vec<(f64, usize, usize, Half)>,
}

impl Sink for All {
    fn limit(&self) -> f64 {
        self.t1
    }
    fn take(&mut self, t: f64, i: usize, j: usize, half: Half) {
        self.hits.push((t, i, j, half));
    }
}

/// The hit at `t` on triangle `half` of cell (i, j) with ENU vertices `v`, its normal oriented to
/// the frame's up.
#[inline(always)]
fn hit_on(ray: &Ray, t: f64, i: usize, j: usize, half: Half, v: &[DVec3; 3]) -> Hit {
    let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
    let normal = if n.z < 0.0 { -n } else { n };
    Hit { t, point: ray.at(t), normal, triangle: TriangleId::Cell { i: i as u32, j: j as u32, half } }
}

impl GeoSurface {
    /// First crossing of `ray` (in the surface's ENU frame, [`GeoSurface::frame`]) for t in
    /// [0, `max_t`], from either side; the normal is oriented to the frame's up (+z). Invalid rays
    /// are misses (see [`Ray::validate`]).
    pub fn raycast_enu(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let t_lo = -GEO_TOUCH / ray.dir.length();
        let mut sink = First { best: max_t, found: None, tri: None };
        if !self.strip_walk(ray, t_lo, &mut sink) {
            self.walk(ray, t_lo, &mut sink);
        }
        let (t, i, j, half) = sink.found?;
        // The strip walk hands over the triangle it tested; the descent's is mapped again.
        match sink.tri {
            Some(v) => Some(hit_on(ray, t.max(0.0), i, j, half, &v)),
            None => self.enu_hit(ray, t.max(0.0), i, j, half),
        }
    }

    /// [`GeoSurface::raycast_enu`] by the box-tree descent alone (the strip walk's reference).
    #[cfg(test)]
    pub(crate) fn raycast_enu_descent(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let t_lo = -GEO_TOUCH / ray.dir.length();
        let mut sink = First { best: max_t, found: None, tri: None };
        self.walk(ray, t_lo, &mut sink);
        let (t, i, j, half) = sink.found?;
        self.enu_hit(ray, t.max(0.0), i, j, half)
    }

    /// True when rays on this surface take the strip walk (else the box-tree descent).
    #[cfg(test)]
    pub(crate) fn has_strip_walk(&self) -> bool {
        self.strips.is_some()
    }

    /// The hit at `t` on triangle `half` of cell (i, j), its normal oriented to the frame's up.
    fn enu_hit(&self, ray: &Ray, t: f64, i: usize, j: usize, half: Half) -> Option<Hit> {
        let v = self.cell_triangle(i, j, half)?;
        Some(hit_on(ray, t, i, j, half, &v))
    }

    /// First crossing of the ray from `origin` along `dir`, both in ECEF, for t in [0, `max_t`]
    /// (t in units of |dir|: metres for a unit `dir`).
    pub fn raycast_ecef(&self, origin: DVec3, dir: DVec3, max_t: f64) -> Option<GeoHit> {
        let f = self.frame();
        let ray = Ray::new(f.to_enu(origin), f.dir_to_enu(dir));
        self.geo_hit(&ray, max_t)
    }

    /// First crossing of the ray from geodetic `from` along `dir` given in the east-north-up frame
    /// at `from` (e.g. (0, 0, −1): straight down its ellipsoid normal), for t in [0, `max_t`].
    pub fn raycast_geodetic(&self, from: Geodetic, dir: DVec3, max_t: f64) -> Option<GeoHit> {
        let local = super::EnuFrame::new(from);
        self.raycast_ecef(local.origin_ecef(), local.dir_to_ecef(dir), max_t)
    }

    /// The ENU ray's hit with its geodetic position and ECEF point.
    fn geo_hit(&self, ray: &Ray, max_t: f64) -> Option<GeoHit> {
        let h = self.raycast_enu(ray, max_t)?;
        let f = self.frame();
        let ecef = f.to_ecef(h.point);
        let geodetic = super::wgs84::ecef_to_geodetic(ecef);
        let geodetic = Geodetic { lon: self.wrap_lon(geodetic.lon), ..geodetic };
        let point = GeoPoint { geodetic, enu: h.point, normal: h.normal, triangle: h.triangle };
        Some(GeoHit { t: h.t, point, ecef })
    }

    /// True when the straight segment between geodetic `a` and `b` meets the surface nowhere
    /// strictly between its ends (touches within 1e-9 of the way from either end do not count).
    pub fn visible(&self, a: Geodetic, b: Geodetic) -> bool {
        let f = self.frame();
        let (pa, pb) = (f.geodetic_to_enu(a.lon, a.lat, a.h), f.geodetic_to_enu(b.lon, b.lat, b.h));
        crate::terrain::segment_crossing(self, pa, pb).is_none()
    }

    /// Every crossing of the ENU `ray` for t in [`t0`, `t1`] (either may be infinite), in order of
    /// t; crossings closer than 1e-9 m (a line through a shared edge meets both triangles) are one.
    pub fn crossings_enu(&self, ray: &Ray, t0: f64, t1: f64, visit: impl FnMut(Hit)) {
        self.crossings_by(ray, t0, t1, true, visit);
    }

    /// [`GeoSurface::crossings_enu`] by the box-tree descent alone (the strip walk's reference).
    #[cfg(test)]
    pub(crate) fn crossings_enu_descent(&self, ray: &Ray, t0: f64, t1: f64, visit: impl FnMut(Hit)) {
        self.crossings_by(ray, t0, t1, false, visit);
    }

    /// [`GeoSurface::crossings_enu`] by the strip walk where it serves and `strips` is set, else
    /// by the descent.
    fn crossings_by(&self, ray: &Ray, t0: f64, t1: f64, strips: bool, mut visit: impl FnMut(Hit)) {
        if !(ray.origin.is_finite() && ray.dir.is_finite()) || ray.dir == DVec3::ZERO || t0.is_nan() || t1.is_nan() {
            return;
        }
        let mut sink = All { t1, hits: Vec::new() };
        if !(strips && self.strip_walk(ray, t0, &mut sink)) {
            self.walk(ray, t0, &mut sink);
        }
        sink.hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        let merge = GEO_TOUCH / ray.dir.length();
        let mut last = f64::NEG_INFINITY;
        for (t, i, j, half) in sink.hits {
            if t - last <= merge {
                continue;
            }
            last = t;
            if let Some(h) = self.enu_hit(ray, t, i, j, half) {
                visit(h);
            }
        }
    }

    /// The descent: nodes whose box the ray crosses within [t_lo, sink's limit], nearest first.
    fn walk(&self, ray: &Ray, t_lo: f64, sink: &mut impl Sink) {
        let (o, d) = (ray.origin, ray.dir);
        let sr = SlabRay::new(o, d);
        let sh = Shear::new(o, d);
        let top = self.boxes.levels.len() - 1;
        let mut stack = Stack::new();
        if let Some((t, _)) = sr.hit(self.boxes.root(), t_lo, sink.limit()) {
            stack.push((top as u8, 0, 0, t));
        }
        while let Some((level, bi, bj, tmin)) = stack.pop() {
            if tmin > sink.limit() {
                continue;
            }
            if level == 0 {
                self.leaf(&sh, bi as usize, bj as usize, t_lo, sink);
                continue;
            }
            let l = level as usize - 1;
            let (w, h, off) = self.boxes.levels[l];
            let (ci, cj) = (2 * bi as usize, 2 * bj as usize);
            // Children nearest first: an insertion into at most four.
            let mut kids = [(0.0, 0u32, 0u32); 4];
            let mut n = 0;
            let limit = sink.limit();
            for (ci, cj) in [(ci, cj), (ci + 1, cj), (ci, cj + 1), (ci + 1, cj + 1)] {
                if ci < w && cj < h {
                    if let Some((t, _)) = sr.hit(&self.boxes.boxes[off + cj * w + ci], t_lo, limit) {
                        let mut k = n;
                        while k > 0 && kids[k - 1].0 > t {
                            kids[k] = kids[k - 1];
                            k -= 1;
                        }
                        kids[k] = (t, ci as u32, cj as u32);
                        n += 1;
                    }
                }
            }
            // Farthest pushed first, so the nearest is popped next.
            for &(t, ci, cj) in kids[..n].iter().rev() {
                stack.push((l as u8, ci, cj, t));
            }
        }
    }

    /// The cells of leaf (bi, bj): corners mapped once, cells rejected by their corners, triangles
    /// tested exactly.
    fn leaf(&self, sh: &Shear, bi: usize, bj: usize, t_lo: f64, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let n = self.boxes.leaf;
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        let (i0, j0) = (bi * n, bj * n);
        let (i1, j1) = ((i0 + n).min(ncx), (j0 + n).min(ncy));
        let w = i1 - i0 + 1;
        let mut m: ArrayVec<Mapped, 81> = ArrayVec::new();
        let mut sides: ArrayVec<u8, 81> = ArrayVec::new();
        for j in j0..=j1 {
            for i in i0..=i1 {
                let p = sh.map(self.sample_enu(i, j));
                sides.push(Shear::sides(&p));
                m.push(p);
            }
        }
        for j in j0..j1 {
            for i in i0..i1 {
                let k = (j - j0) * w + (i - i0);
                // Cells on the grid's border have edges no neighbour shares: tested grown by a hair,
                // and never rejected by their corners (the line may pass a hair outside).
                let border = i == 0 || j == 0 || i + 1 == ncx || j + 1 == ncy;
                if sides[k] & sides[k + 1] & sides[k + w] & sides[k + w + 1] != 0 && !border {
                    continue;
                }
                let q: [&Mapped; 4] = [&m[k], &m[k + 1], &m[k + w], &m[k + w + 1]];
                let limit = sink.limit();
                if q.iter().all(|p| p[2] < t_lo) || q.iter().all(|p| p[2] > limit) || hf.is_cell_masked(i, j) {
                    continue;
                }
                let corners = [*q[0], *q[1], *q[2], *q[3]];
                let anti = hf.diagonal().is_anti(i, j);
                let eps = if border { crate::heightfield::BORDER_EPS } else { 0.0 };
                for half in [Half::South, Half::North] {
                    if let Some(t) = triangle_hit(&corners, anti, half, eps) {
                        if t >= t_lo && t <= sink.limit() {
                            sink.take(t, i, j, half);
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit` with every existing triangle (ENU) of the cells whose leaf box overlaps the box
    /// [`lo`, `hi`] and whose own vertices' box does (candidates for a swept volume).
    pub fn triangles_in_enu(&self, lo: DVec3, hi: DVec3, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        let top = self.boxes.levels.len() - 1;
        let mut stack: ArrayVec<(usize, usize, usize), 112> = ArrayVec::new();
        if overlaps(self.boxes.root(), lo, hi) {
            stack.push((top, 0, 0));
        }
        let hf = self.heightfield();
        let n = self.boxes.leaf;
        while let Some((level, bi, bj)) = stack.pop() {
            if level > 0 {
                let (w, h, _) = self.boxes.levels[level - 1];
                for (ci, cj) in [(2 * bi, 2 * bj), (2 * bi + 1, 2 * bj), (2 * bi, 2 * bj + 1), (2 * bi + 1, 2 * bj + 1)]
                {
                    if ci < w && cj < h && overlaps(self.boxes.get(level - 1, ci, cj), lo, hi) {
                        stack.push((level - 1, ci, cj));
                    }
                }
                continue;
            }
            for j in bj * n..((bj + 1) * n).min(hf.ny() - 1) {
                for i in bi * n..((bi + 1) * n).min(hf.nx() - 1) {
                    for half in [Half::South, Half::North] {
                        if let Some(v) = self.cell_triangle(i, j, half) {
                            let (a, b) = (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]));
                            if a.cmple(hi).all() && b.cmpge(lo).all() {
                                visit(TriangleId::Cell { i: i as u32, j: j as u32, half }, v);
                            }
                        }
                    }
                }
            }
        }
    }
}
