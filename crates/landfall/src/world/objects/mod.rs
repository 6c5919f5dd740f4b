//! Things in the endless world (the thesis' 2.4.2–2.4.3 and chapter 4): objects generated per cell
//! from the cell's own random stream, kept exactly while their cell is in the nested cache, found
//! near each other through their cells, and solid to the character controller and
//! to rays; and roaming entities that exist once whatever the path ([`roam`]).
//!
//! **Per cell.** Each [`Kind`] lives on the level whose cells are at least four times its size
//! (stones on 2 m cells, halls on 512 m ones with 1 m finest cells). A cell's objects come from a
//! stream hashed from (seed, level, i, j, kind) — never from a sequence, so the same cell yields the
//! same objects however the viewer got there. Whether an object may stand is decided by
//! [`place`](crate::place()) on its own level's landscape (no footprint on ground steeper than its
//! kind allows), so the objects do not depend on where the viewer is; it stands on the landscape of
//! the finest level drawn (the drawn mesh itself around the viewer; within the finer levels' offsets
//! of the morphing mesh farther out), and stands again on the new one when that level changes. Both
//! landscapes are read from the cache's cells, refined from the nearest ancestors it holds where it
//! does not hold them ([`LodTerrain`]'s fans over the generator's own cells, bit for bit). The
//! cell's height and roughness set the density (no trees above the tree line, more boulders on rough
//! ground).
//!
//! **With the cache.** [`Objects::sync`] follows the world after each update: a level's objects
//! are those of the cells in its layer's window while the layer is active; the cells a window
//! gained generate theirs, the cells it lost drop theirs (two rows per shifted layer, like the
//! terrain).
//!
//! **Near each other.** Every object and entity is a sphere: the objects' are found through the
//! cells that made them (each level's window, as the cache holds it), the entities' in a
//! [`BroadPhase`](crate::broad::BroadPhase) (the thesis' dual levels as sorted arrays); pairs,
//! boxes and rays.
//!
//! **Solid.** An object's collision shape is a sphere, an upright column or an upright box, made of
//! the triangles that stand for it ([`Shape`]); [`Solids`] is the world's terrain with them, a
//! [`Terrain`](crate::Terrain) like any other, so the character controller stops at a tree and a
//! ray from the camera hits a house.
//!
//! # How it works
//!
//! `Objects` fills the procedural world around the viewer (the thesis' 2.4.2–2.4.3, chapter 4):
//!
//! - **Kinds on their levels.** Five kinds by default — stones (0.1–0.4 m), trees (2–4 m crowns, 6–16 m
//!   trunks), boulders (1–5 m), houses (8–25 m), halls (40–100 m) — each on the level whose cells are at
//!   least four times its size (levels 1, 4, 5, 7, 9 with 1 m finest cells).
//! - **Per cell, from the cell's own stream.** A cell's objects come from a SplitMix64 stream hashed
//!   from (seed, level, i, j, kind) with a tag the terrain's keys never carry, so the same cell gives
//!   the same objects bit for bit whatever path brought the viewer there (tested against a fresh world
//!   after 400 frames of walking and teleporting). The cell's height and roughness set the density
//!   (trees below 45 % of the largest height, houses below 30 %, more boulders on rough ground); each
//!   object is allowed by `place` on its own level's landscape (a footprint of its size, refused on
//!   ground steeper than its kind's limit: 12° for houses, 30° for trees), and set on the landscape
//!   of the finest drawn level (`World::drawn_layers`), which is the drawn mesh itself around the
//!   viewer and within the finer levels' offsets of it farther out; buildings carry their base below
//!   the lowest corner of their footprint. When the finest drawn level changes (the viewer climbs or
//!   comes down a layer), every object stands again on the new one: a viewer in the air sees its
//!   objects on the coarse ground it draws. The landscapes come from a *footing* (`footing.rs`): the
//!   cells around the object, read from the cache's layer where it holds them and otherwise refined
//!   from the nearest ancestors it holds (`refine.rs`, which keeps the quads it refined outside
//!   the cache for the next objects), never from the top level, and kept for the next object while
//!   it covers that one's square (forgotten at each sync); the
//!   same bits as `LodTerrain`'s (tested object for object). Tested after random walks, climbs,
//!   descents and jumps: every object on the brute-force ground of the finest drawn level, on the
//!   drawn mesh where it is not morphed, and the same objects as a fresh world's at the same place
//!   (bit for bit where the same level is drawn).
//! - **With the cache.** `Objects::sync` follows the world after each update: a level's objects are
//!   exactly those of the cells in its layer's window while the layer is active; cells that enter
//!   generate theirs, cells that leave drop theirs. A cell's objects are kept in the slot of that cell,
//!   in a toroidal array addressed as the cache's own cells, so the walk that finds the cells a window
//!   gained and lost is the only bookkeeping.
//! - **Found by their cells.** The objects never move, and each is listed in the slot of its cell:
//!   a query (`statics.rs`) visits, on each followed level, the window's cells whose squares,
//!   widened by how far any sphere of that level has stood out of its cell, meet it (a ray: row
//!   after row in the ray's order, stopping once a row begins beyond the best hit), and tests each
//!   of their spheres exactly. A cell coming or going costs nothing but writing or forgetting its
//!   spheres: no broad phase to sort (on the jet's path, where a few dozen objects change a frame
//!   among 2,000, a broad phase merged and sorted every few frames cost about the world's update).
//!   Their pairs among themselves are found once (a query per object) and then kept, each sync
//!   dropping the pairs of the objects it dropped and querying those of the objects it made. The
//!   entities, which move every step, are in a `BroadPhase`: their pairs by its search, and their
//!   pairs with the objects by one sphere query each. `Objects::pairs` reports all three, as ids
//!   (an object's slot; an entity's slot + 2⁴⁰, `Objects::entity`).
//! - **Solid.** A collision shape is a ball (an icosahedron), an upright column (an octagonal prism, for
//!   trunks) or an upright box, as triangles. `Solids` (from `Objects::solids`) is the world with them,
//!   a `Terrain` like any other: vertical queries see roofs, rays hit walls (the ray walks the cells'
//!   bounding spheres row by row and tests each met object's own triangles; equal to brute force over every triangle in the tests), and the character
//!   controller, through `TerrainSweep`, collides with trunks and walls (a walker stops at a tree,
//!   tested).
//! - **Roaming entities** (4.5.1, `objects::roam`). An owner dual cell of level 7 (128 m) has an entity
//!   with some chance, its range a disc of a quarter of the owner's width inside the owner's middle
//!   half, so the owner is the smallest dual cell holding the range (checked with
//!   `containing_cell`). The owner exists while the four level-7 quad cells around its centre are in the
//!   cache, and what it knows (its entity alive, or the state it kept) hangs off the quad cell to its
//!   upper right, as the thesis' 4.4 stores dual cells: quad cell (I, J), whose lower-left corner is the
//!   dual cell's centre, keeps it in its slot. When a quad cell leaves, the dual cells at its four
//!   corners go with it (the left column and bottom row of a window have none), so owners follow the
//!   windows without a walk of their own (`tests/world_objects.rs`: over a walk that moves the owners'
//!   window 16 m cells at a time, every owner that knows something has its four quad cells cached). A level-4 cell entering the cache
//!   over the range brings the entity to life with a chance from that cell's stream, unless its owner
//!   has it alive — so never two copies. When the cell it stands in leaves the cache the entity
//!   vanishes and the owner keeps its state; when the owner leaves, the state is forgotten, and the
//!   entity comes back later fresh from the owner's stream. Entities walk inside their ranges with the
//!   character controller on `Solids` and are in the entities' broad phase. Tested over random walks and
//!   teleports: no duplicate at any frame; every stage of the life cycle seen; the same path gives the
//!   same entities.
//!
//! (picture: `docs/world-objects.png`)
//!
//! The procedural world around a viewer at the origin, 600 m across (`cargo run --release -p
//! landfall-cli --example world_objects`): trees (green), boulders (dark), stones (the grey cloud
//! around the viewer, in the finest layers' window), houses and halls (orange, purple); the level-7
//! dual cells (lines), each entity's range (circle) in its owner cell, and the entities after a minute
//! of walking (red dots).
//!
//! `landfall world --objects` runs it along the viewer's paths and prints, per path, the objects made
//! and dropped per frame, the pairs, the entities alive and the duplicates (always 0), and draws the
//! objects in both pictures.
//!
//! Not built: objects stand on the finest drawn level's landscape, not on the morphing mesh of the
//! coarser layers farther out.

