//! Swept sphere against a triangle (Fauerby 2003, the method the 2004 terrain-collision paper builds
//! on): the face, and — unlike the paper — also the three edges and three vertices, so a sphere never
//! snags on or passes through a crease.

use glam::DVec3;

/// The earliest contact of a moving sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Fraction of the motion at contact, in [0, 1] (0: touching or embedded at the start).
    pub t: f64,
    /// The contact point on the triangle.
    pub point: DVec3,
    /// Unit normal from the contact point toward the sphere's center (the sliding plane's normal).
    pub normal: DVec3,
    /// The triangle's own unit normal, on the sphere's side (differs from `normal` at edges and
    /// vertices: it tells the tread of a step from its riser).
    pub face: DVec3,
}

/// Smallest root in [0, `t_max`] of `a·t² + b·t + c = 0`.
#[inline]
fn lowest_root(a: f64, b: f64, c: f64, t_max: f64) -> Option<f64> {
    if a.abs() < 1e-300 {
        if b.abs() < 1e-300 {
            return None;
        }
        let t = -c / b;
        return (0.0..=t_max).contains(&t).then_some(t);
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    // The smaller root first (rounding keeps the order); the larger one only when the smaller
    // lies before 0.
    let (near, far) = if a > 0.0 { (-b - sq, -b + sq) } else { (-b + sq, -b - sq) };
    let r1 = near / (2.0 * a);
    if r1 >= 0.0 {
        return (r1 <= t_max).then_some(r1);
    }
    let r2 = far / (2.0 * a);
    (0.0..=t_max).contains(&r2).then_some(r2)
}

/// Closest point of triangle `tri` to `p` (Ericson's region test).
pub fn closest_point(tri: &[DVec3; 3], p: DVec3) -> DVec3 {
    let [a, b, c] = *tri;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

/// A triangle with what every sweep against it needs first — its bounding box and unit normal —
/// computed once: a controller's move sweeps the same few triangles 5–10 times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreparedTriangle {
    /// The corners.
    pub tri: [DVec3; 3],
    /// Lower corner of the bounding box.
    pub lo: DVec3,
    /// Upper corner of the bounding box.
    pub hi: DVec3,
    /// Unit normal (right-handed in corner order), zero for a degenerate triangle.
    pub face: DVec3,
}

impl PreparedTriangle {
    /// Prepares `tri`.
    #[inline(always)]
    pub fn new(tri: [DVec3; 3]) -> Self {
        let (lo, hi) = bounds(&tri);
        Self { tri, lo, hi, face: unit_normal(&tri) }
    }

    /// Prepares `tri` if its box comes within reach of `swept`: the cheap reject comes before the
    /// normal's square root.
    #[inline(always)]
    pub fn reached(tri: [DVec3; 3], swept: &SweptBox) -> Option<Self> {
        let (lo, hi) = bounds(&tri);
        swept.reaches(lo, hi).then(|| Self { tri, lo, hi, face: unit_normal(&tri) })
    }

    /// Whether `p`, a point of the plane, lies inside the triangle or on its boundary (to rounding):
    /// on the inner side of every edge.
    #[inline]
    fn contains(&self, p: DVec3) -> bool {
        (0..3).all(|k| {
            let (a, b) = (self.tri[k], self.tri[(k + 1) % 3]);
            let (e, w) = (b - a, p - a);
            e.cross(w).dot(self.face) >= -1e-12 * e.length_squared().max(w.length_squared())
        })
    }
}

/// Unit normal of a triangle (right-handed in corner order), zero when it is degenerate.
#[inline(always)]
fn unit_normal(tri: &[DVec3; 3]) -> DVec3 {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    // Two compares instead of `normalize_or_zero`'s finiteness checks; a cross product this small
    // (or this large, or NaN) is a degenerate triangle's.
    let n2 = n.length_squared();
    if (1e-290..1e290).contains(&n2) {
        n * (1.0 / n2.sqrt())
    } else {
        DVec3::ZERO
    }
}

/// Bounding box of a triangle.
#[inline(always)]
fn bounds(tri: &[DVec3; 3]) -> (DVec3, DVec3) {
    (tri[0].min(tri[1]).min(tri[2]), tri[0].max(tri[1]).max(tri[2]))
}

/// Where a sphere of radius `r` whose center moves from `c` to `c + v·t_max` can be: its center's
/// path lies in the box `path`, so the sphere lies within `r` of it (a rounded box) and in `grown`,
/// that box grown by `r`. Nothing beyond can be touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptBox {
    path: (DVec3, DVec3),
    /// `path` grown by `r` on every side.
    pub grown: (DVec3, DVec3),
    /// `r²`, with room for the rounding of [`Self::reaches`].
    reach2: f64,
}

