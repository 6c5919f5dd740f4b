//! A broad phase for many moving spheres of every size: the thesis' dual levels, searched as sorted
//! arrays, holding each object's fat sphere, and rebuilt only when many objects left theirs.
//!
//! Levels are `ratio` apart (4 by default: cells of level ℓ are `unit · 4^ℓ` wide), and each level's
//! cells are the thesis' dual cells (cell i spans `[(i − ½)·w, (i + ½)·w)`: no two levels share a
//! boundary). An object lives on its level — the finest whose cells are at least as wide as its box
//! (raised, for a small object far from the origin, until its cell indices stay below 2³⁰) — in the
//! one cell holding its centre, so its box lies within that cell's 3×3 neighbourhood.
//!
//! **Temporal coherence.** The levels hold each object's *fat sphere* (its radius enlarged by three
//! quarters, `fat.rs`), and the broad phase keeps the *fat-candidate pairs* (those whose fat spheres
//! overlap or touch) from frame to frame. A frame ([`BroadPhase::find_pairs`]) re-registers only the
//! objects whose sphere left its fat sphere (or outgrew it, or shrank well inside it), came or went:
//! their pairs are dropped and searched anew, against the levels (whose entries for them are
//! skipped) and against the others re-registered since the last rebuild (`coherent.rs`); the
//! touching pairs are the candidate pairs that pass the exact f64 test, ascending (a branch-free
//! loop over the sorted pairs, prefetching the spheres ahead). Once the objects re-registered since
//! the last rebuild pass a twentieth of all, the frame rebuilds every level around fat spheres
//! re-centred on their objects, and searches them all, as follows. On rayon's threads
//! ([`BroadPhase::set_parallel`], with [`BroadPhase::set_all`] for the moves) each of these steps
//! runs in chunks joined in order: the same pairs, events and counts, bit for bit.
//!
//! A rebuild sorts every occupied level as contiguous arrays by cell (a counting sort where the level's cells are few, a radix sort where they are
//! sparse), with f32 boxes rounded outward. Then:
//! - **within a level**, each occupied cell is searched against itself and half of its 3×3
//!   neighbourhood (the next cell of its row and three cells of the next row, contiguous in the
//!   sorted arrays), so each pair of neighbouring cells is visited once;
//! - **across levels**, each object is searched against every coarser occupied level in the cells
//!   its box, widened by that level's largest half-width, meets (2×2, at most 3×3), found in the
//!   coarser level's sorted cells by a search that starts where the previous object's ended (the
//!   finer level is walked in its own cell order, so consecutive searches are close); empty levels
//!   are never visited.
//!
//! Every candidate is tested on the f32 boxes, then on the f64 fat spheres (overlap or touch); the
//! boxes are widened beyond every rounding, and a fat sphere's margin beyond the rounding of the
//! exact test, so no touching pair is lost (tests: brute force).
//!
//! **Height.** The thesis' structure is 2-D: a level's cells are columns, and objects stacked above
//! one another (aircraft over a crowd) are all candidates of each other. A level whose objects'
//! centres span more than 4 layers of z (cells as tall as they are wide, dual like x and y: layer k
//! spans `[(k − ½)·w, (k + ½)·w)`) and stand at least 8 to a column of the cells they span is split
//! by height ([`Vertical::Auto`], the default; see
//! [`BroadPhase::set_vertical`]): its keys order layers, then rows, then columns; a cell is searched
//! against half of its 3×3×3 neighbourhood (the next cell and row of its layer, nine cells of the
//! next layer), and a finer object against the 2 (3 at most) layers its widened box meets.
//!
//! The same sorted levels answer box, sphere and ray queries ([`BroadPhase::within_box`],
//! [`BroadPhase::within_radius`], [`BroadPhase::raycast_with`]) while every object lies within the
//! fat sphere they hold for it (after a rebuild, or a [`BroadPhase::refresh`]); otherwise they scan
//! every object.
//!
//! ```
//! use landfall::broad::BroadPhase;
//! use landfall::glam::DVec3;
//!
//! let mut bp = BroadPhase::new(1.0);
//! let flea = bp.insert(DVec3::new(0.0, 0.0, 0.0), 0.05).unwrap();
//! let dog = bp.insert(DVec3::new(0.3, 0.0, 0.2), 0.5).unwrap();
//! let house = bp.insert(DVec3::new(900.0, 0.0, 0.0), 40.0).unwrap();
//! assert_eq!(bp.find_pairs(), &[(flea, dog)]);
//! bp.set(house, DVec3::new(0.3, 40.3, 0.0), 40.0).unwrap(); // the house comes over the dog
//! let mut pairs = bp.find_pairs().to_vec();
//! pairs.sort();
//! assert_eq!(pairs, [(flea, dog), (dog, house)]);
//! ```

