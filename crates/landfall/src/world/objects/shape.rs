//! Collision shapes of objects and the triangles that stand for them: what the character
//! controller, the sweeps and the rays collide with is these triangles, so what is drawn and what
//! is hit agree.

use glam::{DVec2, DVec3};

/// An object's collision shape, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A ball (stones, boulders): an icosahedron inscribed in the sphere (20 triangles).
    Sphere {
        /// Centre.
        c: DVec3,
        /// Radius.
        r: f64,
    },
    /// An upright capsule-like column (tree trunks): an octagonal prism of `r` around the vertical
    /// segment from `a` up to `b`, closed at both ends (28 triangles).
    Column {
        /// Bottom centre.
        a: DVec3,
        /// Top centre.
        b: DVec3,
        /// Radius.
        r: f64,
    },
    /// An upright box turned by `yaw` about the vertical (houses, halls): 12 triangles.
    Box {
        /// Centre.
        c: DVec3,
        /// Half extents along its own x (the heading), y and z.
        half: DVec3,
        /// Heading, radians from +x toward +y.
        yaw: f64,
    },
}

/// The icosahedron's 12 unit vertices and 20 faces (outward, counter-clockwise).
const ICO_FACES: [[usize; 3]; 20] = [
    [0, 11, 5],
    [0, 5, 1],
    [0, 1, 7],
    [0, 7, 10],
    [0, 10, 11],
    [1, 5, 9],
    [5, 11, 4],
    [11, 10, 2],
    [10, 7, 6],
    [7, 1, 8],
    [3, 9, 4],
    [3, 4, 2],
    [3, 2, 6],
    [3, 6, 8],
    [3, 8, 9],
    [4, 9, 5],
    [2, 4, 11],
    [6, 2, 10],
    [8, 6, 7],
    [9, 8, 1],
];

fn ico_vertex(k: usize) -> DVec3 {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let v = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ][k];
    DVec3::from_array(v).normalize()
}

/// The box's 12 triangles as corner indices (corner bit 0: +x, bit 1: +y, bit 2: +z), outward.
const BOX_FACES: [[usize; 3]; 12] = [
    [0, 2, 3],
    [0, 3, 1],
    [4, 5, 7],
    [4, 7, 6],
    [0, 1, 5],
    [0, 5, 4],
    [2, 6, 7],
    [2, 7, 3],
    [0, 4, 6],
    [0, 6, 2],
    [1, 3, 7],
    [1, 7, 5],
];

