//! The snap: an entity taking full detail is put at the nearest state behind it on its route that
//! touches no full-detail entity and no solid.

use super::Crowd;
use crate::behave::motion::Plan;
use crate::behave::scene::Scene;

/// Most places on a route the snap tries.
const MOST_TRIES: f64 = 4096.0;

impl Crowd {
    /// The arc length nearest behind `s` (by steps of half `i`'s radius, the whole route at most)
    /// where `i` can hold from `t` to the next beat clear of every full-detail entity and of the
    /// scene's solids; `None` when the whole route is taken.
    ///
    /// Behind, because that is where avoidance would have left it: a full-detail entity only
    /// ever yields, so it lags its approximate self and never leads it.
    pub(crate) fn snap(&self, i: usize, t: f64, s: f64, scene: &(impl Scene + ?Sized)) -> Option<(f64, Plan)> {
        let e = &self.entities[i];
        let len = e.route.length();
        let step = (e.radius / 2.0).max(len / MOST_TRIES);
        let end = self.params.schedule.next_beat(t);
        let tries = (len / step).ceil() as usize;
        (0..tries.max(1)).map(|k| s - k as f64 * step).find_map(|s1| {
            let p = e.route.point_at(s1);
            let hold = Plan::hold(t, end, p, s1);
            (!scene.blocked(p, e.radius) && self.clear(i, &hold, t, end)).then_some((s1, hold))
        })
    }
}
