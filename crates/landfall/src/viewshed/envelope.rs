//! The horizon of a sweep: the upper envelope, in the central projection around the eye, of every
//! terrain edge the sweep has passed.
//!
//! In a quadrant's projection a point at distance d > 0 along the sweep axis, lateral offset l and
//! height w above the eye maps to (u, v) = (l/d, w/d); a straight edge maps to a straight segment.
//! An envelope H(u) is the highest v over its segments at each u (−∞ where none covers u).
//!
//! **Form.** An envelope is a polyline of plain [`Vertex`]es (u, v), 16 bytes, sorted by u
//! (nondecreasing). Between two consecutive vertices with u_a < u_b, H is the segment joining them.
//! Several vertices may share one u (a *run*): H(u) there is the highest of them (the triangles are
//! closed), the run's first vertex is H's limit from the left and its last the limit from the right
//! — a jump is two vertices at one u, a point standing above its neighbours a third between them.
//! Where no segment covers u, H is −∞, stored as the value [`GAP`] (`f64::MIN`): a gap from u_a to
//! u_b is the two vertices (u_a, GAP), (u_b, GAP), entered and left by jumps, so a segment never
//! joins a real vertex to a GAP one, and reading inside a gap interpolates GAP with GAP: GAP
//! exactly. Before the first vertex and after the last, H is −∞ (the first run has no left limit,
//! the last no right limit). The readers turn GAP into −∞.
//!
//! **Raising.** [`Envelope::raise`] replaces H over the u-range of another envelope S (a strip's)
//! by max(H, S) in one linear pass over the vertices of both there (the vertices before and after
//! stay in place): at each vertex u of either, the run of the maximum (left limit, the highest
//! value, right limit); between two such u both are linear, so where the differences d = S − H at
//! the two ends have strictly opposite signs one crossing vertex goes in. A run is left out where
//! the same one of H and S is on top on both sides of it and has no vertex there (nothing of the
//! maximum bends there): on ties H is on top, so a strip lying on the horizon (a plateau at eye
//! height) adds no vertex. The strip's own envelope is built by appending its edges, nearly sorted
//! by u, and by the same raise for the few that come out of order ([`Merge`]).
//!
//! **Rounding.** Let ϵ = 2⁻⁵³ and V a bound of |v| over the vertices involved. Reading H between
//! vertices a and b, `lerp` goes from the nearer one: v_a + (v_b − v_a)·((u − u_a)/(u_b − u_a))
//! (or the same from b), 3 roundings in the fraction, 3 in the rest, so it is within
//! 5ϵ·|v_b − v_a|·min(t, 1 − t) + ϵ·|H(u)| ≤ 11ϵ·V (to O(ϵ²)) of the segment between the *stored*
//! vertices, exact at both; near an end the error scales with the change from that end, not with
//! the segment's whole rise (a segment off a 10²⁰ m spike read near its foot). (The old form,
//! v₀ + (u − u₀)·slope from the left end, had the looser bound 5ϵ·|v₁ − v₀|·t + ϵ·|H(u)|.) A stored
//! vertex is a projected sample (one rounding of w/d), a vertex copied from H or S (no new error),
//! or a crossing. At a crossing one of H and S has a vertex and the other is read, so d₁ and d₂
//! are each within η = 13ϵ·V of the differences of the stored lines; placed at r = d₁/(d₁ − d₂)
//! the vertex lies where the lines differ by at most η·(|d₁| + |d₂|)/|d₁ − d₂| = η (d₁ and d₂
//! have opposite signs), and its value is read at r off the line with the smaller ends (both meet
//! there; the smaller ends round less), 2ϵ·V more: a new vertex is within 15ϵ·V of the maximum of
//! the stored polylines it is cut from. Rounding its u (ϵ·|u| ≤ ϵ) moves it sideways; along an
//! edge of slope dv/du that is |dv/du|·ϵ·|u|, which for an edge of a strip (from d to d + 1, height
//! w(x)) is ϵ·|w′ − v|: the height change across a cell, in v's units. Errors add up along a chain
//! of cuts (a vertex read off vertices cut before inherits their error, a convex combination of it,
//! and adds its own): after g cuts of one stretch, (15g + 11)ϵ·V. The band (`run.rs`: `TOUCH` =
//! 10⁻¹³ ≈ 900ϵ of (1 + |eye| + |target|)/d) covers about 60 cuts at V of the target's own size, as
//! it did for the pieces, whose start was re-rounded at each cut the same way. Nothing bounds g or
//! V a priori: exactness rests on that margin, and every answer is checked against the exact walk
//! in the tests (spikes of 10¹⁸ to 10³³ m included) and by the benchmark's digests.

