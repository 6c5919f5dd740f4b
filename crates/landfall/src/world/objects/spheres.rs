//! Bounding spheres in a [`BroadPhase`], kept under the caller's own slot numbers.
//!
//! The entities' spheres move every step and are few: their broad phase is sorted again after
//! each step. The objects' are edited only when cells come and go, a few at a time among
//! thousands ([`Spheres::buffered`]): new spheres wait in a second, small broad phase (sorted
//! again when it changed) and removed ones stay in the sorted one, skipped, until they number an
//! eighth of the sorted ones, or for 16 refreshes without a change (a walker's rare changes);
//! then both are merged and sorted once. Sorting everything after every change would cost
//! the whole set each frame on a fast path, where a few dozen change.

use crate::broad::BroadPhase;
use glam::DVec3;

/// No proxy: the slot holds no sphere (or the sorted proxy's sphere was removed).
const NONE: u32 = u32::MAX;

/// Refreshes without a change after which waiting changes are merged (a walker's rare changes
/// are merged within a quarter of a second at 60 frames a second; a fast path's never wait for it).
const QUIET: u32 = 16;

/// Where a slot's sphere is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum At {
    None,
    /// In the sorted broad phase, under this proxy.
    Sorted(u32),
    /// Among the recent ones, under this proxy.
    Recent(u32),
}

/// Spheres keyed by slot, in a broad phase.
pub(crate) struct Spheres {
    bp: BroadPhase,
    /// Sorted proxy → slot (`NONE` where the sphere was removed and waits for the merge).
    slot_of: Vec<u32>,
    /// Slot → where its sphere is.
    at: Vec<At>,
    /// Whether changes wait in `recent` and `stale` until they are many ([`Self::buffered`]).
    buffered: bool,
    /// Spheres added since the last merge, and their slots.
    recent: BroadPhase,
    recent_slot: Vec<u32>,
    /// Sorted proxies removed since the last merge.
    stale: Vec<u32>,
    /// Whether a sphere came or went since the last refresh, and the refreshes since one did.
    edited: bool,
    quiet: u32,
}

impl Spheres {
    /// Spheres in a broad phase whose finest cells are `unit` wide, sorted again at every
    /// [`refresh`](Self::refresh) after a change.
    pub fn new(unit: f64) -> Self {
        Self {
            bp: BroadPhase::new(unit),
            slot_of: Vec::new(),
            at: Vec::new(),
            buffered: false,
            recent: BroadPhase::new(unit),
            recent_slot: Vec::new(),
            stale: Vec::new(),
            edited: false,
            quiet: 0,
        }
    }

    /// Like [`new`](Self::new), for spheres that change a few at a time: changes wait in a small
    /// broad phase until they number an eighth of the sorted spheres (at least 32), or until 16
    /// refreshes without a change.
    pub fn buffered(unit: f64) -> Self {
        Self { buffered: true, ..Self::new(unit) }
    }

    fn at(&self, slot: u32) -> At {
        self.at.get(slot as usize).copied().unwrap_or(At::None)
    }

    fn put(&mut self, slot: u32, at: At) {
        let s = slot as usize;
        if self.at.len() <= s {
            self.at.resize(s + 1, At::None);
        }
        self.at[s] = at;
    }

    /// Puts slot's sphere at (`c`, `r`), adding it if the slot has none. A sphere the broad phase
    /// refuses (not finite, beyond ±3.2e150) leaves the slot without one: it meets nothing.
    pub fn set(&mut self, slot: u32, c: DVec3, r: f64) {
        self.edited = true;
        match self.at(slot) {
            At::Sorted(p) if !self.buffered => {
                if self.bp.set(p, c, r).is_err() {
                    self.remove(slot);
                }
            }
            At::Recent(q) => {
                if self.recent.set(q, c, r).is_err() {
                    self.remove(slot);
                }
            }
            at => {
                if at != At::None {
                    self.remove(slot);
                }
                let (bp, ids) = if self.buffered {
                    (&mut self.recent, &mut self.recent_slot)
                } else {
                    (&mut self.bp, &mut self.slot_of)
                };
                let Ok(p) = bp.insert(c, r) else { return };
                if ids.len() <= p as usize {
                    ids.resize(p as usize + 1, NONE);
                }
                ids[p as usize] = slot;
                self.put(slot, if self.buffered { At::Recent(p) } else { At::Sorted(p) });
            }
        }
    }

    /// Takes slot's sphere away, if it has one.
    pub fn remove(&mut self, slot: u32) {
        self.edited = true;
        match self.at(slot) {
            At::None => return,
            At::Sorted(p) if self.buffered => {
                self.slot_of[p as usize] = NONE;
                self.stale.push(p);
            }
            At::Sorted(p) => {
                let _ = self.bp.remove(p);
            }
            At::Recent(q) => {
                let _ = self.recent.remove(q);
            }
        }
        self.put(slot, At::None);
    }

