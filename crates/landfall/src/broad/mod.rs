//! Multi-scale proximity: the dual quad-tree of Dollins' thesis (chapter 4), and Mirtich's
//! hierarchical spatial hash as the baseline it improves upon — one structure, two cell layouts.
//!
//! Space (the x-y plane; z only enters the exact tests) is cut into a grid per level, cells of
//! level ℓ being `unit · 2^ℓ` wide. In **Mirtich's layout** (`Layout::Primal`, kept to compare with) cell i of a level
//! spans `[i·w, (i+1)·w)`, so the boundaries of every level meet at the origin and at every
//! multiple of the coarsest width. In the **dual layout** (`Layout::Dual`, the one the API builds) cell i spans
//! `[(i − ½)·w, (i + ½)·w)`: each level is the dual of the quad-tree's (cells and boundaries swapped),
//! the origin is the centre of one cell at every level, and the boundaries of two levels never
//! coincide (level ℓ's lie at odd multiples of `unit · 2^(ℓ−1)`). Hence the thesis' theorem (4.3.1):
//! a region whose projections fit in an interval of width w is properly contained in a dual cell at
//! most 16 × 2^⌊log₂ w⌋ wide, of level at most `max(⌊log₂ w⌋, 0) + 4` (widths in units; the thesis'
//! summary says `max(⌊log₂ w⌋, 1) + 3`, one level short of its own proof once w ≥ 2);
//! [`ProximityGrid::containing_cell`] finds the smallest such cell.
//!
//! An object (a sphere) lives on its **base level**, the finest whose cells are at least twice its
//! diameter, registered in every cell of that level its box meets (at most two per axis). Moving it
//! updates only the cells it leaves and enters. Queries climb from an object's level through every
//! coarser level that holds objects, looking only at the cells its box meets there; a pair is
//! reported in exactly one cell, the one holding the lower corner of the two boxes' overlap, so no
//! pair is found twice and none is missed ("How it works", below).
//!
//! [`ProximityGrid::hierarchical`] registers each object as Mirtich does — on its base level *and
//! in all higher levels* up to a top level — and finds pairs his way: an object looks only at the
//! cells of its own level, which hold every smaller object that overlaps them. This is where the
//! layouts differ most: a small object crossing the origin leaves and enters cells of every level in
//! the primal layout, of one level in the dual (the thesis' 4.3: "objects lie in fewer cells").
//!
//! Cells live in a hash keyed by (level, i, j); [`ProximityGrid::windowed`] puts those around a
//! viewer in toroidal arrays addressed as the nested LOD cache addresses its layers (the thesis'
//! 4.4), found by indexing.
//!
//! ```
//! use landfall::broad::ProximityGrid;
//! use landfall::glam::DVec3;
//!
//! let mut grid = ProximityGrid::new(1.0).unwrap();
//! grid.insert(1, DVec3::new(0.0, 0.0, 0.0), 0.05).unwrap(); // a flea
//! grid.insert(2, DVec3::new(0.3, 0.0, 0.2), 0.5).unwrap(); // a dog
//! grid.insert(3, DVec3::new(900.0, 0.0, 0.0), 40.0).unwrap(); // a house far away
//! let mut pairs = Vec::new();
//! grid.pairs(|a, b| pairs.push((a.min(b), a.max(b))));
//! assert_eq!(pairs, vec![(1, 2)]);
//! ```
//!
//! # How it works
//!
//! `broad::ProximityGrid` is the thesis' dual quad-tree (chapter 4) and, with `Layout::Primal`,
//! Mirtich's hierarchical spatial hash that it improves upon: one structure, the cell layout its only
//! difference. Level ℓ has cells `unit · 2^ℓ` wide. Primal cell i spans `[i·w, (i+1)·w)`: every level
//! has a boundary through the origin, the most expensive place for an object to cross. Dual cell i
//! spans `[(i − ½)·w, (i + ½)·w)`: level ℓ's boundaries lie at odd multiples of `unit · 2^(ℓ−1)`, so no
//! two levels share one and the origin is a cell centre at every level.
//!
//! - **Objects** are spheres (the tree works in x and y; z enters the exact tests). An object lives on
//!   its base level, the finest whose cells are at least twice its diameter, registered in each cell of
//!   that level its box meets — at most two per axis. A move takes it out of the cells it leaves and
//!   into those it enters, nothing else; a change of size that changes its level re-registers it. Each
//!   object keeps the region its box may move in without leaving any of its cells (on every level it
//!   is registered on; narrowed far beyond the cell index's rounding), so most moves are one test.
//! - **Pairs.** Object A looks at its own level and every coarser level that holds objects, in the
//!   cells its box meets there, and tests the objects whose base level that is (so a pair is always
//!   found by its finer member, or by the lower slot at equal levels). A pair is reported only in the
//!   cell holding the lower corner of the overlap of the two boxes: that corner lies in both boxes, so
//!   that cell is one the coarser object is registered in and one the finer looks at — every touching
//!   pair is found, in exactly one cell. Spheres that touch exactly count.
//! - **Mirtich's registration** (`ProximityGrid::hierarchical(layout, unit, top)`): each object also
//!   in the cells its box meets on every level above its own, up to `top` (his hash "stores objects in
//!   layers based on their size and in all higher layers"; an object above `top` is refused). Pairs are
//!   then found on each object's own level only: its cells hold the objects of that level and every
//!   smaller object that overlaps them, registered up into them; the same lower-corner rule reports
//!   each pair once. This is the registration the thesis compares the layouts with (4.3): a small
//!   object crossing the origin leaves and enters a cell on every primal level, on one or two dual
//!   ones (`tests/broad.rs`: 24 cell changes against ≤ 4 for one step across x = 0 on 12 levels). The
//!   extra registrations cost cell changes on every move across a coarse boundary, and save the climb
//!   through the coarser levels when pairs are found (`docs/benchmarks.md`). Registered on the base
//!   level only (`ProximityGrid::new`), the layouts cross equally many boundaries per level.
//! - **Box, sphere and ray queries** visit, per level, the cells under the query (a 2-D DDA for rays,
//!   both side cells at a corner), or scan the level's objects when it holds fewer than the query
//!   covers cells; an object is reported in the first of its cells inside the query's range.
//! - **The smallest cell around a region** (4.3.1): from the level as wide as the region upward, the
//!   first whose cell holding the region's lower corner holds all of it in its interior. The dual
//!   layout always has one: a region whose projections fit in width w lies in a cell at most
//!   16 · 2^⌊log₂ w⌋ wide, level ≤ max(⌊log₂ w⌋, 0) + 4. The thesis summarises this as level
//!   ≤ max(⌊log₂ w⌋, 1) + 3, which its own proof (scaling by 2^k, levels 2–4 of the scaled problem) does
//!   not give once w ≥ 2: a 61 × 36 region at (−74.3, −141.2) needs level 9, not 8
//!   (`tests/broad.rs`, `the_thesis_bound_is_one_level_short`). The primal layout has no cell around a
//!   region that straddles the origin.
//!
//! (picture: `docs/dual-quadtree.png`)
//!
//! The same objects in both layouts, cell boundaries of levels 2–5 (4–32 units, darker for coarser;
//! `cargo run --release -p landfall-cli --example dual_cells`). Left, every level's boundaries cross at
//! the origin, so the orange region around it lies in no cell at any level; right, the boundaries of
//! different levels never coincide, and the green cell (level 3, 8 units) is the smallest that holds it.
//!
//! `landfall proximity` reads spheres from CSV and writes every pair that overlaps or touches; its
//! answers equal brute force over all pairs (100,002 spheres in `cargo test`; 100,000 spheres of radii
//! 1 cm–1 km, 989,787 pairs, checked once by hand in both layouts).

