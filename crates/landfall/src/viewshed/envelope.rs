//! The horizon of a sweep: the upper envelope, in the central projection around the eye, of every
//! terrain edge the sweep has passed.
//!
//! In a quadrant's projection a point at distance d > 0 along the sweep axis, lateral offset l and
//! height w above the eye maps to (u, v) = (l/d, w/d); a straight edge maps to a straight segment.
//! An envelope H(u) is the highest v over its segments at each u (−∞ where none covers u). It is
//! stored as pieces — segments with disjoint interiors, sorted by u — so it may jump (at holes and
//! at the ends of what has been merged), and where two pieces meet at a jump the higher value
//! counts: the triangles are closed.
//!
//! A strip's segments overlap one another, so their envelope is built by insertion ([`Merge`]): a
//! gap buffer, the pieces before the insertion point in a vector and the rest in a deque; the
//! segments arrive nearly sorted by u, so each insertion moves the gap a step or two. The horizon
//! is then raised to the strip's envelope in one pass over the strip and the part of the horizon
//! between its first and last u ([`Envelope::raise`]), both being sorted; the pieces before stay in
//! place. The raise goes a strip piece at a time: on terrain that is seen, the far column's
//! polyline (most of a strip) has a horizon piece above it on a fifth to a quarter of its segments,
//! so a path copying the stretches where it leads whole did not pay (docs/benchmarks.md).

use std::collections::VecDeque;

/// A segment of an envelope from (u0, v0) to (u1, v1), u0 ≤ u1; a point when u0 = u1.
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
            Self::point(u0, v0.max(v1))
        }
    }

    #[inline]
    fn point(u: f64, v: f64) -> Self {
        Self { u0: u, v0: v, u1: u, v1: v, slope: 0.0 }
    }

    /// The value at u, clamped to the piece's ends (exact at u0; at u1 to rounding).
    #[inline(always)]
    pub fn at(&self, u: f64) -> f64 {
        let u = if u < self.u0 { self.u0 } else { u };
        let u = if u > self.u1 { self.u1 } else { u };
        self.v0 + (u - self.u0) * self.slope
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

/// An envelope: pieces with disjoint interiors, sorted by u.
#[derive(Default)]
pub(crate) struct Envelope {
    pieces: Vec<Piece>,
    /// Buffers kept for their capacity: the deque of the last merge, the vector of the last raise.
    spare_deque: VecDeque<Piece>,
    spare: Vec<Piece>,
}

impl Envelope {
    /// Forgets every piece (keeping the memory).
    pub fn clear(&mut self) {
        self.pieces.clear();
    }

    /// Reads the envelope at increasing u.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor { pieces: &self.pieces, k: 0 }
    }

    /// Starts inserting segments.
    pub fn merge(&mut self) -> Merge<'_> {
        let mut input = std::mem::take(&mut self.spare_deque);
        input.clear();
        input.extend(self.pieces.drain(..));
        Merge { out: &mut self.pieces, input, spare: &mut self.spare_deque }
    }

    /// Raises this envelope to `other` wherever `other` is higher, in one pass over `other` and
    /// the pieces from its first u to its last: the pieces before stay where they are, those after
    /// move (one block move) only when the count between changes.
    pub fn raise(&mut self, other: &Envelope) {
        let Some(first) = other.pieces.first() else {
            return;
        };
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        // Rebuilt from the last piece ending before `first` (what `push` and `insert_point` look
        // back at); the pieces ending at or before first.u0 are copied as they are.
        let k0 = self.pieces.partition_point(|p| p.u1 < first.u0).saturating_sub(1);
        let k1 = self.pieces.partition_point(|p| p.u1 <= first.u0).max(k0);
        out.extend_from_slice(&self.pieces[k0..k1]);
        let mut input = Stream { rest: &self.pieces[k1..], carry: None };
        for s in &other.pieces {
            // The pieces wholly before s, copied at once.
            if input.carry.is_none() {
                let n = input.rest.partition_point(|p| p.u1 <= s.u0);
                out.extend_from_slice(&input.rest[..n]);
                input.rest = &input.rest[n..];
            }
            // Over s, the maximum of both (no test first: a splice that changes nothing splits
            // pieces that `push` joins again).
            move_before(&mut out, &mut input, s);
            if s.is_point() {
                insert_point(&mut out, &mut input, s.u0, s.v0);
            } else {
                splice(&mut out, &mut input, s);
            }
        }
        if let Some(c) = input.carry {
            push(&mut out, c);
        }
        let end = self.pieces.len() - input.rest.len();
        if out.len() == end - k0 {
            self.pieces[k0..end].copy_from_slice(&out);
        } else {
            self.pieces.splice(k0..end, out.iter().copied());
        }
        self.spare = out;
    }

    /// The least value of the envelope over [lo, hi] (to rounding), −∞ where some u of it lies
    /// under no segment: a check for the sweep's bounds, reading every piece.
    #[cfg(debug_assertions)]
    pub fn least(&self, lo: f64, hi: f64) -> f64 {
        let (mut cur, mut low) = (lo, f64::INFINITY);
        // From the first piece ending after lo (the pieces' ends are sorted): the check costs what
        // the range holds, not the whole horizon, on every block of every column.
        let first = self.pieces.partition_point(|p| p.u1 <= lo);
        // A piece meeting the range only at an end counts there only where it is the higher side.
        for p in &self.pieces[first..] {
            if p.u1 <= lo || p.is_point() {
                continue;
            }
            if p.u0 >= hi || cur >= hi {
                break;
            }
            if p.u0 > cur {
                return f64::NEG_INFINITY;
            }
            low = low.min(p.at(p.u0.max(lo))).min(p.at(p.u1.min(hi)));
            cur = cur.max(p.u1);
        }
        if cur < hi {
            f64::NEG_INFINITY
        } else {
            low
        }
    }

    #[cfg(test)]
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

