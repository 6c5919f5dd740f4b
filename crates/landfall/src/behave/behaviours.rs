//! The frame driver: run the events up to the frame, pick each nearby entity's representation by
//! importance, and snap those that take full detail.

use super::crowd::{Crowd, CrowdParams, Entity, State};
use super::importance::Rep;
use super::scene::{Scene, Viewer};
use super::BehaveError;
use crate::events::{ObjectId, Simulation};
use glam::DVec3;

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Entities at full detail.
    pub full: usize,
    /// Entities approximate.
    pub approximate: usize,
    /// Entities dormant.
    pub dormant: usize,
    /// Events fired since the last frame.
    pub events: u64,
    /// Entities that came into view and were moved along their route to a clear place.
    pub snaps: usize,
    /// Entities in view but not shown: no clear place on their route this frame (they try again).
    pub withheld: usize,
    /// Entities looked at this frame (those whose route comes near the viewer, and the active ones).
    pub considered: usize,
}

/// One entity's choice this frame.
#[derive(Clone, Copy, Debug)]
struct Choice {
    id: u32,
    rep: Rep,
    importance: f64,
    in_view: bool,
}

/// Entities with levels of detail that follow the viewer (the thesis' 5.2–5.4).
///
/// ```
/// use landfall::behave::{Behaviours, CrowdParams, Entity, FieldOfView, Rep, Route, Viewer};
/// use landfall::glam::DVec2;
///
/// let entities: Vec<Entity> = (0..20)
///     .map(|k| Entity {
///         seed: k,
///         route: Route::box_step(DVec2::new(k as f64 * 30.0, 0.0), 0.6).unwrap(),
///         radius: 0.4,
///         speed: 0.5,
///     })
///     .collect();
/// let mut crowd = Behaviours::new(entities, CrowdParams::default()).unwrap();
/// let viewer = Viewer::default();
/// let view = FieldOfView::new(DVec2::X, 0.6);
/// for f in 0..=60 {
///     let stats = crowd.frame(f as f64 / 30.0, &viewer, &view).unwrap();
///     assert_eq!(stats.full + stats.approximate + stats.dormant, 20);
/// }
/// assert_eq!(crowd.rep(0), Rep::Full); // under the viewer's feet
/// assert_eq!(crowd.rep(19), Rep::Dormant); // 570 m away
/// ```
#[derive(Debug)]
pub struct Behaviours {
    sim: Simulation<Crowd>,
    choices: Vec<Choice>,
    /// Per entity, the last frame that looked at it.
    seen: Vec<u32>,
    frame: u32,
    promote: Vec<Choice>,
    changed: Vec<ObjectId>,
}

