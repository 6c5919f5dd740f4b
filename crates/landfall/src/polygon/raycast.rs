//! Arbitrary ray casts on the QOTA quadtree itself: nodes carry their height range, so each node is
//! a 3-D box; the leaves under the ray's projection are visited front to back (nearest entry first)
//! and the walk stops once the next box starts beyond the best hit.
//!
//! The ray–face test is watertight (Woop, Benthin & Wald 2013): every vertex is moved into ray
//! space once — translated to the ray origin and sheared so the ray runs along an axis — and the side
//! of each edge is the 2-D cross product of its two projected vertices. Two faces sharing an edge
//! compute exactly opposite numbers from the same projected vertices, and around a shared vertex the
//! projected faces tile the plane, so a ray through a shared edge or vertex cannot slip between
//! them. (The plain 3-D triple product `dir · ((a − o) × (b − o))` is *not* enough at vertices: there
//! every edge value is rounding noise of one sign, and a ray can pass between all the faces.)

use super::quadtree::{Node, MAX_DEPTH_LIMIT};
use super::PolygonTerrain;
use crate::geom::{Hit, Ray, TriangleId};
use glam::DVec3;
use rayon::prelude::*;

/// A ray in the local frame with what the slab tests reuse.
pub(crate) struct LocalRay {
    o: DVec3,
    d: DVec3,
    inv: DVec3,
    /// Axes of ray space: `kz` is the direction's largest component.
    k: [usize; 3],
    /// Shear taking the direction to the `kz` axis.
    shear: [f64; 2],
}

