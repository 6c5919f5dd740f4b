//! The picture of a viewshed (`landfall viewshed --png`): the samples seen from the observers over
//! the shaded terrain, at least 1024 pixels on its long side, with a title, a legend, a scale bar,
//! a north arrow and the observers marked.

use super::canvas::{Canvas, Rgb};
use super::map::{self, MapFrame, BLACK};
use crate::info::{fixed, places};
use anyhow::Result;
use landfall::viewshed::{Grid, NODATA};
use landfall::Heightfield;
use landfall_io::{GeoKeys, OutputFile};

/// Overlay value of a visible sample (one observer).
pub const SEEN: u8 = 254;

/// What the overlay's values mean.
pub enum Legend {
    /// One observer: [`SEEN`], 0 not seen, [`NODATA`].
    Visibility,
    /// Many observers: 0 seen by none, 1..=254 from one observer to `most`, [`NODATA`].
    Count { most: u16 },
}

/// Long side of the map in pixels: the raster's own size, kept between these.
const MAP_LONG: (usize, usize) = (1024, 2048);
/// Text scale (each font pixel drawn this many pixels wide).
const TEXT: usize = 2;
const MARGIN: i64 = 16;
const BACKGROUND: Rgb = [245, 244, 240];
const VISIBLE: ([f64; 3], f64) = ([40.0, 235.0, 60.0], 0.6);
const HIDDEN: ([f64; 3], f64) = ([30.0, 25.0, 45.0], 0.45);
const NO_DATA: ([f64; 3], f64) = ([225.0, 225.0, 225.0], 0.75);

/// The tint of an overlay value.
fn tint(v: u8, legend: &Legend) -> ([f64; 3], f64) {
    match (v, legend) {
        (NODATA, _) => NO_DATA,
        (0, _) => HIDDEN,
        (SEEN, Legend::Visibility) => VISIBLE,
        (_, Legend::Visibility) => HIDDEN,
        (v, Legend::Count { .. }) => ramp((v - 1) as f64 / 253.0),
    }
}

/// The colour of a count, `f` from 0 (one observer) to 1 (the most).
fn ramp(f: f64) -> ([f64; 3], f64) {
    ([30.0 + 40.0 * f, 80.0 + 170.0 * f, 40.0 + 30.0 * f], 0.6)
}

/// A swatch's colour: the tint over a neutral ground, as the map mixes it.
fn swatch((t, k): ([f64; 3], f64)) -> Rgb {
    let ground = [185.0, 175.0, 145.0];
    [0, 1, 2].map(|i| (ground[i] * (1.0 - k) + t[i] * k) as u8)
}

/// The line above the map: who looks, and how much of the targets they see.
fn title(hf: &Heightfield, overlay: &Grid<u8>, observers: &[[f64; 2]], legend: &Legend) -> String {
    let short = |v: f64| fixed(v, places(hf.spacing().min_element()));
    let targets = overlay.values.iter().filter(|&&v| v != NODATA).count();
    let seen = overlay.values.iter().filter(|&&v| v != NODATA && v != 0).count();
    let share = 100.0 * seen as f64 / targets.max(1) as f64;
    match (legend, observers) {
        (Legend::Visibility, [o]) => {
            format!("Viewshed from {}, {}: {share:.1} % of {targets} target samples visible", short(o[0]), short(o[1]))
        }
        (Legend::Count { most }, _) => format!(
            "Viewshed of {} observers: {share:.1} % of {targets} target samples seen, by at most {most}",
            observers.len()
        ),
        _ => format!("Viewshed: {share:.1} % of {targets} target samples visible"),
    }
}

