//! The heightfield index (`.lfh`): built by streaming a GeoTIFF a strip or a row of tiles at a
//! time, it answers exactly as the raster loaded whole, on odd sizes, holes and every tile seam;
//! hostile files are errors, never panics.

use crate::common;
use glam::DVec3;
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray, Terrain};
use landfall_io::{build_heightfield_index, load_heightfield, open_heightfield_index, LoadOptions};
use std::path::Path;

/// A `nx × ny` GeoTIFF of f32 in strips of `rows` rows, with nodata −9999 in a block and a few
/// scattered samples; georeferenced at (500000, 4000000), 10 m pixels.
fn write_strips(p: &Path, nx: u32, ny: u32, rows: u32, seed: u64) -> Vec<f32> {
    use tiff::encoder::colortype::Gray32Float;
    use tiff::tags::Tag;
    let mut rng = SplitMix64::new(seed);
    let v: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = (k % nx, k / nx);
            let hole = (i > nx / 3 && i < nx / 3 + 9 && j > ny / 2 && j < ny / 2 + 5) || rng.uniform() < 0.002;
            if hole {
                -9999.0
            } else {
                (100.0 * ((i as f64 / 17.0).sin() + (j as f64 / 23.0).cos()) + rng.range(-3.0, 3.0)) as f32
            }
        })
        .collect();
    let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(p).unwrap()).unwrap();
    let mut img = enc.new_image::<Gray32Float>(nx, ny).unwrap();
    img.rows_per_strip(rows).unwrap();
    img.encoder().write_tag(Tag::ModelPixelScaleTag, &[10.0f64, 10.0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 500000.0, 4000000.0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::GdalNodata, "-9999").unwrap();
    img.write_data(&v).unwrap();
    v
}

/// Queries on both terrains agree bit for bit: heights, normals and triangles at random points and
/// exactly on sample rows and columns (every tile and strip seam), rays in every direction and rays
/// aimed at samples.
fn same_answers(a: &Heightfield, b: &Heightfield, seed: u64) {
    assert_eq!((a.nx(), a.ny(), a.origin(), a.spacing()), (b.nx(), b.ny(), b.origin(), b.spacing()));
    assert_eq!(a.nodata_count(), b.nodata_count());
    let bb = a.bounds();
    let mut rng = SplitMix64::new(seed);
    let (o, s) = (a.origin(), a.spacing());
    for k in 0..6000 {
        let (x, y) = if k % 3 == 0 {
            // On a sample row or column: the seams of strips and tiles.
            let i = (rng.uniform() * a.nx() as f64) as usize;
            let j = (rng.uniform() * a.ny() as f64) as usize;
            if k % 2 == 0 {
                (o.x + i as f64 * s.x, rng.range(bb.min.y, bb.max.y))
            } else {
                (rng.range(bb.min.x, bb.max.x), o.y + j as f64 * s.y)
            }
        } else {
            (rng.range(bb.min.x - 20.0, bb.max.x + 20.0), rng.range(bb.min.y - 20.0, bb.max.y + 20.0))
        };
        let p = DVec3::new(x, y, 0.0);
        assert_eq!(a.top_surface(p), b.top_surface(p), "at ({x}, {y})");
        let dir = if k % 4 == 0 {
            // Aimed at a sample.
            let (i, j) = ((rng.uniform() * a.nx() as f64) as usize, (rng.uniform() * a.ny() as f64) as usize);
            let t = DVec3::new(o.x + i as f64 * s.x, o.y + j as f64 * s.y, a.sample(i, j) as f64);
            t - DVec3::new(x, y, 500.0)
        } else {
            DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.6, 0.1))
        };
        let ray = Ray::new(DVec3::new(x, y, 500.0), dir);
        assert_eq!(a.raycast(&ray, 1e7), b.raycast(&ray, 1e7), "ray {k}");
    }
}

