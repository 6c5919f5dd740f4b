//! Vertical queries (QOTA's "Accessing terrain data"): find the leaf with two comparisons per level,
//! then for each polygon of the leaf the edge equations and the plane — read from its one-line
//! [`QuickFace`] record, and from its full [`Face`](super::Face) record only near an edge or for a
//! face that is not a ground triangle.

use super::face::{contains, QuickFace};
use super::limits::{eps_unit, surface_eps};
use super::quadtree::{Node, MAX_DEPTH_LIMIT};
use super::PolygonTerrain;
use crate::geom::{SurfacePoint, TriangleId};
use glam::DVec3;
use rayon::prelude::*;

/// Surfaces kept on the stack while sorting; lines crossing more than this many polygons sort in a
/// heap buffer instead.
const STACK_SURFACES: usize = 32;

impl PolygonTerrain {
    /// The face references of the leaf holding local (x, y), or `None` outside the root box.
    #[inline]
    #[doc(hidden)]
    pub fn leaf_at(&self, x: f64, y: f64) -> Option<&[u32]> {
        self.leaf_node(x, y)?.leaf_refs(&self.arrays.refs)
    }

    /// The leaf holding local (x, y), or `None` outside the root box.
    #[inline(always)]
    fn leaf_node(&self, x: f64, y: f64) -> Option<&Node> {
        self.descend_from(self.start_node(x, y)?, x, y)
    }

