//! The landscape away from the viewer's cache: any level of detail, generated on demand in tiles,
//! with a bounded cache of the tiles generated.

use super::gen::{corner_height, Cell, Generator};
use super::mesh::{fan_part, CORNERS, FAN};
use super::query::{dfloor, floor_i64, hit_triangle, surface, upward};
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use glam::{DVec2, DVec3};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Cells per tile side.
const TILE: i64 = 64;

/// A tile: cells (ti·TILE − 1 ..) × (tj·TILE − 1 ..), (TILE + 2)² with a one-cell margin for corners.
struct Tile {
    cells: Vec<Cell>,
    /// Lowest and highest midpoint height (corners are means of midpoints, so within it too).
    z: [f64; 2],
}

impl Tile {
    #[inline]
    fn at(&self, a: i64, b: i64) -> f32 {
        self.cells[((b + 1) * (TILE + 2) + a + 1) as usize].h
    }
}

#[derive(Default)]
struct Tiles {
    map: HashMap<(i64, i64), Arc<Tile>>,
    order: VecDeque<(i64, i64)>,
    generated: u64,
}

/// The landscape of a [`Generator`] at one level of detail, everywhere: the same fan triangles as
/// the cache's mesh (midpoints and corner means), without morphing. Tiles of 64 × 64 cells are
/// generated on first use and the oldest are dropped beyond `capacity` tiles.
///
/// Rays skip whole tiles whose height range they pass above or below, and search at most 2^20 cells
/// (the landscape is endless; a ray that stays between the lowest and highest possible ground
/// forever must stop somewhere).
pub struct LodTerrain {
    gen: Generator,
    level: u8,
    capacity: usize,
    max_cells: usize,
    tiles: Mutex<Tiles>,
    frame: Frame,
}

impl LodTerrain {
    /// The landscape of `gen` at `level` (clamped to its top level), keeping at most `capacity`
    /// tiles (at least 1).
    pub fn new(gen: Generator, level: u8, capacity: usize) -> Self {
        let level = level.min(gen.top());
        Self {
            gen,
            level,
            capacity: capacity.max(1),
            max_cells: 1 << 20,
            tiles: Mutex::new(Tiles::default()),
            frame: Frame::default(),
        }
    }

    /// The level of detail.
    pub fn level(&self) -> u8 {
        self.level
    }

    /// Tiles generated so far (including ones generated again after being dropped).
    pub fn tiles_generated(&self) -> u64 {
        self.tiles.lock().map(|t| t.generated).unwrap_or(0)
    }

    /// Bytes held by the tiles.
    pub fn memory_bytes(&self) -> usize {
        self.tiles_held() * ((TILE + 2) * (TILE + 2)) as usize * std::mem::size_of::<Cell>()
    }

    /// Cells of this level from the origin to the edge of the addressable world (the [`World`]'s
    /// ±2³⁰ finest cells): there is no ground beyond, and no cell index there is ever generated.
    ///
    /// [`World`]: super::World
    fn reach(&self) -> i64 {
        reach(self.level)
    }

    /// Whether cell (i, j) lies inside the addressable world.
    fn addressable(&self, i: i64, j: i64) -> bool {
        let r = self.reach();
        (-r..r).contains(&i) && (-r..r).contains(&j)
    }

    /// Whether cell (i, j) lies entirely outside the x-y rectangle [lo, hi] (an empty rectangle:
    /// every cell does).
    fn outside(&self, i: i64, j: i64, lo: DVec2, hi: DVec2) -> bool {
        let s = self.gen.cell_width(self.level);
        let (x0, y0) = (i as f64 * s, j as f64 * s);
        x0 + s <= lo.x || x0 >= hi.x || y0 + s <= lo.y || y0 >= hi.y
    }

