//! Compressed GeoTIFF chunks that lie: bombs, counts past the file, corrupt or mismatched LERC
//! blobs, unknown compressions. Each is an error naming the file and the chunk (never a panic, never
//! an allocation of what the file claims), whether the raster is read whole or streamed.

use landfall::support::SplitMix64;
use landfall_io::{read_raster, stream_geotiff_rows};
use std::path::Path;

/// A little-endian classic TIFF of one band: `nx × ny` samples of `bits` bits and SampleFormat
/// `format`, stored as `chunks` — strips of `rows` rows, or tiles when `tile` is set — with these
/// tags; `counts` replaces the true byte counts when set.
#[derive(Clone)]
struct Tiff {
    nx: u32,
    ny: u32,
    bits: u16,
    format: u16,
    compression: u16,
    predictor: u16,
    lerc: Option<[u32; 2]>,
    tile: Option<u32>,
    rows: u32,
    chunks: Vec<Vec<u8>>,
    counts: Option<Vec<u32>>,
}

impl Tiff {
    /// One strip of 4 × 3 f32 samples stored with `compression`.
    fn strip(compression: u16, data: Vec<u8>) -> Self {
        Tiff {
            nx: 4,
            ny: 3,
            bits: 32,
            format: 3,
            compression,
            predictor: 1,
            lerc: None,
            tile: None,
            rows: 3,
            chunks: vec![data],
            counts: None,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for c in &self.chunks {
            offsets.push(8 + data.len() as u32);
            data.extend_from_slice(c);
        }
        let counts = self.counts.clone().unwrap_or_else(|| self.chunks.iter().map(|c| c.len() as u32).collect());
        let mut out = b"II*\0".to_vec();
        let ifd = 8 + data.len() as u32;
        out.extend(ifd.to_le_bytes());
        out.extend(&data);
        // Entries (tag, type, count, value or offset), sorted by tag; arrays after the IFD.
        let mut entries: Vec<(u16, u16, Vec<u32>)> = vec![
            (256, 4, vec![self.nx]),
            (257, 4, vec![self.ny]),
            (258, 3, vec![self.bits as u32]),
            (259, 3, vec![self.compression as u32]),
            (262, 3, vec![1]),
            (277, 3, vec![1]),
            (317, 3, vec![self.predictor as u32]),
            (339, 3, vec![self.format as u32]),
        ];
        match self.tile {
            Some(t) => entries.extend([(322, 4, vec![t]), (323, 4, vec![t]), (324, 4, offsets), (325, 4, counts)]),
            None => entries.extend([(273, 4, offsets), (278, 4, vec![self.rows]), (279, 4, counts)]),
        }
        if let Some(l) = self.lerc {
            entries.push((50674, 4, l.to_vec()));
        }
        entries.sort_by_key(|e| e.0);
        let mut tail = Vec::new();
        let tail_at = ifd + 2 + 12 * entries.len() as u32 + 4;
        out.extend((entries.len() as u16).to_le_bytes());
        for (tag, ty, values) in &entries {
            out.extend(tag.to_le_bytes());
            out.extend(ty.to_le_bytes());
            out.extend((values.len() as u32).to_le_bytes());
            let packed: Vec<u8> = if *ty == 3 {
                values.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect()
            } else {
                values.iter().flat_map(|v| v.to_le_bytes()).collect()
            };
            if packed.len() <= 4 {
                let mut v = packed.clone();
                v.resize(4, 0);
                out.extend(v);
            } else {
                out.extend((tail_at + tail.len() as u32).to_le_bytes());
                tail.extend(packed);
            }
        }
        out.extend(0u32.to_le_bytes());
        out.extend(tail);
        out
    }
}

/// Reads `bytes` as a GeoTIFF both ways; returns the whole read's values or both errors' texts,
/// which must be the same and name the file.
fn read(bytes: &[u8]) -> Result<Vec<f32>, String> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("hostile.tif");
    std::fs::write(&p, bytes).unwrap();
    let whole = read_raster(&p);
    let streamed = stream_geotiff_rows(&p, |_, _| Ok(()));
    match (whole, streamed) {
        (Ok(r), Ok(_)) => Ok(r.values),
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), b.to_string());
            assert_eq!(a, b, "the whole read and the stream disagree");
            assert!(a.contains("hostile.tif"), "{a}");
            Err(a)
        }
        (a, b) => panic!("whole read {:?}, stream {:?}", a.map(|_| ()), b.map(|_| ())),
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const VALUES: [f32; 12] = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5];

