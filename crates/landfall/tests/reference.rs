//! Property tests of the heightfield queries against an independent f64 brute force over all
//! triangles, written from the definition of the grid and its triangulation in `docs/conventions.md`.

use glam::DVec3;
use landfall::{Diagonal, Half, Heightfield, Ray, TriangleId};
use proptest::prelude::*;

/// A test terrain: the inputs of the heightfield, kept to build the reference from.
#[derive(Clone, Debug)]
struct Case {
    nx: usize,
    ny: usize,
    h: Vec<f32>,
    mask: Vec<bool>,
    origin: (f64, f64),
    spacing: (f64, f64),
    diagonal: Diagonal,
    leaf: usize,
}

impl Case {
    fn build(&self) -> Heightfield {
        Heightfield::builder(self.nx, self.ny, self.h.clone())
            .origin(self.origin.0, self.origin.1)
            .spacing(self.spacing.0, self.spacing.1)
            .diagonal(self.diagonal)
            .hole_mask(self.mask.clone())
            .leaf_size(self.leaf)
            .build()
            .unwrap()
    }

    fn pos(&self, i: usize, j: usize) -> DVec3 {
        DVec3::new(
            self.origin.0 + i as f64 * self.spacing.0,
            self.origin.1 + j as f64 * self.spacing.1,
            self.h[j * self.nx + i] as f64,
        )
    }

    /// Every existing triangle with its identity, straight from the conventions.
    fn triangles(&self) -> Vec<(TriangleId, [DVec3; 3])> {
        let mut out = Vec::new();
        for j in 0..self.ny - 1 {
            for i in 0..self.nx - 1 {
                if self.mask[j * (self.nx - 1) + i] {
                    continue;
                }
                let (a, b, c, d) = (self.pos(i, j), self.pos(i + 1, j), self.pos(i, j + 1), self.pos(i + 1, j + 1));
                let anti = match self.diagonal {
                    Diagonal::Alternating => (i + j) % 2 == 0,
                    Diagonal::SouthWestNorthEast => false,
                    Diagonal::SouthEastNorthWest => true,
                };
                // Diagonal (i+1, j)–(i, j+1) when anti, else (i, j)–(i+1, j+1).
                let (south, north) = if anti { ([a, b, c], [d, c, b]) } else { ([a, b, d], [a, d, c]) };
                for (half, t) in [(Half::South, south), (Half::North, north)] {
                    if t.iter().all(|p| p.z.is_finite()) {
                        out.push((TriangleId::Cell { i: i as u32, j: j as u32, half }, t));
                    }
                }
            }
        }
        out
    }

    fn z_scale(&self) -> f64 {
        1.0 + self.h.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs() as f64))
    }
}

/// Barycentric coordinates of (x, y) in the x-y projection of `t`.
fn bary(t: &[DVec3; 3], x: f64, y: f64) -> (f64, f64, f64) {
    let (a, b, c) = (t[0], t[1], t[2]);
    let det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    let l1 = ((x - a.x) * (c.y - a.y) - (c.x - a.x) * (y - a.y)) / det;
    let l2 = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / det;
    (1.0 - l1 - l2, l1, l2)
}

/// Reference heights at (x, y): every triangle whose projection contains it within `tol`.
fn ref_heights(tris: &[(TriangleId, [DVec3; 3])], x: f64, y: f64, tol: f64) -> Vec<(TriangleId, f64, f64)> {
    tris.iter()
        .filter_map(|(id, t)| {
            let (l0, l1, l2) = bary(t, x, y);
            let margin = l0.min(l1).min(l2);
            (margin >= -tol).then(|| (*id, l0 * t[0].z + l1 * t[1].z + l2 * t[2].z, margin))
        })
        .collect()
}

