//! Tests of face construction, the quick records and the classification against brute force.

use super::build::*;
use super::classify::*;
use super::*;
use crate::polygon::PolygonSoup;
use glam::DVec2;

/// When a quick record answers, its answer is the exact test's: random triangles of every size
/// at scales from 10⁻³ to 10⁷, queried at random points, at their vertices, on their edges, a
/// few ulps either side of an edge and at multiples of the margin from it. Without the margin
/// the f32 values would get some of these points wrong (so the points do probe the bound), and
/// the records do answer nearly all random points themselves.
#[test]
fn quick_faces_agree_with_the_exact_test() {
    let mut rng = crate::rng::SplitMix64::new(11);
    let (mut checked, mut unsure_random, mut random, mut wrong_without_margin) = (0, 0, 0, 0);
    for case in 0..3000 {
        let scale = 10f64.powi(case % 11 - 3);
        // A root rectangle off the origin now and then (local frames are centred, but edits
        // and curved frames need not be).
        let shift = if case % 4 == 0 { scale * rng.range(-0.5, 0.5) } else { 0.0 };
        let root = [-scale + shift, -scale, scale + shift, scale];
        let size = scale * 10f64.powi(-((case / 11) % 5)) * 2.0;
        let centre = DVec2::new(rng.range(root[0], root[2]), rng.range(root[1], root[3]));
        let corner = |rng: &mut crate::rng::SplitMix64| {
            let p = centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size;
            DVec3::new(p.x.clamp(root[0], root[2]), p.y.clamp(root[1], root[3]), rng.range(0.0, 1.0))
        };
        let tri = [corner(&mut rng), corner(&mut rng), corner(&mut rng)];
        let mut set = FaceSet::default();
        push_face(case as u32, &tri, EDGE_SLACK * 2.0 * scale, &mut set);
        let face = set.faces[0];
        if !face.is_ground() {
            continue;
        }
        let quick = QuickFace::of(&face);
        assert!(quick.coefs != [[0.0; 3]; 3], "case {case}: a ground triangle gets a quick record");
        let margin = quick_margin(root);
        let mut check = |x: f64, y: f64, counted: bool| {
            if !(x >= root[0] && x <= root[2] && y >= root[1] && y <= root[3]) {
                return;
            }
            let exact = contains(&face, &[], x, y);
            let answer = quick.inside(x as f32, y as f32, margin);
            assert!(answer.is_none_or(|a| a == exact), "case {case}: ({x}, {y}) quick {answer:?}, exact {exact}");
            wrong_without_margin += quick.inside(x as f32, y as f32, 0.0).is_some_and(|a| a != exact) as usize;
            checked += 1;
            if counted {
                random += 1;
                unsure_random += answer.is_none() as usize;
            }
        };
        for _ in 0..20 {
            check(rng.range(root[0], root[2]), rng.range(root[1], root[3]), false);
            let p = centre + DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * size;
            check(p.x, p.y, true);
        }
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            check(a.x, a.y, false);
            let normal = DVec2::new(a.y - b.y, b.x - a.x).normalize();
            for _ in 0..6 {
                let on = a.lerp(b, rng.range(0.0, 1.0));
                for ulps in -3i32..=3 {
                    let step = |v: f64| if ulps < 0 { v.next_down() } else { v.next_up() };
                    let (mut x, mut y) = (on.x, on.y);
                    for _ in 0..ulps.unsigned_abs() {
                        (x, y) = (step(x), step(y));
                    }
                    check(x, y, false);
                    check(on.x, y, false);
                }
                for d in [-4.0, -2.0, -1.0, -0.5, -0.25, 0.25, 0.5, 1.0, 2.0, 4.0] {
                    let p = DVec2::new(on.x, on.y) + normal * (d * margin as f64);
                    check(p.x, p.y, false);
                }
            }
        }
    }
    assert!(checked > 500_000, "{checked}");
    assert!(wrong_without_margin > 0, "the f32 values alone never erred: the points do not probe the margin");
    assert!(unsure_random * 50 < random, "{unsure_random} of {random} random points left to the exact test");
}

