//! Every grid sample's position in an ENU frame without trigonometry per sample.
//!
//! For a sample at longitude λᵢ (column i), latitude φⱼ (row j) and height h, the position in an
//! [`EnuFrame`] with rotation R (rows east, north, up) and ECEF origin O is
//!
//! ```text
//! ENU(i, j, h) = A(i, j) + h·B(i, j),  with, per component k,
//!   A_k = pⱼ·c_k(i) + s_k(j)      pⱼ = N(φⱼ) cos φⱼ,   c_k(i) = R_k0 cos λᵢ + R_k1 sin λᵢ,
//!   B_k = cos φⱼ·c_k(i) + t_k(j)  s_k(j) = N(φⱼ)(1 − e²) sin φⱼ · R_k2 − (R·O)_k,  t_k(j) = sin φⱼ · R_k2
//! ```
//!
//! B is the unit ellipsoid normal, A the point on the ellipsoid. One column table (c, and its
//! derivative d for points between columns) and one row table make any sample's position cost
//! seven multiply-adds ([`GridTables::position`]).

use super::enu::EnuFrame;
use super::wgs84::{prime_vertical_radius, E2};
use glam::DVec3;

/// Per-column values: c_k(i) and d_k(i) = ∂c_k/∂λ (a fourth lane 0: one 4-lane load each).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Column {
    pub(crate) c: [f64; 4],
    pub(crate) d: [f64; 4],
}

/// Per-row values (see the module's formula; s and t with a fourth lane 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub(crate) p: f64,
    pub(crate) cos: f64,
    pub(crate) sin: f64,
    pub(crate) s: [f64; 4],
    pub(crate) t: [f64; 4],
}

/// Column and row tables of a (longitude, latitude) grid in an ENU frame.
///
/// ```
/// use landfall::geo::{EnuFrame, Geodetic, GridTables};
/// let frame = EnuFrame::new(Geodetic::new(7.5, 46.5, 0.0));
/// let lons = [7.0, 7.5, 8.0];
/// let lats = [46.0, 47.0];
/// let t = GridTables::new(&frame, &lons, &lats);
/// let p = t.position(2, 1, 1200.0);
/// assert!((p - frame.geodetic_to_enu(8.0, 47.0, 1200.0)).length() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct GridTables {
    pub(crate) columns: Vec<Column>,
    pub(crate) rows: Vec<Row>,
    /// R_k2 (the frame's rows' ECEF z components) and (R·O)_k, for rows between table rows.
    pub(crate) rz: [f64; 3],
    pub(crate) ro: [f64; 3],
}

impl GridTables {
    /// Tables for columns at longitudes `lons` and rows at latitudes `lats` (degrees) in `frame`.
    pub fn new(frame: &EnuFrame, lons: &[f64], lats: &[f64]) -> Self {
        let r = frame.rotation();
        let ro = r * frame.origin_ecef();
        let row = |k: usize| r.row(k);
        let rz = [row(0).z, row(1).z, row(2).z];
        let columns = lons
            .iter()
            .map(|&lon| {
                let (sl, cl) = lon.to_radians().sin_cos();
                let c = [0, 1, 2, 3].map(|k| if k < 3 { row(k).x * cl + row(k).y * sl } else { 0.0 });
                let d = [0, 1, 2, 3].map(|k| if k < 3 { -row(k).x * sl + row(k).y * cl } else { 0.0 });
                Column { c, d }
            })
            .collect();
        let ro = [ro.x, ro.y, ro.z];
        let rows = lats.iter().map(|&lat| Self::row(super::wgs84::sin_cos_deg(lat), rz, ro)).collect();
        Self { columns, rows, rz, ro }
    }

    #[inline(always)]
    pub(crate) fn row((sin, cos): (f64, f64), rz: [f64; 3], ro: [f64; 3]) -> Row {
        let n = prime_vertical_radius(sin);
        let q = n * (1.0 - E2) * sin;
        // Written out: `[_; 3].map` is not inlined into the query loops.
        let s = [q * rz[0] - ro[0], q * rz[1] - ro[1], q * rz[2] - ro[2], 0.0];
        Row { p: n * cos, cos, sin, s, t: [sin * rz[0], sin * rz[1], sin * rz[2], 0.0] }
    }

    /// Number of columns.
    pub fn columns(&self) -> usize {
        self.columns.len()
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// ENU position of sample (i, j) at height `h`: A(i, j) + h·B(i, j), seven multiply-adds.
    /// Panics when (i, j) is out of range, like slice indexing.
    #[inline(always)]
    pub fn position(&self, i: usize, j: usize, h: f64) -> DVec3 {
        let (c, r) = (&self.columns[i].c, &self.rows[j]);
        let rho = r.p + h * r.cos;
        DVec3::new(
            rho * c[0] + (r.s[0] + h * r.t[0]),
            rho * c[1] + (r.s[1] + h * r.t[1]),
            rho * c[2] + (r.s[2] + h * r.t[2]),
        )
    }

    /// The tables of cell (i, j): columns i, i + 1 and rows j, j + 1 (two bounds checks for its
    /// four corners). Panics when the cell is out of range, like slice indexing.
    #[inline(always)]
    pub(crate) fn cell(&self, i: usize, j: usize) -> CellTables<'_> {
        CellTables {
            columns: self.columns[i..i + 2].try_into().expect("two columns"),
            rows: self.rows[j..j + 2].try_into().expect("two rows"),
        }
    }

