//! Tiles in the view: sweeps over the view's tile trees equal sweeps over the whole heightfield's
//! triangles (random motions, motions aimed at tile seams' vertices and edges, holes across seams,
//! capsules and ellipsoids); a walker crosses tile borders as on the whole grid; the view holds
//! exactly the tiles near the viewer (against brute force), builds each tree once, and every tree's
//! spheres hold their triangles.

use glam::{DVec2, DVec3};
use landfall::bench::synth::{generate, SynthParams};
use landfall::collide::{CharacterController, ControllerParams, SweepTarget, TerrainSweep, TileView, TileViewParams};
use landfall::{Diagonal, Heightfield, TriangleId};
use proptest::prelude::*;
use std::sync::Arc;

/// An odd-sized terrain (partial edge tiles) with holes straddling tile seams.
fn terrain() -> Arc<Heightfield> {
    let (nx, ny) = (83, 71);
    let p = SynthParams { relief: 12.0, feature: 9.0, seed: 5, ..SynthParams::default() };
    let mut h = generate(nx, ny, &p);
    for (i, j) in [(16, 16), (17, 16), (32, 40), (31, 47), (60, 5)] {
        h[j * nx + i] = f32::NAN;
    }
    Arc::new(Heightfield::builder(nx, ny, h).origin(-40.0, 3.0).spacing(1.0, 1.25).build().unwrap())
}

fn params() -> TileViewParams {
    TileViewParams::default().with_tile_cells(16).with_leaf_cells(4).with_max_levels(20)
}

/// A view holding every tile.
fn full_view(hf: &Arc<Heightfield>) -> TileView {
    let mut v = TileView::new(hf.clone(), params()).unwrap();
    v.update(DVec2::ZERO, 1e9);
    v
}

fn same(
    a: Option<landfall::collide::TerrainContact>,
    b: Option<landfall::collide::TerrainContact>,
) -> Result<(), String> {
    match (a, b) {
        (None, None) => Ok(()),
        (Some(x), Some(y)) => {
            let (x, y) = (x.contact, y.contact);
            // The same earliest time; at a tie (a shared edge) either face may be reported.
            if (x.t - y.t).abs() <= 1e-12 * (1.0 + x.t) && x.point.distance(y.point) <= 1e-9 * (1.0 + x.point.length())
            {
                Ok(())
            } else {
                Err(format!("{x:?} vs {y:?}"))
            }
        }
        (a, b) => Err(format!("{a:?} vs {b:?}")),
    }
}

