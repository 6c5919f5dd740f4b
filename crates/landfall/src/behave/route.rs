//! A route: a closed polyline in x, y, walked by arc length.

use super::BehaveError;
use glam::DVec2;

/// A closed polyline in the x-y plane, walked by arc length `s` (taken modulo its length).
///
/// ```
/// use landfall::behave::Route;
/// use landfall::glam::DVec2;
/// let r = Route::box_step(DVec2::new(10.0, 0.0), 1.0).unwrap();
/// assert_eq!(r.length(), 4.0);
/// assert_eq!(r.point_at(0.5), DVec2::new(10.5, 0.0));
/// assert_eq!(r.point_at(4.5), r.point_at(0.5));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    points: Vec<DVec2>,
    /// Arc length at each vertex, and the whole length last (`points.len() + 1` values).
    along: Vec<f64>,
}

impl Route {
    /// The closed polyline through `points` (the last joins the first). At least two points, all
    /// finite, and a length > 0.
    pub fn closed(points: Vec<DVec2>) -> Result<Self, BehaveError> {
        if points.len() < 2 {
            return Err(BehaveError::Route(format!("{} points; a route needs at least 2", points.len())));
        }
        if let Some(k) = points.iter().position(|p| !p.is_finite()) {
            return Err(BehaveError::Route(format!("point {k} is not finite")));
        }
        let mut along = Vec::with_capacity(points.len() + 1);
        let mut s = 0.0;
        along.push(0.0);
        for k in 0..points.len() {
            s += points[k].distance(points[(k + 1) % points.len()]);
            along.push(s);
        }
        if !(s > 0.0 && s.is_finite()) {
            return Err(BehaveError::Route(format!("length {s} (the points coincide or are too far apart)")));
        }
        Ok(Self { points, along })
    }

    /// The box step as a scripted route: a square of side `side` around `center`, walked
    /// counter-clockwise from its lower right corner (forward, side, back, side).
    pub fn box_step(center: DVec2, side: f64) -> Result<Self, BehaveError> {
        let h = side / 2.0;
        Self::closed(vec![
            center + DVec2::new(h, -h),
            center + DVec2::new(h, h),
            center + DVec2::new(-h, h),
            center + DVec2::new(-h, -h),
        ])
    }

    /// Total length, m.
    pub fn length(&self) -> f64 {
        self.along[self.along.len() - 1]
    }

    /// The vertices.
    pub fn points(&self) -> &[DVec2] {
        &self.points
    }

    /// The segment holding arc length `s` (taken modulo the length) and the arc length within it.
    fn locate(&self, s: f64) -> (usize, f64) {
        let u = s.rem_euclid(self.length());
        // The segment k with along[k] ≤ u < along[k + 1].
        let k = self.along.partition_point(|&a| a <= u).saturating_sub(1).min(self.points.len() - 1);
        (k, u)
    }

    /// The point at arc length `s` (any finite value; taken modulo the length).
    pub fn point_at(&self, s: f64) -> DVec2 {
        self.point_and_direction(s).0
    }

    /// The point at arc length `s` and the unit direction of travel there (zero on a degenerate
    /// segment).
    pub fn point_and_direction(&self, s: f64) -> (DVec2, DVec2) {
        let (k, u) = self.locate(s);
        let (a, b) = (self.points[k], self.points[(k + 1) % self.points.len()]);
        let seg = self.along[k + 1] - self.along[k];
        if seg <= 0.0 {
            return (a, DVec2::ZERO);
        }
        let f = ((u - self.along[k]) / seg).clamp(0.0, 1.0);
        (a + (b - a) * f, (b - a) / seg)
    }

    /// Distance along the route from `s` to the next vertex (one closer than a billionth of the
    /// length counts as passed: the one after it is taken).
    pub fn to_next_vertex(&self, s: f64) -> f64 {
        let (k, u) = self.locate(s);
        let n = self.points.len();
        let left = self.along[k + 1] - u;
        if left > 1e-9 * self.length() {
            left
        } else {
            left + (self.along[(k + 1) % n + 1] - self.along[(k + 1) % n])
        }
    }

    /// A circle holding the whole route: the centre of its bounding box and the distance to its
    /// farthest vertex.
    pub fn bounds(&self) -> (DVec2, f64) {
        let (lo, hi) =
            self.points.iter().fold((self.points[0], self.points[0]), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let c = (lo + hi) / 2.0;
        (c, self.points.iter().map(|p| p.distance(c)).fold(0.0, f64::max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_by_arc_length_and_wraps() {
        let r = Route::closed(vec![DVec2::ZERO, DVec2::new(3.0, 0.0), DVec2::new(3.0, 4.0)]).unwrap();
        assert_eq!(r.length(), 12.0);
        assert_eq!(r.point_at(1.5), DVec2::new(1.5, 0.0));
        assert_eq!(r.point_at(5.0), DVec2::new(3.0, 2.0));
        assert!(r.point_at(-1.0).distance(r.point_at(11.0)) < 1e-12);
        assert_eq!(r.point_and_direction(4.0), (DVec2::new(3.0, 1.0), DVec2::Y));
        assert_eq!((r.to_next_vertex(1.0), r.to_next_vertex(3.0), r.to_next_vertex(11.0)), (2.0, 4.0, 1.0));
    }

    #[test]
    fn far_from_the_origin_keeps_its_shape() {
        let c = DVec2::new(1e6, -1e6);
        let r = Route::box_step(c, 0.6).unwrap();
        assert!((r.length() - 2.4).abs() < 1e-9);
        for k in 0..100 {
            let p = r.point_at(k as f64 * 0.037);
            let d = (p - c).abs();
            assert!((d.x.max(d.y) - 0.3).abs() < 1e-9, "{p:?}");
        }
    }

    #[test]
    fn bad_routes_are_refused() {
        assert!(Route::closed(vec![DVec2::ZERO]).unwrap_err().to_string().contains("at least 2"));
        assert!(Route::closed(vec![DVec2::ZERO, DVec2::ZERO]).unwrap_err().to_string().contains("length"));
        assert!(Route::closed(vec![DVec2::ZERO, DVec2::new(f64::NAN, 0.0)])
            .unwrap_err()
            .to_string()
            .contains("point 1"));
    }
}