/// Reads an envelope at nondecreasing u.
pub(crate) struct Cursor<'a> {
    pieces: &'a [Piece],
    k: usize,
}

impl Cursor<'_> {
    /// H(u): the highest value of the pieces holding u, −∞ where none does. Calls must come with
    /// nondecreasing u.
    #[inline]
    pub fn at(&mut self, u: f64) -> f64 {
        self.seek(|q| q.u1 < u);
        let p = self.pieces;
        let mut best = f64::NEG_INFINITY;
        let mut m = self.k;
        while m < p.len() && p[m].u0 <= u {
            let v = p[m].at(u);
            if v > best {
                best = v;
            }
            m += 1;
        }
        best
    }

    /// Moves forward to the first piece for which `before` is false (`before` true on a prefix of
    /// the pieces from here: the pieces' ends are sorted): a step at a time, then by galloping
    /// (the sweep's floors skip the pieces under quiet blocks, its targets and `covers` those
    /// between the few edges they read).
    #[inline]
    fn seek(&mut self, before: impl Fn(&Piece) -> bool) {
        let p = self.pieces;
        for _ in 0..4 {
            if self.k < p.len() && before(&p[self.k]) {
                self.k += 1;
            } else {
                return;
            }
        }
        let rest = &p[self.k..];
        let mut n = 1;
        while n < rest.len() && before(&rest[n]) {
            n *= 2;
        }
        let from = n / 2;
        self.k += from + rest[from..n.min(rest.len())].partition_point(before);
    }

    /// A lower bound of H over [a, b] (a < b): the least end value of the segments meeting it, −∞
    /// when some u of it lies under no segment. Calls may come in any order, best nearly sorted.
    #[inline]
    pub fn lowest(&mut self, a: f64, b: f64) -> f64 {
        let p = self.pieces;
        while self.k > 0 && p[self.k - 1].u1 > a {
            self.k -= 1;
        }
        self.seek(|q| q.u1 <= a);
        let (mut cur, mut low) = (a, f64::INFINITY);
        for q in &p[self.k..] {
            if cur >= b || q.u0 >= b {
                break;
            }
            if q.is_point() {
                continue;
            }
            if q.u0 > cur {
                return f64::NEG_INFINITY;
            }
            // Plain comparisons (as `min` and `max` here, NaN included): no NaN handling to pay.
            if q.v0 < low {
                low = q.v0;
            }
            if q.v1 < low {
                low = q.v1;
            }
            if q.u1 > cur {
                cur = q.u1;
            }
        }
        if cur < b {
            f64::NEG_INFINITY
        } else {
            low
        }
    }

    /// Whether the pieces hold every u of the segment from (ua, va) to (ub, vb) at or above it:
    /// checked at the segment's ends and at every piece end between (both being linear between
    /// them). It may say no where a jump's higher side covers. Calls may come in any order, best
    /// nearly sorted.
    #[inline]
    pub fn covers(&mut self, ua: f64, va: f64, ub: f64, vb: f64) -> bool {
        let ((a, va), (b, vb)) = if ua <= ub { ((ua, va), (ub, vb)) } else { ((ub, vb), (ua, va)) };
        if a >= b {
            return false;
        }
        // From the first piece ending after a.
        let p = self.pieces;
        while self.k > 0 && p[self.k - 1].u1 > a {
            self.k -= 1;
        }
        self.seek(|q| q.u1 <= a);
        !pokes_out(p[self.k..].iter(), &Piece::new(a, va, b, vb))
    }
}

