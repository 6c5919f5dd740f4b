//! Heightfield terrain: a regular grid of f32 samples, triangulated exactly (never bilinear).
//!
//! Sample (i, j) stands at world (origin.x + i·dx, origin.y + j·dy, h[j·nx + i]); row 0 is the south
//! edge. Cell (i, j) spans samples i..i+1, j..j+1 and is split into two triangles by its
//! [`Diagonal`]. A NaN sample removes every triangle that uses it; the hole mask removes whole cells.
//!
//! Queries:
//! * vertical — [`Heightfield::height_at`], [`Heightfield::surface_at`]: O(1), index the cell, pick
//!   the triangle, evaluate its plane;
//! * rays — [`Heightfield::raycast`]: front-to-back descent of the min/max [`Pyramid`], then a walk of
//!   the cells under the projected ray, watertight by construction (see `raycast.rs`).
//!
//! # How it works
//!
//! Samples are `f32` (`h[j * nx + i]`, row 0 south), coordinates and every computation are `f64`.
//! Storing f32 keeps memory at 4 bytes per sample; computing in f64 keeps answers exact to f64 rounding
//! for georeferenced grids whose coordinates are in the hundreds of thousands or millions (UTM).
//! The generator, the world's corner grids and the raster loader write their samples into a
//! `sample_buffer`, advised for 2 MiB pages before the first write: random vertical queries on a 4097²
//! grid then miss the TLB far less (`docs/benchmarks.md`). The builder keeps whatever `Vec` it gets.
//! Heights between samples are evaluated on the triangles (the three diagonal patterns of `docs/conventions.md`), never
//! bilinearly, so a query and a rendered mesh of the same triangles agree.
//!
//! Holes: a NaN sample removes every triangle that uses it, a per-cell mask (one bit per cell) removes
//! both triangles of a cell. The heightfield keeps a count of NaN samples (updated by edits) so the ray
//! walk can take a hole-free fast path.
//!
//! ## Vertical queries — O(1)
//!
//! `height_at` / `surface_at`: world → grid coordinates, index the cell, pick the triangle by the side of
//! the diagonal, evaluate its plane (the 2017 paper's section 3.6). Each triangle is stored nowhere: its
//! plane `z = c + gu·fu + gv·fv` is computed from the three samples it uses, so a NaN corner makes the
//! plane NaN, which is the hole test. When the point's own triangle is a hole, the neighbouring
//! triangles that contain the point (it is then on a shared border) are tried before answering "hole";
//! "contain" allows `BORDER_EPS` = 1e-9 cell of rounding, because world coordinates of a vertex rarely
//! convert to exact grid coordinates. Points within that tolerance of the grid's edge count as on it.
//!
//! ## Min/max pyramid
//!
//! The 2017 paper's T-pyramid, generalised to any grid size: level 0 has one node per `leaf × leaf`
//! block of cells (the last row and column of blocks may be partial), each next level merges 2×2 nodes,
//! up to a single root. Each node bounds the valid samples of its block, edges included, all levels in
//! one flat array. Built in parallel (rows of leaves with rayon), upper levels from their children.
//! Each level is stored row by row with padding: a row holds a multiple of four nodes, at least three
//! more than the level has, and as many rows follow, all empty (+2.4 % nodes on 4097², still 4.09
//! bytes per sample with the heights). So the grandchildren of any node are an aligned 4 × 4 block,
//! and the stack walk reads any 4 × 4 block whose first node is in the level with one bounds check and
//! no case for the last row or column.
//!
//! Node ranges are quantised **outward** to two `u16` codes of a grid-wide quantum (`base + q·step`,
//! `step` = height range / 65534 — 1.2 cm for 800 m of relief): the minimum rounded down, the maximum
//! up, so a range always contains its samples and is at most one quantum wider. Rounding is monotone,
//! so a parent is the min/max of its children's codes. Four bytes per node instead of eight halve the
//! pyramid's cache footprint, which is what the walk waits on for large grids (A/B on 4097²: 5–15 %
//! faster rays). With the default leaf of 8 cells the pyramid costs 1/64 node per sample · 4/3 for the upper
//! levels · 4 bytes ≈ 0.083
//! bytes per sample (2.1 % of the heights). The exact height range of the whole grid is kept beside it
//! (for `bounds`, `info` and the ray's height-slab clip).
//!
//! Edits (`set_samples`) overwrite a rectangle and recompute only the leaves whose sample range (edges
//! included) contains a changed sample, then their ancestors. An edit whose new heights fall outside
//! the quantisation range rebuilds the pyramid on a new range; the exact grid range is widened by the new
//! values, or rescanned when an old extreme was overwritten. A property test checks, after random edit
//! sequences, every node against a brute-force scan of its block (contains it, at most one quantum
//! wider) and the exact range against a scan.
//!
//! ## Ray casts
//!
//! `raycast(ray, max_t)` returns the first crossing for t in [0, max_t], from either side.
//!
//! 1. **Setup.** The ray is mapped to grid space (u, v in cells, z and t unchanged), clipped to the grid
//!    rectangle (widened by `BORDER_EPS`) and to the terrain's height slab [min, max]; a vertical ray
//!    (no x-y motion) is answered directly by the vertical query. The descent starts at the lowest
//!    level whose nodes are as wide as what remains of the ray (its top level), so a short steep ray
//!    skips the upper levels altogether. A ray that starts near the ground — inside the slab, within a
//!    sixteenth of the relief of the height range of the leaf under its start (a line of sight, a ray
//!    from a walker) — starts at that leaf instead and climbs, never above its top level, as nodes are
//!    pruned: descending from the top would only bring it back to where it starts (a fifth of a
//!    line-of-sight ray's instructions). The walk is exact from any start level, since every node it
//!    tests covers only the part of the ray ahead.
//! 2. **Pyramid walk (stackless; with a stack for rays from above).** Test the node the ray is in: does
//!    the ray's z over its parameter interval inside the node overlap the node's [min, max] (with a
//!    tiny margin for rounding)? If so, descend into the child that holds the ray (ties broken by the
//!    direction of travel); at a leaf, walk its cells. Otherwise — or after the leaf — step to the next
//!    node at the same level along the axis the ray leaves by, and, when the node just left was pruned,
//!    ascend while that step left the parent. Near the surface the walk stays low instead of
//!    re-descending at every parent boundary. No queue, no sort, no stack: t only grows, front to back
//!    by construction.
//!    **Or the stack walk, for rays from above** (`heightfield/stack_walk.rs`). A ray that enters the
//!    slab through its top or bottom and spans more than one node of level 2 (`STACK_WALK_MIN_LEVEL`)
//!    is walked from the lowest 4 × 4 block of nodes (at an even level) that holds all of it instead,
//!    two levels per step. The sixteen nodes of a block are tested at once: their t intervals are
//!    split at the block's inner lines and cut to where the ray's height is inside each node's range,
//!    one AVX2 register of four f64 lanes per row of nodes (a code's t is one multiply and one add by
//!    per-ray constants; without AVX2 the same operations run one node at a time, with the same bits).
//!    The nodes are numbered row by row, mirrored so that the ray enters node (0, 0) first: along a
//!    straight ray both column and row only grow, so of two nodes it may cross the lower number comes
//!    first, and the test's mask is already in the order the ray meets them. The nearest is visited at once (its grandchildren are
//!    the next block, or its cells are walked); the others wait on the stack with their block (the
//!    sixteen intervals, written there by the SIMD test, and a mask of the nodes left), nearest first,
//!    without a branch per node, and a leaf's cells are walked only over its cut interval. While a
//!    block is tested its grandchildren's rows are fetched, and before the first leaf of a block is
//!    walked every leaf of it the ray may cross is. An oblique ray on 4097² expands 5.0 blocks where
//!    the 2 × 2 walk before it expanded 9.4. Where the ray stays low or is short, the stackless walk is
//!    cheaper: it crosses one node at a time. The choice is made once per ray, and either walk gives
//!    the same hits, t to within 2e-15 (`docs/benchmarks.md`).
//! 3. **Cell walk (the paper's section 3.4).** A DDA over the leaf's cells under the projected ray. Each
//!    cell is first rejected by its four corners (the ray strictly above or below them); the rest are
//!    split at the diagonal and each triangle piece tested exactly.
//! 4. **Exact test and watertightness.** On each piece the gap `f(t) = z_ray(t) − z_terrain(t)` is
//!    linear, so the ray crosses that triangle iff `f` changes sign between the piece's ends; the hit
//!    is where the linear `f` is zero. The value of `f` at a breakpoint is computed once and carried
//!    into the next piece ("the chain"), so consecutive pieces agree exactly at their shared point, and
//!    a sign change anywhere along a run of walked pieces is seen by some piece: no ray slips between
//!    two triangles through a shared edge or vertex, whatever the rounding. A run is broken only by a
//!    hole or by a pruned node or cell, and pruning requires the ray to stay strictly above or below,
//!    where `f` cannot change sign. A gap within `TOUCH_EPS` (1e-10 relative) counts as zero, so
//!    tangent touches at creases, peaks and flat patches are reported rather than left to rounding.
//!
//! The hit carries t (in units of |dir|), the point, the triangle's geometric normal oriented against
//! gravity, and the triangle id (cell + half). Invalid rays (NaN/∞ components, zero direction) and a
//! NaN or negative `max_t` are documented misses; `Ray::validate` says which. A direction of any length
//! gives the same crossing: one whose largest component lies outside 2^±64 is walked scaled by a power
//! of two (exactly) and its t scaled back, so a tiny direction does not lose a component to the walk's
//! "too small to move" cutoff (a t beyond f64 is a miss).
//!
//! `crossings(ray, t_min, t_max, visit)` continues past hits and reports every crossing in order (used
//! for "all surfaces along a tilted gravity line"). `raycast_batch` runs rays in parallel with rayon.
//!
//! Hot-path shape: the node loop, the leaf walk and the exact cell test are separate functions (the two
//! inner ones out of line) so the loops keep their values in registers; a const generic removes the hole
//! checks on hole-free terrains; conversions between cell indices and floats go through 32-bit
//! integers (the unsigned 64-bit ones are multi-instruction on x86-64); a leaf's sample rows are
//! prefetched as the walk descends into it, and a node's children (a block's, in the stack walk) while
//! the node is tested, so the next level's codes are on their way (oblique rays on 4097² −10 %). The
//! `stats` feature counts node steps, leaves, cells and
//! exact tests per ray (`cargo run --release -p landfall-bench --features stats --example
//! profile_rays -- oblique 4097`).
//!
//! ## Baselines
//!
//! `raycast_baseline(Baseline::NoPruning | Baseline::QuadtreeOnly, …)` keeps the 2017 paper's reference
//! methods callable: every triangle (Möller–Trumbore), and the quadtree search with a queue, 3-D slab
//! tests, leaves sorted by entry distance and every triangle of each leaf tested. They allocate and are
//! slow by design; they exist for Table 4.1.

