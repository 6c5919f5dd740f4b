//! The tree after obstacles are added and removed one by one is the tree cut afresh for the
//! obstacles left (same leaves, same states), and every leaf's state agrees with brute force.

use super::geom::{box_dist2, box_far2, Disc};
use super::planner::Planner;
use super::tree::State;
use crate::rng::SplitMix64;
use crate::Heightfield;
use glam::DVec2;
use std::collections::BTreeSet;

fn leaves(p: &Planner) -> BTreeSet<(u32, u32, u8, u8)> {
    let mut out = BTreeSet::new();
    let side = p.tree.side() - 1;
    p.tree.leaves_in(0, 0, side, side, &mut |n| {
        let nd = p.tree.nodes[n as usize];
        let s = match nd.state {
            State::Free => 0,
            State::Partial => 1,
            State::Full => 2,
            State::Split(_) => 3,
        };
        out.insert((nd.x, nd.y, nd.level, s));
    });
    out
}

#[test]
fn updates_equal_a_fresh_cut() {
    let ground = Heightfield::builder(65, 65, vec![0.0; 65 * 65]).build().unwrap();
    let agent = super::Agent::default().with_radius(1.0);
    let mut rng = SplitMix64::new(3);
    for round in 0..20 {
        let mut discs: Vec<Disc> = (0..30)
            .map(|_| Disc {
                center: DVec2::new(rng.range(0.0, 64.0), rng.range(0.0, 64.0)),
                radius: rng.range(0.1, 6.0),
            })
            .collect();
        let mut p = Planner::new(&ground, &discs[..10], agent, DVec2::ZERO, 64.0).unwrap();
        let mut ids: Vec<_> = (0..10).map(super::ObstacleId).collect();
        for d in &discs[10..] {
            ids.push(p.add_obstacle(*d).unwrap());
        }
        // Remove a random half.
        let mut kept = Vec::new();
        for (k, d) in discs.drain(..).enumerate() {
            if rng.uniform() < 0.5 {
                assert_eq!(p.remove_obstacle(ids[k]), Some(d));
            } else {
                kept.push(d);
            }
        }
        let fresh = Planner::new(&ground, &kept, agent, DVec2::ZERO, 64.0).unwrap();
        let (got, want) = (leaves(&p), leaves(&fresh));
        let diff: Vec<_> = got.symmetric_difference(&want).take(8).collect();
        assert!(diff.is_empty(), "round {round}: {diff:?}");
        // Each leaf's state by brute force over the discs kept.
        let side = p.tree.side() - 1;
        p.tree.leaves_in(0, 0, side, side, &mut |n| {
            let (lo, hi) = p.tree.bounds(n);
            let r = |d: &Disc| d.radius + agent.radius;
            let meets = kept.iter().any(|d| box_dist2(lo, hi, d.center) < r(d) * r(d));
            let inside = kept.iter().any(|d| box_far2(lo, hi, d.center) <= r(d) * r(d));
            let want = if inside {
                State::Full
            } else if !meets {
                State::Free
            } else {
                State::Partial
            };
            assert_eq!(p.tree.nodes[n as usize].state, want, "leaf {lo} {hi}");
        });
    }
}

/// Distance from `p` to the segment a–b (brute force: projection clamped to the segment).
fn seg_dist(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let d = b - a;
    let t = if d == DVec2::ZERO { 0.0 } else { ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0) };
    p.distance(a + d * t)
}

/// Every segment of `route` at least the inflated radius from every disc, from `a` to `b`.
fn valid(route: &super::Route, a: DVec2, b: DVec2, discs: &[Disc], r: f64) -> Result<(), String> {
    let p = route.xy();
    if p.first() != Some(&a) || p.last() != Some(&b) {
        return Err(format!("ends {:?} {:?} against {a} {b}", p.first(), p.last()));
    }
    for w in p.windows(2) {
        for d in discs {
            let need = d.radius + r;
            let got = seg_dist(w[0], w[1], d.center);
            if got < need - 1e-9 * (1.0 + need) {
                return Err(format!("segment {}–{} is {got} from a disc needing {need}", w[0], w[1]));
            }
        }
    }
    Ok(())
}

