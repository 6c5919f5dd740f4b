//! Polygon terrain (QOTA) against an independent f64 brute force over every input polygon.
//!
//! The reference knows nothing of faces, edge equations or the quadtree: a vertical line meets a
//! planar polygon where it crosses the polygon's plane, inside if the crossing's projection (on a
//! plane across gravity, with its own basis) is inside the projected polygon by the even–odd rule,
//! with a tolerance so points on a boundary count. Rays use Möller–Trumbore over a fan of each
//! polygon, with a tolerance.

use glam::{DMat3, DQuat, DVec2, DVec3};
use landfall::QuadtreeParams;
use landfall::{CutRule, Frame, PolygonError, PolygonTerrain, Ray, Terrain};
use proptest::prelude::*;

/// SplitMix64: deterministic scenes from a seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.f()
    }
}

/// A scene: a triangulated grid (n×n cells, 1 m, dyadic heights) with some triangles removed
/// (holes), plus a few bridges (planar quads above) and non-convex planar L-shapes.
struct Scene {
    polys: Vec<Vec<DVec3>>,
    n: usize,
}

fn scene(seed: u64, n: usize, holes: usize, bridges: usize) -> Scene {
    let mut rng = Rng(seed);
    let h: Vec<f64> = (0..(n + 1) * (n + 1)).map(|_| (rng.range(0.0, 8.0) * 64.0).round() / 64.0).collect();
    let v = |i: usize, j: usize| DVec3::new(i as f64, j as f64, h[j * (n + 1) + i]);
    let mut polys = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
            if (i + j) % 2 == 0 {
                polys.push(vec![a, b, d]);
                polys.push(vec![b, c, d]);
            } else {
                polys.push(vec![a, b, c]);
                polys.push(vec![a, c, d]);
            }
        }
    }
    for _ in 0..holes {
        let k = (rng.next() % polys.len() as u64) as usize;
        polys.remove(k);
    }
    for _ in 0..bridges {
        let (x, y) = (rng.range(0.0, n as f64 - 3.0), rng.range(0.0, n as f64 - 3.0));
        let (w, l, z) = (rng.range(0.5, 3.0), rng.range(0.5, 3.0), rng.range(9.0, 20.0));
        let (sx, sy) = (rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
        let p = |dx: f64, dy: f64| DVec3::new(x + dx, y + dy, z + sx * dx + sy * dy);
        // Clockwise winding on purpose: any winding must work.
        polys.push(vec![p(0.0, 0.0), p(0.0, l), p(w, l), p(w, 0.0)]);
        // A planar non-convex L above it.
        let q = |dx: f64, dy: f64| DVec3::new(x + dx, y + dy, z + 5.0 + sx * dx);
        polys.push(vec![q(0.0, 0.0), q(2.0, 0.0), q(2.0, 1.0), q(1.0, 1.0), q(1.0, 2.0), q(0.0, 2.0)]);
    }
    Scene { polys, n }
}

/// Reference: every crossing height (along `up`) of the line through `p` with direction `up`.
fn ref_surfaces(polys: &[Vec<DVec3>], p: DVec3, up: DVec3) -> Vec<f64> {
    let u = if up.x.abs() < 0.9 { DVec3::X.cross(up).normalize() } else { DVec3::Y.cross(up).normalize() };
    let w = up.cross(u);
    let proj = |q: DVec3| DVec2::new((q - p).dot(u), (q - p).dot(w));
    let mut out = Vec::new();
    for poly in polys {
        let n = (poly[1] - poly[0]).cross(poly[2] - poly[0]);
        let n = if n.length() > 0.0 { n } else { poly.windows(3).map(|t| (t[1] - t[0]).cross(t[2] - t[0])).sum() };
        let denom = n.dot(up);
        if denom.abs() < 1e-12 * n.length() {
            continue; // vertical
        }
        let s = n.dot(poly[0] - p) / denom;
        let q: Vec<DVec2> = poly.iter().map(|&v| proj(v)).collect();
        if inside_even_odd(&q, 1e-9) {
            out.push(p.dot(up) + s);
        }
    }
    out.sort_by(f64::total_cmp);
    out.dedup_by(|a, b| (*a - *b).abs() <= 1e-7);
    out
}

/// Is the origin inside polygon `q` (even–odd), or within `tol` of its boundary?
fn inside_even_odd(q: &[DVec2], tol: f64) -> bool {
    let k = q.len();
    let mut inside = false;
    for i in 0..k {
        let (a, b) = (q[i], q[(i + 1) % k]);
        let e = b - a;
        let t = (-a).dot(e) / e.length_squared().max(1e-300);
        if (a + e * t.clamp(0.0, 1.0)).length() <= tol {
            return true;
        }
        if (a.y > 0.0) != (b.y > 0.0) && a.x + (b.x - a.x) * (-a.y) / (b.y - a.y) > 0.0 {
            inside = !inside;
        }
    }
    inside
}

/// Reference ray cast: smallest t over a fan of every polygon (Möller–Trumbore with tolerance).
fn ref_raycast(polys: &[Vec<DVec3>], o: DVec3, d: DVec3, max_t: f64, tol: f64) -> Option<f64> {
    let mut best: Option<f64> = None;
    for poly in polys {
        for k in 1..poly.len() - 1 {
            let (a, b, c) = (poly[0], poly[k], poly[k + 1]);
            let (e1, e2) = (b - a, c - a);
            let pv = d.cross(e2);
            let det = e1.dot(pv);
            if det.abs() < 1e-14 {
                continue;
            }
            let s = o - a;
            let u = s.dot(pv) / det;
            let qv = s.cross(e1);
            let v = d.dot(qv) / det;
            if u < -tol || v < -tol || u + v > 1.0 + tol {
                continue;
            }
            let t = e2.dot(qv) / det;
            if t >= -1e-12 && t <= max_t && best.is_none_or(|bt| t < bt) {
                best = Some(t.max(0.0));
            }
        }
    }
    best
}

fn build(polys: &[Vec<DVec3>], frame: Frame, params: QuadtreeParams) -> PolygonTerrain {
    PolygonTerrain::builder().polygons(polys).frame(frame).params(params).build().unwrap()
}