/// Draws the picture.
pub fn draw(
    hf: &Heightfield,
    keys: Option<&GeoKeys>,
    overlay: &Grid<u8>,
    observers: &[[f64; 2]],
    legend: &Legend,
) -> Canvas {
    let geographic = crate::geo::is_geographic(&hf.bounds(), keys);
    let long = hf.nx().max(hf.ny()).clamp(MAP_LONG.0, MAP_LONG.1);
    let line = Canvas::text_height(TEXT);
    let top = MARGIN + line + MARGIN;
    let mut f = MapFrame::new(hf, geographic, long, MARGIN, top);
    let width = (f.w as i64 + 2 * MARGIN).max(800);
    f.x0 = (width - f.w as i64) / 2;
    let legend_h = 3 * line + 4 * MARGIN;
    let height = top + f.h as i64 + legend_h;
    let mut c = Canvas::new(width as usize, height as usize, BACKGROUND);
    c.text(MARGIN, MARGIN, &title(hf, overlay, observers, legend), TEXT, BLACK);

    let (o, s) = (hf.origin(), hf.spacing());
    let (nx, ny) = (hf.nx(), hf.ny());
    let at = |x: f64, y: f64| {
        let i = ((x - o.x) / s.x).round().clamp(0.0, (nx - 1) as f64) as usize;
        let j = ((y - o.y) / s.y).round().clamp(0.0, (ny - 1) as f64) as usize;
        overlay.get(i, j)
    };
    map::draw_terrain(&mut c, hf, &f, [215, 215, 215], &|x, y| tint(at(x, y), legend));
    c.frame(f.x0 - 1, f.y0 - 1, f.w as i64 + 2, f.h as i64 + 2, 1, BLACK);
    let r = if observers.len() > 50 {
        5.0
    } else if observers.len() > 5 {
        8.0
    } else {
        12.0
    };
    for ob in observers {
        map::observer_mark(&mut c, f.pixel(ob[0], ob[1]), r);
    }
    map::scale_bar(&mut c, &f, TEXT);
    map::north_arrow(&mut c, &f, TEXT);

    // The legend, in a row under the map.
    let mut x = MARGIN;
    let y = top + f.h as i64 + MARGIN;
    let item = |c: &mut Canvas, x: &mut i64, colour: Option<Rgb>, text: &str| {
        match colour {
            Some(col) => {
                c.rect(*x, y - 2, 28, line + 4, col);
                c.frame(*x, y - 2, 28, line + 4, 1, BLACK);
            }
            None => map::observer_mark(c, (*x as f64 + 14.0, y as f64 + line as f64 / 2.0), 9.0),
        }
        c.text(*x + 36, y, text, TEXT, BLACK);
        *x += 36 + Canvas::text_width(text, TEXT) + 28;
    };
    match legend {
        Legend::Visibility => {
            item(&mut c, &mut x, Some(swatch(VISIBLE)), "visible");
            item(&mut c, &mut x, Some(swatch(HIDDEN)), "not visible");
        }
        Legend::Count { most } => {
            item(&mut c, &mut x, Some(swatch(HIDDEN)), "seen by none");
            // A ramp from one observer to the most.
            let w = 160;
            for k in 0..w {
                let col = swatch(ramp(k as f64 / (w - 1) as f64));
                c.rect(x + k, y - 2, 1, line + 4, col);
            }
            c.frame(x, y - 2, w, line + 4, 1, BLACK);
            let text = format!("seen by 1 … {most}");
            c.text(x + w + 8, y, &text, TEXT, BLACK);
            x += w + 8 + Canvas::text_width(&text, TEXT) + 28;
        }
    }
    item(&mut c, &mut x, Some(swatch(NO_DATA)), "no data");
    item(&mut c, &mut x, None, if observers.len() == 1 { "observer" } else { "observers" });
    let b = hf.bounds();
    let short = |v: f64| fixed(v, places(hf.spacing().min_element()));
    let note = format!(
        "x {} … {}, y {} … {}{}; north up, shaded from the north-west",
        short(b.min.x),
        short(b.max.x),
        short(b.min.y),
        short(b.max.y),
        if geographic { " (degrees)" } else { "" }
    );
    c.text(MARGIN, y + line + MARGIN, &note, TEXT, [70, 70, 70]);
    c
}

/// Draws the picture and writes it as a PNG into `out` (committed with the run's other outputs).
pub fn write(
    out: &mut OutputFile,
    hf: &Heightfield,
    keys: Option<&GeoKeys>,
    overlay: &Grid<u8>,
    observers: &[[f64; 2]],
    legend: &Legend,
) -> Result<()> {
    let c = draw(hf, keys, overlay, observers, legend);
    Ok(landfall_io::write_png_rgb_into(out, c.w as u32, c.h as u32, &c.px)?)
}

