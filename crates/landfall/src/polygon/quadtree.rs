//! QOTA's quadtree (Table 2) in flat arrays: nodes with two cut lines and four contiguous children,
//! leaves pointing at a run of face indices. Built recursively (in parallel for big nodes) with
//! either the paper's equal quadrants or cuts through vertices chosen to minimise the expected
//! number of containment tests.

use super::face::{quadrant_masks, Face, FaceGeom, QuickSet};
use super::layer::{Layering, SeenPairs};
use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;
use std::ops::Range;

/// `Node::count` of an internal node.
pub const INTERNAL: u32 = u32::MAX;

pub use super::limits::MAX_DEPTH_LIMIT;

/// A quadtree node: 32 bytes, aligned to 32 so that no node straddles two cache lines.
///
/// Internal: children `first..first + 4` are south-west, south-east, north-west, north-east of the
/// cut point `div`; a point on a cut line belongs to the east / north child. Leaf: faces
/// `refs[first..first + leaf_len]`, or, for at most [`INLINE_REFS`] faces, the face indices
/// themselves in the bytes of `div` (saving a memory access per query); `leaf_len` is `count` without
/// the [`SINGLE_LAYER`] bit.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Node {
    /// Cut point `[x_div, y_div]` (internal nodes).
    pub div: [f64; 2],
    /// Height range of every face below the node, rounded outward to f32.
    pub z: [f32; 2],
    /// First child (internal) or first face reference (leaf).
    pub first: u32,
    /// Number of face references (leaf), with [`SINGLE_LAYER`] set when they form one layer; or
    /// [`INTERNAL`].
    pub count: u32,
}

/// Leaf flag in `Node::count`: no two of the leaf's ground faces overlap seen along gravity, so a
/// vertical query stops at the first face containing its point (see `layer.rs`); the faces are
/// then ordered by how much of the leaf they cover.
pub const SINGLE_LAYER: u32 = 1 << 31;

/// Leaves with at most this many faces keep their face indices inside the node.
pub const INLINE_REFS: u32 = 4;

impl Node {
    /// True for a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.count != INTERNAL
    }

    /// Index of the child of this internal node holding local (x, y).
    #[inline(always)]
    pub fn child_at(&self, x: f64, y: f64) -> usize {
        self.first as usize + (x >= self.div[0]) as usize + 2 * (y >= self.div[1]) as usize
    }

    /// Number of face references of a leaf.
    #[inline]
    pub fn leaf_len(&self) -> u32 {
        self.count & !SINGLE_LAYER
    }

    /// True for a leaf whose faces form a single layer (see [`SINGLE_LAYER`]).
    #[inline]
    pub fn is_single_layer(&self) -> bool {
        self.is_leaf() && self.count & SINGLE_LAYER != 0
    }

    /// The face indices of a leaf (`refs` is the terrain's reference array); `None` when a stored
    /// range is out of bounds (a corrupt file).
    #[inline]
    pub fn leaf_refs<'a>(&'a self, refs: &'a [u32]) -> Option<&'a [u32]> {
        let len = self.leaf_len() as usize;
        let inline: &[u32; 4] = bytemuck::cast_ref(&self.div);
        // Chosen by a select, not a branch (a leaf's size is as random as the queries): the inline
        // indices, or the run in `refs`; then one bounds check.
        let (base, start): (&[u32], usize) =
            if len <= INLINE_REFS as usize { (inline, 0) } else { (refs, self.first as usize) };
        base.get(start..start + len)
    }
}

/// How an overfull leaf's cut lines are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CutRule {
    /// The paper's rule: four equal quadrants.
    #[default]
    Halves,
    /// Cut lines through the polygon vertex nearest the middle of the node (within its middle half),
    /// so fans of polygons around a vertex do not straddle the cut.
    Vertices,
}

impl CutRule {
    /// Name used by the CLI and the reports.
    pub fn name(self) -> &'static str {
        match self {
            CutRule::Halves => "halves",
            CutRule::Vertices => "vertices",
        }
    }
}

