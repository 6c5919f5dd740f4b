//! Heightfield indexes of national size: a sparse mosaic of a 100,000 × 100,000-sample grid builds in
//! little memory and disk and answers at its tiles as the tiles themselves do; `build` refuses what
//! it must (tiles too far apart to make a grid, an output that is one of its tiles, overlapping tiles
//! that disagree, more samples to store than --max-samples).

use crate::common;
use common::{fails, ok, refused, s};
use glam::{DVec2, DVec3};
use landfall::collide::{SweepTarget, TileView, TileViewParams};
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray, TriangleId};
use landfall_io::{write_geotiff, Band, GeoRef, LoadOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A `nx × ny` GeoTIFF tile (1 m pixels) whose south-west sample is at (x, y): hills, and a few
/// nodata pixels.
fn tile(p: &Path, nx: usize, ny: usize, x: f64, y: f64, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    // North row first, as the file holds them.
    let v: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, r) = ((k % nx) as f64, (k / nx) as f64);
            if rng.uniform() < 0.002 {
                return f32::NAN;
            }
            (200.0 + 40.0 * (i / 23.0 + seed as f64).sin() * (r / 31.0).cos() + rng.range(0.0, 2.0)) as f32
        })
        .collect();
    write_geotiff(p, nx, ny, Band::F32(&v), &GeoRef { origin: (x, y), spacing: (1.0, 1.0) }, Some(f64::NAN), None)
        .unwrap();
    v
}

/// Peak resident memory of the `landfall build` that printed `out` ("peak memory N MiB"), MiB.
fn peak_mib(out: &str) -> f64 {
    let at = out.find("peak memory ").expect("build prints its peak memory") + "peak memory ".len();
    out[at..].split_whitespace().next().unwrap().parse().unwrap()
}

/// Disk blocks a file takes, bytes (not its apparent length).
fn allocated(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().blocks() * 512
}

/// The tile's own raster and the index answer alike at the tile: heights (bit for bit at points whose
/// coordinates both grids convert exactly), triangles (shifted by the tile's place), rays and
/// sweeps (to rounding).
fn same_at_tile(index: &Arc<Heightfield>, own: &Heightfield, view: &mut TileView, seed: u64) {
    let (o, n) = (own.origin(), DVec2::new((own.nx() - 1) as f64, (own.ny() - 1) as f64));
    let shift = ((o - index.origin()).x as u32, (o - index.origin()).y as u32);
    let moved = |t: TriangleId| match t {
        TriangleId::Cell { i, j, half } => TriangleId::Cell { i: i + shift.0, j: j + shift.1, half },
        other => other,
    };
    let mut rng = SplitMix64::new(seed);
    let mut own_view = TileView::new(Arc::new(own.clone()), TileViewParams::default()).unwrap();
    let (mut hits, mut contacts) = (0, 0);
    for k in 0..3000 {
        // Points on a 1/1024 m lattice: exact grid coordinates in both.
        let q = |v: f64| (v * 1024.0).round() / 1024.0;
        let (x, y) = (q(o.x + rng.range(0.0, n.x)), q(o.y + rng.range(0.0, n.y)));
        let (a, b) = (index.surface_at(x, y), own.surface_at(x, y));
        assert_eq!(a.map(|s| (s.point, s.normal)), b.map(|s| (s.point, s.normal)), "at ({x}, {y})");
        assert_eq!(a.map(|s| s.triangle), b.map(|s| moved(s.triangle)));
        // A ray from above towards a point of the tile, steep enough to stay over it.
        let target = DVec3::new(x, y, 150.0);
        let from = target + DVec3::new(rng.range(-20.0, 20.0), rng.range(-20.0, 20.0), 200.0);
        let ray = Ray::new(from, target - from);
        match (index.raycast(&ray, 10.0), own.raycast(&ray, 10.0)) {
            (Some(a), Some(b)) => {
                assert!((a.t - b.t).abs() <= 1e-12 * (1.0 + b.t), "ray {k}: {} vs {}", a.t, b.t);
                assert!(a.point.distance(b.point) < 1e-9 && a.triangle == moved(b.triangle), "ray {k}: {a:?} vs {b:?}");
                hits += 1;
            }
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "ray {k}: {a:?} vs {b:?}"),
        }
        // A ball swept down through the tile view (stored trees) and through a view of the tile.
        if k % 10 == 0 {
            view.update(DVec2::new(x, y), 20.0);
            own_view.update(DVec2::new(x, y), 20.0);
            let (c, v) = (DVec3::new(x, y, 400.0), DVec3::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), -400.0));
            match (view.sweep(c, 1.5, v), own_view.sweep(c, 1.5, v)) {
                (Some(a), Some(b)) => {
                    assert!((a.contact.t - b.contact.t).abs() < 1e-12, "sweep {k}: {a:?} vs {b:?}");
                    contacts += 1;
                }
                (a, b) => assert_eq!(a.is_some(), b.is_some(), "sweep {k}: {a:?} vs {b:?}"),
            }
        }
    }
    assert!(hits > 2500 && contacts > 250, "{hits} hits, {contacts} contacts");
}

