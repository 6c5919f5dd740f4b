//! The horizon of a sweep: the upper envelope, in the central projection around the eye, of every
//! terrain edge the sweep has passed.
//!
//! In a quadrant's projection a point at distance d > 0 along the sweep axis, lateral offset l and
//! height w above the eye maps to (u, v) = (l/d, w/d); a straight edge maps to a straight segment.
//! The horizon H(u) is the highest v over the segments merged so far at each u (−∞ where none
//! covers u). It is stored as pieces — segments with disjoint interiors, sorted by u — so it may
//! jump (at holes and at the ends of what has been merged), and where two pieces meet at a jump
//! the higher value counts: the triangles are closed.
//!
//! Merging goes through a gap buffer: the pieces before the insertion point in one vector, the
//! rest in a deque. The segments of one strip arrive nearly sorted by u, so each insertion moves
//! the gap a step or two and touches only the pieces it overlaps.

use std::collections::VecDeque;

/// A segment of the horizon from (u0, v0) to (u1, v1), u0 ≤ u1; a point when u0 = u1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    pub u0: f64,
    pub v0: f64,
    pub u1: f64,
    pub v1: f64,
    /// dv/du (0 for a point).
    slope: f64,
}

impl Piece {
    /// The segment between two projected points, in either order; a point (at the higher value)
    /// when both have the same u.
    #[inline]
    pub fn new(ua: f64, va: f64, ub: f64, vb: f64) -> Self {
        let (u0, v0, u1, v1) = if ua <= ub { (ua, va, ub, vb) } else { (ub, vb, ua, va) };
        if u1 > u0 {
            Self { u0, v0, u1, v1, slope: (v1 - v0) / (u1 - u0) }
        } else {
            let v = v0.max(v1);
            Self { u0, v0: v, u1, v1: v, slope: 0.0 }
        }
    }

    /// The value at u, clamped to the piece's ends.
    #[inline(always)]
    pub fn at(&self, u: f64) -> f64 {
        if u >= self.u1 {
            self.v1
        } else if u <= self.u0 {
            self.v0
        } else {
            self.v0 + (u - self.u0) * self.slope
        }
    }

    /// The part over [a, b] (within the piece), on the same line.
    #[inline]
    fn part(&self, a: f64, b: f64) -> Self {
        Self { u0: a, v0: self.at(a), u1: b, v1: self.at(b), slope: if b > a { self.slope } else { 0.0 } }
    }

    #[inline(always)]
    fn is_point(&self) -> bool {
        self.u1 <= self.u0
    }
}

/// The horizon: pieces with disjoint interiors, sorted by u.
#[derive(Default)]
pub(crate) struct Horizon {
    pieces: Vec<Piece>,
    /// The deque of the last merge, kept for its capacity.
    spare: VecDeque<Piece>,
}

impl Horizon {
    /// Forgets every piece (keeping the memory).
    pub fn clear(&mut self) {
        self.pieces.clear();
    }

    /// Reads the horizon at increasing u.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor { pieces: &self.pieces, k: 0 }
    }

    /// Starts merging segments into the horizon.
    pub fn merge(&mut self) -> Merge<'_> {
        let mut input = std::mem::take(&mut self.spare);
        input.clear();
        input.extend(self.pieces.drain(..));
        Merge { horizon: self, input }
    }

    #[cfg(test)]
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

/// Reads a horizon at nondecreasing u.
pub(crate) struct Cursor<'a> {
    pieces: &'a [Piece],
    k: usize,
}

impl Cursor<'_> {
    /// H(u): the highest value of the pieces holding u, −∞ where none does. Calls must come with
    /// nondecreasing u.
    #[inline]
    pub fn at(&mut self, u: f64) -> f64 {
        let p = self.pieces;
        while self.k < p.len() && p[self.k].u1 < u {
            self.k += 1;
        }
        let mut best = f64::NEG_INFINITY;
        let mut m = self.k;
        while m < p.len() && p[m].u0 <= u {
            best = best.max(p[m].at(u));
            m += 1;
        }
        best
    }
}

/// A merge in progress: `out` holds the pieces before the gap, `input` the rest.
pub(crate) struct Merge<'a> {
    horizon: &'a mut Horizon,
    input: VecDeque<Piece>,
}

