//! What the caller tells the behaviours about the world each frame: where the viewer is, what it
//! sees, and where solids are.

use glam::DVec2;

/// The viewer this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Viewer {
    /// Position in x, y.
    pub position: DVec2,
    /// Velocity in x, y (for speed contrast).
    pub velocity: DVec2,
}

/// Visibility and solids, supplied by the caller: landfall's exact line of sight, room-to-room
/// visibility through doors, a field of view, or any mix.
pub trait Scene {
    /// Whether a disc of `radius` at `at` can be seen from `from` (any part of it).
    fn visible(&self, from: DVec2, at: DVec2, radius: f64) -> bool;

    /// Whether a disc of `radius` at `at` overlaps a solid. Nothing is solid by default.
    fn blocked(&self, _at: DVec2, _radius: f64) -> bool {
        false
    }
}

/// A field of view on an open floor: discs within `half_angle` (radians) of `direction` and
/// within `range` (a camera's far plane) are seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOfView {
    /// The direction the viewer looks in (any length > 0).
    pub direction: DVec2,
    /// Half the opening angle, radians (π or more: everything).
    pub half_angle: f64,
    /// How far it sees, m (`f64::INFINITY`: no limit).
    pub range: f64,
}

impl FieldOfView {
    /// Looking along `direction` within `half_angle`, without a far limit.
    pub fn new(direction: DVec2, half_angle: f64) -> Self {
        Self { direction, half_angle, range: f64::INFINITY }
    }
}

impl Scene for FieldOfView {
    fn visible(&self, from: DVec2, at: DVec2, radius: f64) -> bool {
        let d = at - from;
        let dist = d.length();
        if dist - radius > self.range {
            return false;
        }
        if dist <= radius || self.half_angle >= std::f64::consts::PI {
            return true;
        }
        let off = self.direction.angle_to(d).abs();
        off <= self.half_angle + (radius / dist).asin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_of_view_sees_a_disc_touching_its_edge() {
        let fov = FieldOfView::new(DVec2::X, 0.5);
        let at = |a: f64| DVec2::new(a.cos(), a.sin()) * 10.0;
        assert!(fov.visible(DVec2::ZERO, at(0.49), 0.0));
        assert!(!fov.visible(DVec2::ZERO, at(0.6), 0.5));
        assert!(fov.visible(DVec2::ZERO, at(0.54), 0.5));
        assert!(fov.visible(DVec2::ZERO, -at(0.0), 11.0), "the viewer inside the disc");
        let near = FieldOfView { range: 9.6, ..fov };
        assert!(near.visible(DVec2::ZERO, at(0.0), 0.5) && !near.visible(DVec2::ZERO, at(0.0), 0.3));
    }
}
