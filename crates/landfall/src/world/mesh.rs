//! The continuous mesh of the cache (the thesis' 3.3.4–3.4).
//!
//! Each drawn layer contributes three regions, each its own vertex and index buffer:
//!
//! * the **outer ring** — the layer's drawable cells (all but the window's outermost ring of
//!   cells, whose corners are unknown) that are more than `inner_radius − 2` cells from the middle;
//!   its shape never changes, only its vertex data when the layer moves;
//! * the **inner region** — the cells between the outer ring and the *center* (the cells the finer
//!   layer covers): always the same number of cells, in one of nine configurations depending on
//!   where the finer layer sits; the finest drawn layer has no center and draws it whole;
//! * the **seam** — a strip half a cell wide between the center's edge (this layer's corners) and
//!   the finer layer's drawable edge (its corners, two per cell edge), zipped with triangles.
//!
//! Each cell is a fan of four triangles around its midpoint (its own generated height); corners are
//! the means of the four cells around them. Vertices are f32 relative to the layer's window origin
//! (an f64), so precision does not depend on the distance from the world origin.
//!
//! **Morphing** (3.4): every vertex carries its own height, the height of the coarser layer's surface
//! at the same place, and a blend in [0, 1] that ramps from 0 at the layer's outer edge to 1 at the
//! inner edge of its outer ring, ring by ring; the drawn height is `z_parent + blend·(z − z_parent)`.
//! The blend depends only on where the vertex sits in its window, so it changes only when the layer
//! moves — when the ring is rewritten anyway — and the layer's outer edge matches the coarser
//! surface, which the seam joins.
//!
//! **Updates** (step 6 of 3.3.6): a layer that moved rewrites its outer ring; a layer whose window
//! or whose finer layer moved rewrites its inner region; a layer whose finer layer moved rewrites
//! its seam. The drawn heights of every vertex also go to two small grids per layer (corners and
//! midpoints, toroidally addressed), which the queries read, so queries answer on exactly the
//! triangles that are drawn.

use super::store::{CellStore, Grid};
use super::{UpdateStats, World};
use glam::{DVec2, DVec3};

/// One mesh vertex, relative to its layer's origin.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshVertex {
    /// x, y relative to the layer origin and the vertex's own height (metres).
    pub pos: [f32; 3],
    /// Height of the coarser layer's surface at (x, y).
    pub z_parent: f32,
    /// Morph blend: 0 = the coarser surface, 1 = this layer's own height.
    pub blend: f32,
}

impl MeshVertex {
    /// The drawn height: `z_parent + blend·(z − z_parent)`.
    #[inline]
    pub fn drawn_z(&self) -> f32 {
        self.z_parent + self.blend * (self.pos[2] - self.z_parent)
    }
}

/// A vertex and index buffer (triangles, counter-clockwise seen from above).
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// Vertices, relative to the layer origin.
    pub vertices: Vec<MeshVertex>,
    /// Triangle list, three indices per triangle, into `vertices`.
    pub indices: Vec<u32>,
    /// Where each vertex sits, in half cells from the window origin (the seam: in the finer
    /// layer's cells, see [`SeamTopology`]).
    points: Vec<[i64; 2]>,
    /// Lowest and highest drawn height.
    z_range: [f32; 2],
}

impl Region {
    fn bytes(&self) -> usize {
        self.vertices.capacity() * std::mem::size_of::<MeshVertex>()
            + self.indices.capacity() * 4
            + self.points.capacity() * 16
    }

    fn clear(&mut self) {
        self.z_range = [f32::INFINITY, f32::NEG_INFINITY];
        self.vertices.clear();
        self.indices.clear();
        self.points.clear();
    }

    /// Number of triangles.
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }
}

