//! The colours of the landscape (the thesis' 2.5.1, figure 2.4): a 2-D lookup by a point's height
//! and the up component of its normal — water below the sea, sand on the shore, grass on low gentle
//! ground, rock on steep or high ground, snow on high gentle ground — blended smoothly between the
//! table's entries, so neighbouring vertices (and the layers of the world's mesh, and a morphing
//! vertex) get neighbouring colours. One map for meshes, pictures and the viewer.
//!
//! ```
//! use landfall::support::ColourMap;
//! let map = ColourMap::new(0.0, 0.0, 1000.0);
//! let [r, g, b] = map.colour(-5.0, 1.0); // under the sea
//! assert!(b > r && b > g);
//! let snow = map.colour(990.0, 1.0);
//! assert!(snow.iter().all(|&c| c > 0.8));
//! let cliff = map.colour(300.0, 0.3); // steep: rock whatever the height
//! assert!((cliff[0] - cliff[2]).abs() < 0.1);
//! ```
//!
//! # How it works
//!
//! `paint::ColourMap` is the thesis' 2-D colour lookup (2.5.1): a table by height (fractions of the
//! land above the sea) and by the up component of the normal, blended bilinearly — water (shallow to
//! deep) below the sea, sand on the shore, grass and forest on low gentle ground, soil higher, rock on
//! steep ground at any height, snow on high gentle ground. The sea is at 0 when the terrain is mostly
//! above it (a coast, a DEM with bathymetry), else there is none (the procedural world's heights centre
//! on 0). `paint::vertex_normals` averages the triangles' normals around each vertex, by area.
//!
//! The same map colours every picture (the demo's, the world's, the events', the viewshed preview's
//! ground under its green and red) and every exported mesh: `MeshPart::paint` gives a part normals and
//! colours, `world_parts` paints the world's layers with one map over the generator's height range (so
//! the layers meet in the same colours, morphing included: colours follow the drawn heights),
//! `terrain_part` makes the mesh of any terrain (a raster, a polygon terrain, an index file) with
//! vertices shared where triangles meet. glTF gets `NORMAL` and `COLOR_0`, OBJ `vn` and
//! `v x y z r g b`. `landfall mesh <terrain> -o out.glb` writes it.

/// Heights (fractions of the land's range above the sea) of the table's rows.
const ROWS: [f64; 6] = [0.0, 0.02, 0.10, 0.45, 0.75, 0.90];
/// Up components of the normal of the table's columns: steep to flat.
const COLS: [f64; 3] = [0.55, 0.80, 0.95];
const SAND: [f32; 3] = [0.80, 0.74, 0.55];
const GRASS: [f32; 3] = [0.30, 0.48, 0.20];
const FOREST: [f32; 3] = [0.22, 0.38, 0.18];
const SOIL: [f32; 3] = [0.50, 0.43, 0.30];
const ROCK: [f32; 3] = [0.47, 0.45, 0.43];
const SNOW: [f32; 3] = [0.94, 0.95, 0.98];
/// Colour at (row, column): rows by height, columns steep → flat.
const TABLE: [[[f32; 3]; 3]; 6] = [
    [ROCK, SAND, SAND],
    [ROCK, SAND, GRASS],
    [ROCK, FOREST, GRASS],
    [ROCK, SOIL, FOREST],
    [ROCK, ROCK, SOIL],
    [ROCK, SNOW, SNOW],
];
const SHALLOW: [f32; 3] = [0.25, 0.55, 0.70];
const DEEP: [f32; 3] = [0.05, 0.18, 0.40];

/// The height-and-tilt colour map of a landscape whose heights span `lo..hi`, with the sea at
/// `sea` (below the lowest height: no water).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColourMap {
    /// Sea level.
    pub sea: f64,
    /// Lowest height.
    pub lo: f64,
    /// Highest height.
    pub hi: f64,
}

impl ColourMap {
    /// The map of heights `lo..hi` with the sea at `sea`.
    pub fn new(sea: f64, lo: f64, hi: f64) -> Self {
        Self { sea, lo, hi }
    }

