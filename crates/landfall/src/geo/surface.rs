//! [`GeoSurface`]: a heightfield whose grid is (longitude, latitude) in degrees, as a surface on the
//! WGS84 ellipsoid. Each sample (lonᵢ, latⱼ, h) is mapped to ECEF; each cell is split into the same
//! two triangles as the heightfield's [`Diagonal`](crate::Diagonal) says, and each triangle is
//! planar in ECEF (a chord surface: between samples it lies slightly below the ellipsoid's curve).
//! Everything is computed in one east-north-up frame at the grid's centre (a rigid transform of
//! ECEF, so exact), where the surface is nearly horizontal.

#[cfg(target_arch = "x86_64")]
mod avx2;

use super::boxes::{Boxes, Bx};
use super::enu::EnuFrame;
use super::shear::{Mapped, Shear, UpShear};
use super::strips::Strips;
use super::tables::{CellTables, GridTables};
use super::wgs84::Geodetic;
use crate::geom::{Half, TriangleId};
use crate::heightfield::cell::corner_offsets;
use crate::Heightfield;
use glam::DVec3;

/// Largest cell accepted, degrees: the chord edges' bulge in (lon, lat) stays far below a cell
/// (so a point's triangle is in its cell or a neighbour), and the box tree's pruning stays tight.
pub const MAX_CELL_DEGREES: f64 = 1.0;

/// Default box-tree leaf, in cells (see `docs/benchmarks.md`).
pub const DEFAULT_GEO_LEAF: usize = 4;

/// Why a heightfield cannot be a surface on the ellipsoid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GeoError {
    /// A latitude of the grid outside [−90°, 90°].
    #[error("latitudes {south}°…{north}° reach beyond the poles (±90°): the grid is not in degrees of latitude")]
    Latitude {
        /// Southern row's latitude.
        south: f64,
        /// Northern row's latitude.
        north: f64,
    },
    /// The grid spans more than 360° of longitude.
    #[error("longitudes {west}°…{east}° span more than 360°: the grid is not in degrees of longitude")]
    Longitude {
        /// Western column's longitude.
        west: f64,
        /// Eastern column's longitude.
        east: f64,
    },
    /// Cells larger than [`MAX_CELL_DEGREES`].
    #[error("cells of {dlon}° × {dlat}° are larger than {MAX_CELL_DEGREES}°: resample the grid finer (gdalwarp -tr)")]
    CellTooLarge {
        /// Longitude step.
        dlon: f64,
        /// Latitude step.
        dlat: f64,
    },
    /// A box-tree leaf outside 1…8 cells.
    #[error("box-tree leaf of {0} cells: expected 1 to 8")]
    BadLeaf(usize),
}

/// A point on a [`GeoSurface`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoPoint {
    /// Longitude (degrees; as asked, or of the hit), latitude (degrees), height above the ellipsoid (m).
    pub geodetic: Geodetic,
    /// The point in the surface's ENU frame (metres).
    pub enu: DVec3,
    /// The triangle's unit normal in the ENU frame, on the side of the ellipsoid's up.
    pub normal: DVec3,
    /// The triangle.
    pub triangle: TriangleId,
}

/// A heightfield in (lon, lat) degrees as a surface on the WGS84 ellipsoid. See the module docs and
/// `docs/conventions.md`.
///
/// ```
/// use landfall::{geo::GeoSurface, Heightfield};
/// // 0.04° × 0.04° at 0.01° spacing (≈1.1 km), heights 100 m, south-west sample at (10° E, 45° N).
/// let hf = Heightfield::builder(5, 5, vec![100.0; 25]).origin(10.0, 45.0).spacing(0.01, 0.01).build().unwrap();
/// let s = GeoSurface::new(hf).unwrap();
/// // At a sample the height is the sample; between samples the chord sags below 100 m (s²/8R: ≈2 cm).
/// assert!((s.height_at(10.02, 45.03).unwrap() - 100.0).abs() < 1e-6);
/// let mid = s.height_at(10.015, 45.015).unwrap();
/// assert!(mid < 100.0 && mid > 99.95, "{mid}");
/// ```
#[derive(Clone, Debug)]
pub struct GeoSurface {
    hf: Heightfield,
    frame: EnuFrame,
    tables: GridTables,
    pub(crate) boxes: Boxes,
    /// The strip walk's tables, where it serves (`strips.rs`).
    pub(super) strips: Option<Strips>,
    lon0: f64,
    lat0: f64,
    dlon: f64,
    dlat: f64,
    inv_dlon: f64,
    inv_dlat: f64,
    lon_mid: f64,
    /// The last cell's column and row, as f64 (the first cell's clamp in `locate`).
    last_cell: [f64; 2],
    /// The grid's last column and row + 0.5, as f64 (beyond, (lon, lat) is off the surface).
    grid_limit: [f64; 2],
    /// Heights through `avx2.rs` (the CPU has AVX2).
    avx2: bool,
}