/// The 4 × 3 values as a whole read returns them (row 0 south).
fn south_first(v: &[f32]) -> Vec<f32> {
    v.chunks(4).rev().flatten().copied().collect()
}

#[test]
fn the_hand_built_files_read() {
    let raw = f32_bytes(&VALUES);
    assert_eq!(read(&Tiff::strip(1, raw.clone()).bytes()).unwrap(), south_first(&VALUES));
    let z = zstd::bulk::compress(&raw, 3).unwrap();
    assert_eq!(read(&Tiff::strip(50000, z).bytes()).unwrap(), south_first(&VALUES));
    let blob = lerc::encode_slice(4, 3, &VALUES, lerc::Precision::Lossless).unwrap();
    assert_eq!(read(&Tiff::strip(34887, blob).bytes()).unwrap(), south_first(&VALUES));
}

#[test]
fn bombs_cost_one_chunk() {
    let zeros = vec![0u8; 64 << 20];
    // A ZSTD frame of 64 MiB for a 48-byte strip: refused, without decoding it.
    let e = read(&Tiff::strip(50000, zstd::bulk::compress(&zeros, 19).unwrap()).bytes()).unwrap_err();
    assert!(e.contains("strip 0") && e.contains("ZSTD"), "{e}");
    // LERC_ZSTD: the blob inside may not outgrow a blob's room.
    let mut t = Tiff::strip(34887, zstd::bulk::compress(&zeros, 19).unwrap());
    t.lerc = Some([4, 2]);
    let e = read(&t.bytes()).unwrap_err();
    assert!(e.contains("strip 0") && e.contains("ZSTD"), "{e}");
    // Deflate is cut at the chunk's size, as libtiff cuts it: 64 MiB of zeros (325 KB stored) read
    // as the 256 × 256 zeros of the strip.
    let d = fdeflate::compress_to_vec(&zeros);
    let mut t = Tiff::strip(8, d.clone());
    (t.nx, t.ny, t.rows) = (256, 256, 256);
    assert_eq!(read(&t.bytes()).unwrap(), vec![0.0; 256 * 256]);
    // The 4 × 3 strip cannot need that many bytes.
    let e = read(&Tiff::strip(8, d.clone()).bytes()).unwrap_err();
    assert!(e.contains("more than a chunk of 48 bytes can need"), "{e}");
    // Inside LERC_DEFLATE, cut at a blob's room, the first bytes are no LERC blob.
    (t.compression, t.lerc) = (34887, Some([4, 1]));
    let e = read(&t.bytes()).unwrap_err();
    assert!(e.contains("strip 0") && e.contains("LERC"), "{e}");
}

