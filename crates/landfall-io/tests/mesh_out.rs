//! Exported world meshes read back as the same triangles (glTF through its Y-up convention, OBJ
//! in world coordinates), also far from the origin.

use glam::DVec3;
use landfall::world::{CacheParams, World, WorldParams};
use landfall_io::{read_gltf, read_obj, world_parts, write_mesh, MeshPart};

fn world(far: bool) -> World {
    let params =
        WorldParams { levels: 9, relief: 60.0, anchor: [if far { 40 } else { 0 }, 0], ..WorldParams::default() };
    let x = if far { 40.0 * 256.0 } else { 0.0 };
    let cache = CacheParams {
        layers: 7,
        inner_radius: 4,
        mesh_finest: 1,
        mesh_coarsest: 5,
        lod_height: 4.0,
        hysteresis: 0.0,
        ..CacheParams::default()
    };
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
    let bad = MeshPart { name: "x".into(), origin: [0.0; 3], positions: vec![[0.0; 3]; 2], indices: vec![0, 1, 2] };
    let e = write_mesh(&dir.path().join("a.glb"), &[bad]).unwrap_err().to_string();
    assert!(e.contains("parts[0].indices"), "{e}");
    let e = write_mesh(&dir.path().join("a.stl"), &[]).unwrap_err().to_string();
    assert!(e.contains(".stl"), "{e}");
}
