//! Input polygons → convex faces: planar convex polygons kept whole, others triangulated (in the
//! projection along their normal), degenerate ones reported and skipped.

use super::{Face, FaceGeom, MAX_FACE_VERTICES, VERTICAL};
use crate::polygon::{BuildReport, PolygonError, PolygonSoup};
use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3};
use rayon::prelude::*;

/// Faces, vertices and edge equations (of faces of more than three vertices) under construction.
#[derive(Clone, Debug, Default)]
pub(crate) struct FaceSet {
    pub faces: Vec<Face>,
    pub geoms: Vec<FaceGeom>,
    pub verts: Vec<[f64; 3]>,
    pub edges: Vec<[f64; 3]>,
}

impl FaceSet {
    /// An empty set with room for `faces` faces of `vertices` vertices in all.
    pub fn with_capacity(faces: usize, vertices: usize) -> Self {
        Self {
            faces: Vec::with_capacity(faces),
            geoms: Vec::with_capacity(faces),
            verts: Vec::with_capacity(vertices),
            edges: Vec::new(),
        }
    }

    /// The faces of every polygon of `soup` but the `duplicate` ones, polygons taken in `order` (a
    /// permutation of their indices), with what the build met. Made in parallel chunks of
    /// polygons, then concatenated.
    pub fn from_polygons(
        soup: &PolygonSoup,
        order: &[u32],
        duplicate: &[bool],
        to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
        slack: f64,
    ) -> Result<(Self, BuildReport), PolygonError> {
        const CHUNK: usize = 8192;
        let chunks: Vec<Result<(FaceSet, BuildReport), PolygonError>> = order
            .par_chunks(CHUNK)
            .map(|chunk| {
                // Room for the polygons as they come (one face each, unless triangulated).
                let vertices = chunk.iter().map(|&k| soup.polygon(k as usize).len()).sum();
                let mut set = FaceSet::with_capacity(chunk.len(), vertices);
                let mut report = BuildReport::default();
                let mut scratch = Vec::new();
                for &k in chunk {
                    if duplicate[k as usize] {
                        report.note_duplicate(k);
                    } else {
                        add_polygon(k, soup.polygon(k as usize), to_local, slack, &mut set, &mut report, &mut scratch)?;
                    }
                }
                Ok((set, report))
            })
            .collect();
        let chunks = chunks.into_iter().collect::<Result<Vec<_>, _>>()?;
        let (parts, reports): (Vec<FaceSet>, Vec<BuildReport>) = chunks.into_iter().unzip();
        let mut report = BuildReport::default();
        reports.into_iter().for_each(|r| report.absorb(r));
        Ok((Self::concat(&parts), report))
    }

    /// [`FaceSet::from_polygons`] for a soup of triangles only (every TIN): one face per triangle,
    /// written by all threads straight into the final arrays (no chunks to concatenate). A
    /// duplicate or degenerate triangle leaves an empty record there, which a serial pass then
    /// removes (rare in practice).
    pub fn from_triangles(
        soup: &PolygonSoup,
        order: &[u32],
        duplicate: &[bool],
        to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
        slack: f64,
    ) -> (Self, BuildReport) {
        let empty = || (Face::zeroed(), FaceGeom::zeroed(), [[0.0; 3]; 3]);
        let (faces, (geoms, verts)): TriangleColumns = order
            .par_iter()
            .with_min_len(1024)
            .enumerate()
            .map(|(i, &k)| {
                // The polygons are read in spatial order, not in memory order: fetch the corners of
                // one a few steps ahead (every polygon has three, so polygon k's are at 3k).
                if let Some(&ahead) = order.get(i + PREFETCH_AHEAD) {
                    let corners = soup.points.as_ptr().wrapping_add(3 * ahead as usize);
                    crate::geom::prefetch_ptr(corners);
                    crate::geom::prefetch_ptr(corners.wrapping_add(2));
                }
                let p = soup.polygon(k as usize);
                let first = 3 * i as u32;
                let records = if duplicate[k as usize] {
                    None
                } else {
                    triangle_records(k, [p[0], p[1], p[2]], to_local, slack, first)
                };
                let (face, geom, verts) = records.unwrap_or_else(empty);
                (face, (geom, verts))
            })
            .unzip();
        // Three corners to a record: the same bytes, as arrays of one each (a cast that cannot
        // fail: same alignment, and any byte length divides by one corner's). Triangles keep their
        // edge equations in their face records alone.
        let mut set = Self { faces, geoms, verts: bytemuck::cast_vec(verts), edges: Vec::new() };
        let mut report = BuildReport::default();
        // An empty record has no vertices (a face has at least three).
        if set.faces.par_iter().any(|f| f.count == 0) {
            for (&k, f) in order.iter().zip(&set.faces) {
                if f.count == 0 {
                    if duplicate[k as usize] {
                        report.note_duplicate(k);
                    } else {
                        report.note_degenerate(k);
                    }
                }
            }
            set.remove_empty();
        }
        (set, report)
    }

