//! Placement on the ground: exact on planes, contacts on the ground on real terrains, refusals for
//! holes, the edge of the world and steep ground, bridges kept, gravity frames respected.

use glam::{DMat3, DQuat, DVec3};
use landfall::bench::synth::{generate, SynthParams};
use landfall::pitch_ahead;
use landfall::{
    place, place_batch, Contacts, FollowParams, Frame, Heightfield, PolygonTerrain, QuadtreeParams, Refusal, Terrain,
};
use proptest::prelude::*;

/// A heightfield sampling the plane z = a·x + b·y + c (exact on its triangles).
fn plane(a: f64, b: f64, c: f64) -> Heightfield {
    let n = 41;
    let h = (0..n * n).map(|k| (a * (k % n) as f64 + b * (k / n) as f64 + c) as f32).collect();
    Heightfield::builder(n, n, h).build().unwrap()
}

proptest! {
    /// On a plane every contact model gives the plane itself: position on it, normal, slope, pitch and
    /// roll from its gradient, for any heading.
    #[test]
    fn planes_give_their_own_orientation(a in -0.5f64..0.5, b in -0.5f64..0.5, heading in -7.0f64..7.0, four in any::<bool>()) {
        let (a, b) = ((a * 64.0).round() / 64.0, (b * 64.0).round() / 64.0); // exact in f32 samples
        let t = plane(a, b, 3.0);
        let params = FollowParams::default().with_contacts(if four { Contacts::FourWheels } else { Contacts::ThreePoints }).with_max_slope(1.5);
        let p = DVec3::new(20.3, 19.7, 100.0);
        let s = place(&t, p, heading, &params).unwrap();
        let z = a * p.x + b * p.y + 3.0;
        prop_assert!((s.position - DVec3::new(p.x, p.y, z)).length() < 1e-9);
        let n = DVec3::new(-a, -b, 1.0).normalize();
        prop_assert!((s.up - n).length() < 1e-12);
        prop_assert!((s.slope() - n.z.acos()).abs() < 1e-9);
        let (f, r) = (DVec3::new(heading.cos(), heading.sin(), 0.0), DVec3::new(heading.sin(), -heading.cos(), 0.0));
        prop_assert!((s.pitch() - (a * f.x + b * f.y).atan()).abs() < 1e-9, "pitch {} vs {}", s.pitch(), (a * f.x + b * f.y).atan());
        prop_assert!((s.roll() + (a * r.x + b * r.y).atan()).abs() < 1e-9);
        prop_assert!((s.rotation * DVec3::Z - s.up).length() < 1e-9 && (s.rotation * DVec3::X - s.forward).length() < 1e-9);
        for c in &s.contacts[..s.contact_count] {
            prop_assert!((c.z - (a * c.x + b * c.y + 3.0)).abs() < 1e-9);
        }
        let pa = pitch_ahead(&t, p, heading, 2.0, 1.0).unwrap();
        prop_assert!((pa - (a * f.x + b * f.y).atan()).abs() < 1e-9);
    }
}

#[test]
fn contacts_stand_on_real_ground_and_batches_agree() {
    let n = 129;
    let hf = Heightfield::builder(
        n,
        n,
        generate(n, n, &SynthParams { relief: 30.0, feature: 40.0, ..SynthParams::default() }),
    )
    .build()
    .unwrap();
    let params = FollowParams::default().with_max_slope(1.5);
    let bodies: Vec<(DVec3, f64)> = (0..500)
        .map(|k| (DVec3::new(5.0 + (k % 25) as f64 * 4.7, 5.0 + (k / 25) as f64 * 5.9, 200.0), k as f64 * 0.37))
        .collect();
    let batch = place_batch(&hf, &bodies, &params);
    let as_dyn: &dyn Terrain = &hf;
    for (&(p, h), b) in bodies.iter().zip(&batch) {
        let s = place(&hf, p, h, &params).unwrap();
        assert_eq!(Ok(s), *b);
        // The same answer through `dyn Terrain`, with four wheels as with three points.
        assert_eq!(place(as_dyn, p, h, &params), Ok(s));
        let wheels = params.with_contacts(Contacts::FourWheels);
        assert_eq!(place(as_dyn, p, h, &wheels), place(&hf, p, h, &wheels));
        for c in &s.contacts[..3] {
            assert!((hf.height_at(c.x, c.y).unwrap() - c.z).abs() < 1e-9);
        }
        assert_eq!((s.position.x, s.position.y), (p.x, p.y));
    }
}

