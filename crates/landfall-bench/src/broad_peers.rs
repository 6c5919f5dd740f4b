//! The broad-phase peers of the dual quad-tree, on spheres (id, centre, radius): a uniform grid
//! rebuilt every frame, parry3d's `Bvh` (the tree inside rapier3d's `BroadPhaseBvh`) updated in
//! place, refitted in full and self-traversed every frame (without rapier's skins and partial
//! refits), and rapier3d's `BroadPhaseBvh`
//! itself through its public API. All report the pairs whose spheres overlap or touch, like
//! `ProximityGrid::pairs`.

use glam::DVec3;
use landfall::bench::{f32_down, f32_up};
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::partitioning::{Bvh, BvhWorkspace};
use rapier3d::prelude::{
    ActiveCollisionTypes, BroadPhaseBvh, BroadPhasePairEvent, ColliderBuilder, ColliderHandle, ColliderSet,
    CollisionPipeline, IntegrationParameters, IslandManager, NarrowPhase, RigidBodySet, Vector,
};
use std::collections::{HashMap, HashSet};

/// Whether two spheres overlap or touch.
#[inline]
pub fn touch(a: (DVec3, f64), b: (DVec3, f64)) -> bool {
    (a.0 - b.0).length_squared() <= (a.1 + b.1) * (a.1 + b.1)
}

/// A uniform grid of square cells over x-y, every sphere in every cell its box meets (a large
/// sphere in many), rebuilt from scratch each frame (the usual game loop's grid).
pub struct UniformGrid {
    cell: f64,
    cells: HashMap<(i64, i64), Vec<u32>>,
    /// Cap on cells per object (1,024; a 1 km sphere in 1 m cells would be a million): larger objects
    /// go to a list every object is tested against.
    max_cells: i64,
    big: Vec<u32>,
    is_big: Vec<bool>,
}

impl UniformGrid {
    /// Cells `cell` wide.
    pub fn new(cell: f64) -> Self {
        Self { cell, cells: HashMap::new(), max_cells: 1024, big: Vec::new(), is_big: Vec::new() }
    }

    /// Every pair of `spheres` (indices) that overlap or touch, each once.
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        for v in self.cells.values_mut() {
            v.clear();
        }
        self.big.clear();
        let key = |x: f64| (x / self.cell).floor() as i64;
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let (i0, i1, j0, j1) = (key(c.x - r), key(c.x + r), key(c.y - r), key(c.y + r));
            if (i1 - i0 + 1) * (j1 - j0 + 1) > self.max_cells {
                self.big.push(k as u32);
                continue;
            }
            for j in j0..=j1 {
                for i in i0..=i1 {
                    self.cells.entry((i, j)).or_default().push(k as u32);
                }
            }
        }
        // A pair is reported in the cell holding the lower corner of the overlap of the two boxes.
        let cell = self.cell;
        for (&(i, j), list) in &self.cells {
            for (x, &a) in list.iter().enumerate() {
                for &b in &list[x + 1..] {
                    let (sa, sb) = (spheres[a as usize], spheres[b as usize]);
                    let lo = (sa.0.x - sa.1).max(sb.0.x - sb.1);
                    let lo_y = (sa.0.y - sa.1).max(sb.0.y - sb.1);
                    if ((lo / cell).floor() as i64, (lo_y / cell).floor() as i64) == (i, j) && touch(sa, sb) {
                        visit(a.min(b), a.max(b));
                    }
                }
            }
        }
        // The large ones against everything (a pair of two large ones once).
        self.is_big.clear();
        self.is_big.resize(spheres.len(), false);
        for &a in &self.big {
            self.is_big[a as usize] = true;
        }
        for &a in &self.big {
            for (k, &s) in spheres.iter().enumerate() {
                let k = k as u32;
                if k != a && !(self.is_big[k as usize] && k < a) && touch(spheres[a as usize], s) {
                    visit(a.min(k), a.max(k));
                }
            }
        }
    }
}

/// parry3d's BVH over the spheres' boxes (f32, rounded outward), kept across frames.
pub struct ParryBvh {
    tree: Bvh,
    workspace: BvhWorkspace,
}

impl Default for ParryBvh {
    fn default() -> Self {
        Self { tree: Bvh::new(), workspace: BvhWorkspace::default() }
    }
}

