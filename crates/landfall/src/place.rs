//! Placing things on the ground (terrain following): QOTA's three-point plane or four wheel
//! contacts give a body's position and orientation from its position, heading and footprint; pitch
//! from a point ahead (the terrain-following note); a maximum walkable slope, holes and the edge of the
//! world turn a placement into a refusal with the reason. Works on any [`Terrain`], under its gravity.
//!
//! Conventions: `heading` is the angle (radians) about "up" from the frame's local +X toward its
//! local +Y (for Z-up terrains: from +X toward +Y, counter-clockwise seen from above). Pitch is
//! positive nose up, roll positive when the right side is lower. Ground is searched below each
//! contact from `probe_up` above it, so a body under a bridge stays under it.
//!
//! # How it works
//!
//! `place(terrain, position, heading, params)` puts a body on the ground under any `Terrain` and its
//! gravity: QOTA's three points (front centre, rear left, rear right) or four wheels give the ground
//! plane (three points exactly; four by the plane through their mean normal to the cross product of the
//! diagonals); the body's reference point is on that plane on the vertical through the requested
//! position; pitch (nose up) and roll (right side down) come from the plane's slope along the heading
//! and across it (`Placement::pitch()`, `roll()`, `slope()` compute the angles on demand from the
//! tangents and cosine the placement keeps: an arc cosine and two arc tangents cost ~12 % of a
//! placement that most callers, who want the position and rotation, do not use); `pitch_ahead` is the terrain-following note's pitch from the ground here and at a
//! point ahead. Each contact looks for the nearest ground below `contact + up · probe_up`, so a car
//! under a bridge stays under it. Refusals name the reason: `NoGround` (a hole under contact k),
//! `Blocked` (the ground under contact k rises above its probe, `probe_up` over the body: a wall or a
//! rise too steep to stand across — there is ground, so it is not a hole), `EdgeOfWorld` (contact k
//! past the terrain's bounds), `TooSteep` (beyond `max_slope`), `BadInput`. The slope limit is decided
//! from bounds on the cosine (`1 − m²/2 ≤ cos m ≤ 1 − m²/2 + m⁴/24`), taking the cosine itself only
//! for ground within rounding of them. `place_batch` runs a crowd in parallel. `place` is generic over
//! the terrain (`T: Terrain + ?Sized`): a caller who knows the terrain's type gets direct calls, and
//! `&dyn Terrain` works as before. Its second half (`plane`, then `settle`) is instantiated once per
//! contact count, so its loops and sums have a fixed length; `place_slope` (crate-internal) stops
//! after `plane`, for callers that only ask whether and on how steep a plane a body stands (the
//! world's objects). The heightfield's vertical lookup picks the cell half and
//! its plane without a branch (`cell::half_and_plane`): each plane coefficient by index into an array
//! of its four candidates (one array per coefficient, so that every load is forwarded from a single
//! store), the side of the diagonal by an exact blend with 0 or 1, because the compiler turns every
//! select of a float it can see (`if`, a two-element array, bit masks, `std::hint::select_unpredictable`)
//! back into a branch on this target.

use crate::params::{length, right_angle, ParamError};
use crate::terrain::Terrain;
use glam::{DMat3, DQuat, DVec3};
use rayon::prelude::*;

/// How the ground plane under a body is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Contacts {
    /// QOTA: three points — front centre, rear left, rear right — define the plane.
    #[default]
    ThreePoints,
    /// Four wheels at the corners of the footprint; the plane through their mean, normal to the
    /// cross product of the diagonals (a best fit when they do not lie in one plane).
    FourWheels,
}

/// A body's footprint and the rules of its placement.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FollowParams {
    /// Length of the footprint along the heading (wheelbase).
    pub length: f64,
    /// Width across the heading (track).
    pub width: f64,
    /// Which contacts define the ground plane.
    pub contacts: Contacts,
    /// Steepest walkable ground, radians from horizontal.
    pub max_slope: f64,
    /// How far above a contact the ground may be (steps, climbing); ground is looked for below
    /// `contact + up · probe_up`.
    pub probe_up: f64,
}

