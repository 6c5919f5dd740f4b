//! The 2004 terrain-collision paper's bounding-sphere tree: built with its stop rule (at most N
//! triangles per leaf, at most M levels), serialized depth-first into one array where each node
//! stores its sphere, child count, the offset of its next sibling and, for leaves, the offset of its
//! triangles — so a traversal only moves forward in memory. The global motion test (a sphere around
//! the start and end positions against node spheres, squared distances) picks the leaves; the swept
//! sphere against each of their triangles gives the earliest contact.

use super::sweep::{
    finish_sphere_contact, sweep_capsule_triangle, sweep_sphere_triangle, sweep_sphere_unfinished, Contact,
    PreparedTriangle, SweptBox,
};
use crate::geom::{Aabb, TriangleId};
use crate::terrain::Terrain;
use arrayvec::ArrayVec;
use glam::DVec3;

/// Default stop rule: at most this many triangles per leaf…
pub const DEFAULT_LEAF_TRIANGLES: usize = 20;
/// …and at most this many levels.
pub const DEFAULT_MAX_LEVELS: usize = 20;

/// A node of the serialized tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereNode {
    /// Sphere center.
    pub center: DVec3,
    /// Sphere radius.
    pub radius: f64,
    /// Number of children (0 for a leaf); the first child is the next node in the array.
    pub children: u32,
    /// Index of the next node at the same level (or of whatever follows this subtree).
    pub next: u32,
    /// Leaves: first triangle.
    pub first: u32,
    /// Leaves: number of triangles.
    pub count: u32,
}

/// Something a sphere can be swept against: a [`SphereTree`], or any terrain through its candidate
/// triangles ([`TerrainSweep`]).
pub trait SweepTarget: Send + Sync {
    /// Earliest contact of a sphere of radius `r` whose center moves from `c` along `v` (t in [0, 1]).
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact>;

    /// The same for an axis-aligned ellipsoid of semi-axes `radii` (Fauerby: scale space so it is
    /// a unit sphere, sweep, scale back). Triangles are gathered for the sphere of the largest
    /// radius, then tested in the scaled space.
    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact>;

    /// The same for a capsule of radius `r` around the segment `a`–`b` (world coordinates).
    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact>;

    /// Calls `visit` with every triangle that may touch `region` (a superset is allowed): for
    /// callers that sweep several times in one place ([`Nearby`]).
    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3]));
}

/// How many triangles a [`Nearby`] holds.
pub const NEARBY_CAPACITY: usize = 96;

/// The candidate triangles of one region, gathered once from another target, for several sweeps
/// inside it — a character controller's move makes 4–10. Sweeps that reach outside the region, or
/// any sweep when the region held more than [`NEARBY_CAPACITY`] triangles, go to the other target.
/// Lives on the stack: no allocation.
pub struct Nearby<'a> {
    base: &'a dyn SweepTarget,
    region: Aabb,
    ids: ArrayVec<TriangleId, NEARBY_CAPACITY>,
    tris: ArrayVec<PreparedTriangle, NEARBY_CAPACITY>,
    complete: bool,
}

impl<'a> Nearby<'a> {
    /// Gathers `base`'s triangles for `region` and calls `f` with them. (A closure rather than a
    /// constructor: the store is ~15 KB, which a returned value would copy.)
    pub fn with<R>(base: &'a dyn SweepTarget, region: Aabb, f: impl FnOnce(&Nearby<'a>) -> R) -> R {
        let mut n = Self { base, region, ids: ArrayVec::new(), tris: ArrayVec::new(), complete: true };
        n.gather_from_base();
        f(&n)
    }

    fn gather_from_base(&mut self) {
        let (ids, tris, complete) = (&mut self.ids, &mut self.tris, &mut self.complete);
        self.base.gather(&self.region, &mut |id, t| {
            if tris.is_full() {
                *complete = false;
            } else {
                ids.push(id);
                tris.push(PreparedTriangle::new(t));
            }
        });
    }

    /// Whether a sweep whose swept volume fits in the box [lo, hi] can be answered here.
    #[inline]
    fn covers(&self, lo: DVec3, hi: DVec3) -> bool {
        self.complete && lo.cmpge(self.region.min).all() && hi.cmple(self.region.max).all()
    }

    /// The earliest contact of `test(triangle, found so far)` over the gathered triangles.
    fn earliest(
        &self,
        v: DVec3,
        test: impl Fn(&PreparedTriangle, &Earliest) -> Option<Contact>,
    ) -> Option<TerrainContact> {
        let mut found = Earliest::new(v);
        for (tri, &id) in self.tris.iter().zip(&self.ids) {
            found.offer(test(tri, &found), id);
        }
        found.best
    }
}

