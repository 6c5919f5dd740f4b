//! The occupancy quad-tree: the region's square cut into free leaves (no inflated obstacle and no
//! steep ground meets them, closed boxes), full leaves (wholly inside one inflated obstacle, or all
//! steep) and partial leaves (the finest cells, neither); refined only where obstacles or steep
//! ground are. An obstacle added or removed re-cuts only the leaves its box meets, and a node whose
//! four children became alike leaves is cut afresh (merged), so the tree is the one a fresh cut
//! gives.

use super::geom::{box_dist2, box_far2};
use super::obstacles::Obstacles;
use super::slope::SlopeGrid;
use glam::DVec2;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Cut in four: its children are nodes `first .. first + 4` (south-west, south-east,
    /// north-west, north-east).
    Split(u32),
    /// Clear everywhere (closed box).
    Free,
    /// A finest cell that obstacles or steep ground meet in part.
    Partial,
    /// Blocked everywhere.
    Full,
}

/// A node: its box in finest cells and what it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) level: u8,
    pub(crate) state: State,
}

impl Node {
    /// Side in finest cells.
    #[inline]
    pub(crate) fn size(&self) -> u32 {
        1 << self.level
    }
}

/// The tree over a square of `2^depth` finest cells of side `cell` from `origin`.
pub(crate) struct Tree {
    pub(crate) origin: DVec2,
    pub(crate) cell: f64,
    pub(crate) depth: u8,
    pub(crate) nodes: Vec<Node>,
    /// Blocks of four nodes let go by merges, for reuse.
    spare: Vec<u32>,
    scratch: Vec<u32>,
}

impl Tree {
    /// Cuts the square for `obstacles` and `slope`.
    pub(crate) fn new(origin: DVec2, cell: f64, depth: u8, obstacles: &Obstacles, slope: &SlopeGrid) -> Self {
        let root = Node { x: 0, y: 0, level: depth, state: State::Free };
        let mut t = Self { origin, cell, depth, nodes: vec![root], spare: Vec::new(), scratch: Vec::new() };
        t.recut(0, obstacles, slope);
        t
    }

    /// Side of the square in finest cells.
    #[inline]
    pub(crate) fn side(&self) -> u32 {
        1 << self.depth
    }

    /// World box of node `n`.
    #[inline]
    pub(crate) fn bounds(&self, n: u32) -> (DVec2, DVec2) {
        let nd = &self.nodes[n as usize];
        let lo = self.origin + DVec2::new(nd.x as f64, nd.y as f64) * self.cell;
        (lo, lo + DVec2::splat(nd.size() as f64 * self.cell))
    }

    /// World centre of node `n`.
    #[inline]
    pub(crate) fn center(&self, n: u32) -> DVec2 {
        let (lo, hi) = self.bounds(n);
        (lo + hi) * 0.5
    }

    /// The leaf holding finest cell (i, j) (inside the square).
    #[inline]
    pub(crate) fn leaf_at(&self, i: u32, j: u32) -> u32 {
        let mut n = 0u32;
        loop {
            let nd = &self.nodes[n as usize];
            match nd.state {
                State::Split(first) => {
                    let l = nd.level - 1;
                    n = first + ((i >> l) & 1) + 2 * ((j >> l) & 1);
                }
                _ => return n,
            }
        }
    }

