//! The broad phase's multi-scale frame alone (for profiling): 100,000 spheres of 0.01–1,000 m over
//! 100 km², each moved then every pair found: with Mirtich's registration on the dual layout
//! (`upward`, the default), or landfall's broad phase with levels 4 or 8 apart (`phase`, `phase8`).
//! `cargo run --release -p landfall-bench --example broadprof [frames] [upward|phase|phase8] [100k|crowd|1m]
//! [threads]` (perf record it; `1m`: 1,000,000 spheres of the same mix over 1,000 km², scene 3 of the
//! bench; `threads` above 1: `phase` moves the objects and finds the pairs on that many of rayon's
//! threads, `set_all` and `set_parallel`). CPU time is the process's (every thread's), beside wall time.
use glam::DVec3;
use landfall::broad::{BroadPhase, ProximityGrid};
use landfall::support::SplitMix64;
use std::time::Instant;

/// The process's CPU time in seconds, all threads (the machine may be shared: wall time would count
/// waiting).
fn cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// This thread's CPU time in seconds.
fn thread_cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// This thread's CPU time and each of rayon's threads'.
fn threads_cpu() -> (f64, Vec<f64>) {
    (thread_cpu(), rayon::broadcast(|_| thread_cpu()))
}

/// The CPU time of the critical path since `from` (as `threads_cpu` read it): this thread's (the
/// work outside rayon's) plus the busiest of rayon's threads' — the time of the work on as many
/// idle cores as threads, whatever else the machine runs (an idle worker spinning counts: an
/// upper bound).
fn span(from: &(f64, Vec<f64>), serial: &mut f64) -> f64 {
    let (main, pool) = threads_cpu();
    let busiest = pool.iter().zip(&from.1).map(|(b, a)| b - a).fold(0.0, f64::max);
    *serial += main - from.0;
    main - from.0 + busiest
}

fn main() {
    let frames: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(40);
    let mut rng = SplitMix64::new(55);
    // `crowd` as a third argument: 10,000 walkers of 0.5 m over 60 × 400 m instead.
    let crowd = std::env::args().nth(3).is_some_and(|a| a == "crowd");
    let million = std::env::args().nth(3).is_some_and(|a| a == "1m");
    let (n, half) = if million { (1_000_000, 5e5) } else { (100_000, 5e4) };
    let mut objects: Vec<(u64, DVec3, f64)> = (0..if crowd { 10_000u64 } else { n })
        .map(|k| {
            if crowd {
                return (k, DVec3::new(rng.range(-30.0, 30.0), rng.range(-200.0, 200.0), 0.9), 0.25);
            }
            let r = 10f64.powf(rng.range(-2.0, 3.0)) / 2.0;
            (k, DVec3::new(rng.range(-half, half), rng.range(-half, half), rng.range(0.0, 10.0)), r)
        })
        .collect();
    let steps: Vec<DVec3> = objects
        .iter()
        .map(|&(_, _, r)| DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * (0.04 * r * rng.uniform()))
        .collect();
    let ms = |s: f64| s * 1e3 / frames as f64;
    let which = std::env::args().nth(2).unwrap_or_else(|| "upward".into());
    if let Some(ratio) = match which.as_str() {
        "phase" => Some(4),
        "phase8" => Some(8),
        _ => None,
    } {
        let threads: usize = std::env::args().nth(4).and_then(|a| a.parse().ok()).unwrap_or(1);
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().unwrap();
        let mut bp = BroadPhase::with_ratio(1.0, ratio).unwrap();
        bp.set_parallel(threads > 1);
        for &(_, c, r) in &objects {
            bp.insert(c, r).unwrap(); // proxies 0, 1, … in order: `steps` is by proxy
        }
        let (mut t_update, mut t_pairs) = (0.0, 0.0);
        let (mut w_update, mut w_pairs) = (0.0, 0.0);
        let (mut s_update, mut s_pairs) = (0.0, 0.0);
        // This thread's CPU time: the work outside rayon's threads.
        let mut serial = 0.0;
        // Pairs CPU span (`span`) of the frames that searched every object (the first, and rebuilds) and of
        // the others, apart: (frames, seconds).
        let (mut full, mut coherent) = ((0, 0.0), (0, 0.0));
        let each = std::env::var_os("BROADPROF_EACH").is_some();
        for f in 0..frames {
            let serial_before = serial;
            let (s, t, w) = (threads_cpu(), cpu(), Instant::now());
            bp.set_all(|p, c, r| (c + steps[p as usize], r)).unwrap();
            t_update += cpu() - t;
            w_update += w.elapsed().as_secs_f64();
            s_update += span(&s, &mut serial);
            let (s, t, w) = (threads_cpu(), cpu(), Instant::now());
            bp.find_pairs();
            t_pairs += cpu() - t;
            w_pairs += w.elapsed().as_secs_f64();
            let dt = span(&s, &mut serial);
            s_pairs += dt;
            let st = bp.stats();
            let part = if st.dirty as usize == bp.len() { &mut full } else { &mut coherent };
            (part.0, part.1) = (part.0 + 1, part.1 + dt);
            if each {
                println!(
                    "frame {f}: pairs {:.2} ms, outside rayon {:.3} ms; {st:?}",
                    dt * 1e3,
                    (serial - serial_before) * 1e3
                );
            }
        }
        println!(
            "{threads} thread(s), per frame: CPU update {:.2} ms, pairs {:.2} ms; CPU span update {:.2} ms, pairs \
             {:.2} ms (outside rayon {:.2} ms); wall update {:.2} ms, pairs {:.2} ms; {:?}",
            ms(t_update),
            ms(t_pairs),
            ms(s_update),
            ms(s_pairs),
            ms(serial),
            ms(w_update),
            ms(w_pairs),
            bp.stats()
        );
        let mean = |(k, s): (i32, f64)| if k > 0 { s * 1e3 / k as f64 } else { 0.0 };
        println!(
            "pairs, CPU span: {} frames searching every object, {:.2} ms each; {} frames between, {:.2} ms each",
            full.0,
            mean(full),
            coherent.0,
            mean(coherent)
        );
        return;
    }
    let mut g = ProximityGrid::hierarchical(1.0, 11).unwrap();
    for &(id, c, r) in &objects {
        g.insert(id, c, r).unwrap();
    }
    let (mut t_update, mut t_pairs, mut pairs) = (0.0, 0.0, 0);
    for _ in 0..frames {
        let t = Instant::now();
        for (o, s) in objects.iter_mut().zip(&steps) {
            o.1 += *s;
            g.update(o.0, o.1, o.2).unwrap();
        }
        t_update += t.elapsed().as_secs_f64();
        let t = Instant::now();
        pairs = 0;
        g.pairs(|_, _| pairs += 1);
        t_pairs += t.elapsed().as_secs_f64();
    }
    println!("per frame: update {:.1} ms, pairs {:.1} ms ({pairs} pairs)", ms(t_update), ms(t_pairs));
}
