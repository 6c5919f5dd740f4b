//! An endless procedural world kept around a moving viewer (the thesis `004`, chapters 2–3 and
//! 6.3): a generator ([`Generator`]), a nested level-of-detail cache of cells around the viewer with
//! incremental and absolute updates and hysteresis, a crack-free mesh of the cache rebuilt region
//! by region ([`LayerMesh`]), and queries on the drawn mesh through the [`Terrain`](crate::Terrain)
//! trait, plus on-demand terrain at any level away from the cache ([`LodTerrain`]).
//!
//! **Layers.** Layer k holds a `width × width` window of level-k cells (`width = 4 · inner
//! radius`). A window always starts on an even cell, so it is made of whole parent cells, and the
//! window of layer k − 1 covers the middle half of layer k's (its *center*), offset by one cell at
//! most either way: the nine configurations of the thesis' figure 3.8. Layer k's window is placed by
//! `m_k`, the index of the level-(k+1) corner nearest the viewer: origin `2·m_k − width/2`.
//!
//! **Updates.** With `q = floor(2·x / cell_size)` (the viewer at twice the finest resolution), a
//! step of q to q + 1 shifts layer `trailing_zeros(q + 1) − 1` by one parent cell, and a step to
//! q − 1 shifts layer `trailing_zeros(q) − 1` (none when that is negative or above the cache): the
//! thesis' lowest-set-bit rule (3.3.6), used when the viewer moved at most half a finest cell per
//! axis and hysteresis is off. Otherwise every layer's window is recomputed (the absolute update,
//! steps 1–6 of 3.3.6), with hysteresis (3.5): a layer moves only once the viewer is more than
//! `hysteresis` parent cells past the boundary. Either way a moved layer generates only the cells its
//! window gained — two rows per step — from its parent layer, coarsest first.
//!
//! **Depth.** The finest active layer follows the viewer's height above the ground:
//! `floor(log2(height / lod_height))`, changed only when the height leaves that band by a quarter
//! octave; layers below it hold no cells.
//!
//! **Large coordinates.** Cells are addressed by integer index; mesh vertices are f32 relative to
//! their layer's window origin (an f64), so precision near the viewer does not depend on the
//! distance from the world origin.
//!
//! # How it works
//!
//! The thesis `004` (chapters 2, 3 and 6.3). `World::new(WorldParams, CacheParams, viewer)` builds the
//! cache around a viewer; `update(viewer)` moves it; `meshes()` gives the vertex and index buffers;
//! the world is a `Terrain` on the mesh that is drawn.
//!
//! **Generator** (`gen.rs`). Level k cells are `cell_size · 2^k` wide; cell (i, j) spans
//! [i·s, (i+1)·s). The top level (`levels − 1`, 32 km cells by default) is hashed directly; a finer cell
//! is the bi-quadratic through the nine parent midpoints around its parent evaluated at ±¼ (the table
//! `STENCIL` is eq. 2.3, applied separably with the 1-D weights (5, 30, −3)/32 of eq. 2.2), plus an
//! offset `relief · 2^(−(top−k)·hurst) · 2^r · u`. `u` ∈ [−1, 1) comes from the SplitMix64 finaliser of
//! (i, j) packed into 64 bits xor a per-level key made from the seed — never a sequential stream — so
//! any cell depends only on its ancestors and is bitwise the same in any order and on any thread
//! (tested). `r` is the roughness: a second channel subdivided the same way with its own offsets on the
//! top 8 levels only, so it varies over kilometres and plains, hills and mountains alternate
//! (Musgrave's suggestion in 2.4.1). Cell corners are the mean of the four midpoints around them
//! (3.3.4). `patch` generates any rectangle at any level through just the ancestors it needs;
//! `corner_grid` turns one into heightfield samples (the demo's terrain).
//!
//! **Layers and windows** (`mod.rs`). Layer k holds a `4·inner_radius`-cell square window of level-k
//! cells. Windows start on even cells (whole parent cells), and layer k − 1's window is the middle half
//! of layer k's, give or take one cell: its offset `c` in the parent is one of 9 (figure 3.8). Window
//! k is placed by `m_k`, the level-(k+1) corner nearest the viewer: `m_k = (q + 2^(k+1)) >> (k+2)` with
//! `q = floor(2x / cell_size)`, origin `2·m_k − width/2`. Nesting holds for any viewer position, and
//! with hysteresis η < 1/6 (a layer keeps `m_k` while the viewer is within ½ + η parent cells of it,
//! 3.5), because |m_{k−1} − 2·m_k| ≤ 1.5 + 3η < 2.
//!
//! **Updates.** When q steps by one (and hysteresis is off) only one layer can move: stepping up to q',
//! layer `trailing_zeros(q') − 1`; stepping down from q, layer `trailing_zeros(q) − 1` (3.3.6; tested
//! against the window formula for every step). Otherwise every window is recomputed (the absolute
//! update; `teleport` does it without hysteresis history). A moved layer generates only the cells its
//! window gained — at most two rectangles (figure 3.12), two rows of cells per step — from its parent
//! layer, coarsest first, and refreshes the corner heights they touch. Depth: the finest active layer
//! is `floor(log2(height above ground / lod_height))`, changed only when that leaves a band of a
//! quarter octave below and above; finer layers hold nothing and are regenerated from their parents
//! when the viewer comes down. The order differs from the thesis' steps 1–6 in one place: the depth is
//! decided after the horizontal shift, from the ground under the viewer in the finest layer that is
//! already current. Tests: the lowest-set-bit path step by step, `teleport` and a fresh cache give the
//! same cells and the same mesh; walking to and fro inside the hysteresis band generates nothing.
//!
//! **Storage** (`store.rs`). Each layer's cells live in a square array whose side is the window width
//! rounded up to a power of two (64 for 40), addressed by (i mod side, j mod side): any window maps to
//! distinct slots, a lookup is a mask and a shift, a shift overwrites only the slots of the cells that
//! left. `Hashed` keeps them in a hash table keyed by (i, j) (with a fast integer hash, so the
//! comparison measures the table) — the thesis' alternative; it is slower per frame
//! (`docs/benchmarks.md`).
//!
//! **Mesh** (`mesh.rs`). A drawn layer has three regions, each its own vertex and index buffer: the
//! *outer ring* (drawable cells — all but the window's outermost ring, whose corners are unknown — more
//! than `inner_radius − 2` cells from the middle; a fixed shape), the *inner region* (between the ring
//! and the finer layer's window, always `(w/2+2)² − (w/2)²` cells, in one of nine forms; the finest
//! drawn layer draws it whole) and the *seam*: a strip half a parent cell wide between the center's edge
//! (this layer's corners) and the finer layer's drawable edge (its corners, two per parent edge),
//! zipped by one triangle per parent edge and two per finer corner — `4·(w/2 + w − 2)` triangles, a
//! fixed shape. Every cell is a fan of four triangles around its midpoint, so no vertex ever lies on
//! another triangle's edge. The rebuild rules are step 6 of 3.3.6: a moved layer rewrites its outer
//! ring; a layer that moved or whose finer layer moved rewrites its inner region and seam. Region
//! shapes are built once (the inner region once per form, shared by all layers).
//!
//! Vertices are `MeshVertex { pos: [f32; 3], z_parent, blend }`, x and y relative to the layer's window
//! origin (an f64 `LayerMesh::origin`). `z_parent` is the coarser layer's own surface at the vertex (a
//! corner, an edge midpoint, a midpoint, or halfway between a corner and a midpoint — each one or two
//! lookups), `blend` ramps from 0 at the layer's outer edge to 1 at the inner edge of its outer ring,
//! ring by ring (3.4: it changes only when the layer moves, when the ring is rewritten anyway), and the
//! drawn height is `z_parent + blend·(z − z_parent)`. The layer's outer edge therefore lies on the
//! coarser surface that the seam joins. The drawn heights also go to two small toroidal grids per
//! layer (corners, midpoints) that the queries read: queries and buffers hold the same bits.
//!
//! Crack test (`tests/world.rs`): over walks that visit all nine configurations, with depth changes,
//! and in a property test over random seeds, window sizes and paths, the drawn triangles are all
//! counter-clockwise, every edge is used once each way except on the outline of the mesh, one height
//! per vertex position, and the areas sum to the mesh's square — which rules out cracks, T-junctions and
//! overlaps.
//!
//! **Large coordinates.** Cells are addressed by integer index (i64; triangle identities use i32, so the
//! viewer is limited to ±2^30 finest cells — ±1.07 million km at 1 m); vertices are f32 relative to
//! their layer's origin; queries work in f64 world coordinates from those. The test moves the same
//! landscape 10,000 km east (`WorldParams::anchor`, whole top-level cells) and checks that every vertex
//! buffer is bitwise the same, the origins differ by exactly the shift, and heights, normals and ray
//! hits relative to the viewer agree (normals bitwise).
//!
//! **Queries** (`query.rs`). A point is located by descending from the coarsest drawn layer: inside a
//! layer's center it goes to the finer layer, or to the seam if it is in the finer layer's outermost
//! ring of cells; otherwise it is in one of the layer's fan cells — O(layers). A ray's next cell is
//! searched from the previous cell's layer instead (climbing while the point is outside that layer's
//! drawable square, which is exactly its parent's center less the seam, then descending as usual; a test
//! checks it finds the same cell from any starting layer): with floors computed without a library call,
//! this doubled the rays per second of `landfall world`'s picture (108k → 205k on 2 threads). Rays walk
//! the same structure front to back: the cell of whichever layer covers the ray, leaving it through the nearest
//! side (the exit coordinate snapped onto the side, ties broken toward the direction of travel), skipping
//! cells whose height range the ray misses, and testing the cell's triangles (the seam: the triangles
//! listed for that ring cell). The triangle test accepts points up to 10⁻⁹ (barycentric) outside: a ray
//! through a shared vertex visits only some of the cells around it, and this way whichever it visits
//! claims the hit (tested with rays aimed at vertices and edge midpoints, and against an f64 brute force
//! over every drawn triangle). `triangles_in` gives the fans and seam triangles under a box, so the
//! controller and sweeps of `collide` work on the world unchanged.
//!
//! **Away from the cache** (`lod.rs`). `LodTerrain::new(generator, level, capacity)` is the landscape at
//! one level everywhere — the same fans without morphing — generated in 64 × 64-cell tiles on first use,
//! keeping at most `capacity` tiles (oldest dropped). Each tile knows its height range, so a ray skips
//! whole tiles it passes above or below; a search ends at the generator's height bound (rigorous but
//! loose: the stencil may overshoot its parents, which smooth data never does) or after 2^20 cells.
//! The world keeps one at `CacheParams::far_level` (default 12, the coarsest drawn layer's, 64 tiles):
//! its `Terrain` queries answer on the drawn mesh where there is one and on this far landscape beyond
//! it — vertical queries outside the mesh, rays that leave the mesh without a hit (searched up to
//! `far_distance`, 250 km, from their origin), candidate triangles of cells wholly outside the mesh.
//!
//! **Export** (`landfall-io::mesh_out`). `world_parts` turns the drawn mesh into one part per layer
//! (drawn heights); `write_glb` writes glTF binary with one node per layer translated to its origin
//! (Y-up: (x, z, −y)), `write_obj` OBJ in world coordinates (Z up). Both are crash-safe.
//!
//! Objects in the world (chapter 4's use of the dual quad-tree) are in `world/objects/`
//! ([`Objects`]); chapter 5's behaviours driven by predicted events are in [`crate::events`].

