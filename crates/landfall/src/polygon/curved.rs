//! QOTA beyond Cartesian coordinates (the paper's future directions): the same quadtree over two
//! angular/axial coordinates, answering along a third, curved "vertical".
//!
//! * [`CurvedFrame::Spherical`] — a planet: polygons indexed by (longitude, latitude) in degrees
//!   around `center`; elevation is the radius; gravity points to the center.
//! * [`CurvedFrame::Cylindrical`] — a rotating station: polygons indexed by (angle about the axis,
//!   position along it); gravity points away from the axis, so "up" is toward it and the floor is
//!   the surface farthest out.
//!
//! Each face's key box covers its vertices and points along its edges (a flat face seen from the
//! center spans great-circle arcs, which bulge; the box is padded for the bulge between samples).
//! A face across the ±180° seam gets one key box on each side; a face around a pole (or around the
//! axis) spans every angle. The quadtree only picks candidates: the answer is the exact crossing of
//! the radial line with the face (the watertight ray–polygon test of the ray casts), so the seam
//! and the poles cost nothing in accuracy.

use super::face::{add_polygon, FaceGeom, FaceSet, VERTICAL};
use super::quadtree::{self, Node, QuadtreeParams};
use super::raycast::{hit_polygon, LocalRay};
use super::{BuildReport, Face, PolygonError, PolygonSoup};
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use bytemuck::Zeroable;
use glam::DVec3;

/// A curved gravity field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CurvedFrame {
    /// Radial gravity toward `center` (a planet).
    Spherical {
        /// The planet's center, world coordinates.
        center: DVec3,
    },
    /// Gravity pointing away from the line through `point` along `axis` (a rotating station).
    Cylindrical {
        /// A point on the axis.
        point: DVec3,
        /// Direction of the axis (any length).
        axis: DVec3,
    },
}

/// A polygon terrain under a [`CurvedFrame`]: the QOTA quadtree over (longitude, latitude) or (angle,
/// position along the axis), answering along the curved "vertical" (see the `polygon` module's "How it works").
#[derive(Clone, Debug)]
pub struct CurvedTerrain {
    frame: CurvedFrame,
    /// Origin of the internal coordinates (center, or point on the axis).
    origin: DVec3,
    /// Unit axis and two unit vectors across it (cylinder); the world axes (sphere).
    basis: [DVec3; 3],
    set: FaceSet,
    /// Per face: its box in world coordinates (for ray casts).
    boxes: Vec<Aabb>,
    /// Quadtree entries: a face (index in `first`) with one key box.
    keys: Vec<Face>,
    key_geoms: Vec<FaceGeom>,
    nodes: Vec<Node>,
    refs: Vec<u32>,
    root: [f64; 4],
    report: BuildReport,
    nominal: Frame,
}

/// A radial line: where it starts, its direction, and the elevation of a point at parameter t.
struct Line {
    origin: DVec3,
    dir: DVec3,
}

const SAMPLES_PER_EDGE: usize = 8;

impl CurvedTerrain {
    /// Builds the terrain from polygons (world coordinates, any vertex count and winding).
    pub fn from_soup(soup: &PolygonSoup, frame: CurvedFrame, params: QuadtreeParams) -> Result<Self, PolygonError> {
        let (origin, basis) = match frame {
            CurvedFrame::Spherical { center } => (center, [DVec3::X, DVec3::Y, DVec3::Z]),
            CurvedFrame::Cylindrical { point, axis } => {
                if !axis.is_finite() || axis == DVec3::ZERO {
                    return Err(PolygonError::Empty("the cylinder axis must be a finite non-zero vector".into()));
                }
                let w = axis.normalize();
                let u = w.any_orthonormal_vector();
                (point, [u, w.cross(u), w])
            }
        };
        if !origin.is_finite() {
            return Err(PolygonError::Empty("the frame's center or axis point is not finite".into()));
        }
        let mut set = FaceSet::default();
        let mut report = BuildReport { polygons: soup.len(), ..BuildReport::default() };
        let mut scratch = Vec::new();
        let to_local = |p: DVec3| p - origin;
        for k in 0..soup.len() {
            add_polygon(k as u32, soup.polygon(k), &to_local, 0.0, &mut set, &mut report, &mut scratch)?;
        }
        report.faces = set.faces.len();
        if set.faces.is_empty() {
            return Err(PolygonError::Empty(format!(
                "{} polygon(s) given, {} degenerate",
                soup.len(),
                report.degenerate
            )));
        }
        let mut t = Self {
            frame,
            origin,
            basis,
            set,
            boxes: Vec::new(),
            keys: Vec::new(),
            key_geoms: Vec::new(),
            nodes: Vec::new(),
            refs: Vec::new(),
            root: [0.0; 4],
            report,
            nominal: Frame::z_up(),
        };
        t.index(params);
        Ok(t)
    }

