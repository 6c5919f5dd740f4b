//! Hostile input and interruptions, each case as a user met it: a clear error (exit status 1, never a
//! panic's 101 or a signal), no hang, no memory bomb, and the user's files intact.

use crate::common;

use common::{entries, gltf, ok, refused, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn terrain(dir: &Path) -> PathBuf {
    let p = dir.join("t.asc");
    std::fs::write(&p, "ncols 3\nnrows 3\nxllcenter 0\nyllcenter 0\ncellsize 1\n1 2 3\n4 5 6\n7 8 9\n").unwrap();
    p
}

fn npy(descr: &str, shape: &str) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(dict.len() as u16 + 1).to_le_bytes());
    b.extend_from_slice(dict.as_bytes());
    b.push(b'\n');
    b.extend_from_slice(&[0u8; 64]);
    b
}

#[test]
fn malformed_npy_headers_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("a.npy");
    for (descr, shape) in [("<f4", ")"), ("<f4", "(é, 3)"), ("é4", "(3, 3)"), ("<f4", "(3, 3é"), ("<f4", "")] {
        std::fs::write(&p, npy(descr, shape)).unwrap();
        let e = refused(&["info", s(&p)]);
        assert!(e.contains("a.npy"), "{e}");
    }
}

#[test]
fn hostile_gltf_accessors_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let good = gltf(d.path(), "", "", "tri.bin");
    ok(&["info", s(&good)]);
    let short_stride = gltf(d.path(), "", r#","byteStride":4"#, "tri.bin");
    assert!(refused(&["info", s(&short_stride)]).contains("byteStride 4"));
    let past = gltf(d.path(), r#","byteOffset":24"#, "", "tri.bin");
    assert!(refused(&["info", s(&past)]).contains("run past"));
    let vec2 = gltf(d.path(), "", "", "tri.bin").to_path_buf();
    let text = std::fs::read_to_string(&vec2)
        .unwrap()
        .replace(r#""type":"VEC3""#, r#""type":"VEC2""#)
        .replace("[0,0,0]", "[0,0]")
        .replace("[1,1,0]", "[1,1]");
    std::fs::write(&vec2, text).unwrap();
    let e = refused(&["info", s(&vec2)]);
    assert!(e.contains("VEC3 of f32") || e.contains("POSITION"), "{e}");
    let bytes = gltf(d.path(), "", "", "tri.bin");
    let text = std::fs::read_to_string(&bytes).unwrap().replace("5126", "5121");
    std::fs::write(&bytes, text).unwrap();
    let e = refused(&["info", s(&bytes)]);
    assert!(e.contains("VEC3 of f32") || e.contains("POSITION"), "{e}");
    // An absolute path is refused before it is opened (a buffer stays in the model's folder).
    let zero = gltf(d.path(), "", "", "/dev/zero");
    assert!(refused(&["info", s(&zero)]).contains("model's folder"));
}

#[test]
fn world_at_the_limits_of_f64_is_refused_not_panicking() {
    assert!(refused(&["world", "--east", "1e300", "--frames", "1"]).contains("within"));
    assert!(refused(&["world", "--east", "-1e300", "--frames", "1"]).contains("within"));
    assert!(refused(&["world", "--cell-size", "1e-300", "--frames", "1"]).contains("--cell-size"));
    assert!(refused(&["demo", "--size", "100000"]).contains("--size"));
}

/// `--out` naming an input (the index being read, the points) is refused and the input is intact:
/// writing it in place truncated the memory-mapped index under the reader (SIGBUS).
#[test]
fn an_output_that_is_an_input_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let index = d.path().join("y.lfq");
    ok(&["build", s(&t), "-o", s(&index)]);
    let before = std::fs::read(&index).unwrap();
    let pts = d.path().join("p.csv");
    std::fs::write(&pts, "x,y\n0.5,0.5\n").unwrap();
    assert!(refused(&["height", s(&index), "--points", s(&pts), "--out", s(&index)]).contains("also an input"));
    assert_eq!(std::fs::read(&index).unwrap(), before);
    assert!(refused(&["height", s(&t), "--points", s(&pts), "--out", s(&pts)]).contains("also an input"));
    assert_eq!(std::fs::read_to_string(&pts).unwrap(), "x,y\n0.5,0.5\n");
    let rays = d.path().join("r.csv");
    std::fs::write(&rays, "ox,oy,oz,dx,dy,dz\n0.5,0.5,10,0,0,-1\n").unwrap();
    assert!(refused(&["raycast", s(&t), "--rays", s(&rays), "--out", s(&t)]).contains("also an input"));
    assert!(refused(&["build", s(&t), "-o", s(&t)]).contains("also an input"));
    assert!(std::fs::read_to_string(&t).unwrap().starts_with("ncols 3"));
}

/// A bad row leaves the previous output file as it was, and no temporary file behind.
#[test]
fn a_failed_run_keeps_the_old_output() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (pts, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&pts, "x,y\n0.5,0.5\n").unwrap();
    ok(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]);
    let good = std::fs::read_to_string(&out).unwrap();
    std::fs::write(&pts, "x,y\n0.5,0.5\nnan,1\n").unwrap();
    assert!(refused(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]).contains("line 3"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), good);
    let names = entries(d.path());
    assert_eq!(names.len(), 3, "{names:?}");
}