mod gen;
mod lod;
mod mesh;
mod objects;
mod path;
mod query;
mod store;

#[doc(hidden)]
pub use gen::corner_height;
pub use gen::{Cell, Generator, WorldParams, WorldParamsError};
pub use lod::LodTerrain;
#[doc(hidden)]
pub use mesh::fan_height;
pub use mesh::{LayerMesh, MeshVertex, Region};
pub use objects::{
    cell_stream, default_kinds, Entity, Form, Kind, Object, ObjectParams, Objects, Roaming, RoamingStats, Shape,
    Solids, SyncStats,
};
pub use path::{footprint, obstacle, obstacles, Agent, Disc, ObstacleId, PathError, Planner, PlannerStats, Route};
#[cfg(feature = "bench-support")]
#[doc(hidden)]
pub use store::Hashed;
// Cell storage of the cache (`World`'s type parameter): its default, `Toroidal`, is the only one a
// user needs; the benchmarks compare `Hashed`.
#[doc(hidden)]
pub use store::{CellStore, Toroidal};

use crate::frame::Frame;
use crate::geom::Aabb;
use glam::DVec3;

/// Configuration of the nested cache and its mesh. The default is the thesis' section 6.1: 16
/// layers, inner radius 10 (40 × 40 cells per layer), 1 m finest cells (from [`WorldParams`]), the
/// mesh drawn from layer 1 to layer 12 (77,824 m from the middle to its edge).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CacheParams {
    /// Number of layers (levels 0 .. layers − 1); at most the generator's levels.
    pub layers: u8,
    /// Inner radius: subdivided parent cells on each side of the viewer; the window is
    /// `4 · inner_radius` cells wide. At least 2.
    pub inner_radius: u32,
    /// Finest layer drawn (when active).
    pub mesh_finest: u8,
    /// Coarsest layer drawn.
    pub mesh_coarsest: u8,
    /// Height above the ground, metres, below which the finest layer is active; each doubling
    /// drops one more layer.
    pub lod_height: f64,
    /// Hysteresis band, in parent cells past a boundary, before a layer moves (0 = none; below 1/6,
    /// which keeps the layers nested).
    pub hysteresis: f64,
    /// Level of detail of the landscape beyond the drawn mesh (queries there are answered on the
    /// fly, see [`LodTerrain`]); clamped to the generator's top level. The default, 12, is the
    /// coarsest drawn layer's.
    pub far_level: u8,
    /// Tiles of 64 × 64 cells kept for the far landscape (each about 35 KB).
    pub far_tiles: usize,
    /// Rays look for the far landscape up to this horizontal distance from their origin, metres.
    pub far_distance: f64,
}