    /// Like [`Terrain::triangles_in`], leaving out cells that touch the x-y rectangle [lo, hi]
    /// (where another surface is drawn).
    pub(crate) fn triangles_outside(
        &self,
        region: &Aabb,
        lo: DVec2,
        hi: DVec2,
        visit: &mut dyn FnMut(TriangleId, [DVec3; 3]),
    ) {
        if region.is_empty() || !region.min.is_finite() || !region.max.is_finite() {
            return;
        }
        let s = self.gen.cell_width(self.level);
        // The region's cells within the addressable world (none where it lies beyond).
        let r = self.reach();
        let (i0, i1) = (floor_i64(region.min.x / s).max(-r), floor_i64(region.max.x / s).min(r - 1));
        let (j0, j1) = (floor_i64(region.min.y / s).max(-r), floor_i64(region.max.y / s).min(r - 1));
        let mut tile = None;
        for j in j0..=j1 {
            for i in i0..=i1 {
                if !self.outside(i, j, lo, hi) {
                    continue;
                }
                let (c, mid) = self.cell(&mut tile, i, j);
                for (part, f) in FAN.iter().enumerate() {
                    visit(self.id(i, j, part), [c[f[0]], c[f[1]], mid]);
                }
            }
        }
    }

    /// Tiles held now.
    pub fn tiles_held(&self) -> usize {
        self.tiles.lock().map(|t| t.map.len()).unwrap_or(0)
    }

    fn tile(&self, ti: i64, tj: i64) -> Arc<Tile> {
        let mut tiles = match self.tiles.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(t) = tiles.map.get(&(ti, tj)) {
            return t.clone();
        }
        let cells = self.gen.patch(self.level, ti * TILE - 1, tj * TILE - 1, (TILE + 2) as usize, (TILE + 2) as usize);
        let z =
            cells.iter().fold([f64::INFINITY, f64::NEG_INFINITY], |a, c| [a[0].min(c.h as f64), a[1].max(c.h as f64)]);
        let t = Arc::new(Tile { cells, z });
        tiles.generated += 1;
        while tiles.map.len() >= self.capacity {
            let Some(old) = tiles.order.pop_front() else { break };
            tiles.map.remove(&old);
        }
        tiles.map.insert((ti, tj), t.clone());
        tiles.order.push_back((ti, tj));
        t
    }

    /// The tile holding cell (i, j) and its key, kept in `tile` while consecutive cells share it.
    fn tile_of<'t>(&self, tile: &'t mut Option<((i64, i64), Arc<Tile>)>, i: i64, j: i64) -> ((i64, i64), &'t Tile) {
        let key = (i.div_euclid(TILE), j.div_euclid(TILE));
        if tile.as_ref().is_none_or(|t| t.0 != key) {
            *tile = Some((key, self.tile(key.0, key.1)));
        }
        (key, &tile.as_ref().expect("just set").1)
    }

    /// World corners (counter-clockwise from the south-west) and midpoint of cell (i, j).
    fn cell(&self, tile: &mut Option<((i64, i64), Arc<Tile>)>, i: i64, j: i64) -> ([DVec3; 4], DVec3) {
        let (key, t) = self.tile_of(tile, i, j);
        let (a, b) = (i - key.0 * TILE, j - key.1 * TILE);
        fan_cell(i, j, self.gen.cell_width(self.level), |di, dj| t.at(a + di, b + dj))
    }

    fn id(&self, i: i64, j: i64, part: usize) -> TriangleId {
        TriangleId::Lod { level: self.level, part: part as u16, i: i as i32, j: j as i32 }
    }

    /// The surface at (x, y).
    pub fn surface_at(&self, x: f64, y: f64) -> Option<SurfacePoint> {
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        let s = self.gen.cell_width(self.level);
        let (i, j) = (floor_i64(x / s), floor_i64(y / s));
        if !self.addressable(i, j) {
            return None;
        }
        Some(fan_surface(self.level, s, (i, j), self.cell(&mut None, i, j), DVec2::new(x, y)))
    }

    /// Height at (x, y).
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        self.surface_at(x, y).map(|s| s.point.z)
    }
}