#[cfg(any(test, feature = "bench-support"))]
mod baseline;
pub(crate) mod cell;
mod edit;
mod parts;
mod pyramid;
mod raycast;
mod stack_walk;
#[cfg(any(test, feature = "bench-support"))]
pub mod synth;
mod terrain;
pub(crate) mod tiles;
mod triangles;
mod vertical;
pub mod workload;

#[cfg(any(test, feature = "bench-support"))]
pub use baseline::Baseline;
pub use cell::Diagonal;
pub use parts::{HeightfieldParts, TileParts};
pub(crate) use pyramid::{range_of_rows, widen};
pub use pyramid::{LeafRanges, Pyramid};
#[cfg(feature = "stats")]
pub use raycast::take_stats;
pub use raycast::TOUCH_EPS;
pub use tiles::Tiling;
pub use vertical::BORDER_EPS;

use crate::flat::Flat;
use crate::frame::Frame;
use crate::geom::Aabb;
use glam::{DVec2, DVec3};

/// Default pyramid leaf size in cells (see `docs/benchmarks.md` for the measurement behind it).
pub const DEFAULT_LEAF_SIZE: usize = 8;

/// Largest pyramid leaf size, cells (a leaf that wide is a brute-force scan already).
pub const MAX_LEAF_SIZE: usize = 1 << 16;