impl SweptBox {
    /// The box of the motion from `c` along `v` for t in [0, `t_max`], for radius `r`.
    #[inline]
    pub fn new(c: DVec3, r: f64, v: DVec3, t_max: f64) -> Self {
        let end = c + v * t_max;
        let path = (c.min(end), c.max(end));
        let grown = (path.0 - DVec3::splat(r), path.1 + DVec3::splat(r));
        // The gaps `reaches` measures are exact differences when small (Sterbenz) and accurate to
        // an ulp when not: a relative margin keeps a box exactly r away from being rejected.
        Self { path, grown, reach2: r * r * (1.0 + 1e-9) + 1e-300 }
    }

    /// Whether the box [lo, hi] comes within r of the center's path box — a rounded box, whose
    /// corners reject what the plain grown box would let through.
    #[inline(always)]
    pub fn reaches(&self, lo: DVec3, hi: DVec3) -> bool {
        let gap = (lo - self.path.1).max(self.path.0 - hi).max(DVec3::ZERO);
        gap.length_squared() <= self.reach2
    }
}

/// The earliest contact, for t in [0, `t_max`] (≤ 1), of the sphere of radius `r` whose center moves
/// from `c` along `v` (center at `c + t·v`) with triangle `tri`. A sphere already within `r` of the
/// triangle touches at t = 0. Degenerate triangles are tested by their edges and vertices.
pub fn sweep_sphere_triangle(c: DVec3, r: f64, v: DVec3, tri: &[DVec3; 3], t_max: f64) -> Option<Contact> {
    // Quick exact reject, before the normal is computed: the whole motion stays more than r from
    // the triangle's box.
    let swept = SweptBox::new(c, r, v, t_max);
    sweep_sphere_prepared(c, r, v, &PreparedTriangle::reached(*tri, &swept)?, &swept, t_max)
}

/// [`sweep_sphere_triangle`] on a prepared triangle that the motion's [`SweptBox`] for `t_max`
/// [reaches](SweptBox::reaches) (the caller's first reject, with the box computed once per sweep).
#[inline]
pub fn sweep_sphere_prepared(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    swept: &SweptBox,
    t_max: f64,
) -> Option<Contact> {
    sweep_sphere_unfinished(c, r, v, tri, swept, |_| Some(t_max)).map(|ct| finish_sphere_contact(ct, c, v))
}

/// The normal of a sphere's contact left unfinished by [`sweep_sphere_unfinished`]: from the contact
/// point toward the center `c + v·t`, or the triangle side `face` where they coincide.
#[inline]
pub(crate) fn finish_sphere_contact(ct: Contact, c: DVec3, v: DVec3) -> Contact {
    Contact { normal: (c + v * ct.t - ct.point).try_normalize().unwrap_or(ct.face), ..ct }
}