    /// The curved frame.
    pub fn curved_frame(&self) -> CurvedFrame {
        self.frame
    }

    /// What the build did with the input.
    pub fn report(&self) -> &BuildReport {
        &self.report
    }

    /// Quadtree entries (faces across the seam count twice).
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    fn verts(&self, f: usize) -> &[[f64; 3]] {
        let face = &self.set.faces[f];
        &self.set.verts[face.first as usize..face.first as usize + face.count as usize]
    }

    /// (angle in degrees, second key, elevation) of a point in internal coordinates.
    fn key(&self, q: DVec3) -> (f64, f64, f64) {
        let [u, v, w] = self.basis;
        match self.frame {
            CurvedFrame::Spherical { .. } => {
                let r = q.length();
                let lat = if r > 0.0 { (q.z / r).clamp(-1.0, 1.0).asin().to_degrees() } else { 0.0 };
                (q.y.atan2(q.x).to_degrees(), lat, r)
            }
            CurvedFrame::Cylindrical { .. } => {
                let s = q.dot(w);
                let radial = q - w * s;
                (radial.dot(v).atan2(radial.dot(u)).to_degrees(), s, -radial.length())
            }
        }
    }

    /// The radial line through internal point `q` (None on the center or the axis).
    fn line(&self, q: DVec3) -> Option<Line> {
        let l = match self.frame {
            CurvedFrame::Spherical { .. } => Line { origin: DVec3::ZERO, dir: q },
            CurvedFrame::Cylindrical { .. } => {
                let w = self.basis[2];
                let foot = w * q.dot(w);
                Line { origin: foot, dir: q - foot }
            }
        };
        (l.dir.length_squared() > 0.0 && l.dir.is_finite()).then_some(l)
    }

    /// Unit "up" at world point `p`: away from the center, or toward the axis.
    pub fn up_at(&self, p: DVec3) -> DVec3 {
        let q = p - self.origin;
        match self.frame {
            CurvedFrame::Spherical { .. } => q.normalize_or_zero(),
            CurvedFrame::Cylindrical { .. } => {
                let w = self.basis[2];
                (w * q.dot(w) - q).normalize_or_zero()
            }
        }
    }