    /// A(i, j) (the point on the ellipsoid) and B(i, j) (the unit normal) of sample (i, j).
    pub fn a_b(&self, i: usize, j: usize) -> (DVec3, DVec3) {
        let (c, r) = (&self.columns[i].c, &self.rows[j]);
        let a = DVec3::new(r.p * c[0] + r.s[0], r.p * c[1] + r.s[1], r.p * c[2] + r.s[2]);
        let b = DVec3::new(r.cos * c[0] + r.t[0], r.cos * c[1] + r.t[1], r.cos * c[2] + r.t[2]);
        (a, b)
    }

    /// A and B at longitude λᵢ + `dlon` and latitude φⱼ + `dlat` (radians from column i and row j):
    /// the ellipsoid normal line {A + h·B} through that (lon, lat). Without trigonometry for offsets
    /// within 0.1 rad (a short series, exact to f64 rounding), with it beyond.
    #[inline(always)]
    pub fn normal_line(&self, i: usize, j: usize, dlon: f64, dlat: f64) -> (DVec3, DVec3) {
        let col = &self.columns[i];
        let (sl, cl) = sin_cos_small(dlon);
        let c = [col.c[0] * cl + col.d[0] * sl, col.c[1] * cl + col.d[1] * sl, col.c[2] * cl + col.d[2] * sl];
        let r0 = &self.rows[j];
        let (sd, cd) = sin_cos_small(dlat);
        let (sin, cos) = (r0.sin * cd + r0.cos * sd, r0.cos * cd - r0.sin * sd);
        let r = if dlat == 0.0 { *r0 } else { Self::row((sin, cos), self.rz, self.ro) };
        let a = DVec3::new(r.p * c[0] + r.s[0], r.p * c[1] + r.s[1], r.p * c[2] + r.s[2]);
        let b = DVec3::new(r.cos * c[0] + r.t[0], r.cos * c[1] + r.t[1], r.cos * c[2] + r.t[2]);
        (a, b)
    }
}

/// The tables of one cell's two columns and two rows ([`GridTables::cell`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellTables<'a> {
    columns: &'a [Column; 2],
    rows: &'a [Row; 2],
}

impl CellTables<'_> {
    /// [`GridTables::position`] of corner (i + `di`, j + `dj`) (`di`, `dj` in 0…1), by the same
    /// arithmetic (the same bits) without a bounds check.
    #[inline(always)]
    pub fn position(&self, di: usize, dj: usize, h: f64) -> DVec3 {
        let (c, r) = (&self.columns[di & 1].c, &self.rows[dj & 1]);
        let rho = r.p + h * r.cos;
        DVec3::new(
            rho * c[0] + (r.s[0] + h * r.t[0]),
            rho * c[1] + (r.s[1] + h * r.t[1]),
            rho * c[2] + (r.s[2] + h * r.t[2]),
        )
    }
}

/// (sin x, cos x): a Taylor series for |x| ≤ 0.1 (the first omitted terms are below 1e-19 of the
/// result), the library call beyond.
#[inline(always)]
pub(crate) fn sin_cos_small(x: f64) -> (f64, f64) {
    if x.abs() > 0.1 {
        return x.sin_cos();
    }
    // Reciprocals, not divisions (a division costs several multiplications' time).
    let x2 = x * x;
    let s = x
        * (1.0 - x2 * (1.0 / 6.0) * (1.0 - x2 * (1.0 / 20.0) * (1.0 - x2 * (1.0 / 42.0) * (1.0 - x2 * (1.0 / 72.0)))));
    let c = 1.0
        - x2 * 0.5
            * (1.0
                - x2 * (1.0 / 12.0)
                    * (1.0 - x2 * (1.0 / 30.0) * (1.0 - x2 * (1.0 / 56.0) * (1.0 - x2 * (1.0 / 90.0)))));
    (s, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::Geodetic;
    use proptest::prelude::*;

    #[test]
    fn small_angle_series_matches_the_library() {
        for k in -1000..=1000 {
            let x = k as f64 * 1e-4;
            let (s, c) = sin_cos_small(x);
            assert!((s - x.sin()).abs() <= 2e-17 && (c - x.cos()).abs() <= 2e-16, "{x}");
        }
    }

    proptest! {
        /// Table positions and normal lines equal the direct geodetic → ENU map.
        #[test]
        fn tables_match_the_direct_map(lon0 in -200.0f64..200.0, lat0 in -89.0f64..88.0, h in -500.0f64..9000.0,
                                       fi in 0.0f64..1.0, fj in 0.0f64..1.0) {
            let frame = EnuFrame::new(Geodetic::new(lon0 + 0.5, lat0 + 0.5, 0.0));
            let lons: Vec<f64> = (0..11).map(|i| lon0 + i as f64 * 0.1).collect();
            let lats: Vec<f64> = (0..11).map(|j| lat0 + j as f64 * 0.1).collect();
            let t = GridTables::new(&frame, &lons, &lats);
            for (i, j) in [(0, 0), (10, 10), (3, 7)] {
                let direct = frame.geodetic_to_enu(lons[i], lats[j], h);
                prop_assert!((t.position(i, j, h) - direct).length() < 1e-7);
            }
            let (lon, lat) = (lons[4] + fi * 0.1, lats[6] + fj * 0.1);
            let (a, b) = t.normal_line(4, 6, (fi * 0.1).to_radians(), (fj * 0.1).to_radians());
            prop_assert!((a + b * h - frame.geodetic_to_enu(lon, lat, h)).length() < 1e-7);
            prop_assert!((b.length() - 1.0).abs() < 1e-15);
        }
    }
}
