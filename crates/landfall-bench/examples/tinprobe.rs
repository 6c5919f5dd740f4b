//! Probes quadtree settings on the DEM TINs: `tinprobe [N]` builds the ~N-triangle TIN with each
//! cut rule and stop rule and prints nodes, memory, expected containment tests and build time
//! (`DEFAULT_ONLY=1`: the defaults only).
use landfall::{CutRule, PolygonTerrain, QuadtreeParams};
use landfall_bench::terrains::dem_tin;
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(13000);
    let s = Instant::now();
    let tin = dem_tin(n);
    println!("{} triangles, {} vertices, tin {:?}", tin.triangles.len(), tin.vertices.len(), s.elapsed());
    let only_default = std::env::var("DEFAULT_ONLY").is_ok();
    let mut cfgs = vec![QuadtreeParams::default()];
    if !only_default {
        cfgs.extend([
            QuadtreeParams::paper(400, 5),
            QuadtreeParams::paper(16, 12),
            QuadtreeParams::paper(12, 12),
            QuadtreeParams::paper(8, 14),
        ]);
        for (mp, md, g) in [(2, 16, 0.2), (2, 16, 0.5), (2, 16, 1.0), (3, 16, 0.5), (1, 20, 0.5)] {
            cfgs.push(
                QuadtreeParams::default()
                    .with_max_polys(mp)
                    .with_max_depth(md)
                    .with_cuts(CutRule::Vertices)
                    .with_min_gain(g),
            );
            cfgs.push(
                QuadtreeParams::default()
                    .with_max_polys(mp)
                    .with_max_depth(md)
                    .with_cuts(CutRule::Halves)
                    .with_min_gain(g),
            );
        }
    }
    for p in cfgs {
        let s = Instant::now();
        let t = PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).params(p).build().unwrap();
        let b = s.elapsed();
        let st = t.stats();
        println!("{:>3}/{:>2} {:>9} g{:<5} nodes {:>8} depth {:>2} tree {:>6.2} MB faces {:>6.2} MB ratio {:.2} exp {:.3} build {:?}", p.max_polys, p.max_depth, p.cuts.name(), p.min_gain, st.nodes, st.depth, st.tree_bytes as f64/1e6, st.face_bytes as f64/1e6, st.tree_bytes as f64/st.face_bytes as f64, st.expected_tests, b);
    }
}
