//! Candidate triangles for swept volumes: the faces under a region, fanned into triangles.

use super::quadtree::quadrants;
use super::PolygonTerrain;
use crate::geom::{Aabb, TriangleId};
use glam::DVec3;

impl PolygonTerrain {
    /// Calls `visit` with every triangle (faces fanned from their first vertex, world coordinates)
    /// of a face whose quadtree leaf meets `region`; a superset of the triangles touching it.
    pub fn triangles_in(&self, region: &Aabb, mut visit: impl FnMut(TriangleId, [DVec3; 3])) {
        if region.is_empty() {
            return;
        }
        // The region's box in the local frame: the box around its 8 rotated corners.
        let mut local = Aabb::EMPTY;
        for k in 0..8 {
            let c = DVec3::new(
                if k & 1 == 0 { region.min.x } else { region.max.x },
                if k & 2 == 0 { region.min.y } else { region.max.y },
                if k & 4 == 0 { region.min.z } else { region.max.z },
            );
            local = local.grown(self.to_local_point(c));
        }
        let a = &self.arrays;
        let mut ids = Vec::new();
        let mut stack = vec![(0usize, self.header.root)];
        let mut visits = a.nodes.len();
        while let Some((n, r)) = stack.pop() {
            // Checked and bounded: the tree may come from an unvalidated file.
            let Some(node) = a.nodes.get(n).filter(|_| visits > 0) else { continue };
            visits -= 1;
            let misses = r[0] > local.max.x
                || r[2] < local.min.x
                || r[1] > local.max.y
                || r[3] < local.min.y
                || (node.z[0] as f64) > local.max.z
                || (node.z[1] as f64) < local.min.z;
            if misses {
                continue;
            }
            if node.is_leaf() {
                ids.extend_from_slice(node.leaf_refs(&a.refs).unwrap_or_default());
            } else {
                for (c, q) in quadrants(r, node.div).into_iter().enumerate() {
                    stack.push((node.first as usize + c, q));
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        for f in ids {
            let Some(geom) = a.geoms.get(f as usize) else { continue };
            let b = geom.bbox;
            if b[0] > local.max.x || b[2] < local.min.x || b[1] > local.max.y || b[3] < local.min.y {
                continue;
            }
            // Fan the face from its first vertex, no copy of its vertices.
            let mut verts = self.face_vertices(f as usize);
            let (Some(v0), Some(mut prev)) = (verts.next(), verts.next()) else { continue };
            for v in verts {
                visit(TriangleId::Polygon(geom.source), [v0, prev, v]);
                prev = v;
            }
        }
    }
}
