//! `landfall viewshed`: what an observer sees, exactly, written as a GeoTIFF.

use crate::terrain_args::{numbers, TerrainArgs};
use anyhow::{bail, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use landfall::viewshed::{
    Grid, Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, NODATA, VISIBLE,
};
use landfall::Heightfield;
use landfall_io::{write_geotiff_into, Band, Batch, BatchReader, GeoRef, OutputFile, Outputs, Query};
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
    /// Observer position X,Y (world units, like the raster's georeferencing).
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true, required_unless_present = "observers")]
    observer: Option<String>,
    /// Many observers instead: a CSV with header `x,y` or `x,y,h` (h: that observer's height);
    /// the output counts, per sample, the observers that see it (u16, nodata 65535).
    #[arg(long, value_name = "OBS.csv", conflicts_with = "observer")]
    observers: Option<PathBuf>,
    /// Height of the eye above the ground under the observer.
    #[arg(long, value_name = "H", default_value_t = 1.75, allow_hyphen_values = true)]
    observer_height: f64,
    /// Height of each target above its sample.
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_hyphen_values = true)]
    target_height: f64,
    /// Samples farther than this (horizontally) are nodata.
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    max_distance: Option<f64>,
    /// Lower every sample by (1 − K)·d²/(2R) for the Earth's curvature (R = 6,371,008.8 m).
    #[arg(long)]
    curvature: bool,
    /// Refraction coefficient K for --curvature.
    #[arg(long, value_name = "K", default_value_t = 1.0 / 7.0, allow_hyphen_values = true)]
    refraction: f64,
    /// Only targets clockwise from this azimuth (degrees from north)…
    #[arg(long, value_name = "A", requires = "end_angle", allow_hyphen_values = true)]
    start_angle: Option<f64>,
    /// …to this one.
    #[arg(long, value_name = "B", requires = "start_angle", allow_hyphen_values = true)]
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
    #[arg(long, value_name = "VIS.tif")]
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
    if a.observers.is_some() && a.mode != ViewshedMode::Visibility {
        bail!("--mode {:?}: with --observers the output is a count; use --mode visible", a.mode);
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
    let geo = GeoRef { origin: (hf.origin().x, hf.origin().y), spacing: (hf.spacing().x, hf.spacing().y) };
    let keys = loaded.geokeys.as_ref();
    let (nx, ny) = (hf.nx(), hf.ny());
    let start = Instant::now();
    let overlay: Vec<u8>;
    let mut marks = Vec::new();
    if let Some(obs_path) = &a.observers {
        let observers = read_observers(obs_path, hf, &params, a.observer_height)?;
        marks.extend(observers.iter().map(|o| [o.x, o.y]));
        let ViewshedOutput::Counts(cum) = compute(hf, &observers, &params, ViewshedMode::Count)? else {
            unreachable!("counts answer counts")
        };
        let counts: Vec<u16> =
            cum.values.iter().map(|c| c.map_or(u16::MAX, |c| c.min(u32::from(u16::MAX) - 1) as u16)).collect();
        let elapsed = start.elapsed();
        write_geotiff_into(outs.file(tif), nx, ny, Band::U16(&counts), &geo, Some(65535.0), keys)?;
        let most = counts.iter().filter(|&&c| c != u16::MAX).max().copied().unwrap_or(0);
        overlay = counts
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
            .collect();
        say!(
            "{} observers over {nx}×{ny} samples in {:.3} s; most seen: {most} observers → {}",
            observers.len(),
            elapsed.as_secs_f64(),
            a.out.display()
        );
    } else {
        let o = a.observer.as_deref().expect("clap requires --observer without --observers");
        let [x, y] = numbers::<2>("observer", o)?;
        marks.push([x, y]);
        let out =
            compute(hf, &[Observer::at(x, y)], &params, a.mode).map_err(|e| anyhow::anyhow!("--observer {o}: {e}"))?;
        let elapsed = start.elapsed();
        match out {
            ViewshedOutput::Visibility(vis, stats) => {
                write_geotiff_into(outs.file(tif), nx, ny, Band::U8(&vis.values), &geo, Some(255.0), keys)?;
                let seen = vis.values.iter().filter(|&&v| v == VISIBLE).count();
                let targets = vis.values.iter().filter(|&&v| v != NODATA).count();
                say!(
                    "{seen} of {targets} target samples visible ({:.2} %) in {:.3} s ({:.1} M samples/s; {} decided by the exact segment test) → {}",
                    100.0 * seen as f64 / targets.max(1) as f64,
                    elapsed.as_secs_f64(),
                    (nx * ny) as f64 / elapsed.as_secs_f64() / 1e6,
                    stats.band,
                    a.out.display()
                );
                overlay = vis.values.iter().map(|&v| if v == VISIBLE { 254 } else { v }).collect();
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
                overlay = need
                    .values
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
                    .collect();
            }
            _ => unreachable!("one observer answers visibility or heights"),
        }
    }
    if let Some(png) = png {
        preview(outs.file(png), hf, &Grid { nx, ny, values: overlay }, &marks)?;
    }
    outs.commit()?;
    if let Some(png) = &a.png {
        say!("preview → {}", png.display());
    }
    Ok(())
}

