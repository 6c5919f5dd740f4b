//! Swept spheres and sliding: the tree against the naive all-triangles sweep, contacts against a
//! brute-force distance, and paths that never end inside the terrain or cross it, at any speed.

use glam::DVec3;
use landfall::bench::synth::{generate, SynthParams};
use landfall::collide::Shape;
use landfall::collide::{
    closest_point, slide, sweep_sphere_triangle, CharacterController, ControllerParams, Nearby, SlideParams,
    SphereTree, SweepTarget, TerrainContact, TerrainSweep,
};
use landfall::{Aabb, Heightfield, PolygonTerrain, TriangleId};
use proptest::prelude::*;

fn terrain(seed: u64, n: usize) -> Heightfield {
    let p = SynthParams { relief: 20.0, feature: 12.0, seed, ..SynthParams::default() };
    Heightfield::builder(n, n, generate(n, n, &p)).build().unwrap()
}

/// Smallest distance from `p` to any triangle of the tree's terrain (brute force).
fn distance(tris: &[[DVec3; 3]], p: DVec3) -> f64 {
    tris.iter().map(|t| closest_point(t, p).distance(p)).fold(f64::INFINITY, f64::min)
}

/// Contact times equal up to ties at shared edges (the same contact found through either face).
fn same_t(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * (1.0 + x),
        (None, None) => true,
        _ => false,
    }
}

/// The contact's normal is the unit vector from its point toward the center at contact time `t`
/// (every sweep computes it, only for the earliest contact).
fn normal_points_to_center(h: &TerrainContact, c: DVec3, v: DVec3) -> bool {
    let away = c + v * h.contact.t - h.contact.point;
    let n = h.contact.normal;
    (n.length() - 1.0).abs() < 1e-12 && (away.length() < 1e-9 || (n - away.normalize()).length() < 1e-9)
}

