//! The 2004 collision paper's tiles in the view (3.1–3.2) on a heightfield of any size: the grid is
//! cut into square tiles of cells, and only the tiles near a moving viewer are kept. A tile entering
//! the view gets its bounding-sphere tree, built once over its cells with the paper's stop rule and
//! serialized depth-first (each node its sphere and the offset of what follows its subtree, so a
//! walk only moves forward); a tile leaving drops its tree and, when the heightfield lives in a
//! memory-mapped index file, the pages of samples no tile in the view uses. Sweeps run the paper's
//! access algorithm over the tiles in the view — the global motion test against each tile's main
//! sphere, then down its tree — and test the very triangles the heightfield answers with, so a
//! character controller walks across tile borders as on the whole grid.
//!
//! The trees hold spheres and cell ranges, not triangles: a leaf's triangles are the heightfield's
//! own, read when a sweep reaches the leaf (with 4 × 4-cell leaves, about 4.7 bytes a cell for the
//! tree, against about 150 for a [`SphereTree`](super::SphereTree), which copies its triangles).
//!
//! **Stored trees.** An index file (`landfall build … -o X.lfh`) stores its tiles' trees, built once
//! with the default parameters on its own tiles ([`TileTrees`]); a view made with
//! [`TileView::with_trees`] takes a tile's tree from there as it enters, so that costs a page-in
//! instead of a build.

use super::sphere_walk::SphereWalk;
use crate::flat::Flat;
use crate::geom::{Aabb, Half, TriangleId};
use crate::heightfield::{range_of_rows, widen, Heightfield, Tiling};
use crate::params::{count, ParamError};
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How tiles and their trees are cut.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TileViewParams {
    /// Cells on a tile's side.
    pub tile_cells: usize,
    /// The tree's stop rule: a node of at most this many cells a side is a leaf (4 → 32 triangles,
    /// the paper's "maximum number of triangles referenced by a low level sphere")…
    pub leaf_cells: usize,
    /// …and at most this many levels.
    pub max_levels: usize,
}

impl Default for TileViewParams {
    fn default() -> Self {
        Self { tile_cells: 256, leaf_cells: 4, max_levels: 20 }
    }
}

impl TileViewParams {
    /// The most cells on a tile's side [`validate`](Self::validate) accepts (a tile's cells are
    /// counted in 32 bits).
    pub const MAX_TILE_CELLS: usize = 1 << 16;

    /// Checks every field: `tile_cells` in 1..=[`MAX_TILE_CELLS`](Self::MAX_TILE_CELLS),
    /// `leaf_cells` and `max_levels` at least 1.
    ///
    /// ```
    /// use landfall::collide::TileViewParams;
    ///
    /// assert!(TileViewParams::default().validate().is_ok());
    /// assert_eq!(TileViewParams::default().with_leaf_cells(0).validate().unwrap_err().field, "leaf_cells");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        count("tile_cells", self.tile_cells, 1..=Self::MAX_TILE_CELLS)?;
        count("leaf_cells", self.leaf_cells, 1..=usize::MAX)?;
        count("max_levels", self.max_levels, 1..=usize::MAX)
    }
}

crate::with_setters!(TileViewParams {
    tile_cells: usize => with_tile_cells,
    leaf_cells: usize => with_leaf_cells,
    max_levels: usize => with_max_levels,
});

/// Why a tile view cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TileViewError {
    /// Stored trees for another heightfield or another cut ([`TileView::with_trees`]).
    #[error("the stored trees do not fit the heightfield's tiles")]
    TreesDoNotFit,
    /// Parameters out of range ([`TileViewParams::validate`]).
    #[error("{0}")]
    BadParams(ParamError),
}

/// A node of a tile's serialized tree (56 bytes, as an index file stores it).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TileNode {
    /// Sphere center.
    pub center: DVec3,
    /// Sphere radius: every triangle of the node's cells lies inside.
    pub radius: f64,
    /// Index of what follows this node's subtree (the next sibling, or further), in its tile's tree.
    pub next: u32,
    /// 1 for a leaf (its cells' triangles are tested), 0 for an inner node.
    pub leaf: u32,
    /// The node's cells: columns `cells[0]..cells[2]`, rows `cells[1]..cells[3]` (grid indices).
    pub cells: [u32; 4],
}

impl TileNode {
    /// True for a leaf.
    pub fn is_leaf(&self) -> bool {
        self.leaf != 0
    }
}