impl Default for CacheParams {
    fn default() -> Self {
        Self {
            layers: 16,
            inner_radius: 10,
            mesh_finest: 1,
            mesh_coarsest: 12,
            lod_height: 20.0,
            hysteresis: 0.125,
            far_level: 12,
            far_tiles: 64,
            far_distance: 250_000.0,
        }
    }
}

impl CacheParams {
    /// Checks every field's range for a world of `world`'s generator: `layers` 2..=its levels,
    /// `inner_radius` 2..=64, `mesh_finest` ≤ `mesh_coarsest` < `layers`, `lod_height` finite and
    /// positive, `far_distance` ≥ 0, `hysteresis` in [0, 1/6) (so the layers stay nested). The
    /// world calls this.
    pub fn validate(&self, world: &WorldParams) -> Result<(), WorldError> {
        let bad = |f: &'static str, why: String| Err(WorldError::Cache(f, why));
        if self.layers < 2 || self.layers > world.levels {
            return bad("layers", format!("must be 2..={} (the generator's levels)", world.levels));
        }
        if !(2..=64).contains(&self.inner_radius) {
            return bad("inner_radius", "must be 2..=64".into());
        }
        if self.mesh_coarsest >= self.layers || self.mesh_finest > self.mesh_coarsest {
            return bad(
                "mesh_finest/mesh_coarsest",
                format!("need mesh_finest ≤ mesh_coarsest < layers ({})", self.layers),
            );
        }
        if !(self.lod_height > 0.0 && self.lod_height.is_finite()) {
            return bad("lod_height", "must be a positive finite height in metres".into());
        }
        if self.far_distance.is_nan() || self.far_distance < 0.0 {
            return bad("far_distance", "must be ≥ 0 (metres)".into());
        }
        if !(self.hysteresis >= 0.0 && self.hysteresis < 1.0 / 6.0) {
            return bad("hysteresis", "must be in [0, 1/6) so the layers stay nested".into());
        }
        Ok(())
    }
}

