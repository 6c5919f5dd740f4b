//! Weighted A* over the cluster–portal graph ([`hier`](super::hier)): the start and the goal joined to the
//! portals of their clusters by searches inside them, portal to portal through the clusters by
//! the cached stretches. An edge is first queued at its straight length (a lower bound) and its
//! stretch is found only when that entry comes off the heap (lazy edges), so the stretches of
//! clusters the search does not go through are never computed. Across a free cluster the stretch
//! is the straight segment: its edges are queued at their true cost at once (most of a long
//! query's edges; no second entry, no stretch stored). The path is the stretches along the way,
//! joined.

use super::clusters::{key_side, Entry, Map, PortalSearch, Reached};
use super::planner::Planner;
use glam::DVec2;

/// The start, as a node.
const START: u64 = u64::MAX;
/// The goal, as a node.
const GOAL: u64 = u64::MAX - 1;
/// Weight on the straight distance to the goal (weighted A*: the portal path found is at most
/// this factor longer than the graph's shortest, and the search stays near the straight line).
const WEIGHT: f64 = 1.1;

impl Planner<'_> {
    /// The polyline from `a` to `b` (both checked) through the cluster–portal graph, or `None`
    /// when the graph joins them nowhere.
    pub(crate) fn portal_corridor(&mut self, a: DVec2, b: DVec2) -> Option<Vec<DVec2>> {
        let mut state = std::mem::take(&mut self.portal_search);
        let found = self.portal_search_in(&mut state, a, b);
        self.portal_search = state;
        found
    }

    /// [`portal_corridor`](Self::portal_corridor) in `state`.
    fn portal_search_in(&mut self, state: &mut PortalSearch, a: DVec2, b: DVec2) -> Option<Vec<DVec2>> {
        let (ca, cb) = (self.cluster_of(a), self.cluster_of(b));
        let PortalSearch { at, reached, closed, heap, portals } = state;
        at.clear();
        reached.clear();
        closed.clear();
        heap.clear();
        at.insert(START, a);
        at.insert(GOAL, b);
        heap.push(Entry { f: WEIGHT * a.distance(b), g: 0.0, node: START, from: START, cluster: ca, exact: true });
        reached.insert(START, Reached { g: 0.0, from: START, pts: None, flip: false });
        while let Some(e) = heap.pop() {
            if closed.contains_key(&e.node) {
                continue;
            }
            if !e.exact {
                // Find the edge's stretch; queue it at its true cost if it improves the node.
                let (p, q) = (at[&e.from], at[&e.node]);
                let s = if e.from == START || e.node == GOAL {
                    self.local(e.cluster, p, q).map(|(l, pts)| (l, pts, false))
                } else {
                    self.stretch(e.cluster, (e.from, p), (e.node, q))
                };
                let Some((l, pts, flip)) = s else { continue };
                let g = reached[&e.from].g + l;
                if reached.get(&e.node).is_none_or(|r| g < r.g) {
                    reached.insert(e.node, Reached { g, from: e.from, pts: Some(pts), flip });
                    heap.push(Entry {
                        f: g + WEIGHT * q.distance(b),
                        g,
                        node: e.node,
                        from: e.from,
                        cluster: e.cluster,
                        exact: true,
                    });
                }
                continue;
            }
            if reached.get(&e.node).is_some_and(|r| r.g < e.g) {
                continue;
            }
            closed.insert(e.node, ());
            if e.node == GOAL {
                return Some(self.unwind(at, reached));
            }
            let p = at[&e.node];
            let clusters = if e.node == START {
                [Some(ca), None]
            } else {
                let [x, y] = self.side_clusters(key_side(e.node));
                [Some(x), Some(y)]
            };
            for c in clusters.into_iter().flatten() {
                // Across a free cluster the stretch is the straight segment: known at once.
                let free = self.cluster_free(c);
                self.cluster_portals(c, portals);
                let targets = portals.iter().copied().chain((c == cb).then_some((GOAL, b)));
                for (k, q) in targets {
                    if k == e.node || closed.contains_key(&k) {
                        continue;
                    }
                    let g = e.g + p.distance(q);
                    if free && reached.get(&k).is_some_and(|r| r.g <= g) {
                        continue;
                    }
                    at.insert(k, q);
                    if free {
                        reached.insert(k, Reached { g, from: e.node, pts: None, flip: false });
                    }
                    let h = if k == GOAL { 0.0 } else { WEIGHT * q.distance(b) };
                    heap.push(Entry { f: g + h, g, node: k, from: e.node, cluster: c, exact: free });
                }
            }
        }
        None
    }

    /// The corners from the start to the goal, joined from the stretches.
    fn unwind(&self, at: &Map<u64, DVec2>, reached: &Map<u64, Reached>) -> Vec<DVec2> {
        let mut out: Vec<DVec2> = Vec::new();
        let mut n = GOAL;
        while n != START {
            let r = &reached[&n];
            let straight = [at[&r.from], at[&n]];
            let pts = r.pts.as_deref().unwrap_or(&straight);
            let pts: Box<dyn Iterator<Item = &DVec2>> =
                if r.flip { Box::new(pts.iter()) } else { Box::new(pts.iter().rev()) };
            for &q in pts {
                if out.last() != Some(&q) {
                    out.push(q);
                }
            }
            n = r.from;
        }
        let a = at[&START];
        if out.last() != Some(&a) {
            out.push(a);
        }
        out.reverse();
        out
    }
}