/// Reference ray hits: (t, id, margin inside the triangle), f64, two-sided, by plane + barycentrics.
fn ref_hits(tris: &[(TriangleId, [DVec3; 3])], o: DVec3, d: DVec3, max_t: f64) -> Vec<(f64, TriangleId, f64)> {
    let mut out = Vec::new();
    for (id, t) in tris {
        let n = (t[1] - t[0]).cross(t[2] - t[0]);
        let den = n.dot(d);
        if den.abs() < 1e-300 {
            continue;
        }
        let s = n.dot(t[0] - o) / den;
        if !(s >= 0.0 && s <= max_t) {
            continue;
        }
        let p = o + d * s;
        let (l0, l1, l2) = bary(t, p.x, p.y);
        out.push((s, *id, l0.min(l1).min(l2)));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Larger terrains without holes (30–70 samples a side, leaves of 1–3 cells: deep pyramids), rough
/// or smooth (hills with a little noise, over which rays clear whole nodes).
fn deep_case_strategy() -> impl Strategy<Value = Case> {
    (30usize..70, 30usize..70, 0u8..3, 1usize..4, 0.5f64..2.0, 0.5f64..2.0, 0.0f32..1.0).prop_flat_map(
        |(nx, ny, dg, leaf, dx, dy, rough)| {
            proptest::collection::vec(-1.0f32..1.0, nx * ny).prop_map(move |noise| {
                let h = (0..nx * ny)
                    .map(|k| {
                        let (i, j) = ((k % nx) as f32, (k / nx) as f32);
                        10.0 * (i / 7.0).sin() * (j / 9.0).cos() + 20.0 * rough * noise[k]
                    })
                    .collect();
                let diagonal =
                    [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest][dg as usize];
                let mask = vec![false; (nx - 1) * (ny - 1)];
                Case { nx, ny, h, mask, origin: (-30.0, 12.5), spacing: (dx, dy), diagonal, leaf }
            })
        },
    )
}

fn case_strategy(with_holes: bool) -> impl Strategy<Value = Case> {
    (
        2usize..20,
        2usize..20,
        0u8..3,
        1usize..6,
        -100.0f64..100.0,
        -100.0f64..100.0,
        0.3f64..3.0,
        0.3f64..3.0,
        any::<(bool, bool)>(),
    )
        .prop_flat_map(move |(nx, ny, dg, leaf, ox, oy, dx, dy, (integer, holey))| {
            let n = nx * ny;
            // Half the cases with holes, half without (the walk has a separate hole-free path).
            let hole_p = if with_holes && holey { 0.15 } else { 0.0 };
            (
                proptest::collection::vec(-20.0f32..20.0, n),
                proptest::collection::vec(proptest::bool::weighted(hole_p), n),
                proptest::collection::vec(proptest::bool::weighted(hole_p), (nx - 1) * (ny - 1)),
            )
                .prop_map(move |(mut h, nan, mask)| {
                    if integer {
                        // Integer heights make flat patches: rays in a triangle's plane, exact ties.
                        h.iter_mut().for_each(|v| *v = v.round());
                    }
                    for (v, &z) in h.iter_mut().zip(&nan) {
                        if z {
                            *v = f32::NAN;
                        }
                    }
                    let diagonal = [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest]
                        [dg as usize];
                    Case { nx, ny, h, mask, origin: (ox, oy), spacing: (dx, dy), diagonal, leaf }
                })
        })
}

/// A ray from `o` aimed exactly at `target`, a point on the surface: it must hit by t = 1 (its
/// direction is `target − o`), and answer as the reference does.
fn check_aimed(
    c: &Case,
    hf: &Heightfield,
    tris: &[(TriangleId, [DVec3; 3])],
    o: DVec3,
    target: DVec3,
) -> Result<(), TestCaseError> {
    let d = target - o;
    let got = hf.raycast(&Ray::new(o, d), f64::INFINITY);
    prop_assert!(got.is_some(), "ray {o} → {target} slipped through");
    prop_assert!(got.unwrap().t <= 1.0 + 1e-9, "t {} beyond the aimed point", got.unwrap().t);
    check_ray(c, hf, tris, o, d, f64::INFINITY)
}

/// Checks a landfall ray answer against the reference.
fn check_ray(
    c: &Case,
    hf: &Heightfield,
    tris: &[(TriangleId, [DVec3; 3])],
    o: DVec3,
    d: DVec3,
    max_t: f64,
) -> Result<(), TestCaseError> {
    let got = hf.raycast(&Ray::new(o, d), max_t);
    let refs = ref_hits(tris, o, d, max_t);
    let scale = c.z_scale() + o.length() + d.length() * max_t.min(1e3);
    let t_tol = 1e-7 * scale / d.length();
    let robust = refs.iter().find(|r| r.2 > 1e-6);
    match got {
        None => prop_assert!(robust.is_none(), "missed a hit {:?} of ray {o} {d}", robust),
        Some(h) => {
            prop_assert!(h.t >= 0.0 && h.t <= max_t, "t {} out of range", h.t);
            prop_assert!((h.point - (o + d * h.t)).length() <= 1e-9 * scale);
            // The hit triangle exists and the point lies on it.
            let tri = tris.iter().find(|(id, _)| *id == h.triangle);
            prop_assert!(tri.is_some(), "hit reports a removed triangle {:?}", h.triangle);
            let t = tri.unwrap().1;
            let (l0, l1, l2) = bary(&t, h.point.x, h.point.y);
            prop_assert!(
                l0.min(l1).min(l2) > -1e-6,
                "hit point outside its triangle: ray {o} {d} max_t {max_t} hit {h:?}"
            );
            let z = l0 * t[0].z + l1 * t[1].z + l2 * t[2].z;
            prop_assert!((z - h.point.z).abs() <= 1e-6 * scale, "hit z {} vs triangle {}", h.point.z, z);
            let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
            prop_assert!((h.normal - n).length() < 1e-9 && h.normal.z > 0.0, "normal {} vs {}", h.normal, n);
            // Nothing robustly earlier.
            if let Some(r) = robust {
                prop_assert!(h.t <= r.0 + t_tol, "landfall t {} after reference t {}", h.t, r.0);
            }
            if let Some(first) = refs.iter().find(|r| r.2 > -1e-6) {
                prop_assert!(h.t >= first.0 - t_tol, "landfall t {} before any reference hit {}", h.t, first.0);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn vertical_queries_match_reference(c in case_strategy(true), pts in proptest::collection::vec((-0.2f64..1.2, -0.2f64..1.2), 40)) {
        let hf = c.build();
        let tris = c.triangles();
        let w = (c.nx - 1) as f64 * c.spacing.0;
        let hgt = (c.ny - 1) as f64 * c.spacing.1;
        for (a, b) in pts {
            let (x, y) = (c.origin.0 + a * w, c.origin.1 + b * hgt);
            let refs = ref_heights(&tris, x, y, 1e-9);
            let got = hf.surface_at(x, y);
            match got {
                None => prop_assert!(refs.iter().all(|r| r.2 < 1e-9), "no answer at ({x}, {y}) but reference has {:?}", refs),
                Some(s) => {
                    let r = refs.iter().find(|r| r.0 == s.triangle);
                    prop_assert!(r.is_some(), "triangle {:?} does not contain ({x}, {y})", s.triangle);
                    prop_assert!((r.unwrap().1 - s.point.z).abs() < 1e-9 * c.z_scale());
                    prop_assert_eq!(hf.height_at(x, y), Some(s.point.z));
                    prop_assert!((s.normal.length() - 1.0).abs() < 1e-12 && s.normal.z > 0.0);
                }
            }
        }
    }

    #[test]
    fn vertical_queries_on_vertices_and_edges(c in case_strategy(true), picks in proptest::collection::vec((0usize..64, 0usize..64, 0.0f64..1.0, 0u8..4), 40)) {
        let hf = c.build();
        let tris = c.triangles();
        for (pi, pj, f, kind) in picks {
            let (i, j) = (pi % (c.nx - 1), pj % (c.ny - 1));
            let (a, b) = (c.pos(i, j), c.pos(i + 1, j + 1));
            // A vertex, a point on a horizontal or vertical grid edge, or on a cell diagonal.
            let (x, y) = match kind {
                0 => (a.x, a.y),
                1 => (a.x + f * (b.x - a.x), a.y),
                2 => (a.x, a.y + f * (b.y - a.y)),
                _ => (a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)),
            };
            let refs = ref_heights(&tris, x, y, 1e-9);
            match hf.surface_at(x, y) {
                None => prop_assert!(refs.is_empty(), "no answer on a border at ({x},{y}), reference {:?}", refs),
                Some(s) => prop_assert!(refs.iter().any(|r| r.0 == s.triangle && (r.1 - s.point.z).abs() < 1e-9 * c.z_scale())),
            }
        }
    }

    #[test]
    fn random_rays_match_reference(c in case_strategy(true), rays in proptest::collection::vec((-0.3f64..1.3, -0.3f64..1.3, -40.0f64..40.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, prop_oneof![Just(f64::INFINITY), 0.0f64..60.0]), 30)) {
        let hf = c.build();
        let tris = c.triangles();
        let w = (c.nx - 1) as f64 * c.spacing.0;
        let hgt = (c.ny - 1) as f64 * c.spacing.1;
        for (a, b, z, dx, dy, dz, max_t) in rays {
            let d = DVec3::new(dx, dy, dz);
            if d.length() < 1e-3 { continue; }
            let o = DVec3::new(c.origin.0 + a * w, c.origin.1 + b * hgt, z);
            check_ray(&c, &hf, &tris, o, d, max_t)?;
        }
    }

    /// Lines of sight on terrains deep enough for a pyramid of five to seven levels: rays between
    /// two points a little above (or below) the ground start inside the height slab, so the walk
    /// starts at a leaf and climbs as nodes are pruned — across many levels and every kind of
    /// parent boundary.
    #[test]
    fn lines_of_sight_on_deep_pyramids_match_reference(c in deep_case_strategy(), rays in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, -0.5f64..3.0, -0.5f64..3.0), 12)) {
        let hf = c.build();
        let tris = c.triangles();
        let (w, hgt) = ((c.nx - 1) as f64 * c.spacing.0, (c.ny - 1) as f64 * c.spacing.1);
        let at = |a: f64, b: f64, up: f64| {
            let (x, y) = (c.origin.0 + a * w, c.origin.1 + b * hgt);
            DVec3::new(x, y, hf.height_at(x, y).unwrap_or(0.0) + up)
        };
        for (a0, b0, a1, b1, up0, up1) in rays {
            let (o, target) = (at(a0, b0, up0), at(a1, b1, up1));
            if (target - o).length() < 1e-3 { continue; }
            check_ray(&c, &hf, &tris, o, target - o, 1.0)?;
            check_ray(&c, &hf, &tris, o, target - o, f64::INFINITY)?;
        }
    }

    #[test]
    fn axis_parallel_and_vertical_rays(c in case_strategy(true), rays in proptest::collection::vec((0usize..64, 0usize..64, 0.0f64..1.0, 0u8..6, -30.0f64..30.0, any::<bool>()), 30)) {
        let hf = c.build();
        let tris = c.triangles();
        for (pi, pj, f, kind, z, on_line) in rays {
            let (i, j) = (pi % (c.nx - 1), pj % (c.ny - 1));
            let (a, b) = (c.pos(i, j), c.pos(i + 1, j + 1));
            let (x, y) = if on_line { (a.x, a.y + f * (b.y - a.y)) } else { (a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)) };
            let d = [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::NEG_Z, DVec3::Z][kind as usize] * (0.5 + f);
            check_ray(&c, &hf, &tris, DVec3::new(x, y, z), d, f64::INFINITY)?;
        }
    }

    /// Watertightness: rays aimed exactly at sample vertices, at points on grid edges and on cell
    /// diagonals, from every direction above (or below) — none may miss.
    #[test]
    fn rays_at_vertices_and_edges_never_miss(c in case_strategy(false), rays in proptest::collection::vec((0usize..64, 0usize..64, 0.0f64..1.0, 0u8..4, -1.0f64..1.0, -1.0f64..1.0, 1.0f64..50.0, any::<bool>()), 40)) {
        let hf = c.build();
        let tris = c.triangles();
        for (pi, pj, f, kind, ax, ay, up, from_below) in rays {
            let (i, j) = (pi % (c.nx - 1), pj % (c.ny - 1));
            let (a, b) = (c.pos(i, j), c.pos(i + 1, j + 1));
            let target = match kind {
                0 => a,
                1 => { let p = c.pos(i + 1, j); a + (p - a) * f }
                2 => { let p = c.pos(i, j + 1); a + (p - a) * f }
                _ => {
                    let anti = match c.diagonal { Diagonal::Alternating => (i + j) % 2 == 0, Diagonal::SouthWestNorthEast => false, Diagonal::SouthEastNorthWest => true };
                    let (p, q) = if anti { (c.pos(i + 1, j), c.pos(i, j + 1)) } else { (a, b) };
                    p + (q - p) * f
                }
            };
            // Start over the grid, above every sample (or below): f(0) and f(1) = 0 differ, so a
            // crossing in [0, 1] exists for certain.
            let (lo, hi) = c.h.iter().fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v as f64), h.max(v as f64)));
            let w = (c.nx - 1) as f64 * c.spacing.0;
            let hgt = (c.ny - 1) as f64 * c.spacing.1;
            let z = if from_below { lo - up } else { hi + up };
            let o = DVec3::new(c.origin.0 + (ax + 1.0) * 0.5 * w, c.origin.1 + (ay + 1.0) * 0.5 * hgt, z);
            check_aimed(&c, &hf, &tris, o, target)?;
        }
    }

    /// Rays aimed exactly at points of the grid's outer border (its corners, its border vertices and
    /// points between them), from above or below, inside or outside the grid rectangle, on grids
    /// whose cells fill their leaves exactly (node edges on the border) or not — none may miss.
    #[test]
    fn rays_at_the_grid_border_never_miss(
        (c, rays) in (1usize..5, 2usize..12, 2usize..12, any::<(bool, bool)>(), 0u8..3).prop_flat_map(|(leaf, mx, my, (aligned, integer), dg)| {
            let extra = if aligned { 0 } else { 1 + leaf / 2 };
            let (nx, ny) = (leaf * mx + 1 + extra, leaf * my + 1);
            (
                proptest::collection::vec(-20.0f32..20.0, nx * ny).prop_map(move |mut h| {
                    if integer {
                        h.iter_mut().for_each(|v| *v = v.round());
                    }
                    let diagonal = [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest][dg as usize];
                    let mask = vec![false; (nx - 1) * (ny - 1)];
                    Case { nx, ny, h, mask, origin: (-3.5, 7.25), spacing: (0.75, 1.5), diagonal, leaf }
                }),
                proptest::collection::vec((0u8..4, 0usize..64, 0.0f64..1.0, any::<bool>(), -1.5f64..1.5, -1.5f64..1.5, 1.0f64..50.0, any::<bool>()), 30),
            )
        })
    ) {
        let hf = c.build();
        let tris = c.triangles();
        let (lo, hi) = c.h.iter().fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v as f64), h.max(v as f64)));
        let (w, hgt) = ((c.nx - 1) as f64 * c.spacing.0, (c.ny - 1) as f64 * c.spacing.1);
        for (side, k, f, on_vertex, ax, ay, up, from_below) in rays {
            // A point on one side of the border: a vertex, or a point on the edge after it.
            let (i, j, di, dj) = match side {
                0 => (k % (c.nx - 1), 0, 1, 0),
                1 => (k % (c.nx - 1), c.ny - 1, 1, 0),
                2 => (0, k % (c.ny - 1), 0, 1),
                _ => (c.nx - 1, k % (c.ny - 1), 0, 1),
            };
            let (a, b) = (c.pos(i, j), c.pos(i + di, j + dj));
            let target = if on_vertex { [a, b][usize::from(f > 0.5)] } else { a + (b - a) * f };
            let z = if from_below { lo - up } else { hi + up };
            let o = DVec3::new(c.origin.0 + (ax + 1.0) * 0.5 * w, c.origin.1 + (ay + 1.0) * 0.5 * hgt, z);
            check_aimed(&c, &hf, &tris, o, target)?;
        }
    }

    /// `crossings` reports every robust reference crossing, in increasing t, and only points on
    /// existing triangles (this is what vertical queries along a tilted gravity use).
    #[test]
    fn all_crossings_match_reference(c in case_strategy(true), rays in proptest::collection::vec((-0.3f64..1.3, -0.3f64..1.3, -40.0f64..40.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 20)) {
        let hf = c.build();
        let tris = c.triangles();
        let w = (c.nx - 1) as f64 * c.spacing.0;
        let hgt = (c.ny - 1) as f64 * c.spacing.1;
        for (a, b, z, dx, dy, dz) in rays {
            let d = DVec3::new(dx, dy, dz);
            if d.length() < 1e-3 { continue; }
            let o = DVec3::new(c.origin.0 + a * w, c.origin.1 + b * hgt, z);
            let mut got = Vec::new();
            hf.crossings(&Ray::new(o, d), 0.0, f64::INFINITY, |h| { got.push(h); std::ops::ControlFlow::Continue(()) });
            prop_assert!(got.windows(2).all(|p| p[0].t < p[1].t), "not in increasing t");
            let scale = c.z_scale() + o.length() + d.length() * 100.0;
            let t_tol = 1e-7 * scale / d.length();
            for h in &got {
                let on = tris.iter().any(|(id, t)| *id == h.triangle && {
                    let (l0, l1, l2) = bary(t, h.point.x, h.point.y);
                    l0.min(l1).min(l2) > -1e-6 && (l0 * t[0].z + l1 * t[1].z + l2 * t[2].z - h.point.z).abs() <= 1e-6 * scale
                });
                prop_assert!(on, "crossing {:?} not on its triangle", h);
            }
            // Each robust reference crossing (well inside a triangle, not grazing) is reported.
            for r in ref_hits(&tris, o, d, f64::INFINITY).iter().filter(|r| r.2 > 1e-6) {
                let (_, t) = tris.iter().find(|(id, _)| *id == r.1).unwrap();
                let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
                if n.dot(d.normalize()).abs() < 1e-3 { continue; }
                prop_assert!(got.iter().any(|h| (h.t - r.0).abs() <= t_tol), "reference crossing at t {} not reported: {:?}", r.0, got.iter().map(|h| h.t).collect::<Vec<_>>());
            }
        }
    }

    /// `Terrain::triangles_in` visits every existing triangle whose bounding box meets the region
    /// (a superset is allowed), each with its true vertices, and never a removed one.
    #[test]
    fn triangles_in_region_cover_the_reference(c in case_strategy(true), boxes in proptest::collection::vec((-0.2f64..1.2, -0.2f64..1.2, 0.0f64..0.5, 0.0f64..0.5, -25.0f64..25.0, 0.0f64..20.0), 10)) {
        use landfall::Aabb;
        let hf = c.build();
        let tris = c.triangles();
        let w = (c.nx - 1) as f64 * c.spacing.0;
        let hgt = (c.ny - 1) as f64 * c.spacing.1;
        for (a, b, sw, sh, z, sz) in boxes {
            let min = DVec3::new(c.origin.0 + a * w, c.origin.1 + b * hgt, z);
            let region = Aabb::new(min, min + DVec3::new(sw * w, sh * hgt, sz));
            let mut got = Vec::new();
            hf.triangles_in(&region, &mut |id, v| got.push((id, v)));
            for (id, v) in &got {
                let r = tris.iter().find(|(rid, _)| rid == id);
                prop_assert!(r.is_some_and(|(_, rv)| rv == v), "visited {:?} is not an existing triangle with these vertices", id);
            }
            for (id, v) in &tris {
                let lo = v[0].min(v[1]).min(v[2]);
                let hi = v[0].max(v[1]).max(v[2]);
                let meets = lo.x <= region.max.x && hi.x >= region.min.x && lo.y <= region.max.y && hi.y >= region.min.y && lo.z <= region.max.z && hi.z >= region.min.z;
                if meets {
                    prop_assert!(got.iter().any(|(g, _)| g == id), "triangle {:?} meets the region but was not visited", id);
                }
            }
        }
    }

    /// After any sequence of edits, every pyramid node (updated incrementally) contains the true
    /// range of its block and is at most one quantum wider; the grid's exact range is right.
    #[test]
    fn edited_pyramid_nodes_bound_their_samples(c in case_strategy(true), edits in proptest::collection::vec((0usize..64, 0usize..64, 1usize..8, 1usize..8, -30.0f32..30.0, any::<bool>()), 1..6)) {
        let mut hf = c.build();
        check_pyramid(&hf)?;
        for (i0, j0, w, h, z, nan) in edits {
            let (i0, j0) = (i0 % c.nx, j0 % c.ny);
            let (w, h) = (w.min(c.nx - i0), h.min(c.ny - j0));
            let vals: Vec<f32> = (0..w * h).map(|k| if nan && k % 3 == 0 { f32::NAN } else { z + k as f32 * 0.25 }).collect();
            hf.set_samples(i0, j0, w, h, &vals).unwrap();
            check_pyramid(&hf)?;
            prop_assert_eq!(hf.nodata_count(), hf.heights().unwrap().iter().filter(|v| v.is_nan()).count());
        }
    }
}

