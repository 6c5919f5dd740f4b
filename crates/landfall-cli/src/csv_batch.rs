//! `height` and `raycast`: stream a CSV of queries through the terrain, answers in input order.
//!
//! Rows are read in chunks, each chunk answered in parallel and written before the next is read, so
//! memory stays bounded whatever the file size. A progress bar (bytes read) shows on a terminal.

use crate::map_budget::{MapBudget, CHUNK};
use crate::terrain_args::{AnyTerrain, TerrainArgs};
use anyhow::{bail, Context, Result};
use landfall::geo::{GeoHit, GeoPoint, GeoSurface, Geodetic};
use landfall::support::Num;
use landfall::SurfacePoint;
use landfall_io::{Batch, BatchReader, OutputFile, Query};
use rayon::prelude::*;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Reads `reader` in chunks, answers each row with `answer`, writes with `write`, in order, to a
/// temporary file that becomes `output` only when every row is written.
fn stream<R: Send>(
    terrain: &Path,
    mut budget: Option<MapBudget>,
    mut reader: BatchReader,
    output: &Path,
    out_header: &str,
    answer: impl Fn(&Query) -> R + Sync,
    mut write: impl FnMut(&mut dyn Write, usize, &R) -> std::io::Result<()>,
) -> Result<usize> {
    let mut w = BufWriter::new(OutputFile::create(output)?);
    writeln!(w, "{out_header}")?;
    let bar = crate::progress::Step::bar("rows", reader.len(), "{bytes}/{total_bytes} {wide_bar} {eta}");
    let chunk = budget.as_ref().map_or(CHUNK, MapBudget::chunk);
    let (mut done, mut queries) = (0usize, Vec::with_capacity(chunk));
    while reader.next_chunk(&mut queries, chunk)? > 0 {
        let answers: Vec<R> = queries.par_iter().with_min_len((chunk / 8).clamp(8, 1024)).map(&answer).collect();
        // A mapped index changed under the queries: their answers are void (docs/robustness.md).
        landfall_io::check_mapped(terrain)?;
        for (k, a) in answers.iter().enumerate() {
            write(&mut w, done + k, a).with_context(|| format!("{}: cannot write", output.display()))?;
        }
        done += queries.len();
        if let Some(b) = &mut budget {
            b.after_chunk();
        }
        bar.set_position(reader.position());
    }
    let out =
        w.into_inner().map_err(|e| e.into_error()).with_context(|| format!("{}: cannot write", output.display()))?;
    out.commit()?;
    bar.done(format!("{done} rows"));
    Ok(done)
}

/// `v` as CSV prints it: the shortest decimal that reads back as the same f64, without a negative
/// zero (flat ground prints `0,0,1`, not `-0,-0,1`), in exponent form outside [1e-5, 1e16) so that
/// no number takes hundreds of digits (`1e300`, not 1 and 300 zeros).
pub(crate) fn nz(v: f64) -> Num {
    Num(v + 0.0)
}

fn fmt_opt(w: &mut dyn Write, s: Option<&SurfacePoint>) -> std::io::Result<()> {
    match s {
        Some(s) => {
            let (p, n) = (s.point, s.normal);
            writeln!(w, "{},{},{},{},{},{}", nz(p.x), nz(p.y), nz(p.z), nz(n.x), nz(n.y), nz(n.z))
        }
        None => writeln!(w, ",,,,,"),
    }
}

