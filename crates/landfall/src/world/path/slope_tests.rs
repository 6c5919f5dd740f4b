//! Slope cells read at their corners against brute force: every cell's corners and centre asked of
//! the ground on their own, its diagonal found from its own global index, on random heightfields
//! with ridges along the cells' lines, holes and planes at the limit; cells of 1 m or less read
//! exactly as before.

use super::{steep, SlopeGrid, EXACT_UP_TO};
use crate::rng::SplitMix64;
use crate::Heightfield;
use glam::{DVec2, DVec3};
use proptest::prelude::*;

/// Whether cell (i, j) of the grid of `n` cells of side `g` from `origin` is blocked at its
/// corners: ground missing at a corner or at the centre, or either of its two triangles (split as
/// `Alternating` splits the global cell) steeper than `max_slope`.
fn brute(ground: &Heightfield, origin: DVec2, g: f64, i: usize, j: usize, max_slope: f64) -> bool {
    use crate::Terrain;
    let lo = origin + DVec2::new(i as f64, j as f64) * g;
    let z = |p: DVec2| ground.top_surface(p.extend(0.0)).map(|s| p.extend(s.point.z));
    let corners = [lo, lo + DVec2::new(g, 0.0), lo + DVec2::splat(g), lo + DVec2::new(0.0, g)];
    let Some(q) = corners.iter().map(|&p| z(p)).collect::<Option<Vec<DVec3>>>() else { return true };
    if z(lo + 0.5 * g).is_none() {
        return true;
    }
    let global = ((lo + 0.5 * g) / g).floor();
    let even = (global.x + global.y).rem_euclid(2.0) == 0.0;
    let cos = max_slope.cos();
    let tris = if even { [[q[0], q[1], q[3]], [q[1], q[2], q[3]]] } else { [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] };
    tris.into_iter().any(|t| steep(t, cos))
}

/// A random field of `m × m` samples `s` apart: gentle noise, ridges along sample columns and rows
/// (on the slope cells' lines when `s` divides them), holes, and planes rising exactly at 45°.
fn field(rng: &mut SplitMix64, m: usize, s: f64, ridges: usize, holes: usize, planes: bool) -> Heightfield {
    let mut h: Vec<f32> = (0..m * m).map(|_| rng.range(0.0, 0.2 * s) as f32).collect();
    for _ in 0..ridges {
        let k = (rng.uniform() * m as f64) as usize % m;
        let tall = rng.range(0.5, 3.0) as f32;
        let along_x = rng.uniform() < 0.5;
        for t in 0..m {
            let at = if along_x { k * m + t } else { t * m + k };
            h[at] += tall;
        }
    }
    if planes {
        // A ramp z = x over a band of rows: exactly at 45°.
        let (j0, j1) = ((rng.uniform() * m as f64) as usize % m, (rng.uniform() * m as f64) as usize % m);
        for j in j0.min(j1)..=j0.max(j1) {
            for i in 0..m {
                h[j * m + i] = (i as f64 * s) as f32;
            }
        }
    }
    for _ in 0..holes {
        let k = (rng.uniform() * (m * m) as f64) as usize % (m * m);
        h[k] = f32::NAN;
    }
    Heightfield::builder(m, m, h).spacing(s, s).build().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Cells wider than a metre: every cell as brute force says, and the prefix sums count them.
    #[test]
    fn corner_sampled_cells_match_brute_force(
        seed in any::<u64>(),
        s in prop::sample::select(vec![0.25, 0.5, 1.0, 2.0]),
        g in prop::sample::select(vec![2.0, 4.0, 8.0]),
        ridges in 0usize..6,
        holes in 0usize..8,
        planes in any::<bool>(),
        limit in prop::sample::select(vec![20.0f64, 35.0, 45.0]),
        shift in -3i64..3,
    ) {
        let mut rng = SplitMix64::new(seed);
        let m = 33;
        let ground = field(&mut rng, m, s, ridges, holes, planes);
        // The grid starts a few cells off the field's corner, either side, and runs past its end.
        let origin = DVec2::new(shift as f64, (shift / 2) as f64) * g;
        let n = (((m - 1) as f64 * s - origin.x.min(origin.y)) / g).ceil() as usize + 1;
        let max_slope = limit.to_radians();
        let grid = SlopeGrid::new(&ground, origin, g, n, 0, max_slope);
        let mut count = 0;
        for j in 0..n {
            for i in 0..n {
                let want = brute(&ground, origin, g, i, j, max_slope);
                prop_assert_eq!(grid.blocked(i, j), want, "cell ({}, {}) of {} m", i, j, g);
                count += u32::from(want);
            }
        }
        prop_assert_eq!(grid.count(0, 0, n, n), count);
    }
}

/// The triangle test: a plane rising `rise` over 1 m is steep exactly when steeper than the limit,
/// away from it by more than rounding.
#[test]
fn steep_is_the_angle() {
    for (rise, limit, want) in
        [(0.6, 35.0, false), (0.8, 35.0, true), (1.0, 44.9, true), (1.0, 45.1, false), (0.0, 1.0, false)]
    {
        let t = [DVec3::ZERO, DVec3::new(1.0, 0.0, rise), DVec3::new(0.0, 1.0, 0.0)];
        assert_eq!(steep(t, f64::to_radians(limit).cos()), want, "rise {rise}, limit {limit}");
    }
    // Degenerate: never steep.
    assert!(!steep([DVec3::ZERO, DVec3::X, DVec3::X * 2.0], 0.5));
}

/// A ridge one sample wide between the corners of 4 m cells blocks the 1 m cells it meets (read
/// exactly) and none of the 4 m cells (read at their corners); a ridge through the 4 m cells'
/// corners blocks them.
#[test]
fn roughness_below_the_cell_is_not_seen() {
    let m = 33;
    let mut h = vec![0f32; m * m];
    for j in 0..m {
        h[j * m + 6] = 4.0; // x = 6: between the 4 m cells' lines
        h[j * m + 20] = 4.0; // x = 20: on one
    }
    let ground = Heightfield::builder(m, m, h).build().unwrap();
    let limit = 35f64.to_radians();
    let fine = SlopeGrid::new(&ground, DVec2::ZERO, EXACT_UP_TO, 32, 0, limit);
    assert!(fine.blocked(5, 10) && fine.blocked(6, 10) && fine.blocked(19, 10) && !fine.blocked(10, 10));
    let coarse = SlopeGrid::new(&ground, DVec2::ZERO, 4.0, 8, 0, limit);
    assert!(!coarse.blocked(1, 3), "x = 4..8: the ridge at 6 is below the cell");
    assert!(coarse.blocked(4, 3) && coarse.blocked(5, 3), "x = 16..24: the ridge at 20 is a corner");
    assert_eq!(coarse.count(0, 0, 8, 8), 16);
}
