//! Rasters in degrees: detected by their CRS (GeoKeys, an `.npz`'s lon/lat arrays), opened as
//! surfaces on the WGS84 ellipsoid, answered in metres; projected rasters as before, with a note
//! when their units obviously disagree.

use landfall::geo::wgs84::{geodetic_to_ecef, up};
use landfall::support::moller_trumbore_grown;
use landfall::support::SplitMix64;
use landfall::{Half, Heightfield, Terrain};
use landfall_io::{geo_part, open_terrain, write_geotiff, AnyTerrain, Band, GeoKeys, GeoRef, TerrainOptions};
use std::path::Path;

fn topobathy() -> landfall_io::OpenedTerrain {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    open_terrain(&path, &TerrainOptions::default()).unwrap()
}

/// The bundled DEM is in degrees: it opens as a surface on the ellipsoid, says so, and carries
/// EPSG:4326 into outputs.
#[test]
fn the_bundled_dem_is_geographic() {
    let t = topobathy();
    assert!(matches!(t.terrain, AnyTerrain::Geographic(_)));
    assert!(t.notes.iter().any(|n| n.contains("WGS84 ellipsoid")), "{:?}", t.notes);
    assert_eq!(t.geokeys.as_ref().and_then(GeoKeys::epsg), Some(4326));
}

/// On the real degree DEM, heights at (lon, lat) are the values of the triangles through the
/// samples: where the ellipsoid normal meets the brute-force ECEF mesh (every triangle, f64); at
/// the samples, the samples.
#[test]
fn heights_on_the_real_dem_are_the_triangles() {
    let AnyTerrain::Geographic(g) = topobathy().terrain else { panic!("geographic") };
    let hf = g.heightfield();
    let (o, d) = (hf.origin(), hf.spacing());
    let lon = |i: usize| o.x + i as f64 * d.x;
    let lat = |j: usize| o.y + j as f64 * d.y;
    let mut tris = Vec::new();
    for j in 0..hf.ny() - 1 {
        for i in 0..hf.nx() - 1 {
            for half in [Half::South, Half::North] {
                let v = g
                    .triangle_samples(i, j, half)
                    .map(|(a, b)| geodetic_to_ecef(lon(a), lat(b), hf.sample(a, b) as f64));
                tris.push(v);
            }
        }
    }
    let mut rng = SplitMix64::new(5);
    for k in 0..400 {
        let (x, y) = if k % 4 == 0 {
            // A sample.
            let (i, j) = (rng.range(0.0, hf.nx() as f64) as usize, rng.range(0.0, hf.ny() as f64) as usize);
            let h = g.height_at(lon(i), lat(j)).unwrap();
            assert!((h - hf.sample(i, j) as f64).abs() < 1e-6, "sample ({i}, {j}): {h}");
            (lon(i), lat(j))
        } else {
            (rng.range(lon(0), lon(hf.nx() - 1)), rng.range(lat(0), lat(hf.ny() - 1)))
        };
        let (p0, n) = (geodetic_to_ecef(x, y, 0.0), up(x, y));
        let found: Vec<f64> = tris.iter().filter_map(|v| moller_trumbore_grown(p0, n, v, 1e-9)).collect();
        let h = g.height_at(x, y).unwrap();
        assert!(found.iter().any(|&t| (t - h).abs() < 1e-6), "({x}, {y}): {h} not in {found:?}");
    }
}

/// A 1° × 1° GeoTIFF tile in EPSG:4326: its mesh in ENU metres has its true size (≈111 km north–
/// south, ≈79.5 km east–west along its southern edge at 44.5° N) and its frame's origin recorded; a ray straight down from
/// 1 km above the tile meets it 1 km below, in metres.
#[test]
fn a_one_degree_tile_is_metres() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tile.tif");
    let n = 121;
    let step = 1.0 / (n - 1) as f64;
    let values: Vec<f32> = (0..n * n).map(|k| 200.0 + (k % 7) as f32).collect();
    let geo = GeoRef { origin: (9.0, 44.5), spacing: (step, step) };
    write_geotiff(&path, n, n, Band::F32(&values), &geo, None, Some(&GeoKeys::wgs84())).unwrap();
    let t = open_terrain(&path, &TerrainOptions::default()).unwrap();
    let AnyTerrain::Geographic(g) = &t.terrain else { panic!("a GeoTIFF in EPSG:4326 is geographic") };
    let part = geo_part(g, "tile", 1).unwrap();
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in &part.positions {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let (ew, ns) = ((hi[0] - lo[0]) as f64, (hi[1] - lo[1]) as f64);
    assert!((ns - 111_132.0).abs() < 200.0, "north–south {ns}");
    // The widest row is the southern edge: 1° of longitude at 44.5° N.
    assert!((ew - 79_530.0).abs() < 300.0, "east–west {ew}");
    assert_eq!(part.extras["enu_origin"]["lat"].as_f64(), Some(45.0));
    assert_eq!(part.extras["enu_origin"]["lon"].as_f64(), Some(9.5));
    let top = g.frame().geodetic_to_enu(9.3, 44.8, 1200.0);
    let hit = g.raycast(&landfall::Ray::new(top, -g.frame().dir_to_enu(up(9.3, 44.8))), f64::INFINITY).unwrap();
    let h = g.height_at(9.3, 44.8).unwrap();
    assert!((hit.t - (1200.0 - h)).abs() < 1e-6, "{} vs {}", hit.t, 1200.0 - h);
    // The glTF carries the frame.
    let glb = dir.path().join("tile.glb");
    landfall_io::write_mesh(&glb, &[part]).unwrap();
    let bytes = std::fs::read(&glb).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("\"enu_origin\"") && text.contains("\"ecef\""), "no frame in the glTF");
}

