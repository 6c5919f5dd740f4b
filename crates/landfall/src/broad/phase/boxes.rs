//! Boxes in f32 rounded outward from the f64 boxes they stand for: the cheap first test of a
//! candidate pair (it never rejects a pair whose f64 boxes share a point).

use crate::geom::round::{f32_down as down, f32_up as up};

/// A closed box in f32: lower corner then upper corner (x, y, z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Box32 {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
}

impl Box32 {
    /// The f32 box around the f64 box from `lo` to `hi`.
    #[inline]
    pub fn around(lo: [f64; 3], hi: [f64; 3]) -> Self {
        Self { lo: lo.map(down), hi: hi.map(up) }
    }

    /// Whether the closed boxes share a point (branch-free).
    #[inline]
    pub fn overlaps(&self, o: &Box32) -> bool {
        (self.lo[0] <= o.hi[0])
            & (o.lo[0] <= self.hi[0])
            & (self.lo[1] <= o.hi[1])
            & (o.lo[1] <= self.hi[1])
            & (self.lo[2] <= o.hi[2])
            & (o.lo[2] <= self.hi[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounded outward at every magnitude, including beyond f32's range and below its subnormals.
    #[test]
    fn rounds_outward() {
        for x in [0.1, -0.1, 1e-50, -1e-50, 1e50, -1e50, 3.0, 16_777_217.0, -16_777_217.0, 1e-310, 0.0] {
            assert!(down(x) as f64 <= x, "{x}");
            assert!(up(x) as f64 >= x, "{x}");
        }
        let b = Box32::around([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]);
        assert!(b.overlaps(&b));
        assert!(b.lo[0] < b.hi[0]);
    }
}
