//! Corrupted and truncated files of every format: the loaders answer an error (or a raster), never
//! panic, and a hostile header cannot make them allocate what the file does not hold.

use landfall_io::{read_raster, write_asc, write_npy, GeoRef};
use proptest::prelude::*;
use std::path::Path;

use crate::common;
use common::npy_bytes;

/// A valid small file of each format, as bytes.
fn samples(dir: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let vals: Vec<f32> = (0..35).map(|k| (k as f32 * 0.7).sin() * 100.0).collect();
    let asc = dir.join("s.asc");
    write_asc(&asc, 7, 5, &vals, GeoRef { origin: (1.0, 2.0), spacing: (0.5, 0.5) }).unwrap();
    let npy = dir.join("s.npy");
    write_npy(&npy, 7, 5, &vals).unwrap();
    let png = dir.join("s.png");
    {
        let mut e = png::Encoder::new(std::fs::File::create(&png).unwrap(), 7, 5);
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(png::BitDepth::Sixteen);
        let mut w = e.write_header().unwrap();
        let px: Vec<u8> = (0..35u16).flat_map(|v| (v * 100).to_be_bytes()).collect();
        w.write_image_data(&px).unwrap();
    }
    let tif = dir.join("s.tif");
    {
        let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(&tif).unwrap()).unwrap();
        let mut img = enc.new_image::<tiff::encoder::colortype::Gray32Float>(7, 5).unwrap();
        img.encoder().write_tag(tiff::tags::Tag::ModelPixelScaleTag, &[1.0f64, 1.0, 0.0][..]).unwrap();
        img.encoder().write_tag(tiff::tags::Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 10.0, 20.0, 0.0][..]).unwrap();
        img.write_data(&vals).unwrap();
    }
    let npz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    vec![
        ("asc", std::fs::read(asc).unwrap()),
        ("npy", std::fs::read(npy).unwrap()),
        ("png", std::fs::read(png).unwrap()),
        ("tif", std::fs::read(tif).unwrap()),
        ("npz", std::fs::read(npz).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Flip bytes, cut the tail: every format must answer without panicking.
    #[test]
    fn corrupted_files_never_panic(which in 0usize..5, flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..12), cut in any::<prop::sample::Index>(), truncate in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let all = samples(dir.path());
        let (ext, mut bytes) = all[which].clone();
        for (at, b) in flips {
            let k = at.index(bytes.len());
            bytes[k] ^= b;
        }
        if truncate {
            let n = cut.index(bytes.len());
            bytes.truncate(n);
        }
        let p = dir.path().join(format!("fuzz.{ext}"));
        std::fs::write(&p, &bytes).unwrap();
        if let Err(e) = read_raster(&p) {
            prop_assert!(e.to_string().contains("fuzz."), "error does not name the file: {e}");
        }
    }

    /// ASCII grids built from random tokens.
    #[test]
    fn random_ascii_grids_never_panic(header in proptest::collection::vec(("[a-zA-Z_]{1,12}", "-?[0-9]{0,12}(\\.[0-9]{0,4})?"), 0..8), body in "[-0-9. a-z\\n]{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        let mut text: String = header.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
        text += &body;
        let p = dir.path().join("r.asc");
        std::fs::write(&p, text).unwrap();
        let _ = read_raster(&p);
    }
}

#[test]
fn hostile_headers_do_not_allocate_what_the_file_lacks() {
    let dir = tempfile::tempdir().unwrap();
    // 2·10⁹ samples declared, 2 given: an error about the count, not an 8 GB allocation.
    let p = dir.path().join("big.asc");
    std::fs::write(&p, "ncols 50000\nnrows 40000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n").unwrap();
    let e = read_raster(&p).unwrap_err().to_string();
    assert!(e.contains("--max-samples"), "{e}");
    // A .npy declaring a huge shape with no data.
    let p = dir.path().join("big.npy");
    std::fs::write(&p, npy_bytes("<f4", "(100000, 100000)", &[])).unwrap();
    assert!(read_raster(&p).unwrap_err().to_string().contains("--max-samples"));
    // Within the limit, a shape the data does not fill is reported as truncated.
    std::fs::write(&p, npy_bytes("<f4", "(1000, 1000)", &[])).unwrap();
    assert!(read_raster(&p).unwrap_err().to_string().contains("truncated"));
}