/// A layer's share of the mesh.
#[derive(Clone, Debug)]
pub struct LayerMesh {
    /// The layer (level) number.
    pub level: u8,
    /// World x, y of the layer's window origin (its south-west cell's corner); vertices are
    /// relative to it.
    pub origin: DVec2,
    /// The outer ring.
    pub outer: Region,
    /// The inner region.
    pub inner: Region,
    /// The seam to the finer layer (empty for the finest drawn layer).
    pub seam: Region,
    /// Whether the layer is drawn now.
    pub drawn: bool,
    /// Lowest and highest drawn height of the layer's vertices.
    pub z_range: [f32; 2],
    /// Offset of the finer layer's window in this one's, cells (None: no finer layer drawn).
    pub(crate) center: Option<[i64; 2]>,
    /// Drawn heights of corners and midpoints, by absolute line / cell.
    rz_corner: Grid,
    rz_mid: Grid,
}

impl LayerMesh {
    pub(crate) fn new(level: u8, width: i64) -> Self {
        Self {
            level,
            origin: DVec2::ZERO,
            outer: Region::default(),
            inner: Region::default(),
            seam: Region::default(),
            drawn: false,
            z_range: [0.0, 0.0],
            center: None,
            rz_corner: Grid::new(width as usize),
            rz_mid: Grid::new(width as usize),
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.outer.bytes()
            + self.inner.bytes()
            + self.seam.bytes()
            + self.rz_corner.bytes()
            + self.rz_mid.bytes()
    }

    /// Drawn height of the corner at absolute grid line (i, j).
    #[inline]
    pub(crate) fn corner_z(&self, i: i64, j: i64) -> f32 {
        self.rz_corner.get(i, j)
    }

    /// Drawn height of the midpoint of absolute cell (i, j).
    #[inline]
    pub(crate) fn mid_z(&self, i: i64, j: i64) -> f32 {
        self.rz_mid.get(i, j)
    }

    /// Where the finer layer's window sits in this one's, cells from this window's origin (one of
    /// nine offsets); `None` for the finest drawn layer.
    pub fn center_offset(&self) -> Option<[i64; 2]> {
        self.center
    }

    /// The regions with triangles, in drawing order.
    pub fn regions(&self) -> [&Region; 3] {
        [&self.outer, &self.inner, &self.seam]
    }

    /// Triangles in the layer's regions.
    pub fn triangles(&self) -> usize {
        self.regions().iter().map(|r| r.triangles()).sum()
    }
}

/// The corners of a cell, counter-clockwise from the south-west: offsets in grid lines.
pub(crate) const CORNERS: [[i64; 2]; 4] = [[0, 0], [1, 0], [1, 1], [0, 1]];

/// Fan triangle `part` (0 south, 1 east, 2 north, 3 west) of a cell: two corners (indices into
/// [`CORNERS`]) and the midpoint.
pub(crate) const FAN: [[usize; 2]; 4] = [[0, 1], [1, 2], [2, 3], [3, 0]];

/// Which fan triangle of a unit cell holds local point (u, v).
#[inline]
pub(crate) fn fan_part(u: f64, v: f64) -> usize {
    let (below_main, below_anti) = (v <= u, v <= 1.0 - u);
    match (below_main, below_anti) {
        (true, true) => 0,
        (true, false) => 1,
        (false, false) => 2,
        (false, true) => 3,
    }
}

/// Height at local (u, v) ∈ [0, 1]² of a cell with corner heights `z` (counter-clockwise from the
/// south-west) and midpoint height `mid`, on its fan of four triangles.
pub fn fan_height(z: [f64; 4], mid: f64, u: f64, v: f64) -> f64 {
    let p = FAN[fan_part(u, v)];
    let c = |k: usize| DVec2::new(CORNERS[k][0] as f64, CORNERS[k][1] as f64);
    plane_height([c(p[0]), c(p[1]), DVec2::splat(0.5)], [z[p[0]], z[p[1]], mid], DVec2::new(u, v))
}

/// Height at `q` of the plane through three points given by their x, y and z.
#[inline]
pub(crate) fn plane_height(p: [DVec2; 3], z: [f64; 3], q: DVec2) -> f64 {
    let (e1, e2, d) = (p[1] - p[0], p[2] - p[0], q - p[0]);
    let det = e1.perp_dot(e2);
    if det == 0.0 {
        return z[0];
    }
    let b1 = d.perp_dot(e2) / det;
    let b2 = e1.perp_dot(d) / det;
    z[0] + b1 * (z[1] - z[0]) + b2 * (z[2] - z[0])
}

/// The seam's fixed shape, in the finer layer's cells from its window origin (the center's
/// south-west corner): `outer` corners of this layer (every second line of the square's edge, 0 ..
/// width), `inner` corners of the finer layer (lines 1 .. width − 1 around its drawable edge), the
/// triangles as indices into outer ++ inner, and for each cell of the finer layer's outermost ring
/// the triangles that overlap it.
#[derive(Clone, Debug)]
pub struct SeamTopology {
    /// Positions of the vertices (outer loop first), finer-layer lines.
    pub points: Vec<[i64; 2]>,
    /// Number of outer-loop vertices.
    pub outer: usize,
    /// Triangles, counter-clockwise.
    pub triangles: Vec<[u32; 3]>,
    /// Ring cell (by [`SeamTopology::ring_index`]) → triangles overlapping it.
    pub by_cell: Vec<Vec<u16>>,
    width: i64,
}

impl SeamTopology {
    /// The seam of a window `width` cells wide (`width` a multiple of 4).
    pub fn new(width: i64) -> Self {
        let (half, side_in) = (width / 2, width - 2);
        // Walk the square counter-clockwise: side s maps (along t, depth) to a point.
        let at = |s: i64, t: i64, depth: i64| -> [i64; 2] {
            match s {
                0 => [t, depth],
                1 => [width - depth, t],
                2 => [width - t, width - depth],
                _ => [depth, width - t],
            }
        };
        let mut points = Vec::new();
        for s in 0..4 {
            for a in 0..half {
                points.push(at(s, 2 * a, 0));
            }
        }
        let outer = points.len();
        for s in 0..4 {
            for t in 1..=side_in {
                points.push(at(s, t, 1));
            }
        }
        let n_out = 4 * half;
        let n_in = 4 * side_in;
        let p = |s: i64, a: i64| ((s * half + a).rem_euclid(n_out)) as u32;
        let c = |s: i64, t: i64| (outer as i64 + (s * side_in + t - 1).rem_euclid(n_in)) as u32;
        let mut triangles = Vec::new();
        for s in 0..4 {
            for a in 0..half {
                if a > 0 {
                    triangles.push([p(s, a), c(s, 2 * a), c(s, 2 * a - 1)]);
                    triangles.push([p(s, a), c(s, 2 * a + 1), c(s, 2 * a)]);
                }
                triangles.push([p(s, a), p(s, a + 1), c(s, 2 * a + 1)]);
            }
        }
        let mut topo = SeamTopology { points, outer, triangles, by_cell: Vec::new(), width };
        let mut by_cell = vec![Vec::new(); (4 * (width - 1)) as usize];
        for (n, t) in topo.triangles.iter().enumerate() {
            let v = t.map(|k| topo.points[k as usize]);
            let (x0, x1) = (v.iter().map(|p| p[0]).min().unwrap(), v.iter().map(|p| p[0]).max().unwrap());
            let (y0, y1) = (v.iter().map(|p| p[1]).min().unwrap(), v.iter().map(|p| p[1]).max().unwrap());
            for j in y0..y1.max(y0 + 1) {
                for i in x0..x1.max(x0 + 1) {
                    if let Some(r) = topo.ring_index(i, j) {
                        if !by_cell[r].contains(&(n as u16)) {
                            by_cell[r].push(n as u16);
                        }
                    }
                }
            }
        }
        topo.by_cell = by_cell;
        topo
    }

