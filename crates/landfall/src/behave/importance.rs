//! Importance (the thesis' 5.4, after Funkhouser): how much an entity matters to the viewer this
//! frame, and the representation that follows from it, with hysteresis.

use crate::params::{length, ParamError};

/// How an entity is simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rep {
    /// No events: the state is reconstructed from the seed, the route and the time when needed.
    Dormant,
    /// Closed-form motion along the route, no avoidance, an event only when the activity changes.
    Approximate,
    /// An event per beat, choosing each move so as to touch no other full-detail entity.
    Full,
}

/// The importance function's weights and the thresholds between representations.
///
/// The importance of an entity of size `size` (its diameter) at distance `d` from the viewer is
///
/// ```text
/// I = v · size / max(d, size) · (1 + motion_weight · m) · attention
/// m = min(ω / blur_rate, blur_rate / ω)      (0 when ω = 0)
/// ```
///
/// where `v` is 1 when the caller's visibility test sees it and `hidden_weight` otherwise, `ω` is
/// its angular speed across the view (its velocity relative to the viewer's, across the line of
/// sight, over d), and `attention` its activity's boost (a twirl's). `m` peaks at ω = `blur_rate`:
/// an entity still against the background draws no extra eye, one moving slowly across it draws the
/// most, and one crossing faster than the eye follows blurs and matters less again.
///
/// An entity is **in view** when it is visible and `size / d ≥ min_projected` (larger than what the
/// viewer can resolve). In view it is always [`Rep::Full`]; otherwise it becomes Full at
/// `I ≥ full_enter` and stays Full while `I ≥ full_leave`, becomes Approximate at
/// `I ≥ approx_enter` and stays above Dormant while `I ≥ approx_leave`. The gaps between enter and
/// leave are the hysteresis: an entity hovering at a threshold does not flip every frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ImportanceParams {
    /// Smallest projected size (size over distance, radians) the viewer resolves.
    pub min_projected: f64,
    /// Importance at which an entity becomes Full.
    pub full_enter: f64,
    /// Importance under which a Full entity (out of view) leaves Full.
    pub full_leave: f64,
    /// Importance at which a Dormant entity becomes Approximate.
    pub approx_enter: f64,
    /// Importance under which an entity becomes Dormant.
    pub approx_leave: f64,
    /// Weight `v` of an entity the visibility test does not see (it may come into view soon).
    pub hidden_weight: f64,
    /// Weight of speed contrast.
    pub motion_weight: f64,
    /// Angular speed (rad/s) at which motion draws the eye most.
    pub blur_rate: f64,
    /// Attention boost of a twirling entity.
    pub twirl_attention: f64,
}

impl Default for ImportanceParams {
    /// Resolves 0.01 rad (a 0.9 m couple out to 90 m); Full from 0.03, Approximate from 0.004.
    fn default() -> Self {
        Self {
            min_projected: 0.01,
            full_enter: 0.03,
            full_leave: 0.02,
            approx_enter: 0.004,
            approx_leave: 0.003,
            hidden_weight: 0.25,
            motion_weight: 0.5,
            blur_rate: 0.5,
            twirl_attention: 3.0,
        }
    }
}

crate::with_setters!(ImportanceParams {
    min_projected: f64 => with_min_projected,
    full_enter: f64 => with_full_enter,
    full_leave: f64 => with_full_leave,
    approx_enter: f64 => with_approx_enter,
    approx_leave: f64 => with_approx_leave,
    hidden_weight: f64 => with_hidden_weight,
    motion_weight: f64 => with_motion_weight,
    blur_rate: f64 => with_blur_rate,
    twirl_attention: f64 => with_twirl_attention,
});

impl ImportanceParams {
    /// Checks every field: all finite and > 0 (weights ≥ 0), and
    /// `approx_leave < approx_enter ≤ full_leave < full_enter`.
    pub fn validate(&self) -> Result<(), ParamError> {
        length("min_projected", self.min_projected, true)?;
        length("full_enter", self.full_enter, true)?;
        length("full_leave", self.full_leave, true)?;
        length("approx_enter", self.approx_enter, true)?;
        length("approx_leave", self.approx_leave, true)?;
        length("hidden_weight", self.hidden_weight, false)?;
        length("motion_weight", self.motion_weight, false)?;
        length("blur_rate", self.blur_rate, true)?;
        length("twirl_attention", self.twirl_attention, true)?;
        let order = |field, lo: f64, hi: f64, what: &str| {
            if lo < hi {
                Ok(())
            } else {
                Err(ParamError::new(field, format!("{lo} must be below {what} ({hi})")))
            }
        };
        order("approx_leave", self.approx_leave, self.approx_enter, "approx_enter")?;
        order("full_leave", self.full_leave, self.full_enter, "full_enter")?;
        if self.approx_enter > self.full_leave {
            return Err(ParamError::new(
                "approx_enter",
                format!("{} must be at most full_leave ({})", self.approx_enter, self.full_leave),
            ));
        }
        Ok(())
    }

