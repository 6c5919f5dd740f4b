//! Scale-relative tolerances: the same polygon terrain scaled by 2^±495 (about 1e±149, an exact
//! scaling) gives the same answers, and beyond that range it is a clear refusal (issue 70: a flat
//! triangle at 1e100 once counted as vertical and heights came back NaN).

use landfall::glam::DVec3;
use landfall::support::SplitMix64;
use landfall::{PolygonError, PolygonTerrain, Ray};

/// A small terrain: a rough TIN, a flat roof and a quad (triangulated if not planar).
fn polygons() -> Vec<Vec<DVec3>> {
    let mut rng = SplitMix64::new(7);
    let h: Vec<f64> = (0..36).map(|_| rng.range(0.0, 2.0)).collect();
    let v = |i: usize, j: usize| DVec3::new(i as f64, j as f64, h[j * 6 + i]);
    let mut out = Vec::new();
    for j in 0..5 {
        for i in 0..5 {
            out.push(vec![v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            out.push(vec![v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    out.push(vec![
        DVec3::new(1.0, 1.0, 9.0),
        DVec3::new(3.0, 1.0, 9.0),
        DVec3::new(3.0, 3.0, 9.0),
        DVec3::new(1.0, 3.0, 9.0),
    ]);
    out
}

fn build(scale: f64) -> Result<PolygonTerrain, PolygonError> {
    let scaled: Vec<Vec<DVec3>> = polygons().iter().map(|p| p.iter().map(|v| *v * scale).collect()).collect();
    PolygonTerrain::builder().polygons(scaled).build()
}

#[test]
fn the_same_terrain_at_1e_minus_150_and_1e150_answers_the_same() {
    let unit = build(1.0).unwrap();
    assert_eq!(unit.report().vertical, 0);
    let mut rng = SplitMix64::new(9);
    let points: Vec<DVec3> = (0..400).map(|_| DVec3::new(rng.range(0.0, 5.0), rng.range(0.0, 5.0), 20.0)).collect();
    let rays: Vec<Ray> = points.iter().map(|p| Ray::new(*p, DVec3::new(0.3, -0.2, -1.0))).collect();
    for scale in [2f64.powi(-495), 2f64.powi(-300), 2f64.powi(330), 2f64.powi(495)] {
        let t = build(scale).unwrap();
        assert_eq!(t.report().vertical, 0, "scale {scale:e}: a flat face counted as vertical");
        assert_eq!(t.report().faces, unit.report().faces, "scale {scale:e}");
        for p in &points {
            let (a, b) = (unit.top_surface(*p), t.top_surface(*p * scale));
            assert_eq!(a.is_some(), b.is_some(), "scale {scale:e} at {p}");
            if let (Some(a), Some(b)) = (a, b) {
                assert!((b.point.z / scale - a.point.z).abs() <= 1e-9 * (1.0 + a.point.z.abs()), "{scale:e} {p}");
                assert!((b.normal - a.normal).length() < 1e-9, "scale {scale:e}");
            }
        }
        for r in &rays {
            let (a, b) = (unit.raycast(r, f64::INFINITY), t.raycast(&Ray::new(r.origin * scale, r.dir), f64::INFINITY));
            assert_eq!(a.is_some(), b.is_some(), "scale {scale:e}");
            if let (Some(a), Some(b)) = (a, b) {
                assert!((b.point / scale - a.point).length() <= 1e-9 * (1.0 + a.point.length()), "scale {scale:e}");
            }
        }
    }
    // Beyond: a clear refusal, or degenerate polygons (too small for their edges' products).
    assert!(matches!(build(1e160), Err(PolygonError::OutOfRange { .. })));
    assert!(matches!(build(1e-160), Err(PolygonError::Empty(_))));
    // Added one at a time, the same rules.
    let mut t = build(1.0).unwrap();
    let faces = t.report().faces;
    let tiny = [DVec3::ZERO, DVec3::X * 1e-160, DVec3::Y * 1e-160];
    t.insert_polygon(&tiny).unwrap();
    assert_eq!((t.report().faces, t.report().degenerate), (faces, 1));
    let huge = [DVec3::ZERO, DVec3::X * 1e200, DVec3::Y * 1e200];
    assert!(matches!(t.insert_polygon(&huge), Err(PolygonError::OutOfRange { .. })));
    let big = [DVec3::new(0.0, 0.0, 30.0), DVec3::new(1e100, 0.0, 30.0), DVec3::new(0.0, 1e100, 30.0)];
    t.insert_polygon(&big).unwrap();
    let top = t.top_surface(DVec3::new(2.0, 2.0, 0.0)).unwrap();
    assert_eq!(top.point.z, 30.0);
}

/// A line of sight much longer than its ends' coordinates keeps the crossings near an end: a
/// segment from 850 m above a plain straight down to 1e12 m below it crosses the plain 850 m from
/// its start (a zone of 10⁻⁹ of the way would hide the first 1,000 m); a target on the ground at
/// the end of a long sight line is still seen.
#[test]
fn a_long_sight_line_keeps_the_crossings_near_its_ends() {
    use landfall::{segment_crossing, Heightfield};
    let hf = Heightfield::builder(9, 9, vec![150.0; 81]).spacing(100.0, 100.0).build().unwrap();
    let a = DVec3::new(400.0, 300.0, 1000.0);
    for far in [1e6, 1e9, 1e12, 1e15] {
        let s = segment_crossing(&hf, a, DVec3::new(400.0, 300.0, -far)).expect("the plain is in the way");
        assert!(((1000.0 + far) * s - 850.0).abs() < 1e-6 + far * f64::EPSILON, "{far}: at {s}");
        // Up from the ground to far above: nothing in the way, the start on the ground.
        assert_eq!(segment_crossing(&hf, DVec3::new(400.0, 300.0, 150.0), DVec3::new(400.0, 300.0, far)), None);
    }
    // A target on the ground seen along a grazing 800 m line, and from a high eye.
    let target = DVec3::new(800.0, 300.0, 150.0);
    assert_eq!(segment_crossing(&hf, DVec3::new(0.0, 300.0, 150.5), target), None);
    assert_eq!(segment_crossing(&hf, DVec3::new(0.0, 300.0, 1e9), target), None);
}