/// A sample position: seam samples (multiples of the tile size) are picked often.
fn seam_point(hf: &Heightfield, i: usize, j: usize) -> DVec3 {
    let p = hf.sample_position(i.min(hf.nx() - 1), j.min(hf.ny() - 1));
    DVec3::new(p.x, p.y, if p.z.is_nan() { 0.0 } else { p.z })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn sweeps_equal_the_whole_heightfield(
        x in -45.0f64..50.0, y in 0.0f64..95.0, z in -5.0f64..25.0,
        vx in -20.0f64..20.0, vy in -20.0f64..20.0, vz in -30.0f64..10.0,
        r in 0.05f64..3.0,
    ) {
        let hf = terrain();
        let view = full_view(&hf);
        let whole = TerrainSweep(&*hf);
        let (c, v) = (DVec3::new(x, y, z), DVec3::new(vx, vy, vz));
        same(view.sweep(c, r, v), whole.sweep(c, r, v)).map_err(TestCaseError::fail)?;
        let radii = DVec3::new(r, r * 0.7, r * 1.6);
        same(view.sweep_ellipsoid(c, radii, v), whole.sweep_ellipsoid(c, radii, v)).map_err(TestCaseError::fail)?;
        let b = c + DVec3::new(0.0, 0.0, 1.5);
        same(view.sweep_capsule(c, b, r, v), whole.sweep_capsule(c, b, r, v)).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn sweeps_aimed_at_seam_vertices_and_edges(ti in 0usize..6, tj in 0usize..5, di in 0usize..2, along in 0.0f64..1.0, r in 0.01f64..1.0, drop in 1.0f64..20.0) {
        let hf = terrain();
        let view = full_view(&hf);
        let whole = TerrainSweep(&*hf);
        // A seam vertex (i, j both multiples of 16) or a point along a seam edge.
        let (i, j) = (ti * 16, tj * 16);
        let a = seam_point(&hf, i, j);
        let b = if di == 0 { seam_point(&hf, i + 1, j) } else { seam_point(&hf, i, j + 1) };
        let target = a.lerp(b, along);
        for v in [DVec3::new(0.0, 0.0, -drop - r), DVec3::new(drop * 0.3, -drop * 0.2, -drop)] {
            let c = target - v + DVec3::new(0.0, 0.0, r);
            same(view.sweep(c, r, v), whole.sweep(c, r, v)).map_err(TestCaseError::fail)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Far from the origin (5,000 km east, 3,000 km south) and around the terrain's edges (motions
    /// that start or end outside it): the same contacts as the whole grid, none where it has none.
    #[test]
    fn far_away_and_at_the_edges(
        fx in -0.2f64..1.2, fy in -0.2f64..1.2, z in -5.0f64..25.0,
        vx in -30.0f64..30.0, vy in -30.0f64..30.0, vz in -30.0f64..10.0, r in 0.05f64..3.0,
    ) {
        let (nx, ny) = (45, 37);
        let p = SynthParams { relief: 12.0, feature: 9.0, seed: 8, ..SynthParams::default() };
        let hf = Arc::new(
            Heightfield::builder(nx, ny, generate(nx, ny, &p)).origin(5.0e6, -3.0e6).spacing(2.0, 2.0).build().unwrap(),
        );
        let view = full_view(&hf);
        let whole = TerrainSweep(&*hf);
        let c = DVec3::new(5.0e6 + fx * 88.0, -3.0e6 + fy * 72.0, z);
        let v = DVec3::new(vx, vy, vz);
        same(view.sweep(c, r, v), whole.sweep(c, r, v)).map_err(TestCaseError::fail)?;
        let b = c + DVec3::new(0.0, 0.0, 1.5);
        same(view.sweep_capsule(c, b, r, v), whole.sweep_capsule(c, b, r, v)).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn only_the_tiles_in_the_view_collide() {
    let hf = terrain();
    let mut view = TileView::new(hf.clone(), params()).unwrap();
    view.update(DVec2::new(-32.0, 13.0), 5.0);
    let near = DVec3::new(-32.0, 13.0, 40.0);
    let far = DVec3::new(35.0, 80.0, 40.0);
    let down = DVec3::new(0.0, 0.0, -80.0);
    assert!(view.sweep(near, 0.5, down).is_some());
    assert!(view.sweep(far, 0.5, down).is_none(), "a tile out of the view collided");
    view.update(DVec2::new(35.0, 80.0), 5.0);
    assert!(view.sweep(far, 0.5, down).is_some());
    assert!(view.sweep(near, 0.5, down).is_none());
}

#[test]
fn the_view_holds_the_tiles_near_the_viewer_and_builds_each_tree_once() {
    let hf = terrain();
    let mut view = TileView::new(hf.clone(), params()).unwrap();
    let (ntx, nty) = view.tile_counts();
    assert_eq!((ntx, nty), (82u32.div_ceil(16), 70u32.div_ceil(16)));
    let mut rng = 12345u64;
    let mut next = || {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut in_view = std::collections::BTreeSet::new();
    let mut added_total = 0;
    for step in 0..200 {
        let viewer = DVec2::new(-70.0 + 160.0 * next(), -30.0 + 160.0 * next());
        let radius = if step % 7 == 0 { 0.0 } else { 40.0 * next() };
        let change = view.update(viewer, radius);
        // Brute force: every tile's rectangle against the disc.
        let mut want = std::collections::BTreeSet::new();
        for ty in 0..nty {
            for tx in 0..ntx {
                let (i0, j0) = ((tx * 16) as usize, (ty * 16) as usize);
                let (i1, j1) = ((i0 + 16).min(82), (j0 + 16).min(70));
                let (lo, hi) = (hf.sample_position(i0, j0).truncate(), hf.sample_position(i1, j1).truncate());
                if viewer.clamp(lo, hi).distance(viewer) <= radius {
                    want.insert((tx, ty));
                }
            }
        }
        let have: std::collections::BTreeSet<_> = view.tiles().map(|t| t.key).collect();
        assert_eq!(have, want, "viewer {viewer} radius {radius}");
        for k in &change.added {
            assert!(!in_view.contains(k) && want.contains(k));
        }
        for k in &change.dropped {
            assert!(in_view.contains(k) && !want.contains(k));
        }
        added_total += change.added.len() as u64;
        in_view = want;
    }
    assert_eq!(view.trees_built(), added_total, "a tile that stayed was rebuilt");
    assert!(view.update(DVec2::new(f64::NAN, 0.0), 10.0).added.is_empty());
    assert!(TileView::new(hf, params().with_tile_cells(0)).is_err());
}

#[test]
fn every_sphere_holds_its_triangles_and_leaves_cover_the_tile() {
    let hf = terrain();
    let view = full_view(&hf);
    let mut cells = 0;
    for tile in view.tiles() {
        let nodes = tile.nodes(&view);
        for (k, n) in nodes.iter().enumerate() {
            assert!(n.next as usize > k && n.next as usize <= nodes.len());
            for j in n.cells[1]..n.cells[3] {
                for i in n.cells[0]..n.cells[2] {
                    for half in [landfall::Half::South, landfall::Half::North] {
                        if let Some(t) = hf.cell_triangle(i as usize, j as usize, half) {
                            for p in t {
                                assert!(p.distance(n.center) <= n.radius, "{p} outside node {k} of {:?}", tile.key);
                            }
                        }
                    }
                }
            }
            if n.is_leaf() {
                assert!(n.cells[2] - n.cells[0] <= 4 && n.cells[3] - n.cells[1] <= 4);
                cells += (n.cells[2] - n.cells[0]) * (n.cells[3] - n.cells[1]);
            }
        }
    }
    // Every cell in exactly one leaf (no tile here is all holes).
    assert_eq!(cells, 82 * 70);
    // gather: the triangles whose boxes meet a box across a seam, by brute force over every cell.
    let region = landfall::Aabb::new(DVec3::new(-25.5, 20.0, -100.0), DVec3::new(-22.0, 23.0, 100.0));
    let mut a: Vec<TriangleId> = Vec::new();
    view.gather(&region, &mut |id, _| a.push(id));
    let mut b: Vec<TriangleId> = Vec::new();
    for j in 0..hf.ny() - 1 {
        for i in 0..hf.nx() - 1 {
            for half in [landfall::Half::South, landfall::Half::North] {
                if let Some(t) = hf.cell_triangle(i, j, half) {
                    let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
                    if lo.cmple(region.max).all() && hi.cmpge(region.min).all() {
                        b.push(TriangleId::Cell { i: i as u32, j: j as u32, half });
                    }
                }
            }
        }
    }
    let key = |id: &TriangleId| format!("{id:?}");
    a.sort_by_key(key);
    b.sort_by_key(key);
    assert_eq!(a, b);
}

#[test]
fn a_walker_crosses_tile_borders_as_on_the_whole_grid() {
    let n = 97;
    let p = SynthParams { relief: 3.0, feature: 20.0, seed: 9, ..SynthParams::default() };
    let hf = Arc::new(Heightfield::builder(n, n, generate(n, n, &p)).diagonal(Diagonal::Alternating).build().unwrap());
    let mut view = TileView::new(hf.clone(), params()).unwrap();
    let whole = TerrainSweep(&*hf);
    let c = CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    let start = DVec3::new(3.0, 5.0, hf.height_at(3.0, 5.0).unwrap() + 1.0);
    let (mut a, mut b, mut ga, mut gb) = (start, start, false, false);
    let step = DVec3::new(0.21, 0.17, -0.3);
    let mut borders = 0;
    for _ in 0..400 {
        // The view follows the walker, as a simulator's would.
        let before = view.tiles().map(|t| t.key).collect::<Vec<_>>();
        view.update(a.truncate(), 6.0);
        borders += usize::from(before != view.tiles().map(|t| t.key).collect::<Vec<_>>());
        let ma = c.move_by(&view, a, step, ga);
        let mb = c.move_by(&whole, b, step, gb);
        (a, ga, b, gb) = (ma.position, ma.grounded, mb.position, mb.grounded);
        assert!(a.distance(b) <= 1e-9 * (1.0 + b.length()), "{a} vs {b}");
    }
    assert!(a.x > 70.0 && borders > 5, "walked to {a}, the view changed {borders} times");
}

/// A view, and a tile's tree, refuse parameters out of range, naming the field.
#[test]
fn invalid_params_are_refused_naming_the_field() {
    use landfall::collide::{tile_tree, TileSamples, TileViewError};
    use landfall::support::Tiling;
    let hf = terrain();
    let bad = [
        (TileViewParams::default().with_tile_cells(0), "tile_cells"),
        (TileViewParams::default().with_tile_cells(TileViewParams::MAX_TILE_CELLS + 1), "tile_cells"),
        (TileViewParams::default().with_leaf_cells(0), "leaf_cells"),
        (TileViewParams::default().with_max_levels(0), "max_levels"),
    ];
    let tiling = Tiling::new(17, 17, 4);
    let block = vec![0f32; tiling.side() * tiling.side()];
    let n = tiling.side();
    let t = TileSamples { block: &block, tiling, key: (0, 0), nx: n, ny: n, origin: DVec2::ZERO, spacing: DVec2::ONE };
    for (p, field) in bad {
        match TileView::new(hf.clone(), p) {
            Err(TileViewError::BadParams(e)) => assert_eq!(e.field, field, "{p:?}: {e}"),
            other => panic!("{p:?}: {:?}", other.err()),
        }
        assert_eq!(
            tile_tree(&t, &p.with_tile_cells(tiling.cells.max(1))).map_err(|e| e.field).err(),
            match field {
                "tile_cells" => None,
                f => Some(f),
            }
        );
    }
    let edge =
        TileViewParams::default().with_tile_cells(TileViewParams::MAX_TILE_CELLS).with_leaf_cells(1).with_max_levels(1);
    assert!(TileView::new(hf, edge).is_ok());
}
