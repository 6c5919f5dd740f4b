//! The sweep's culling (blocks of a column decided hidden from the pyramid's height bound before
//! they are loaded, and their strip cells left out of the horizon) against the exact walk of every
//! target: terrains with wide hidden areas (craters, saw-tooth ridges across the octant borders,
//! level terraces with lips, generated relief), pyramid leaves of every size so that blocks
//! straddle the octant borders and the grid's edges, holes (a pyramid node of holes too),
//! curvature, eyes on vertices and edges, distance, azimuth and pitch limits; and the counts of one
//! observer against its visibility. (Debug builds also check every block's horizon bound that the
//! sweep inherits from the column before against the horizon.)

use crate::viewshed_sweep::{agree, eye_position};
use landfall::bench::synth::{generate, SynthParams};
use landfall::support::SplitMix64;
use landfall::viewshed::{
    viewshed, Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN, NODATA, VISIBLE,
};
use landfall::{Diagonal, Heightfield};
use proptest::prelude::*;

/// Heights with wide hidden areas: generated relief, a crater (a ring ridge), level terraces with
/// lips, or saw-tooth ridges along a diagonal growing with the distance from the centre.
fn heights(rng: &mut SplitMix64, shape: u8, nx: usize, ny: usize, seed: u64) -> Vec<f32> {
    match shape {
        0 => generate(nx, ny, &SynthParams { seed, relief: 300.0, feature: 24.0, octaves: 5 }),
        1 => {
            let (ci, cj) = (rng.range(0.3, 0.7) * nx as f64, rng.range(0.3, 0.7) * ny as f64);
            let r = rng.range(4.0, 12.0);
            (0..nx * ny)
                .map(|k| {
                    let (i, j) = ((k % nx) as f64, (k / nx) as f64);
                    let d = ((i - ci).powi(2) + (j - cj).powi(2)).sqrt();
                    (60.0 - 6.0 * (d - r).abs() + rng.range(0.0, 2.0)).max(0.0) as f32
                })
                .collect()
        }
        3 => {
            // Level terraces stepping down from a centre, each with a lip at its outer edge: an eye
            // at height 0 on a terrace ties with every sample of it, and the lips hide the terraces
            // below for many columns (blocks stay quiet from column to column).
            let (ci, cj) = ((rng.next_u64() % nx as u64) as i64, (rng.next_u64() % ny as u64) as i64);
            let w = 3 + (rng.next_u64() % 5) as i64;
            (0..nx * ny)
                .map(|k| {
                    let (i, j) = ((k % nx) as i64, (k / nx) as i64);
                    let d = (i - ci).abs().max((j - cj).abs());
                    let lip = if d % w == w - 1 { 1.0 } else { 0.0 };
                    (40.0 - 4.0 * (d / w) as f32 + lip).max(0.0)
                })
                .collect()
        }
        _ => {
            let anti = rng.next_u64().is_multiple_of(2);
            let (ci, cj) = ((nx / 2) as i64, (ny / 2) as i64);
            (0..nx * ny)
                .map(|k| {
                    let (i, j) = ((k % nx) as i64, (k / nx) as i64);
                    let s = if anti { i + j } else { i - j };
                    let d = ((i - ci).abs().max((j - cj).abs())) as f32;
                    if s.rem_euclid(3) == 0 {
                        2.0 * d
                    } else {
                        0.5 * d
                    }
                })
                .collect()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn culled_blocks_agree_with_the_walk(
        seed in any::<u64>(),
        shape in 0u8..4,
        leaf in prop_oneof![Just(1usize), Just(2), Just(3), Just(8), Just(16)],
        holes in 0u8..3,
        place in 0u64..5,
        eye in prop_oneof![Just(0.0), Just(1.75), 0.0..40.0f64],
        target in prop_oneof![Just(0.0), 0.0..5.0f64],
        diagonal in 0usize..3,
        limits in 0u8..5,
    ) {
        let mut rng = SplitMix64::new(seed);
        let (nx, ny) = (40 + (rng.next_u64() % 50) as usize, 40 + (rng.next_u64() % 50) as usize);
        let mut h = heights(&mut rng, shape, nx, ny, seed);
        let mut mask = Vec::new();
        if holes == 1 {
            for _ in 0..6 {
                let k = (rng.next_u64() % h.len() as u64) as usize;
                h[k] = f32::NAN;
            }
            mask = vec![false; (nx - 1) * (ny - 1)];
            for _ in 0..6 {
                let c = (rng.next_u64() % mask.len() as u64) as usize;
                mask[c] = true;
            }
        } else if holes == 2 {
            // A rectangle of holes as wide as two nodes of the largest leaves.
            let (i0, j0) = ((rng.next_u64() % (nx as u64 - 20)) as usize, (rng.next_u64() % (ny as u64 - 20)) as usize);
            for j in j0..j0 + 20 {
                for i in i0..i0 + 20 {
                    h[j * nx + i] = f32::NAN;
                }
            }
        }
        let curvature = limits == 4;
        // Kilometre cells make the curvature matter.
        let (dx, dy) = if curvature { (900.0, 1100.0) } else { [(10.0, 10.0), (7.0, 13.0)][(rng.next_u64() % 2) as usize] };
        let h: Vec<f32> = if curvature { h.iter().map(|z| z * 20.0).collect() } else { h };
        let diag = [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest][diagonal];
        let mut b = Heightfield::builder(nx, ny, h).spacing(dx, dy).origin(-3.0, 5.0).diagonal(diag).leaf_size(leaf);
        if !mask.is_empty() {
            b = b.hole_mask(mask);
        }
        let hf = b.build().unwrap();
        let obs = eye_position(&mut rng, &hf, place);
        if hf.height_at(obs[0], obs[1]).is_none() {
            return Ok(()); // over a hole
        }
        let mut p = ViewshedParams::default().with_observer_height(eye).with_target_height(target).with_curvature(curvature);
        match limits {
            1 => p.max_distance = rng.range(1.0, 60.0) * dx,
            2 => p.azimuths = Some((rng.range(0.0, 360.0), rng.range(0.0, 360.0))),
            3 => {
                let (a, b) = (rng.range(-90.0, 0.0), rng.range(-10.0, 90.0));
                p.pitch = Some((a.min(b), a.max(b)));
            }
            _ => {}
        }
        agree(&hf, obs, &p);
        // One observer's counts (a sequential sweep of whole quadrants) are its visibility.
        let one = [Observer::at(obs[0], obs[1])];
        let (Ok(ViewshedOutput::Counts(c)), Ok(ViewshedOutput::Visibility(v, _))) = (
            viewshed(&hf, &one, &p, ViewshedMode::Count, &Hooks::default()),
            viewshed(&hf, &one, &p, ViewshedMode::Visibility, &Hooks::default()),
        ) else {
            panic!("counts and visibility")
        };
        for (k, (&n, &x)) in c.values.iter().zip(&v.values).enumerate() {
            let want = match x {
                VISIBLE => Some(1),
                HIDDEN => Some(0),
                NODATA => None,
                _ => unreachable!(),
            };
            prop_assert_eq!(n, want, "sample {}", k);
        }
    }
}

#[test]
fn a_crater_hides_the_plain_around_it() {
    // From the crater's floor only its inner slopes and rim are seen: nearly every block beyond
    // the rim is culled, across every octant border, from eyes on a vertex, an edge and a cell.
    let n = 161;
    let h: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f64 - 80.0, (k / n) as f64 - 80.0);
            let d = (i * i + j * j).sqrt();
            (100.0 - 8.0 * (d - 20.0).abs()).max(0.0) as f32
        })
        .collect();
    for leaf in [4, 8, 32] {
        let hf = Heightfield::builder(n, n, h.clone()).spacing(10.0, 10.0).leaf_size(leaf).build().unwrap();
        for obs in [[800.0, 800.0], [805.0, 800.0], [803.0, 807.0]] {
            let p = ViewshedParams::default().with_observer_height(1.75);
            agree(&hf, obs, &p);
            let ViewshedOutput::Visibility(v, _) =
                viewshed(&hf, &[Observer::at(obs[0], obs[1])], &p, ViewshedMode::Visibility, &Hooks::default())
                    .unwrap()
            else {
                panic!()
            };
            let seen = v.values.iter().filter(|&&x| x == VISIBLE).count();
            assert!(seen < n * n / 5, "{seen} visible");
        }
    }
}
