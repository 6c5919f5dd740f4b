//! Collision groups and the staged object-vs-object check, against brute force.

use glam::{DAffine3, DQuat, DVec3};
use landfall::collide::{check, colliding_pairs, obb_overlap, segment_distance, Body, Proxy, Stage};
use landfall::Groups;
use landfall::{Frame, PolygonTerrain, Ray, TerrainSet};
use proptest::prelude::*;
use std::sync::Arc;

const GROUND: u32 = 1;
const VEHICLES: u32 = 2;
const TREES: u32 = 4;
const STONES: u32 = 8;
const AIR: u32 = 16;
const AIRPLANES: u32 = 32;

/// The note's example: cars, airplanes, trees, rocks and a ghost that walks through cars.
#[test]
fn the_notes_groups() {
    let car = Groups::shared(GROUND | VEHICLES);
    let plane = Groups::shared(AIRPLANES | AIR);
    let tree = Groups::shared(GROUND | TREES);
    let rock = Groups::shared(STONES);
    let ghost = Groups::shared(TREES | STONES);
    assert!(car.interacts(tree) && car.interacts(car));
    assert!(!car.interacts(plane) && !car.interacts(rock));
    assert!(ghost.interacts(tree) && ghost.interacts(rock) && !ghost.interacts(car));
    // Asymmetric filters: a sensor in group AIR that sees vehicles, vehicles not filtering AIR.
    let sensor = Groups::new(AIR, VEHICLES);
    assert!(!sensor.interacts(car));
    assert!(sensor.interacts(Groups::new(VEHICLES, AIR)));
    assert!(!Groups::NONE.interacts(Groups::ALL));
}

fn body(c: DVec3, e: DVec3, q: DQuat, groups: Groups, proxy: Option<Proxy>) -> Body {
    Body { groups, half_extents: e, pose: DAffine3::from_rotation_translation(q, c), proxy }
}

fn inside(b: &Body, p: DVec3) -> bool {
    let l = b.pose.inverse().transform_point3(p);
    l.abs().cmple(b.half_extents + DVec3::splat(1e-9)).all()
}

proptest! {
    /// Oriented boxes: whenever a sample point of one box lies in the other, the test says overlap;
    /// whenever the test says apart, no sample of either is in the other.
    #[test]
    fn oriented_boxes_match_sampling(
        c in prop::array::uniform3(-3.0f64..3.0), e1 in prop::array::uniform3(0.2f64..2.0), e2 in prop::array::uniform3(0.2f64..2.0),
        r1 in prop::array::uniform3(-3.0f64..3.0), r2 in prop::array::uniform3(-3.0f64..3.0),
    ) {
        let q = |r: [f64; 3]| DQuat::from_euler(glam::EulerRot::XYZ, r[0], r[1], r[2]);
        let a = body(DVec3::ZERO, DVec3::from_array(e1), q(r1), Groups::ALL, None);
        let b = body(DVec3::from_array(c), DVec3::from_array(e2), q(r2), Groups::ALL, None);
        let overlap = obb_overlap(&a, &b);
        prop_assert_eq!(overlap, obb_overlap(&b, &a));
        let n = 8;
        let mut sampled = false;
        for (x, y) in [(&a, &b), (&b, &a)] {
            for i in 0..=n { for j in 0..=n { for k in 0..=n {
                let u = DVec3::new(i as f64, j as f64, k as f64) / n as f64 * 2.0 - 1.0;
                sampled |= inside(y, x.pose.transform_point3(u * x.half_extents));
            }}}
        }
        if sampled {
            prop_assert!(overlap);
        }
        prop_assert_eq!(check(&a, &b).is_ok(), overlap);
    }

    /// Segment distance against dense sampling of both segments.
    #[test]
    fn segment_distance_matches_sampling(p in prop::array::uniform12(-2.0f64..2.0)) {
        let v = |k: usize| DVec3::new(p[3 * k], p[3 * k + 1], p[3 * k + 2]);
        let d = segment_distance(v(0), v(1), v(2), v(3));
        let mut best = f64::INFINITY;
        for i in 0..=200 {
            let a = v(0).lerp(v(1), i as f64 / 200.0);
            for j in 0..=200 {
                best = best.min((a - v(2).lerp(v(3), j as f64 / 200.0)).length());
            }
        }
        prop_assert!(d <= best + 1e-12 && d >= best - 0.05, "{} vs {}", d, best);
    }
}