/// Where a tile's tree is: built for the view, or stored (an index file's, `nodes` of its
/// [`TileTrees`]).
#[derive(Clone, Debug)]
enum TreeOf {
    Built(Vec<TileNode>),
    Stored(std::ops::Range<usize>),
}

/// A tile in the view: its cells and its tree.
#[derive(Clone, Debug)]
pub struct Tile {
    /// The tile's column and row among the tiles.
    pub key: (u32, u32),
    tree: TreeOf,
}

/// The sphere trees of a tiled heightfield's tiles (an index file's), as `landfall build` stored
/// them: one per block of samples, built with [`TileViewParams`] whose tiles are the heightfield's.
/// Checked when made: the parameters are valid, every tree lies inside the nodes, and every
/// node's `next` moves forward inside its tree (a walk ends); the spheres are trusted (the file's
/// checksum covers them).
#[derive(Clone, Debug)]
pub struct TileTrees {
    params: TileViewParams,
    nodes: Flat<TileNode>,
    /// Per block: first node and node count.
    trees: Flat<[u64; 2]>,
}

impl TileTrees {
    /// Trees built with `params`: `trees[b]` = (first node, count) of block `b`'s tree in `nodes`.
    pub fn new(params: TileViewParams, nodes: Flat<TileNode>, trees: Flat<[u64; 2]>) -> Result<Self, String> {
        let t = Self::with_checked_trees(params, nodes, trees)?;
        for b in 0..t.trees.len() {
            Self::check_tree(&t.nodes[t.range(b)]).map_err(|e| format!("block {b}: {e}"))?;
        }
        Ok(t)
    }

    /// [`new`](Self::new) for trees each already passed to [`check_tree`](Self::check_tree): only
    /// their ranges are checked here (an index's open reads the trees through small buffers, not
    /// the map, so that they do not all become resident).
    pub fn with_checked_trees(
        params: TileViewParams,
        nodes: Flat<TileNode>,
        trees: Flat<[u64; 2]>,
    ) -> Result<Self, String> {
        params.validate().map_err(|e| e.to_string())?;
        for (b, &[first, count]) in trees.iter().enumerate() {
            let end = first.checked_add(count).filter(|&e| e <= nodes.len() as u64 && count <= u32::MAX as u64);
            if end.is_none() {
                return Err(format!("block {b}: tree of {count} nodes from {first} past the {} nodes", nodes.len()));
            }
        }
        Ok(Self { params, nodes, trees })
    }

    /// Checks one serialized tree: every node's next offset moves forward and stays in the tree.
    pub fn check_tree(tree: &[TileNode]) -> Result<(), String> {
        match tree.iter().enumerate().position(|(k, n)| n.next as usize <= k || n.next as usize > tree.len()) {
            Some(k) => Err(format!("node {k}'s next ({}) does not move forward in its tree", tree[k].next)),
            None => Ok(()),
        }
    }

    /// The parameters the trees were built with.
    pub fn params(&self) -> TileViewParams {
        self.params
    }

    /// Number of blocks with a tree (block 0, without data, included).
    pub fn block_count(&self) -> usize {
        self.trees.len()
    }

    /// Node range of block `b`'s tree (empty past the blocks).
    fn range(&self, b: usize) -> std::ops::Range<usize> {
        self.trees.get(b).map_or(0..0, |&[first, count]| first as usize..(first + count) as usize)
    }
}

impl Tile {
    /// The serialized tree (root first; empty when every cell of the tile is a hole).
    pub fn nodes<'a>(&'a self, view: &'a TileView) -> &'a [TileNode] {
        match &self.tree {
            TreeOf::Built(nodes) => nodes,
            TreeOf::Stored(r) => view.trees.as_ref().map_or(&[], |t| &t.nodes[r.clone()]),
        }
    }
}

/// What one [`TileView::update`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewChange {
    /// Tiles that entered the view (their trees were built or mapped).
    pub added: Vec<(u32, u32)>,
    /// Tiles that left it (trees dropped, pages released).
    pub dropped: Vec<(u32, u32)>,
}

