//! The broad-phase peers of the dual quad-tree, on spheres (id, centre, radius): a uniform grid
//! rebuilt every frame, and parry3d's `Bvh` (the tree inside rapier3d's `BroadPhaseBvh`) updated in
//! place, refitted and self-traversed as rapier does each step. Both report the pairs whose spheres
//! overlap or touch, like `ProximityGrid::pairs`.

use glam::DVec3;
use rapier3d::parry::bounding_volume::Aabb;
use rapier3d::parry::partitioning::{Bvh, BvhWorkspace};
use rapier3d::prelude::Vector;
use std::collections::HashMap;

/// Whether two spheres overlap or touch.
#[inline]
fn touch(a: (DVec3, f64), b: (DVec3, f64)) -> bool {
    (a.0 - b.0).length_squared() <= (a.1 + b.1) * (a.1 + b.1)
}

/// A uniform grid of square cells over x-y, every sphere in every cell its box meets (a large
/// sphere in many), rebuilt from scratch each frame (the usual game loop's grid).
pub struct UniformGrid {
    cell: f64,
    cells: HashMap<(i64, i64), Vec<u32>>,
    /// Cap on cells per object (1,024; a 1 km sphere in 1 m cells would be a million): larger objects
    /// go to a list every object is tested against.
    max_cells: i64,
    big: Vec<u32>,
    is_big: Vec<bool>,
}

impl UniformGrid {
    /// Cells `cell` wide.
    pub fn new(cell: f64) -> Self {
        Self { cell, cells: HashMap::new(), max_cells: 1024, big: Vec::new(), is_big: Vec::new() }
    }

    /// Every pair of `spheres` (indices) that overlap or touch, each once.
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        for v in self.cells.values_mut() {
            v.clear();
        }
        self.big.clear();
        let key = |x: f64| (x / self.cell).floor() as i64;
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let (i0, i1, j0, j1) = (key(c.x - r), key(c.x + r), key(c.y - r), key(c.y + r));
            if (i1 - i0 + 1) * (j1 - j0 + 1) > self.max_cells {
                self.big.push(k as u32);
                continue;
            }
            for j in j0..=j1 {
                for i in i0..=i1 {
                    self.cells.entry((i, j)).or_default().push(k as u32);
                }
            }
        }
        // A pair is reported in the cell holding the lower corner of the overlap of the two boxes.
        let cell = self.cell;
        for (&(i, j), list) in &self.cells {
            for (x, &a) in list.iter().enumerate() {
                for &b in &list[x + 1..] {
                    let (sa, sb) = (spheres[a as usize], spheres[b as usize]);
                    let lo = (sa.0.x - sa.1).max(sb.0.x - sb.1);
                    let lo_y = (sa.0.y - sa.1).max(sb.0.y - sb.1);
                    if ((lo / cell).floor() as i64, (lo_y / cell).floor() as i64) == (i, j) && touch(sa, sb) {
                        visit(a.min(b), a.max(b));
                    }
                }
            }
        }
        // The large ones against everything (a pair of two large ones once).
        self.is_big.clear();
        self.is_big.resize(spheres.len(), false);
        for &a in &self.big {
            self.is_big[a as usize] = true;
        }
        for &a in &self.big {
            for (k, &s) in spheres.iter().enumerate() {
                let k = k as u32;
                if k != a && !(self.is_big[k as usize] && k < a) && touch(spheres[a as usize], s) {
                    visit(a.min(k), a.max(k));
                }
            }
        }
    }
}

/// parry3d's BVH over the spheres' boxes (f32), kept across frames.
pub struct ParryBvh {
    tree: Bvh,
    workspace: BvhWorkspace,
}

impl Default for ParryBvh {
    fn default() -> Self {
        Self { tree: Bvh::new(), workspace: BvhWorkspace::default() }
    }
}

impl ParryBvh {
    /// Moves the leaves to the spheres' boxes (inserting new ones), refits, and reports every pair
    /// of spheres that overlap or touch, each once.
    pub fn pairs(&mut self, spheres: &[(DVec3, f64)], mut visit: impl FnMut(u32, u32)) {
        for (k, &(c, r)) in spheres.iter().enumerate() {
            let (lo, hi) = (c - DVec3::splat(r), c + DVec3::splat(r));
            let aabb = Aabb::new(
                Vector::new(lo.x as f32, lo.y as f32, lo.z as f32),
                Vector::new(hi.x as f32, hi.y as f32, hi.z as f32),
            );
            self.tree.insert_or_update_partially(aabb, k as u32, 0.0);
        }
        self.tree.refit(&mut self.workspace);
        for (a, b) in self.tree.leaf_pairs(&self.tree, |x, y| x.intersects(y)) {
            if a < b && touch(spheres[a as usize], spheres[b as usize]) {
                visit(a, b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use landfall::support::SplitMix64;
    use std::collections::BTreeSet;

    /// Both peers find exactly the pairs brute force finds, on spheres of sizes spanning four
    /// orders of magnitude (the large ones beyond the grid's cap included).
    #[test]
    fn peers_equal_brute_force() {
        let mut rng = SplitMix64::new(4);
        let spheres: Vec<(DVec3, f64)> = (0..1500)
            .map(|_| {
                let r = 10f64.powf(rng.range(-2.0, 2.0));
                (DVec3::new(rng.range(-300.0, 300.0), rng.range(-300.0, 300.0), rng.range(0.0, 5.0)), r)
            })
            .collect();
        let mut want = BTreeSet::new();
        for a in 0..spheres.len() {
            for b in a + 1..spheres.len() {
                if touch(spheres[a], spheres[b]) {
                    want.insert((a as u32, b as u32));
                }
            }
        }
        let mut grid = BTreeSet::new();
        UniformGrid::new(2.0).pairs(&spheres, |a, b| assert!(grid.insert((a, b)), "pair twice"));
        assert_eq!(grid, want);
        let mut bvh = BTreeSet::new();
        ParryBvh::default().pairs(&spheres, |a, b| assert!(bvh.insert((a, b)), "pair twice"));
        assert_eq!(bvh, want);
    }
}