mod cells;
mod lists;
mod phase;
pub(crate) mod queries;

pub use cells::Cell;
#[doc(hidden)]
pub use cells::Layout;
pub use phase::{BroadPhase, BroadPhaseError, Pair, SearchStats, Vertical};

use crate::rng::IntMap;
use glam::DVec3;

/// Why an object cannot be inserted or moved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProximityError {
    /// The centre or radius is not finite, the radius is negative, or the object lies beyond the
    /// grid's addressable range (±2⁵⁰ base units).
    #[error("object {id}: {why}")]
    BadObject {
        /// The object's id.
        id: u64,
        /// What is wrong.
        why: String,
    },
    /// Another object already has this id.
    #[error("object {0}: the id is taken")]
    DuplicateId(u64),
    /// No object has this id.
    #[error("object {0}: no such object")]
    Unknown(u64),
    /// A grid parameter is out of range (what, and why).
    #[error("proximity grid: {0}")]
    BadParams(String),
}

/// One object as stored: its sphere, its base level and the cells it is registered in.
#[derive(Clone, Copy, Debug)]
struct Slot {
    id: u64,
    center: DVec3,
    radius: f64,
    level: i32,
    /// Cells of its base level its box meets: columns `i0..=i1`, rows `j0..=j1`.
    range: [i64; 4],
    /// Its place in its level's object list.
    in_level: u32,
    /// Where its box may move without entering or leaving any cell ([`ProximityGrid::safe_region`]).
    safe: [f64; 8],
}

