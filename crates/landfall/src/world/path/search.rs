//! Lazy Theta* over the free leaves: from the start to the free leaves near it that it sees, leaf
//! centre to leaf centre across shared sides (the segment between the centres of two leaves
//! sharing a side stays inside the two), to the free leaves near the goal that see it. A node's
//! parent may be any earlier node that sees it (checked when the node is expanded; if it does not
//! see it, the best expanded neighbour is the parent), so paths across large free leaves come out
//! straight and A* does not pick the wrong side of an obstacle from the leaves' centre-to-centre
//! zigzag. Where the free leaves do not join the ends, the search runs again with the partial
//! cells whose centre the agent may stand on, each step into or out of one checked by line of
//! sight. Then the corners are pulled straight ([`smooth`](super::smooth)).

use super::clusters::Cells;
use super::marks::Entry;
use super::planner::{PathError, Planner, Route};
use super::tree::State;
use glam::DVec2;

/// The goal, as a node.
const GOAL: u32 = u32::MAX;
/// The start, as a parent.
const START: u32 = u32::MAX - 1;

/// Ends nearer than this many clusters' widths are joined by the leaf search alone.
const NEAR: f64 = 8.0;

/// Finest cells around the start and the goal whose free leaves may connect to them.
const REACH: u32 = 2;