/// Quadtree build parameters: QOTA's Maxpoly and Maxdepth and the cut rule.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct QuadtreeParams {
    /// A leaf holding more polygons than this is split (unless at `max_depth`).
    pub max_polys: usize,
    /// Deepest level (the root is level 0); at most [`MAX_DEPTH_LIMIT`].
    pub max_depth: usize,
    /// How cut lines are chosen.
    pub cuts: CutRule,
    /// A split is made only when it lowers the expected containment tests per query, over the whole
    /// terrain, by at least `min_gain / faces`; 0 gives the paper's rule. Guards against splitting
    /// down to `max_depth` along every edge where more than `max_polys` surfaces stack up.
    pub min_gain: f64,
}

impl QuadtreeParams {
    /// The paper's rule (split every overfull leaf above `max_depth`) with equal quadrants.
    pub fn paper(max_polys: usize, max_depth: usize) -> Self {
        Self { max_polys, max_depth, cuts: CutRule::Halves, min_gain: 0.0 }
    }
}

impl Default for QuadtreeParams {
    /// The defaults chosen by measurement (see `docs/benchmarks.md`): equal quadrants, and every
    /// split left to the gain rule (`max_polys` 1, `min_gain` 0.6). On a 13k TIN that gives fewer
    /// nodes and fewer expected tests than `max_polys` 2 with `min_gain` 0.5, and a cheaper build.
    fn default() -> Self {
        Self { max_polys: 1, max_depth: 16, cuts: CutRule::Halves, min_gain: 0.6 }
    }
}

impl QuadtreeParams {
    /// Checks every field's range: `max_polys` ≥ 1, `max_depth` ≤ [`MAX_DEPTH_LIMIT`], `min_gain`
    /// finite and ≥ 0 (the builders call this).
    ///
    /// ```
    /// use landfall::QuadtreeParams;
    /// assert!(QuadtreeParams::default().validate().is_ok());
    /// assert_eq!(QuadtreeParams::default().with_max_polys(0).validate().unwrap_err().field, "max_polys");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        use crate::ParamError;
        if self.max_polys == 0 {
            return Err(ParamError::new("max_polys", "0 is not ≥ 1"));
        }
        if self.max_depth > MAX_DEPTH_LIMIT {
            return Err(ParamError::new("max_depth", format!("{} is more than {MAX_DEPTH_LIMIT}", self.max_depth)));
        }
        if !(self.min_gain.is_finite() && self.min_gain >= 0.0) {
            return Err(ParamError::new("min_gain", format!("{} is not a finite number ≥ 0", self.min_gain)));
        }
        Ok(())
    }
}

crate::with_setters!(QuadtreeParams {
    max_polys: usize => with_max_polys,
    max_depth: usize => with_max_depth,
    cuts: CutRule => with_cuts,
    min_gain: f64 => with_min_gain,
});

/// Flat quadtree arrays.
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    pub refs: Vec<u32>,
    /// Build scratch: face pairs the layer test found apart.
    seen: SeenPairs,
    /// Build scratch: the face lists of the nodes on the way down, each node's children's lists
    /// after its own (a stack: a node's lists go when it is done), so no list is allocated.
    ids: Vec<u32>,
    /// The stack's top in `ids`: what lies beyond it is room left by lists that are done (stale
    /// values, each written again before it is read), so the array is not zero-filled anew for
    /// every split.
    ids_top: usize,
    /// Build scratch: which children each face of the node being split goes to.
    masks: Vec<u8>,
    /// Build scratch: the faces of that node whose edges decide it (see [`quadrant_masks`]).
    pending: Vec<u32>,
}