impl Slot {
    /// The level of a free slot (below every level an object can have).
    const FREE: i32 = i32::MIN;

    /// Whether no object holds this slot.
    #[inline]
    fn is_free(&self) -> bool {
        self.level == Self::FREE
    }
}

use lists::{CellLists, Key};

/// Largest |coordinate| in base units an object may reach: cell indices and their products stay far
/// inside i64 and f64's exact integers.
const MAX_UNITS: f64 = (1u64 << 50) as f64;

/// Objects (spheres) in a multi-level grid, dual or primal: insert, move, remove, and find pairs,
/// neighbours, rays and the smallest cell around a region. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct ProximityGrid {
    layout: Layout,
    unit: f64,
    /// Objects by slot; a removed object's slot is [free](Slot::is_free) until an insertion takes it.
    slots: Vec<Slot>,
    /// Free slots, taken last-in first-out.
    free: Vec<u32>,
    by_id: IntMap<u64, u32>,
    cells: CellLists,
    /// Objects per level (slot indices), for queries that are cheaper as scans.
    levels: std::collections::BTreeMap<i32, Vec<u32>>,
    /// Mirtich's registration: each object also in the cells of every level above its base up to
    /// this one (`None`: base level only).
    top: Option<i32>,
    /// Those registrations above the base levels (kept apart: the other queries use base levels).
    upper: CellLists,
    /// Cells entered or left by every insert, move and removal so far.
    cell_changes: u64,
}

impl ProximityGrid {
    /// An empty grid (the dual quad-tree) whose level-0 cells are `unit` wide (any finite positive
    /// width: levels run below and above 0 as the objects need).
    pub fn new(unit: f64) -> Result<Self, ProximityError> {
        Self::with_layout(Layout::Dual, unit, None)
    }

    /// A grid that registers each object as Mirtich's hierarchical hash does: on its base level and
    /// in every higher level up to `top` (cells `unit · 2^top` wide, `top` in −64..=64), and finds
    /// pairs by looking only at the cells of each object's own level. An object whose base level is
    /// above `top` is refused.
    ///
    /// ```
    /// use landfall::broad::ProximityGrid;
    /// use landfall::glam::DVec3;
    ///
    /// let mut g = ProximityGrid::hierarchical(1.0, 8).unwrap();
    /// g.insert(1, DVec3::new(-0.2, 5.3, 0.0), 0.1).unwrap();
    /// let before = g.cell_changes();
    /// g.update(1, DVec3::new(0.2, 5.3, 0.0), 0.1).unwrap(); // across x = 0
    /// // The dual layout has no boundary at x = 0 above the object's own level (Mirtich's own
    /// // cells have one at every level: 20 changes).
    /// assert_eq!(g.cell_changes() - before, 4);
    /// assert!(ProximityGrid::hierarchical(1.0, 100).is_err());
    /// ```
    pub fn hierarchical(unit: f64, top: i32) -> Result<Self, ProximityError> {
        Self::with_layout(Layout::Dual, unit, Some(top))
    }

    /// A grid of either layout (the primal one is Mirtich's, kept for the benchmarks and the
    /// pictures that compare them); `top` as in [`ProximityGrid::hierarchical`].
    #[doc(hidden)]
    pub fn with_layout(layout: Layout, unit: f64, top: Option<i32>) -> Result<Self, ProximityError> {
        if !(unit.is_finite() && unit > 0.0) {
            return Err(ProximityError::BadParams(format!("unit {unit}: must be finite and > 0")));
        }
        if let Some(top) = top.filter(|t| !(-64..=64).contains(t)) {
            return Err(ProximityError::BadParams(format!("top level {top}: must be in -64..=64")));
        }
        Ok(Self::empty(layout, unit, top))
    }