/// [`sweep_sphere_prepared`] with the contact's normal left zero, for [`finish_sphere_contact`]: a
/// sweep keeps only its earliest contact, so it needs one normal, not one per triangle touched.
/// `limit(s0)` gives `t_max` from the start's signed distance to the triangle's plane, or `None`
/// when no contact with it can matter.
#[inline(always)]
pub(crate) fn sweep_sphere_unfinished(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    swept: &SweptBox,
    limit: impl FnOnce(f64) -> Option<f64>,
) -> Option<Contact> {
    let s0 = tri.face.dot(c - tri.tri[0]);
    let t_max = limit(s0)?;
    // More than r on one side of the plane for the whole motion (face, edges and vertices all lie
    // in it).
    let s1 = tri.face.dot(c + v * t_max - tri.tri[0]);
    if (s0 > r && s1 > r) || (s0 < -r && s1 < -r) {
        return None;
    }
    sweep_sphere_near(c, r, v, tri, swept.grown, s0, t_max)
}

/// The part of the sphere sweep once the motion comes within r of the triangle's box and plane:
/// embedding at the start, the face, then the vertices and edges. `s0` is the start's signed
/// distance to the plane. The contact's normal is left zero ([`finish_sphere_contact`]).
fn sweep_sphere_near(
    c: DVec3,
    r: f64,
    v: DVec3,
    prepared: &PreparedTriangle,
    (lo, hi): (DVec3, DVec3),
    s0: f64,
    t_max: f64,
) -> Option<Contact> {
    let (tri, face) = (&prepared.tri, prepared.face);
    // The triangle's side the center is on; where the center lies in the plane, the side facing
    // the motion (also the normal then: see `finish_sphere_contact`).
    let contact_at = |t: f64, point: DVec3| {
        let above = face.dot(c + v * t - point);
        let side = if above < 0.0 || (above == 0.0 && face.dot(v) > 0.0) { -face } else { face };
        Contact { t, point, normal: DVec3::ZERO, face: side }
    };
    // Embedded (or touching) at the start — only possible with the center within r of the plane
    // and of the triangle's box.
    if (face == DVec3::ZERO || s0.abs() <= r) && (c.clamp(prepared.lo, prepared.hi) - c).length_squared() <= r * r {
        let q = closest_point(tri, c);
        if (q - c).length_squared() <= r * r {
            return Some(contact_at(0.0, q));
        }
    }
    let mut best: Option<(f64, DVec3)> = None;
    let consider = |t: f64, p: DVec3, best: &mut Option<(f64, DVec3)>| {
        if best.is_none_or(|(bt, _)| t < bt) {
            *best = Some((t, p));
        }
    };
    // The face: the sphere reaches the plane at distance r on its own side, inside the triangle.
    // Not embedded at the start, a sphere that meets the face inside the triangle meets it before
    // any edge or vertex (they lie in the plane, which it reaches first): done (Fauerby).
    if face != DVec3::ZERO {
        let nv = face.dot(v);
        let side = if s0 >= 0.0 { 1.0 } else { -1.0 };
        if nv * side < 0.0 {
            let t = (side * r - s0) / nv;
            if (0.0..=t_max).contains(&t) {
                let p = c + v * t - face * (side * r);
                if prepared.contains(p) {
                    return Some(contact_at(t, p));
                }
            }
        }
    }
    // A vertex outside the box swept by the sphere cannot be touched, nor an edge wholly beyond
    // one of its faces.
    // (Per corner, one bit per axis on which it lies below / above the box.)
    let (below, above) = (tri.map(|p| p.cmplt(lo).bitmask()), tri.map(|p| p.cmpgt(hi).bitmask()));
    // A contact later than the earliest found so far cannot matter.
    let limit = |best: &Option<(f64, DVec3)>| best.map_or(t_max, |(bt, _)| bt);
    // Vertices: |c + t·v − p|² = r².
    let vv = v.length_squared();
    // A feature farther from the start than the sphere can reach by t = `t_max` (r + |v|·t_max,
    // with room for rounding) cannot be touched: a few products instead of a quadratic's root.
    let reach = (r + vv.sqrt() * t_max) * (1.0 + 1e-9) + 1e-300;
    let reach2 = reach * reach;
    for k in 0..3 {
        if below[k] | above[k] != 0 {
            continue;
        }
        let p = tri[k];
        let w = c - p;
        let ww = w.length_squared();
        if ww > reach2 {
            continue;
        }
        if let Some(t) = lowest_root(vv, 2.0 * v.dot(w), ww - r * r, limit(&best)) {
            consider(t, p, &mut best);
        }
    }
    // Edges: distance from the moving center to the edge's line equals r, foot within the edge.
    for k in 0..3 {
        let k1 = (k + 1) % 3;
        if below[k] & below[k1] != 0 || above[k] & above[k1] != 0 {
            continue;
        }
        let (a, b) = (tri[k], tri[k1]);
        let e = b - a;
        let ee = e.length_squared();
        if ee == 0.0 {
            continue;
        }
        let w = a - c;
        let (ev, ew, ww) = (e.dot(v), e.dot(w), w.length_squared());
        // The start's squared distance to the edge's line, times |e|², beyond reach.
        if ww * ee - ew * ew > reach2 * ee {
            continue;
        }
        let qa = ee * -vv + ev * ev;
        let qb = ee * 2.0 * v.dot(w) - 2.0 * ev * ew;
        let qc = ee * (r * r - ww) + ew * ew;
        if let Some(t) = lowest_root(qa, qb, qc, limit(&best)) {
            let f = (ev * t - ew) / ee;
            if (0.0..=1.0).contains(&f) {
                consider(t, a + e * f, &mut best);
            }
        }
    }
    best.map(|(t, p)| contact_at(t, p))
}

