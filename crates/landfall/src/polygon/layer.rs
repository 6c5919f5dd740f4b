//! Single-layer leaves. A leaf whose ground faces do not overlap seen along gravity (every leaf of
//! a TIN, most leaves of any terrain) has at most one surface on a vertical line through it, so a
//! vertical query may stop at the first face that contains its point. The build marks such leaves
//! and orders their faces by how much of the leaf each covers, so that the first face tested is the
//! likeliest to hold the point.
//!
//! Faces that touch along an edge or at a vertex count as one layer only where they have the same
//! height there (within [`SURFACE_EPS`]): a roof edge seen exactly above a ground edge is two
//! layers, and the leaf is left unmarked.
//!
//! Two tests decide it. When every face of the leaf is sealed (`seal.rs`: no open edge reaches the
//! leaf, so every point of it is covered by the same number of faces) and one of the centres of the
//! leaf's quarters lies in at most one face, the leaf is one layer without looking at a single pair
//! of faces: this answers nearly every leaf of a mesh, at the cost of the cover counts the ordering
//! needs anyway. Otherwise each pair of faces is tested for a separating edge line.

use super::face::{corner_mask, Face, QuickFace, QuickSet};
use super::limits::{eps_unit, surface_eps};

/// A small direct-mapped memory of face pairs found apart: neighbouring leaves share most of their
/// faces, so the same pairs come up again and again during a build.
pub(crate) struct SeenPairs([u64; 1024]);

impl Default for SeenPairs {
    fn default() -> Self {
        Self([0; 1024])
    }
}

impl SeenPairs {
    /// Slot of pair key `key` (`larger << 32 | smaller`, never 0).
    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize
    }

    fn contains(&self, key: u64) -> bool {
        self.0[Self::slot(key)] == key
    }

    fn insert(&mut self, key: u64) {
        self.0[Self::slot(key)] = key;
    }
}

/// What the layer test reads of the faces (local frame).
#[derive(Clone, Copy)]
pub(crate) struct Layering<'a> {
    pub faces: &'a [Face],
    pub verts: &'a [[f64; 3]],
    pub edges: &'a [[f64; 3]],
    /// Distance from an edge's line within which a vertex counts as on it: a few times the edges'
    /// outward slack plus rounding at the terrain's magnitude.
    pub tol: f64,
    /// The absolute part of the surface tolerance ([`eps_unit`]).
    pub unit: f64,
    /// Which faces are sealed (see `seal.rs`), for a build over all the terrain's faces; empty
    /// when not known (an edit's rebuild of a few leaves), which leaves the pair test alone.
    pub sealed: &'a [bool],
    /// The faces' quick records, for a build whose root holds every face (none otherwise): they
    /// decide which centres a face is near, but within their margin of an edge (see
    /// [`near_centres`](Self::near_centres)).
    pub quick: QuickSet<'a>,
}

impl<'a> Layering<'a> {
    /// The layer test for faces stored with outward edge slack `slack` (absolute) in a local frame
    /// whose coordinates are at most `mag` in size.
    pub fn new(faces: &'a [Face], verts: &'a [[f64; 3]], edges: &'a [[f64; 3]], slack: f64, mag: f64) -> Self {
        Self {
            faces,
            verts,
            edges,
            tol: 4.0 * slack + 16.0 * f64::EPSILON * mag,
            unit: eps_unit(slack),
            sealed: &[],
            quick: QuickSet::default(),
        }
    }

    /// The same test knowing which faces are sealed (one flag per face, see `seal.rs`): only for a
    /// build that puts every face into every leaf whose closed rectangle it touches.
    pub fn with_sealed(self, sealed: &'a [bool]) -> Self {
        Self { sealed, ..self }
    }

