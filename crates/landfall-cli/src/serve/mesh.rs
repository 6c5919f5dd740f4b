//! Meshes for the viewer, in one binary layout the page reads straight into typed arrays:
//! `LFM1`, vertex count, index count (u32 each), the origin (3 × f64), then positions, normals and
//! colours (3 × f32 per vertex, positions relative to the origin) and the indices (u32).

use landfall::{Heightfield, Terrain};
use landfall_io::MeshPart;

/// Most vertices sent for a terrain: a larger heightfield is drawn from every k-th sample.
pub const MAX_VERTICES: usize = 1 << 20;

/// The binary form of `part`.
pub fn encode(part: &MeshPart) -> Vec<u8> {
    let n = part.positions.len();
    let mut out = Vec::with_capacity(12 + 24 + n * 36 + part.indices.len() * 4);
    out.extend_from_slice(b"LFM1");
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&(part.indices.len() as u32).to_le_bytes());
    for o in part.origin {
        out.extend_from_slice(&o.to_le_bytes());
    }
    let zero = [[0f32; 3]];
    for list in [&part.positions, &part.normals, &part.colors] {
        let list: &[[f32; 3]] = if list.len() == n { list } else { &zero[..0] };
        for v in list.iter().chain(std::iter::repeat_n(&[0f32; 3], n - list.len())) {
            for c in v {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
    }
    for i in &part.indices {
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

/// The mesh of a terrain for display: every triangle when it has at most [`MAX_VERTICES`]
/// vertices, else (a heightfield) the grid of every k-th sample, two triangles a cell, cells
/// touching a hole left out.
pub fn terrain_mesh(t: &dyn Terrain, hf: Option<&Heightfield>) -> Option<MeshPart> {
    let mut part = match hf {
        Some(hf) if hf.nx() * hf.ny() > MAX_VERTICES => decimated(hf),
        _ => landfall_io::terrain_part(t, "terrain")?,
    };
    // A raster in degrees with heights in metres: its true normals are all but horizontal. Colour
    // by the tilt of the surface as drawn (heights scaled as the page scales them), keep the true
    // normals (the page's scaling turns them for the lighting).
    let b = t.bounds();
    let (extent, relief) = ((b.max.x - b.min.x).max(b.max.y - b.min.y), b.max.z - b.min.z);
    if relief > 5.0 * extent && extent > 0.0 {
        let zs = (0.2 * extent / relief) as f32;
        let drawn: Vec<[f32; 3]> = part.positions.iter().map(|p| [p[0], p[1], p[2] * zs]).collect();
        let map = landfall::support::ColourMap::for_range(b.min.z, b.max.z);
        let tilt = landfall::support::vertex_normals(&drawn, &part.indices);
        part.colors = part
            .positions
            .iter()
            .zip(&tilt)
            .map(|(p, n)| map.colour(part.origin[2] + p[2] as f64, n[2] as f64))
            .collect();
    }
    Some(part)
}

/// A raster in degrees for display: in metres in its east-north-up frame (true proportions), every
/// k-th sample when it has more than [`MAX_VERTICES`] samples.
pub fn geo_mesh(g: &landfall::geo::GeoSurface) -> Option<MeshPart> {
    let n = g.heightfield().nx() * g.heightfield().ny();
    let k = (n as f64 / MAX_VERTICES as f64).sqrt().ceil().max(1.0) as usize;
    landfall_io::geo_part(g, "terrain", k)
}

/// Every k-th sample of a large heightfield as a painted grid.
fn decimated(hf: &Heightfield) -> MeshPart {
    let k = ((hf.nx() * hf.ny()) as f64 / MAX_VERTICES as f64).sqrt().ceil() as usize;
    let (cols, rows) = ((hf.nx() - 1) / k + 1, (hf.ny() - 1) / k + 1);
    let (o, s) = (hf.origin(), hf.spacing());
    let b = hf.bounds();
    let mut part = MeshPart { name: "terrain".into(), origin: [b.min.x, b.min.y, 0.0], ..MeshPart::default() };
    for r in 0..rows {
        for c in 0..cols {
            let (i, j) = (c * k, r * k);
            let z = hf.sample(i, j);
            part.positions.push([
                (o.x + i as f64 * s.x - b.min.x) as f32,
                (o.y + j as f64 * s.y - b.min.y) as f32,
                if z.is_nan() { 0.0 } else { z },
            ]);
        }
    }
    let hole = |c: usize, r: usize| hf.sample(c * k, r * k).is_nan();
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            if hole(c, r) || hole(c + 1, r) || hole(c, r + 1) || hole(c + 1, r + 1) {
                continue;
            }
            let v = |c: usize, r: usize| (r * cols + c) as u32;
            part.indices.extend([v(c, r), v(c + 1, r), v(c + 1, r + 1), v(c, r), v(c + 1, r + 1), v(c, r + 1)]);
        }
    }
    part.paint(&landfall::support::ColourMap::for_range(b.min.z, b.max.z));
    part
}