impl GeoSurface {
    /// The surface of `hf`, whose x is longitude and y latitude in degrees, heights in metres.
    pub fn new(hf: Heightfield) -> Result<Self, GeoError> {
        Self::with_leaf(hf, DEFAULT_GEO_LEAF)
    }

    /// Whether a grid of `nx × ny` samples from `origin` (lon, lat of the south-west sample) by
    /// `spacing` degrees can be a surface on the ellipsoid: the checks [`GeoSurface::new`] makes,
    /// for a grid not yet read (an index built row by row checks before it writes).
    ///
    /// ```
    /// use landfall::geo::GeoSurface;
    /// use landfall::glam::DVec2;
    /// assert!(GeoSurface::check_grid(DVec2::new(9.0, 44.0), DVec2::splat(1.0 / 3600.0), 3601, 3601).is_ok());
    /// assert!(GeoSurface::check_grid(DVec2::new(9.0, 44.0), DVec2::splat(5.0), 10, 10).is_err());
    /// ```
    pub fn check_grid(origin: glam::DVec2, spacing: glam::DVec2, nx: usize, ny: usize) -> Result<(), GeoError> {
        let (o, s) = (origin, spacing);
        let (west, east) = (o.x, o.x + (nx.max(1) - 1) as f64 * s.x);
        let (south, north) = (o.y, o.y + (ny.max(1) - 1) as f64 * s.y);
        if !(south >= -90.0 && north <= 90.0) {
            return Err(GeoError::Latitude { south, north });
        }
        if east - west > 360.0 {
            return Err(GeoError::Longitude { west, east });
        }
        if s.x > MAX_CELL_DEGREES || s.y > MAX_CELL_DEGREES {
            return Err(GeoError::CellTooLarge { dlon: s.x, dlat: s.y });
        }
        Ok(())
    }

    /// [`GeoSurface::new`] with a box-tree leaf of `leaf` cells (1…8).
    pub fn with_leaf(hf: Heightfield, leaf: usize) -> Result<Self, GeoError> {
        if !(1..=8).contains(&leaf) {
            return Err(GeoError::BadLeaf(leaf));
        }
        let (o, s) = (hf.origin(), hf.spacing());
        let (nx, ny) = (hf.nx(), hf.ny());
        Self::check_grid(o, s, nx, ny)?;
        let lon = |i: usize| o.x + i as f64 * s.x;
        let lat = |j: usize| o.y + j as f64 * s.y;
        let (west, east, south, north) = (lon(0), lon(nx - 1), lat(0), lat(ny - 1));
        let frame = EnuFrame::new(Geodetic::new((west + east) / 2.0, (south + north) / 2.0, 0.0));
        let lons: Vec<f64> = (0..nx).map(lon).collect();
        let lats: Vec<f64> = (0..ny).map(lat).collect();
        let tables = GridTables::new(&frame, &lons, &lats);
        let boxes = Boxes::build(&tables, nx - 1, ny - 1, leaf, |i, j| hf.sample(i, j));
        let strips = Strips::new(&hf, &frame, &boxes);
        Ok(Self {
            hf,
            frame,
            tables,
            boxes,
            strips,
            lon0: o.x,
            lat0: o.y,
            dlon: s.x,
            dlat: s.y,
            inv_dlon: 1.0 / s.x,
            inv_dlat: 1.0 / s.y,
            lon_mid: (west + east) / 2.0,
            last_cell: [(nx - 2) as f64, (ny - 2) as f64],
            grid_limit: [(nx - 1) as f64 + 0.5, (ny - 1) as f64 + 0.5],
            avx2: has_avx2(),
        })
    }