    /// An empty dual grid for the library's own users (objects, behaviours), whose units are
    /// derived from checked parameters; a unit that is not finite and positive is taken as 1.
    pub(crate) fn empty(layout: Layout, unit: f64, top: Option<i32>) -> Self {
        let unit = if unit.is_finite() && unit > 0.0 { unit } else { 1.0 };
        Self {
            layout,
            unit,
            slots: Vec::new(),
            free: Vec::new(),
            by_id: IntMap::default(),
            cells: CellLists::hashed(),
            levels: Default::default(),
            top: top.map(|t| t.clamp(-64, 64)),
            upper: CellLists::hashed(),
            cell_changes: 0,
        }
    }

    /// The same grid (empty) keeping the cells of each level that lie within a window `width` cells
    /// wide in a toroidal array — cell (i, j) in slot (i mod side, j mod side), side the next power
    /// of two, as the nested LOD cache addresses its layers — found by indexing rather than hashing;
    /// a cell whose slot another cell holds is kept in the hash. For objects that follow a viewer
    /// (those of a [`World`](crate::world::World)'s cache); any positions stay correct.
    ///
    /// ```
    /// use landfall::broad::ProximityGrid;
    /// use landfall::glam::DVec3;
    ///
    /// let mut g = ProximityGrid::hierarchical(1.0, 10).unwrap().windowed(40);
    /// g.insert(1, DVec3::new(0.0, 0.0, 0.0), 0.5).unwrap();
    /// g.insert(2, DVec3::new(0.9, 0.0, 0.0), 0.5).unwrap();
    /// g.insert(3, DVec3::new(1e6, 0.0, 0.0), 0.5).unwrap(); // far away: in the hash
    /// let mut pairs = Vec::new();
    /// g.pairs(|a, b| pairs.push((a.min(b), a.max(b))));
    /// assert_eq!(pairs, vec![(1, 2)]);
    /// ```
    pub fn windowed(self, width: usize) -> Self {
        let mut g = Self {
            top: self.top,
            cells: CellLists::windowed(width),
            upper: CellLists::windowed(width),
            ..Self::empty(self.layout, self.unit, None)
        };
        // The objects it already holds, registered again (the same cells, so no cell changes).
        for s in self.slots.iter().filter(|s| !s.is_free()) {
            g.insert(s.id, s.center, s.radius).expect("an object the grid held");
        }
        g.cell_changes = self.cell_changes;
        g
    }

    /// The layout.
    #[doc(hidden)]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether there is no object.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Cells entered or left so far by insertions, moves and removals (one per cell a registration
    /// was added to or taken from).
    pub fn cell_changes(&self) -> u64 {
        self.cell_changes
    }

    /// Cells that hold at least one object.
    pub fn occupied_cells(&self) -> usize {
        self.cells.len()
    }

    /// The base level of an object of radius `r`: the finest whose cells are at least twice its
    /// diameter (4r) wide.
    pub fn base_level(&self, radius: f64) -> i32 {
        let need = 4.0 * radius / self.unit;
        if need <= 0.0 {
            return -64;
        }
        (need.log2().ceil() as i32).clamp(-64, 64)
    }

    fn check(&self, id: u64, center: DVec3, radius: f64) -> Result<(), ProximityError> {
        let bad = |why: &str| Err(ProximityError::BadObject { id, why: why.into() });
        if !center.is_finite() || !radius.is_finite() {
            return bad("centre and radius must be finite");
        }
        if radius < 0.0 {
            return bad("the radius must be ≥ 0");
        }
        let reach = center.x.abs().max(center.y.abs()) + radius;
        if reach / self.unit > MAX_UNITS || radius / self.unit > MAX_UNITS / 4.0 {
            return bad("lies beyond the grid's addressable range (2^50 base units from the origin)");
        }
        Ok(())
    }

    /// A hierarchical grid refuses objects too big for its top level.
    fn check_level(&self, id: u64, radius: f64, level: i32) -> Result<(), ProximityError> {
        match self.top {
            Some(top) if level > top => Err(ProximityError::BadObject {
                id,
                why: format!("radius {radius}: its base level {level} is above the grid's top level {top}"),
            }),
            _ => Ok(()),
        }
    }