#[test]
fn stages_run_in_order_and_name_the_separating_one() {
    let q = DQuat::from_rotation_z(0.785);
    let capsule = Some(Proxy::Capsule { a: DVec3::new(-0.8, 0.0, 0.0), b: DVec3::new(0.8, 0.0, 0.0), radius: 0.2 });
    let a = body(DVec3::ZERO, DVec3::new(1.0, 0.2, 0.2), DQuat::IDENTITY, Groups::shared(GROUND), capsule);
    let far = body(DVec3::new(10.0, 0.0, 0.0), DVec3::ONE, q, Groups::shared(GROUND), None);
    assert_eq!(check(&a, &far), Err(Stage::Aabb));
    let other_group = body(DVec3::ZERO, DVec3::ONE, q, Groups::shared(AIR), None);
    assert_eq!(check(&a, &other_group), Err(Stage::Groups));
    // Boxes whose axis-aligned boxes meet but which are apart when oriented.
    let diag = body(
        DVec3::new(0.85, 0.85, 0.0),
        DVec3::new(1.0, 0.1, 0.1),
        DQuat::from_rotation_z(-0.785),
        Groups::shared(GROUND),
        None,
    );
    assert_eq!(check(&a, &diag), Err(Stage::Obb));
    // Boxes overlapping at a corner, proxies (capsule and sphere) apart.
    let ball = body(
        DVec3::new(0.9, 0.35, 0.0),
        DVec3::splat(0.25),
        DQuat::IDENTITY,
        Groups::shared(GROUND),
        Some(Proxy::Sphere { center: DVec3::ZERO, radius: 0.1 }),
    );
    assert_eq!(check(&a, &ball), Err(Stage::Proxy));
    let touching = Body { proxy: Some(Proxy::Sphere { center: DVec3::ZERO, radius: 0.3 }), ..ball };
    assert_eq!(check(&a, &touching), Ok(()));
    // All pairs: only the colliding ones, via per-group lists.
    let bodies = [a, far, other_group, diag, ball, touching];
    let brute: Vec<(usize, usize)> = (0..bodies.len())
        .flat_map(|i| (i + 1..bodies.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| check(&bodies[i], &bodies[j]).is_ok())
        .collect();
    assert_eq!(colliding_pairs(&bodies), brute);
    assert!(brute.contains(&(0, 5)));
}

/// Terrain queries take a filter: a deck only vehicles collide with is invisible to walkers.
#[test]
fn terrain_queries_honour_filters() {
    let sq = |z: f64| {
        vec![DVec3::new(0.0, 0.0, z), DVec3::new(10.0, 0.0, z), DVec3::new(10.0, 10.0, z), DVec3::new(0.0, 10.0, z)]
    };
    let ground = Arc::new(PolygonTerrain::builder().polygon(&sq(0.0)).build().unwrap());
    let deck = Arc::new(PolygonTerrain::builder().polygon(&sq(5.0)).build().unwrap());
    let mut set = TerrainSet::new(Frame::z_up());
    set.add(ground, DAffine3::IDENTITY).unwrap();
    set.add_with_groups(deck, DAffine3::IDENTITY, Groups::shared(VEHICLES)).unwrap();
    let p = DVec3::new(5.0, 5.0, 9.0);
    assert_eq!(set.surfaces_filtered(p, Groups::shared(VEHICLES | GROUND)).len(), 2);
    assert_eq!(set.surfaces_filtered(p, Groups::new(GROUND, GROUND)).len(), 1);
    let down = Ray::new(p, DVec3::NEG_Z);
    assert_eq!(set.raycast_filtered(&down, 100.0, Groups::shared(VEHICLES)).unwrap().1.point.z, 5.0);
    assert_eq!(set.raycast_filtered(&down, 100.0, Groups::new(GROUND, GROUND)).unwrap().1.point.z, 0.0);
}
