//! Viewsheds of a heightfield, in raster order.

use landfall::viewshed::{ViewshedError, ViewshedParams};
use landfall::Heightfield;

/// The viewshed from world (x, y): flat values in raster order (first row north). `mode`
/// "visible": 1 visible, 0 hidden, 255 nodata; "ground": the least target height above the ground
/// that would be seen; "dem": that height plus the ground (NaN nodata).
pub fn viewshed(
    hf: &Heightfield,
    xy: [f64; 2],
    params: &ViewshedParams,
    mode: &str,
) -> Result<Vec<f64>, ViewshedError> {
    let (nx, ny) = (hf.nx(), hf.ny());
    let south_first: Vec<f64> = match mode {
        "visible" => hf.viewshed(xy, params)?.values.into_iter().map(f64::from).collect(),
        m => {
            let need = hf.viewshed_heights(xy, params)?;
            need.values.iter().zip(hf.samples()).map(|(&n, g)| if m == "dem" { n + g as f64 } else { n }).collect()
        }
    };
    let mut out = Vec::with_capacity(nx * ny);
    for j in (0..ny).rev() {
        out.extend_from_slice(&south_first[j * nx..(j + 1) * nx]);
    }
    Ok(out)
}
