//! Mesh loaders (OBJ, glTF, GLB) and the polygon index file: round trips, bad input, corruption.

use crate::common;
use glam::DVec3;
use landfall::PolygonSoup;
use landfall::{Frame, PolygonTerrain, QuadtreeParams, Ray};
use landfall_io::{is_index, open_index, open_index_verified, read_mesh, write_index, IoError};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

const OBJ: &str = "# two quads and a triangle, faces in every index style\n\
o ground\n\
v 0 0 0\nv 2 0 0\nv 2 2 0\nv 0 2 0\n\
v 2 0 1\nv 4 0 1\nv 4 2 1  # trailing comment\n\
vt 0 0\nvn 0 0 1\n\
f 1 2 3 4\n\
f 2/1 6/1 7/1 3/1\n\
f -3//1 -2//1 -1//1\n";

#[test]
fn obj_faces_are_polygons_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let soup = read_mesh(&write(dir.path(), "t.obj", OBJ.as_bytes())).unwrap();
    assert_eq!(soup.len(), 3);
    assert_eq!(soup.polygon(0).len(), 4);
    assert_eq!(soup.polygon(2), &[DVec3::new(2.0, 0.0, 1.0), DVec3::new(4.0, 0.0, 1.0), DVec3::new(4.0, 2.0, 1.0)]);
    let t = PolygonTerrain::from_soup(&soup, Frame::z_up(), QuadtreeParams::default()).unwrap();
    assert_eq!(t.top_surface(DVec3::new(1.0, 1.0, 0.0)).unwrap().point.z, 0.0);
    assert!(t.top_surface(DVec3::new(5.0, 1.0, 0.0)).is_none());
}

fn obj_error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.obj", text.as_bytes());
    let e = read_mesh(&p).unwrap_err().to_string();
    assert!(e.contains("bad.obj"), "{e}");
    e
}

#[test]
fn obj_errors_name_the_line() {
    assert!(obj_error("v 0 0 0\nv 1 x 0\n").contains("line 2: vertex y 'x'"));
    assert!(obj_error("v 0 0 0\nv 1 0 0\nv 0 1 nan\n").contains("line 3"));
    assert!(obj_error("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n").contains("line 5: face index 4 refers to no vertex"));
    assert!(obj_error("v 0 0 0\nv 1 0 0\nf 1 2\n").contains("line 3: a face needs 3 vertices"));
    assert!(obj_error("v 0 0 0\nf 1 a 2\n").contains("line 2: face index 'a'"));
    assert!(obj_error("v 0 0\n").contains("line 1: vertex needs x y z"));
    assert!(obj_error("# nothing\n").contains("no faces"));
}

/// A glTF with one mesh (a unit square as two triangles, u16 indices) used by two nodes: a parent
/// translated by (10, 0, 5) with a child scaled by 2.
fn gltf_json(buffer_uri: Option<&str>, len: usize) -> String {
    let uri = buffer_uri.map(|u| format!(r#""uri": "{u}", "#)).unwrap_or_default();
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [
    {{"mesh": 0, "translation": [10, 0, 5], "children": [1]}},
    {{"mesh": 0, "scale": [2, 2, 2]}}
  ],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1}}]}}],
  "buffers": [{{{uri}"byteLength": {len}}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]}},
    {{"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#
    )
}

