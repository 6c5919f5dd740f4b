//! `landfall build`: preprocess a terrain into a polygon index file (`.lfq`, or any other name), or
//! a raster into a heightfield index file (`.lfh`, streamed: any size).

use crate::terrain_args::{AnyTerrain, TerrainArgs};
use anyhow::{bail, Result};
use landfall::PolygonSoup;
use std::path::Path;
use std::time::Instant;

pub fn run(args: &TerrainArgs, out: &Path) -> Result<()> {
    if landfall_io::is_index(&args.path) || landfall_io::is_heightfield_index(&args.path) {
        bail!("{} is already an index file", args.path.display());
    }
    landfall_io::refuse_overwriting_inputs(out, &[&args.path])?;
    if landfall_io::extension(out) == landfall_io::HEIGHTFIELD_INDEX_EXTENSION {
        return heightfield_index(args, out);
    }
    if args.path.is_dir() || ["txt", "lst"].contains(&landfall_io::extension(&args.path).as_str()) {
        bail!(
            "{}: a directory or a list of tiles is built as one mosaic into a heightfield index: -o {}.lfh",
            args.path.display(),
            out.file_stem().map_or("NAME".into(), |s| s.to_string_lossy())
        );
    }
    let start = Instant::now();
    let step = crate::progress::Step::spinner("building the polygon index");
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
        // A raster in degrees: a polygon index would hold its triangles in metres without the
        // frame they are in, and take lon,lat for metres in every later query.
        AnyTerrain::Geographic(_) => bail!(
            "{}: a raster in degrees is indexed as a heightfield: -o {}.lfh keeps its surface on the \
             ellipsoid and its CRS (a polygon index would hold metres in a frame it does not record)",
            args.path.display(),
            out.file_stem().map_or("NAME".into(), |s| s.to_string_lossy())
        ),
    };
    let built = start.elapsed();
    let start = Instant::now();
    landfall_io::write_index(&terrain, out)?;
    let written = start.elapsed();
    step.done(format!("{} faces", terrain.face_count()));
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

/// A raster into a heightfield index, streamed (see `landfall_io::build_heightfield_index`).
fn heightfield_index(args: &TerrainArgs, out: &Path) -> Result<()> {
    let opts = args.raster_options()?;
    let frame = args.frame()?;
    let bar = crate::progress::Step::bar("index", 0, "rows {pos}/{len} {wide_bar} {eta}");
    let start = Instant::now();
    let report = landfall_io::build_heightfield_index(&args.path, out, &opts, frame, &mut |done, all| {
        bar.set_length(all);
        bar.set_position(done);
    })?;
    bar.done(format!("{} rows", report.ny));
    let secs = start.elapsed().as_secs_f64();
    let samples = (report.nx * report.ny) as f64;
    let disk = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(out).map(|m| m.blocks() * 512).unwrap_or(0)
    };
    say!(
        "wrote {}: {} × {} samples ({} nodata), {} tiles with data ({} samples stored), {:.2} MiB on disk \
         ({:.3} bytes/sample), {} in {:.2} s ({:.1} M samples/s), peak memory {}",
        out.display(),
        report.nx,
        report.ny,
        report.nodata,
        report.tiles_stored,
        report.samples_stored,
        disk as f64 / (1024.0 * 1024.0),
        disk as f64 / samples,
        if report.streamed { "streamed" } else { "read whole" },
        secs,
        samples / secs.max(1e-9) / 1e6,
        crate::memory::peak().map_or("unknown".into(), |p| format!("{:.1} MiB", p as f64 / (1024.0 * 1024.0)))
    );
    Ok(())
}

/// `landfall mesh`: a terrain's triangles with normals and colours, as glTF or OBJ.
pub fn mesh(args: &TerrainArgs, out: &Path) -> Result<()> {
    let ext = landfall_io::extension(out);
    if ext != "glb" && ext != "obj" {
        bail!("{}: cannot write `.{ext}`: use .glb or .obj", out.display());
    }
    landfall_io::refuse_overwriting_inputs(out, &[&args.path])?;
    let step = crate::progress::Step::spinner("making the mesh");
    let loaded = args.load()?;
    loaded.warn_notes(&args.path);
    let t = loaded.terrain.as_dyn();
    let name = args.path.file_stem().map_or("terrain".into(), |s| s.to_string_lossy().into_owned());
    let part = match &loaded.terrain {
        // In degrees: in metres, in the east-north-up frame whose origin the file records.
        AnyTerrain::Geographic(g) => {
            say!(
                "{}: in degrees; the mesh is in metres, east-north-up at {}",
                args.path.display(),
                crate::info::frame_origin(g.frame())
            );
            landfall_io::geo_part(g, &name, 1)
        }
        _ => landfall_io::terrain_part(t, &name),
    };
    let Some(part) = part else {
        bail!(
            "{}: more than {} triangles: too large to export as one mesh",
            args.path.display(),
            landfall_io::MAX_EXPORT_TRIANGLES
        );
    };
    if part.indices.is_empty() {
        bail!(
            "{}: no triangle to write: every cell has a nodata corner or is masked (check its nodata value)",
            args.path.display()
        );
    }
    landfall_io::write_mesh(out, std::slice::from_ref(&part))?;
    step.done(format!("{} triangles", part.indices.len() / 3));
    say!(
        "wrote {}: {} triangles, {} vertices with normals and colours",
        out.display(),
        part.indices.len() / 3,
        part.positions.len()
    );
    Ok(())
}
