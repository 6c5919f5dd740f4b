//! `landfall info`.

use crate::terrain_args::TerrainArgs;
use anyhow::Result;
use std::time::Instant;

pub fn run(args: &TerrainArgs) -> Result<()> {
    let t = args.load()?;
    let hf = &t.loaded.heightfield;
    // Time the acceleration structure on its own: rebuild it once more.
    let mut copy = hf.clone();
    let start = Instant::now();
    copy.rebuild_pyramid(hf.pyramid().leaf_size())?;
    let build = start.elapsed();
    let b = hf.bounds();
    let (nx, ny) = (hf.nx(), hf.ny());
    let mb = |n: usize| n as f64 / (1024.0 * 1024.0);
    say!("terrain      {}", args.path.display());
    say!("kind         heightfield, {} triangulation", hf.diagonal().name());
    say!("size         {nx} × {ny} samples, {} × {} cells, {} triangles", nx - 1, ny - 1, hf.triangle_count());
    say!("spacing      {} × {}", hf.spacing().x, hf.spacing().y);
    say!("bounds x     {} … {}", b.min.x, b.max.x);
    say!("bounds y     {} … {}", b.min.y, b.max.y);
    match hf.height_range() {
        Some((lo, hi)) => say!("height       {lo} … {hi}"),
        None => say!("height       (no valid samples)"),
    }
    say!("holes        {} nodata samples, {} masked cells", hf.nodata_count(), hf.masked_cell_count());
    let g = hf.frame().down();
    say!("gravity      {},{},{}", g.x, g.y, g.z);
    say!(
        "memory       {:.2} MiB ({:.2} bytes/sample: heights {:.2} MiB, pyramid {:.2} MiB)",
        mb(hf.memory_bytes()),
        hf.memory_bytes() as f64 / (nx * ny) as f64,
        mb(nx * ny * 4),
        mb(hf.pyramid().memory_bytes())
    );
    say!(
        "pyramid      leaf {} cells, {} levels, {} nodes",
        hf.pyramid().leaf_size(),
        hf.pyramid().depth(),
        hf.pyramid().node_count()
    );
    say!("load time    {:.1} ms (read + pyramid)", t.load_time.as_secs_f64() * 1e3);
    say!("build time   {:.2} ms (min/max pyramid)", build.as_secs_f64() * 1e3);
    for n in &t.loaded.notes {
        say!("note         {n}");
    }
    Ok(())
}