/// What an insertion reads from: the pieces at and after the insertion point, front first.
trait Input {
    fn front(&self) -> Option<Piece>;
    fn pop_front(&mut self);
    fn push_front(&mut self, p: Piece);
    /// Whether some piece starting before `b` is missing under [a, b] or lower than `s` somewhere
    /// over it (read only).
    fn pokes_out(&self, s: &Piece) -> bool;
}

impl Input for VecDeque<Piece> {
    #[inline(always)]
    fn front(&self) -> Option<Piece> {
        VecDeque::front(self).copied()
    }
    #[inline(always)]
    fn pop_front(&mut self) {
        VecDeque::pop_front(self);
    }
    #[inline(always)]
    fn push_front(&mut self, p: Piece) {
        VecDeque::push_front(self, p);
    }
    fn pokes_out(&self, s: &Piece) -> bool {
        pokes_out(self.iter(), s)
    }
}

/// The pieces of an envelope being raised: a split piece's remainder, then the rest.
struct Stream<'a> {
    rest: &'a [Piece],
    carry: Option<Piece>,
}

impl Input for Stream<'_> {
    #[inline(always)]
    fn front(&self) -> Option<Piece> {
        self.carry.or_else(|| self.rest.first().copied())
    }
    #[inline(always)]
    fn pop_front(&mut self) {
        if self.carry.take().is_none() {
            self.rest = &self.rest[1..];
        }
    }
    #[inline(always)]
    fn push_front(&mut self, p: Piece) {
        debug_assert!(self.carry.is_none());
        self.carry = Some(p);
    }
    fn pokes_out(&self, _: &Piece) -> bool {
        true
    }
}

