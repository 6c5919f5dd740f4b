//! The ground under one object as it is placed: the cells of the objects' ground level around its
//! footprint, refined from the nearest ancestors the world's cache holds rather than from the
//! top level.
//!
//! The cells are the generator's own (each depends only on its ancestors, whoever generates it),
//! and the surface is [`LodTerrain`](crate::world::LodTerrain)'s fans over them, so an object
//! placed on its footing stands exactly where it would on that landscape (tested bit for bit).

use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use crate::world::gen::Cell;
use crate::world::lod::{fan_cell, fan_triangle, reach};
use crate::world::mesh::FAN;
use crate::world::objects::refine::Refiner;
use crate::world::query::{floor_i64, hit_triangle, surface, surface_height, upward};
use crate::world::{CellStore, World};
use glam::{DVec2, DVec3};

/// A fan triangle: its part and vertices ([`fan_triangle`]).
type FanTriangle = (usize, [DVec3; 3]);

/// The landscape of one level over a small square: cells [i0, i0 + n) × [j0, j0 + n), whose
/// inner cells (one cell in from each side, where every corner's four cells are known) are its
/// surface.
pub(crate) struct Footing {
    level: u8,
    s: f64,
    i0: i64,
    j0: i64,
    n: usize,
    cells: Vec<Cell>,
    /// Scratch of the generation.
    spare: Vec<Cell>,
    max_abs_height: f64,
    frame: Frame,
}

impl Footing {
    /// No ground yet ([`Self::reset`] gives it some).
    pub fn new() -> Self {
        let (cells, spare) = (Vec::new(), Vec::new());
        Self { level: 0, s: 1.0, i0: 0, j0: 0, n: 0, cells, spare, max_abs_height: 0.0, frame: Frame::default() }
    }

    /// Keeps no ground (the next [`Self::reset`] makes it afresh).
    pub fn forget(&mut self) {
        self.n = 0;
    }

    /// The landscape of `level` (at most the generator's top) within `radius` of (x, y) in x and
    /// y, from `world`'s cached cells and the quads `refiner` keeps or refines; kept as it is where
    /// it already covers that square (the same world's: [`Self::forget`] it when the world may
    /// have changed).
    pub fn reset<S: CellStore>(
        &mut self,
        refiner: &mut Refiner,
        world: &World<S>,
        level: u8,
        x: f64,
        y: f64,
        radius: f64,
    ) -> &Self {
        let gen = world.generator();
        let level = level.min(gen.top());
        let s = gen.cell_width(level);
        let (i0, j0) = (floor_i64((x - radius) / s) - 1, floor_i64((y - radius) / s) - 1);
        let (i1, j1) = (floor_i64((x + radius) / s) + 1, floor_i64((y + radius) / s) + 1);
        let end = self.i0.saturating_add(self.n as i64);
        if level == self.level
            && self.i0 <= i0
            && self.j0 <= j0
            && i1 < end
            && j1 < self.j0.saturating_add(self.n as i64)
        {
            return self;
        }
        let n = ((i1 - i0).max(j1 - j0) + 1) as usize;
        refiner.patch_into(world, level, [i0, j0], [n, n], &mut self.cells, &mut self.spare);
        (self.level, self.s, self.i0, self.j0, self.n, self.max_abs_height) =
            (level, s, i0, j0, n, gen.max_abs_height());
        self
    }

    /// Inner cells (those with a surface), as an inclusive index range per axis.
    fn inner(&self) -> ([i64; 2], [i64; 2]) {
        let r = reach(self.level);
        let last = self.n as i64 - 2;
        ([(self.i0 + 1).max(-r), (self.j0 + 1).max(-r)], [(self.i0 + last).min(r - 1), (self.j0 + last).min(r - 1)])
    }

    fn has(&self, i: i64, j: i64) -> bool {
        let (lo, hi) = self.inner();
        (lo[0]..=hi[0]).contains(&i) && (lo[1]..=hi[1]).contains(&j)
    }

    /// Corners and midpoint of inner cell (i, j).
    fn cell(&self, i: i64, j: i64) -> ([DVec3; 4], DVec3) {
        let n = self.n as i64;
        let (a, b) = (i - self.i0, j - self.j0);
        fan_cell(i, j, self.s, |di, dj| self.cells[((b + dj) * n + a + di) as usize].h)
    }

