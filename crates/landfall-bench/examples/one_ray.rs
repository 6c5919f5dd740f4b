//! Instruction counts per ray, for callgrind: `valgrind --tool=callgrind target/release/examples/one_ray KIND REPS`
//! minus the same with REPS = 0.
use landfall_bench::{sets, terrains};
fn main() {
    let kind = std::env::args().nth(1).unwrap_or_default();
    let reps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let t = terrains::generated(513);
    let set = if kind == "los" { sets::line_of_sight(&t.hf, 256, 23) } else { sets::oblique(&t.hf, 256, 22) };
    let mut k = 0;
    for _ in 0..reps {
        for (r, m) in &set {
            k += std::hint::black_box(t.hf.raycast(std::hint::black_box(r), *m)).is_some() as usize;
        }
    }
    println!("{k}");
    #[cfg(feature = "stats")]
    println!("{:?} per ray", landfall::heightfield::take_stats().map(|c| c as f64 / (reps * set.len()) as f64));
}