/// A vertex of an envelope: H (or one of its limits) at u.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Vertex {
    pub u: f64,
    pub v: f64,
}

/// The value standing for −∞ (no segment): GAP with GAP interpolates to GAP, and S − GAP is never
/// negative, so a gap needs no test of its own.
pub(crate) const GAP: f64 = f64::MIN;

#[inline(always)]
fn vx(u: f64, v: f64) -> Vertex {
    Vertex { u, v }
}

/// The value at u (a.u < u < b.u) of the segment from a to b.
#[inline(always)]
fn lerp(a: Vertex, b: Vertex, u: f64) -> f64 {
    // From the nearer end: the rounding scales with the change from there, not the whole segment's.
    let (ta, tb) = (u - a.u, b.u - u);
    if ta <= tb {
        a.v + (b.v - a.v) * (ta / (b.u - a.u))
    } else {
        b.v - (b.v - a.v) * (tb / (b.u - a.u))
    }
}

/// −∞ for GAP.
#[inline(always)]
fn real(v: f64) -> f64 {
    if v <= GAP {
        f64::NEG_INFINITY
    } else {
        v
    }
}

/// An envelope: a polyline of vertices sorted by u (see the module docs).
#[derive(Default)]
pub(crate) struct Envelope {
    vs: Vec<Vertex>,
    /// The vertices of the last raise, kept for their capacity.
    spare: Vec<Vertex>,
}

impl Envelope {
    /// Forgets every vertex (keeping the memory).
    pub fn clear(&mut self) {
        self.vs.clear();
    }

    /// Reads the envelope at increasing u.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor { vs: &self.vs, k: 0 }
    }

    /// Starts inserting segments.
    pub fn merge(&mut self) -> Merge<'_> {
        Merge { env: self }
    }

    /// Raises this envelope to `other` wherever `other` is higher, in one pass over `other` and
    /// the vertices from its first u to its last: the vertices before stay where they are, those
    /// after move (one block move) only when the count between changes.
    pub fn raise(&mut self, other: &Envelope) {
        raise(&mut self.vs, &mut self.spare, &other.vs);
    }

    /// The least value of the envelope over the open range (lo, hi) (to rounding), −∞ where some u
    /// of it lies under no segment: a check for the sweep's bounds.
    #[cfg(debug_assertions)]
    pub fn least(&self, lo: f64, hi: f64) -> f64 {
        let vs = &self.vs;
        // The vertex before lo (or at it, the last there) and the first at or after hi.
        let k = vs.partition_point(|x| x.u <= lo);
        let e = vs.partition_point(|x| x.u < hi);
        if k == 0 || e == vs.len() {
            return f64::NEG_INFINITY;
        }
        let left = if vs[k - 1].u == lo { vs[k - 1].v } else { lerp(vs[k - 1], vs[k], lo) };
        let right = if vs[e].u == hi { vs[e].v } else { lerp(vs[e - 1], vs[e], hi) };
        let low = vs[k..e].iter().fold(left.min(right), |m, x| m.min(x.v));
        real(low)
    }

    #[cfg(test)]
    pub fn vertices(&self) -> &[Vertex] {
        &self.vs
    }
}

/// Reads an envelope at nondecreasing u.
pub(crate) struct Cursor<'a> {
    vs: &'a [Vertex],
    /// A vertex index: the first vertex at or after the last u read.
    k: usize,
}