/// Whether the segment is above the pieces anywhere over [s.u0, s.u1], or over a gap between
/// them. It may answer yes where a jump's higher side already covers the segment; the splice is
/// exact either way.
#[inline]
fn pokes_out<'a>(pieces: impl Iterator<Item = &'a Piece>, s: &Piece) -> bool {
    let mut cur = s.u0;
    for p in pieces {
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

/// Moves the pieces of `input` that end at or before s.u0 to `out`.
#[inline(always)]
fn move_before(out: &mut Vec<Piece>, input: &mut impl Input, s: &Piece) {
    while let Some(p) = input.front() {
        if p.u1 <= s.u0 {
            push(out, p);
            input.pop_front();
        } else {
            break;
        }
    }
}

/// Inserts `s` into the envelope made of `out` (the pieces ending at or before s.u0, which the
/// caller has put there) and `input` (the rest).
#[inline]
fn insert(out: &mut Vec<Piece>, input: &mut impl Input, s: &Piece) {
    move_before(out, input, s);
    if s.is_point() {
        insert_point(out, input, s.u0, s.v0);
    } else if input.pokes_out(s) {
        splice(out, input, s);
    }
}

/// Replaces the envelope over [s.u0, s.u1] by its maximum with the segment.
fn splice(out: &mut Vec<Piece>, input: &mut impl Input, s: &Piece) {
    let (a, b) = (s.u0, s.u1);
    let mut cur = a;
    while let Some(front) = input.front() {
        if front.u0 >= b {
            break;
        }
        input.pop_front();
        let mut p = front;
        if p.u0 < a {
            push(out, p.part(p.u0, a));
            p = p.part(a, p.u1);
        }
        if p.u0 > cur {
            push(out, s.part(cur, p.u0));
            cur = p.u0;
        }
        if p.is_point() {
            // A point under the segment is dropped (the segment covers it); one above stays.
            if p.v0 > s.at(p.u0) {
                push(out, p);
            }
            continue;
        }
        let (x0, x1) = (p.u0, p.u1.min(b));
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
            input.push_front(p.part(b, p.u1));
            cur = b;
            break;
        }
        cur = p.u1;
    }
    if cur < b {
        push(out, s.part(cur, b));
    }
}

/// Raises the envelope at the single value u to v.
fn insert_point(out: &mut Vec<Piece>, input: &mut impl Input, u: f64, v: f64) {
    // H(u): the pieces ending at u (in `out`) and the one starting at or holding u (`input`).
    let mut h = f64::NEG_INFINITY;
    for p in out.iter().rev() {
        if p.u1 < u {
            break;
        }
        h = h.max(p.at(u));
    }
    if let Some(p) = input.front() {
        if p.u0 <= u {
            h = h.max(p.at(u));
        }
    }
    if v <= h {
        return;
    }
    // Drop an old point at u; split a piece holding u inside.
    while out.last().is_some_and(|p| p.is_point() && p.u0 == u) {
        out.pop();
    }
    if let Some(p) = input.front() {
        if p.u0 < u {
            input.pop_front();
            out.push(p.part(p.u0, u));
            input.push_front(p.part(u, p.u1));
        }
    }
    out.push(Piece::point(u, v));
}

/// Segments being inserted into an envelope (a gap buffer: `out` before the gap, `input` after).
pub(crate) struct Merge<'a> {
    out: &'a mut Vec<Piece>,
    input: VecDeque<Piece>,
    spare: &'a mut VecDeque<Piece>,
}

impl Merge<'_> {
    /// Raises the envelope to the segment from (ua, va) to (ub, vb) where the segment is higher.
    #[inline]
    pub fn insert(&mut self, ua: f64, va: f64, ub: f64, vb: f64) {
        let s = Piece::new(ua, va, ub, vb);
        // After everything so far (as a strip's edges mostly come): appended.
        if self.input.is_empty() && self.out.last().is_none_or(|p| p.u1 <= s.u0) && !s.is_point() {
            push(self.out, s);
            return;
        }
        // Move the gap back before s: `out` must end at or before s.u0.
        while self.out.last().is_some_and(|p| p.u1 > s.u0) {
            let p = self.out.pop().expect("checked");
            self.input.push_front(p);
        }
        insert(self.out, &mut self.input, &s);
    }
}

