//! `landfall info`.

use crate::terrain_args::{AnyTerrain, LoadedTerrain, Source, TerrainArgs};
use anyhow::Result;
use landfall::PolygonTerrain;
use std::time::Instant;

pub fn run(args: &TerrainArgs) -> Result<()> {
    let step = crate::progress::Step::spinner("loading");
    let t = args.load()?;
    step.done("loaded");
    match &t.terrain {
        AnyTerrain::Heightfield(hf) => heightfield(args, &t, hf)?,
        AnyTerrain::Polygons(p) => polygons(args, &t, p)?,
        AnyTerrain::Geographic(g) => {
            heightfield(args, &t, g.heightfield())?;
            geographic(g);
        }
    }
    args.unchanged()
}

/// The geodetic and ECEF origin of an east-north-up frame, as printed.
pub(crate) fn frame_origin(f: &landfall::geo::EnuFrame) -> String {
    let (o, e) = (f.origin(), f.origin_ecef());
    format!("lon {}, lat {}, h {} (ECEF {:.3}, {:.3}, {:.3} m)", o.lon, o.lat, o.h, e.x, e.y, e.z)
}

/// What a raster in degrees is taken to be.
fn geographic(g: &landfall::geo::GeoSurface) {
    use landfall::Terrain;
    let hf = g.heightfield();
    let (i, j) = (hf.nx() / 2, hf.ny() / 2);
    // On the ellipsoid (h = 0): a hole at either end leaves the extent as it is.
    let at = |i, j| g.tables().position(i, j, 0.0);
    let (ns, ew) = (at(i, hf.ny() - 1) - at(i, 0), at(hf.nx() - 1, j) - at(0, j));
    say!("model        geographic CRS (degrees): a surface on the WGS84 ellipsoid. Each sample (lon, lat, h) is a");
    say!(
        "             point on the ellipsoid normal, h metres above it; two triangles a cell, planar in Earth-centred"
    );
    say!("             coordinates. Heights are asked at lon,lat; distances, rays, meshes and walkers are in metres");
    say!("enu frame    {} (x east, y north, z up; meshes, the viewer and walkers use it)", frame_origin(g.frame()));
    say!(
        "extent       {:.1} km north–south, {:.1} km east–west (through the middle sample, on the ellipsoid)",
        ns.length() / 1e3,
        ew.length() / 1e3
    );
    let b = g.bounds();
    say!(
        "bounds enu   x {:.1} … {:.1}, y {:.1} … {:.1}, z {:.1} … {:.1} m",
        b.min.x,
        b.max.x,
        b.min.y,
        b.max.y,
        b.min.z,
        b.max.z
    );
    say!("geo memory   {:.2} MiB (heights, pyramid, position tables, box tree)", mb(g.memory_bytes()));
}

fn mb(n: usize) -> f64 {
    n as f64 / (1024.0 * 1024.0)
}

/// Decimal places that show a ten-thousandth of `step` (a coordinate to the raster's precision).
pub(crate) fn places(step: f64) -> usize {
    if step.is_finite() && step > 0.0 {
        (4.0 - step.log10().floor()).clamp(0.0, 15.0) as usize
    } else {
        6
    }
}

/// `v` with `places` decimals, as [`landfall::support::Fixed`] prints it; at the 15 places of a
/// step of 1e-11 or less, a value below them that is not zero as it is (`2e-300`, not 0).
pub(crate) fn fixed(v: f64, places: usize) -> String {
    if places >= 15 && v != 0.0 && v.abs() < 1e-15 {
        return landfall::support::Num(v).to_string();
    }
    landfall::support::Fixed(v, places).to_string()
}

/// A stored height as `{}` prints an f32, in exponent form from 1e16.
fn height(h: f32) -> String {
    if h.abs() >= 1e16 {
        format!("{h:e}")
    } else {
        h.to_string()
    }
}

/// The largest error of storing a height in `lo ..= hi` as an f32: half a unit in the last place,
/// at most |h|·2⁻²⁴.
fn rounding_bound(lo: f32, hi: f32) -> f64 {
    lo.abs().max(hi.abs()) as f64 * 2f64.powi(-24)
}