/// The vector test of one point ([`QuickFace::sides`]) gives the scalar formula's flags on the
/// record's coefficients, whatever the word after them (the source index, read as a fourth
/// lane) holds, including points within the margin and on an edge.
#[test]
fn vector_sides_match_the_scalar_formula() {
    let mut rng = crate::rng::SplitMix64::new(31);
    let mut both = [0usize; 3];
    for case in 0..3000usize {
        let scale = 10f64.powi(case as i32 % 7 - 2);
        let mut corner = || DVec3::new(rng.range(-1.0, 1.0) * scale, rng.range(-1.0, 1.0) * scale, 0.0);
        let tri = [corner(), corner(), corner()];
        let mut set = FaceSet::default();
        push_face(case as u32, &tri, 0.0, &mut set);
        let mut quick = QuickFace::of(&set.faces[0]);
        quick.source = [0, 1, 0x7fc0_0000, 0xffff_ffff, 0x7f80_0000][case % 5];
        let margin = quick_margin([-scale, -scale, scale, scale]);
        let (a, b) = (tri[case % 3], tri[(case + 1) % 3]);
        let on = a.lerp(b, rng.range(0.0, 1.0));
        let (u, v) = (rng.range(0.0, 1.0), rng.range(0.0, 1.0));
        let p = match case % 4 {
            0 => DVec3::new(rng.range(-1.0, 1.0) * scale, rng.range(-1.0, 1.0) * scale, 0.0),
            1 if u + v < 1.0 => tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v,
            1 => tri[0] + (tri[1] - tri[0]) * (1.0 - u) + (tri[2] - tri[0]) * (1.0 - v),
            2 => on,
            _ => on + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * margin as f64,
        };
        let (x, y) = (p.x as f32, p.y as f32);
        let e = quick.edges().map(|[a, b, c]| a * x + b * y + c);
        let scalar = (e.iter().all(|&v| v > margin), e.iter().any(|&v| v < -margin));
        assert_eq!(quick.sides(x, y, margin), scalar, "case {case}: {e:?}");
        both[usize::from(scalar.0) + 2 * usize::from(!scalar.0 && !scalar.1)] += 1;
    }
    // Inside, outside and undecided points all met.
    assert!(both.iter().all(|&n| n > 100), "{both:?}");
}