impl Behaviours {
    /// Entities on their routes, all dormant until the first [`frame`](Self::frame).
    pub fn new(entities: Vec<Entity>, params: CrowdParams) -> Result<Self, BehaveError> {
        let n = entities.len();
        // No cap on events: a frame's work is bounded by its time step (a beat per full-detail
        // entity, a switch per approximate one), so a long run must not stop firing.
        let sim = Simulation::new(Crowd::new(entities, params)?, 0.0).with_max_events(u64::MAX);
        Ok(Self { sim, choices: Vec::new(), seen: vec![0; n], frame: 0, promote: Vec::new(), changed: Vec::new() })
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.sim.model().entities.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entity `i`.
    pub fn entity(&self, i: usize) -> &Entity {
        &self.sim.model().entities[i]
    }

    /// The parameters.
    pub fn params(&self) -> &CrowdParams {
        &self.sim.model().params
    }

    /// Time of the last frame.
    pub fn now(&self) -> f64 {
        self.sim.now()
    }

    /// Position of entity `i` at the last frame.
    pub fn position(&self, i: usize) -> glam::DVec2 {
        self.sim.model().position(i, self.sim.now())
    }

    /// Representation of entity `i`.
    pub fn rep(&self, i: usize) -> Rep {
        self.sim.model().rep(i)
    }

    /// Whether entity `i` is shown: false while it is in view with no clear place on its route.
    pub fn shown(&self, i: usize) -> bool {
        !self.sim.model().withheld[i]
    }

    /// Where entity `i` is at `t` if it stays dormant: from its seed, route and `t` alone.
    pub fn dormant_position(&self, i: usize, t: f64) -> glam::DVec2 {
        let c = self.sim.model();
        c.entities[i].route.point_at(c.dormant_s(i, t))
    }

    /// Events fired since the start.
    pub fn events(&self) -> u64 {
        self.sim.fired()
    }

    /// Advances to time `t` (not before the last frame) and picks every representation for the
    /// viewer: fires the events up to `t`, then looks at the entities whose routes come within
    /// [`ImportanceParams::wake`](super::ImportanceParams::wake) of the viewer and at those not
    /// dormant, demotes, promotes and snaps. Entities in view end the frame at full detail (or
    /// withheld), clear of each other.
    pub fn frame(&mut self, t: f64, viewer: &Viewer, scene: &(impl Scene + ?Sized)) -> Result<FrameStats, BehaveError> {
        if !(t.is_finite() && t >= self.sim.now()) {
            return Err(BehaveError::Time { t, last: self.sim.now() });
        }
        if !viewer.position.is_finite() || !viewer.velocity.is_finite() {
            return Err(BehaveError::Viewer(format!("{:?} moving at {:?}", viewer.position, viewer.velocity)));
        }
        let fired = self.sim.fired();
        self.sim.advance_to(t, |_, _| {});
        let mut stats = FrameStats { events: self.sim.fired() - fired, ..FrameStats::default() };
        self.frame = self.frame.wrapping_add(1).max(1);
        self.choose(t, viewer, scene);
        stats.considered = self.choices.len();
        self.apply(t, viewer, scene, &mut stats)?;
        let crowd = self.sim.model();
        for &i in &crowd.active {
            match crowd.rep(i as usize) {
                Rep::Full => stats.full += 1,
                Rep::Approximate => stats.approximate += 1,
                Rep::Dormant => {}
            }
            stats.withheld += usize::from(crowd.withheld[i as usize]);
        }
        stats.dormant = self.len() - stats.full - stats.approximate;
        Ok(stats)
    }

    /// Fills `choices` with the representation each entity near the viewer or active should have.
    fn choose(&mut self, t: f64, viewer: &Viewer, scene: &(impl Scene + ?Sized)) {
        let crowd = self.sim.model();
        let p = &crowd.params.importance;
        let (frame, seen, choices) = (self.frame, &mut self.seen, &mut self.choices);
        choices.clear();
        let mut look = |i: usize| {
            if seen[i] == frame {
                return;
            }
            seen[i] = frame;
            let e = &crowd.entities[i];
            let (at, velocity, activity) = crowd.motion(i, t);
            let to = at - viewer.position;
            let d = to.length();
            let visible = scene.visible(viewer.position, at, e.radius);
            let in_view = p.in_view(e.size(), d, visible);
            let rel = velocity - viewer.velocity;
            let across = if d > 0.0 { rel.perp_dot(to / d).abs() / d } else { 0.0 };
            let attention = if activity == super::Activity::Twirl { p.twirl_attention } else { 1.0 };
            let importance = p.importance(e.size(), d, visible, across, attention);
            let rep = if crowd.params.all_full { Rep::Full } else { p.choose(crowd.rep(i), importance, in_view) };
            choices.push(Choice { id: i as u32, rep, importance, in_view });
        };
        if crowd.params.all_full {
            (0..crowd.entities.len()).for_each(&mut look);
            return;
        }
        // Dormant entities wake only near the viewer; the others are looked at wherever they are.
        let wake = p.wake(crowd.largest);
        let at = DVec3::new(viewer.position.x, viewer.position.y, 0.0);
        crowd.routes.within_radius(at, wake, |i| look(i as usize));
        for &i in &crowd.active {
            look(i as usize);
        }
    }

    /// Carries out `choices`: demotions first (to Dormant only where the reconstruction is out
    /// of view), then promotions to full
    /// detail, the ones in view and the most important first, each snapped clear of those placed
    /// before it.
    fn apply(
        &mut self,
        t: f64,
        viewer: &Viewer,
        scene: &(impl Scene + ?Sized),
        stats: &mut FrameStats,
    ) -> Result<(), BehaveError> {
        let crowd = self.sim.model_mut();
        let p = crowd.params.importance;
        self.changed.clear();
        self.promote.clear();
        for c in &self.choices {
            let i = c.id as usize;
            let now = crowd.rep(i);
            if c.rep == Rep::Full {
                if now != Rep::Full {
                    self.promote.push(*c);
                }
                continue;
            }
            crowd.withheld[i] = false;
            let seen = |crowd: &Crowd, at: glam::DVec2| {
                let e = &crowd.entities[i];
                p.in_view(e.size(), at.distance(viewer.position), scene.visible(viewer.position, at, e.radius))
            };
            // A dormant entity is reconstructed elsewhere on its route: it goes dormant only where
            // that is out of view (else it would appear there), and stays approximate meanwhile.
            let rep = match c.rep {
                Rep::Dormant if seen(crowd, crowd.entities[i].route.point_at(crowd.dormant_s(i, t))) => {
                    Rep::Approximate
                }
                rep => rep,
            };
            if rep == now {
                continue;
            }
            let state = match rep {
                Rep::Approximate => State::Approximate { t0: t, s0: crowd.s_at(i, t) },
                _ => State::Dormant,
            };
            crowd.set(i, state)?;
            self.changed.push(c.id);
            // Leaving full detail keeps the position (plans run along the route); should rounding
            // put it back in view, it takes full detail again where it stands.
            if seen(crowd, crowd.position(i, t)) {
                self.promote.push(Choice { in_view: true, ..*c });
            }
        }
        self.promote.sort_by(|a, b| {
            b.in_view.cmp(&a.in_view).then(b.importance.total_cmp(&a.importance)).then(a.id.cmp(&b.id))
        });
        for c in &self.promote {
            let i = c.id as usize;
            let s = crowd.s_at(i, t);
            match crowd.snap(i, t, s, scene) {
                Some((s1, hold)) => {
                    crowd.set(i, State::Full(hold))?;
                    crowd.withheld[i] = false;
                    stats.snaps += usize::from(c.in_view && s1 != s);
                }
                None => {
                    if crowd.rep(i) == Rep::Dormant {
                        crowd.set(i, State::Approximate { t0: t, s0: s })?;
                    }
                    crowd.withheld[i] = c.in_view;
                }
            }
            self.changed.push(c.id);
        }
        // Every entity active after this frame was looked at in it.
        let (state, withheld) = (&crowd.state, &crowd.withheld);
        crowd.active.clear();
        crowd.active.extend(
            self.choices
                .iter()
                .map(|c| c.id)
                .filter(|&i| !matches!(state[i as usize], State::Dormant) || withheld[i as usize]),
        );
        self.changed.sort_unstable();
        self.changed.dedup();
        for &i in &self.changed {
            self.sim.changed(i);
        }
        Ok(())
    }
}
