//! The coarse grid's line of sight against brute force: where it answers, it says clear exactly
//! when no inflated disc is closer to the segment than its radius, its first disc is one entered
//! first, and it says clear only where no steep cell meets the segment; after obstacles are added and removed it is the grid built
//! afresh. Segments run along the buckets' lines, graze discs and pass through cell corners.

use super::super::geom::{segment_dist2, segment_meets_box, Disc};
use super::super::planner::Planner;
use super::super::Agent;
use super::entry;
use crate::rng::SplitMix64;
use crate::Heightfield;
use glam::DVec2;
use proptest::prelude::*;

/// Side of the square, metres (2 m buckets for the walker's 0.25 m cells).
const SIDE: f64 = 64.0;
const R: f64 = 0.5;

/// Discs with centres and inflated radii on the 0.25 m lines, and ground with raised blocks
/// (steep sides) when `steep`.
fn scene(rng: &mut SplitMix64, n: usize, steep: bool) -> (Heightfield, Vec<Disc>) {
    let discs = (0..n)
        .map(|_| {
            let c = (DVec2::new(rng.range(0.0, SIDE), rng.range(0.0, SIDE)) * 4.0).round() / 4.0;
            Disc { center: c, radius: rng.range(3.0, 24.0).floor() * 0.25 - R }
        })
        .collect();
    let m = SIDE as usize + 1;
    let mut h = vec![0f32; m * m];
    if steep {
        for _ in 0..3 {
            let (i0, j0) = (rng.range(0.0, SIDE - 8.0) as usize, rng.range(0.0, SIDE - 8.0) as usize);
            for j in j0..j0 + rng.range(1.0, 8.0) as usize {
                for i in i0..i0 + rng.range(1.0, 8.0) as usize {
                    h[j * m + i] = 3.0;
                }
            }
        }
    }
    (Heightfield::builder(m, m, h).build().unwrap(), discs)
}

/// A segment: random, along a bucket line (every 2 m), or tangent to a disc (inflated).
fn segment(rng: &mut SplitMix64, discs: &[Disc]) -> (DVec2, DVec2) {
    let mut r = || DVec2::new(rng.range(0.0, SIDE), rng.range(0.0, SIDE));
    let (a, b) = (r(), r());
    match (rng.uniform() * 3.0) as u32 {
        0 => (a, b),
        1 => {
            let line = (rng.range(0.0, SIDE) / 2.0).round() * 2.0;
            if rng.uniform() < 0.5 {
                (DVec2::new(a.x, line), DVec2::new(b.x, line))
            } else {
                (DVec2::new(line, a.y), DVec2::new(line, b.y))
            }
        }
        _ => {
            let d = discs[(rng.uniform() * discs.len() as f64) as usize % discs.len()];
            let u = DVec2::from_angle(rng.range(0.0, std::f64::consts::TAU));
            let touch = d.center + u * (d.radius + R);
            let along = u.perp() * rng.range(1.0, 40.0);
            let clamp = |p: DVec2| p.clamp(DVec2::ZERO, DVec2::splat(SIDE));
            (clamp(touch - along), clamp(touch + along * rng.range(0.0, 1.0)))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn coarse_sight_matches_brute_force(seed in any::<u64>(), n in 1usize..30, steep in any::<bool>()) {
        let mut rng = SplitMix64::new(seed);
        let (ground, discs) = scene(&mut rng, n, steep);
        let agent = Agent::default().with_radius(R);
        let mut p = Planner::new(&ground, &discs[..n / 2], agent, DVec2::ZERO, SIDE).unwrap();
        // The rest added one by one, a few removed: the grid must follow.
        let ids: Vec<_> = discs[n / 2..].iter().map(|d| p.add_obstacle(*d).unwrap()).collect();
        let mut kept = discs[..n / 2].to_vec();
        for (k, id) in ids.into_iter().enumerate() {
            if rng.uniform() < 0.3 {
                p.remove_obstacle(id).unwrap();
            } else {
                kept.push(discs[n / 2 + k]);
            }
        }
        let inflated: Vec<Disc> = p.inflated_obstacles().collect();
        prop_assert_eq!(inflated.len(), kept.len());
        for _ in 0..200 {
            let (a, b) = segment(&mut rng, &discs);
            let brute = inflated.iter().all(|d| segment_dist2(a, b, d.center) >= d.radius * d.radius);
            // The first disc entered: one that blocks, entered no later than any other.
            if let Some(first) = p.sight.first(a, b) {
                let hit = |d: &Disc| segment_dist2(a, b, d.center) < d.radius * d.radius;
                prop_assert_eq!(first.is_none(), brute, "{}–{}", a, b);
                if let Some(f) = first {
                    prop_assert!(hit(&f));
                    let least = inflated.iter().filter(|d| hit(d)).map(|d| entry(a, b, d)).fold(f64::INFINITY, f64::min);
                    prop_assert_eq!(entry(a, b, &f), least, "{}–{}", a, b);
                }
            }
            let Some(clear) = p.sight.clear(a, b) else {
                continue;
            };
            prop_assert_eq!(clear, brute, "{}–{}", a, b);
            if !clear {
                continue;
            }
            let s = &p.slope;
            for j in 0..s.n {
                for i in 0..s.n {
                    let (lo, hi) = s.cell_box(i, j);
                    prop_assert!(!(s.blocked(i, j) && segment_meets_box(a, b, lo, hi)), "{}–{} meets {}–{}", a, b, lo, hi);
                }
            }
        }
    }
}