impl LocalRay {
    pub(crate) fn new(o: DVec3, d: DVec3) -> Self {
        let kz = d.abs().max_position();
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        if d[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        Self { o, d, inv: d.recip(), k: [kx, ky, kz], shear: [d[kx] / d[kz], d[ky] / d[kz]] }
    }

    /// A vertex in ray space, projected along the ray: (0, 0) lies on the ray.
    #[inline]
    fn project(&self, v: [f64; 3]) -> (f64, f64) {
        let a = [v[0] - self.o.x, v[1] - self.o.y, v[2] - self.o.z];
        let [kx, ky, kz] = self.k;
        (a[kx] - self.shear[0] * a[kz], a[ky] - self.shear[1] * a[kz])
    }

    /// Parameter interval of the ray inside the box `r` × `z`, clipped to `[0, t_max]`.
    #[inline]
    fn clip(&self, r: [f64; 4], z: [f32; 2], t_max: f64) -> Option<(f64, f64)> {
        let (mut t0, mut t1) = (0.0f64, t_max);
        let lo = [r[0], r[1], z[0] as f64];
        let hi = [r[2], r[3], z[1] as f64];
        for a in 0..3 {
            let (o, d) = (self.o[a], self.d[a]);
            if d == 0.0 {
                if o < lo[a] || o > hi[a] {
                    return None;
                }
            } else {
                let (ta, tb) = ((lo[a] - o) * self.inv[a], (hi[a] - o) * self.inv[a]);
                t0 = t0.max(ta.min(tb));
                t1 = t1.min(ta.max(tb));
            }
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Does the ray's height over [a, b] meet the range `z` (with a margin for rounding)?
    #[inline]
    fn z_overlaps(&self, a: f64, b: f64, z: [f32; 2]) -> bool {
        let (za, zb) = (self.o.z + self.d.z * a, self.o.z + self.d.z * b);
        let (lo, hi) = if za <= zb { (za, zb) } else { (zb, za) };
        // max(|lo|, |hi|) for lo ≤ hi, in plain comparisons (the values are finite).
        let big = if -lo > hi { -lo } else { hi };
        let margin = 1e-9 * (1.0 + big);
        hi >= z[0] as f64 - margin && lo <= z[1] as f64 + margin
    }

    /// The deepest node, and its depth, whose rectangle holds the whole of the ray over [t0, t1]
    /// (which the root's does): down from the root while the segment's box lies on one side of both
    /// cut lines, by a margin far larger than the rounding of its ends. A ray's walk starts there
    /// instead of at the root — on tin13k it skips five levels of one-piece steps on average.
    #[inline]
    fn deepest_holding(&self, nodes: &[Node], t0: f64, t1: f64) -> (u32, u32) {
        let (p0, p1) = (self.o + self.d * t0, self.o + self.d * t1);
        let (lo, hi) = (p0.min(p1), p0.max(p1));
        let (mut n, mut depth) = (0u32, 0u32);
        while let Some(node) = nodes.get(n as usize).filter(|node| !node.is_leaf()) {
            if depth as usize >= MAX_DEPTH_LIMIT {
                break;
            }
            let [x, y] = node.div;
            let (mx, my) = (1e-9 * (1.0 + x.abs()), 1e-9 * (1.0 + y.abs()));
            // Each side decided without a branch (it is as random as the rays), one test to stop.
            let (east, west) = (lo.x > x + mx, hi.x < x - mx);
            let (north, south) = (lo.y > y + my, hi.y < y - my);
            if !((east | west) & (north | south)) {
                break;
            }
            n = node.first.wrapping_add(east as u32 + 2 * north as u32);
            depth += 1;
        }
        (n, depth)
    }

    /// The ray's pieces over `[t_enter, t_end]` in the four children of a node cut at `div`, front to
    /// back: `(child, entry t, exit t)`, child 0..4 = south-west, south-east, north-west, north-east,
    /// and how many there are (1 to 3). A cut line is crossed where the ray meets it strictly inside
    /// the interval; the side of a crossed line is known from the direction alone (west of the x cut
    /// before crossing it when moving east), that of a line not crossed from the interval's middle.
    /// A ray through the cut point goes from one child to the diagonally opposite one.
    #[inline]
    fn pieces(&self, div: [f64; 2], t_enter: f64, t_end: f64) -> ([(u32, f64, f64); 3], usize) {
        let m = 0.5 * (t_enter + t_end);
        let (cx, east_x) = crossing(self.o.x, self.d.x, self.inv.x, div[0], t_enter, t_end, m);
        let (cy, east_y) = crossing(self.o.y, self.d.y, self.inv.y, div[1], t_enter, t_end, m);
        let start = east_x as u32 | (east_y as u32) << 1;
        // The earlier crossing first; `bit` flips the side of its axis.
        let (first, second, bit) = if cx <= cy { (cx, cy, 1) } else { (cy, cx, 2) };
        let mut out = [(start, t_enter, if first < t_end { first } else { t_end }); 3];
        if first == f64::INFINITY {
            return (out, 1);
        }
        if second == first {
            out[1] = (start ^ 3, first, t_end);
            return (out, 2);
        }
        out[1] = (start ^ bit, first, if second < t_end { second } else { t_end });
        if second == f64::INFINITY {
            return (out, 2);
        }
        out[2] = (start ^ 3, second, t_end);
        (out, 3)
    }
}

/// Where a ray (`o`, `d`, `inv` = 1/`d` along one axis) crosses the cut line `div` strictly inside
/// `(t_enter, t_end)` (infinity when it does not) and whether it starts east (north) of it: for a
/// crossed line from the direction, otherwise from the interval's middle `m`.
#[inline(always)]
fn crossing(o: f64, d: f64, inv: f64, div: f64, t_enter: f64, t_end: f64, m: f64) -> (f64, bool) {
    let t = (div - o) * inv;
    // The same as a chain of `if`s, as selects: which case applies is as random as the rays. (The
    // crossing's t is picked by an index: the compiler keeps an `if` between two floats a branch.)
    let (forward, backward) = (d > 0.0, d < 0.0);
    let crossed = (forward | backward) & (t > t_enter) & (t < t_end);
    let side_of_middle = (forward & (m >= t)) | (backward & (m < t)) | (!forward & !backward & (o >= div));
    let east = (crossed & backward) | (!crossed & side_of_middle);
    ([f64::INFINITY, t][usize::from(crossed)], east)
}

/// A stack entry: node, the ray's entry and exit t, the node's depth.
type Entry = (u32, f64, f64, u32);

/// The traversal stack: fixed capacity (3 entries per level plus the root), not zero-filled on
/// every ray (a 6 KB memset was 3 % of a ray cast).
struct Stack {
    items: [std::mem::MaybeUninit<Entry>; 3 * MAX_DEPTH_LIMIT + 4],
    len: usize,
}

impl Stack {
    #[inline]
    fn new() -> Self {
        Self { items: [const { std::mem::MaybeUninit::uninit() }; 3 * MAX_DEPTH_LIMIT + 4], len: 0 }
    }

    /// Pushes, or drops the entry when full (cannot happen with depth ≤ MAX_DEPTH_LIMIT).
    #[inline]
    fn push(&mut self, e: Entry) {
        if let Some(slot) = self.items.get_mut(self.len) {
            slot.write(e);
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        self.len = self.len.checked_sub(1)?;
        // SAFETY: slots below `len` were written by `push` and never invalidated.
        Some(unsafe { self.items[self.len].assume_init() })
    }
}

impl PolygonTerrain {
    /// First crossing of `ray` with any face (two-sided, vertical faces included) for t in
    /// [0, `max_t`]. A ray that fails [`Ray::validate`] misses.
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let frame = &self.header.frame;
        let o = self.to_local_point(ray.origin);
        let d = frame.to_local(ray.dir);
        let lr = LocalRay::new(o, d);
        let nodes = &*self.arrays.nodes;
        let mut best_t = max_t;
        let mut best: Option<u32> = None;
        // Stack of (node, entry t, exit t, depth): at most 3 per level plus the root. A child's
        // interval comes from the times the ray crosses its parent's two cut lines — no rectangles,
        // no slab tests below the root, no sort. Depth and visits are bounded and every index
        // checked: a loaded file's indices are trusted for nothing (see `from_parts`), and a valid
        // tree visits each node at most once.
        let mut stack = Stack::new();
        let mut visits = nodes.len();
        if let Some((t0, t1)) = nodes.first().and_then(|root| lr.clip(self.header.root, root.z, best_t)) {
            let (start, depth) = lr.deepest_holding(nodes, t0, t1);
            if nodes.get(start as usize).is_some_and(|n| lr.z_overlaps(t0, t1, n.z)) {
                stack.push((start, t0, t1, depth));
            }
        }
        let mut next = stack.pop();
        while let Some((n, t_enter, t_exit, depth)) = next {
            next = None;
            if visits == 0 {
                break;
            }
            visits -= 1;
            let node = nodes.get(n as usize).filter(|_| t_enter <= best_t);
            match node {
                Some(node) if node.is_leaf() => {
                    for &f in node.leaf_refs(&self.arrays.refs).unwrap_or_default() {
                        if let Some(t) = self.hit_face(f, &lr, best_t) {
                            let source = |f: u32| self.arrays.geoms.get(f as usize).map_or(u32::MAX, |g| g.source);
                            let tie_wins = best.is_some_and(|b| t == best_t && source(f) < source(b));
                            if t < best_t || best.is_none() || tie_wins {
                                best_t = t;
                                best = Some(f);
                            }
                        }
                    }
                }
                Some(node) if (depth as usize) < MAX_DEPTH_LIMIT => {
                    let (pieces, k) = lr.pieces(node.div, t_enter, t_exit.min(best_t));
                    // Back to front: the later pieces wait on the stack, the front one is visited
                    // next; a child whose height range the ray's piece does not meet is left out.
                    for &(c, a, b) in pieces[..k].iter().rev() {
                        let child = node.first.wrapping_add(c);
                        if let Some(cn) = nodes.get(child as usize).filter(|n| lr.z_overlaps(a, b, n.z)) {
                            // Its children (two cache lines) are requested now, a step before
                            // they are read.
                            prefetch_children(nodes, cn.first);
                            if let Some(later) = next.replace((child, a, b, depth + 1)) {
                                stack.push(later);
                            }
                        }
                    }
                }
                _ => {}
            }
            if next.is_none() {
                next = stack.pop();
            }
        }
        let f = self.arrays.geoms.get(best? as usize)?;
        let normal = frame.orient_up(frame.to_world(DVec3::from_array(f.normal)));
        Some(Hit { t: best_t, point: ray.at(best_t), normal, triangle: TriangleId::Polygon(f.source) })
    }

    /// t of the crossing of the local ray with face `f`, if it is in [0, `t_max`].
    #[inline]
    fn hit_face(&self, f: u32, r: &LocalRay, t_max: f64) -> Option<f64> {
        let (face, geom) = (self.arrays.faces.get(f as usize)?, self.arrays.geoms.get(f as usize)?);
        if face.flags & super::REMOVED != 0 || face.count < 3 {
            return None;
        }
        let verts = self.arrays.verts.get(face.first as usize..face.first as usize + face.count as usize)?;
        hit_polygon(verts, DVec3::from_array(geom.normal), geom.d, r, t_max)
    }

    /// [`PolygonTerrain::raycast`] for many `(ray, max_t)` pairs, in parallel.
    pub fn raycast_batch(&self, rays: &[(Ray, f64)]) -> Vec<Option<Hit>> {
        rays.par_iter().with_min_len(1024).map(|(r, t)| self.raycast(r, *t)).collect()
    }
}

/// Hints the CPU to fetch the four nodes from `first` (two cache lines): the children of an internal
/// node. Asked for every node kept, leaves too (where `first` means something else, and a line is
/// fetched for nothing), since a test of which it is would be a branch as random as the rays.
#[inline(always)]
fn prefetch_children(nodes: &[Node], first: u32) {
    // Address arithmetic only (the pointer is never read): a prefetch of any address is harmless.
    let block = nodes.as_ptr().wrapping_add(first as usize);
    crate::geom::prefetch_ptr(block);
    crate::geom::prefetch_ptr(block.wrapping_add(2));
}

/// t of the crossing of `r` with the convex planar polygon `verts` (plane `normal · x = d`), if it
/// is in [0, `t_max`]: the plane gives t, the watertight edge test decides inside. A crossing whose
/// t is beyond f64 (a direction far shorter than the distance) is a miss, as on heightfields.
#[inline]
pub(crate) fn hit_polygon(verts: &[[f64; 3]], normal: DVec3, d: f64, r: &LocalRay, t_max: f64) -> Option<f64> {
    let denom = normal.dot(r.d);
    if denom == 0.0 {
        return None;
    }
    let t = (d - normal.dot(r.o)) / denom;
    if !(t >= 0.0 && t <= t_max && t < f64::INFINITY) {
        return None;
    }
    let (mut pos, mut neg) = (false, false);
    let mut a = r.project(verts[verts.len() - 1]);
    for v in verts {
        let b = r.project(*v);
        let side = a.0 * b.1 - a.1 * b.0;
        pos |= side > 0.0;
        neg |= side < 0.0;
        if pos && neg {
            return None;
        }
        a = b;
    }
    Some(t)
}