    /// Index of cell (a, b) (finer-layer cells from its window origin) among the ring cells, if it
    /// is on the ring.
    pub fn ring_index(&self, a: i64, b: i64) -> Option<usize> {
        let w = self.width;
        if a < 0 || b < 0 || a >= w || b >= w {
            return None;
        }
        let r = if b == 0 {
            a
        } else if a == w - 1 {
            (w - 1) + b
        } else if b == w - 1 {
            2 * (w - 1) + (w - 1 - a)
        } else if a == 0 {
            3 * (w - 1) + (w - 1 - b)
        } else {
            return None;
        };
        Some(r as usize)
    }
}

/// Shapes shared by every layer: the seam's, and the inner region's in its ten forms (nine
/// positions of the finer layer, and whole for the finest drawn layer), built on first use; plus
/// scratch space for building them (half-cell grid → vertex index).
pub(crate) struct Scratch {
    map: Vec<u32>,
    side: i64,
    pub(crate) seam: SeamTopology,
    inner: Vec<Option<Region>>,
}

impl Scratch {
    pub(crate) fn new(width: i64) -> Self {
        let side = 2 * width + 1;
        Self {
            map: vec![u32::MAX; (side * side) as usize],
            side,
            seam: SeamTopology::new(width),
            inner: vec![None; 10],
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.inner.iter().flatten().map(|r| r.bytes()).sum::<usize>()
            + self.map.len() * 4
            + self.seam.points.len() * 16
            + self.seam.triangles.len() * 12
            + self.seam.by_cell.iter().map(|v| v.len() * 2 + 24).sum::<usize>()
    }

    /// Fills `region`'s points and indices with the fans of `cells` (window cells).
    fn fans(&mut self, region: &mut Region, cells: impl Iterator<Item = [i64; 2]>) {
        region.clear();
        for [a, b] in cells {
            let mut id = [0u32; 5];
            let pts = [
                [2 * a, 2 * b],
                [2 * a + 2, 2 * b],
                [2 * a + 2, 2 * b + 2],
                [2 * a, 2 * b + 2],
                [2 * a + 1, 2 * b + 1],
            ];
            for (k, p) in pts.iter().enumerate() {
                let slot = (p[1] * self.side + p[0]) as usize;
                if self.map[slot] == u32::MAX {
                    self.map[slot] = region.points.len() as u32;
                    region.points.push(*p);
                }
                id[k] = self.map[slot];
            }
            for f in FAN {
                region.indices.extend_from_slice(&[id[f[0]], id[f[1]], id[4]]);
            }
        }
        for p in &region.points {
            self.map[(p[1] * self.side + p[0]) as usize] = u32::MAX;
        }
    }
}

/// Evaluates layer `k`'s vertices: what stays the same for a whole region, computed once.
struct VertexEval<'a, S> {
    cells: &'a S,
    corners: &'a Grid,
    parent: Option<(&'a S, &'a Grid)>,
    origin2: [i64; 2],
    half_s: f64,
    last: i64,
    inv_ring: f32,
}

impl<'a, S: CellStore> VertexEval<'a, S> {
    fn new(world: &'a World<S>, k: usize) -> Self {
        let o = world.window_origin(k as u8);
        let ring = (world.params.inner_radius as i64 - 2).max(0);
        let l = &world.layers[k];
        Self {
            cells: &l.cells,
            corners: &l.corners,
            parent: world.layers.get(k + 1).filter(|p| p.active).map(|p| (&p.cells, &p.corners)),
            origin2: [2 * o[0], 2 * o[1]],
            half_s: 0.5 * world.gen.cell_width(k as u8),
            last: 2 * (world.width - 1),
            // No outer ring (inner radius 2): nothing to morph across, every vertex its own height.
            inv_ring: if ring == 0 { 0.0 } else { 1.0 / (2 * ring) as f32 },
        }
    }

