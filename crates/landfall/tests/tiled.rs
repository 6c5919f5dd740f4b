//! Samples stored per tile (what an index file holds) answer every query exactly as the same samples
//! in rows, bit for bit: vertical queries, rays from every height (both walks), crossings,
//! triangles in a region, the pyramid's nodes; tiles without data store nothing; a tile's tree
//! built from its samples alone is the one a view builds on the whole grid.

use glam::{DVec2, DVec3};
use landfall::bench::synth::{generate, SynthParams};
use landfall::collide::{tile_tree, tile_tree_into, SweepTarget, TileSamples, TileView, TileViewParams};
use landfall::support::SplitMix64;
use landfall::Aabb;
use landfall::{Heightfield, Ray};
use proptest::prelude::*;
use std::sync::Arc;

/// A generated terrain with holes: NaN blocks (a whole tile's worth, some of them) and scattered NaN.
fn terrain(nx: usize, ny: usize, leaf: usize, seed: u64, holes: bool) -> Heightfield {
    let mut h = generate(nx, ny, &SynthParams { seed, ..SynthParams::default() });
    let mut rng = SplitMix64::new(seed);
    if holes {
        for _ in 0..3 {
            let (i0, j0) = ((rng.uniform() * nx as f64) as usize, (rng.uniform() * ny as f64) as usize);
            let (w, hh) = ((rng.uniform() * 300.0) as usize, (rng.uniform() * 300.0) as usize);
            for j in j0..(j0 + hh).min(ny) {
                for i in i0..(i0 + w).min(nx) {
                    h[j * nx + i] = f32::NAN;
                }
            }
        }
        for v in h.iter_mut() {
            if rng.uniform() < 0.001 {
                *v = f32::NAN;
            }
        }
    }
    Heightfield::builder(nx, ny, h).origin(1000.0, -250.0).spacing(2.0, 3.0).leaf_size(leaf).build().unwrap()
}

fn same(rows: &Heightfield, tiles: &Heightfield, seed: u64) -> Result<(), TestCaseError> {
    prop_assert!(tiles.tiling().is_some() && tiles.heights().is_none());
    prop_assert_eq!(rows.nodata_count(), tiles.nodata_count());
    prop_assert_eq!(rows.bounds(), tiles.bounds());
    prop_assert_eq!(rows.triangle_count(), tiles.triangle_count());
    let (pr, pt) = (rows.pyramid(), tiles.pyramid());
    prop_assert_eq!(pr.depth(), pt.depth());
    for k in 0..pr.depth() {
        let (bx, by) = pr.level_size(k);
        prop_assert_eq!((bx, by), pt.level_size(k));
        for bj in 0..by {
            for bi in 0..bx {
                let (a, b) = (pr.node(k, bi, bj), pt.node(k, bi, bj));
                prop_assert!(a == b || (a.0 > a.1 && b.0 > b.1), "level {} node ({}, {}): {:?} {:?}", k, bi, bj, a, b);
            }
        }
    }
    let mut rng = SplitMix64::new(seed);
    let (nx, ny) = (rows.nx(), rows.ny());
    for _ in 0..2000 {
        let (i, j) = ((rng.uniform() * nx as f64) as usize, (rng.uniform() * ny as f64) as usize);
        prop_assert_eq!(rows.sample(i, j).to_bits(), tiles.sample(i, j).to_bits());
    }
    let b = rows.bounds();
    let (o, s) = (rows.origin(), rows.spacing());
    for k in 0..3000 {
        // Random points, and points on sample rows and columns (tile borders among them).
        let (mut x, mut y) = (rng.range(b.min.x - 5.0, b.max.x + 5.0), rng.range(b.min.y - 5.0, b.max.y + 5.0));
        if k % 3 == 0 {
            x = o.x + ((rng.uniform() * nx as f64) as usize) as f64 * s.x;
        }
        if k % 5 == 0 {
            y = o.y + ((rng.uniform() * ny as f64) as usize) as f64 * s.y;
        }
        prop_assert_eq!(rows.surface_at(x, y), tiles.surface_at(x, y));
        // Rays from high above (the stack walk), from near the ground (the stackless walk), level
        // ones and aimed at samples.
        let z = match k % 3 {
            0 => b.max.z + rng.range(1.0, 500.0),
            1 => rng.range(b.min.z, b.max.z),
            _ => b.min.z - 5.0,
        };
        let dir = if k % 4 == 0 {
            let (i, j) = ((rng.uniform() * nx as f64) as usize, (rng.uniform() * ny as f64) as usize);
            let t = rows.sample_position(i, j);
            if t.z.is_nan() {
                DVec3::new(1.0, 0.3, -0.2)
            } else {
                t - DVec3::new(x, y, z)
            }
        } else {
            DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.5, 0.1))
        };
        let ray = Ray::new(DVec3::new(x, y, z), dir);
        prop_assert_eq!(rows.raycast(&ray, 1e6), tiles.raycast(&ray, 1e6), "ray {}", k);
        if k % 50 == 0 {
            let (mut a, mut c) = (Vec::new(), Vec::new());
            rows.crossings(&ray, 0.0, 1e6, |h| {
                a.push(h);
                std::ops::ControlFlow::Continue(())
            });
            tiles.crossings(&ray, 0.0, 1e6, |h| {
                c.push(h);
                std::ops::ControlFlow::Continue(())
            });
            prop_assert_eq!(a, c);
            let r = Aabb::new(DVec3::new(x - 9.0, y - 7.0, b.min.z), DVec3::new(x + 9.0, y + 7.0, z));
            let (mut ta, mut tc) = (Vec::new(), Vec::new());
            rows.triangles_in(&r, |id, t| ta.push((id, t)));
            tiles.triangles_in(&r, |id, t| tc.push((id, t)));
            prop_assert_eq!(ta, tc);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Tiles answer as rows, on grids of one to several tiles a side, leaves of any size.
    #[test]
    fn tiles_answer_as_rows(nx in 2usize..700, ny in 2usize..600, leaf in prop::sample::select(vec![1usize, 3, 5, 8, 16]), seed in any::<u64>(), holes in any::<bool>()) {
        let rows = terrain(nx, ny, leaf, seed, holes);
        let tiles = rows.to_tiles().unwrap();
        same(&rows, &tiles, seed)?;
    }
}