/// The four-lane quick tests agree with the exact ones wherever they decide: `inside4` with
/// `inside` lane by lane, and `quadrants` with the exact edge tests of the classification
/// (`edge_quadrants`), for random triangles at scales from 10⁻³ to 10⁷ and nodes whose corners
/// and cut point lie at a vertex, on an edge, or a fraction or a few multiples of the margin
/// from it. Without the margin the f32 values would get some quadrants wrong, and with it they
/// decide nearly all random nodes.
#[test]
fn quick_lanes_agree_with_the_exact_tests() {
    let mut rng = crate::rng::SplitMix64::new(12);
    let (mut decided, mut random, mut random_undecided, mut wrong_without_margin) = (0, 0, 0, 0);
    for case in 0..4000usize {
        let scale = 10f64.powi(case as i32 % 11 - 3);
        let root = [-scale, -scale, scale, scale];
        let size = scale * 10f64.powi(-((case as i32 / 11) % 4));
        let centre = DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * scale;
        let mut corner = || {
            let p = centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size;
            DVec3::new(p.x, p.y, 0.0)
        };
        let tri = [corner(), corner(), corner()];
        let mut set = FaceSet::default();
        push_face(case as u32, &tri, EDGE_SLACK * 2.0 * scale, &mut set);
        let face = set.faces[0];
        if !face.is_ground() {
            continue;
        }
        let (quick, margin) = (QuickFace::of(&face), quick_margin(root));
        // The cut point: random, at a vertex, or off an edge by a multiple of the margin.
        let (a, b) = (tri[case % 3], tri[(case + 1) % 3]);
        let on = a.lerp(b, rng.range(0.0, 1.0));
        let normal = DVec2::new(a.y - b.y, b.x - a.x).normalize();
        let off = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, -0.5, -1.0, -4.0][case % 9] * margin as f64;
        let at_random = case % 4 == 0;
        let div = match case % 4 {
            0 => centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size,
            1 => DVec2::new(a.x, a.y),
            _ => DVec2::new(on.x, on.y) + normal * off,
        };
        let reach = |rng: &mut crate::rng::SplitMix64| rng.range(0.0, 1.0) * size;
        let r = [
            (div.x - reach(&mut rng)).max(root[0]),
            (div.y - reach(&mut rng)).max(root[1]),
            (div.x + reach(&mut rng)).min(root[2]),
            (div.y + reach(&mut rng)).min(root[3]),
        ];
        let div = [div.x.clamp(r[0], r[2]), div.y.clamp(r[1], r[3])];
        let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let exact = edge_quadrants(&face, &set.edges, r, div, mag, 15) as u32;
        let (x, y) = quadrant_lanes(r, div);
        let (kept, outside) = quick.quadrants(x, y, margin);
        assert_eq!(kept & outside, 0, "case {case}");
        assert_eq!(kept & !exact, 0, "case {case}: kept {kept:04b}, exact {exact:04b} ({r:?} cut at {div:?})");
        assert_eq!(outside & exact, 0, "case {case}: outside {outside:04b}, exact {exact:04b} ({r:?} cut at {div:?})");
        let (kept0, outside0) = quick.quadrants(x, y, 0.0);
        wrong_without_margin += ((kept0 & !exact) | (outside0 & exact) != 0) as usize;
        decided += (kept | outside).count_ones();
        if at_random {
            random += 1;
            random_undecided += (kept | outside != 15) as usize;
        }
        // The four corners of the cut as points: lane by lane what `inside` says.
        let (px, py) = ([x[0][1], x[1][1], x[0][2], x[1][2]], [y[0][2], y[0][2], y[1][1], y[1][1]]);
        let (inside, outside) = quick.inside4(px, py, margin);
        for k in 0..4 {
            let want = quick.inside(px[k], py[k], margin);
            let got = (inside >> k & 1 != 0, outside >> k & 1 != 0);
            assert_eq!(got, (want == Some(true), want == Some(false)), "case {case}, lane {k}");
        }
    }
    assert!(decided > 8000, "{decided}");
    assert!(wrong_without_margin > 0, "the f32 values alone never erred: the nodes do not probe the margin");
    assert!(random_undecided * 50 < random, "{random_undecided} of {random} random nodes left to the exact test");
}

/// Faces that are not ground triangles get no quick equations: the exact test decides for them.
#[test]
fn quick_records_leave_other_faces_to_the_exact_test() {
    let quad = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
    let wall = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 0.0, 1.0)];
    let mut set = FaceSet::default();
    push_face(0, &quad, 0.0, &mut set);
    push_face(1, &wall, 0.0, &mut set);
    push_face(2, &quad[..3], 0.0, &mut set);
    set.faces[2].flags |= REMOVED;
    for f in &set.faces {
        let q = QuickFace::of(f);
        assert_eq!((q.slope, q.source, q.coefs), (f.slope, f.source, [[0.0; 3]; 3]));
        assert_eq!(q.inside(0.25, 0.5, quick_margin([0.0, 0.0, 1.0, 1.0])), None);
    }
}

