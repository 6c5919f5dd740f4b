//! The terrain-following note's method for polygon terrains: a uniform grid of faces. Each grid
//! cell lists the triangles whose bounding box meets it; a vertical query indexes its cell and tests
//! those triangles (2-D barycentric, f64). A peer for QOTA's quadtree, on the same triangles.

use glam::DVec3;

/// A uniform grid over the triangles' bounding rectangle.
pub struct UniformGrid {
    tris: Vec<[DVec3; 3]>,
    origin: [f64; 2],
    inv: [f64; 2],
    n: [usize; 2],
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl UniformGrid {
    /// A grid with about `per_cell` triangles per cell on average.
    pub fn new(tris: Vec<[DVec3; 3]>, per_cell: f64) -> Self {
        let b = tris.iter().flatten().fold(landfall::Aabb::EMPTY, |b, &v| b.grown(v));
        let (w, h) = (b.max.x - b.min.x, b.max.y - b.min.y);
        let cells = (tris.len() as f64 / per_cell).max(1.0);
        let side = (w * h / cells).sqrt();
        let n = [((w / side).ceil() as usize).max(1), ((h / side).ceil() as usize).max(1)];
        let inv = [n[0] as f64 / w, n[1] as f64 / h];
        let origin = [b.min.x, b.min.y];
        let cell = |x: f64, a: usize| (((x - origin[a]) * inv[a]) as usize).min(n[a] - 1);
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n[0] * n[1]];
        for (k, t) in tris.iter().enumerate() {
            let lo = t.iter().fold(DVec3::INFINITY, |a, &v| a.min(v));
            let hi = t.iter().fold(DVec3::NEG_INFINITY, |a, &v| a.max(v));
            for j in cell(lo.y, 1)..=cell(hi.y, 1) {
                for i in cell(lo.x, 0)..=cell(hi.x, 0) {
                    lists[j * n[0] + i].push(k as u32);
                }
            }
        }
        let mut starts = vec![0u32];
        let mut items = Vec::new();
        for l in lists {
            items.extend(l);
            starts.push(items.len() as u32);
        }
        Self { tris, origin, inv, n, starts, items }
    }

    /// Height of the topmost triangle over (x, y), if any.
    #[inline]
    pub fn top(&self, x: f64, y: f64) -> Option<f64> {
        let fx = (x - self.origin[0]) * self.inv[0];
        let fy = (y - self.origin[1]) * self.inv[1];
        if !(fx >= 0.0 && fy >= 0.0 && fx <= self.n[0] as f64 && fy <= self.n[1] as f64) {
            return None;
        }
        let c = (fy as usize).min(self.n[1] - 1) * self.n[0] + (fx as usize).min(self.n[0] - 1);
        let mut best: Option<f64> = None;
        for &k in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
            if let Some(z) = vertical_hit(&self.tris[k as usize], x, y) {
                best = Some(best.map_or(z, |b: f64| b.max(z)));
            }
        }
        best
    }

    /// Bytes of the grid (lists and triangles).
    pub fn memory_bytes(&self) -> usize {
        self.tris.len() * 72 + self.starts.len() * 4 + self.items.len() * 4
    }
}

/// Height of triangle `t` over (x, y) if the point is inside it (2-D barycentric, closed).
#[inline]
pub fn vertical_hit(t: &[DVec3; 3], x: f64, y: f64) -> Option<f64> {
    let (a, b, c) = (t[0], t[1], t[2]);
    let det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    if det == 0.0 {
        return None;
    }
    let u = ((x - a.x) * (c.y - a.y) - (c.x - a.x) * (y - a.y)) / det;
    let v = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0).then_some(a.z + u * (b.z - a.z) + v * (c.z - a.z))
}

/// The naive scan: the topmost of every triangle over (x, y).
pub fn naive_top(tris: &[[DVec3; 3]], x: f64, y: f64) -> Option<f64> {
    tris.iter().filter_map(|t| vertical_hit(t, x, y)).max_by(f64::total_cmp)
}