    /// Where the box from `lo` to `hi` may move without changing the cells it meets on any level
    /// it is registered on (its base `level`, and those above up to the top): the lower corner's x
    /// in `[s[0], s[1])` and y in `[s[2], s[3])`, the upper corner's in `[s[4], s[5])` and
    /// `[s[6], s[7])` — each the intersection of the cells holding that corner, narrowed by far more
    /// than the rounding of the cell index, so that a corner inside it has the same cell.
    fn safe_region(&self, level: i32, lo: [f64; 2], hi: [f64; 2]) -> [f64; 8] {
        let mut s = [
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
        ];
        for l in level..=self.top.unwrap_or(level).max(level) {
            let w = cells::width(self.unit, l);
            for (k, v) in [lo[0], lo[1], hi[0], hi[1]].into_iter().enumerate() {
                let c = cells::index(self.layout, self.unit, l, v);
                let cell = cells::cell(self.layout, self.unit, l, c, c);
                let margin = 1e-12 * (v.abs() + w);
                s[2 * k] = s[2 * k].max(cell.min.x + margin);
                s[2 * k + 1] = s[2 * k + 1].min(cell.max.x - margin);
            }
        }
        s
    }

    /// The cells of `level` a box from `lo` to `hi` (x, y) meets.
    fn range(&self, level: i32, lo: [f64; 2], hi: [f64; 2]) -> [i64; 4] {
        let c = |x: f64| cells::index(self.layout, self.unit, level, x);
        [c(lo[0]), c(hi[0]), c(lo[1]), c(hi[1])]
    }

    fn register(&mut self, slot: u32, level: i32, r: [i64; 4], add: bool) {
        Self::register_in(&mut self.cells, &mut self.cell_changes, slot, level, r, add);
    }

    fn register_in(map: &mut CellLists, changes: &mut u64, slot: u32, level: i32, r: [i64; 4], add: bool) {
        for i in r[0]..=r[1] {
            for j in r[2]..=r[3] {
                let key = Key { level, i, j };
                if add {
                    map.push(key, slot);
                } else {
                    map.take_out(key, slot);
                }
                *changes += 1;
            }
        }
    }

    /// The levels above `level` an object is registered in ([`Self::hierarchical`]; none otherwise).
    fn upper_levels(&self, level: i32) -> std::ops::RangeInclusive<i32> {
        // No top: an empty range (from above the level down to it).
        level + 1..=self.top.unwrap_or(level)
    }

    /// Moves slot `slot`'s registrations above its base level (`level`) from the box `old` to `new`
    /// (either `None`: only add or only take away), cell by cell.
    fn move_upper(
        &mut self,
        slot: u32,
        level: i32,
        old: Option<([f64; 2], [f64; 2])>,
        new: Option<([f64; 2], [f64; 2])>,
    ) {
        for l in self.upper_levels(level) {
            let ro = old.map(|(lo, hi)| self.range(l, lo, hi));
            let rn = new.map(|(lo, hi)| self.range(l, lo, hi));
            Self::shift(&mut self.upper, &mut self.cell_changes, slot, l, ro, rn);
        }
    }

    /// Moves slot `slot`'s registrations on `level` of `map` from the cells of range `ro` to those
    /// of `rn` (either `None`: only add or only take away): it leaves only the cells `rn` lacks and
    /// enters only those `ro` lacks.
    fn shift(
        map: &mut CellLists,
        changes: &mut u64,
        slot: u32,
        level: i32,
        ro: Option<[i64; 4]>,
        rn: Option<[i64; 4]>,
    ) {
        if ro == rn {
            return;
        }
        let inside = |r: [i64; 4], i: i64, j: i64| (r[0]..=r[1]).contains(&i) && (r[2]..=r[3]).contains(&j);
        for (from, to, add) in [(ro, rn, false), (rn, ro, true)] {
            let Some(from) = from else { continue };
            for i in from[0]..=from[1] {
                for j in from[2]..=from[3] {
                    if to.is_none_or(|to| !inside(to, i, j)) {
                        Self::register_in(map, changes, slot, level, [i, i, j, j], add);
                    }
                }
            }
        }
    }

    fn box_of(center: DVec3, radius: f64) -> ([f64; 2], [f64; 2]) {
        ([center.x - radius, center.y - radius], [center.x + radius, center.y + radius])
    }

