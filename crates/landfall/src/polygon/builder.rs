//! Building a polygon terrain: the builder, polygons to faces (duplicates skipped, the frame
//! optionally turned to the long axis), then the quadtree.

use super::face::{FaceSet, QuickFace, VERTICAL};
use super::{order, seal, Arrays, Header, PolygonError, PolygonSoup, PolygonTerrain, QuadtreeParams};
use super::{Face, EDGE_SLACK};
use crate::frame::Frame;
use crate::geom::Aabb;
use glam::DVec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Builder for [`PolygonTerrain`]: polygons (any vertex count, any winding; non-convex ones are
/// triangulated), a gravity frame and the quadtree's parameters.
///
/// ```
/// use landfall::glam::DVec3;
/// use landfall::{Frame, PolygonTerrain};
///
/// // A ground square and a bridge deck above part of it, Y up as in glTF.
/// let ground = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(10.0, 0.0, 0.0), DVec3::new(10.0, 0.0, 10.0), DVec3::new(0.0, 0.0, 10.0)];
/// let deck = [DVec3::new(2.0, 5.0, 2.0), DVec3::new(8.0, 5.0, 2.0), DVec3::new(8.0, 5.0, 8.0), DVec3::new(2.0, 5.0, 8.0)];
/// let t = PolygonTerrain::builder()
///     .polygon(&ground)
///     .polygon(&deck)
///     .frame(Frame::from_gravity(DVec3::NEG_Y).unwrap())
///     .build()
///     .unwrap();
/// let mut heights = Vec::new();
/// t.surfaces_on_line(DVec3::new(5.0, 9.0, 5.0), |s| heights.push(s.point.y));
/// // Lowest first; the frame's rotation rounds in the last bits.
/// assert!(heights.len() == 2 && heights[0].abs() < 1e-9 && (heights[1] - 5.0).abs() < 1e-9);
/// assert!(t.floor_below(DVec3::new(5.0, 3.0, 5.0)).unwrap().point.y.abs() < 1e-9);
/// ```
#[derive(Clone, Debug)]
pub struct PolygonTerrainBuilder {
    soup: PolygonSoup,
    frame: Frame,
    params: QuadtreeParams,
    align: bool,
}

impl PolygonTerrainBuilder {
    /// Adds a polygon (world coordinates, any vertex count, any winding).
    pub fn polygon(mut self, vertices: &[DVec3]) -> Self {
        self.soup.push(vertices);
        self
    }

    /// Adds many polygons.
    pub fn polygons<P: AsRef<[DVec3]>>(mut self, polygons: impl IntoIterator<Item = P>) -> Self {
        for p in polygons {
            self.soup.push(p.as_ref());
        }
        self
    }

    /// Adds an indexed triangle mesh (`triangles` index `vertices`); out-of-range indices make the
    /// triangle degenerate (reported, skipped).
    pub fn triangles(mut self, vertices: &[DVec3], triangles: &[[u32; 3]]) -> Self {
        if triangles.par_iter().all(|t| t.iter().all(|&k| (k as usize) < vertices.len())) {
            // Every index in range (the usual case): the corners are copied by all threads.
            self.soup.extend_triangles(vertices, triangles);
            return self;
        }
        for t in triangles {
            let get = |k: u32| vertices.get(k as usize).copied().unwrap_or(DVec3::ZERO);
            if t.iter().any(|&k| k as usize >= vertices.len()) {
                self.soup.push(&[]);
            } else {
                self.soup.push(&[get(t[0]), get(t[1]), get(t[2])]);
            }
        }
        self
    }

    /// Gravity frame (default Z up).
    pub fn frame(mut self, frame: Frame) -> Self {
        self.frame = frame;
        self
    }

    /// Quadtree parameters (default [`QuadtreeParams::default`]).
    pub fn params(mut self, params: QuadtreeParams) -> Self {
        self.params = params;
        self
    }

    /// Turn the quadtree's axes to the terrain's long axis when that shrinks its bounding rectangle
    /// by more than 10 % (QOTA's future directions). Answers do not change, only the tree. Default
    /// off: measured on a long diagonal strip, equal-quadrant cells of an aligned root keep the
    /// strip's aspect ratio and the tree got 8× bigger (`docs/benchmarks.md`).
    pub fn align_long_axis(mut self, align: bool) -> Self {
        self.align = align;
        self
    }

    /// Builds faces and quadtree.
    pub fn build(self) -> Result<PolygonTerrain, PolygonError> {
        PolygonTerrain::from_soup_aligned(&self.soup, self.frame, self.params, self.align)
    }
}

impl PolygonTerrain {
    /// A builder with no polygons, Z-up gravity and default parameters.
    pub fn builder() -> PolygonTerrainBuilder {
        PolygonTerrainBuilder {
            soup: PolygonSoup::new(),
            frame: Frame::z_up(),
            params: QuadtreeParams::default(),
            align: false,
        }
    }

    /// Builds a terrain from a polygon soup.
    pub fn from_soup(soup: &PolygonSoup, frame: Frame, params: QuadtreeParams) -> Result<Self, PolygonError> {
        Self::from_soup_aligned(soup, frame, params, false)
    }

    /// [`PolygonTerrain::from_soup`], choosing whether to align the axes to the long axis.
    pub fn from_soup_aligned(
        soup: &PolygonSoup,
        frame: Frame,
        params: QuadtreeParams,
        align: bool,
    ) -> Result<Self, PolygonError> {
        params.validate().map_err(PolygonError::BadParams)?;
        if soup.points.len() >= u32::MAX as usize / 2 || soup.len() >= u32::MAX as usize / 2 {
            return Err(PolygonError::TooLarge);
        }
        // Whether any point is bad, by all threads; which one only then (rayon's `position_first`
        // took three times as long as a serial scan, 30–45 ms against 12 ms for 3M points).
        let usable = |p: &DVec3| p.is_finite() && p.abs().max_element() <= super::MAX_COORDINATE;
        let bad = soup.points.par_iter().with_min_len(1 << 16).any(|p| !usable(p));
        if let Some(k) = bad.then(|| soup.points.iter().position(|p| !usable(p))).flatten() {
            let polygon = soup.starts.partition_point(|&s| s <= k) - 1;
            let vertex = k - soup.starts[polygon];
            return Err(if soup.points[k].is_finite() {
                PolygonError::OutOfRange { polygon, vertex }
            } else {
                PolygonError::NonFinite { polygon, vertex }
            });
        }
        let world =
            soup.points.par_iter().fold(|| Aabb::EMPTY, |b, &p| b.grown(p)).reduce(|| Aabb::EMPTY, |a, b| a.union(&b));
        let center = if world.is_empty() { DVec3::ZERO } else { (world.min + world.max) * 0.5 };
        let extent = if world.is_empty() { 0.0 } else { (world.max - world.min).max_element() };
        let frame = if align { aligned(frame, center, &soup.points) } else { frame };
        let to_local = move |p: DVec3| frame.to_local(p - center);
        let slack = EDGE_SLACK * extent;
        let duplicate = duplicates(soup);
        let order = order::spatial_order(soup, &to_local);
        let (set, mut report) = if soup.starts.windows(2).all(|w| w[1] - w[0] == 3) {
            FaceSet::from_triangles(soup, &order, &duplicate, &to_local, slack)
        } else {
            FaceSet::from_polygons(soup, &order, &duplicate, &to_local, slack)?
        };
        report.polygons = soup.len();
        report.faces = set.faces.len();
        let (quick, vertical) = quick_faces(&set.faces);
        report.vertical = vertical;
        if set.faces.is_empty() {
            return Err(PolygonError::Empty(format!(
                "{} polygon(s) given, {} degenerate, {} duplicate",
                soup.len(),
                report.degenerate,
                report.duplicates
            )));
        }
        let header = Header { frame, center, root: [0.0; 4], params, polygons: soup.len() as u32, slack };
        let mut terrain = Self {
            header,
            arrays: Arrays::default(),
            report,
            jump: None,
            margin: 0.0,
            by_source: Vec::new(),
            validated: true,
        };
        terrain.arrays.quick = quick.into();
        terrain.arrays.faces = set.faces.into();
        terrain.arrays.geoms = set.geoms.into();
        terrain.arrays.verts = set.verts.into();
        terrain.arrays.edges = set.edges.into();
        terrain.rebuild_quadtree()?;
        Ok(terrain)
    }
}

/// `frame` turned about gravity so the smallest rectangle around the points (seen along gravity) is
/// axis-aligned — when that shrinks the rectangle by more than 10 %; else `frame` itself. The
/// rectangle is found by rotating calipers on the convex hull of (up to 65,536 sampled) points.
fn aligned(frame: Frame, center: DVec3, points: &[DVec3]) -> Frame {
    let step = points.len().div_ceil(65_536).max(1);
    let mut xy: Vec<[f64; 2]> =
        points.iter().step_by(step).map(|&p| frame.to_local(p - center)).map(|l| [l.x, l.y]).collect();
    xy.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    xy.dedup();
    if xy.len() < 3 {
        return frame;
    }
    // Monotone chain hull.
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * xy.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> =
            if pass == 0 { Box::new(xy.iter()) } else { Box::new(xy.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    let area = |theta: f64| {
        let (c, s) = (theta.cos(), theta.sin());
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in &hull {
            let (u, v) = (c * p[0] + s * p[1], -s * p[0] + c * p[1]);
            lo = [lo[0].min(u), lo[1].min(v)];
            hi = [hi[0].max(u), hi[1].max(v)];
        }
        (hi[0] - lo[0]) * (hi[1] - lo[1])
    };
    let n = hull.len();
    let best = (0..n)
        .map(|k| {
            let (a, b) = (hull[k], hull[(k + 1) % n]);
            (b[1] - a[1]).atan2(b[0] - a[0])
        })
        .map(|t| (area(t), t))
        .fold((area(0.0), 0.0), |m, x| if x.0 < m.0 { x } else { m });
    if best.0.partial_cmp(&(0.9 * area(0.0))) != Some(std::cmp::Ordering::Less) {
        return frame;
    }
    let yaw = glam::DMat3::from_rotation_z(-best.1);
    Frame::from_rotation(frame.down(), yaw * frame.rotation()).unwrap_or(frame)
}

/// Marks every polygon whose vertex set equals that of an earlier polygon: order-free hashes of
/// the vertex bits ([`set_hash`]), sorted, polygons in a group of equal (truncated) hashes
/// compared exactly.
pub(super) fn duplicates(soup: &PolygonSoup) -> Vec<bool> {
    duplicates_grouped(soup, 32)
}

/// [`duplicates`] with polygons grouped by the low `bits` bits of their hashes.
fn duplicates_grouped(soup: &PolygonSoup, bits: u32) -> Vec<bool> {
    let vertex_bits = |p: &DVec3| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
    let sorted_bits = |k: usize| {
        let mut b: Vec<[u64; 3]> = soup.polygon(k).iter().map(vertex_bits).collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let mut keys: Vec<(u64, u32)> = (0..soup.len())
        .into_par_iter()
        .map(|k| {
            let poly = soup.polygon(k);
            if poly.len() == 3 {
                // The hash is order-free: a triangle's corners need no sorting, whose comparisons
                // went as randomly as the corners.
                let v: [[u64; 3]; 3] = std::array::from_fn(|i| vertex_bits(&poly[i]));
                // Degenerate: never grouped with a true triangle.
                let degenerate = (v[0] == v[1]) | (v[1] == v[2]) | (v[0] == v[2]);
                return (set_hash(&v) ^ u64::from(degenerate), k as u32);
            }
            (set_hash(&sorted_bits(k)), k as u32)
        })
        .collect();
    // Grouped by the hash's low `bits` bits only (32: half the radix sort's passes): a group may
    // then hold polygons whose hashes differ, which the exact comparison below tells apart.
    keys.iter_mut().for_each(|key| key.0 &= (1u64 << bits) - 1);
    order::sort_keyed(&mut keys);
    let mut dup = vec![false; soup.len()];
    for run in keys.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
        let sets: Vec<Vec<[u64; 3]>> = run.iter().map(|&(_, k)| sorted_bits(k as usize)).collect();
        for i in 1..run.len() {
            if sets[..i].iter().any(|s| s == &sets[i] && s.len() >= 3) {
                dup[run[i].1 as usize] = true;
            }
        }
    }
    dup
}

/// A hash of a set of vertices (their bits) for grouping candidate duplicates: equal hashes are
/// compared exactly, so it needs to spread, not to resist attacks. Order-free: the wrapping sum of
/// the vertices' hashes (the sealing's [`seal::vertex_hash`]), mixed with the count.
fn set_hash(vertices: &[[u64; 3]]) -> u64 {
    let sum = vertices.iter().fold(vertices.len() as u64, |s, &v| s.wrapping_add(seal::vertex_hash(v)));
    crate::rng::mix(sum)
}

/// The quick records of `faces`, and how many of them are vertical: one parallel pass over the
/// faces (they are read once, which matters for a million of them).
fn quick_faces(faces: &[Face]) -> (Vec<QuickFace>, usize) {
    let vertical = AtomicUsize::new(0);
    let quick = faces
        .par_iter()
        .with_min_len(4096)
        .map(|f| {
            if f.flags & VERTICAL != 0 {
                vertical.fetch_add(1, Ordering::Relaxed);
            }
            QuickFace::of(f)
        })
        .collect();
    (quick, vertical.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Duplicates are the polygons whose vertex set (bit for bit) an earlier one has, whatever the
    /// vertex order, degenerate ones never: against a plain set of sorted vertex sets, with groups
    /// of 32-bit hashes and with groups of 3-bit hashes, where most polygons in a group differ.
    #[test]
    fn duplicates_are_repeated_vertex_sets() {
        let mut rng = crate::rng::SplitMix64::new(4);
        let mut soup = PolygonSoup::new();
        let point = |rng: &mut crate::rng::SplitMix64| {
            DVec3::new(rng.range(0.0, 3.0).round(), rng.range(0.0, 3.0).round(), rng.range(0.0, 1.0).round())
        };
        for k in 0..3000 {
            let n = 3 + k % 2;
            let mut p: Vec<DVec3> = (0..n).map(|_| point(&mut rng)).collect();
            if k % 7 == 0 && !soup.is_empty() {
                // An earlier polygon's vertices, rotated.
                p = soup.polygon((rng.next_u64() % soup.len() as u64) as usize).to_vec();
                p.rotate_left(1);
            }
            soup.push(&p);
        }
        let mut seen = std::collections::HashSet::new();
        let want: Vec<bool> = (0..soup.len())
            .map(|k| {
                let mut v: Vec<[u64; 3]> =
                    soup.polygon(k).iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect();
                v.sort_unstable();
                v.dedup();
                v.len() >= 3 && !seen.insert(v)
            })
            .collect();
        assert!(want.iter().filter(|&&d| d).count() > 300);
        assert_eq!(duplicates(&soup), want);
        assert_eq!(duplicates_grouped(&soup, 3), want);
    }
}