    #[inline]
    fn at(&self, h: [i64; 2]) -> MeshVertex {
        let (ax, ay) = (self.origin2[0] + h[0], self.origin2[1] + h[1]);
        let z = if h[0] & 1 == 1 {
            self.cells.get((ax - 1) >> 1, (ay - 1) >> 1).h
        } else {
            self.corners.get(ax >> 1, ay >> 1)
        };
        // The coarser layer's own surface here: (ax, ay) are its quarter cells.
        let z_parent = match self.parent {
            Some((pc, pk)) => {
                let (bx, by) = (ax >> 2, ay >> 2);
                match (ax & 3, ay & 3) {
                    (0, 0) => pk.get(bx, by),
                    (2, 2) => pc.get(bx, by).h,
                    (0, 2) => 0.5 * (pk.get(bx, by) + pk.get(bx, by + 1)),
                    (2, 0) => 0.5 * (pk.get(bx, by) + pk.get(bx + 1, by)),
                    (rx, ry) => {
                        // A quarter point: halfway between a parent corner and the parent midpoint.
                        let (nx, ny) = (bx + i64::from(rx == 3), by + i64::from(ry == 3));
                        0.5 * (pk.get(nx, ny) + pc.get(bx, by).h)
                    }
                }
            }
            None => z,
        };
        let d = (h[0] - 2).min(self.last - h[0]).min(h[1] - 2).min(self.last - h[1]);
        let blend = if self.inv_ring == 0.0 { 1.0 } else { (d as f32 * self.inv_ring).clamp(0.0, 1.0) };
        let x = (h[0] as f64 * self.half_s) as f32;
        let y = (h[1] as f64 * self.half_s) as f32;
        MeshVertex { pos: [x, y, z], z_parent, blend }
    }
}

/// Which regions of a layer to rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Outer,
    Inner,
}

