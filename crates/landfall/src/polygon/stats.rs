//! Quadtree statistics: the columns of QOTA's Table 4.

use super::quadtree::quadrants;
use super::PolygonTerrain;

/// Size and quality of a polygon terrain's quadtree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadtreeStats {
    /// All nodes, internal and leaves.
    pub nodes: usize,
    /// Leaves.
    pub leaves: usize,
    /// Leaves whose faces form a single layer: vertical queries there stop at the first face that
    /// holds their point.
    pub single_layer_leaves: usize,
    /// Deepest leaf (root = 0).
    pub depth: usize,
    /// Face references held by the leaves (inline ones included).
    pub refs: usize,
    /// Most faces in one leaf.
    pub max_leaf: usize,
    /// Bytes of the quadtree (nodes and references).
    pub tree_bytes: usize,
    /// Bytes of the faces themselves (face and quick records, vertices, edge equations).
    pub face_bytes: usize,
    /// Expected containment tests per query: faces per leaf averaged with leaf areas as weights
    /// (QOTA Table 4, last column).
    pub expected_tests: f64,
}

impl QuadtreeStats {
    /// Everything: faces plus quadtree.
    pub fn total_bytes(&self) -> usize {
        self.tree_bytes + self.face_bytes
    }
}

impl PolygonTerrain {
    /// Node count, bytes, depth and expected containment tests of the quadtree.
    pub fn stats(&self) -> QuadtreeStats {
        let a = &self.arrays;
        let mut s = QuadtreeStats {
            nodes: a.nodes.len(),
            leaves: 0,
            single_layer_leaves: 0,
            depth: 0,
            refs: 0,
            max_leaf: 0,
            tree_bytes: std::mem::size_of_val(&*a.nodes) + std::mem::size_of_val(&*a.refs),
            face_bytes: std::mem::size_of_val(&*a.faces)
                + std::mem::size_of_val(&*a.quick)
                + std::mem::size_of_val(&*a.verts)
                + std::mem::size_of_val(&*a.edges),
            expected_tests: 0.0,
        };
        let (mut weighted, mut area) = (0.0, 0.0);
        let mut stack = vec![(0usize, self.header.root, 0usize)];
        let mut visits = a.nodes.len();
        while let Some((n, r, depth)) = stack.pop() {
            // Checked and bounded: the tree may come from an unvalidated file.
            let Some(node) = a.nodes.get(n).filter(|_| visits > 0 && depth <= super::MAX_DEPTH_LIMIT) else { continue };
            visits -= 1;
            if node.is_leaf() {
                let w = (r[2] - r[0]) * (r[3] - r[1]);
                s.leaves += 1;
                s.single_layer_leaves += node.is_single_layer() as usize;
                s.depth = s.depth.max(depth);
                s.max_leaf = s.max_leaf.max(node.leaf_len() as usize);
                s.refs += node.leaf_len() as usize;
                weighted += w * node.leaf_len() as f64;
                area += w;
            } else {
                for (c, q) in quadrants(r, node.div).into_iter().enumerate() {
                    stack.push((node.first as usize + c, q, depth + 1));
                }
            }
        }
        s.expected_tests = if area > 0.0 { weighted / area } else { 0.0 };
        s
    }
}
