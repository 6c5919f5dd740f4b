//! Triangulation of one grid cell: which diagonal, which half, and the plane of each half.
//!
//! Inside cell (i, j) we use local coordinates (fu, fv) ∈ [0, 1]², fu along +x, fv along +y.
//! Each half is the plane `z = c + gu·fu + gv·fv`, computed from the three corner samples it uses,
//! so a NaN corner makes the plane NaN (the triangle is a hole).

pub use crate::geom::Half;

/// How every cell is split into two triangles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// The 2017 paper's pattern: cells with (i + j) even are split by (i+1, j)–(i, j+1), cells with
    /// (i + j) odd by (i, j)–(i+1, j+1).
    #[default]
    Alternating,
    /// Every cell split by (i, j)–(i+1, j+1).
    SouthWestNorthEast,
    /// Every cell split by (i+1, j)–(i, j+1).
    SouthEastNorthWest,
}

impl Diagonal {
    /// True when cell (i, j) is split by the south-east–north-west diagonal (i+1, j)–(i, j+1).
    #[inline(always)]
    pub fn is_anti(self, i: usize, j: usize) -> bool {
        match self {
            Diagonal::Alternating => (i + j) & 1 == 0,
            Diagonal::SouthWestNorthEast => false,
            Diagonal::SouthEastNorthWest => true,
        }
    }

    /// The CLI / file spelling: `alternating`, `sw-ne` or `se-nw`.
    pub fn name(self) -> &'static str {
        match self {
            Diagonal::Alternating => "alternating",
            Diagonal::SouthWestNorthEast => "sw-ne",
            Diagonal::SouthEastNorthWest => "se-nw",
        }
    }
}

impl std::str::FromStr for Diagonal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "alternating" => Ok(Diagonal::Alternating),
            "sw-ne" | "swne" => Ok(Diagonal::SouthWestNorthEast),
            "se-nw" | "senw" => Ok(Diagonal::SouthEastNorthWest),
            _ => Err(format!("unknown diagonal '{s}' (expected alternating, sw-ne or se-nw)")),
        }
    }
}

/// Grid index → f64 through u32 (one instruction; `usize as f64` needs a slow unsigned sequence).
/// Grid sizes are bounded well below 2³² by the builder.
#[inline(always)]
pub(crate) fn to_f(i: usize) -> f64 {
    i as u32 as f64
}

/// `floor(p)` as a cell index clamped to `[lo, hi]`, through i32 (fast truncation; `as usize`
/// from f64 is slow). NaN maps to `lo`.
#[inline(always)]
pub(crate) fn cell_index(p: f64, lo: usize, hi: usize) -> usize {
    (p as i32).clamp(lo as i32, hi as i32) as usize
}

/// The cell along one axis holding a ray at grid coordinate `p` moving with speed `d`, within
/// cells `[lo, hi)`: `floor(p)` clamped, except that a ray exactly on a cell boundary and moving
/// down belongs to the cell below it.
#[inline(always)]
pub(crate) fn cell_along(p: f64, d: f64, lo: usize, hi: usize) -> usize {
    let c = cell_index(p, lo, hi - 1);
    if d < 0.0 && to_f(c) == p && c > lo {
        c - 1
    } else {
        c
    }
}

/// The four corner heights of a cell: `h00` at (i, j), `h10` at (i+1, j), `h01` at (i, j+1),
/// `h11` at (i+1, j+1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Corners {
    pub h00: f64,
    pub h10: f64,
    pub h01: f64,
    pub h11: f64,
}

impl From<[f32; 4]> for Corners {
    #[inline(always)]
    fn from(k: [f32; 4]) -> Self {
        Corners { h00: k[0] as f64, h10: k[1] as f64, h01: k[2] as f64, h11: k[3] as f64 }
    }
}

/// Plane of one triangle in cell-local coordinates: `z = c + gu·fu + gv·fv`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellPlane {
    pub c: f64,
    pub gu: f64,
    pub gv: f64,
}