impl Cursor<'_> {
    /// H(u): the highest value at u, −∞ where no segment holds u. Calls must come with
    /// nondecreasing u.
    #[inline]
    pub fn at(&mut self, u: f64) -> f64 {
        self.seek(|x| x.u < u);
        let (vs, k) = (self.vs, self.k);
        if k == vs.len() {
            return f64::NEG_INFINITY;
        }
        if vs[k].u == u {
            let mut best = vs[k].v;
            let mut m = k + 1;
            while m < vs.len() && vs[m].u == u {
                if vs[m].v > best {
                    best = vs[m].v;
                }
                m += 1;
            }
            return real(best);
        }
        if k == 0 {
            return f64::NEG_INFINITY;
        }
        real(lerp(vs[k - 1], vs[k], u))
    }

    /// Moves forward to the first vertex for which `before` is false (`before` true on a prefix of
    /// the vertices from here: they are sorted): a step at a time, then by galloping (the sweep's
    /// floors skip the vertices under quiet blocks, its targets and `covers` those between the few
    /// edges they read).
    #[inline]
    fn seek(&mut self, before: impl Fn(&Vertex) -> bool) {
        let p = self.vs;
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

    /// Moves to the first vertex after a (back first when past it).
    #[inline(always)]
    fn after(&mut self, a: f64) {
        let p = self.vs;
        while self.k > 0 && p[self.k - 1].u > a {
            self.k -= 1;
        }
        self.seek(|x| x.u <= a);
    }

    /// A lower bound of H over [a, b] (a < b): the least value of the vertices from the last one at
    /// or before a to the first at or after b, −∞ when H ends inside [a, b] or has a gap there.
    /// Calls may come in any order, best nearly sorted.
    #[inline]
    pub fn lowest(&mut self, a: f64, b: f64) -> f64 {
        self.after(a);
        let (vs, k) = (self.vs, self.k);
        if k == 0 {
            return f64::NEG_INFINITY;
        }
        // Plain comparisons (as `min` here, NaN included): no NaN handling to pay.
        let mut low = f64::INFINITY;
        for x in &vs[k - 1..] {
            if x.v < low {
                low = x.v;
            }
            if x.u >= b {
                return real(low);
            }
        }
        f64::NEG_INFINITY
    }

    /// Whether H holds every u of the segment from (ua, va) to (ub, vb) at or above it: checked at
    /// the segment's ends (H's limits from inside) and at every vertex between (both being linear
    /// between them). It may say no where a jump's higher side covers. Calls may come in any order,
    /// best nearly sorted.
    #[inline]
    pub fn covers(&mut self, ua: f64, va: f64, ub: f64, vb: f64) -> bool {
        let ((a, va), (b, vb)) = if ua <= ub { ((ua, va), (ub, vb)) } else { ((ub, vb), (ua, va)) };
        if a >= b {
            return false;
        }
        self.after(a);
        let (vs, k) = (self.vs, self.k);
        if k == 0 || k == vs.len() {
            return false;
        }
        // H's limit from the right at a: the last vertex at a, else its segment there. A GAP
        // vertex is below every segment: no test of its own.
        let h = if vs[k - 1].u == a { vs[k - 1].v } else { lerp(vs[k - 1], vs[k], a) };
        if h < va {
            return false;
        }
        let s = (vx(a, va), vx(b, vb));
        let mut m = k;
        while m < vs.len() && vs[m].u < b {
            if vs[m].v < lerp(s.0, s.1, vs[m].u) {
                return false;
            }
            m += 1;
        }
        if m == vs.len() {
            return false;
        }
        // H's limit from the left at b: the first vertex at b, else its segment there.
        let h = if vs[m].u == b { vs[m].v } else { lerp(vs[m - 1], vs[m], b) };
        h >= vb
    }
}

/// Segments being inserted into an envelope: appended when they come after everything so far (as
/// a strip's edges mostly do), else raised into it.
pub(crate) struct Merge<'a> {
    env: &'a mut Envelope,
}

impl Merge<'_> {
    /// Raises the envelope to the segment from (ua, va) to (ub, vb) where the segment is higher (a
    /// point at the higher value when ua = ub).
    #[inline]
    pub fn insert(&mut self, ua: f64, va: f64, ub: f64, vb: f64) {
        let (a, b) = if ua <= ub { (vx(ua, va), vx(ub, vb)) } else { (vx(ub, vb), vx(ua, va)) };
        let Envelope { vs, spare } = &mut *self.env;
        if a.u < b.u {
            match vs.last() {
                None => vs.extend([a, b]),
                Some(&l) if l.u <= a.u => {
                    if l.u < a.u {
                        vs.extend([vx(l.u, GAP), vx(a.u, GAP), a]);
                    } else if l.v != a.v {
                        // A jump at a.u: `l`, the old last value there, stays in its run.
                        vs.push(a);
                    }
                    vs.push(b);
                }
                _ => raise(vs, spare, &[a, b]),
            }
        } else {
            raise(vs, spare, &[vx(a.u, a.v.max(b.v))]);
        }
    }
}

/// The run of vertices at `vs[i].u`: (left limit, highest, right limit, the index after it), the
/// limits GAP at the polyline's ends.
#[inline(always)]
fn run_at(vs: &[Vertex], i: usize) -> (f64, f64, f64, usize) {
    let u = vs[i].u;
    let mut hi = vs[i].v;
    let mut e = i + 1;
    while e < vs.len() && vs[e].u == u {
        if vs[e].v > hi {
            hi = vs[e].v;
        }
        e += 1;
    }
    let l = if i > 0 { vs[i].v } else { GAP };
    let r = if e < vs.len() { vs[e - 1].v } else { GAP };
    (l, hi, r, e)
}

