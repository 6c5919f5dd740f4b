//! Level-of-detail tiles of a heightfield for the viewer. Tile (k, i, j) takes every 2^k-th sample
//! of the grid, [`TILE`] cells of its level across, so level 0 is the raster itself in tiles of
//! `TILE` cells and the top level is one tile over the whole raster. The page walks this quadtree
//! by distance from the camera and fetches only the tiles it draws: a 4097² raster comes as a few
//! dozen small meshes, never one large one.
//!
//! Each tile carries a skirt (its border vertices again, lowered), so a fine tile beside a coarse
//! one shows no crack between them.

use landfall::geo::GeoSurface;
use landfall::glam::DVec3;
use landfall::support::ColourMap;
use landfall::Heightfield;
use landfall_io::MeshPart;

/// Cells of a tile's own level along each side.
pub const TILE: usize = 64;

/// The tiles of a heightfield.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Samples along x and y.
    pub nx: usize,
    pub ny: usize,
    /// The top level: one tile covers the raster.
    pub top: u8,
}

impl Layout {
    /// The tiles of an `nx × ny` grid.
    pub fn new(nx: usize, ny: usize) -> Self {
        let cells = (nx.max(ny) - 1).max(1);
        let mut top = 0u8;
        while TILE << top < cells {
            top += 1;
        }
        Self { nx, ny, top }
    }

    /// Tiles along x and y at `level`.
    pub fn count(&self, level: u8) -> (usize, usize) {
        let span = TILE << level;
        ((self.nx - 1).max(1).div_ceil(span), (self.ny - 1).max(1).div_ceil(span))
    }

    /// The sample indices along one axis of `n` samples that tile `t` of `level` uses: every
    /// 2^level-th from its first, the last sample of the grid included where the tile reaches it.
    fn axis(n: usize, level: u8, t: usize) -> Vec<usize> {
        let step = 1usize << level;
        let first = t * (TILE << level);
        let mut v: Vec<usize> = (0..TILE).map(|a| first + a * step).take_while(|&s| s < n - 1).collect();
        v.push((first + TILE * step).min(n - 1));
        v
    }
}

/// Why a tile cannot be made.
#[derive(Debug, PartialEq, Eq)]
pub enum TileError {
    /// No such level.
    Level(u8),
    /// No such tile at its level.
    Tile(usize, usize),
}

impl std::fmt::Display for TileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TileError::Level(l) => write!(f, "level: {l} is not a level of this terrain's tiles"),
            TileError::Tile(i, j) => write!(f, "i, j: ({i}, {j}) is not a tile of this level"),
        }
    }
}

/// The samples a tile is made of: a heightfield's grid, or a raster in degrees in metres in its
/// east-north-up frame (the true shape of the ground, the Earth's curvature included, as `landfall
/// mesh` exports it).
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// A heightfield, x and y in `metres` per unit (the slopes in metres whatever the units).
    Plain(&'a Heightfield, [f64; 2]),
    /// A surface on the WGS84 ellipsoid.
    Geo(&'a GeoSurface),
}

impl Source<'_> {
    /// The raster.
    pub fn hf(&self) -> &Heightfield {
        match self {
            Source::Plain(hf, _) => hf,
            Source::Geo(g) => g.heightfield(),
        }
    }

    /// Sample (i, j) where it is drawn (a hole at height 0), in the terrain's coordinates.
    fn at(&self, i: usize, j: usize) -> DVec3 {
        let z = self.hf().sample(i, j) as f64;
        let z = if z.is_finite() { z } else { 0.0 };
        match self {
            Source::Plain(hf, _) => {
                let (o, s) = (hf.origin(), hf.spacing());
                DVec3::new(o.x + i as f64 * s.x, o.y + j as f64 * s.y, z)
            }
            Source::Geo(g) => g.tables().position(i, j, z),
        }
    }

    /// Metres per unit of x and y.
    fn metres(&self) -> DVec3 {
        match self {
            Source::Plain(_, m) => DVec3::new(m[0], m[1], 1.0),
            Source::Geo(_) => DVec3::ONE,
        }
    }
}

