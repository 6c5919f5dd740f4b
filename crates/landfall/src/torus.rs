//! Toroidal addressing of a square window of cells, as the nested LOD cache stores its layers (the
//! thesis' 3.3.3): cell (i, j) in slot (i mod side, j mod side), side the window's width rounded
//! up to a power of two, so any window of that width maps to distinct slots and a shifting window
//! overwrites only the slots of the cells it left.

/// The slot arithmetic of one window width.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Torus {
    shift: u32,
    mask: i64,
}

impl Torus {
    /// Addressing for a window `width` cells wide.
    pub(crate) fn new(width: usize) -> Self {
        let side = width.max(1).next_power_of_two();
        Self { shift: side.trailing_zeros(), mask: side as i64 - 1 }
    }

    /// Number of slots (side²).
    pub(crate) fn slots(&self) -> usize {
        1 << (2 * self.shift)
    }

    /// The slot of cell (i, j): a mask and an add.
    #[inline]
    pub(crate) fn slot(&self, i: i64, j: i64) -> usize {
        (((j & self.mask) << self.shift) | (i & self.mask)) as usize
    }
}

/// Values attached to the cells of a window, in a toroidal array addressed as a cache layer's cells
/// ([`Toroidal`](crate::world::Toroidal)): each slot holds the value of at most one cell, tagged with the cell's index. The
/// owner removes a cell's value when the cell leaves the window; a value whose cell is gone is never
/// answered for another cell that maps to the same slot.
#[derive(Clone, Debug)]
pub(crate) struct Attached<T> {
    at: Torus,
    slots: Vec<Option<((i64, i64), T)>>,
}

impl<T> Attached<T> {
    /// Slots for a window `width` cells wide.
    pub(crate) fn new(width: usize) -> Self {
        let at = Torus::new(width);
        Self { at, slots: std::iter::repeat_with(|| None).take(at.slots()).collect() }
    }

    /// The value of cell (i, j), if it has one.
    pub(crate) fn get(&self, i: i64, j: i64) -> Option<&T> {
        match &self.slots[self.at.slot(i, j)] {
            Some((at, v)) if *at == (i, j) => Some(v),
            _ => None,
        }
    }

    /// The value of cell (i, j), if it has one, to change.
    pub(crate) fn get_mut(&mut self, i: i64, j: i64) -> Option<&mut T> {
        let s = self.at.slot(i, j);
        match &mut self.slots[s] {
            Some((at, v)) if *at == (i, j) => Some(v),
            _ => None,
        }
    }

    /// Whether the slot of cell (i, j) holds no cell's value.
    pub(crate) fn is_free(&self, i: i64, j: i64) -> bool {
        self.slots[self.at.slot(i, j)].is_none()
    }

    /// Sets the value of cell (i, j); returns what its slot held before (the value of this cell, or
    /// of a cell its owner failed to remove).
    pub(crate) fn insert(&mut self, i: i64, j: i64, v: T) -> Option<((i64, i64), T)> {
        let s = self.at.slot(i, j);
        self.slots[s].replace(((i, j), v))
    }

    /// Removes and returns the value of cell (i, j), if it has one.
    pub(crate) fn take(&mut self, i: i64, j: i64) -> Option<T> {
        let s = self.at.slot(i, j);
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

#[cfg(test)]
mod tests {
    use super::*;

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
