//! f64 values rounded outward to f32: boxes kept in f32 that still hold their f64 contents.

/// The largest f32 at or below `x` (−∞ below f32's range).
#[inline]
pub fn f32_down(x: f64) -> f32 {
    let f = x as f32;
    if f as f64 > x {
        f.next_down()
    } else {
        f
    }
}

/// The smallest f32 at or above `x` (+∞ above f32's range).
#[inline]
pub fn f32_up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x {
        f.next_up()
    } else {
        f
    }
}