/// Cells of `level` from the origin to the edge of the addressable world (see
/// `LodTerrain::reach`).
pub(crate) fn reach(level: u8) -> i64 {
    ((super::MAX_CELLS_FROM_ORIGIN as i64) >> level).max(1)
}

/// World corners (counter-clockwise from the south-west) and midpoint of cell (i, j) of cells `s`
/// wide, from `h(di, dj)`, the midpoint height of cell (i + di, j + dj) (di, dj ∈ −1..=1).
pub(crate) fn fan_cell(i: i64, j: i64, s: f64, h: impl Fn(i64, i64) -> f32) -> ([DVec3; 4], DVec3) {
    let corners = CORNERS.map(|c| {
        let z = corner_height(h(c[0] - 1, c[1] - 1), h(c[0], c[1] - 1), h(c[0] - 1, c[1]), h(c[0], c[1]));
        DVec3::new((i + c[0]) as f64 * s, (j + c[1]) as f64 * s, z as f64)
    });
    let mid = DVec3::new((i as f64 + 0.5) * s, (j as f64 + 0.5) * s, h(0, 0) as f64);
    (corners, mid)
}

/// The fan triangle of cell (i, j) (cells `s` wide) under `p`: its part and vertices (its two
/// corners and the midpoint), the same bits as [`fan_cell`]'s, from `h` as there.
#[inline(always)]
pub(crate) fn fan_triangle(i: i64, j: i64, s: f64, h: impl Fn(i64, i64) -> f32, p: DVec2) -> (usize, [DVec3; 3]) {
    let part = fan_part(p.x / s - i as f64, p.y / s - j as f64);
    let f = FAN[part];
    let mid = DVec3::new((i as f64 + 0.5) * s, (j as f64 + 0.5) * s, h(0, 0) as f64);
    (part, [fan_corner(i, j, s, &h, CORNERS[f[0]]), fan_corner(i, j, s, &h, CORNERS[f[1]]), mid])
}

/// Corner `[ci, cj]` of cell (i, j) ([`fan_cell`]'s), inlined into [`fan_triangle`].
#[inline(always)]
fn fan_corner(i: i64, j: i64, s: f64, h: &impl Fn(i64, i64) -> f32, [ci, cj]: [i64; 2]) -> DVec3 {
    let z = corner_height(h(ci - 1, cj - 1), h(ci, cj - 1), h(ci - 1, cj), h(ci, cj));
    DVec3::new((i + ci) as f64 * s, (j + cj) as f64 * s, z as f64)
}

/// The surface at `p` on the fan of cell (i, j) of `level` (cells `s` wide) with corners and
/// midpoint `(c, mid)` ([`fan_cell`]).
pub(crate) fn fan_surface(
    level: u8,
    s: f64,
    (i, j): (i64, i64),
    (c, mid): ([DVec3; 4], DVec3),
    p: DVec2,
) -> SurfacePoint {
    let part = fan_part(p.x / s - i as f64, p.y / s - j as f64);
    let f = FAN[part];
    let id = TriangleId::Lod { level, part: part as u16, i: i as i32, j: j as i32 };
    surface([c[f[0]], c[f[1]], mid], p, id)
}