/// Every node of the pyramid against a brute-force scan of its block.
fn check_pyramid(hf: &Heightfield) -> Result<(), TestCaseError> {
    let p = hf.pyramid();
    let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
    let valid = || hf.heights().unwrap().iter().copied().filter(|v| !v.is_nan());
    let exact = (valid().fold(f32::INFINITY, f32::min), valid().fold(f32::NEG_INFINITY, f32::max));
    prop_assert_eq!(p.root(), exact);
    let tol = 1e-9 * (1.0 + exact.0.abs().max(exact.1.abs()) as f64);
    for k in 0..p.depth() {
        let span = p.leaf_size() << k;
        let (nbx, nby) = p.level_size(k);
        for bj in 0..nby {
            for bi in 0..nbx {
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                for j in bj * span..=((bj + 1) * span).min(ncy) {
                    for i in bi * span..=((bi + 1) * span).min(ncx) {
                        let h = hf.sample(i, j) as f64;
                        if !h.is_nan() {
                            lo = lo.min(h);
                            hi = hi.max(h);
                        }
                    }
                }
                let (a, b) = p.node(k, bi, bj);
                if lo > hi {
                    prop_assert!(a > b, "node ({k}, {bi}, {bj}) of NaN samples must be empty");
                } else {
                    let q = p.quantum() * 1.001 + tol;
                    prop_assert!(
                        a <= lo + tol && b >= hi - tol,
                        "node ({k}, {bi}, {bj}) = [{a}, {b}] misses [{lo}, {hi}]"
                    );
                    prop_assert!(
                        a >= lo - q && b <= hi + q,
                        "node ({k}, {bi}, {bj}) = [{a}, {b}] looser than a quantum around [{lo}, {hi}]"
                    );
                }
            }
        }
    }
    Ok(())
}