impl SweepTarget for Nearby<'_> {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        if !self.covers(c.min(c + v) - reach, c.max(c + v) + reach) {
            return self.base.sweep(c, r, v);
        }
        let whole = SweptBox::new(c, r, v, 1.0);
        self.earliest(v, |tri, found| sphere_against(c, r, v, tri, &whole, found)).map(|b| b.sphere_finished(c, v))
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        let reach = radii + DVec3::splat(1e-9);
        if !self.covers(c.min(c + v) - reach, c.max(c + v) + reach) {
            return self.base.sweep_ellipsoid(c, radii, v);
        }
        self.earliest(v, |tri, found| sweep_scaled(c, radii, v, &tri.tri, found.limit()))
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let (lo, hi) = (a.min(b).min(a.min(b) + v) - reach, a.max(b).max(a.max(b) + v) + reach);
        if !self.covers(lo, hi) {
            return self.base.sweep_capsule(a, b, r, v);
        }
        self.earliest(v, |tri, found| sweep_capsule_triangle(a, b, r, v, &tri.tri, found.limit()))
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        if self.covers(region.min, region.max) {
            for (tri, &id) in self.tris.iter().zip(&self.ids) {
                visit(id, tri.tri);
            }
        } else {
            self.base.gather(region, visit);
        }
    }
}

/// Any terrain as a sweep target: the triangles its [`Terrain::triangles_in`] gives for the box
/// around the motion (a heightfield answers from its grid, no extra structure).
pub struct TerrainSweep<'a>(pub &'a dyn Terrain);

impl SweepTarget for TerrainSweep<'_> {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let region = Aabb::new(c.min(c + v) - reach, c.max(c + v) + reach);
        let whole = SweptBox::new(c, r, v, 1.0);
        let mut found = Earliest::new(v);
        self.0.triangles_in(&region, &mut |id, tri| {
            let contact = sphere_against_corners(c, r, v, tri, &whole, &found);
            found.offer(contact, id)
        });
        found.best.map(|b| b.sphere_finished(c, v))
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.0.triangles_in(region, visit)
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let lo = a.min(b).min(a.min(b) + v) - reach;
        let hi = a.max(b).max(a.max(b) + v) + reach;
        let mut found = Earliest::new(v);
        self.0.triangles_in(&Aabb::new(lo, hi), &mut |id, tri| {
            let contact = sweep_capsule_triangle(a, b, r, v, &tri, found.limit());
            found.offer(contact, id)
        });
        found.best
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        if radii.x == radii.y && radii.y == radii.z {
            return self.sweep(c, radii.x, v);
        }
        let reach = radii + DVec3::splat(1e-9);
        let region = Aabb::new(c.min(c + v) - reach, c.max(c + v) + reach);
        let mut found = Earliest::new(v);
        self.0.triangles_in(&region, &mut |id, tri| {
            let contact = sweep_scaled(c, radii, v, &tri, found.limit());
            found.offer(contact, id)
        });
        found.best
    }
}

/// Swept ellipsoid against one triangle, by scaling space.
fn sweep_scaled(c: DVec3, radii: DVec3, v: DVec3, tri: &[DVec3; 3], t_max: f64) -> Option<Contact> {
    if radii.x == radii.y && radii.y == radii.z {
        return sweep_sphere_triangle(c, radii.x, v, tri, t_max);
    }
    let inv = radii.recip();
    let scaled = tri.map(|p| p * inv);
    // Scaling space leaves the fraction of the motion unchanged.
    let ct = sweep_sphere_triangle(c * inv, 1.0, v * inv, &scaled, t_max)?;
    // Normals transform by the inverse transpose of the scale: multiply by 1/radii again.
    let back = |n: DVec3| (n * inv).normalize_or_zero();
    Some(Contact { t: ct.t, point: ct.point * radii, normal: back(ct.normal), face: back(ct.face) })
}