    /// The node a descent to local (x, y) starts from (the jump table's, or the root), or `None`
    /// outside the root box.
    #[inline(always)]
    fn start_node(&self, x: f64, y: f64) -> Option<usize> {
        let r = self.header.root;
        if !(x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3]) {
            return None;
        }
        Some(match &self.jump {
            Some(j) => j.start(x, y),
            None => 0,
        })
    }

    /// The leaf holding local (x, y) below node `start` (which holds it).
    #[inline(always)]
    fn descend_from(&self, start: usize, x: f64, y: f64) -> Option<&Node> {
        let nodes = &*self.arrays.nodes;
        // Bounded and checked: a loaded file's indices are trusted for nothing (see `from_parts`).
        let mut node = nodes.get(start)?;
        for _ in 0..=MAX_DEPTH_LIMIT {
            if node.is_leaf() {
                return Some(node);
            }
            node = nodes.get(node.child_at(x, y))?;
        }
        None
    }

    /// Does face `r`, whose quick record is `q`, contain local (x, y), a point inside the root
    /// rectangle? The quick record decides unless the point is within its margin of an edge; then
    /// the exact test does ([`contains`]).
    #[inline(always)]
    fn quick_contains(&self, q: &QuickFace, r: u32, x: f64, y: f64) -> bool {
        let (inside, outside) = q.sides(x as f32, y as f32, self.margin);
        inside || (!outside && self.exact_contains(r, x, y))
    }

    /// The exact test of face `r` (out of line: rare, and kept out of the hot loop's registers).
    #[cold]
    #[inline(never)]
    fn exact_contains(&self, r: u32, x: f64, y: f64) -> bool {
        self.arrays.faces.get(r as usize).is_some_and(|f| contains(f, &self.arrays.edges, x, y))
    }

    /// Calls `visit(local_z, index, face)` for every face containing the vertical line through
    /// local (x, y), in no particular order; in a single-layer leaf only for the first (any other is
    /// on a shared edge or vertex, at the same height within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)).
    #[inline]
    pub(crate) fn for_each_crossing<'a>(&'a self, x: f64, y: f64, visit: impl FnMut(f64, u32, &'a QuickFace)) {
        if let Some(leaf) = self.leaf_node(x, y) {
            self.for_each_crossing_in(leaf, x, y, visit);
        }
    }

    /// [`for_each_crossing`](Self::for_each_crossing) in `leaf`, the leaf holding local (x, y).
    #[inline]
    fn for_each_crossing_in<'a>(&'a self, leaf: &Node, x: f64, y: f64, mut visit: impl FnMut(f64, u32, &'a QuickFace)) {
        let Some(refs) = leaf.leaf_refs(&self.arrays.refs) else { return };
        let quick = &*self.arrays.quick;
        let single = leaf.is_single_layer();
        for &r in refs {
            let Some(q) = quick.get(r as usize) else { continue };
            if self.quick_contains(q, r, x, y) {
                visit(q.height(x, y), r, q);
                if single {
                    return;
                }
            }
        }
    }

    /// The world surface point for local height `z` of face `f` on the vertical line through world
    /// `p` (whose local position is `l`): `p` moved along gravity, so x and y are kept exactly when
    /// gravity is −Z. Read from the quick record alone (the one just tested).
    #[inline]
    fn surface_point(&self, p: DVec3, l: DVec3, z: f64, f: &QuickFace) -> SurfacePoint {
        let frame = &self.header.frame;
        let point =
            if frame.is_z_up() { DVec3::new(p.x, p.y, z + self.header.center.z) } else { p + frame.up() * (z - l.z) };
        SurfacePoint { point, normal: frame.to_world(f.up_normal()), triangle: TriangleId::Polygon(f.source) }
    }

    /// Every surface on the vertical line (along gravity) through `p`, sorted from lowest to highest,
    /// coincident ones (within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)) reported once. Allocation-free for up to 32
    /// surfaces on the line.
    pub fn surfaces_on_line<'t>(&'t self, p: DVec3, mut visit: impl FnMut(SurfacePoint)) {
        let l = self.to_local_point(p);
        sorted_unique(
            eps_unit(self.header.slack),
            |add: &mut dyn FnMut(f64, u32, Option<&'t QuickFace>)| {
                self.for_each_crossing(l.x, l.y, |z, r, f| add(z, r, Some(f)))
            },
            |z, _, f| f.into_iter().for_each(|f| visit(self.surface_point(p, l, z, f))),
        );
    }

    /// The crossing of the vertical line through `p` that `pick` chooses.
    #[inline]
    fn pick(&self, p: DVec3, pick: Pick) -> Option<SurfacePoint> {
        let l = self.to_local_point(p);
        self.pick_in(self.leaf_node(l.x, l.y)?, p, l, pick)
    }

    /// [`pick`](Self::pick) in `leaf`, the leaf holding `p` (whose local position is `l`).
    #[inline]
    fn pick_in(&self, leaf: &Node, p: DVec3, l: DVec3, pick: Pick) -> Option<SurfacePoint> {
        let unit = eps_unit(self.header.slack);
        let mut best: Option<(f64, u32, &QuickFace)> = None;
        self.for_each_crossing_in(leaf, l.x, l.y, |z, r, f| {
            if pick.accepts(unit, l.z, z) && best.is_none_or(|(bz, br, _)| pick.prefers(z, bz) || (z == bz && r < br)) {
                best = Some((z, r, f));
            }
        });
        best.map(|(z, _, f)| self.surface_point(p, l, z, f))
    }

    /// The highest surface on the vertical line through `p`.
    #[inline]
    pub fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        self.pick(p, Pick::Top)
    }

    /// Height (world z) of the topmost surface at world (x, y); gravity must be −Z for this to mean
    /// anything, otherwise use [`PolygonTerrain::top_surface`].
    #[inline]
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        self.top_surface(DVec3::new(x, y, 0.0)).map(|s| s.point.z)
    }

    /// The nearest surface at or below `p` along gravity (on the surface within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)).
    #[inline]
    pub fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        self.pick(p, Pick::Floor)
    }

    /// The nearest surface at or above `p` against gravity (on the surface within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)).
    #[inline]
    pub fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        self.pick(p, Pick::Ceiling)
    }

    /// QOTA's locale test: is there a floor below `p` and a ceiling above it, both in this terrain?
    pub fn contains(&self, p: DVec3) -> bool {
        self.floor_below(p).is_some() && self.ceiling_above(p).is_some()
    }

    /// The locale test with the ceiling from a second terrain (built with the same gravity).
    pub fn contains_under(&self, p: DVec3, ceiling: &PolygonTerrain) -> bool {
        self.floor_below(p).is_some() && ceiling.ceiling_above(p).is_some()
    }

    /// True when there is ground (any surface) on the vertical line through `p`: a point over a
    /// hole (a wall's footprint, a lake) has none, so a move there can be refused.
    pub fn has_ground(&self, p: DVec3) -> bool {
        let l = self.to_local_point(p);
        let mut ground = false;
        self.for_each_crossing(l.x, l.y, |_, _, _| ground = true);
        ground
    }

    /// QOTA's shadow use: with this terrain built with the light's direction as its "gravity", is
    /// `p` lit — no surface on the light line through `p` lies more than `bias` (plus
    /// [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)) above it, toward the light?
    pub fn is_lit(&self, p: DVec3, bias: f64) -> bool {
        let l = self.to_local_point(p);
        let limit = l.z + bias + surface_eps(eps_unit(self.header.slack), l.z);
        let mut lit = true;
        self.for_each_crossing(l.x, l.y, |z, _, _| lit &= z <= limit);
        lit
    }

    /// [`PolygonTerrain::top_surface`] for many points, in parallel, 16 queries in flight per thread.
    pub fn top_surfaces(&self, points: &[DVec3]) -> Vec<Option<SurfacePoint>> {
        self.batch(points, None, |leaf, p, l| self.pick_in(leaf, p, l, Pick::Top))
    }

    /// [`PolygonTerrain::floor_below`] for many points, in parallel, 16 queries in flight per thread.
    pub fn floors_below(&self, points: &[DVec3]) -> Vec<Option<SurfacePoint>> {
        self.batch(points, None, |leaf, p, l| self.pick_in(leaf, p, l, Pick::Floor))
    }

    /// [`PolygonTerrain::ceiling_above`] for many points, in parallel, 16 queries in flight per thread.
    pub fn ceilings_above(&self, points: &[DVec3]) -> Vec<Option<SurfacePoint>> {
        self.batch(points, None, |leaf, p, l| self.pick_in(leaf, p, l, Pick::Ceiling))
    }

    /// [`PolygonTerrain::contains`] for many points, in parallel, 16 queries in flight per thread.
    pub fn contains_batch(&self, points: &[DVec3]) -> Vec<bool> {
        self.batch(points, false, |leaf, p, l| {
            self.pick_in(leaf, p, l, Pick::Floor).is_some() && self.pick_in(leaf, p, l, Pick::Ceiling).is_some()
        })
    }

    /// `answer(leaf, p, local p)` for every point, `none` outside the root box: chunks of points
    /// in parallel, each chunk with [`BATCH_LANES`] queries in flight (see [`Lanes`]).
    fn batch<T: Copy + Send + Sync>(
        &self,
        points: &[DVec3],
        none: T,
        answer: impl Fn(&Node, DVec3, DVec3) -> T + Sync,
    ) -> Vec<T> {
        let mut out = vec![none; points.len()];
        out.par_chunks_mut(4096)
            .zip(points.par_chunks(4096))
            .for_each(|(out, points)| Lanes::new(self, points).run(out, none, &answer));
        out
    }
}