impl Planner<'_> {
    /// A path from `a` to `b`, smoothed, its corners on the ground. A start or goal the agent
    /// cannot stand on is first moved to the nearest point where it can, within the agent's
    /// [`snap`](super::Agent::snap) distance ([`Route::moved`] says how far); beyond it, the error
    /// says which end and why.
    pub fn find_path(&mut self, a: DVec2, b: DVec2) -> Result<Route, PathError> {
        self.route(a, b, Self::hier_corridor)
    }

    /// The route from `a` to `b` through `corridor`'s polyline between the placed ends, smoothed,
    /// its corners on the ground.
    fn route(
        &mut self,
        a: DVec2,
        b: DVec2,
        corridor: fn(&mut Self, DVec2, DVec2) -> Result<Vec<DVec2>, PathError>,
    ) -> Result<Route, PathError> {
        let (sa, sb) = (self.place("start", a)?, self.place("goal", b)?);
        let mut pts = corridor(self, sa, sb)?;
        self.smooth(&mut pts);
        Ok(Route {
            points: pts.into_iter().map(|p| self.on_ground(p)).collect(),
            moved: [a.distance(sa), b.distance(sb)],
        })
    }

    /// The polyline from `a` to `b` (both checked) through the cluster–portal graph; ends fewer
    /// than [`NEAR`] clusters apart, or that the graph joins nowhere, go to the leaf search over
    /// the whole tree (near ends, the detours through portal points weigh most and that search
    /// explores little).
    pub(crate) fn hier_corridor(&mut self, a: DVec2, b: DVec2) -> Result<Vec<DVec2>, PathError> {
        if self.clear(a, b) {
            return Ok(vec![a, b]);
        }
        let cluster = (1u64 << self.cluster_level()) as f64 * self.tree.cell;
        // `a`–`b` is known blocked here: the leaf search without its own straight-line test.
        if a.distance(b) < NEAR * cluster {
            return self.leaf_search(a, b, None);
        }
        match self.portal_corridor(a, b) {
            Some(pts) => Ok(pts),
            None => self.leaf_search(a, b, None),
        }
    }

    /// The old query (Lazy Theta* over the whole tree, then pulled straight): the reference in
    /// tests.
    #[cfg(test)]
    pub(crate) fn find_path_flat(&mut self, a: DVec2, b: DVec2) -> Result<Route, PathError> {
        self.route(a, b, Self::corridor)
    }

    /// The A* polyline from `a` to `b` (both checked): the start, leaf centres, the goal.
    pub(crate) fn corridor(&mut self, a: DVec2, b: DVec2) -> Result<Vec<DVec2>, PathError> {
        self.corridor_in(a, b, None)
    }

    /// The same within the leaves inside `within` (a box of finest cells), or over the whole tree.
    pub(crate) fn corridor_in(&mut self, a: DVec2, b: DVec2, within: Option<Cells>) -> Result<Vec<DVec2>, PathError> {
        if self.clear(a, b) {
            return Ok(vec![a, b]);
        }
        self.leaf_search(a, b, within)
    }

    /// [`corridor_in`](Self::corridor_in) for ends that do not see each other: over the free
    /// leaves, and where they do not join the ends, again with the partial cells whose centre the
    /// agent may stand on (a gap between obstacles narrower than a free cell; each step into or
    /// out of such a cell checked by line of sight).
    pub(crate) fn leaf_search(&mut self, a: DVec2, b: DVec2, within: Option<Cells>) -> Result<Vec<DVec2>, PathError> {
        self.leaf_search_over(a, b, within, false).or_else(|_| self.leaf_search_over(a, b, within, true))
    }

    /// The leaf search over the free leaves, and with `partial` the walkable partial cells too.
    fn leaf_search_over(
        &mut self,
        a: DVec2,
        b: DVec2,
        within: Option<Cells>,
        partial: bool,
    ) -> Result<Vec<DVec2>, PathError> {
        let mut s = std::mem::take(&mut self.search);
        s.reset(self.tree.nodes.len());
        let stamp = s.stamp;
        let inside = |t: &super::tree::Tree, n: u32| within.is_none_or(|w| w.holds(&t.nodes[n as usize]));
        // A node of the search: a free leaf, or (with `partial`) a partial cell whose centre the
        // agent may stand on. A step between two free leaves sharing a side stays inside them;
        // one with a partial cell at either end is checked.
        let usable = |n: u32| match self.tree.nodes[n as usize].state {
            State::Free => true,
            State::Partial => partial && self.walkable(self.tree.center(n)),
            _ => false,
        };
        let free = |n: u32| self.tree.nodes[n as usize].state == State::Free;
        let step_clear = |n: u32, m: u32| (free(n) && free(m)) || self.clear(self.tree.center(n), self.tree.center(m));
        for n in self.near_usable(b, &usable).into_iter().filter(|&n| inside(&self.tree, n)) {
            let c = self.tree.center(n);
            if self.clear(c, b) {
                s.target[n as usize] = stamp;
                s.to_goal[n as usize] = c.distance(b);
            }
        }
        for n in self.near_usable(a, &usable).into_iter().filter(|&n| inside(&self.tree, n)) {
            let c = self.tree.center(n);
            let g = a.distance(c);
            if self.clear(a, c) && (s.seen[n as usize] != stamp || g < s.g[n as usize]) {
                s.seen[n as usize] = stamp;
                s.g[n as usize] = g;
                s.parent[n as usize] = START;
                s.heap.push(Entry { f: g + c.distance(b), node: n });
            }
        }
        let (mut best, mut via) = (f64::INFINITY, GOAL);
        let mut found = false;
        let pos = |n: u32| if n == START { a } else { self.tree.center(n) };
        while let Some(Entry { node, .. }) = s.heap.pop() {
            if node == GOAL {
                found = true;
                break;
            }
            let k = node as usize;
            if s.closed[k] == stamp {
                continue;
            }
            s.closed[k] = stamp;
            let cn = self.tree.center(node);
            // Lazy Theta*: the parent was assumed to see this node; if it does not, take the best
            // expanded neighbour instead (one always relaxed it).
            let p = s.parent[k];
            if !self.clear(pos(p), cn) {
                let (mut bg, mut bp) = (f64::INFINITY, p);
                self.tree.neighbours(node, |m| {
                    let mk = m as usize;
                    if s.closed[mk] == stamp && usable(m) && step_clear(m, node) {
                        let g = s.g[mk] + self.tree.center(m).distance(cn);
                        if g < bg {
                            (bg, bp) = (g, m);
                        }
                    }
                });
                s.g[k] = bg;
                s.parent[k] = bp;
            }
            let gn = s.g[k];
            if s.target[k] == stamp {
                // To the goal from this node's parent if it sees the goal, else from the node.
                let (pp, gp) = (s.parent[k], if s.parent[k] == START { 0.0 } else { s.g[s.parent[k] as usize] });
                let direct = gp + pos(pp).distance(b);
                let (cost, from) = if direct < gn + s.to_goal[k] && self.clear(pos(pp), b) {
                    (direct, pp)
                } else {
                    (gn + s.to_goal[k], node)
                };
                if cost < best {
                    best = cost;
                    via = from;
                    s.heap.push(Entry { f: best, node: GOAL });
                }
            }
            let (pp, gp) = {
                let pp = s.parent[k];
                (pp, if pp == START { 0.0 } else { s.g[pp as usize] })
            };
            let ppos = pos(pp);
            self.tree.neighbours(node, |m| {
                let mk = m as usize;
                if s.closed[mk] == stamp || !usable(m) || !inside(&self.tree, m) {
                    return;
                }
                if !step_clear(node, m) {
                    return;
                }
                let cm = self.tree.center(m);
                let g = gp + ppos.distance(cm);
                if s.seen[mk] != stamp || g < s.g[mk] {
                    s.seen[mk] = stamp;
                    s.g[mk] = g;
                    s.parent[mk] = pp;
                    s.heap.push(Entry { f: g + cm.distance(b), node: m });
                }
            });
        }
        let result = if found {
            let mut pts = vec![b];
            let mut n = via;
            while n != START {
                pts.push(self.tree.center(n));
                n = s.parent[n as usize];
            }
            pts.push(a);
            pts.reverse();
            Ok(pts)
        } else {
            Err(PathError::NoPath(a.x, a.y, b.x, b.y))
        };
        self.search = s;
        result
    }

    /// The leaves within [`REACH`] finest cells of `p` that are nodes of the search.
    fn near_usable(&self, p: DVec2, usable: &impl Fn(u32) -> bool) -> Vec<u32> {
        let t = &self.tree;
        let u = (p - t.origin) / t.cell;
        let last = t.side() as i64 - 1;
        let c = |v: f64, d: i64| ((v.floor() as i64) + d).clamp(0, last) as u32;
        let r = REACH as i64;
        let mut out = Vec::new();
        t.leaves_in(c(u.x, -r), c(u.y, -r), c(u.x, r), c(u.y, r), &mut |n| {
            if usable(n) {
                out.push(n);
            }
        });
        out
    }
}