impl<S: CellStore> World<S> {
    /// World position of layer `k`'s vertex at `h` half cells, with its drawn height from the
    /// query grids (the same bits as the vertex buffers).
    #[inline]
    pub(crate) fn vertex_world(&self, k: usize, h: [i64; 2], z: f32) -> DVec3 {
        let m = &self.layers[k].mesh;
        let s = self.gen.cell_width(k as u8);
        let x = (h[0] as f64 * 0.5 * s) as f32;
        let y = (h[1] as f64 * 0.5 * s) as f32;
        DVec3::new(m.origin.x + x as f64, m.origin.y + y as f64, z as f64)
    }

    /// Offset of layer `k − 1`'s window in layer `k`'s, cells.
    pub(crate) fn center_offset(&self, k: usize) -> [i64; 2] {
        let (o, c) = (self.window_origin(k as u8), self.window_origin(k as u8 - 1));
        [c[0].div_euclid(2) - o[0], c[1].div_euclid(2) - o[1]]
    }

    /// Rewrites the mesh regions that `changed` (bit k: layer k moved) calls for; `all` rewrites
    /// every region.
    pub(crate) fn rebuild_mesh(&mut self, changed: u32, all: bool) -> UpdateStats {
        let mut stats = UpdateStats::default();
        let drawn = self.drawn_layers();
        let (first, last) = (*drawn.start() as usize, *drawn.end() as usize);
        for k in 0..self.layers.len() {
            let is_drawn = (first..=last).contains(&k);
            if !is_drawn {
                let m = &mut self.layers[k].mesh;
                if m.drawn {
                    m.outer.clear();
                    m.inner.clear();
                    m.seam.clear();
                    m.drawn = false;
                    m.center = None;
                }
                continue;
            }
            let moved = all || changed & (1 << k) != 0 || !self.layers[k].mesh.drawn;
            let child_moved = k > first && changed & (1 << (k - 1)) != 0;
            let center = (k > first).then(|| self.center_offset(k));
            let o = self.window_origin(k as u8);
            let s = self.gen.cell_width(k as u8);
            self.layers[k].mesh.origin = DVec2::new(o[0] as f64 * s, o[1] as f64 * s);
            let center_changed = center != self.layers[k].mesh.center;
            if !(moved || child_moved || center_changed) {
                continue;
            }
            if moved {
                stats.vertices_written += self.rebuild_part(k, Part::Outer, false);
                stats.regions_rebuilt += 1;
            }
            if moved || child_moved || center_changed {
                stats.vertices_written += self.rebuild_part(k, Part::Inner, center_changed);
                stats.regions_rebuilt += 1;
            }
            if moved || child_moved || center_changed {
                self.layers[k].mesh.center = center;
                stats.vertices_written += self.rebuild_seam(k);
                stats.regions_rebuilt += usize::from(center.is_some());
            }
            let m = &mut self.layers[k].mesh;
            m.drawn = true;
            m.z_range = [&m.outer, &m.inner, &m.seam]
                .iter()
                .fold([f32::INFINITY, f32::NEG_INFINITY], |a, r| [a[0].min(r.z_range[0]), a[1].max(r.z_range[1])]);
        }
        stats
    }