#[test]
fn streamed_index_answers_as_the_raster_on_odd_sizes_and_holes() {
    let d = tempfile::tempdir().unwrap();
    for (nx, ny, rows) in [(131, 97, 7), (64, 65, 64), (2, 3, 1), (257, 33, 5)] {
        let tif = d.path().join(format!("s{nx}.tif"));
        let lfh = d.path().join(format!("s{nx}.lfh"));
        write_strips(&tif, nx, ny, rows, nx as u64);
        let opts = LoadOptions::default();
        let mut rows_seen = 0;
        let r = build_heightfield_index(&tif, &lfh, &opts, landfall::Frame::z_up(), &mut |done, _| rows_seen = done)
            .unwrap();
        assert!(r.streamed && rows_seen == ny as u64 && r.nx == nx as usize);
        let whole = load_heightfield(&tif, &opts).unwrap().heightfield;
        let mapped = open_heightfield_index(&lfh).unwrap();
        assert!(mapped.is_mapped());
        same_answers(&whole, &mapped, nx as u64);
        // Its tiles (and the shared empty one) and little else: at most 9.5 bytes a stored sample (4
        // for the sample, 4.6 of room for the trees, the pyramid), and 2 pages of tables and header.
        let bytes = std::fs::metadata(&lfh).unwrap().len() as f64;
        let per_tile = (r.samples_stored / r.tiles_stored as u64) as f64;
        assert!(bytes < 9.5 * (r.samples_stored as f64 + per_tile) + 8192.0, "{bytes} bytes for {r:?}");
    }
}

