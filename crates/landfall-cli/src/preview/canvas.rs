//! An RGB picture to draw on: filled rectangles, lines, discs, rings and text.

use super::font::{glyph, GLYPH};

/// An RGB8 colour.
pub type Rgb = [u8; 3];

/// Pixels in rows, the top row first, three bytes a pixel.
pub struct Canvas {
    pub w: usize,
    pub h: usize,
    pub px: Vec<u8>,
}

impl Canvas {
    /// A `w × h` picture filled with `bg`.
    pub fn new(w: usize, h: usize, bg: Rgb) -> Self {
        Self { w, h, px: bg.iter().copied().cycle().take(w * h * 3).collect() }
    }

    /// Sets pixel (x, y) when it is inside.
    pub fn set(&mut self, x: i64, y: i64, c: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let k = 3 * (y as usize * self.w + x as usize);
            self.px[k..k + 3].copy_from_slice(&c);
        }
    }

    /// Fills the rectangle of corner (x, y) and size `w × h` (clipped).
    pub fn rect(&mut self, x: i64, y: i64, w: i64, h: i64, c: Rgb) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.set(xx, yy, c);
            }
        }
    }

    /// A rectangle's outline, `t` pixels thick, inside the rectangle.
    pub fn frame(&mut self, x: i64, y: i64, w: i64, h: i64, t: i64, c: Rgb) {
        self.rect(x, y, w, t, c);
        self.rect(x, y + h - t, w, t, c);
        self.rect(x, y, t, h, c);
        self.rect(x + w - t, y, t, h, c);
    }

    /// A straight line `t` pixels thick from (x0, y0) to (x1, y1).
    pub fn line(&mut self, (x0, y0): (f64, f64), (x1, y1): (f64, f64), t: f64, c: Rgb) {
        let steps = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as usize;
        for k in 0..=steps {
            let f = k as f64 / steps as f64;
            self.disc(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, t / 2.0, c);
        }
    }

    /// A filled disc of radius `r` around (cx, cy).
    pub fn disc(&mut self, cx: f64, cy: f64, r: f64, c: Rgb) {
        self.ring(cx, cy, -1.0, r, c);
    }

    /// The ring of pixels whose centres lie between radii `r0` (exclusive) and `r1` of (cx, cy).
    pub fn ring(&mut self, cx: f64, cy: f64, r0: f64, r1: f64, c: Rgb) {
        let reach = r1.ceil() as i64 + 1;
        let (ix, iy) = (cx.floor() as i64, cy.floor() as i64);
        for y in iy - reach..=iy + reach {
            for x in ix - reach..=ix + reach {
                let d = (x as f64 + 0.5 - cx).hypot(y as f64 + 0.5 - cy);
                if d <= r1 && d > r0 {
                    self.set(x, y, c);
                }
            }
        }
    }

    /// Width in pixels of `text` drawn at `scale`.
    pub fn text_width(text: &str, scale: usize) -> i64 {
        (text.chars().count() * (GLYPH.0 + 1) * scale) as i64 - scale as i64
    }

    /// Height in pixels of a line of text at `scale`.
    pub fn text_height(scale: usize) -> i64 {
        (GLYPH.1 * scale) as i64
    }

    /// `text` with its top-left corner at (x, y), each font pixel a `scale × scale` block.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: usize, c: Rgb) {
        let s = scale as i64;
        for (k, ch) in text.chars().enumerate() {
            let left = x + k as i64 * (GLYPH.0 as i64 + 1) * s;
            for (row, bits) in glyph(ch).iter().enumerate() {
                for col in 0..GLYPH.0 {
                    if bits >> (GLYPH.0 - 1 - col) & 1 == 1 {
                        self.rect(left + col as i64 * s, y + row as i64 * s, s, s, c);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_draws_inside_its_box_and_shapes_clip() {
        let mut c = Canvas::new(40, 20, [0, 0, 0]);
        c.text(2, 3, "Ab1", 2, [255, 255, 255]);
        let (w, h) = (Canvas::text_width("Ab1", 2), Canvas::text_height(2));
        let mut lit = 0;
        for y in 0..20 {
            for x in 0..40 {
                if c.px[3 * (y * 40 + x)] == 255 {
                    lit += 1;
                    assert!((2..2 + w).contains(&(x as i64)) && (3..3 + h).contains(&(y as i64)), "({x}, {y})");
                }
            }
        }
        assert!(lit > 30, "{lit} pixels lit");
        // Off the picture: nothing happens, nothing panics.
        c.disc(-10.0, 50.0, 8.0, [1, 2, 3]);
        c.line((-5.0, -5.0), (100.0, 100.0), 3.0, [9, 9, 9]);
        c.rect(-3, -3, 100, 2, [7, 7, 7]);
    }
}