/// Queries the batch versions keep in flight on each thread. A single query waits on a chain of
/// dependent loads (jump table, nodes, faces), most of them cache misses on a large terrain; with
/// several queries interleaved, those misses overlap. Measured in `docs/benchmarks.md`.
pub const BATCH_LANES: usize = 16;

/// Which crossing of a vertical line a query wants.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// The highest.
    Top,
    /// The highest at or below the point (within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)).
    Floor,
    /// The lowest at or above the point (within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)).
    Ceiling,
}

impl Pick {
    /// Whether a crossing at local height `z` qualifies for a query point at local height `lz`.
    #[inline(always)]
    fn accepts(self, unit: f64, lz: f64, z: f64) -> bool {
        let eps = surface_eps(unit, lz);
        match self {
            Pick::Top => true,
            Pick::Floor => z <= lz + eps,
            Pick::Ceiling => z >= lz - eps,
        }
    }

    /// Whether a crossing at `a` is preferred to one at `b`.
    #[inline(always)]
    fn prefers(self, a: f64, b: f64) -> bool {
        match self {
            Pick::Top | Pick::Floor => a > b,
            Pick::Ceiling => a < b,
        }
    }
}

/// One query in flight: its point's index and local position, the node it has reached and how
/// deep, and whether that node is a leaf whose faces are being fetched.
#[derive(Clone, Copy, Debug)]
struct Lane {
    index: usize,
    l: DVec3,
    node: usize,
    depth: usize,
    at_leaf: bool,
}