    /// The same test reading the faces' quick records `quick` (one per face, margin `margin`) where
    /// they decide: only for a build whose root rectangle holds every face and every leaf, the
    /// condition under which their margin bounds their error ([`QuickFace::inside`]).
    /// (Left out, for the exact test alone, should `tol` ever come near the margin: it is ~10⁻¹¹
    /// of the terrain's size, the margin ~10⁻⁶.)
    pub fn with_quick(self, quick: &'a [QuickFace], margin: f32) -> Self {
        if self.tol >= 0.01 * margin as f64 {
            return self;
        }
        Self { quick: QuickSet { records: quick, margin }, ..self }
    }

    /// Orders `ids` (a leaf over rectangle `rect`) by how many of the centres of the rectangle's
    /// four quarters each face contains, most first (ties keep their order), when its ground faces
    /// form a single layer; returns whether they do. Leaves `ids` untouched otherwise.
    ///
    /// Leaves of two and three faces (most of them) take straight-line code: which way their
    /// comparisons go is as random as the faces, and loops whose length is the leaf's would
    /// mispredict their exits.
    pub fn order(&self, ids: &mut [u32], rect: [f64; 4], seen: &mut SeenPairs) -> bool {
        if ids.len() < 2 {
            return true;
        }
        let centres = Centres::of(rect);
        // The sealed test applies to an open rectangle (one with an inside) whose faces are all
        // sealed; it then needs one centre with at most one face around it. Whether each face is
        // sealed is read in the same pass as its cover: one loop over the faces, not two.
        let mut all_sealed = !self.sealed.is_empty() && rect[2] > rect[0] && rect[3] > rect[1];
        let mut is_sealed = |f: u32| all_sealed &= self.sealed.get(f as usize).copied().unwrap_or(false);
        if ids.len() > 16 {
            // Each face with the centres around it, computed once for both tests and the order.
            let mut around: Vec<(u32, u32)> =
                ids.iter().map(|&f| (f, self.near_centres(f, &centres))).inspect(|&(f, _)| is_sealed(f)).collect();
            let faces_at = |k: usize| around.iter().filter(|&&(_, m)| m >> k & 1 != 0).count();
            if !(all_sealed && (0..4).any(|k| faces_at(k) <= 1) || self.single_layer(ids, seen)) {
                return false;
            }
            // A stable sort: ties keep their order.
            around.sort_by_key(|&(_, m)| std::cmp::Reverse(m.count_ones()));
            ids.iter_mut().zip(&around).for_each(|(id, &(f, _))| *id = f);
            return true;
        }
        // Each face with its cover (for the order), and how many faces lie around each centre (for
        // the sealed test): four counts of at most 16 in the bytes of one word.
        let mut near = 0u32;
        let mut cover = |f: u32| {
            is_sealed(f);
            let around = self.near_centres(f, &centres);
            // Bit k of `around` moved to bit 8·k: four copies 7 bits apart, which cannot carry.
            near += (around * 0x0020_4081) & 0x0101_0101;
            (f, around.count_ones())
        };
        let one_layer = |near: u32, sealed: bool, seen: &mut SeenPairs| {
            sealed && near.to_le_bytes().iter().any(|&n| n <= 1) || self.single_layer(ids, seen)
        };
        match *ids {
            [a, b] => {
                let (mut x, mut y) = (cover(a), cover(b));
                if !one_layer(near, all_sealed, seen) {
                    return false;
                }
                sort_two(&mut x, &mut y);
                ids.copy_from_slice(&[x.0, y.0]);
            }
            [a, b, c] => {
                let (mut x, mut y, mut z) = (cover(a), cover(b), cover(c));
                if !one_layer(near, all_sealed, seen) {
                    return false;
                }
                sort_two(&mut x, &mut y);
                sort_two(&mut y, &mut z);
                sort_two(&mut x, &mut y);
                ids.copy_from_slice(&[x.0, y.0, z.0]);
            }
            _ => {
                let mut covers = [(0u32, 0u32); 16];
                for (c, &f) in covers.iter_mut().zip(ids.iter()) {
                    *c = cover(f);
                }
                if !one_layer(near, all_sealed, seen) {
                    return false;
                }
                // A counting sort, stable, most covered first: covers are 0..=4, so five counts (in
                // the bytes of one word) give where each cover's run starts. Every face then goes
                // straight to its place; an insertion sort's comparisons went as randomly as the
                // covers (a tenth of the build's mispredicted branches).
                let covers = &covers[..ids.len()];
                let tally: u64 = covers.iter().map(|&(_, c)| 1u64 << (8 * c)).sum();
                let mut next = [0usize; 5];
                let mut start = 0;
                for c in (0..5).rev() {
                    next[c] = start;
                    start += (tally >> (8 * c) & 0xFF) as usize;
                }
                for &(f, c) in covers {
                    ids[next[c as usize]] = f;
                    next[c as usize] += 1;
                }
            }
        }
        true
    }

