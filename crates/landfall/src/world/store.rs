//! Where a cache layer keeps its cells: a 2-D array with toroidal addressing (the thesis' choice,
//! 3.3.3) or, with the `bench-support` feature, a hash table keyed by cell index (the alternative it
//! mentions, kept to measure against; not part of the API).

use super::gen::Cell;
use crate::torus::Torus;

/// Storage of one cache layer's cells, addressed by absolute cell index. The cache only reads cells
/// inside the layer's current window and writes each new cell once.
pub trait CellStore: Send + Sync + Sized {
    /// Storage for a window `width` cells wide.
    fn with_width(width: usize) -> Self;
    /// The cell at (i, j) (inside the window).
    fn get(&self, i: i64, j: i64) -> Cell;
    /// Stores the cell at (i, j).
    fn put(&mut self, i: i64, j: i64, c: Cell);
    /// The window no longer holds (i, j).
    fn evict(&mut self, i: i64, j: i64);
    /// Whether `evict` does anything (the cache skips the loop when it does not).
    const EVICTS: bool;
    /// Bytes held.
    fn bytes(&self) -> usize;
}

/// A square array whose side is the window width rounded up to a power of two, addressed by
/// (i mod side, j mod side): any window of `width` consecutive cells maps to distinct slots, so a
/// shifting window overwrites only the slots of the cells it left, and a lookup is a mask and an add.
pub struct Toroidal {
    at: Torus,
    cells: Vec<Cell>,
}

impl CellStore for Toroidal {
    fn with_width(width: usize) -> Self {
        let at = Torus::new(width);
        Self { at, cells: vec![Cell::default(); at.slots()] }
    }

    #[inline]
    fn get(&self, i: i64, j: i64) -> Cell {
        self.cells[self.at.slot(i, j)]
    }

    #[inline]
    fn put(&mut self, i: i64, j: i64, c: Cell) {
        self.cells[self.at.slot(i, j)] = c;
    }

    #[inline]
    fn evict(&mut self, _i: i64, _j: i64) {}

    const EVICTS: bool = false;

    fn bytes(&self) -> usize {
        self.cells.len() * std::mem::size_of::<Cell>()
    }
}

/// A toroidally addressed grid of f32 values (corner heights, drawn heights), like [`Toroidal`].
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    at: Torus,
    z: Vec<f32>,
}

impl Grid {
    pub(crate) fn new(width: usize) -> Self {
        let at = Torus::new(width);
        Self { at, z: vec![0.0; at.slots()] }
    }

    #[inline]
    pub(crate) fn get(&self, i: i64, j: i64) -> f32 {
        self.z[self.at.slot(i, j)]
    }

    #[inline]
    pub(crate) fn set(&mut self, i: i64, j: i64, v: f32) {
        let s = self.at.slot(i, j);
        self.z[s] = v;
    }

    pub(crate) fn bytes(&self) -> usize {
        self.z.len() * 4
    }
}

/// A hash table of cells keyed by (i, j), with a fast integer hash (SplitMix64's finaliser) so the
/// comparison measures the table, not a slow hasher.
#[cfg(any(test, feature = "bench-support"))]
pub struct Hashed {
    map: crate::rng::IntMap<(i64, i64), Cell>,
}

#[cfg(any(test, feature = "bench-support"))]
impl CellStore for Hashed {
    fn with_width(width: usize) -> Self {
        let mut map = crate::rng::IntMap::default();
        map.reserve(width * width);
        Self { map }
    }

    #[inline]
    fn get(&self, i: i64, j: i64) -> Cell {
        // A missing cell would be a cache bug; answer a neutral cell rather than panic.
        self.map.get(&(i, j)).copied().unwrap_or_default()
    }

    #[inline]
    fn put(&mut self, i: i64, j: i64, c: Cell) {
        self.map.insert((i, j), c);
    }

    #[inline]
    fn evict(&mut self, i: i64, j: i64) {
        self.map.remove(&(i, j));
    }

    const EVICTS: bool = true;

    fn bytes(&self) -> usize {
        self.map.capacity() * (std::mem::size_of::<((i64, i64), Cell)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window_round_trip<S: CellStore>() {
        let mut s = S::with_width(40);
        for base in [-100i64, -37, 0, 3, 1_000_003] {
            for j in base..base + 40 {
                for i in base - 5..base + 35 {
                    s.put(i, j, Cell { h: (i * 1000 + j) as f32, r: 0.0 });
                }
            }
            for j in base..base + 40 {
                for i in base - 5..base + 35 {
                    assert_eq!(s.get(i, j).h, (i * 1000 + j) as f32);
                }
            }
        }
    }

    #[test]
    fn toroidal_windows_map_to_distinct_slots() {
        window_round_trip::<Toroidal>();
    }

    #[test]
    fn hashed_round_trip() {
        window_round_trip::<Hashed>();
    }
}