/// Tiles without a valid sample store nothing (they share block 0), the triangles of the whole grid
/// are the rows', and a view's sweeps on the tiles are those on the rows.
#[test]
fn tiles_without_data_store_nothing() {
    let (nx, ny) = (1300, 900);
    let mut h = generate(nx, ny, &SynthParams::default());
    // Only a 300 × 200 patch has data.
    for j in 0..ny {
        for i in 0..nx {
            if !(500..800).contains(&i) || !(300..500).contains(&j) {
                h[j * nx + i] = f32::NAN;
            }
        }
    }
    let rows = Heightfield::builder(nx, ny, h).build().unwrap();
    let tiles = rows.to_tiles().unwrap();
    let t = tiles.tiling().unwrap();
    let with_data =
        (0..t.nty).flat_map(|ty| (0..t.ntx).map(move |tx| (tx, ty))).filter(|&(tx, ty)| tiles.tile_has_data(tx, ty));
    assert_eq!(with_data.count(), 3, "the patch lies across 3 × 1 tiles of {}", t.cells);
    // Three blocks and the shared empty one, against 5 × 4 tiles.
    assert!(tiles.memory_bytes() < rows.memory_bytes() / 3, "{} vs {}", tiles.memory_bytes(), rows.memory_bytes());
    same(&rows, &tiles, 3).unwrap();
    // Every triangle of the whole grid, in the same order, the tiles without data passed over.
    let (mut ta, mut tc) = (Vec::new(), Vec::new());
    rows.triangles_in(&rows.bounds(), |id, t| ta.push((id, t)));
    tiles.triangles_in(&tiles.bounds(), |id, t| tc.push((id, t)));
    assert_eq!(ta.len(), rows.triangle_count());
    assert_eq!(ta, tc);
    let (a, b) = (Arc::new(rows), Arc::new(tiles));
    let mut va = TileView::new(a, TileViewParams::default()).unwrap();
    let mut vb = TileView::new(b, TileViewParams::default()).unwrap();
    va.update(DVec2::new(650.0, 400.0), 300.0);
    vb.update(DVec2::new(650.0, 400.0), 300.0);
    let mut rng = SplitMix64::new(9);
    for _ in 0..500 {
        let c = DVec3::new(rng.range(480.0, 820.0), rng.range(280.0, 520.0), rng.range(-50.0, 300.0));
        let v = DVec3::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0), rng.range(-300.0, 10.0));
        assert_eq!(va.sweep(c, 2.0, v), vb.sweep(c, 2.0, v));
    }
}

/// A tile's tree from its samples alone (what `landfall build` stores) is the tree a view builds on
/// the whole grid, node for node.
#[test]
fn stored_trees_are_the_trees_a_view_builds() {
    for (nx, ny, leaf) in [(700, 530, 8), (300, 260, 5), (258, 600, 16)] {
        let rows = terrain(nx, ny, leaf, nx as u64, true);
        let tiling = landfall::support::Tiling::new(nx, ny, leaf);
        let params = TileViewParams::default().with_tile_cells(tiling.cells);
        let mut view = TileView::new(Arc::new(rows.clone()), params).unwrap();
        view.update(DVec2::ZERO, 1e9);
        let side = tiling.side();
        for tile in view.tiles() {
            let (tx, ty) = (tile.key.0 as usize, tile.key.1 as usize);
            let mut block = vec![f32::NAN; side * side];
            for r in 0..side.min(ny - ty * tiling.cells) {
                for c in 0..side.min(nx - tx * tiling.cells) {
                    block[r * side + c] = rows.sample(tx * tiling.cells + c, ty * tiling.cells + r);
                }
            }
            let t = TileSamples {
                block: &block,
                tiling,
                key: tile.key,
                nx,
                ny,
                origin: rows.origin(),
                spacing: rows.spacing(),
            };
            assert_eq!(tile_tree(&t, &params).unwrap(), tile.nodes(&view), "tile {:?} of {nx} × {ny}", tile.key);
            // The same tree into a reused vector, with the range of the tile's valid samples.
            let mut nodes = vec![tile_tree(&t, &params).unwrap()[0]; 3];
            let range = tile_tree_into(&t, &params, &mut nodes).unwrap();
            assert_eq!(nodes, tile.nodes(&view));
            let valid: Vec<f32> = block.iter().copied().filter(|z| !z.is_nan()).collect();
            let want = (!valid.is_empty()).then(|| {
                [
                    valid.iter().copied().fold(f32::INFINITY, f32::min),
                    valid.iter().copied().fold(f32::NEG_INFINITY, f32::max),
                ]
            });
            assert_eq!(range, want, "tile {:?} of {nx} × {ny}", tile.key);
        }
    }
}
