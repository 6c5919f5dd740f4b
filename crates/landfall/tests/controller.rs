//! The character controller: stairs up to the step height and not above, slopes above the climb
//! angle refused, no jitter at rest on a walkable slope, snapping downhill, never inside the terrain.

use glam::DVec3;
use landfall::collide::Shape;
use landfall::collide::{closest_point, segment_triangle_distance, CharacterController, ControllerParams, SphereTree};
use landfall::PolygonTerrain;

fn quad(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Vec<DVec3> {
    vec![a, b, c, d]
}

/// Stairs along +x: a floor for x < 0, then `n` steps of `rise` with 1 m treads, 20 m wide.
fn stairs(rise: f64, n: usize) -> PolygonTerrain {
    let (y0, y1) = (-10.0, 10.0);
    let mut polys = vec![quad(
        DVec3::new(-10.0, y0, 0.0),
        DVec3::new(0.0, y0, 0.0),
        DVec3::new(0.0, y1, 0.0),
        DVec3::new(-10.0, y1, 0.0),
    )];
    for k in 0..n {
        let (x, z0, z1) = (k as f64, k as f64 * rise, (k + 1) as f64 * rise);
        polys.push(quad(DVec3::new(x, y0, z0), DVec3::new(x, y1, z0), DVec3::new(x, y1, z1), DVec3::new(x, y0, z1)));
        polys.push(quad(
            DVec3::new(x, y0, z1),
            DVec3::new(x + 1.0, y0, z1),
            DVec3::new(x + 1.0, y1, z1),
            DVec3::new(x, y1, z1),
        ));
    }
    PolygonTerrain::builder().polygons(&polys).build().unwrap()
}

/// A floor for x < 0 and a ramp of `deg` degrees rising along +x for 20 m.
fn ramp(deg: f64) -> PolygonTerrain {
    let h = 20.0 * deg.to_radians().tan();
    let floor = quad(
        DVec3::new(-20.0, -10.0, 0.0),
        DVec3::new(0.0, -10.0, 0.0),
        DVec3::new(0.0, 10.0, 0.0),
        DVec3::new(-20.0, 10.0, 0.0),
    );
    let slope = quad(
        DVec3::new(0.0, -10.0, 0.0),
        DVec3::new(20.0, -10.0, h),
        DVec3::new(20.0, 10.0, h),
        DVec3::new(0.0, 10.0, 0.0),
    );
    PolygonTerrain::builder().polygon(&floor).polygon(&slope).build().unwrap()
}

fn triangles(tree: &SphereTree) -> Vec<[DVec3; 3]> {
    tree.nodes().iter().filter(|n| n.children == 0).flat_map(|n| tree.leaf_triangles(n).to_vec()).collect()
}

/// How far `c`'s shape at `pos` is from the triangles, in units where touching is 0 (negative:
/// inside).
fn clearance(c: &CharacterController, pos: DVec3, tris: &[[DVec3; 3]]) -> f64 {
    let r = c.params.radius;
    match c.params.shape {
        Shape::Sphere => tris.iter().map(|t| closest_point(t, pos).distance(pos)).fold(f64::INFINITY, f64::min) - r,
        Shape::Capsule { half_height } => {
            let h = c.up * half_height;
            tris.iter().map(|t| segment_triangle_distance(pos - h, pos + h, t).0).fold(f64::INFINITY, f64::min) - r
        }
        Shape::Ellipsoid { radii } => {
            // In the space where the ellipsoid is the unit sphere (a lower bound on the true gap).
            let s = |v: DVec3| (v - pos) / radii;
            tris.iter().map(|t| closest_point(&t.map(s), DVec3::ZERO).length()).fold(f64::INFINITY, f64::min) - 1.0
        }
    }
}

/// Walks `frames` frames of `step` plus gravity with the default controller; returns the
/// positions, checking every one is clear of the terrain.
fn walk(t: &PolygonTerrain, start: DVec3, step: DVec3, frames: usize) -> (Vec<DVec3>, Vec<bool>) {
    walk_as(ControllerParams::default(), t, start, step, frames)
}

fn walk_as(
    params: ControllerParams,
    t: &PolygonTerrain,
    start: DVec3,
    step: DVec3,
    frames: usize,
) -> (Vec<DVec3>, Vec<bool>) {
    let tree = SphereTree::from_terrain(t);
    let tris = triangles(&tree);
    let c = CharacterController::new(params, DVec3::Z).expect("valid controller parameters");
    let (mut pos, mut grounded) = (start, false);
    let (mut path, mut ground) = (vec![], vec![]);
    for _ in 0..frames {
        let m = c.move_by(&tree, pos, step + DVec3::new(0.0, 0.0, -0.2), grounded);
        pos = m.position;
        grounded = m.grounded;
        let d = clearance(&c, pos, &tris);
        assert!(d >= -1e-6, "inside the terrain at {pos} (clearance {d})");
        path.push(pos);
        ground.push(grounded);
    }
    (path, ground)
}

#[test]
fn stairs_up_to_the_step_height_are_climbed_and_higher_ones_are_not() {
    let r = ControllerParams::default().radius;
    let (path, ground) = walk(&stairs(0.25, 6), DVec3::new(-3.0, 0.0, r + 0.02), DVec3::new(0.1, 0.0, 0.0), 120);
    // On every tread, before the sphere reaches the next step's edge, the character stands on it.
    for k in 0..6 {
        let on = path
            .iter()
            .zip(&ground)
            .find(|(p, _)| p.x > k as f64 + 0.1 && p.x < k as f64 + 0.45)
            .expect("reached the tread");
        let want = (k + 1) as f64 * 0.25 + r + 0.01;
        assert!((on.0.z - want).abs() < 0.02 && *on.1, "tread {k}: at {} (grounded {}), want z {want}", on.0, on.1);
    }
    let (path, _) = walk(&stairs(0.45, 6), DVec3::new(-3.0, 0.0, r + 0.02), DVec3::new(0.1, 0.0, 0.0), 120);
    let end = *path.last().unwrap();
    assert!(end.x < -r + 0.02 && end.z < r + 0.05, "climbed a 0.45 m step: {end}");
}

#[test]
fn slopes_above_the_climb_angle_are_refused() {
    let r = ControllerParams::default().radius;
    let (path, ground) = walk(&ramp(25.0), DVec3::new(-3.0, 0.0, r + 0.02), DVec3::new(0.1, 0.0, 0.0), 100);
    let end = *path.last().unwrap();
    assert!(end.x > 3.0 && end.z > 1.5, "did not climb 25°: {end}");
    assert!(ground.iter().skip(5).all(|&g| g), "lost the ground on a walkable slope");
    let (path, _) = walk(&ramp(60.0), DVec3::new(-3.0, 0.0, r + 0.02), DVec3::new(0.1, 0.0, 0.0), 100);
    let end = *path.last().unwrap();
    assert!(end.x < 0.5 && end.z < 0.8, "climbed 60°: {end}");
}

/// The options are public: a change between moves takes effect at the next move.
#[test]
fn changed_options_apply_to_the_next_move() {
    let t = ramp(25.0);
    let tree = SphereTree::from_terrain(&t);
    let r = ControllerParams::default().radius;
    let x = 5.0;
    let z = x * 25f64.to_radians().tan() + r / 25f64.to_radians().cos() + 0.005;
    let mut c = CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    let gravity = DVec3::new(0.0, 0.0, -0.1);
    assert!(c.move_by(&tree, DVec3::new(x, 0.0, z), gravity, true).grounded, "25° is walkable at 45°");
    c.params.max_climb = 20f64.to_radians();
    assert!(!c.move_by(&tree, DVec3::new(x, 0.0, z), gravity, true).grounded, "25° is too steep at 20°");
}

#[test]
fn at_rest_on_a_walkable_slope_nothing_moves() {
    let t = ramp(20.0);
    let r = ControllerParams::default().radius;
    let x = 5.0;
    let z = x * 20f64.to_radians().tan() + r / 20f64.to_radians().cos() + 0.05;
    let (path, ground) = walk(&t, DVec3::new(x, 0.0, z), DVec3::ZERO, 100);
    for w in path[10..].windows(2) {
        assert_eq!(w[0], w[1], "jitter at rest");
    }
    assert!(ground[10..].iter().all(|&g| g));
    // On a slope steeper than the slide angle (but still walkable) gravity slides it down.
    let (path, _) = walk(&ramp(40.0), DVec3::new(5.0, 0.0, 5.0 * 40f64.to_radians().tan() + 0.7), DVec3::ZERO, 60);
    assert!(path.last().unwrap().x < 4.0, "should slide down a 40° slope: {}", path.last().unwrap());
}

#[test]
fn walking_downhill_stays_on_the_ground() {
    let r = ControllerParams::default().radius;
    let z = 15.0 * 20f64.to_radians().tan() + r / 20f64.to_radians().cos() + 0.011;
    let (path, ground) = walk(&ramp(20.0), DVec3::new(15.0, 0.0, z), DVec3::new(-0.15, 0.0, 0.0), 80);
    assert!(path.last().unwrap().x < 4.0);
    assert!(ground.iter().skip(2).all(|&g| g), "left the ground walking downhill: {ground:?}");
}

/// Capsules (the usual character shape) and ellipsoids climb steps, are refused by steep slopes and
/// never enter the terrain, standing at their own height.
#[test]
fn capsule_and_ellipsoid_characters() {
    let r = 0.3;
    let capsule = ControllerParams::default().with_shape(Shape::Capsule { half_height: 0.6 }).with_radius(r);
    let ellipsoid = ControllerParams::default().with_shape(Shape::Ellipsoid { radii: DVec3::new(0.5, 0.5, 0.7) });
    for (params, foot) in [(capsule, 0.6 + r), (ellipsoid, 0.7)] {
        let (path, ground) =
            walk_as(params, &stairs(0.25, 6), DVec3::new(-3.0, 0.0, foot + 0.02), DVec3::new(0.1, 0.0, 0.0), 120);
        // On the top tread (before walking off its far end), standing.
        let top = path.iter().zip(&ground).find(|(p, _)| p.x > 5.2 && p.x < 5.6).expect("reached the top tread");
        assert!(
            (top.0.z - (6.0 * 0.25 + foot)).abs() < 0.05 && *top.1,
            "{:?}: did not climb the stairs: {:?}",
            params.shape,
            top
        );
        let (path, _) =
            walk_as(params, &stairs(0.45, 6), DVec3::new(-3.0, 0.0, foot + 0.02), DVec3::new(0.1, 0.0, 0.0), 120);
        assert!(
            path.last().unwrap().z < foot + 0.05,
            "{:?}: climbed a 0.45 m step: {}",
            params.shape,
            path.last().unwrap()
        );
        let (path, ground) =
            walk_as(params, &ramp(20.0), DVec3::new(-3.0, 0.0, foot + 0.02), DVec3::new(0.1, 0.0, 0.0), 100);
        assert!(path.last().unwrap().x > 3.0 && ground.iter().skip(5).all(|&g| g), "{:?}: 20° ramp", params.shape);
        let (path, _) =
            walk_as(params, &ramp(60.0), DVec3::new(-3.0, 0.0, foot + 0.02), DVec3::new(0.1, 0.0, 0.0), 100);
        assert!(path.last().unwrap().z < foot + 0.3, "{:?}: climbed 60°: {}", params.shape, path.last().unwrap());
        // At rest on flat ground the center stands its reach above it.
        let (path, _) = walk_as(params, &ramp(20.0), DVec3::new(-5.0, 0.0, foot + 0.5), DVec3::ZERO, 40);
        let z = path.last().unwrap().z;
        assert!((z - foot - params.skin).abs() < 0.02, "{:?}: rests at {z}, want {}", params.shape, foot + params.skin);
    }
}

/// A floor at z = 0 for x > 0 and a wall rising along the y axis at x = 0 (facing +x).
fn wall_and_floor() -> PolygonTerrain {
    let floor = quad(
        DVec3::new(0.0, -50.0, 0.0),
        DVec3::new(20.0, -50.0, 0.0),
        DVec3::new(20.0, 50.0, 0.0),
        DVec3::new(0.0, 50.0, 0.0),
    );
    let wall = quad(
        DVec3::new(0.0, -50.0, 0.0),
        DVec3::new(0.0, 50.0, 0.0),
        DVec3::new(0.0, 50.0, 5.0),
        DVec3::new(0.0, -50.0, 5.0),
    );
    PolygonTerrain::builder().polygon(&floor).polygon(&wall).build().unwrap()
}

/// Walks 10 frames along the wall of `wall_and_floor` (0.1 m per frame along it, `into` into it) from
/// `gap` off it, standing on the floor; returns how far along the wall it got, checking that it
/// never came inside the wall and stayed on the ground.
fn walk_along_the_wall(gap: f64, into: f64) -> f64 {
    let params = ControllerParams::default();
    let r = params.radius;
    let start = DVec3::new(r + gap, 0.0, r + params.skin);
    let (path, ground) = walk(&wall_and_floor(), start, DVec3::new(-into, 0.1, 0.0), 10);
    let end = *path.last().unwrap();
    assert!(end.x >= r - 1e-9 && ground.iter().all(|&g| g), "{gap} {into}: {end} {ground:?}");
    end.y
}

/// Walking along a wall with a slight turn into it, from closer to it than the skin (where a
/// grazing contact leaves a character): the contact comes late in the motion and the back-off
/// along the motion undoes nearly all of it, but what it gives back along the wall is kept — the
/// character walks on at the speed along the wall instead of creeping.
#[test]
fn a_touch_within_the_skin_still_walks_along_the_wall() {
    // 4 mm from the wall (the skin is 1 cm); 5 mm into the wall per frame.
    let y = walk_along_the_wall(0.004, 0.005);
    assert!(y > 0.95, "crept along the wall: {y}");
}

/// Walking along a wall at a grazing angle (under 0.06° into it, where backing off along the motion
/// gains next to nothing): the character is pushed out to the skin, not left touching the wall and
/// meeting it again at once on every sweep of every frame.
#[test]
fn grazing_a_wall_still_walks_along_it() {
    for (gap, into) in [(1e-4, 1e-5), (0.0, 1e-6), (5e-3, 5e-5)] {
        let y = walk_along_the_wall(gap, into);
        assert!(y > 0.999, "{gap} {into}: stalled at the wall at y = {y}");
    }
}

/// A corridor narrower than the character plus its skin on both sides: the push out from the wall it
/// grazes would cross the other, so it is not taken, and the character never ends inside either.
#[test]
fn a_corridor_narrower_than_the_skin_allows_is_never_entered_by_a_push() {
    let params = ControllerParams::default();
    let r = params.radius;
    let width = 2.0 * r + 0.5 * params.skin;
    let wall = |y: f64| {
        quad(DVec3::new(-50.0, y, 0.0), DVec3::new(50.0, y, 0.0), DVec3::new(50.0, y, 5.0), DVec3::new(-50.0, y, 5.0))
    };
    let floor = quad(
        DVec3::new(-50.0, -5.0, 0.0),
        DVec3::new(50.0, -5.0, 0.0),
        DVec3::new(50.0, 5.0, 0.0),
        DVec3::new(-50.0, 5.0, 0.0),
    );
    let t = PolygonTerrain::builder().polygon(&floor).polygon(&wall(0.0)).polygon(&wall(width)).build().unwrap();
    for into in [1e-5, 1e-3, 0.02] {
        // `walk` checks the clearance after every frame.
        let (path, _) = walk(&t, DVec3::new(0.0, r + 1e-4, r + params.skin), DVec3::new(0.1, -into, 0.0), 20);
        assert!(path.iter().all(|p| p.y >= r - 1e-6 && p.y <= width - r + 1e-6), "{into}: {path:?}");
    }
}

/// A character wedged between a floor and a thin deck over it (spawned there, or left there by an
/// edit), embedded in both, is never pushed out of one through the other, whatever its shape.
#[test]
fn an_embedded_push_never_crosses_another_surface() {
    let deck = 0.45;
    let square =
        |h: f64, z: f64| quad(DVec3::new(-h, -h, z), DVec3::new(h, -h, z), DVec3::new(h, h, z), DVec3::new(-h, h, z));
    let t = PolygonTerrain::builder().polygon(&square(20.0, 0.0)).polygon(&square(5.0, deck)).build().unwrap();
    let tree = SphereTree::from_terrain(&t);
    let shapes = [
        (Shape::Sphere, 0.5),
        (Shape::Capsule { half_height: 0.1 }, 0.4),
        (Shape::Ellipsoid { radii: DVec3::new(0.4, 0.4, 0.5) }, 0.4),
    ];
    for (shape, radius) in shapes {
        let c = CharacterController::new(ControllerParams::default().with_shape(shape).with_radius(radius), DVec3::Z)
            .expect("valid controller parameters");
        for z in [0.15, 0.2, 0.3] {
            for (step, grounded) in [(DVec3::new(0.1, 0.0, -0.2), true), (DVec3::new(0.0, 0.1, 0.05), false)] {
                let m = c.move_by(&tree, DVec3::new(0.0, 0.0, z), step, grounded);
                let p = m.position;
                assert!(p.z > 0.0 && p.z < deck, "{shape:?} from {z}, {step}: crossed to {p}");
            }
        }
        // Away from the deck, the push is taken, even from a center exactly on the floor.
        let m = c.move_by(&tree, DVec3::new(7.0, 0.0, 0.0), DVec3::new(0.1, 0.0, -0.2), true);
        assert!(m.position.z > 0.5 && m.grounded, "{shape:?}: {}", m.position);
    }
}

/// Off the ground the walk and the fall are swept as one motion, and each keeps its own response:
/// a character dropped onto a 60° slope while walking hard into it (fast enough that the slope's
/// own normal would turn the walk uphill) slides down it and never gains height.
#[test]
fn falling_onto_a_steep_slope_while_walking_into_it_never_climbs() {
    let t = ramp(60.0);
    let x = 3.0;
    let start = DVec3::new(x, 0.0, x * 60f64.to_radians().tan() + 1.5);
    let (path, _) = walk(&t, start, DVec3::new(0.5, 0.0, 0.0), 100);
    for w in path.windows(2) {
        assert!(w[1].z <= w[0].z + 1e-9, "climbed from {} to {}", w[0], w[1]);
    }
    let end = *path.last().unwrap();
    assert!(end.x < 0.5 && end.z < 0.6, "did not slide down to the foot: {end}");
}

/// A valley between two 60° slopes whose bottom line falls 1 in 5 toward +y.
fn valley() -> PolygonTerrain {
    let (w, rise) = (5.0, 5.0 * 60f64.to_radians().tan());
    let bottom = |y: f64| -0.2 * y;
    let side = |s: f64| {
        quad(
            DVec3::new(0.0, -20.0, bottom(-20.0)),
            DVec3::new(0.0, 20.0, bottom(20.0)),
            DVec3::new(s * w, 20.0, bottom(20.0) + rise),
            DVec3::new(s * w, -20.0, bottom(-20.0) + rise),
        )
    };
    PolygonTerrain::builder().polygon(&side(-1.0)).polygon(&side(1.0)).build().unwrap()
}

/// Dropped into a V-shaped valley too steep to stand in, a character slides down along its bottom
/// line: pushed back into the side it met before, the rest of its motion follows the crease
/// between the two sides instead of bouncing from one to the other until its sweeps run out.
#[test]
fn a_crease_too_steep_to_stand_in_is_slid_down_along_its_bottom() {
    let (path, _) = walk(&valley(), DVec3::new(0.0, 0.0, 1.5), DVec3::ZERO, 100);
    // Gravity's share along the bottom line (1 in 5) is 0.2 × sin(11.3°) ≈ 0.039 m a frame.
    let end = *path.last().unwrap();
    assert!(end.y > 3.5 && end.x.abs() < 1e-6, "stuck in the crease at {end}");
}

/// A controller is made from validated parameters and a usable "up": anything else is an error
/// naming the field, never a controller that walks NaN.
#[test]
fn controllers_refuse_bad_parameters_and_up() {
    let ok = ControllerParams::default();
    assert!(CharacterController::new(ok, DVec3::new(0.0, 0.0, 3.0)).is_ok_and(|c| c.up == DVec3::Z));
    for (params, field) in [
        (ok.with_radius(f64::NAN), "radius"),
        (ok.with_skin(-0.1), "skin"),
        (ok.with_max_climb(2.0), "max_climb"),
        (ok.with_max_iterations(0), "max_iterations"),
    ] {
        assert_eq!(CharacterController::new(params, DVec3::Z).unwrap_err().field, field);
    }
    for up in [DVec3::ZERO, DVec3::new(f64::NAN, 0.0, 1.0), DVec3::new(f64::INFINITY, 0.0, 0.0)] {
        assert_eq!(CharacterController::new(ok, up).unwrap_err().field, "up");
    }
}