/// Four small tiles at the corners and the middle of a 100 km square of 1 m pixels: an index of
/// 100,000 × 100,000 samples (10¹⁰, past the 2³¹ of old) that stores only the tiles with data.
#[test]
fn a_sparse_national_grid_builds_small_and_answers_at_its_tiles() {
    let d = tempfile::tempdir().unwrap();
    let places = [(0.0, 0.0), (99_700.0, 99_800.0), (50_123.0, 40_321.0), (2_000.0, 97_000.0)];
    let (x0, y0) = (400_000.0, 5_000_000.0);
    let mut names = Vec::new();
    for (k, &(x, y)) in places.iter().enumerate() {
        let p = d.path().join(format!("t{k}.tif"));
        tile(&p, 300, 200, x0 + x, y0 + y, k as u64);
        names.push(format!("t{k}.tif"));
    }
    let list = d.path().join("tiles.txt");
    std::fs::write(&list, names.join("\n")).unwrap();
    let lfh = d.path().join("big.lfh");
    let out = ok(&["build", s(&list), "-o", s(&lfh)]);
    assert!(out.contains("100000 × 100000 samples"), "{out}");
    // Memory: the tables of 391² index tiles and a band of the tiles with data, not the grid (the
    // old row-major build needed the grid's 40 GB of disk and a band of rows 100,000 wide).
    let peak = peak_mib(&out);
    assert!(peak < 200.0, "peak resident memory {peak} MiB");
    // Disk: about 600 KiB a tile with data (samples, pyramid, tree) and the directory.
    let disk = allocated(&lfh);
    assert!(disk < 24 << 20, "{disk} bytes on disk");
    eprintln!("100,000² sparse index: peak memory {peak} MiB, {:.1} MiB on disk", disk as f64 / (1 << 20) as f64);
    // A viewshed answers every sample of the grid: refused before the work (it took 19.5 GB and then
    // failed to write its TIFF), naming the limit.
    let vis = d.path().join("v.tif");
    let at = format!("{},{}", x0 + 50.0, y0 + 50.0);
    let e = refused(&["viewshed", s(&lfh), "--observer", &at, "--max-distance", "100", "-o", s(&vis)]);
    assert!(e.contains("--max-samples") && e.contains("100000 × 100000"), "{e}");
    assert!(!vis.exists());

    let opened = landfall_io::open_heightfield_index_with_trees(&lfh).unwrap();
    let index = Arc::new(opened.heightfield);
    assert_eq!((index.nx(), index.ny()), (100_000, 100_000));
    let mut view = TileView::with_trees(index.clone(), opened.trees).unwrap();
    for (k, name) in names.iter().enumerate() {
        let own = landfall_io::load_heightfield(&d.path().join(name), &LoadOptions::default()).unwrap().heightfield;
        same_at_tile(&index, &own, &mut view, k as u64);
    }
    assert_eq!(view.trees_built(), 0, "every tree came from the file");
    // Between the tiles: no ground, and a ray across the empty 100 km finds the far tile.
    assert_eq!(index.height_at(x0 + 30_000.0, y0 + 30_000.0), None);
    // (From 100 km up, to below the ground at the tile's north-east corner: it enters the tile's
    // footprint above its ground.)
    let far = DVec3::new(x0 + 50_420.0, y0 + 40_518.0, 100.0);
    let from = DVec3::new(x0 + 10.0, y0 + 10.0, 100_000.0);
    let hit = index.raycast(&Ray::new(from, far - from), 2.0).expect("the ray reaches the middle tile");
    let p = hit.point - DVec3::new(x0, y0, 0.0);
    assert!((50_123.0..=50_422.0).contains(&p.x) && (40_321.0..=40_520.0).contains(&p.y), "{p:?}");
    // The CLI's queries on the index.
    let pts = d.path().join("pts.csv");
    let (px, py) = (x0 + 99_850.25, y0 + 99_900.5);
    std::fs::write(&pts, format!("x,y\n{px},{py}\n{},{}\n", x0 + 60_000.0, y0 + 60_000.0)).unwrap();
    let answers = d.path().join("h.csv");
    ok(&["height", s(&lfh), "--points", s(&pts), "--out", s(&answers)]);
    let text = std::fs::read_to_string(&answers).unwrap();
    let z = index.height_at(px, py).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(&format!("{z}")), "{text}");
}