    /// Removes the empty records [`FaceSet::from_triangles`] left (three vertices each), moving
    /// each face's `first` to where its vertices go.
    fn remove_empty(&mut self) {
        let keep: Vec<usize> = (0..self.faces.len()).filter(|&k| self.faces[k].count != 0).collect();
        let triples = |a: &[[f64; 3]]| keep.iter().flat_map(|&k| a[3 * k..3 * k + 3].iter().copied()).collect();
        *self = Self {
            faces: keep.iter().enumerate().map(|(i, &k)| Face { first: 3 * i as u32, ..self.faces[k] }).collect(),
            geoms: keep.iter().map(|&k| self.geoms[k]).collect(),
            verts: triples(&self.verts),
            edges: std::mem::take(&mut self.edges),
        };
    }

    /// The parts one after the other (each face's `first` and `more_edges` moved past the
    /// vertices and equations before its part), copied by all threads: the page faults of the new
    /// arrays, which cost more than the copy, are then taken by all of them, not one. (No zeroing
    /// first: a face record's 64-byte alignment would make that a serial `memset`.)
    pub fn concat(parts: &[FaceSet]) -> Self {
        let bases = |len: fn(&FaceSet) -> usize| -> Vec<u32> {
            parts
                .iter()
                .scan(0u32, |base, p| {
                    *base += len(p) as u32;
                    Some(*base - len(p) as u32)
                })
                .collect()
        };
        let (vertex_bases, edge_bases) = (bases(|p| p.verts.len()), bases(|p| p.edges.len()));
        let rebase = |k: usize, f: Face| Face { first: f.first + vertex_bases[k], ..f.with_edges_moved(edge_bases[k]) };
        Self {
            faces: concat_parallel(parts, |p| &p.faces, rebase),
            geoms: concat_parallel(parts, |p| &p.geoms, |_, g| g),
            verts: concat_parallel(parts, |p| &p.verts, |_, v| v),
            edges: concat_parallel(parts, |p| &p.edges, |_, e| e),
        }
    }
}

/// The arrays `array(part)` of `parts` one after the other, each element passed through `fix`
/// with its part's index; each part copied in parallel (see [`FaceSet::concat`]).
pub(super) fn concat_parallel<T: Pod + Send + Sync>(
    parts: &[FaceSet],
    array: impl Fn(&FaceSet) -> &Vec<T>,
    fix: impl Fn(usize, T) -> T + Sync,
) -> Vec<T> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| array(p).len()).sum());
    for (k, part) in parts.iter().enumerate() {
        out.par_extend(array(part).par_iter().with_min_len(1024).map(|&x| fix(k, x)));
    }
    out
}

/// How many polygons ahead [`FaceSet::from_triangles`] fetches the corners of.
pub(super) const PREFETCH_AHEAD: usize = 12;

pub use crate::polygon::limits::EDGE_SLACK;
use crate::polygon::limits::{MAX_COORDINATE, MIN_EXTENT};

/// Turns input polygon `source` (world vertices) into convex faces appended to `out`.
pub(crate) fn add_polygon(
    source: u32,
    world: &[DVec3],
    to_local: &dyn Fn(DVec3) -> DVec3,
    slack: f64,
    out: &mut FaceSet,
    report: &mut BuildReport,
    scratch: &mut Vec<DVec3>,
) -> Result<(), PolygonError> {
    if let Some(v) = world.iter().position(|v| !v.is_finite()) {
        return Err(PolygonError::NonFinite { polygon: source as usize, vertex: v });
    }
    if let Some(v) = world.iter().position(|v| v.abs().max_element() > MAX_COORDINATE) {
        return Err(PolygonError::OutOfRange { polygon: source as usize, vertex: v });
    }
    // Distinct consecutive vertices, closing vertex dropped.
    scratch.clear();
    for &v in world {
        if scratch.last() != Some(&v) {
            scratch.push(v);
        }
    }
    while scratch.len() > 1 && scratch.first() == scratch.last() {
        scratch.pop();
    }
    let Some((normal, extent)) = area_normal(scratch) else {
        report.note_degenerate(source);
        return Ok(());
    };
    if scratch.len() == 3 {
        // A triangle: planar and convex by nature.
        push_face(source, &[to_local(scratch[0]), to_local(scratch[1]), to_local(scratch[2])], slack, out);
        return Ok(());
    }
    let unit = scaled_normalize(normal);
    let planar = scratch.iter().all(|v| (*v - scratch[0]).dot(unit).abs() <= 1e-9 * extent);
    let local: Vec<DVec3> = scratch.iter().map(|&v| to_local(v)).collect();
    if planar && scratch.len() <= MAX_FACE_VERTICES && is_convex(scratch, unit) {
        push_face(source, &local, slack, out);
        return Ok(());
    }
    // Non-convex, self-overlapping or non-planar: triangulate in the projection along the normal.
    report.note_triangulated(source);
    let (u, v) = plane_axes(unit);
    // Projected relative to the first vertex; a polygon whose projection is not finite (coordinates
    // near f64::MAX) cannot be triangulated (earcutr panics on it) and is skipped as degenerate.
    let flat: Vec<f64> = scratch.iter().flat_map(|p| [(*p - scratch[0]).dot(u), (*p - scratch[0]).dot(v)]).collect();
    if !flat.iter().all(|c| c.is_finite()) {
        report.note_degenerate(source);
        return Ok(());
    }
    let tris = earcutr::earcut(&flat, &[], 2).unwrap_or_default();
    let before = out.faces.len();
    for t in tris.chunks_exact(3) {
        let tri = [local[t[0]], local[t[1]], local[t[2]]];
        if scaled_length((tri[1] - tri[0]).cross(tri[2] - tri[0])) > 1e-12 * extent * extent {
            push_face(source, &tri, slack, out);
        }
    }
    if out.faces.len() == before {
        report.note_degenerate(source);
    }
    Ok(())
}