mod boxes;
mod coherent;
mod concat;
mod events;
mod fat;
mod group;
mod level;
mod levels;
mod lifts;
mod query;
mod search;
mod sort;
#[cfg(test)]
mod tests;

pub use search::SearchStats;

use crate::broad::queries::within;
use glam::DVec3;
use level::{Level, Sphere};
use levels::{Levels, MAX_COORD};

/// Why a broad phase refuses an object or a configuration.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BroadPhaseError {
    /// The centre or radius is not finite, the radius is negative, or either exceeds 3.2e150 (whose
    /// squares would overflow).
    #[error("sphere at {center:?} of radius {radius}: {why}")]
    BadSphere {
        /// The centre given.
        center: [f64; 3],
        /// The radius given.
        radius: f64,
        /// What is wrong.
        why: &'static str,
    },
    /// No object has this proxy.
    #[error("proxy {0}: no such object")]
    Unknown(u32),
    /// The cell width or level ratio is not usable.
    #[error("{0}")]
    BadConfig(String),
}

/// Two proxies, the lower first.
pub type Pair = (u32, u32);

/// Whether a [`BroadPhase`]'s levels split their cells by height as well (the pairs are the same
/// either way; only the candidates and the time differ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Vertical {
    /// Each level split where its objects' centres span more than 4 layers of z and stand at
    /// least 8 to a column of the cells they span, decided afresh every frame (the default).
    #[default]
    Auto,
    /// Never: columns of cells, z only in the box and sphere tests (the thesis' 2-D layout).
    Never,
    /// Every level whose layer indices stay within ±2³⁰.
    Always,
}

/// Frames between two decisions of which levels are lifted into which.
const DECISION_FRAMES: u32 = 8;

/// The level by size of a free slot.
const FREE: u32 = u32::MAX;

/// Objects [`BroadPhase::set_all`] moves as one task (a few in the tests, so that they split).
const MOVE_CHUNK: usize = if cfg!(test) { 7 } else { 4096 };

/// What [`BroadPhase::set_all`]'s task over a chunk of objects saw: those that left their fat
/// spheres, in proxy order, and the first bad sphere.
type Moved = (Vec<u32>, Option<BroadPhaseError>);

/// A chunk [`BroadPhase::set_all`] moves: its number, spheres, fat spheres, levels by size and findings.
type MoveTask<'a> = (usize, (((&'a mut [Sphere], &'a mut [Sphere]), &'a mut [u32]), &'a mut Moved));

/// A chunk a rebuild re-fattens: spheres, fat spheres, levels by size, levels.
type FatTask<'a> = (((&'a [Sphere], &'a mut [Sphere]), &'a mut [u32]), &'a mut [u32]);

/// Moves the objects `first..first + sp.len()` as `each` says, as [`BroadPhase::set`] does each
/// (a bad sphere left as it was): those leaving their fat spheres into `out.0`, the first error
/// into `out.1`.
fn move_chunk(
    levels: &Levels,
    first: usize,
    sp: &mut [Sphere],
    fat: &mut [Sphere],
    size: &mut [u32],
    (left, bad): &mut Moved,
    each: &(impl Fn(u32, DVec3, f64) -> (DVec3, f64) + Sync),
) {
    left.clear();
    *bad = None;
    for (k, ((s, f), l)) in sp.iter_mut().zip(fat.iter_mut()).zip(size.iter_mut()).enumerate() {
        if *l == FREE {
            continue;
        }
        let p = (first + k) as u32;
        let (c, r) = each(p, s.c, s.r);
        match BroadPhase::check(c, r) {
            Ok(new) => {
                *s = new;
                if !fat::holds(f, &new) {
                    *f = fat::fatten(&new);
                    *l = levels.by_size_from(*l as usize, f.r) as u32;
                    left.push(p);
                }
            }
            Err(e) => {
                if bad.is_none() {
                    *bad = Some(e);
                }
            }
        }
    }
}