impl Default for FollowParams {
    /// A 4 m × 2 m car, three-point plane, 35° walkable, 1 m probe.
    fn default() -> Self {
        Self { length: 4.0, width: 2.0, contacts: Contacts::ThreePoints, max_slope: 35f64.to_radians(), probe_up: 1.0 }
    }
}

impl FollowParams {
    /// Checks every field: a footprint of finite positive length and width, a finite `probe_up`
    /// ≥ 0, `max_slope` in [0, π/2]. [`place`] refuses invalid parameters with
    /// [`Refusal::BadInput`] instead.
    ///
    /// ```
    /// use landfall::FollowParams;
    ///
    /// assert!(FollowParams::default().validate().is_ok());
    /// let e = FollowParams::default().with_width(0.0).validate().unwrap_err();
    /// assert_eq!(e.field, "width");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        length("length", self.length, true)?;
        length("width", self.width, true)?;
        length("probe_up", self.probe_up, false)?;
        right_angle("max_slope", self.max_slope)
    }
}

crate::with_setters!(FollowParams {
    length: f64 => with_length,
    width: f64 => with_width,
    contacts: Contacts => with_contacts,
    max_slope: f64 => with_max_slope,
    probe_up: f64 => with_probe_up,
});

/// Where and how a body sits on the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The body's reference point on the ground plane (on the vertical through the requested
    /// position).
    pub position: DVec3,
    /// Unit normal of the ground plane, pointing up.
    pub up: DVec3,
    /// Unit forward direction along the ground plane.
    pub forward: DVec3,
    /// Rotation from body axes (x forward, y left, z up) to world.
    pub rotation: DQuat,
    /// Tangent of the pitch (see [`Placement::pitch`]).
    tan_pitch: f64,
    /// Tangent of the roll (see [`Placement::roll`]).
    tan_roll: f64,
    /// Cosine of the slope: the ground normal's component along the frame's up.
    cos_slope: f64,
    /// The ground points under the contacts (3 or 4 used, see `contact_count`).
    pub contacts: [DVec3; 4],
    /// Number of contacts used.
    pub contact_count: usize,
}

impl Placement {
    /// Nose-up angle, radians: the ground plane's rise along the heading (the terrain-following
    /// note's pitch), `atan(rise / run)`. Computed on demand, like [`roll`](Self::roll) and
    /// [`slope`](Self::slope): most callers only need the position and rotation.
    pub fn pitch(&self) -> f64 {
        self.tan_pitch.atan()
    }

    /// Right-side-down angle, radians: the ground plane's fall toward the body's right.
    pub fn roll(&self) -> f64 {
        self.tan_roll.atan()
    }

    /// Angle of the ground plane from horizontal (across gravity), radians.
    pub fn slope(&self) -> f64 {
        self.cos_slope.clamp(-1.0, 1.0).acos()
    }
}

/// Why a body cannot be placed (a move there should be refused).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// A contact is over a hole (a wall's footprint, a lake): no ground on its vertical.
    #[error("no ground under contact {contact} at {at}")]
    NoGround {
        /// Which contact.
        contact: usize,
        /// Where it was looked for.
        at: DVec3,
    },
    /// The ground under a contact rises above where it is looked for (more than `probe_up` over the
    /// body's position): a wall, or a rise too steep to stand across.
    #[error("the ground under contact {contact} rises to {ground}, above the probe at {at}")]
    Blocked {
        /// Which contact.
        contact: usize,
        /// Where the probe started (the contact raised by `probe_up`).
        at: DVec3,
        /// The ceiling-side surface found above the probe.
        ground: DVec3,
    },
    /// A contact is beyond the terrain's bounds.
    #[error("contact {contact} at {at} is past the edge of the world")]
    EdgeOfWorld {
        /// Which contact.
        contact: usize,
        /// Where it is.
        at: DVec3,
    },
    /// The ground is steeper than `max_slope`.
    #[error("ground slope {slope:.3} rad exceeds the maximum {max:.3} rad")]
    TooSteep {
        /// Slope found.
        slope: f64,
        /// Maximum allowed.
        max: f64,
    },
    /// The position, heading or parameters are not finite, or the footprint is not positive.
    #[error("position, heading and footprint must be finite (and the footprint > 0)")]
    BadInput,
}

