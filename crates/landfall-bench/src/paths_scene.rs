//! The paths bench's scene (`benches/paths.rs`, `examples/pathprof.rs`): flat ground over a
//! 1.6 km square and the same obstacles for every agent.

use glam::DVec2;
use landfall::support::SplitMix64;
use landfall::world::Disc;
use landfall::Heightfield;

/// Side of the square, metres.
pub const SIDE: f64 = 1600.0;

/// The ends of the path.
pub fn ends() -> (DVec2, DVec2) {
    (DVec2::new(100.0, 700.0), DVec2::new(1500.0, 900.0))
}

/// Flat ground, 1 m samples.
pub fn ground() -> Heightfield {
    let n = SIDE as usize + 1;
    Heightfield::builder(n, n, vec![0.0; n * n]).build().unwrap()
}

/// The same obstacles for both agents: 300 stones and bushes (0.3–2 m), 30 houses and rocks
/// (3–10 m), 4 halls and ponds (15–35 m), none within 60 m of the two ends (sparse enough that
/// the 20 m giant, 40 m wide, finds a way).
pub fn obstacles(a: DVec2, b: DVec2) -> Vec<Disc> {
    let mut rng = SplitMix64::new(74);
    let mut out = Vec::new();
    for (n, lo, hi) in [(300, 0.3, 2.0), (30, 3.0, 10.0), (4, 15.0, 35.0)] {
        let mut k = 0;
        while k < n {
            let d = Disc { center: DVec2::new(rng.range(0.0, SIDE), rng.range(0.0, SIDE)), radius: rng.range(lo, hi) };
            if d.center.distance(a) > d.radius + 60.0 && d.center.distance(b) > d.radius + 60.0 {
                out.push(d);
                k += 1;
            }
        }
    }
    out
}
