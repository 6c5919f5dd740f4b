//! Bounding spheres in a [`BroadPhase`], kept under the caller's own slot numbers.
//!
//! The objects' spheres are edited only when cells come and go, so their levels are sorted once
//! after each [`Objects::sync`](super::Objects::sync) that changed them; the entities' spheres move
//! every step and are few.

use crate::broad::BroadPhase;
use glam::DVec3;

/// No proxy: the slot holds no sphere.
const NONE: u32 = u32::MAX;

/// Spheres keyed by slot, in a broad phase.
pub(crate) struct Spheres {
    bp: BroadPhase,
    /// Proxy → slot.
    slot_of: Vec<u32>,
    /// Slot → proxy (`NONE` where the slot has no sphere).
    proxy_of: Vec<u32>,
}

impl Spheres {
    /// Spheres in a broad phase whose finest cells are `unit` wide.
    pub fn new(unit: f64) -> Self {
        Self { bp: BroadPhase::new(unit), slot_of: Vec::new(), proxy_of: Vec::new() }
    }

    fn proxy(&self, slot: u32) -> Option<u32> {
        self.proxy_of.get(slot as usize).copied().filter(|&p| p != NONE)
    }

    /// Puts slot's sphere at (`c`, `r`), adding it if the slot has none. A sphere the broad phase
    /// refuses (not finite, beyond ±3.2e150) leaves the slot without one: it meets nothing.
    pub fn set(&mut self, slot: u32, c: DVec3, r: f64) {
        match self.proxy(slot) {
            Some(p) => {
                if self.bp.set(p, c, r).is_err() {
                    self.remove(slot);
                }
            }
            None => {
                let Ok(p) = self.bp.insert(c, r) else { return };
                let (s, p) = (slot as usize, p as usize);
                if self.proxy_of.len() <= s {
                    self.proxy_of.resize(s + 1, NONE);
                }
                if self.slot_of.len() <= p {
                    self.slot_of.resize(p + 1, NONE);
                }
                (self.proxy_of[s], self.slot_of[p]) = (p as u32, slot);
            }
        }
    }

    /// Takes slot's sphere away, if it has one.
    pub fn remove(&mut self, slot: u32) {
        if let Some(p) = self.proxy(slot) {
            let _ = self.bp.remove(p);
            self.proxy_of[slot as usize] = NONE;
        }
    }

    /// Sorts the levels for the queries, if a sphere came, went or moved since.
    pub fn refresh(&mut self) {
        self.bp.refresh();
    }

    /// Calls `visit(slot)` for every sphere meeting the closed box from `min` to `max`.
    pub fn within_box(&self, min: DVec3, max: DVec3, mut visit: impl FnMut(u32)) {
        self.bp.within_box(min, max, |p| visit(self.slot_of[p as usize]));
    }

    /// Calls `visit(slot)` for every sphere meeting the sphere of `radius` around `c` (touching
    /// counts: the pairs' own test).
    pub fn within_radius(&self, c: DVec3, radius: f64, mut visit: impl FnMut(u32)) {
        self.bp.within_radius(c, radius, |p| visit(self.slot_of[p as usize]));
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
        self.bp
            .raycast_with(origin, dir, max_t, |p, t, limit| exact(self.slot_of[p as usize], t, limit))
            .map(|(_, t)| t)
    }

    /// Calls `visit(a, b)` (slots, a < b) for every pair of spheres that overlap or touch.
    pub fn pairs(&mut self, mut visit: impl FnMut(u32, u32)) {
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
        (0..self.proxy_of.len() as u32).filter_map(|s| self.get(s).map(|(c, r)| (s, c, r)))
    }
}
