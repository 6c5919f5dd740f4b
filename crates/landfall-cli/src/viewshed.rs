//! `landfall viewshed`: what an observer sees, exactly, written as a GeoTIFF.

use crate::preview::viewshed::Legend;
use crate::terrain_args::{numbers, TerrainArgs};
use anyhow::{bail, Result};
use clap::Args;
use landfall::geo::GeoSurface;
use landfall::viewshed::{
    observer_eye, viewshed, Grid, Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams,
    ViewshedSurface, NODATA, VISIBLE,
};
use landfall_io::{write_geotiff_into, Band, Batch, BatchReader, GeoRef, Outputs, Query};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The library's modes by the names the command line takes.
fn parse_mode(s: &str) -> Result<ViewshedMode, String> {
    match ViewshedMode::from_name(s) {
        Ok(ViewshedMode::Count) => Err("count is what --observers gives; use --observers".into()),
        Ok(m) => Ok(m),
        Err(e) => Err(e.to_string()),
    }
}

/// Options of `landfall viewshed`.
#[derive(Args, Debug)]
pub struct ViewshedArgs {
    #[command(flatten)]
    terrain: TerrainArgs,
    /// Observer position X,Y (world units, like the raster's georeferencing; longitude,latitude
    /// for a raster in degrees).
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true, required_unless_present = "observers")]
    observer: Option<String>,
    /// Many observers instead: a CSV with header `x,y` or `x,y,h` (h: that observer's eye height
    /// above the ground; a `z` column is refused); the output counts, per sample, the observers
    /// that see it (u16, nodata 65535). `-` reads the CSV from standard input.
    #[arg(long, value_name = "OBS.csv", conflicts_with = "observer")]
    observers: Option<PathBuf>,
    /// Height of the eye above the ground under the observer.
    #[arg(long, value_name = "H", default_value_t = 1.75, allow_hyphen_values = true)]
    observer_height: f64,
    /// Height of each target above its sample.
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_hyphen_values = true)]
    target_height: f64,
    /// Samples farther than this (horizontally) are nodata (metres for a raster in degrees: the
    /// straight line between the points on the ellipsoid).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    max_distance: Option<f64>,
    /// Lower every sample by (1 − K)·d²/(2R) for the Earth's curvature (R = 6,371,008.8 m). A raster
    /// in degrees always follows the Earth's shape (lines of sight straight in Earth-centred
    /// coordinates) and raises every sample by K·d²/(2R) for refraction.
    #[arg(long)]
    curvature: bool,
    /// Refraction coefficient K for --curvature (and always for a raster in degrees; 0: none).
    #[arg(long, value_name = "K", default_value_t = 1.0 / 7.0, allow_hyphen_values = true)]
    refraction: f64,
    /// Only targets clockwise from this azimuth (degrees from north)…
    #[arg(long, value_name = "A", allow_hyphen_values = true)]
    start_angle: Option<f64>,
    /// …to this one.
    #[arg(long, value_name = "B", allow_hyphen_values = true)]
    end_angle: Option<f64>,
    /// Targets seen above this elevation angle from the eye (degrees) are nodata.
    #[arg(long, value_name = "DEG", allow_hyphen_values = true)]
    high_pitch: Option<f64>,
    /// Targets seen below this elevation angle from the eye (degrees) are nodata.
    #[arg(long, value_name = "DEG", allow_hyphen_values = true)]
    low_pitch: Option<f64>,
    /// What each sample holds (one observer only): `visible` 1 visible, 0 not visible, 255 nodata
    /// (u8); `ground` the least target height above the ground at which the sample would be seen
    /// (f32, NaN nodata; GDAL's GROUND mode); `dem` that height plus the ground (GDAL's DEM mode).
    #[arg(long, value_name = "MODE", default_value = "visible", value_parser = parse_mode)]
    mode: ViewshedMode,
    /// Output GeoTIFF.
    #[arg(short, long, value_name = "VIS.tif")]
    out: PathBuf,
    /// Also a picture: the viewshed over the shaded terrain.
    #[arg(long, value_name = "PREVIEW.png")]
    png: Option<PathBuf>,
}