/// A contact with the terrain, with the triangle that was touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainContact {
    /// The contact (fraction of the motion, point, normal).
    pub contact: Contact,
    /// The touched triangle.
    pub triangle: TriangleId,
}

impl TerrainContact {
    /// The earliest contact of a sphere moving from `c` along `v`, its normal computed (the sphere
    /// tests leave it zero: only the earliest contact needs one).
    #[inline]
    fn sphere_finished(self, c: DVec3, v: DVec3) -> Self {
        Self { contact: finish_sphere_contact(self.contact, c, v), ..self }
    }
}

/// The bounding-sphere tree over a terrain's triangles.
#[derive(Clone, Debug)]
pub struct SphereTree {
    nodes: Vec<SphereNode>,
    tris: Vec<[DVec3; 3]>,
    ids: Vec<TriangleId>,
}

fn sphere_of(tris: &[[DVec3; 3]]) -> (DVec3, f64) {
    let b = tris.iter().flatten().fold(Aabb::EMPTY, |b, &v| b.grown(v));
    let c = (b.min + b.max) * 0.5;
    let r = tris.iter().flatten().fold(0.0f64, |m, &v| m.max((v - c).length()));
    (c, r * (1.0 + 1e-12) + 1e-12)
}

impl SphereTree {
    /// Builds the tree over `triangles` with the paper's stop rule.
    pub fn new(triangles: Vec<([DVec3; 3], TriangleId)>, leaf_triangles: usize, max_levels: usize) -> Self {
        let mut items = triangles;
        let mut tree =
            Self { nodes: Vec::new(), tris: Vec::with_capacity(items.len()), ids: Vec::with_capacity(items.len()) };
        if !items.is_empty() {
            tree.build(&mut items, 0, leaf_triangles.max(1), max_levels.max(1));
        }
        tree
    }

    /// All triangles of `terrain` (its whole bounds), default stop rule.
    pub fn from_terrain(terrain: &dyn Terrain) -> Self {
        let mut tris = Vec::new();
        terrain.triangles_in(&terrain.bounds(), &mut |id, t| tris.push((t, id)));
        Self::new(tris, DEFAULT_LEAF_TRIANGLES, DEFAULT_MAX_LEVELS)
    }

    fn build(&mut self, items: &mut [([DVec3; 3], TriangleId)], level: usize, leaf: usize, levels: usize) {
        let corners: Vec<[DVec3; 3]> = items.iter().map(|i| i.0).collect();
        let (center, radius) = sphere_of(&corners);
        let at = self.nodes.len();
        self.nodes.push(SphereNode { center, radius, children: 0, next: 0, first: 0, count: 0 });
        if items.len() <= leaf || level + 1 >= levels {
            self.nodes[at].first = self.tris.len() as u32;
            self.nodes[at].count = items.len() as u32;
            for (t, id) in items.iter() {
                self.tris.push(*t);
                self.ids.push(*id);
            }
        } else {
            // Two children: split at the median centroid along the longest axis.
            let b = corners.iter().flatten().fold(Aabb::EMPTY, |b, &v| b.grown(v));
            let axis = (b.max - b.min).max_position();
            let key = |t: &[DVec3; 3]| t[0][axis] + t[1][axis] + t[2][axis];
            let mid = items.len() / 2;
            items.select_nth_unstable_by(mid, |x, y| key(&x.0).total_cmp(&key(&y.0)));
            let (lo, hi) = items.split_at_mut(mid);
            self.nodes[at].children = 2;
            self.build(lo, level + 1, leaf, levels);
            self.build(hi, level + 1, leaf, levels);
        }
        self.nodes[at].next = self.nodes.len() as u32;
    }

    /// The serialized nodes (root first).
    pub fn nodes(&self) -> &[SphereNode] {
        &self.nodes
    }

