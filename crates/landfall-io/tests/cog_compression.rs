//! Every compression GDAL writes for elevation, against GDAL's own decoding, bit for bit.
//!
//! `tests/data/cog/` holds, for each case below, a GeoTIFF that `gdal_translate` wrote from a small
//! generated DEM (odd size, tiles of 16 so that the edge tiles are partial, a nodata block, NaN
//! samples in the float ones) and GDAL's decoding of it (`<case>.raw`: `gdal_translate -of ENVI`,
//! the samples in their own type, little-endian). The committed files are checked without GDAL;
//! `cases_regenerate_live_with_gdal` writes every case again with the GDAL installed here and checks
//! landfall against that GDAL's decoding (`LANDFALL_WRITE_COG_FIXTURES=1` also replaces the
//! committed files with the new ones).

use landfall_io::{read_raster, stream_geotiff_rows};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Columns and rows of the generated DEM: three tiles of 16 each way, the last ones partial.
const NX: usize = 45;
const NY: usize = 35;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    I16,
    U16,
    I32,
    F32,
    F64,
}

impl Ty {
    fn bytes(self) -> usize {
        match self {
            Ty::I16 | Ty::U16 => 2,
            Ty::I32 | Ty::F32 => 4,
            Ty::F64 => 8,
        }
    }

    fn nodata(self) -> f64 {
        match self {
            Ty::I16 => -32768.0,
            Ty::U16 => 65535.0,
            Ty::I32 => -999999.0,
            Ty::F32 | Ty::F64 => -9999.0,
        }
    }

    /// Little-endian samples of this type → f64.
    fn decode(self, raw: &[u8]) -> Vec<f64> {
        raw.chunks_exact(self.bytes())
            .map(|b| match self {
                Ty::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
                Ty::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
                Ty::I32 => f64::from(i32::from_le_bytes(b.try_into().unwrap())),
                Ty::F32 => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
                Ty::F64 => f64::from_le_bytes(b.try_into().unwrap()),
            })
            .collect()
    }
}

/// One GeoTIFF GDAL writes: its name, sample type and `gdal_translate` options.
struct Case {
    name: &'static str,
    ty: Ty,
    args: &'static [&'static str],
}

/// A COG of tiles of 16 (GDAL warns that 16 is below its usual 128; it writes them all the same).
macro_rules! cog {
    ($($o:literal),*) => { &["-of", "COG", "-co", "BLOCKSIZE=16", $("-co", $o),*] };
}
/// A plain GeoTIFF.
macro_rules! gtiff {
    ($($o:literal),*) => { &["-of", "GTiff", $("-co", $o),*] };
}