/// `landfall viewshed`.
pub fn run(a: &ViewshedArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = vec![&a.terrain.path];
    inputs.extend(a.observers.as_deref());
    let params = params(a)?;
    let ext = landfall_io::extension(&a.out);
    if ext != "tif" && ext != "tiff" {
        bail!("--out {}: the answer is written as a GeoTIFF: name it .tif", a.out.display());
    }
    if let Some(p) = a.png.as_deref().filter(|p| landfall_io::extension(p) != "png") {
        bail!("--png {}: the picture is written as a PNG: name it .png", p.display());
    }
    if a.observers.is_some() && a.mode != ViewshedMode::Visibility {
        bail!("--mode: with --observers the output is a count of observers; use --mode visible (the default)");
    }
    if landfall_io::is_index(&a.terrain.path) || landfall_io::is_mesh(&a.terrain.path) {
        bail!(
            "{}: viewsheds are computed on rasters (a grid of samples); this is a polygon terrain",
            a.terrain.path.display()
        );
    }
    // Both outputs are checked and started now, and committed together at the end.
    let mut outs = Outputs::new(&inputs);
    let tif = outs.add(&a.out, "--out")?;
    let png = a.png.as_deref().map(|p| outs.add(p, "--png")).transpose()?;
    let loaded = a.terrain.load_raster_with_georef()?;
    for n in &loaded.notes {
        eprintln!("landfall: note: {}: {n}", a.terrain.path.display());
    }
    let hf = &loaded.heightfield;
    let geographic = geographic(a, &loaded)?;
    if geographic.is_none() {
        // As every other command notes on opening (an index's notes already hold it).
        if let Some(n) = landfall_io::units_disagree(hf).filter(|n| !loaded.notes.contains(n)) {
            eprintln!("landfall: note: {}: {n}", a.terrain.path.display());
        }
    }
    let surface: &dyn ViewshedSurface = match &geographic {
        Some(g) => g,
        None => hf,
    };
    let geo = GeoRef { origin: (hf.origin().x, hf.origin().y), spacing: (hf.spacing().x, hf.spacing().y) };
    let keys = loaded.geokeys.as_ref();
    let (nx, ny) = (hf.nx(), hf.ny());
    let bytes = match (&a.observers, a.mode) {
        (Some(_), _) => 2,
        (None, ViewshedMode::Visibility) => 1,
        (None, _) => 4,
    };
    a.terrain
        .limits()
        .check_answer(nx, ny, bytes, true)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.terrain.path.display()))?;
    let start = Instant::now();
    // The picture's overlay, made only when a picture is asked for.
    let want = a.png.is_some();
    let overlay: Option<Vec<u8>>;
    let mut marks = Vec::new();
    let mut legend = Legend::Visibility;
    if let Some(obs_path) = &a.observers {
        let observers = read_observers(obs_path, surface, &params, a.observer_height, &hf.bounds().xy_extent())?;
        marks.extend(observers.iter().map(|o| [o.x, o.y]));
        let ViewshedOutput::Counts(cum) = compute(surface, (nx, ny), &observers, &params, ViewshedMode::Count)? else {
            unreachable!("counts answer counts")
        };
        let counts: Vec<u16> =
            cum.values.iter().map(|c| c.map_or(u16::MAX, |c| c.min(u32::from(u16::MAX) - 1) as u16)).collect();
        let elapsed = start.elapsed();
        write_geotiff_into(outs.file(tif), nx, ny, Band::U16(&counts), &geo, Some(65535.0), keys)?;
        let most = counts.iter().filter(|&&c| c != u16::MAX).max().copied().unwrap_or(0);
        legend = Legend::Count { most };
        overlay = want.then(|| {
            counts
                .iter()
                .map(|&c| {
                    if c == u16::MAX {
                        NODATA
                    } else if c == 0 {
                        0
                    } else {
                        (1 + 253 * c as u32 / most.max(1) as u32) as u8
                    }
                })
                .collect()
        });
        say!(
            "{} observers over {nx}×{ny} samples in {:.3} s; most seen: {most} observers → {}",
            observers.len(),
            elapsed.as_secs_f64(),
            a.out.display()
        );
        let capped = counts.iter().filter(|&&c| c == u16::MAX - 1).count();
        if observers.len() >= (u16::MAX - 1) as usize && capped > 0 {
            eprintln!(
                "landfall: note: {capped} samples are seen by 65,534 observers or more: a count stops there (u16 GeoTIFF, \
                 65,535 is nodata); split the observers and add the counts for more"
            );
        }
    } else {
        let o = a.observer.as_deref().expect("clap requires --observer without --observers");
        let [x, y] = numbers::<2>("observer", o)?;
        marks.push([x, y]);
        let out = compute(surface, (nx, ny), &[Observer::at(x, y)], &params, a.mode)
            .map_err(|e| anyhow::anyhow!("--observer {o}: {e} (the terrain covers {})", hf.bounds().xy_extent()))?;
        let elapsed = start.elapsed();
        match out {
            ViewshedOutput::Visibility(vis, stats) => {
                write_geotiff_into(outs.file(tif), nx, ny, Band::U8(&vis.values), &geo, Some(255.0), keys)?;
                let (seen, targets) = vis
                    .values
                    .iter()
                    .fold((0, 0), |(s, t), &v| (s + usize::from(v == VISIBLE), t + usize::from(v != NODATA)));
                say!(
                    "{seen} of {targets} target samples visible ({:.2} %) in {:.3} s ({:.1} M samples/s; {} decided by the exact segment test) → {}",
                    100.0 * seen as f64 / targets.max(1) as f64,
                    elapsed.as_secs_f64(),
                    (nx * ny) as f64 / elapsed.as_secs_f64() / 1e6,
                    stats.band,
                    a.out.display()
                );
                overlay = want.then(|| vis.values.iter().map(|&v| if v == VISIBLE { 254 } else { v }).collect());
            }
            ViewshedOutput::Heights(need) => {
                let values: Vec<f32> = need.values.iter().map(|&n| n as f32).collect();
                write_geotiff_into(outs.file(tif), nx, ny, Band::F32(&values), &geo, Some(f64::NAN), keys)?;
                say!(
                    "least visible {} heights in {:.3} s → {}",
                    if a.mode == ViewshedMode::HeightFromDem { "target" } else { "above-ground" },
                    elapsed.as_secs_f64(),
                    a.out.display()
                );
                // Seen at ground level where the least height above the ground is 0.
                overlay = want.then(|| {
                    need.values
                        .iter()
                        .zip(hf.samples())
                        .map(|(&n, g)| {
                            let above = if a.mode == ViewshedMode::HeightFromDem { n - g as f64 } else { n };
                            if n.is_nan() {
                                NODATA
                            } else if above <= 0.0 {
                                254
                            } else {
                                0
                            }
                        })
                        .collect()
                });
            }
            _ => unreachable!("one observer answers visibility or heights"),
        }
    }
    if let (Some(png), Some(values)) = (png, overlay) {
        let grid = Grid { nx, ny, values };
        crate::preview::viewshed::write(outs.file(png), hf, keys, &grid, &marks, &legend)?;
    }
    a.terrain.unchanged()?;
    outs.commit()?;
    if let Some(png) = &a.png {
        say!("preview → {}", png.display());
    }
    Ok(())
}

