//! The motions the collision benchmarks and their checks share: random sweeps over a terrain, and
//! the crowd of walkers.

use glam::DVec3;
use landfall::support::SplitMix64;
use landfall::Terrain;

/// Gravity's part of one 60 fps frame of a crowd walker (the benchmark's: 10 g over a frame's
/// time, so that walkers settle within a few frames).
pub const CROWD_GRAVITY_STEP: DVec3 = DVec3::new(0.0, 0.0, -9.81 / 60.0 / 60.0 * 10.0);

/// `n` sweeps `(start, motion)`: from 2 m above random ground points of `t`, in random directions
/// (mostly downward), 0.5–20 m long; seeded.
pub fn sweep_motions(t: &dyn Terrain, n: usize, seed: u64) -> Vec<(DVec3, DVec3)> {
    let b = t.bounds();
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (x, y) = (rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
        let Some(g) = t.top_surface(DVec3::new(x, y, b.max.z + 1.0)) else { continue };
        let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.3)).normalize_or_zero();
        out.push((g.point + DVec3::Z * 2.0, d * rng.range(0.5, 20.0)));
    }
    out
}

/// `n` walkers `(position, horizontal unit direction)`: 0.6 m above random ground points of `t`
/// (the sweeps' starts, seeded alike), facing a random horizontal direction.
fn walkers(t: &dyn Terrain, n: usize, seed: u64) -> impl Iterator<Item = (DVec3, DVec3)> {
    sweep_motions(t, n, seed)
        .into_iter()
        .map(|(c0, v)| (c0 - DVec3::Z * 1.4, DVec3::new(v.x, v.y, 0.0).normalize_or_zero()))
}

/// The crowd benchmark's `n` walkers `(position, walk per frame)`: 0.6 m above random ground points
/// of `t` (the sweeps' starts, seeded alike), walking 1.5 m/s at 60 fps in a random horizontal
/// direction.
pub fn crowd(t: &dyn Terrain, n: usize, seed: u64) -> Vec<(DVec3, DVec3)> {
    walkers(t, n, seed).map(|(p, dir)| (p, dir * (1.5 / 60.0))).collect()
}

/// A crowd walker between frames: position, walk per frame, grounded (as its last move reported).
pub type Walker = (DVec3, DVec3, bool);

/// How many frames the crowd benchmark's walkers have walked when its timing starts (10 s at 60
/// fps). The cost of a frame grows as walkers gather in valleys and against slopes (on gen1025, ~1.4
/// µs per move over the first second, ~1.8 µs after ten), so a frame is timed at a fixed age rather
/// than at whatever age the number of iterations reached.
pub const CROWD_AGE_FRAMES: usize = 600;

/// The timed window: frames `CROWD_AGE_FRAMES..CROWD_AGE_FRAMES + CROWD_WINDOW_FRAMES`, replayed
/// from a snapshot as often as the timing needs.
pub const CROWD_WINDOW_FRAMES: usize = 60;

/// The crowd benchmark's walkers (see [`crowd`]), not yet grounded.
pub fn crowd_walkers(t: &dyn Terrain, n: usize, seed: u64) -> Vec<Walker> {
    crowd(t, n, seed).into_iter().map(|(p, walk)| (p, walk, false)).collect()
}

/// One 60 fps frame of the crowd: every walker moves by its walk plus [`CROWD_GRAVITY_STEP`], on
/// all of rayon's threads when `parallel`, else on this one.
pub fn crowd_frame(
    t: &dyn Terrain,
    controller: &landfall::collide::CharacterController,
    walkers: &mut [Walker],
    parallel: bool,
) {
    use rayon::prelude::*;
    let step = |(p, v, grounded): &mut Walker| {
        let m = controller.move_by(&landfall::collide::TerrainSweep(t), *p, *v + CROWD_GRAVITY_STEP, *grounded);
        (*p, *grounded) = (m.position, m.grounded);
    };
    if parallel {
        walkers.par_iter_mut().with_min_len(64).for_each(step);
    } else {
        walkers.iter_mut().for_each(step);
    }
}

/// `n` bodies `(position, heading)` that `landfall::place` accepts with `params`: the starts of
/// [`sweep_motions`] (2 m above random ground points), heading along the motion, those refused
/// (steep, blocked, over a hole) skipped — so that a placement benchmark times placements, not
/// early refusals.
pub fn placeable(t: &dyn Terrain, n: usize, seed: u64, params: &landfall::FollowParams) -> Vec<(DVec3, f64)> {
    let mut out = Vec::with_capacity(n);
    for round in 0..64 {
        let batch = sweep_motions(t, n, seed.wrapping_add(round));
        let bodies = batch.into_iter().map(|(c0, v)| (c0, v.y.atan2(v.x)));
        out.extend(bodies.filter(|&(p, h)| landfall::place(t, p, h, params).is_ok()).take(n - out.len()));
        if out.len() == n {
            return out;
        }
    }
    panic!("only {} of {n} bodies could be placed on this terrain in 64 rounds", out.len());
}

/// The controller benchmark's `n` fresh moves `(position, desired)`: the crowd's walkers (see
/// [`crowd`]) walking 5 cm with 10 cm of gravity. On steep ground such a start is
/// embedded (on gen1025, 1,901 of 2,048 are within 0.5 m of the surface): a spawn, whose first move
/// pushes the ball out.
pub fn fresh_walk(t: &dyn Terrain, n: usize, seed: u64) -> Vec<(DVec3, DVec3)> {
    walkers(t, n, seed).map(|(p, dir)| (p, dir * 0.05 - DVec3::Z * 0.1)).collect()
}

/// [`fresh_walk`] after five moves of `controller` on `target`, as `(position, desired, grounded)`:
/// each move then starts where a walking character is between frames (resting on the ground or
/// sliding down a slope too steep to stand on, not embedded), with the grounded state its last move
/// reported — what a game passes back in, as the crowd benchmark does.
pub fn settled_walk(
    t: &dyn Terrain,
    target: &dyn landfall::collide::SweepTarget,
    controller: &landfall::collide::CharacterController,
    n: usize,
    seed: u64,
) -> Vec<(DVec3, DVec3, bool)> {
    let mut walk: Vec<(DVec3, DVec3, bool)> = fresh_walk(t, n, seed).into_iter().map(|(p, d)| (p, d, true)).collect();
    for (p, d, grounded) in &mut walk {
        for _ in 0..5 {
            let m = controller.move_by(target, *p, *d, *grounded);
            (*p, *grounded) = (m.position, m.grounded);
        }
    }
    walk
}