/// Spheres (by proxy: a small integer the broad phase hands out) and every pair of them that
/// overlaps or touches. How the search works is in the documentation of `broad/phase/mod.rs`.
#[derive(Clone, Debug)]
pub struct BroadPhase {
    levels: Levels,
    /// The objects' spheres by proxy, and their levels by size (`FREE`: no object).
    spheres: Vec<Sphere>,
    size_level: Vec<u32>,
    /// The objects' fat spheres by proxy ([`fat`]): what the levels hold, and what the levels by
    /// size are of.
    fat: Vec<Sphere>,
    /// The fat-candidate pairs and what changed since they were found ([`coherent`]).
    coh: coherent::Coherent,
    /// The share of stale objects beyond which a frame rebuilds (`REBUILD_SHARE`; the tests
    /// raise it), and the rebuilds so far.
    rebuild_share: f64,
    rebuilds: u64,
    /// Free proxies, reused last-in first-out.
    free: Vec<u32>,
    /// Objects per level index, and the members of each occupied level, grouped.
    counts: Vec<u32>,
    level_of: Vec<u32>,
    members: Vec<u32>,
    /// The occupied levels: (level index, its members' range in `members`), finest first.
    starts: Vec<(usize, usize, usize)>,
    grouping: group::Scratch,
    /// The level each level's objects are searched on ([`Self::decide_lifts`]), the frames until
    /// the next decision, and a table for counting crowding.
    lift: Vec<u32>,
    until_decision: u32,
    crowd: lifts::Crowd,
    /// Whether levels may be lifted (the tests search unlifted levels too).
    lifting: bool,
    /// The occupied levels, finest first (their arrays are kept for their capacity), and whether
    /// they hold the objects as they stand (no move, insertion or removal since they were sorted).
    built: Vec<Level>,
    occupied: usize,
    fresh: bool,
    pairs: Vec<(u32, u32)>,
    events: events::PairSet,
    /// Whether levels are split by height ([`Self::set_vertical`]).
    vertical: Vertical,
    /// Search on rayon's threads ([`Self::set_parallel`]), its tasks and their pairs.
    parallel: bool,
    tasks: Vec<search::Task>,
    parts: Vec<(Vec<u64>, SearchStats)>,
    /// [`Self::set_all`]'s tasks' findings, kept for their capacity.
    moved: Vec<Moved>,
    stats: SearchStats,
}

impl BroadPhase {
    /// An empty broad phase whose level-0 cells are `unit` wide, levels 4 apart (a unit that is not
    /// finite and positive is taken as 1).
    pub fn new(unit: f64) -> Self {
        let unit = if unit.is_finite() && unit > 0.0 { unit } else { 1.0 };
        Self::build(unit, 2)
    }

    /// An empty broad phase with levels `ratio` apart: 2, 4, 8 or 16.
    pub fn with_ratio(unit: f64, ratio: u32) -> Result<Self, BroadPhaseError> {
        if !(unit.is_finite() && unit > 0.0 && (1e-100..=1e100).contains(&unit)) {
            return Err(BroadPhaseError::BadConfig(format!("cell width {unit}: must be in [1e-100, 1e100]")));
        }
        if !matches!(ratio, 2 | 4 | 8 | 16) {
            return Err(BroadPhaseError::BadConfig(format!("level ratio {ratio}: must be 2, 4, 8 or 16")));
        }
        Ok(Self::build(unit, ratio.trailing_zeros() as i32))
    }

    fn build(unit: f64, shift: i32) -> Self {
        let levels = Levels::new(unit, shift);
        let counts = vec![0; levels.count()];
        let lift = (0..levels.count() as u32).collect();
        Self {
            levels,
            spheres: Vec::new(),
            size_level: Vec::new(),
            fat: Vec::new(),
            coh: Default::default(),
            rebuild_share: coherent::REBUILD_SHARE,
            rebuilds: 0,
            free: Vec::new(),
            counts,
            level_of: Vec::new(),
            members: Vec::new(),
            starts: Vec::new(),
            grouping: Default::default(),
            lift,
            until_decision: 0,
            crowd: Default::default(),
            lifting: true,
            built: Vec::new(),
            occupied: 0,
            fresh: true,
            pairs: Vec::new(),
            events: Default::default(),
            vertical: Vertical::Auto,
            parallel: false,
            tasks: Vec::new(),
            parts: Vec::new(),
            moved: Vec::new(),
            stats: SearchStats::default(),
        }
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.spheres.len() - self.free.len()
    }

