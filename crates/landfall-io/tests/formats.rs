//! Loader tests on small files written by the tests, including corrupt and truncated ones, and the
//! real DEM shipped in `data/`.

use landfall::glam::DVec3;
use landfall::Ray;
use landfall_io::{
    load_heightfield, read_raster, write_asc, write_npy, write_npy_matrix, GeoRef, IoError, LoadOptions,
};
use std::path::{Path, PathBuf};

use crate::common;
use common::npy_bytes;

fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    (d, p)
}

fn err_text(r: Result<impl std::fmt::Debug, IoError>) -> String {
    r.expect_err("expected an error").to_string()
}

/// 3 columns × 2 rows, file order north first: north row 7 8 9, south row 1 2 3.
const SOUTH_FIRST: [f32; 6] = [1.0, 2.0, 3.0, 7.0, 8.0, 9.0];

#[test]
fn asc_corner_and_center_and_nodata() {
    let (_d, p) = tmp("a.asc");
    std::fs::write(
        &p,
        "ncols 3\nnrows 2\nxllcorner 100\nyllcorner -50\ncellsize 2\nNODATA_value -9999\n7 8 9\n1 -9999 3\n",
    )
    .unwrap();
    let r = read_raster(&p).unwrap();
    assert_eq!((r.nx, r.ny), (3, 2));
    assert_eq!(r.values[0], 1.0);
    assert!(r.values[1].is_nan());
    assert_eq!(r.values[3..], [7.0, 8.0, 9.0]);
    assert_eq!(r.georef, Some(GeoRef { origin: (101.0, -49.0), spacing: (2.0, 2.0) }));
    std::fs::write(&p, "NCOLS 3\nNROWS 2\nXLLCENTER 100\nYLLCENTER -50\nCELLSIZE 2\n7 8 9\n1 2 3\n").unwrap();
    let r = read_raster(&p).unwrap();
    assert_eq!(r.values, SOUTH_FIRST);
    assert_eq!(r.georef.unwrap().origin, (100.0, -50.0));
    // Heights through a heightfield: sample (2, 1) = north-east = 9 at (104, -48).
    let hf = load_heightfield(&p, &LoadOptions::default()).unwrap().heightfield;
    assert_eq!(hf.height_at(104.0, -48.0), Some(9.0));
    assert_eq!(hf.height_at(100.0, -50.0), Some(1.0));
}

#[test]
fn asc_errors_name_line_and_field() {
    let (_d, p) = tmp("bad.asc");
    let cases = [
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n7 8 x\n1 2 3\n", "line 6"),
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n7 8 9\n1 2\n", "truncated"),
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\n7 8 9\n1 2 3\n", "cellsize"),
        ("ncols three\nnrows 2\n", "line 1"),
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -1\n7 8 9\n1 2 3\n", "cellsize"),
        ("ncols 3\nnrows 2\nbogus 1\n", "unknown header key"),
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n7 8 9\n1 2 3 4\n", "more values"),
        ("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n7 8 inf\n1 2 3\n", "finite"),
    ];
    for (text, want) in cases {
        std::fs::write(&p, text).unwrap();
        let e = err_text(read_raster(&p));
        assert!(e.contains(want) && e.contains("bad.asc"), "{e:?} should mention {want:?}");
    }
    let e = err_text(read_raster(Path::new("/nonexistent/x.asc")));
    assert!(e.contains("/nonexistent/x.asc"));
}

#[test]
fn asc_and_npy_writers_round_trip() {
    let (_d, p) = tmp("w.asc");
    let vals = [1.0, f32::NAN, 3.0, 7.0, 8.5, -9.25];
    write_asc(&p, 3, 2, &vals, GeoRef { origin: (10.0, 20.0), spacing: (2.0, 3.0) }).unwrap();
    let r = read_raster(&p).unwrap();
    assert_eq!(r.georef, Some(GeoRef { origin: (10.0, 20.0), spacing: (2.0, 3.0) }));
    assert!(r.values[1].is_nan() && r.values[5] == -9.25 && r.values[0] == 1.0);
    let q = p.with_extension("npy");
    write_npy(&q, 3, 2, &vals).unwrap();
    let r = read_raster(&q).unwrap();
    assert!(r.values[1].is_nan() && r.values[5] == -9.25 && r.values[0] == 1.0 && r.georef.is_none());
}