/// A 100 m field for a 0.5 m walker (clusters of 4 m): `n` discs, and a ring of discs around
/// (30, 30) closing it off when `walled`.
fn hier_field(seed: u64, n: usize, walled: bool) -> Vec<Disc> {
    let mut rng = SplitMix64::new(seed);
    let mut discs: Vec<Disc> = (0..n)
        .map(|_| Disc { center: DVec2::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0)), radius: rng.range(0.3, 6.0) })
        .collect();
    if walled {
        discs.retain(|d| d.center.distance(DVec2::splat(30.0)) > d.radius + 12.0);
        for k in 0..24 {
            let at = DVec2::splat(30.0) + DVec2::from_angle(k as f64 * std::f64::consts::TAU / 24.0) * 8.0;
            discs.push(Disc { center: at, radius: 1.5 });
        }
    }
    discs
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// The cluster–portal query gives a valid path exactly when the search over the whole tree
    /// does, at most 10 % longer than it (the weighted search and the portal points); from anywhere, from the same cluster as the goal, from a
    /// cluster's corner, and from inside a closed ring (no path). Then an obstacle added on the
    /// path and removed again: the cached graph answers as one built afresh on the same tree.
    #[test]
    fn portal_paths_are_valid_and_short(
        seed in proptest::prelude::any::<u64>(),
        n in 0usize..60,
        kind in 0u8..4,
        ax in 1.0f64..99.0, ay in 1.0f64..99.0, bx in 1.0f64..99.0, by in 1.0f64..99.0,
    ) {
        let ground = Heightfield::builder(101, 101, vec![0.0; 101 * 101]).build().unwrap();
        let agent = super::Agent::default().with_radius(0.5).with_snap(0.0);
        let mut discs = hier_field(seed, n, kind == 3);
        let mut p = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0).unwrap();
        let w = (1u32 << p.cluster_level()) as f64 * p.tree.cell;
        let (a, b) = match kind {
            // The same cluster.
            1 => (DVec2::new(ax, ay), ((DVec2::new(ax, ay) / w).floor() + DVec2::new(bx, by) / 100.0) * w),
            // Cluster corners.
            2 => ((DVec2::new(ax, ay) / w).round() * w, (DVec2::new(bx, by) / w).round() * w),
            // Inside the ring, to outside.
            3 => (DVec2::splat(30.0) + (DVec2::new(ax, ay) / 100.0 - 0.5) * 6.0, DVec2::new(bx, by.max(60.0))),
            _ => (DVec2::new(ax, ay), DVec2::new(bx, by)),
        };
        if p.check_point("start", a).is_err() || p.check_point("goal", b).is_err() {
            // Ends inside obstacles: those obstacles cleared (never the ring's, which lies far from
            // both ends), rather than the case thrown away.
            discs.retain(|d| d.center.distance(a).min(d.center.distance(b)) > d.radius + 1.0);
            p = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0).unwrap();
        }
        proptest::prop_assume!(p.check_point("start", a).is_ok() && p.check_point("goal", b).is_ok());
        let flat = p.find_path_flat(a, b);
        let got = p.find_path(a, b);
        proptest::prop_assert_eq!(got.is_ok(), flat.is_ok(), "portals {:?}, whole tree {:?}", got, flat);
        if kind == 3 {
            proptest::prop_assert!(got.is_err(), "a path out of the ring: {:?}", got);
        }
        let (Ok(got), Ok(flat)) = (got, flat) else { return Ok(()) };
        valid(&got, a, b, &discs, 0.5).map_err(proptest::test_runner::TestCaseError::fail)?;
        proptest::prop_assert!(got.length() <= 1.10 * flat.length() + 1e-9, "{} against {}", got.length(), flat.length());
        // An obstacle on the path, then gone: the cache answers as one built afresh.
        let q = got.xy();
        let at = q[q.len() / 2 - usize::from(q.len() == 2)].lerp(q[q.len() / 2], 0.5);
        let new = Disc { center: at, radius: 2.0 };
        if a.distance(at) <= 3.0 || b.distance(at) <= 3.0 {
            return Ok(()); // no room for an obstacle between the ends
        }
        let id = p.add_obstacle(new).unwrap();
        let cached = p.find_path(a, b);
        p.clusters = Default::default();
        proptest::prop_assert_eq!(cached, p.find_path(a, b));
        p.remove_obstacle(id);
        let cached = p.find_path(a, b);
        p.clusters = Default::default();
        proptest::prop_assert_eq!(cached, p.find_path(a, b));
    }
}

/// A planner may be kept by another thread (a game's resource, a server's worker): its caches
/// share stretches by `Arc`, not `Rc`.
#[test]
fn a_planner_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Planner<'static>>();
}

/// A gap between obstacles narrower than a free cell: the search over the whole tree finds the
/// way through the partial cells, as the cluster–portal query does (found by
/// `portal_paths_are_valid_and_short`: the whole tree's free leaves alone did not join these ends).
#[test]
fn the_whole_tree_search_passes_gaps_narrower_than_a_free_cell() {
    let ground = Heightfield::builder(101, 101, vec![0.0; 101 * 101]).build().unwrap();
    let agent = super::Agent::default().with_radius(0.5).with_snap(0.0);
    let discs = hier_field(18148135702241773785, 47, false);
    let mut p = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0).unwrap();
    let (a, b) = (DVec2::new(72.0, 0.0), DVec2::new(0.0, 52.0));
    let flat = p.find_path_flat(a, b).unwrap();
    valid(&flat, a, b, &discs, 0.5).unwrap();
    let portal = p.find_path(a, b).unwrap();
    valid(&portal, a, b, &discs, 0.5).unwrap();
    assert!(portal.length() <= 1.10 * flat.length() + 1e-9, "{} against {}", portal.length(), flat.length());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The portal search keeps its dense tables between queries (stamped, not cleared): a run of
    /// queries on one planner answers each as a planner whose search state is new, and a stamp
    /// about to wrap starts the tables afresh.
    #[test]
    fn the_portal_search_state_carries_nothing_between_queries(
        seed in proptest::prelude::any::<u64>(),
        n in 0usize..60,
        ends in proptest::collection::vec((1.0f64..99.0, 1.0f64..99.0, 1.0f64..99.0, 1.0f64..99.0), 1..6),
    ) {
        let ground = Heightfield::builder(101, 101, vec![0.0; 101 * 101]).build().unwrap();
        let agent = super::Agent::default().with_radius(0.5).with_snap(0.0);
        let discs = hier_field(seed, n, false);
        let mut p = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0).unwrap();
        for (k, &(ax, ay, bx, by)) in ends.iter().enumerate() {
            let (a, b) = (DVec2::new(ax, ay), DVec2::new(bx, by));
            if p.check_point("start", a).is_err() || p.check_point("goal", b).is_err() {
                continue;
            }
            if k == 2 {
                p.portal_search.stamp = u32::MAX;
            }
            let warm = p.portal_corridor(a, b);
            p.portal_search = Default::default();
            proptest::prop_assert_eq!(warm, p.portal_corridor(a, b));
        }
    }
}
