//! Keeping a path valid as obstacles come and go, without planning from scratch: only the stretch
//! of the path near the changed obstacle is looked at. If the change blocks it, the stretch between
//! the last clear corners before and after is planned again on the (locally re-cut) tree and
//! spliced in; if it opened a shorter way there (an obstacle the path went around was removed), the
//! shorter stretch replaces the old one. Either way the splice is pulled straight with its
//! neighbours. Only when the stretch cannot be joined again is the whole path planned afresh.

use super::geom::{segment_dist2, Disc};
use super::planner::{PathError, Planner, Route};
use glam::DVec2;

impl Planner<'_> {
    /// `route` (planned on this planner) made valid again after the obstacle `changed` was added
    /// or removed ([`add_obstacle`](Self::add_obstacle), [`remove_obstacle`](Self::remove_obstacle)).
    pub fn repair(&mut self, route: &Route, changed: Disc) -> Result<Route, PathError> {
        let pts = route.xy();
        if pts.len() < 2 {
            let p = *pts.first().unwrap_or(&DVec2::ZERO);
            return self.find_path(p, p);
        }
        let reach = changed.radius + self.agent.radius + 2.0 * self.tree.cell;
        let near: Vec<usize> =
            (0..pts.len() - 1).filter(|&k| segment_dist2(pts[k], pts[k + 1], changed.center) < reach * reach).collect();
        let (Some(&first), Some(&last)) = (near.first(), near.last()) else { return Ok(route.clone()) };
        let (start, goal) = (pts[0], pts[pts.len() - 1]);
        let blocked = near.iter().any(|&k| !self.clear(pts[k], pts[k + 1]));
        // The stretch from corner i to corner j is replaced; its ends must be places to stand.
        let (mut i, mut j) = (first, last + 1);
        while i > 0 && !self.point_clear(pts[i]) {
            i -= 1;
        }
        while j + 1 < pts.len() && !self.point_clear(pts[j]) {
            j += 1;
        }
        self.check_point("start", start)?;
        self.check_point("goal", goal)?;
        let local = match self.corridor(pts[i], pts[j]) {
            Ok(mut l) => {
                self.smooth(&mut l);
                l
            }
            Err(_) if blocked => return self.find_path(start, goal),
            Err(_) => return Ok(route.clone()),
        };
        if !blocked {
            let old: f64 = pts[i..=j].windows(2).map(|w| w[0].distance(w[1])).sum();
            let new: f64 = local.windows(2).map(|w| w[0].distance(w[1])).sum();
            if new >= old {
                return Ok(route.clone());
            }
        }
        let mut out: Vec<DVec2> = pts[..i].to_vec();
        let at = out.len();
        out.extend_from_slice(&local);
        out.extend_from_slice(&pts[j + 1..]);
        // Pull the splice straight together with one corner on each side.
        let (s, e) = (at.saturating_sub(1), (at + local.len()).min(out.len() - 1));
        let mut window = out[s..=e].to_vec();
        self.smooth(&mut window);
        out.splice(s..=e, window);
        Ok(Route { points: out.into_iter().map(|p| self.on_ground(p)).collect(), moved: route.moved })
    }
}
