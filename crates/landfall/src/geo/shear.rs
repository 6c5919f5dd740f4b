//! The watertight ray–triangle test of Woop, Benthin and Wald (2013) in f64: a line is mapped to
//! the z axis by a translation, a permutation and a shear; each vertex is mapped once, and each
//! edge's 2-D function is computed from the two mapped vertices alone, so two triangles sharing an
//! edge compute exactly opposite values for it and a line through the edge cannot slip between
//! them (zero counts as inside for both).

use glam::DVec3;

/// A line `o + t·d` prepared for the test.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shear {
    o: DVec3,
    kx: usize,
    ky: usize,
    kz: usize,
    sx: f64,
    sy: f64,
    sz: f64,
}

/// A vertex in the line's sheared space: (x, y) across the line, z = t of its foot on the line.
pub(crate) type Mapped = [f64; 3];

impl Shear {
    /// The line through `o` along `d` (finite, non-zero).
    #[inline(always)]
    pub fn new(o: DVec3, d: DVec3) -> Self {
        let a = d.abs();
        let kz = if a.x > a.y {
            if a.x > a.z {
                0
            } else {
                2
            }
        } else if a.y > a.z {
            1
        } else {
            2
        };
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        if d[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        // One division: every vertex is mapped with the same factors, so the test stays watertight.
        let sz = 1.0 / d[kz];
        Self { o, kx, ky, kz, sx: d[kx] * sz, sy: d[ky] * sz, sz }
    }

    /// `p` in the sheared space.
    #[inline(always)]
    pub fn map(&self, p: DVec3) -> Mapped {
        // An array, not the vector's `Index` (a match per component).
        let a = (p - self.o).to_array();
        let z = a[self.kz];
        [a[self.kx] - self.sx * z, a[self.ky] - self.sy * z, self.sz * z]
    }

    /// The line parameter t where the line meets triangle (a, b, c) (mapped vertices), or `None`.
    /// Either winding; a line in the triangle's plane misses.
    #[inline(always)]
    pub fn hit(a: &Mapped, b: &Mapped, c: &Mapped) -> Option<f64> {
        let u = c[0] * b[1] - c[1] * b[0];
        let v = a[0] * c[1] - a[1] * c[0];
        let w = b[0] * a[1] - b[1] * a[0];
        if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
            return None;
        }
        let det = u + v + w;
        if det == 0.0 || det.is_nan() {
            return None;
        }
        Some((u * a[2] + v * b[2] + w * c[2]) / det)
    }

    /// [`Shear::hit`] with the triangle grown by `eps` of its edge functions' sum: a line within that
    /// of an edge counts as on it. Only where no neighbour shares the edge (the grid's border, a
    /// hole's border), where rounding could otherwise lose a line aimed exactly at the edge.
    #[inline]
    pub fn hit_grown(a: &Mapped, b: &Mapped, c: &Mapped, eps: f64) -> Option<f64> {
        let u = c[0] * b[1] - c[1] * b[0];
        let v = a[0] * c[1] - a[1] * c[0];
        let w = b[0] * a[1] - b[1] * a[0];
        let det = u + v + w;
        let tol = eps * (u.abs() + v.abs() + w.abs());
        let inside = (u >= -tol && v >= -tol && w >= -tol) || (u <= tol && v <= tol && w <= tol);
        if !inside || det == 0.0 || det.is_nan() {
            return None;
        }
        Some((u * a[2] + v * b[2] + w * c[2]) / det)
    }

    /// Which sides of the line a mapped point lies strictly on, as bits: x > 0, x < 0, y > 0, y < 0.
    /// Points whose bits have one in common (their `&` is not 0) lie strictly on one side of the
    /// line: no triangle with its corners among them meets it.
    #[inline(always)]
    pub fn sides(p: &Mapped) -> u8 {
        (p[0] > 0.0) as u8 | ((p[0] < 0.0) as u8) << 1 | ((p[1] > 0.0) as u8) << 2 | ((p[1] < 0.0) as u8) << 3
    }
}

/// [`Shear`] for a line whose direction is mostly up (its z is positive and the largest of its
/// components by magnitude, as an ellipsoid normal is in an ENU frame within tens of degrees of its
/// origin): the same arithmetic as [`Shear`]'s (then z, x, y are its kz, kx, ky), so the same bits,
/// without choosing the axes per line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UpShear {
    o: DVec3,
    sx: f64,
    sy: f64,
    sz: f64,
}

