//! The simulation driver: predict, pop, fire, re-predict the objects whose behaviour changed.

use super::queue::{Event, EventQueue, ObjectId, QueueStats};

/// A set of behaviours driven by events (thesis 5.1).
///
/// Each object follows a closed-form behaviour between events; the model predicts the internal
/// events of an object (when it will next meet the ground, a wall, a neighbour) and carries out any
/// event when its time comes, reporting the objects whose behaviour changed so that only their
/// predictions are redone.
pub trait Model {
    /// The model's description of an event.
    type Kind: Copy;

    /// Number of objects (ids `0..objects()`).
    fn objects(&self) -> usize;

    /// Schedules on `queue` the next internal events that involve `obj`, none earlier than `now`.
    /// Predicting only against neighbours keeps the events per object few (5.1.5).
    fn predict(&mut self, obj: ObjectId, now: f64, queue: &mut EventQueue<Self::Kind>);

    /// Carries out `event` at `event.time` and pushes every object whose behaviour it changed onto
    /// `changed` (their outstanding predictions are dropped and redone).
    fn fire(&mut self, event: &Event<Self::Kind>, changed: &mut Vec<ObjectId>);

    /// Called after `event` was fired and the changed objects predicted again: for predictions of
    /// *other* objects that the change makes necessary (a ball that came to rest becomes an
    /// obstacle for every flying one). Nothing by default.
    fn after_fire(&mut self, _event: &Event<Self::Kind>, _queue: &mut EventQueue<Self::Kind>) {}

    /// The shortest interval of simulated time between two events of one object that is not part
    /// of a burst (5.1.7). Events at the same instant (within rounding of the time) always are.
    /// Zero by default: only simultaneous events count.
    fn min_interval(&self) -> f64 {
        0.0
    }

    /// Switches `obj` to resting contact after a burst of [`ZENO_BURST`] events each within
    /// [`min_interval`](Self::min_interval) of the one before (Zeno's arrow, 5.1.7: a ball
    /// wedged between two walls, a bounce that never ends); `event` is the last of them, just
    /// fired. The model must change `obj`'s behaviour so that the burst ends (it comes to rest, or
    /// moves as one with what it touches), and push every object whose behaviour it changed onto
    /// `changed`. By default nothing changes: such a run ends only at its
    /// [`Simulation::max_events`].
    fn settle(&mut self, _obj: ObjectId, _event: &Event<Self::Kind>, _changed: &mut Vec<ObjectId>) {}
}

/// Events in a row, each within [`Model::min_interval`] of the one before, after which an object
/// is put in resting contact ([`Model::settle`]).
pub const ZENO_BURST: u32 = 8;

/// Default bound on the events of one run ([`Simulation::max_events`]).
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000;

/// A discrete event simulation of a [`Model`].
///
/// ```
/// use landfall::events::{LineBall, LineBalls, Simulation};
/// // Two balls closing at 2 m/s with a 1 m gap between them, walls far away.
/// let balls = [LineBall { x: 0.0, v: 1.0, r: 0.5, m: 1.0 }, LineBall { x: 2.0, v: -1.0, r: 0.5, m: 1.0 }];
/// let mut sim = Simulation::new(LineBalls::new(&balls, -100.0, 100.0).unwrap(), 0.0);
/// let e = sim.step(10.0).unwrap();
/// assert_eq!(e.time, 0.5);
/// assert_eq!(sim.model().velocity(0), -1.0);
/// ```
///
/// A run is bounded (5.1.7): an object whose events come in a burst (see [`ZENO_BURST`]) is put
/// in resting contact by its model, and after [`max_events`](Self::max_events) events the
/// simulation fires no more ([`is_exhausted`](Self::is_exhausted)), whatever time was asked for.
#[derive(Debug)]
pub struct Simulation<M: Model> {
    model: M,
    queue: EventQueue<M::Kind>,
    now: f64,
    changed: Vec<ObjectId>,
    /// Per object: the time of its last event and how many in a row came in a burst.
    last: Vec<(f64, u32)>,
    fired: u64,
    settled: u64,
    max_events: u64,
}

impl<M: Model> Simulation<M> {
    /// Starts at time `start`, predicting every object's first events.
    pub fn new(mut model: M, start: f64) -> Self {
        let mut queue = EventQueue::new(model.objects());
        for o in 0..model.objects() as ObjectId {
            model.predict(o, start, &mut queue);
        }
        let last = vec![(f64::NEG_INFINITY, 0); model.objects()];
        Self {
            model,
            queue,
            now: start,
            changed: Vec::new(),
            last,
            fired: 0,
            settled: 0,
            max_events: DEFAULT_MAX_EVENTS,
        }
    }