    /// The heightfield (its x, y are longitude and latitude).
    pub fn heightfield(&self) -> &Heightfield {
        &self.hf
    }

    /// The heightfield back (its x, y are longitude and latitude).
    pub fn into_heightfield(self) -> Heightfield {
        self.hf
    }

    /// The ENU frame every position of this surface is given in: at the grid's centre, h = 0.
    pub fn frame(&self) -> &EnuFrame {
        &self.frame
    }

    /// The samples' position tables in [`GeoSurface::frame`].
    pub fn tables(&self) -> &GridTables {
        &self.tables
    }

    /// ENU position of sample (i, j) (NaN components for a nodata sample).
    pub fn sample_enu(&self, i: usize, j: usize) -> DVec3 {
        self.tables.position(i, j, self.hf.sample(i, j) as f64)
    }

    /// Bytes used by the heightfield, the position tables, the box tree and the strip walk's tables.
    pub fn memory_bytes(&self) -> usize {
        self.hf.memory_bytes()
            + (self.hf.nx() * 8 + self.hf.ny() * 11) * 8
            + self.boxes.memory_bytes()
            + self.strips.as_ref().map_or(0, Strips::memory_bytes)
    }

    /// Bytes [`GeoSurface::new`] allocates beside the heightfield for a grid of `nx × ny` samples, at
    /// most: the position tables, the box tree and the strip walk's tables span the whole grid,
    /// holes included (about 2.3 bytes a sample), so a sparse index of tiles far apart costs as much
    /// as a full one. Front ends compare it with what a file holds before building.
    ///
    /// ```
    /// use landfall::geo::GeoSurface;
    /// assert!(GeoSurface::extra_memory(3601, 3601) < 3 * 3601 * 3601);
    /// ```
    pub fn extra_memory(nx: usize, ny: usize) -> usize {
        let (ncx, ncy) = (nx.saturating_sub(1), ny.saturating_sub(1));
        let tables = (nx * 8 + ny * 11) * 8 + (ncx + 1) * 16 + ny * 32;
        // Leaves of DEFAULT_GEO_LEAF cells; level k above holds ⌈w/2ᵏ⌉·⌈h/2ᵏ⌉ ≤ wh/4ᵏ + (w+h)/2ᵏ + 1.
        let (lx, ly) = (ncx.div_ceil(DEFAULT_GEO_LEAF), ncy.div_ceil(DEFAULT_GEO_LEAF));
        let boxes = (lx * ly / 3 * 4 + 4 + 2 * (lx + ly) + 128) * std::mem::size_of::<Bx>();
        let maxes: usize = [4, 16].iter().map(|w| ncx.div_ceil(*w) * ncy.div_ceil(*w) * 4).sum();
        tables + boxes + maxes
    }

    /// ENU vertices of triangle `half` of cell (i, j) (counter-clockwise seen from above), or `None`
    /// when the cell is out of range or the triangle removed (nodata corner or masked cell).
    pub fn cell_triangle(&self, i: usize, j: usize, half: Half) -> Option<[DVec3; 3]> {
        if i >= self.hf.nx() - 1 || j >= self.hf.ny() - 1 || self.hf.is_cell_masked(i, j) {
            return None;
        }
        // By the cell's tables: the same bits as `sample_enu`.
        let (t, h) = (self.tables.cell(i, j), self.hf.corners_f32(i, j));
        let v = map3(corner_offsets(self.hf.diagonal().is_anti(i, j), half), |(di, dj)| {
            t.position(di, dj, h[dj * 2 + di] as f64)
        });
        (!v.iter().any(|p| p.is_nan())).then_some(v)
    }