crate::with_setters!(CacheParams {
    layers: u8 => with_layers,
    inner_radius: u32 => with_inner_radius,
    mesh_finest: u8 => with_mesh_finest,
    mesh_coarsest: u8 => with_mesh_coarsest,
    lod_height: f64 => with_lod_height,
    hysteresis: f64 => with_hysteresis,
    far_level: u8 => with_far_level,
    far_tiles: usize => with_far_tiles,
    far_distance: f64 => with_far_distance,
});

/// Why a world could not be made or moved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A generator parameter is invalid.
    #[error(transparent)]
    Params(#[from] WorldParamsError),
    /// A cache parameter is invalid; names it and says why.
    #[error("cache parameter `{0}`: {1}")]
    Cache(&'static str, String),
    /// The viewer position is not finite or beyond the addressable world.
    #[error("viewer position {0:?}: {1}")]
    Viewer([f64; 3], String),
}

/// What one update did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Cells generated.
    pub cells_generated: usize,
    /// Bit k set: layer k moved, was activated or dropped.
    pub layers_changed: u32,
    /// Mesh regions rebuilt (outer rings, inner regions, seams).
    pub regions_rebuilt: usize,
    /// Mesh vertices written.
    pub vertices_written: usize,
    /// Whether the lowest-set-bit rule chose the layers (rather than recomputing every window).
    pub incremental: bool,
}

impl UpdateStats {
    fn add(&mut self, o: UpdateStats) {
        self.cells_generated += o.cells_generated;
        self.layers_changed |= o.layers_changed;
        self.regions_rebuilt += o.regions_rebuilt;
        self.vertices_written += o.vertices_written;
    }
}

/// One layer of the cache: its window, its cells and its share of the mesh.
pub(crate) struct Layer<S> {
    pub(crate) level: u8,
    /// Window placement: origin cell = 2·m − width/2 per axis.
    pub(crate) m: [i64; 2],
    pub(crate) active: bool,
    pub(crate) cells: S,
    /// Own corner heights (means of the four cells around each line crossing inside the window).
    pub(crate) corners: store::Grid,
    pub(crate) mesh: LayerMesh,
}

/// The viewer's world: the generator, the nested cache around the viewer and its mesh.
///
/// ```
/// use landfall::glam::DVec3;
/// use landfall::world::{CacheParams, World, WorldParams};
///
/// // A small world: 8 levels of 2 m cells, 5 layers of 16 × 16 cells around the viewer.
/// let params = WorldParams::default().with_levels(8).with_cell_size(2.0);
/// let cache = CacheParams::default().with_layers(5).with_inner_radius(4).with_mesh_coarsest(4);
/// let mut world: World = World::new(params, cache, DVec3::new(0.0, 0.0, 100.0))?;
/// let ground = world.height_at(0.0, 0.0).expect("the viewer is over the drawn mesh");
/// // The viewer moves; the cache follows, generating the cells it needs.
/// let stats = world.update(DVec3::new(30.0, 0.0, ground + 2.0))?;
/// assert!(stats.cells_generated > 0);
/// assert!(world.height_at(30.0, 0.0).is_some());
/// # Ok::<(), landfall::world::WorldError>(())
/// ```
///
/// `S` is the cells' storage; leave it at its default (the benchmarks compare another).
pub struct World<S: CellStore = Toroidal> {
    pub(crate) gen: Generator,
    pub(crate) params: CacheParams,
    pub(crate) width: i64,
    pub(crate) layers: Vec<Layer<S>>,
    /// Finest active layer.
    pub(crate) finest: u8,
    viewer: DVec3,
    q: [i64; 2],
    frame: Frame,
    pub(crate) scratch: mesh::Scratch,
    /// The landscape beyond the mesh, generated on demand.
    pub(crate) far: LodTerrain,
    /// The ground the last move may have changed ([`World::changed_region`]).
    changed: Option<Aabb>,
}

/// The viewer may go this many finest cells from the origin (cell indices stay within i32 in
/// triangle identities).
pub(crate) const MAX_CELLS_FROM_ORIGIN: f64 = (1u64 << 30) as f64;

impl<S: CellStore> World<S> {
    /// A world around `viewer`, every layer generated and meshed.
    pub fn new(params: WorldParams, cache: CacheParams, viewer: DVec3) -> Result<Self, WorldError> {
        let gen = Generator::new(params)?;
        cache.validate(gen.params())?;
        let width = 4 * cache.inner_radius as i64;
        let layers = (0..cache.layers)
            .map(|level| Layer {
                level,
                m: [0, 0],
                active: false,
                cells: S::with_width(width as usize),
                corners: store::Grid::new(width as usize),
                mesh: LayerMesh::new(level, width),
            })
            .collect();
        let far = LodTerrain::new(gen.clone(), cache.far_level, cache.far_tiles);
        let mut world = World {
            gen,
            params: cache,
            width,
            layers,
            finest: 0,
            viewer: DVec3::ZERO,
            q: [0, 0],
            frame: Frame::default(),
            scratch: mesh::Scratch::new(width),
            far,
            changed: None,
        };
        world.check_viewer(viewer)?;
        world.rebuild_at(viewer);
        world.changed = None;
        Ok(world)
    }