/// The tiles of a heightfield around a viewer, each with its sphere tree; a [`SweepTarget`](crate::collide::SweepTarget) over
/// the tiles in the view.
///
/// ```
/// use landfall::collide::{SweepTarget, TileView, TileViewParams};
/// use landfall::glam::{DVec2, DVec3};
/// use landfall::Heightfield;
/// use std::sync::Arc;
///
/// let hf = Arc::new(Heightfield::builder(65, 65, vec![0.0; 65 * 65]).build().unwrap());
/// let params = TileViewParams::default().with_tile_cells(16);
/// let mut view = TileView::new(hf, params).unwrap();
/// let change = view.update(DVec2::new(8.0, 8.0), 10.0);
/// assert_eq!(change.added.len(), 3); // the tile under the viewer and the two beside it within 10
/// // A ball dropped onto the ground in the view stops 1 above it.
/// let hit = view.sweep(DVec3::new(8.0, 8.0, 5.0), 1.0, DVec3::new(0.0, 0.0, -10.0)).unwrap();
/// assert!((hit.contact.t - 0.4).abs() < 1e-12);
/// ```
pub struct TileView {
    hf: Arc<Heightfield>,
    params: TileViewParams,
    /// Tiles per row and per column.
    ntx: u32,
    nty: u32,
    tiles: BTreeMap<(u32, u32), Tile>,
    built: u64,
    /// Stored trees, when the view's tiles are a tiled heightfield's and its trees were stored.
    trees: Option<TileTrees>,
}

impl TileView {
    /// A view of `hf` with no tile in it yet.
    pub fn new(hf: Arc<Heightfield>, params: TileViewParams) -> Result<Self, TileViewError> {
        params.validate().map_err(TileViewError::BadParams)?;
        let tile_cells = params.tile_cells;
        // Pages are let go of one by one: small ones.
        hf.set_huge_pages(false);
        let ntx = (hf.nx() - 1).div_ceil(tile_cells) as u32;
        let nty = (hf.ny() - 1).div_ceil(tile_cells) as u32;
        Ok(Self { hf, params, ntx, nty, tiles: BTreeMap::new(), built: 0, trees: None })
    }

    /// A view of a tiled heightfield (an index file's) that takes its tiles' trees from `trees` (the
    /// file's): its parameters are the trees'. Refused when `hf` is not tiled, or when the trees do
    /// not fit its tiles.
    pub fn with_trees(hf: Arc<Heightfield>, trees: TileTrees) -> Result<Self, TileViewError> {
        let params = trees.params;
        let fits = hf.tiling().is_some_and(|t: Tiling| t.cells == params.tile_cells);
        let blocks = hf
            .tiling()
            .map_or(0, |t| (0..t.count()).filter_map(|k| hf.tile_block(k % t.ntx, k / t.ntx)).max().unwrap_or(0));
        if !fits || trees.block_count() <= blocks {
            return Err(TileViewError::TreesDoNotFit);
        }
        let mut view = Self::new(hf, params)?;
        view.trees = Some(trees);
        Ok(view)
    }

    /// The heightfield.
    pub fn heightfield(&self) -> &Arc<Heightfield> {
        &self.hf
    }

    /// Tiles along x and y.
    pub fn tile_counts(&self) -> (u32, u32) {
        (self.ntx, self.nty)
    }

    /// The tiles in the view, by key.
    pub fn tiles(&self) -> impl Iterator<Item = &Tile> {
        self.tiles.values()
    }

    /// How many trees have been built since the view was made (a tile that stays is never rebuilt;
    /// a stored tree is mapped, not built).
    pub fn trees_built(&self) -> u64 {
        self.built
    }

    /// Bytes held by the trees of the tiles in the view (built or mapped).
    pub fn memory_bytes(&self) -> usize {
        self.tiles.values().map(|t| std::mem::size_of_val(t.nodes(self))).sum()
    }

    /// Cells of tile `key`: columns and rows (end exclusive).
    fn tile_cells(&self, (tx, ty): (u32, u32)) -> [u32; 4] {
        let t = self.params.tile_cells as u64;
        let (cx, cy) = ((self.hf.nx() - 1) as u64, (self.hf.ny() - 1) as u64);
        let (tx, ty) = (tx as u64, ty as u64);
        [tx * t, ty * t, ((tx + 1) * t).min(cx), ((ty + 1) * t).min(cy)].map(|c| c as u32)
    }

    /// The world rectangle (x, y) of a tile.
    fn tile_rect(&self, key: (u32, u32)) -> (DVec2, DVec2) {
        let c = self.tile_cells(key);
        let (lo, hi) = (
            self.hf.sample_position(c[0] as usize, c[1] as usize),
            self.hf.sample_position(c[2] as usize, c[3] as usize),
        );
        (lo.truncate(), hi.truncate())
    }