mod footing;
mod kinds;
mod refine;
mod roam;
mod shape;
mod solids;
mod spheres;
mod statics;

/// A small world (12 levels, 80 m relief) for the objects' unit tests.
#[cfg(test)]
fn test_world(seed: u64, viewer: glam::DVec3) -> crate::world::World {
    use crate::world::{CacheParams, WorldParams};
    let params = WorldParams::default().with_seed(seed).with_levels(12).with_relief(80.0);
    let cache = CacheParams::default().with_layers(10).with_inner_radius(4).with_mesh_coarsest(8).with_lod_height(4.0);
    crate::world::World::new(params, cache, viewer).unwrap()
}

pub use kinds::{cell_stream, default_kinds, Form, Kind};
pub use roam::{Entity, Roaming, RoamingStats};
pub use shape::Shape;
pub use solids::Solids;

use crate::params::ParamError;
use crate::world::{CellStore, World};
use footing::Footing;
use refine::Refiner;
use spheres::Spheres;
use statics::{Statics, Tracked};

/// What fills the world.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ObjectParams {
    /// The kinds of objects (default [`default_kinds`]).
    pub kinds: Vec<Kind>,
    /// Roaming entities (default [`Roaming::default`]); `None` for none.
    pub roaming: Option<Roaming>,
}