/// The mesh of tile (`level`, `i`, `j`): its samples' true positions and upward normals (relative to
/// the tile's south-west corner), coloured by height and by the ground's slope in metres, with a
/// skirt; triangles touching a hole are left out.
pub fn tile(
    src: Source,
    layout: &Layout,
    level: u8,
    i: usize,
    j: usize,
    colours: &ColourMap,
) -> Result<MeshPart, TileError> {
    if level > layout.top {
        return Err(TileError::Level(level));
    }
    let (ti, tj) = layout.count(level);
    if i >= ti || j >= tj {
        return Err(TileError::Tile(i, j));
    }
    let hf = src.hf();
    let (xs, ys) = (Layout::axis(hf.nx(), level, i), Layout::axis(hf.ny(), level, j));
    let origin = src.at(xs[0], ys[0]) * DVec3::new(1.0, 1.0, 0.0);
    let mut part = MeshPart { name: format!("tile {level} {i} {j}"), origin: origin.to_array(), ..MeshPart::default() };
    let (w, h) = (xs.len(), ys.len());
    let z = |a: usize, b: usize| hf.sample(xs[a], ys[b]) as f64;
    let at = |a: usize, b: usize| src.at(xs[a], ys[b]) - origin;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for b in 0..h {
        for a in 0..w {
            let zz = z(a, b);
            let p = at(a, b);
            if zz.is_finite() {
                lo = lo.min(p.z);
                hi = hi.max(p.z);
            }
            // The surface's tangents across this vertex's neighbours on the tile's grid (one-sided
            // at the edges, holes skipped); its normal as drawn and in metres.
            let tangent = |k: usize, n: usize, at: &dyn Fn(usize) -> (DVec3, bool)| {
                let (k0, k1) = (k.saturating_sub(1), (k + 1).min(n - 1));
                let (p0, p1) = (at(k0), at(k1));
                let p0 = if p0.1 { p0.0 } else { at(k).0 };
                let p1 = if p1.1 { p1.0 } else { at(k).0 };
                p1 - p0
            };
            // (Without a neighbour on the grid, a level tangent along the axis.)
            let tu = tangent(a, w, &|k| (at(k, b), z(k, b).is_finite()));
            let tu = if tu == DVec3::ZERO { DVec3::X } else { tu };
            let tv = tangent(b, h, &|k| (at(a, k), z(a, k).is_finite()));
            let tv = if tv == DVec3::ZERO { DVec3::Y } else { tv };
            let normal = |u: DVec3, v: DVec3| {
                let n = u.cross(v);
                if n.z > 0.0 && n.is_finite() {
                    n.normalize()
                } else {
                    DVec3::Z
                }
            };
            let n = normal(tu, tv);
            let ground = normal(tu * src.metres(), tv * src.metres());
            part.positions.push(p.as_vec3().to_array());
            part.normals.push(n.as_vec3().to_array());
            part.colors.push(colours.colour(zz, ground.z));
        }
    }
    let v = |a: usize, b: usize| (b * w + a) as u32;
    let hole = |a: usize, b: usize| !z(a, b).is_finite();
    for b in 0..h - 1 {
        for a in 0..w - 1 {
            if hole(a, b) || hole(a + 1, b) || hole(a, b + 1) || hole(a + 1, b + 1) {
                continue;
            }
            part.indices.extend([v(a, b), v(a + 1, b), v(a + 1, b + 1), v(a, b), v(a + 1, b + 1), v(a, b + 1)]);
        }
    }
    // The skirt: each border edge again, hanging below it by the tile's relief (and a hundredth of
    // a cell of its level): deeper than any crack beside a tile of another level can be.
    if lo <= hi {
        let cell = (at(1, 0) - at(0, 0)).truncate().length().min((at(0, 1) - at(0, 0)).truncate().length());
        let drop = (hi - lo + 0.01 * cell) as f32;
        let border: Vec<(usize, usize)> = (0..w)
            .map(|a| (a, 0))
            .chain((1..h).map(|b| (w - 1, b)))
            .chain((0..w - 1).rev().map(|a| (a, h - 1)))
            .chain((1..h - 1).rev().map(|b| (0, b)))
            .collect();
        let first = part.positions.len() as u32;
        for &(a, b) in &border {
            let k = v(a, b) as usize;
            let [x, y, zz] = part.positions[k];
            part.positions.push([x, y, zz - drop]);
            part.normals.push(part.normals[k]);
            part.colors.push(part.colors[k]);
        }
        // On the raster's own border there is no neighbour, so no skirt.
        let outside = |a: usize, b: usize| {
            (a == 0 && xs[0] == 0)
                || (a == w - 1 && xs[a] == hf.nx() - 1)
                || (b == 0 && ys[0] == 0)
                || (b == h - 1 && ys[b] == hf.ny() - 1)
        };
        for e in 0..border.len() {
            let f = (e + 1) % border.len();
            let ((a0, b0), (a1, b1)) = (border[e], border[f]);
            if hole(a0, b0) || hole(a1, b1) || (outside(a0, b0) && outside(a1, b1)) {
                continue;
            }
            let (t0, t1, s0, s1) = (v(a0, b0), v(a1, b1), first + e as u32, first + f as u32);
            part.indices.extend([t0, s0, s1, t0, s1, t1]);
        }
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(nx: usize, ny: usize) -> Heightfield {
        let h = (0..nx * ny).map(|k| ((k % nx) as f32 * 0.05).sin() * 30.0 + (k / nx) as f32 * 0.1).collect();
        Heightfield::builder(nx, ny, h).origin(500.0, 800.0).spacing(2.0, 3.0).build().unwrap()
    }

    /// The tiles of every level cover the raster exactly, vertices on the grid's samples at their
    /// true heights; the top level is one tile; a 4097² raster never needs more than a tile's
    /// vertices per request.
    #[test]
    fn tiles_cover_the_grid_on_its_samples() {
        let hf = grid(300, 130);
        let l = Layout::new(300, 130);
        assert_eq!(l.top, 3);
        assert_eq!(l.count(l.top), (1, 1));
        assert_eq!(l.count(0), (5, 3));
        let map = ColourMap::for_range(-40.0, 40.0);
        for level in 0..=l.top {
            let (ti, tj) = l.count(level);
            let mut covered = 0.0;
            for i in 0..ti {
                for j in 0..tj {
                    let p = tile(Source::Plain(&hf, [1.0, 1.0]), &l, level, i, j, &map).unwrap();
                    for q in &p.positions[..p.normals.len().min(p.positions.len())] {
                        let (x, y) = (p.origin[0] + q[0] as f64, p.origin[1] + q[1] as f64);
                        let (fi, fj) = ((x - 500.0) / 2.0, (y - 800.0) / 3.0);
                        assert!((fi - fi.round()).abs() < 1e-3 && (fj - fj.round()).abs() < 1e-3, "off the grid");
                    }
                    let first = &p.positions[0];
                    assert_eq!(first[2], hf.sample(i * (TILE << level), j * (TILE << level)));
                    let xs = Layout::axis(300, level, i);
                    let ys = Layout::axis(130, level, j);
                    covered += ((xs[xs.len() - 1] - xs[0]) * (ys[ys.len() - 1] - ys[0])) as f64;
                    assert!(p.positions.len() <= (TILE + 1) * (TILE + 1) + 4 * (TILE + 1));
                }
            }
            assert_eq!(covered, (299 * 129) as f64, "level {level}");
        }
        assert_eq!(Layout::new(4097, 4097).top, 6);
        assert_eq!(tile(Source::Plain(&hf, [1.0, 1.0]), &l, 4, 0, 0, &map).unwrap_err(), TileError::Level(4));
        assert_eq!(tile(Source::Plain(&hf, [1.0, 1.0]), &l, 0, 5, 0, &map).unwrap_err(), TileError::Tile(5, 0));
    }

    /// Holes leave their triangles out; the skirt hangs below every border vertex.
    #[test]
    fn holes_and_skirts() {
        let mut h = vec![10.0f32; 9 * 9];
        h[4 * 9 + 4] = f32::NAN;
        let hf = Heightfield::builder(9, 9, h).build().unwrap();
        let l = Layout::new(9, 9);
        let p = tile(Source::Plain(&hf, [1.0, 1.0]), &l, 0, 0, 0, &ColourMap::for_range(0.0, 20.0)).unwrap();
        let grid_vertices = 81;
        let grid_triangles = p.indices.chunks(3).filter(|t| t.iter().all(|&k| (k as usize) < grid_vertices)).count();
        assert_eq!(grid_triangles, 2 * (64 - 4));
        assert_eq!(p.positions.len(), grid_vertices + 32);
        assert!(p.positions[grid_vertices..].iter().all(|q| q[2] < 10.0));
        // A single tile has no neighbour: no skirt triangles on the raster's border.
        assert!(p.indices.iter().all(|&k| (k as usize) < grid_vertices));
    }

    /// A raster in degrees: every tile's vertices are its samples where the surface on the
    /// ellipsoid puts them, in metres of its east-north-up frame, so a 1° tile is ~111 km north to
    /// south and its middle stands above its corners (the Earth's curvature); normals point up.
    #[test]
    fn tiles_in_degrees_are_in_metres_on_the_ellipsoid() {
        let n = 121;
        let h: Vec<f32> = (0..n * n).map(|k| 200.0 + 50.0 * ((k % n) as f32 * 0.1).sin()).collect();
        let hf = Heightfield::builder(n, n, h).origin(10.0, 45.0).spacing(1.0 / 120.0, 1.0 / 120.0).build().unwrap();
        let g = GeoSurface::new(hf).unwrap();
        let l = Layout::new(n, n);
        assert_eq!(l.top, 1);
        let map = ColourMap::for_range(150.0, 250.0);
        for level in 0..=l.top {
            let (ti, tj) = l.count(level);
            for i in 0..ti {
                for j in 0..tj {
                    let p = tile(Source::Geo(&g), &l, level, i, j, &map).unwrap();
                    let (xs, ys) = (Layout::axis(n, level, i), Layout::axis(n, level, j));
                    for (b, &sj) in ys.iter().enumerate() {
                        for (a, &si) in xs.iter().enumerate() {
                            let q = p.positions[b * xs.len() + a];
                            let at = DVec3::from(p.origin) + DVec3::new(q[0] as f64, q[1] as f64, q[2] as f64);
                            assert!((at - g.sample_enu(si, sj)).length() < 0.05, "sample ({si}, {sj}) drawn at {at}");
                            assert!(p.normals[b * xs.len() + a][2] > 0.9);
                        }
                    }
                }
            }
        }
        let top = tile(Source::Geo(&g), &l, 1, 0, 0, &map).unwrap();
        let o = DVec3::from(top.origin);
        let at = |a: usize, b: usize| o + DVec3::from(top.positions[b * 61 + a].map(f64::from));
        let north_south = (at(30, 60) - at(30, 0)).length();
        assert!((north_south - 111_132.0).abs() < 50.0, "{north_south} m");
        // Less their heights, the middle of the grid stands s²/2R ≈ 120 m above the middle of its
        // west edge, s ≈ 39 km west of it (the samples at step 2: (60, 60) and (0, 60)).
        let (mid, west) = (at(30, 30), at(0, 30));
        let drop = (mid.z - g.heightfield().sample(60, 60) as f64) - (west.z - g.heightfield().sample(0, 60) as f64);
        let s = (mid - west).truncate().length();
        assert!((drop - s * s / (2.0 * 6_371_000.0)).abs() < 2.0, "{drop} m lower {s} m west");
    }
}