impl Merge<'_> {
    /// Raises the horizon to the segment from (ua, va) to (ub, vb) where the segment is higher.
    #[inline]
    pub fn insert(&mut self, ua: f64, va: f64, ub: f64, vb: f64) {
        let s = Piece::new(ua, va, ub, vb);
        self.seek(s.u0);
        if s.is_point() {
            self.insert_point(s.u0, s.v0);
        } else if self.pokes_out(&s) {
            self.splice(&s);
        }
    }

    /// Moves the gap so that `out` holds exactly the pieces ending at or before `a`.
    #[inline(always)]
    fn seek(&mut self, a: f64) {
        let out = &mut self.horizon.pieces;
        while let Some(p) = out.last() {
            if p.u1 > a {
                self.input.push_front(*p);
                out.pop();
            } else {
                break;
            }
        }
        while let Some(p) = self.input.front() {
            if p.u1 <= a {
                out.push(*p);
                self.input.pop_front();
            } else {
                break;
            }
        }
    }

    /// Whether the segment is above the horizon anywhere over [s.u0, s.u1] (read only). It may
    /// answer yes where a jump's higher side already covers the segment; the splice is exact
    /// either way.
    #[inline]
    fn pokes_out(&self, s: &Piece) -> bool {
        let mut cur = s.u0;
        for p in self.input.iter() {
            if p.u0 >= s.u1 {
                break;
            }
            if p.u0 > cur {
                return true; // a gap under the segment
            }
            let (x0, x1) = (p.u0.max(s.u0), p.u1.min(s.u1));
            if s.at(x0) > p.at(x0) || s.at(x1) > p.at(x1) {
                return true;
            }
            cur = cur.max(p.u1);
        }
        cur < s.u1
    }

    /// Replaces the horizon over [s.u0, s.u1] by its maximum with the segment.
    fn splice(&mut self, s: &Piece) {
        let (a, b) = (s.u0, s.u1);
        let out = &mut self.horizon.pieces;
        let mut cur = a;
        while let Some(&front) = self.input.front() {
            if front.u0 >= b {
                break;
            }
            self.input.pop_front();
            let mut p = front;
            if p.u0 < a {
                push(out, p.part(p.u0, a));
                p = p.part(a, p.u1);
            }
            if p.u0 > cur {
                push(out, s.part(cur, p.u0));
            }
            let x1 = p.u1.min(b);
            if p.is_point() {
                // A point under the segment is dropped (the segment covers it); one above stays.
                if p.v0 > s.at(p.u0) {
                    push(out, s.part(cur.min(p.u0), p.u0));
                    push(out, p);
                    cur = p.u0;
                } else {
                    cur = cur.min(p.u0);
                }
                continue;
            }
            let x0 = p.u0;
            let (d0, d1) = (s.at(x0) - p.at(x0), s.at(x1) - p.at(x1));
            if d0 <= 0.0 && d1 <= 0.0 {
                push(out, p.part(x0, x1));
            } else if d0 >= 0.0 && d1 >= 0.0 {
                push(out, s.part(x0, x1));
            } else {
                let xm = (x0 + (x1 - x0) * (d0 / (d0 - d1))).clamp(x0, x1);
                let (first, second) = if d0 > 0.0 { (s, &p) } else { (&p, s) };
                push(out, first.part(x0, xm));
                push(out, second.part(xm, x1));
            }
            if p.u1 > b {
                self.input.push_front(p.part(b, p.u1));
                cur = b;
                break;
            }
            cur = p.u1;
        }
        if cur < b {
            push(out, s.part(cur, b));
        }
    }

    /// Raises the horizon at the single value u to v.
    fn insert_point(&mut self, u: f64, v: f64) {
        let out = &mut self.horizon.pieces;
        // H(u): the pieces ending at u (in `out`) and those starting at or holding u (`input`).
        let mut h = f64::NEG_INFINITY;
        for p in out.iter().rev() {
            if p.u1 < u {
                break;
            }
            h = h.max(p.at(u));
        }
        for p in self.input.iter() {
            if p.u0 > u {
                break;
            }
            h = h.max(p.at(u));
        }
        if v <= h {
            return;
        }
        // Drop an old point at u; split a piece holding u inside.
        while let Some(p) = out.last() {
            if p.is_point() && p.u0 == u {
                out.pop();
            } else {
                break;
            }
        }
        while let Some(&p) = self.input.front() {
            if p.is_point() && p.u0 == u {
                self.input.pop_front();
            } else if p.u0 < u {
                self.input.pop_front();
                out.push(p.part(p.u0, u));
                self.input.push_front(p.part(u, p.u1));
                break;
            } else {
                break;
            }
        }
        out.push(Piece { u0: u, v0: v, u1: u, v1: v, slope: 0.0 });
    }
}