#[test]
fn batch_matches_single() {
    let nx = 37;
    let ny = 23;
    let h: Vec<f32> = (0..nx * ny).map(|k| ((k * 7919) % 101) as f32 * 0.1).collect();
    let hf = Heightfield::builder(nx, ny, h).spacing(2.0, 1.5).build().unwrap();
    let pts: Vec<[f64; 2]> = (0..5000).map(|k| [(k % 97) as f64 * 0.77, (k % 53) as f64 * 0.61]).collect();
    let batch = hf.height_batch(&pts);
    for (p, b) in pts.iter().zip(&batch) {
        assert_eq!(*b, hf.height_at(p[0], p[1]));
    }
    let rays: Vec<(Ray, f64)> = pts
        .iter()
        .map(|p| (Ray::new(DVec3::new(p[0], p[1], 30.0), DVec3::new(0.3, -0.2, -1.0)), f64::INFINITY))
        .collect();
    for ((r, m), b) in rays.iter().zip(hf.raycast_batch(&rays)) {
        assert_eq!(b, hf.raycast(r, *m));
    }
}

#[test]
fn invalid_rays_are_misses_not_panics() {
    let hf = Heightfield::builder(2, 2, vec![0.0; 4]).build().unwrap();
    let o = DVec3::new(0.5, 0.5, 1.0);
    for (r, m) in [
        (Ray::new(o, DVec3::ZERO), 1.0),
        (Ray::new(o, DVec3::new(f64::NAN, 0.0, -1.0)), 1.0),
        (Ray::new(DVec3::new(f64::INFINITY, 0.0, 0.0), DVec3::NEG_Z), 1.0),
        (Ray::new(o, DVec3::NEG_Z), f64::NAN),
        (Ray::new(o, DVec3::NEG_Z), -1.0),
    ] {
        assert!(hf.raycast(&r, m).is_none());
        assert!(r.validate(m).is_err());
    }
    assert_eq!(hf.raycast(&Ray::new(o, DVec3::NEG_Z), 0.5), None);
    assert_eq!(hf.raycast(&Ray::new(o, DVec3::NEG_Z), 1.0).map(|h| h.t), Some(1.0));
    assert_eq!(hf.height_at(f64::NAN, 0.0), None);
    assert_eq!(hf.height_at(1.0000001, 0.5), None);
}