    /// Builds the key boxes and the quadtree over them.
    fn index(&mut self, params: QuadtreeParams) {
        let n = self.set.faces.len();
        self.boxes = (0..n)
            .map(|f| self.verts(f).iter().fold(Aabb::EMPTY, |b, v| b.grown(DVec3::from_array(*v) + self.origin)))
            .collect();
        let spherical = matches!(self.frame, CurvedFrame::Spherical { .. });
        for f in 0..n {
            let verts: Vec<DVec3> = self.verts(f).iter().map(|v| DVec3::from_array(*v)).collect();
            let k = verts.len();
            let mut samples = Vec::with_capacity(k * SAMPLES_PER_EDGE);
            for i in 0..k {
                let (a, b) = (verts[i], verts[(i + 1) % k]);
                samples.extend((0..SAMPLES_PER_EDGE).map(|s| a.lerp(b, s as f64 / SAMPLES_PER_EDGE as f64)));
            }
            let keys: Vec<(f64, f64, f64)> = samples.iter().map(|&q| self.key(q)).collect();
            let a0 = keys[0].0;
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for &(a, s, e) in &keys {
                let a = a + 360.0 * ((a0 - a) / 360.0).round(); // unwrapped near a0
                for (d, x) in [a, s, e].into_iter().enumerate() {
                    lo[d] = lo[d].min(x);
                    hi[d] = hi[d].max(x);
                }
            }
            // Bulge of the arcs between samples (sphere: great circles; cylinder: exact in s).
            let step = samples
                .iter()
                .zip(samples.iter().cycle().skip(1))
                .map(|(p, q)| p.angle_between(*q))
                .fold(0.0f64, f64::max);
            let pad = if spherical { (step * step / 8.0).to_degrees() + 1e-9 } else { 1e-9 };
            lo[1] -= pad;
            hi[1] += pad;
            let g = &self.set.geoms[f];
            let axis_dirs: [DVec3; 2] = [self.basis[2], -self.basis[2]];
            let around = if spherical {
                // A face around a pole: the polar ray from the center meets it.
                axis_dirs.iter().map(|&d| (d, LocalRay::new(DVec3::ZERO, d))).find(|(_, r)| {
                    hit_polygon(
                        &verts.iter().map(|v| v.to_array()).collect::<Vec<_>>(),
                        DVec3::from_array(g.normal),
                        g.d,
                        r,
                        f64::INFINITY,
                    )
                    .is_some()
                })
            } else {
                None
            };
            if let Some((d, _)) = around {
                (lo[0], hi[0]) = (-180.0, 180.0);
                if d.z > 0.0 {
                    hi[1] = 90.0
                } else {
                    lo[1] = -90.0
                }
            } else if hi[0] - lo[0] >= 180.0 {
                (lo[0], hi[0]) = (-180.0, 180.0);
            }
            let (pad_a, mut boxes) = (1e-9, Vec::new());
            let (a, b) = (lo[0] - pad_a, hi[0] + pad_a);
            if a < -180.0 {
                boxes.push([a + 360.0, 180.0]);
                boxes.push([-180.0, b]);
            } else if b > 180.0 {
                boxes.push([a, 180.0]);
                boxes.push([-180.0, b - 360.0]);
            } else {
                boxes.push([a, b]);
            }
            for [x0, x1] in boxes {
                let mut key = Face::zeroed();
                key.first = f as u32;
                key.count = 3;
                key.flags = VERTICAL;
                self.keys.push(key);
                let mut geom = *g;
                geom.bbox = [x0.max(-180.0), lo[1], x1.min(180.0), hi[1]];
                geom.z = [lo[2], hi[2]];
                self.key_geoms.push(geom);
            }
        }
        let ids: Vec<u32> = (0..self.keys.len() as u32).collect();
        let root = self.key_geoms.iter().fold(quadtree::EMPTY_RECT, |r, g| quadtree::union_rect(r, g.bbox));
        let bounds = quadtree::PackedBounds::of(&self.key_geoms);
        let tree = quadtree::build(&self.keys, &bounds, &self.set.edges, None, ids, root, params);
        (self.nodes, self.refs, self.root) = (tree.nodes, tree.refs, root);
    }

    /// Calls `visit(elevation, face, internal hit point)` for each face the radial line through
    /// internal point `q` crosses (a face across the seam may come twice).
    fn crossings(&self, q: DVec3, mut visit: impl FnMut(f64, u32, DVec3)) {
        let Some(line) = self.line(q) else { return };
        let (a, s, _) = self.key(q);
        let r = self.root;
        if !(a >= r[0] && a <= r[2] && s >= r[1] && s <= r[3]) {
            return;
        }
        let mut node = &self.nodes[0];
        while !node.is_leaf() {
            node = &self.nodes[node.child_at(a, s)];
        }
        let ray = LocalRay::new(line.origin, line.dir);
        for &k in node.leaf_refs(&self.refs).unwrap_or_default() {
            let f = self.keys[k as usize].first;
            let g = &self.set.geoms[f as usize];
            if let Some(t) = hit_polygon(self.verts(f as usize), DVec3::from_array(g.normal), g.d, &ray, f64::INFINITY)
            {
                let hit = line.origin + line.dir * t;
                visit(self.key(hit).2, f, hit);
            }
        }
    }