/// The value at u of the polyline whose next vertex (the first after u) is `vs[j]`: GAP outside it.
#[inline(always)]
fn inside(vs: &[Vertex], j: usize, u: f64) -> f64 {
    if j == 0 || j == vs.len() {
        GAP
    } else {
        lerp(vs[j - 1], vs[j], u)
    }
}

/// One u of the pass in `raise`: the maximum's run there, and what the skip test needs.
#[derive(Clone, Copy)]
struct Event {
    u: f64,
    l: f64,
    hi: f64,
    r: f64,
    /// H's value when H has no vertex here (else NaN), and S's likewise.
    h_flat: f64,
    s_flat: f64,
}

impl Event {
    /// Writes the maximum's run, unless the function on top on both sides (`before`, `after`:
    /// whether S is) has no vertex here and the other does not poke above it.
    #[inline(always)]
    fn emit(&self, out: &mut Vec<Vertex>, before: bool, after: bool) {
        if before == after {
            let flat = if after { self.s_flat } else { self.h_flat };
            // NaN (a vertex here) fails the test.
            if self.hi <= flat {
                return;
            }
        }
        let Event { u, l, hi, r, .. } = *self;
        out.push(vx(u, l));
        if hi > l && hi > r {
            out.extend([vx(u, hi), vx(u, r)]);
        } else if r != l {
            out.push(vx(u, r));
        }
    }
}