impl Drop for Merge<'_> {
    fn drop(&mut self) {
        self.out.extend(self.input.drain(..));
        std::mem::swap(self.spare, &mut self.input);
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

    fn check(h: &Envelope, segs: &[(f64, f64, f64, f64)], probes: &[f64]) {
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

    /// Random segments: nearly sorted short ones (as a strip gives) or anywhere, on a coarse grid
    /// of values (ties, shared ends, points) or not.
    fn segments(rng: &mut SplitMix64, round: usize) -> Vec<(f64, f64, f64, f64)> {
        let n = 1 + (rng.next_u64() % 30) as usize;
        let grid = |x: f64| if round.is_multiple_of(3) { (x * 8.0).round() / 8.0 } else { x };
        (0..n)
            .map(|k| {
                let a = if round.is_multiple_of(2) {
                    grid(-1.0 + 2.0 * k as f64 / n as f64 + rng.range(-0.1, 0.1))
                } else {
                    grid(rng.range(-1.0, 1.0))
                };
                let b = if rng.uniform() < 0.1 { a } else { grid(a + rng.range(-0.3, 0.3)) };
                (a, grid(rng.range(-2.0, 2.0)), b, grid(rng.range(-2.0, 2.0)))
            })
            .collect()
    }

    fn probes(rng: &mut SplitMix64, segs: &[(f64, f64, f64, f64)]) -> Vec<f64> {
        let mut probes: Vec<f64> = (0..200).map(|_| rng.range(-1.5, 1.5)).collect();
        for &(a, _, b, _) in segs {
            probes.extend([a, b, 0.5 * (a + b)]);
        }
        probes.sort_by(f64::total_cmp);
        probes
    }

    #[test]
    fn insertion_equals_the_brute_force_envelope() {
        let mut rng = SplitMix64::new(7);
        for round in 0..400 {
            let mut h = Envelope::default();
            let mut all = Vec::new();
            for _ in 0..1 + round % 4 {
                let segs = segments(&mut rng, round);
                let mut m = h.merge();
                for &(a, va, b, vb) in &segs {
                    m.insert(a, va, b, vb);
                }
                drop(m);
                all.extend(segs);
                let p = probes(&mut rng, &all);
                check(&h, &all, &p);
            }
        }
    }

    #[test]
    fn raising_equals_the_brute_force_envelope_of_both() {
        let mut rng = SplitMix64::new(8);
        for round in 0..400 {
            let (mut h, mut s) = (Envelope::default(), Envelope::default());
            let (hs, ss) = (segments(&mut rng, round), segments(&mut rng, round / 2));
            for (e, segs) in [(&mut h, &hs), (&mut s, &ss)] {
                let mut m = e.merge();
                for &(a, va, b, vb) in segs.iter() {
                    m.insert(a, va, b, vb);
                }
            }
            h.raise(&s);
            let all: Vec<_> = hs.iter().chain(&ss).copied().collect();
            let p = probes(&mut rng, &all);
            check(&h, &all, &p);
        }
    }

    /// The envelope of `segs`, inserted in their order.
    fn envelope_of(segs: &[(f64, f64, f64, f64)]) -> Envelope {
        let mut h = Envelope::default();
        let mut m = h.merge();
        for &(a, va, b, vb) in segs {
            m.insert(a, va, b, vb);
        }
        drop(m);
        h
    }

    #[test]
    fn covers_is_right_whenever_it_says_so() {
        let mut rng = SplitMix64::new(9);
        for round in 0..300 {
            let segs = segments(&mut rng, round);
            let h = envelope_of(&segs);
            let mut c = h.cursor();
            for _ in 0..50 {
                let (a, b) = (rng.range(-1.2, 1.2), rng.range(-1.2, 1.2));
                let (va, vb) = (rng.range(-2.5, 2.5), rng.range(-2.5, 2.5));
                if c.covers(a, va, b, vb) {
                    let s = Piece::new(a, va, b, vb);
                    for k in 0..=20 {
                        let u = s.u0 + (s.u1 - s.u0) * k as f64 / 20.0;
                        assert!(brute(&segs, u) >= s.at(u) - 1e-12, "covers({a}, {va}, {b}, {vb}) at {u}");
                    }
                }
            }
        }
    }

    #[test]
    fn lowest_is_a_lower_bound_and_minus_infinity_only_over_a_gap() {
        let mut rng = SplitMix64::new(10);
        for round in 0..300 {
            let segs = segments(&mut rng, round);
            let h = envelope_of(&segs);
            let mut c = h.cursor();
            for _ in 0..50 {
                let a = rng.range(-1.2, 1.2);
                let b = a + rng.range(1e-9, 0.5);
                let low = c.lowest(a, b);
                let (mut least, mut gap) = (f64::INFINITY, false);
                for k in 0..=200 {
                    let u = a + (b - a) * k as f64 / 200.0;
                    let v = brute(&segs, u);
                    gap |= v == f64::NEG_INFINITY;
                    least = least.min(v);
                }
                assert!(low <= least + 1e-12, "lowest({a}, {b}) = {low} above H's {least}");
                if low == f64::NEG_INFINITY && !gap {
                    // −∞ only where the segments leave a gap (which the sampling above can miss).
                    let s = h.pieces().iter().filter(|p| !p.is_point() && p.u1 > a && p.u0 < b);
                    let mut cur = a;
                    for p in s {
                        if p.u0 > cur {
                            break;
                        }
                        cur = cur.max(p.u1);
                    }
                    assert!(cur < b, "lowest({a}, {b}) = −∞ though segments cover it");
                }
            }
        }
    }

    #[test]
    fn points_and_jumps_keep_the_higher_side() {
        let mut h = Envelope::default();
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
