//! The standard workloads, seeded and deterministic, so that the demo, the benchmarks and users'
//! own measurements cast exactly the same points and rays: random points, vertical rays, oblique
//! rays from above, line-of-sight rays between points 2 m above the ground, the diagonal.

use super::Heightfield;
use crate::geom::Ray;
use crate::rng::SplitMix64;
use glam::DVec3;

/// A ray with its `max_t`.
pub type RaySet = Vec<(Ray, f64)>;

fn point(hf: &Heightfield, rng: &mut SplitMix64) -> (f64, f64) {
    let b = hf.bounds();
    (rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y))
}

/// Random points over the grid.
pub fn points(hf: &Heightfield, n: usize, seed: u64) -> Vec<[f64; 2]> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| point(hf, &mut rng)).map(|(x, y)| [x, y]).collect()
}

/// Straight down from 10 m above the highest sample.
pub fn vertical(hf: &Heightfield, n: usize, seed: u64) -> RaySet {
    let top = hf.bounds().max.z + 10.0;
    points(hf, n, seed)
        .into_iter()
        .map(|[x, y]| (Ray::new(DVec3::new(x, y, top), DVec3::NEG_Z), f64::INFINITY))
        .collect()
}

/// From 1–100 m above the highest sample, 10–80° downward, random azimuth.
pub fn oblique(hf: &Heightfield, n: usize, seed: u64) -> RaySet {
    let mut rng = SplitMix64::new(seed);
    let top = hf.bounds().max.z;
    (0..n)
        .map(|_| {
            let (x, y) = point(hf, &mut rng);
            let z = top + rng.range(1.0, 100.0);
            let (az, el) = (rng.range(0.0, std::f64::consts::TAU), rng.range(10.0, 80.0).to_radians());
            let dir = DVec3::new(az.cos() * el.cos(), az.sin() * el.cos(), -el.sin());
            (Ray::new(DVec3::new(x, y, z), dir), f64::INFINITY)
        })
        .collect()
}

/// Between two random points 2 m above the ground; `max_t` = 1 (their distance).
pub fn line_of_sight(hf: &Heightfield, n: usize, seed: u64) -> RaySet {
    let mut rng = SplitMix64::new(seed);
    let above = |rng: &mut SplitMix64| loop {
        let (x, y) = point(hf, rng);
        if let Some(z) = hf.height_at(x, y) {
            break DVec3::new(x, y, z + 2.0);
        }
    };
    (0..n)
        .map(|_| {
            let (a, b) = (above(&mut rng), above(&mut rng));
            (Ray::new(a, b - a), 1.0)
        })
        .collect()
}

/// The hypotenuse: from the south-west corner to the north-east corner, level, 5 cm above the
/// highest point of the terrain along that line (every library must cross the whole grid).
pub fn diagonal(hf: &Heightfield) -> RaySet {
    let b = hf.bounds();
    let steps = 8 * hf.nx().max(hf.ny());
    let top = (0..=steps)
        .filter_map(|k| {
            let f = k as f64 / steps as f64;
            hf.height_at(b.min.x + f * (b.max.x - b.min.x), b.min.y + f * (b.max.y - b.min.y))
        })
        .fold(f64::MIN, f64::max);
    // The profile is piecewise linear with breakpoints finer than the steps: add the largest rise
    // one step can hide, bounded by the relief, plus 5 cm.
    let z = top + 0.05 + (b.max.z - b.min.z) / steps as f64;
    let o = DVec3::new(b.min.x, b.min.y, z);
    vec![(Ray::new(o, DVec3::new(b.max.x - b.min.x, b.max.y - b.min.y, 0.0)), 1.0)]
}