impl Default for ObjectParams {
    fn default() -> Self {
        Self { kinds: default_kinds(), roaming: Some(Roaming::default()) }
    }
}

impl ObjectParams {
    /// Checks every field: at most 65,536 kinds, each valid ([`Kind::validate`]), and the
    /// roaming entities' parameters ([`Roaming::validate`]). The error's field is `kinds` or
    /// `roaming`; its reason names the kind and its field.
    ///
    /// ```
    /// use landfall::world::{ObjectParams, Roaming};
    ///
    /// assert!(ObjectParams::default().validate().is_ok());
    /// let e = ObjectParams::default().with_roaming(Some(Roaming::default().with_speed(-1.0))).validate().unwrap_err();
    /// assert_eq!(e.to_string(), "roaming: speed: -1 is not a finite length ≥ 0");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.kinds.len() > 1 << 16 {
            return Err(ParamError::new("kinds", format!("{} kinds (at most 65536)", self.kinds.len())));
        }
        for (k, kind) in self.kinds.iter().enumerate() {
            kind.validate().map_err(|e| ParamError::new("kinds", format!("kind {k} ({}): {e}", kind.name)))?;
        }
        if let Some(r) = &self.roaming {
            r.validate().map_err(|e| ParamError::new("roaming", e.to_string()))?;
        }
        Ok(())
    }
}

crate::with_setters!(ObjectParams {
    kinds: Vec<Kind> => with_kinds,
    roaming: Option<Roaming> => with_roaming,
});

/// One object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Object {
    /// Index of its kind.
    pub kind: u16,
    /// The level and cell it belongs to.
    pub level: u8,
    /// The cell (i, j) at that level.
    pub cell: (i64, i64),
    /// Its collision shape.
    pub shape: Shape,
}

/// What one [`Objects::sync`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Cells whose objects were generated.
    pub cells_entered: usize,
    /// Cells whose objects were dropped.
    pub cells_left: usize,
    /// Objects generated.
    pub generated: usize,
    /// Objects dropped.
    pub dropped: usize,
    /// Roaming entities.
    pub roaming: RoamingStats,
}

