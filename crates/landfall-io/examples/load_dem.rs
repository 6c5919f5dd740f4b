//! Load the real DEM shipped in `data/` and query it.
//!
//! `cargo run --release -p landfall-io --example load_dem [FILE]`

use landfall::glam::DVec3;
use landfall::Ray;
use landfall_io::{load_heightfield, LoadOptions};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz"));
    let loaded = load_heightfield(&path, &LoadOptions::default())?;
    let hf = &loaded.heightfield;
    for note in &loaded.notes {
        println!("note: {note}");
    }
    println!("{}: {} × {} samples, bounds {:?}", path.display(), hf.nx(), hf.ny(), hf.bounds());
    let (lo, hi) = hf.height_range().expect("some valid samples");
    println!("heights {lo} … {hi}");
    // Look straight down on the middle of the map, then along a slanted ray.
    let b = hf.bounds();
    let c = (b.min + b.max) * 0.5;
    println!("ground at the centre: {:?}", hf.height_at(c.x, c.y));
    let ray = Ray::new(DVec3::new(b.min.x, b.min.y, 3000.0), DVec3::new(b.max.x - b.min.x, b.max.y - b.min.y, -3000.0));
    println!("diagonal ray from 3000 m: {:?}", hf.raycast(&ray, 1.0).map(|h| h.point));
    Ok(())
}