fn params_all() -> [QuadtreeParams; 3] {
    [
        QuadtreeParams::default(),
        QuadtreeParams::paper(12, 12),
        QuadtreeParams::default().with_max_polys(1).with_max_depth(3).with_cuts(CutRule::Vertices).with_min_gain(0.0),
    ]
}

fn surfaces(t: &PolygonTerrain, p: DVec3) -> Vec<f64> {
    let up = t.frame().up();
    let mut v = Vec::new();
    t.surfaces_on_line(p, |s| v.push(s.point.dot(up)));
    v
}

fn assert_same_heights(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: got {got:?}, reference {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-7, "{what}: got {got:?}, reference {want:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Terraces: unit squares at random heights (0, 1 or 2), as quads or split in two, so that
    /// neighbours at different heights meet seen from above (cliffs without walls). On every grid
    /// vertex, edge midpoint and cell centre every surface is found, and the floor and ceiling agree:
    /// the single-layer shortcut must never hide the upper or the lower edge of a cliff.
    #[test]
    fn terraces_give_every_surface_on_their_cliff_edges(seed in any::<u64>(), n in 2usize..8) {
        let mut rng = Rng(seed);
        let mut polys = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let (x, y, z) = (i as f64, j as f64, (rng.next() % 3) as f64);
                let c = [DVec3::new(x, y, z), DVec3::new(x + 1.0, y, z), DVec3::new(x + 1.0, y + 1.0, z), DVec3::new(x, y + 1.0, z)];
                if rng.next().is_multiple_of(2) {
                    polys.push(c.to_vec());
                } else {
                    polys.push(vec![c[0], c[1], c[2]]);
                    polys.push(vec![c[0], c[2], c[3]]);
                }
            }
        }
        for params in params_all() {
            let t = build(&polys, Frame::z_up(), params);
            for j in 0..=2 * n {
                for i in 0..=2 * n {
                    let p = DVec3::new(i as f64 * 0.5, j as f64 * 0.5, 1.5);
                    let want = ref_surfaces(&polys, p, DVec3::Z);
                    assert_same_heights(&surfaces(&t, p), &want, &format!("terraces at {p} ({params:?})"));
                    let floor = t.floor_below(p).map(|q| q.point.z);
                    prop_assert_eq!(floor, want.iter().rev().find(|&&z| z <= p.z).copied());
                    let ceiling = t.ceiling_above(p).map(|q| q.point.z);
                    prop_assert_eq!(ceiling, want.iter().find(|&&z| z >= p.z).copied());
                }
            }
        }
    }

    /// Random points (inside, outside, over holes, under bridges): every surface on the line, floor
    /// and ceiling, against the reference; for each quadtree flavour.
    #[test]
    fn vertical_queries_match_reference(seed in any::<u64>(), n in 3usize..12, holes in 0usize..6, bridges in 0usize..4) {
        let s = scene(seed, n, holes, bridges);
        let mut rng = Rng(seed ^ 0xabc);
        for params in params_all() {
            let t = build(&s.polys, Frame::z_up(), params);
            for _ in 0..150 {
                let p = DVec3::new(rng.range(-1.0, s.n as f64 + 1.0), rng.range(-1.0, s.n as f64 + 1.0), rng.range(-2.0, 30.0));
                let want = ref_surfaces(&s.polys, p, DVec3::Z);
                // Points within 1e-6 of a boundary may legitimately differ in count; skip those.
                let near = ref_surfaces_tol(&s.polys, p, 1e-6);
                if near != want.len() { continue; }
                let got = surfaces(&t, p);
                assert_same_heights(&got, &want, &format!("surfaces at {p}"));
                let floor = t.floor_below(p).map(|q| q.point.z);
                let want_floor = want.iter().rev().find(|&&z| z <= p.z).copied();
                prop_assert_eq!(floor.is_some(), want_floor.is_some());
                if let (Some(a), Some(b)) = (floor, want_floor) { prop_assert!((a - b).abs() < 1e-7); }
                let ceil = t.ceiling_above(p).map(|q| q.point.z);
                let want_ceil = want.iter().find(|&&z| z >= p.z).copied();
                prop_assert_eq!(ceil.is_some(), want_ceil.is_some());
                prop_assert_eq!(t.contains(p), floor.is_some() && ceil.is_some());
                prop_assert_eq!(t.has_ground(p), !want.is_empty());
                if let Some(top) = t.top_surface(p) {
                    prop_assert_eq!(top.point.x, p.x);
                    prop_assert_eq!(top.point.y, p.y);
                    prop_assert!(top.normal.z > 0.0 && (top.normal.length() - 1.0).abs() < 1e-12);
                    // The answer names the input polygon it lies on, with that polygon's normal.
                    let landfall::TriangleId::Polygon(k) = top.triangle else { panic!("{:?}", top.triangle) };
                    let poly = &s.polys[k as usize];
                    let on = ref_surfaces(std::slice::from_ref(poly), p, DVec3::Z);
                    prop_assert!(on.iter().any(|z| (z - top.point.z).abs() < 1e-7), "polygon {} at {}: {:?} vs {}", k, p, on, top.point.z);
                    let newell = (0..poly.len()).fold(DVec3::ZERO, |n, i| n + poly[i].cross(poly[(i + 1) % poly.len()]));
                    let n = newell.normalize() * newell.z.signum();
                    prop_assert!((n - top.normal).length() < 1e-9, "normal {} vs {}", top.normal, n);
                }
            }
        }
    }

    /// Points exactly on grid vertices and on shared edges (axis-aligned and diagonal) of a hole-free
    /// TIN: the ground is always found (no gaps between adjacent polygons) at the right height.
    #[test]
    fn no_gaps_on_shared_edges_and_vertices(seed in any::<u64>(), n in 2usize..10) {
        let s = scene(seed, n, 0, 0);
        for params in params_all() {
            let t = build(&s.polys, Frame::z_up(), params);
            for j in 0..=2 * n {
                for i in 0..=2 * n {
                    // Vertices, edge midpoints and cell centres (on a diagonal) of the grid.
                    let p = DVec3::new(i as f64 * 0.5, j as f64 * 0.5, 100.0);
                    let want = ref_surfaces(&s.polys, p, DVec3::Z);
                    let got = t.top_surface(p);
                    prop_assert!(got.is_some(), "gap at {}", p);
                    prop_assert!((got.unwrap().point.z - want.last().unwrap()).abs() < 1e-9);
                }
            }
        }
    }

    /// Random rays against the reference; rays aimed exactly at vertices and edge midpoints of a
    /// hole-free TIN from many directions never miss.
    #[test]
    fn raycasts_match_reference_and_are_watertight(seed in any::<u64>(), n in 2usize..10, holes in 0usize..4, bridges in 0usize..3) {
        let s = scene(seed, n, holes, bridges);
        let mut rng = Rng(seed ^ 0x5eed);
        let t = build(&s.polys, Frame::z_up(), QuadtreeParams::default());
        let nf = s.n as f64;
        for _ in 0..200 {
            let o = DVec3::new(rng.range(-2.0, nf + 2.0), rng.range(-2.0, nf + 2.0), rng.range(-3.0, 30.0));
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            let max_t = if rng.f() < 0.3 { rng.range(0.0, 20.0) } else { f64::INFINITY };
            let hit = t.raycast(&Ray::new(o, d), max_t).map(|h| h.t);
            let strict = ref_raycast(&s.polys, o, d, max_t, -1e-7);
            let loose = ref_raycast(&s.polys, o, d, max_t, 1e-7);
            match (hit, strict, loose) {
                (Some(h), _, Some(l)) => prop_assert!(h >= l - 1e-7 && strict.is_none_or(|s| h <= s + 1e-7), "hit {h} vs ref {strict:?}/{loose:?}"),
                (None, None, _) => {}
                other => prop_assert!(false, "ray {o} {d} max {max_t}: {:?}", other),
            }
        }
        // Watertightness: hole-free grid, rays at interior vertices, edge midpoints and cell centres
        // (on diagonals). The outer boundary is left out: a target rounded by 1 ulp may lie outside.
        // Slopes at most 1 and rays steeper than 2, so every ray truly crosses at its target (a ray
        // grazing a ridge there may legitimately pass).
        let mut clean = scene(seed, n, 0, 0);
        clean.polys.iter_mut().flatten().for_each(|v| v.z /= 8.0);
        let t = build(&clean.polys, Frame::z_up(), QuadtreeParams::default());
        for j in 1..2 * n {
            for i in 1..2 * n {
                let target = DVec3::new(i as f64 * 0.5, j as f64 * 0.5, 0.0);
                let z = t.top_surface(target).unwrap().point.z;
                let target = DVec3::new(target.x, target.y, z);
                // Also rays in the vertical planes of the grid lines through the target (where the
                // quadtree's cut lines lie): their segments touch a cut line all along.
                let along_x = DVec3::new(rng.range(-5.0, 5.0), 0.0, rng.range(10.0, 20.0));
                let along_y = DVec3::new(0.0, rng.range(-5.0, 5.0), rng.range(10.0, 20.0));
                for k in 0..6 {
                    let offset = match k {
                        4 => along_x,
                        5 => along_y,
                        _ => DVec3::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), rng.range(10.0, 20.0)),
                    };
                    let o = target + offset;
                    let h = t.raycast(&Ray::new(o, target - o), 2.0);
                    prop_assert!(h.is_some(), "ray from {} to {} slipped through", o, target);
                    prop_assert!(h.unwrap().t <= 1.0 + 1e-9, "from {} to {}: {:?}", o, target, h);
                }
            }
        }
    }

    /// The same scene rotated (and its gravity with it) answers the same queries rotated.
    #[test]
    fn rotated_gravity_gives_rotated_answers(seed in any::<u64>(), n in 3usize..9, bridges in 0usize..3) {
        let s = scene(seed, n, 2, bridges);
        let mut rng = Rng(seed ^ 0x707);
        let q = DQuat::from_euler(glam::EulerRot::XYZ, rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), rng.range(-3.0, 3.0));
        let m = DMat3::from_quat(q);
        let rotated: Vec<Vec<DVec3>> = s.polys.iter().map(|p| p.iter().map(|&v| m * v).collect()).collect();
        let plain = build(&s.polys, Frame::z_up(), QuadtreeParams::default());
        let turned = build(&rotated, Frame::from_gravity(m * DVec3::NEG_Z).unwrap(), QuadtreeParams::default());
        for _ in 0..200 {
            let p = DVec3::new(rng.range(0.0, n as f64), rng.range(0.0, n as f64), rng.range(-2.0, 30.0));
            if ref_surfaces_tol(&s.polys, p, 1e-6) != ref_surfaces(&s.polys, p, DVec3::Z).len() { continue; }
            let a = surfaces(&plain, p);
            let b = surfaces(&turned, m * p);
            assert_same_heights(&b, &a, &format!("rotated surfaces at {p}"));
            let want = ref_surfaces(&rotated, m * p, m * DVec3::Z);
            assert_same_heights(&b, &want, "rotated reference");
            if let (Some(x), Some(y)) = (plain.floor_below(p), turned.floor_below(m * p)) {
                prop_assert!((m * x.point - y.point).length() < 1e-7);
                prop_assert!((m * x.normal - y.normal).length() < 1e-9);
            } else {
                prop_assert_eq!(plain.floor_below(p).is_some(), turned.floor_below(m * p).is_some());
            }
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -1.0);
            let (h1, h2) = (plain.raycast(&Ray::new(p, d), f64::INFINITY), turned.raycast(&Ray::new(m * p, m * d), f64::INFINITY));
            if let (Some(h1), Some(h2)) = (h1, h2) {
                prop_assert!((h1.t - h2.t).abs() < 1e-7 * (1.0 + h1.t));
            }
        }
    }
}

