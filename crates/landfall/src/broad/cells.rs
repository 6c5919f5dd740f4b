//! Cell geometry of the two layouts: which cell of a level holds a coordinate, a cell's bounds, and
//! the smallest cell that properly contains a region (the thesis' 4.3.1).

use glam::DVec2;

/// How the cells of each level are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The dual quad-tree: cell i of a level spans `[(i − ½)·w, (i + ½)·w)`, centred on `i·w`, so the
    /// origin is a cell's centre at every level and no two levels share a boundary.
    Dual,
    /// Mirtich's hierarchical spatial hash (the quad-tree's own cells): cell i spans `[i·w, (i+1)·w)`,
    /// so every level has a boundary through the origin.
    Primal,
}

/// A cell of some level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Level: the cell is `unit · 2^level` wide.
    pub level: i32,
    /// Column index.
    pub i: i64,
    /// Row index.
    pub j: i64,
    /// South-west corner (x, y).
    pub min: DVec2,
    /// North-east corner (x, y).
    pub max: DVec2,
}

/// Width of a cell of `level`.
#[inline]
pub(crate) fn width(unit: f64, level: i32) -> f64 {
    unit * (level as f64).exp2()
}

/// Offset of cell boundaries in cells: ½ for the dual layout.
#[inline]
fn offset(layout: Layout) -> f64 {
    match layout {
        Layout::Dual => 0.5,
        Layout::Primal => 0.0,
    }
}

/// The index of the cell of `level` that holds coordinate `x` (cells are closed below, open above).
#[inline]
pub(crate) fn index(layout: Layout, unit: f64, level: i32, x: f64) -> i64 {
    (x / width(unit, level) + offset(layout)).floor() as i64
}

/// Cell (i, j) of `level`.
pub(crate) fn cell(layout: Layout, unit: f64, level: i32, i: i64, j: i64) -> Cell {
    let w = width(unit, level);
    let o = offset(layout);
    let min = DVec2::new((i as f64 - o) * w, (j as f64 - o) * w);
    Cell { level, i, j, min, max: min + DVec2::splat(w) }
}

/// The smallest cell (the finest level, from `from` up to 64 levels above it) whose interior holds
/// the closed box `lo`–`hi`, if any: the dual layout always has one within a few levels (4.3.1); the
/// primal layout has none for a box across the origin.
pub(crate) fn containing(layout: Layout, unit: f64, lo: DVec2, hi: DVec2) -> Option<Cell> {
    if !(lo.is_finite() && hi.is_finite()) || lo.x > hi.x || lo.y > hi.y {
        return None;
    }
    let extent = (hi - lo).max_element() / unit;
    // No cell narrower than the box can hold it: start at the level as wide as it.
    let from = if extent > 0.0 { extent.log2().floor() as i32 } else { -64 }.max(-64);
    for level in from..from + 64 {
        let (i, j) = (index(layout, unit, level, lo.x), index(layout, unit, level, lo.y));
        let c = cell(layout, unit, level, i, j);
        let inside = c.min.x < lo.x && hi.x < c.max.x && c.min.y < lo.y && hi.y < c.max.y;
        if inside {
            return Some(c);
        }
    }
    None
}
