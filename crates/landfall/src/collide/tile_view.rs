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
//! own, read when a sweep reaches the leaf (with 4 × 4-cell leaves, about 5 bytes a cell for the
//! tree, against about 150 for a [`SphereTree`](super::SphereTree), which copies its triangles).

use super::sphere_walk::SphereWalk;
use crate::geom::{Aabb, Half, TriangleId};
use crate::heightfield::Heightfield;
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How tiles and their trees are cut.
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// Why a tile view cannot be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TileViewError {
    /// A size of zero, or tiles too large to count cells in 32 bits.
    #[error("tile_cells ({tile_cells}), leaf_cells ({leaf_cells}) and max_levels ({max_levels}) must be at least 1, tile_cells at most 65536")]
    BadParams {
        /// [`TileViewParams::tile_cells`].
        tile_cells: usize,
        /// [`TileViewParams::leaf_cells`].
        leaf_cells: usize,
        /// [`TileViewParams::max_levels`].
        max_levels: usize,
    },
}

/// A node of a tile's serialized tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileNode {
    /// Sphere center.
    pub center: DVec3,
    /// Sphere radius: every triangle of the node's cells lies inside.
    pub radius: f64,
    /// Index of what follows this node's subtree (the next sibling, or further).
    pub next: u32,
    /// True for a leaf: its cells' triangles are tested.
    pub leaf: bool,
    /// The node's cells: columns `cells[0]..cells[2]`, rows `cells[1]..cells[3]` (grid indices).
    pub cells: [u32; 4],
}

/// A tile in the view: its cells and its tree.
#[derive(Clone, Debug)]
pub struct Tile {
    /// The tile's column and row among the tiles.
    pub key: (u32, u32),
    nodes: Vec<TileNode>,
}

impl Tile {
    /// The serialized tree (root first; empty when every cell of the tile is a hole).
    pub fn nodes(&self) -> &[TileNode] {
        &self.nodes
    }
}

/// What one [`TileView::update`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewChange {
    /// Tiles that entered the view (their trees were built).
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
/// let params = TileViewParams { tile_cells: 16, ..Default::default() };
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
}

impl TileView {
    /// A view of `hf` with no tile in it yet.
    pub fn new(hf: Arc<Heightfield>, params: TileViewParams) -> Result<Self, TileViewError> {
        let TileViewParams { tile_cells, leaf_cells, max_levels } = params;
        if tile_cells == 0 || tile_cells > 1 << 16 || leaf_cells == 0 || max_levels == 0 {
            return Err(TileViewError::BadParams { tile_cells, leaf_cells, max_levels });
        }
        // Pages are let go of one by one: small ones.
        hf.set_huge_pages(false);
        let ntx = (hf.nx() - 1).div_ceil(tile_cells) as u32;
        let nty = (hf.ny() - 1).div_ceil(tile_cells) as u32;
        Ok(Self { hf, params, ntx, nty, tiles: BTreeMap::new(), built: 0 })
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

    /// How many trees have been built since the view was made (a tile that stays is never rebuilt).
    pub fn trees_built(&self) -> u64 {
        self.built
    }

    /// Bytes held by the trees of the tiles in the view.
    pub fn memory_bytes(&self) -> usize {
        self.tiles.values().map(|t| t.nodes.len() * std::mem::size_of::<TileNode>()).sum()
    }

    /// Cells of tile `key`: columns and rows (end exclusive).
    fn tile_cells(&self, (tx, ty): (u32, u32)) -> [u32; 4] {
        let t = self.params.tile_cells as u32;
        let (cx, cy) = ((self.hf.nx() - 1) as u32, (self.hf.ny() - 1) as u32);
        [tx * t, ty * t, ((tx + 1) * t).min(cx), ((ty + 1) * t).min(cy)]
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
        let c = self.tile_cells(key);
        let nx = self.hf.nx();
        for j in c[1] as usize..=c[3] as usize {
            self.hf.prefetch_samples(j * nx + c[0] as usize..j * nx + c[2] as usize + 1);
        }
        let mut nodes = Vec::new();
        build(&self.hf, c, 0, &self.params, &mut nodes);
        self.built += 1;
        self.tiles.insert(key, Tile { key, nodes });
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
        let nx = self.hf.nx();
        let heights = self.hf.heights();
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
            let nodes = &tile.nodes;
            let mut k = 0;
            while k < nodes.len() {
                let n = &nodes[k];
                let reach = n.radius + mr;
                if n.center.distance_squared(mc) > reach * reach {
                    k = n.next as usize;
                    continue;
                }
                if n.leaf {
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

/// Builds the tree over cells `c` (columns c[0]..c[2], rows c[1]..c[3]) depth-first into `nodes`;
/// returns the node's box, or `None` (and no node) when every sample is a hole.
fn build(
    hf: &Heightfield,
    c: [u32; 4],
    level: usize,
    params: &TileViewParams,
    nodes: &mut Vec<TileNode>,
) -> Option<Aabb> {
    let (w, h) = (c[2] - c[0], c[3] - c[1]);
    let leaf = (w.max(h) as usize) <= params.leaf_cells || level + 1 >= params.max_levels;
    let at = nodes.len();
    nodes.push(TileNode { center: DVec3::ZERO, radius: 0.0, next: 0, leaf, cells: c });
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
            nodes[at] = TileNode { center, radius, next: nodes.len() as u32, leaf, cells: c };
            Some(b)
        }
        None => {
            nodes.truncate(at);
            None
        }
    }
}

/// The box of the samples around cells `c` (holes left out), `None` when all are holes.
fn leaf_box(hf: &Heightfield, c: [u32; 4]) -> Option<Aabb> {
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for j in c[1]..=c[3] {
        for i in c[0]..=c[2] {
            let z = hf.sample(i as usize, j as usize);
            if !z.is_nan() {
                lo = lo.min(z);
                hi = hi.max(z);
            }
        }
    }
    if lo > hi {
        return None;
    }
    let (a, b) = (hf.sample_position(c[0] as usize, c[1] as usize), hf.sample_position(c[2] as usize, c[3] as usize));
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
