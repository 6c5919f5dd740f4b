//! Corner pulling against brute force where tangents are delicate: inflated discs touching each
//! other, disc edges and centres on the cell lines, a tangent grazing a second disc, steep boxes.
//! Every smoothed segment is clear of every inflated disc (exact distance) and every steep cell
//! (all of them, not the walk's), the ends stay, and the path is no longer than the polyline
//! smoothed.

use super::super::geom::{segment_meets_box, Disc};
use super::super::planner::Planner;
use super::super::Agent;
use crate::rng::SplitMix64;
use crate::Heightfield;
use glam::DVec2;
use proptest::test_runner::TestCaseError;

/// Side of the square, metres; the walker's radius.
const SIDE: f64 = 64.0;
const R: f64 = 0.5;

/// Distance from `p` to the segment a–b (projection clamped to the segment).
fn seg_dist(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let d = b - a;
    let t = if d == DVec2::ZERO { 0.0 } else { ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0) };
    p.distance(a + d * t)
}

/// A random direction.
fn dir(rng: &mut SplitMix64) -> DVec2 {
    DVec2::from_angle(rng.range(0.0, std::f64::consts::TAU))
}

/// Discs of `kind` (0 touching chains, 1 on cell lines, 2 grazing pairs, 3 a few loose ones over
/// steep ground) and the ground: flat, or 1 m samples with raised blocks (steep sides) for kind 3.
fn layout(kind: u8, seed: u64, n: usize) -> (Heightfield, Vec<Disc>) {
    let mut rng = SplitMix64::new(seed);
    let inner = |rng: &mut SplitMix64| DVec2::new(rng.range(4.0, SIDE - 4.0), rng.range(4.0, SIDE - 4.0));
    let mut discs = Vec::new();
    let samples = SIDE as usize + 1;
    let mut h = vec![0f32; samples * samples];
    match kind {
        0 => {
            // Chains of discs whose inflated circles touch.
            while discs.len() < n {
                let (mut c, mut r) = (inner(&mut rng), rng.range(0.2, 3.0));
                for _ in 0..rng.range(2.0, 6.0) as usize {
                    discs.push(Disc { center: c, radius: r });
                    let next = rng.range(0.2, 3.0);
                    c += dir(&mut rng) * (r + next + 2.0 * R);
                    r = next;
                }
            }
        }
        1 => {
            // Centres on the 0.25 m cell lines, inflated radii whole cells.
            for _ in 0..n {
                let c = (inner(&mut rng) * 4.0).round() / 4.0;
                let k = rng.range(3.0, 20.0).floor();
                discs.push(Disc { center: c, radius: k * 0.25 - R });
            }
        }
        2 => {
            // Pairs: a second inflated disc touching a tangent line of the first, on either side.
            while discs.len() < n {
                let (c, r) = (inner(&mut rng), rng.range(0.3, 3.0));
                let out = dir(&mut rng);
                let q = c + out * (r + R);
                let along = out.perp() * rng.range(-8.0, 8.0);
                let r2 = rng.range(0.3, 3.0);
                let side = if rng.uniform() < 0.5 { 1.0 } else { -1.0 };
                discs.push(Disc { center: c, radius: r });
                discs.push(Disc { center: q + along + out * side * (r2 + R), radius: r2 });
            }
        }
        _ => {
            for _ in 0..n / 4 {
                discs.push(Disc { center: inner(&mut rng), radius: rng.range(0.3, 2.0) });
            }
            // Raised blocks: their sides are 3 m over 1 m, steeper than any limit.
            for _ in 0..n {
                let (i0, j0) = (rng.range(2.0, SIDE - 6.0) as usize, rng.range(2.0, SIDE - 6.0) as usize);
                let (w, d) = (rng.range(1.0, 5.0) as usize, rng.range(1.0, 5.0) as usize);
                for j in j0..j0 + d {
                    for i in i0..i0 + w {
                        h[j * samples + i] = 3.0;
                    }
                }
            }
        }
    }
    let ground = Heightfield::builder(samples, samples, h).build().unwrap();
    (ground, discs)
}