    /// The importance `I` of the formula above.
    pub fn importance(&self, size: f64, distance: f64, visible: bool, angular_speed: f64, attention: f64) -> f64 {
        let v = if visible { 1.0 } else { self.hidden_weight };
        let m = if angular_speed > 0.0 {
            (angular_speed / self.blur_rate).min(self.blur_rate / angular_speed)
        } else {
            0.0
        };
        v * size / distance.max(size) * (1.0 + self.motion_weight * m) * attention
    }

    /// Whether an entity of `size` at `distance` that the visibility test sees is in view.
    pub fn in_view(&self, size: f64, distance: f64, visible: bool) -> bool {
        visible && size >= self.min_projected * distance
    }

    /// The representation for importance `i` after `prev` (hysteresis), Full whenever `in_view`.
    pub fn choose(&self, prev: Rep, i: f64, in_view: bool) -> Rep {
        if in_view || i >= self.full_enter || (prev == Rep::Full && i >= self.full_leave) {
            Rep::Full
        } else if i >= self.approx_enter || (prev != Rep::Dormant && i >= self.approx_leave) {
            Rep::Approximate
        } else {
            Rep::Dormant
        }
    }

    /// The largest importance an entity of `size` at `distance` can have (seen, moving at the
    /// speed that draws the eye most, twirling).
    fn most(&self, size: f64, distance: f64) -> f64 {
        size / distance.max(size) * (1.0 + self.motion_weight) * self.twirl_attention.max(1.0)
    }

    /// The distance from the viewer beyond which an entity of size at most `size` is never in view
    /// and never above Dormant.
    pub fn reach(&self, size: f64) -> f64 {
        // 1 % beyond the exact bound, so that rounding never leaves an entity there above Dormant.
        1.01 * size * (self.most(1.0, 1.0) / self.approx_leave).max(1.0 / self.min_projected)
    }

    /// The distance beyond which a dormant entity of size at most `size` stays dormant and out of
    /// view: only entities nearer than this, and those not dormant, are looked at each frame.
    pub fn wake(&self, size: f64) -> f64 {
        1.01 * size * (self.most(1.0, 1.0) / self.approx_enter).max(1.0 / self.min_projected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_entity_at_a_threshold_does_not_flip_every_frame() {
        let p = ImportanceParams::default();
        // Importance jittering ±10 % around each threshold, frame after frame.
        for threshold in [p.full_enter, p.approx_enter] {
            let mut rep = Rep::Dormant;
            let mut flips = 0;
            for k in 0..1000 {
                let i = threshold * if k % 2 == 0 { 1.1 } else { 0.9 };
                let next = p.choose(rep, i, false);
                flips += usize::from(next != rep);
                rep = next;
            }
            // Once up, and it stays (without the gap between enter and leave: 1000 flips).
            assert_eq!(flips, 1, "at {threshold}");
        }
    }

    #[test]
    fn in_view_is_always_full() {
        let p = ImportanceParams::default();
        assert_eq!(p.choose(Rep::Dormant, 0.0, true), Rep::Full);
        assert!(p.in_view(1.0, 50.0, true) && !p.in_view(1.0, 150.0, true) && !p.in_view(1.0, 1.0, false));
    }

    #[test]
    fn bad_thresholds_are_refused() {
        let p = ImportanceParams::default();
        assert_eq!(p.with_full_leave(0.05).validate().unwrap_err().field, "full_leave");
        assert_eq!(p.with_approx_enter(0.025).validate().unwrap_err().field, "approx_enter");
        assert_eq!(p.with_min_projected(f64::NAN).validate().unwrap_err().field, "min_projected");
    }

    proptest! {
        #[test]
        fn beyond_reach_and_wake_an_entity_is_dormant_and_unseen(
            size in 0.01f64..10.0, extra in 1.0f64..1e6, visible: bool, w in 0.0f64..100.0, twirl: bool,
            prev in prop_oneof![Just(Rep::Dormant), Just(Rep::Approximate), Just(Rep::Full)],
        ) {
            let p = ImportanceParams::default();
            let att = if twirl { p.twirl_attention } else { 1.0 };
            let d = p.reach(size) * extra;
            let i = p.importance(size, d, visible, w, att);
            prop_assert!(!p.in_view(size, d, visible));
            prop_assert_eq!(p.choose(prev, i, false), Rep::Dormant);
            // Beyond the wake distance a dormant entity stays dormant.
            let d = p.wake(size) * extra;
            prop_assert!(!p.in_view(size, d, visible));
            prop_assert_eq!(p.choose(Rep::Dormant, p.importance(size, d, visible, w, att), false), Rep::Dormant);
        }
    }
}