    fn check_viewer(&self, v: DVec3) -> Result<(), WorldError> {
        if !v.is_finite() {
            return Err(WorldError::Viewer(v.to_array(), "must be finite".into()));
        }
        let limit = MAX_CELLS_FROM_ORIGIN * self.gen.params().cell_size;
        if v.x.abs() > limit || v.y.abs() > limit {
            return Err(WorldError::Viewer(
                v.to_array(),
                format!("must be within ±{limit:.0} m of the origin in x and y"),
            ));
        }
        Ok(())
    }

    /// The landscape beyond the drawn mesh (at `CacheParams::far_level`), which the world's
    /// [`Terrain`](crate::Terrain) queries fall back to outside the mesh.
    pub fn far(&self) -> &LodTerrain {
        &self.far
    }

    /// The gravity frame (Z up).
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// The generator.
    pub fn generator(&self) -> &Generator {
        &self.gen
    }

    /// The cache configuration.
    pub fn cache_params(&self) -> &CacheParams {
        &self.params
    }

    /// The viewer position of the last update.
    pub fn viewer(&self) -> DVec3 {
        self.viewer
    }

    /// Cells per window side.
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Finest active layer (finer layers hold no cells).
    pub fn finest_active(&self) -> u8 {
        self.finest
    }

    /// The layers drawn now, finest first.
    pub fn drawn_layers(&self) -> std::ops::RangeInclusive<u8> {
        self.finest.max(self.params.mesh_finest)..=self.params.mesh_coarsest
    }

    /// Window origin (cell index of its south-west cell) of layer `k`.
    pub fn window_origin(&self, k: u8) -> [i64; 2] {
        let m = self.layers[k as usize].m;
        [2 * m[0] - self.width / 2, 2 * m[1] - self.width / 2]
    }

    /// Cell of layer `k` at absolute index (i, j), if the layer is active and its window holds it.
    pub fn cell(&self, k: u8, i: i64, j: i64) -> Option<Cell> {
        let l = self.layers.get(k as usize)?;
        let o = self.window_origin(k);
        let inside = (o[0]..o[0] + self.width).contains(&i) && (o[1]..o[1] + self.width).contains(&j);
        (l.active && inside).then(|| l.cells.get(i, j))
    }

