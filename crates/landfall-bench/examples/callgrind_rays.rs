//! Instruction counts per ray, which a noisy shared machine cannot blur: run
//! `valgrind --tool=callgrind target/release/examples/callgrind_rays oblique 4` and the same with 0
//! repetitions; the difference divided by 4 × 256 rays is the instructions per ray (KIND = oblique
//! or los, on a generated 513² terrain). With `--features stats` it also prints the work per ray.
use landfall::support::workload as sets;
use landfall_bench::terrains;
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
    println!("{:?} per ray", landfall::support::take_stats().map(|c| c as f64 / (reps * set.len()) as f64));
}