/// `landfall height`.
pub fn height(args: &TerrainArgs, points: &Path, out: &Path, all: bool, cache_mb: Option<u64>) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[points, &args.path])?;
    let terrain = args.load()?;
    terrain.warn_notes(&args.path);
    let t = terrain.terrain.as_dyn();
    let budget = MapBudget::new(&terrain, cache_mb)?;
    let reader = BatchReader::open(points, Batch::Points)?;
    if let AnyTerrain::Geographic(g) = &terrain.terrain {
        return geo_height(g, &args.path, budget, (reader, points), out, all);
    }
    let has_z = reader.has_optional_column();
    if !has_z && !t.frame().is_z_up() {
        bail!(
            "{}: line 1 (header): with a --gravity other than 0,0,-1 the input needs columns x,y,z (a point on the \
             gravity line)",
            points.display()
        );
    }
    let point = |q: &Query| match *q {
        Query::Point(p) => p,
        Query::Ray(r, _) => r.origin,
        Query::Sphere { center, .. } => center,
        Query::LineBall { x, .. } => landfall::glam::DVec3::new(x, 0.0, 0.0),
        Query::Observer { x, y, .. } => landfall::glam::DVec3::new(x, y, 0.0),
    };
    let mut found = 0usize;
    let rows = if all {
        let answer = |q: &Query| {
            let mut v = Vec::new();
            t.surfaces_on_line(point(q), &mut |s| v.push(s));
            v
        };
        stream(&args.path, budget, reader, out, "index,x,y,z,nx,ny,nz", answer, |w, k, v: &Vec<SurfacePoint>| {
            found += usize::from(!v.is_empty());
            for s in v {
                write!(w, "{k},")?;
                fmt_opt(w, Some(s))?;
            }
            Ok(())
        })?
    } else {
        let answer = |q: &Query| if has_z { t.floor_below(point(q)) } else { t.top_surface(point(q)) };
        stream(&args.path, budget, reader, out, "x,y,z,nx,ny,nz", answer, |w, _, s: &Option<SurfacePoint>| {
            found += usize::from(s.is_some());
            fmt_opt(w, s.as_ref())
        })?
    };
    summary(&t.bounds().xy_extent(), rows, found, ("points", "on the ground", "without ground"), points, out);
    Ok(())
}

/// The one line a finished batch prints, and a warning (with the terrain's extent) when no row
/// found anything: coordinates in another unit or CRS than the terrain's are the usual cause.
fn summary(extent: &str, rows: usize, found: usize, words: (&str, &str, &str), input: &Path, out: &Path) {
    say!("{rows} {}: {found} {}, {} {} → {}", words.0, words.1, rows - found, words.2, out.display());
    if rows > 0 && found == 0 {
        eprintln!(
            "landfall: warning: {}: none of the {rows} {} found the terrain, which covers {}",
            input.display(),
            words.0,
            extent
        );
    }
}

/// `landfall raycast`.
pub fn raycast(args: &TerrainArgs, rays: &Path, out: &Path, cache_mb: Option<u64>) -> Result<()> {
    landfall_io::refuse_overwriting_inputs(out, &[rays, &args.path])?;
    let terrain = args.load()?;
    terrain.warn_notes(&args.path);
    let t = terrain.terrain.as_dyn();
    let budget = MapBudget::new(&terrain, cache_mb)?;
    let reader = BatchReader::open(rays, Batch::Rays)?;
    if let AnyTerrain::Geographic(g) = &terrain.terrain {
        return geo_raycast(g, &args.path, budget, (reader, rays), out);
    }
    let answer = |q: &Query| match q {
        Query::Ray(ray, max_t) => t.raycast(ray, *max_t),
        _ => None,
    };
    let mut found = 0usize;
    let rows =
        stream(&args.path, budget, reader, out, "hit,t,x,y,z,nx,ny,nz", answer, |w, _, h: &Option<landfall::Hit>| {
            match h {
                Some(h) => {
                    found += 1;
                    let (p, n) = (h.point, h.normal);
                    writeln!(w, "1,{},{},{},{},{},{},{}", nz(h.t), nz(p.x), nz(p.y), nz(p.z), nz(n.x), nz(n.y), nz(n.z))
                }
                None => writeln!(w, "0,,,,,,,"),
            }
        })?;
    summary(&t.bounds().xy_extent(), rows, found, ("rays", "hit", "missed"), rays, out);
    Ok(())
}

/// The extent of a terrain in degrees, as a warning prints it.
fn geo_extent(g: &GeoSurface) -> String {
    let xy = g.heightfield().bounds().xy_extent();
    format!("{} (degrees)", xy.replacen("x ", "lon ", 1).replacen(", y ", ", lat ", 1))
}