/// Projected rasters stay heightfields; one whose heights dwarf its extent gets a note, and a
/// raster in degrees placed by the user is the plain heightfield.
#[test]
fn projected_rasters_and_the_units_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.asc");
    std::fs::write(
        &path,
        "ncols 3\nnrows 3\nxllcenter 10\nyllcenter 45\ncellsize 0.01\n0 500 900\n100 2000 300\n0 0 0\n",
    )
    .unwrap();
    let t = open_terrain(&path, &TerrainOptions::default()).unwrap();
    assert!(matches!(t.terrain, AnyTerrain::Heightfield(_)));
    assert!(t.notes.iter().any(|n| n.contains("units disagree") && n.contains("EPSG:4326")), "{:?}", t.notes);
    assert!(t.notes.iter().all(|n| landfall_io::is_caution(n)), "{:?}", t.notes);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    // What the file said (its arrays, the model in degrees) is no caution; its uneven steps are.
    let t = open_terrain(&path, &TerrainOptions::default()).unwrap();
    let cautions: Vec<&String> = t.notes.iter().filter(|n| landfall_io::is_caution(n)).collect();
    assert!(cautions.len() == 1 && cautions[0].contains("not evenly spaced"), "{:?}", t.notes);
    assert_eq!(t.notes.len(), 3, "{:?}", t.notes);
    let mut o = TerrainOptions::default();
    o.raster.spacing = Some((2434.0, 2434.0));
    let t = open_terrain(&path, &o).unwrap();
    assert!(matches!(t.terrain, AnyTerrain::Heightfield(_)));
    assert!(!t.notes.iter().any(|n| n.contains("units disagree")), "{:?}", t.notes);
    // --gravity does not apply to a surface on the Earth.
    let o = TerrainOptions { frame: Some(landfall::Frame::z_up()), ..TerrainOptions::default() };
    assert!(open_terrain(&path, &o).is_err());
    let hf = Heightfield::builder(2, 2, vec![0.0; 4]).build().unwrap();
    assert!(hf.bounds().max.x > 0.0);
}

/// EPSG:4326 as the EPSG database writes it (angular unit 9122, "degree (supplier to define
/// representation)") is in degrees like 9102; other angular units are refused by name, not read as
/// a flat grid; projected feet are read as they are, with a note.
#[test]
fn angular_and_linear_units_in_the_geokeys() {
    let dir = tempfile::tempdir().unwrap();
    let values = vec![100f32; 16];
    let write = |name: &str, dir_keys: Vec<u16>, geo: GeoRef| {
        let path = dir.path().join(name);
        let keys = GeoKeys { directory: dir_keys, ..GeoKeys::default() };
        write_geotiff(&path, 4, 4, Band::F32(&values), &geo, None, Some(&keys)).unwrap();
        open_terrain(&path, &TerrainOptions::default())
    };
    let degrees = GeoRef { origin: (9.0, 44.5), spacing: (0.01, 0.01) };
    let geographic = |unit: u16| vec![1, 1, 0, 4, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326, 2054, 0, 1, unit];
    for unit in [9102, 9122] {
        let t = write("deg.tif", geographic(unit), degrees).unwrap();
        assert!(matches!(t.terrain, AnyTerrain::Geographic(_)), "unit {unit}");
    }
    for (unit, name) in [(9101, "radian"), (9105, "grad")] {
        let e = write("other.tif", geographic(unit), degrees).err().expect("refused").to_string();
        assert!(e.contains("GeogAngularUnitsGeoKey") && e.contains(name) && e.contains("other.tif"), "{e}");
    }
    let feet = vec![1, 1, 0, 3, 1024, 0, 1, 1, 3072, 0, 1, 2227, 3076, 0, 1, 9003];
    let t = write("feet.tif", feet, GeoRef { origin: (6e6, 2e6), spacing: (30.0, 30.0) }).unwrap();
    assert!(matches!(t.terrain, AnyTerrain::Heightfield(_)));
    assert!(t.notes.iter().any(|n| n.contains("horizontal units 9003 (US survey foot)")), "{:?}", t.notes);
}