    /// Whether there is no object.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check(center: DVec3, radius: f64) -> Result<Sphere, BroadPhaseError> {
        let bad = |why| Err(BroadPhaseError::BadSphere { center: center.to_array(), radius, why });
        if !center.is_finite() || !radius.is_finite() {
            return bad("centre and radius must be finite");
        }
        if radius < 0.0 {
            return bad("the radius must be ≥ 0");
        }
        let cmax = center.abs().max_element();
        if cmax > MAX_COORD || radius > MAX_COORD {
            return bad("centre and radius must lie within ±3.2e150");
        }
        Ok(Sphere { c: center, r: radius })
    }

    /// Adds a sphere; returns its proxy (the smallest free one).
    pub fn insert(&mut self, center: DVec3, radius: f64) -> Result<u32, BroadPhaseError> {
        let sphere = Self::check(center, radius)?;
        let fat = fat::fatten(&sphere);
        let level = self.levels.by_size(fat.r) as u32;
        self.fresh = false;
        let p = match self.free.pop() {
            Some(p) => {
                (self.spheres[p as usize], self.size_level[p as usize]) = (sphere, level);
                self.fat[p as usize] = fat;
                p
            }
            None => {
                self.spheres.push(sphere);
                self.size_level.push(level);
                self.fat.push(fat);
                self.spheres.len() as u32 - 1
            }
        };
        self.coh.touched(p);
        Ok(p)
    }

    /// Moves (and resizes) object `proxy`. Within its fat sphere this costs the next frame
    /// nothing but the exact tests of its candidate pairs.
    pub fn set(&mut self, proxy: u32, center: DVec3, radius: f64) -> Result<(), BroadPhaseError> {
        self.slot(proxy)?;
        let sphere = Self::check(center, radius)?;
        let p = proxy as usize;
        self.spheres[p] = sphere;
        if !fat::holds(&self.fat[p], &sphere) {
            self.fat[p] = fat::fatten(&sphere);
            self.size_level[p] = self.levels.by_size_from(self.size_level[p] as usize, self.fat[p].r) as u32;
            self.coh.touched(proxy);
            self.fresh = false;
        }
        Ok(())
    }

    /// Moves (and resizes) every object at once: `each(proxy, centre, radius)` gives an object's new
    /// centre and radius. On rayon's threads where [`Self::set_parallel`] is on; the same as
    /// [`Self::set`] on every object in proxy order, except that an object given a bad sphere keeps
    /// its own while the others move (the error names the lowest such proxy).
    ///
    /// ```
    /// use landfall::broad::BroadPhase;
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// let a = bp.insert(DVec3::ZERO, 1.0).unwrap();
    /// let b = bp.insert(DVec3::new(5.0, 0.0, 0.0), 1.0).unwrap();
    /// assert!(bp.find_pairs().is_empty());
    /// bp.set_all(|_, c, r| (c * 0.3, r)).unwrap(); // everything drawn towards the origin
    /// assert_eq!(bp.find_pairs(), &[(a, b)]);
    /// ```
    pub fn set_all(&mut self, each: impl Fn(u32, DVec3, f64) -> (DVec3, f64) + Sync) -> Result<(), BroadPhaseError> {
        let chunks = self.spheres.len().div_ceil(MOVE_CHUNK);
        if self.moved.len() < chunks {
            self.moved.resize_with(chunks, Default::default);
        }
        let levels = &self.levels;
        let work =
            |(k, (((sp, fat), size), out)): MoveTask<'_>| move_chunk(levels, k * MOVE_CHUNK, sp, fat, size, out, &each);
        let (sp, fat, size, moved) =
            (&mut self.spheres, &mut self.fat, &mut self.size_level, &mut self.moved[..chunks]);
        if self.parallel {
            use rayon::prelude::*;
            sp.par_chunks_mut(MOVE_CHUNK)
                .zip(fat.par_chunks_mut(MOVE_CHUNK))
                .zip(size.par_chunks_mut(MOVE_CHUNK))
                .zip(moved.par_iter_mut())
                .enumerate()
                .for_each(work);
        } else {
            sp.chunks_mut(MOVE_CHUNK)
                .zip(fat.chunks_mut(MOVE_CHUNK))
                .zip(size.chunks_mut(MOVE_CHUNK))
                .zip(moved.iter_mut())
                .enumerate()
                .for_each(work);
        }
        let mut first = None;
        for (left, bad) in &mut self.moved[..chunks] {
            for &p in left.iter() {
                self.coh.touched(p);
                self.fresh = false;
            }
            if first.is_none() {
                first = bad.take();
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Removes object `proxy` (its proxy may be handed out again).
    pub fn remove(&mut self, proxy: u32) -> Result<(), BroadPhaseError> {
        self.slot(proxy)?;
        self.size_level[proxy as usize] = FREE;
        self.free.push(proxy);
        self.fresh = false;
        self.events.removed(proxy);
        self.coh.touched(proxy);
        if self.free.len() == self.spheres.len() {
            self.spheres.clear();
            self.size_level.clear();
            self.fat.clear();
            self.free.clear();
            self.coh = Default::default();
        }
        Ok(())
    }

    /// Object `proxy`'s centre and radius.
    pub fn get(&self, proxy: u32) -> Option<(DVec3, f64)> {
        self.slot(proxy).ok().map(|s| (s.c, s.r))
    }

    fn slot(&self, proxy: u32) -> Result<Sphere, BroadPhaseError> {
        match self.size_level.get(proxy as usize) {
            Some(&l) if l != FREE => Ok(self.spheres[proxy as usize]),
            _ => Err(BroadPhaseError::Unknown(proxy)),
        }
    }

    /// Every pair of objects whose spheres overlap or touch, each once, lower proxy first,
    /// ascending. Between rebuilds of the levels, only the pairs of the objects that left their fat
    /// spheres (or came or went) are searched anew (the module docs say how); the others' candidate pairs are
    /// kept and tested again.
    pub fn find_pairs(&mut self) -> &[Pair] {
        let st = if self.must_rebuild() { self.full_frame() } else { self.coherent_frame() };
        self.touching();
        self.stats = SearchStats { pairs: self.pairs.len() as u64, fat_pairs: self.coh.cands.len() as u64, ..st };
        &self.pairs
    }

    /// Whether the next frame rebuilds the levels: the fat-candidate pairs are not all known, or the
    /// stale objects passed `REBUILD_SHARE` of all.
    fn must_rebuild(&self) -> bool {
        !self.coh.valid || self.coh.stale_list.len() as f64 > self.rebuild_share * self.len() as f64
    }

    /// Rebuilds the levels and finds every fat-candidate pair by searching them all.
    fn full_frame(&mut self) -> SearchStats {
        self.rebuild();
        let mut st = self.level_stats();
        st.dirty = self.len() as u64;
        let built = &self.built[..self.occupied];
        search::tasks(built, self.parallel, &mut self.tasks);
        let cands = &mut self.coh.cands;
        if self.parallel {
            use rayon::prelude::*;
            if self.parts.len() < self.tasks.len() {
                self.parts.resize_with(self.tasks.len(), Default::default);
            }
            let levels = &self.levels;
            self.parts[..self.tasks.len()].par_iter_mut().zip(&self.tasks).for_each(|((out, st), &task)| {
                out.clear();
                *st = SearchStats::default();
                search::run(levels, built, task, out, st);
            });
            let parts = &self.parts[..self.tasks.len()];
            for (_, s) in parts {
                st += *s;
            }
            // Resized, not cleared: only its growth is written here.
            cands.resize(parts.iter().map(|p| p.0.len()).sum(), 0);
            concat::concat(0..parts.len(), &|k| &parts[k].0[..], cands);
            concat::sort(cands);
        } else {
            cands.clear();
            for &task in &self.tasks {
                search::run(&self.levels, built, task, cands, &mut st);
            }
            cands.sort_unstable();
        }
        self.coh.valid = true;
        st
    }

    /// Calls `each(a, b)` for every pair [`Self::find_pairs`] would list, on this thread, without
    /// keeping them. Where the levels must be rebuilt (the first call, or after
    /// [`Self::refresh`]), it searches them and keeps nothing: memory stays the levels' whatever the
    /// number of pairs (what `landfall proximity` streams to disk), in the search's order, on levels
    /// holding the spheres with no margin, and the next frame rebuilds again. Otherwise it updates the fat-candidate pairs as
    /// [`Self::find_pairs`] does and calls `each` in ascending order.
    ///
    /// ```
    /// use landfall::broad::BroadPhase;
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// for k in 0..4 {
    ///     bp.insert(DVec3::new(k as f64, 0.0, 0.0), 0.5).unwrap();
    /// }
    /// let mut n = 0;
    /// bp.for_each_pair(|a, b| {
    ///     assert_eq!(b, a + 1); // neighbours touch
    ///     n += 1;
    /// });
    /// assert_eq!(n, 3);
    /// ```
    pub fn for_each_pair(&mut self, mut each: impl FnMut(u32, u32)) {
        if !self.must_rebuild() {
            let st = self.coherent_frame();
            self.touching();
            for &(a, b) in &self.pairs {
                each(a, b);
            }
            self.stats = SearchStats { pairs: self.pairs.len() as u64, fat_pairs: self.coh.cands.len() as u64, ..st };
            return;
        }
        // One search: the spheres themselves (no margin: fewer candidates), and nothing kept.
        self.rebuild_with(fat::thin);
        let mut st = self.level_stats();
        st.dirty = self.len() as u64;
        let built = &self.built[..self.occupied];
        search::tasks(built, false, &mut self.tasks);
        let mut found = 0u64;
        let sp = &self.spheres;
        let mut out = search::Each(|a, b| {
            let (sa, sb) = (&sp[a as usize], &sp[b as usize]);
            if within(sa.c - sb.c, sa.r + sb.r) {
                found += 1;
                each(a, b);
            }
        });
        for &task in &self.tasks {
            search::run(&self.levels, built, task, &mut out, &mut st);
        }
        st.pairs = found;
        self.stats = st;
    }

    /// The pairs that began and ended touching since the previous call (the first call: every
    /// touching pair began), each list ascending — what a game or a narrow phase acts on. A removed
    /// object's pairs end; a new object given a removed one's proxy begins its own.
    ///
    /// ```
    /// use landfall::broad::BroadPhase;
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// let a = bp.insert(DVec3::ZERO, 1.0).unwrap();
    /// let b = bp.insert(DVec3::new(1.5, 0.0, 0.0), 1.0).unwrap();
    /// assert_eq!(bp.pair_events(), (&[(a, b)][..], &[][..]));
    /// bp.set(b, DVec3::new(1.6, 0.0, 0.0), 1.0).unwrap();
    /// assert_eq!(bp.pair_events(), (&[][..], &[][..])); // still touching: nothing to say
    /// bp.set(b, DVec3::new(9.0, 0.0, 0.0), 1.0).unwrap();
    /// assert_eq!(bp.pair_events(), (&[][..], &[(a, b)][..]));
    /// ```
    pub fn pair_events(&mut self) -> (&[Pair], &[Pair]) {
        self.find_pairs();
        self.events.report(&self.pairs);
        (&self.events.began, &self.events.ended)
    }

    /// Whether [`Self::find_pairs`] and [`Self::set_all`] run on rayon's threads: a rebuild's
    /// re-fattening, grouping by level, lifts, sorts and search (cell and object ranges of each
    /// level, and of each pair of levels, are independent), and between rebuilds the searches of
    /// the objects that left their fat spheres, the merge of their pairs into the kept ones and the
    /// exact tests, in chunks joined in order. The pairs, events and counts are the same, in the
    /// same order.
    pub fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel;
    }

    /// Whether levels split their cells by height ([`Vertical`]; by default where their objects
    /// spread over more than 4 cells of z in crowded columns). Takes effect at the next sort; the
    /// pairs are the same.
    ///
    /// ```
    /// use landfall::broad::{BroadPhase, Vertical};
    /// use landfall::glam::DVec3;
    ///
    /// let mut bp = BroadPhase::new(1.0);
    /// for k in 0..100 {
    ///     bp.insert(DVec3::new(0.0, 0.0, 40.0 * k as f64), 10.0).unwrap(); // a stack of balloons
    /// }
    /// let pairs = bp.find_pairs().len();
    /// assert_eq!((pairs, bp.stats().vertical), (0, 1)); // split by height: few candidates
    /// bp.set_vertical(Vertical::Never);
    /// assert_eq!(bp.find_pairs().len(), pairs);
    /// assert_eq!(bp.stats().candidates, 100 * 99 / 2); // one column: every pair a candidate
    /// ```
    pub fn set_vertical(&mut self, vertical: Vertical) {
        if vertical != self.vertical {
            self.vertical = vertical;
            self.fresh = false;
            self.coh.valid = false;
        }
    }

    /// Counts of the last [`Self::find_pairs`].
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// The counts of the levels as sorted (occupied, split by height).
    fn level_stats(&self) -> SearchStats {
        let built = &self.built[..self.occupied];
        SearchStats { levels: built.len(), vertical: built.iter().filter(|l| l.vertical).count(), ..Default::default() }
    }

    /// Re-centres every fat sphere on its object, groups the objects by level (each raised as far
    /// as its position needs) and sorts each occupied level by cell (the fat-candidate pairs are
    /// then to be found anew).
    fn rebuild(&mut self) {
        self.rebuild_with(fat::fatten);
    }

    /// [`Self::rebuild`] with the spheres `around` gives the objects (fat or thin).
    fn rebuild_with(&mut self, around: fn(&Sphere) -> Sphere) {
        self.coh.clear();
        self.coh.valid = false;
        self.rebuilds += 1;
        // Each object's sphere, level by size and level (`FREE`: none); on rayon's threads, chunks.
        let n = self.spheres.len();
        self.level_of.truncate(n);
        self.level_of.resize(n, FREE);
        let levels = &self.levels;
        let work = |(((sp, fat), size), level): FatTask<'_>| {
            for (((s, f), size), t) in sp.iter().zip(fat).zip(size).zip(level) {
                *t = FREE;
                if *size != FREE {
                    *f = around(s);
                    *size = levels.by_size_from(*size as usize, f.r) as u32;
                    *t = levels.raised(*size as usize, f.c.x.abs().max(f.c.y.abs())) as u32;
                }
            }
        };
        let (sp, fat, size, level) = (&self.spheres, &mut self.fat, &mut self.size_level, &mut self.level_of);
        if self.parallel {
            use rayon::prelude::*;
            sp.par_chunks(MOVE_CHUNK)
                .zip(fat.par_chunks_mut(MOVE_CHUNK))
                .zip(size.par_chunks_mut(MOVE_CHUNK))
                .zip(level.par_chunks_mut(MOVE_CHUNK))
                .for_each(work);
        } else {
            work((((sp, fat), size), level));
        }
        if self.until_decision == 0 {
            self.group(false);
            self.decide_lifts();
            self.until_decision = DECISION_FRAMES;
        }
        self.until_decision -= 1;
        self.group(true);
        if self.built.len() < self.starts.len() {
            self.built.resize_with(self.starts.len(), Level::default);
        }
        let (levels, members, spheres, vertical) = (&self.levels, &self.members, &self.fat, self.vertical);
        let build = |(lv, &(t, s, e)): (&mut Level, &(usize, usize, usize))| {
            lv.build(levels, t, &members[s..e], spheres, vertical)
        };
        if self.parallel {
            use rayon::prelude::*;
            self.built.par_iter_mut().zip(&self.starts).for_each(build);
        } else {
            self.built.iter_mut().zip(&self.starts).for_each(build);
        }
        self.occupied = self.starts.len();
        self.fresh = true;
    }

    /// Every pair whose spheres overlap or touch, by testing all pairs (lower proxy first, sorted):
    /// the reference the tests compare with.
    pub fn pairs_brute_force(&self) -> Vec<(u32, u32)> {
        let live: Vec<(u32, &Sphere)> = self.live().collect();
        let mut out = Vec::new();
        for (x, (pa, a)) in live.iter().enumerate() {
            for (pb, b) in &live[x + 1..] {
                if within(a.c - b.c, a.r + b.r) {
                    out.push((*pa, *pb));
                }
            }
        }
        out
    }
}