impl Tree {
    /// A tree of one (blank) root over the faces `ids` (the first list of its build scratch), with
    /// room for what a tree over that many faces usually needs (4.6–4.7 nodes and about 3.5
    /// references outside the nodes per face on TINs at the default parameters), so that the build
    /// does not spend its time copying the arrays as they grow.
    fn for_faces(ids: Vec<u32>) -> Self {
        let faces = ids.len();
        let mut nodes = Vec::with_capacity(6 * faces + 1);
        nodes.push(Node::zeroed());
        let (seen, masks, pending) = (SeenPairs::default(), Vec::with_capacity(faces), Vec::with_capacity(faces));
        Self { nodes, refs: Vec::with_capacity(4 * faces), seen, ids, ids_top: faces, masks, pending }
    }
}

/// The empty rectangle `[x0, y0, x1, y1]`: the start of a [`union_rect`] fold.
pub(crate) const EMPTY_RECT: [f64; 4] = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];

/// The smallest rectangle `[x0, y0, x1, y1]` holding `a` and `b` (either may be [`EMPTY_RECT`]).
#[inline]
pub(crate) fn union_rect(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
}

/// The four child rectangles of `r` cut at `div`, in child order.
#[inline]
pub(crate) fn quadrants(r: [f64; 4], div: [f64; 2]) -> [[f64; 4]; 4] {
    [
        [r[0], r[1], div[0], div[1]],
        [div[0], r[1], r[2], div[1]],
        [r[0], div[1], div[0], r[3]],
        [div[0], div[1], r[2], r[3]],
    ]
}

/// The smallest range holding all of `ranges` (`[+∞, −∞]` when there are none).
#[inline]
fn span(ranges: impl Iterator<Item = [f32; 2]>) -> [f32; 2] {
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for z in ranges {
        // Plain comparisons (one instruction each; the NaN-aware `min` / `max` take three).
        lo = if z[0] < lo { z[0] } else { lo };
        hi = if z[1] > hi { z[1] } else { hi };
    }
    [lo, hi]
}

/// `[lo, hi]` rounded outward to f32 (empty ranges stay empty).
pub(crate) fn outward(lo: f64, hi: f64) -> [f32; 2] {
    let (mut a, mut b) = (lo as f32, hi as f32);
    if a as f64 > lo {
        a = a.next_down();
    }
    if (b as f64) < hi {
        b = b.next_up();
    }
    [a, b]
}

/// What the build reads of each face besides its record: its box and its height range.
pub(crate) trait Bounds: Sync {
    /// The face's 2-D box, as [`FaceGeom::bbox`].
    fn bbox(&self, f: u32) -> [f64; 4];
    /// Height range of faces `ids`, rounded outward to f32.
    fn z_range(&self, ids: &[u32]) -> [f32; 2];
}

impl Bounds for [FaceGeom] {
    #[inline]
    fn bbox(&self, f: u32) -> [f64; 4] {
        self[f as usize].bbox
    }

    /// Each face's range rounded outward, then their span: rounding is monotone, so this is the
    /// span of the exact ranges rounded outward.
    fn z_range(&self, ids: &[u32]) -> [f32; 2] {
        span(ids.iter().map(|&f| outward(self[f as usize].z[0], self[f as usize].z[1])))
    }
}

/// The faces' boxes and outward-rounded height ranges in arrays of their own, for a whole build:
/// 40 bytes a face against the 88 of a [`FaceGeom`] (whose box and heights lie in different cache
/// lines), and a build reads them ~18 times per face: one cache line per read instead of two.
pub(crate) struct PackedBounds {
    boxes: Vec<[f64; 4]>,
    zs: Vec<[f32; 2]>,
}

impl PackedBounds {
    /// The bounds of every face of `geoms` (in parallel).
    pub fn of(geoms: &[FaceGeom]) -> Self {
        let (boxes, zs) = geoms.par_iter().with_min_len(4096).map(|g| (g.bbox, outward(g.z[0], g.z[1]))).unzip();
        Self { boxes, zs }
    }
}

impl Bounds for PackedBounds {
    #[inline]
    fn bbox(&self, f: u32) -> [f64; 4] {
        self.boxes[f as usize]
    }