/// Writes a list of the given tiles (1 m pixels, 30 × 20 samples) at their places; the list's path.
fn small_mosaic(dir: &Path, places: &[(f64, f64, u64)]) -> PathBuf {
    let mut names = Vec::new();
    for (k, &(x, y, seed)) in places.iter().enumerate() {
        tile(&dir.join(format!("m{k}.tif")), 30, 20, x, y, seed);
        names.push(format!("m{k}.tif"));
    }
    let list = dir.join("m.txt");
    std::fs::write(&list, names.join("\n")).unwrap();
    list
}

/// A tile placed at x = 1e300 makes no grid: refused, naming the tile (it panicked in mosaic.rs).
#[test]
fn a_tile_placed_absurdly_far_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let list = small_mosaic(d.path(), &[(0.0, 0.0, 1), (1e300, 0.0, 2)]);
    let e = fails(&["build", s(&list), "-o", s(&d.path().join("o.lfh"))]);
    assert!(e.contains("m1.tif") && e.contains("origin") && !e.contains("panicked"), "{e}");
}

/// An output that is one of the tiles is refused, and the tile left as it was.
#[test]
fn an_output_that_is_a_tile_of_the_list_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let list = small_mosaic(d.path(), &[(0.0, 0.0, 1), (29.0, 0.0, 2)]);
    // The second tile named `t.lfh` (a GeoTIFF all the same), and the index written to it.
    let tile = d.path().join("t.lfh");
    std::fs::rename(d.path().join("m1.tif"), &tile).unwrap();
    std::fs::write(&list, "m0.tif\nt.lfh\n").unwrap();
    let before = std::fs::read(&tile).unwrap();
    let e = fails(&["build", s(&list), "-o", s(&tile)]);
    assert!(e.contains("also an input"), "{e}");
    assert_eq!(std::fs::read(&tile).unwrap(), before);
}

/// Overlapping tiles must agree: equal values (or nodata) are one surface; different values are
/// refused, naming both tiles and the place.
#[test]
fn overlapping_tiles_that_disagree_are_refused() {
    let d = tempfile::tempdir().unwrap();
    // Same seed, one pixel apart: m1 is m0 moved, so they overlap with other values.
    let list = small_mosaic(d.path(), &[(0.0, 0.0, 1), (10.0, 5.0, 1)]);
    let e = fails(&["build", s(&list), "-o", s(&d.path().join("o.lfh"))]);
    assert!(e.contains("m0.tif") && e.contains("m1.tif") && e.contains("overlaps"), "{e}");
    // The same tile twice overlaps with equal values: accepted.
    std::fs::write(&list, "m0.tif\nm0.tif\n").unwrap();
    ok(&["build", s(&list), "-o", s(&d.path().join("same.lfh"))]);
}

/// --max-samples bounds the samples an index stores (its tiles with data, 257² each), and says so;
/// two small tiles 30 km apart store a few tiles, not the 3.5 GB grid between them.
#[test]
fn max_samples_bounds_the_samples_stored() {
    let d = tempfile::tempdir().unwrap();
    let list = small_mosaic(d.path(), &[(0.0, 0.0, 1), (30_000.0, 30_000.0, 2)]);
    let lfh = d.path().join("o.lfh");
    let e = fails(&["build", s(&list), "-o", s(&lfh), "--max-samples", "1000"]);
    assert!(e.contains("--max-samples") && e.contains("store"), "{e}");
    assert!(!lfh.exists());
    ok(&["build", s(&list), "-o", s(&lfh)]);
    assert!(allocated(&lfh) < 4 << 20, "{} bytes on disk", allocated(&lfh));
    let help = ok(&["build", "--help"]);
    assert!(help.contains("index stores"), "{help}");
}

/// An index of the old format (version 1: rows) is refused with a request to rebuild it.
#[test]
fn an_old_index_is_refused_with_a_request_to_rebuild() {
    let d = tempfile::tempdir().unwrap();
    let list = small_mosaic(d.path(), &[(0.0, 0.0, 1)]);
    let lfh = d.path().join("o.lfh");
    ok(&["build", s(&list), "-o", s(&lfh)]);
    // Version 1's header: the preamble with version 1, 256 bytes, and rows after it.
    let mut b = std::fs::read(&lfh).unwrap();
    b[12..16].copy_from_slice(&1u32.to_le_bytes());
    b.truncate(4096);
    std::fs::write(&lfh, &b).unwrap();
    let e = fails(&["info", s(&lfh)]);
    assert!(e.contains("version") && e.contains("rebuild"), "{e}");
}