    /// Bytes held by the cells and the mesh (buffers and query grids).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.layers.iter().map(|l| l.cells.bytes() + l.corners.bytes() + l.mesh.bytes()).sum::<usize>()
            + self.scratch.bytes()
            + self.far.memory_bytes()
    }

    /// Moves the viewer: the incremental update when the lowest-set-bit rule applies, the absolute
    /// update otherwise; then the depth, then the mesh regions that changed.
    pub fn update(&mut self, viewer: DVec3) -> Result<UpdateStats, WorldError> {
        self.check_viewer(viewer)?;
        let q = self.quantize(viewer);
        let step = [q[0] - self.q[0], q[1] - self.q[1]];
        let incremental = self.params.hysteresis == 0.0 && step.iter().all(|d| d.abs() <= 1);
        // Per layer (at most 30): a fixed array, no allocation per frame.
        let mut targets = [[0i64; 2]; 32];
        for (t, l) in targets.iter_mut().zip(&self.layers) {
            *t = l.m;
        }
        if incremental {
            for axis in 0..2 {
                if let Some(k) = crossed_layer(self.q[axis], q[axis]) {
                    if (k as usize) < self.layers.len() && self.layers[k as usize].active {
                        targets[k as usize][axis] += step[axis];
                    }
                }
            }
            debug_assert!(
                (self.finest as usize..self.layers.len()).all(|k| targets[k] == self.target(k as u8, viewer, None)),
                "lowest-set-bit rule disagrees with the windows"
            );
        } else {
            for (k, t) in targets.iter_mut().enumerate().take(self.layers.len()).skip(self.finest as usize) {
                *t = self.target(k as u8, viewer, Some(*t));
            }
        }
        Ok(UpdateStats { incremental, ..self.move_to(viewer, &targets) })
    }

    /// Moves the viewer anywhere: every window recomputed from the new position alone (no
    /// hysteresis history), keeping the cells that the old windows share with the new ones.
    pub fn teleport(&mut self, viewer: DVec3) -> Result<UpdateStats, WorldError> {
        self.check_viewer(viewer)?;
        let mut targets = [[0i64; 2]; 32];
        for (k, t) in targets.iter_mut().enumerate().take(self.layers.len()) {
            *t = self.target(k as u8, viewer, None);
        }
        Ok(self.move_to(viewer, &targets))
    }

    /// Shifts the active layers to their `targets` windows (coarsest first), then the depth, then
    /// the mesh regions that changed.
    fn move_to(&mut self, viewer: DVec3, targets: &[[i64; 2]]) -> UpdateStats {
        self.q = self.quantize(viewer);
        self.viewer = viewer;
        let mut before = [None; 32];
        for (b, l) in before.iter_mut().zip(&self.layers) {
            *b = l.active.then_some(l.m);
        }
        let mut stats = UpdateStats::default();
        for k in (self.finest as usize..self.layers.len()).rev() {
            if targets[k] != self.layers[k].m {
                stats.cells_generated += self.shift_layer(k, targets[k]);
                stats.layers_changed |= 1 << k;
            }
        }
        stats.add(self.update_depth(viewer));
        stats.add(self.rebuild_mesh(stats.layers_changed, false));
        self.changed = self.changed_windows(stats.layers_changed, &before);
        stats
    }

    /// The x-y box around the old and new windows of the layers in `changed` (bit k: layer k),
    /// each grown by a cell of the layer above it (its seam and corner means), z unbounded.
    fn changed_windows(&self, changed: u32, before: &[Option<[i64; 2]>]) -> Option<Aabb> {
        let mut out: Option<Aabb> = None;
        for k in (0..self.layers.len()).filter(|&k| changed & (1 << k) != 0) {
            let (s, grow) = (self.gen.cell_width(k as u8), self.gen.cell_width(k as u8 + 1));
            let l = &self.layers[k];
            for m in [before[k], l.active.then_some(l.m)].into_iter().flatten() {
                let o = [2 * m[0] - self.width / 2, 2 * m[1] - self.width / 2];
                let (x, y, side) = (o[0] as f64 * s - grow, o[1] as f64 * s - grow, self.width as f64 * s + 2.0 * grow);
                let b = Aabb::new(DVec3::new(x, y, f64::NEG_INFINITY), DVec3::new(x + side, y + side, f64::INFINITY));
                out = Some(out.map_or(b, |a| a.union(&b)));
            }
        }
        out
    }

    /// The ground the last [`update`](Self::update), [`teleport`](Self::teleport) or
    /// [`rebuild`](Self::rebuild) may have changed: an x-y box (z unbounded) around the old and new
    /// windows of every layer that moved, was activated or dropped; everywhere after a rebuild;
    /// `None` when the ground stayed the same (and after [`new`](Self::new)). Whatever stands on the
    /// ground outside it stands on the same triangles as before (thrown balls use it:
    /// [`events::TerrainBalls`](crate::events::TerrainBalls)' `change_ground`).
    pub fn changed_region(&self) -> Option<Aabb> {
        self.changed
    }

    /// Regenerates every cell and rebuilds the whole mesh at `viewer` (the baseline the
    /// incremental update is measured against).
    pub fn rebuild(&mut self, viewer: DVec3) -> Result<UpdateStats, WorldError> {
        self.check_viewer(viewer)?;
        Ok(self.rebuild_at(viewer))
    }

    fn rebuild_at(&mut self, viewer: DVec3) -> UpdateStats {
        self.viewer = viewer;
        self.q = self.quantize(viewer);
        for l in &mut self.layers {
            l.active = false;
        }
        let mut stats = UpdateStats::default();
        // Coarse to fine until the layer the viewer's height asks for.
        let top = self.layers.len() - 1;
        for k in (0..=top).rev() {
            stats.cells_generated += self.activate(k, viewer);
            stats.layers_changed |= 1 << k;
            self.finest = k as u8;
            let want = self.depth_for(viewer, None);
            if k as u8 <= want {
                break;
            }
        }
        stats.add(self.rebuild_mesh(u32::MAX, true));
        self.changed = Some(Aabb { min: DVec3::NEG_INFINITY, max: DVec3::INFINITY });
        stats
    }

    /// Viewer x, y at twice the finest resolution.
    fn quantize(&self, v: DVec3) -> [i64; 2] {
        let s = self.gen.params().cell_size;
        [(2.0 * v.x / s).floor() as i64, (2.0 * v.y / s).floor() as i64]
    }

    /// Where layer `k`'s window belongs for `viewer`: the level-(k+1) corner nearest the viewer,
    /// kept at `current` while the viewer is within the hysteresis band around it.
    fn target(&self, k: u8, viewer: DVec3, current: Option<[i64; 2]>) -> [i64; 2] {
        let eta = self.params.hysteresis;
        let q = self.quantize(viewer);
        let s = self.gen.params().cell_size * ((k + 1) as f64).exp2();
        let mut out = [0; 2];
        for axis in 0..2 {
            // Without hysteresis: round(x / s) from the integer q, so the lowest-set-bit rule and
            // this agree exactly.
            let fresh = (q[axis] + (1i64 << (k + 1))) >> (k + 2);
            out[axis] = match current {
                Some(cur) if eta > 0.0 => {
                    let u = viewer[axis] / s;
                    if (u - cur[axis] as f64).abs() <= 0.5 + eta {
                        cur[axis]
                    } else {
                        fresh
                    }
                }
                _ => fresh,
            };
        }
        out
    }

    /// The finest layer for the viewer's height above the ground (of the finest active layer),
    /// with a quarter-octave band around the current one.
    fn depth_for(&self, viewer: DVec3, current: Option<u8>) -> u8 {
        let ground = self.layer_height(self.finest, viewer.x, viewer.y).unwrap_or(0.0);
        let above = (viewer.z - ground).max(0.0);
        let octave = (above / self.params.lod_height).max(1e-300).log2();
        let max = self.params.mesh_coarsest.min(self.layers.len() as u8 - 1);
        let fresh = octave.floor().clamp(0.0, max as f64) as u8;
        match current {
            Some(c) if octave >= c as f64 - 0.25 && octave < c as f64 + 1.25 => c,
            Some(c) if c == 0 && octave < 0.0 => 0,
            _ => fresh,
        }
    }

    fn update_depth(&mut self, viewer: DVec3) -> UpdateStats {
        let want = self.depth_for(viewer, Some(self.finest));
        let mut stats = UpdateStats::default();
        while want < self.finest {
            let k = self.finest as usize - 1;
            stats.cells_generated += self.activate(k, viewer);
            stats.layers_changed |= 1 << k;
            self.finest -= 1;
        }
        while want > self.finest {
            let k = self.finest as usize;
            self.deactivate(k);
            stats.layers_changed |= 1 << k;
            self.finest += 1;
        }
        stats
    }

    /// Generates layer `k`'s whole window for `viewer` (its parent is ready).
    fn activate(&mut self, k: usize, viewer: DVec3) -> usize {
        if self.layers[k].active {
            self.deactivate(k);
        }
        let m = self.target(k as u8, viewer, None);
        self.layers[k].m = m;
        self.layers[k].active = true;
        let o = self.window_origin(k as u8);
        self.generate_rect(k, o[0], o[0] + self.width, o[1], o[1] + self.width)
    }

    fn deactivate(&mut self, k: usize) {
        if S::EVICTS {
            let o = self.window_origin(k as u8);
            for j in o[1]..o[1] + self.width {
                for i in o[0]..o[0] + self.width {
                    self.layers[k].cells.evict(i, j);
                }
            }
        }
        self.layers[k].active = false;
    }

    /// Moves layer `k`'s window to `m`, generating the cells it gains (two rectangles, figure
    /// 3.12) and evicting those it loses.
    fn shift_layer(&mut self, k: usize, m: [i64; 2]) -> usize {
        let old = self.window_origin(k as u8);
        self.layers[k].m = m;
        let new = self.window_origin(k as u8);
        let w = self.width;
        if S::EVICTS {
            for_gained(new, old, w, |x0, x1, y0, y1| {
                for j in y0..y1 {
                    for i in x0..x1 {
                        self.layers[k].cells.evict(i, j);
                    }
                }
            });
        }
        let (mut rects, mut n) = ([(0i64, 0i64, 0i64, 0i64); 2], 0);
        for_gained(old, new, w, |x0, x1, y0, y1| {
            rects[n] = (x0, x1, y0, y1);
            n += 1;
        });
        rects[..n].iter().map(|&(x0, x1, y0, y1)| self.generate_rect(k, x0, x1, y0, y1)).sum()
    }

    /// Generates cells [x0, x1) × [y0, y1) of layer `k` (even-aligned) and the corner heights
    /// they touch inside the window.
    fn generate_rect(&mut self, k: usize, x0: i64, x1: i64, y0: i64, y1: i64) -> usize {
        if x0 >= x1 || y0 >= y1 {
            return 0;
        }
        let n = self.generate_cells(k, x0, x1, y0, y1);
        let o = self.window_origin(k as u8);
        let l = &mut self.layers[k];
        for j in y0.max(o[1] + 1)..=y1.min(o[1] + self.width - 1) {
            for i in x0.max(o[0] + 1)..=x1.min(o[0] + self.width - 1) {
                let c = |i: i64, j: i64| l.cells.get(i, j).h;
                let z = gen::corner_height(c(i - 1, j - 1), c(i, j - 1), c(i - 1, j), c(i, j));
                l.corners.set(i, j, z);
            }
        }
        n
    }

    /// Generates cells [x0, x1) × [y0, y1) of layer `k` (even-aligned) from its parent layer, or
    /// from the generator for the top layer.
    fn generate_cells(&mut self, k: usize, x0: i64, x1: i64, y0: i64, y1: i64) -> usize {
        let level = self.layers[k].level;
        if k + 1 == self.layers.len() {
            let (nx, ny) = ((x1 - x0) as usize, (y1 - y0) as usize);
            let cells = if level == self.gen.top() {
                let mut v = Vec::with_capacity(nx * ny);
                for j in y0..y1 {
                    for i in x0..x1 {
                        v.push(self.gen.top_cell(i, j));
                    }
                }
                v
            } else {
                self.gen.patch(level, x0, y0, nx, ny)
            };
            let store = &mut self.layers[k].cells;
            for (n, c) in cells.into_iter().enumerate() {
                store.put(x0 + (n % nx) as i64, y0 + (n / nx) as i64, c);
            }
            return nx * ny;
        }
        let (lo, hi) = self.layers.split_at_mut(k + 1);
        let (child, parent) = (&mut lo[k].cells, &hi[0].cells);
        let gen = &self.gen;
        for pj in y0.div_euclid(2)..y1.div_euclid(2) {
            // The three parent rows, slid along the row.
            let col = |pi: i64| [parent.get(pi, pj - 1), parent.get(pi, pj), parent.get(pi, pj + 1)];
            let mut a = col(x0.div_euclid(2) - 1);
            let mut b = col(x0.div_euclid(2));
            for pi in x0.div_euclid(2)..x1.div_euclid(2) {
                let c = col(pi + 1);
                let p = [[a[0], b[0], c[0]], [a[1], b[1], c[1]], [a[2], b[2], c[2]]];
                let kids = gen.children(level, pi, pj, &p);
                child.put(2 * pi, 2 * pj, kids[0][0]);
                child.put(2 * pi + 1, 2 * pj, kids[0][1]);
                child.put(2 * pi, 2 * pj + 1, kids[1][0]);
                child.put(2 * pi + 1, 2 * pj + 1, kids[1][1]);
                a = b;
                b = c;
            }
        }
        ((x1 - x0) * (y1 - y0)) as usize
    }

    /// Height of layer `k`'s own surface (cell midpoints and corner means, fan triangles, no
    /// morphing) at (x, y), if the point is inside the layer's drawable cells.
    pub(crate) fn layer_height(&self, k: u8, x: f64, y: f64) -> Option<f64> {
        let l = &self.layers[k as usize];
        if !l.active {
            return None;
        }
        let s = self.gen.cell_width(k);
        let o = self.window_origin(k);
        let (fx, fy) = (x / s - o[0] as f64, y / s - o[1] as f64);
        let (a, b) = (fx.floor() as i64, fy.floor() as i64);
        if a < 1 || b < 1 || a > self.width - 2 || b > self.width - 2 {
            return None;
        }
        let (i, j) = (o[0] + a, o[1] + b);
        let c = |di: i64, dj: i64| l.cells.get(i + di, j + dj).h;
        let corner =
            |di: i64, dj: i64| gen::corner_height(c(di - 1, dj - 1), c(di, dj - 1), c(di - 1, dj), c(di, dj)) as f64;
        let z = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
        Some(mesh::fan_height(z, c(0, 0) as f64, fx - a as f64, fy - b as f64))
    }
}

