//! The 2004 terrain-collision paper's bounding-sphere tree: built with its stop rule (at most N
//! triangles per leaf, at most M levels), serialized depth-first into one array where each node
//! stores its sphere, child count, the offset of its next sibling and, for leaves, the offset of its
//! triangles — so a traversal only moves forward in memory. The global motion test (a sphere around
//! the start and end positions against node spheres, squared distances) picks the leaves; the swept
//! sphere against each of their triangles gives the earliest contact.

use super::sphere_walk::{self, SphereWalk};
use super::sweep::sweep_sphere_triangle;
use super::target::{Earliest, TerrainContact};
use crate::geom::{Aabb, TriangleId};
use crate::terrain::Terrain;
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
        sphere_walk::sweep(self, c, r, v)
    }

    /// [`SweepTarget::sweep_ellipsoid`](crate::collide::SweepTarget::sweep_ellipsoid) on the tree.
    pub fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        sphere_walk::sweep_ellipsoid(self, c, radii, v)
    }

    /// [`SweepTarget::sweep_capsule`](crate::collide::SweepTarget::sweep_capsule) on the tree.
    pub fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        sphere_walk::sweep_capsule(self, a, b, r, v)
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

impl SphereWalk for SphereTree {
    fn walk(&self, mc: DVec3, mr: f64, mut visit: impl FnMut(TriangleId, &[DVec3; 3])) {
        self.near(mc, mr, |i| visit(self.ids[i], &self.tris[i]))
    }
}