/// Number of reference surfaces with a looser boundary tolerance (to skip ambiguous points).
fn ref_surfaces_tol(polys: &[Vec<DVec3>], p: DVec3, tol: f64) -> usize {
    let mut count = Vec::new();
    for poly in polys {
        let n = poly.windows(3).map(|t| (t[1] - t[0]).cross(t[2] - t[0])).sum::<DVec3>();
        if n.z.abs() < 1e-12 * n.length() {
            continue;
        }
        let q: Vec<DVec2> = poly.iter().map(|v| DVec2::new(v.x - p.x, v.y - p.y)).collect();
        if inside_even_odd(&q, tol) {
            let s = n.dot(poly[0] - p) / n.z;
            count.push(p.z + s);
        }
    }
    count.sort_by(f64::total_cmp);
    count.dedup_by(|a, b| (*a - *b).abs() <= 1e-7);
    count.len()
}

#[test]
fn bad_input_is_reported_never_a_panic() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let err = PolygonTerrain::builder()
        .polygon(&tri)
        .polygon(&[DVec3::ZERO, DVec3::new(f64::NAN, 0.0, 0.0), DVec3::Y])
        .build()
        .unwrap_err();
    assert_eq!(err, PolygonError::NonFinite { polygon: 1, vertex: 1 });
    assert!(err.to_string().contains("polygon 1, vertex 1"));
    // Degenerate (collinear, too few vertices) and duplicate polygons are skipped and reported.
    let t = PolygonTerrain::builder()
        .polygon(&tri)
        .polygon(&[DVec3::ZERO, DVec3::X, DVec3::new(2.0, 0.0, 0.0)])
        .polygon(&[DVec3::ZERO, DVec3::X])
        .polygon(&[DVec3::Y, DVec3::ZERO, DVec3::X])
        .polygon(&[])
        .build()
        .unwrap();
    let r = t.report();
    assert_eq!((r.polygons, r.faces, r.degenerate, r.duplicates), (5, 1, 3, 1));
    assert_eq!(r.examples, vec![1, 2, 3, 4]);
    assert!(PolygonTerrain::builder().polygon(&[DVec3::ZERO, DVec3::X]).build().is_err());
    assert!(PolygonTerrain::builder().build().is_err());
    let bad = QuadtreeParams::default().with_max_polys(0);
    let e = PolygonTerrain::builder().polygon(&tri).params(bad).build().unwrap_err();
    assert!(matches!(&e, PolygonError::BadParams(p) if p.field == "max_polys"), "{e}");
    let nan_gain = QuadtreeParams::default().with_min_gain(f64::NAN);
    assert!(matches!(
        PolygonTerrain::builder().polygon(&tri).params(nan_gain).build(),
        Err(PolygonError::BadParams(_))
    ));
}