impl Refusal {
    /// Short names of the refusals, indexed by [`Refusal::code`] (index 0, `""`, is "placed").
    pub const NAMES: [&'static str; 6] = ["", "no ground", "blocked", "edge of world", "too steep", "bad input"];

    /// A stable small code for the refusal (1 to 5; 0 is left for "placed"), for columnar outputs.
    pub fn code(&self) -> u8 {
        match self {
            Refusal::NoGround { .. } => 1,
            Refusal::Blocked { .. } => 2,
            Refusal::EdgeOfWorld { .. } => 3,
            Refusal::TooSteep { .. } => 4,
            Refusal::BadInput => 5,
        }
    }
}

/// Horizontal unit axes (forward, right, up) for `heading` under `terrain`'s frame at `p`.
#[inline]
fn axes<T: Terrain + ?Sized>(terrain: &T, p: DVec3, heading: f64) -> (DVec3, DVec3, DVec3) {
    let up = terrain.up_at(p);
    let frame = terrain.frame();
    let (sin, cos) = heading.sin_cos();
    if up == DVec3::Z && frame.is_z_up() {
        // The common case: the frame's +X and +Y are the world's.
        return (DVec3::new(cos, sin, 0.0), DVec3::new(sin, -cos, 0.0), up);
    }
    // The frame's local +X and +Y, made horizontal at p (exact for uniform gravity).
    let x = frame.to_world(DVec3::X);
    let x = (x - up * x.dot(up)).try_normalize().unwrap_or_else(|| up.any_orthonormal_vector());
    let y = up.cross(x);
    let forward = x * cos + y * sin;
    (forward, forward.cross(up), up)
}

/// The ground under `at`: the nearest surface at or below `at + up·probe_up`.
#[inline]
fn ground<T: Terrain + ?Sized>(terrain: &T, at: DVec3, up: DVec3, probe_up: f64, k: usize) -> Result<DVec3, Refusal> {
    let probe = at + up * probe_up;
    match terrain.floor_point_below(probe) {
        Some(s) => Ok(s),
        None => Err(no_ground(terrain, probe, up, k)),
    }
}

/// Why there is no ground below the probe of contact `k` at `at`: a surface above it blocks the
/// contact; with none, past the terrain's bounds across gravity it is the edge of the world, inside
/// them a hole.
#[cold]
fn no_ground<T: Terrain + ?Sized>(terrain: &T, at: DVec3, up: DVec3, k: usize) -> Refusal {
    if let Some(s) = terrain.ceiling_above(at) {
        return Refusal::Blocked { contact: k, at, ground: s.point };
    }
    let b = terrain.bounds();
    let (lo, hi) = (b.min - DVec3::splat(2e-9), b.max + DVec3::splat(2e-9));
    if up == DVec3::Z {
        let outside = at.x < lo.x || at.x > hi.x || at.y < lo.y || at.y > hi.y;
        return if outside { Refusal::EdgeOfWorld { contact: k, at } } else { Refusal::NoGround { contact: k, at } };
    }
    let flat = |v: DVec3| v - up * v.dot(up);
    let outside = {
        let q = flat(at);
        let corners = (0..8).map(|i| {
            DVec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        });
        let (mut mn, mut mx) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for c in corners {
            let f = flat(c);
            mn = mn.min(f);
            mx = mx.max(f);
        }
        q.cmplt(mn).any() || q.cmpgt(mx).any()
    };
    if outside {
        Refusal::EdgeOfWorld { contact: k, at }
    } else {
        Refusal::NoGround { contact: k, at }
    }
}

/// Is a plane whose normal has component `cos_slope` (> 0) along "up" steeper than `max_slope`
/// radians, i.e. `cos_slope < cos(max_slope)` (every slope is allowed from a half turn on, none below
/// zero)? Decided without the cosine when `cos_slope` lies outside the bounds
/// `1 − m²/2 ≤ cos m ≤ 1 − m²/2 + m⁴/24` (true for every real m) by more than rounding, which is
/// nearly always: most ground is far from the limit.
#[inline]
fn steeper_than(cos_slope: f64, max_slope: f64) -> bool {
    if max_slope < 0.0 {
        return true;
    }
    let m = max_slope.min(std::f64::consts::PI);
    let m2 = m * m;
    let below = 1.0 - 0.5 * m2;
    let above = below + m2 * m2 / 24.0;
    if cos_slope > above + 1e-12 {
        false
    } else if cos_slope < below - 1e-12 {
        true
    } else {
        cos_slope < m.cos()
    }
}

/// Places a body at `position` (its height only sets where the ground is looked for: the ground
/// nearest below `position + up·probe_up`) with `heading`. Generic over the terrain so that a
/// caller who knows its type calls it directly; `&dyn Terrain` works too.
///
/// ```
/// use landfall::{place, FollowParams, Heightfield, Refusal};
/// use landfall::glam::DVec3;
///
/// // A slope rising 1 m per 10 m eastwards.
/// let h: Vec<f32> = (0..21 * 21).map(|k| (k % 21) as f32 * 0.1).collect();
/// let hf = Heightfield::builder(21, 21, h).build().unwrap();
/// let car = FollowParams::default(); // 4 m × 2 m, three contacts, 35° at most
/// let p = place(&hf, DVec3::new(10.0, 10.0, 5.0), 0.0, &car).unwrap(); // heading east
/// assert!((p.position.z - 1.0).abs() < 1e-6); // heights are f32
/// assert!((p.pitch() - 0.1f64.atan()).abs() < 1e-6); // nose up
/// let too_steep = car.with_max_slope(0.05);
/// assert!(matches!(place(&hf, DVec3::new(10.0, 10.0, 5.0), 0.0, &too_steep), Err(Refusal::TooSteep { .. })));
/// ```
pub fn place<T: Terrain + ?Sized>(
    terrain: &T,
    position: DVec3,
    heading: f64,
    params: &FollowParams,
) -> Result<Placement, Refusal> {
    let (axes, [hl, hw]) = footprint(terrain, position, heading, params)?;
    // One copy of the rest per contact count, so that its loops and sums have a fixed length.
    match params.contacts {
        Contacts::ThreePoints => settle(terrain, position, axes, params, three(axes, hl, hw)),
        Contacts::FourWheels => settle(terrain, position, axes, params, four(axes, hl, hw)),
    }
}

/// The slope [`place`] finds, radians (`place(..).map(|p| p.slope())`, bit for bit, the same
/// refusals), without the body's position and frame: for callers that only ask whether, and on
/// how steep a plane, a body may stand.
pub(crate) fn place_slope<T: Terrain + ?Sized>(
    terrain: &T,
    position: DVec3,
    heading: f64,
    params: &FollowParams,
) -> Result<f64, Refusal> {
    let (axes, [hl, hw]) = footprint(terrain, position, heading, params)?;
    let (.., cos_slope) = match params.contacts {
        Contacts::ThreePoints => plane(terrain, position, axes.2, params, three(axes, hl, hw))?,
        Contacts::FourWheels => plane(terrain, position, axes.2, params, four(axes, hl, hw))?,
    };
    Ok(cos_slope.clamp(-1.0, 1.0).acos())
}

/// Axes (forward, right, up) of a body at `position` with `heading`, and the footprint's half
/// length and width; refuses inputs that are not finite and footprints that are not positive.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn footprint<T: Terrain + ?Sized>(
    terrain: &T,
    position: DVec3,
    heading: f64,
    params: &FollowParams,
) -> Result<((DVec3, DVec3, DVec3), [f64; 2]), Refusal> {
    // x·0 is 0 for every finite x and NaN otherwise: one test for all eight inputs, no branch each.
    let finite =
        [position.x, position.y, position.z, heading, params.length, params.width, params.probe_up, params.max_slope]
            .iter()
            .fold(0.0, |acc, x| acc + x * 0.0)
            == 0.0;
    if !(finite && params.length > 0.0 && params.width > 0.0) {
        return Err(Refusal::BadInput);
    }
    Ok((axes(terrain, position, heading), [0.5 * params.length, 0.5 * params.width]))
}

