use glam::DVec3;

/// A ray `origin + t · dir`. `dir` need not be unit length; `t` is in units of `|dir|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start of the ray (t = 0), world coordinates.
    pub origin: DVec3,
    /// Direction; any non-zero finite vector.
    pub dir: DVec3,
}

/// Why a ray cannot be cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RayError {
    /// A component of the origin is NaN or infinite.
    #[error("ray origin is not finite")]
    NonFiniteOrigin,
    /// A component of the direction is NaN or infinite.
    #[error("ray direction is not finite")]
    NonFiniteDirection,
    /// The direction is the zero vector.
    #[error("ray direction is zero")]
    ZeroDirection,
    /// `max_t` is NaN or negative.
    #[error("max_t must be a number ≥ 0 (or +infinity)")]
    BadMaxT,
    /// A component of the origin is beyond ±1e150, landfall's coordinate range
    /// ([`PolygonTerrain::MAX_COORDINATE`](crate::PolygonTerrain::MAX_COORDINATE)): from so far a
    /// hit's parameter and point keep none of the terrain's digits.
    #[error("ray origin has a coordinate beyond ±1e150 (landfall's coordinate range)")]
    OriginOutOfRange,
}

impl Ray {
    /// A ray from `origin` along `dir`.
    #[inline]
    pub const fn new(origin: DVec3, dir: DVec3) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`.
    #[inline]
    pub fn at(&self, t: f64) -> DVec3 {
        self.origin + self.dir * t
    }

    /// Checks that the ray can be cast with the given `max_t`: finite origin and direction, a
    /// non-zero direction, `max_t` ≥ 0 (infinity allowed), and the origin within ±1e150.
    pub fn validate(&self, max_t: f64) -> Result<(), RayError> {
        if !self.origin.is_finite() {
            return Err(RayError::NonFiniteOrigin);
        }
        if !self.dir.is_finite() {
            return Err(RayError::NonFiniteDirection);
        }
        if self.dir == DVec3::ZERO {
            return Err(RayError::ZeroDirection);
        }
        if max_t.is_nan() || max_t < 0.0 {
            return Err(RayError::BadMaxT);
        }
        if self.origin.abs().max_element() > super::MAX_COORDINATE {
            return Err(RayError::OriginOutOfRange);
        }
        Ok(())
    }
}