    /// The triangles of leaf `node` (empty for an inner node).
    pub fn leaf_triangles(&self, node: &SphereNode) -> &[[DVec3; 3]] {
        &self.tris[node.first as usize..(node.first + node.count) as usize]
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.tris.len()
    }

    /// The paper's walk: the global motion test (the sphere at `mc` of radius `mr` around the whole
    /// motion against node spheres, squared distances) picks the leaves; `test(triangle, limit)`
    /// sweeps each of their triangles, the earliest contact so far limiting the rest. The walk only
    /// moves forward in the array.
    fn earliest(
        &self,
        mc: DVec3,
        mr: f64,
        v: DVec3,
        test: impl Fn(&[DVec3; 3], &Earliest) -> Option<Contact>,
    ) -> Option<TerrainContact> {
        let mut found = Earliest::new(v);
        self.near(mc, mr, |i| {
            let contact = test(&self.tris[i], &found);
            found.offer(contact, self.ids[i])
        });
        found.best
    }

    /// Calls `visit` with the index of every triangle in the leaves whose spheres meet the sphere
    /// at `mc` of radius `mr` (squared distances; the walk only moves forward in the array).
    fn near(&self, mc: DVec3, mr: f64, mut visit: impl FnMut(usize)) {
        let mut k = 0;
        while k < self.nodes.len() {
            let n = &self.nodes[k];
            let reach = n.radius + mr;
            if n.center.distance_squared(mc) > reach * reach {
                k = n.next as usize;
                continue;
            }
            for i in n.first as usize..(n.first + n.count) as usize {
                visit(i);
            }
            k += 1;
        }
    }

    /// Earliest contact of a sphere of radius `r` whose center moves from `c` along `v` (t in
    /// [0, 1]), by the paper's walk over the tree.
    pub fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let whole = SweptBox::new(c, r, v, 1.0);
        self.earliest(c + v * 0.5, v.length() * 0.5 + r, v, |tri, found| {
            sphere_against_corners(c, r, v, *tri, &whole, found)
        })
        .map(|b| b.sphere_finished(c, v))
    }

    /// [`SweepTarget::sweep_ellipsoid`] on the tree.
    pub fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        self.earliest(c + v * 0.5, v.length() * 0.5 + radii.max_element(), v, |tri, found| {
            sweep_scaled(c, radii, v, tri, found.limit())
        })
    }

    /// [`SweepTarget::sweep_capsule`] on the tree.
    pub fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let (mc, mr) = ((a + b) * 0.5 + v * 0.5, a.distance(b) * 0.5 + v.length() * 0.5 + r);
        self.earliest(mc, mr, v, |tri, found| sweep_capsule_triangle(a, b, r, v, tri, found.limit()))
    }

    /// The naive sweep: every triangle (the benchmark's and the tests' reference).
    pub fn sweep_all(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let mut found = Earliest::new(v);
        for (tri, &id) in self.tris.iter().zip(&self.ids) {
            found.offer(sweep_sphere_triangle(c, r, v, tri, 1.0), id);
        }
        found.best
    }
}

/// The earliest contact so far of one sweep along `v`, and how late a triangle tested next may
/// touch and still matter.
struct Earliest {
    v: DVec3,
    best: Option<TerrainContact>,
    /// How far into the motion a contact can still matter: up to the end of the tie window of
    /// [`better`] around the earliest contact so far (all of it before any contact).
    limit: f64,
    /// With the earliest contact at the very start (its tie window reaches back past t = 0), how
    /// much its face opposes the motion: only a face opposing it more can win.
    at_start: Option<f64>,
}

impl Earliest {
    fn new(v: DVec3) -> Self {
        Self { v, best: None, limit: 1.0, at_start: None }
    }

    /// How far into the motion a contact can still matter.
    #[inline(always)]
    fn limit(&self) -> f64 {
        self.limit
    }