    /// The map of a terrain's height range: the sea at 0 when the terrain is mostly above it (0
    /// within the lowest 40 % of the range: a coast, a DEM with bathymetry), no water otherwise (a
    /// landscape whose heights merely centre on 0, like the procedural world's).
    pub fn for_range(lo: f64, hi: f64) -> Self {
        let coast = lo < 0.0 && 0.0 < lo + 0.4 * (hi - lo);
        Self::new(if coast { 0.0 } else { lo }, lo, hi)
    }

    /// Linear RGB (0–1) of a point at height `z` whose unit normal's up component is `up`.
    pub fn colour(&self, z: f64, up: f64) -> [f32; 3] {
        if !(z.is_finite() && up.is_finite()) {
            return ROCK;
        }
        if z < self.sea {
            let depth = ((self.sea - z) / (self.sea - self.lo).max(1e-9)).clamp(0.0, 1.0);
            return lerp(SHALLOW, DEEP, depth.sqrt());
        }
        let land = (self.hi - self.sea.max(self.lo)).max(1e-9);
        let t = ((z - self.sea.max(self.lo)) / land).clamp(0.0, 1.0);
        let (r, fr) = bracket(&ROWS, t);
        let (c, fc) = bracket(&COLS, up.clamp(0.0, 1.0));
        let row = |r: usize| lerp(TABLE[r][c], TABLE[r][c + 1], fc);
        lerp(row(r), row(r + 1), fr)
    }
}

/// The interval of `knots` holding `v` and the fraction along it (clamped at the ends).
fn bracket(knots: &[f64], v: f64) -> (usize, f64) {
    let last = knots.len() - 2;
    let k = knots.windows(2).position(|w| v < w[1]).unwrap_or(last).min(last);
    let f = ((v - knots[k]) / (knots[k + 1] - knots[k])).clamp(0.0, 1.0);
    (k, f)
}

fn lerp(a: [f32; 3], b: [f32; 3], t: f64) -> [f32; 3] {
    let t = t as f32;
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// Per-vertex unit normals of a triangle mesh: the area-weighted sum of the normals of the
/// triangles around each vertex, turned to point up (+Z); `[0, 0, 1]` for a vertex in no triangle.
pub fn vertex_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut sum = vec![[0f64; 3]; positions.len()];
    let p = |i: u32| positions.get(i as usize).map(|v| [v[0] as f64, v[1] as f64, v[2] as f64]);
    for t in indices.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (p(t[0]), p(t[1]), p(t[2])) else { continue };
        let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let mut n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        if n[2] < 0.0 {
            n = n.map(|x| -x);
        }
        for &i in t {
            let s = &mut sum[i as usize];
            for k in 0..3 {
                s[k] += n[k];
            }
        }
    }
    sum.into_iter()
        .map(|n| {
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if l > 0.0 && l.is_finite() {
                [(n[0] / l) as f32, (n[1] / l) as f32, (n[2] / l) as f32]
            } else {
                [0.0, 0.0, 1.0]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_change_smoothly_and_normals_of_a_plane_are_its_normal() {
        let map = ColourMap::new(0.0, -100.0, 1000.0);
        // Neighbouring inputs, neighbouring colours (no jumps anywhere in the table).
        for k in 0..2000 {
            let z = -100.0 + 1100.0 * k as f64 / 2000.0;
            for up in [0.3, 0.6, 0.85, 1.0] {
                let (a, b) = (map.colour(z, up), map.colour(z + 0.55, up));
                let jump = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
                // The shore is the one edge: water to sand.
                if !(z < 0.0 && z + 0.55 >= 0.0) {
                    assert!(jump < 0.05, "jump {jump} at z {z}, up {up}");
                }
            }
        }
        let pos = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.5], [0.0, 1.0, 0.25], [1.0, 1.0, 0.75]];
        let n = vertex_normals(&pos, &[0, 1, 3, 0, 3, 2]);
        let want = [-0.5f32, -0.25, 1.0];
        let l = (want[0] * want[0] + want[1] * want[1] + 1.0f32).sqrt();
        for v in n {
            for k in 0..3 {
                assert!((v[k] - want[k] / l).abs() < 1e-6);
            }
        }
    }
}