/// Killed midway (SIGKILL, SIGTERM, SIGINT), a run leaves the old output whole and nothing else.
#[cfg(unix)]
#[test]
fn an_interrupted_run_keeps_the_old_output() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (pts, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    let mut text = String::from("x,y\n");
    for k in 0..3_000_000 {
        text += &format!("{},{}\n", (k % 97) as f64 * 0.02, (k % 89) as f64 * 0.02);
    }
    std::fs::write(&pts, text).unwrap();
    std::fs::write(&out, "old,complete\n").unwrap();
    for signal in ["KILL", "TERM", "INT"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_landfall"))
            .args(["height", s(&t), "--points", s(&pts), "--out", s(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        let status = child.wait().unwrap();
        if status.success() {
            // Finished before the signal came: the output is the whole new one.
            assert!(std::fs::read_to_string(&out).unwrap().starts_with("x,y,z,nx,ny,nz"));
            std::fs::write(&out, "old,complete\n").unwrap();
        } else {
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "old,complete\n", "after SIG{signal}");
        }
        let names = entries(d.path());
        assert_eq!(names.len(), 3, "after SIG{signal}: {names:?}");
    }
}

/// Devices, symbolic links to them and FIFOs as terrains: refused at once, never read until memory
/// runs out, never blocking.
#[cfg(unix)]
#[test]
fn non_regular_terrain_files_are_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    for ext in ["npy", "obj", "gltf", "asc", "tif", "png", "npz", "lfq"] {
        let link = d.path().join(format!("zero.{ext}"));
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let start = Instant::now();
        assert!(refused(&["info", s(&link)]).contains("regular file"), "{ext}");
        assert!(start.elapsed() < Duration::from_secs(10));
    }
    let fifo = d.path().join("f.asc");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        let start = Instant::now();
        assert!(refused(&["info", s(&fifo)]).contains("regular file"));
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}

/// A CSV batch from a device is refused, and one line longer than 1 MiB stops the read (a stream
/// without newlines would otherwise be buffered whole by the csv reader).
#[cfg(unix)]
#[test]
fn unbounded_csv_streams_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let out = d.path().join("o.csv");
    let e = refused(&["height", s(&t), "--points", "/dev/zero", "--out", s(&out)]);
    assert!(e.contains("device"), "{e}");
    let long = d.path().join("long.csv");
    std::fs::write(&long, format!("x,y\n{}\n", "1".repeat(3 << 20))).unwrap();
    let e = refused(&["height", s(&t), "--points", s(&long), "--out", s(&out)]);
    assert!(e.contains("longer than"), "{e}");
    let e = refused(&["proximity", "--objects", s(&long), "--out", s(&out)]);
    assert!(e.contains("longer than") || e.contains("missing column"), "{e}");
}

/// Sizes a file declares are checked against --max-samples before anything is allocated.
#[test]
fn declared_sizes_beyond_the_limit_are_refused() {
    let d = tempfile::tempdir().unwrap();
    // An .npz member of 8 MB (it compresses to a few KB) under a limit of 1,000 samples.
    let npz = d.path().join("z.npz");
    {
        let f = std::fs::File::create(&npz).unwrap();
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        z.start_file("topo.npy", opts).unwrap();
        let mut body = npy("<f4", "(1000, 2000)");
        body.resize(body.len() + 8_000_000 - 64, 0);
        std::io::Write::write_all(&mut z, &body).unwrap();
        z.finish().unwrap();
    }
    let e = refused(&["info", s(&npz), "--max-samples", "1000"]);
    assert!(e.contains("--max-samples"), "{e}");
    ok(&["info", s(&npz)]);
    // Members whose headers claim more than they hold: 1.6·10⁹ samples (refused by its shape,
    // before inflating), and 4·10⁸ samples in a few bytes (truncated, without reserving 1.6 GB).
    for (shape, says) in [("(40000, 40000)", "--max-samples"), ("(20000, 20000)", "truncated")] {
        let f = std::fs::File::create(&npz).unwrap();
        let mut z = zip::ZipWriter::new(f);
        z.start_file("topo.npy", zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut z, &npy("<f4", shape)).unwrap();
        z.finish().unwrap();
        let e = refused(&["info", s(&npz)]);
        assert!(e.contains(says), "{shape}: {e}");
    }
    // A PNG whose header declares 60000 × 60000 (3.6 · 10⁹ samples): refused before decoding.
    let png = d.path().join("big.png");
    std::fs::write(&png, png_header(60_000, 60_000)).unwrap();
    let e = refused(&["info", s(&png)]);
    assert!(e.contains("--max-samples") && e.contains("60000"), "{e}");
    // An ASCII grid declaring 2·10⁹ samples.
    let asc = d.path().join("big.asc");
    std::fs::write(&asc, "ncols 50000\nnrows 40000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n").unwrap();
    assert!(refused(&["info", s(&asc)]).contains("--max-samples"));
}