    /// Rewrites layer `k`'s outer ring or inner region (its shape too when `reshape` or when it has
    /// none yet) and the query grids under it; returns the vertices written.
    fn rebuild_part(&mut self, k: usize, part: Part, reshape: bool) -> usize {
        let w = self.width;
        let (lo, hi) = (w / 4 - 1, 3 * w / 4 + 1);
        let mut region = std::mem::take(match part {
            Part::Outer => &mut self.layers[k].mesh.outer,
            Part::Inner => &mut self.layers[k].mesh.inner,
        });
        if reshape || region.points.is_empty() {
            let first = *self.drawn_layers().start() as usize;
            let center = (k > first).then(|| self.center_offset(k));
            let inside = |a: i64, b: i64| (lo..hi).contains(&a) && (lo..hi).contains(&b);
            let in_center = |a: i64, b: i64| {
                center.is_some_and(|c| (c[0]..c[0] + w / 2).contains(&a) && (c[1]..c[1] + w / 2).contains(&b))
            };
            let cells = (1..w - 1).flat_map(|b| (1..w - 1).map(move |a| [a, b]));
            match part {
                Part::Outer => self.scratch.fans(&mut region, cells.filter(|&[a, b]| !inside(a, b))),
                Part::Inner => {
                    let form = center.map_or(9, |c| ((c[0] - lo) * 3 + (c[1] - lo)).clamp(0, 8) as usize);
                    let shape = match self.scratch.inner[form].take() {
                        Some(r) => r,
                        None => {
                            let mut r = Region::default();
                            self.scratch.fans(&mut r, cells.filter(|&[a, b]| inside(a, b) && !in_center(a, b)));
                            r
                        }
                    };
                    region.points.clone_from(&shape.points);
                    region.indices.clone_from(&shape.indices);
                    self.scratch.inner[form] = Some(shape);
                }
            }
        }
        region.vertices.clear();
        let eval = VertexEval::new(self, k);
        region.vertices.extend(region.points.iter().map(|p| eval.at(*p)));
        let o = self.window_origin(k as u8);
        let m = &mut self.layers[k].mesh;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for (p, v) in region.points.iter().zip(&region.vertices) {
            let (ax, ay) = (2 * o[0] + p[0], 2 * o[1] + p[1]);
            let z = v.drawn_z();
            (lo, hi) = (lo.min(z), hi.max(z));
            if p[0] & 1 == 1 {
                m.rz_mid.set((ax - 1) >> 1, (ay - 1) >> 1, z);
            } else {
                m.rz_corner.set(ax >> 1, ay >> 1, z);
            }
        }
        region.z_range = [lo, hi];
        let n = region.vertices.len();
        match part {
            Part::Outer => self.layers[k].mesh.outer = region,
            Part::Inner => self.layers[k].mesh.inner = region,
        }
        n
    }

