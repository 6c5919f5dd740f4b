//! Geometry shared by every terrain: rays, boxes, hits, triangle identities.

mod aabb;
mod ball;
mod ray;
pub(crate) mod round;

pub use aabb::Aabb;
pub use ball::ray_ball;
pub use ray::{Ray, RayError};

use glam::DVec3;

/// Largest magnitude of a coordinate landfall answers at (1e150): products of two coordinates stay
/// within f64. Polygon vertices beyond it are refused (`PolygonTerrain::MAX_COORDINATE`), as are
/// rays from beyond it ([`RayError::OriginOutOfRange`]).
pub(crate) const MAX_COORDINATE: f64 = 1e150;

/// Hints the CPU to fetch the cache line holding `item` (a hint: no effect on program state).
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    prefetch_ptr(item as *const T);
}

/// Hints the CPU to fetch the cache line at `p`, which need not point into anything: a prefetch
/// never faults and has no effect on program state.
#[inline(always)]
pub(crate) fn prefetch_ptr<T>(p: *const T) {
    // SAFETY: prefetching neither reads the program's memory nor faults, whatever the address.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Hints the CPU to fetch the starts of `rows` rows of a row-major array, `stride` elements apart,
/// from `first`. Addresses only: rows past the array are harmless (see [`prefetch_ptr`]).
#[inline(always)]
pub(crate) fn prefetch_rows<T>(first: *const T, stride: usize, rows: usize) {
    for r in 0..rows {
        prefetch_ptr(first.wrapping_add(r * stride));
    }
}

/// Möller–Trumbore: t of the hit of `o + t·d` with triangle `v` (any t, two-sided), or `None`
/// when the ray misses it or is parallel to it. Not watertight: a ray through a shared edge may miss
/// both triangles. The 2017 paper's baselines and the benchmarks' naive scan use it; landfall's own
/// ray walk does not.
#[inline]
pub fn moller_trumbore(o: DVec3, d: DVec3, v: &[DVec3; 3]) -> Option<f64> {
    moller_trumbore_grown(o, d, v, 0.0)
}

/// [`moller_trumbore`] with the triangle grown by `eps` in barycentric terms: points up to `eps`
/// outside it count as inside, so that neighbours overlap by a hair and a ray through their shared
/// edge or vertex cannot miss both (the procedural world's cell walk relies on it).
#[inline]
pub fn moller_trumbore_grown(o: DVec3, d: DVec3, v: &[DVec3; 3], eps: f64) -> Option<f64> {
    let e1 = v[1] - v[0];
    let e2 = v[2] - v[0];
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - v[0];
    let a = s.dot(p) * inv;
    if !(-eps..=1.0 + eps).contains(&a) {
        return None;
    }
    let q = s.cross(e1);
    let b = d.dot(q) * inv;
    if b < -eps || a + b > 1.0 + eps {
        return None;
    }
    Some(e2.dot(q) * inv)
}

/// Which of the two triangles of a heightfield cell.
///
/// Whatever the diagonal, one triangle of a cell touches the cell's south edge (smallest y) and the
/// other its north edge, so the halves are named after them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// The triangle that has the cell's south edge as one of its sides.
    South,
    /// The triangle that has the cell's north edge as one of its sides.
    North,
}

/// Identity of the triangle (or polygon) a query landed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriangleId {
    /// Triangle `half` of heightfield cell (`i`, `j`): the cell spanning samples i..i+1, j..j+1.
    Cell {
        /// Column of the cell (0 ≤ i < nx − 1).
        i: u32,
        /// Row of the cell (0 ≤ j < ny − 1), row 0 at the south edge.
        j: u32,
        /// Which of the two triangles of the cell.
        half: Half,
    },
    /// A polygon of a polygon terrain, by its index in the input.
    Polygon(u32),
    /// A triangle of a procedural world's drawn mesh: for `part` 0–3, fan triangle `part` (south,
    /// east, north, west) of cell (`i`, `j`) of layer `level`; for `part` ≥ 4, triangle `part − 4`
    /// of the seam between layer `level` and the next finer one, whose window starts at cell
    /// (`i`, `j`) of layer `level`.
    Lod {
        /// The layer (level of detail; 0 = finest).
        level: u8,
        /// Fan triangle (0–3) or seam triangle + 4.
        part: u16,
        /// Cell column at that level.
        i: i32,
        /// Cell row at that level.
        j: i32,
    },
    /// Triangle `tri` of the collision shape of object `object` (a slot of
    /// [`world::Objects`](crate::world::Objects)).
    Object {
        /// The object's slot.
        object: u32,
        /// Which triangle of its shape.
        tri: u16,
    },
}

/// A point on the terrain surface with its upward unit normal (oriented against gravity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// The point on the surface, world coordinates.
    pub point: DVec3,
    /// Unit geometric normal of the triangle, oriented against gravity.
    pub normal: DVec3,
    /// The triangle the point lies on.
    pub triangle: TriangleId,
}

/// The first crossing of a ray with a terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Ray parameter of the hit, in units of the ray direction's length.
    pub t: f64,
    /// Hit point, `origin + t · dir`.
    pub point: DVec3,
    /// Unit geometric normal of the hit triangle, oriented against gravity.
    pub normal: DVec3,
    /// The triangle that was hit.
    pub triangle: TriangleId,
}
