//! Roaming entities (the thesis' 4.5 and 4.5.1): a creature that roams a region belongs to its
//! *owner*, the smallest dual cell containing its whole range. The owner exists while the four
//! quad-tree cells it overlaps are in the cache (a dual cell hangs off the quad cell to its upper
//! right). A cell of the finer instantiation level that enters the cache and overlaps the range may
//! bring the entity to life, with a chance drawn from that cell's stream — unless the owner already
//! has it alive: never two copies, whatever the path. When the cell the entity stands in leaves the
//! cache, the entity vanishes and the owner keeps its state; when the owner leaves, the state is
//! forgotten, and the entity comes back later from the owner's stream (a plausible state,
//! deterministically).
//!
//! **In the cache** (4.4): what an owner knows is kept in the slot of the owner level's quad cell to
//! its upper right (the cell whose lower-left corner is the dual cell's centre), addressed as the
//! cache's own cells; when a quad cell leaves the cache, the dual cells at its four corners go with
//! it. No walk over the owners: they follow the windows.

use super::solids::Solids;
use super::spheres::Spheres;
use crate::broad::{Layout, ProximityGrid};
use crate::collide::Shape as ControllerShape;
use crate::collide::{CharacterController, ControllerParams, TerrainSweep};
use crate::params::{count, fraction, length, ParamError};
use crate::rng::{mix, SplitMix64};
use crate::terrain::Terrain;
use crate::torus::Attached;
use crate::world::{CellStore, World};
use glam::{DVec2, DVec3};
use std::collections::HashMap;

/// How roaming entities are made.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Roaming {
    /// Level of the owner cells (dual cells `cell_size · 2^level` wide).
    pub owner_level: u8,
    /// Level of the cells that bring entities to life.
    pub cell_level: u8,
    /// Chance that an owner cell has an entity.
    pub chance: f64,
    /// Chance that a cell entering the cache over an entity's range brings it to life.
    pub spawn_chance: f64,
    /// Radius of an entity's range as a fraction of its owner's width (at most 1/4, so the owner is
    /// the smallest dual cell holding it).
    pub range: f64,
    /// Walking speed, m/s.
    pub speed: f64,
    /// Radius of its capsule (or sphere), m.
    pub radius: f64,
    /// Half the length of its capsule's axis, m (0: a sphere, cheaper to sweep).
    pub half_height: f64,
}

impl Default for Roaming {
    /// Stags: owners of 128 m (1 m finest cells), a range of 32 m around a home, brought to life by
    /// the 16 m cells, walking at 1.5 m/s as a sphere of 0.8 m.
    fn default() -> Self {
        Self {
            owner_level: 7,
            cell_level: 4,
            chance: 0.5,
            spawn_chance: 0.5,
            range: 0.25,
            speed: 1.5,
            radius: 0.8,
            half_height: 0.0,
        }
    }
}

impl Roaming {
    /// Checks every field: `cell_level` ≤ `owner_level` ≤ 40; `chance` and `spawn_chance` in
    /// [0, 1]; `range` in [0.01, 0.25]; `speed` and `half_height` finite and ≥ 0; `radius` finite
    /// and > 0.
    ///
    /// ```
    /// use landfall::world::Roaming;
    ///
    /// assert!(Roaming::default().validate().is_ok());
    /// assert_eq!(Roaming::default().with_range(0.5).validate().unwrap_err().field, "range");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        count("owner_level", self.owner_level.into(), 0..=40)?;
        count("cell_level", self.cell_level.into(), 0..=self.owner_level.into())?;
        fraction("chance", self.chance)?;
        fraction("spawn_chance", self.spawn_chance)?;
        if !(0.01..=0.25).contains(&self.range) {
            return Err(ParamError::new("range", format!("{} is not a fraction in [0.01, 0.25]", self.range)));
        }
        length("speed", self.speed, false)?;
        length("radius", self.radius, true)?;
        length("half_height", self.half_height, false)
    }
}

crate::with_setters!(Roaming {
    owner_level: u8 => with_owner_level,
    cell_level: u8 => with_cell_level,
    chance: f64 => with_chance,
    spawn_chance: f64 => with_spawn_chance,
    range: f64 => with_range,
    speed: f64 => with_speed,
    radius: f64 => with_radius,
    half_height: f64 => with_half_height,
});

