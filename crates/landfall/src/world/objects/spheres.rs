//! Bounding spheres in a [`BroadPhase`], kept under the caller's own slot numbers: the roaming
//! entities', which move every step and are few (sorted again at each refresh after a change).

use crate::broad::BroadPhase;
use glam::DVec3;

/// No proxy: the slot holds no sphere.
const NONE: u32 = u32::MAX;

/// Spheres keyed by slot, in a broad phase.
pub(crate) struct Spheres {
    bp: BroadPhase,
    /// Proxy → slot.
    slot_of: Vec<u32>,
    /// Slot → proxy (`NONE`: no sphere).
    proxy: Vec<u32>,
}

impl Spheres {
    /// Spheres in a broad phase whose finest cells are `unit` wide.
    pub fn new(unit: f64) -> Self {
        Self { bp: BroadPhase::new(unit), slot_of: Vec::new(), proxy: Vec::new() }
    }

    fn proxy(&self, slot: u32) -> Option<u32> {
        self.proxy.get(slot as usize).copied().filter(|&p| p != NONE)
    }

    /// Puts slot's sphere at (`c`, `r`), adding it if the slot has none. A sphere the broad phase
    /// refuses (not finite, beyond ±3.2e150) leaves the slot without one: it meets nothing.
    pub fn set(&mut self, slot: u32, c: DVec3, r: f64) {
        if let Some(p) = self.proxy(slot) {
            if self.bp.set(p, c, r).is_err() {
                self.remove(slot);
            }
            return;
        }
        let Ok(p) = self.bp.insert(c, r) else { return };
        if self.slot_of.len() <= p as usize {
            self.slot_of.resize(p as usize + 1, NONE);
        }
        self.slot_of[p as usize] = slot;
        if self.proxy.len() <= slot as usize {
            self.proxy.resize(slot as usize + 1, NONE);
        }
        self.proxy[slot as usize] = p;
    }

    /// Takes slot's sphere away, if it has one.
    pub fn remove(&mut self, slot: u32) {
        if let Some(p) = self.proxy(slot) {
            let _ = self.bp.remove(p);
            self.proxy[slot as usize] = NONE;
        }
    }

    /// Calls `visit(slot)` for every sphere meeting the sphere of `radius` around `c` (touching
    /// counts: the pairs' own test).
    pub fn within_radius(&self, c: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
        self.bp.within_radius(c, radius, |p| visit(self.slot_of[p as usize]));
    }

    /// Calls `visit(a, b)` (slots, a < b) for every pair of spheres that overlap or touch (and
    /// sorts them for the queries that follow).
    pub fn pairs(&mut self, mut visit: impl FnMut(u32, u32)) {
        self.bp.refresh();
        let Self { bp, slot_of, .. } = self;
        bp.for_each_pair(|a, b| {
            let (a, b) = (slot_of[a as usize], slot_of[b as usize]);
            visit(a.min(b), a.max(b));
        });
    }

    /// Slot's sphere, if it has one.
    pub fn get(&self, slot: u32) -> Option<(DVec3, f64)> {
        self.bp.get(self.proxy(slot)?)
    }

    /// Every slot's sphere.
    pub fn iter(&self) -> impl Iterator<Item = (u32, DVec3, f64)> + '_ {
        (0..self.proxy.len() as u32).filter_map(|s| self.get(s).map(|(c, r)| (s, c, r)))
    }
}
