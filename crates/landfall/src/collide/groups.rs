//! Collision groups and staged object-vs-object checks (the terrain-following note, section 3.4):
//! groups first (one AND of bitfields), then boxes — axis-aligned, then oriented — then an optional
//! proxy shape, each stage only for pairs the previous one kept.

use crate::groups::Groups;
use glam::{DAffine3, DMat3, DVec3};

/// A simplified shape used only for collision (the note's "collision object"), in body coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Proxy {
    /// A sphere.
    Sphere {
        /// Center, body coordinates.
        center: DVec3,
        /// Radius.
        radius: f64,
    },
    /// A capsule: the points within `radius` of the segment `a`–`b`.
    Capsule {
        /// One end of the axis, body coordinates.
        a: DVec3,
        /// The other end.
        b: DVec3,
        /// Radius.
        radius: f64,
    },
}

/// A body for object-vs-object checks: groups, an oriented box (half extents around the pose's
/// origin), a rigid pose, and an optional proxy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Collision groups.
    pub groups: Groups,
    /// Half extents of the box along the body's axes.
    pub half_extents: DVec3,
    /// Body → world (rigid).
    pub pose: DAffine3,
    /// Exact-enough shape for the last stage; `None` stops at the oriented box.
    pub proxy: Option<Proxy>,
}

/// The stage that separated a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// No common group.
    Groups,
    /// Axis-aligned boxes apart.
    Aabb,
    /// Oriented boxes apart.
    Obb,
    /// Proxy shapes apart.
    Proxy,
}

impl Body {
    /// The world axis-aligned box around the oriented box.
    pub fn aabb(&self) -> (DVec3, DVec3) {
        let m = self.pose.matrix3;
        let r = DVec3::new(
            m.row(0).abs().dot(self.half_extents),
            m.row(1).abs().dot(self.half_extents),
            m.row(2).abs().dot(self.half_extents),
        );
        let c = self.pose.translation;
        (c - r, c + r)
    }
}

/// Separating-axis test of two oriented boxes (15 axes, with a small epsilon for parallel edges).
pub fn obb_overlap(a: &Body, b: &Body) -> bool {
    let (ma, mb) = (a.pose.matrix3, b.pose.matrix3);
    let (ea, eb) = (a.half_extents.to_array(), b.half_extents.to_array());
    let ax = [ma.x_axis, ma.y_axis, ma.z_axis];
    let bx = [mb.x_axis, mb.y_axis, mb.z_axis];
    let t = b.pose.translation - a.pose.translation;
    let rot = DMat3::from_cols_array_2d(&std::array::from_fn(|j| std::array::from_fn(|i| ax[i].dot(bx[j]))));
    let r = |i: usize, j: usize| rot.col(j)[i];
    let abs_r = |i: usize, j: usize| r(i, j).abs() + 1e-12;
    let ta = [t.dot(ax[0]), t.dot(ax[1]), t.dot(ax[2])];
    for i in 0..3 {
        let rb = (0..3).map(|j| eb[j] * abs_r(i, j)).sum::<f64>();
        if ta[i].abs() > ea[i] + rb {
            return false;
        }
    }
    for j in 0..3 {
        let ra = (0..3).map(|i| ea[i] * abs_r(i, j)).sum::<f64>();
        let tb = t.dot(bx[j]);
        if tb.abs() > ra + eb[j] {
            return false;
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ea[i1] * abs_r(i2, j) + ea[i2] * abs_r(i1, j);
            let rb = eb[j1] * abs_r(i, j2) + eb[j2] * abs_r(i, j1);
            let tt = (ta[i2] * r(i1, j) - ta[i1] * r(i2, j)).abs();
            if tt > ra + rb {
                return false;
            }
        }
    }
    true
}

/// Closest distance between segments `p0`–`p1` and `q0`–`q1`.
pub fn segment_distance(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    segment_closest(p0, p1, q0, q1).0
}

/// Closest distance between segments `p0`–`p1` and `q0`–`q1`, with the parameters (s on the
/// first, t on the second, both in [0, 1]) of the closest points (Ericson).
pub fn segment_closest(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> (f64, f64, f64) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a <= f64::EPSILON && e <= f64::EPSILON {
        (0.0, 0.0)
    } else if a <= f64::EPSILON {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= f64::EPSILON {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (((p0 + d1 * s) - (q0 + d2 * t)).length(), s, t)
}

/// A proxy as a segment and radius in world coordinates (a sphere is a point segment).
fn as_capsule(body: &Body, proxy: &Proxy) -> (DVec3, DVec3, f64) {
    match *proxy {
        Proxy::Sphere { center, radius } => {
            let c = body.pose.transform_point3(center);
            (c, c, radius)
        }
        Proxy::Capsule { a, b, radius } => (body.pose.transform_point3(a), body.pose.transform_point3(b), radius),
    }
}

/// The staged check, in the note's order: groups, axis-aligned boxes, oriented boxes, then the
/// proxies when both bodies have one. `Ok(())` when the bodies collide, else the stage that
/// separated them.
pub fn check(a: &Body, b: &Body) -> Result<(), Stage> {
    if !a.groups.interacts(b.groups) {
        return Err(Stage::Groups);
    }
    let ((amin, amax), (bmin, bmax)) = (a.aabb(), b.aabb());
    if amin.cmpgt(bmax).any() || bmin.cmpgt(amax).any() {
        return Err(Stage::Aabb);
    }
    if !obb_overlap(a, b) {
        return Err(Stage::Obb);
    }
    if let (Some(pa), Some(pb)) = (&a.proxy, &b.proxy) {
        let (a0, a1, ra) = as_capsule(a, pa);
        let (b0, b1, rb) = as_capsule(b, pb);
        if segment_distance(a0, a1, b0, b1) > ra + rb {
            return Err(Stage::Proxy);
        }
    }
    Ok(())
}

/// Every colliding pair `(i, j)`, `i < j`. Only bodies that share a group bit are ever paired (the
/// note's per-group lists), so bodies in disjoint groups cost nothing.
pub fn colliding_pairs(bodies: &[Body]) -> Vec<(usize, usize)> {
    let mut lists: Vec<Vec<usize>> = vec![Vec::new(); 32];
    for (k, b) in bodies.iter().enumerate() {
        for (g, list) in lists.iter_mut().enumerate() {
            if b.groups.memberships & (1 << g) != 0 {
                list.push(k);
            }
        }
    }
    let mut pairs = Vec::new();
    for (i, a) in bodies.iter().enumerate() {
        // Candidates: members of the groups a's filter accepts.
        for (g, list) in lists.iter().enumerate() {
            if a.groups.filter & (1 << g) == 0 {
                continue;
            }
            for &j in list.iter().filter(|&&j| j > i) {
                pairs.push((i, j));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs.retain(|&(i, j)| check(&bodies[i], &bodies[j]).is_ok());
    pairs
}
