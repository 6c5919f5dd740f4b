//! Gravity frames: which way is down.
//!
//! Structures that depend on "down" take a [`Frame`]. Internally they work in a local frame where
//! gravity is −Z (QOTA keeps the rotation R and its inverse); callers use world coordinates only.

use glam::{DMat3, DQuat, DVec3};

/// Why a gravity vector is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// Gravity has a NaN or infinite component, or is the zero vector.
    #[error("gravity must be a finite, non-zero vector")]
    BadGravity,
}

/// A uniform gravity direction and the rotation that maps it to −Z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    down: DVec3,
    to_local: DMat3,
    to_world: DMat3,
    /// R is the identity (the default frame): the rotations are skipped.
    identity: bool,
    /// `down` is exactly −Z (kept as a flag: vertical queries test it on every call).
    z_up: bool,
}

impl Default for Frame {
    fn default() -> Self {
        Self::z_up()
    }
}

impl Frame {
    /// The default frame: Z up, gravity (0, 0, −1).
    pub fn z_up() -> Self {
        Self { down: DVec3::NEG_Z, to_local: DMat3::IDENTITY, to_world: DMat3::IDENTITY, identity: true, z_up: true }
    }

    /// A frame whose gravity points along `gravity` (any finite, non-zero length, from subnormal to
    /// `f64::MAX`; Y-up engines pass (0, −1, 0)).
    ///
    /// ```
    /// use landfall::Frame;
    /// use landfall::glam::DVec3;
    /// let y_up = Frame::from_gravity(DVec3::new(0.0, -9.81, 0.0)).unwrap();
    /// assert_eq!(y_up.down(), DVec3::NEG_Y);
    /// assert!(Frame::from_gravity(DVec3::new(0.0, 0.0, -1e308)).unwrap().is_z_up());
    /// assert!(Frame::from_gravity(DVec3::ZERO).is_err());
    /// ```
    pub fn from_gravity(gravity: DVec3) -> Result<Self, FrameError> {
        if !gravity.is_finite() || gravity == DVec3::ZERO {
            return Err(FrameError::BadGravity);
        }
        // Scaled by its largest component first: the squared length of (0, 0, −1e308) overflows
        // and that of (0, 0, −1e-320) underflows, either of which would make `normalize` fail.
        let down = (gravity / gravity.abs().max_element()).normalize();
        if down == DVec3::NEG_Z {
            return Ok(Self::z_up());
        }
        let q = DQuat::from_rotation_arc(down, DVec3::NEG_Z);
        let to_local = DMat3::from_quat(q);
        Ok(Self { down, to_local, to_world: to_local.transpose(), identity: false, z_up: false })
    }

    /// The rotation R (world → local, gravity to −Z), for storing a frame bit for bit.
    pub fn rotation(&self) -> DMat3 {
        self.to_local
    }

    /// A frame from a stored unit gravity and rotation R (see [`Frame::rotation`]): R must be
    /// orthonormal and map `down` to −Z (within 1e-9), so a frame read back from a file gives
    /// bit-identical local coordinates.
    pub fn from_rotation(down: DVec3, rotation: DMat3) -> Result<Self, FrameError> {
        let orthonormal =
            (rotation * rotation.transpose() - DMat3::IDENTITY).to_cols_array().iter().all(|v| v.abs() < 1e-9);
        if !down.is_finite()
            || !rotation.is_finite()
            || !orthonormal
            || (rotation * down - DVec3::NEG_Z).length() > 1e-9
        {
            return Err(FrameError::BadGravity);
        }
        Ok(Self {
            down,
            to_local: rotation,
            to_world: rotation.transpose(),
            identity: rotation == DMat3::IDENTITY,
            z_up: down == DVec3::NEG_Z,
        })
    }

    /// Unit vector along gravity.
    #[inline]
    pub fn down(&self) -> DVec3 {
        self.down
    }

    /// Unit vector against gravity.
    #[inline]
    pub fn up(&self) -> DVec3 {
        -self.down
    }

    /// True when gravity is exactly (0, 0, −1).
    #[inline]
    pub fn is_z_up(&self) -> bool {
        self.z_up
    }

    /// World → local (gravity along −Z) rotation R (`v` itself in the default frame).
    #[inline]
    pub fn to_local(&self, v: DVec3) -> DVec3 {
        if self.identity {
            v
        } else {
            self.to_local * v
        }
    }

    /// Local → world rotation R⁻¹ (`v` itself in the default frame).
    #[inline]
    pub fn to_world(&self, v: DVec3) -> DVec3 {
        if self.identity {
            v
        } else {
            self.to_world * v
        }
    }

    /// `n` flipped if needed so that it points against gravity (ties keep `n`).
    #[inline]
    pub fn orient_up(&self, n: DVec3) -> DVec3 {
        if n.dot(self.down) > 0.0 {
            -n
        } else {
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_maps_gravity_to_minus_z() {
        for g in [DVec3::new(0.0, -1.0, 0.0), DVec3::new(1.0, 2.0, -3.0), DVec3::Z, DVec3::NEG_Z] {
            let f = Frame::from_gravity(g).unwrap();
            assert!((f.to_local(g.normalize()) - DVec3::NEG_Z).length() < 1e-12);
            let v = DVec3::new(0.3, -2.0, 5.0);
            assert!((f.to_world(f.to_local(v)) - v).length() < 1e-12);
        }
        assert!(Frame::from_gravity(DVec3::ZERO).is_err());
        assert!(Frame::from_gravity(DVec3::new(f64::NAN, 0.0, 1.0)).is_err());
    }

    /// The default frame skips its rotations and gives what multiplying by R would; a stored
    /// identity rotation is recognised, any other is applied.
    #[test]
    fn identity_frames_skip_the_rotation_exactly() {
        let v = DVec3::new(1.5e5, -3.25, 7.0e-3);
        let stored = Frame::from_rotation(DVec3::NEG_Z, DMat3::IDENTITY).unwrap();
        for f in [Frame::z_up(), Frame::from_gravity(DVec3::new(0.0, 0.0, -9.81)).unwrap(), stored] {
            assert!(f.identity);
            assert_eq!((f.to_local(v), f.to_world(v)), (DMat3::IDENTITY * v, DMat3::IDENTITY * v));
        }
        let yawed = Frame::from_rotation(DVec3::NEG_Z, DMat3::from_rotation_z(0.3)).unwrap();
        assert!(!yawed.identity);
        assert_eq!(yawed.to_local(v), DMat3::from_rotation_z(0.3) * v);
        assert_ne!(yawed.to_local(v), v);
    }

    /// Gravity at the ends of f64's range gives the frame of its direction (the squared length of
    /// such a vector overflows or underflows).
    #[test]
    fn extreme_gravity_magnitudes_keep_their_direction() {
        for (g, down) in [
            (DVec3::new(0.0, 0.0, -1e308), DVec3::NEG_Z),
            (DVec3::new(0.0, 0.0, -1e-320), DVec3::NEG_Z),
            (DVec3::new(0.0, -f64::MAX, 0.0), DVec3::NEG_Y),
            (DVec3::new(5e-324, 0.0, 0.0), DVec3::X),
        ] {
            let f = Frame::from_gravity(g).unwrap();
            assert!((f.down() - down).length() < 1e-15, "{g}: {}", f.down());
            assert!((f.to_local(down) - DVec3::NEG_Z).length() < 1e-12);
        }
        let tilted = Frame::from_gravity(DVec3::new(1e300, 0.0, -1e300)).unwrap();
        assert!((tilted.down() - DVec3::new(1.0, 0.0, -1.0).normalize()).length() < 1e-15);
    }
}
