//! A heightfield drawn from above: shaded and coloured on the exact triangles, north up, with a
//! scale bar and a north arrow; world points placed on it.

use super::canvas::{Canvas, Rgb};
use landfall::glam::DVec3;
use landfall::{Heightfield, Terrain};

/// How a heightfield's x, y map to pixels of a map `w × h` whose top-left corner is at `(x0, y0)`
/// on the canvas, and how long a world unit is on the ground.
pub struct MapFrame {
    pub x0: i64,
    pub y0: i64,
    pub w: usize,
    pub h: usize,
    min: [f64; 2],
    max: [f64; 2],
    /// Metres per world unit along x and y (1 unless the raster is in degrees).
    pub metres: [f64; 2],
}

impl MapFrame {
    /// The frame of `hf` with its long side `long` pixels, ground proportions kept (a raster in
    /// degrees is drawn with its longitude shrunk by the cosine of its mid latitude).
    pub fn new(hf: &Heightfield, geographic: bool, long: usize, x0: i64, y0: i64) -> Self {
        let b = hf.bounds();
        let metres = crate::geo::metres_per_unit(&b, geographic);
        let (gw, gh) = ((b.max.x - b.min.x) * metres[0], (b.max.y - b.min.y) * metres[1]);
        let (w, h) = if gw >= gh {
            (long, ((long as f64 * gh / gw.max(1e-300)).round() as usize).max(1))
        } else {
            (((long as f64 * gw / gh.max(1e-300)).round() as usize).max(1), long)
        };
        Self { x0, y0, w, h, min: [b.min.x, b.min.y], max: [b.max.x, b.max.y], metres }
    }

    /// The world x, y at the centre of map pixel (px, py).
    pub fn world(&self, px: usize, py: usize) -> [f64; 2] {
        [
            self.min[0] + (px as f64 + 0.5) / self.w as f64 * (self.max[0] - self.min[0]),
            self.max[1] - (py as f64 + 0.5) / self.h as f64 * (self.max[1] - self.min[1]),
        ]
    }

    /// The canvas position of world x, y.
    pub fn pixel(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.x0 as f64 + (x - self.min[0]) / (self.max[0] - self.min[0]).max(1e-300) * self.w as f64,
            self.y0 as f64 + (self.max[1] - y) / (self.max[1] - self.min[1]).max(1e-300) * self.h as f64,
        )
    }

    /// Metres on the ground per pixel across the map.
    pub fn metres_per_pixel(&self) -> f64 {
        (self.max[0] - self.min[0]) * self.metres[0] / self.w as f64
    }
}

/// Draws the shaded, coloured terrain into its frame; `tint(x, y)` gives a colour and how much of
/// it to mix in (0 to 1) at a world point. Holes and ground outside the terrain are `empty`.
pub fn draw_terrain(
    c: &mut Canvas,
    hf: &Heightfield,
    f: &MapFrame,
    empty: Rgb,
    tint: &(dyn Fn(f64, f64) -> ([f64; 3], f64) + Sync),
) {
    use rayon::prelude::*;
    let colours = match hf.height_range() {
        Some((lo, hi)) => landfall::support::ColourMap::for_range(lo as f64, hi as f64),
        None => landfall::support::ColourMap::for_range(0.0, 1.0),
    };
    // Sun from the north-west, 45° up.
    let sun = DVec3::new(-0.5, 0.5, std::f64::consts::FRAC_1_SQRT_2);
    let rows: Vec<Vec<u8>> = (0..f.h)
        .into_par_iter()
        .map(|py| {
            let mut row = Vec::with_capacity(3 * f.w);
            for px in 0..f.w {
                let [x, y] = f.world(px, py);
                let rgb = match hf.top_surface(DVec3::new(x, y, 0.0)) {
                    None => empty.map(f64::from),
                    Some(s) => {
                        // The normal on the ground's proportions (metres both ways).
                        let n = s.normal;
                        let n = DVec3::new(n.x / f.metres[0], n.y / f.metres[1], n.z).normalize_or(DVec3::Z);
                        let shade = 0.35 + 0.65 * n.dot(sun).clamp(0.0, 1.0);
                        let ground = colours.colour(s.point.z, n.z).map(|v| v as f64 * 255.0);
                        let (t, k) = tint(x, y);
                        [0, 1, 2].map(|i| (ground[i] * (1.0 - k) + t[i] * k) * shade)
                    }
                };
                row.extend(rgb.map(|v| v.clamp(0.0, 255.0) as u8));
            }
            row
        })
        .collect();
    for (py, row) in rows.iter().enumerate() {
        let at = 3 * ((f.y0 as usize + py) * c.w + f.x0 as usize);
        c.px[at..at + row.len()].copy_from_slice(row);
    }
}

