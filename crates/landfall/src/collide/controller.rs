//! A kinematic character controller on the swept sphere: climb angle, slide angle, steps, snap to
//! ground, a skin offset; reports grounded state, the ground normal and the contacts.
//!
//! The option set follows rapier's `KinematicCharacterController` (`up`, `offset`, `max_slope_climb_angle`,
//! `min_slope_slide_angle`, `autostep` with a maximum height, `snap_to_ground`) and Jolt's
//! `CharacterVirtual` (max slope angle, stair stepping, stick to floor). The shape is a sphere, an
//! upright capsule (the shape most controllers use) or an axis-aligned ellipsoid (Fauerby's);
//! slope-dependent speed, moving-platform velocity and pushing dynamic bodies are not here (see
//! the `collide` module's "How it works").

use super::slide::stop_short;
use super::target::{Nearby, SweepTarget, TerrainContact};
use crate::geom::Aabb;
use crate::params::{count, length, right_angle, ParamError};
use glam::DVec3;

/// The character's shape around its center.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A sphere of [`ControllerParams::radius`].
    Sphere,
    /// A capsule along "up": the segment from `half_height` below the center to `half_height`
    /// above it, swept by a sphere of [`ControllerParams::radius`] (total height
    /// 2·(half_height + radius)).
    Capsule {
        /// Half the length of the capsule's axis segment.
        half_height: f64,
    },
    /// An axis-aligned ellipsoid of these semi-axes (world x, y, z); `radius` is then only used
    /// where a single size is needed (none in the controller).
    Ellipsoid {
        /// Semi-axes along world x, y and z.
        radii: DVec3,
    },
}

/// Options of a [`CharacterController`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ControllerParams {
    /// The shape (default a sphere).
    pub shape: Shape,
    /// Radius of the character's sphere (and of a capsule).
    pub radius: f64,
    /// Gap kept between the sphere and the terrain (rapier's `offset`).
    pub skin: f64,
    /// Steepest slope the character walks up, radians (rapier's `max_slope_climb_angle`).
    pub max_climb: f64,
    /// Slopes gentler than this hold the character still under gravity, radians (rapier's
    /// `min_slope_slide_angle`); steeper ones let it slide down.
    pub min_slide: f64,
    /// Highest ledge climbed as a step (rapier's `autostep` max height); 0 disables stepping.
    pub step_height: f64,
    /// Keep to the ground when walking downhill, up to this drop per move (rapier's
    /// `snap_to_ground`); 0 disables snapping.
    pub snap: f64,
    /// Sweeps per stage of a move.
    pub max_iterations: usize,
}

impl Default for ControllerParams {
    /// A 0.5 m sphere, 1 cm skin, 45° climb, 30° slide, 0.3 m steps, 0.3 m snap.
    fn default() -> Self {
        Self {
            shape: Shape::Sphere,
            radius: 0.5,
            skin: 0.01,
            max_climb: 45f64.to_radians(),
            min_slide: 30f64.to_radians(),
            step_height: 0.3,
            snap: 0.3,
            max_iterations: 6,
        }
    }
}

impl ControllerParams {
    /// The most iterations of the slide loop [`validate`](Self::validate) accepts.
    pub const MAX_ITERATIONS: usize = 64;

    /// Checks every field: `radius` finite and > 0; `skin`, `step_height`, `snap` and a capsule's
    /// `half_height` finite and ≥ 0; an ellipsoid's radii finite and > 0; `max_climb` and
    /// `min_slide` in [0, π/2]; `max_iterations` in 1..=[`MAX_ITERATIONS`](Self::MAX_ITERATIONS).
    ///
    /// ```
    /// use landfall::collide::{ControllerParams, Shape};
    ///
    /// assert!(ControllerParams::default().validate().is_ok());
    /// let p = ControllerParams::default().with_shape(Shape::Capsule { half_height: -1.0 });
    /// assert_eq!(p.validate().unwrap_err().field, "half_height");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        length("radius", self.radius, true)?;
        match self.shape {
            Shape::Sphere => {}
            Shape::Capsule { half_height } => length("half_height", half_height, false)?,
            Shape::Ellipsoid { radii } => {
                for r in radii.to_array() {
                    length("radii", r, true)?;
                }
            }
        }
        length("skin", self.skin, false)?;
        length("step_height", self.step_height, false)?;
        length("snap", self.snap, false)?;
        right_angle("max_climb", self.max_climb)?;
        right_angle("min_slide", self.min_slide)?;
        count("max_iterations", self.max_iterations, 1..=Self::MAX_ITERATIONS)
    }
}