/// A roaming entity.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    /// Its owner cell (i, j) at the owner level.
    pub owner: (i64, i64),
    /// The centre of its range (x, y).
    pub home: DVec2,
    /// The radius of its range.
    pub range: f64,
    /// Where its capsule's centre is.
    pub position: DVec3,
    /// Where it walks to.
    pub target: DVec2,
    /// On the ground after its last move.
    pub grounded: bool,
    rng: SplitMix64,
}

/// What one sync did to the entities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoamingStats {
    /// Brought to life from their owner's stream.
    pub spawned: usize,
    /// Brought back from the state their owner kept.
    pub resumed: usize,
    /// Vanished with their cell (state kept by the owner).
    pub vanished: usize,
    /// States forgotten with their owner.
    pub forgotten: usize,
    /// Alive now.
    pub alive: usize,
}

/// What an owner knows of its entity.
#[derive(Clone, Debug)]
enum Owned {
    /// Alive, in this slot.
    Alive(usize),
    /// Not alive; its state when it vanished.
    Kept(Entity),
}

/// The entities of a world.
pub(crate) struct Roamers {
    params: Roaming,
    seed: u64,
    cell_size: f64,
    /// Dual cells of the owner level, for the smallest containing cell.
    dual: ProximityGrid,
    slots: Vec<Option<Entity>>,
    /// What each owner (dual cell of the owner level) knows, hung off its upper-right quad cell.
    owners: Attached<Owned>,
    controller: CharacterController,
}

impl Roamers {
    /// Entities of a world whose cache windows are `width` cells wide (their controller's
    /// parameters checked).
    pub(crate) fn new(params: Roaming, seed: u64, cell_size: f64, width: usize) -> Result<Self, ParamError> {
        let shape = if params.half_height > 0.0 {
            ControllerShape::Capsule { half_height: params.half_height }
        } else {
            ControllerShape::Sphere
        };
        let controller = CharacterController::new(
            ControllerParams { shape, radius: params.radius, ..ControllerParams::default() },
            DVec3::Z,
        )?;
        Ok(Self {
            dual: ProximityGrid::empty(Layout::Dual, cell_size, None),
            params,
            seed,
            cell_size,
            slots: Vec::new(),
            owners: Attached::new(width),
            controller,
        })
    }

    pub(crate) fn cell_level(&self) -> u8 {
        self.params.cell_level
    }

    pub(crate) fn owner_level(&self) -> u8 {
        self.params.owner_level
    }

