//! Where a cache layer keeps its cells: a 2-D array with toroidal addressing (the thesis' choice,
//! 3.3.3) or a hash table keyed by cell index (the alternative it mentions, kept to measure against).

use super::gen::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
    shift: u32,
    mask: i64,
    cells: Vec<Cell>,
}

impl CellStore for Toroidal {
    fn with_width(width: usize) -> Self {
        let side = width.next_power_of_two();
        Self { shift: side.trailing_zeros(), mask: side as i64 - 1, cells: vec![Cell::default(); side * side] }
    }

    #[inline]
    fn get(&self, i: i64, j: i64) -> Cell {
        self.cells[(((j & self.mask) << self.shift) | (i & self.mask)) as usize]
    }

    #[inline]
    fn put(&mut self, i: i64, j: i64, c: Cell) {
        self.cells[(((j & self.mask) << self.shift) | (i & self.mask)) as usize] = c;
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
    shift: u32,
    mask: i64,
    z: Vec<f32>,
}

impl Grid {
    pub(crate) fn new(width: usize) -> Self {
        let side = width.next_power_of_two();
        Self { shift: side.trailing_zeros(), mask: side as i64 - 1, z: vec![0.0; side * side] }
    }

    #[inline]
    fn slot(&self, i: i64, j: i64) -> usize {
        (((j & self.mask) << self.shift) | (i & self.mask)) as usize
    }

    #[inline]
    pub(crate) fn get(&self, i: i64, j: i64) -> f32 {
        self.z[self.slot(i, j)]
    }

    #[inline]
    pub(crate) fn set(&mut self, i: i64, j: i64, v: f32) {
        let s = self.slot(i, j);
        self.z[s] = v;
    }

    pub(crate) fn bytes(&self) -> usize {
        self.z.len() * 4
    }
}

/// Values attached to the cells of one cache layer, in a toroidal array addressed as the layer's cells
/// ([`Toroidal`]): each slot holds the value of at most one cell, tagged with the cell's index. The
/// owner removes a cell's value when the cell leaves the window; a value whose cell is gone is never
/// answered for another cell that maps to the same slot.
#[derive(Clone, Debug)]
pub(crate) struct Attached<T> {
    shift: u32,
    mask: i64,
    slots: Vec<Option<((i64, i64), T)>>,
}

impl<T> Attached<T> {
    /// Slots for a window `width` cells wide.
    pub(crate) fn new(width: usize) -> Self {
        let side = width.next_power_of_two();
        Self {
            shift: side.trailing_zeros(),
            mask: side as i64 - 1,
            slots: std::iter::repeat_with(|| None).take(side * side).collect(),
        }
    }

    #[inline]
    fn slot(&self, i: i64, j: i64) -> usize {
        (((j & self.mask) << self.shift) | (i & self.mask)) as usize
    }

    /// The value of cell (i, j), if it has one.
    pub(crate) fn get(&self, i: i64, j: i64) -> Option<&T> {
        match &self.slots[self.slot(i, j)] {
            Some((at, v)) if *at == (i, j) => Some(v),
            _ => None,
        }
    }

    /// Sets the value of cell (i, j); returns what its slot held before (the value of this cell, or
    /// of a cell its owner failed to remove).
    pub(crate) fn insert(&mut self, i: i64, j: i64, v: T) -> Option<((i64, i64), T)> {
        let s = self.slot(i, j);
        self.slots[s].replace(((i, j), v))
    }

    /// Removes and returns the value of cell (i, j), if it has one.
    pub(crate) fn take(&mut self, i: i64, j: i64) -> Option<T> {
        let s = self.slot(i, j);
        match &self.slots[s] {
            Some((at, _)) if *at == (i, j) => self.slots[s].take().map(|(_, v)| v),
            _ => None,
        }
    }

    /// Every cell with a value.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ((i64, i64), &T)> {
        self.slots.iter().flatten().map(|(at, v)| (*at, v))
    }
}

/// A hash table of cells keyed by (i, j), with a fast integer hash (SplitMix64's finaliser) so the
/// comparison measures the table, not a slow hasher.
pub struct Hashed {
    map: HashMap<(i64, i64), Cell, BuildHasherDefault<MixHasher>>,
}

impl CellStore for Hashed {
    fn with_width(width: usize) -> Self {
        let mut map = HashMap::default();
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

/// Hasher for integer keys: folds the written words and finishes with SplitMix64's finaliser.
#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        crate::rng::mix(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_i64(&mut self, v: i64) {
        self.0 = (self.0.rotate_left(29) ^ v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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

    #[test]
    fn attached_values_answer_only_their_own_cell() {
        let mut a = Attached::<u32>::new(40);
        assert!(a.insert(3, -5, 7).is_none());
        assert_eq!(a.get(3, -5), Some(&7));
        // Same slot (64 apart), another cell: not answered, not taken.
        assert_eq!(a.get(67, -5), None);
        assert_eq!(a.take(3, 59), None);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![((3, -5), &7)]);
        assert_eq!(a.take(3, -5), Some(7));
        assert_eq!(a.get(3, -5), None);
        assert_eq!(a.iter().count(), 0);
    }
}
