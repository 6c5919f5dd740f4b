//! Queries on the drawn mesh: the world is a [`Terrain`], so what stands on the ground stands on the
//! ground that is drawn.
//!
//! A point is located by descending the layers from the coarsest drawn one: inside a layer's
//! center it goes to the finer layer, or to the seam if it is in the finer layer's outermost ring
//! of cells; otherwise it is in one of the layer's fan cells. Heights come from the same drawn
//! heights as the vertex buffers. Rays walk that cell structure front to back — the cells of
//! whichever layer covers the ray at each step, the finer layer's ring cells in the seam — skip a
//! cell when the ray's height range misses the cell's, and test its triangles, stopping at the first
//! hit. The triangle test accepts points a hair (10⁻⁹ in barycentric terms) outside a triangle:
//! a ray through a shared vertex visits only some of the cells around it, and this way whichever it
//! visits claims the hit, so no ray slips through an edge or vertex.

use super::mesh::{fan_part, plane_height, CORNERS, FAN};
use super::store::CellStore;
use super::World;
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use glam::{DVec2, DVec3};

/// Where a point of the mesh lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spot {
    /// Fan cell (i, j) (absolute) of layer k.
    Fan { k: usize, i: i64, j: i64 },
    /// Ring cell (a, b) (finer layer's window cells) of layer k's seam, `ring` its index.
    Seam { k: usize, ring: usize, a: i64, b: i64 },
}

/// `floor(v)` as an integer without a library call (exact; NaN gives 0, huge values saturate).
#[inline]
pub(crate) fn floor_i64(v: f64) -> i64 {
    let i = v as i64;
    i.saturating_sub(i64::from((i as f64) > v))
}

/// Floor that puts a point exactly on a line into the cell ahead along `d`.
#[inline]
pub(crate) fn dfloor(v: f64, d: f64) -> i64 {
    if d < 0.0 {
        // ceil(v) − 1
        let i = v as i64;
        i.saturating_add(i64::from((i as f64) < v)).saturating_sub(1)
    } else {
        floor_i64(v)
    }
}

impl<S: CellStore> World<S> {
    /// Cell coordinates of (x, y) in layer `k`, relative to its window origin.
    #[inline]
    fn local(&self, k: usize, p: DVec2) -> DVec2 {
        (p - self.layers[k].mesh.origin) / self.gen.cell_width(k as u8)
    }

    /// The mesh cell holding `p` (ties broken toward `dir`); `None` outside the drawn mesh.
    pub(crate) fn locate(&self, p: DVec2, dir: DVec2) -> Option<Spot> {
        self.locate_near(p, dir, usize::MAX)
    }

    /// [`World::locate`] starting at layer `hint` (clamped to the drawn layers) — the layer of a
    /// neighbouring point, which is usually right: a layer's drawable square is its parent's center
    /// less the seam, so climbing until the point is inside a drawable square, then descending as
    /// usual, finds the same cell as descending from the top.
    pub(crate) fn locate_near(&self, p: DVec2, dir: DVec2, hint: usize) -> Option<Spot> {
        let drawn = self.drawn_layers();
        let (first, last) = (*drawn.start() as usize, *drawn.end() as usize);
        let w = self.width;
        let mut k = hint.clamp(first, last);
        let (mut a, mut b) = loop {
            let f = self.local(k, p);
            let (a, b) = (dfloor(f.x, dir.x), dfloor(f.y, dir.y));
            if (1..w - 1).contains(&a) && (1..w - 1).contains(&b) {
                break (a, b);
            }
            if k == last {
                return None;
            }
            k += 1;
        };
        loop {
            if k > first {
                let c = self.layers[k].mesh.center?;
                let half = w / 2;
                if (c[0]..c[0] + half).contains(&a) && (c[1]..c[1] + half).contains(&b) {
                    let f = self.local(k - 1, p);
                    let ca = dfloor(f.x, dir.x).clamp(0, w - 1);
                    let cb = dfloor(f.y, dir.y).clamp(0, w - 1);
                    if (1..w - 1).contains(&ca) && (1..w - 1).contains(&cb) {
                        k -= 1;
                        (a, b) = (ca, cb);
                        continue;
                    }
                    let ring = self.scratch.seam.ring_index(ca, cb)?;
                    return Some(Spot::Seam { k, ring, a: ca, b: cb });
                }
            }
            let o = self.window_origin(k as u8);
            return Some(Spot::Fan { k, i: o[0] + a, j: o[1] + b });
        }
    }

