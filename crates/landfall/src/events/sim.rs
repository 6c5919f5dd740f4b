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
}

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
#[derive(Debug)]
pub struct Simulation<M: Model> {
    model: M,
    queue: EventQueue<M::Kind>,
    now: f64,
    changed: Vec<ObjectId>,
}

impl<M: Model> Simulation<M> {
    /// Starts at time `start`, predicting every object's first events.
    pub fn new(mut model: M, start: f64) -> Self {
        let mut queue = EventQueue::new(model.objects());
        for o in 0..model.objects() as ObjectId {
            model.predict(o, start, &mut queue);
        }
        Self { model, queue, now: start, changed: Vec::new() }
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

    /// Fires the next event if it happens at or before `until`, and returns it.
    pub fn step(&mut self, until: f64) -> Option<Event<M::Kind>> {
        let e = self.queue.pop(until)?;
        self.now = self.now.max(e.time);
        self.changed.clear();
        self.model.fire(&e, &mut self.changed);
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

    /// Fires every event up to time `t` (a frame time), calling `each` on each, and sets the clock
    /// to `t`; returns how many fired. Behaviours are then evaluated at `t` by the model.
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