/// The three points' offsets: front centre, rear left, rear right.
#[inline(always)]
fn three((forward, right, _): (DVec3, DVec3, DVec3), hl: f64, hw: f64) -> [DVec3; 3] {
    [forward * hl, -forward * hl - right * hw, -forward * hl + right * hw]
}

/// The four wheels' offsets: front left, front right, rear left, rear right.
#[inline(always)]
fn four((forward, right, _): (DVec3, DVec3, DVec3), hl: f64, hw: f64) -> [DVec3; 4] {
    [forward * hl - right * hw, forward * hl + right * hw, -forward * hl - right * hw, -forward * hl + right * hw]
}

/// The ground under each of the `N` contacts (offsets `spots` from `position`), the upward unit
/// normal of the plane through them and its component along `up`, refused where that plane is too
/// steep.
#[inline(always)]
fn plane<T: Terrain + ?Sized, const N: usize>(
    terrain: &T,
    position: DVec3,
    up: DVec3,
    params: &FollowParams,
    spots: [DVec3; N],
) -> Result<([DVec3; 4], DVec3, f64), Refusal> {
    let mut contacts = [DVec3::ZERO; 4];
    for k in 0..N {
        contacts[k] = ground(terrain, position + spots[k], up, params.probe_up, k)?;
    }
    let normal = if N == 3 {
        (contacts[1] - contacts[0]).cross(contacts[2] - contacts[0])
    } else {
        // Diagonals front-left → rear-right and front-right → rear-left.
        (contacts[3] - contacts[0]).cross(contacts[2] - contacts[1])
    };
    let normal = normal.try_normalize().ok_or(Refusal::BadInput)?;
    let n = if normal.dot(up) < 0.0 { -normal } else { normal };
    let nu = n.dot(up);
    if nu <= 0.0 || steeper_than(nu, params.max_slope) {
        return Err(Refusal::TooSteep { slope: nu.clamp(-1.0, 1.0).acos(), max: params.max_slope });
    }
    Ok((contacts, n, nu))
}