#[test]
fn counts_that_lie_are_refused_before_reading() {
    let raw = f32_bytes(&VALUES);
    for (count, want) in [(u32::MAX, "more than a chunk"), (1 << 16, "past the end of the file")] {
        let mut t = Tiff::strip(8, fdeflate::compress_to_vec(&raw));
        t.counts = Some(vec![count]);
        let e = read(&t.bytes()).unwrap_err();
        assert!(e.contains("strip 0") && e.contains(want), "{e}");
    }
    // Short data: a stored strip of 40 bytes for 48, a Deflate stream cut short.
    let e = read(&Tiff::strip(1, raw[..40].to_vec()).bytes()).unwrap_err();
    assert!(e.contains("strip 0") && e.contains("40 bytes, 48 expected"), "{e}");
    let d = fdeflate::compress_to_vec(&raw);
    let e = read(&Tiff::strip(8, d[..d.len() / 2].to_vec()).bytes()).unwrap_err();
    assert!(e.contains("strip 0") && e.contains("Deflate"), "{e}");
    // Fewer offsets than chunks.
    let mut t = Tiff::strip(1, raw.clone());
    t.rows = 1;
    let e = read(&t.bytes()).unwrap_err();
    assert!(e.contains("StripOffsets") || e.contains("not a readable TIFF"), "{e}");
}

#[test]
fn lerc_blobs_that_lie_are_refused() {
    let blob = lerc::encode_slice(4, 3, &VALUES, lerc::Precision::Lossless).unwrap();
    let lerc = |b: Vec<u8>| read(&Tiff::strip(34887, b).bytes()).unwrap_err();
    // A changed byte past the checksummed header.
    let mut bad = blob.clone();
    let k = bad.len() - 3;
    bad[k] ^= 0x55;
    let e = lerc(bad);
    assert!(e.contains("strip 0") && e.contains("checksum"), "{e}");
    // Cut short.
    let e = lerc(blob[..blob.len() - 5].to_vec());
    assert!(e.contains("strip 0") && e.contains("LERC"), "{e}");
    // The wrong size, type, or length for the chunk.
    let e = lerc(lerc::encode_slice(3, 3, &VALUES[..9], lerc::Precision::Lossless).unwrap());
    assert!(e.contains("LERC blob is 3 × 3 samples, the chunk 4 × 3"), "{e}");
    let ints: Vec<i16> = (0..12).collect();
    let e = lerc(lerc::encode_slice(4, 3, &ints, lerc::Precision::Lossless).unwrap());
    assert!(e.contains("LERC blob holds i16, the TIFF says f32"), "{e}");
    let mut long = blob.clone();
    long.extend([0; 7]);
    let e = lerc(long);
    assert!(e.contains("the chunk has"), "{e}");
    // Garbage.
    let e = lerc(vec![0x4c; 40]);
    assert!(e.contains("LERC"), "{e}");
}