    /// Whether tile `key` is in the view.
    pub fn contains(&self, key: (u32, u32)) -> bool {
        self.tiles.contains_key(&key)
    }

    /// The tiles whose rectangle comes within `radius` of `viewer` (x, y), in key order.
    pub fn tiles_near(&self, viewer: DVec2, radius: f64) -> Vec<(u32, u32)> {
        if !(viewer.is_finite() && radius >= 0.0) {
            return Vec::new();
        }
        let (o, d, t) = (self.hf.origin(), self.hf.spacing(), self.params.tile_cells as f64);
        // Candidate tiles by division (one more on each side for its rounding), then the exact
        // distance to each tile's rectangle decides.
        let span = |v: f64, o: f64, d: f64, n: u32| -> Option<(u32, u32)> {
            let a = ((v - radius - o) / (d * t)).floor() - 1.0;
            let b = ((v + radius - o) / (d * t)).floor() + 1.0;
            (b >= 0.0 && a <= n as f64 - 1.0).then(|| (a.max(0.0) as u32, b.min(n as f64 - 1.0) as u32))
        };
        let (Some((x0, x1)), Some((y0, y1))) = (span(viewer.x, o.x, d.x, self.ntx), span(viewer.y, o.y, d.y, self.nty))
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for ty in y0..=y1 {
            for tx in x0..=x1 {
                let (lo, hi) = self.tile_rect((tx, ty));
                if viewer.clamp(lo, hi).distance(viewer) <= radius {
                    out.push((tx, ty));
                }
            }
        }
        out
    }

    /// Moves the view: the tiles within `radius` of `viewer` (x, y) are kept or added (a tree built
    /// for each new one), the others dropped (their trees freed; for a mapped heightfield, the
    /// pages of samples that no tile left in the view uses are released from memory).
    pub fn update(&mut self, viewer: DVec2, radius: f64) -> ViewChange {
        let wanted = self.tiles_near(viewer, radius);
        let mut change = ViewChange::default();
        let keep: std::collections::BTreeSet<(u32, u32)> = wanted.iter().copied().collect();
        change.dropped = self.tiles.keys().filter(|k| !keep.contains(k)).copied().collect();
        for key in &change.dropped {
            self.tiles.remove(key);
        }
        for &key in &change.dropped {
            self.release_rows(key);
        }
        for key in wanted {
            if !self.tiles.contains_key(&key) {
                self.add(key);
                change.added.push(key);
            }
        }
        change
    }

    /// Adds tile `key` (and builds its tree) if it is not in the view.
    pub fn add(&mut self, key: (u32, u32)) {
        if key.0 >= self.ntx || key.1 >= self.nty || self.tiles.contains_key(&key) {
            return;
        }
        let stored = self.trees.as_ref().zip(self.hf.tile_block(key.0 as usize, key.1 as usize));
        if let Some((trees, b)) = stored {
            self.hf.prefetch_tile(key.0 as usize, key.1 as usize);
            self.tiles.insert(key, Tile { key, tree: TreeOf::Stored(trees.range(b)) });
            return;
        }
        let c = self.tile_cells(key);
        if self.hf.tiling().is_some() {
            // A tiled heightfield whose trees are not stored: the blocks under the view's tile.
            for_tiles_under(&self.hf, c, |tx, ty| self.hf.prefetch_tile(tx, ty));
        } else {
            let nx = self.hf.nx();
            for j in c[1] as usize..=c[3] as usize {
                self.hf.prefetch_samples(j * nx + c[0] as usize..j * nx + c[2] as usize + 1);
            }
        }
        let mut nodes = Vec::new();
        build(&*self.hf, c, 0, &self.params, &mut nodes);
        self.built += 1;
        self.tiles.insert(key, Tile { key, tree: TreeOf::Built(nodes) });
        self.release_rows(key);
    }

    /// Drops tile `key` from the view.
    pub fn remove(&mut self, key: (u32, u32)) {
        if self.tiles.remove(&key).is_some() {
            self.release_rows(key);
        }
    }