    /// The cell and the fan triangle under (x, y) ([`fan_triangle`]), where the footing has a
    /// surface.
    #[inline]
    fn triangle_at(&self, x: f64, y: f64) -> Option<((i64, i64), FanTriangle)> {
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        let (i, j) = (floor_i64(x / self.s), floor_i64(y / self.s));
        if !self.has(i, j) {
            return None;
        }
        let (n, a, b) = (self.n as i64, i - self.i0, j - self.j0);
        let h = |di: i64, dj: i64| self.cells[((b + dj) * n + a + di) as usize].h;
        Some(((i, j), fan_triangle(i, j, self.s, h, DVec2::new(x, y))))
    }

    /// The surface at (x, y), where the footing has one.
    pub fn surface_at(&self, x: f64, y: f64) -> Option<SurfacePoint> {
        let ((i, j), (part, t)) = self.triangle_at(x, y)?;
        let id = TriangleId::Lod { level: self.level, part: part as u16, i: i as i32, j: j as i32 };
        Some(surface(t, DVec2::new(x, y), id))
    }
}

impl Terrain for Footing {
    fn frame(&self) -> &Frame {
        &self.frame
    }

    /// The inner cells' square; z within the generator's height bound.
    fn bounds(&self) -> Aabb {
        let (lo, hi) = self.inner();
        let h = self.max_abs_height;
        Aabb {
            min: DVec3::new(lo[0] as f64 * self.s, lo[1] as f64 * self.s, -h),
            max: DVec3::new((hi[0] + 1) as f64 * self.s, (hi[1] + 1) as f64 * self.s, h),
        }
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        if let Some(s) = self.surface_at(p.x, p.y) {
            visit(s);
        }
    }

    fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        self.surface_at(p.x, p.y)
    }

    /// The height alone (placement's probes): no normal, no identity.
    fn floor_point_below(&self, p: DVec3) -> Option<DVec3> {
        let (_, (_, t)) = self.triangle_at(p.x, p.y)?;
        let z = surface_height(t, DVec2::new(p.x, p.y));
        (z <= p.z).then(|| DVec3::new(p.x, p.y, z))
    }

    /// The nearest hit over every triangle (a footing is a few cells across; placement never
    /// casts rays).
    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let mut best: Option<Hit> = None;
        self.triangles_in(&self.bounds(), &mut |id, tri| {
            let limit = best.map_or(max_t, |h| h.t);
            if let Some(t) = hit_triangle(ray, &tri, limit) {
                let normal = upward((tri[1] - tri[0]).cross(tri[2] - tri[0]));
                best = Some(Hit { t, point: ray.at(t), normal, triangle: id });
            }
        });
        best
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        if region.is_empty() || !region.min.is_finite() || !region.max.is_finite() {
            return;
        }
        let (lo, hi) = self.inner();
        let (i0, i1) = (floor_i64(region.min.x / self.s).max(lo[0]), floor_i64(region.max.x / self.s).min(hi[0]));
        let (j0, j1) = (floor_i64(region.min.y / self.s).max(lo[1]), floor_i64(region.max.y / self.s).min(hi[1]));
        for j in j0..=j1 {
            for i in i0..=i1 {
                let (c, mid) = self.cell(i, j);
                for (part, f) in FAN.iter().enumerate() {
                    let id = TriangleId::Lod { level: self.level, part: part as u16, i: i as i32, j: j as i32 };
                    visit(id, [c[f[0]], c[f[1]], mid]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::world::objects::kinds::{draw_in_cell, shape_on, slope_on};
    use crate::world::objects::test_world as world;
    use crate::world::{LodTerrain, ObjectParams, Objects};

    /// A footing's surface is the landscape's, bit for bit, wherever it has one: inside the cache's
    /// windows, across their edges and far outside them, at any level; and it has one within its
    /// radius, made afresh or kept from a wider one before.
    #[test]
    fn footing_is_the_landscape() {
        let mut rng = SplitMix64::new(3);
        let mut refiner = Refiner::new();
        let mut f = Footing::new();
        for seed in 0..3 {
            let w = world(seed, DVec3::new(rng.range(-5e3, 5e3), rng.range(-5e3, 5e3), rng.range(1.0, 400.0)));
            let v = w.viewer();
            f.forget();
            for level in 0..12u8 {
                let lod = LodTerrain::new(w.generator().clone(), level, 16);
                for k in 0..40 {
                    let s = w.generator().cell_width(level);
                    let spread = s * w.width() as f64 * rng.range(0.0, 1.5);
                    let (mut x, mut y) = (v.x + rng.range(-spread, spread), v.y + rng.range(-spread, spread));
                    let mut radius = rng.range(0.0, 3.0) * s;
                    if k % 2 == 1 {
                        // Within the last one's square, often kept from it.
                        (x, y, radius) = (f.i0 as f64 * s, f.j0 as f64 * s, rng.range(0.0, 1.0) * s);
                        let side = f.n as f64 * s;
                        (x, y) = (x + rng.range(0.0, side), y + rng.range(0.0, side));
                    }
                    f.reset(&mut refiner, &w, level, x, y, radius);
                    for _ in 0..8 {
                        let (px, py) = (x + rng.range(-radius, radius), y + rng.range(-radius, radius));
                        let got = f.surface_at(px, py).expect("inside its radius");
                        let want = lod.surface_at(px, py).unwrap();
                        assert_eq!((got.point, got.normal, got.triangle), (want.point, want.normal, want.triangle));
                        assert_eq!(f.top_surface(DVec3::new(px, py, 0.0)).unwrap().point, want.point);
                        let above = DVec3::new(px, py, want.point.z + 1.0);
                        assert_eq!(f.floor_point_below(above), Some(want.point));
                        assert_eq!(f.floor_point_below(above - DVec3::Z * 2.0), None);
                    }
                    // Its triangles are the landscape's.
                    let region = Aabb { min: DVec3::new(x - radius, y - radius, -1e4), max: DVec3::new(x, y, 1e4) };
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    f.triangles_in(&region, &mut |id, t| a.push((id, t)));
                    lod.triangles_in(&region, &mut |id, t| b.push((id, t)));
                    assert_eq!(a, b);
                    // A ray straight down hits where the surface is.
                    let ray = Ray::new(DVec3::new(x, y, 1e4), -DVec3::Z);
                    let hit = f.raycast(&ray, 1e5).unwrap();
                    assert!((hit.point.z - f.surface_at(x, y).unwrap().point.z).abs() < 1e-6);
                }
            }
        }
    }

    /// The objects are exactly those placed on the landscapes generated from the top level in
    /// tiles (`LodTerrain`): allowed or refused on their own level's, standing on the finest drawn
    /// level's — for a viewer on the ground, and high up where the finest drawn level is coarser.
    #[test]
    fn objects_stand_as_on_the_tiled_landscape() {
        let mut coarser = 0;
        for (seed, above) in [(1, 2.0), (2, 60.0), (5, 400.0)] {
            let (x, y) = (120.0 * seed as f64, -40.0);
            let ground = world(seed, DVec3::new(x, y, 1e4)).far().height_at(x, y).unwrap();
            let w = world(seed, DVec3::new(x, y, ground + above));
            let o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
            assert!(o.len() > 20, "{} objects", o.len());
            let drawn = *w.drawn_layers().start();
            coarser += usize::from(drawn > w.cache_params().mesh_finest);
            let tiled = |level: u8| LodTerrain::new(w.generator().clone(), level, 64);
            let lod = tiled(drawn);
            let top = w.generator().max_abs_height();
            let mut cells = std::collections::BTreeMap::new();
            for (_, ob) in o.iter() {
                cells.entry((ob.kind, ob.level, ob.cell)).or_insert_with(Vec::new).push(ob.shape);
            }
            for ((kind, level, (i, j)), got) in cells {
                let spec = &o.kinds()[kind as usize];
                let (s, own) = (w.generator().cell_width(level), tiled(level));
                let cell = w.cell(level, i, j).unwrap();
                let mut want = Vec::new();
                draw_in_cell(spec, kind as usize, seed, level, (i, j), s, cell, top, |d| {
                    want.extend(slope_on(spec, &d, &own, top).and_then(|slope| shape_on(spec, &d, slope, &lod)));
                });
                assert_eq!(got, want, "kind {kind} cell {i},{j} of level {level}");
            }
        }
        assert!(coarser > 0, "no viewer high enough");
    }
}