    fn z_range(&self, ids: &[u32]) -> [f32; 2] {
        span(ids.iter().map(|&f| self.zs[f as usize]))
    }
}

struct Ctx<'a, B: Bounds + ?Sized> {
    faces: &'a [Face],
    /// Marks and orders single-layer leaves when given (not for the curved frames' key boxes).
    layers: Option<Layering<'a>>,
    bounds: &'a B,
    edges: &'a [[f64; 3]],
    params: QuadtreeParams,
    /// Smallest worthwhile split gain, in (node area × tests saved).
    min_gain_area: f64,
}

/// Builds the quadtree over `ids` inside `root` (single-layer leaves marked when `layers` is given),
/// the faces' bounds read from `bounds` (a whole build packs them: [`PackedBounds`]).
pub(crate) fn build<B: Bounds + ?Sized>(
    faces: &[Face],
    bounds: &B,
    edges: &[[f64; 3]],
    layers: Option<Layering>,
    ids: Vec<u32>,
    root: [f64; 4],
    params: QuadtreeParams,
) -> Tree {
    let gain = min_gain_area(params, root, ids.len());
    build_at(faces, bounds, edges, layers, ids, root, 0, params, gain)
}

/// The split gain threshold (node area × tests saved) for a tree over `faces` faces in `root`.
pub(crate) fn min_gain_area(params: QuadtreeParams, root: [f64; 4], faces: usize) -> f64 {
    params.min_gain / faces.max(1) as f64 * (root[2] - root[0]) * (root[3] - root[1])
}

/// Builds the subtree over `ids` in `rect`, whose root is at level `depth`: a whole tree, or the
/// replacement of a leaf that overflowed after an edit (a few faces, whose bounds are then read
/// from their `FaceGeom` records directly).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_at<B: Bounds + ?Sized>(
    faces: &[Face],
    bounds: &B,
    edges: &[[f64; 3]],
    layers: Option<Layering>,
    ids: Vec<u32>,
    rect: [f64; 4],
    depth: usize,
    params: QuadtreeParams,
    min_gain_area: f64,
) -> Tree {
    let ctx = Ctx { faces, layers, bounds, edges, params, min_gain_area };
    let all = 0..ids.len();
    let mut tree = Tree::for_faces(ids);
    ctx.node(rect, all, depth, 0, &mut tree);
    tree
}

/// Puts `sub` (a tree whose root is node 0) into `nodes`/`refs`: its root into slot `at`, the rest
/// after the current end, with their child and reference offsets moved accordingly. The copy runs
/// on all of rayon's threads: on large trees it writes (and first touches) hundreds of megabytes.
pub(crate) fn graft(nodes: &mut Vec<Node>, refs: &mut Vec<u32>, at: usize, sub: &Tree) {
    // Node i > 0 of `sub` goes to `nodes.len() + i - 1`; its references after the current end.
    let shift = Shift { nodes: (nodes.len() as u32).wrapping_sub(1), refs: refs.len() as u32 };
    nodes.par_extend(sub.nodes[1..].par_iter().with_min_len(1 << 12).map(|&n| shift.apply(n)));
    refs.par_extend(sub.refs.par_iter().with_min_len(1 << 14).copied());
    nodes[at] = shift.apply(sub.nodes[0]);
}

/// How a subtree's offsets move when it is grafted.
#[derive(Clone, Copy)]
struct Shift {
    /// Added to an internal node's first child.
    nodes: u32,
    /// Added to a leaf's first reference (leaves with references outside the node).
    refs: u32,
}

impl Shift {
    /// `node` with its offset moved, chosen without a branch: whether a node is internal, or a leaf
    /// with its references outside, is as random as the tree.
    #[inline]
    fn apply(self, mut node: Node) -> Node {
        let internal = node.count == INTERNAL;
        let outside = !internal & (node.leaf_len() > INLINE_REFS);
        let add = u32::from(internal) * self.nodes + u32::from(outside) * self.refs;
        node.first = node.first.wrapping_add(add);
        node
    }
}