/// Replaces `h` over [s₀.u, sₙ.u] by max(h, s) (see the module docs), `spare` a buffer.
fn raise(h: &mut Vec<Vertex>, spare: &mut Vec<Vertex>, s: &[Vertex]) {
    let (Some(first), Some(last)) = (s.first(), s.last()) else {
        return;
    };
    let (sa, sb) = (first.u, last.u);
    let i0 = h.partition_point(|x| x.u < sa);
    let i1 = i0 + h[i0..].partition_point(|x| x.u <= sb);
    let mut out = std::mem::take(spare);
    out.clear();
    // Past H's end: its last vertex's right limit, −∞ by position, made a vertex (the gap to sa).
    if i0 == h.len() && i0 > 0 {
        out.push(vx(h[i0 - 1].u, GAP));
    }
    let (mut j, mut k) = (i0, 0);
    // The event before, pending until the top after it is known; H's and S's right limits there;
    // whether S was on top just before it.
    let mut pending: Option<Event> = None;
    let (mut ph, mut ps) = (GAP, GAP);
    let mut before = false;
    loop {
        let hu = if j < i1 { h[j].u } else { f64::INFINITY };
        let su = if k < s.len() { s[k].u } else { f64::INFINITY };
        let u = if hu < su { hu } else { su };
        if u == f64::INFINITY {
            break;
        }
        let (hl, hhi, hr, h_flat) = if hu == u {
            let (l, hi, r, e) = run_at(h, j);
            j = e;
            (l, hi, r, f64::NAN)
        } else {
            let x = inside(h, j, u);
            (x, x, x, x)
        };
        let (sl, shi, sr, s_flat) = if su == u {
            let (l, hi, r, e) = run_at(s, k);
            k = e;
            (l, hi, r, f64::NAN)
        } else {
            let x = inside(s, k, u);
            (x, x, x, x)
        };
        if let Some(e) = pending {
            // The interval from e.u to u: both linear, d = S − H at its ends.
            let (d1, d2) = (ps - ph, sl - hl);
            if (d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0) {
                let s_first = d1 > 0.0;
                e.emit(&mut out, before, s_first);
                let r = d1 / (d1 - d2);
                let x = e.u + (u - e.u) * r;
                let x = if x < e.u {
                    e.u
                } else if x > u {
                    u
                } else {
                    x
                };
                // Both lines meet there: the value off the one with the smaller ends (the smaller
                // rounding; a line off a spike is read to a tiny fraction of the spike's height).
                let v = if ph.abs().max(hl.abs()) <= ps.abs().max(sl.abs()) {
                    ph + (hl - ph) * r
                } else {
                    ps + (sl - ps) * r
                };
                out.push(vx(x, v));
                before = !s_first;
            } else {
                // S on top where it is higher at one end and not lower at the other.
                let s_top = d1 > 0.0 || d2 > 0.0;
                e.emit(&mut out, before, s_top);
                before = s_top;
            }
        }
        let mut e = Event {
            u,
            l: if hl > sl { hl } else { sl },
            hi: if hhi > shi { hhi } else { shi },
            r: if hr > sr { hr } else { sr },
            h_flat,
            s_flat,
        };
        // No GAP vertex at the polyline's very start.
        if i0 == 0 && out.is_empty() && e.l == GAP {
            e.l = if e.hi > e.r { e.hi } else { e.r };
        }
        pending = Some(e);
        (ph, ps) = (hr, sr);
    }
    if let Some(mut e) = pending {
        // After the last u, S is −∞: H on top. No GAP vertex at the very end.
        if i1 == h.len() && e.r == GAP {
            e.r = if e.hi > e.l { e.hi } else { e.l };
        }
        e.emit(&mut out, before, false);
    }
    // Before H's start: the gap from sb to its first vertex, likewise.
    if i1 == 0 && !h.is_empty() {
        out.push(vx(h[0].u, GAP));
    }
    if out.len() == i1 - i0 {
        h[i0..i1].copy_from_slice(&out);
    } else {
        h.splice(i0..i1, out.iter().copied());
    }
    *spare = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Brute force: the highest value of every segment holding u (a point at its higher end).
    fn brute(segs: &[(f64, f64, f64, f64)], u: f64) -> f64 {
        segs.iter()
            .map(|&(a, va, b, vb)| {
                let ((a, va), (b, vb)) = if a <= b { ((a, va), (b, vb)) } else { ((b, vb), (a, va)) };
                if a == b {
                    if u == a {
                        va.max(vb)
                    } else {
                        f64::NEG_INFINITY
                    }
                } else if u == a {
                    va
                } else if u == b {
                    vb
                } else if a < u && u < b {
                    lerp(vx(a, va), vx(b, vb), u)
                } else {
                    f64::NEG_INFINITY
                }
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The form's invariants: sorted by u, and no segment joining a real vertex to a GAP one.
    fn well_formed(h: &Envelope) {
        for w in h.vertices().windows(2) {
            assert!(w[0].u <= w[1].u, "unsorted {w:?}");
            assert!(w[0].u == w[1].u || (w[0].v == GAP) == (w[1].v == GAP), "a slope into a gap {w:?}");
        }
    }

    fn check(h: &Envelope, segs: &[(f64, f64, f64, f64)], probes: &[f64]) {
        well_formed(h);
        let mut c = h.cursor();
        for &u in probes {
            let (got, want) = (c.at(u), brute(segs, u));
            let tol = 1e-9 * (1.0 + want.abs());
            assert!(
                (got == want) || (got - want).abs() <= tol,
                "H({u}) = {got}, brute force {want}; {:?}",
                h.vertices()
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
                    let ((a, va), (b, vb)) = if a <= b { ((a, va), (b, vb)) } else { ((b, vb), (a, va)) };
                    for k in 0..=20 {
                        let u = a + (b - a) * k as f64 / 20.0;
                        let s = va + (vb - va) * (k as f64 / 20.0);
                        assert!(brute(&segs, u) >= s - 1e-12, "covers({a}, {va}, {b}, {vb}) at {u}");
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
                    let mut s: Vec<_> = segs
                        .iter()
                        .map(|&(x, _, y, _)| (x.min(y), x.max(y)))
                        .filter(|&(x, y)| x < y && y > a && x < b)
                        .collect();
                    s.sort_by(|p, q| p.0.total_cmp(&q.0));
                    let mut cur = a;
                    for (x, y) in s {
                        if x > cur {
                            break;
                        }
                        cur = cur.max(y);
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
        m.insert(3.0, 5.0, 3.0, 4.0);
        let mut c = h.cursor();
        assert_eq!(c.at(0.25), 1.0);
        assert_eq!(c.at(0.5), 3.0);
        assert_eq!(c.at(0.75), 1.0);
        assert_eq!(c.at(1.0), 1.0);
        assert_eq!(c.at(1.5), 0.0);
        assert_eq!(c.at(2.5), f64::NEG_INFINITY);
        assert_eq!(c.at(3.0), 5.0);
        assert_eq!(c.at(3.5), f64::NEG_INFINITY);
        well_formed(&h);
    }

    #[test]
    fn a_strip_lying_on_the_horizon_adds_no_vertex() {
        let mut h = envelope_of(&[(-1.0, 0.0, 1.0, 0.0)]);
        let s = envelope_of(&[(-0.5, 0.0, -0.25, 0.0), (-0.25, 0.0, 0.5, 0.0), (0.75, -1.0, 0.8, 0.0)]);
        h.raise(&s);
        assert_eq!(h.vertices(), &[vx(-1.0, 0.0), vx(1.0, 0.0)]);
    }
}