impl<S: CellStore> World<S> {
    /// Whether the cache holds every cell of `level` from `lo` to `hi` (inclusive): a layer holds
    /// the cells of its window while it is active.
    pub(crate) fn holds(&self, level: u8, lo: [i64; 2], hi: [i64; 2]) -> bool {
        self.held_window(level).is_some_and(|o| (0..2).all(|a| lo[a] >= o[a] && hi[a] < o[a] + self.width))
    }

    /// The origin of the window of `level` the cache holds, `None` while its layer is inactive (a
    /// window is [`Self::width`] cells on a side).
    pub(crate) fn held_window(&self, level: u8) -> Option<[i64; 2]> {
        let l = self.layers.get(level as usize).filter(|l| l.active)?;
        debug_assert_eq!(l.level, level);
        Some(self.window_origin(level))
    }

    /// Held cell (i, j) of `level` ([`Self::holds`]).
    pub(crate) fn held(&self, level: u8, i: i64, j: i64) -> Cell {
        self.layers[level as usize].cells.get(i, j)
    }
}

/// Calls `f(x0, x1, y0, y1)` with the (at most two) rectangles of window `new` not in window `old`
/// (both `w` wide).
fn for_gained(old: [i64; 2], new: [i64; 2], w: i64, mut f: impl FnMut(i64, i64, i64, i64)) {
    let disjoint = (new[0] - old[0]).abs() >= w || (new[1] - old[1]).abs() >= w;
    if disjoint {
        f(new[0], new[0] + w, new[1], new[1] + w);
        return;
    }
    // Columns gained (full height), then rows gained within the shared columns.
    let (cx0, cx1) = if new[0] > old[0] { (old[0] + w, new[0] + w) } else { (new[0], old[0]) };
    f(cx0, cx1, new[1], new[1] + w);
    let (sx0, sx1) = (new[0].max(old[0]), new[0].min(old[0]) + w);
    let (ry0, ry1) = if new[1] > old[1] { (old[1] + w, new[1] + w) } else { (new[1], old[1]) };
    f(sx0, sx1, ry0, ry1);
}

