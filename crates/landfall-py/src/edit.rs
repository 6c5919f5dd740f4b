//! Edits: a rectangle of a heightfield's samples, polygons in and out of a polygon terrain.

use landfall::glam::DVec3;
use landfall::Heightfield;
use landfall::PolygonTerrain;

/// Overwrites the `h × w` block of samples whose north-west corner is raster row `row`, column
/// `col` (raster order: row 0 north) with `values` (row-major, raster order); NaN makes a hole.
pub fn set_block(
    hf: &mut Heightfield,
    row: usize,
    col: usize,
    h: usize,
    w: usize,
    values: &[f64],
) -> Result<(), String> {
    let (nx, ny) = (hf.nx(), hf.ny());
    if row.checked_add(h).is_none_or(|e| e > ny) || col.checked_add(w).is_none_or(|e| e > nx) {
        return Err(format!(
            "values: a {h} × {w} block at row {row}, column {col} does not fit in {ny} × {nx} samples"
        ));
    }
    if let Some(k) = values.iter().position(|v| v.is_infinite() || (v.is_finite() && (*v as f32).is_infinite())) {
        return Err(format!("values: row {}, column {}: {} is not a finite height", k / w, k % w, values[k]));
    }
    // Raster row r is grid row ny − 1 − r: the block's south row first.
    let south_first: Vec<f32> = values.chunks_exact(w.max(1)).rev().flatten().map(|&v| v as f32).collect();
    hf.set_samples(col, ny - row - h, w, h, &south_first).map_err(|e| e.to_string())
}

/// Adds a polygon (flat k·3 world coordinates); its id.
pub fn insert_polygon(p: &mut PolygonTerrain, flat: &[f64]) -> Result<u32, String> {
    if flat.len() < 9 || !flat.len().is_multiple_of(3) {
        return Err(format!("vertices: expected an array (k, 3) with k ≥ 3, got {} values", flat.len()));
    }
    if let Some(k) = flat.iter().position(|v| !v.is_finite()) {
        return Err(format!("vertices: vertex {} is not finite", k / 3));
    }
    let verts: Vec<DVec3> = flat.chunks_exact(3).map(|c| DVec3::new(c[0], c[1], c[2])).collect();
    let faces = p.report().faces;
    let id = p.insert_polygon(&verts).map_err(|e| e.to_string())?;
    if p.report().faces == faces {
        // As the CLI reports it when building: a polygon with no area (or smaller than 1e-150
        // across) is degenerate; it keeps its id but has no faces.
        return Err(format!(
            "vertices: polygon {id} is degenerate (fewer than 3 distinct vertices, no area, or less than 1e-150 \
             across): nothing was added"
        ));
    }
    Ok(id)
}