fn heightfield(args: &TerrainArgs, t: &LoadedTerrain, hf: &landfall::Heightfield) -> Result<()> {
    let b = hf.bounds();
    let (nx, ny) = (hf.nx(), hf.ny());
    say!("terrain      {}", args.path.display());
    if t.source == Source::HeightfieldIndex {
        say!("kind         heightfield index file, {} triangulation (memory-mapped, zero-copy)", hf.diagonal().name());
    } else {
        say!("kind         heightfield, {} triangulation", hf.diagonal().name());
    }
    say!("size         {nx} × {ny} samples, {} × {} cells, {} triangles", nx - 1, ny - 1, hf.triangle_count());
    let (sx, sy) = (hf.spacing().x, hf.spacing().y);
    // Coordinates to a ten-thousandth of a cell, not to the last bit of their f64.
    let (px, py) = (places(sx), places(sy));
    say!("spacing      {} × {}", fixed(sx, px), fixed(sy, py));
    if let Some(k) = &t.geokeys {
        let kind = if k.is_geographic() { "geographic (degrees), " } else { "" };
        match k.epsg() {
            Some(code) => say!("crs          {kind}EPSG:{code} (carried into outputs)"),
            None => say!("crs          {kind}GeoKeys without an EPSG code (carried into outputs as they are)"),
        }
    }
    say!("bounds x     {} … {}", fixed(b.min.x, px), fixed(b.max.x, px));
    say!("bounds y     {} … {}", fixed(b.min.y, py), fixed(b.max.y, py));
    match hf.height_range() {
        Some((lo, hi)) => {
            say!("height       {} … {}", height(lo), height(hi));
            say!(
                "samples      f32: each height is kept to within |h|·2⁻²⁴ of its value, here at most {:.1e}",
                rounding_bound(lo, hi)
            );
        }
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
    if t.source == Source::HeightfieldIndex {
        let file = std::fs::metadata(&args.path).map(|m| m.len()).unwrap_or(0);
        say!(
            "mapped       {:.2} MiB ({:.3} bytes/sample); resident now {}",
            file as f64 / (1024.0 * 1024.0),
            file as f64 / (nx * ny) as f64,
            crate::memory::resident().map_or("unknown".into(), |r| format!("{:.1} MiB", mb(r as usize)))
        );
        if let Some(t) = hf.tiling() {
            let with_data = (0..t.nty)
                .flat_map(|ty| (0..t.ntx).map(move |tx| (tx, ty)))
                .filter(|&(x, y)| hf.tile_has_data(x, y))
                .count();
            say!(
                "tiles        {} × {} of {c} × {c} cells, {with_data} with data (their samples, pyramid levels and \
                 sphere trees stored: landfall::collide::TileView::with_trees maps a tile's tree as it enters)",
                t.ntx,
                t.nty,
                c = t.cells
            );
        }
        say!("load time    {:.1} ms (checked: checksums, samples, pyramid, trees)", t.load_time.as_secs_f64() * 1e3);
    } else {
        // Time the acceleration structure on its own: rebuild it once more.
        let mut copy = hf.clone();
        let start = Instant::now();
        copy.rebuild_pyramid(hf.pyramid().leaf_size())?;
        let build = start.elapsed();
        say!("load time    {:.1} ms (read + pyramid)", t.load_time.as_secs_f64() * 1e3);
        say!("build time   {:.2} ms (min/max pyramid)", build.as_secs_f64() * 1e3);
    }
    for n in &t.notes {
        say!("note         {n}");
    }
    Ok(())
}

fn polygons(args: &TerrainArgs, t: &LoadedTerrain, p: &PolygonTerrain) -> Result<()> {
    let r = p.report();
    let s = p.stats();
    let b = p.bounds();
    let h = p.header();
    say!("terrain      {}", args.path.display());
    let how = match t.source {
        Source::Index => "polygon index file (memory-mapped, zero-copy)",
        _ => "polygon mesh",
    };
    say!("kind         {how}");
    say!("polygons     {} in, {} convex faces", r.polygons, r.faces);
    if t.source != Source::Index {
        say!(
            "input        {} triangulated (non-convex or non-planar), {} degenerate and {} duplicate skipped",
            r.triangulated,
            r.degenerate,
            r.duplicates
        );
    }
    say!("vertical     {} faces (ray casts only)", r.vertical);
    say!("bounds x     {} … {}", b.min.x, b.max.x);
    say!("bounds y     {} … {}", b.min.y, b.max.y);
    say!("bounds z     {} … {}", b.min.z, b.max.z);
    let g = p.frame().down();
    say!("gravity      {},{},{}", g.x, g.y, g.z);
    say!(
        "quadtree     max_polys {}, max_depth {}, cuts {}, min_gain {}",
        h.params.max_polys,
        h.params.max_depth,
        h.params.cuts.name(),
        h.params.min_gain
    );
    say!(
        "nodes        {} ({} leaves, {} of them single-layer), depth {}, {} face references, at most {} per leaf",
        s.nodes,
        s.leaves,
        s.single_layer_leaves,
        s.depth,
        s.refs,
        s.max_leaf
    );
    say!("expected     {:.3} containment tests per query (faces per leaf, weighted by leaf area)", s.expected_tests);
    say!(
        "memory       {:.2} MiB (faces {:.2} MiB, quadtree {:.2} MiB = {:.2}× the faces)",
        mb(s.total_bytes()),
        mb(s.face_bytes),
        mb(s.tree_bytes),
        s.tree_bytes as f64 / s.face_bytes as f64
    );
    say!("load time    {:.2} ms", t.load_time.as_secs_f64() * 1e3);
    if t.source != Source::Index {
        let mut copy = p.clone();
        let start = Instant::now();
        copy.rebuild()?;
        say!("build time   {:.2} ms (quadtree)", start.elapsed().as_secs_f64() * 1e3);
    }
    for n in &t.notes {
        say!("note         {n}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_print_to_the_raster_precision() {
        assert_eq!(fixed(0.0000000000000008881784197001252, places(10.0)), "0");
        assert_eq!(fixed(-0.0000001, places(1.0)), "0");
        assert_eq!(fixed(1000.0, places(10.0)), "1000");
        assert_eq!(fixed(234.01669311523438, places(0.03333365817029937)), "234.016693");
        assert_eq!(fixed(0.03333365817029937, places(0.03333365817029937)), "0.033334");
        assert_eq!(fixed(512345.5, places(0.5)), "512345.5");
        assert_eq!(rounding_bound(-1437.0, 2205.0), 2205.0 / 16_777_216.0);
    }
}