/// Whether the four subtrees of a node at level `depth` are built as separate tasks: only while
/// there are fewer such tasks than 8 per thread of the pool, enough for the threads to balance their
/// load. Each task's subtree is copied into its parent's arrays afterwards (see [`graft`]); below
/// that level, or on one thread, the copies cost more than they save (a one-thread build of
/// tin1060k took 2.16–2.28 s with them, 1.81 s without; see `docs/benchmarks.md`).
fn worth_parallel(depth: usize) -> bool {
    let threads = rayon::current_num_threads();
    threads > 1 && depth < 16 && (1usize << (2 * depth)) < 8 * threads
}

/// How many of `masks` have each of the bits 0..4 set: the four counts kept as 16-bit lanes of one
/// word, one table lookup and one addition per mask (runs short enough that no lane overflows).
fn child_counts(masks: &[u8]) -> [usize; 4] {
    /// Bit k of the index moved to bit 16·k.
    const LANES: [u64; 16] = {
        let mut t = [0u64; 16];
        let mut m = 0;
        while m < 16 {
            t[m] = (m as u64 & 1) | (m as u64 >> 1 & 1) << 16 | (m as u64 >> 2 & 1) << 32 | (m as u64 >> 3) << 48;
            m += 1;
        }
        t
    };
    let mut counts = [0usize; 4];
    for run in masks.chunks(usize::from(u16::MAX)) {
        let packed: u64 = run.iter().map(|&m| LANES[usize::from(m & 15)]).sum();
        for (k, c) in counts.iter_mut().enumerate() {
            *c += (packed >> (16 * k) & 0xFFFF) as usize;
        }
    }
    counts
}

/// A leaf over `ids` with height range `z` (its face indices inline or appended to `refs`),
/// marked [`SINGLE_LAYER`] when `single`.
pub(crate) fn leaf(ids: &[u32], z: [f32; 2], single: bool, refs: &mut Vec<u32>) -> Node {
    let flag = if single { SINGLE_LAYER } else { 0 };
    let mut node = Node { div: [0.0; 2], z, first: 0, count: ids.len() as u32 | flag };
    if ids.len() <= INLINE_REFS as usize {
        let inline: &mut [u32; 4] = bytemuck::cast_mut(&mut node.div);
        inline[..ids.len()].copy_from_slice(ids);
    } else {
        node.first = refs.len() as u32;
        refs.extend_from_slice(ids);
    }
    node
}