/// The raster as a surface on the WGS84 ellipsoid when it is in degrees (a geographic CRS, placed
/// by the file): its viewshed follows the Earth's shape, observers at lon,lat.
fn geographic(a: &ViewshedArgs, loaded: &landfall_io::Loaded) -> Result<Option<GeoSurface>> {
    let degrees = loaded.geokeys.as_ref().is_some_and(landfall_io::GeoKeys::is_geographic);
    if !degrees || a.terrain.origin.is_some() || a.terrain.spacing.is_some() {
        return Ok(None);
    }
    let g = GeoSurface::new(loaded.heightfield.clone())
        .map_err(|e| anyhow::anyhow!("{}: geographic CRS: {e}", a.terrain.path.display()))?;
    eprintln!(
        "landfall: note: {}: in degrees: observers at lon,lat; lines of sight straight on the WGS84 ellipsoid (the \
         Earth's curvature is in the model), refraction K = {} raises each sample by K·d²/(2R); distances in metres",
        a.terrain.path.display(),
        a.refraction
    );
    Ok(Some(g))
}

/// The viewshed of `surface` (`nx` × `ny` samples) with a progress bar on a terminal; Ctrl-C stops
/// it (nothing is written).
fn compute(
    surface: &dyn ViewshedSurface,
    (nx, ny): (usize, usize),
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput> {
    let bar = crate::progress::Step::bar("viewshed", 1000, "{percent}% {wide_bar} {eta}");
    let report = |f: f64| bar.set_position((f * 1000.0) as u64);
    let stop = crate::interrupt::Stop::on_ctrl_c();
    let hooks = Hooks::default().with_progress(&report).with_cancel(stop.flag());
    let out = viewshed(surface, observers, params, mode, &hooks);
    if out.is_ok() {
        bar.done(format!("{nx}×{ny} samples"));
    }
    match out {
        Err(ViewshedError::Cancelled) => bail!("stopped (Ctrl-C): nothing written"),
        r => Ok(r?),
    }
}

/// The library's parameters from the options.
fn params(a: &ViewshedArgs) -> Result<ViewshedParams> {
    let p = ViewshedParams::default()
        .with_observer_height(a.observer_height)
        .with_target_height(a.target_height)
        .with_max_distance(a.max_distance.unwrap_or(f64::INFINITY))
        .with_curvature(a.curvature)
        .with_refraction(a.refraction)
        .with_limits(a.start_angle, a.end_angle, a.low_pitch, a.high_pitch)
        .and_then(|p| p.validate().map(|()| p));
    if let Err(landfall::viewshed::ViewshedError::Param { name, why }) = &p {
        let option = match *name {
            "angles" => "--start-angle/--end-angle".to_string(),
            "pitch" => "--low-pitch/--high-pitch".to_string(),
            n => format!("--{}", n.replace(' ', "-")),
        };
        // The library names them as Python does.
        let mut why = why.clone();
        for n in ["start_angle", "end_angle", "low_pitch", "high_pitch"] {
            why = why.replace(n, &format!("--{}", n.replace('_', "-")));
        }
        bail!("{option}: {why}");
    }
    Ok(p?)
}

/// The observers of a CSV, each with its eye height, checked against the terrain (`extent` names
/// where it is).
fn read_observers(
    path: &Path,
    surface: &dyn ViewshedSurface,
    params: &ViewshedParams,
    default_h: f64,
    extent: &str,
) -> Result<Vec<Observer>> {
    let mut reader = BatchReader::open(path, Batch::Observers)?;
    let (mut out, mut rows) = (Vec::new(), Vec::new());
    while reader.next_chunk(&mut rows, 1 << 16)? > 0 {
        for (q, &line) in rows.iter().zip(reader.lines()) {
            if let Query::Observer { x, y, h } = *q {
                let o = Observer::at(x, y).with_height(h.unwrap_or(default_h));
                let one = params.clone().with_observer_height(h.unwrap_or(default_h)).with_max_distance(1.0);
                // A one-sample check of the observer's ground, before the long work.
                if let Err(e) = observer_eye(surface, [x, y], &one) {
                    bail!("{}: line {line}: {e} (the terrain covers {extent})", path.display());
                }
                out.push(o);
            }
        }
    }
    if out.is_empty() {
        bail!("{}: no observers", path.display());
    }
    Ok(out)
}
