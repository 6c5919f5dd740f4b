//! The cells of one level over a small rectangle, for the objects' footings: read from the world's
//! cache where it holds them, refined from the nearest ancestors it holds elsewhere, a parent's four
//! children (a *quad*) at a time; the quads refined outside the cache are kept, per level, for the
//! next footings, so that the objects of an entering row refine the ancestors they share once.
//!
//! The cells are the generator's own: each depends only on its ancestors, whoever refines it (the
//! same bits as [`Generator::patch`], tested).

use crate::torus::Attached;
use crate::world::gen::{Cell, Generator};
use crate::world::{CellStore, World, WorldParams};

/// Quads kept per level: a toroidal table of this many parents on a side. The quads of a rectangle
/// wider than that are refined without being kept.
const SIDE: usize = 32;

/// A parent's four children, `[b][a]` as [`Generator::children`] gives them.
type Quad = [[Cell; 2]; 2];

/// The quads refined outside the cache, kept for the next rectangles.
pub(crate) struct Refiner {
    /// The landscape they belong to (another world's empties the tables).
    params: Option<WorldParams>,
    /// Per level, allocated at its first quad: the quads by their parent's index.
    quads: Vec<Option<Attached<Quad>>>,
}

impl Refiner {
    /// Nothing kept yet.
    pub fn new() -> Self {
        Self { params: None, quads: Vec::new() }
    }

    /// The `n[0] × n[1]` cells of `level` (at most the generator's top) from `lo` into `out`,
    /// row-major as [`Generator::patch`]; `spare` is scratch.
    pub fn patch_into<S: CellStore>(
        &mut self,
        world: &World<S>,
        level: u8,
        lo: [i64; 2],
        n: [usize; 2],
        out: &mut Vec<Cell>,
        spare: &mut Vec<Cell>,
    ) {
        let gen = world.generator();
        if self.params.as_ref() != Some(gen.params()) {
            self.params = Some(gen.params().clone());
            self.quads.clear();
            self.quads.resize_with(gen.top() as usize + 1, || None);
        }
        self.patch(gen, world, level, lo, n, out, spare);
    }