/// Most samples a heightfield may have (2⁴², about 4.4 · 10¹²); sample and cell indices are 64-bit.
pub const MAX_SAMPLES: u64 = 1 << 42;

/// Most samples along one axis (2³¹ − 1): a column or row index fits an `i32`, which the walks'
/// fast conversions and [`TriangleId`](crate::TriangleId)'s `u32` rely on.
pub const MAX_SIDE: usize = i32::MAX as usize;

/// Why a heightfield cannot be built or edited.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HeightfieldError {
    /// Fewer than 2 samples along an axis.
    #[error("a heightfield needs at least 2×2 samples, got {nx}×{ny}")]
    TooSmall {
        /// Columns given.
        nx: usize,
        /// Rows given.
        ny: usize,
    },
    /// The grid has more samples than [`MAX_SAMPLES`], or more than [`MAX_SIDE`] along an axis.
    #[error("grid of {nx}×{ny} samples is too large (at most 2^42 samples, 2^31 − 1 along an axis)")]
    TooLarge {
        /// Columns given.
        nx: usize,
        /// Rows given.
        ny: usize,
    },
    /// `heights.len()` is not nx·ny.
    #[error("expected {expected} height samples (nx·ny), got {got}")]
    WrongLength {
        /// nx·ny.
        expected: usize,
        /// What was given.
        got: usize,
    },
    /// A sample is ±infinity (NaN is allowed: it is a hole).
    #[error("sample ({i}, {j}) is infinite; use NaN for holes")]
    InfiniteSample {
        /// Column.
        i: usize,
        /// Row.
        j: usize,
    },
    /// Spacing not finite and > 0.
    #[error("spacing must be finite and > 0, got ({dx}, {dy})")]
    BadSpacing {
        /// x spacing.
        dx: f64,
        /// y spacing.
        dy: f64,
    },
    /// Origin not finite.
    #[error("origin must be finite, got ({x}, {y})")]
    BadOrigin {
        /// x of the south-west sample.
        x: f64,
        /// y of the south-west sample.
        y: f64,
    },
    /// The sample positions cannot be told apart in f64: the far corner overflows, or the spacing
    /// is below 2⁻⁴⁰ of the largest coordinate (or its inverse overflows).
    #[error(
        "sample positions are not representable in f64: origin ({x}, {y}), spacing ({dx}, {dy}); the far corner \
         must be finite and the spacing at least 2^-40 (about 1e-12) of the largest coordinate"
    )]
    Unrepresentable {
        /// x of the south-west sample.
        x: f64,
        /// y of the south-west sample.
        y: f64,
        /// x spacing.
        dx: f64,
        /// y spacing.
        dy: f64,
    },
    /// Pyramid leaf size of 0, or above [`MAX_LEAF_SIZE`].
    #[error("pyramid leaf size must be 1 to 65,536 cells")]
    BadLeafSize,
    /// A stored pyramid that does not fit its grid.
    #[error("stored pyramid: {0}")]
    BadPyramid(String),
    /// Hole mask of the wrong length.
    #[error("hole mask must have (nx−1)·(ny−1) = {expected} entries, got {got}")]
    WrongMaskLength {
        /// (nx−1)·(ny−1).
        expected: usize,
        /// What was given.
        got: usize,
    },
    /// A tiled heightfield (an index file's) that does not fit its grid.
    #[error("stored tiles: {0}")]
    BadTiles(String),
    /// An edit of a tiled heightfield (an index file's, which is read-only).
    #[error("a tiled heightfield (an index file) cannot be edited: load the raster to edit it")]
    TiledEdit,
    /// An edit rectangle outside the grid, or values of the wrong length.
    #[error("edit of {w}×{h} samples at ({i0}, {j0}) does not fit the {nx}×{ny} grid or its values")]
    BadEdit {
        /// First column.
        i0: usize,
        /// First row.
        j0: usize,
        /// Width in samples.
        w: usize,
        /// Height in samples.
        h: usize,
        /// Grid columns.
        nx: usize,
        /// Grid rows.
        ny: usize,
    },
}

