//! The parent state machine of every entity: a repeating cycle of beats — travel along the route,
//! then a twirl or a rest — drawn from the entity's seed, so that its state at any time has a closed
//! form (what a dormant entity needs).

use crate::params::{count, fraction, length, ParamError};
use crate::rng::mix;

/// What an entity is doing (the top level of its hierarchical state machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Moving along its route.
    Travel,
    /// A flourish in place (the dancer's twirl): holds its position and draws attention.
    Twirl,
    /// Standing still.
    Rest,
}

/// The cycle every entity repeats, in beats: `travel_beats` of travel, then the rest of the cycle
/// a twirl (with chance `twirl_chance`, drawn per cycle from the seed) or a rest. Each entity starts
/// its cycle at a beat drawn from its seed, so the crowd does not move in lock step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Schedule {
    /// Length of a beat, s: full-detail entities decide a move once per beat.
    pub beat: f64,
    /// Beats per cycle.
    pub cycle_beats: u32,
    /// Beats of travel at the start of each cycle (at most `cycle_beats`).
    pub travel_beats: u32,
    /// Chance that the end of a cycle is a twirl rather than a rest.
    pub twirl_chance: f64,
}

impl Default for Schedule {
    /// A slow foxtrot: half-second beats, 16-beat cycles of 12 beats of travel, a twirl one cycle
    /// in four.
    fn default() -> Self {
        Self { beat: 0.5, cycle_beats: 16, travel_beats: 12, twirl_chance: 0.25 }
    }
}

crate::with_setters!(Schedule {
    beat: f64 => with_beat,
    cycle_beats: u32 => with_cycle_beats,
    travel_beats: u32 => with_travel_beats,
    twirl_chance: f64 => with_twirl_chance,
});

impl Schedule {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        length("beat", self.beat, true)?;
        count("cycle_beats", self.cycle_beats as usize, 1..=1 << 20)?;
        count("travel_beats", self.travel_beats as usize, 0..=self.cycle_beats as usize)?;
        fraction("twirl_chance", self.twirl_chance)
    }

    /// The beat at which `seed`'s cycle starts (in `0..cycle_beats`).
    fn phase(&self, seed: u64) -> f64 {
        (mix(seed ^ 0x7363_6865_6475_6c65) % u64::from(self.cycle_beats)) as f64
    }

    /// Time in beats on `seed`'s own clock (0 at the start of a cycle).
    fn beats(&self, seed: u64, t: f64) -> f64 {
        t / self.beat + self.phase(seed)
    }

    /// What `seed` does at time `t` (during the beat that holds `t`).
    pub fn activity(&self, seed: u64, t: f64) -> Activity {
        let b = self.beats(seed, t).floor();
        let cycle = (b / f64::from(self.cycle_beats)).floor();
        let within = b - cycle * f64::from(self.cycle_beats);
        if within < f64::from(self.travel_beats) {
            return Activity::Travel;
        }
        let draw = mix(seed ^ mix(cycle as i64 as u64)) >> 11;
        if (draw as f64) < self.twirl_chance * (1u64 << 53) as f64 {
            Activity::Twirl
        } else {
            Activity::Rest
        }
    }

    /// Seconds of travel on `seed`'s clock from its time 0 to `t` (closed form).
    fn travelled_since_zero(&self, seed: u64, t: f64) -> f64 {
        let (c, tr) = (f64::from(self.cycle_beats), f64::from(self.travel_beats));
        let b = self.beats(seed, t);
        let cycles = (b / c).floor();
        (cycles * tr + (b - cycles * c).min(tr)) * self.beat
    }

    /// Seconds spent travelling between times `from` and `to` (closed form; negative if `to < from`).
    pub fn travel_time(&self, seed: u64, from: f64, to: f64) -> f64 {
        self.travelled_since_zero(seed, to) - self.travelled_since_zero(seed, from)
    }

    /// The first beat strictly after `t`.
    pub fn next_beat(&self, t: f64) -> f64 {
        let next = ((t / self.beat).floor() + 1.0) * self.beat;
        if next > t {
            next
        } else {
            next + self.beat
        }
    }

    /// The first change of activity strictly after `t` (travel ending or starting).
    pub fn next_switch(&self, seed: u64, t: f64) -> f64 {
        let (c, tr) = (f64::from(self.cycle_beats), f64::from(self.travel_beats));
        let b = self.beats(seed, t);
        let start = (b / c).floor() * c;
        let within = b - start;
        let mut at = if within < tr { start + tr } else { start + c };
        // No travel at all, or all travel: the cycle boundary is the only mark.
        if tr == 0.0 || tr == c {
            at = start + c;
        }
        let time = (at - self.phase(seed)) * self.beat;
        if time > t {
            time
        } else {
            self.next_beat(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Travel time by summing beats one by one (the reference).
    fn travel_by_beats(s: &Schedule, seed: u64, to_beat: u64) -> f64 {
        (0..to_beat).filter(|&k| s.activity(seed, (k as f64 + 0.5) * s.beat) == Activity::Travel).count() as f64
            * s.beat
    }

    proptest! {
        #[test]
        fn closed_form_travel_matches_counting_beats(seed in any::<u64>(), n in 0u64..400) {
            let s = Schedule::default();
            let t = n as f64 * s.beat;
            prop_assert!((s.travel_time(seed, 0.0, t) - travel_by_beats(&s, seed, n)).abs() < 1e-9);
        }

        #[test]
        fn switches_are_where_the_activity_changes(seed in any::<u64>(), t in 0.0f64..500.0) {
            let s = Schedule::default();
            let at = s.next_switch(seed, t);
            prop_assert!(at > t);
            let before = s.activity(seed, at - s.beat / 2.0);
            let after = s.activity(seed, at + s.beat / 2.0);
            prop_assert!(before != after || (before != Activity::Travel && after != Activity::Travel));
            // Nothing changes between t and the switch.
            let mut u = t;
            while u + s.beat < at {
                u += s.beat;
                prop_assert_eq!(s.activity(seed, u) == Activity::Travel, s.activity(seed, t) == Activity::Travel);
            }
        }
    }

    #[test]
    fn bad_schedules_are_refused() {
        assert_eq!(Schedule::default().with_beat(0.0).validate().unwrap_err().field, "beat");
        assert_eq!(Schedule::default().with_travel_beats(17).validate().unwrap_err().field, "travel_beats");
        assert_eq!(Schedule::default().with_twirl_chance(2.0).validate().unwrap_err().field, "twirl_chance");
    }
}