/// `build` refuses, before building, a polygon terrain beyond --max-polygons (a 16385² raster made
/// 24 GB before the kernel killed it).
#[test]
fn build_refuses_what_it_cannot_hold() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let out = d.path().join("t.lfq");
    let e = refused(&["build", s(&t), "-o", s(&out), "--max-polygons", "7"]);
    assert!(e.contains("--max-polygons") && e.contains("8 polygons"), "{e}");
    assert!(!out.exists());
    ok(&["build", s(&t), "-o", s(&out), "--max-polygons", "8"]);
}

/// A PNG signature, an IHDR of 8-bit grey `w` × `h`, and an empty IDAT: enough for a decoder to
/// read the size.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut v = (data.len() as u32).to_be_bytes().to_vec();
        let body: Vec<u8> = kind.iter().chain(data).copied().collect();
        v.extend_from_slice(&body);
        v.extend_from_slice(&crc(&body).to_be_bytes());
        v
    };
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", &[]));
    out
}

/// A GeoTIFF whose ModelPixelScale values lie past the end of the file is an error, not a terrain
/// without georeferencing.
#[test]
fn unreadable_georeferencing_tags_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.tif");
    {
        use tiff::encoder::{colortype, TiffEncoder};
        let f = std::fs::File::create(&p).unwrap();
        let mut enc = TiffEncoder::new(f).unwrap();
        let mut img = enc.new_image::<colortype::Gray32Float>(3, 3).unwrap();
        img.encoder().write_tag(tiff::tags::Tag::ModelPixelScaleTag, &[10.0f64, 10.0, 0.0][..]).unwrap();
        img.encoder().write_tag(tiff::tags::Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 500.0, 900.0, 0.0][..]).unwrap();
        img.write_data(&[1f32; 9]).unwrap();
    }
    ok(&["info", s(&p)]);
    let mut bytes = std::fs::read(&p).unwrap();
    // The IFD entry of tag 33550 (ModelPixelScale): tag, type 12 (double), count 3, then the offset
    // of its 24 bytes, pointed past the end of the file.
    let entry = bytes.windows(8).position(|w| w == [0x0e, 0x83, 12, 0, 3, 0, 0, 0]).expect("tag entry");
    bytes[entry + 8..entry + 12].copy_from_slice(&0x00ff_ff00u32.to_le_bytes());
    std::fs::write(&p, bytes).unwrap();
    assert!(refused(&["info", s(&p)]).contains("ModelPixelScaleTag"));
}

/// Gravity of any finite non-zero length answers like its direction: (0, 0, −1e308) and
/// (0, 0, −1e-320) give the default frame's answers, and `build` writes an index that loads.
#[test]
fn extreme_gravity_answers_like_its_direction() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (pts, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&pts, "x,y,z\n0.5,0.5,100\n1.2,1.7,100\n").unwrap();
    ok(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]);
    let plain = std::fs::read_to_string(&out).unwrap();
    for g in ["0,0,-1e308", "0,0,-1e-320"] {
        ok(&["height", s(&t), "--points", s(&pts), "--out", s(&out), "--gravity", g]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), plain, "{g}");
        let index = d.path().join("g.lfq");
        ok(&["build", s(&t), "-o", s(&index), "--gravity", g]);
        ok(&["height", s(&index), "--points", s(&pts), "--out", s(&out)]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), plain, "{g} from the index");
    }
}

#[test]
fn errors_quote_fields_short_and_escaped() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (pts, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&pts, format!("x,y\n{},1\n", "9".repeat(10_000_000) + "x")).unwrap();
    let e = refused(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]);
    assert!(e.len() < 400, "{} bytes", e.len());
    std::fs::write(&pts, "x,y\n\x1b[2Jzap,1\n").unwrap();
    let e = refused(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]);
    assert!(!e.contains('\x1b') && e.contains("\\u{1b}"), "{e}");
    std::fs::write(&pts, "x,y,x\n1,1,2\n").unwrap();
    assert!(refused(&["height", s(&t), "--points", s(&pts), "--out", s(&out)]).contains("twice"));
}

#[test]
fn a_truncated_index_is_reported_as_one() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let index = d.path().join("t.lfq");
    ok(&["build", s(&t), "-o", s(&index)]);
    let bytes = std::fs::read(&index).unwrap();
    for n in [0, 5, 100, bytes.len() - 1] {
        std::fs::write(&index, &bytes[..n]).unwrap();
        let e = refused(&["info", s(&index)]);
        assert!(e.contains("truncated") || e.contains("file length") || e.contains("bad magic"), "{n}: {e}");
        assert!(!e.contains("raster extension"), "{e}");
    }
}

/// Every output is created with the umask's permissions (tempfile's 0600 leaked through `build`).
#[cfg(unix)]
#[test]
fn outputs_follow_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let plain = d.path().join("plain");
    std::fs::write(&plain, "").unwrap();
    let want = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
    let index = d.path().join("t.lfq");
    ok(&["build", s(&t), "-o", s(&index)]);
    assert_eq!(std::fs::metadata(&index).unwrap().permissions().mode() & 0o777, want);
}