crate::with_setters!(ControllerParams {
    shape: Shape => with_shape,
    radius: f64 => with_radius,
    skin: f64 => with_skin,
    max_climb: f64 => with_max_climb,
    min_slide: f64 => with_min_slide,
    step_height: f64 => with_step_height,
    snap: f64 => with_snap,
    max_iterations: usize => with_max_iterations,
});

/// The outcome of one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterMove {
    /// New center of the shape.
    pub position: DVec3,
    /// On walkable ground after the move.
    pub grounded: bool,
    /// Normal of the ground under the character, when grounded.
    pub ground_normal: Option<DVec3>,
    /// Climbed a step during the move.
    pub stepped: bool,
    /// Contacts during the move (first `contact_count`).
    pub contacts: [Option<TerrainContact>; 8],
    /// Number of contacts.
    pub contact_count: usize,
}

/// A kinematic character: call [`CharacterController::move_by`] with the desired motion (walking
/// plus gravity) each frame.
///
/// ```
/// use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
/// use landfall::glam::DVec3;
/// use landfall::Heightfield;
///
/// let ground = Heightfield::builder(11, 11, vec![0.0; 121]).build().unwrap();
/// let params = ControllerParams::default().with_radius(0.5);
/// let walker = CharacterController::new(params, DVec3::Z).unwrap(); // the params validated
/// assert!(CharacterController::new(params.with_radius(-1.0), DVec3::Z).is_err());
/// // Dropped from 2 m with a step of gravity: it lands, its centre one radius above the ground.
/// let m = walker.move_by(&TerrainSweep(&ground), DVec3::new(5.0, 5.0, 2.0), DVec3::new(0.0, 0.0, -3.0), false);
/// assert!(m.grounded);
/// assert!((m.position.z - 0.5).abs() < 0.05);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterController {
    /// The options.
    pub params: ControllerParams,
    /// Unit up (against gravity), e.g. from the terrain's frame.
    pub up: DVec3,
    /// Cosines of `params.max_climb` and `params.min_slide`, taken afresh at the start of every move
    /// (the options are public and may change between moves), so a move's many slope tests need no
    /// trigonometry.
    cos: [f64; 2],
}

impl CharacterController {
    /// A controller with `params` ([validated](ControllerParams::validate)) under "up" `up`
    /// (normalized here; a zero or non-finite `up` is an error naming the field `up`).
    pub fn new(params: ControllerParams, up: DVec3) -> Result<Self, ParamError> {
        params.validate()?;
        let unit = up.try_normalize().ok_or_else(|| ParamError::new("up", format!("{up} is not a direction")))?;
        Ok(Self { params, up: unit, cos: Self::cosines(&params) })
    }

    /// Cosines of the climb and slide limits.
    fn cosines(p: &ControllerParams) -> [f64; 2] {
        [p.max_climb.cos(), p.min_slide.cos()]
    }

    /// The shape's earliest contact moving from center `c` by `v`.
    fn cast(&self, tree: &dyn SweepTarget, c: DVec3, v: DVec3) -> Option<TerrainContact> {
        self.cast_scaled(tree, c, v, 1.0)
    }

    /// [`cast`](Self::cast) with the shape's radii scaled by `k`.
    fn cast_scaled(&self, tree: &dyn SweepTarget, c: DVec3, v: DVec3, k: f64) -> Option<TerrainContact> {
        let r = self.params.radius * k;
        match self.params.shape {
            Shape::Sphere => tree.sweep(c, r, v),
            Shape::Capsule { half_height } => {
                let h = self.up * half_height;
                tree.sweep_capsule(c - h, c + h, r, v)
            }
            Shape::Ellipsoid { radii } => tree.sweep_ellipsoid(c, radii * k, v),
        }
    }