/// `write_npy_matrix` writes rows as given, in each element type: the reader (north row first)
/// gives the last row as its southern one. A length that does not fill the shape is an error naming
/// the file.
#[test]
fn npy_matrix_writer_round_trips() {
    let (_d, p) = tmp("m.npy");
    let check = |p: &Path| {
        let r = read_raster(p).unwrap();
        assert_eq!((r.nx, r.ny), (3, 2));
        assert_eq!(r.values, [4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
    };
    write_npy_matrix(&p, 2, 3, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    check(&p);
    write_npy_matrix(&p, 2, 3, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    check(&p);
    write_npy_matrix(&p, 2, 3, &[1u32, 2, 3, 4, 5, 6]).unwrap();
    check(&p);
    let e = err_text(write_npy_matrix(&p, 2, 3, &[1u32, 2]));
    assert!(e.contains("m.npy") && e.contains("2 values do not fill 2 × 3"), "{e}");
}

type Encode = Box<dyn Fn(f64) -> Vec<u8>>;

#[test]
fn npy_dtypes_and_corruption() {
    let (_d, p) = tmp("a.npy");
    // North row first in the file: 7 8 9 / 1 2 3.
    let file_order = [7.0f64, 8.0, 9.0, 1.0, 2.0, 3.0];
    let enc: [(&str, Encode); 5] = [
        ("<f4", Box::new(|v| (v as f32).to_le_bytes().to_vec())),
        ("<f8", Box::new(|v: f64| v.to_le_bytes().to_vec())),
        ("<i2", Box::new(|v| (v as i16).to_le_bytes().to_vec())),
        ("<u2", Box::new(|v| (v as u16).to_le_bytes().to_vec())),
        (">f4", Box::new(|v| (v as f32).to_be_bytes().to_vec())),
    ];
    for (descr, f) in &enc {
        let data: Vec<u8> = file_order.iter().flat_map(|&v| f(v)).collect();
        std::fs::write(&p, npy_bytes(descr, "(2, 3)", &data)).unwrap();
        assert_eq!(read_raster(&p).unwrap().values, SOUTH_FIRST, "{descr}");
    }
    let data: Vec<u8> = file_order.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
    for (bytes, want) in [
        (npy_bytes("<f4", "(2, 3)", &data[..20]), "truncated"),
        (npy_bytes("<f4", "(6,)", &data), "2-D"),
        (npy_bytes("<c8", "(2, 3)", &data), "dtype"),
        (b"\x93NUMPZ\x01\x00\x10\x00".to_vec(), "magic"),
        (npy_bytes("<f4", "(2, 3)", &data)[..30].to_vec(), "truncated"),
        // NumPy takes the last of two keys; landfall refuses the file rather than guess.
        (npy_bytes("<f4", "(3, 2), 'shape': (2, 3)", &data), "a.npy: header 'shape': given twice"),
    ] {
        std::fs::write(&p, bytes).unwrap();
        let e = err_text(read_raster(&p));
        assert!(e.contains(want) && e.contains("a.npy"), "{e:?} should mention {want:?}");
    }
}

#[test]
fn png_8_and_16_bit() {
    let (_d, p) = tmp("a.png");
    for depth in [png::BitDepth::Eight, png::BitDepth::Sixteen] {
        let mut w = png::Encoder::new(std::io::BufWriter::new(std::fs::File::create(&p).unwrap()), 3, 2);
        w.set_color(png::ColorType::Grayscale);
        w.set_depth(depth);
        let mut w = w.write_header().unwrap();
        let px: Vec<u8> = match depth {
            png::BitDepth::Eight => vec![7, 8, 9, 1, 2, 3],
            _ => [7u16, 8, 9, 1, 2, 3].iter().flat_map(|v| (v * 1000).to_be_bytes()).collect(),
        };
        w.write_image_data(&px).unwrap();
        w.finish().unwrap();
        let r = read_raster(&p).unwrap();
        let scale = if depth == png::BitDepth::Eight { 1.0 } else { 1000.0 };
        assert_eq!(r.values, SOUTH_FIRST.map(|v| v * scale));
    }
    // Colour and truncated PNGs are refused with the file's name.
    let mut w = png::Encoder::new(std::io::BufWriter::new(std::fs::File::create(&p).unwrap()), 2, 2);
    w.set_color(png::ColorType::Rgb);
    let mut w = w.write_header().unwrap();
    w.write_image_data(&[0; 12]).unwrap();
    w.finish().unwrap();
    assert!(err_text(read_raster(&p)).contains("greyscale"));
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    assert!(err_text(read_raster(&p)).contains("a.png"));
}

fn write_tiff<C: tiff::encoder::colortype::ColorType>(
    p: &Path,
    data: &[C::Inner],
    georef: bool,
    point: bool,
    nodata: Option<&str>,
) where
    [C::Inner]: tiff::encoder::TiffValue,
{
    use tiff::tags::Tag;
    let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(p).unwrap()).unwrap();
    let mut img = enc.new_image::<C>(3, 2).unwrap();
    if georef {
        img.encoder().write_tag(Tag::ModelPixelScaleTag, &[10.0f64, 5.0, 0.0][..]).unwrap();
        img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 1000.0, 2000.0, 0.0][..]).unwrap();
        let raster_type = if point { 2u16 } else { 1 };
        img.encoder().write_tag(Tag::GeoKeyDirectoryTag, &[1u16, 1, 0, 1, 1025, 0, 1, raster_type][..]).unwrap();
    }
    if let Some(nd) = nodata {
        img.encoder().write_tag(Tag::GdalNodata, nd).unwrap();
    }
    img.write_data(data).unwrap();
}

#[test]
fn geotiff_types_georef_and_nodata() {
    use tiff::encoder::colortype::{Gray16, Gray32Float, GrayI16};
    let (_d, p) = tmp("a.tif");
    write_tiff::<Gray32Float>(&p, &[7.0, 8.0, 9.0, 1.0, -32768.0, 3.0], true, false, Some("-32768"));
    let r = read_raster(&p).unwrap();
    assert!(r.values[1].is_nan());
    assert_eq!(r.values[3..], [7.0, 8.0, 9.0]);
    // PixelIsArea: top-left corner (1000, 2000), 10 × 5 m pixels: south-west centre (1005, 1992.5).
    assert_eq!(r.georef, Some(GeoRef { origin: (1005.0, 1992.5), spacing: (10.0, 5.0) }));
    write_tiff::<GrayI16>(&p, &[7, 8, 9, 1, 2, 3], true, true, None);
    let r = read_raster(&p).unwrap();
    assert_eq!(r.values, SOUTH_FIRST);
    // PixelIsPoint: the tie point is the north-west sample itself.
    assert_eq!(r.georef, Some(GeoRef { origin: (1000.0, 1995.0), spacing: (10.0, 5.0) }));
    write_tiff::<Gray16>(&p, &[7, 8, 9, 1, 2, 3], false, false, None);
    let r = read_raster(&p).unwrap();
    assert_eq!((r.values.clone(), r.georef), (SOUTH_FIRST.to_vec(), None));
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 20]).unwrap();
    assert!(err_text(read_raster(&p)).contains("a.tif"));
    std::fs::write(&p, b"II*\0garbage").unwrap();
    assert!(err_text(read_raster(&p)).contains("a.tif"));
}