    fn surface(&self, f: u32, hit: DVec3) -> SurfacePoint {
        let p = hit + self.origin;
        let n = DVec3::from_array(self.set.geoms[f as usize].normal);
        let n = if n.dot(self.up_at(p)) < 0.0 { -n } else { n };
        SurfacePoint { point: p, normal: n, triangle: TriangleId::Polygon(self.set.geoms[f as usize].source) }
    }

    /// Every surface on the radial line through `p`, lowest (along gravity) first, coincident ones
    /// once. Allocation-free for up to 32 surfaces on the line.
    pub fn surfaces_on_line(&self, p: DVec3, mut visit: impl FnMut(SurfacePoint)) {
        super::vertical::sorted_unique(
            1.0,
            |add: &mut dyn FnMut(f64, u32, DVec3)| self.crossings(p - self.origin, add),
            |_, f, h| visit(self.surface(f, h)),
        );
    }

    fn pick(&self, p: DVec3, keep: impl Fn(f64) -> bool, better: impl Fn(f64, f64) -> bool) -> Option<SurfacePoint> {
        let mut best: Option<(f64, u32, DVec3)> = None;
        self.crossings(p - self.origin, |e, f, h| {
            if keep(e) && best.is_none_or(|(b, bf, _)| better(e, b) || (e == b && f < bf)) {
                best = Some((e, f, h));
            }
        });
        best.map(|(_, f, h)| self.surface(f, h))
    }

    /// The highest surface (farthest up) on the radial line through `p`.
    pub fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        self.pick(p, |_| true, |a, b| a > b)
    }

    /// The nearest surface at or below `p` along gravity.
    pub fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        let e = self.key(p - self.origin).2;
        let limit = e + super::SURFACE_EPS * (1.0 + e.abs());
        self.pick(p, |x| x <= limit, |a, b| a > b)
    }

    /// The nearest surface at or above `p` against gravity.
    pub fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        let e = self.key(p - self.origin).2;
        let limit = e - super::SURFACE_EPS * (1.0 + e.abs());
        self.pick(p, |x| x >= limit, |a, b| a < b)
    }

    /// First crossing of `ray` for t in [0, `max_t`]: every face whose box the ray meets is tested
    /// (O(faces); the key-space quadtree serves the radial queries).
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        let local = LocalRay::new(ray.origin - self.origin, ray.dir);
        let mut best: Option<(f64, u32)> = None;
        for (f, b) in self.boxes.iter().enumerate() {
            let limit = best.map_or(max_t, |(t, _)| t);
            if b.clip_ray(ray.origin, ray.dir, 0.0, limit).is_none() {
                continue;
            }
            let g = &self.set.geoms[f];
            if let Some(t) = hit_polygon(self.verts(f), DVec3::from_array(g.normal), g.d, &local, limit) {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, f as u32));
                }
            }
        }
        let (t, f) = best?;
        let s = self.surface(f, ray.at(t) - self.origin);
        Some(Hit { t, point: ray.at(t), normal: s.normal, triangle: s.triangle })
    }
}

impl Terrain for CurvedTerrain {
    /// A nominal Z-up frame: gravity varies from point to point, see [`Terrain::up_at`].
    fn frame(&self) -> &Frame {
        &self.nominal
    }

    fn up_at(&self, p: DVec3) -> DVec3 {
        CurvedTerrain::up_at(self, p)
    }

    fn bounds(&self) -> Aabb {
        self.boxes.iter().fold(Aabb::EMPTY, |a, b| a.union(b))
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        CurvedTerrain::surfaces_on_line(self, p, visit)
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        CurvedTerrain::raycast(self, ray, max_t)
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        for (f, b) in self.boxes.iter().enumerate() {
            let meets = b.min.cmple(region.max).all() && b.max.cmpge(region.min).all();
            if !meets {
                continue;
            }
            let v: Vec<DVec3> = self.verts(f).iter().map(|v| DVec3::from_array(*v) + self.origin).collect();
            for k in 1..v.len() - 1 {
                visit(TriangleId::Polygon(self.set.geoms[f].source), [v[0], v[k], v[k + 1]]);
            }
        }
    }

    fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        CurvedTerrain::top_surface(self, p)
    }

    fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        CurvedTerrain::floor_below(self, p)
    }

    fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        CurvedTerrain::ceiling_above(self, p)
    }
}