/// Interleaved vertical queries over a slice of points, on one thread: each turn moves one query
/// one node down (prefetching that node), or at its leaf prefetches the faces, or answers it.
/// The same descent as `descend_from`, step for step, so the answers are those of single queries.
struct Lanes<'a> {
    terrain: &'a PolygonTerrain,
    points: &'a [DVec3],
    next: usize,
}

impl<'a> Lanes<'a> {
    fn new(terrain: &'a PolygonTerrain, points: &'a [DVec3]) -> Self {
        Lanes { terrain, points, next: 0 }
    }

    /// Starts the next query whose point lies in the root box (writing `none` for those outside),
    /// or `None` when all are started.
    fn start<T: Copy>(&mut self, out: &mut [T], none: T) -> Option<Lane> {
        let t = self.terrain;
        while let Some(&p) = self.points.get(self.next) {
            let index = self.next;
            self.next += 1;
            let l = t.to_local_point(p);
            let Some(node) = t.start_node(l.x, l.y) else {
                out[index] = none;
                continue;
            };
            if let Some(n) = t.arrays.nodes.get(node) {
                crate::geom::prefetch(n);
            }
            return Some(Lane { index, l, node, depth: 0, at_leaf: false });
        }
        None
    }

    /// Answers every point of the slice into `out`.
    fn run<T: Copy>(mut self, out: &mut [T], none: T, answer: &impl Fn(&Node, DVec3, DVec3) -> T) {
        let t = self.terrain;
        let (nodes, quick) = (&*t.arrays.nodes, &*t.arrays.quick);
        let mut lanes = [None; BATCH_LANES];
        for lane in lanes.iter_mut() {
            *lane = self.start(out, none);
        }
        let mut live = lanes.iter().filter(|l| l.is_some()).count();
        while live > 0 {
            for slot in lanes.iter_mut() {
                let Some(lane) = slot else { continue };
                // Bounded and checked as in `descend_from`: a loaded file is trusted for nothing.
                let answered = match nodes.get(lane.node) {
                    None => Some(none),
                    Some(node) if lane.at_leaf => Some(answer(node, self.points[lane.index], lane.l)),
                    Some(node) if node.is_leaf() => {
                        for &f in node.leaf_refs(&t.arrays.refs).unwrap_or(&[]) {
                            if let Some(q) = quick.get(f as usize) {
                                crate::geom::prefetch(q);
                            }
                        }
                        lane.at_leaf = true;
                        None
                    }
                    Some(_) if lane.depth == MAX_DEPTH_LIMIT => Some(none),
                    Some(node) => {
                        lane.node = node.child_at(lane.l.x, lane.l.y);
                        lane.depth += 1;
                        if let Some(n) = nodes.get(lane.node) {
                            crate::geom::prefetch(n);
                        }
                        None
                    }
                };
                if let Some(a) = answered {
                    out[lane.index] = a;
                    *slot = self.start(out, none);
                    live -= usize::from(slot.is_none());
                }
            }
        }
    }
}

/// Collects crossings `(elevation, face, extra)` from `fill` and visits them sorted by elevation
/// (then face), coincident ones (within [`SURFACE_EPS`](PolygonTerrain::SURFACE_EPS)) once. The first 32 stay on the stack.
pub(crate) fn sorted_unique<T: Copy + Default>(
    unit: f64,
    fill: impl FnOnce(&mut dyn FnMut(f64, u32, T)),
    mut visit: impl FnMut(f64, u32, T),
) {
    let mut stack = [(0.0f64, 0u32, T::default()); STACK_SURFACES];
    let mut n = 0;
    let mut heap: Vec<(f64, u32, T)> = Vec::new();
    fill(&mut |z, f, x| {
        if n < STACK_SURFACES {
            stack[n] = (z, f, x);
            n += 1;
        } else {
            if heap.is_empty() {
                heap.extend_from_slice(&stack);
            }
            heap.push((z, f, x));
        }
    });
    let all = if heap.is_empty() { &mut stack[..n] } else { &mut heap[..] };
    all.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut last: Option<f64> = None;
    for &(z, f, x) in all.iter() {
        if last.is_some_and(|q| z - q <= surface_eps(unit, q)) {
            continue;
        }
        last = Some(z);
        visit(z, f, x);
    }
}