#[test]
fn convexity() {
    let sq = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
    assert!(is_convex(&sq, DVec3::Z));
    let l = [
        DVec3::ZERO,
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(2.0, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(1.0, 2.0, 0.0),
        DVec3::new(0.0, 2.0, 0.0),
    ];
    assert!(!is_convex(&l, DVec3::Z));
    // A pentagram turns one way but twice around.
    let star: Vec<DVec3> = (0..5)
        .map(|k| {
            let a = k as f64 * 4.0 * std::f64::consts::PI / 5.0;
            DVec3::new(a.cos(), a.sin(), 0.0)
        })
        .collect();
    assert!(!is_convex(&star, DVec3::Z));
}

/// A soup of triangles gives the same faces, bit for bit, and the same report through the
/// triangles' straight path as through the general one: with duplicates (in any vertex order)
/// and degenerate triangles (collinear, or with two equal corners) among them.
#[test]
fn triangles_path_matches_the_polygon_path() {
    let mut rng = crate::rng::SplitMix64::new(5);
    let mut soup = PolygonSoup::new();
    let mut kept: Vec<[DVec3; 3]> = Vec::new();
    let (mut duplicates, mut degenerate) = (0, 0);
    for k in 0..3000 {
        let mut p = || DVec3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.range(0.0, 9.0));
        let (a, b, c) = (p(), p(), p());
        let tri = match k % 16 {
            3 if !kept.is_empty() => {
                duplicates += 1;
                let t = kept[k % kept.len()];
                [t[1], t[2], t[0]]
            }
            5 => {
                degenerate += 1;
                [a, b, a + (b - a) * 0.25]
            }
            7 => {
                degenerate += 1;
                [a, a, b]
            }
            9 => {
                degenerate += 1;
                [a, b, a]
            }
            _ => {
                kept.push([a, b, c]);
                [a, b, c]
            }
        };
        soup.push(&tri);
    }
    let duplicate = crate::polygon::builder::duplicates(&soup);
    let to_local = |p: DVec3| DVec3::new(p.y - 3.0, -p.x + 1.0, p.z);
    let order = super::super::order::spatial_order(&soup, &to_local);
    let (fast, fast_report) = FaceSet::from_triangles(&soup, &order, &duplicate, &to_local, 1e-9);
    let (slow, slow_report) = FaceSet::from_polygons(&soup, &order, &duplicate, &to_local, 1e-9).unwrap();
    assert_eq!(fast_report, slow_report);
    assert_eq!((fast_report.duplicates, fast_report.degenerate), (duplicates, degenerate));
    // The examples a user reads are the first skipped polygons of the input, although the
    // polygons are visited in spatial order.
    let skipped: Vec<usize> = (0..soup.len()).filter(|&k| !fast.faces.iter().any(|f| f.source == k as u32)).collect();
    assert_eq!(fast_report.examples, skipped[..8]);
    assert_eq!(fast.faces.len(), 3000 - duplicates - degenerate);
    assert!(fast.faces == slow.faces && fast.geoms == slow.geoms);
    assert!(fast.verts == slow.verts && fast.edges == slow.edges);
}