/// Finite but extreme rays (denormal or huge components, far origins) terminate, and any hit they
/// report is on the terrain.
#[test]
fn extreme_rays_terminate_and_stay_exact() {
    let n = 33;
    let h: Vec<f32> = (0..n * n).map(|k| ((k * 37) % 19) as f32 - 9.0).collect();
    let hf = Heightfield::builder(n, n, h).spacing(0.5, 2.0).origin(-3.0, 7.0).build().unwrap();
    let values = [0.0, 1e-310, -1e-310, 1e-300, 1e-200, 1.0, -1.0, 1e200, -1e200, 1e308, -1e308, 3.7];
    let mut hits = 0;
    for (k, &a) in values.iter().enumerate() {
        for &b in &values {
            for &c in &values {
                let dir = DVec3::new(a, b, c - 1.0);
                let origin = DVec3::new(values[(k + 3) % values.len()].clamp(-1e300, 1e300), 20.0, 30.0);
                // Also exactly on node boundaries of both axes (u = 16, v = 16), where an overflowing
                // inverse direction used to meet a zero distance.
                for o in [
                    origin,
                    DVec3::new(5.0, 30.0, 30.0),
                    DVec3::new(5.0, 39.0, 30.0),
                    DVec3::new(5.0, 39.0, -30.0),
                    DVec3::new(1.0, 23.0, 30.0),
                ] {
                    let Some(hit) = hf.raycast(&Ray::new(o, dir), f64::INFINITY) else { continue };
                    hits += 1;
                    assert!(hit.t.is_finite() && hit.t >= 0.0, "{o} {dir} → t {}", hit.t);
                    let z = hf.height_at(hit.point.x, hit.point.y);
                    assert!(z.is_some_and(|z| (z - hit.point.z).abs() < 1e-6), "{o} {dir} → {hit:?}");
                }
            }
        }
    }
    assert!(hits > 100);
}