/// A heightfield terrain with its min/max pyramid. Build it with [`Heightfield::builder`].
///
/// ```
/// use landfall::{Heightfield, Ray, Terrain};
/// use landfall::glam::DVec3;
///
/// // 3 × 2 samples, row-major from the south-west corner, spacing 1: a ridge along x = 1.
/// let hf = Heightfield::builder(3, 2, vec![0.0, 4.0, 0.0, 0.0, 4.0, 0.0]).build()?;
/// assert_eq!(hf.height_at(0.5, 0.5), Some(2.0)); // exact on the triangles, never bilinear
/// let hit = hf.raycast(&Ray::new(DVec3::new(-1.0, 0.5, 3.0), DVec3::X), f64::INFINITY).unwrap();
/// assert!((hit.point.x - 0.75).abs() < 1e-12);
/// # Ok::<(), landfall::HeightfieldError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Heightfield {
    nx: usize,
    ny: usize,
    origin: DVec2,
    spacing: DVec2,
    inv_spacing: DVec2,
    /// The samples: row-major (owned, or mapped), or per tile (a memory-mapped index file,
    /// `landfall build … -o X.lfh`).
    samples: Samples,
    diagonal: Diagonal,
    /// One bit per cell, set = hole. Empty when the heightfield has no masked cells.
    hole_mask: Flat<u64>,
    /// Number of NaN samples (kept up to date by edits); with an empty mask, 0 means no holes.
    nodata: usize,
    pyramid: Pyramid,
    frame: Frame,
}