/// Ids at and above this in the grid are roaming entities.
pub(crate) const ENTITY_IDS: u64 = 1 << 40;

/// The objects of the cells in a world's cache.
///
/// ```
/// use landfall::glam::DVec3;
/// use landfall::world::{CacheParams, ObjectParams, Objects, World, WorldParams};
///
/// let params = WorldParams::default().with_levels(8).with_cell_size(2.0);
/// let cache = CacheParams::default().with_layers(5).with_inner_radius(4).with_mesh_coarsest(4);
/// let mut world: World = World::new(params, cache, DVec3::new(0.0, 0.0, 100.0))?;
/// let mut objects = Objects::new(&world, ObjectParams::default())?;
/// world.update(DVec3::new(200.0, 0.0, 100.0))?;
/// objects.sync(&world); // the cells that came into the cache bring their objects
/// objects.step(&world, 0.1);
/// println!("{} objects around the viewer", objects.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Objects {
    kinds: Vec<Kind>,
    /// Each kind's level.
    levels: Vec<u8>,
    seed: u64,
    max_height: f64,
    /// The level whose landscape the objects stand on: the finest drawn at the last sync.
    ground: u8,
    slots: Vec<Option<Object>>,
    free: Vec<u32>,
    /// The levels followed (the kinds', the entities' instantiation and owner levels), finest first.
    tracked: Vec<Tracked>,
    /// The objects' bounding spheres, by slot, found through the cells of `tracked`.
    statics: Statics,
    /// Their pairs among themselves (`None` until first asked for), kept up to date by each sync.
    static_pairs: Option<Vec<(u32, u32)>>,
    /// The slots a sync dropped and generated (scratch).
    dropped: Vec<u32>,
    added: Vec<u32>,
    /// The entities' bounding spheres, by entity slot.
    movers: Spheres,
    roam: Option<roam::Roamers>,
    scratch: Vec<Shape>,
    /// The ground under the object being placed, drawn and of its own level (scratch).
    footing: Footing,
    own: Footing,
    /// The quads refined for the footings outside the cache, kept for the next ones.
    refiner: Refiner,
}

impl Objects {
    /// The objects of `world`'s cache now; refuses invalid `params` ([`ObjectParams::validate`]).
    pub fn new<S: CellStore>(world: &World<S>, params: ObjectParams) -> Result<Self, ParamError> {
        params.validate()?;
        let gen = world.generator();
        let cell_size = gen.params().cell_size;
        let levels: Vec<u8> = params.kinds.iter().map(|k| k.level(cell_size)).collect();
        let ground = drawn(world);
        let roam =
            params.roaming.map(|r| roam::Roamers::new(r, gen.params().seed, cell_size, world.width())).transpose()?;
        let mut followed = levels.clone();
        if let Some(r) = &roam {
            followed.extend([r.cell_level(), r.owner_level()]);
        }
        followed.sort_unstable();
        followed.dedup();
        let tracked =
            followed.into_iter().map(|level| Tracked::new(level, gen.cell_width(level), world.width())).collect();
        // The entities' broad phase: its finest cells a quarter of the finest cells, levels 4 apart.
        let unit = cell_size / 4.0;
        let mut o = Self {
            kinds: params.kinds,
            levels,
            seed: gen.params().seed,
            max_height: gen.max_abs_height(),
            ground,
            slots: Vec::new(),
            free: Vec::new(),
            tracked,
            statics: Statics::new(world.width()),
            static_pairs: None,
            dropped: Vec::new(),
            added: Vec::new(),
            movers: Spheres::new(unit),
            roam,
            scratch: Vec::new(),
            footing: Footing::new(),
            own: Footing::new(),
            refiner: Refiner::new(),
        };
        o.sync(world);
        Ok(o)
    }

    /// The kinds.
    pub fn kinds(&self) -> &[Kind] {
        &self.kinds
    }