    /// Calls `visit` with every leaf meeting the finest cells [i0, i1] × [j0, j1].
    pub(crate) fn leaves_in(&self, i0: u32, j0: u32, i1: u32, j1: u32, visit: &mut impl FnMut(u32)) {
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let nd = self.nodes[n as usize];
            let s = nd.size();
            if nd.x > i1 || nd.y > j1 || nd.x + s <= i0 || nd.y + s <= j0 {
                continue;
            }
            match nd.state {
                State::Split(first) => stack.extend(first..first + 4),
                _ => visit(n),
            }
        }
    }

    /// Calls `visit` with every leaf sharing a side (a stretch of positive length) with leaf `n`.
    pub(crate) fn neighbours(&self, n: u32, mut visit: impl FnMut(u32)) {
        let nd = self.nodes[n as usize];
        let (s, side) = (nd.size(), self.side());
        // For each side: the fixed coordinate just outside, and the axis that runs along it.
        let sides = [
            (nd.x.checked_sub(1), true),
            ((nd.x + s < side).then_some(nd.x + s), true),
            (nd.y.checked_sub(1), false),
            ((nd.y + s < side).then_some(nd.y + s), false),
        ];
        for (fixed, vertical) in sides {
            let Some(f) = fixed else { continue };
            let (start, end) = if vertical { (nd.y, nd.y + s) } else { (nd.x, nd.x + s) };
            let mut p = start;
            while p < end {
                let m = if vertical { self.leaf_at(f, p) } else { self.leaf_at(p, f) };
                let md = &self.nodes[m as usize];
                visit(m);
                p = if vertical { md.y + md.size() } else { md.x + md.size() };
            }
        }
    }

    /// Re-cuts every leaf whose box meets the world box [lo, hi] (after an obstacle there
    /// changed), merging siblings that became alike; returns the nodes re-cut.
    pub(crate) fn update(&mut self, lo: DVec2, hi: DVec2, obstacles: &Obstacles, slope: &SlopeGrid) -> usize {
        self.update_node(0, lo, hi, obstacles, slope)
    }

    fn update_node(&mut self, n: u32, lo: DVec2, hi: DVec2, obstacles: &Obstacles, slope: &SlopeGrid) -> usize {
        let (blo, bhi) = self.bounds(n);
        if blo.x > hi.x || blo.y > hi.y || bhi.x < lo.x || bhi.y < lo.y {
            return 0;
        }
        match self.nodes[n as usize].state {
            State::Split(first) => {
                let mut count = 0;
                for c in first..first + 4 {
                    count += self.update_node(c, lo, hi, obstacles, slope);
                }
                let kids = [0, 1, 2, 3].map(|k| self.nodes[(first + k) as usize].state);
                // Four alike leaves: cut the node afresh (as a fresh tree would be cut here).
                if matches!(kids[0], State::Free | State::Full) && kids.iter().all(|&k| k == kids[0]) {
                    self.spare.push(first);
                    self.recut(n, obstacles, slope);
                }
                count
            }
            _ => {
                self.recut(n, obstacles, slope);
                1
            }
        }
    }

    /// Cuts leaf `n` afresh for the obstacles near it.
    fn recut(&mut self, n: u32, obstacles: &Obstacles, slope: &SlopeGrid) {
        let (lo, hi) = self.bounds(n);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        obstacles.near(lo, hi, &mut scratch);
        self.cut(n, 0, &mut scratch, obstacles, slope);
        self.scratch = scratch;
    }

    /// Cuts node `n` given the ids `cands[from..]` of the obstacles that may meet it.
    fn cut(&mut self, n: u32, from: usize, cands: &mut Vec<u32>, obstacles: &Obstacles, slope: &SlopeGrid) {
        let (lo, hi) = self.bounds(n);
        let mine = cands.len();
        let mut full = false;
        for k in from..mine {
            let id = cands[k];
            let d = obstacles.inflated(id).expect("candidates are present");
            let r2 = d.radius * d.radius;
            if box_dist2(lo, hi, d.center) < r2 {
                cands.push(id);
                full |= box_far2(lo, hi, d.center) <= r2;
            }
        }
        let nd = self.nodes[n as usize];
        let ((i0, i1), (j0, j1)) = (slope.span(nd.x, nd.x + nd.size()), slope.span(nd.y, nd.y + nd.size()));
        let steep = slope.count(i0, j0, i1, j1) as usize;
        let state = if full || steep == (i1 - i0) * (j1 - j0) {
            State::Full
        } else if steep == 0 && cands.len() == mine {
            State::Free
        } else if nd.level == 0 {
            State::Partial
        } else {
            let first = self.alloc();
            let (l, h) = (nd.level - 1, 1u32 << (nd.level - 1));
            for c in 0..4u32 {
                let x = nd.x + h * (c & 1);
                let y = nd.y + h * (c >> 1);
                self.nodes[(first + c) as usize] = Node { x, y, level: l, state: State::Free };
            }
            self.nodes[n as usize].state = State::Split(first);
            for c in 0..4 {
                self.cut(first + c, mine, cands, obstacles, slope);
            }
            State::Split(first)
        };
        self.nodes[n as usize].state = state;
        cands.truncate(mine);
    }

    /// A block of four nodes.
    fn alloc(&mut self) -> u32 {
        if let Some(b) = self.spare.pop() {
            return b;
        }
        let first = self.nodes.len() as u32;
        let blank = Node { x: 0, y: 0, level: 0, state: State::Free };
        self.nodes.extend([blank; 4]);
        first
    }

    /// Leaves in use.
    pub(crate) fn leaves(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            match self.nodes[n as usize].state {
                State::Split(first) => stack.extend(first..first + 4),
                _ => count += 1,
            }
        }
        count
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.spare.capacity() * 4
    }
}