impl CellPlane {
    #[inline(always)]
    pub fn eval(&self, fu: f64, fv: f64) -> f64 {
        self.c + self.gu * fu + self.gv * fv
    }

    /// True when a corner of the triangle is NaN (a hole).
    #[inline(always)]
    pub fn is_hole(&self) -> bool {
        (self.c + self.gu + self.gv).is_nan()
    }
}

/// Which half contains local point (fu, fv), and its plane. Points on the diagonal belong to the
/// south half. Both are picked without a branch (the side by a 0/1 blend, the plane by index): the
/// diagonal's direction and the half are as random as the query points, and a branch on them is
/// mispredicted half the time.
#[inline(always)]
pub(crate) fn half_and_plane(anti: bool, fu: f64, fv: f64, k: &Corners) -> (Half, CellPlane) {
    let a = usize::from(anti);
    // `diagonal_side`, blended: an index or bit-mask select of the side is turned back into a
    // branch by the compiler; a product with 0 or 1 is exact for these finite values. (The ray walk
    // keeps the branchy `diagonal_side`: along a ray the diagonal alternates predictably, and the
    // blend there cost ~1 %.)
    let af = f64::from(u8::from(anti));
    let side = (fv - fu) * (1.0 - af) + (fu + fv - 1.0) * af;
    let north = usize::from(side > 0.0);
    let planes = [
        plane(false, Half::South, k),
        plane(false, Half::North, k),
        plane(true, Half::South, k),
        plane(true, Half::North, k),
    ];
    // One array per coefficient: each is stored and loaded 8 bytes at a time, so every load is
    // forwarded from a single store (a 16-byte load of two coefficients stored one by one stalls).
    let i = 2 * a + north;
    let (c, gu, gv) = (planes.map(|p| p.c), planes.map(|p| p.gu), planes.map(|p| p.gv));
    ([Half::South, Half::North][north], CellPlane { c: c[i], gu: gu[i], gv: gv[i] })
}

/// Signed distance-like value of (fu, fv) from the cell's diagonal: ≤ 0 on the south side.
#[inline(always)]
pub(crate) fn diagonal_side(anti: bool, fu: f64, fv: f64) -> f64 {
    if anti {
        fu + fv - 1.0
    } else {
        fv - fu
    }
}

/// The plane of triangle `half` of a cell with the given diagonal.
#[inline(always)]
pub(crate) fn plane(anti: bool, half: Half, k: &Corners) -> CellPlane {
    match (anti, half) {
        // (0,0) (1,0) (0,1)
        (true, Half::South) => CellPlane { c: k.h00, gu: k.h10 - k.h00, gv: k.h01 - k.h00 },
        // (1,1) (0,1) (1,0)
        (true, Half::North) => {
            let gu = k.h11 - k.h01;
            let gv = k.h11 - k.h10;
            CellPlane { c: k.h11 - gu - gv, gu, gv }
        }
        // (0,0) (1,0) (1,1)
        (false, Half::South) => CellPlane { c: k.h00, gu: k.h10 - k.h00, gv: k.h11 - k.h10 },
        // (0,0) (1,1) (0,1)
        (false, Half::North) => CellPlane { c: k.h00, gu: k.h11 - k.h01, gv: k.h01 - k.h00 },
    }
}

/// Corners of triangle `half`, as (di, dj) offsets from the cell's south-west sample.
pub(crate) fn corner_offsets(anti: bool, half: Half) -> [(usize, usize); 3] {
    match (anti, half) {
        (true, Half::South) => [(0, 0), (1, 0), (0, 1)],
        (true, Half::North) => [(1, 1), (0, 1), (1, 0)],
        (false, Half::South) => [(0, 0), (1, 0), (1, 1)],
        (false, Half::North) => [(0, 0), (1, 1), (0, 1)],
    }
}