    /// Number of objects held.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every object held, with its slot.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Object)> {
        self.slots.iter().enumerate().filter_map(|(k, o)| o.as_ref().map(|o| (k as u32, o)))
    }

    /// The object in `slot`, if any.
    pub fn get(&self, slot: u32) -> Option<&Object> {
        self.slots.get(slot as usize)?.as_ref()
    }

    /// The roaming entities alive now.
    pub fn entities(&self) -> impl Iterator<Item = &Entity> {
        self.roam.iter().flat_map(|r| r.alive())
    }

    /// The entity with id `id` as [`pairs`](Self::pairs) gives it (its slot plus 2⁴⁰), if alive.
    pub fn entity(&self, id: u64) -> Option<&Entity> {
        let slot = usize::try_from(id.checked_sub(ENTITY_IDS)?).ok()?;
        self.roam.as_ref()?.get(slot)
    }

    /// The owner cells (dual cells (I, J) of [`Roaming::owner_level`], centred on the quad-cell corner
    /// (I, J)) that know an entity now, alive or kept: each exists while the four quad cells around
    /// its centre are in the cache, and its knowledge is kept in the slot of the quad cell to its
    /// upper right.
    pub fn owners(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.roam.iter().flat_map(|r| r.owners())
    }

    /// Roaming entities alive more than once (must be 0).
    pub fn duplicates(&self) -> usize {
        self.roam.as_ref().map_or(0, |r| r.duplicates())
    }

    /// Every pair of objects or entities whose bounding spheres overlap or touch, each once, as
    /// ids: an object's slot, an entity's slot plus 2⁴⁰ (lower id first). The objects' pairs among
    /// themselves are found once and then kept by each [`sync`](Self::sync) (a query per object it
    /// made); the entities' with each other by the broad phase, and with the objects by a query each.
    pub fn pairs(&mut self, mut visit: impl FnMut(u64, u64)) {
        let (statics, tracked) = (&self.statics, &self.tracked);
        let found = self.static_pairs.get_or_insert_with(|| {
            let mut v = Vec::new();
            statics.pairs(tracked, |a, b| v.push((a, b)));
            v
        });
        for &(a, b) in found.iter() {
            visit(a.into(), b.into());
        }
        self.movers.pairs(|a, b| visit(ENTITY_IDS + u64::from(a), ENTITY_IDS + u64::from(b)));
        for (e, c, r) in self.movers.iter() {
            self.statics.within_radius(&self.tracked, c, r, |s| visit(s.into(), ENTITY_IDS + u64::from(e)));
        }
    }

    /// Calls `visit(id)` for every object and entity whose bounding sphere meets the sphere of
    /// `radius` around `p` (touching counts), ids as [`pairs`](Self::pairs) gives them: objects
    /// first, then entities. Nothing for a `p` or `radius` that is not finite or a negative radius.
    pub fn within_radius(&self, p: glam::DVec3, radius: f64, mut visit: impl FnMut(u64)) {
        self.statics.within_radius(&self.tracked, p, radius, |s| visit(s.into()));
        self.movers.within_radius(p, radius, |e| visit(ENTITY_IDS + u64::from(e)));
    }

    /// The world's terrain with these objects standing on it.
    pub fn solids<'a>(&'a self, terrain: &'a dyn crate::Terrain) -> Solids<'a> {
        Solids::new(terrain, self)
    }

    /// Follows `world`'s cache after an update: the cells that entered generate their objects, the
    /// cells that left drop theirs; roaming entities appear and vanish with their cells, and their
    /// owners (dual cells hung off the cache's cells) go with the cells they need.
    pub fn sync<S: CellStore>(&mut self, world: &World<S>) -> SyncStats {
        let mut stats = SyncStats::default();
        let w = world.width() as i64;
        self.footing.forget();
        self.own.forget();
        let mut entered_roam: Vec<(i64, i64)> = Vec::new();
        let mut forgotten = 0;
        for t in 0..self.tracked.len() {
            let level = self.tracked[t].level;
            let now = window(world, level);
            let before = self.tracked[t].window;
            if now == before {
                continue;
            }
            let owners = self.roam.as_ref().is_some_and(|r| r.owner_level() == level);
            for_cells_in(before, now, w, |i, j| {
                stats.cells_left += 1;
                stats.dropped += self.drop_cell(t, i, j);
                if owners {
                    if let Some(r) = &mut self.roam {
                        forgotten += r.owner_cell_left(i, j, &mut self.movers);
                    }
                }
            });
            let spawns = self.roam.as_ref().is_some_and(|r| r.cell_level() == level);
            for_cells_in(now, before, w, |i, j| {
                stats.cells_entered += 1;
                stats.generated += self.generate_cell(world, t, i, j);
                if spawns {
                    entered_roam.push((i, j));
                }
            });
            self.tracked[t].window = now;
        }
        // The drawn ground changed level (the viewer climbed or came down): every object stands
        // again on the new one.
        let ground = drawn(world);
        if ground != self.ground {
            self.ground = ground;
            for t in 0..self.tracked.len() {
                for_cells_in(self.tracked[t].window, None, w, |i, j| {
                    stats.dropped += self.drop_cell(t, i, j);
                    stats.generated += self.generate_cell(world, t, i, j);
                });
            }
        }
        if let Some(mut r) = self.roam.take() {
            stats.roaming = r.sync(world, &entered_roam, &mut self.movers);
            stats.roaming.forgotten += forgotten;
            self.roam = Some(r);
        }
        self.update_static_pairs();
        stats
    }

    /// Moves the roaming entities by `dt` seconds (walking on the terrain and around the objects,
    /// within their ranges).
    pub fn step<S: CellStore>(&mut self, world: &World<S>, dt: f64) {
        if let Some(mut r) = self.roam.take() {
            let moves = {
                let solids = Solids::new(world, self);
                r.plan(&solids, dt)
            };
            r.apply(moves, &mut self.movers);
            self.roam = Some(r);
        }
    }

    /// After a sync: the dropped objects' pairs go, the generated ones' are found by a query each
    /// (a pair of two new objects once, from the lower slot).
    fn update_static_pairs(&mut self) {
        let (added, dropped) = (&mut self.added, &mut self.dropped);
        if let Some(pairs) = &mut self.static_pairs {
            // A slot can go and come back in one sync (its cell stood again on a new ground).
            dropped.sort_unstable();
            dropped.dedup();
            added.sort_unstable();
            added.dedup();
            if !dropped.is_empty() {
                pairs.retain(|(a, b)| dropped.binary_search(a).is_err() && dropped.binary_search(b).is_err());
            }
            for &a in added.iter() {
                let Some((c, r)) = self.statics.get(a) else { continue };
                self.statics.within_radius(&self.tracked, c, r, |b| {
                    if b != a && (b > a || added.binary_search(&b).is_err()) {
                        pairs.push((a.min(b), a.max(b)));
                    }
                });
            }
        }
        added.clear();
        dropped.clear();
    }

    fn drop_cell(&mut self, t: usize, i: i64, j: i64) -> usize {
        let Some(list) = self.tracked[t].objects.take(i, j) else { return 0 };
        for &s in &list {
            self.slots[s as usize] = None;
            self.free.push(s);
            self.dropped.push(s);
            self.statics.remove(s);
        }
        list.len()
    }

    fn generate_cell<S: CellStore>(&mut self, world: &World<S>, t: usize, i: i64, j: i64) -> usize {
        let level = self.tracked[t].level;
        let Some(cell) = world.cell(level, i, j) else { return 0 };
        let s = world.generator().cell_width(level);
        let mut list = Vec::new();
        for (kind, spec) in self.kinds.iter().enumerate() {
            if self.levels[kind] != level {
                continue;
            }
            let mut shapes = std::mem::take(&mut self.scratch);
            shapes.clear();
            let (ground, top) = (self.ground, self.max_height);
            let (footing, own, refiner) = (&mut self.footing, &mut self.own, &mut self.refiner);
            kinds::draw_in_cell(spec, kind, self.seed, level, (i, j), s, cell, top, |d| {
                // Allowed on its own level's ground, then set on the drawn ground (not made for an
                // object refused).
                let own_slope = (level != ground)
                    .then(|| kinds::slope_on(spec, &d, own.reset(refiner, world, level, d.x, d.y, d.reach()), top));
                if own_slope == Some(None) {
                    return;
                }
                let f = footing.reset(refiner, world, ground, d.x, d.y, d.reach());
                if let Some(slope) = own_slope.unwrap_or_else(|| kinds::slope_on(spec, &d, f, top)) {
                    shapes.extend(kinds::shape_on(spec, &d, slope, f));
                }
            });
            for &shape in &shapes {
                let slot = match self.free.pop() {
                    Some(s) => s,
                    None => {
                        self.slots.push(None);
                        (self.slots.len() - 1) as u32
                    }
                };
                self.slots[slot as usize] = Some(Object { kind: kind as u16, level, cell: (i, j), shape });
                let (c, r) = shape.bounding_sphere();
                self.statics.set(&mut self.tracked[t], (i, j), slot, c, r);
                list.push(slot);
                self.added.push(slot);
            }
            self.scratch = shapes;
        }
        let n = list.len();
        if n > 0 {
            let stale = self.tracked[t].objects.insert(i, j, list);
            debug_assert!(stale.is_none(), "a cell's objects outlived it");
        }
        n
    }
}

