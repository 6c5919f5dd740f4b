//! The input of a polygon terrain: polygons kept flat, in world coordinates.

use glam::DVec3;
use rayon::prelude::*;

/// Vertices of the input polygons, kept flat: polygon k is `points[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct PolygonSoup {
    /// All vertices, world coordinates.
    pub points: Vec<DVec3>,
    /// Start of each polygon in `points`, plus the end.
    pub starts: Vec<usize>,
}

impl PolygonSoup {
    /// An empty soup.
    pub fn new() -> Self {
        Self { points: Vec::new(), starts: vec![0] }
    }

    /// Appends a polygon.
    pub fn push(&mut self, polygon: &[DVec3]) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.points.extend_from_slice(polygon);
        self.starts.push(self.points.len());
    }

    /// Appends the triangles `triangles` (indices into `vertices`, which the caller has checked),
    /// copied by all threads.
    pub(crate) fn extend_triangles(&mut self, vertices: &[DVec3], triangles: &[[u32; 3]]) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let base = self.points.len();
        let corner = |i: usize| vertices.get(triangles[i / 3][i % 3] as usize).copied().unwrap_or_default();
        self.points.par_extend((0..3 * triangles.len()).into_par_iter().with_min_len(4096).map(corner));
        self.starts.par_extend((1..triangles.len() + 1).into_par_iter().with_min_len(4096).map(|k| base + 3 * k));
    }

    /// Number of polygons.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when there is no polygon.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Polygon `k`.
    pub fn polygon(&self, k: usize) -> &[DVec3] {
        &self.points[self.starts[k]..self.starts[k + 1]]
    }
}

impl PolygonSoup {
    /// Every existing triangle of a heightfield (holes left out), one polygon each, cell by cell
    /// (south half first): a raster as a polygon terrain.
    pub fn from_heightfield(hf: &crate::Heightfield) -> Self {
        let mut soup = Self::new();
        for j in 0..hf.ny() - 1 {
            for i in 0..hf.nx() - 1 {
                for half in [crate::Half::South, crate::Half::North] {
                    if let Some(t) = hf.cell_triangle(i, j, half) {
                        soup.push(&t);
                    }
                }
            }
        }
        soup
    }
}