impl Terrain for LodTerrain {
    fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Unbounded in x and y (queries answer inside the addressable world, ±2³⁰ finest cells from the
    /// origin, and find no ground beyond it); z within the generator's height bound.
    fn bounds(&self) -> Aabb {
        let h = self.gen.max_abs_height();
        Aabb {
            min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, -h),
            max: DVec3::new(f64::INFINITY, f64::INFINITY, h),
        }
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        if let Some(s) = self.surface_at(p.x, p.y) {
            visit(s);
        }
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let h = self.gen.max_abs_height();
        let (o, d) = (ray.origin, ray.dir);
        // Clip to the slab of possible ground heights.
        let (t0, t1) = if d.z == 0.0 {
            if o.z.abs() > h {
                return None;
            }
            (0.0, max_t)
        } else {
            let (ta, tb) = ((-h - o.z) / d.z, (h - o.z) / d.z);
            (ta.min(tb).max(0.0), ta.max(tb).min(max_t))
        };
        if t0 > t1 {
            return None;
        }
        let s = self.gen.cell_width(self.level);
        let start = ray.at(t0) / s;
        let (mut i, mut j) = (floor_i64(start.x), floor_i64(start.y));
        let step = [if d.x > 0.0 { 1 } else { -1 }, if d.y > 0.0 { 1 } else { -1 }];
        let next = |c: i64, a: usize| -> f64 {
            if ray.dir[a] == 0.0 {
                return f64::INFINITY;
            }
            let edge = if ray.dir[a] > 0.0 { (c + 1) as f64 } else { c as f64 } * s;
            (edge - o[a]) / ray.dir[a]
        };
        let mut tile = None;
        let mut t = t0;
        for _ in 0..self.max_cells {
            if !self.addressable(i, j) {
                // The ray has left the addressable world (or starts outside it): no ground there.
                return None;
            }
            let (tx, ty) = (next(i, 0), next(j, 1));
            let t_exit = tx.min(ty).min(t1);
            let (key, t_now) = self.tile_of(&mut tile, i, j);
            let tz = t_now.z;
            // Skip the rest of the tile when the ray passes above or below all of it.
            let side = TILE as f64 * s;
            let leave = |a: usize, k: i64| -> f64 {
                if d[a] == 0.0 {
                    return f64::INFINITY;
                }
                let edge = if d[a] > 0.0 { (k + 1) as f64 * side } else { k as f64 * side };
                (edge - o[a]) / d[a]
            };
            let t_tile = leave(0, key.0).min(leave(1, key.1)).min(t1).max(t);
            let (za, zb) = (o.z + d.z * t, o.z + d.z * t_tile);
            let margin = 1e-9 * (1.0 + za.abs().max(zb.abs()));
            if za.min(zb) > tz[1] + margin || za.max(zb) < tz[0] - margin {
                if t_tile >= t1 {
                    return None;
                }
                // The cell just past the tile's side, ties broken along the ray.
                t = t_tile;
                let p = ray.at(t) / s;
                let (ni, nj) = (dfloor(p.x, d.x), dfloor(p.y, d.y));
                if (ni.div_euclid(TILE), nj.div_euclid(TILE)) == key {
                    // Rounding kept the point inside: step one cell out along the exit side.
                    if tx <= ty {
                        i += step[0];
                    } else {
                        j += step[1];
                    }
                } else {
                    (i, j) = (ni, nj);
                }
                continue;
            }
            let (za, zb) = (o.z + d.z * t, o.z + d.z * t_exit);
            let margin = 1e-9 * (1.0 + za.abs().max(zb.abs()));
            let (c, mid) = self.cell(&mut tile, i, j);
            let lo = c.iter().fold(mid.z, |m, v| m.min(v.z));
            let hi = c.iter().fold(mid.z, |m, v| m.max(v.z));
            if za.max(zb) >= lo - margin && za.min(zb) <= hi + margin {
                let mut best: Option<(f64, usize)> = None;
                for (part, f) in FAN.iter().enumerate() {
                    let tri = [c[f[0]], c[f[1]], mid];
                    let limit = best.map_or(t_exit + 1e-9 * (1.0 + t_exit), |b| b.0);
                    if let Some(th) = hit_triangle(ray, &tri, limit) {
                        best = Some((th, part));
                    }
                }
                if let Some((th, part)) = best {
                    let f = FAN[part];
                    let n = upward((c[f[1]] - c[f[0]]).cross(mid - c[f[0]]));
                    return Some(Hit { t: th, point: ray.at(th), normal: n, triangle: self.id(i, j, part) });
                }
            }
            if t_exit >= t1 {
                return None;
            }
            t = t_exit;
            if tx <= ty {
                i += step[0];
            } else {
                j += step[1];
            }
        }
        None
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        // An empty rectangle excludes nothing.
        self.triangles_outside(region, DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY), visit)
    }
}