impl<B: Bounds + ?Sized> Ctx<'_, B> {
    /// Makes node slot `at` a leaf over the faces `tree.ids[span]` in rectangle `r`, with their
    /// height range (and single-layer leaves marked and ordered).
    fn leaf_at(&self, span: Range<usize>, r: [f64; 4], at: usize, tree: &mut Tree) {
        let ids = &mut tree.ids[span];
        let single = self.layers.is_some_and(|l| l.order(ids, r, &mut tree.seen));
        tree.nodes[at] = leaf(ids, self.bounds.z_range(ids), single, &mut tree.refs);
    }

    /// Builds the subtree over the faces `tree.ids[span]` in `r` at level `depth` into `tree`, its
    /// root in slot `at` (children are appended, four together).
    fn node(&self, r: [f64; 4], span: Range<usize>, depth: usize, at: usize, tree: &mut Tree) {
        let n = span.len();
        let splittable = r[2] > r[0] && r[3] > r[1];
        if n <= self.params.max_polys || depth >= self.params.max_depth || !splittable {
            return self.leaf_at(span, r, at, tree);
        }
        let ids = &tree.ids[span.clone()];
        let div = match self.params.cuts {
            CutRule::Halves => [0.5 * (r[0] + r[2]), 0.5 * (r[1] + r[3])],
            CutRule::Vertices => [self.best_cut(ids, r, 0), self.best_cut(ids, r, 1)],
        };
        let quads = quadrants(r, div);
        let area = |q: &[f64; 4]| (q[2] - q[0]) * (q[3] - q[1]);
        // The most a split can gain (every face in the smallest child): below the threshold (with
        // room for rounding), the split is rejected before any face is classified. Most attempts
        // near the bottom of the tree end here.
        let smallest = quads.iter().map(area).fold(f64::INFINITY, f64::min);
        if (area(&r) - smallest) * (n as f64) < self.min_gain_area * (1.0 - 1e-9) {
            return self.leaf_at(span, r, at, tree);
        }
        let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        // Which children each face goes to (bit k = child k); counted before anything is written,
        // since most splits near the bottom are rejected by the stop rules.
        let (masks, pending) = (&mut tree.masks, &mut tree.pending);
        // The layer test's quick records are given only when the root holds every face, which is
        // what the classification needs of them too.
        let quick = self.layers.map_or_else(QuickSet::default, |l| l.quick);
        quadrant_masks(self.faces, quick, |f| self.bounds.bbox(f), self.edges, ids, (r, div), mag, masks, pending);
        let counts = child_counts(&tree.masks);
        // Keep the leaf when no child is lighter, or when the split saves too little.
        let after: f64 = counts.iter().zip(&quads).map(|(&n, q)| area(q) * n as f64).sum();
        let gain = area(&r) * n as f64 - after;
        if counts.iter().all(|&c| c >= n) || gain < self.min_gain_area {
            return self.leaf_at(span, r, at, tree);
        }
        // The children's lists go after the stack's top, one spare slot each: every face is
        // written to every child's next slot and kept where its bit is set (no branch on the bits,
        // which are as random as the faces).
        let start = tree.ids_top;
        let offsets = [0, counts[0] + 1, counts[0] + counts[1] + 2, counts[0] + counts[1] + counts[2] + 3];
        tree.ids_top = start + counts.iter().sum::<usize>() + 4;
        if tree.ids.len() < tree.ids_top {
            tree.ids.resize(tree.ids_top, 0);
        }
        let (parent, children) = tree.ids.split_at_mut(start);
        let mut next = offsets;
        for (&f, &mask) in parent[span].iter().zip(&tree.masks) {
            for k in 0..4 {
                children[next[k]] = f;
                next[k] += (mask >> k & 1) as usize;
            }
        }
        let spans: [Range<usize>; 4] = std::array::from_fn(|k| start + offsets[k]..start + offsets[k] + counts[k]);
        let first = tree.nodes.len();
        tree.nodes.extend([Node::zeroed(); 4]);
        if counts.iter().sum::<usize>() > 2_000 && worth_parallel(depth) {
            self.children_in_parallel(quads, spans, depth + 1, first, tree);
        } else {
            for (k, span) in spans.into_iter().enumerate() {
                self.node(quads[k], span, depth + 1, first + k, tree);
            }
        }
        tree.ids_top = start;
        let kids = &tree.nodes[first..first + 4];
        let z = kids.iter().fold([f32::INFINITY, f32::NEG_INFINITY], |z, k| [z[0].min(k.z[0]), z[1].max(k.z[1])]);
        tree.nodes[at] = Node { div, z, first: first as u32, count: INTERNAL };
    }

    /// Builds the four children (rectangles `quads`, faces `tree.ids[spans[k]]`, at level `depth`)
    /// as separate tasks, then grafts them into slots `first..first + 4`. Out of line: its four
    /// subtrees' scratch (a few kilobytes) would otherwise sit in the frame of every recursive
    /// call of [`node`](Self::node), most of which never come here.
    #[inline(never)]
    fn children_in_parallel(
        &self,
        quads: [[f64; 4]; 4],
        spans: [Range<usize>; 4],
        depth: usize,
        first: usize,
        tree: &mut Tree,
    ) {
        let sub = |k: usize, ids: Vec<u32>| {
            let all = 0..ids.len();
            let mut t = Tree::for_faces(ids);
            self.node(quads[k], all, depth, 0, &mut t);
            t
        };
        let lists: [Vec<u32>; 4] = std::array::from_fn(|k| tree.ids[spans[k].clone()].to_vec());
        let [a, b, c, d] = lists;
        let ((ta, tb), (tc, td)) =
            rayon::join(|| rayon::join(|| sub(0, a), || sub(1, b)), || rayon::join(|| sub(2, c), || sub(3, d)));
        for (k, t) in [ta, tb, tc, td].iter().enumerate() {
            graft(&mut tree.nodes, &mut tree.refs, first + k, t);
        }
    }

    /// The cut along `axis` (0 = x, 1 = y): the polygon vertex (bounding-box edge) nearest the
    /// middle of the node, if one lies in its middle half; otherwise the middle. A cut through a
    /// vertex keeps the fan of polygons around that vertex out of the children's shared border.
    fn best_cut(&self, ids: &[u32], r: [f64; 4], axis: usize) -> f64 {
        let (lo, hi) = (r[axis], r[axis + 2]);
        let mid = 0.5 * (lo + hi);
        let reach = 0.25 * (hi - lo);
        let mut best = mid;
        let mut best_d = f64::INFINITY;
        for &f in ids {
            let b = self.bounds.bbox(f);
            for c in [b[axis], b[axis + 2]] {
                let d = (c - mid).abs();
                if d < best_d && d <= reach && c > lo && c < hi {
                    (best, best_d) = (c, d);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed bounds answer as the face records do: the same boxes, and for any set of faces
    /// (heights between f32 values, exact f32 values, negative, empty) the exact height range
    /// rounded outward, from either.
    #[test]
    fn packed_bounds_equal_the_records() {
        let mut rng = crate::rng::SplitMix64::new(3);
        let geoms: Vec<FaceGeom> = (0..500)
            .map(|k| {
                let z0 = match k % 3 {
                    0 => rng.range(-1e4, 1e4),
                    1 => rng.range(-100.0, 100.0) as f32 as f64,
                    _ => rng.range(-1.0, 1.0) * 1e-3,
                };
                let z1 = z0 + [0.0, rng.range(0.0, 10.0), 1e-9][k % 3];
                let bbox = [rng.range(-9.0, 0.0), rng.range(-9.0, 0.0), rng.range(0.0, 9.0), rng.range(0.0, 9.0)];
                FaceGeom { bbox, z: [z0, z1], ..FaceGeom::zeroed() }
            })
            .collect();
        let packed = PackedBounds::of(&geoms);
        for f in 0..geoms.len() as u32 {
            assert_eq!(packed.bbox(f), geoms.bbox(f));
        }
        for len in [0, 1, 2, 3, 7, 40, 500] {
            for _ in 0..20 {
                let ids: Vec<u32> = (0..len).map(|_| (rng.next_u64() % geoms.len() as u64) as u32).collect();
                // The definition: the exact range of the faces' heights, rounded outward.
                let lo = ids.iter().map(|&f| geoms[f as usize].z[0]).fold(f64::INFINITY, f64::min);
                let hi = ids.iter().map(|&f| geoms[f as usize].z[1]).fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(packed.z_range(&ids), outward(lo, hi), "{ids:?}");
                assert_eq!(geoms[..].z_range(&ids), outward(lo, hi), "{ids:?}");
            }
        }
    }

    /// The packed counts equal four plain counters, over runs longer than a lane holds.
    #[test]
    fn child_counts_match_plain_counting() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for len in [0, 1, 7, 65_534, 65_535, 65_536, 200_001] {
            let masks: Vec<u8> = (0..len).map(|_| (rng.next_u64() & 15) as u8).collect();
            let plain: [usize; 4] = std::array::from_fn(|k| masks.iter().filter(|&&m| m >> k & 1 == 1).count());
            assert_eq!(child_counts(&masks), plain, "{len} masks");
        }
        // Every mask with every bit: the largest lane sum a run can reach.
        assert_eq!(child_counts(&vec![15; 150_000]), [150_000; 4]);
    }
}