    /// Quad cell (i, j) of the owner level left the cache: the dual cells at its four corners (each
    /// needs all four quad cells around its centre) go, and their owners forget their entities.
    /// Returns how many were forgotten.
    pub(crate) fn owner_cell_left(&mut self, i: i64, j: i64, movers: &mut Spheres) -> usize {
        let mut forgotten = 0;
        for (oi, oj) in [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)] {
            match self.owners.take(oi, oj) {
                Some(Owned::Alive(slot)) => {
                    self.slots[slot] = None;
                    movers.remove(slot as u32);
                    forgotten += 1;
                }
                Some(Owned::Kept(_)) => forgotten += 1,
                None => {}
            }
        }
        forgotten
    }

    /// The owners that know an entity now (alive or kept).
    pub(crate) fn owners(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.owners.iter().map(|(o, _)| o)
    }

    pub(crate) fn alive(&self) -> impl Iterator<Item = &Entity> {
        self.slots.iter().flatten()
    }

    /// The entity in `slot`, if alive.
    pub(crate) fn get(&self, slot: usize) -> Option<&Entity> {
        self.slots.get(slot)?.as_ref()
    }

    /// Owners with more than one entity alive.
    pub(crate) fn duplicates(&self) -> usize {
        let mut count: HashMap<(i64, i64), usize> = HashMap::new();
        for e in self.alive() {
            *count.entry(e.owner).or_default() += 1;
        }
        count.values().filter(|&&n| n > 1).count()
    }

    fn owner_width(&self) -> f64 {
        self.cell_size * (self.params.owner_level as f64).exp2()
    }

    /// The entity owner cell (I, J) has, fresh from its stream, if it has one.
    fn fresh(&self, (oi, oj): (i64, i64)) -> Option<Entity> {
        const OWNERS: u64 = 0x726f_616d_696e_6721;
        let key = mix(mix(mix(self.seed ^ OWNERS) ^ self.params.owner_level as u64) ^ oi as u64);
        let mut rng = SplitMix64::new(mix(key ^ oj as u64));
        if rng.uniform() >= self.params.chance {
            return None;
        }
        let w = self.owner_width();
        let range = self.params.range * w;
        // The dual cell (I, J) is centred on (I·w, J·w); the range stays inside its middle half.
        let reach = 0.5 * w - range;
        let home = DVec2::new(oi as f64 * w + rng.range(-reach, reach), oj as f64 * w + rng.range(-reach, reach));
        let r = DVec2::splat(range);
        let owner = self.dual.containing_cell(home - r, home + r)?;
        // Enumerated by exactly one owner: the smallest dual cell holding its range.
        if (owner.level, owner.i, owner.j) != (self.params.owner_level as i32, oi, oj) {
            return None;
        }
        let target = home;
        Some(Entity { owner: (oi, oj), home, range, position: home.extend(0.0), target, grounded: false, rng })
    }

    /// Whether owner (I, J) is in the cache: the four owner-level quad cells around its centre are.
    fn owner_cached<S: CellStore>(&self, world: &World<S>, (oi, oj): (i64, i64)) -> bool {
        let l = self.params.owner_level;
        [(oi - 1, oj - 1), (oi, oj - 1), (oi - 1, oj), (oi, oj)].iter().all(|&(i, j)| world.cell(l, i, j).is_some())
    }

    /// The instantiation-level cell holding `p`.
    fn cell_of(&self, p: DVec3) -> (i64, i64) {
        let s = self.cell_size * (self.params.cell_level as f64).exp2();
        ((p.x / s).floor() as i64, (p.y / s).floor() as i64)
    }

    /// After the cache moved (and the owners that left have forgotten, [`owner_cell_left`]):
    /// entities whose cell left vanish (their owner keeps them), and the cells that entered may bring
    /// entities to life.
    ///
    /// [`owner_cell_left`]: Self::owner_cell_left
    pub(crate) fn sync<S: CellStore>(
        &mut self,
        world: &World<S>,
        entered: &[(i64, i64)],
        movers: &mut Spheres,
    ) -> RoamingStats {
        let mut stats = RoamingStats::default();
        let lc = self.params.cell_level;
        // Vanish with the cell.
        for slot in 0..self.slots.len() {
            let Some(e) = &self.slots[slot] else { continue };
            let (i, j) = self.cell_of(e.position);
            if world.cell(lc, i, j).is_none() {
                let e = self.slots[slot].take().expect("alive");
                movers.remove(slot as u32);
                debug_assert!(self.owner_cached(world, e.owner), "an entity outlived its owner");
                self.keep(e.owner, Owned::Kept(e));
                stats.vanished += 1;
            }
        }
        // Come to life in the cells that entered.
        let s = self.cell_size * (lc as f64).exp2();
        let w = self.owner_width();
        for &(i, j) in entered {
            let (x0, y0, x1, y1) = (i as f64 * s, j as f64 * s, (i + 1) as f64 * s, (j + 1) as f64 * s);
            // The owners whose dual cells [(I − ½)w, (I + ½)w) meet the cell.
            let (i0, i1) = ((x0 / w + 0.5).floor() as i64, (x1 / w + 0.5).floor() as i64);
            let (j0, j1) = ((y0 / w + 0.5).floor() as i64, (y1 / w + 0.5).floor() as i64);
            for oj in j0..=j1 {
                for oi in i0..=i1 {
                    self.try_spawn(world, (i, j), (oi, oj), [x0, y0, x1, y1], movers, &mut stats);
                }
            }
        }
        stats.alive = self.alive().count();
        debug_assert!(
            self.owners.iter().all(|(o, _)| self.owner_cached(world, o)),
            "an owner outlived one of its four quad cells"
        );
        stats
    }

    #[allow(clippy::too_many_arguments)]
    fn try_spawn<S: CellStore>(
        &mut self,
        world: &World<S>,
        (i, j): (i64, i64),
        owner: (i64, i64),
        rect: [f64; 4],
        movers: &mut Spheres,
        stats: &mut RoamingStats,
    ) {
        if matches!(self.owners.get(owner.0, owner.1), Some(Owned::Alive(_))) || !self.owner_cached(world, owner) {
            return;
        }
        let Some(fresh) = self.fresh(owner) else { return };
        // Does the range meet the cell?
        let nearest = fresh.home.clamp(DVec2::new(rect[0], rect[1]), DVec2::new(rect[2], rect[3]));
        if nearest.distance(fresh.home) > fresh.range {
            return;
        }
        // The cell's own chance, from its stream.
        const SPAWN: u64 = 0x7370_6177_6e21;
        let lc = self.params.cell_level as u64;
        let u = SplitMix64::new(mix(mix(mix(mix(self.seed ^ SPAWN) ^ lc) ^ i as u64)
            ^ j as u64
            ^ mix(owner.0 as u64)
            ^ owner.1 as u64))
        .uniform();
        if u >= self.params.spawn_chance {
            return;
        }
        let mut e = match self.owners.take(owner.0, owner.1) {
            Some(Owned::Kept(e)) => {
                stats.resumed += 1;
                e
            }
            _ => {
                stats.spawned += 1;
                // Where the range meets the cell, on the ground.
                let mut e = fresh;
                let centre = DVec2::new(0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3]));
                let p = nearest + (centre - nearest) * 0.05;
                let ground = world.top_surface(p.extend(0.0)).map_or(0.0, |s| s.point.z);
                e.position = p.extend(ground + self.params.radius + self.params.half_height + 0.05);
                e.target = p;
                e
            }
        };
        // Its cell must be in the cache (a kept state may lie in a cell that is not).
        let (ci, cj) = self.cell_of(e.position);
        if world.cell(self.params.cell_level, ci, cj).is_none() {
            self.keep(owner, Owned::Kept(e));
            return;
        }
        e.grounded = false;
        let slot = match self.slots.iter().position(|s| s.is_none()) {
            Some(k) => k,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        movers.set(slot as u32, e.position, self.bounding_radius());
        self.slots[slot] = Some(e);
        self.keep(owner, Owned::Alive(slot));
    }

    /// Owner (I, J), in the cache, knows `what`.
    fn keep(&mut self, (oi, oj): (i64, i64), what: Owned) {
        let stale = self.owners.insert(oi, oj, what);
        debug_assert!(stale.is_none_or(|(at, _)| at == (oi, oj)), "an owner outlived its cells");
    }

    fn bounding_radius(&self) -> f64 {
        self.params.radius + self.params.half_height
    }

    /// Each entity's move for `dt`: toward its target (a new one, inside its range, when reached),
    /// with the character controller on the terrain and the objects.
    pub(crate) fn plan(&mut self, solids: &Solids<'_>, dt: f64) -> Vec<(usize, DVec3, bool)> {
        let target = TerrainSweep(solids);
        let mut out = Vec::new();
        for (slot, e) in self.slots.iter_mut().enumerate() {
            let Some(e) = e else { continue };
            let to = e.target - e.position.truncate();
            if to.length() < 1.0 {
                let (a, r) = (e.rng.range(0.0, std::f64::consts::TAU), e.range * e.rng.uniform().sqrt() * 0.9);
                e.target = e.home + DVec2::new(a.cos(), a.sin()) * r;
            }
            let dir = (e.target - e.position.truncate()).normalize_or_zero();
            let desired = (dir * self.params.speed * dt).extend(-9.81 * dt * dt.max(0.05));
            let m = self.controller.move_by(&target, e.position, desired, e.grounded);
            out.push((slot, m.position, m.grounded));
        }
        out
    }

    /// Applies the planned moves.
    pub(crate) fn apply(&mut self, moves: Vec<(usize, DVec3, bool)>, movers: &mut Spheres) {
        let r = self.bounding_radius();
        for (slot, p, grounded) in moves {
            if let Some(e) = &mut self.slots[slot] {
                e.position = p;
                e.grounded = grounded;
                movers.set(slot as u32, p, r);
            }
        }
    }
}