/// A triangle list (indices into a vertex list) builds the same terrain as the same triangles given
/// one by one; a triangle with an index past the vertex list is skipped and reported, never a panic.
#[test]
fn triangle_lists_build_what_their_polygons_build() {
    let polys = tin_grid(12, |x, y| (x * 7.0 + y * 3.0) % 5.0);
    // Each triangle's corners listed apart, and the list reversed: the indices are not the order.
    let vertices: Vec<DVec3> = polys.iter().flatten().rev().copied().collect();
    let last = vertices.len() as u32 - 1;
    let triangles: Vec<[u32; 3]> =
        (0..polys.len() as u32).map(|k| [last - 3 * k, last - 3 * k - 1, last - 3 * k - 2]).collect();
    let listed = PolygonTerrain::builder().triangles(&vertices, &triangles).build().unwrap();
    let one_by_one = build(&polys, Frame::z_up(), QuadtreeParams::default());
    assert_eq!(listed.report(), one_by_one.report());
    for k in 0..500 {
        let p = DVec3::new((k % 25) as f64 * 0.49 + 0.003, (k / 25) as f64 * 0.61 + 0.002, 10.0);
        assert_eq!(listed.top_surface(p), one_by_one.top_surface(p), "{p}");
    }
    let mut bad = triangles.clone();
    bad[5][1] = vertices.len() as u32;
    let t = PolygonTerrain::builder().triangles(&vertices, &bad).build().unwrap();
    assert_eq!(
        (t.report().degenerate, t.report().faces, t.report().examples.clone()),
        (1, triangles.len() - 1, vec![5])
    );
}

#[test]
fn vertical_faces_are_left_out_of_vertical_queries_but_hit_by_rays() {
    let wall = vec![DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0), DVec3::new(2.0, 0.0, 3.0), DVec3::new(0.0, 0.0, 3.0)];
    let floor = vec![
        DVec3::new(-1.0, -1.0, 0.0),
        DVec3::new(3.0, -1.0, 0.0),
        DVec3::new(3.0, 1.0, 0.0),
        DVec3::new(-1.0, 1.0, 0.0),
    ];
    let t = PolygonTerrain::builder().polygon(&wall).polygon(&floor).build().unwrap();
    assert_eq!(t.report().vertical, 1);
    assert_eq!(surfaces(&t, DVec3::new(1.0, 0.0, 5.0)), vec![0.0]);
    let hit = t.raycast(&Ray::new(DVec3::new(1.0, -0.5, 1.0), DVec3::Y), 10.0).unwrap();
    assert!((hit.t - 0.5).abs() < 1e-12);
    assert_eq!(hit.triangle, landfall::TriangleId::Polygon(0));
}

#[test]
fn non_convex_and_non_planar_polygons_are_triangulated() {
    // An L (non-convex) and a twisted quad (non-planar).
    let l = vec![
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(2.0, 0.0, 1.0),
        DVec3::new(2.0, 1.0, 1.0),
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(1.0, 2.0, 1.0),
        DVec3::new(0.0, 2.0, 1.0),
    ];
    let twisted = vec![
        DVec3::new(5.0, 0.0, 0.0),
        DVec3::new(6.0, 0.0, 1.0),
        DVec3::new(6.0, 1.0, 0.0),
        DVec3::new(5.0, 1.0, 1.0),
    ];
    let t = PolygonTerrain::builder().polygon(&l).polygon(&twisted).build().unwrap();
    assert_eq!(t.report().triangulated, 2);
    assert!(t.top_surface(DVec3::new(1.5, 1.5, 0.0)).is_none(), "the notch of the L is empty");
    assert_eq!(t.top_surface(DVec3::new(0.5, 1.5, 0.0)).unwrap().point.z, 1.0);
    assert_eq!(t.top_surface(DVec3::new(1.5, 0.5, 0.0)).unwrap().triangle, landfall::TriangleId::Polygon(0));
    // Every point of the twisted quad's footprint has exactly one surface, on one of its two triangles.
    for k in 0..100 {
        let p = DVec3::new(5.0 + (k % 10) as f64 * 0.1 + 0.05, (k / 10) as f64 * 0.1 + 0.05, 9.0);
        let z = surfaces(&t, p);
        assert_eq!(z.len(), 1);
        assert!((-1e-12..=1.0 + 1e-12).contains(&z[0]), "{z:?} at {p}");
    }
}