    /// Adds a sphere with a caller-chosen `id` (distinct from every other object's).
    pub fn insert(&mut self, id: u64, center: DVec3, radius: f64) -> Result<(), ProximityError> {
        self.check(id, center, radius)?;
        if self.by_id.contains_key(&id) {
            return Err(ProximityError::DuplicateId(id));
        }
        let level = self.base_level(radius);
        self.check_level(id, radius, level)?;
        let (lo, hi) = Self::box_of(center, radius);
        let range = self.range(level, lo, hi);
        let list = self.levels.entry(level).or_default();
        let in_level = list.len() as u32;
        list.push(u32::MAX);
        let safe = self.safe_region(level, lo, hi);
        let new = Slot { id, center, radius, level, range, in_level, safe };
        let slot = match self.free.pop() {
            Some(k) => {
                self.slots[k as usize] = new;
                k
            }
            None => {
                self.slots.push(new);
                self.slots.len() as u32 - 1
            }
        };
        self.levels.get_mut(&level).expect("just pushed")[in_level as usize] = slot;
        self.by_id.insert(id, slot);
        self.register(slot, level, range, true);
        self.move_upper(slot, level, None, Some((lo, hi)));
        Ok(())
    }

    /// Moves (and resizes) object `id`: only the cells it leaves and enters change.
    pub fn update(&mut self, id: u64, center: DVec3, radius: f64) -> Result<(), ProximityError> {
        self.check(id, center, radius)?;
        let slot = *self.by_id.get(&id).ok_or(ProximityError::Unknown(id))?;
        let old = self.slots[slot as usize];
        let level = self.base_level(radius);
        let (lo, hi) = Self::box_of(center, radius);
        if level == old.level && inside_safe(&old.safe, lo, hi) {
            // Still in every cell it was in, and in no other: nothing to register.
            let s = &mut self.slots[slot as usize];
            (s.center, s.radius) = (center, radius);
            return Ok(());
        }
        let range = self.range(level, lo, hi);
        if level == old.level {
            Self::shift(&mut self.cells, &mut self.cell_changes, slot, level, Some(old.range), Some(range));
            self.move_upper(slot, level, Some(Self::box_of(old.center, old.radius)), Some((lo, hi)));
            let safe = self.safe_region(level, lo, hi);
            let s = &mut self.slots[slot as usize];
            (s.center, s.radius, s.range, s.safe) = (center, radius, range, safe);
            return Ok(());
        }
        // Refused before anything changes.
        self.check_level(id, radius, level)?;
        self.remove(id)?;
        self.insert(id, center, radius)
    }

    /// Removes object `id`.
    pub fn remove(&mut self, id: u64) -> Result<(), ProximityError> {
        let slot = self.by_id.remove(&id).ok_or(ProximityError::Unknown(id))?;
        let s = self.slots[slot as usize];
        self.register(slot, s.level, s.range, false);
        self.move_upper(slot, s.level, Some(Self::box_of(s.center, s.radius)), None);
        // Out of its level's list (swap-remove, fixing the moved entry's place).
        if let Some(list) = self.levels.get_mut(&s.level) {
            list.swap_remove(s.in_level as usize);
            if let Some(&moved) = list.get(s.in_level as usize) {
                self.slots[moved as usize].in_level = s.in_level;
            }
            if list.is_empty() {
                self.levels.remove(&s.level);
            }
        }
        // The slot is free for the next insertion (no registration names it any more).
        self.slots[slot as usize].level = Slot::FREE;
        self.free.push(slot);
        if self.by_id.is_empty() {
            self.slots.clear();
            self.free.clear();
        }
        Ok(())
    }

    /// Object `id`'s centre and radius.
    pub fn get(&self, id: u64) -> Option<(DVec3, f64)> {
        self.by_id.get(&id).map(|&s| (self.slots[s as usize].center, self.slots[s as usize].radius))
    }
}

/// Whether the box from `lo` to `hi` lies in a [`ProximityGrid::safe_region`].
#[inline]
fn inside_safe(s: &[f64; 8], lo: [f64; 2], hi: [f64; 2]) -> bool {
    let within = |v: f64, a: f64, b: f64| v >= a && v < b;
    within(lo[0], s[0], s[1]) && within(lo[1], s[2], s[3]) && within(hi[0], s[4], s[5]) && within(hi[1], s[6], s[7])
}