#[test]
fn unknown_extension_and_tiny_rasters_are_refused() {
    let (_d, p) = tmp("a.xyz");
    std::fs::write(&p, "1").unwrap();
    assert!(err_text(read_raster(&p)).contains("unknown raster extension"));
    let (_d, p) = tmp("one.asc");
    std::fs::write(&p, "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n5\n").unwrap();
    assert!(err_text(read_raster(&p)).contains("2×2"));
}

fn real_dem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz")
}

#[test]
fn real_dem_loads_and_answers_queries() {
    let loaded = load_heightfield(&real_dem(), &LoadOptions::default()).unwrap();
    let hf = &loaded.heightfield;
    assert_eq!((hf.nx(), hf.ny()), (120, 91));
    let (lo, hi) = hf.height_range().unwrap();
    assert_eq!((lo, hi), (-1437.0, 2205.0));
    let g = loaded.georef.unwrap();
    assert!((g.origin.0 - 234.0167).abs() < 1e-3 && (g.origin.1 - 48.01637).abs() < 1e-3);
    assert!(loaded.notes.iter().any(|n| n.contains("not evenly spaced")));
    // Latitude ascends in the file, so row 0 is the south row as stored: sample (0, 0) = topo[0][0].
    assert_eq!(hf.sample(0, 0), -1405.0);
    assert_eq!(hf.sample(0, 90), 989.0);
    // A vertical query at a sample returns the sample; a ray straight down agrees with it.
    let p = hf.sample_position(37, 52);
    assert!((hf.height_at(p.x, p.y).unwrap() - p.z).abs() < 1e-9 * p.z.abs());
    let hit = hf.raycast(&Ray::new(DVec3::new(p.x, p.y, 5000.0), DVec3::NEG_Z), f64::INFINITY).unwrap();
    assert!((hit.point.z - p.z).abs() < 1e-9);
    // An oblique ray from high above toward a sample stops at or before it, on the surface.
    let o = DVec3::new(p.x + 0.5, p.y - 0.3, 4000.0);
    let hit = hf.raycast(&Ray::new(o, p - o), f64::INFINITY).unwrap();
    assert!(hit.t <= 1.0 + 1e-9);
    assert!((hf.height_at(hit.point.x, hit.point.y).unwrap() - hit.point.z).abs() < 1e-6);
}