    /// Sets the most events this simulation fires (default [`DEFAULT_MAX_EVENTS`]).
    pub fn with_max_events(mut self, max_events: u64) -> Self {
        self.max_events = max_events;
        self
    }

    /// The most events this simulation fires.
    pub fn max_events(&self) -> u64 {
        self.max_events
    }

    /// Events fired so far.
    pub fn fired(&self) -> u64 {
        self.fired
    }

    /// Objects put in resting contact after a burst of events ([`Model::settle`]).
    pub fn settled(&self) -> u64 {
        self.settled
    }

    /// Whether [`max_events`](Self::max_events) were fired: the simulation fires no more.
    pub fn is_exhausted(&self) -> bool {
        self.fired >= self.max_events
    }

    /// Time of the next event, if any is pending (and the simulation is not exhausted).
    pub fn next_time(&mut self) -> Option<f64> {
        if self.is_exhausted() {
            return None;
        }
        self.queue.peek_time()
    }

    /// The model, in its state at the last event (evaluate behaviours at [`now`](Self::now) or later).
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, to change it between events: call [`changed`](Self::changed) for every object
    /// whose behaviour you change.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// Drops `obj`'s predictions and predicts it again from now (after an outside change).
    pub fn changed(&mut self, obj: ObjectId) {
        self.queue.invalidate(obj);
        self.model.predict(obj, self.now, &mut self.queue);
    }

    /// Schedules an external event (it involves no object and is never invalidated).
    pub fn schedule_external(&mut self, time: f64, kind: M::Kind) {
        use super::queue::NO_OBJECT;
        self.queue.schedule(time, kind, NO_OBJECT, NO_OBJECT);
    }

    /// Simulation time: that of the last event fired, or of the last [`advance_to`](Self::advance_to).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Fires the next event if it happens at or before `until` and the simulation is not
    /// [exhausted](Self::is_exhausted), and returns it.
    pub fn step(&mut self, until: f64) -> Option<Event<M::Kind>> {
        if self.is_exhausted() {
            return None;
        }
        let e = self.queue.pop(until)?;
        self.fired += 1;
        self.now = self.now.max(e.time);
        self.changed.clear();
        self.model.fire(&e, &mut self.changed);
        self.zeno(&e);
        let mut changed = std::mem::take(&mut self.changed);
        changed.sort_unstable();
        changed.dedup();
        for &o in &changed {
            self.queue.invalidate(o);
        }
        for &o in &changed {
            self.model.predict(o, self.now, &mut self.queue);
        }
        self.model.after_fire(&e, &mut self.queue);
        self.changed = changed;
        Some(e)
    }

    /// The minimum-interval rule: counts the bursts of the event's objects and settles an object
    /// whose burst reaches [`ZENO_BURST`].
    fn zeno(&mut self, e: &Event<M::Kind>) {
        let min = self.model.min_interval();
        for o in [e.a, e.b] {
            if o == super::queue::NO_OBJECT {
                continue;
            }
            let k = o as usize;
            if k >= self.last.len() {
                self.last.resize(k + 1, (f64::NEG_INFINITY, 0));
            }
            let (t0, run) = self.last[k];
            let close = e.time - t0 <= min.max(4.0 * f64::EPSILON * e.time.abs());
            let run = if close { run + 1 } else { 0 };
            if run >= ZENO_BURST {
                self.model.settle(o, e, &mut self.changed);
                self.settled += 1;
                self.changed.push(o);
                self.last[k] = (e.time, 0);
            } else {
                self.last[k] = (e.time, run);
            }
        }
    }

    /// Fires every event up to time `t` (a frame time), calling `each` on each, and sets the clock
    /// to `t`; returns how many fired. Behaviours are then evaluated at `t` by the model. An
    /// [exhausted](Self::is_exhausted) simulation stops short (its clock still goes to `t`).
    pub fn advance_to(&mut self, t: f64, mut each: impl FnMut(&Event<M::Kind>, &M)) -> u64 {
        let mut n = 0;
        while let Some(e) = self.step(t) {
            each(&e, &self.model);
            n += 1;
        }
        self.now = self.now.max(t);
        n
    }

    /// The queue's counts (scheduled, delivered, invalidated).
    pub fn stats(&self) -> QueueStats {
        self.queue.stats()
    }
}
