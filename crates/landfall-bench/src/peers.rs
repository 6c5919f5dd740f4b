//! The peers on the same data: parry3d `HeightField` and `TriMesh` (f32, Y up, so landfall's
//! (x, y, z) is parry's (x, z, y)), and the naive scan of every triangle.

use glam::DVec3;
use landfall::support::moller_trumbore;
use landfall::{Half, Heightfield, Ray};
use parry3d::math::{Pose, Vector};
use parry3d::query::{Ray as PRay, RayCast};
use parry3d::shape::{HeightField, HeightFieldCellStatus, TriMesh};
use parry3d::utils::Array2;

/// A parry shape in a frame centred on the landfall grid (keeps f32 coordinates small).
pub struct Parry<S> {
    /// The parry shape.
    pub shape: S,
    center: DVec3,
}

/// `p` in a Y-up f32 frame centred on `c` (parry's and Jolt's): landfall's (x, y, z) − c becomes
/// (x, z, y).
pub fn y_up(p: DVec3, c: DVec3) -> [f32; 3] {
    let q = p - c;
    [q.x as f32, q.z as f32, q.y as f32]
}

fn to_parry(p: DVec3, c: DVec3) -> Vector {
    Vector::from(y_up(p, c))
}

impl<S: RayCast> Parry<S> {
    /// Parry's first hit t (solid = false: surfaces only), in landfall's units of |dir|.
    #[inline]
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<f32> {
        let r = PRay::new(to_parry(ray.origin, self.center), to_parry(ray.dir, DVec3::ZERO));
        let max = if max_t.is_finite() { max_t as f32 } else { f32::MAX };
        self.shape.cast_ray_and_get_normal(&Pose::IDENTITY, &r, max, false).map(|h| h.time_of_impact)
    }
}

/// parry3d `TriMesh` of a triangle list (world vertices, triangles indexing them).
pub fn parry_tin(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Parry<TriMesh> {
    let b = vertices.iter().fold(landfall::Aabb::EMPTY, |b, &v| b.grown(v));
    let c = DVec3::new((b.min.x + b.max.x) * 0.5, (b.min.y + b.max.y) * 0.5, 0.0);
    let verts: Vec<Vector> = vertices.iter().map(|&v| to_parry(v, c)).collect();
    Parry { shape: TriMesh::new(verts, triangles.to_vec()).expect("valid mesh"), center: c }
}

/// The middle of `hf`'s grid at z = 0: the peers' f32 frames are centred there.
pub fn center(hf: &Heightfield) -> DVec3 {
    let b = hf.bounds();
    DVec3::new((b.min.x + b.max.x) * 0.5, (b.min.y + b.max.y) * 0.5, 0.0)
}

/// parry3d `HeightField` with the same triangles as `hf` (alternating diagonal via per-cell
/// zigzag flags).
pub fn parry_heightfield(hf: &Heightfield) -> Parry<HeightField> {
    let (nx, ny) = (hf.nx(), hf.ny());
    // Column-major: rows advance along parry z = landfall y, columns along x.
    let mut data = Vec::with_capacity(nx * ny);
    for i in 0..nx {
        for j in 0..ny {
            data.push(hf.sample(i, j));
        }
    }
    let s = hf.spacing();
    let scale = Vector::new(((nx - 1) as f64 * s.x) as f32, 1.0, ((ny - 1) as f64 * s.y) as f32);
    let mut shape = HeightField::new(Array2::new(ny, nx, data), scale);
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            // parry's default cell diagonal is landfall's se-nw; zigzag gives sw-ne.
            if !hf.diagonal().is_anti(i, j) {
                shape.set_cell_status(j, i, HeightFieldCellStatus::ZIGZAG_SUBDIVISION);
            }
        }
    }
    Parry { shape, center: center(hf) }
}

/// Every existing triangle of `hf` in world coordinates.
pub fn triangles(hf: &Heightfield) -> Vec<[DVec3; 3]> {
    let mut out = Vec::with_capacity(2 * (hf.nx() - 1) * (hf.ny() - 1));
    for j in 0..hf.ny() - 1 {
        for i in 0..hf.nx() - 1 {
            for half in [Half::South, Half::North] {
                out.extend(hf.cell_triangle(i, j, half));
            }
        }
    }
    out
}

/// The triangles of `hf` as an indexed mesh: its samples' world positions (row by row, south
/// first) and, per cell, its two triangles (south half first) indexing them.
pub fn grid_mesh(hf: &Heightfield) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let (nx, ny) = (hf.nx(), hf.ny());
    let verts = (0..ny).flat_map(|j| (0..nx).map(move |i| hf.sample_position(i, j))).collect();
    let mut idx = Vec::with_capacity(2 * (nx - 1) * (ny - 1));
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let v = |di: usize, dj: usize| ((j + dj) * nx + i + di) as u32;
            if hf.diagonal().is_anti(i, j) {
                idx.push([v(0, 0), v(1, 0), v(0, 1)]);
                idx.push([v(1, 1), v(0, 1), v(1, 0)]);
            } else {
                idx.push([v(0, 0), v(1, 0), v(1, 1)]);
                idx.push([v(0, 0), v(1, 1), v(0, 1)]);
            }
        }
    }
    (verts, idx)
}

/// parry3d `TriMesh` of exactly the same triangles.
pub fn parry_trimesh(hf: &Heightfield) -> Parry<TriMesh> {
    let c = center(hf);
    let (verts, idx) = grid_mesh(hf);
    let verts = verts.into_iter().map(|v| to_parry(v, c)).collect();
    Parry { shape: TriMesh::new(verts, idx).expect("valid mesh"), center: c }
}

/// How many rays of `set` (ray, max_t) `peer` answers differently from `hf`: a first hit t more
/// than 1e-3 relative apart, or a hit where the other has none.
pub fn differing(hf: &Heightfield, set: &[(Ray, f64)], peer: impl Fn(&Ray, f64) -> Option<f32>) -> usize {
    set.iter()
        .filter(|(r, m)| {
            let (a, b) = (hf.raycast(r, *m).map(|h| h.t), peer(r, *m).map(|t| t as f64));
            !match (a, b) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-3 * (1.0 + x.abs()),
                (None, None) => true,
                _ => false,
            }
        })
        .count()
}

/// The naive scan: every triangle, Möller–Trumbore in f64, nearest hit in [0, `max_t`].
pub fn naive_raycast(tris: &[[DVec3; 3]], ray: &Ray, max_t: f64) -> Option<f64> {
    tris.iter()
        .filter_map(|v| moller_trumbore(ray.origin, ray.dir, v))
        .filter(|&t| t >= 0.0 && t <= max_t)
        .min_by(f64::total_cmp)
}

/// Bytes per sample of a parry `HeightField` (f32 height + 1-byte cell status).
pub const PARRY_HEIGHTFIELD_BYTES_PER_SAMPLE: f64 = 5.0;
