//! Exported world meshes read back as the same triangles (glTF through its Y-up convention, OBJ
//! in world coordinates), also far from the origin.

use glam::DVec3;
use landfall::world::{CacheParams, World, WorldParams};
use landfall_io::{read_gltf, read_obj, world_parts, write_mesh, MeshPart};

fn world(far: bool) -> World {
    let params = WorldParams::default().with_levels(9).with_relief(60.0).with_anchor([if far { 40 } else { 0 }, 0]);
    let x = if far { 40.0 * 256.0 } else { 0.0 };
    let cache = CacheParams::default()
        .with_layers(7)
        .with_inner_radius(4)
        .with_mesh_finest(1)
        .with_mesh_coarsest(5)
        .with_lod_height(4.0)
        .with_hysteresis(0.0);
    World::new(params, cache, DVec3::new(x + 3.0, 1.0, 2.0)).unwrap()
}

#[test]
fn glb_and_obj_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for far in [false, true] {
        let w = world(far);
        let tris = w.world_triangles();
        let parts = world_parts(&w);
        assert_eq!(parts.iter().map(|p| p.indices.len() / 3).sum::<usize>(), tris.len());
        let glb = dir.path().join("world.glb");
        write_mesh(&glb, &parts).unwrap();
        let soup = read_gltf(&glb).unwrap();
        assert_eq!(soup.len(), tris.len());
        // Nodes may come back in any order: compare sorted triangles. glTF (x, y, z) = landfall (x, z, −y).
        let key = |t: &[DVec3]| {
            t.iter()
                .map(|v| [(v.x * 1e3).round() as i64, (v.y * 1e3).round() as i64, (v.z * 1e3).round() as i64])
                .collect::<Vec<_>>()
        };
        let mut got: Vec<_> = (0..soup.len())
            .map(|k| key(&soup.polygon(k).iter().map(|a| DVec3::new(a.x, -a.z, a.y)).collect::<Vec<_>>()))
            .collect();
        let mut want: Vec<_> = tris.iter().map(|(_, t)| key(t)).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        let obj = dir.path().join("world.obj");
        write_mesh(&obj, &parts).unwrap();
        let soup = read_obj(&obj).unwrap();
        assert_eq!(soup.len(), tris.len());
        for (k, (_, t)) in tris.iter().enumerate() {
            assert_eq!(soup.polygon(k), t.as_slice());
        }
    }
}

#[test]
fn bad_meshes_are_refused_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = MeshPart {
        name: "x".into(),
        origin: [0.0; 3],
        positions: vec![[0.0; 3]; 2],
        indices: vec![0, 1, 2],
        ..MeshPart::default()
    };
    let e = write_mesh(&dir.path().join("a.glb"), &[bad]).unwrap_err().to_string();
    assert!(e.contains("parts[0].indices"), "{e}");
    let e = write_mesh(&dir.path().join("a.stl"), &[]).unwrap_err().to_string();
    assert!(e.contains(".stl"), "{e}");
}

/// A terrain's exported mesh carries unit upward normals and the colour map's colours, which
/// glTF viewers read as NORMAL and COLOR_0 (checked with the `gltf` crate), and reads back as the
/// same terrain.
#[test]
fn terrain_meshes_carry_normals_and_colours() {
    use landfall::{Heightfield, Terrain};
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny) = (30, 20);
    let h: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = ((k % nx) as f32, (k / nx) as f32);
            if k == 77 {
                f32::NAN
            } else {
                40.0 * (i / 5.0).sin() + 3.0 * j + 20.0
            }
        })
        .collect();
    let hf = Heightfield::builder(nx, ny, h).origin(500.0, -300.0).spacing(2.0, 3.0).build().unwrap();
    let part = landfall_io::terrain_part(&hf, "hf").unwrap();
    let triangles = part.indices.len() / 3;
    assert_eq!(triangles, hf.triangle_count(), "every triangle (the hole has none)");
    assert!(part.positions.len() < 3 * triangles, "vertices are shared");
    assert_eq!(part.normals.len(), part.positions.len());
    assert_eq!(part.colors.len(), part.positions.len());
    for n in &part.normals {
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((l - 1.0).abs() < 1e-5 && n[2] > 0.0);
    }
    // Mostly land with some sea: below it (z < 0) the colour is water, more blue than red.
    for (p, c) in part.positions.iter().zip(&part.colors) {
        if p[2] < -1.0 {
            assert!(c[2] > c[0], "{p:?} {c:?}");
        }
        assert!(c.iter().all(|v| (0.0..=1.0).contains(v)));
    }
    let glb = dir.path().join("t.glb");
    write_mesh(&glb, std::slice::from_ref(&part)).unwrap();
    let g = gltf::Gltf::open(&glb).unwrap();
    let blob = g.blob.clone();
    let prim = g.document.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| blob.as_deref());
    let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
    let colors: Vec<[f32; 3]> = reader.read_colors(0).unwrap().into_rgb_f32().collect();
    assert_eq!(normals.len(), part.positions.len());
    // Normals turned to glTF's Y up; colours as they were.
    assert_eq!(normals[5], [part.normals[5][0], part.normals[5][2], -part.normals[5][1]]);
    assert_eq!(colors, part.colors);
    // The OBJ (with colours and normals) reads back as the same triangles.
    let obj = dir.path().join("t.obj");
    write_mesh(&obj, &[part]).unwrap();
    let soup = read_obj(&obj).unwrap();
    assert_eq!(soup.len(), triangles);
    let mut n = 0;
    Terrain::triangles_in(&hf, &hf.bounds(), &mut |_, t: [DVec3; 3]| {
        let got = soup.polygon(n);
        for k in 0..3 {
            assert!((got[k] - t[k]).length() < 1e-4, "{got:?} vs {t:?}");
        }
        n += 1;
    });
}

/// A part without triangles (a raster whose samples are all holes) is a node without a mesh, and
/// a file of such parts has no buffer: glTF allows no empty accessor, buffer view or buffer.
#[test]
fn parts_without_triangles_make_valid_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let empty = MeshPart { name: "holes".into(), ..MeshPart::default() };
    let tri = MeshPart {
        name: "tri".into(),
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        indices: vec![0, 1, 2],
        ..MeshPart::default()
    };
    for (parts, meshes) in [(vec![empty.clone()], 0), (vec![empty.clone(), tri.clone(), empty], 1)] {
        let glb = dir.path().join("m.glb");
        write_mesh(&glb, &parts).unwrap();
        let g = gltf::Gltf::open(&glb).unwrap();
        assert_eq!(g.nodes().count(), parts.len());
        assert_eq!(g.meshes().count(), meshes);
        assert_eq!(g.buffers().count(), meshes.min(1));
        for a in g.accessors() {
            assert!(a.count() > 0);
        }
        // landfall reads it back as the triangles it holds, or refuses an empty scene by name.
        match read_gltf(&glb) {
            Ok(soup) => assert_eq!(soup.len(), meshes),
            Err(e) => assert!(meshes == 0 && e.to_string().contains("no triangles"), "{e}"),
        }
    }
}