/// A round length near `target`: 1, 2 or 5 times a power of ten.
pub fn round_length(target: f64) -> f64 {
    let p = 10f64.powf(target.log10().floor());
    [5.0, 2.0, 1.0].into_iter().map(|m| m * p).find(|&l| l <= target).unwrap_or(p)
}

/// `metres` as people write it: `500 m`, `2 km`, `0.5 m`.
pub fn distance_label(metres: f64) -> String {
    if metres >= 1000.0 {
        format!("{} km", metres / 1000.0)
    } else {
        format!("{metres} m")
    }
}

/// A scale bar about a fifth of the map wide in its bottom-left corner, on a light backing.
pub fn scale_bar(c: &mut Canvas, f: &MapFrame, scale: usize) {
    let mpp = f.metres_per_pixel();
    let metres = round_length(mpp * f.w as f64 / 5.0);
    let len = (metres / mpp).round() as i64;
    let label = distance_label(metres);
    let s = scale as i64;
    let (x, y) = (f.x0 + 12 * s, f.y0 + f.h as i64 - 12 * s);
    let th = Canvas::text_height(scale);
    c.rect(x - 4 * s, y - th - 8 * s, len.max(Canvas::text_width(&label, scale)) + 8 * s, th + 12 * s, WHITE);
    // Two halves, black and white, in a black frame.
    c.rect(x, y - 3 * s, len, 3 * s, BLACK);
    c.rect(x + len / 2, y - 2 * s, len - len / 2 - s, s, WHITE);
    c.text(x, y - th - 5 * s, &label, scale, BLACK);
}

/// A north arrow (north is +y) in the top-right corner of the map.
pub fn north_arrow(c: &mut Canvas, f: &MapFrame, scale: usize) {
    let s = scale as f64;
    let (cx, top) = ((f.x0 + f.w as i64) as f64 - 20.0 * s, f.y0 as f64 + 8.0 * s);
    c.rect((cx - 12.0 * s) as i64, top as i64, (24.0 * s) as i64, (34.0 * s) as i64, WHITE);
    for k in 0..(12.0 * s) as i64 {
        let half = k as f64 * 0.5;
        c.rect((cx - half) as i64, (top + 10.0 * s) as i64 + k, (2.0 * half).max(1.0) as i64, 1, BLACK);
    }
    c.line((cx, top + 16.0 * s), (cx, top + 31.0 * s), 2.0 * s, BLACK);
    c.text((cx - 2.5 * s) as i64, (top + 1.0 * s) as i64, "N", scale, BLACK);
}

/// An observer's mark: a white ring with a dark outline and a cross, `r` pixels across.
pub fn observer_mark(c: &mut Canvas, (x, y): (f64, f64), r: f64) {
    c.ring(x, y, r - 3.0, r + 1.0, BLACK);
    c.ring(x, y, r - 2.0, r, WHITE);
    c.line((x - r * 0.6, y), (x + r * 0.6, y), 2.0, BLACK);
    c.line((x, y - r * 0.6), (x, y + r * 0.6), 2.0, BLACK);
}

pub const WHITE: Rgb = [255, 255, 255];
pub const BLACK: Rgb = [20, 20, 20];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_lengths_are_round_and_not_longer_than_asked() {
        for (t, want) in [(1234.0, 1000.0), (2600.0, 2000.0), (7.3, 5.0), (0.31, 0.2), (50_000.0, 50_000.0)] {
            assert_eq!(round_length(t), want);
        }
        assert_eq!(distance_label(2000.0), "2 km");
        assert_eq!(distance_label(500.0), "500 m");
    }

    #[test]
    fn degrees_are_recognised_and_drawn_at_ground_proportions() {
        // 4° × 2° at 49° N: about 292 km × 223 km on the ground.
        let heights: Vec<f32> = (0..121 * 91).map(|k| (k % 121) as f32 * 20.0 - 1000.0).collect();
        let hf = Heightfield::builder(121, 91, heights)
            .origin(234.0, 48.0)
            .spacing(4.0 / 120.0, 2.0 / 90.0)
            .build()
            .unwrap();
        assert!(crate::geo::is_geographic(&hf.bounds(), None));
        let f = MapFrame::new(&hf, true, 1024, 0, 0);
        assert_eq!(f.w, 1024);
        let want = 1024.0 * 2.0 / (4.0 * 49f64.to_radians().cos());
        assert!((f.h as f64 - want).abs() <= 1.0, "{} px high, want {want}", f.h);
        // Corners land on the map's corners.
        let (x, y) = f.pixel(234.0, 50.0);
        assert!(x.abs() < 1e-9 && y.abs() < 1e-9);
        // The same numbers in metres are not degrees.
        let hf = Heightfield::builder(121, 91, vec![0.0; 121 * 91]).spacing(2430.0, 2430.0).build().unwrap();
        assert!(!crate::geo::is_geographic(&hf.bounds(), None));
    }
}