    /// Distance from the center to the shape's surface along unit `n` (its support function):
    /// how far the center stands from a plane of normal `n` that the shape touches.
    pub fn reach(&self, n: DVec3) -> f64 {
        let r = self.params.radius;
        match self.params.shape {
            Shape::Sphere => r,
            Shape::Capsule { half_height } => r + half_height * n.dot(self.up).abs(),
            Shape::Ellipsoid { radii } => (radii * n).length(),
        }
    }

    fn walkable(&self, n: DVec3) -> bool {
        n.dot(self.up) >= self.cos[0] - 1e-12
    }

    /// Sweeps and slides `parts` (a walk and a vertical part, either may be zero) from `pos`, as one
    /// motion. At each contact every part keeps its own response: contacts steeper than the climb
    /// angle act as walls for a part that is level or rising (their normal made horizontal, so they
    /// cannot be climbed) and are slid down by a falling one; gentle ones are slid along, and a fall
    /// straight down onto ground gentler than the slide angle is cancelled rather than slid.
    fn slide(
        &self,
        tree: &dyn SweepTarget,
        mut pos: DVec3,
        parts: [DVec3; 2],
        out: &mut CharacterMove,
    ) -> (DVec3, Option<DVec3>, bool) {
        let p = &self.params;
        let mut rest = parts;
        let mut ground = None;
        let mut walled = false;
        // Per part, the last plane that turned it.
        let mut planes: [Option<DVec3>; 2] = [None; 2];
        for _ in 0..p.max_iterations {
            let motion = rest[0] + rest[1];
            if motion.length_squared() <= 1e-12 {
                break;
            }
            let Some(hit) = self.cast(tree, pos, motion) else {
                pos += motion;
                break;
            };
            if out.contact_count < out.contacts.len() {
                out.contacts[out.contact_count] = Some(hit);
                out.contact_count += 1;
            }
            let n = hit.contact.normal;
            // Backed off along the motion; embedded or grazing, pushed out along the normal instead.
            let stop = stop_short(tree, pos, motion, &hit, self.reach(n), p.skin, |c, v| {
                self.cast_scaled(tree, c, v, 1.0 - 1e-9)
            });
            let given_back = stop.given_back;
            pos = stop.position;
            let steep = !self.walkable(n);
            if !steep {
                ground = Some(n);
            }
            walled |= steep;
            for ((rest, part), prev) in rest.iter_mut().zip(parts).zip(&mut planes) {
                // What is left of the part, with what the back-off gave back: the projection below
                // keeps its share along the surface (without it, a sphere whose contact comes
                // within the skin's back-off of its start would make no progress at all).
                let left = *rest * (1.0 - hit.contact.t + given_back);
                let plane = if steep && part.dot(self.up) >= 0.0 {
                    // A wall met walking or rising: slide along it horizontally, never up it.
                    // (Falling, the true normal lets the sphere slide off a ledge's edge.)
                    (n - self.up * n.dot(self.up)).try_normalize().unwrap_or(n)
                } else {
                    n
                };
                let into = left.dot(plane);
                *rest = if into < 0.0 { left - plane * into } else { left };
                if into < 0.0 {
                    // Pushed back into the plane met before: follow the crease between the two
                    // instead of bouncing from one to the other.
                    if let Some(q) = *prev {
                        if rest.dot(q) < 0.0 {
                            *rest = q.cross(plane).try_normalize().map_or(DVec3::ZERO, |c| c * rest.dot(c));
                        }
                    }
                    *prev = Some(plane);
                }
                // Gravity onto gentle ground: hold still instead of sliding down it.
                if !steep
                    && n.dot(self.up) >= self.cos[1]
                    && part.dot(self.up) < 0.0
                    && part.cross(self.up) == DVec3::ZERO
                {
                    *rest = DVec3::ZERO;
                }
            }
        }
        (pos, ground, walled)
    }