fn all_triangles(hf: &Heightfield) -> Vec<[DVec3; 3]> {
    let s = landfall::PolygonSoup::from_heightfield(hf);
    (0..s.len()).map(|k| [s.polygon(k)[0], s.polygon(k)[1], s.polygon(k)[2]]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The tree finds the same earliest contact as the naive sweep; at the contact the sphere's
    /// center is exactly r from the terrain, and nothing is nearer before it.
    #[test]
    fn tree_sweep_is_the_naive_sweep(seed in 0u64..1000, r in 0.2f64..3.0, o in prop::array::uniform3(0.0f64..1.0), d in prop::array::uniform3(-1.0f64..1.0), len in 0.1f64..80.0) {
        let hf = terrain(seed, 33);
        let tree = SphereTree::from_terrain(&hf);
        let tris = all_triangles(&hf);
        let c = DVec3::new(o[0] * 32.0, o[1] * 32.0, 25.0 + o[2] * 10.0);
        let v = DVec3::from_array(d).normalize_or_zero() * len;
        let (a, b) = (tree.sweep(c, r, v), tree.sweep_all(c, r, v));
        prop_assert!(same_t(a.map(|h| h.contact.t), b.map(|h| h.contact.t)), "{:?} vs {:?}", a, b);
        // The terrain's own candidates, directly and gathered for a region around the motion.
        let region = Aabb::new(c.min(c + v) - DVec3::splat(r + 1.0), c.max(c + v) + DVec3::splat(r + 1.0));
        let gathered = Nearby::with(&TerrainSweep(&hf), region, |n| n.sweep(c, r, v));
        for other in [TerrainSweep(&hf).sweep(c, r, v), gathered] {
            prop_assert!(same_t(other.map(|h| h.contact.t), b.map(|h| h.contact.t)), "{:?} vs {:?}", other, b);
        }
        for h in [a, b, TerrainSweep(&hf).sweep(c, r, v), gathered].iter().flatten() {
            prop_assert!(normal_points_to_center(h, c, v), "{:?}", h);
        }
        if let Some(h) = a {
            let center = c + v * h.contact.t;
            prop_assert!((distance(&tris, center) - r).abs() < 1e-6 * (1.0 + r), "distance {} vs r {}", distance(&tris, center), r);
            for k in 0..50 {
                let before = c + v * (h.contact.t * k as f64 / 50.0);
                prop_assert!(distance(&tris, before) >= r - 1e-6);
            }
        } else {
            for k in 0..=50 {
                prop_assert!(distance(&tris, c + v * (k as f64 / 50.0)) >= r - 1e-6);
            }
        }
    }

    /// Sliding moves of up to 1 km per step never end inside the terrain and never cross it: a
    /// slightly smaller sphere swept along every piece of the path touches nothing.
    #[test]
    fn slides_never_end_inside_or_tunnel(seed in 0u64..1000, r in 0.3f64..2.0, o in prop::array::uniform2(0.0f64..1.0), d in prop::array::uniform3(-1.0f64..1.0), len in 1.0f64..1000.0) {
        check_slide(seed, r, o, d, len)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Character moves of up to 1 km (walk and fall swept together off the ground, apart on it,
    /// with steps and the snap) never end inside the terrain or under it, on the terrain's own
    /// candidates and on the sphere tree alike.
    #[test]
    fn controller_moves_never_end_inside_or_under(seed in 0u64..1000, o in prop::array::uniform2(0.0f64..1.0), walk in prop::array::uniform2(-1.0f64..1.0), fall in -1.0f64..0.2, len in 0.01f64..1000.0, grounded: bool) {
        let hf = terrain(seed, 33);
        let tree = SphereTree::from_terrain(&hf);
        let tris = all_triangles(&hf);
        let c = CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
        let r = c.params.radius;
        let (x, y) = (1.0 + o[0] * 30.0, 1.0 + o[1] * 30.0);
        // A valid start: clear of the terrain by the skin.
        let mut p = DVec3::new(x, y, hf.height_at(x, y).unwrap() + r + c.params.skin);
        while distance(&tris, p) < r + c.params.skin {
            p.z += 0.01;
        }
        let desired = DVec3::new(walk[0], walk[1], fall) * len;
        for target in [&tree as &dyn SweepTarget, &TerrainSweep(&hf)] {
            let m = c.move_by(target, p, desired, grounded);
            let end = m.position;
            prop_assert!(distance(&tris, end) >= r - 1e-6, "ended at distance {} from {p} by {desired}", distance(&tris, end));
            prop_assert!(hf.height_at(end.x, end.y).is_none_or(|h| end.z > h), "ended under the surface at {end}");
        }
    }
}

/// A plane as (point, unit normal pointing up).
type Plane = (DVec3, DVec3);

/// The height of `plane` over (x, y).
fn plane_z((c, n): Plane, x: f64, y: f64) -> f64 {
    c.z - (n.x * (x - c.x) + n.y * (y - c.y)) / n.z
}

/// A floor through the origin (a 40 m square) and, over its middle, a thin deck (a 10 m square)
/// `gap` above the floor over (x, y), tilted by the slopes `tilt` (floor along x and y, then deck):
/// a shape wedged between them, embedded in both, is in no place a push can put right.
fn tilted_sandwich(gap: f64, tilt: [f64; 4], (x, y): (f64, f64)) -> (PolygonTerrain, [Plane; 2]) {
    let plane = |c: DVec3, sx: f64, sy: f64| (c, DVec3::new(-sx, -sy, 1.0).normalize());
    let square = |p: Plane, h: f64| {
        [(-h, -h), (h, -h), (h, h), (-h, h)].map(|(x, y)| DVec3::new(x, y, plane_z(p, x, y))).to_vec()
    };
    let floor = plane(DVec3::ZERO, tilt[0], tilt[1]);
    let deck = plane(DVec3::new(x, y, plane_z(floor, x, y) + gap), tilt[2], tilt[3]);
    let t = PolygonTerrain::builder().polygon(&square(floor, 20.0)).polygon(&square(deck, 5.0)).build().unwrap();
    (t, [floor, deck])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A shape between a tilted floor and a thin tilted deck over it (often embedded in one or both)
    /// never crosses either: every point of a slide's path, and where a character's move ends,
    /// stays above the floor and below the deck.
    #[test]
    fn wedged_shapes_never_cross_a_surface(gap in 0.2f64..2.0, tilt in prop::array::uniform4(-0.3f64..0.3), at in prop::array::uniform3(0.0f64..1.0), d in prop::array::uniform3(-1.0f64..1.0), len in 0.01f64..0.5, shape in 0usize..3, grounded: bool) {
        // A start strictly between the planes, over the middle of the deck.
        let (x, y) = (4.0 * at[0] - 2.0, 4.0 * at[1] - 2.0);
        let (t, planes) = tilted_sandwich(gap, tilt, (x, y));
        let tree = SphereTree::from_terrain(&t);
        let side = |p: DVec3| planes.map(|(c, n)| (p - c).dot(n));
        let start = DVec3::new(x, y, plane_z(planes[0], x, y) + 0.01 + (gap - 0.02) * at[2]);
        let motion = DVec3::from(d) * len;
        let between = |p: DVec3| { let [f, k] = side(p); f > 0.0 && k < 0.0 };
        prop_assert!(between(start));
        let r = 0.2 + gap * 0.4;
        let res = slide(&tree, start, r, motion, &SlideParams::default()).unwrap();
        for p in &res.path[..=res.pieces] {
            prop_assert!(between(*p), "slide from {start} by {motion}: crossed at {p} (sides {:?})", side(*p));
        }
        let shape = [
            Shape::Sphere,
            Shape::Capsule { half_height: 0.3 * r },
            Shape::Ellipsoid { radii: DVec3::new(r, 0.8 * r, 1.2 * r) },
        ][shape];
        let c = CharacterController::new(ControllerParams::default().with_shape(shape).with_radius(r), DVec3::Z).expect("valid controller parameters");
        let end = c.move_by(&tree, start, motion + DVec3::new(0.0, 0.0, -0.1), grounded).position;
        prop_assert!(between(end), "{shape:?} from {start} by {motion}: crossed to {end} (sides {:?})", side(end));
    }
}

#[test]
fn edges_and_vertices_are_hit_not_only_faces() {
    let tri = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 0.0)];
    // Toward a vertex from outside the face's prism.
    let c = sweep_sphere_triangle(DVec3::new(-2.0, -2.0, 0.0), 0.5, DVec3::new(4.0, 4.0, 0.0), &tri, 1.0).unwrap();
    assert_eq!(c.point, tri[0]);
    assert!((c.t - (2.0 * 2f64.sqrt() - 0.5) / (4.0 * 2f64.sqrt())).abs() < 1e-12);
    // Toward an edge, sideways in the plane.
    let c = sweep_sphere_triangle(DVec3::new(0.5, -2.0, 0.0), 0.5, DVec3::new(0.0, 4.0, 0.0), &tri, 1.0).unwrap();
    assert!((c.point - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-12 && (c.t - 0.375).abs() < 1e-12);
    // Onto the face from above.
    let c = sweep_sphere_triangle(DVec3::new(0.2, 0.2, 3.0), 0.5, DVec3::new(0.0, 0.0, -4.0), &tri, 1.0).unwrap();
    assert!((c.t - 0.625).abs() < 1e-12 && c.normal == DVec3::Z);
    // Embedded at the start: contact at t = 0, normal pointing out.
    let c = sweep_sphere_triangle(DVec3::new(0.2, 0.2, 0.1), 0.5, DVec3::new(1.0, 0.0, 0.0), &tri, 1.0).unwrap();
    assert_eq!(c.t, 0.0);
    assert!((c.normal - DVec3::Z).length() < 1e-12);
    assert!(sweep_sphere_triangle(DVec3::new(5.0, 5.0, 5.0), 0.5, DVec3::X, &tri, 1.0).is_none());
}

/// A V-shaped crease (two walls meeting at 60°): a sphere pushed into it stops at the crease,
/// on the right side of both walls; pushed along a wall it slides along it.
#[test]
fn creases_stop_and_walls_slide() {
    let wall = |x0: f64, y0: f64, x1: f64, y1: f64| {
        vec![DVec3::new(x0, y0, -5.0), DVec3::new(x1, y1, -5.0), DVec3::new(x1, y1, 5.0), DVec3::new(x0, y0, 5.0)]
    };
    let a = 30f64.to_radians();
    let (dx, dy) = (a.sin() * 20.0, a.cos() * 20.0);
    let t =
        PolygonTerrain::builder().polygon(&wall(0.0, 0.0, -dx, dy)).polygon(&wall(0.0, 0.0, dx, dy)).build().unwrap();
    let tree = SphereTree::from_terrain(&t);
    let r = 1.0;
    let res = slide(
        &tree,
        DVec3::new(0.0, 15.0, 0.0),
        r,
        DVec3::new(0.3, -50.0, 0.0),
        &SlideParams::default().with_max_iterations(8),
    )
    .unwrap();
    let p = res.position;
    // Inside the V (between the walls), at least r from both.
    let n1 = DVec3::new(a.cos(), a.sin(), 0.0); // inward normal of the wall toward −x
    let n2 = DVec3::new(-a.cos(), a.sin(), 0.0);
    assert!(p.dot(n1) >= r - 1e-6 && p.dot(n2) >= r - 1e-6, "{p}");
    assert!(p.y < 3.0, "it should have slid down into the crease, at {p}");
    assert!(res.contact_count >= 1);
    assert!(matches!(res.contacts[0].unwrap().triangle, TriangleId::Polygon(_)));
    // Along a wall: the motion across it is removed, the motion along it kept.
    let flat = PolygonTerrain::builder().polygon(&wall(-50.0, 0.0, 50.0, 0.0)).build().unwrap();
    let tree = SphereTree::from_terrain(&flat);
    let res = slide(&tree, DVec3::new(0.0, 2.0, 0.0), r, DVec3::new(10.0, -5.0, 0.0), &SlideParams::default()).unwrap();
    assert!((res.position.y - (r + 1e-3)).abs() < 1e-9, "{}", res.position);
    assert!(res.position.x > 9.9, "{}", res.position);
    // Backed off along the motion: the whole motion along the wall is kept, to the skin it stops.
    assert!((res.position.x - 10.0).abs() < 1e-9, "{}", res.position);
    // Starting within the skin, the back-off returns the sphere to its start; what it gave back is
    // still walked along the wall.
    let start = DVec3::new(0.0, r + 5e-4, 0.0);
    let res = slide(&tree, start, r, DVec3::new(0.1, -0.01, 0.0), &SlideParams::default()).unwrap();
    assert!((res.position - DVec3::new(0.1, r + 5e-4, 0.0)).length() < 1e-9, "{}", res.position);
    assert!(res.path[..=res.pieces].iter().all(|p| p.y >= start.y - 1e-12), "{:?}", res.path);
    // Grazing a wall it slides along (the motion under 0.06° into it), the sphere neither stops at
    // the touch nor comes closer than the skin afterwards.
    for (gap, into) in [(1e-4, 2e-4), (1e-5, 1e-4), (5e-4, 1e-3), (0.0, 1e-6)] {
        let res = slide(&tree, DVec3::new(0.0, r + gap, 0.0), r, DVec3::new(1.0, -into, 0.0), &SlideParams::default())
            .unwrap();
        assert!((res.position.x - 1.0).abs() < 1e-6, "{gap} {into}: {}", res.position);
        assert!(res.position.y >= r + 1e-3 - 1e-9 || res.contact_count == 0, "{gap} {into}: {}", res.position);
    }
}

/// A sphere embedded both in a floor and in a thin deck above it is never pushed out of one through
/// the other: the push out along one contact's normal would carry its center across the other's
/// plane.
#[test]
fn an_embedded_push_never_crosses_another_surface() {
    let r = 0.5;
    // Where nothing is in the way, the push is taken, even from a center exactly on the surface.
    let tree = SphereTree::from_terrain(&tilted_sandwich(0.5, [0.0; 4], (0.0, 0.0)).0);
    for (x, z) in [(0.0, 0.0), (0.0, 0.2), (7.0, 0.0), (7.0, 0.2)] {
        let res = slide(&tree, DVec3::new(x, 0.0, z), r, DVec3::new(0.1, 0.0, 0.0), &SlideParams::default()).unwrap();
        let end = res.position;
        if x > 5.0 {
            assert!((end.z - (r + 1e-3)).abs() < 1e-9 && (end.x - x - 0.1).abs() < 1e-9, "{x} {z}: {end}");
        } else {
            // Under the deck it stays wedged, clear of neither and through neither.
            assert!(end.z >= 0.0 && end.z < 0.5, "{x} {z}: {end}");
        }
    }
    for (z, deck) in [(0.2, 0.35), (0.15, 0.4), (0.3, 0.45)] {
        let tree = SphereTree::from_terrain(&tilted_sandwich(deck, [0.0; 4], (0.0, 0.0)).0);
        for motion in [DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.0, 0.0, -0.05), DVec3::new(0.0, 0.0, 0.05)] {
            let res = slide(&tree, DVec3::new(0.0, 0.0, z), r, motion, &SlideParams::default()).unwrap();
            assert!(res.contact_count > 0, "{z} {deck} {motion}");
            // Every point of the path stays between the two planes it started between.
            for p in &res.path[..=res.pieces] {
                assert!(
                    p.z > 0.0 && p.z < deck,
                    "{z} {deck} {motion}: crossed at {p} ({:?})",
                    &res.path[..=res.pieces]
                );
            }
        }
    }
}

#[test]
fn the_tree_is_serialized_forward_only_with_the_stop_rule() {
    let hf = terrain(3, 65);
    let tree = SphereTree::from_terrain(&hf);
    let nodes = tree.nodes();
    assert_eq!(tree.triangle_count(), 2 * 64 * 64);
    for (k, n) in nodes.iter().enumerate() {
        assert!(n.next as usize > k && n.next as usize <= nodes.len());
        if n.children == 0 {
            assert!(n.count as usize <= 20 && n.count > 0);
            assert!(tree.leaf_triangles(n).iter().flatten().all(|v| v.distance(n.center) <= n.radius));
        } else {
            // The first child follows the node; the second starts where the first's subtree ends,
            // and the node's sphere holds every vertex of both subtrees.
            let first = &nodes[k + 1];
            assert!(nodes[first.next as usize].next == n.next);
            for leaf in nodes[k..n.next as usize].iter().filter(|m| m.children == 0) {
                for v in tree.leaf_triangles(leaf).iter().flatten() {
                    assert!(v.distance(n.center) <= n.radius, "a vertex outside its ancestor's sphere");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Any terrain is a sweep target through its candidate triangles: on a heightfield (no extra
    /// structure) the answer is the sphere tree's.
    #[test]
    fn terrain_candidates_sweep_like_the_tree(seed in 0u64..1000, r in 0.2f64..3.0, o in prop::array::uniform3(0.0f64..1.0), d in prop::array::uniform3(-1.0f64..1.0), len in 0.1f64..200.0) {
        let hf = terrain(seed, 33);
        let tree = SphereTree::from_terrain(&hf);
        let c = DVec3::new(o[0] * 32.0, o[1] * 32.0, 25.0 + o[2] * 10.0);
        let v = DVec3::from_array(d).normalize_or_zero() * len;
        let (a, b) = (tree.sweep(c, r, v), TerrainSweep(&hf).sweep(c, r, v));
        prop_assert!(same_t(a.map(|h| h.contact.t), b.map(|h| h.contact.t)));
        // An ellipsoid with equal radii is the sphere.
        let e = SweepTarget::sweep_ellipsoid(&tree, c, DVec3::splat(r), v);
        prop_assert!(same_t(a.map(|h| h.contact.t), e.map(|h| h.contact.t)));
    }

    /// Triangles gathered once for a region (a controller's move) answer every sweep exactly as
    /// the terrain does: those inside the region from the gathered copy, the others from the
    /// terrain.
    #[test]
    fn gathered_triangles_sweep_like_their_terrain(seed in 0u64..1000, r in 0.2f64..1.5, o in prop::array::uniform3(0.0f64..1.0), half in prop::array::uniform3(0.5f64..4.0), d in prop::collection::vec((prop::array::uniform3(-1.0f64..1.0), 0.01f64..3.0), 1..8)) {
        let hf = terrain(seed, 33);
        let base = TerrainSweep(&hf);
        let center = DVec3::new(4.0 + o[0] * 24.0, 4.0 + o[1] * 24.0, 0.0);
        let center = center + DVec3::Z * (hf.height_at(center.x, center.y).unwrap() + o[2] * 2.0);
        let region = Aabb::new(center - DVec3::from_array(half), center + DVec3::from_array(half));
        Nearby::with(&base, region, |near| {
            for (dir, len) in &d {
                let v = DVec3::from_array(*dir).normalize_or_zero() * *len;
                let (a, b) = (near.sweep(center, r, v), base.sweep(center, r, v));
                prop_assert_eq!(a.map(|h| (h.contact.t, h.triangle)), b.map(|h| (h.contact.t, h.triangle)));
                let h = DVec3::Z * 0.3;
                let (a, b) = (near.sweep_capsule(center - h, center + h, r, v), base.sweep_capsule(center - h, center + h, r, v));
                prop_assert_eq!(a.map(|h| h.contact.t), b.map(|h| h.contact.t));
            }
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Spheres that start touching or embedded (the common case of a body resting on the ground):
    /// every path — the tree, the terrain's candidates, a gathered region — picks, among the contacts
    /// at the start, one whose face opposes the motion as much as the naive sweep's, although they
    /// skip the triangles that cannot win that tie (judged by the side the start is on, where the
    /// motion cannot change it).
    #[test]
    fn contacts_at_the_start_pick_the_most_opposed_face(seed in 0u64..1000, r in 0.2f64..2.0, o in prop::array::uniform3(0.0f64..1.0), d in prop::array::uniform3(-1.0f64..1.0), len in 0.01f64..3.0) {
        let hf = terrain(seed, 33);
        let tree = SphereTree::from_terrain(&hf);
        let (x, y) = (4.0 + o[0] * 24.0, 4.0 + o[1] * 24.0);
        // A fifth of the centers lie on the surface itself (to rounding), where either side of the
        // triangle below may be the one reported.
        let lift = if o[2] < 0.2 { 0.0 } else { o[2] * r };
        let c = DVec3::new(x, y, hf.height_at(x, y).unwrap() + lift);
        let v = DVec3::from_array(d).normalize_or_zero() * len;
        let naive = tree.sweep_all(c, r, v).expect("a sphere this low touches the ground");
        let facing = |h: landfall::collide::TerrainContact| h.contact.face.dot(-v);
        let base = TerrainSweep(&hf);
        let region = Aabb::new(c - DVec3::splat(r + len + 1.0), c + DVec3::splat(r + len + 1.0));
        let gathered = Nearby::with(&base, region, |near| near.sweep(c, r, v));
        for (name, h) in [("tree", tree.sweep(c, r, v)), ("terrain", base.sweep(c, r, v)), ("gathered", gathered)] {
            let h = h.expect("the same contact");
            prop_assert!(same_t(Some(h.contact.t), Some(naive.contact.t)), "{name}: t {} vs {}", h.contact.t, naive.contact.t);
            prop_assert!((facing(h) - facing(naive)).abs() <= 1e-12 * (1.0 + len), "{name}: {h:?} vs {naive:?}");
        }
    }
}

#[test]
fn ellipsoids_touch_where_their_surface_does() {
    let ground = PolygonTerrain::builder()
        .polygon(&[
            DVec3::new(-50.0, -50.0, 0.0),
            DVec3::new(50.0, -50.0, 0.0),
            DVec3::new(50.0, 50.0, 0.0),
            DVec3::new(-50.0, 50.0, 0.0),
        ])
        .polygon(&[
            DVec3::new(10.0, -50.0, -1.0),
            DVec3::new(10.0, 50.0, -1.0),
            DVec3::new(10.0, 50.0, 30.0),
            DVec3::new(10.0, -50.0, 30.0),
        ])
        .build()
        .unwrap();
    let tree = SphereTree::from_terrain(&ground);
    let radii = DVec3::new(0.5, 0.5, 2.0);
    // Falling: stops with its center 2 m above the ground.
    let hit = tree.sweep_ellipsoid(DVec3::new(0.0, 0.0, 10.0), radii, DVec3::new(0.0, 0.0, -20.0)).unwrap();
    assert!((10.0 - 20.0 * hit.contact.t - 2.0).abs() < 1e-9 && (hit.contact.normal - DVec3::Z).length() < 1e-12);
    // Walking into the wall at x = 10: stops 0.5 m short.
    let hit = tree.sweep_ellipsoid(DVec3::new(0.0, 0.0, 5.0), radii, DVec3::new(20.0, 0.0, 0.0)).unwrap();
    assert!((20.0 * hit.contact.t - 9.5).abs() < 1e-9 && (hit.contact.normal + DVec3::X).length() < 1e-12);
    // Diagonally onto the ground, the contact point is under the center.
    let hit = tree.sweep_ellipsoid(DVec3::new(0.0, 0.0, 5.0), radii, DVec3::new(2.0, 1.0, -10.0)).unwrap();
    let center = DVec3::new(0.0, 0.0, 5.0) + DVec3::new(2.0, 1.0, -10.0) * hit.contact.t;
    assert!((center.z - 2.0).abs() < 1e-9 && (hit.contact.point - DVec3::new(center.x, center.y, 0.0)).length() < 1e-9);
}

#[test]
fn slides_on_a_heightfield_without_a_tree() {
    let hf = terrain(7, 65);
    let tris = all_triangles(&hf);
    let target = TerrainSweep(&hf);
    for k in 0..200 {
        let (x, y) = (3.0 + (k % 20) as f64 * 2.9, 3.0 + (k / 20) as f64 * 5.7);
        let mut c = DVec3::new(x, y, hf.height_at(x, y).unwrap() + 1.2);
        while distance(&tris, c) < 1.01 {
            c.z += 0.05;
        }
        let v = DVec3::new((k as f64).cos(), (k as f64).sin(), -0.7) * (1.0 + k as f64 * 5.0);
        let res = slide(&target, c, 1.0, v, &SlideParams::default()).unwrap();
        assert!(distance(&tris, res.position) >= 1.0 - 1e-6);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// One sphere against one triangle, against the brute-force distance along the motion: at the
    /// contact the center is r from the triangle (or within r at t = 0), it is never nearer before,
    /// and without a contact it never comes within r. Starts near the triangle and long motions make
    /// edge and vertex contacts late in the motion common.
    #[test]
    fn sphere_sweeps_match_the_sampled_distance(
        c in prop::array::uniform3(-2.5f64..2.5), d in prop::array::uniform3(-1.0f64..1.0), len in 0.05f64..6.0,
        r in 0.05f64..1.0, tri in prop::array::uniform9(-1.5f64..1.5),
    ) {
        let t3 = [DVec3::new(tri[0], tri[1], tri[2]), DVec3::new(tri[3], tri[4], tri[5]), DVec3::new(tri[6], tri[7], tri[8])];
        prop_assume!((t3[1] - t3[0]).cross(t3[2] - t3[0]).length() > 0.05);
        let (c, v) = (DVec3::from_array(c), DVec3::from_array(d).normalize_or_zero() * len);
        prop_assume!(v != DVec3::ZERO);
        let dist = |t: f64| { let p = c + v * t; closest_point(&t3, p).distance(p) };
        let tol = 1e-9 * (1.0 + len);
        let n = 400;
        match sweep_sphere_triangle(c, r, v, &t3, 1.0) {
            Some(h) => {
                if h.t == 0.0 {
                    prop_assert!(dist(0.0) <= r + tol, "contact at 0 but distance {}", dist(0.0));
                } else {
                    prop_assert!((dist(h.t) - r).abs() <= tol, "distance {} at the contact, r {}", dist(h.t), r);
                    prop_assert!((c + v * h.t).distance(h.point) - r <= tol);
                    for k in 0..n {
                        let t = h.t * k as f64 / n as f64;
                        prop_assert!(dist(t) >= r - tol, "distance {} < r {} at t {} before the contact {}", dist(t), r, t, h.t);
                    }
                }
            }
            None => {
                for k in 0..=n {
                    let t = k as f64 / n as f64;
                    prop_assert!(dist(t) >= r - tol, "no contact, yet distance {} < r {} at t {}", dist(t), r, t);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A capsule sweeps like the union of spheres along its axis: its contact comes no later than any
    /// sampled sphere's, and no earlier than the densest sampling's minus the sampling gap; a capsule
    /// of zero length is the sphere.
    #[test]
    fn capsules_sweep_like_their_spheres(
        a in prop::array::uniform3(-2.0f64..2.0), axis in prop::array::uniform3(-1.5f64..1.5), v in prop::array::uniform3(-6.0f64..6.0),
        r in 0.2f64..1.0, tri in prop::array::uniform9(-3.0f64..3.0),
    ) {
        use landfall::collide::sweep_capsule_triangle;
        let t3 = [DVec3::new(tri[0], tri[1], tri[2]), DVec3::new(tri[3], tri[4], tri[5]), DVec3::new(tri[6], tri[7], tri[8])];
        prop_assume!((t3[1] - t3[0]).cross(t3[2] - t3[0]).length() > 0.1);
        let (a, v) = (DVec3::from_array(a) + DVec3::new(0.0, 0.0, 6.0), DVec3::from_array(v));
        let b = a + DVec3::from_array(axis);
        let cap = sweep_capsule_triangle(a, b, r, v, &t3, 1.0);
        let point = sweep_capsule_triangle(a, a, r, v, &t3, 1.0);
        let sphere = sweep_sphere_triangle(a, r, v, &t3, 1.0);
        prop_assert_eq!(point.is_some(), sphere.is_some());
        if let (Some(p), Some(s)) = (point, sphere) {
            prop_assert!((p.t - s.t).abs() < 1e-6, "{} vs {}", p.t, s.t);
        }
        let n = 200;
        let mut first: Option<f64> = None;
        for k in 0..=n {
            let c = a.lerp(b, k as f64 / n as f64);
            if let Some(h) = sweep_sphere_triangle(c, r, v, &t3, 1.0) {
                first = Some(first.map_or(h.t, |f: f64| f.min(h.t)));
            }
        }
        match (cap, first) {
            (Some(c), Some(f)) => {
                prop_assert!(c.t <= f + 1e-6, "capsule {} later than a sphere {}", c.t, f);
                // Every point of the axis is within gap/2 of a sampled center, so the capsule lies in
                // the spheres of radius r + gap/2 around the samples: it cannot touch before they do.
                let gap = a.distance(b) / n as f64;
                let loose = (0..=n)
                    .filter_map(|k| sweep_sphere_triangle(a.lerp(b, k as f64 / n as f64), r + gap, v, &t3, 1.0))
                    .map(|h| h.t)
                    .fold(f64::INFINITY, f64::min);
                prop_assert!(c.t >= loose - 1e-6, "capsule {} earlier than possible ({})", c.t, loose);
            }
            (None, Some(f)) => prop_assert!(false, "capsule missed, a sphere hit at {}", f),
            _ => {}
        }
    }
}

#[test]
fn capsules_on_terrains() {
    let hf = terrain(9, 33);
    let tree = SphereTree::from_terrain(&hf);
    // A lying capsule dropped on the terrain: tree and candidates agree, and the capsule ends r above.
    for k in 0..100 {
        let (x, y) = (4.0 + (k % 10) as f64 * 2.5, 4.0 + (k / 10) as f64 * 2.5);
        let a = DVec3::new(x, y, 40.0);
        let b = a + DVec3::new(1.5, 0.5, 0.0);
        let v = DVec3::new(0.0, 0.0, -60.0);
        let (p, q) = (tree.sweep_capsule(a, b, 0.4, v), TerrainSweep(&hf).sweep_capsule(a, b, 0.4, v));
        let (p, q) = (p.unwrap(), q.unwrap());
        assert!((p.contact.t - q.contact.t).abs() < 1e-9);
        let (d, _, _) = all_triangles(&hf)
            .iter()
            .map(|t| landfall::collide::segment_triangle_distance(a + v * p.contact.t, b + v * p.contact.t, t))
            .fold((f64::INFINITY, DVec3::ZERO, DVec3::ZERO), |m, x| if x.0 < m.0 { x } else { m });
        assert!((d - 0.4).abs() < 1e-6, "distance at contact {d}");
    }
}

/// One case of `slides_never_end_inside_or_tunnel`: a slide from a valid start over terrain `seed`
/// ends clear of the terrain, and a slightly smaller sphere swept along each piece of its path
/// touches nothing.
fn check_slide(seed: u64, r: f64, o: [f64; 2], d: [f64; 3], len: f64) -> Result<(), TestCaseError> {
    let hf = terrain(seed, 33);
    let tree = SphereTree::from_terrain(&hf);
    let tris = all_triangles(&hf);
    let (x, y) = (o[0] * 32.0, o[1] * 32.0);
    // A valid start: clear of the terrain by at least 1 cm.
    let mut c = DVec3::new(x, y, hf.height_at(x, y).unwrap() + r + 0.01);
    while distance(&tris, c) < r + 0.01 {
        c.z += 0.05;
    }
    let v = DVec3::from_array(d).normalize_or_zero() * len;
    let res = slide(&tree, c, r, v, &SlideParams::default()).unwrap();
    prop_assert!(distance(&tris, res.position) >= r - 1e-6, "ended at distance {}", distance(&tris, res.position));
    for w in res.path[..=res.pieces].windows(2) {
        let hit = tree.sweep_all(w[0], r * (1.0 - 1e-6), w[1] - w[0]);
        prop_assert!(hit.is_none(), "piece {:?} touches: {:?}", w, hit);
    }
    Ok(())
}

/// A random case (found in the session from e5ff417) whose swept motion grazes a grid edge at
/// y = 25 with less than the skin to spare. When the slide backed off its contacts along the normal,
/// the recorded piece (straight to the backed-off point) left the swept line and passed 0.38 mm
/// inside that edge; backed off along the motion, it stays on the line.
#[test]
fn slide_piece_off_the_swept_line() {
    let d = [0.2833003186004131, 0.557663081312154, -0.8746649543112447];
    check_slide(938, 1.4863850241123058, [0.3969318045419803, 0.7756414162248702], d, 1.0).unwrap();
}

/// A capsule of zero length on a motion that grazes the triangle's edge contacts where its sphere
/// does: the sweep is exact, not an advancement that stops after so many steps (found by
/// `capsules_sweep_like_their_spheres`: 0.91843 against 0.91882).
#[test]
fn a_point_capsule_grazing_an_edge_is_its_sphere() {
    use landfall::collide::sweep_capsule_triangle;
    let a = DVec3::new(-0.5913946206174798, 0.23726937397014286, -1.9841151844976068 + 6.0);
    let v = DVec3::new(-0.568597790385662, 1.538293792273236, -5.102122198492724);
    let r = 0.5855161872895227;
    let t3 = [
        DVec3::new(-0.6000384335062114, 1.5758209942107027, 1.7787635579812882),
        DVec3::new(-1.0472368398977145, 2.426241692302343, -1.248555921686063),
        DVec3::new(2.856531983732823, 0.0, -2.640088677054749),
    ];
    let sphere = sweep_sphere_triangle(a, r, v, &t3, 1.0).expect("the sphere touches");
    let point = sweep_capsule_triangle(a, a, r, v, &t3, 1.0).expect("the capsule touches");
    assert!((point.t - sphere.t).abs() < 1e-12, "{} vs {}", point.t, sphere.t);
    assert!(point.point.distance(sphere.point) < 1e-9);
}

/// `slide` refuses parameters out of range, naming the field (it used to clamp
/// `max_iterations` to the contact limit and take any skin).
#[test]
fn slide_refuses_invalid_params() {
    let flat = PolygonTerrain::builder()
        .polygon(&[DVec3::new(-9.0, -9.0, 0.0), DVec3::new(9.0, -9.0, 0.0), DVec3::new(0.0, 9.0, 0.0)])
        .build()
        .unwrap();
    let tree = SphereTree::from_terrain(&flat);
    let run = |p: SlideParams| slide(&tree, DVec3::new(0.0, 0.0, 2.0), 1.0, DVec3::new(1.0, 0.0, -3.0), &p);
    for skin in [f64::NAN, -1e-3, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(run(SlideParams::default().with_skin(skin)).unwrap_err().field, "skin", "skin {skin}");
    }
    for n in [0, SlideParams::MAX_ITERATIONS + 1, usize::MAX] {
        let e = run(SlideParams::default().with_max_iterations(n)).unwrap_err();
        assert_eq!(e.field, "max_iterations", "{n}: {e}");
    }
    let edges = [
        SlideParams::default().with_skin(0.0),
        SlideParams::default().with_max_iterations(SlideParams::MAX_ITERATIONS),
    ];
    for p in edges {
        assert!(run(p).unwrap().contact_count >= 1, "{p:?}");
    }
}
