//! Weighted A* over the cluster–portal graph ([`hier`](super::hier)): the start and the goal joined to the
//! portals of their clusters by searches inside them, portal to portal through the clusters by
//! the cached stretches. An edge is first queued at its straight length (a lower bound) and its
//! stretch is found only when that entry comes off the heap (lazy edges), so the stretches of
//! clusters the search does not go through are never computed. The path is the stretches along
//! the way, joined.

use super::clusters::{key_side, Entry, Map, PortalSearch, Reached};
use super::planner::Planner;
use glam::DVec2;
use std::sync::Arc;

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
        reached.insert(START, Reached { g: 0.0, from: START, pts: Arc::from([a].as_slice()), flip: false });
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
                    reached.insert(e.node, Reached { g, from: e.from, pts, flip });
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
                return Some(self.unwind(reached));
            }
            let p = at[&e.node];
            let clusters = if e.node == START {
                [Some(ca), None]
            } else {
                let [x, y] = self.side_clusters(key_side(e.node));
                [Some(x), Some(y)]
            };
            for c in clusters.into_iter().flatten() {
                self.cluster_portals(c, portals);
                for &(k, q) in portals.iter() {
                    if k == e.node || closed.contains_key(&k) {
                        continue;
                    }
                    at.insert(k, q);
                    let g = e.g + p.distance(q);
                    heap.push(Entry {
                        f: g + WEIGHT * q.distance(b),
                        g,
                        node: k,
                        from: e.node,
                        cluster: c,
                        exact: false,
                    });
                }
                if c == cb {
                    let g = e.g + p.distance(b);
                    heap.push(Entry { f: g, g, node: GOAL, from: e.node, cluster: c, exact: false });
                }
            }
        }
        None
    }

    /// The corners from the start to the goal, joined from the stretches.
    fn unwind(&self, reached: &Map<u64, Reached>) -> Vec<DVec2> {
        let mut out: Vec<DVec2> = Vec::new();
        let mut n = GOAL;
        while n != START {
            let r = &reached[&n];
            let pts: Box<dyn Iterator<Item = &DVec2>> =
                if r.flip { Box::new(r.pts.iter()) } else { Box::new(r.pts.iter().rev()) };
            for &q in pts {
                if out.last() != Some(&q) {
                    out.push(q);
                }
            }
            n = r.from;
        }
        let a = reached[&START].pts[0];
        if out.last() != Some(&a) {
            out.push(a);
        }
        out.reverse();
        out
    }
}