const CASES: &[Case] = &[
    Case { name: "f32-none", ty: Ty::F32, args: cog!("COMPRESS=NONE", "OVERVIEWS=NONE") },
    Case { name: "f32-lzw", ty: Ty::F32, args: cog!("COMPRESS=LZW") },
    Case { name: "f32-lzw-p2", ty: Ty::F32, args: cog!("COMPRESS=LZW", "PREDICTOR=2") },
    Case { name: "f32-lzw-p3", ty: Ty::F32, args: cog!("COMPRESS=LZW", "PREDICTOR=3") },
    Case { name: "f32-deflate", ty: Ty::F32, args: cog!("COMPRESS=DEFLATE") },
    Case { name: "f32-deflate-p2", ty: Ty::F32, args: cog!("COMPRESS=DEFLATE", "PREDICTOR=2") },
    Case { name: "f32-deflate-p3", ty: Ty::F32, args: cog!("COMPRESS=DEFLATE", "PREDICTOR=3") },
    Case { name: "f32-zstd", ty: Ty::F32, args: cog!("COMPRESS=ZSTD") },
    Case { name: "f32-zstd-p2", ty: Ty::F32, args: cog!("COMPRESS=ZSTD", "PREDICTOR=2") },
    Case { name: "f32-zstd-p3", ty: Ty::F32, args: cog!("COMPRESS=ZSTD", "PREDICTOR=3") },
    Case { name: "f32-lerc", ty: Ty::F32, args: cog!("COMPRESS=LERC") },
    Case { name: "f32-lerc-z0.01", ty: Ty::F32, args: cog!("COMPRESS=LERC", "MAX_Z_ERROR=0.01") },
    Case { name: "f32-lerc-deflate", ty: Ty::F32, args: cog!("COMPRESS=LERC_DEFLATE") },
    Case { name: "f32-lerc-deflate-z0.05", ty: Ty::F32, args: cog!("COMPRESS=LERC_DEFLATE", "MAX_Z_ERROR=0.05") },
    Case { name: "f32-lerc-zstd", ty: Ty::F32, args: cog!("COMPRESS=LERC_ZSTD") },
    Case { name: "f32-lerc-zstd-z0.01", ty: Ty::F32, args: cog!("COMPRESS=LERC_ZSTD", "MAX_Z_ERROR=0.01") },
    Case { name: "f32-zstd-sparse", ty: Ty::F32, args: cog!("COMPRESS=ZSTD", "SPARSE_OK=TRUE") },
    Case { name: "f64-deflate-p3", ty: Ty::F64, args: cog!("COMPRESS=DEFLATE", "PREDICTOR=3") },
    Case { name: "f64-zstd-p2", ty: Ty::F64, args: cog!("COMPRESS=ZSTD", "PREDICTOR=2") },
    Case { name: "f64-lerc", ty: Ty::F64, args: cog!("COMPRESS=LERC") },
    Case { name: "f64-lerc-zstd-z0.001", ty: Ty::F64, args: cog!("COMPRESS=LERC_ZSTD", "MAX_Z_ERROR=0.001") },
    Case { name: "i16-none", ty: Ty::I16, args: cog!("COMPRESS=NONE", "OVERVIEWS=NONE") },
    Case { name: "i16-lzw-p2", ty: Ty::I16, args: cog!("COMPRESS=LZW", "PREDICTOR=2") },
    Case { name: "i16-deflate-p2", ty: Ty::I16, args: cog!("COMPRESS=DEFLATE", "PREDICTOR=2") },
    Case { name: "i16-zstd-p2", ty: Ty::I16, args: cog!("COMPRESS=ZSTD", "PREDICTOR=2") },
    Case { name: "i16-lerc", ty: Ty::I16, args: cog!("COMPRESS=LERC") },
    Case { name: "i16-lerc-z2", ty: Ty::I16, args: cog!("COMPRESS=LERC", "MAX_Z_ERROR=2") },
    Case { name: "i16-lerc-deflate", ty: Ty::I16, args: cog!("COMPRESS=LERC_DEFLATE") },
    Case { name: "u16-zstd-p2", ty: Ty::U16, args: cog!("COMPRESS=ZSTD", "PREDICTOR=2") },
    Case { name: "u16-lerc-zstd", ty: Ty::U16, args: cog!("COMPRESS=LERC_ZSTD") },
    Case { name: "i32-deflate-p2", ty: Ty::I32, args: cog!("COMPRESS=DEFLATE", "PREDICTOR=2") },
    Case { name: "i32-lerc", ty: Ty::I32, args: cog!("COMPRESS=LERC") },
    // Strips of 10 rows: LERC and the predictors on whole-width rows, the last strip short.
    Case {
        name: "f32-strips-lerc-zstd-z0.01",
        ty: Ty::F32,
        args: gtiff!("BLOCKYSIZE=10", "COMPRESS=LERC_ZSTD", "MAX_Z_ERROR=0.01"),
    },
    Case { name: "f32-strips-zstd-p3", ty: Ty::F32, args: gtiff!("BLOCKYSIZE=10", "COMPRESS=ZSTD", "PREDICTOR=3") },
    Case { name: "i16-strips-lzw-p2", ty: Ty::I16, args: gtiff!("BLOCKYSIZE=10", "COMPRESS=LZW", "PREDICTOR=2") },
    // PACKBITS (GTiff only), decoded by the tiff crate: strips, and tiles with partial edges.
    Case { name: "i16-strips-packbits", ty: Ty::I16, args: gtiff!("BLOCKYSIZE=10", "COMPRESS=PACKBITS") },
    Case {
        name: "f32-packbits",
        ty: Ty::F32,
        args: gtiff!("TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=PACKBITS"),
    },
    // Big-endian files: the byte order under each predictor.
    Case {
        name: "f32-be-deflate-p3",
        ty: Ty::F32,
        args: gtiff!(
            "ENDIANNESS=BIG",
            "TILED=YES",
            "BLOCKXSIZE=16",
            "BLOCKYSIZE=16",
            "COMPRESS=DEFLATE",
            "PREDICTOR=3"
        ),
    },
    Case {
        name: "f32-be-lzw-p2",
        ty: Ty::F32,
        args: gtiff!("ENDIANNESS=BIG", "BLOCKYSIZE=10", "COMPRESS=LZW", "PREDICTOR=2"),
    },
    Case {
        name: "i16-be-zstd-p2",
        ty: Ty::I16,
        args: gtiff!("ENDIANNESS=BIG", "BLOCKYSIZE=10", "COMPRESS=ZSTD", "PREDICTOR=2"),
    },
    Case { name: "f64-be-none", ty: Ty::F64, args: gtiff!("ENDIANNESS=BIG", "BLOCKYSIZE=10", "COMPRESS=NONE") },
    Case {
        name: "f64-be-lerc-deflate",
        ty: Ty::F64,
        args: gtiff!("ENDIANNESS=BIG", "BLOCKYSIZE=10", "COMPRESS=LERC_DEFLATE"),
    },
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cog")
}

