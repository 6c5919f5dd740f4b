//! Which coarser level each level's objects are searched on (a [`BroadPhase`]'s lifts), decided from
//! how crowded their cells would be there.

use super::level::Sphere;
use super::levels::Levels;
use super::BroadPhase;
use std::sync::atomic::{AtomicU32, Ordering};

/// Objects of a group [`BroadPhase::decide_lifts`] counts whole (beyond, the objects of the cells of
/// one hash in 2^k: counting 1,000,000 objects in a table of 4 million cells missed the cache on
/// every object).
const CROWD_SAMPLE: usize = 1 << 16;

/// Objects a task counts on rayon's threads (a few in the tests, so that they split).
const COUNT_CHUNK: usize = if cfg!(test) { 5 } else { 8192 };

/// The table crowding is counted in, by hash of cell (scratch: a clone starts empty). Atomic so
/// that rayon's threads count into one table: an object adds 2·(count before it) + 1 to Σ count²,
/// which sums to the same whatever order the objects of a cell come in.
#[derive(Debug, Default)]
pub(super) struct Crowd(Vec<AtomicU32>);

impl Clone for Crowd {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// Σ over the cells of level `t` (of the sample: one hash in `stride`) of the square of the number
/// of `group`'s centres (`fat` by proxy) in each, counted in a table `mask + 1` long (zeroed),
/// `bump(h)` adding one to entry h and returning what it held.
fn squares(
    levels: &Levels,
    fat: &[Sphere],
    t: usize,
    group: &[u32],
    (stride, mask): (u64, usize),
    mut bump: impl FnMut(usize) -> u32,
) -> u64 {
    let mut squares = 0u64;
    for &p in group {
        let c = fat[p as usize].c;
        let (i, j) = (levels.index(t, c.x), levels.index(t, c.y));
        let hash = crate::rng::mix((i as u64) ^ (j as u64).rotate_left(32));
        if (hash >> 40) & (stride - 1) != 0 {
            continue;
        }
        squares += 2 * bump(hash as usize & mask) as u64 + 1;
    }
    squares
}

impl BroadPhase {
    /// Which coarser level each level's objects are searched on. A level whose objects, together
    /// with those already lifted into it, would stand about one to a cell on the next occupied
    /// level is lifted into it (any coarser level holds an object correctly): a sparse level costs
    /// every finer object a search, and moving its objects up costs a few more candidates. Decided
    /// on the objects as they stand every `DECISION_FRAMES` frames, from how crowded their cells
    /// would be (Σ objects² over the cells, counted in a table hashed by cell; where a group holds
    /// more than `CROWD_SAMPLE` objects, estimated from a sample of its cells). On rayon's threads,
    /// chunks of each group count into the one table: the same sums.
    pub(super) fn decide_lifts(&mut self) {
        for (t, l) in self.lift.iter_mut().enumerate() {
            *l = t as u32;
        }
        if !self.lifting || self.starts.is_empty() {
            return;
        }
        // The occupied levels `starts[acc..x]` are lifted into the one at `x` so far.
        let (mut acc, mut from) = (0, self.starts[0].1);
        for x in 1..self.starts.len() {
            let (t, s, e) = self.starts[x];
            let group = &self.members[from..e];
            let n = group.len();
            // The cells of one hash in `stride` (all of them up to CROWD_SAMPLE objects), counted
            // in a table that stays in cache: Σ objects² over those cells, times `stride`, estimates
            // the sum over all cells.
            let stride = n.div_ceil(CROWD_SAMPLE).next_power_of_two() as u64;
            let size = (4 * n.div_ceil(stride as usize)).next_power_of_two();
            let table = &mut self.crowd.0;
            let (levels, fat) = (&self.levels, &self.fat);
            let sum = if self.parallel && n > COUNT_CHUNK {
                use rayon::prelude::*;
                if table.len() < size {
                    table.resize_with(size, Default::default);
                }
                let table = &mut table[..size];
                table.par_chunks_mut(1 << 14).for_each(|c| c.iter_mut().for_each(|a| *a.get_mut() = 0));
                let table = &*table;
                group
                    .par_chunks(COUNT_CHUNK)
                    .map(|ps| {
                        squares(levels, fat, t, ps, (stride, size - 1), |h| table[h].fetch_add(1, Ordering::Relaxed))
                    })
                    .sum()
            } else {
                table.clear();
                table.resize_with(size, Default::default);
                squares(levels, fat, t, group, (stride, size - 1), |h| {
                    let c = table[h].get_mut();
                    *c += 1;
                    *c - 1
                })
            };
            let estimate = (sum * stride) as f64;
            if 4.0 * estimate <= 9.0 * n as f64 {
                for &(a, _, _) in &self.starts[acc..x] {
                    self.lift[a] = t as u32;
                }
            } else {
                (acc, from) = (x, s);
            }
        }
    }
}