/// The rest of [`place`]: the plane under the contacts ([`plane`]), then the body's frame.
#[inline(always)]
fn settle<T: Terrain + ?Sized, const N: usize>(
    terrain: &T,
    position: DVec3,
    (forward, right, up): (DVec3, DVec3, DVec3),
    params: &FollowParams,
    spots: [DVec3; N],
) -> Result<Placement, Refusal> {
    let (contacts, n, nu) = plane(terrain, position, up, params, spots)?;
    let mean = contacts[..N].iter().copied().sum::<DVec3>() / N as f64;
    // The reference point: on the plane, on the vertical through the requested position.
    let on_plane = position + up * ((mean - position).dot(n) / nu);
    let fwd = (forward - n * forward.dot(n)).normalize();
    let left = n.cross(fwd);
    let rotation = DQuat::from_mat3(&DMat3::from_cols(fwd, left, n));
    Ok(Placement {
        position: on_plane,
        up: n,
        forward: fwd,
        rotation,
        tan_pitch: -(n.dot(forward)) / nu,
        tan_roll: n.dot(right) / nu,
        cos_slope: nu,
        contacts,
        contact_count: N,
    })
}

/// The terrain-following note's pitch: from the ground height here and at a point `distance`
/// ahead along `heading` (nose-up positive), or `None` when either has no ground.
pub fn pitch_ahead<T: Terrain + ?Sized>(
    terrain: &T,
    position: DVec3,
    heading: f64,
    distance: f64,
    probe_up: f64,
) -> Option<f64> {
    let (forward, _, up) = axes(terrain, position, heading);
    let here = ground(terrain, position, up, probe_up, 0).ok()?;
    let ahead = ground(terrain, position + forward * distance, up, probe_up, 1).ok()?;
    Some((ahead - here).dot(up).atan2(distance))
}