/// Where a heightfield's samples live.
#[derive(Clone, Debug)]
pub(crate) enum Samples {
    /// Row-major, `h[j·nx + i]`: a raster in memory.
    Rows(Flat<f32>),
    /// Per tile (see `tiles.rs`): an index file.
    Tiles(tiles::TiledSamples),
}

/// A heightfield's samples from one cell's south-west corner on (see [`Heightfield::cell_run`]).
#[derive(Clone, Copy)]
pub(crate) struct CellRun<'a> {
    h: &'a [f32],
    /// Index of the first cell's south-west corner; samples from one row to the next.
    base: usize,
    stride: usize,
}

impl CellRun<'_> {
    /// Corner heights [h00, h10, h01, h11] of the cell `di` east and `dj` north of the first (one
    /// bounds check for the four).
    #[inline(always)]
    pub(crate) fn corners(&self, di: usize, dj: usize) -> [f32; 4] {
        let (k, n) = (self.base + dj * self.stride + di, self.stride);
        let c = &self.h[k..k + n + 2];
        [c[0], c[1], c[n], c[n + 1]]
    }
}

/// Builder for a [`Heightfield`]: grid, georeferencing, triangulation, holes, pyramid leaf size.
///
/// ```
/// use landfall::{Diagonal, Heightfield};
///
/// // 3 × 2 samples, 10 m apart, the south-west sample at (500, 200); a NaN is a hole.
/// let heights = vec![1.0, 2.0, 3.0, 4.0, 5.0, f32::NAN];
/// let hf = Heightfield::builder(3, 2, heights)
///     .origin(500.0, 200.0)
///     .spacing(10.0, 10.0)
///     .diagonal(Diagonal::SouthWestNorthEast)
///     .build()
///     .unwrap();
/// assert_eq!(hf.height_at(500.0, 200.0), Some(1.0));
/// assert_eq!(hf.height_at(515.0, 205.0), None); // every triangle there uses the hole
/// assert!(Heightfield::builder(1, 1, vec![0.0]).build().is_err()); // at least 2 × 2
/// ```
#[derive(Clone, Debug)]
pub struct HeightfieldBuilder {
    nx: usize,
    ny: usize,
    heights: Vec<f32>,
    origin: DVec2,
    spacing: DVec2,
    diagonal: Diagonal,
    hole_mask: Option<Vec<bool>>,
    leaf_size: usize,
    frame: Frame,
}

/// The index of the first infinite sample: a block of samples at a time, each block checked
/// without a branch per sample (which vectorises).
fn first_infinite(h: &[f32]) -> Option<usize> {
    const BLOCK: usize = 1024;
    h.chunks(BLOCK).enumerate().find_map(|(c, block)| {
        let any = block.iter().fold(false, |a, x| a | x.is_infinite());
        any.then(|| c * BLOCK + block.iter().position(|x| x.is_infinite()).unwrap_or(0))
    })
}

impl HeightfieldBuilder {
    /// World position (x, y) of sample (0, 0), the south-west corner. Default (0, 0).
    pub fn origin(mut self, x: f64, y: f64) -> Self {
        self.origin = DVec2::new(x, y);
        self
    }

    /// Sample spacing along x and y (they may differ). Default (1, 1).
    pub fn spacing(mut self, dx: f64, dy: f64) -> Self {
        self.spacing = DVec2::new(dx, dy);
        self
    }

    /// Cell triangulation. Default [`Diagonal::Alternating`].
    pub fn diagonal(mut self, diagonal: Diagonal) -> Self {
        self.diagonal = diagonal;
        self
    }

    /// Per-cell holes, `(nx−1)·(ny−1)` entries row-major (`true` = no ground in that cell).
    pub fn hole_mask(mut self, mask: Vec<bool>) -> Self {
        self.hole_mask = Some(mask);
        self
    }

    /// Pyramid leaf size in cells (1 to [`MAX_LEAF_SIZE`]). Default [`DEFAULT_LEAF_SIZE`].
    pub fn leaf_size(mut self, cells: usize) -> Self {
        self.leaf_size = cells;
        self
    }

    /// Gravity frame for the [`Terrain`](crate::Terrain) vertical queries. Default Z up. The grid
    /// itself always lies in the world x-y plane; with another gravity, "vertical" queries follow
    /// the gravity line (ray casts along it).
    pub fn frame(mut self, frame: Frame) -> Self {
        self.frame = frame;
        self
    }

