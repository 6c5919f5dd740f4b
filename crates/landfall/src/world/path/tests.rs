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