#[test]
fn holes_edges_and_steep_ground_are_refused_with_the_reason() {
    let n = 21;
    let mut h: Vec<f32> = vec![0.0; n * n];
    for j in 9..=11 {
        for i in 9..=11 {
            h[j * n + i] = f32::NAN; // a hole: no ground for 8 < x, y < 12
        }
    }
    for j in 0..n {
        for i in 15..n {
            h[j * n + i] = (i as f32 - 15.0) * 3.0; // a 72° ramp on the east side
        }
    }
    let hf = Heightfield::builder(n, n, h).build().unwrap();
    let params = FollowParams::default();
    let small = params.with_length(2.0).with_width(1.0);
    assert!(matches!(place(&hf, DVec3::new(10.0, 10.0, 5.0), 0.0, &small), Err(Refusal::NoGround { contact: 0, .. })));
    // Only the front over the hole: still refused, naming the front contact.
    assert!(matches!(place(&hf, DVec3::new(7.5, 10.0, 5.0), 0.0, &params), Err(Refusal::NoGround { contact: 0, .. })));
    assert!(matches!(
        place(&hf, DVec3::new(0.5, 10.0, 5.0), 0.0, &params),
        Err(Refusal::EdgeOfWorld { contact: 1, .. })
    ));
    assert!(matches!(place(&hf, DVec3::new(17.5, 5.0, 50.0), 0.0, &params), Err(Refusal::TooSteep { .. })));
    // Facing the ramp from its foot: the front contact's ground (z = 3 at x = 16) is above its
    // probe (z = 1 + probe_up = 2). There is ground, so it is not a hole: it blocks.
    match place(&hf, DVec3::new(14.0, 5.0, 1.0), 0.0, &params) {
        Err(Refusal::Blocked { contact: 0, at, ground }) => {
            assert_eq!(at, DVec3::new(16.0, 5.0, 2.0));
            assert!((ground - DVec3::new(16.0, 5.0, 3.0)).length() < 1e-9, "{ground}");
        }
        other => panic!("{other:?}"),
    }
    assert!(place(&hf, DVec3::new(5.0, 5.0, 1.0), 0.3, &params).is_ok());
    assert_eq!(place(&hf, DVec3::new(f64::NAN, 5.0, 1.0), 0.0, &params), Err(Refusal::BadInput));
    let zero = params.with_length(0.0);
    assert_eq!(place(&hf, DVec3::new(5.0, 5.0, 1.0), 0.0, &zero), Err(Refusal::BadInput));
}

#[test]
fn a_car_under_a_bridge_stays_under_it_and_one_on_it_stays_on_it() {
    let ground = [
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(100.0, 0.0, 0.0),
        DVec3::new(100.0, 100.0, 0.0),
        DVec3::new(0.0, 100.0, 0.0),
    ];
    let deck = [
        DVec3::new(0.0, 40.0, 10.0),
        DVec3::new(100.0, 40.0, 10.0),
        DVec3::new(100.0, 60.0, 10.0),
        DVec3::new(0.0, 60.0, 10.0),
    ];
    let t = PolygonTerrain::builder().polygon(&ground).polygon(&deck).build().unwrap();
    let params = FollowParams::default();
    assert_eq!(place(&t, DVec3::new(50.0, 50.0, 0.2), 1.0, &params).unwrap().position.z, 0.0);
    assert_eq!(place(&t, DVec3::new(50.0, 50.0, 10.5), 1.0, &params).unwrap().position.z, 10.0);
    // A contact hanging over the deck's edge finds the ground below: the plane tilts steeply.
    assert!(matches!(
        place(&t, DVec3::new(50.0, 41.0, 10.5), std::f64::consts::FRAC_PI_2, &params),
        Err(Refusal::TooSteep { .. })
    ));
}

#[test]
fn another_gravity_gives_the_same_placement_turned() {
    let n = 65;
    let hf_h = generate(n, n, &SynthParams { relief: 10.0, feature: 30.0, ..SynthParams::default() });
    let plain = Heightfield::builder(n, n, hf_h).build().unwrap();
    // The same triangles as polygons, turned with their gravity.
    let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.4, -0.9, 2.1);
    let m = DMat3::from_quat(q);
    let soup = landfall::PolygonSoup::from_heightfield(&plain);
    let polys: Vec<Vec<DVec3>> = (0..soup.len()).map(|k| soup.polygon(k).iter().map(|&v| m * v).collect()).collect();
    let originals: Vec<Vec<DVec3>> = (0..soup.len()).map(|k| soup.polygon(k).to_vec()).collect();
    let flat = PolygonTerrain::builder().polygons(&originals).build().unwrap();
    let turned = PolygonTerrain::builder()
        .polygons(&polys)
        .frame(Frame::from_gravity(m * DVec3::NEG_Z).unwrap())
        .params(QuadtreeParams::default())
        .build()
        .unwrap();
    let params = FollowParams::default().with_max_slope(1.5);
    for k in 0..100 {
        let p = DVec3::new(8.0 + (k % 10) as f64 * 4.9, 8.0 + (k / 10) as f64 * 4.7, 30.0);
        let a = place(&flat, p, 0.0, &params).unwrap();
        // Heading 0 is the frame's local +X, which for the turned frame is R⁻¹·X: compare through it.
        let x_local = turned.frame().to_world(DVec3::X);
        let x_local = x_local - turned.frame().up() * x_local.dot(turned.frame().up());
        let heading = (m.transpose() * x_local).y.atan2((m.transpose() * x_local).x);
        let b = place(&turned, m * p, -heading, &params).unwrap();
        assert!((m * a.position - b.position).length() < 1e-7, "{} vs {}", m * a.position, b.position);
        assert!((m * a.up - b.up).length() < 1e-9);
        assert!((a.pitch() - b.pitch()).abs() < 1e-9 && (a.roll() - b.roll()).abs() < 1e-9);
    }
}