    /// For a mapped heightfield, releases every page of the rows of tile `key` that no tile in the
    /// view uses: a dropped tile's pages, and after a tile is added, the pages beside it that the
    /// kernel mapped along with its own (it maps up to 64 KiB around each page a read faults in,
    /// which on a wide raster is the rest of the row).
    fn release_rows(&self, key: (u32, u32)) {
        if !self.hf.is_mapped() {
            return;
        }
        let c = self.tile_cells(key);
        let Some(heights) = self.hf.heights() else {
            // Tiles: a block is whole pages of its own; let go of those no tile in the view uses.
            for_tiles_under(&self.hf, c, |tx, ty| {
                if !self.block_used_in_view(tx, ty) {
                    self.hf.release_tile(tx, ty);
                }
            });
            return;
        };
        let nx = self.hf.nx();
        let base = heights.as_ptr() as usize;
        const PAGE: usize = 4096;
        let first = (base + c[1] as usize * nx * 4) / PAGE;
        let end = (base + (c[3] as usize + 1) * nx * 4).div_ceil(PAGE);
        for page in first..end {
            // The samples on this page (clipped to the array).
            let s0 = (page * PAGE).saturating_sub(base) / 4;
            let s1 = ((page * PAGE + PAGE).saturating_sub(base) / 4).min(heights.len());
            if s0 < s1 && !self.used_in_view(s0, s1) {
                self.hf.release_samples(s0..s1);
            }
        }
    }

    /// Whether a tile in the view uses a sample of the heightfield's tile (tx, ty) (its cells, or
    /// the samples of its border).
    fn block_used_in_view(&self, tx: usize, ty: usize) -> bool {
        let Some(t) = self.hf.tiling() else { return true };
        let (ncx, ncy) = (self.hf.nx() - 1, self.hf.ny() - 1);
        let c = t.tile_cells(tx, ty, ncx, ncy);
        self.tiles.keys().any(|&k| {
            let v = self.tile_cells(k);
            (v[0] as usize) <= c[2] && c[0] <= v[2] as usize && (v[1] as usize) <= c[3] && c[1] <= v[3] as usize
        })
    }

    /// Whether any tile in the view uses a sample in `s0..s1` (a sample on a tile border belongs
    /// to the tiles on both sides).
    fn used_in_view(&self, s0: usize, s1: usize) -> bool {
        let (nx, t) = (self.hf.nx(), self.params.tile_cells);
        let owners = |k: usize, n: u32| -> (u32, u32) {
            let hi = ((k / t) as u32).min(n - 1);
            let lo = if k.is_multiple_of(t) && k > 0 { ((k / t) as u32 - 1).min(n - 1) } else { hi };
            (lo, hi)
        };
        for j in s0 / nx..=(s1 - 1) / nx {
            let (i0, i1) = (s0.max(j * nx) - j * nx, (s1 - 1).min(j * nx + nx - 1) - j * nx);
            let (ty0, ty1) = owners(j, self.nty);
            let (tx0, _) = owners(i0, self.ntx);
            let (_, tx1) = owners(i1, self.ntx);
            for ty in ty0..=ty1 {
                if (tx0..=tx1).any(|tx| self.tiles.contains_key(&(tx, ty))) {
                    return true;
                }
            }
        }
        false
    }
}

/// The paper's access algorithm over the tiles in the view: the motion's sphere against each
/// tile's nodes (squared distances), down to the leaves, whose cells' triangles are the candidates.
impl SphereWalk for TileView {
    fn walk(&self, mc: DVec3, mr: f64, mut visit: impl FnMut(TriangleId, &[DVec3; 3])) {
        for tile in self.tiles.values() {
            let nodes = tile.nodes(self);
            let mut k = 0;
            while k < nodes.len() {
                let n = &nodes[k];
                let reach = n.radius + mr;
                if n.center.distance_squared(mc) > reach * reach {
                    k = n.next as usize;
                    continue;
                }
                if n.is_leaf() {
                    for j in n.cells[1]..n.cells[3] {
                        for i in n.cells[0]..n.cells[2] {
                            for half in [Half::South, Half::North] {
                                if let Some(tri) = self.hf.cell_triangle(i as usize, j as usize, half) {
                                    visit(TriangleId::Cell { i, j, half }, &tri);
                                }
                            }
                        }
                    }
                }
                k += 1;
            }
        }
    }
}

