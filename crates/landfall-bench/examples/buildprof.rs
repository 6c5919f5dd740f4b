//! Profiling aid: builds the ~13k-triangle DEM TIN polygon terrain many times.
use landfall::{PolygonTerrain, QuadtreeParams};
use landfall_bench::terrains::dem_tin;
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(13000);
    let reps: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(50);
    let tin = dem_tin(n);
    let s = Instant::now();
    for _ in 0..reps {
        let t = PolygonTerrain::builder()
            .triangles(&tin.vertices, &tin.triangles)
            .params(QuadtreeParams::default())
            .build()
            .unwrap();
        std::hint::black_box(t);
    }
    println!("{:?} per build of {} triangles", s.elapsed() / reps as u32, tin.triangles.len());
}