/// The generated DEM of `ty`, north row first: a landscape with centimetre detail, a nodata block
/// that covers the north-west tile whole (a sparse file leaves it out), and (floats) NaN samples.
fn dem(ty: Ty) -> Vec<f64> {
    let mut v = Vec::with_capacity(NX * NY);
    for r in 0..NY {
        for c in 0..NX {
            let (x, y) = (c as f64, r as f64);
            let noise = ((c * 7919 + r * 104729) % 97) as f64 / 97.0 - 0.5;
            let h = 812.37 + 140.0 * (x / 9.0).sin() * (y / 7.0).cos() + 0.37 * x - 0.21 * y + 0.2 * noise;
            let value = match ty {
                Ty::F32 => (h * 100.0).round() / 100.0,
                Ty::F64 => h + 1e-9 * noise,
                Ty::I16 => ((h - 800.0) * 10.0).round(),
                Ty::U16 => (h * 10.0).round(),
                Ty::I32 => (h * 1000.0).round(),
            };
            let hole = r < 16 && c < 16 || (r == 20 && (3..9).contains(&c));
            let nan = matches!(ty, Ty::F32 | Ty::F64) && ((r, c) == (20, 40) || (r, c) == (33, 44));
            v.push(if hole {
                ty.nodata()
            } else if nan {
                f64::NAN
            } else {
                value
            });
        }
    }
    v
}

/// Writes the DEM of `ty` as a plain GeoTIFF (strips, no compression) with its nodata tag.
fn write_source(path: &Path, ty: Ty) {
    use tiff::encoder::colortype::{Gray16, Gray32Float, Gray64Float, GrayI16, GrayI32};
    use tiff::tags::Tag;
    let v = dem(ty);
    let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
    macro_rules! write {
        ($c:ty, $t:ty) => {{
            let mut img = enc.new_image::<$c>(NX as u32, NY as u32).unwrap();
            img.encoder().write_tag(Tag::ModelPixelScaleTag, &[2.0f64, 2.0, 0.0][..]).unwrap();
            img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 500000.0, 4200000.0, 0.0][..]).unwrap();
            img.encoder().write_tag(Tag::GdalNodata, &*format!("{}", ty.nodata())).unwrap();
            let data: Vec<$t> = v.iter().map(|&x| x as $t).collect();
            img.write_data(&data).unwrap();
        }};
    }
    match ty {
        Ty::I16 => write!(GrayI16, i16),
        Ty::U16 => write!(Gray16, u16),
        Ty::I32 => write!(GrayI32, i32),
        Ty::F32 => write!(Gray32Float, f32),
        Ty::F64 => write!(Gray64Float, f64),
    }
}