#[test]
fn builder_rejects_bad_input() {
    use landfall::HeightfieldError as E;
    assert!(matches!(Heightfield::builder(1, 5, vec![0.0; 5]).build(), Err(E::TooSmall { .. })));
    assert!(matches!(Heightfield::builder(2, 2, vec![0.0; 3]).build(), Err(E::WrongLength { .. })));
    assert!(matches!(
        Heightfield::builder(2, 2, vec![0.0, f32::INFINITY, 0.0, 0.0]).build(),
        Err(E::InfiniteSample { i: 1, j: 0 })
    ));
    assert!(matches!(Heightfield::builder(2, 2, vec![0.0; 4]).spacing(0.0, 1.0).build(), Err(E::BadSpacing { .. })));
    assert!(matches!(Heightfield::builder(2, 2, vec![0.0; 4]).origin(f64::NAN, 1.0).build(), Err(E::BadOrigin { .. })));
    assert!(matches!(Heightfield::builder(2, 2, vec![0.0; 4]).leaf_size(0).build(), Err(E::BadLeafSize)));
    let huge = landfall::support::MAX_LEAF_SIZE + 1;
    assert!(matches!(Heightfield::builder(2, 2, vec![0.0; 4]).leaf_size(huge).build(), Err(E::BadLeafSize)));
    // Sample positions f64 cannot hold: a far corner past f64::MAX, cells below the coordinates'
    // precision, a spacing whose inverse overflows. Extreme but representable grids are kept.
    let grid =
        |ox: f64, oy: f64, dx: f64| Heightfield::builder(3, 3, vec![0.0; 9]).origin(ox, oy).spacing(dx, dx).build();
    for (ox, oy, dx) in
        [(0.0, 0.0, 1e308), (1e308, 1e308, 1.0), (-1e308, 0.0, 1e280), (0.0, 0.0, 1e-320), (5e6, 0.0, 1e-7)]
    {
        assert!(matches!(grid(ox, oy, dx), Err(E::Unrepresentable { .. })), "{ox} {oy} {dx}");
    }
    for (ox, oy, dx) in [(0.0, 0.0, 5e307), (-1e308, 0.0, 1e296), (5e6, 4e6, 1e-3), (0.0, 0.0, 1e-300)] {
        let hf = grid(ox, oy, dx).unwrap();
        assert_eq!(hf.height_at(ox + dx, oy + dx), Some(0.0), "{ox} {oy} {dx}");
    }
    assert!(matches!(
        Heightfield::builder(3, 2, vec![0.0; 6]).hole_mask(vec![true]).build(),
        Err(E::WrongMaskLength { .. })
    ));
    let mut hf = Heightfield::builder(3, 3, vec![0.0; 9]).build().unwrap();
    assert!(hf.set_samples(2, 2, 2, 1, &[1.0, 2.0]).is_err());
    assert!(hf.set_samples(0, 0, 1, 1, &[f32::INFINITY]).is_err());
}

