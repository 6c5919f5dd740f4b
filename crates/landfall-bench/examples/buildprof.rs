//! Profiling aid: builds the ~13k-triangle DEM TIN polygon terrain many times: `buildprof [N]
//! [REPS]`; env `PARAMS=max_polys/max_depth[/min_gain]` (equal quadrants) instead of the defaults.
use landfall::{PolygonTerrain, QuadtreeParams};
use landfall_bench::terrains::dem_tin;
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(13000);
    let reps: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(50);
    let tin = dem_tin(n);
    let params = std::env::var("PARAMS").ok().map_or_else(QuadtreeParams::default, |p| {
        let v: Vec<f64> = p.split('/').map(|x| x.parse().expect("PARAMS=max_polys/max_depth[/min_gain]")).collect();
        let paper = QuadtreeParams::paper(v[0] as usize, v[1] as usize);
        paper.with_min_gain(v.get(2).copied().unwrap_or(0.0))
    });
    let t = PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).params(params).build().unwrap();
    let st = t.stats();
    eprintln!(
        "{params:?}: {} nodes, {} references, expected tests {:.3}, tree/faces {:.2}",
        st.nodes,
        st.refs,
        st.expected_tests,
        st.tree_bytes as f64 / st.face_bytes as f64
    );
    let s = Instant::now();
    for _ in 0..reps {
        let t = PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).params(params).build().unwrap();
        std::hint::black_box(t);
    }
    println!("{:?} per build of {} triangles", s.elapsed() / reps as u32, tin.triangles.len());
}