/// Checks landfall's reading of `tif` against GDAL's samples `raw` (file order, `ty`, little-endian):
/// the streamed rows bit for bit, and the whole-raster read (nodata and NaN as holes).
fn check(name: &str, ty: Ty, tif: &Path, raw: &[u8]) {
    let want = ty.decode(raw);
    assert_eq!(want.len(), NX * NY, "{name}: GDAL's decoding has {} samples", want.len());
    let mut got = Vec::with_capacity(NX * NY);
    let (nx, ny) = stream_geotiff_rows(tif, |_, row| {
        got.extend_from_slice(row);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!((nx, ny), (NX, NY), "{name}");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits(),
            "{name}: sample (row {}, column {}): landfall {g:?}, GDAL {w:?}",
            k / NX,
            k % NX
        );
    }
    let r = read_raster(tif).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!((r.nx, r.ny), (NX, NY));
    for (k, w) in want.iter().enumerate() {
        let (row, col) = (k / NX, k % NX);
        let h = r.values[(NY - 1 - row) * NX + col];
        let hole = w.is_nan() || *w == ty.nodata();
        assert!(
            if hole { h.is_nan() } else { h.to_bits() == (*w as f32).to_bits() },
            "{name}: whole read, pixel (row {row}, column {col}): {h} for GDAL's {w}"
        );
    }
}

#[test]
fn committed_cases_match_gdal_bit_for_bit() {
    for case in CASES {
        let tif = fixtures().join(format!("{}.tif", case.name));
        let raw = std::fs::read(fixtures().join(format!("{}.raw", case.name)))
            .unwrap_or_else(|e| panic!("{}: {e} (regenerate with LANDFALL_WRITE_COG_FIXTURES=1)", case.name));
        check(case.name, case.ty, &tif, &raw);
    }
}

/// Whether `gdal_translate` runs; in CI (`LANDFALL_CI=1`) its absence fails the test.
fn have_gdal(test: &str) -> bool {
    let ok = Command::new("gdal_translate").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("LANDFALL_CI").as_deref() != Ok("1"),
            "{test}: gdal_translate is missing in CI (apt-get install gdal-bin)"
        );
        eprintln!("skipped {test}: gdal_translate is not installed (apt-get install gdal-bin)");
    }
    ok
}

fn gdal_translate(args: &[&str], from: &Path, to: &Path) {
    let out = Command::new("gdal_translate").arg("-q").args(args).arg(from).arg(to).output().unwrap();
    assert!(out.status.success(), "gdal_translate {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn cases_regenerate_live_with_gdal() {
    if !have_gdal("cases_regenerate_live_with_gdal") {
        return;
    }
    let write = std::env::var("LANDFALL_WRITE_COG_FIXTURES").as_deref() == Ok("1");
    let d = tempfile::tempdir().unwrap();
    for ty in [Ty::I16, Ty::U16, Ty::I32, Ty::F32, Ty::F64] {
        write_source(&d.path().join(format!("{ty:?}.tif")), ty);
    }
    for case in CASES {
        let src = d.path().join(format!("{:?}.tif", case.ty));
        let tif = d.path().join(format!("{}.tif", case.name));
        gdal_translate(case.args, &src, &tif);
        let envi = d.path().join(format!("{}.envi", case.name));
        gdal_translate(&["-of", "ENVI"], &tif, &envi);
        let raw = std::fs::read(&envi).unwrap();
        check(case.name, case.ty, &tif, &raw);
        if write {
            std::fs::create_dir_all(fixtures()).unwrap();
            std::fs::copy(&tif, fixtures().join(format!("{}.tif", case.name))).unwrap();
            std::fs::write(fixtures().join(format!("{}.raw", case.name)), &raw).unwrap();
        }
    }
}
