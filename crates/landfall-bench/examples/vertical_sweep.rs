//! Where splitting a level by height pays: 100,000 spheres of radius 0.3 m (one level of 1 m cells)
//! over `side` × `side` m, their centres spread uniformly over `layers` m of z, each frame moved a
//! little then every pair found, with the level split by height (`Vertical::Always`) and not
//! (`Never`): CPU time per frame and candidates, for spreads of 2 to 16 layers and 2.5 to 40 objects
//! per column of cells. What `Vertical::Auto`'s thresholds rest on.
//! `cargo run --release -p landfall-bench --example vertical_sweep [frames]`
use glam::DVec3;
use landfall::broad::{BroadPhase, Vertical};
use landfall::support::SplitMix64;

/// This thread's CPU time in seconds (the machine may be shared: wall time would count waiting).
fn cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// CPU ms per frame, candidates and pairs of `frames` frames with the level split as `vertical`
/// says.
fn run(vertical: Vertical, side: f64, layers: f64, frames: usize) -> (f64, u64, u64) {
    let mut rng = SplitMix64::new(59);
    let mut bp = BroadPhase::new(1.0);
    bp.set_vertical(vertical);
    let h = side / 2.0;
    let mut at: Vec<DVec3> =
        (0..100_000).map(|_| DVec3::new(rng.range(-h, h), rng.range(-h, h), rng.range(0.0, layers))).collect();
    for &c in &at {
        bp.insert(c, 0.3).unwrap();
    }
    bp.find_pairs();
    let start = cpu();
    for _ in 0..frames {
        for (p, c) in at.iter_mut().enumerate() {
            *c += DVec3::new(rng.range(-0.01, 0.01), rng.range(-0.01, 0.01), 0.0);
            bp.set(p as u32, *c, 0.3).unwrap();
        }
        bp.find_pairs();
    }
    let st = bp.stats();
    ((cpu() - start) * 1e3 / frames as f64, st.candidates, st.pairs)
}

fn main() {
    let frames: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    println!(
        "{:>6} {:>7} {:>12} {:>12} {:>14} {:>14} {:>9} {:>7}",
        "side", "layers", "split ms", "unsplit ms", "split cand.", "unsplit cand.", "pairs", "ratio"
    );
    for side in [200.0, 100.0, 50.0] {
        for layers in [2.0, 4.0, 5.0, 8.0, 16.0] {
            let (ts, cs, ps) = run(Vertical::Always, side, layers, frames);
            let (tn, cn, pn) = run(Vertical::Never, side, layers, frames);
            assert_eq!(ps, pn, "the same pairs");
            println!("{side:>6} {layers:>7} {ts:>12.2} {tn:>12.2} {cs:>14} {cn:>14} {ps:>9} {:>6.2}×", tn / ts);
        }
    }
}
