//! Weighted A* over the cluster–portal graph ([`hier`](super::hier)): the start and the goal joined to the
//! portals of their clusters by searches inside them, portal to portal through the clusters by
//! the cached stretches. An edge is first queued at its straight length (a lower bound) and its
//! stretch is found only when that entry comes off the heap (lazy edges), so the stretches of
//! clusters the search does not go through are never computed. Across a free cluster the stretch
//! is the straight segment: its edges are queued at their true cost at once (most of a long
//! query's edges; no second entry, no stretch stored). The path is the stretches along the way,
//! joined.
//!
//! The search hashes nothing: its nodes are numbered densely as it first meets each side (a
//! per-side and a per-cluster table stamped with the query's number), their costs and parents
//! live in one array, and a heap entry is a key and a node or lazy-edge id (16 bytes).

use super::clusters::{key_side, portal_key, LazyEdge, PortalSearch, Queued, LAZY};
use super::planner::Planner;
use glam::DVec2;
use std::ops::Range;

/// The start, as a node.
const START: u32 = 0;
/// The goal, as a node.
const GOAL: u32 = 1;
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

    /// [`portal_corridor`](Self::portal_corridor) in `st`.
    fn portal_search_in(&mut self, st: &mut PortalSearch, a: DVec2, b: DVec2) -> Option<Vec<DVec2>> {
        let (ca, cb) = (self.cluster_of(a), self.cluster_of(b));
        let n = self.clusters_per_side() as usize;
        st.reset(n * n);
        st.add(a, u64::MAX);
        st.add(b, u64::MAX);
        st.nodes[START as usize].reached = true;
        st.heap.push(Queued { f: WEIGHT * a.distance(b), id: START });
        while let Some(Queued { id, .. }) = st.heap.pop() {
            if id & LAZY != 0 {
                // Find the edge's stretch; queue it at its true cost if it improves the node.
                let LazyEdge { from, to, cluster } = st.edges[(id & !LAZY) as usize];
                if st.nodes[to as usize].closed {
                    continue;
                }
                let (f, t) = (&st.nodes[from as usize], &st.nodes[to as usize]);
                let (p, q, (kp, kq)) = (f.at, t.at, (f.key, t.key));
                let s = if from == START || to == GOAL {
                    self.local(cluster, p, q).map(|(l, pts)| (l, pts, false))
                } else {
                    self.stretch(cluster, (kp, p), (kq, q))
                };
                let Some((l, pts, flip)) = s else { continue };
                let g = st.nodes[from as usize].g + l;
                let t = &mut st.nodes[to as usize];
                if !t.reached || g < t.g {
                    (t.g, t.from, t.reached, t.pts, t.flip) = (g, from, true, Some(pts), flip);
                    st.heap.push(Queued { f: g + heuristic(to, q, b), id: to });
                }
                continue;
            }
            let node = &mut st.nodes[id as usize];
            if node.closed {
                continue;
            }
            node.closed = true;
            if id == GOAL {
                return Some(unwind(st));
            }
            let (p, g0) = (node.at, node.g);
            let clusters = if id == START {
                [Some(ca), None]
            } else {
                let [x, y] = self.side_clusters(key_side(node.key));
                [Some(x), Some(y)]
            };
            for c in clusters.into_iter().flatten() {
                // Across a free cluster the stretch is the straight segment: known at once.
                let free = self.cluster_free_in(st, c);
                let sides: [Option<u64>; 4] = {
                    let mut out = [None; 4];
                    for (k, s) in self.cluster_sides(c).enumerate() {
                        out[k] = Some(s);
                    }
                    out
                };
                let ranges = sides.map(|s| s.map(|s| self.side_nodes(st, s)));
                let goal = (c == cb).then_some(GOAL..GOAL + 1);
                for k in ranges.into_iter().flatten().chain(goal).flatten() {
                    let t = &st.nodes[k as usize];
                    if k == id || t.closed {
                        continue;
                    }
                    let q = t.at;
                    let g = g0 + p.distance(q);
                    let f = g + heuristic(k, q, b);
                    if free {
                        if t.reached && t.g <= g {
                            continue;
                        }
                        let t = &mut st.nodes[k as usize];
                        (t.g, t.from, t.reached, t.pts, t.flip) = (g, id, true, None, false);
                        st.heap.push(Queued { f, id: k });
                    } else {
                        st.edges.push(LazyEdge { from: id, to: k, cluster: c });
                        st.heap.push(Queued { f, id: LAZY | (st.edges.len() - 1) as u32 });
                    }
                }
            }
        }
        None
    }

    /// Whether cluster `c` lies in one free leaf, found once a query.
    fn cluster_free_in(&self, st: &mut PortalSearch, c: u64) -> bool {
        let stamp = st.stamp;
        let e = st.clusters[c as usize];
        if e.0 == stamp {
            return e.1;
        }
        let free = self.cluster_free(c);
        st.clusters[c as usize] = (stamp, free);
        free
    }

    /// The nodes of the portals of `side`, numbered the first time a query meets it.
    fn side_nodes(&mut self, st: &mut PortalSearch, side: u64) -> Range<u32> {
        let (stamp, first, len) = st.sides[side as usize];
        if stamp == st.stamp {
            return first..first + len;
        }
        let portals = self.side_portals(side);
        let first = st.nodes.len() as u32;
        for (k, &q) in portals.iter().enumerate() {
            st.add(q, portal_key(side, k));
        }
        st.sides[side as usize] = (st.stamp, first, portals.len() as u32);
        first..first + portals.len() as u32
    }
}

/// The weighted straight distance from node `k` at `q` to the goal `b` (none from the goal).
#[inline]
fn heuristic(k: u32, q: DVec2, b: DVec2) -> f64 {
    if k == GOAL {
        0.0
    } else {
        WEIGHT * q.distance(b)
    }
}

/// The corners from the start to the goal, joined from the stretches.
fn unwind(st: &PortalSearch) -> Vec<DVec2> {
    let mut out: Vec<DVec2> = Vec::new();
    let mut push = |q: DVec2| {
        if out.last() != Some(&q) {
            out.push(q);
        }
    };
    let mut n = GOAL;
    while n != START {
        let r = &st.nodes[n as usize];
        match (&r.pts, r.flip) {
            (Some(pts), true) => pts.iter().for_each(|&q| push(q)),
            (Some(pts), false) => pts.iter().rev().for_each(|&q| push(q)),
            (None, _) => [r.at, st.nodes[r.from as usize].at].into_iter().for_each(&mut push),
        }
        n = r.from;
    }
    push(st.nodes[START as usize].at);
    out.reverse();
    out
}