fn gltf_buffer() -> Vec<u8> {
    let mut b = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in p {
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

fn check_gltf_soup(soup: &PolygonSoup) {
    assert_eq!(soup.len(), 4);
    // Parent: translated square; child: scaled by 2, then translated by the parent.
    assert_eq!(soup.polygon(0)[2], DVec3::new(11.0, 1.0, 5.0));
    assert_eq!(soup.polygon(2)[2], DVec3::new(12.0, 2.0, 5.0));
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn gltf_external_embedded_and_binary_with_node_transforms() {
    let dir = tempfile::tempdir().unwrap();
    let buf = gltf_buffer();
    write(dir.path(), "square data.bin", &buf);
    let ext = write(dir.path(), "ext.gltf", gltf_json(Some("square%20data.bin"), buf.len()).as_bytes());
    check_gltf_soup(&read_mesh(&ext).unwrap());
    let uri = format!("data:application/octet-stream;base64,{}", base64(&buf));
    let emb = write(dir.path(), "emb.gltf", gltf_json(Some(&uri), buf.len()).as_bytes());
    check_gltf_soup(&read_mesh(&emb).unwrap());
    // GLB: header, JSON chunk (space padded), BIN chunk (zero padded).
    let mut json = gltf_json(None, buf.len()).into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = buf.clone();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    let glb_path = write(dir.path(), "t.glb", &glb);
    check_gltf_soup(&read_mesh(&glb_path).unwrap());
    // Broken ones name the file and what is wrong.
    let missing = write(dir.path(), "missing.gltf", gltf_json(Some("nope.bin"), buf.len()).as_bytes());
    let e = read_mesh(&missing).unwrap_err().to_string();
    assert!(e.contains("missing.gltf") && e.contains("buffers[0]"), "{e}");
    let short = write(dir.path(), "short.gltf", gltf_json(Some(&uri), buf.len() + 100).as_bytes());
    assert!(read_mesh(&short).unwrap_err().to_string().contains("buffers[0]"));
    let junk = write(dir.path(), "junk.glb", b"glTF\x02\0\0\0garbage");
    assert!(read_mesh(&junk).unwrap_err().to_string().contains("junk.glb"));
}

fn sample_terrain() -> PolygonTerrain {
    // A bumpy 12×12 TIN with a bridge and a hole, under a tilted gravity.
    let n = 12;
    let z = |i: usize, j: usize| ((i * 7 + j * 13) % 5) as f64 * 0.5;
    let v = |i: usize, j: usize| DVec3::new(i as f64, j as f64, z(i, j));
    let mut b = PolygonTerrain::builder();
    for j in 0..n {
        for i in 0..n {
            if (i, j) == (5, 5) {
                continue;
            }
            b = b.polygon(&[v(i, j), v(i + 1, j), v(i + 1, j + 1)]).polygon(&[v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    b = b.polygon(&[
        DVec3::new(2.0, 2.0, 9.0),
        DVec3::new(8.0, 2.0, 9.0),
        DVec3::new(8.0, 4.0, 9.5),
        DVec3::new(2.0, 4.0, 9.5),
    ]);
    b.frame(Frame::from_gravity(DVec3::new(0.1, -0.05, -1.0)).unwrap()).build().unwrap()
}

fn same_answers(a: &PolygonTerrain, b: &PolygonTerrain) {
    for k in 0..400 {
        let p = DVec3::new((k % 20) as f64 * 0.63 - 0.5, (k / 20) as f64 * 0.61 - 0.3, 4.0);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        a.surfaces_on_line(p, |s| x.push(s));
        b.surfaces_on_line(p, |s| y.push(s));
        assert_eq!(x, y, "surfaces at {p}");
        let r = Ray::new(p + DVec3::new(0.0, 0.0, 20.0), DVec3::new(0.3, -0.2, -1.0));
        assert_eq!(a.raycast(&r, f64::INFINITY), b.raycast(&r, f64::INFINITY));
    }
}

#[test]
fn index_round_trip_is_zero_copy_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let t = sample_terrain();
    let path = dir.path().join("t.lfq");
    write_index(&t, &path).unwrap();
    assert!(is_index(&path));
    let loaded = open_index_verified(&path).unwrap();
    assert!(loaded.is_shared());
    assert_eq!(loaded.header(), t.header());
    assert_eq!(loaded.stats(), t.stats());
    same_answers(&t, &loaded);
    // Writing a loaded index gives the same bytes.
    let again = dir.path().join("again.lfq");
    write_index(&loaded, &again).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&again).unwrap());
    // Editing a memory-mapped terrain copies its arrays first; the file is untouched.
    let mut edited = open_index(&path).unwrap();
    let mut reference = t.clone();
    let deck = [DVec3::new(1.0, 6.0, 20.0), DVec3::new(4.0, 6.0, 20.0), DVec3::new(4.0, 9.0, 20.0)];
    assert_eq!(edited.insert_polygon(&deck).unwrap(), reference.insert_polygon(&deck).unwrap());
    assert!(!edited.is_shared());
    assert_eq!(edited.remove_polygon(3).unwrap(), 1);
    reference.remove_polygon(3).unwrap();
    same_answers(&reference, &edited);
    same_answers(&t, &open_index_verified(&path).unwrap());
    // Overwriting replaces the file (rename), leaving no temporary behind.
    write_index(&t, &path).unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

fn fix_header_sum(bytes: &mut [u8]) {
    // Recompute the header checksum the way a hostile writer would (re-write a valid header).
    let sum = common::index_checksum(&bytes[..336]);
    bytes[336..344].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn corrupt_truncated_and_hostile_index_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = sample_terrain();
    let path = dir.path().join("t.lfq");
    write_index(&t, &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let try_open = |bytes: &[u8], verified: bool| -> Result<PolygonTerrain, IoError> {
        let p = dir.path().join("x.lfq");
        std::fs::write(&p, bytes).unwrap();
        if verified {
            open_index_verified(&p)
        } else {
            open_index(&p)
        }
    };
    let msg = |r: Result<PolygonTerrain, IoError>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg(try_open(&good[..100], false)).contains("truncated"));
    assert!(msg(try_open(&good[..good.len() - 8], false)).contains("file length"));
    assert!(msg(try_open(b"not an index at all, but long enough to hold a header? no", false)).contains("truncated"));
    let mut bad = good.clone();
    bad[0] = b'X';
    assert!(msg(try_open(&bad, false)).contains("magic"));
    let mut bad = good.clone();
    bad[40] ^= 1;
    assert!(msg(try_open(&bad, false)).contains("header checksum"));
    let mut bad = good.clone();
    let last = bad.len() - 70;
    bad[last] ^= 0x10;
    assert!(msg(try_open(&bad, true)).contains("data checksum"));
    // Hostile: a valid header checksum over wrong offsets, counts and indices.
    let mut bad = good.clone();
    bad[216..224].copy_from_slice(&u64::MAX.to_le_bytes()); // faces offset
    fix_header_sum(&mut bad);
    assert!(msg(try_open(&bad, false)).contains("faces"));
    let mut bad = good.clone();
    bad[224..232].copy_from_slice(&(1u64 << 40).to_le_bytes()); // faces count
    fix_header_sum(&mut bad);
    assert!(!msg(try_open(&bad, false)).is_empty());
    // Valid sections holding a node whose children lie past the end: open_index answers (checked
    // reads), open_index_verified refuses.
    let mut bad = good.clone();
    let nodes_at = u64::from_le_bytes(bad[280..288].try_into().unwrap()) as usize;
    bad[nodes_at + 28..nodes_at + 32].copy_from_slice(&u32::MAX.to_le_bytes()); // root count: internal
    bad[nodes_at + 24..nodes_at + 28].copy_from_slice(&(1u32 << 30).to_le_bytes()); // root first child
    fix_header_sum(&mut bad);
    let t = try_open(&bad, false).unwrap();
    assert!(t.top_surface(DVec3::new(3.0, 3.0, 5.0)).is_none());
    assert_eq!(t.top_surfaces(&[DVec3::new(3.0, 3.0, 5.0)]), [None]);
    assert!(msg(try_open(&bad, true)).contains("checksum"));
    let mut bad = good.clone();
    bad[12..16].copy_from_slice(&99u32.to_le_bytes());
    fix_header_sum(&mut bad);
    assert!(msg(try_open(&bad, false)).contains("version"));
    // An index of an older format (before single-layer marks and face sources in the face
    // record; before a triangle's edge equations were stored once; before quick face records):
    // rebuild it.
    for version in [1u32, 2, 3] {
        let mut old = good.clone();
        old[12..16].copy_from_slice(&version.to_le_bytes());
        fix_header_sum(&mut old);
        assert!(msg(try_open(&old, true)).contains("rebuild it from the terrain with `landfall build`"));
    }
    // The bridge (the one face of four vertices) pointing its edge equations past the edge array:
    // open_index answers without a panic, the full check names the fault.
    let mut bad = good.clone();
    let faces_at = u64::from_le_bytes(bad[216..224].try_into().unwrap()) as usize;
    let faces = u64::from_le_bytes(bad[224..232].try_into().unwrap()) as usize;
    let quad =
        (0..faces).map(|k| faces_at + 128 * k).find(|&at| bad[at + 116..at + 118] == 4u16.to_le_bytes()).unwrap();
    bad[quad + 124..quad + 128].copy_from_slice(&(u32::MAX - 2).to_le_bytes()); // more_edges
    fix_header_sum(&mut bad);
    let mut t = try_open(&bad, false).unwrap();
    for k in 0..50 {
        let p = DVec3::new(2.0 + k as f64 * 0.12, 2.0 + k as f64 * 0.04, 12.0);
        let _ = t.top_surface(p);
        let _ = t.raycast(&Ray::new(p, DVec3::new(0.1, 0.1, -1.0)), 100.0);
    }
    assert!(t.validate().unwrap_err().to_string().contains("edge equations"));
    // A quick face record that disagrees with its face record (its equations moved): open_index
    // answers without a panic, the full check names the fault.
    let mut bad = good.clone();
    let quick_at = u64::from_le_bytes(bad[312..320].try_into().unwrap()) as usize;
    bad[quick_at + 32] ^= 0x40; // a byte of the first edge equation of the first quick record
    fix_header_sum(&mut bad);
    let mut t = try_open(&bad, false).unwrap();
    let _ = t.top_surfaces(&[DVec3::new(3.0, 3.0, 5.0)]);
    assert!(t.validate().unwrap_err().to_string().contains("quick record"));
    assert!(msg(try_open(&bad, true)).contains("checksum"));
    // Random byte changes anywhere after the header (checksum bypassed by open_index): an error or
    // a terrain whose queries do not panic.
    let mut rng = 0x1234_5678_u64;
    for _ in 0..300 {
        let mut bad = good.clone();
        for _ in 0..4 {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let at = 344 + (rng >> 33) as usize % (bad.len() - 344);
            bad[at] = (rng >> 20) as u8;
        }
        if let Ok(t) = try_open(&bad, false) {
            // The batches (interleaved descents) check what they read as single queries do.
            let points: Vec<DVec3> = (0..50).map(|k| DVec3::new(k as f64 * 0.25, k as f64 * 0.2, 3.0)).collect();
            let _ = (t.top_surfaces(&points), t.floors_below(&points), t.contains_batch(&points));
            for &p in &points {
                let _ = t.top_surface(p);
                let _ = t.floor_below(p);
                let _ = t.raycast(&Ray::new(p, DVec3::new(0.2, 0.1, -1.0)), 100.0);
                let mut n = 0;
                t.triangles_in(&landfall::Aabb::new(p, p + DVec3::ONE), &mut |_, _| n += 1);
            }
        }
    }
}

/// A node hierarchy that is not a set of trees is refused at once, naming the node: a cycle would
/// be walked without end, and a node under two parents reuses its mesh without bound (found by a
/// hostile test: a 6 KB file with a node its own child took 3.6 GB before an abort).
#[test]
fn gltf_node_cycles_and_shared_children_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let buf = gltf_buffer();
    let uri = format!("data:application/octet-stream;base64,{}", base64(&buf));
    let good = gltf_json(Some(&uri), buf.len());
    let cases = [
        (r#""scale": [2, 2, 2]}"#, r#""scale": [2, 2, 2], "children": [1]}"#, "nodes[1]: is its own child"),
        (r#""scale": [2, 2, 2]}"#, r#""scale": [2, 2, 2], "children": [0]}"#, "nodes[0]: is on a cycle"),
        (r#""nodes": [0]}"#, r#""nodes": [0, 1]}"#, "scenes[0].nodes: lists nodes[1], a child of nodes[0]"),
        (
            r#""scale": [2, 2, 2]}"#,
            r#""scale": [2, 2, 2]}, {"children": [1]}"#,
            "nodes[1]: is a child of both nodes[0] and nodes[2]",
        ),
    ];
    for (k, (from, to, want)) in cases.iter().enumerate() {
        assert!(good.contains(from));
        let f = write(dir.path(), &format!("bad{k}.gltf"), good.replacen(from, to, 1).as_bytes());
        let e = read_mesh(&f).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains(&format!("bad{k}.gltf")), "{e}");
    }
}