#[cfg(test)]
mod tests {
    use super::super::jump::{lines, JUMP_LEVEL};
    use super::*;
    use crate::rng::SplitMix64;

    /// A jittered grid TIN of `n`² cells (two triangles each), deep enough for the jump table.
    fn tin(n: u32, seed: u64) -> PolygonTerrain {
        let mut rng = SplitMix64::new(seed);
        let vertices: Vec<DVec3> = (0..=n)
            .flat_map(|j| (0..=n).map(move |i| (i, j)))
            .map(|(i, j)| {
                let jitter = |k: u32| if k == 0 || k == n { 0.0 } else { 0.3 };
                let x = i as f64 + jitter(i) * rng.range(-1.0, 1.0);
                let y = j as f64 + jitter(j) * rng.range(-1.0, 1.0);
                DVec3::new(x * 3.7 + 1000.0, y * 2.9 - 500.0, rng.range(0.0, 50.0))
            })
            .collect();
        let at = |i: u32, j: u32| j * (n + 1) + i;
        let triangles: Vec<[u32; 3]> = (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .flat_map(|(i, j)| [[at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]])
            .collect();
        PolygonTerrain::builder().triangles(&vertices, &triangles).build().unwrap()
    }

    /// The quadtree is the same node for node whether its big subtrees are built as parallel tasks
    /// and grafted (several threads) or in place (one thread, or below the levels worth a task).
    #[test]
    fn parallel_and_serial_builds_are_identical() {
        let built = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| tin(70, 4)) // 9,800 faces: splits above 2,000 faces are tasks
        };
        let one = built(1);
        for threads in [2, 3, 8] {
            let many = built(threads);
            let bytes = |t: &PolygonTerrain| bytemuck::cast_slice::<Node, u8>(&t.arrays.nodes).to_vec();
            assert!(bytes(&one) == bytes(&many), "{threads} threads");
            assert!(*one.arrays.refs == *many.arrays.refs, "{threads} threads");
        }
        assert!(one.arrays.nodes.len() > 10_000);
    }

    /// The jump table lands on the leaf a descent from the root reaches, for points on every one
    /// of its grid lines (where rounding in its first guess matters), just beside them, on the
    /// root's edges and at random.
    #[test]
    fn jump_table_lands_where_the_descent_does() {
        for seed in 0..3 {
            let t = tin(120, seed);
            let r = t.header.root;
            let (xs, ys) = (lines(r[0], r[2], JUMP_LEVEL), lines(r[1], r[3], JUMP_LEVEL));
            let near = |v: &[f64]| -> Vec<f64> {
                v.iter()
                    .flat_map(|&x| [x.next_down(), x, x.next_up()])
                    .filter(|x| *x >= v[0] && *x <= v[v.len() - 1])
                    .collect()
            };
            let (xs, ys) = (near(&xs), near(&ys));
            let mut rng = SplitMix64::new(seed);
            let mut checked = 0;
            for k in 0..20_000 {
                let x = if k % 2 == 0 { xs[k % xs.len()] } else { rng.range(r[0], r[2]) };
                let y = if k % 3 == 0 { ys[(k / 3) % ys.len()] } else { rng.range(r[1], r[3]) };
                let jumped = t.leaf_node(x, y).map(|n| n as *const Node);
                let walked = t.descend_from(0, x, y).map(|n| n as *const Node);
                assert_eq!(jumped, walked, "({x}, {y})");
                checked += jumped.is_some() as usize;
            }
            assert_eq!(checked, 20_000);
            assert!(t.jump.is_some());
        }
    }
}