    #[allow(clippy::too_many_arguments)]
    fn patch<S: CellStore>(
        &mut self,
        gen: &Generator,
        world: &World<S>,
        level: u8,
        [i0, j0]: [i64; 2],
        [nx, ny]: [usize; 2],
        out: &mut Vec<Cell>,
        spare: &mut Vec<Cell>,
    ) {
        assert!(level <= gen.top(), "level {level} above the top level {}", gen.top());
        out.clear();
        if nx == 0 || ny == 0 {
            return;
        }
        let (i1, j1) = (i0 + nx as i64 - 1, j0 + ny as i64 - 1);
        if world.holds(level, [i0, j0], [i1, j1]) {
            for j in j0..=j1 {
                out.extend((i0..=i1).map(|i| world.held(level, i, j)));
            }
            return;
        }
        if level == gen.top() {
            for j in j0..=j1 {
                out.extend((i0..=i1).map(|i| gen.top_cell(i, j)));
            }
            return;
        }
        // The quads over the rectangle: parents [q0, q1] of level + 1.
        let (q0, q1) = ([i0.div_euclid(2), j0.div_euclid(2)], [i1.div_euclid(2), j1.div_euclid(2)]);
        let keep = q1[0] - q0[0] < SIDE as i64 && q1[1] - q0[1] < SIDE as i64;
        let table = &mut self.quads[level as usize];
        if keep && table.is_none() {
            *table = Some(Attached::new(SIDE));
        }
        // Whether the cache holds quad (qi, qj): its window looked up once.
        let (window, w) = (world.held_window(level), world.width() as i64);
        let held = |qi: i64, qj: i64| {
            window.is_some_and(|o| 2 * qi >= o[0] && 2 * qi + 1 < o[0] + w && 2 * qj >= o[1] && 2 * qj + 1 < o[1] + w)
        };
        let kept = |t: &Option<Attached<Quad>>, qi: i64, qj: i64| -> Option<Quad> {
            t.as_ref().filter(|_| keep).and_then(|t| t.get(qi, qj)).copied()
        };
        // The quads to refine (neither held nor kept) and their parents, one parent of margin
        // each side, into `spare` (with `out` as its scratch).
        let mut fresh: Option<([i64; 2], [i64; 2])> = None;
        for qj in q0[1]..=q1[1] {
            for qi in q0[0]..=q1[0] {
                if !held(qi, qj) && kept(table, qi, qj).is_none() {
                    let (lo, hi) = fresh.get_or_insert(([qi, qj], [qi, qj]));
                    *lo = [lo[0].min(qi), lo[1].min(qj)];
                    *hi = [hi[0].max(qi), hi[1].max(qj)];
                }
            }
        }
        let (p0, pnx) = match fresh {
            Some((lo, hi)) => {
                let (p0, pn) = ([lo[0] - 1, lo[1] - 1], [(hi[0] - lo[0] + 3) as usize, (hi[1] - lo[1] + 3) as usize]);
                self.patch(gen, world, level + 1, p0, pn, spare, out);
                (p0, pn[0])
            }
            None => ([0, 0], 0),
        };
        let parents = &*spare;
        let at = |i: i64, j: i64| parents[(j - p0[1]) as usize * pnx + (i - p0[0]) as usize];
        let table = &mut self.quads[level as usize];
        out.resize(nx * ny, Cell::default());
        for qj in q0[1]..=q1[1] {
            for qi in q0[0]..=q1[0] {
                let quad = if held(qi, qj) {
                    let c = |a: i64, b: i64| world.held(level, 2 * qi + a, 2 * qj + b);
                    [[c(0, 0), c(1, 0)], [c(0, 1), c(1, 1)]]
                } else if let Some(q) = kept(table, qi, qj) {
                    q
                } else {
                    let p = [
                        [at(qi - 1, qj - 1), at(qi, qj - 1), at(qi + 1, qj - 1)],
                        [at(qi - 1, qj), at(qi, qj), at(qi + 1, qj)],
                        [at(qi - 1, qj + 1), at(qi, qj + 1), at(qi + 1, qj + 1)],
                    ];
                    let q = gen.children(level, qi, qj, &p);
                    if let Some(t) = table.as_mut().filter(|_| keep) {
                        t.insert(qi, qj, q);
                    }
                    q
                };
                for (b, row) in quad.iter().enumerate() {
                    for (a, &c) in row.iter().enumerate() {
                        let (i, j) = (2 * qi + a as i64, 2 * qj + b as i64);
                        if (i0..=i1).contains(&i) && (j0..=j1).contains(&j) {
                            out[(j - j0) as usize * nx + (i - i0) as usize] = c;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::world::objects::test_world as world;
    use glam::DVec3;

    /// Every rectangle is the generator's, bit for bit: inside the cache's windows, across their
    /// edges, far outside them and wider than the kept tables, one refiner answering many
    /// rectangles (its quads kept, overwritten and kept again) of two worlds in turn, the viewer
    /// moving.
    #[test]
    fn rectangles_are_the_generators() {
        let mut rng = SplitMix64::new(5);
        let mut r = Refiner::new();
        let (mut out, mut spare) = (Vec::new(), Vec::new());
        for round in 0..6 {
            let mut w = world(round % 2, DVec3::new(rng.range(-3e3, 3e3), rng.range(-3e3, 3e3), 30.0));
            for _ in 0..3 {
                let v = w.viewer() + DVec3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.range(0.0, 300.0));
                w.update(v).unwrap();
                for level in 0..12u8 {
                    let s = w.generator().cell_width(level);
                    for _ in 0..12 {
                        let spread = s * w.width() as f64 * rng.range(0.0, 1.5);
                        let (x, y) = (v.x + rng.range(-spread, spread), v.y + rng.range(-spread, spread));
                        let lo = [(x / s).floor() as i64, (y / s).floor() as i64];
                        let wide = if rng.uniform() < 0.1 { 80.0 } else { 8.0 };
                        let n = [rng.range(1.0, wide) as usize, rng.range(1.0, wide) as usize];
                        r.patch_into(&w, level, lo, n, &mut out, &mut spare);
                        assert_eq!(
                            out,
                            w.generator().patch(level, lo[0], lo[1], n[0], n[1]),
                            "level {level} {lo:?} {n:?}"
                        );
                    }
                }
            }
        }
    }
}