/// Heights header for a terrain in degrees.
const GEO_POINT: &str = "lon,lat,h,ecef_x,ecef_y,ecef_z,nx,ny,nz";

/// A point on a surface in degrees as a CSV row: geodetic, ECEF, the normal in ECEF.
fn geo_row(w: &mut dyn Write, g: &GeoSurface, p: &GeoPoint) -> std::io::Result<()> {
    let f = g.frame();
    let (e, n) = (f.to_ecef(p.enu), f.dir_to_ecef(p.normal));
    let q = p.geodetic;
    write!(w, "{},{},{},{},{},{},", nz(q.lon), nz(q.lat), nz(q.h), nz(e.x), nz(e.y), nz(e.z))?;
    writeln!(w, "{},{},{}", nz(n.x), nz(n.y), nz(n.z))
}

/// `landfall height` on a raster in degrees: rows `lon,lat[,h]`; the surface on the ellipsoid
/// normal through (lon, lat) (with `h`: only when at or below it).
fn geo_height(
    g: &GeoSurface,
    terrain: &Path,
    budget: Option<MapBudget>,
    (reader, points): (BatchReader, &Path),
    out: &Path,
    all: bool,
) -> Result<()> {
    let has_h = reader.has_optional_column();
    let mut found = 0usize;
    let answer = |q: &Query| match *q {
        Query::Point(p) => g.surface_at(p.x, p.y).filter(|s| !has_h || s.geodetic.h <= p.z),
        _ => None,
    };
    let rows = if all {
        let header = format!("index,{GEO_POINT}");
        stream(terrain, budget, reader, out, &header, answer, |w, k, s: &Option<GeoPoint>| match s {
            Some(s) => {
                found += 1;
                write!(w, "{k},")?;
                geo_row(w, g, s)
            }
            None => Ok(()),
        })?
    } else {
        stream(terrain, budget, reader, out, GEO_POINT, answer, |w, _, s: &Option<GeoPoint>| match s {
            Some(s) => {
                found += 1;
                geo_row(w, g, s)
            }
            None => writeln!(w, ",,,,,,,,"),
        })?
    };
    summary(&geo_extent(g), rows, found, ("points", "on the ground", "without ground"), points, out);
    Ok(())
}

/// `landfall raycast` on a raster in degrees: rows `lon,lat,h,de,dn,du[,max_t]` (the direction in
/// the east-north-up frame at the origin; t in units of its length, metres for a unit vector).
fn geo_raycast(
    g: &GeoSurface,
    terrain: &Path,
    budget: Option<MapBudget>,
    (reader, rays): (BatchReader, &Path),
    out: &Path,
) -> Result<()> {
    let answer = |q: &Query| match q {
        Query::Ray(r, max_t) => g.raycast_geodetic(Geodetic::new(r.origin.x, r.origin.y, r.origin.z), r.dir, *max_t),
        _ => None,
    };
    let header = format!("hit,t,{GEO_POINT}");
    let mut found = 0usize;
    let rows = stream(terrain, budget, reader, out, &header, answer, |w, _, h: &Option<GeoHit>| match h {
        Some(h) => {
            found += 1;
            write!(w, "1,{},", nz(h.t))?;
            geo_row(w, g, &h.point)
        }
        None => writeln!(w, "0,,,,,,,,,,"),
    })?;
    summary(&geo_extent(g), rows, found, ("rays", "hit", "missed"), rays, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every printed number reads back as the same f64, and none is long.
    #[test]
    fn numbers_print_short_and_round_trip() {
        for v in
            [0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 9.99e-6, 1e16, 1e300, -1e-300, 5e-324, f64::MAX, 123456.789, 1e15 + 0.5]
        {
            let s = nz(v).to_string();
            assert_eq!(s.parse::<f64>().unwrap(), v + 0.0, "{s}");
            assert!(s.len() <= 24, "{s}");
        }
        assert_eq!(nz(-0.0).to_string(), "0");
        assert_eq!(nz(1e300).to_string(), "1e300");
    }
}
