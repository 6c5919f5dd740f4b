//! Level-of-detail tiles of a heightfield for the viewer. Tile (k, i, j) takes every 2^k-th sample
//! of the grid, [`TILE`] cells of its level across, so level 0 is the raster itself in tiles of
//! `TILE` cells and the top level is one tile over the whole raster. The page walks this quadtree
//! by distance from the camera and fetches only the tiles it draws: a 4097² raster comes as a few
//! dozen small meshes, never one large one.
//!
//! Each tile carries a skirt (its border vertices again, lowered), so a fine tile beside a coarse
//! one shows no crack between them.

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

/// The mesh of tile (`level`, `i`, `j`): its samples' true positions and upward normals (relative to
/// the tile's south-west corner), coloured by height and by the ground's slope (`metres` per unit
/// of x and y: the slope in metres whatever the units), with a skirt; triangles touching a hole
/// are left out.
pub fn tile(
    hf: &Heightfield,
    layout: &Layout,
    level: u8,
    i: usize,
    j: usize,
    colours: &ColourMap,
    metres: [f64; 2],
) -> Result<MeshPart, TileError> {
    if level > layout.top {
        return Err(TileError::Level(level));
    }
    let (ti, tj) = layout.count(level);
    if i >= ti || j >= tj {
        return Err(TileError::Tile(i, j));
    }
    let (xs, ys) = (Layout::axis(hf.nx(), level, i), Layout::axis(hf.ny(), level, j));
    let (o, s) = (hf.origin(), hf.spacing());
    let origin = [o.x + xs[0] as f64 * s.x, o.y + ys[0] as f64 * s.y, 0.0];
    let mut part = MeshPart { name: format!("tile {level} {i} {j}"), origin, ..MeshPart::default() };
    let (w, h) = (xs.len(), ys.len());
    let z = |a: usize, b: usize| hf.sample(xs[a], ys[b]) as f64;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (b, &sj) in ys.iter().enumerate() {
        for (a, &si) in xs.iter().enumerate() {
            let zz = z(a, b);
            if zz.is_finite() {
                lo = lo.min(zz);
                hi = hi.max(zz);
            }
            // The slope across this vertex's neighbours on the tile's grid (one-sided at the edges,
            // holes skipped).
            let slope = |k: usize, n: usize, at: &dyn Fn(usize) -> f64, gap: f64| {
                let (k0, k1) = (k.saturating_sub(1), (k + 1).min(n - 1));
                let (z0, z1) = (at(k0), at(k1));
                let (z0, k0) = if z0.is_finite() { (z0, k0) } else { (at(k), k) };
                let (z1, k1) = if z1.is_finite() { (z1, k1) } else { (at(k), k) };
                if k1 > k0 {
                    (z1 - z0) / (gap * (k1 - k0) as f64)
                } else {
                    0.0
                }
            };
            let step = f64::from(1u32 << level);
            let gx = slope(a, w, &|k| z(k, b), s.x * step);
            let gy = slope(b, h, &|k| z(a, k), s.y * step);
            let n = landfall::glam::DVec3::new(-gx, -gy, 1.0).normalize_or(landfall::glam::DVec3::Z);
            let ground = landfall::glam::DVec3::new(-gx / metres[0], -gy / metres[1], 1.0).normalize();
            part.positions.push([
                ((si - xs[0]) as f64 * s.x) as f32,
                ((sj - ys[0]) as f64 * s.y) as f32,
                if zz.is_finite() { zz as f32 } else { 0.0 },
            ]);
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
        let drop = (hi - lo + 0.01 * s.x.min(s.y) * f64::from(1u32 << level)) as f32;
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
                    let p = tile(&hf, &l, level, i, j, &map, [1.0, 1.0]).unwrap();
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
        assert_eq!(tile(&hf, &l, 4, 0, 0, &map, [1.0, 1.0]).unwrap_err(), TileError::Level(4));
        assert_eq!(tile(&hf, &l, 0, 5, 0, &map, [1.0, 1.0]).unwrap_err(), TileError::Tile(5, 0));
    }

    /// Holes leave their triangles out; the skirt hangs below every border vertex.
    #[test]
    fn holes_and_skirts() {
        let mut h = vec![10.0f32; 9 * 9];
        h[4 * 9 + 4] = f32::NAN;
        let hf = Heightfield::builder(9, 9, h).build().unwrap();
        let l = Layout::new(9, 9);
        let p = tile(&hf, &l, 0, 0, 0, &ColourMap::for_range(0.0, 20.0), [1.0, 1.0]).unwrap();
        let grid_vertices = 81;
        let grid_triangles = p.indices.chunks(3).filter(|t| t.iter().all(|&k| (k as usize) < grid_vertices)).count();
        assert_eq!(grid_triangles, 2 * (64 - 4));
        assert_eq!(p.positions.len(), grid_vertices + 32);
        assert!(p.positions[grid_vertices..].iter().all(|q| q[2] < 10.0));
        // A single tile has no neighbour: no skirt triangles on the raster's border.
        assert!(p.indices.iter().all(|&k| (k as usize) < grid_vertices));
    }
}