#[test]
fn stats_follow_the_tree() {
    let s = scene(7, 10, 0, 0);
    let coarse = build(&s.polys, Frame::z_up(), QuadtreeParams::paper(400, 5));
    let fine = build(&s.polys, Frame::z_up(), QuadtreeParams::paper(8, 14));
    let (a, b) = (coarse.stats(), fine.stats());
    assert_eq!((a.nodes, a.leaves, a.depth), (1, 1, 0));
    assert_eq!(a.expected_tests, 200.0);
    assert!(b.nodes > a.nodes && b.expected_tests < 16.0 && b.depth <= 14);
    assert!(b.max_leaf <= 8 || b.depth == 14);
    let best = build(&s.polys, Frame::z_up(), QuadtreeParams::default()).stats();
    assert!(best.expected_tests < b.expected_tests, "{best:?} vs {b:?}");
}

#[test]
fn terrain_trait_on_polygons() {
    let s = scene(3, 6, 0, 2);
    let t = build(&s.polys, Frame::z_up(), QuadtreeParams::default());
    // Batches (several chunks of interleaved queries) answer like single queries: inside and
    // outside the root box, on NaN points, on the default tree and on a deeper one.
    let mut pts: Vec<DVec3> = (0..9_000)
        .map(|k| DVec3::new((k % 97) as f64 * 0.081 - 0.5, (k / 97) as f64 * 0.083 - 0.5, (k % 7) as f64 * 3.0))
        .collect();
    pts[4_321] = DVec3::new(f64::NAN, 1.0, 1.0);
    let deep = build(&s.polys, Frame::z_up(), QuadtreeParams::paper(2, 10));
    for t in [&t, &deep] {
        let (tops, floors, ceilings, inside) =
            (t.top_surfaces(&pts), t.floors_below(&pts), t.ceilings_above(&pts), t.contains_batch(&pts));
        for (k, &p) in pts.iter().enumerate() {
            assert_eq!(
                (tops[k], floors[k], ceilings[k], inside[k]),
                (t.top_surface(p), t.floor_below(p), t.ceiling_above(p), t.contains(p)),
                "{p}"
            );
        }
        assert!(tops.iter().any(Option::is_some) && tops.iter().any(Option::is_none));
    }
    assert!(deep.stats().depth > t.stats().depth, "{:?} vs {:?}", deep.stats(), t.stats());
    let dynamic: &dyn Terrain = &t;
    let p = DVec3::new(2.3, 3.1, 50.0);
    let mut all = Vec::new();
    dynamic.surfaces_on_line(p, &mut |s| all.push(s.point.z));
    assert_eq!(all, surfaces(&t, p));
    assert_eq!(dynamic.top_surface(p).map(|s| s.point.z), all.last().copied());
    let mut tris = 0;
    dynamic.triangles_in(&landfall::Aabb::new(DVec3::new(1.0, 1.0, -10.0), DVec3::new(2.0, 2.0, 50.0)), &mut |_, _| {
        tris += 1
    });
    assert!(tris >= 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Insert polygons (inside the root, overlapping, and outside it) and remove some, from a
    /// built terrain or from its copy; every query then answers as a fresh build of the final set.
    #[test]
    fn edits_match_a_fresh_build(seed in any::<u64>(), n in 3usize..10, max_polys in 1usize..5) {
        let s = scene(seed, n, 0, 0);
        let extra = scene(seed ^ 99, n, 0, 3);
        let mut rng = Rng(seed ^ 0xed17);
        let params = QuadtreeParams::default().with_max_polys(max_polys).with_max_depth(10);
        let split = s.polys.len() / 2;
        let mut t = build(&s.polys[..split], Frame::z_up(), params);
        let mut live: Vec<Option<Vec<DVec3>>> = s.polys[..split].iter().cloned().map(Some).collect();
        let mut adds: Vec<Vec<DVec3>> = s.polys[split..].to_vec();
        adds.extend(extra.polys.iter().skip(2 * n * n).cloned()); // the bridges and L-shapes
        adds.push(vec![DVec3::new(-5.0, -5.0, 1.0), DVec3::new(-3.0, -5.0, 1.0), DVec3::new(-4.0, -3.0, 1.5)]);
        for p in adds {
            let id = t.insert_polygon(&p).unwrap();
            prop_assert_eq!(id as usize, live.len());
            live.push(Some(p));
            if rng.f() < 0.2 {
                let k = (rng.next() % live.len() as u64) as usize;
                let had = live[k].take().is_some();
                prop_assert_eq!(t.remove_polygon(k as u32).unwrap() > 0, had);
            }
        }
        let remaining: Vec<Vec<DVec3>> = live.into_iter().flatten().collect();
        let fresh = build(&remaining, Frame::z_up(), params);
        for _ in 0..300 {
            let p = DVec3::new(rng.range(-6.0, n as f64 + 1.0), rng.range(-6.0, n as f64 + 1.0), rng.range(-2.0, 30.0));
            assert_same_heights(&surfaces(&t, p), &surfaces(&fresh, p), &format!("edited vs fresh at {p}"));
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.2));
            let (a, b) = (t.raycast(&Ray::new(p, d), f64::INFINITY), fresh.raycast(&Ray::new(p, d), f64::INFINITY));
            prop_assert_eq!(a.is_some(), b.is_some(), "ray {} {}", p, d);
            if let (Some(a), Some(b)) = (a, b) {
                prop_assert!((a.t - b.t).abs() < 1e-9 * (1.0 + a.t));
            }
        }
    }
}