    /// The samples (i, j) at the corners of triangle `half` of cell (i, j), counter-clockwise seen
    /// from above (the heightfield's diagonal pattern).
    pub fn triangle_samples(&self, i: usize, j: usize, half: Half) -> [(usize, usize); 3] {
        corner_offsets(self.hf.diagonal().is_anti(i, j), half).map(|(di, dj)| (i + di, j + dj))
    }

    /// The longitude `lon` moved by whole turns to the turn of the grid's centre.
    #[inline(always)]
    pub fn wrap_lon(&self, lon: f64) -> f64 {
        // Inside the centre's turn without `round` (a library call on baseline x86-64).
        if (lon - self.lon_mid).abs() <= 180.0 {
            return lon;
        }
        lon - 360.0 * ((lon - self.lon_mid) / 360.0).round()
    }

    /// Height of the surface at (lon, lat) in degrees: the h for which the ellipsoid normal through
    /// (lon, lat) meets the surface at geodetic height h (`None` outside the surface or over a hole).
    /// O(1). Longitudes are taken modulo 360°.
    #[inline]
    pub fn height_at(&self, lon: f64, lat: f64) -> Option<f64> {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU supports AVX2.
            return unsafe { avx2::height_at(self, lon, lat) };
        }
        self.locate(lon, lat).map(|l| l.h)
    }

    /// [`GeoSurface::height_at`] without AVX2 (the reference its AVX2 path is tested against).
    #[cfg(test)]
    pub(super) fn height_at_scalar(&self, lon: f64, lat: f64) -> Option<f64> {
        self.locate(lon, lat).map(|l| l.h)
    }

    /// [`GeoSurface::height_at`] with the point's ENU position, normal and triangle.
    pub fn surface_at(&self, lon: f64, lat: f64) -> Option<GeoPoint> {
        let l = self.locate(lon, lat)?;
        let v = self.cell_triangle(l.i, l.j, l.half)?;
        let mut n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
        if n.dot(l.b) < 0.0 {
            n = -n;
        }
        Some(GeoPoint {
            geodetic: Geodetic::new(lon, lat, l.h),
            enu: l.a + l.b * l.h,
            normal: n,
            triangle: TriangleId::Cell { i: l.i as u32, j: l.j as u32, half: l.half },
        })
    }

    /// [`GeoSurface::height_at`] for many (lon, lat) points, in parallel.
    pub fn height_batch(&self, points: &[[f64; 2]]) -> Vec<Option<f64>> {
        use rayon::prelude::*;
        points.par_iter().with_min_len(4096).map(|p| self.height_at(p[0], p[1])).collect()
    }

    /// The triangle met by the normal line through (lon, lat), and the height there.
    #[inline(always)]
    fn locate(&self, lon: f64, lat: f64) -> Option<Located> {
        if !(lon.is_finite() && (-90.0..=90.0).contains(&lat)) {
            return None;
        }
        // At a pole every longitude is the same point (the polar axis is its normal line).
        let lon = if lat.abs() == 90.0 { self.lon_mid } else { self.wrap_lon(lon) };
        // The cell to try first (multiplied by the steps' reciprocals: a cell off by rounding is
        // corrected by the neighbours' test).
        let u = (lon - self.lon0) * self.inv_dlon;
        let v = (lat - self.lat0) * self.inv_dlat;
        // The surface's edge bulges out of the grid's rectangle by far less than half a cell.
        if !(u >= -0.5 && v >= -0.5 && u <= self.grid_limit[0] && v <= self.grid_limit[1]) {
            return None;
        }
        // Clamped as floats, then truncated (i64: one conversion each way; the values are whole
        // numbers below 2⁵³, the same as through usize).
        let (ci, cj) = (u.max(0.0).min(self.last_cell[0]) as i64, v.max(0.0).min(self.last_cell[1]) as i64);
        let (fi, fj) = (ci as f64, cj as f64);
        let (i, j) = (ci as usize, cj as usize);
        let dl = (lon - (self.lon0 + fi * self.dlon)).to_radians();
        let dp = (lat - (self.lat0 + fj * self.dlat)).to_radians();
        let (a, b) = self.tables.normal_line(i, j, dl, dp);
        let anti = self.hf.diagonal().is_anti(i, j);
        let (fu, fv) = (u - fi, v - fj);
        let side = if anti { fu + fv - 1.0 } else { fv - fu };
        let (first, other) = if side > 0.0 { (Half::North, Half::South) } else { (Half::South, Half::North) };
        // Almost always: the normal line is mostly up in the frame (`UpShear`, the same bits as
        // `Shear`) and meets the triangle under (lon, lat).
        if let Some(up) = UpShear::new(a, b) {
            if let Some(h) = self.first_hit_up(&up, i, j, anti, first) {
                return Some(Located { i, j, half: first, h, a, b });
            }
        }
        let (i, j, half, h) = self.locate_slow(a, b, i, j, anti, first, other)?;
        Some(Located { i, j, half, h, a, b })
    }

    /// [`GeoSurface::locate`] when the fast path found nothing: the triangle under (lon, lat) with
    /// the general shear, its cell's other triangle, then the neighbours.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn locate_slow(
        &self,
        a: DVec3,
        b: DVec3,
        i: usize,
        j: usize,
        anti: bool,
        first: Half,
        other: Half,
    ) -> Option<(usize, usize, Half, f64)> {
        let sh = Shear::new(a, b);
        self.first_hit(&sh, i, j, anti, first)
            .or_else(|| self.cell_hit(&sh, i, j, Some(other), 0.0))
            .or_else(|| self.neighbours_hit(&sh, i, j))
    }

    /// [`GeoSurface::first_hit`] with an [`UpShear`]: the same arithmetic, each triangle's corners
    /// written out (no per-corner indexing) and its cell's tables found once.
    #[inline(always)]
    fn first_hit_up(&self, up: &UpShear, i: usize, j: usize, anti: bool, half: Half) -> Option<f64> {
        if self.hf.is_cell_masked(i, j) {
            return None;
        }
        let h = self.hf.corners_f32(i, j);
        let t = self.tables.cell(i, j);
        // The corners in `corner_offsets`' order (the hit's sums are taken in that order).
        match (anti, half) {
            (true, Half::South) => {
                Shear::hit(&up_corner(up, &t, &h, 0, 0), &up_corner(up, &t, &h, 1, 0), &up_corner(up, &t, &h, 0, 1))
            }
            (true, Half::North) => {
                Shear::hit(&up_corner(up, &t, &h, 1, 1), &up_corner(up, &t, &h, 0, 1), &up_corner(up, &t, &h, 1, 0))
            }
            (false, Half::South) => {
                Shear::hit(&up_corner(up, &t, &h, 0, 0), &up_corner(up, &t, &h, 1, 0), &up_corner(up, &t, &h, 1, 1))
            }
            (false, Half::North) => {
                Shear::hit(&up_corner(up, &t, &h, 0, 0), &up_corner(up, &t, &h, 1, 1), &up_corner(up, &t, &h, 0, 1))
            }
        }
    }

    /// Slow path: the line meets no triangle of its own cell (it is near the cell's border, where
    /// the chord edges bulge, or over a hole): the 8 neighbours, then all 9 cells grown by
    /// [`BORDER_EPS`](crate::heightfield::BORDER_EPS) (a line on the border of the grid or of a hole,
    /// where no neighbour shares the edge and rounding could put it a hair outside).
    #[cold]
    fn neighbours_hit(&self, sh: &Shear, i0: usize, j0: usize) -> Option<(usize, usize, Half, f64)> {
        let (ncx, ncy) = (self.hf.nx() - 1, self.hf.ny() - 1);
        for eps in [0.0, crate::heightfield::BORDER_EPS] {
            for j in j0.saturating_sub(1)..=(j0 + 1).min(ncy - 1) {
                for i in i0.saturating_sub(1)..=(i0 + 1).min(ncx - 1) {
                    if eps > 0.0 || (i, j) != (i0, j0) {
                        if let Some(found) = self.cell_hit(sh, i, j, None, eps) {
                            return Some(found);
                        }
                    }
                }
            }
        }
        None
    }

    /// Fast path: the line `sh` against triangle `half` of cell (i, j) alone (the triangle under the
    /// point in (lon, lat), which the line meets unless it passes near an edge): three corners
    /// mapped, by the same arithmetic as [`GeoSurface::mapped_corners`].
    #[inline(always)]
    fn first_hit(&self, sh: &Shear, i: usize, j: usize, anti: bool, half: Half) -> Option<(usize, usize, Half, f64)> {
        if self.hf.is_cell_masked(i, j) {
            return None;
        }
        let h = self.hf.corners_f32(i, j);
        // Written out: a closure mapping each corner was not inlined (≈70 instructions a corner).
        let [p, q, r] = corner_offsets(anti, half);
        let t = &self.tables;
        let a = sh.map(t.position(i + p.0, j + p.1, h[p.1 * 2 + p.0] as f64));
        let b = sh.map(t.position(i + q.0, j + q.1, h[q.1 * 2 + q.0] as f64));
        let c = sh.map(t.position(i + r.0, j + r.1, h[r.1 * 2 + r.0] as f64));
        Shear::hit(&a, &b, &c).map(|t| (i, j, half, t))
    }

    /// The line `sh` against the triangles of cell (i, j) (`first` tried first; grown by `eps`, see
    /// [`triangle_hit`]): the half and t.
    #[inline(always)]
    fn cell_hit(
        &self,
        sh: &Shear,
        i: usize,
        j: usize,
        first: Option<Half>,
        eps: f64,
    ) -> Option<(usize, usize, Half, f64)> {
        if self.hf.is_cell_masked(i, j) {
            return None;
        }
        let m = self.mapped_corners(sh, i, j);
        let anti = self.hf.diagonal().is_anti(i, j);
        let order = match first {
            Some(Half::North) => [Half::North, Half::South],
            _ => [Half::South, Half::North],
        };
        for half in order {
            if let Some(t) = triangle_hit(&m, anti, half, eps) {
                return Some((i, j, half, t));
            }
        }
        None
    }

    /// The corners of cell (i, j) mapped by `sh`: [(i, j), (i+1, j), (i, j+1), (i+1, j+1)] (NaN for
    /// nodata corners).
    #[inline(always)]
    pub(crate) fn mapped_corners(&self, sh: &Shear, i: usize, j: usize) -> [Mapped; 4] {
        let corner = |di: usize, dj: usize| sh.map(self.sample_enu(i + di, j + dj));
        [corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1)]
    }
}