#[test]
fn alternating_diagonal_follows_the_convention() {
    // One bump sample at (1, 1) of a 3×3 grid: cell (0,0) is even → diagonal (1,0)–(0,1), so the
    // point (0.75, 0.75) is in the north-east triangle, which uses (1,1).
    let mut h = vec![0.0f32; 9];
    h[4] = 4.0;
    let hf = Heightfield::builder(3, 3, h.clone()).build().unwrap();
    assert_eq!(hf.height_at(0.25, 0.25), Some(0.0));
    assert_eq!(hf.height_at(0.75, 0.75), Some(4.0 * 0.5));
    // Cell (1,0) is odd → diagonal (1,0)–(2,1): the point (1.25, 0.75) lies in its north-west half
    // with corners (1,0),(2,1),(1,1), height = 4·(1 − 0.25) ... evaluate the plane: z = 4·fv − 4·fu + 4·fu·0
    let z = hf.height_at(1.25, 0.75).unwrap();
    assert!((z - 4.0 * (0.75 - 0.25) - 0.0).abs() < 1e-12 || (z - 3.0).abs() < 1e-12, "{z}");
    let sw = Heightfield::builder(3, 3, h).diagonal(Diagonal::SouthWestNorthEast).build().unwrap();
    // Cell (0,0) split by (0,0)–(1,1): (0.75, 0.25) is in the south-east triangle (0,0),(1,0),(1,1).
    assert_eq!(sw.height_at(0.75, 0.25), Some(4.0 * 0.25));
}