    /// Walkable ground within `depth` below `pos` (a short downward sweep): its normal and the
    /// distance.
    fn probe_ground(&self, tree: &dyn SweepTarget, pos: DVec3, depth: f64) -> Option<(DVec3, f64)> {
        self.drop_below(tree, pos, depth).filter(|(n, _)| self.walkable(*n))
    }

    /// The lift of a step: straight up by up to `height` from `pos`, stopping the skin short of
    /// anything overhead (one sweep, as rapier's and Jolt's stair stepping do).
    fn lift(&self, tree: &dyn SweepTarget, pos: DVec3, height: f64) -> DVec3 {
        let rise = self.up * height;
        match self.cast(tree, pos, rise) {
            None => pos + rise,
            Some(hit) => pos + self.up * (hit.contact.t * height - self.params.skin).max(0.0),
        }
    }

    /// Any contact within `depth` below `pos`: its normal and the distance.
    fn drop_below(&self, tree: &dyn SweepTarget, pos: DVec3, depth: f64) -> Option<(DVec3, f64)> {
        let hit = self.cast(tree, pos, -self.up * depth)?;
        Some((hit.contact.normal, hit.contact.t * depth))
    }

    /// Where a step climbed to `across` (moving along `dir`) lands: on walkable ground below, or —
    /// for shapes whose flanks meet the step's edge too steeply (a tall ellipsoid) — on the edge,
    /// when there is walkable ground a shape's width further on (rapier's `min_width` check).
    fn step_landing(&self, tree: &dyn SweepTarget, across: DVec3, dir: DVec3) -> Option<(DVec3, f64)> {
        let p = &self.params;
        let depth = p.step_height + p.skin * 2.0;
        let (n, drop) = self.drop_below(tree, across, depth)?;
        if self.walkable(n) {
            return Some((n, drop));
        }
        // A shape's width further on, reachable at this height (not inside a higher riser) …
        let width = dir * self.reach(dir);
        if self.cast(tree, across, width).is_some() {
            return None;
        }
        // … with walkable ground below it.
        let (n, drop_ahead) = self.probe_ground(tree, across + width, depth)?;
        // The same tread: not a drop further down beyond the edge.
        (drop_ahead <= drop + p.skin * 2.0 + 1e-9).then_some((n, drop))
    }

    /// A step from `position` whose walk by `horizontal` stopped at `walked`: lift, across, down.
    /// Where it lands and the ground normal there, when it gets further than the walk did and
    /// lands on walkable ground (a tread, or its edge once the center is far enough over it: the
    /// next walk rolls over the edge) within the step height. Its contacts go to `out`.
    fn step(
        &self,
        tree: &dyn SweepTarget,
        position: DVec3,
        walked: DVec3,
        horizontal: DVec3,
        out: &mut CharacterMove,
    ) -> Option<(DVec3, DVec3)> {
        let p = &self.params;
        let up = self.lift(tree, position, p.step_height);
        // Nothing to gain when something overhead allows no lift.
        if (up - position).dot(self.up) <= 1e-6 {
            return None;
        }
        let (across, _, _) = self.slide(tree, up, [horizontal, DVec3::ZERO], out);
        let dir = horizontal.normalize_or_zero();
        if (across - up).dot(dir) - (walked - position).dot(dir) <= 1e-6 {
            return None;
        }
        let (n, drop) = self.step_landing(tree, across, dir)?;
        let landed = across - self.up * (drop - p.skin).max(0.0);
        ((landed - position).dot(self.up) <= p.step_height + 1e-9).then_some((landed, n))
    }

    /// Moves the character by `desired` (walking and gravity together, world units).
    pub fn move_by(
        &self,
        tree: &dyn SweepTarget,
        position: DVec3,
        desired: DVec3,
        was_grounded: bool,
    ) -> CharacterMove {
        Self { cos: Self::cosines(&self.params), ..*self }.move_with(tree, position, desired, was_grounded)
    }