/// Whether the segment a–b is clear by brute force: in the square, at least the inflated radius
/// from every disc (up to rounding), meeting no steep cell (but at a point of its edge).
fn clear_brute(p: &Planner, discs: &[Disc], a: DVec2, b: DVec2) -> Result<(), String> {
    for d in discs {
        let need = d.radius + R;
        let got = seg_dist(a, b, d.center);
        if got < need - 1e-9 * (1.0 + need) {
            return Err(format!("segment {a}–{b} is {got} from a disc needing {need}"));
        }
    }
    let n = p.slope.n;
    for j in 0..n {
        for i in 0..n {
            let (lo, hi) = p.slope.cell_box(i, j);
            // Shrunk by rounding: the walk steps diagonally through a leaf corner, so a segment
            // through a steep cell's very corner (touching it at one point) passes.
            if p.slope.blocked(i, j) && segment_meets_box(a, b, lo + 1e-9, hi - 1e-9) {
                return Err(format!("segment {a}–{b} meets the steep cell {lo}–{hi}"));
            }
        }
    }
    Ok(())
}

fn length(pts: &[DVec2]) -> f64 {
    pts.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// Runs `check` on the walker's planner over `layout(kind, seed, n)` with its discs, the ends
/// `a`, `b` (cases whose ends the walker cannot stand on are rejected).
fn on_layout(
    (kind, seed, n): (u8, u64, usize),
    a: DVec2,
    b: DVec2,
    check: impl FnOnce(&mut Planner, &[Disc]) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let (ground, discs) = layout(kind, seed, n);
    let agent = Agent::default().with_radius(R).with_snap(0.0);
    let mut p = Planner::new(&ground, &discs, agent, DVec2::ZERO, SIDE).unwrap();
    proptest::prop_assume!(p.check_point("start", a).is_ok() && p.check_point("goal", b).is_ok());
    check(&mut p, &discs)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    /// The leaf search's polyline, smoothed, and the query's path are valid by brute force; the
    /// smoothed polyline is no longer than the one given.
    #[test]
    fn pulled_corners_stay_clear(
        seed in proptest::prelude::any::<u64>(),
        kind in 0u8..4,
        n in 1usize..24,
        ax in 1.0f64..63.0, ay in 1.0f64..63.0, bx in 1.0f64..63.0, by in 1.0f64..63.0,
    ) {
        let (a, b) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        on_layout((kind, seed, n), a, b, |p, discs| {
            let Ok(raw) = p.corridor(a, b) else { return Ok(()) };
            let mut pts = raw.clone();
            p.smooth(&mut pts);
            proptest::prop_assert_eq!((pts[0], pts[pts.len() - 1]), (a, b));
            for w in pts.windows(2) {
                proptest::prop_assert!(p.clear(w[0], w[1]), "{}–{} not clear", w[0], w[1]);
                clear_brute(p, discs, w[0], w[1]).map_err(TestCaseError::fail)?;
            }
            proptest::prop_assert!(length(&pts) <= length(&raw) + 1e-9, "{} against {}", length(&pts), length(&raw));
            let route = p.find_path(a, b).unwrap();
            for w in route.xy().windows(2) {
                clear_brute(p, discs, w[0], w[1]).map_err(TestCaseError::fail)?;
            }
            Ok(())
        })?;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    /// String pulling by galloping and bisection on the cluster–portal graph's long polylines
    /// (many corners, long clear runs): it keeps corners of the polyline in order, the ends
    /// fixed, every segment clear by brute force, and is no longer than the polyline.
    #[test]
    fn galloping_pull_keeps_corners_in_order_and_clear(
        seed in proptest::prelude::any::<u64>(),
        kind in 0u8..4,
        n in 1usize..24,
        ax in 1.0f64..63.0, ay in 1.0f64..63.0, bx in 1.0f64..63.0, by in 1.0f64..63.0,
    ) {
        let (a, b) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        on_layout((kind, seed, n), a, b, |p, discs| {
            let Some(raw) = p.portal_corridor(a, b) else { return Ok(()) };
            let mut pts = raw.clone();
            p.pull(&mut pts);
            proptest::prop_assert_eq!((pts[0], pts[pts.len() - 1]), (a, b));
            // A subsequence of the polyline's corners.
            let mut at = 0;
            for q in &pts {
                let Some(k) = raw[at..].iter().position(|r| r == q) else {
                    return Err(TestCaseError::fail(format!("{q} is not a later corner")));
                };
                at += k + 1;
            }
            for w in pts.windows(2) {
                clear_brute(p, discs, w[0], w[1]).map_err(TestCaseError::fail)?;
            }
            proptest::prop_assert!(length(&pts) <= length(&raw) + 1e-9, "{} against {}", length(&pts), length(&raw));
            Ok(())
        })?;
    }
}