#[test]
fn options_and_other_formats_build_the_same() {
    let d = tempfile::tempdir().unwrap();
    let tif = d.path().join("a.tif");
    write_strips(&tif, 40, 30, 3, 5);
    let opts = LoadOptions {
        z_scale: 0.5,
        z_offset: -12.25,
        spacing: Some((2.0, 3.0)),
        origin: Some((-7.0, 11.0)),
        diagonal: landfall::Diagonal::SouthEastNorthWest,
        leaf_size: 4,
        ..LoadOptions::default()
    };
    let lfh = d.path().join("a.lfh");
    build_heightfield_index(&tif, &lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    let whole = load_heightfield(&tif, &opts).unwrap().heightfield;
    let mapped = open_heightfield_index(&lfh).unwrap();
    assert_eq!(mapped.diagonal(), landfall::Diagonal::SouthEastNorthWest);
    same_answers(&whole, &mapped, 1);
    // An ASCII grid is read whole, then written the same way.
    let asc = d.path().join("b.asc");
    let geo = landfall_io::GeoRef { origin: (5.0, -3.0), spacing: (2.0, 2.0) };
    landfall_io::write_asc(&asc, whole.nx(), whole.ny(), whole.heights().unwrap(), geo).unwrap();
    let lfh2 = d.path().join("b.lfh");
    let r =
        build_heightfield_index(&asc, &lfh2, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    assert!(!r.streamed);
    let from_asc = load_heightfield(&asc, &LoadOptions::default()).unwrap().heightfield;
    same_answers(&from_asc, &open_heightfield_index(&lfh2).unwrap(), 2);
}

#[test]
fn cloud_optimized_geotiffs_from_gdal() {
    if common::skip::tool(&["gdal_translate"], "apt-get install gdal-bin").is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src.tif");
    write_strips(&src, 301, 203, 301, 9);
    for (name, args) in [
        ("cog", vec!["-of", "COG", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=YES", "-co", "BLOCKSIZE=64"]),
        ("lzw", vec!["-co", "TILED=YES", "-co", "COMPRESS=LZW", "-co", "BLOCKXSIZE=128", "-co", "BLOCKYSIZE=48"]),
    ] {
        let out = d.path().join(format!("{name}.tif"));
        let ok =
            std::process::Command::new("gdal_translate").arg("-q").args(&args).arg(&src).arg(&out).status().unwrap();
        assert!(ok.success());
        let lfh = d.path().join(format!("{name}.lfh"));
        let opts = LoadOptions::default();
        build_heightfield_index(&out, &lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
        let whole = load_heightfield(&src, &opts).unwrap().heightfield;
        same_answers(&whole, &open_heightfield_index(&lfh).unwrap(), 3);
    }
}

#[test]
fn hostile_index_files_are_errors_not_panics() {
    let d = tempfile::tempdir().unwrap();
    let tif = d.path().join("h.tif");
    write_strips(&tif, 50, 41, 4, 7);
    let lfh = d.path().join("h.lfh");
    build_heightfield_index(&tif, &lfh, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    let good = std::fs::read(&lfh).unwrap();
    let bad = d.path().join("bad.lfh");
    // Truncated anywhere.
    for cut in [0, 10, 255, 256, 300, good.len() / 2, good.len() - 1] {
        std::fs::write(&bad, &good[..cut]).unwrap();
        assert!(open_heightfield_index(&bad).is_err(), "truncated at {cut}");
    }
    // Any byte changed: an error, or (in padding) the same terrain.
    let mut rng = SplitMix64::new(4);
    let whole = open_heightfield_index(&lfh).unwrap();
    for _ in 0..300 {
        let mut b = good.clone();
        let k = (rng.uniform() * b.len() as f64) as usize;
        b[k] ^= 1 << (rng.uniform() * 8.0) as u32;
        std::fs::write(&bad, &b).unwrap();
        if let Ok(h) = open_heightfield_index(&bad) {
            assert!(
                h.samples().map(f32::to_bits).eq(whole.samples().map(f32::to_bits)),
                "byte {k} changed the samples unnoticed"
            );
        }
    }
    // A header whose fields lie, with its checksum made right again: still refused.
    let mut b = good.clone();
    b[32..40].copy_from_slice(&u64::MAX.to_le_bytes()); // nx
    let sum = common::index_checksum(&b[..376]);
    b[376..384].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&bad, &b).unwrap();
    let e = open_heightfield_index(&bad).unwrap_err().to_string();
    assert!(e.contains("nx/ny"), "{e}");
}

/// A GeoTIFF of `v` (north row first), its north-west pixel centred at (x0 + 5, y0 − 5): 10 m
/// pixels, strips of 3 rows, nodata −9999.
fn write_tile(p: &Path, v: &[f32], nx: u32, ny: u32, x0: f64, y0: f64) {
    use tiff::encoder::colortype::Gray32Float;
    use tiff::tags::Tag;
    let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(p).unwrap()).unwrap();
    let mut img = enc.new_image::<Gray32Float>(nx, ny).unwrap();
    img.rows_per_strip(3).unwrap();
    img.encoder().write_tag(Tag::ModelPixelScaleTag, &[10.0f64, 10.0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, x0, y0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::GdalNodata, "-9999").unwrap();
    img.write_data(v).unwrap();
}

#[test]
fn a_directory_or_a_list_of_tiles_is_one_mosaic() {
    let d = tempfile::tempdir().unwrap();
    let (nx, ny) = (61usize, 41usize);
    let mut rng = SplitMix64::new(12);
    // The whole grid, north row first.
    let whole: Vec<f32> = (0..nx * ny).map(|_| rng.range(0.0, 50.0) as f32).collect();
    let cut = |c0: usize, c1: usize, r0: usize, r1: usize| -> Vec<f32> {
        (r0..r1).flat_map(|r| whole[r * nx + c0..r * nx + c1].iter().copied()).collect()
    };
    let tiles = d.path().join("tiles");
    std::fs::create_dir(&tiles).unwrap();
    // Three of four tiles sharing their edge row and column (north rows 0..=20, 20..41; columns
    // 0..=30, 30..61); the north-east one is missing: a gap.
    for (name, c0, c1, r0, r1) in [("a_nw", 0, 31, 0, 21), ("b_sw", 0, 31, 20, 41), ("c_se", 30, 61, 20, 41)] {
        let (x0, y0) = (1000.0 + 10.0 * c0 as f64, 9000.0 - 10.0 * r0 as f64);
        write_tile(
            &tiles.join(format!("{name}.tif")),
            &cut(c0, c1, r0, r1),
            (c1 - c0) as u32,
            (r1 - r0) as u32,
            x0,
            y0,
        );
    }
    let lfh = d.path().join("m.lfh");
    let r = build_heightfield_index(&tiles, &lfh, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {})
        .unwrap();
    assert_eq!((r.nx, r.ny), (nx, ny));
    // The same grid as one raster, the gap made holes.
    let mut expect = whole.clone();
    for row in 0..20 {
        for col in 31..nx {
            expect[row * nx + col] = -9999.0;
        }
    }
    let one = d.path().join("one.tif");
    write_tile(&one, &expect, nx as u32, ny as u32, 1000.0, 9000.0);
    let whole_hf = load_heightfield(&one, &LoadOptions::default()).unwrap().heightfield;
    let mosaic = open_heightfield_index(&lfh).unwrap();
    assert_eq!(mosaic.nodata_count(), 20 * 30);
    same_answers(&whole_hf, &mosaic, 4);
    // The same tiles named in a list file (relative paths, comments, blank lines): the same index.
    let names: Vec<String> = std::fs::read_dir(&tiles)
        .unwrap()
        .map(|e| format!("tiles/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let list = d.path().join("tiles.txt");
    std::fs::write(&list, format!("# the mosaic\n\n{}\n", names.join("\n"))).unwrap();
    let from_list = d.path().join("list.lfh");
    build_heightfield_index(&list, &from_list, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {})
        .unwrap();
    assert_eq!(std::fs::read(&from_list).unwrap(), std::fs::read(&lfh).unwrap());
    // A line naming no file is an error naming the line.
    std::fs::write(&list, format!("{}\ntiles/missing.tif\n", names[0])).unwrap();
    let e =
        build_heightfield_index(&list, &from_list, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {})
            .unwrap_err()
            .to_string();
    assert!(e.contains("line 2") && e.contains("missing.tif"), "{e}");
    // Tiles off the grid or of another pixel size are refused, naming the tile.
    write_tile(&tiles.join("d_off.tif"), &cut(30, 61, 0, 21), 31, 21, 1000.0 + 303.0, 9000.0);
    let e = build_heightfield_index(
        &tiles,
        &d.path().join("x.lfh"),
        &LoadOptions::default(),
        landfall::Frame::z_up(),
        &mut |_, _| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("d_off.tif") && e.contains("grid"), "{e}");
    // A `.tif` of the directory that is no regular file is refused by name, not passed over; a list
    // may start with a byte-order mark.
    std::fs::remove_file(tiles.join("d_off.tif")).unwrap();
    std::fs::create_dir(tiles.join("sub.tif")).unwrap();
    let opts = LoadOptions::default();
    let e = build_heightfield_index(&tiles, &d.path().join("x.lfh"), &opts, landfall::Frame::z_up(), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("sub.tif") && e.contains("not a regular file"), "{e}");
    std::fs::write(&list, format!("\u{feff}{}\n", names.join("\n"))).unwrap();
    build_heightfield_index(&list, &from_list, &opts, landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    assert_eq!(std::fs::read(&from_list).unwrap(), std::fs::read(&lfh).unwrap());
}

/// The input GeoTIFF's CRS is kept in the index (its GeoKeys verbatim), read back by every command
/// (a viewshed GeoTIFF of the index carries it); a CRS section that lies about its size or bytes is
/// an error, never a big allocation.
#[test]
fn the_crs_is_kept_and_checked() {
    use landfall_io::{open_heightfield_index_with_crs, write_geotiff, Band, GeoKeys, GeoRef};
    let d = tempfile::tempdir().unwrap();
    let tif = d.path().join("utm.tif");
    let keys = GeoKeys {
        // GTModelType projected, GTRasterType PixelIsArea, ProjectedCSType EPSG:32610, citation.
        directory: vec![1, 1, 0, 4, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32610, 1026, 34737, 21, 0],
        doubles: vec![],
        ascii: "WGS 84 / UTM zone 10N|".into(),
    };
    let v: Vec<f32> = (0..40 * 30).map(|k| (k % 40) as f32 * 0.5 + (k / 40) as f32).collect();
    let geo = GeoRef { origin: (500000.0, 4000000.0), spacing: (10.0, 10.0) };
    write_geotiff(&tif, 40, 30, Band::F32(&v), &geo, None, Some(&keys)).unwrap();
    let lfh = d.path().join("utm.lfh");
    build_heightfield_index(&tif, &lfh, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    let (hf, crs) = open_heightfield_index_with_crs(&lfh).unwrap();
    assert_eq!(crs.as_ref(), Some(&keys));
    assert_eq!(crs.unwrap().epsg(), Some(32610));
    same_answers(&load_heightfield(&tif, &LoadOptions::default()).unwrap().heightfield, &hf, 3);
    // Without GeoKeys (an .npy, say) the section is absent.
    let plain = d.path().join("plain.tif");
    write_strips(&plain, 20, 20, 4, 1);
    let plain_lfh = d.path().join("plain.lfh");
    build_heightfield_index(&plain, &plain_lfh, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {})
        .unwrap();
    assert_eq!(open_heightfield_index_with_crs(&plain_lfh).unwrap().1, None);
    // Lying CRS fields, the header checksum made right again: refused, naming the CRS.
    let good = std::fs::read(&lfh).unwrap();
    let bad = d.path().join("bad.lfh");
    for (field, value) in [(1usize, 1u64 << 40), (1, 3), (0, 3), (2, 1 << 30), (0, good.len() as u64)] {
        let mut b = good.clone();
        let at = 296 + 8 * field;
        b[at..at + 8].copy_from_slice(&value.to_le_bytes());
        let sum = common::index_checksum(&b[..376]);
        b[376..384].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&bad, &b).unwrap();
        let e = open_heightfield_index(&bad).unwrap_err().to_string();
        assert!(e.contains("CRS"), "field {field} = {value}: {e}");
    }
    // A changed byte of the CRS text: the data checksum catches it.
    let mut b = good.clone();
    let crs_at = u64::from_le_bytes(good[296..304].try_into().unwrap()) as usize;
    b[crs_at + 40] ^= 1;
    std::fs::write(&bad, &b).unwrap();
    assert!(open_heightfield_index(&bad).unwrap_err().to_string().contains("checksum"));
}

/// Tiles of one CRS written by different tools (other keys beside the same EPSG code) make one
/// mosaic; tiles of another EPSG code are refused, naming the tile.
#[test]
fn mosaic_tiles_compare_their_crs_by_code() {
    use landfall_io::{write_geotiff, Band, GeoKeys, GeoRef};
    let d = tempfile::tempdir().unwrap();
    let tiles = d.path().join("tiles");
    std::fs::create_dir(&tiles).unwrap();
    let keys = |code: u16, extra: bool| {
        let mut directory = vec![1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, code];
        if extra {
            directory[3] = 3;
            directory.extend([3076, 0, 1, 9001]);
        }
        GeoKeys { directory, ..GeoKeys::default() }
    };
    let v = vec![5f32; 100];
    let put = |name: &str, x0: f64, k: GeoKeys| {
        let geo = GeoRef { origin: (x0, 4_000_000.0), spacing: (10.0, 10.0) };
        write_geotiff(&tiles.join(name), 10, 10, Band::F32(&v), &geo, None, Some(&k)).unwrap();
    };
    put("a.tif", 500_000.0, keys(32760, false));
    put("b.tif", 500_090.0, keys(32760, true));
    let build = || {
        build_heightfield_index(
            &tiles,
            &d.path().join("m.lfh"),
            &LoadOptions::default(),
            landfall::Frame::z_up(),
            &mut |_, _| {},
        )
    };
    assert_eq!(build().unwrap().nx, 19);
    put("b.tif", 500_090.0, keys(32759, false));
    let e = build().unwrap_err().to_string();
    assert!(e.contains("b.tif") && e.contains("coordinate reference system"), "{e}");
}

/// A grid in degrees that cannot be a surface on the ellipsoid (5° cells, latitudes past the
/// poles) is refused before the index is written, as opening it would refuse it after.
#[test]
fn degree_grids_are_checked_before_building() {
    use landfall_io::{write_geotiff, Band, GeoKeys, GeoRef};
    let d = tempfile::tempdir().unwrap();
    let v = vec![5f32; 16];
    for (geo, want) in [
        (GeoRef { origin: (0.0, 0.0), spacing: (5.0, 5.0) }, "larger than"),
        (GeoRef { origin: (0.0, 89.0), spacing: (0.5, 0.5) }, "beyond the poles"),
    ] {
        let tif = d.path().join("deg.tif");
        write_geotiff(&tif, 4, 4, Band::F32(&v), &geo, None, Some(&GeoKeys::wgs84())).unwrap();
        let out = d.path().join("deg.lfh");
        let e = build_heightfield_index(&tif, &out, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && e.contains("deg.tif"), "{e}");
        assert!(!out.exists());
    }
}

/// Degree tiles far apart make a grid whose ellipsoid tables would dwarf the samples stored: the
/// mosaic is refused before anything is written (and the same tiles near each other build).
#[test]
fn degree_tiles_far_apart_are_refused() {
    use landfall_io::{write_geotiff, Band, GeoKeys, GeoRef};
    let d = tempfile::tempdir().unwrap();
    let tiles = d.path().join("tiles");
    std::fs::create_dir(&tiles).unwrap();
    let v = vec![5f32; 100];
    let put = |name: &str, lon: f64, lat: f64| {
        let geo = GeoRef { origin: (lon, lat), spacing: (0.002, 0.002) };
        write_geotiff(&tiles.join(name), 10, 10, Band::F32(&v), &geo, None, Some(&GeoKeys::wgs84())).unwrap();
    };
    put("a.tif", 7.0, 47.0);
    put("b.tif", 7.02, 47.0);
    let out = d.path().join("m.lfh");
    let build =
        || build_heightfield_index(&tiles, &out, &LoadOptions::default(), landfall::Frame::z_up(), &mut |_, _| {});
    assert_eq!(build().unwrap().nx, 20);
    std::fs::remove_file(&out).unwrap();
    put("b.tif", 186.8, -44.0);
    let e = build().unwrap_err().to_string();
    assert!(e.contains("tiles") && e.contains("span") && e.contains("separately"), "{e}");
    assert!(!out.exists());
}

/// A file named `.lfh` is read as a heightfield index whatever it holds: empty or with a damaged
/// magic, the error says so (not "unknown raster extension").
#[test]
fn a_damaged_lfh_is_reported_as_an_index() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("x.lfh");
    for (bytes, want) in [(&b""[..], "truncated"), (&[b'X'; 4096][..], "bad magic")] {
        std::fs::write(&p, bytes).unwrap();
        let e = landfall_io::open_terrain(&p, &Default::default()).err().expect("refused").to_string();
        assert!(e.contains("x.lfh") && e.contains(want), "{e}");
    }
}