impl UpShear {
    /// The line through `o` along `d`, or `None` when `d` is not mostly up (then use [`Shear`]).
    #[inline(always)]
    pub fn new(o: DVec3, d: DVec3) -> Option<Self> {
        // `Shear::new` then takes kz = 2 (no other component exceeds |d.z|) and, d.z being
        // positive, (kx, ky) = (0, 1) unswapped.
        if !(d.z > 0.0 && d.z >= d.x.abs() && d.z >= d.y.abs()) {
            return None;
        }
        let sz = 1.0 / d.z;
        Some(Self { o, sx: d.x * sz, sy: d.y * sz, sz })
    }

    /// `p` in the sheared space, as [`Shear::map`] maps it.
    #[inline(always)]
    pub fn map(&self, p: DVec3) -> Mapped {
        let a = p - self.o;
        [a.x - self.sx * a.z, a.y - self.sy * a.z, self.sz * a.z]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v3(a: [f64; 3]) -> DVec3 {
        DVec3::from_array(a)
    }

    proptest! {
        /// Lines aimed at points of a shared edge (or at a shared vertex) of a fan of triangles hit at
        /// least one of them, at the right t.
        #[test]
        fn shared_edges_and_vertices_never_leak(c in prop::array::uniform3(-10.0f64..10.0),
                                                ring in prop::collection::vec(prop::array::uniform2(0.5f64..5.0), 6),
                                                d in prop::array::uniform3(-1.0f64..1.0), s in 0.0f64..=1.0, edge in 0usize..6) {
            let d = v3(d);
            // From above, and the fan gentle: the line crosses it (no silhouette to graze).
            let d = d - DVec3::Z * 3.0;
            let center = v3(c);
            // A star of 6 triangles around `center` (a vertex of all of them), roughly in the x-y plane.
            let pts: Vec<DVec3> = (0..6).map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 6.0;
                center + DVec3::new(a.cos() * ring[k][0], a.sin() * ring[k][0], (ring[k][1] - 2.5) * 0.1 * ring[k][0])
            }).collect();
            let target = center + (pts[edge] - center) * s;
            let o = target - d * 3.0;
            let sh = Shear::new(o, d);
            let m = sh.map(center);
            let mut hits = 0;
            for k in 0..6 {
                let (a, b) = (sh.map(pts[k]), sh.map(pts[(k + 1) % 6]));
                // The fan is not planar: the line may cross other triangles elsewhere too.
                if Shear::hit(&m, &a, &b).is_some_and(|t| (t - 3.0).abs() < 1e-6) {
                    hits += 1;
                }
            }
            prop_assert!(hits >= 1);
        }
    }

    proptest! {
        /// `UpShear` maps every point to the same bits as `Shear` whenever it accepts the line, and
        /// accepts every line within 45° of up.
        #[test]
        fn up_shear_is_shear_bit_for_bit(o in prop::array::uniform3(-1.0e5f64..1.0e5), d in prop::array::uniform3(-1.0f64..1.0),
                                         p in prop::array::uniform3(-1.0e5f64..1.0e5)) {
            let (o, d, p) = (v3(o), v3(d), v3(p));
            prop_assume!(d != DVec3::ZERO);
            let sh = Shear::new(o, d);
            match UpShear::new(o, d) {
                Some(up) => {
                    prop_assert_eq!((sh.kx, sh.ky, sh.kz), (0, 1, 2));
                    prop_assert_eq!(up.map(p).map(f64::to_bits), sh.map(p).map(f64::to_bits));
                }
                None => prop_assert!(!(d.z > 0.0 && d.z >= d.x.abs().max(d.y.abs()))),
            }
        }
    }

    #[test]
    fn misses_beside_the_triangle_and_hits_inside() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let sh = Shear::new(DVec3::new(0.25, 0.25, 5.0), DVec3::NEG_Z * 2.0);
        let m = tri.map(|p| sh.map(p));
        assert_eq!(Shear::hit(&m[0], &m[1], &m[2]), Some(2.5));
        let sh = Shear::new(DVec3::new(0.75, 0.75, 5.0), DVec3::NEG_Z);
        let m = tri.map(|p| sh.map(p));
        assert_eq!(Shear::hit(&m[0], &m[1], &m[2]), None);
    }
}