/// A `.npy` member of f64 values with this shape.
fn npy(shape: &[usize], values: &[f64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    out
}

/// An `.npz` of 3 × 4 heights and the given coordinate arrays.
fn npz(path: &Path, coords: &[(&str, Vec<usize>, Vec<f64>)]) {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    z.start_file("z.npy", opts).unwrap();
    z.write_all(&npy(&[3, 4], &[1.0; 12])).unwrap();
    for (name, shape, v) in coords {
        z.start_file(format!("{name}.npy"), opts).unwrap();
        z.write_all(&npy(shape, v)).unwrap();
    }
    z.finish().unwrap();
}

/// An archive's coordinate arrays place the raster only when they describe its regular grid:
/// uneven, turning back, of the wrong length or out of range for degrees is an error naming the
/// array; slightly uneven (f32 rounding) a note; 2-D (curvilinear) a note that they are not read;
/// one axis' alone an error.
#[test]
fn npz_coordinates_that_are_not_a_regular_grid() {
    let (_d, p) = tmp("c.npz");
    let y = || ("y", vec![3], vec![0.0, 10.0, 20.0]);
    let cases: [(Vec<f64>, &str); 4] = [
        (vec![0.0, 30.0, 60.0, 210.0], "not evenly spaced"),
        (vec![0.0, 30.0, 20.0, 50.0], "increase or decrease steadily"),
        (vec![0.0, 30.0, 60.0], "hold 4 values"),
        (vec![0.0, 30.0, 60.0, 90.6], ""),
    ];
    for (x, want) in cases {
        npz(&p, &[("x", vec![x.len()], x), y()]);
        match read_raster(&p) {
            Ok(r) => {
                assert!(want.is_empty() && r.notes.iter().any(|n| n.contains("not evenly spaced")), "{:?}", r.notes)
            }
            Err(e) => assert!(!want.is_empty() && e.to_string().contains(want) && e.to_string().contains("'x'"), "{e}"),
        }
    }
    npz(&p, &[("lon", vec![4], vec![0.0, 300.0, 600.0, 900.0]), ("lat", vec![3], vec![0.0, 1.0, 2.0])]);
    assert!(err_text(read_raster(&p)).contains("not degrees"));
    npz(&p, &[("lon", vec![3, 4], vec![0.0; 12])]);
    let r = read_raster(&p).unwrap();
    assert!(r.georef.is_none() && r.notes.iter().any(|n| n.contains("curvilinear")), "{:?}", r.notes);
    // One axis alone is refused, naming the array and the names the other may have.
    npz(&p, &[("lon", vec![4], vec![0.0, 1.0, 2.0, 3.0])]);
    let e = err_text(read_raster(&p));
    assert!(e.contains("'lon'") && e.contains("latitude, lat, y, northing"), "{e}");
    npz(&p, &[("y", vec![3], vec![0.0, 1.0, 2.0])]);
    assert!(err_text(read_raster(&p)).contains("longitude, lon, x, easting"));
}

/// A TIFF without georeferencing is placed as GDAL places it by its PAM file (`.aux.xml`:
/// geotransform, the CRS's EPSG code, nodata) or its world file (`.tfw`), with a note; a rotated
/// world file is refused by name.
#[test]
fn sidecars_place_a_plain_tiff() {
    use tiff::encoder::colortype::Gray32Float;
    let (d, p) = tmp("plain.tif");
    write_tiff::<Gray32Float>(&p, &[7.0, 8.0, 9.0, 1.0, -9999.0, 3.0], false, false, None);
    assert_eq!(read_raster(&p).unwrap().georef, None);
    // World file: 10 m pixels, the north-west pixel's centre at (300005, 5900605); 2 rows.
    let tfw = d.path().join("plain.tfw");
    std::fs::write(&tfw, "10\n0\n0\n-10\n300005\n5900605\n").unwrap();
    let r = read_raster(&p).unwrap();
    assert_eq!(r.georef, Some(GeoRef { origin: (300005.0, 5900595.0), spacing: (10.0, 10.0) }));
    assert!(r.notes.iter().any(|n| n.contains("plain.tfw")), "{:?}", r.notes);
    assert!(!r.values[1].is_nan());
    std::fs::write(&tfw, "10\n0.5\n0\n-10\n300005\n5900605\n").unwrap();
    assert!(err_text(read_raster(&p)).contains("rotated"));
    // The PAM file comes first, with its CRS and nodata.
    let pam = d.path().join("plain.tif.aux.xml");
    std::fs::write(
        &pam,
        "<PAMDataset>\n  <SRS>PROJCS[\"WGS 84 / UTM zone 60S\",GEOGCS[\"WGS 84\",AUTHORITY[\"EPSG\",\"4326\"]],\
         AUTHORITY[\"EPSG\",\"32760\"]]</SRS>\n  <GeoTransform> 3.0e+05, 1.0e+01, 0.0, 5.90061e+06, 0.0, -1.0e+01</GeoTransform>\n\
         <PAMRasterBand band=\"1\"><NoDataValue>-9999</NoDataValue></PAMRasterBand>\n</PAMDataset>\n",
    )
    .unwrap();
    let r = read_raster(&p).unwrap();
    assert_eq!(r.georef, Some(GeoRef { origin: (300005.0, 5900595.0), spacing: (10.0, 10.0) }));
    assert_eq!(r.geokeys.as_ref().and_then(|k| k.epsg()), Some(32760));
    assert!(r.values[1].is_nan(), "the PAM file's nodata");
}
