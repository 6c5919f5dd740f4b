//! Writes a generated terrain's triangles and the standard ray sets as `.npy` files, for peers that
//! run outside Rust (`scripts/embree_python.py`): `cargo run --release -p landfall-bench --example
//! export_peer_data -- [size] [dir]` (default 4097, `target/peer-data`).
//!
//! Files: `gen<size>_vertices.npy` (f32, n × 3, centred on the grid as the Rust peers' meshes),
//! `gen<size>_indices.npy` (u32, m × 3, exactly landfall's triangles), and per set (`vertical`,
//! `oblique`, `line_of_sight`) `gen<size>_<set>.npy` (f64, 4096 × 8: origin (centred), direction,
//! `max_t`, and landfall's first-hit t, NaN on a miss): the heightfield benchmark's sets, same seeds.

use landfall::heightfield::workload as sets;
use landfall_bench::peers::{center, grid_mesh};
use landfall_bench::terrains;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a C-order `.npy` (version 1.0) of `rows` × `cols` little-endian values of numpy type
/// `descr` (`<f4`, `<u4`, `<f8`).
fn write_npy(path: &Path, descr: &str, rows: usize, cols: usize, bytes: &[u8]) -> std::io::Result<()> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Magic, version, header length, header padded with spaces to a multiple of 64 and ended by '\n'.
    let unpadded = 10 + dict.len() + 1;
    let header = format!("{dict}{}\n", " ".repeat(unpadded.next_multiple_of(64) - unpadded));
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(bytes)?;
    f.flush()
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4097);
    let dir = PathBuf::from(args.get(2).map_or("target/peer-data", String::as_str));
    std::fs::create_dir_all(&dir)?;
    let t = terrains::generated(n);
    let c = center(&t.hf);
    let (verts, indices) = grid_mesh(&t.hf);
    let vbytes: Vec<u8> =
        verts.iter().flat_map(|&v| (v - c).to_array().map(|x| x as f32)).flat_map(f32::to_le_bytes).collect();
    write_npy(&dir.join(format!("{}_vertices.npy", t.name)), "<f4", verts.len(), 3, &vbytes)?;
    let ibytes: Vec<u8> = indices.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
    write_npy(&dir.join(format!("{}_indices.npy", t.name)), "<u4", indices.len(), 3, &ibytes)?;
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
        let bytes: Vec<u8> = rows.iter().flat_map(|x| x.to_le_bytes()).collect();
        write_npy(&dir.join(format!("{}_{name}.npy", t.name)), "<f8", set.len(), 8, &bytes)?;
    }
    println!("{}", dir.display());
    Ok(())
}
