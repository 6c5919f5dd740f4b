//! The event queue: predicted and external events in time order, with version stamps so that a
//! change of behaviour invalidates every prediction involving the object in O(1).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An object's index in a model (0-based).
pub type ObjectId = u32;

/// The id standing for "no object" in [`Event::a`] / [`Event::b`].
pub const NO_OBJECT: ObjectId = ObjectId::MAX;

/// An event taken from the queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<K> {
    /// When it happens.
    pub time: f64,
    /// What happens (the model's own description).
    pub kind: K,
    /// The first object involved, or [`NO_OBJECT`] for an external event.
    pub a: ObjectId,
    /// The second object involved, or [`NO_OBJECT`].
    pub b: ObjectId,
}

/// A queued event with the versions of its objects when it was predicted.
#[derive(Clone, Copy, Debug)]
struct Entry<K> {
    time: f64,
    seq: u64,
    kind: K,
    a: ObjectId,
    b: ObjectId,
    va: u32,
    vb: u32,
}

impl<K> PartialEq for Entry<K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<K> Eq for Entry<K> {}
impl<K> PartialOrd for Entry<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K> Ord for Entry<K> {
    /// Reversed, so that the max-heap pops the earliest event; ties in insertion order.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.total_cmp(&self.time).then(other.seq.cmp(&self.seq))
    }
}

/// Counts of what the queue has seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Events scheduled (predictions and external events).
    pub scheduled: u64,
    /// Events taken out and handed to the model.
    pub delivered: u64,
    /// Predictions dropped because an object they involve changed behaviour after them.
    pub invalidated: u64,
}

/// A priority queue of events with per-object version stamps (thesis 5.1.6).
///
/// Every prediction records the versions of the objects it involves; [`invalidate`](Self::invalidate)
/// bumps an object's version, which makes all its outstanding predictions stale at once. Stale
/// entries are skipped when they reach the front and swept out when they outnumber the live ones.
/// Events at the same time leave in the order they were scheduled.
///
/// ```
/// use landfall::events::{EventQueue, NO_OBJECT};
/// let mut q = EventQueue::new(2);
/// q.schedule(2.0, "a meets b", 0, 1);
/// q.schedule(1.0, "a lands", 0, NO_OBJECT);
/// q.invalidate(0); // a changed course: both predictions are void
/// q.schedule(3.0, "a lands later", 0, NO_OBJECT);
/// let e = q.pop(f64::INFINITY).unwrap();
/// assert_eq!((e.time, e.kind), (3.0, "a lands later"));
/// assert!(q.pop(f64::INFINITY).is_none());
/// ```
#[derive(Clone, Debug)]
pub struct EventQueue<K> {
    heap: BinaryHeap<Entry<K>>,
    versions: Vec<u32>,
    seq: u64,
    stats: QueueStats,
}

impl<K: Copy> EventQueue<K> {
    /// A queue for objects `0..objects`.
    pub fn new(objects: usize) -> Self {
        Self { heap: BinaryHeap::new(), versions: vec![0; objects], seq: 0, stats: QueueStats::default() }
    }

    /// Number of objects the queue tracks.
    pub fn objects(&self) -> usize {
        self.versions.len()
    }

    /// Adds an object (its id is the previous [`objects`](Self::objects)).
    pub fn add_object(&mut self) -> ObjectId {
        self.versions.push(0);
        (self.versions.len() - 1) as ObjectId
    }

    /// Schedules an event involving `a` and `b` (either may be [`NO_OBJECT`]; with both, the
    /// event is external and never invalidated). Valid until either object is invalidated.
    ///
    /// # Panics
    /// If `time` is NaN or an object id is out of range (a bug in the model, not bad input).
    pub fn schedule(&mut self, time: f64, kind: K, a: ObjectId, b: ObjectId) {
        assert!(!time.is_nan(), "an event at time NaN");
        let version = |o: ObjectId| if o == NO_OBJECT { 0 } else { self.versions[o as usize] };
        let (va, vb) = (version(a), version(b));
        self.heap.push(Entry { time, seq: self.seq, kind, a, b, va, vb });
        self.seq += 1;
        self.stats.scheduled += 1;
        if self.heap.len() > 1024 && self.heap.len() > 8 * self.versions.len() {
            self.sweep();
        }
    }

    /// Marks every outstanding prediction involving `obj` as stale.
    pub fn invalidate(&mut self, obj: ObjectId) {
        let v = &mut self.versions[obj as usize];
        *v = v.wrapping_add(1);
    }

    fn is_live(&self, e: &Entry<K>) -> bool {
        let ok = |o: ObjectId, v: u32| o == NO_OBJECT || self.versions[o as usize] == v;
        ok(e.a, e.va) && ok(e.b, e.vb)
    }

    /// Drops stale entries.
    fn sweep(&mut self) {
        let before = self.heap.len();
        let versions = std::mem::take(&mut self.versions);
        let ok = |o: ObjectId, v: u32| o == NO_OBJECT || versions[o as usize] == v;
        self.heap.retain(|e| ok(e.a, e.va) && ok(e.b, e.vb));
        self.versions = versions;
        self.stats.invalidated += (before - self.heap.len()) as u64;
    }

    /// Time of the earliest live event, if any.
    pub fn peek_time(&mut self) -> Option<f64> {
        while let Some(e) = self.heap.peek() {
            if self.is_live(e) {
                return Some(e.time);
            }
            self.heap.pop();
            self.stats.invalidated += 1;
        }
        None
    }

    /// Takes the earliest live event if it happens at or before `until`.
    pub fn pop(&mut self, until: f64) -> Option<Event<K>> {
        if self.peek_time()? > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.stats.delivered += 1;
        Some(Event { time: e.time, kind: e.kind, a: e.a, b: e.b })
    }

    /// Entries held, stale ones included.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// What the queue has seen so far.
    pub fn stats(&self) -> QueueStats {
        self.stats
    }
}