/// QOTA's shadow use: a terrain built with the light direction as gravity says a point is lit
/// exactly when a ray from the point toward the light meets nothing.
#[test]
fn shadows_from_a_light_direction_terrain_match_shadow_rays() {
    let s = scene(11, 12, 3, 3);
    let ground = build(&s.polys, Frame::z_up(), QuadtreeParams::default());
    let light = DVec3::new(0.8, 0.3, -0.5); // the direction the light travels
    let sun = build(&s.polys, Frame::from_gravity(light).unwrap(), QuadtreeParams::default());
    let mut rng = Rng(5);
    let (mut lit, mut dark) = (0, 0);
    for _ in 0..3000 {
        let q = DVec3::new(rng.range(0.0, 12.0), rng.range(0.0, 12.0), 50.0);
        let Some(g) = ground.top_surface(q) else { continue };
        let p = g.point;
        let by_ray = ground.raycast(&Ray::new(p - light * 1e-6, -light), f64::INFINITY).is_none();
        // Points whose shadow ray grazes an edge within the bias are ambiguous: skip them.
        let near = ground.raycast(&Ray::new(p - light * 1e-3, -light), f64::INFINITY).is_none();
        if by_ray != near {
            continue;
        }
        assert_eq!(sun.is_lit(p, 1e-6), by_ray, "at {p}");
        if by_ray {
            lit += 1
        } else {
            dark += 1
        }
    }
    assert!(lit > 100 && dark > 100, "lit {lit}, dark {dark}");
}

/// A moving platform: a deck terrain placed by a pose, queried with the ground as one terrain.
#[test]
fn terrain_sets_answer_for_moving_parts() {
    use glam::DAffine3;
    use landfall::{PoseError, TerrainSet};
    use std::sync::Arc;
    let s = scene(2, 8, 0, 0);
    let ground = Arc::new(build(&s.polys, Frame::z_up(), QuadtreeParams::default()));
    let deck = vec![
        DVec3::new(-1.0, -1.0, 0.0),
        DVec3::new(1.0, -1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(-1.0, 1.0, 0.0),
    ];
    let deck = Arc::new(build(&[deck], Frame::z_up(), QuadtreeParams::default()));
    let mut set = TerrainSet::new(Frame::z_up());
    set.add(ground.clone(), DAffine3::IDENTITY).unwrap();
    let k = set.add(deck.clone(), DAffine3::from_translation(DVec3::new(4.0, 4.0, 20.0))).unwrap();
    let p = DVec3::new(4.5, 4.2, 30.0);
    let all = set.surfaces_with_part(p);
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].0, k);
    assert_eq!(all[1].1.point, DVec3::new(4.5, 4.2, 20.0));
    assert_eq!(set.floor_below(DVec3::new(4.5, 4.2, 19.0)).unwrap().point.z, ground.top_surface(p).unwrap().point.z);
    // The platform moves (and turns about the vertical): queries follow it.
    let pose = DAffine3::from_rotation_translation(glam::DQuat::from_rotation_z(0.7), DVec3::new(6.0, 2.0, 25.0));
    set.set_pose(k, pose).unwrap();
    assert!(set.surfaces_with_part(p).iter().all(|(part, _)| *part != k));
    let on = pose.transform_point3(DVec3::new(0.9, 0.0, 0.0));
    let top = set.top_surface(on + DVec3::Z).unwrap();
    assert!((top.point - on).length() < 1e-12);
    let hit = set.raycast(&Ray::new(on + DVec3::new(0.0, 0.0, 5.0), DVec3::NEG_Z), 10.0).unwrap();
    assert!((hit.t - 5.0).abs() < 1e-12);
    let mut n = 0;
    set.triangles_in(&landfall::Aabb::new(on - DVec3::ONE * 0.1, on + DVec3::ONE * 0.1), &mut |_, t| {
        n += usize::from(t.iter().all(|v| (v.z - 25.0).abs() < 1e-12));
    });
    assert!(n >= 1);
    // Tilting or scaling is refused.
    let tilt = DAffine3::from_rotation_translation(glam::DQuat::from_rotation_x(0.3), DVec3::ZERO);
    assert_eq!(set.set_pose(k, tilt), Err(PoseError::NotUpright));
    assert_eq!(set.set_pose(k, DAffine3::from_scale(DVec3::splat(2.0))), Err(PoseError::NotUpright));
    assert_eq!(set.set_pose(9, DAffine3::IDENTITY), Err(PoseError::NoSuchPart(9)));
}

/// QOTA's future direction: a long, thin terrain lying diagonally can get axes along its length;
/// every answer stays the same. An axis-aligned rectangle is left as it is.
#[test]
fn long_thin_terrains_get_their_own_axes() {
    let mut polys = Vec::new();
    let (along, across) = (DVec3::new(1.0, 1.0, 0.0).normalize(), DVec3::new(-1.0, 1.0, 0.0).normalize());
    for k in 0..200 {
        let at = |i: f64, j: f64| along * (i * 0.5) + across * (j * 2.0) + DVec3::Z * ((i * 0.3).sin() + j * 0.2);
        let (i, j) = (k as f64, 0.0);
        polys.push(vec![at(i, j), at(i + 1.0, j), at(i + 1.0, j + 1.0)]);
        polys.push(vec![at(i, j), at(i + 1.0, j + 1.0), at(i, j + 1.0)]);
    }
    let params = QuadtreeParams::default();
    let turned = PolygonTerrain::builder().polygons(&polys).params(params).align_long_axis(true).build().unwrap();
    let plain = PolygonTerrain::builder().polygons(&polys).params(params).build().unwrap();
    assert!(turned.frame().rotation() != plain.frame().rotation());
    let mut rng = Rng(3);
    for _ in 0..2000 {
        let p = along * rng.range(-5.0, 105.0) + across * rng.range(-1.0, 3.0) + DVec3::Z * 10.0;
        let (x, y) = (surfaces(&turned, p), surfaces(&plain, p));
        assert_same_heights(&x, &y, &format!("at {p}"));
        if let (Some(s), Some(t)) = (turned.top_surface(p), plain.top_surface(p)) {
            assert!((s.point - t.point).length() < 1e-9 && (s.normal - t.normal).length() < 1e-12);
            assert_eq!((s.point.x, s.point.y), (p.x, p.y));
        }
        let ray = Ray::new(p, DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -1.0));
        let (h1, h2) = (turned.raycast(&ray, f64::INFINITY), plain.raycast(&ray, f64::INFINITY));
        assert_eq!(h1.is_some(), h2.is_some());
    }
    // An axis-aligned rectangle keeps the frame's own axes.
    let s = scene(4, 8, 0, 0);
    let t = PolygonTerrain::builder().polygons(&s.polys).align_long_axis(true).build().unwrap();
    assert_eq!(t.frame().rotation(), glam::DMat3::IDENTITY);
}

