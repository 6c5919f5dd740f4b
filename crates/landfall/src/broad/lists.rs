//! Where a [`ProximityGrid`](super::ProximityGrid) keeps the objects registered in each cell: a hash
//! keyed by (level, i, j), optionally fronted per level by a toroidal array of cells (cell (i, j) in
//! slot (i mod side, j mod side), as the nested LOD cache addresses its layers), so that the cells
//! around a viewer are found by indexing, not hashing. A cell whose slot another cell holds goes to
//! the hash; a cell's list lives in exactly one of the two places.

use crate::rng::IntMap;
use crate::torus::Attached;

/// A cell: level and indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub level: i32,
    pub i: i64,
    pub j: i64,
}

/// Levels a grid can have: −64 ..= 64.
const LEVELS: usize = 129;

/// The lists of slots registered in each cell.
#[derive(Clone, Debug, Default)]
pub(super) struct CellLists {
    /// The window width of the toroidal arrays; 0: the hash alone.
    width: usize,
    /// Per level (index level + 64), allocated when the level first holds a cell.
    direct: Vec<Option<Attached<Vec<u32>>>>,
    spill: IntMap<Key, Vec<u32>>,
    /// Cells held in the toroidal arrays.
    in_direct: usize,
}

impl CellLists {
    /// Lists in a hash alone.
    pub fn hashed() -> Self {
        Self::default()
    }

    /// Lists in toroidal arrays `width` cells wide (rounded up to a power of two) per level, in
    /// front of the hash.
    pub fn windowed(width: usize) -> Self {
        Self { width: width.clamp(1, 1 << 12), direct: vec![None; LEVELS], ..Self::default() }
    }

    /// The index of `level`'s array (any level outside −64 ..= 64 lives in the hash alone).
    #[inline]
    fn level_index(level: i32) -> usize {
        if (-64..=64).contains(&level) {
            (level + 64) as usize
        } else {
            usize::MAX
        }
    }

    /// The objects registered in cell `key`, if any.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&Vec<u32>> {
        match self.direct.get(Self::level_index(key.level)) {
            Some(Some(cells)) => cells.get(key.i, key.j).or_else(|| self.spill.get(key)),
            _ => self.spill.get(key),
        }
    }

    /// Registers `slot` in cell `key`.
    pub fn push(&mut self, key: Key, slot: u32) {
        let width = self.width;
        if let Some(level) = self.direct.get_mut(Self::level_index(key.level)) {
            let cells = level.get_or_insert_with(|| Attached::new(width));
            if let Some(list) = cells.get_mut(key.i, key.j) {
                return list.push(slot);
            }
            // A free slot, and the cell not already in the hash: the cell takes the slot.
            if cells.is_free(key.i, key.j) && !self.spill.contains_key(&key) {
                cells.insert(key.i, key.j, vec![slot]);
                self.in_direct += 1;
                return;
            }
        }
        self.spill.entry(key).or_default().push(slot);
    }

    /// Takes `slot` out of cell `key`; an emptied cell is forgotten.
    pub fn take_out(&mut self, key: Key, slot: u32) {
        let remove = |list: &mut Vec<u32>| {
            if let Some(k) = list.iter().position(|&s| s == slot) {
                list.swap_remove(k);
            }
            list.is_empty()
        };
        if let Some(Some(cells)) = self.direct.get_mut(Self::level_index(key.level)) {
            if let Some(list) = cells.get_mut(key.i, key.j) {
                if remove(list) {
                    cells.take(key.i, key.j);
                    self.in_direct -= 1;
                }
                return;
            }
        }
        if let Some(list) = self.spill.get_mut(&key) {
            if remove(list) {
                self.spill.remove(&key);
            }
        }
    }

    /// Cells that hold at least one object.
    pub fn len(&self) -> usize {
        self.in_direct + self.spill.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use std::collections::BTreeMap;

    /// Random pushes and removals over cells that collide in the toroidal slots: the same lists as
    /// a plain map, whichever place each cell's list landed in.
    #[test]
    fn windowed_lists_equal_a_plain_map() {
        let mut rng = SplitMix64::new(4);
        let mut lists = CellLists::windowed(3); // 4 × 4 slots per level: many collisions
        let mut want: BTreeMap<(i32, i64, i64), Vec<u32>> = BTreeMap::new();
        for step in 0..20_000u32 {
            let key = Key {
                level: (rng.uniform() * 3.0) as i32 - 1,
                i: (rng.uniform() * 12.0) as i64 - 6,
                j: (rng.uniform() * 12.0) as i64 - 6,
            };
            let k = (key.level, key.i, key.j);
            let held = want.get(&k).cloned().unwrap_or_default();
            if !held.is_empty() && rng.uniform() < 0.5 {
                let slot = held[(rng.uniform() * held.len() as f64) as usize];
                lists.take_out(key, slot);
                let v = want.get_mut(&k).unwrap();
                let at = v.iter().position(|&s| s == slot).unwrap();
                v.swap_remove(at);
                if v.is_empty() {
                    want.remove(&k);
                }
            } else {
                lists.push(key, step);
                want.entry(k).or_default().push(step);
            }
            if step % 97 == 0 {
                assert_eq!(lists.len(), want.len(), "step {step}");
                for level in -1..=1 {
                    for i in -7..=7 {
                        for j in -7..=7 {
                            let mut got = lists.get(&Key { level, i, j }).cloned().unwrap_or_default();
                            let mut w = want.get(&(level, i, j)).cloned().unwrap_or_default();
                            got.sort_unstable();
                            w.sort_unstable();
                            assert_eq!(got, w, "step {step}: cell ({level}, {i}, {j})");
                        }
                    }
                }
            }
        }
        assert!(lists.in_direct > 0 && !lists.spill.is_empty(), "both places used");
        // Levels beyond the arrays' range live in the hash.
        let far = Key { level: 100, i: 1, j: 2 };
        lists.push(far, 9);
        assert_eq!(lists.get(&far), Some(&vec![9]));
        assert_eq!(lists.get(&Key { level: 64, i: 1, j: 2 }), None);
        lists.take_out(far, 9);
        assert_eq!(lists.get(&far), None);
    }
}