    /// Validates the input and builds the heightfield and its pyramid (in parallel).
    pub fn build(self) -> Result<Heightfield, HeightfieldError> {
        let (nx, ny) = (self.nx, self.ny);
        if nx < 2 || ny < 2 {
            return Err(HeightfieldError::TooSmall { nx, ny });
        }
        let Some(expected) = checked_size(nx, ny) else {
            return Err(HeightfieldError::TooLarge { nx, ny });
        };
        if self.heights.len() != expected {
            return Err(HeightfieldError::WrongLength { expected, got: self.heights.len() });
        }
        if let Some(k) = first_infinite(&self.heights) {
            return Err(HeightfieldError::InfiniteSample { i: k % nx, j: k / nx });
        }
        check_geometry(nx, ny, self.origin, self.spacing, self.leaf_size)?;
        let cells = (nx - 1) * (ny - 1);
        let hole_mask: Vec<u64> = match self.hole_mask {
            None => Vec::new(),
            Some(m) if m.len() != cells => {
                return Err(HeightfieldError::WrongMaskLength { expected: cells, got: m.len() })
            }
            Some(m) if !m.iter().any(|&b| b) => Vec::new(),
            Some(m) => {
                let mut bits = vec![0u64; cells.div_ceil(64)];
                for (k, _) in m.iter().enumerate().filter(|(_, &b)| b) {
                    bits[k / 64] |= 1 << (k % 64);
                }
                bits
            }
        };
        let pyramid = Pyramid::build(&self.heights, nx, ny, self.leaf_size);
        let nodata = self.heights.iter().filter(|h| h.is_nan()).count();
        Ok(Heightfield {
            nodata,
            nx,
            ny,
            origin: self.origin,
            spacing: self.spacing,
            inv_spacing: DVec2::ONE / self.spacing,
            samples: Samples::Rows(self.heights.into()),
            diagonal: self.diagonal,
            hole_mask: hole_mask.into(),
            pyramid,
            frame: self.frame,
        })
    }
}

/// nx · ny when the grid is within [`MAX_SAMPLES`] and [`MAX_SIDE`].
fn checked_size(nx: usize, ny: usize) -> Option<usize> {
    (nx <= MAX_SIDE && ny <= MAX_SIDE).then(|| nx.checked_mul(ny)).flatten().filter(|&n| n as u64 <= MAX_SAMPLES)
}

/// Checks a grid's size, spacing, origin and leaf size (what every heightfield needs, built or
/// loaded).
fn check_geometry(
    nx: usize,
    ny: usize,
    origin: DVec2,
    spacing: DVec2,
    leaf_size: usize,
) -> Result<(), HeightfieldError> {
    if nx < 2 || ny < 2 {
        return Err(HeightfieldError::TooSmall { nx, ny });
    }
    if checked_size(nx, ny).is_none() {
        return Err(HeightfieldError::TooLarge { nx, ny });
    }
    let DVec2 { x: dx, y: dy } = spacing;
    if !(dx.is_finite() && dy.is_finite() && dx > 0.0 && dy > 0.0) {
        return Err(HeightfieldError::BadSpacing { dx, dy });
    }
    if !origin.is_finite() {
        return Err(HeightfieldError::BadOrigin { x: origin.x, y: origin.y });
    }
    // Every sample position distinct and finite, with room to spare: f64 keeps at least 40 bits
    // of a coordinate for the position inside a cell.
    let far = origin + spacing * DVec2::new((nx - 1) as f64, (ny - 1) as f64);
    let largest = origin.abs().max(far.abs());
    let resolvable = spacing.cmpge(largest * (-40f64).exp2()).all() && (DVec2::ONE / spacing).is_finite();
    if !far.is_finite() || !resolvable {
        return Err(HeightfieldError::Unrepresentable { x: origin.x, y: origin.y, dx, dy });
    }
    if !(1..=MAX_LEAF_SIZE).contains(&leaf_size) {
        return Err(HeightfieldError::BadLeafSize);
    }
    Ok(())
}

impl Heightfield {
    /// Starts a heightfield of `nx` columns × `ny` rows, `heights[j·nx + i]`, row 0 south. The
    /// heightfield keeps this `Vec`: for a large grid, fill one from [`sample_buffer`](crate::pages::sample_buffer) to have it on
    /// 2 MiB pages where the OS offers them (faster random vertical queries).
    pub fn builder(nx: usize, ny: usize, heights: Vec<f32>) -> HeightfieldBuilder {
        HeightfieldBuilder {
            nx,
            ny,
            heights,
            origin: DVec2::ZERO,
            spacing: DVec2::ONE,
            diagonal: Diagonal::default(),
            hole_mask: None,
            leaf_size: DEFAULT_LEAF_SIZE,
            frame: Frame::z_up(),
        }
    }