    /// [`Self::limit`] for a sphere against a triangle of unit normal `face`, `None` when no contact
    /// with it can matter. A sphere's contact reports `face` or `-face`, the side its center is on;
    /// once the earliest contact is at the start, a contact whose side does not oppose the motion
    /// more cannot win the tie, and nothing can be earlier — the common case of a sphere resting
    /// on the ground, whose other nearby triangles then need no test. `s0` is the start's signed
    /// distance to the triangle's plane: when the center cannot reach the plane by the limit (with
    /// `margin` for rounding), the side is the start's; otherwise either side may be reported.
    #[inline(always)]
    fn limit_for_side(&self, face: DVec3, s0: f64, margin: f64) -> Option<f64> {
        let Some(facing) = self.at_start else { return Some(self.limit) };
        let nv = face.dot(self.v);
        let opposing = if s0.abs() > nv.abs() * self.limit + margin {
            // The side's `·(−v)`: −nv on the front, nv on the back.
            if s0 > 0.0 {
                -nv
            } else {
                nv
            }
        } else {
            nv.abs()
        };
        (opposing > facing).then_some(self.limit)
    }

    /// Keeps `contact` (with `triangle`) if it is [`better`] than the earliest so far.
    #[inline]
    fn offer(&mut self, contact: Option<Contact>, triangle: TriangleId) {
        let Some(ct) = contact else { return };
        if self.best.is_none_or(|b| better(&ct, &b.contact, self.v)) {
            self.best = Some(TerrainContact { contact: ct, triangle });
            let window = tie_window(ct.t);
            self.limit = (ct.t + window).min(1.0);
            self.at_start = (ct.t < window).then(|| ct.face.dot(-self.v));
        }
    }
}

/// Contacts this close to time `t` are simultaneous.
#[inline(always)]
fn tie_window(t: f64) -> f64 {
    1e-12 * (1.0 + t)
}

/// Earlier wins; at the same time (a shared edge or vertex), the face most opposed to the motion
/// (the tread under a falling sphere, the riser before a walking one).
fn better(a: &Contact, b: &Contact, v: DVec3) -> bool {
    if (a.t - b.t).abs() <= tie_window(b.t) {
        a.face.dot(-v) > b.face.dot(-v)
    } else {
        a.t < b.t
    }
}

/// A sphere of radius `r` moving from `c` along `v` against a prepared triangle, as late as
/// `found` allows ([`Earliest::limit_for_side`]); `whole` is the [`SweptBox`] of the whole motion.
/// The contact's normal is left to [`TerrainContact::sphere_finished`].
#[inline(always)]
fn sphere_against(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    if !whole.reaches(tri.lo, tri.hi) {
        return None;
    }
    sphere_against_reached(c, r, v, tri, whole, found)
}

/// [`sphere_against`] a triangle whose box `whole` is known to reach.
#[inline(always)]
fn sphere_against_reached(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    sweep_sphere_unfinished(c, r, v, tri, whole, |s0| found.limit_for_side(tri.face, s0, side_margin(c, r)))
}

/// How far from a triangle's plane a sphere's start must be (beyond what the motion covers) for
/// the side of any contact to be certain: far more than the rounding of the points compared.
#[inline(always)]
fn side_margin(c: DVec3, r: f64) -> f64 {
    1e-9 * (1.0 + r + c.abs().max_element())
}

/// [`sphere_against`] a triangle given by its corners: it is prepared only if `whole` reaches its
/// box (the normal's square root comes after that reject).
#[inline(always)]
fn sphere_against_corners(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: [DVec3; 3],
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    sphere_against_reached(c, r, v, &PreparedTriangle::reached(tri, whole)?, whole, found)
}

impl SweepTarget for SphereTree {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        SphereTree::sweep(self, c, r, v)
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        SphereTree::sweep_ellipsoid(self, c, radii, v)
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        SphereTree::sweep_capsule(self, a, b, r, v)
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        // The tree's walk with the sphere around the box, then the box itself.
        let (mc, mr) = ((region.min + region.max) * 0.5, (region.max - region.min).length() * 0.5);
        self.near(mc, mr, |i| {
            let t = &self.tris[i];
            let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
            if lo.cmple(region.max).all() && hi.cmpge(region.min).all() {
                visit(self.ids[i], *t);
            }
        });
    }
}