    /// Makes the spheres as they stand ready for the queries: sorts them again if a sphere came,
    /// went or moved since; buffered, only once the waiting changes are many, or after `QUIET`
    /// refreshes without a change (`force`: at once).
    fn settle(&mut self, force: bool) {
        let waiting = self.recent.len() + self.stale.len();
        self.quiet = if std::mem::take(&mut self.edited) { 0 } else { self.quiet.saturating_add(1) };
        if waiting > 0 && (force || self.quiet >= QUIET || waiting > (self.bp.len() / 8).max(32)) {
            for p in self.stale.drain(..) {
                let _ = self.bp.remove(p);
            }
            for (q, &slot) in self.recent_slot.iter().enumerate() {
                // Its last sphere, unless it went (its proxy free, or given to a later one).
                let Some((c, r)) = self.recent.get(q as u32).filter(|_| self.at[slot as usize] == At::Recent(q as u32))
                else {
                    continue;
                };
                let _ = self.recent.remove(q as u32);
                if let Ok(p) = self.bp.insert(c, r) {
                    if self.slot_of.len() <= p as usize {
                        self.slot_of.resize(p as usize + 1, NONE);
                    }
                    self.slot_of[p as usize] = slot;
                    self.at[slot as usize] = At::Sorted(p);
                }
            }
            self.recent_slot.clear();
            debug_assert!(self.recent.is_empty());
        }
        self.bp.refresh();
        self.recent.refresh();
    }

    /// Sorts the spheres for the queries, if they changed since (buffered: once the changes
    /// waiting are many).
    pub fn refresh(&mut self) {
        self.settle(false);
    }

    /// Calls `visit(slot)` for every sphere meeting the closed box from `min` to `max`.
    pub fn within_box(&self, min: DVec3, max: DVec3, mut visit: impl FnMut(u32)) {
        self.bp.within_box(min, max, |p| self.sorted(p, &mut visit));
        self.recent.within_box(min, max, |q| visit(self.recent_slot[q as usize]));
    }

    /// Calls `visit(slot)` for every sphere meeting the sphere of `radius` around `c` (touching
    /// counts: the pairs' own test).
    pub fn within_radius(&self, c: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
        self.bp.within_radius(c, radius, |p| self.sorted(p, &mut visit));
        self.recent.within_radius(c, radius, |q| visit(self.recent_slot[q as usize]));
    }

    /// Visits the slot of sorted proxy `p`, unless its sphere was removed.
    #[inline]
    fn sorted(&self, p: u32, visit: &mut impl FnMut(u32)) {
        let s = self.slot_of[p as usize];
        if s != NONE {
            visit(s);
        }
    }

    /// [`BroadPhase::raycast_with`] by slot: `exact(slot, t, limit)` answers where the ray meets
    /// the slot's own shape before `limit`. The first hit's t.
    pub fn raycast_with(
        &self,
        origin: DVec3,
        dir: DVec3,
        max_t: f64,
        mut exact: impl FnMut(u32, f64, f64) -> Option<f64>,
    ) -> Option<f64> {
        let (slot_of, recent_slot) = (&self.slot_of, &self.recent_slot);
        let sorted = self
            .bp
            .raycast_with(origin, dir, max_t, |p, t, limit| match slot_of[p as usize] {
                NONE => None,
                s => exact(s, t, limit),
            })
            .map(|(_, t)| t);
        let limit = sorted.unwrap_or(max_t);
        let recent =
            self.recent.raycast_with(origin, dir, limit, |q, t, limit| exact(recent_slot[q as usize], t, limit));
        match (sorted, recent) {
            (Some(a), Some((_, b))) => Some(a.min(b)),
            (a, b) => a.or(b.map(|(_, t)| t)),
        }
    }

    /// Calls `visit(a, b)` (slots, a < b) for every pair of spheres that overlap or touch.
    pub fn pairs(&mut self, mut visit: impl FnMut(u32, u32)) {
        self.settle(true);
        let Self { bp, slot_of, .. } = self;
        bp.for_each_pair(|a, b| {
            let (a, b) = (slot_of[a as usize], slot_of[b as usize]);
            visit(a.min(b), a.max(b));
        });
    }

    /// Slot's sphere, if it has one.
    pub fn get(&self, slot: u32) -> Option<(DVec3, f64)> {
        match self.at(slot) {
            At::None => None,
            At::Sorted(p) => self.bp.get(p),
            At::Recent(q) => self.recent.get(q),
        }
    }

    /// Every slot's sphere.
    pub fn iter(&self) -> impl Iterator<Item = (u32, DVec3, f64)> + '_ {
        (0..self.at.len() as u32).filter_map(|s| self.get(s).map(|(c, r)| (s, c, r)))
    }
}