#[test]
fn lerc_masks_are_holes() {
    let mut mask = lerc::bitmask::BitMask::all_valid(12);
    mask.set_invalid(5);
    // Floats: NaN, as libtiff writes it.
    let blob = lerc::encode_slice_masked(4, 3, &VALUES, &mask, lerc::Precision::Lossless).unwrap();
    let v = read(&Tiff::strip(34887, blob).bytes()).unwrap();
    let mut want = VALUES;
    want[5] = f32::NAN;
    assert_eq!(
        v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        south_first(&want).iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    // Integers: a hole too (libtiff leaves them unspecified).
    let ints: Vec<i16> = (0..12).map(|k| k * 3 - 7).collect();
    let mut t = Tiff::strip(34887, lerc::encode_slice_masked(4, 3, &ints, &mask, lerc::Precision::Lossless).unwrap());
    (t.bits, t.format) = (16, 2);
    let v = read(&t.bytes()).unwrap();
    let want: Vec<f32> = (0..12).map(|k| if k == 5 { f32::NAN } else { ints[k] as f32 }).collect();
    assert_eq!(
        v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        south_first(&want).iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn unknown_compressions_and_predictors_name_the_tag() {
    let raw = f32_bytes(&VALUES);
    let e = read(&Tiff::strip(34925, raw.clone()).bytes()).unwrap_err();
    assert!(e.contains("Compression") && e.contains("LZMA"), "{e}");
    let mut t = Tiff::strip(34887, raw.clone());
    t.lerc = Some([4, 7]);
    assert!(read(&t.bytes()).unwrap_err().contains("LercParameters"));
    let mut t = Tiff::strip(8, fdeflate::compress_to_vec(&raw));
    (t.bits, t.format, t.predictor) = (16, 2, 3);
    let e = read(&t.bytes()).unwrap_err();
    assert!(e.contains("Predictor"), "{e}");
}

/// As libtiff (and so GDAL) reads them: a predictor on uncompressed samples is ignored, and a
/// GDAL_NODATA near ±f32::MAX ("-3.40282e+38", as GDAL writes it to six digits) matches the
/// samples near it, as GDAL's float comparison does: within a hundred-thousandth.
#[test]
fn predictors_on_raw_samples_and_nodata_near_the_largest_float() {
    let mut t = Tiff::strip(1, f32_bytes(&VALUES));
    t.predictor = 3;
    assert_eq!(read(&t.bytes()).unwrap(), south_first(&VALUES));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fmax.tif");
    let values = [-f32::MAX, 5.0, f32::MAX, -f32::MAX];
    let geo = landfall_io::GeoRef { origin: (0.0, 0.0), spacing: (1.0, 1.0) };
    for (nodata, holes) in [
        (-3.402823e38, [true, false, false, true]),
        (3.4028235e38, [false, false, true, false]),
        (-3.40282e38, [true, false, false, true]),
        (3.4028e38, [false, false, true, false]),
        (3.4e38, [false; 4]),
    ] {
        landfall_io::write_geotiff(&path, 2, 2, landfall_io::Band::F32(&values), &geo, Some(nodata), None).unwrap();
        let r = read_raster(&path).unwrap();
        let got: Vec<bool> = r.values.iter().map(|h| h.is_nan()).collect();
        assert_eq!(got, holes, "nodata {nodata}");
    }
}

/// Bytes changed at random in every committed GDAL file: an error naming the file, or samples.
#[test]
fn corrupted_gdal_files_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cog");
    let mut rng = SplitMix64::new(68);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "tif"));
    files.sort();
    assert!(files.len() >= 30);
    for p in files {
        let good = std::fs::read(&p).unwrap();
        for _ in 0..40 {
            let mut b = good.clone();
            // Mostly in the chunks (past the header and directories), a few anywhere.
            for _ in 0..1 + (rng.uniform() * 4.0) as usize {
                let k = (rng.uniform() * b.len() as f64) as usize;
                b[k] ^= 1 << (rng.uniform() * 8.0) as u32;
            }
            if rng.uniform() < 0.2 {
                b.truncate((rng.uniform() * b.len() as f64) as usize);
            }
            let d = tempfile::tempdir().unwrap();
            let f = d.path().join("hostile.tif");
            std::fs::write(&f, &b).unwrap();
            if let Err(e) = read_raster(&f) {
                assert!(e.to_string().contains("hostile.tif"), "{e}");
            }
            if let Err(e) = stream_geotiff_rows(&f, |_, _| Ok(())) {
                assert!(e.to_string().contains("hostile.tif"), "{e}");
            }
        }
    }
}