/// Newell's normal and the extent of polygon `p` (distinct consecutive vertices, world
/// coordinates), or `None` when it is degenerate: fewer than three vertices, an extent below
/// [`MIN_EXTENT`], or no area relative to its extent squared. The
/// test is scale-free (the same polygon scaled by 1e±150 gives the same answer). Always inlined: a
/// triangle's test then runs with a known vertex count (unrolled loops, no `% n`).
#[inline(always)]
pub(super) fn area_normal(p: &[DVec3]) -> Option<(DVec3, f64)> {
    let normal = newell(p);
    let extent = p.iter().fold(0.0f64, |m, v| m.max((*v - p[0]).abs().max_element()));
    let area = scaled_length(normal);
    (p.len() >= 3 && extent >= MIN_EXTENT && area > 1e-12 * extent * extent).then_some((normal, extent))
}

/// |v| without its square's overflow or underflow (components up to f64::MAX, down to subnormals).
#[inline(always)]
pub(crate) fn scaled_length(v: DVec3) -> f64 {
    let m = v.abs().max_element();
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * (v / m).length()
}

/// `v` at unit length without its square's overflow or underflow.
#[inline(always)]
pub(crate) fn scaled_normalize(v: DVec3) -> DVec3 {
    (v / v.abs().max_element()).normalize()
}

/// A triangle's three vertices.
type Triple = [[f64; 3]; 3];

/// One triangle's records: the face, its geometry, and its vertices (which go at `first` in the
/// terrain's vertex array).
pub(crate) type TriangleRecords = (Face, FaceGeom, Triple);

/// [`TriangleRecords`] of many triangles, an array each.
type TriangleColumns = (Vec<Face>, (Vec<FaceGeom>, Vec<Triple>));

/// The records of input triangle `source` (world corners), its vertices at `first`, or `None`
/// when it is degenerate: exactly what [`add_polygon`] makes of it (for three
/// corners its clean-up leaves three vertices unless two are equal), without a [`FaceSet`], so that
/// a terrain of triangles can write its faces straight into their final arrays.
pub(crate) fn triangle_records(
    source: u32,
    [a, b, c]: [DVec3; 3],
    to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
    slack: f64,
    first: u32,
) -> Option<TriangleRecords> {
    if a == b || b == c || a == c {
        return None;
    }
    area_normal(&[a, b, c])?;
    let local = [to_local(a), to_local(b), to_local(c)];
    let (face, geom) = face_records(source, &local, slack, first, &mut Vec::new());
    Some((face, geom, local.map(|p| p.to_array())))
}

/// Appends one convex, planar face given by its local vertices.
pub(crate) fn push_face(source: u32, local: &[DVec3], slack: f64, out: &mut FaceSet) {
    let first = out.verts.len() as u32;
    out.verts.extend(local.iter().map(|p| p.to_array()));
    let (face, geom) = face_records(source, local, slack, first, &mut out.edges);
    out.faces.push(face);
    out.geoms.push(geom);
}