    /// True when no two ground faces of `ids` overlap seen along gravity (pairs in `seen` are
    /// known to be apart; pairs found apart are added).
    pub fn single_layer(&self, ids: &[u32], seen: &mut SeenPairs) -> bool {
        // The pairs of two and three faces spelled out, in the general order (see `order`).
        match *ids {
            [] | [_] => true,
            [a, b] => self.apart(b, a, seen),
            [a, b, c] => self.apart(b, a, seen) && self.apart(c, a, seen) && self.apart(c, b, seen),
            _ => (1..ids.len()).all(|i| ids[..i].iter().all(|&b| self.apart(ids[i], b, seen))),
        }
    }

    /// Are faces `a` and `b` apart seen along gravity (or not both ground faces)? Pairs in `seen`
    /// are known to be; pairs found to be are added.
    fn apart(&self, a: u32, b: u32, seen: &mut SeenPairs) -> bool {
        let ground = |f: u32| self.faces.get(f as usize).is_some_and(Face::is_ground);
        if !(ground(a) && ground(b)) {
            return true;
        }
        let key = (a.max(b) as u64) << 32 | a.min(b) as u64;
        if seen.contains(key) {
            return true;
        }
        let apart = self.separated(a, b) || self.separated(b, a);
        if apart {
            seen.insert(key);
        }
        apart
    }

    /// Does the line of some edge of face `a` have all of face `b` on its far side, `b`'s vertices on
    /// the line itself being at `a`'s height? (Convex faces: then their interiors are apart, and
    /// where they touch they are one surface.)
    fn separated(&self, a: u32, b: u32) -> bool {
        let (fa, fb) = (&self.faces[a as usize], &self.faces[b as usize]);
        let verts = self.verts.get(fb.first as usize..fb.first as usize + fb.count as usize);
        let (Some(edges), Some(verts)) = (fa.edge_equations(self.edges), verts) else { return false };
        // Whether each vertex of `b` lies at `a`'s height, for when it lies on one of `a`'s edges.
        let level = |v: &[f64; 3]| (fa.height(v[0], v[1]) - v[2]).abs() <= surface_eps(self.unit, v[2]);
        // Whether vertex `v` (with `level` = its height test) is on the far side of edge `e`, or
        // on its line (|s| ≤ tol·|(A, B)| as s² ≤ tol²·(A² + B²)) at `a`'s height.
        let beyond = |e: &[f64; 3], v: &[f64; 3], level: bool| {
            let tol2 = self.tol * self.tol * (e[0] * e[0] + e[1] * e[1]);
            let s = e[0] * v[0] + e[1] * v[1] + e[2];
            let on_line = s * s <= tol2;
            (on_line & level) | (!on_line & (s < 0.0))
        };
        if let ([e0, e1, e2], [v0, v1, v2]) = (edges, verts) {
            // Two triangles (nearly every pair): all nine tests without a branch, since which
            // edge separates them is as random as the pairs.
            let level = [level(v0), level(v1), level(v2)];
            let apart = |e| beyond(e, v0, level[0]) & beyond(e, v1, level[1]) & beyond(e, v2, level[2]);
            return apart(e0) | apart(e1) | apart(e2);
        }
        edges.iter().any(|e| verts.iter().all(|v| beyond(e, v, level(v))))
    }