/// [`place`] for many `(position, heading)` bodies (a crowd), in parallel.
pub fn place_batch<T: Terrain + ?Sized>(
    terrain: &T,
    bodies: &[(DVec3, f64)],
    params: &FollowParams,
) -> Vec<Result<Placement, Refusal>> {
    bodies.par_iter().with_min_len(256).map(|&(p, h)| place(terrain, p, h, params)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Frame, Heightfield};
    use proptest::prelude::*;

    /// A rough 33 × 33 heightfield with a hole and a steep ramp, under `gravity`.
    fn ground(seed: u64, gravity: DVec3) -> Heightfield {
        let n = 33;
        let mut rng = crate::rng::SplitMix64::new(seed);
        let h = (0..n * n)
            .map(|k| {
                let (i, j) = (k % n, k / n);
                match (i, j) {
                    (14..=16, 14..=16) => f32::NAN,
                    (26.., _) => (i as f32 - 26.0) * 2.5,
                    _ => rng.range(0.0, 0.6) as f32 + 0.05 * i as f32,
                }
            })
            .collect();
        Heightfield::builder(n, n, h).frame(Frame::from_gravity(gravity).unwrap()).build().unwrap()
    }

    proptest! {
        /// `place_slope` is `place`'s slope bit for bit, and refuses what `place` refuses with the
        /// same refusal: inside, at the edge of and outside the ground, over the hole and the ramp,
        /// under tilted gravity, with footprints and inputs that are not valid, and for slope limits
        /// within an ulp of the slope found.
        #[test]
        fn place_slope_is_places_slope(seed in 0u64..4, tilted in any::<bool>(), x in -3.0f64..36.0, y in -3.0f64..36.0,
                                       z in -2.0f64..60.0, heading in -7.0f64..7.0, length in -0.5f64..12.0,
                                       width in -0.5f64..12.0, probe_up in 0.0f64..3.0, max_slope in 0.0f64..1.6,
                                       four in any::<bool>(), bad in 0u8..12, aim in 0u8..4) {
            let gravity = if tilted { DVec3::new(0.02, -0.03, -1.0) } else { DVec3::NEG_Z };
            let t = ground(seed, gravity);
            let contacts = if four { Contacts::FourWheels } else { Contacts::ThreePoints };
            let mut params = FollowParams { length, width, contacts, max_slope, probe_up };
            let mut p = DVec3::new(x, y, z);
            let mut heading = heading;
            match bad {
                0 => p.x = f64::NAN,
                1 => heading = f64::INFINITY,
                2 => params.width = f64::NAN,
                3 => params.max_slope = -0.1,
                _ => {}
            }
            let mut want = place(&t, p, heading, &params).map(|q| q.slope());
            if let (Ok(slope), 1..) = (want, aim) {
                // A limit at the slope found, or an ulp either side of it.
                params.max_slope = [slope, slope.next_up(), slope.next_down()][aim as usize - 1];
                want = place(&t, p, heading, &params).map(|q| q.slope());
            }
            let got = place_slope(&t, p, heading, &params);
            prop_assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits));
        }
    }

    /// The slope limit decided without the cosine agrees with the cosine everywhere: at random, and
    /// within a few ulps of the limit and of the bounds, for limits from below zero to past a half
    /// turn.
    #[test]
    fn slope_limit_matches_the_cosine() {
        let reference = |nu: f64, m: f64| m < 0.0 || nu < m.min(std::f64::consts::PI).cos();
        let mut rng = crate::rng::SplitMix64::new(11);
        let mut checked = 0;
        for k in 0..4000 {
            let m = if k % 4 == 0 { rng.range(-0.5, 4.0) } else { k as f64 * 1e-3 };
            let c = m.min(std::f64::consts::PI).cos();
            let below = 1.0 - 0.5 * m * m;
            let edges = [c, below, below + m.powi(4) / 24.0];
            let mut nus: Vec<f64> = (0..8).map(|_| rng.range(0.0, 1.0)).collect();
            for e in edges {
                let mut up = e;
                let mut down = e;
                for _ in 0..4 {
                    nus.extend([up, down, up + 1e-12, down - 1e-12]);
                    (up, down) = (up.next_up(), down.next_down());
                }
            }
            for nu in nus.into_iter().filter(|nu| *nu > 0.0 && *nu <= 1.0) {
                assert_eq!(steeper_than(nu, m), reference(nu, m), "cos slope {nu}, limit {m}");
                checked += 1;
            }
        }
        assert!(checked > 50_000);
    }
}