/// The face and geometry records of one convex, planar face given by its local vertices, whose
/// vertices go at `first`; the edge equations (one per vertex) of a face of more than three
/// vertices are appended to `edges` too. Always inlined: called with a triangle's three vertices,
/// the vertex count is a constant, so the loops unroll and the `% n` of the next vertex is no
/// division.
#[inline(always)]
pub(super) fn face_records(
    source: u32,
    local: &[DVec3],
    slack: f64,
    first: u32,
    edges: &mut Vec<[f64; 3]>,
) -> (Face, FaceGeom) {
    let n = local.len();
    let mut bbox = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    let mut z = [f64::INFINITY, f64::NEG_INFINITY];
    let mut area2 = 0.0;
    for k in 0..n {
        let (p, q) = (local[k], local[(k + 1) % n]);
        bbox = [bbox[0].min(p.x), bbox[1].min(p.y), bbox[2].max(p.x), bbox[3].max(p.y)];
        z = [z[0].min(p.z), z[1].max(p.z)];
        area2 += p.x * q.y - q.x * p.y;
    }
    let mut normal = scaled_normalize(newell(local));
    if normal.z < 0.0 {
        normal = -normal;
    }
    let extent = (bbox[2] - bbox[0]).max(bbox[3] - bbox[1]).max(z[1] - z[0]);
    let vertical = area2.abs() <= 1e-12 * extent * extent || normal.z <= 1e-12;
    // Edge equations A·x + B·y + C ≥ 0 inside, whatever the winding. Computed from the two
    // vertices in order and then negated as a whole if needed, so the neighbour that shares the
    // edge gets exactly the opposite numbers: no point on a shared edge falls between them.
    let sign = if area2 < 0.0 { -1.0 } else { 1.0 };
    // The boxes reach as far as the edges' slack, so that no test of a box leaves out a point
    // the slackened edge equations take in (near a coordinate of zero, rounding a box outward to
    // f32 adds next to nothing).
    let bbox = [bbox[0] - slack, bbox[1] - slack, bbox[2] + slack, bbox[3] + slack];
    let mut inline = [[0.0; 3]; 3];
    let more_edges = if n > 3 { edges.len() as u32 } else { 0 };
    for k in 0..n {
        let (p, q) = (local[k], local[(k + 1) % n]);
        let (a, b, c) = (p.y - q.y, q.x - p.x, p.x * q.y - q.x * p.y);
        let len = (a * a + b * b).sqrt();
        let e = [sign * a, sign * b, sign * c + len * slack];
        if k < 3 {
            inline[k] = e;
        }
        if n > 3 {
            edges.push(e);
        }
    }
    let centroid = local.iter().copied().sum::<DVec3>() / n as f64;
    let d = normal.dot(centroid);
    let slope = if vertical { [0.0; 3] } else { [-normal.x / normal.z, -normal.y / normal.z, d / normal.z] };
    let lo = |v: f64| if (v as f32) as f64 > v { (v as f32).next_down() } else { v as f32 };
    let hi = |v: f64| if ((v as f32) as f64) < v { (v as f32).next_up() } else { v as f32 };
    let face = Face {
        slope,
        edges: inline,
        bbox: [lo(bbox[0]), lo(bbox[1]), hi(bbox[2]), hi(bbox[3])],
        first,
        count: n as u16,
        flags: if vertical { VERTICAL } else { 0 },
        source,
        more_edges,
    };
    (face, FaceGeom { bbox, normal: normal.to_array(), d, z, source, pad: 0 })
}

/// Newell's normal (twice the vector area) of a polygon.
#[inline(always)]
pub(crate) fn newell(p: &[DVec3]) -> DVec3 {
    let n = p.len();
    let mut s = DVec3::ZERO;
    for k in 0..n {
        let (a, b) = (p[k] - p[0], p[(k + 1) % n] - p[0]);
        s += a.cross(b);
    }
    s
}

/// Two unit axes spanning the plane with normal `n`.
pub(super) fn plane_axes(n: DVec3) -> (DVec3, DVec3) {
    let u = n.any_orthonormal_vector();
    (u, n.cross(u))
}

/// Convex and simple (turns all one way, once around) in the plane with normal `n`.
pub(super) fn is_convex(p: &[DVec3], n: DVec3) -> bool {
    let (u, v) = plane_axes(n);
    let q: Vec<DVec2> = p.iter().map(|x| DVec2::new(x.dot(u), x.dot(v))).collect();
    let k = q.len();
    let (mut pos, mut neg, mut turning) = (false, false, 0.0);
    for i in 0..k {
        let (a, b, c) = (q[i], q[(i + 1) % k], q[(i + 2) % k]);
        let (e1, e2) = (b - a, c - b);
        let cross = e1.perp_dot(e2);
        pos |= cross > 0.0;
        neg |= cross < 0.0;
        turning += cross.atan2(e1.dot(e2));
    }
    !(pos && neg) && (turning.abs() - std::f64::consts::TAU).abs() < 1e-6
}