/// A flat or gently sloping TIN over `[0, n]²`: two triangles per unit square, heights `height(x, y)`.
fn tin_grid(n: usize, height: impl Fn(f64, f64) -> f64) -> Vec<Vec<DVec3>> {
    let v = |x: usize, y: usize| DVec3::new(x as f64, y as f64, height(x as f64, y as f64));
    let mut polys = Vec::new();
    for j in 0..n {
        for i in 0..n {
            polys.push(vec![v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            polys.push(vec![v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    polys
}

#[test]
fn single_layer_leaves_stop_at_the_first_face_and_only_where_that_is_exact() {
    let slope = |x: f64, y: f64| 0.3 * x - 0.2 * y + 0.05 * x * y;
    for params in params_all() {
        // A TIN is one layer everywhere: every leaf is marked, and points on shared edges and
        // vertices still find their surface.
        let tin = tin_grid(6, slope);
        let t = build(&tin, Frame::z_up(), params);
        let s = t.stats();
        assert_eq!(s.single_layer_leaves, s.leaves, "{params:?}");
        for p in [DVec3::new(2.0, 3.0, 0.0), DVec3::new(2.5, 2.5, 0.0), DVec3::new(4.0, 1.5, 0.0)] {
            assert_same_heights(&surfaces(&t, p), &ref_surfaces(&tin, p, DVec3::Z), "tin edge");
        }
        // A step: two terraces whose edges meet seen from above, at different heights. Points on
        // the seam have two surfaces, so no leaf on it may be marked.
        let step = vec![
            vec![
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(0.0, 1.0, 0.0),
            ],
            vec![
                DVec3::new(1.0, 0.0, 5.0),
                DVec3::new(2.0, 0.0, 5.0),
                DVec3::new(2.0, 1.0, 5.0),
                DVec3::new(1.0, 1.0, 5.0),
            ],
            vec![DVec3::new(1.0, 1.0, 0.0), DVec3::new(2.0, 1.0, 0.0), DVec3::new(1.5, 2.0, 0.0)],
        ];
        let t = build(&step, Frame::z_up(), params);
        for y in [0.0, 0.25, 0.5, 1.0] {
            let p = DVec3::new(1.0, y, 3.0);
            assert_same_heights(&surfaces(&t, p), &[0.0, 5.0], "seam of the step");
            assert_eq!(t.top_surface(p).map(|s| s.point.z), Some(5.0));
            assert_eq!(t.floor_below(p).map(|s| s.point.z), Some(0.0));
        }
        // The ground triangle touches the upper terrace only at its corner (1, 1): also two
        // surfaces there, one where it meets the lower terrace's edge.
        assert_same_heights(&surfaces(&t, DVec3::new(1.0, 1.0, 0.0)), &[0.0, 5.0], "corner of the step");
        assert_same_heights(&surfaces(&t, DVec3::new(1.5, 1.0, 0.0)), &[0.0, 5.0], "edge under the terrace");
        // A bridge over the TIN: two layers where it is, one elsewhere.
        let mut bridged = tin.clone();
        bridged.push(vec![
            DVec3::new(1.2, 1.2, 9.0),
            DVec3::new(2.8, 1.2, 9.0),
            DVec3::new(2.8, 1.8, 9.0),
            DVec3::new(1.2, 1.8, 9.0),
        ]);
        let t = build(&bridged, Frame::z_up(), params);
        let s = t.stats();
        assert!(s.single_layer_leaves < s.leaves, "{params:?}: {s:?}");
        for p in [DVec3::new(2.0, 1.5, 0.0), DVec3::new(1.2, 1.2, 0.0), DVec3::new(4.5, 4.5, 0.0)] {
            assert_same_heights(&surfaces(&t, p), &ref_surfaces(&bridged, p, DVec3::Z), "bridge");
        }
    }
}

#[test]
fn edits_keep_single_layer_marks_true() {
    let tin = tin_grid(4, |_, _| 0.0);
    let mut t = build(&tin, Frame::z_up(), QuadtreeParams::default());
    let p = DVec3::new(2.3, 2.6, 0.0);
    assert_same_heights(&surfaces(&t, p), &[0.0], "before");
    // A roof inserted over one cell makes its leaves two-layer ...
    let roof = vec![
        DVec3::new(2.1, 2.1, 3.0),
        DVec3::new(2.9, 2.1, 3.0),
        DVec3::new(2.9, 2.9, 3.0),
        DVec3::new(2.1, 2.9, 3.0),
    ];
    let id = t.insert_polygon(&roof).unwrap();
    assert_same_heights(&surfaces(&t, p), &[0.0, 3.0], "after insert");
    assert_eq!(t.top_surface(p).map(|s| s.point.z), Some(3.0));
    let s = t.stats();
    assert!(s.single_layer_leaves < s.leaves, "{s:?}");
    // ... and removing it makes them one layer again.
    t.remove_polygon(id).unwrap();
    assert_same_heights(&surfaces(&t, p), &[0.0], "after remove");
    let s = t.stats();
    assert_eq!(s.single_layer_leaves, s.leaves, "{s:?}");
}

/// Faces of more than three vertices keep their edge equations in the terrain's edge array (a
/// triangle's are in its face record only): a terrain of 10,000 tilted quads, built in several
/// parallel chunks and joined, plus a few quads and triangles inserted afterwards, gives every
/// quad's own plane inside it, agrees with the reference, and survives the full index check.
#[test]
fn quads_keep_their_edge_equations_across_build_chunks_and_edits() {
    let mut rng = Rng(31);
    let n = 100;
    let mut planes = Vec::new();
    let mut polys: Vec<Vec<DVec3>> = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c) = (rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), rng.range(0.0, 10.0));
            let p = |x: f64, y: f64| DVec3::new(x, y, a * x + b * y + c);
            let (x, y) = (i as f64, j as f64);
            // A mix of windings and of triangles among the quads.
            match (i + j) % 3 {
                0 => polys.push(vec![p(x, y), p(x + 1.0, y), p(x + 1.0, y + 1.0), p(x, y + 1.0)]),
                1 => polys.push(vec![p(x, y + 1.0), p(x + 1.0, y + 1.0), p(x + 1.0, y), p(x, y)]),
                _ => {
                    polys.push(vec![p(x, y), p(x + 1.0, y), p(x + 1.0, y + 1.0)]);
                    polys.push(vec![p(x, y), p(x + 1.0, y + 1.0), p(x, y + 1.0)]);
                }
            }
            planes.push([a, b, c]);
        }
    }
    let mut t = build(&polys, Frame::z_up(), QuadtreeParams::default());
    // Inserted: a quad and a triangle hovering over the first cell, another quad over the last.
    let hover = |x: f64, y: f64, z: f64| {
        vec![DVec3::new(x, y, z), DVec3::new(x + 0.5, y, z), DVec3::new(x + 0.5, y + 0.5, z), DVec3::new(x, y + 0.5, z)]
    };
    for p in [
        hover(0.25, 0.25, 200.0),
        vec![DVec3::new(0.0, 0.0, 210.0), DVec3::new(1.0, 0.0, 210.0), DVec3::new(0.0, 1.0, 210.0)],
        hover(99.25, 99.25, 220.0),
    ] {
        t.insert_polygon(&p).unwrap();
        polys.push(p);
    }
    t.validate().unwrap();
    for _ in 0..4000 {
        let (x, y) = (rng.range(0.0, n as f64), rng.range(0.0, n as f64));
        let [a, b, c] = planes[y as usize * n + x as usize];
        let p = DVec3::new(x, y, -100.0);
        let got = surfaces(&t, p);
        assert_same_heights(&got, &ref_surfaces(&polys, p, DVec3::Z), &format!("at ({x}, {y})"));
        assert!((got[0] - (a * x + b * y + c)).abs() < 1e-9, "({x}, {y}): {got:?}");
    }
    for (x, y, top) in [(0.4, 0.4, 210.0), (0.6, 0.6, 200.0), (99.5, 99.5, 220.0)] {
        let z = t.height_at(x, y).unwrap();
        assert!((z - top).abs() < 1e-9, "({x}, {y}): {z}");
    }
}

/// Meshes whose every inner edge is shared, walked once each way, and that still overlap
/// themselves seen from above: a TIN with a copy of its south-west quarter 2 m up (same x, y), a helicoid ramp of
/// one and a half turns, and a TIN with a flap folded back over it. Leaves there must not be taken
/// for one layer (the sealed-face test has to see two faces around each centre of theirs), while
/// the plain parts of the same meshes still are. Every surface, everywhere, against the reference.
#[test]
fn sealed_meshes_that_overlap_themselves_keep_every_layer() {
    let ground = |x: f64, y: f64| 0.3 * x - 0.2 * y + 0.05 * x * y;
    let mut doubled = tin_grid(6, ground);
    doubled.extend(tin_grid(3, |x, y| ground(x, y) + 2.0));

    // Between radii 1 and 3 (two rings), 16 steps a turn, rising 4 m a turn.
    let (steps, rings) = (24, [1.0, 2.0, 3.0]);
    let at = |r: f64, k: usize| {
        let a = k as f64 * std::f64::consts::TAU / 16.0;
        DVec3::new(r * a.cos(), r * a.sin(), 4.0 * a / std::f64::consts::TAU)
    };
    let mut ramp = Vec::new();
    for k in 0..steps {
        for w in rings.windows(2) {
            // Two triangles per (non-planar) quad.
            let (a, b, c, d) = (at(w[0], k), at(w[1], k), at(w[1], k + 1), at(w[0], k + 1));
            ramp.extend([vec![a, b, c], vec![a, c, d]]);
        }
    }

    // A 6 × 6 TIN whose middle row of squares is lifted 1 m and folded back: its far edge stays
    // joined to the next row, its near edge is carried over the row before it.
    let mut folded = Vec::new();
    let v = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
    for j in 0..6 {
        for i in 0..6 {
            let (x, y) = (i as f64, j as f64);
            let (y0, z0, y1, z1) = match j {
                3 => (2.0, 1.5, 4.0, 1.0), // the flap: from y = 4 back over y = 2 … 3
                _ => (y, 1.0 * (j >= 4) as u8 as f64, y + 1.0, 1.0 * (j >= 3) as u8 as f64),
            };
            folded.push(vec![v(x, y0, z0), v(x + 1.0, y0, z0), v(x + 1.0, y1, z1)]);
            folded.push(vec![v(x, y0, z0), v(x + 1.0, y1, z1), v(x, y1, z1)]);
        }
    }

    let mut rng = Rng(17);
    for (name, polys) in [("doubled", &doubled), ("ramp", &ramp), ("folded", &folded)] {
        for params in params_all() {
            let t = build(polys, Frame::z_up(), params);
            let s = t.stats();
            let b = t.bounds();
            let mut points: Vec<DVec3> = polys.iter().flatten().copied().collect();
            points.extend((0..400).map(|_| DVec3::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y), 0.0)));
            for p in points {
                let want = ref_surfaces(polys, p, DVec3::Z);
                assert_same_heights(&surfaces(&t, p), &want, &format!("{name} {params:?} at {p}"));
            }
            if name != "ramp" || params == QuadtreeParams::default() {
                assert!(s.single_layer_leaves > 0 && s.single_layer_leaves < s.leaves, "{name} {params:?}: {s:?}");
            }
        }
    }
}