    /// Which of the four centres `(xs[k & 1], ys[k >> 1])` (bit k) ground face `f` contains or
    /// comes within `tol` of: every face whose exact closure holds the point, whatever the rounding
    /// of its edge equations; none for other faces.
    ///
    /// The face's quick record answers when it places every centre inside or outside (nearly
    /// always), with the exact test's answer: a centre it puts inside is inside exactly; one it
    /// puts outside lies beyond the edge by more than the margin less the record's error (half the
    /// margin), and `tol` is under a hundredth of the margin (see [`with_quick`](Self::with_quick)).
    /// A face that is not a ground triangle has zero equations in its record, which decide nothing.
    #[inline(always)]
    fn near_centres(&self, f: u32, centres: &Centres) -> u32 {
        if let Some(q) = self.quick.records.get(f as usize) {
            let (inside, outside) = q.inside4(centres.x32, centres.y32, self.quick.margin);
            if inside | outside == 15 {
                return inside;
            }
        }
        self.exact_near_centres(f, centres.exact)
    }

    /// [`near_centres`](Self::near_centres) from the exact edge equations (out of line: rare in a
    /// build with quick records).
    #[inline(never)]
    fn exact_near_centres(&self, f: u32, (xs, ys): ([f64; 2], [f64; 2])) -> u32 {
        let Some(face) = self.faces.get(f as usize).filter(|f| f.is_ground()) else { return 0 };
        let Some(edges) = face.edge_equations(self.edges) else { return 0 };
        // A triangle's three equations as an array (nearly every face): a loop of known length,
        // which the compiler unrolls.
        match <&[[f64; 3]; 3]>::try_from(edges) {
            Ok(triangle) => near_mask(triangle, xs, ys, self.tol),
            Err(_) => near_mask(edges, xs, ys, self.tol),
        }
    }
}

/// Puts `y` before `x` when it covers strictly more (face, cover), by selects rather than a branch.
#[inline(always)]
fn sort_two(x: &mut (u32, u32), y: &mut (u32, u32)) {
    let swap = y.1 > x.1;
    let (a, b) = (*x, *y);
    *x = if swap { b } else { a };
    *y = if swap { a } else { b };
}

/// Which of the four points (`xs[k & 1]`, `ys[k >> 1]`; bit k) are inside all of `edges` or
/// within distance `tol` of them.
#[inline(always)]
fn near_mask<'e>(edges: impl IntoIterator<Item = &'e [f64; 3]>, xs: [f64; 2], ys: [f64; 2], tol: f64) -> u32 {
    let mut near = 15;
    for e in edges {
        // A·x + B·y + C ≥ −tol·(|A| + |B|) (≥ −tol·√(A² + B²)).
        let margin = tol * (e[0].abs() + e[1].abs());
        near &= corner_mask([e[0] * xs[0], e[0] * xs[1]], [e[1] * ys[0], e[1] * ys[1]], e[2], -margin);
    }
    near
}

/// The centres of the four quarters of a leaf's rectangle.
#[derive(Debug)]
struct Centres {
    /// Their x and their y coordinates (centre k: `x[k & 1]`, `y[k >> 1]`).
    exact: ([f64; 2], [f64; 2]),
    /// The same rounded to f32, centre k in lane k.
    x32: [f32; 4],
    y32: [f32; 4],
}