#[cfg(test)]
mod tests {
    use super::map::WHITE;
    use super::*;

    fn pixel(c: &Canvas, x: i64, y: i64) -> Rgb {
        let k = 3 * (y as usize * c.w + x as usize);
        [c.px[k], c.px[k + 1], c.px[k + 2]]
    }

    fn count(c: &Canvas, colour: Rgb) -> usize {
        c.px.chunks_exact(3).filter(|p| *p == colour).count()
    }

    /// A small raster makes a picture at least 1024 pixels long with the visible, hidden and
    /// no-data samples tinted, the legend's swatches, the observer marked where it stands and a
    /// scale bar whose length is the distance it says.
    #[test]
    fn a_small_viewshed_makes_a_large_picture_with_legend_scale_and_observer() {
        let (nx, ny) = (60, 40);
        let heights: Vec<f32> = (0..nx * ny).map(|k| ((k % nx) as f32 * 0.3).sin() * 50.0).collect();
        let hf = Heightfield::builder(nx, ny, heights).spacing(30.0, 30.0).origin(1000.0, 2000.0).build().unwrap();
        // West third visible, middle hidden, east nodata.
        let values = (0..nx * ny).map(|k| [SEEN, 0, NODATA][3 * (k % nx) / nx]).collect();
        let grid = Grid { nx, ny, values };
        let c = draw(&hf, None, &grid, &[[1300.0, 2600.0]], &Legend::Visibility);
        assert!(c.w.max(c.h) >= 1024, "{} × {}", c.w, c.h);
        for colour in [swatch(VISIBLE), swatch(HIDDEN), swatch(NO_DATA)] {
            assert!(count(&c, colour) > 200, "no legend swatch of {colour:?}");
        }
        // The map: greener in the west, redder in the middle.
        let f = MapFrame::new(&hf, false, 1024, 0, 0);
        let top = MARGIN + Canvas::text_height(TEXT) + MARGIN;
        let x0 = (c.w as i64 - f.w as i64) / 2;
        let west = pixel(&c, x0 + f.w as i64 / 10, top + 3 * f.h as i64 / 4);
        let middle = pixel(&c, x0 + f.w as i64 / 2, top + 3 * f.h as i64 / 4);
        assert!(west[1] > west[0] && middle[0] > middle[1], "west {west:?}, middle {middle:?}");
        // The observer: a white ring around its position, 12 pixels out.
        let (ox, oy) = (x0 as f64 + 300.0 / 1770.0 * f.w as f64, top as f64 + (3170.0 - 2600.0) / 1170.0 * f.h as f64);
        let ring = (0..16).filter(|k| {
            let a = *k as f64 * std::f64::consts::PI / 8.0;
            pixel(&c, (ox + 11.0 * a.cos()) as i64, (oy + 11.0 * a.sin()) as i64) == WHITE
        });
        assert!(ring.count() >= 12, "no observer mark at ({ox:.0}, {oy:.0})");
        // The scale bar: a black run as long as the round distance it names (1770 m across).
        let metres = map::round_length(1770.0 / 5.0);
        let want = metres / (1770.0 / f.w as f64);
        let bar_y = top + f.h as i64 - 12 * TEXT as i64 - 2;
        let run = (0..c.w as i64).filter(|&x| pixel(&c, x, bar_y) == BLACK).count() as f64;
        assert!((run - want).abs() <= 3.0, "scale bar {run} px, want {want:.1} for {metres} m");
    }

    #[test]
    fn counts_have_a_ramp() {
        let hf = Heightfield::builder(3, 3, vec![0.0; 9]).build().unwrap();
        let grid = Grid { nx: 3, ny: 3, values: vec![0, 1, 100, 254, NODATA, 0, 0, 0, 0] };
        let c = draw(&hf, None, &grid, &[[0.0, 0.0], [2.0, 2.0]], &Legend::Count { most: 7 });
        // The legend's ramp, from one observer to the most (inside its frame).
        assert!(count(&c, swatch(ramp(1.0 / 159.0))) > 10 && count(&c, swatch(ramp(158.0 / 159.0))) > 10);
    }
}