/// `quadrant_masks` is the four `overlaps_rect` calls for each face meeting the rectangle: same
/// bits, including faces that touch a cut line or a quadrant's corner and cut lines through
/// vertices, whether the box alone decides or the edges do; one face at a time, then all the
/// faces meeting random rectangles at once (the edge tests of some after the boxes of all).
#[test]
fn quadrant_masks_equal_four_overlap_tests() {
    let mut rng = crate::rng::SplitMix64::new(0);
    let mut next = move || rng.range(0.0, 1.0);
    let (mut set, mut checked, mut one_line, mut box_only) = (FaceSet::default(), 0, 0, 0);
    let (mut all, mut masks, mut pending) = (FaceSet::default(), Vec::new(), Vec::new());
    let four_tests = |set: &FaceSet, f: usize, r: [f64; 4], div: [f64; 2], mag: f64| {
        super::super::quadtree::quadrants(r, div)
            .iter()
            .enumerate()
            .fold(0u8, |m, (k, q)| m | (overlaps_rect(&set.faces[f], &set.geoms[f], &set.edges, *q, mag) as u8) << k)
    };
    for case in 0..4000 {
        // A convex polygon of 3–6 vertices on a random ellipse, or a vertical face.
        let n = 3 + case % 4;
        let (cx, cy, rx, ry) = (next() * 8.0 - 4.0, next() * 8.0 - 4.0, 0.2 + next() * 3.0, 0.2 + next() * 3.0);
        let mut angles: Vec<f64> = (0..n).map(|_| next() * std::f64::consts::TAU).collect();
        angles.sort_by(f64::total_cmp);
        let mut poly: Vec<DVec3> =
            angles.iter().map(|a| DVec3::new(cx + rx * a.cos(), cy + ry * a.sin(), next())).collect();
        if case % 3 == 0 {
            // A vertical face over the first edge.
            poly = vec![poly[0], poly[1], poly[1] + DVec3::Z, poly[0] + DVec3::Z];
        } else if n > 3 {
            // Planar.
            poly.iter_mut().for_each(|v| v.z = 0.5 * v.x - 0.25 * v.y);
        }
        set.faces.clear();
        set.geoms.clear();
        set.verts.clear();
        set.edges.clear();
        push_face(case as u32, &poly, 0.0, &mut set);
        push_face(case as u32, &poly, 0.0, &mut all);
        let geom = &set.geoms[0];
        // A rectangle around part of it, cut through a vertex's coordinates half of the time.
        let r = [cx - 4.0 * next(), cy - 4.0 * next(), cx + 4.0 * next(), cy + 4.0 * next()];
        let v = poly[case % poly.len()];
        let div = if case % 2 == 0 && v.x > r[0] && v.x < r[2] && v.y > r[1] && v.y < r[3] {
            [v.x, v.y]
        } else {
            [r[0] + (r[2] - r[0]) * next(), r[1] + (r[3] - r[1]) * next()]
        };
        let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let four = four_tests(&set, 0, r, div, mag);
        // Faces meeting the rectangle, as every face of a node does.
        if four != 0 {
            quadrant_masks(
                &set.faces,
                QuickSet::default(),
                |f| set.geoms[f as usize].bbox,
                &set.edges,
                &[0],
                (r, div),
                mag,
                &mut masks,
                &mut pending,
            );
            assert_eq!(masks, [four], "case {case}: {poly:?} in {r:?} cut at {div:?}");
            checked += (four != 15) as usize;
            if box_classes(geom.bbox, r, div) >> 4 == 0 {
                box_only += 1;
                one_line += (four.count_ones() == 2) as usize;
            }
        }
    }
    assert!(checked > 500, "only {checked} cases straddle a cut");
    assert!(one_line > 200 && box_only > 400, "box only: {box_only}, of them across one line: {one_line}");
    let (mut straddling, mut all_four) = (0, 0);
    for case in 0..50 {
        let (x, y, w) = (next() * 8.0 - 4.0, next() * 8.0 - 4.0, 0.5 + next() * 4.0);
        let (r, div) = ([x, y, x + w, y + w], [x + w * next(), y + w * next()]);
        let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let (ids, want): (Vec<u32>, Vec<u8>) = (0..all.faces.len())
            .map(|f| (f as u32, four_tests(&all, f, r, div, mag)))
            .filter(|&(_, four)| four != 0)
            .unzip();
        quadrant_masks(
            &all.faces,
            QuickSet::default(),
            |f| all.geoms[f as usize].bbox,
            &all.edges,
            &ids,
            (r, div),
            mag,
            &mut masks,
            &mut pending,
        );
        assert_eq!(masks, want, "rectangle {case}: {r:?} cut at {div:?}");
        assert!(ids.len() > 100, "rectangle {case}: {} faces", ids.len());
        straddling += want.iter().filter(|m| m.count_ones() > 1).count();
        all_four += want.iter().filter(|&&m| m == 15).count();
    }
    assert!(straddling > 1000 && all_four > 100, "{straddling} faces across a cut, {all_four} in all four");
}