impl ParryBvh {
    /// Moves the leaves to the spheres' boxes (inserting new ones), refits, and reports every pair
    /// of spheres that overlap or touch, each once.
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let (lo, hi) = (c - DVec3::splat(r), c + DVec3::splat(r));
            let aabb = Aabb::new(
                Vector::new(f32_down(lo.x), f32_down(lo.y), f32_down(lo.z)),
                Vector::new(f32_up(hi.x), f32_up(hi.y), f32_up(hi.z)),
            );
            self.tree.insert_or_update_partially(aabb, k as u32, 0.0);
        }
        self.tree.refit(&mut self.workspace);
        for (a, b) in self.tree.leaf_pairs(&self.tree, |x, y| x.intersects(y)) {
            if a < b && touch(spheres[a as usize], spheres[b as usize]) {
                visit(a, b);
            }
        }
    }
}

/// rapier3d's `BroadPhaseBvh` driven through its public API without the physics pipeline: one
/// parentless ball collider per sphere (f32) in a `ColliderSet`, moved each frame with
/// `Collider::set_translation`, then `BroadPhaseBvh::update` with the moved handles, its
/// `AddPair`/`DeletePair` events kept in a persistent pair set (what a rapier user gets).
///
/// Rapier's set holds more than the touching pairs: every leaf is the collider's AABB loosened by
/// half the prediction distance (0.01 m with the default `IntegrationParameters`), fattened by the
/// change-detection skin (0.04 m) when it moves out of its previous fat box, and a pair leaves the
/// set only once those fat boxes separate. [`RapierBroadPhase::pairs`] reports the pairs of that set
/// whose spheres overlap or touch (the exact f64 test), [`RapierBroadPhase::held`] the whole set.
/// The prediction distance is rapier's default (0.02 m) or, where larger, four units in the last
/// place of the largest f32 coordinate, so that the loosening covers the rounding of centres and
/// boxes (0.125 m over the 1,000 km of `random1m`).
pub struct RapierBroadPhase {
    broad_phase: BroadPhaseBvh,
    params: IntegrationParameters,
    colliders: ColliderSet,
    bodies: RigidBodySet,
    handles: Vec<ColliderHandle>,
    events: Vec<BroadPhasePairEvent>,
    /// The pairs rapier reported added and not yet deleted, by sphere index (lower first).
    held: HashSet<(u32, u32)>,
}

impl RapierBroadPhase {
    /// One ball collider per sphere, sphere `k` the collider of arena index `k`. Parentless colliders
    /// count as fixed, so fixed–fixed pairs are enabled (rapier skips them by default). The
    /// colliders' change flags are crate-private and only rapier's pipelines reset them; one
    /// `CollisionPipeline` step on a scratch broad and narrow phase resets them here, or every
    /// `update` would re-insert every leaf as re-parented.
    pub fn new(spheres: &[(DVec3, f64)]) -> Self {
        let mut colliders = ColliderSet::with_capacity(spheres.len());
        let handles: Vec<ColliderHandle> = spheres
            .iter()
            .enumerate()
            .map(|(k, &(c, r))| {
                let h = colliders.insert(
                    ColliderBuilder::ball(r as f32)
                        .translation(Vector::new(c.x as f32, c.y as f32, c.z as f32))
                        .active_collision_types(ActiveCollisionTypes::all()),
                );
                assert_eq!(h.into_raw_parts().0 as usize, k, "colliders in insertion order");
                h
            })
            .collect();
        let mut bodies = RigidBodySet::new();
        let mut params = IntegrationParameters::default();
        let far = spheres.iter().map(|(c, r)| c.abs().max_element() + r).fold(0.0, f64::max) as f32;
        let predict = params.prediction_distance().max(4.0 * (far.next_up() - far));
        params.normalized_prediction_distance = predict / params.length_unit;
        CollisionPipeline::new().step(
            params.prediction_distance(),
            &mut IslandManager::new(),
            &mut BroadPhaseBvh::new(),
            &mut NarrowPhase::new(),
            &mut bodies,
            &mut colliders,
            &(),
            &(),
        );
        Self {
            broad_phase: BroadPhaseBvh::new(),
            params,
            colliders,
            bodies,
            handles,
            events: Vec::new(),
            held: HashSet::new(),
        }
    }