/// On polygons as on heightfields, a crossing whose t is beyond f64 is a miss: no hit at an infinite
/// t with NaN coordinates (a hostile round's `0,0,-1e-320`); a short direction whose t is finite
/// hits where the unit one does.
#[test]
fn polygon_rays_with_t_beyond_f64_miss() {
    let floor = [
        DVec3::new(-10.0, -10.0, 0.0),
        DVec3::new(10.0, -10.0, 0.0),
        DVec3::new(10.0, 10.0, 0.0),
        DVec3::new(-10.0, 10.0, 0.0),
    ];
    let t = landfall::PolygonTerrain::builder().polygon(&floor).build().unwrap();
    let o = DVec3::new(1.0, 2.0, 5.0);
    let unit = t.raycast(&Ray::new(o, DVec3::NEG_Z), f64::INFINITY).unwrap();
    assert_eq!((unit.t, unit.point), (5.0, DVec3::new(1.0, 2.0, 0.0)));
    for s in [1e-300, 1e-320, 5e-324] {
        match t.raycast(&Ray::new(o, DVec3::NEG_Z * s), f64::INFINITY) {
            Some(h) => {
                assert!(h.t.is_finite() && h.point.is_finite(), "scale {s}: {h:?}");
                assert!((h.point - unit.point).length() < 1e-9, "scale {s}: {h:?}");
            }
            None => assert!(!(5.0 / s).is_finite(), "scale {s}: a miss with t {} finite", 5.0 / s),
        }
    }
}

/// A direction of any length gives the same crossing as a unit one, at t scaled by the length: rays
/// from above, nearly level and steep, with directions scaled by 1e-300, 1e-305 (subnormal
/// components) and 1e300, against the same rays with directions of length ~1; scaled by 1e-310,
/// their t is beyond f64 and they miss. A fixed per-component cutoff for "too small to move" used to
/// drop the 1e-301 y component of a 1e-300 direction, 10 cells off after the ray's 1e302 units of t.
#[test]
fn tiny_and_huge_directions_hit_what_unit_ones_hit() {
    let n = 300;
    // Ground within [−1, 0] and one pit 1e5 deep, which makes t per pyramid height code large.
    let mut h: Vec<f32> = (0..n * n).map(|k| -(((k * 37) % 101) as f32) / 100.0).collect();
    h[5 * n + 290] = -1e5;
    let hf = Heightfield::builder(n, n, h).build().unwrap();
    let mut hits = 0;
    for k in 0..60 {
        let y = 3.0 + 4.7 * k as f64;
        let slope = [1e-4, 3e-4, 0.2, 1.5][k % 4] * (1.0 + (k % 5) as f64);
        let ax = [1.0, -1.0][k / 4 % 2];
        let x = if ax > 0.0 { 0.5 } else { 298.5 };
        let o = DVec3::new(x, y, 0.01 + [0.0, 30.0][usize::from(slope > 0.1)]);
        let dir = DVec3::new(ax, 0.1 * (k % 3) as f64, -slope);
        let unit = hf.raycast(&Ray::new(o, dir), f64::INFINITY);
        hits += usize::from(unit.is_some());
        for s in [1e-300, 1e-305, 1e300, 1e-310] {
            let scaled = hf.raycast(&Ray::new(o, dir * s), f64::INFINITY);
            match (unit.filter(|u| (u.t / s).is_finite()), scaled) {
                (Some(u), Some(h)) => {
                    assert_eq!(u.triangle, h.triangle, "ray {k}, scale {s}");
                    assert!((h.t * s - u.t).abs() <= 1e-9 * u.t, "ray {k}, scale {s}: {} against {}", h.t, u.t);
                    assert!((h.point - u.point).length() < 1e-6, "ray {k}, scale {s}: {} against {}", h.point, u.point);
                }
                (u, h) => assert_eq!(u.is_some(), h.is_some(), "ray {k}, scale {s}: {u:?} against {h:?}"),
            }
        }
    }
    assert!(hits >= 45, "{hits}");
}