/// Corner (i + `di`, j + `dj`) of a cell with tables `t` and corner heights `h` mapped by `up`.
#[inline(always)]
fn up_corner(up: &UpShear, t: &CellTables<'_>, h: &[f32; 4], di: usize, dj: usize) -> Mapped {
    up.map(t.position(di, dj, h[dj * 2 + di] as f64))
}

/// Whether the CPU has AVX2 (`avx2.rs`).
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `[f(a), f(b), f(c)]`, inlined (`[_; 3].map` is not, in the query loops).
#[inline(always)]
pub(crate) fn map3<T, U>([a, b, c]: [T; 3], f: impl Fn(T) -> U) -> [U; 3] {
    [f(a), f(b), f(c)]
}

/// The line's t on triangle `half` of a cell with mapped corners `m` (NaN corners miss), exact
/// (`eps` = 0) or grown by `eps` ([`Shear::hit_grown`]).
#[inline(always)]
pub(crate) fn triangle_hit(m: &[Mapped; 4], anti: bool, half: Half, eps: f64) -> Option<f64> {
    let [a, b, c] = map3(corner_offsets(anti, half), |(di, dj)| &m[dj * 2 + di]);
    if eps == 0.0 {
        Shear::hit(a, b, c)
    } else {
        Shear::hit_grown(a, b, c, eps)
    }
}

/// A located point: cell, half, height, and the normal line (A, B) it was found on.
struct Located {
    i: usize,
    j: usize,
    half: Half,
    h: f64,
    a: DVec3,
    b: DVec3,
}