    /// World corners (counter-clockwise from the south-west) and midpoint of fan cell (i, j) of
    /// layer `k`, at their drawn heights.
    #[inline]
    fn fan_cell(&self, k: usize, i: i64, j: i64) -> ([DVec3; 4], DVec3) {
        let m = &self.layers[k].mesh;
        let o = self.window_origin(k as u8);
        let (a, b) = (i - o[0], j - o[1]);
        let corners = CORNERS.map(|c| {
            let z = m.corner_z(i + c[0], j + c[1]);
            self.vertex_world(k, [2 * (a + c[0]), 2 * (b + c[1])], z)
        });
        (corners, self.vertex_world(k, [2 * a + 1, 2 * b + 1], m.mid_z(i, j)))
    }

    /// World vertices of triangle `n` of layer `k`'s seam, at their drawn heights.
    #[inline]
    fn seam_triangle(&self, k: usize, n: usize) -> [DVec3; 3] {
        let topo = &self.scratch.seam;
        let c = self.layers[k].mesh.center.unwrap_or([0, 0]);
        let (o, oc) = (self.window_origin(k as u8), self.window_origin(k as u8 - 1));
        topo.triangles[n].map(|v| {
            let p = topo.points[v as usize];
            if (v as usize) < topo.outer {
                let h = [2 * c[0] + p[0], 2 * c[1] + p[1]];
                let z = self.layers[k].mesh.corner_z(o[0] + h[0] / 2, o[1] + h[1] / 2);
                self.vertex_world(k, h, z)
            } else {
                let z = self.layers[k - 1].mesh.corner_z(oc[0] + p[0], oc[1] + p[1]);
                self.vertex_world(k - 1, [2 * p[0], 2 * p[1]], z)
            }
        })
    }

    fn fan_id(k: usize, i: i64, j: i64, part: usize) -> TriangleId {
        TriangleId::Lod { level: k as u8, part: part as u16, i: i as i32, j: j as i32 }
    }

    fn seam_id(&self, k: usize, n: usize) -> TriangleId {
        let o = self.window_origin(k as u8);
        TriangleId::Lod { level: k as u8, part: 4 + n as u16, i: o[0] as i32, j: o[1] as i32 }
    }

    /// The drawn surface at (x, y), if inside the drawn mesh.
    pub fn surface_at(&self, x: f64, y: f64) -> Option<SurfacePoint> {
        let p = DVec2::new(x, y);
        match self.locate(p, DVec2::ZERO)? {
            Spot::Fan { k, i, j } => {
                let f = self.local(k, p);
                let o = self.window_origin(k as u8);
                let part = fan_part(f.x - (i - o[0]) as f64, f.y - (j - o[1]) as f64);
                let (c, mid) = self.fan_cell(k, i, j);
                Some(surface([c[FAN[part][0]], c[FAN[part][1]], mid], p, Self::fan_id(k, i, j, part)))
            }
            Spot::Seam { k, ring, .. } => {
                // The candidate containing p (the least outside one, against rounding).
                let mut best: Option<(f64, usize, [DVec3; 3])> = None;
                for &n in &self.scratch.seam.by_cell[ring] {
                    let t = self.seam_triangle(k, n as usize);
                    let inside = min_barycentric(t, p);
                    if best.is_none_or(|b| inside > b.0) {
                        best = Some((inside, n as usize, t));
                    }
                }
                let (_, n, t) = best?;
                Some(surface(t, p, self.seam_id(k, n)))
            }
        }
    }