    /// Rewrites layer `k`'s seam to layer `k − 1` (empty when `k` is the finest drawn layer).
    fn rebuild_seam(&mut self, k: usize) -> usize {
        let mut region = std::mem::take(&mut self.layers[k].mesh.seam);
        region.clear();
        let first = *self.drawn_layers().start() as usize;
        if k > first {
            let c = self.center_offset(k);
            let s = self.gen.cell_width(k as u8);
            let topo = &self.scratch.seam;
            let (own, finer) = (VertexEval::new(self, k), VertexEval::new(self, k - 1));
            for (n, p) in topo.points.iter().enumerate() {
                let v = if n < topo.outer {
                    own.at([2 * c[0] + p[0], 2 * c[1] + p[1]])
                } else {
                    let mut v = finer.at([2 * p[0], 2 * p[1]]);
                    v.pos[0] = (c[0] as f64 * s + v.pos[0] as f64) as f32;
                    v.pos[1] = (c[1] as f64 * s + v.pos[1] as f64) as f32;
                    v
                };
                region.vertices.push(v);
                region.points.push(*p);
            }
            for t in &topo.triangles {
                region.indices.extend_from_slice(t);
            }
            // This layer's corners on the center's edge go to the query grid too (with the smallest
            // windows no drawn cell of this layer touches them).
            let o = self.window_origin(k as u8);
            let outer = topo.outer;
            let m = &mut self.layers[k].mesh;
            for (p, v) in region.points[..outer].iter().zip(&region.vertices) {
                m.rz_corner.set(o[0] + c[0] + p[0] / 2, o[1] + c[1] + p[1] / 2, v.drawn_z());
            }
            region.z_range = region
                .vertices
                .iter()
                .fold([f32::INFINITY, f32::NEG_INFINITY], |a, v| [a[0].min(v.drawn_z()), a[1].max(v.drawn_z())]);
        }
        let n = region.vertices.len();
        self.layers[k].mesh.seam = region;
        n
    }

    /// The drawn layers' meshes, finest first.
    pub fn meshes(&self) -> impl Iterator<Item = &LayerMesh> {
        let r = self.drawn_layers();
        self.layers[*r.start() as usize..=*r.end() as usize].iter().map(|l| &l.mesh)
    }

    /// Every drawn triangle in world coordinates (f64), with its layer: for tests, exports and
    /// pictures.
    pub fn world_triangles(&self) -> Vec<(u8, [DVec3; 3])> {
        let mut out = Vec::new();
        for m in self.meshes() {
            for r in m.regions() {
                for t in r.indices.chunks_exact(3) {
                    let v = |i: u32| {
                        let v = r.vertices[i as usize];
                        DVec3::new(m.origin.x + v.pos[0] as f64, m.origin.y + v.pos[1] as f64, v.drawn_z() as f64)
                    };
                    out.push((m.level, [v(t[0]), v(t[1]), v(t[2])]));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fan_height_matches_the_corners_and_midpoint() {
        let z = [1.0, 2.0, 4.0, 8.0];
        assert_eq!(fan_height(z, 5.0, 0.5, 0.5), 5.0);
        for (k, c) in CORNERS.iter().enumerate() {
            assert!((fan_height(z, 5.0, c[0] as f64, c[1] as f64) - z[k]).abs() < 1e-12);
        }
        // Edge midpoints are the mean of their corners.
        assert!((fan_height(z, 5.0, 0.5, 0.0) - 1.5).abs() < 1e-12);
        assert!((fan_height(z, 5.0, 1.0, 0.5) - 3.0).abs() < 1e-12);
    }

    /// The seam covers the strip between the two squares exactly once, counter-clockwise.
    #[test]
    fn seam_tiles_the_strip() {
        for w in [8i64, 12, 40] {
            let t = SeamTopology::new(w);
            let mut area = 0.0;
            for tri in &t.triangles {
                let p = tri.map(|k| t.points[k as usize]);
                let a = ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0])) as f64
                    / 2.0;
                assert!(a > 0.0, "clockwise or flat seam triangle {p:?}");
                area += a;
            }
            let expect = (w * w - (w - 2) * (w - 2)) as f64;
            assert_eq!(area, expect, "width {w}");
            assert_eq!(t.triangles.len() as i64, 4 * (w / 2 + w - 2));
            assert!(t.by_cell.iter().all(|v| !v.is_empty()));
        }
    }
}