/// Distance between segment `p0`–`p1` and triangle `tri`, with the closest points (on the segment,
/// on the triangle).
pub fn segment_triangle_distance(p0: DVec3, p1: DVec3, tri: &[DVec3; 3]) -> (f64, DVec3, DVec3) {
    // The segment crossing the triangle: distance 0.
    let d = p1 - p0;
    if let Some(t) = crate::geom::moller_trumbore(p0, d, tri) {
        if (0.0..=1.0).contains(&t) {
            let p = p0 + d * t;
            return (0.0, p, p);
        }
    }
    let mut best = (f64::INFINITY, p0, tri[0]);
    for p in [p0, p1] {
        let q = closest_point(tri, p);
        let dist = p.distance(q);
        if dist < best.0 {
            best = (dist, p, q);
        }
    }
    for k in 0..3 {
        let (a, b) = (tri[k], tri[(k + 1) % 3]);
        let (dist, s, t) = super::groups::segment_closest(p0, p1, a, b);
        if dist < best.0 {
            best = (dist, p0 + (p1 - p0) * s, a + (b - a) * t);
        }
    }
    best
}

/// The earliest contact, for t in [0, `t_max`], of the capsule of radius `r` around the segment
/// `a`–`b` moving along `v`, with triangle `tri`. Exact: the capsule touches the triangle when the
/// sphere of radius `r` around `a` touches the prism the triangle sweeps when moved by `a − b` (the
/// convex hull of the triangle and its translate). Its boundary is the two triangles and three
/// parallelograms, so the contact is the earliest of eight exact sphere–triangle sweeps. A capsule
/// already within `r` of the triangle (1e-9 relative) touches at t = 0.
pub fn sweep_capsule_triangle(a: DVec3, b: DVec3, r: f64, v: DVec3, tri: &[DVec3; 3], t_max: f64) -> Option<Contact> {
    let tol = 1e-9 * (1.0 + r);
    let contact = |t: f64| {
        let (dist, on_seg, on_tri) = segment_triangle_distance(a + v * t, b + v * t, tri);
        let face = unit_normal(tri);
        let n = (on_seg - on_tri).try_normalize().unwrap_or(if face.dot(v) > 0.0 { -face } else { face });
        let side = if face.dot(on_seg - on_tri) < 0.0 { -face } else { face };
        (dist, Contact { t, point: on_tri, normal: n, face: side })
    };
    let (dist, start) = contact(0.0);
    if dist <= r + tol {
        return Some(start);
    }
    let d = a - b;
    let moved = tri.map(|p| p + d);
    let mut faces = [*tri; 8];
    faces[1] = moved;
    for k in 0..3 {
        let k1 = (k + 1) % 3;
        faces[2 + 2 * k] = [tri[k], tri[k1], moved[k1]];
        faces[3 + 2 * k] = [tri[k], moved[k1], moved[k]];
    }
    let mut best: Option<f64> = None;
    for face in &faces {
        if let Some(h) = sweep_sphere_triangle(a, r, v, face, best.unwrap_or(t_max)) {
            best = Some(best.map_or(h.t, |t| t.min(h.t)));
        }
    }
    best.map(|t| contact(t).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smaller root in range, as sorting both roots and taking the first in range gives: for
    /// upward and downward parabolas, double roots and roots at the ends of the range.
    #[test]
    fn lowest_root_is_the_first_root_in_range() {
        let reference = |a: f64, b: f64, c: f64, t_max: f64| {
            let disc = b * b - 4.0 * a * c;
            if a.abs() < 1e-300 || disc < 0.0 {
                return None;
            }
            let (x, y) = ((-b - disc.sqrt()) / (2.0 * a), (-b + disc.sqrt()) / (2.0 * a));
            [x.min(y), x.max(y)].into_iter().find(|&r| (0.0..=t_max).contains(&r))
        };
        let mut rng = crate::rng::SplitMix64::new(5);
        let mut found = 0;
        for k in 0..20_000 {
            let (mut r1, r2) = (rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
            if k % 7 == 0 {
                r1 = r2;
            }
            let scale = if k % 2 == 0 { rng.range(0.1, 3.0) } else { -rng.range(0.1, 3.0) };
            let t_max = if k % 5 == 0 { r1.max(r2).abs() } else { rng.range(0.0, 2.0) };
            let (a, b, c) = (scale, -scale * (r1 + r2), scale * r1 * r2);
            let got = lowest_root(a, b, c, t_max);
            assert_eq!(got, reference(a, b, c, t_max), "roots {r1}, {r2}, scale {scale}, t_max {t_max}");
            found += usize::from(got.is_some());
        }
        assert!(found > 5_000, "only {found} roots in range");
    }

    /// A box exactly r from the center's path is reached, along an axis and across a corner, also
    /// for small spheres far from the origin (where a coordinate's ulp is a sizeable part of r);
    /// one a thousandth of r further is not. (Fails when the margin of `reaches` is taken away.)
    #[test]
    fn boxes_exactly_r_away_are_reached() {
        for origin in [0.0, 1.0, 145_000.0, 3.0e6] {
            for r in [0.01, 0.5, 3.0] {
                let c = DVec3::new(origin + 0.3, -origin - 0.7, origin * 0.5);
                let v = DVec3::new(0.25, 0.0, -0.125);
                let swept = SweptBox::new(c, r, v, 1.0);
                let (lo, hi) = (c.min(c + v), c.max(c + v));
                let diagonal = DVec3::new(1.0, 1.0, 0.0).normalize();
                for (dir, corner) in [(DVec3::X, hi), (-DVec3::Y, lo), (diagonal, DVec3::new(hi.x, hi.y, lo.z))] {
                    for (scale, reached) in [(1.0, true), (1.001, false)] {
                        // A point box at distance `scale·r` from the path box (rounded outward
                        // for the reached case, inward for the other).
                        let mut p = corner + dir * (r * scale);
                        let step = if reached { -1.0 } else { 1.0 };
                        for k in 0..3 {
                            if dir[k] != 0.0 {
                                p[k] = if dir[k] * step > 0.0 { p[k].next_up() } else { p[k].next_down() };
                            }
                        }
                        assert_eq!(swept.reaches(p, p), reached, "origin {origin}, r {r}, dir {dir}, scale {scale}");
                    }
                }
            }
        }
    }
}
