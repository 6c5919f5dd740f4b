//! Moving a start or goal the agent cannot stand on to the nearest place where it can (what
//! Detour's `findNearestPoly` does on a navigation mesh), within the agent's [`snap`](super::Agent::snap)
//! distance.
//!
//! The nearest walkable point is found exactly, from a finite set of candidates that must hold
//! it: the walkable set is the region minus the open inflated discs minus the closed steep cells,
//! so its nearest point to `p` lies on a circle (`p` projected on it), on a free cell's side (`p`
//! projected on it) or where two of those meet (two circles, a circle and a side, a free cell's
//! corner). Each candidate is nudged into the walkable set by a hair (`eps`: 10⁻⁷ of a slope cell,
//! or the rounding of `p`'s magnitude) and kept if it is walkable; the nearest one wins.

use super::geom::{box_dist2, Disc};
use super::planner::Planner;
use glam::DVec2;

impl Planner<'_> {
    /// Whether the agent may stand at `p`: inside the planned region, no inflated obstacle closer
    /// to it than its radius, on ground within the slope limit.
    pub fn walkable(&self, p: DVec2) -> bool {
        let (lo, hi) = self.region();
        p.is_finite() && p.cmpge(lo).all() && p.cmple(hi).all() && self.point_clear(p) && !self.slope.blocks_point(p)
    }

    /// The nearest point to `p` where the agent may stand ([`walkable`](Self::walkable)), if one is
    /// within the agent's [`snap_reach`](super::Agent::snap_reach): `p` itself when it is walkable.
    /// Exact up to a nudge of 10⁻⁷ slope cells into the walkable set.
    pub fn nearest_walkable(&self, p: DVec2) -> Option<DVec2> {
        if self.walkable(p) {
            return Some(p);
        }
        let reach = self.agent.snap_reach();
        if !(p.is_finite() && reach > 0.0) {
            return None;
        }
        let eps = (1e-7 * self.slope.cell).max(1e-14 * p.abs().max_element());
        let mut best: Option<(f64, DVec2)> = None;
        let mut consider = |q: DVec2| {
            let d = q.distance_squared(p);
            if d <= reach * reach && best.is_none_or(|(b, _)| d < b) && self.walkable(q) {
                best = Some((d, q));
            }
        };
        // The discs near, grown by two hairs (a candidate nudged into a cell stays outside them).
        let grown = |ids: &[u32]| -> Vec<Disc> {
            ids.iter()
                .filter_map(|&k| self.obstacles.inflated(k))
                .map(|d| Disc { center: d.center, radius: d.radius + 2.0 * eps })
                .collect()
        };
        let mut ids = Vec::new();
        self.obstacles.near(p - reach, p + reach, &mut ids);
        let discs = grown(&ids);
        for (k, d) in discs.iter().enumerate() {
            let v = p - d.center;
            let dir = if v.length_squared() > 0.0 { v.normalize() } else { DVec2::X };
            consider(d.center + dir * d.radius);
            for e in &discs[k + 1..] {
                circles_meet(d, e, &mut consider);
            }
        }
        // The free slope cells near: their corners, p on their sides, the circles across their
        // sides. Needed where steep cells are near, or the region's border (its cells' sides).
        let (lo, hi) = self.region();
        let (i0, j0, i1, j1) = self.slope.cells_in(p - reach, p + reach);
        let steep = self.slope.count(i0, j0, i1 + 1, j1 + 1) > 0;
        if !steep && (p - reach).cmpge(lo).all() && (p + reach).cmple(hi).all() {
            return best.map(|(_, q)| q);
        }
        for j in j0..=j1 {
            for i in i0..=i1 {
                let (clo, chi) = self.slope.cell_box(i, j);
                if self.slope.blocked(i, j) || box_dist2(clo, chi, p) > reach * reach {
                    continue;
                }
                let inside = |q: DVec2| q.clamp(clo + eps, chi - eps);
                ids.clear();
                self.obstacles.near(clo, chi, &mut ids);
                let discs = grown(&ids);
                let corners = [clo, DVec2::new(chi.x, clo.y), chi, DVec2::new(clo.x, chi.y)];
                for e in 0..4 {
                    let (u, v) = (corners[e], corners[(e + 1) % 4]);
                    consider(inside(u));
                    consider(inside(p.clamp(clo, chi).clamp(u.min(v), u.max(v))));
                    for d in &discs {
                        circle_meets_segment(d, u, v, &mut |q| consider(inside(q)));
                    }
                }
            }
        }
        best.map(|(_, q)| q)
    }
}

/// Calls `f` with the points where the circles of `a` and `b` meet.
fn circles_meet(a: &Disc, b: &Disc, f: &mut impl FnMut(DVec2)) {
    let d = b.center - a.center;
    let l2 = d.length_squared();
    if l2 == 0.0 {
        return;
    }
    // Along d from a's centre to the chord, then across.
    let along = 0.5 * (l2 + a.radius * a.radius - b.radius * b.radius) / l2;
    let h2 = a.radius * a.radius / l2 - along * along;
    if h2 < 0.0 {
        return;
    }
    let (m, across) = (a.center + d * along, d.perp() * h2.sqrt());
    f(m + across);
    f(m - across);
}

/// Calls `f` with the points where the circle of `c` crosses the segment `u`–`v`.
fn circle_meets_segment(c: &Disc, u: DVec2, v: DVec2, f: &mut impl FnMut(DVec2)) {
    let d = v - u;
    let (a, w) = (d.length_squared(), u - c.center);
    let (b, cc) = (w.dot(d), w.length_squared() - c.radius * c.radius);
    let disc = b * b - a * cc;
    if a == 0.0 || disc < 0.0 {
        return;
    }
    for t in [(-b - disc.sqrt()) / a, (-b + disc.sqrt()) / a] {
        if (0.0..=1.0).contains(&t) {
            f(u + d * t);
        }
    }
}