    /// Height of the drawn surface at (x, y), if inside the drawn mesh.
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        self.surface_at(x, y).map(|s| s.point.z)
    }

    /// World bounds of the drawn mesh.
    pub fn mesh_bounds(&self) -> Aabb {
        let drawn = self.drawn_layers();
        let last = *drawn.end() as usize;
        let s = self.gen.cell_width(last as u8);
        let o = self.layers[last].mesh.origin;
        let w = self.width as f64;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for m in self.meshes() {
            lo = lo.min(m.z_range[0]);
            hi = hi.max(m.z_range[1]);
        }
        Aabb {
            min: DVec3::new(o.x + s, o.y + s, lo as f64),
            max: DVec3::new(o.x + (w - 1.0) * s, o.y + (w - 1.0) * s, hi as f64),
        }
    }

    /// The square of a spot's cell and the (world) z range of its triangles.
    fn spot_square(&self, spot: Spot) -> (DVec2, DVec2, usize) {
        match spot {
            Spot::Fan { k, i, j } => {
                let s = self.gen.cell_width(k as u8);
                let o = self.window_origin(k as u8);
                let lo = self.layers[k].mesh.origin + DVec2::new((i - o[0]) as f64, (j - o[1]) as f64) * s;
                (lo, lo + DVec2::splat(s), k)
            }
            Spot::Seam { k, a, b, .. } => {
                let s = self.gen.cell_width(k as u8 - 1);
                let lo = self.layers[k - 1].mesh.origin + DVec2::new(a as f64, b as f64) * s;
                (lo, lo + DVec2::splat(s), k - 1)
            }
        }
    }

    /// First crossing of `ray` with the drawn mesh for t in [0, `max_t`] (two-sided, watertight);
    /// `None` for a miss or an invalid ray.
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        // The mesh's box, a hair larger so that rounding in the clip cannot cut off a hit on its
        // faces (a ray grazing the highest vertex).
        let b = self.mesh_bounds();
        let pad = DVec3::splat(1e-9) * (DVec3::ONE + b.min.abs().max(b.max.abs()));
        let bounds = Aabb { min: b.min - pad, max: b.max + pad };
        let (t0, t1) = bounds.clip_ray(ray.origin, ray.dir, 0.0, max_t)?;
        let dir = ray.dir.truncate();
        let mut t = t0;
        // Start inside the drawn square (the padding may put the entry a hair outside it).
        let mut p = ray.at(t).truncate().clamp(b.min.truncate(), b.max.truncate());
        let mut prev: Option<Spot> = None;
        let limit = 64 * self.width as usize * self.layers.len();
        let mut hint = usize::MAX;
        for _ in 0..limit {
            let spot = self.locate_near(p, dir, hint)?;
            hint = match spot {
                Spot::Fan { k, .. } | Spot::Seam { k, .. } => k,
            };
            if prev == Some(spot) {
                // Rounding left the point on the same cell's edge: step a hair further.
                t += 1e-9 * (1.0 + t.abs());
                p = ray.at(t).truncate();
                prev = None;
                continue;
            }
            prev = Some(spot);
            let (lo, hi, _) = self.spot_square(spot);
            // Leave the square through the nearest side ahead.
            let (mut t_exit, mut axis, mut side) = (f64::INFINITY, 0, 0.0);
            for a in 0..2 {
                let (o, d) = (ray.origin[a], ray.dir[a]);
                if d != 0.0 {
                    let edge = if d > 0.0 { hi[a] } else { lo[a] };
                    let te = (edge - o) / d;
                    if te < t_exit {
                        (t_exit, axis, side) = (te, a, edge);
                    }
                }
            }
            let t_cell = t_exit.min(t1);
            if let Some(hit) = self.hit_spot(spot, ray, t, t_cell) {
                return Some(hit);
            }
            if t_exit >= t1 {
                return None;
            }
            t = t_exit.max(t);
            p = ray.at(t).truncate();
            p[axis] = side;
        }
        None
    }

    /// The first hit in a spot's triangles, if its t is at most `t_cell` (plus rounding), or `None`
    /// when the ray's height over [t, t_cell] misses the triangles' heights.
    fn hit_spot(&self, spot: Spot, ray: &Ray, t: f64, t_cell: f64) -> Option<Hit> {
        let (za, zb) = (ray.origin.z + ray.dir.z * t, ray.origin.z + ray.dir.z * t_cell);
        let (rz0, rz1) = (za.min(zb), za.max(zb));
        let margin = 1e-9 * (1.0 + rz0.abs().max(rz1.abs()));
        let slack = 1e-9 * (1.0 + t_cell.abs());
        let mut best: Option<(f64, [DVec3; 3], TriangleId)> = None;
        let mut test = |tri: [DVec3; 3], id: TriangleId| {
            let limit = best.map_or(t_cell + slack, |b| b.0);
            if let Some(th) = hit_triangle(ray, &tri, limit) {
                if best.is_none_or(|b| th < b.0) {
                    best = Some((th, tri, id));
                }
            }
        };
        match spot {
            Spot::Fan { k, i, j } => {
                let (c, mid) = self.fan_cell(k, i, j);
                let lo = c.iter().fold(mid.z, |m, v| m.min(v.z));
                let hi = c.iter().fold(mid.z, |m, v| m.max(v.z));
                if rz1 < lo - margin || rz0 > hi + margin {
                    return None;
                }
                for (part, f) in FAN.iter().enumerate() {
                    test([c[f[0]], c[f[1]], mid], Self::fan_id(k, i, j, part));
                }
            }
            Spot::Seam { k, ring, .. } => {
                for &n in &self.scratch.seam.by_cell[ring] {
                    let tri = self.seam_triangle(k, n as usize);
                    let lo = tri.iter().fold(f64::INFINITY, |m, v| m.min(v.z));
                    let hi = tri.iter().fold(f64::NEG_INFINITY, |m, v| m.max(v.z));
                    if rz1 < lo - margin || rz0 > hi + margin {
                        continue;
                    }
                    test(tri, self.seam_id(k, n as usize));
                }
            }
        }
        let (th, tri, id) = best?;
        let n = upward((tri[1] - tri[0]).cross(tri[2] - tri[0]));
        Some(Hit { t: th, point: ray.at(th), normal: n, triangle: id })
    }

    /// Calls `visit` with every drawn triangle whose box meets `region` (the [`Terrain`] impl adds
    /// the far landscape's beyond the mesh).
    pub fn drawn_triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        if region.is_empty() {
            return;
        }
        let drawn = self.drawn_layers();
        let (first, last) = (*drawn.start() as usize, *drawn.end() as usize);
        let w = self.width;
        let overlaps = |v: &[DVec3]| {
            let lo = v.iter().fold(DVec3::INFINITY, |m, p| m.min(*p));
            let hi = v.iter().fold(DVec3::NEG_INFINITY, |m, p| m.max(*p));
            lo.cmple(region.max).all() && hi.cmpge(region.min).all()
        };
        for k in first..=last {
            let (f0, f1) = (self.local(k, region.min.truncate()), self.local(k, region.max.truncate()));
            let (a0, a1) = (floor_i64(f0.x).max(1), floor_i64(f1.x).min(w - 2));
            let (b0, b1) = (floor_i64(f0.y).max(1), floor_i64(f1.y).min(w - 2));
            let o = self.window_origin(k as u8);
            let center = if k > first { self.layers[k].mesh.center } else { None };
            for b in b0..=b1 {
                for a in a0..=a1 {
                    if center.is_some_and(|c| (c[0]..c[0] + w / 2).contains(&a) && (c[1]..c[1] + w / 2).contains(&b)) {
                        continue;
                    }
                    let (i, j) = (o[0] + a, o[1] + b);
                    let (c, mid) = self.fan_cell(k, i, j);
                    let mut all = [mid; 5];
                    all[..4].copy_from_slice(&c);
                    if !overlaps(&all) {
                        continue;
                    }
                    for (part, f) in FAN.iter().enumerate() {
                        visit(Self::fan_id(k, i, j, part), [c[f[0]], c[f[1]], mid]);
                    }
                }
            }
            if k > first {
                // Seam triangles of the finer layer's ring cells under the region, each once.
                let (g0, g1) = (self.local(k - 1, region.min.truncate()), self.local(k - 1, region.max.truncate()));
                let (a0, a1) = (floor_i64(g0.x).max(0), floor_i64(g1.x).min(w - 1));
                let (b0, b1) = (floor_i64(g0.y).max(0), floor_i64(g1.y).min(w - 1));
                let mut seen = [0u64; 32];
                let topo = &self.scratch.seam;
                for b in b0..=b1 {
                    for a in a0..=a1 {
                        let Some(ring) = topo.ring_index(a, b) else { continue };
                        for &n in &topo.by_cell[ring] {
                            let (word, bit) = (n as usize / 64, n as usize % 64);
                            if word < seen.len() {
                                if seen[word] & (1 << bit) != 0 {
                                    continue;
                                }
                                seen[word] |= 1 << bit;
                            }
                            let tri = self.seam_triangle(k, n as usize);
                            if overlaps(&tri) {
                                visit(self.seam_id(k, n as usize), tri);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// t in [0, `t_max`] where `ray` crosses triangle `v`, accepting points up to 10⁻⁹ (barycentric)
/// outside it so that neighbouring triangles overlap by a hair and no ray slips between them.
#[inline]
pub(crate) fn hit_triangle(ray: &Ray, v: &[DVec3; 3], t_max: f64) -> Option<f64> {
    crate::geom::moller_trumbore_grown(ray.origin, ray.dir, v, 1e-9).filter(|&t| t >= 0.0 && t <= t_max)
}

/// The normal made to point up (against −Z gravity), unit length.
#[inline]
pub(crate) fn upward(n: DVec3) -> DVec3 {
    let n = n.normalize_or_zero();
    if n.z < 0.0 {
        -n
    } else {
        n
    }
}

/// The point of triangle `t` above `p`, its upward normal and identity.
pub(crate) fn surface(t: [DVec3; 3], p: DVec2, id: TriangleId) -> SurfacePoint {
    let z = surface_height(t, p);
    SurfacePoint { point: DVec3::new(p.x, p.y, z), normal: upward((t[1] - t[0]).cross(t[2] - t[0])), triangle: id }
}

/// The height of triangle `t`'s plane above `p` ([`surface`]'s point).
#[inline]
pub(crate) fn surface_height(t: [DVec3; 3], p: DVec2) -> f64 {
    plane_height([t[0].truncate(), t[1].truncate(), t[2].truncate()], [t[0].z, t[1].z, t[2].z], p)
}

/// The smallest barycentric coordinate of `p` in the projected triangle (≥ 0 inside).
fn min_barycentric(t: [DVec3; 3], p: DVec2) -> f64 {
    let (a, b, c) = (t[0].truncate(), t[1].truncate(), t[2].truncate());
    let det = (b - a).perp_dot(c - a);
    if det == 0.0 {
        return f64::NEG_INFINITY;
    }
    let l1 = (p - a).perp_dot(c - a) / det;
    let l2 = (b - a).perp_dot(p - a) / det;
    l1.min(l2).min(1.0 - l1 - l2)
}

impl<S: CellStore> World<S> {
    /// x-y corners of the drawn mesh.
    fn mesh_rect(&self) -> (DVec2, DVec2) {
        let b = self.mesh_bounds();
        (b.min.truncate(), b.max.truncate())
    }
}

/// On the drawn mesh where there is one; beyond it, on [`World::far`] (the landscape at
/// `CacheParams::far_level`, generated on demand; rays look for it up to
/// `CacheParams::far_distance` from their origin). `bounds` is the drawn mesh's.
impl<S: CellStore> Terrain for World<S> {
    fn frame(&self) -> &Frame {
        World::frame(self)
    }

    fn bounds(&self) -> Aabb {
        self.mesh_bounds()
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        if let Some(s) = self.surface_at(p.x, p.y).or_else(|| self.far.surface_at(p.x, p.y)) {
            visit(s);
        }
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        if let Some(h) = World::raycast(self, ray, max_t) {
            return Some(h);
        }
        ray.validate(max_t).ok()?;
        // Beyond the mesh: continue on the far landscape from where the ray leaves the mesh's
        // square (or from the start, if it starts outside and never enters).
        let (lo, hi) = self.mesh_rect();
        let square = Aabb { min: lo.extend(f64::NEG_INFINITY), max: hi.extend(f64::INFINITY) };
        let t0 = match square.clip_ray(ray.origin, ray.dir, 0.0, max_t) {
            Some((a, b)) if a <= 0.0 => b,
            Some((a, _)) => {
                // Starts outside and enters: the far landscape before the entry first.
                if let Some(h) = self.far.raycast(ray, a) {
                    return Some(h);
                }
                square.clip_ray(ray.origin, ray.dir, 0.0, max_t).map_or(0.0, |c| c.1)
            }
            None => 0.0,
        };
        let horizontal = ray.dir.truncate().length();
        let limit = if horizontal > 0.0 { max_t.min(self.params.far_distance / horizontal) } else { max_t };
        if t0 >= limit {
            return None;
        }
        let from = Ray { origin: ray.at(t0), dir: ray.dir };
        self.far.raycast(&from, limit - t0).map(|h| Hit { t: h.t + t0, ..h })
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.drawn_triangles_in(region, visit);
        let (lo, hi) = self.mesh_rect();
        let inside = region.min.x >= lo.x && region.max.x <= hi.x && region.min.y >= lo.y && region.max.y <= hi.y;
        if !inside {
            self.far.triangles_outside(region, lo, hi, visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::world::{CacheParams, WorldParams};

    /// Starting the descent at any layer finds the same cell as starting at the top.
    #[test]
    fn locate_near_any_hint_is_locate() {
        let cache = CacheParams {
            layers: 7,
            inner_radius: 4,
            mesh_finest: 1,
            mesh_coarsest: 5,
            lod_height: 4.0,
            ..CacheParams::default()
        };
        let params = WorldParams { levels: 9, relief: 60.0, ..WorldParams::default() };
        let mut w: World = World::new(params, cache, DVec3::new(3.3, -7.1, 2.0)).unwrap();
        let mut rng = SplitMix64::new(1);
        for round in 0..5 {
            w.update(DVec3::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0), 2.0 + 10.0 * round as f64)).unwrap();
            let b = w.mesh_bounds();
            for n in 0..2000 {
                // Random points, and points exactly on cell lines of some layer.
                let mut p =
                    DVec2::new(rng.range(b.min.x - 5.0, b.max.x + 5.0), rng.range(b.min.y - 5.0, b.max.y + 5.0));
                if n % 2 == 0 {
                    let s = w.generator().cell_width((n % 6) as u8);
                    p = (p / s).round() * s;
                }
                let dir = DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                let want = w.locate(p, dir);
                for hint in 0..8 {
                    assert_eq!(w.locate_near(p, dir, hint), want, "{p:?} {dir:?} hint {hint}");
                }
            }
        }
    }
}
