//! Writes a generated terrain's triangles and the standard ray sets as `.npy` files, for peers that
//! run outside Rust (`scripts/embree_python.py`): `cargo run --release -p landfall-bench --example
//! export_peer_data -- [size] [dir]` (default 4097, `target/peer-data`).
//!
//! Files: `gen<size>_vertices.npy` (f32, n × 3, centred on the grid as the Rust peers' meshes),
//! `gen<size>_indices.npy` (u32, m × 3, exactly landfall's triangles), and per set (`vertical`,
//! `oblique`, `line_of_sight`) `gen<size>_<set>.npy` (f64, 4096 × 8: origin (centred), direction,
//! `max_t`, and landfall's first-hit t, NaN on a miss): the heightfield benchmark's sets, same seeds.

use landfall::support::workload as sets;
use landfall_bench::peers::{center, grid_mesh};
use landfall_bench::terrains;
use landfall_io::write_npy_matrix;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4097);
    let dir = PathBuf::from(args.get(2).map_or("target/peer-data", String::as_str));
    std::fs::create_dir_all(&dir)?;
    let t = terrains::generated(n);
    let c = center(&t.hf);
    let (verts, indices) = grid_mesh(&t.hf);
    let vertices: Vec<f32> = verts.iter().flat_map(|&v| (v - c).to_array().map(|x| x as f32)).collect();
    write_npy_matrix(&dir.join(format!("{}_vertices.npy", t.name)), verts.len(), 3, &vertices)?;
    write_npy_matrix(&dir.join(format!("{}_indices.npy", t.name)), indices.len(), 3, indices.as_flattened())?;
    let ray_sets = [
        ("vertical", sets::vertical(&t.hf, 4096, 21)),
        ("oblique", sets::oblique(&t.hf, 4096, 22)),
        ("line_of_sight", sets::line_of_sight(&t.hf, 4096, 23)),
    ];
    for (name, set) in ray_sets {
        let rows: Vec<f64> = set
            .iter()
            .flat_map(|(r, m)| {
                let o = r.origin - c;
                let hit = t.hf.raycast(r, *m).map_or(f64::NAN, |h| h.t);
                [o.x, o.y, o.z, r.dir.x, r.dir.y, r.dir.z, *m, hit]
            })
            .collect();
        write_npy_matrix(&dir.join(format!("{}_{name}.npy", t.name)), set.len(), 8, &rows)?;
    }
    println!("{}", dir.display());
    Ok(())
}