/// Calls `f(tx, ty)` for every tile of the tiled heightfield `hf` holding a sample of cells `c`
/// (their border included).
fn for_tiles_under(hf: &Heightfield, c: [u32; 4], mut f: impl FnMut(usize, usize)) {
    let Some(t) = hf.tiling() else { return };
    let tile = |s: u32, n: usize| (s as usize / t.cells).min(n - 1);
    let lo = |s: u32, n: usize| (s.saturating_sub(1) as usize / t.cells).min(n - 1);
    for ty in lo(c[1], t.nty)..=tile(c[3], t.nty) {
        for tx in lo(c[0], t.ntx)..=tile(c[2], t.ntx) {
            f(tx, ty);
        }
    }
}

/// A tile's samples, without a heightfield: what `landfall build` has of a tile when it stores its
/// tree ([`tile_tree`]).
#[derive(Clone, Copy, Debug)]
pub struct TileSamples<'a> {
    /// The tile's block: `(cells + 1)²` samples row-major from its south-west sample, NaN past the
    /// grid (see [`Tiling`]).
    pub block: &'a [f32],
    /// The heightfield's tiles.
    pub tiling: Tiling,
    /// The tile's column and row.
    pub key: (u32, u32),
    /// The heightfield's samples along x and y.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// The heightfield's origin and spacing.
    pub origin: DVec2,
    /// Spacing.
    pub spacing: DVec2,
}

/// The samples a tree is built from: a heightfield's, or a tile's alone.
trait Grid {
    /// Sample (i, j), grid indices.
    fn z(&self, i: u32, j: u32) -> f32;
    /// World x, y of sample (i, j), as [`Heightfield::sample_position`] computes them.
    fn xy(&self, i: u32, j: u32) -> DVec2;
    /// Lowest and highest sample around cells `c` (samples `c[0]..=c[2]` × `c[1]..=c[3]`), holes
    /// left out: `[∞, −∞]` when all are holes.
    fn z_range(&self, c: [u32; 4]) -> [f32; 2] {
        let mut r = [f32::INFINITY, f32::NEG_INFINITY];
        for j in c[1]..=c[3] {
            for i in c[0]..=c[2] {
                r = widen(r, &[self.z(i, j)]);
            }
        }
        r
    }
}

impl Grid for Heightfield {
    fn z(&self, i: u32, j: u32) -> f32 {
        self.sample(i as usize, j as usize)
    }
    fn xy(&self, i: u32, j: u32) -> DVec2 {
        self.sample_position(i as usize, j as usize).truncate()
    }
}

impl Grid for TileSamples<'_> {
    fn z(&self, i: u32, j: u32) -> f32 {
        let (i0, j0) = (self.key.0 as usize * self.tiling.cells, self.key.1 as usize * self.tiling.cells);
        self.block[(j as usize - j0) * self.tiling.side() + (i as usize - i0)]
    }
    fn xy(&self, i: u32, j: u32) -> DVec2 {
        DVec2::new(self.origin.x + i as f64 * self.spacing.x, self.origin.y + j as f64 * self.spacing.y)
    }
    fn z_range(&self, c: [u32; 4]) -> [f32; 2] {
        // The block's rows, as slices (what `landfall build` runs for every leaf).
        let (i0, j0) = (self.key.0 as usize * self.tiling.cells, self.key.1 as usize * self.tiling.cells);
        let (side, a, b) = (self.tiling.side(), c[0] as usize - i0, c[2] as usize - i0);
        range_of_rows((c[1] as usize - j0..=c[3] as usize - j0).map(|j| &self.block[j * side + a..=j * side + b]))
    }
}

/// The tree a [`TileView`] with `params` builds for tile `t.key`, from the tile's samples alone
/// (`params.tile_cells` must be `t.tiling.cells`): what `landfall build` stores per tile. Refuses
/// invalid `params` ([`TileViewParams::validate`]).
pub fn tile_tree(t: &TileSamples, params: &TileViewParams) -> Result<Vec<TileNode>, ParamError> {
    let mut nodes = Vec::new();
    tile_tree_into(t, params, &mut nodes)?;
    Ok(nodes)
}

/// [`tile_tree`] into `nodes` (cleared first, its room reused); also returns the range of the
/// tile's valid samples inside the grid (`None` when all are holes, and the tree is empty).
pub fn tile_tree_into(
    t: &TileSamples,
    params: &TileViewParams,
    nodes: &mut Vec<TileNode>,
) -> Result<Option<[f32; 2]>, ParamError> {
    params.validate()?;
    let (ncx, ncy) = (t.nx - 1, t.ny - 1);
    let c = t.tiling.tile_cells(t.key.0 as usize, t.key.1 as usize, ncx, ncy).map(|c| c as u32);
    nodes.clear();
    // The box's heights are the samples' f32 values, exactly.
    Ok(build(t, c, 0, params, nodes).map(|b| [b.min.z as f32, b.max.z as f32]))
}