impl Shape {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        match self {
            Shape::Sphere { .. } => 20,
            Shape::Column { .. } => 28,
            Shape::Box { .. } => 12,
        }
    }

    /// Triangle `k` (< [`triangle_count`](Self::triangle_count)).
    pub fn triangle(&self, k: usize) -> [DVec3; 3] {
        match *self {
            Shape::Sphere { c, r } => ICO_FACES[k].map(|v| c + ico_vertex(v) * r),
            Shape::Column { a, b, r } => {
                let ring = |n: usize, z: DVec3| {
                    let ang = n as f64 * std::f64::consts::TAU / 8.0;
                    z + DVec3::new(ang.cos() * r, ang.sin() * r, 0.0)
                };
                match k {
                    0..=15 => {
                        let n = k / 2;
                        let (p, q) = (n, (n + 1) % 8);
                        if k.is_multiple_of(2) {
                            [ring(p, a), ring(q, a), ring(q, b)]
                        } else {
                            [ring(p, a), ring(q, b), ring(p, b)]
                        }
                    }
                    16..=21 => {
                        let n = k - 16;
                        [ring(0, b), ring(n + 1, b), ring(n + 2, b)]
                    }
                    _ => {
                        let n = k - 22;
                        [ring(0, a), ring(n + 2, a), ring(n + 1, a)]
                    }
                }
            }
            Shape::Box { c, half, yaw } => {
                let (s, co) = yaw.sin_cos();
                let corner = |n: usize| {
                    let l = DVec3::new(
                        if n & 1 == 0 { -half.x } else { half.x },
                        if n & 2 == 0 { -half.y } else { half.y },
                        if n & 4 == 0 { -half.z } else { half.z },
                    );
                    c + DVec3::new(l.x * co - l.y * s, l.x * s + l.y * co, l.z)
                };
                BOX_FACES[k].map(corner)
            }
        }
    }

    /// Its height: the vertical extent (a ball's diameter, a column's length, a box's height); at
    /// least its top's height above the ground it stands on, whose base is at or below it.
    pub fn height(&self) -> f64 {
        match *self {
            Shape::Sphere { r, .. } => 2.0 * r,
            Shape::Column { a, b, .. } => (b.z - a.z).abs(),
            Shape::Box { half, .. } => 2.0 * half.z,
        }
    }

    /// The sphere around the shape (centre, radius).
    pub fn bounding_sphere(&self) -> (DVec3, f64) {
        match *self {
            Shape::Sphere { c, r } => (c, r),
            Shape::Column { a, b, r } => ((a + b) * 0.5, (b - a).length() * 0.5 + r),
            Shape::Box { c, half, .. } => (c, half.length()),
        }
    }

    /// Whether the point lies inside the solid (for tests and placement checks).
    pub fn contains(&self, p: DVec3) -> bool {
        match *self {
            Shape::Sphere { c, r } => (p - c).length() < r * ICO_INRADIUS,
            Shape::Column { a, b, r } => {
                p.z > a.z
                    && p.z < b.z
                    && (p.truncate() - a.truncate()).length() < r * (std::f64::consts::PI / 8.0).cos()
            }
            Shape::Box { c, half, yaw } => {
                let (s, co) = yaw.sin_cos();
                let d = p - c;
                let l = DVec2::new(d.x * co + d.y * s, -d.x * s + d.y * co);
                l.x.abs() < half.x && l.y.abs() < half.y && d.z.abs() < half.z
            }
        }
    }
}

/// Inradius of the unit icosahedron (the inscribed sphere touches every face).
const ICO_INRADIUS: f64 = 0.794_654_472_291_766_1;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape is closed and outward: the triangles' areas weighted by their outward normals
    /// sum to zero, and the divergence theorem gives the solid's volume.
    #[test]
    fn shapes_are_closed_and_outward() {
        let shapes = [
            Shape::Sphere { c: DVec3::new(1.0, 2.0, 3.0), r: 2.0 },
            Shape::Column { a: DVec3::new(5.0, 1.0, -1.0), b: DVec3::new(5.0, 1.0, 9.0), r: 0.5 },
            Shape::Box { c: DVec3::new(-3.0, 4.0, 2.0), half: DVec3::new(4.0, 2.0, 1.5), yaw: 0.7 },
        ];
        for s in shapes {
            let (mut area_vec, mut vol) = (DVec3::ZERO, 0.0);
            let (c, _) = s.bounding_sphere();
            for k in 0..s.triangle_count() {
                let t = s.triangle(k);
                let n = (t[1] - t[0]).cross(t[2] - t[0]);
                area_vec += n;
                vol += (t[0] - c).dot(n) / 6.0;
                // Outward: the centre is behind every face.
                assert!((c - t[0]).dot(n) < 0.0, "{s:?} face {k} points inward");
            }
            assert!(area_vec.length() < 1e-9, "{s:?} not closed");
            let want = match s {
                // (5/12)(3 + √5)·a³ with the edge a = r / sin(2π/5).
                Shape::Sphere { r, .. } => {
                    let a = r / (0.4 * std::f64::consts::PI).sin();
                    5.0 / 12.0 * (3.0 + 5f64.sqrt()) * a * a * a
                }
                Shape::Column { a, b, r } => 2.0 * 2f64.sqrt() * r * r * (b - a).length(),
                Shape::Box { half, .. } => 8.0 * half.x * half.y * half.z,
            };
            assert!((vol - want).abs() < 1e-9 * want, "{s:?}: volume {vol} vs {want}");
            assert!(s.contains(c));
        }
    }
}