    /// [`CharacterController::move_by`] with `cos` up to date.
    fn move_with(&self, tree: &dyn SweepTarget, position: DVec3, desired: DVec3, was_grounded: bool) -> CharacterMove {
        let p = self.params;
        let out = CharacterMove {
            position,
            grounded: false,
            ground_normal: None,
            stepped: false,
            contacts: [None; 8],
            contact_count: 0,
        };
        if !(position.is_finite() && desired.is_finite()) {
            return out;
        }
        let vertical = self.up * desired.dot(self.up);
        let horizontal = desired - vertical;
        // Every sweep of this move stays within this box: gather its triangles once.
        let reach = match p.shape {
            Shape::Sphere => DVec3::splat(p.radius),
            Shape::Capsule { half_height } => DVec3::splat(p.radius) + (self.up * half_height).abs(),
            Shape::Ellipsoid { radii } => radii,
        };
        // Across "up": the walk (slides stay within twice its length), the fall and the skin's
        // push-outs; along it: the step's lift and landing, gravity and the snap. (A step landing's
        // check a shape's width further on reaches outside; `tree` itself answers it.)
        let side = reach + DVec3::splat(horizontal.length() * 2.0 + vertical.length() + 4.0 * p.skin + 1e-6);
        let (rise, drop) = (p.step_height + vertical.length(), vertical.length() + p.snap + 4.0 * p.skin);
        let (a, b) = (position + self.up * rise, position - self.up * drop);
        let region = Aabb::new(a.min(b) - side, a.max(b) + side);
        Nearby::with(tree, region, |nearby| {
            self.move_among(nearby, position, (horizontal, vertical), was_grounded, out)
        })
    }

    /// [`CharacterController::move_by`] once the candidate triangles are gathered; the desired
    /// motion split into its parts across and along "up".
    fn move_among(
        &self,
        tree: &dyn SweepTarget,
        position: DVec3,
        (horizontal, vertical): (DVec3, DVec3),
        was_grounded: bool,
        mut out: CharacterMove,
    ) -> CharacterMove {
        let p = self.params;
        // 1. Walk. On the ground the walk goes alone, so that a wall it meets can trigger a step;
        // off it (falling, sliding down a slope too steep to stand on, jumping) nothing needs the
        // two apart, and the walk and the vertical part go as one motion (each part keeping its own
        // response at every contact): a sliding character costs one slide a frame, not two.
        let together = !was_grounded;
        let parts = [horizontal, if together { vertical } else { DVec3::ZERO }];
        let (walked, mut ground, walled) = self.slide(tree, position, parts, &mut out);
        let mut pos = walked;
        // 2. Steps: when a wall (too steep to climb) stopped the walk, try up by the step height,
        // across, then down.
        if walled && p.step_height > 0.0 && was_grounded {
            let mut scratch = out;
            if let Some((landed, n)) = self.step(tree, position, walked, horizontal, &mut scratch) {
                pos = landed;
                ground = Some(n);
                out.stepped = true;
                out.contacts = scratch.contacts;
                out.contact_count = scratch.contact_count;
            }
        }
        // 3. Gravity and jumps (a step just climbed holds the character on the step's edge: falling
        // off it now would undo the step; the next walk rolls over it).
        if !together && vertical != DVec3::ZERO && !(out.stepped && vertical.dot(self.up) < 0.0) {
            let (fallen, g, _) = self.slide(tree, pos, [DVec3::ZERO, vertical], &mut out);
            pos = fallen;
            ground = g.or(if vertical.dot(self.up) < 0.0 { None } else { ground });
        }
        // 4. Stay on the ground walking downhill.
        if ground.is_none() && was_grounded && p.snap > 0.0 && vertical.dot(self.up) <= 0.0 {
            if let Some((n, drop)) = self.probe_ground(tree, pos, p.snap + p.skin) {
                pos -= self.up * (drop - p.skin).max(0.0);
                ground = Some(n);
            }
        }
        // Grounded: walkable ground just below (within the skin and a hair), or standing on a step.
        if out.stepped && ground.is_none() {
            ground = Some(self.up);
        }
        if ground.is_none() {
            ground = self.probe_ground(tree, pos, 2.0 * p.skin + 1e-6).map(|(n, _)| n);
        }
        out.position = pos;
        out.grounded = ground.is_some();
        out.ground_normal = ground;
        out
    }
}