/// Builds the tree over cells `c` (columns c[0]..c[2], rows c[1]..c[3]) depth-first into `nodes`;
/// returns the node's box, or `None` (and no node) when every sample is a hole.
fn build(
    hf: &(impl Grid + ?Sized),
    c: [u32; 4],
    level: usize,
    params: &TileViewParams,
    nodes: &mut Vec<TileNode>,
) -> Option<Aabb> {
    let (w, h) = (c[2] - c[0], c[3] - c[1]);
    let leaf = (w.max(h) as usize) <= params.leaf_cells || level + 1 >= params.max_levels;
    let at = nodes.len();
    nodes.push(TileNode { center: DVec3::ZERO, radius: 0.0, next: 0, leaf: leaf as u32, cells: c });
    let bounds = if leaf {
        leaf_box(hf, c)
    } else {
        // Split the longer sides in halves (quadrants, or halves of a strip).
        let (mx, my) = (if w > 1 { c[0] + w / 2 } else { c[2] }, if h > 1 { c[1] + h / 2 } else { c[3] });
        let mut b: Option<Aabb> = None;
        for (x0, x1) in [(c[0], mx), (mx, c[2])] {
            for (y0, y1) in [(c[1], my), (my, c[3])] {
                if x1 > x0 && y1 > y0 {
                    if let Some(child) = build(hf, [x0, y0, x1, y1], level + 1, params, nodes) {
                        b = Some(b.map_or(child, |b| b.union(&child)));
                    }
                }
            }
        }
        b
    };
    match bounds {
        Some(b) => {
            let center = (b.min + b.max) * 0.5;
            // Rounding of the center and of the distances the walk compares: a relative and an
            // absolute margin far above both.
            let radius = (b.max - b.min).length() * 0.5 * (1.0 + 1e-9) + 1e-9 * (1.0 + center.abs().max_element());
            nodes[at] = TileNode { center, radius, next: nodes.len() as u32, leaf: leaf as u32, cells: c };
            Some(b)
        }
        None => {
            nodes.truncate(at);
            None
        }
    }
}

/// The box of the samples around cells `c` (holes left out), `None` when all are holes.
fn leaf_box(hf: &(impl Grid + ?Sized), c: [u32; 4]) -> Option<Aabb> {
    let [lo, hi] = hf.z_range(c);
    if lo > hi {
        return None;
    }
    let (a, b) = (hf.xy(c[0], c[1]), hf.xy(c[2], c[3]));
    Some(Aabb::new(DVec3::new(a.x, a.y, lo as f64), DVec3::new(b.x, b.y, hi as f64)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// `used_in_view` against brute force: a sample range is used when one of its samples lies in
    /// (or on the border of) a tile in the view — random views, random ranges spanning rows.
    #[test]
    fn pages_in_use_match_brute_force() {
        let (nx, ny, t) = (53usize, 41usize, 8usize);
        let hf = Arc::new(Heightfield::builder(nx, ny, vec![0.0; nx * ny]).build().unwrap());
        let mut rng = SplitMix64::new(3);
        for _ in 0..200 {
            let mut view = TileView::new(hf.clone(), TileViewParams { tile_cells: t, ..Default::default() }).unwrap();
            let (ntx, nty) = view.tile_counts();
            for _ in 0..(rng.uniform() * 5.0) as usize {
                view.add(((rng.uniform() * ntx as f64) as u32, (rng.uniform() * nty as f64) as u32));
            }
            for _ in 0..50 {
                let s0 = (rng.uniform() * (nx * ny) as f64) as usize;
                let s1 = (s0 + 1 + (rng.uniform() * 120.0) as usize).min(nx * ny);
                let want = (s0..s1).any(|s| {
                    let (i, j) = (s % nx, s / nx);
                    view.tiles().any(|tile| {
                        let c = view.tile_cells(tile.key);
                        (c[0] as usize..=c[2] as usize).contains(&i) && (c[1] as usize..=c[3] as usize).contains(&j)
                    })
                });
                assert_eq!(view.used_in_view(s0, s1), want, "samples {s0}..{s1}");
            }
        }
    }
}
