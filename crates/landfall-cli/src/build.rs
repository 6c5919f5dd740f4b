//! `landfall build`: preprocess a terrain into a polygon index file.

use crate::terrain_args::{AnyTerrain, TerrainArgs};
use anyhow::{bail, Result};
use landfall::polygon::PolygonSoup;
use std::path::Path;
use std::time::Instant;

pub fn run(args: &TerrainArgs, out: &Path) -> Result<()> {
    if landfall_io::is_index(&args.path) {
        bail!("{} is already an index file", args.path.display());
    }
    landfall_io::refuse_overwriting_inputs(out, &[&args.path])?;
    let start = Instant::now();
    let loaded = args.load()?;
    loaded.warn_notes(&args.path);
    let terrain = match loaded.terrain {
        AnyTerrain::Polygons(p) => p,
        // A raster: its triangles become the polygons.
        AnyTerrain::Heightfield(hf) => {
            let cells = (hf.nx() as u64 - 1) * (hf.ny() as u64 - 1);
            let what = format!("a {}×{} raster", hf.nx(), hf.ny());
            args.check_polygons(2 * cells, &what)?;
            args.polygons_from(&mut PolygonSoup::from_heightfield(&hf))?
        }
    };
    let built = start.elapsed();
    let start = Instant::now();
    landfall_io::write_index(&terrain, out)?;
    let written = start.elapsed();
    let s = terrain.stats();
    say!(
        "wrote {}: {} faces, {} nodes, {:.3} expected tests, {:.2} MiB (read + build {:.1} ms, write {:.1} ms)",
        out.display(),
        terrain.face_count(),
        s.nodes,
        s.expected_tests,
        std::fs::metadata(out).map(|m| m.len()).unwrap_or(0) as f64 / (1024.0 * 1024.0),
        built.as_secs_f64() * 1e3,
        written.as_secs_f64() * 1e3
    );
    Ok(())
}