/// Streaming decodes the next strip on a second thread while the caller uses the current one: the
/// rows still come in order, and an error on either side — the caller's own at some row, or a
/// later strip that lies — stops the stream with that error after the rows before it, never a hang.
#[test]
fn a_stream_stops_at_the_first_error_on_either_side() {
    let raw = f32_bytes(&VALUES);
    // Three strips of one row each.
    let mut t = Tiff::strip(1, vec![]);
    t.rows = 1;
    t.chunks = raw.chunks(16).map(<[u8]>::to_vec).collect();
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("strips.tif");
    std::fs::write(&p, t.bytes()).unwrap();
    let mut rows = vec![];
    stream_geotiff_rows(&p, |r, v| {
        rows.push((r, v.iter().map(|&x| x as f32).collect::<Vec<_>>()));
        Ok(())
    })
    .unwrap();
    let want: Vec<_> = VALUES.chunks(4).enumerate().map(|(r, v)| (r, v.to_vec())).collect();
    assert_eq!(rows, want);
    // The caller's error at each row.
    for stop in 0..3 {
        let mut seen = vec![];
        let e = stream_geotiff_rows(&p, |r, _| {
            seen.push(r);
            if r == stop {
                let error = std::io::Error::other(format!("row {r}: stop here"));
                return Err(landfall_io::IoError::Os { path: p.clone(), error });
            }
            Ok(())
        })
        .unwrap_err();
        assert!(e.to_string().contains(&format!("row {stop}")), "{e}");
        assert_eq!(seen, (0..=stop).collect::<Vec<_>>());
    }
    // The last strip's count runs past the file: rows 0 and 1 come, then its error.
    t.counts = Some(vec![16, 16, 1 << 16]);
    std::fs::write(&p, t.bytes()).unwrap();
    let mut seen = vec![];
    let e = stream_geotiff_rows(&p, |r, _| {
        seen.push(r);
        Ok(())
    })
    .unwrap_err();
    assert!(e.to_string().contains("strip 2") && e.to_string().contains("past the end of the file"), "{e}");
    assert_eq!(seen, [0, 1]);
}

/// A GDAL internal nodata mask (`GDAL_TIFF_INTERNAL_MASK=YES`, 4 × 4, the sample at row 1,
/// column 1 masked) is not read: said in a note, never silently.
#[test]
fn an_internal_mask_is_said() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/internal-mask.tif");
    let r = read_raster(&path).unwrap();
    assert_eq!((r.nx, r.ny), (4, 4));
    assert!(r.notes.iter().any(|n| n.contains("internal nodata mask") && n.contains("gdalwarp")), "{:?}", r.notes);
    let plain = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cog/f32-deflate.tif");
    assert!(read_raster(&plain).unwrap().notes.is_empty());
}

/// A sparse file with every tile left out (`gdal_create -co SPARSE_OK=TRUE`, 272 bytes claiming
/// 64 × 64 samples) is refused before anything is allocated for it.
#[test]
fn a_sparse_file_of_nothing_is_refused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sparse-empty.tif");
    let e = read_raster(&path).unwrap_err().to_string();
    assert!(e.contains("sparse-empty.tif") && e.contains("all 16 chunks are absent"), "{e}");
    let e = stream_geotiff_rows(&path, |_, _| Ok(())).unwrap_err().to_string();
    assert!(e.contains("absent"), "{e}");
}

/// GDAL's scale and offset (`gdal_translate -ot Int16 -a_scale 0.1 -a_offset 100`, nodata -9999):
/// heights are stored × 0.1 + 100 as GDAL and QGIS read them, said in a note; the nodata sample is
/// still a hole.
#[test]
fn gdal_scale_and_offset_are_applied() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scaled-int16.tif");
    let r = read_raster(&path).unwrap();
    // North row first in the file: 1 2 3 4 / 5 -9999 7 8 / 9 10 11 12 / 13 14 15 16.
    let stored = [13, 14, 15, 16, 9, 10, 11, 12, 5, -9999, 7, 8, 1, 2, 3, 4];
    for (h, s) in r.values.iter().zip(stored) {
        if s == -9999 {
            assert!(h.is_nan());
        } else {
            assert_eq!(*h, (s as f64 * 0.1 + 100.0) as f32);
        }
    }
    assert!(r.notes.iter().any(|n| n.contains("scale 0.1") && n.contains("offset 100")), "{:?}", r.notes);
    let mut rows = Vec::new();
    stream_geotiff_rows(&path, |_, v| {
        rows.extend_from_slice(v);
        Ok(())
    })
    .unwrap();
    let want: Vec<f64> = (1..=4).map(|s| s as f64 * 0.1 + 100.0).collect();
    assert_eq!(rows[..4], want[..]);
}
