//! Pictures of a run from above: the scene, the entities coloured by representation, a legend.

use crate::preview::canvas::{Canvas, Rgb};
use landfall::behave::{Activity, Behaviours, Rep};
use landfall::glam::DVec2;

/// Colour of each representation.
pub fn colour(rep: Rep) -> Rgb {
    match rep {
        Rep::Full => [225, 110, 20],
        Rep::Approximate => [50, 110, 215],
        Rep::Dormant => [165, 165, 165],
    }
}

/// From world x, y to pixels (y up in the world, down in the picture).
pub struct Map {
    lo: DVec2,
    hi_y: f64,
    scale: f64,
    margin: f64,
}

impl Map {
    /// The extent `lo..hi` fitted into `w × h` pixels with a margin.
    pub fn new((lo, hi): (DVec2, DVec2), w: usize, h: usize) -> Self {
        let margin = 20.0;
        let size = hi - lo;
        let scale = ((w as f64 - 2.0 * margin) / size.x).min((h as f64 - 2.0 * margin) / size.y);
        Self { lo, hi_y: hi.y, scale, margin }
    }

    /// Pixel of world point `p`.
    pub fn px(&self, p: DVec2) -> (f64, f64) {
        (self.margin + (p.x - self.lo.x) * self.scale, self.margin + (self.hi_y - p.y) * self.scale)
    }

    /// Pixels per metre.
    pub fn scale(&self) -> f64 {
        self.scale
    }
}

/// Picture size: the map above, the legend below.
const W: usize = 1200;
const MAP_H: usize = 800;
const LEGEND_H: usize = 70;

/// A picture being drawn.
pub struct Picture {
    pub canvas: Canvas,
}

impl Picture {
    /// A blank picture and the map of `extent` on it.
    pub fn new(extent: (DVec2, DVec2)) -> (Self, Map) {
        (Self { canvas: Canvas::new(W, MAP_H + LEGEND_H, [250, 248, 240]) }, Map::new(extent, W, MAP_H))
    }

    /// A polyline in world coordinates, 1 pixel wide.
    pub fn polyline(&mut self, map: &Map, points: &[DVec2], c: Rgb) {
        for w in points.windows(2) {
            self.canvas.line(map.px(w[0]), map.px(w[1]), 1.5, c);
        }
    }

    /// A wall segment, 3 pixels wide.
    pub fn wall(&mut self, map: &Map, a: DVec2, b: DVec2) {
        self.canvas.line(map.px(a), map.px(b), 3.0, [60, 55, 50]);
    }

    /// The viewer and its field of view (two edges and an arc at `range`, or 40 m if unbounded).
    pub fn view_cone(&mut self, map: &Map, at: DVec2, dir: DVec2, half: f64, range: f64) {
        let r = if range.is_finite() { range } else { 40.0 };
        let d = dir.normalize_or(DVec2::X);
        let edge = |a: f64| at + DVec2::from_angle(a).rotate(d) * r;
        let c = [120, 150, 90];
        self.canvas.line(map.px(at), map.px(edge(-half)), 1.5, c);
        self.canvas.line(map.px(at), map.px(edge(half)), 1.5, c);
        let arc: Vec<DVec2> = (0..=32).map(|k| edge(-half + 2.0 * half * k as f64 / 32.0)).collect();
        self.polyline(map, &arc, c);
        self.viewer(map, at);
    }

    /// The viewer's mark.
    pub fn viewer(&mut self, map: &Map, at: DVec2) {
        let (x, y) = map.px(at);
        self.canvas.disc(x, y, 6.0, [20, 20, 20]);
        self.canvas.disc(x, y, 3.0, [255, 255, 255]);
    }

    /// Every shown entity as a disc of its colour; a twirling one ringed in black.
    pub fn entities(&mut self, map: &Map, b: &Behaviours) {
        for i in 0..b.len() {
            if !b.shown(i) {
                continue;
            }
            let e = b.entity(i);
            let (x, y) = map.px(b.position(i));
            let r = (e.radius * map.scale()).max(2.0);
            if b.params().schedule.activity(e.seed, b.now()) == Activity::Twirl {
                self.canvas.disc(x, y, r + 2.5, [20, 20, 20]);
            }
            self.canvas.disc(x, y, r, colour(b.rep(i)));
        }
    }

    /// The title line and the legend under the map.
    pub fn legend(&mut self, title: &str) {
        let y = MAP_H as i64 + 8;
        self.canvas.text(20, y, title, 2, [30, 30, 30]);
        let mut x = 20;
        let y = y + 30;
        let items: [(&str, Rgb); 3] = [
            ("full: a move every beat, avoids others", colour(Rep::Full)),
            ("approximate: closed form, no avoidance", colour(Rep::Approximate)),
            ("dormant: no events", colour(Rep::Dormant)),
        ];
        for (label, c) in items {
            self.canvas.disc(x as f64 + 7.0, y as f64 + 7.0, 7.0, c);
            self.canvas.text(x + 20, y + 4, label, 1, [30, 30, 30]);
            x += 20 + Canvas::text_width(label, 1) + 30;
        }
        self.canvas.disc(x as f64 + 7.0, y as f64 + 7.0, 9.0, [20, 20, 20]);
        self.canvas.disc(x as f64 + 7.0, y as f64 + 7.0, 6.0, colour(Rep::Full));
        self.canvas.text(x + 20, y + 4, "twirling", 1, [30, 30, 30]);
        x += 20 + Canvas::text_width("twirling", 1) + 30;
        self.canvas.disc(x as f64 + 7.0, y as f64 + 7.0, 6.0, [20, 20, 20]);
        self.canvas.disc(x as f64 + 7.0, y as f64 + 7.0, 3.0, [255, 255, 255]);
        self.canvas.text(x + 20, y + 4, "viewer and what it sees", 1, [30, 30, 30]);
    }

    /// The RGB bytes and size.
    pub fn into_rgb(self) -> (u32, u32, Vec<u8>) {
        (self.canvas.w as u32, self.canvas.h as u32, self.canvas.px)
    }
}