    /// Moves the colliders to `spheres`' centres (the spheres given to [`Self::new`], in the same
    /// order), updates rapier's broad phase and its pair set, and reports every pair of that set
    /// whose spheres overlap or touch, each once.
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        assert_eq!(spheres.len(), self.handles.len(), "the spheres given to RapierBroadPhase::new");
        for (&h, &(c, _)) in self.handles.iter().zip(spheres) {
            let co = self.colliders.get_mut(h).expect("a live collider");
            co.set_translation(Vector::new(c.x as f32, c.y as f32, c.z as f32));
        }
        self.events.clear();
        self.broad_phase.update(&self.params, &self.colliders, &self.bodies, &self.handles, &[], &mut self.events);
        for e in &self.events {
            let (BroadPhasePairEvent::AddPair(p) | BroadPhasePairEvent::DeletePair(p)) = e;
            let (a, b) = (p.collider1.into_raw_parts().0, p.collider2.into_raw_parts().0);
            let pair = (a.min(b), a.max(b));
            match e {
                BroadPhasePairEvent::AddPair(_) => self.held.insert(pair),
                BroadPhasePairEvent::DeletePair(_) => self.held.remove(&pair),
            };
        }
        for &(a, b) in &self.held {
            if touch(spheres[a as usize], spheres[b as usize]) {
                visit(a, b);
            }
        }
    }

    /// How many pairs rapier's set holds (touching or not).
    pub fn held(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use landfall::support::SplitMix64;
    use std::collections::BTreeSet;

    /// Both peers find exactly the pairs brute force finds, on spheres of sizes spanning four
    /// orders of magnitude (the large ones beyond the grid's cap included).
    #[test]
    fn peers_equal_brute_force() {
        let mut rng = SplitMix64::new(4);
        let spheres: Vec<(DVec3, f64)> = (0..1500)
            .map(|_| {
                let r = 10f64.powf(rng.range(-2.0, 2.0));
                (DVec3::new(rng.range(-300.0, 300.0), rng.range(-300.0, 300.0), rng.range(0.0, 5.0)), r)
            })
            .collect();
        let want = brute_force(&spheres);
        let mut grid = BTreeSet::new();
        UniformGrid::new(2.0).pairs(&spheres, |a, b| assert!(grid.insert((a, b)), "pair twice"));
        assert_eq!(grid, want);
        let mut bvh = BTreeSet::new();
        ParryBvh::default().pairs(&spheres, |a, b| assert!(bvh.insert((a, b)), "pair twice"));
        assert_eq!(bvh, want);
    }

    /// Every touching pair, each once (lower index first).
    pub(crate) fn brute_force(spheres: &[(DVec3, f64)]) -> BTreeSet<(u32, u32)> {
        let mut want = BTreeSet::new();
        for a in 0..spheres.len() {
            for b in a + 1..spheres.len() {
                if touch(spheres[a], spheres[b]) {
                    want.insert((a as u32, b as u32));
                }
            }
        }
        want
    }

    /// rapier's broad phase, filtered by the exact test, finds exactly brute force's pairs on every
    /// frame of spheres of 0.01–100 m moving by up to their own size a frame (so pairs begin and
    /// end, and leaves leave their fat boxes), a tenth of them jumping up to 50 m, from the origin and
    /// 20 km out; its set holds at least those pairs.
    #[test]
    fn rapier_equals_brute_force_over_frames() {
        for (seed, offset) in [(7, DVec3::ZERO), (8, DVec3::new(2e4, -2e4, 0.0))] {
            let mut rng = SplitMix64::new(seed);
            let mut spheres: Vec<(DVec3, f64)> = (0..1200)
                .map(|_| {
                    let r = 10f64.powf(rng.range(-2.0, 2.0)) / 2.0;
                    let c = DVec3::new(rng.range(-200.0, 200.0), rng.range(-200.0, 200.0), rng.range(0.0, 5.0));
                    (offset + c, r)
                })
                .collect();
            let mut rapier = RapierBroadPhase::new(&spheres);
            let mut ended = 0;
            let mut before = BTreeSet::new();
            for frame in 0..12 {
                let want = brute_force(&spheres);
                let mut got = BTreeSet::new();
                rapier.pairs(&spheres, |a, b| assert!(got.insert((a, b)), "pair twice"));
                assert_eq!(got, want, "seed {seed}, frame {frame}");
                assert!(rapier.held() >= want.len());
                ended += before.difference(&want).count();
                before = want;
                for s in &mut spheres {
                    let jump = if rng.uniform() < 0.1 { 50.0 } else { 2.0 * s.1 };
                    s.0 += DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.1, 0.1)) * jump;
                }
            }
            assert!(ended > 0, "no pair ended: pairs ending and beginning again go untested");
        }
    }
}