/// The layer the lowest-set-bit rule shifts when the quantized coordinate steps from `from` to `to`
/// (|to − from| = 1): `trailing_zeros − 1` of the coordinate on the far side of the crossed
/// boundary; `None` when no layer's boundary was crossed.
pub fn crossed_layer(from: i64, to: i64) -> Option<u32> {
    let at = match to - from {
        1 => to,
        -1 => from,
        _ => return None,
    };
    let tz = at.trailing_zeros();
    (1..64).contains(&tz).then(|| tz - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lowest-set-bit rule names the layer whose window formula changes, for every step.
    #[test]
    fn crossed_layer_matches_the_window_formula() {
        let m = |q: i64, k: u32| (q + (1i64 << (k + 1))) >> (k + 2);
        for q in -300i64..300 {
            for step in [-1i64, 1] {
                let to = q + step;
                let changed: Vec<u32> = (0..12).filter(|&k| m(q, k) != m(to, k)).collect();
                match crossed_layer(q, to) {
                    Some(k) if k < 12 => assert_eq!(changed, vec![k], "{q} → {to}"),
                    _ => assert!(changed.is_empty(), "{q} → {to}: {changed:?}"),
                }
            }
        }
        assert_eq!(crossed_layer(3, 5), None);
    }

    /// Gained rectangles tile exactly the new window minus the old one.
    #[test]
    fn gained_rectangles_are_exact() {
        let w = 8;
        for dx in -10i64..=10 {
            for dy in -10i64..=10 {
                let (old, new) = ([4, -6], [4 + 2 * dx, -6 + 2 * dy]);
                let mut count = std::collections::HashMap::new();
                for_gained(old, new, w, |x0, x1, y0, y1| {
                    for j in y0..y1 {
                        for i in x0..x1 {
                            *count.entry((i, j)).or_insert(0) += 1;
                        }
                    }
                });
                let inside =
                    |o: [i64; 2], i: i64, j: i64| (o[0]..o[0] + w).contains(&i) && (o[1]..o[1] + w).contains(&j);
                for j in -40..40 {
                    for i in -40..40 {
                        let want = i32::from(inside(new, i, j) && !inside(old, i, j));
                        assert_eq!(count.get(&(i, j)).copied().unwrap_or(0), want, "({dx},{dy}) cell ({i},{j})");
                    }
                }
            }
        }
    }
}