/// The viewshed with a progress bar on a terminal; Ctrl-C stops it (nothing is written).
fn compute(
    hf: &Heightfield,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput> {
    let bar = ProgressBar::new(1000)
        .with_style(ProgressStyle::with_template("{spinner} viewshed {percent}% {wide_bar} {eta}").expect("template"));
    let report = |f: f64| bar.set_position((f * 1000.0) as u64);
    let stop = crate::interrupt::Stop::on_ctrl_c();
    let hooks = Hooks { progress: Some(&report), cancel: Some(stop.flag()) };
    let out = landfall::viewshed::viewshed(hf, observers, params, mode, &hooks);
    bar.finish_and_clear();
    match out {
        Err(ViewshedError::Cancelled) => bail!("stopped (Ctrl-C): nothing written"),
        r => Ok(r?),
    }
}

/// The library's parameters from the options.
fn params(a: &ViewshedArgs) -> Result<ViewshedParams> {
    let p = ViewshedParams {
        observer_height: a.observer_height,
        target_height: a.target_height,
        max_distance: a.max_distance.unwrap_or(f64::INFINITY),
        curvature: a.curvature,
        refraction: a.refraction,
        azimuths: a.start_angle.zip(a.end_angle),
        pitch: match (a.low_pitch, a.high_pitch) {
            (None, None) => None,
            (lo, hi) => Some((lo.unwrap_or(-90.0), hi.unwrap_or(90.0))),
        },
    };
    if let Err(landfall::viewshed::ViewshedError::Param { name, why }) = p.validate() {
        let option = match name {
            "angles" => "--start-angle/--end-angle".to_string(),
            "pitch" => "--low-pitch/--high-pitch".to_string(),
            n => format!("--{}", n.replace(' ', "-")),
        };
        bail!("{option}: {why}");
    }
    Ok(p)
}

/// The observers of a CSV, each with its eye height, checked against the terrain.
fn read_observers(path: &Path, hf: &Heightfield, params: &ViewshedParams, default_h: f64) -> Result<Vec<Observer>> {
    let mut reader = BatchReader::open(path, Batch::Observers)?;
    let (mut out, mut rows) = (Vec::new(), Vec::new());
    while reader.next_chunk(&mut rows, 1 << 16)? > 0 {
        for (q, &line) in rows.iter().zip(reader.lines()) {
            if let Query::Observer { x, y, h } = *q {
                let o = Observer::at(x, y).with_height(h.unwrap_or(default_h));
                let one =
                    ViewshedParams { observer_height: h.unwrap_or(default_h), max_distance: 1.0, ..params.clone() };
                // A one-sample check of the observer's ground, before the long work.
                if let Err(e) = hf.observer_eye([x, y], &one) {
                    bail!("{}: line {line}: {e}", path.display());
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

/// The viewshed over the hill-shaded terrain: visible samples green, hidden ones dimmed red,
/// nodata grey; observers as white crosses. Cumulative counts shade from dark to bright green.
fn preview(out: &mut OutputFile, hf: &Heightfield, overlay: &Grid<u8>, observers: &[[f64; 2]]) -> Result<()> {
    let (nx, ny) = (hf.nx(), hf.ny());
    let step = nx.max(ny).div_ceil(1200).max(1);
    let (w, h) = (nx.div_ceil(step), ny.div_ceil(step));
    let sp = hf.spacing();
    let mut rgb = vec![0u8; w * h * 3];
    let colours = match hf.height_range() {
        Some((lo, hi)) => landfall::support::ColourMap::for_range(lo as f64, hi as f64),
        None => landfall::support::ColourMap::for_range(0.0, 1.0),
    };
    for py in 0..h {
        let j = (ny - 1).saturating_sub(py * step);
        for px in 0..w {
            let i = (px * step).min(nx - 1);
            let z = |i: usize, j: usize| hf.sample(i.min(nx - 1), j.min(ny - 1)) as f64;
            let (i0, j0) = (i.saturating_sub(1), j.saturating_sub(1));
            let gx = (z(i + 1, j) - z(i0, j)) / (sp.x * (i + 1 - i0).min(nx - 1 - i0).max(1) as f64);
            let gy = (z(i, j + 1) - z(i, j0)) / (sp.y * (j + 1 - j0).min(ny - 1 - j0).max(1) as f64);
            // Sun from the north-west, 45° up.
            let n = landfall::glam::DVec3::new(-gx, -gy, 1.0).normalize();
            let shade = n.dot(landfall::glam::DVec3::new(-0.5, 0.5, std::f64::consts::FRAC_1_SQRT_2)).clamp(0.0, 1.0);
            let shade = if shade.is_nan() { 0.0 } else { 0.35 + 0.65 * shade };
            // The landscape's colour map under a tint: green seen, red hidden, none for nodata.
            let ground = colours.colour(z(i, j), n.z).map(|v| v as f64 * 255.0);
            let (tint, amount) = match overlay.get(i, j) {
                NODATA => ([0.0; 3], 0.0),
                0 => ([150.0, 30.0, 30.0], 0.45),
                254 => ([60.0, 235.0, 70.0], 0.6),
                v => {
                    let f = v as f64 / 253.0;
                    ([30.0 + 40.0 * f, 80.0 + 170.0 * f, 40.0 + 30.0 * f], 0.6)
                }
            };
            let k = 3 * (py * w + px);
            for c2 in 0..3 {
                let c = ground[c2] * (1.0 - amount) + tint[c2] * amount;
                rgb[k + c2] = (c * shade).clamp(0.0, 255.0) as u8;
            }
        }
    }
    for o in observers {
        let (u, v) = ((o[0] - hf.origin().x) / sp.x, (o[1] - hf.origin().y) / sp.y);
        let (px, py) = ((u / step as f64).round() as i64, ((ny as f64 - 1.0 - v) / step as f64).round() as i64);
        for d in -6i64..=6 {
            for (x, y) in [(px + d, py), (px, py + d)] {
                if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                    let k = 3 * (y as usize * w + x as usize);
                    rgb[k..k + 3].copy_from_slice(&[255, 255, 255]);
                }
            }
        }
    }
    Ok(landfall_io::write_png_rgb_into(out, w as u32, h as u32, &rgb)?)
}
