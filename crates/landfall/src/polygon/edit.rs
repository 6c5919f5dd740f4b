//! Changing terrains (QOTA's future work): insert and remove polygons after the build.
//!
//! An inserted polygon's faces are appended and sorted into every leaf they overlap, widening the
//! height ranges on the way; a leaf that overflows is rebuilt as a subtree by the same code as the
//! full build (same cut and stop rules). A removed polygon's faces are marked removed and taken out
//! of their leaves; height ranges stay as they were (still conservative). A polygon outside the
//! root rectangle rebuilds the whole quadtree. Edits copy a memory-mapped terrain's arrays first.

use super::face::{add_polygon, overlaps_rect, Face, FaceSet, QuickFace, REMOVED};
use super::layer::SeenPairs;
use super::quadtree::{build_at, graft, leaf, min_gain_area, outward, quadrants};
use super::{BuildReport, PolygonError, PolygonTerrain};
use glam::DVec3;
use rayon::prelude::*;

impl PolygonTerrain {
    /// Adds a polygon (world coordinates) and returns its id (the next polygon index). A degenerate
    /// polygon gets an id but no faces.
    pub fn insert_polygon(&mut self, vertices: &[DVec3]) -> Result<u32, PolygonError> {
        self.validate()?;
        let id = self.header.polygons;
        if id == u32::MAX {
            return Err(PolygonError::TooLarge);
        }
        let (frame, center) = (self.header.frame, self.header.center);
        let to_local = move |p: DVec3| frame.to_local(p - center);
        let mut set = FaceSet::default();
        let first_vert = self.arrays.verts.len() as u32;
        let mut scratch = Vec::new();
        let mut report = BuildReport::default();
        add_polygon(id, vertices, &to_local, self.header.slack, &mut set, &mut report, &mut scratch)?;
        if self.arrays.verts.len() + set.verts.len() >= u32::MAX as usize / 2 {
            return Err(PolygonError::TooLarge);
        }
        self.header.polygons += 1;
        self.report.polygons += 1;
        self.report.degenerate += report.degenerate;
        self.report.triangulated += report.triangulated;
        let first_face = self.arrays.faces.len() as u32;
        let first_edge = self.arrays.edges.len() as u32;
        for f in &mut set.faces {
            *f = Face { first: f.first + first_vert, ..f.with_edges_moved(first_edge) };
        }
        self.report.faces += set.faces.len();
        self.arrays.quick.make_mut().extend(set.faces.iter().map(QuickFace::of));
        self.arrays.faces.make_mut().extend_from_slice(&set.faces);
        self.arrays.geoms.make_mut().extend_from_slice(&set.geoms);
        self.arrays.verts.make_mut().extend_from_slice(&set.verts);
        self.arrays.edges.make_mut().extend_from_slice(&set.edges);
        let new = first_face..self.arrays.faces.len() as u32;
        // The new faces' polygon comes after every other: `by_source` stays sorted.
        if self.by_source.len() == first_face as usize {
            self.by_source.extend(new.clone());
        }
        let r = self.header.root;
        let outside = new.clone().any(|f| {
            let b = self.arrays.geoms[f as usize].bbox;
            b[0] < r[0] || b[1] < r[1] || b[2] > r[2] || b[3] > r[3]
        });
        if outside {
            self.rebuild_quadtree()?;
        } else {
            for f in new {
                self.sort_in(f);
            }
            self.refresh_derived();
        }
        Ok(id)
    }

    /// Removes every face of polygon `id`; returns how many there were (0 for an unknown or
    /// already removed id).
    pub fn remove_polygon(&mut self, id: u32) -> Result<usize, PolygonError> {
        self.validate()?;
        let geoms = &self.arrays.geoms;
        if self.by_source.len() != geoms.len() {
            self.by_source = (0..geoms.len() as u32).collect();
            self.by_source.par_sort_unstable_by_key(|&f| (geoms[f as usize].source, f));
        }
        // A polygon's faces are one run of `by_source`.
        let source = |f: &u32| geoms[*f as usize].source;
        let run = &self.by_source[self.by_source.partition_point(|f| source(f) < id)..];
        let run = &run[..run.partition_point(|f| source(f) <= id)];
        let live: Vec<u32> =
            run.iter().copied().filter(|&f| self.arrays.faces[f as usize].flags & REMOVED == 0).collect();
        for &f in &live {
            let face = &mut self.arrays.faces.make_mut()[f as usize];
            face.flags |= REMOVED;
            let quick = QuickFace::of(face);
            self.arrays.quick.make_mut()[f as usize] = quick;
            self.visit_leaves(f, None, |t, leaf, rect, _| t.take_out(leaf, rect, f));
        }
        self.report.faces -= live.len();
        Ok(live.len())
    }