    /// Number of sample columns.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Number of sample rows.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// World (x, y) of sample (0, 0).
    pub fn origin(&self) -> DVec2 {
        self.origin
    }

    /// Sample spacing (dx, dy).
    pub fn spacing(&self) -> DVec2 {
        self.spacing
    }

    /// The cell triangulation.
    pub fn diagonal(&self) -> Diagonal {
        self.diagonal
    }

    /// The gravity frame of the vertical queries of the [`Terrain`](crate::Terrain) trait.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Replaces the gravity frame of the [`Terrain`](crate::Terrain) vertical queries.
    pub fn set_frame(&mut self, frame: Frame) {
        self.frame = frame;
    }

    /// The samples, row-major from the south row, NaN for nodata; `None` for a tiled heightfield
    /// (an index file's: see [`tiling`](Self::tiling)), whose samples are read with
    /// [`sample`](Self::sample) or [`samples`](Self::samples).
    pub fn heights(&self) -> Option<&[f32]> {
        match &self.samples {
            Samples::Rows(h) => Some(h),
            Samples::Tiles(_) => None,
        }
    }

    /// Every sample, row-major from the south row (NaN for nodata), from either store.
    pub fn samples(&self) -> impl Iterator<Item = f32> + '_ {
        (0..self.ny).flat_map(move |j| (0..self.nx).map(move |i| self.sample(i, j)))
    }

    /// The samples row-major (`h[j·nx + i]`) when they are held that way, for loops that read many.
    pub(crate) fn rows(&self) -> Option<&[f32]> {
        match &self.samples {
            Samples::Rows(h) => Some(h),
            Samples::Tiles(_) => None,
        }
    }

    /// How the samples are cut into tiles, for a tiled heightfield (an index file's); `None` for
    /// samples in rows.
    pub fn tiling(&self) -> Option<Tiling> {
        match &self.samples {
            Samples::Rows(_) => None,
            Samples::Tiles(t) => Some(t.tiling),
        }
    }

    /// For a tiled heightfield, whether tile (tx, ty) stores samples (a tile without a valid sample
    /// stores none); `false` out of range or for samples in rows.
    pub fn tile_has_data(&self, tx: usize, ty: usize) -> bool {
        self.tile_block(tx, ty).is_some_and(|b| b != 0)
    }

    /// The block of tile (tx, ty) of a tiled heightfield (0: the tile has no data).
    pub(crate) fn tile_block(&self, tx: usize, ty: usize) -> Option<usize> {
        match &self.samples {
            Samples::Tiles(t) if tx < t.tiling.ntx && ty < t.tiling.nty => Some(t.block(tx, ty)),
            _ => None,
        }
    }

    /// Sample (i, j) (NaN for nodata). Panics when out of range, like slice indexing.
    #[inline]
    pub fn sample(&self, i: usize, j: usize) -> f32 {
        match &self.samples {
            Samples::Rows(h) => h[j * self.nx + i],
            Samples::Tiles(t) => {
                assert!(i < self.nx && j < self.ny, "sample ({i}, {j}) outside {} × {}", self.nx, self.ny);
                t.blocks[t.sample_index(i, j, self.nx, self.ny)]
            }
        }
    }

    /// World position of sample (i, j) (z is NaN for nodata).
    pub fn sample_position(&self, i: usize, j: usize) -> DVec3 {
        DVec3::new(
            self.origin.x + i as f64 * self.spacing.x,
            self.origin.y + j as f64 * self.spacing.y,
            self.sample(i, j) as f64,
        )
    }

    /// The min/max pyramid.
    pub fn pyramid(&self) -> &Pyramid {
        &self.pyramid
    }

    /// Lowest and highest valid sample, or `None` when every sample is NaN.
    pub fn height_range(&self) -> Option<(f32, f32)> {
        let (lo, hi) = self.pyramid.root();
        (lo <= hi).then_some((lo, hi))
    }

    /// World bounds of the grid (z from the valid samples; empty z when all are NaN).
    pub fn bounds(&self) -> Aabb {
        let (lo, hi) = self.pyramid.root();
        let far = self.origin + self.spacing * DVec2::new((self.nx - 1) as f64, (self.ny - 1) as f64);
        Aabb::new(DVec3::new(self.origin.x, self.origin.y, lo as f64), DVec3::new(far.x, far.y, hi as f64))
    }

    /// Number of NaN (nodata) samples.
    pub fn nodata_count(&self) -> usize {
        self.nodata
    }

    /// True when some triangle is removed (NaN samples or masked cells).
    #[inline]
    pub fn has_holes(&self) -> bool {
        self.nodata > 0 || !self.hole_mask.is_empty()
    }

    /// Number of cells removed by the hole mask.
    pub fn masked_cell_count(&self) -> usize {
        self.hole_mask.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when cell (i, j) is removed by the hole mask.
    #[inline(always)]
    pub fn is_cell_masked(&self, i: usize, j: usize) -> bool {
        if self.hole_mask.is_empty() {
            return false;
        }
        let k = j * (self.nx - 1) + i;
        self.hole_mask[k / 64] >> (k % 64) & 1 == 1
    }

    /// Bytes used by the heights (for tiles: the blocks stored and the directory), the pyramid and
    /// the hole mask.
    pub fn memory_bytes(&self) -> usize {
        let samples = match &self.samples {
            Samples::Rows(h) => h.len() * 4,
            Samples::Tiles(t) => t.blocks.len() * 4 + t.dir.len() * 4,
        };
        samples + self.pyramid.memory_bytes() + self.hole_mask.len() * 8
    }

    /// Corner heights of cell (i, j) as f64.
    #[inline(always)]
    pub(crate) fn corners(&self, i: usize, j: usize) -> cell::Corners {
        cell::Corners::from(self.corners_f32(i, j))
    }

    /// Corner heights of cell (i, j): [h00, h10, h01, h11] (one bounds check for the four).
    #[inline(always)]
    pub(crate) fn corners_f32(&self, i: usize, j: usize) -> [f32; 4] {
        self.cell_run(i, j).corners(0, 0)
    }

    /// The samples from cell (i, j)'s south-west corner on, as one strided run: any cell of the same
    /// pyramid leaf is reached from it by offsets (a leaf never straddles tiles: a tile is leaves
    /// times a power of two, [`Tiling::new`]), so a walk through a leaf finds the tile once.
    #[inline(always)]
    pub(crate) fn cell_run(&self, i: usize, j: usize) -> CellRun<'_> {
        match &self.samples {
            Samples::Rows(h) => CellRun { h, base: j * self.nx + i, stride: self.nx },
            Samples::Tiles(t) => CellRun { h: &t.blocks, base: t.cell_base(i, j), stride: t.side() },
        }
    }

    /// Hints the CPU to fetch the sample rows of pyramid leaf (`bi`, `bj`) into cache: the start
    /// of each row (a leaf's samples in a row span one or two cache lines).
    #[inline(always)]
    pub(crate) fn prefetch_leaf(&self, bi: usize, bj: usize) {
        let s = self.pyramid.leaf_size();
        let (i0, j0) = (bi * s, bj * s);
        let rows = (j0 + s).min(self.pyramid.cells().1).saturating_sub(j0) + 1;
        let (first, stride) = match &self.samples {
            Samples::Rows(h) => (h.as_ptr().wrapping_add(j0 * self.nx + i0), self.nx),
            Samples::Tiles(t) => {
                let (ncx, ncy) = self.pyramid.cells();
                (t.blocks.as_ptr().wrapping_add(t.cell_base(i0.min(ncx - 1), j0.min(ncy - 1))), t.side())
            }
        };
        crate::geom::prefetch_rows(first, stride, rows);
    }

    /// Hints the CPU to fetch samples `[i0, i1]` of row `j` into cache (both ends of the span, which
    /// is at most two cache lines for the few cells a query touches).
    #[inline(always)]
    pub(crate) fn prefetch_row(&self, i0: usize, i1: usize, j: usize) {
        for i in [i0, i1] {
            let h = match &self.samples {
                Samples::Rows(h) => h.get(j * self.nx + i),
                Samples::Tiles(t) if i < self.nx && j < self.ny => t.blocks.get(t.sample_index(i, j, self.nx, self.ny)),
                Samples::Tiles(_) => None,
            };
            if let Some(h) = h {
                crate::geom::prefetch(h);
            }
        }
    }

    /// World x, y → grid coordinates (u, v) in cell units from sample (0, 0).
    #[inline(always)]
    pub(crate) fn to_grid(&self, x: f64, y: f64) -> (f64, f64) {
        ((x - self.origin.x) * self.inv_spacing.x, (y - self.origin.y) * self.inv_spacing.y)
    }

    /// World normal, oriented up (+z), of a cell-local plane.
    #[inline(always)]
    pub(crate) fn plane_normal(&self, p: &cell::CellPlane) -> DVec3 {
        DVec3::new(-p.gu * self.inv_spacing.x, -p.gv * self.inv_spacing.y, 1.0).normalize()
    }
}