impl Drop for Merge<'_> {
    fn drop(&mut self) {
        let h = &mut *self.horizon;
        h.pieces.extend(self.input.drain(..));
        h.spare = std::mem::take(&mut self.input);
    }
}

/// Appends a piece, extending the last one when it continues the same line.
#[inline(always)]
fn push(out: &mut Vec<Piece>, p: Piece) {
    if let Some(last) = out.last_mut() {
        if !p.is_point() && !last.is_point() && last.u1 == p.u0 && last.v1 == p.v0 && last.slope == p.slope {
            last.u1 = p.u1;
            last.v1 = p.v1;
            return;
        }
        if p.is_point() && last.is_point() && last.u0 == p.u0 {
            last.v0 = last.v0.max(p.v0);
            last.v1 = last.v0;
            return;
        }
    }
    out.push(p);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Brute force: the highest value of every segment holding u.
    fn brute(segs: &[(f64, f64, f64, f64)], u: f64) -> f64 {
        segs.iter()
            .map(|&(a, va, b, vb)| {
                let p = Piece::new(a, va, b, vb);
                if p.u0 <= u && u <= p.u1 {
                    p.at(u)
                } else {
                    f64::NEG_INFINITY
                }
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn check(h: &Horizon, segs: &[(f64, f64, f64, f64)], probes: &[f64]) {
        let p = h.pieces();
        for w in p.windows(2) {
            assert!(w[0].u1 <= w[1].u0 && w[0].u0 <= w[0].u1, "unsorted {:?}", w);
        }
        let mut c = h.cursor();
        for &u in probes {
            let (got, want) = (c.at(u), brute(segs, u));
            let tol = 1e-9 * (1.0 + want.abs());
            assert!(
                (got == want) || (got - want).abs() <= tol,
                "H({u}) = {got}, brute force {want}; {} pieces",
                p.len()
            );
        }
    }

    #[test]
    fn equals_the_brute_force_envelope() {
        let mut rng = SplitMix64::new(7);
        for round in 0..400 {
            let mut h = Horizon::default();
            let mut segs = Vec::new();
            // Several merges, each of nearly sorted short segments (as a strip gives) or random ones.
            for _ in 0..1 + round % 4 {
                let mut m = h.merge();
                let n = 1 + (rng.next_u64() % 30) as usize;
                for k in 0..n {
                    let grid = |x: f64| if round % 3 == 0 { (x * 8.0).round() / 8.0 } else { x };
                    let a = if round % 2 == 0 {
                        grid(-1.0 + 2.0 * k as f64 / n as f64 + rng.range(-0.1, 0.1))
                    } else {
                        grid(rng.range(-1.0, 1.0))
                    };
                    let b = if rng.uniform() < 0.1 { a } else { grid(a + rng.range(-0.3, 0.3)) };
                    let (va, vb) = (grid(rng.range(-2.0, 2.0)), grid(rng.range(-2.0, 2.0)));
                    m.insert(a, va, b, vb);
                    segs.push((a, va, b, vb));
                }
                drop(m);
                let mut probes: Vec<f64> = (0..200).map(|_| rng.range(-1.5, 1.5)).collect();
                for &(a, _, b, _) in &segs {
                    probes.extend([a, b, 0.5 * (a + b)]);
                }
                probes.sort_by(f64::total_cmp);
                check(&h, &segs, &probes);
            }
        }
    }

    #[test]
    fn points_and_jumps_keep_the_higher_side() {
        let mut h = Horizon::default();
        let mut m = h.merge();
        m.insert(0.0, 1.0, 1.0, 1.0);
        m.insert(1.0, 0.0, 2.0, 0.0);
        m.insert(0.5, 3.0, 0.5, 3.0);
        m.insert(0.5, 2.0, 0.5, 2.0);
        drop(m);
        let mut c = h.cursor();
        assert_eq!(c.at(0.25), 1.0);
        assert_eq!(c.at(0.5), 3.0);
        assert_eq!(c.at(0.75), 1.0);
        assert_eq!(c.at(1.0), 1.0);
        assert_eq!(c.at(1.5), 0.0);
        assert_eq!(c.at(2.5), f64::NEG_INFINITY);
    }
}