impl Centres {
    fn of(rect: [f64; 4]) -> Self {
        let halves = |lo: f64, hi: f64| [lo + 0.25 * (hi - lo), lo + 0.75 * (hi - lo)];
        let (xs, ys) = (halves(rect[0], rect[2]), halves(rect[1], rect[3]));
        let (x, y) = (xs.map(|v| v as f32), ys.map(|v| v as f32));
        Self { exact: (xs, ys), x32: [x[0], x[1], x[0], x[1]], y32: [y[0], y[0], y[1], y[1]] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polygon::face::{push_face, FaceSet};
    use glam::DVec3;

    /// The pair test written as its definition: some edge of `a` with every vertex of `b` beyond
    /// it, or on its line at `a`'s height.
    fn separated_by_definition(l: &Layering, a: u32, b: u32) -> bool {
        let (fa, fb) = (&l.faces[a as usize], &l.faces[b as usize]);
        let verts = &l.verts[fb.first as usize..fb.first as usize + fb.count as usize];
        fa.edge_equations(l.edges).unwrap().iter().any(|e| {
            verts.iter().all(|v| {
                let s = e[0] * v[0] + e[1] * v[1] + e[2];
                if s * s > l.tol * l.tol * (e[0] * e[0] + e[1] * e[1]) {
                    s < 0.0
                } else {
                    (fa.height(v[0], v[1]) - v[2]).abs() <= surface_eps(l.unit, v[2])
                }
            })
        })
    }

    /// A single-layer leaf's faces come out most covered first, ties in their given order, for
    /// small leaves (sorted on the stack) and large ones alike: a grid of triangles on one plane,
    /// random runs of its faces, random rectangles.
    #[test]
    fn order_puts_the_most_covered_faces_first_and_keeps_ties() {
        let mut set = FaceSet::default();
        let z = |x: f64, y: f64| DVec3::new(x, y, 0.3 * x + 0.2 * y);
        let n = 6;
        for j in 0..n {
            for i in 0..n {
                let (x, y, d) = (i as f64 / n as f64, j as f64 / n as f64, 1.0 / n as f64);
                push_face(0, &[z(x, y), z(x + d, y), z(x + d, y + d)], 0.0, &mut set);
                push_face(0, &[z(x, y), z(x + d, y + d), z(x, y + d)], 0.0, &mut set);
            }
        }
        let l = Layering::new(&set.faces, &set.verts, &set.edges, 0.0, 2.0);
        let mut rng = crate::rng::SplitMix64::new(5);
        for case in 0..400 {
            let len = 2 + case % 30;
            let start = (rng.next_u64() % (set.faces.len() - len) as u64) as u32;
            let mut ids: Vec<u32> = (start..start + len as u32).collect();
            let (x0, y0) = (rng.range(-0.1, 0.9), rng.range(-0.1, 0.9));
            let rect = [x0, y0, x0 + rng.range(0.01, 0.3), y0 + rng.range(0.01, 0.3)];
            let mut want = ids.clone();
            want.sort_by_key(|&f| std::cmp::Reverse(l.near_centres(f, &Centres::of(rect)).count_ones()));
            assert!(l.order(&mut ids, rect, &mut SeenPairs::default()), "case {case}: one layer");
            assert_eq!(ids, want, "case {case}");
        }
    }

    /// With quick records, `near_centres` gives the exact test's answer: random triangles, and leaf
    /// rectangles whose quarter centres lie at a vertex, on an edge, or a fraction or a few
    /// multiples of the margin off it; the records decide most random leaves themselves.
    #[test]
    fn near_centres_from_quick_records_match_the_exact_test() {
        let mut rng = crate::rng::SplitMix64::new(9);
        let root = [-1.0, -1.0, 1.0, 1.0];
        let margin = super::super::face::quick_margin(root);
        let (mut random, mut decided) = (0, 0);
        for case in 0..3000usize {
            let mut set = FaceSet::default();
            let mut corner = || DVec3::new(rng.range(-0.9, 0.9), rng.range(-0.9, 0.9), rng.range(0.0, 1.0));
            let tri = [corner(), corner(), corner()];
            push_face(0, &tri, 0.0, &mut set);
            let quick: Vec<QuickFace> = set.faces.iter().map(QuickFace::of).collect();
            let exact = Layering::new(&set.faces, &set.verts, &set.edges, 2e-12, 1.0);
            let fast = exact.with_quick(&quick, margin);
            assert!(!fast.quick.records.is_empty());
            // A point to put a centre on: random, a vertex, or off an edge by a multiple of the margin.
            let (a, b) = (tri[case % 3], tri[(case + 1) % 3]);
            let on = a.lerp(b, rng.range(0.0, 1.0));
            let normal = glam::DVec2::new(a.y - b.y, b.x - a.x).normalize();
            let off = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, -0.5, -1.0, -4.0][case % 9] * margin as f64;
            let p = match case % 3 {
                0 => glam::DVec2::new(rng.range(-0.9, 0.9), rng.range(-0.9, 0.9)),
                1 => glam::DVec2::new(a.x, a.y),
                _ => glam::DVec2::new(on.x, on.y) + normal * off,
            };
            // A leaf with that point as the centre of one of its quarters.
            let (w, h) = (rng.range(0.001, 0.5), rng.range(0.001, 0.5));
            let (kx, ky) = ((case / 3) % 2, (case / 6) % 2);
            let x0 = p.x - w * (0.25 + 0.5 * kx as f64);
            let y0 = p.y - h * (0.25 + 0.5 * ky as f64);
            let c = Centres::of([x0, y0, x0 + w, y0 + h]);
            assert_eq!(fast.near_centres(0, &c), exact.exact_near_centres(0, c.exact), "case {case}: {tri:?}, {c:?}");
            if case % 3 == 0 {
                random += 1;
                let (inside, outside) = quick[0].inside4(c.x32, c.y32, margin);
                decided += (inside | outside == 15) as usize;
            }
        }
        assert!(decided * 50 > random * 49, "the records decided {decided} of {random} random leaves");
    }

    /// The branch-free triangle path and the general one agree with the definition: triangles
    /// sharing an edge at the same height and at different heights (a roof over a ground edge),
    /// sharing a vertex, overlapping, apart, and polygons of four and five vertices.
    #[test]
    fn pair_test_matches_its_definition() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut next = move || rng.range(-1.0, 1.0);
        let (mut checked, mut apart) = (0, 0);
        for case in 0..3000 {
            let mut set = FaceSet::default();
            let p = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
            let (a0, a1) = (p(next(), next(), next()), p(next(), next(), next()));
            let first: Vec<DVec3> = vec![a0, a1, p(next(), next(), next())];
            let other = match case % 5 {
                // The shared edge, the third vertex anywhere (same side or the other).
                0 => vec![a1, a0, p(next(), next(), next())],
                // The shared edge lifted: a roof seen exactly above it.
                1 => vec![a1 + DVec3::Z, a0 + DVec3::Z, p(next(), next(), next())],
                // A shared vertex.
                2 => vec![a0, p(next(), next(), next()), p(next(), next(), next())],
                // A convex quadrilateral beside or over it (planar: on a random plane).
                3 => {
                    let (c, r) = (p(next(), next(), 0.0), 0.2 + 0.5 * next().abs());
                    let (sx, sy) = (next(), next());
                    [0.3, 1.9, 3.4, 5.0]
                        .iter()
                        .map(|t: &f64| {
                            let q = c + p(r * t.cos(), r * t.sin(), 0.0);
                            p(q.x, q.y, sx * q.x + sy * q.y)
                        })
                        .collect()
                }
                _ => vec![p(next(), next(), next()), p(next(), next(), next()), p(next(), next(), next())],
            };
            push_face(0, &first, 0.0, &mut set);
            push_face(1, &other, 0.0, &mut set);
            let l = Layering::new(&set.faces, &set.verts, &set.edges, 0.0, 2.0);
            for (a, b) in [(0, 1), (1, 0)] {
                let want = separated_by_definition(&l, a, b);
                assert_eq!(l.separated(a, b), want, "case {case}: {first:?} / {other:?}");
                apart += want as usize;
                checked += 1;
            }
        }
        // Both answers came up often.
        assert!(apart > checked / 5 && apart < checked * 4 / 5, "{apart} of {checked}");
    }
}