    /// Calls `visit(self, leaf, rect, depth)` for every leaf that face `f` overlaps, widening the
    /// height range of every node on the way to `widen` when given (a superset is harmless).
    fn visit_leaves(
        &mut self,
        f: u32,
        widen: Option<[f32; 2]>,
        mut visit: impl FnMut(&mut Self, usize, [f64; 4], usize),
    ) {
        let mut stack = vec![(0usize, self.header.root, 0usize)];
        let mag = self.header.root.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        while let Some((n, r, depth)) = stack.pop() {
            let (face, geom) = (&self.arrays.faces[f as usize], &self.arrays.geoms[f as usize]);
            if !overlaps_rect(face, geom, &self.arrays.edges, r, mag) {
                continue;
            }
            if let Some([lo, hi]) = widen {
                let node = &mut self.arrays.nodes.make_mut()[n];
                node.z = [node.z[0].min(lo), node.z[1].max(hi)];
            }
            let node = self.arrays.nodes[n];
            if node.is_leaf() {
                visit(self, n, r, depth);
            } else {
                for (c, q) in quadrants(r, node.div).into_iter().enumerate() {
                    stack.push((node.first as usize + c, q, depth + 1));
                }
            }
        }
    }

    /// Sorts face `f` into every leaf it overlaps, widening height ranges, splitting leaves that
    /// overflow.
    fn sort_in(&mut self, f: u32) {
        let z = self.arrays.geoms[f as usize].z;
        self.visit_leaves(f, Some(outward(z[0], z[1])), |t, leaf, rect, depth| {
            t.put_in(leaf, rect, f);
            let params = t.header.params;
            if (t.arrays.nodes[leaf].leaf_len() as usize) > params.max_polys && depth < params.max_depth {
                t.split(leaf, rect, depth);
            }
        });
    }

    /// The face indices of leaf `n`.
    fn leaf_faces(&self, n: usize) -> Vec<u32> {
        self.arrays.nodes[n].leaf_refs(&self.arrays.refs).unwrap_or_default().to_vec()
    }

    /// Stores `faces` as the references of leaf `n` over rectangle `rect` (inline when few, else
    /// appended to `refs`), marked and ordered as the build does when they form a single layer.
    fn set_leaf_faces(&mut self, n: usize, rect: [f64; 4], mut faces: Vec<u32>) {
        let z = self.arrays.nodes[n].z;
        let single = self.layering(self.header.root).order(&mut faces, rect, &mut SeenPairs::default());
        self.arrays.nodes.make_mut()[n] = leaf(&faces, z, single, self.arrays.refs.make_mut());
    }

    fn put_in(&mut self, n: usize, rect: [f64; 4], f: u32) {
        let mut faces = self.leaf_faces(n);
        faces.push(f);
        self.set_leaf_faces(n, rect, faces);
    }

    fn take_out(&mut self, n: usize, rect: [f64; 4], f: u32) {
        let mut faces = self.leaf_faces(n);
        faces.retain(|&g| g != f);
        self.set_leaf_faces(n, rect, faces);
    }

    /// Replaces leaf `n` (rectangle `rect` at level `depth`) by a subtree built over its faces.
    fn split(&mut self, n: usize, rect: [f64; 4], depth: usize) {
        let ids = self.leaf_faces(n);
        let live = self.arrays.faces.iter().filter(|f| f.flags & REMOVED == 0).count();
        let gain = min_gain_area(self.header.params, self.header.root, live);
        let a = &self.arrays;
        let layers = Some(self.layering(self.header.root));
        let sub = build_at(&a.faces, &a.geoms[..], &a.edges, layers, ids, rect, depth, self.header.params, gain);
        if sub.nodes.len() == 1 {
            return; // the stop rules kept it a leaf
        }
        // The subtree's root takes the leaf's slot, the rest go after the current nodes.
        graft(self.arrays.nodes.make_mut(), self.arrays.refs.make_mut(), n, &sub);
    }
}