/// The level objects stand on: the finest drawn now.
fn drawn<S: CellStore>(world: &World<S>) -> u8 {
    (*world.drawn_layers().start()).min(world.generator().top())
}

/// The window origin of layer `level` now, `None` when it is inactive or beyond the cache.
fn window<S: CellStore>(world: &World<S>, level: u8) -> Option<[i64; 2]> {
    if level as usize >= world.cache_params().layers as usize {
        return None;
    }
    let o = world.window_origin(level);
    world.cell(level, o[0], o[1]).map(|_| o)
}

/// Calls `f(i, j)` for every cell of window `a` that is not in window `b` (windows `w` wide), row
/// after row, each from west to east.
fn for_cells_in(a: Option<[i64; 2]>, b: Option<[i64; 2]>, w: i64, mut f: impl FnMut(i64, i64)) {
    let Some(a) = a else { return };
    for j in a[1]..a[1] + w {
        // The row's cells within b: none, or the columns b and a share.
        let (x0, x1) = match b {
            Some(b) if (b[1]..b[1] + w).contains(&j) => (b[0].max(a[0]), (b[0] + w).min(a[0] + w)),
            _ => (a[0], a[0]),
        };
        for i in (a[0]..x0.min(a[0] + w)).chain(x1.max(x0).max(a[0])..a[0] + w) {
            f(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_cells_in;

    /// The cells of one window not in another, in row order: as a test of every cell of the first,
    /// for windows apart, overlapping, equal and missing.
    #[test]
    fn cells_in_one_window_not_another() {
        let mut rng = crate::rng::SplitMix64::new(9);
        for k in 0..2000 {
            let w = 1 + (k % 7) as i64;
            let a = [rng.range(-10.0, 10.0) as i64, rng.range(-10.0, 10.0) as i64];
            let b = (k % 5 != 0).then(|| [a[0] + rng.range(-9.0, 9.0) as i64, a[1] + rng.range(-9.0, 9.0) as i64]);
            let mut got = Vec::new();
            for_cells_in(Some(a), b, w, |i, j| got.push((i, j)));
            let inside =
                |i: i64, j: i64| b.is_some_and(|b| (b[0]..b[0] + w).contains(&i) && (b[1]..b[1] + w).contains(&j));
            let want: Vec<_> = (a[1]..a[1] + w)
                .flat_map(|j| (a[0]..a[0] + w).map(move |i| (i, j)))
                .filter(|&(i, j)| !inside(i, j))
                .collect();
            assert_eq!(got, want, "a {a:?} b {b:?} w {w}");
        }
    }
}
