//! Balls on a line: the event-driven engine against a brute-force stepper that tests every pair
//! and every wall at each event, conservation over a million collisions, and order.

use landfall::events::{LineBall, LineBalls, LineError, LineEvent, Model, Simulation};
use landfall::support::SplitMix64;
use proptest::prelude::*;

/// Balls spread without overlap between walls at 0 and `len`.
fn random_balls(rng: &mut SplitMix64, n: usize, len: f64) -> Vec<LineBall> {
    let slot = len / n as f64;
    (0..n)
        .map(|k| {
            let r = slot * (0.05 + 0.4 * rng.uniform());
            let x = slot * k as f64 + r + (slot - 2.0 * r) * rng.uniform();
            LineBall { x, v: 10.0 * (rng.uniform() - 0.5), r, m: 0.1 + 10.0 * rng.uniform() }
        })
        .collect()
}

/// Brute force: at each step every pair (in any order) and every ball against both walls; the
/// earliest contact with closing speed is carried out. Returns (time, a, b) in input indices,
/// walls as −1 (left) and −2 (right).
fn brute_force(balls: &[LineBall], left: f64, right: f64, until: f64, max_events: usize) -> Vec<(f64, i64, i64)> {
    let mut b = balls.to_vec();
    let mut now = 0.0;
    let mut out = Vec::new();
    while out.len() < max_events {
        let mut best: Option<(f64, usize, i64)> = None;
        let mut take = |t: f64, i: usize, j: i64| {
            if best.is_none_or(|(bt, _, _)| t < bt) {
                best = Some((t, i, j));
            }
        };
        for i in 0..b.len() {
            for j in 0..b.len() {
                let (p, q) = (&b[i], &b[j]);
                // i left of j, closing.
                if i != j && p.x < q.x && p.v > q.v {
                    let gap = (q.x - p.x - p.r - q.r).max(0.0);
                    take(now + gap / (p.v - q.v), i, j as i64);
                }
            }
            if b[i].v < 0.0 {
                take(now + (b[i].x - b[i].r - left).max(0.0) / -b[i].v, i, -1);
            }
            if b[i].v > 0.0 {
                take(now + (right - b[i].x - b[i].r).max(0.0) / b[i].v, i, -2);
            }
        }
        let Some((t, i, j)) = best else { break };
        if t > until {
            break;
        }
        for p in &mut b {
            p.x += p.v * (t - now);
        }
        now = t;
        if j >= 0 {
            let j = j as usize;
            let vc = (b[i].m * b[i].v + b[j].m * b[j].v) / (b[i].m + b[j].m);
            b[i].v = 2.0 * vc - b[i].v;
            b[j].v = 2.0 * vc - b[j].v;
            out.push((t, i.min(j) as i64, i.max(j) as i64));
        } else {
            b[i].v = -b[i].v;
            out.push((t, i as i64, j));
        }
    }
    out
}

/// The engine's events as (time, a, b) in input indices.
fn engine(balls: &[LineBall], left: f64, right: f64, until: f64, max_events: usize) -> Vec<(f64, i64, i64)> {
    let mut sim = Simulation::new(LineBalls::new(balls, left, right).unwrap(), 0.0);
    let mut out = Vec::new();
    while out.len() < max_events {
        let Some(e) = sim.step(until) else { break };
        let m = sim.model();
        let a = m.input_index(e.a) as i64;
        out.push(match e.kind {
            LineEvent::Balls => {
                let b = m.input_index(e.b) as i64;
                (e.time, a.min(b), a.max(b))
            }
            LineEvent::LeftWall => (e.time, a, -1),
            LineEvent::RightWall => (e.time, a, -2),
        });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn agrees_with_brute_force(seed in any::<u64>(), n in 1usize..12) {
        let mut rng = SplitMix64::new(seed);
        let balls = random_balls(&mut rng, n, 10.0);
        let want = brute_force(&balls, 0.0, 10.0, 20.0, 60);
        let got = engine(&balls, 0.0, 10.0, 20.0, 60);
        // Rounding can reorder two events a few ulps apart; compare until the first such tie.
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g.0 - w.0).abs() <= 1e-9 * w.0.abs().max(1.0), "time {} vs {}", g.0, w.0);
            if (g.1, g.2) != (w.1, w.2) {
                break;
            }
        }
        prop_assert!(got.len() == want.len() || got.len() == 60 || want.len() == 60);
    }
}

#[test]
fn simultaneous_contacts_newtons_cradle() {
    // Three equal balls touching, the left one moving: the momentum passes to the right one.
    let balls = [
        LineBall { x: 1.0, v: 1.0, r: 0.5, m: 1.0 },
        LineBall { x: 2.0, v: 0.0, r: 0.5, m: 1.0 },
        LineBall { x: 3.0, v: 0.0, r: 0.5, m: 1.0 },
    ];
    let mut sim = Simulation::new(LineBalls::new(&balls, 0.0, 100.0).unwrap(), 0.0);
    let n = sim.advance_to(1.0, |_, _| {});
    assert_eq!(n, 2);
    let m = sim.model();
    assert_eq!([m.velocity(0), m.velocity(1), m.velocity(2)], [0.0, 0.0, 1.0]);
    assert_eq!(m.position(2, 1.0), 4.0);
}

#[test]
fn a_million_collisions_keep_energy_and_momentum() {
    let mut rng = SplitMix64::new(7);
    let balls = random_balls(&mut rng, 200, 1000.0);
    let mut sim = Simulation::new(LineBalls::new(&balls, 0.0, 1000.0).unwrap(), 0.0);
    let (e0, p0) = (sim.model().energy(), sim.model().momentum());
    let scale: f64 = balls.iter().map(|b| (b.m * b.v).abs()).sum();
    // Walls change the momentum by −2·m·v; everything else must keep it.
    let mut wall_impulse = 0.0;
    let mut last = 0.0;
    let mut ball_collisions = 0u64;
    while ball_collisions < 1_000_000 {
        let e = sim.step(f64::INFINITY).expect("elastic balls never stop");
        assert!(e.time >= last, "events out of order: {} after {last}", e.time);
        last = e.time;
        let m = sim.model();
        match e.kind {
            LineEvent::Balls => ball_collisions += 1,
            _ => {
                // The velocity after the bounce is −v before: impulse m·(v_after − v_before).
                let k = m.input_index(e.a);
                wall_impulse += 2.0 * balls[k].m * m.velocity(e.a);
            }
        }
    }
    let m = sim.model();
    let de = (m.energy() - e0).abs() / e0;
    let dp = (m.momentum() - p0 - wall_impulse).abs() / scale;
    assert!(de < 1e-9, "energy drifted by {de:e} relative");
    assert!(dp < 1e-9, "momentum drifted by {dp:e} relative");
    // And no two balls overlap nor leave the walls at the end.
    let t = sim.now();
    for i in 0..m.objects() as u32 {
        let k = m.input_index(i);
        let x = m.position(i, t);
        assert!(x - balls[k].r >= -1e-6 && x + balls[k].r <= 1000.0 + 1e-6);
        if i > 0 {
            let j = m.input_index(i - 1);
            assert!(x - m.position(i - 1, t) >= balls[k].r + balls[j].r - 1e-6);
        }
    }
}

#[test]
fn frames_see_balls_inside_the_walls_and_apart() {
    let mut rng = SplitMix64::new(3);
    let balls = random_balls(&mut rng, 50, 100.0);
    let mut sim = Simulation::new(LineBalls::new(&balls, 0.0, 100.0).unwrap(), 0.0);
    for f in 1..=600 {
        let t = f as f64 / 60.0;
        sim.advance_to(t, |_, _| {});
        let m = sim.model();
        let xs: Vec<f64> = (0..50).map(|i| m.position(i, t)).collect();
        for i in 0..50 {
            let r = balls[m.input_index(i as u32)].r;
            assert!(xs[i] - r >= -1e-9 && xs[i] + r <= 100.0 + 1e-9, "frame {f}: ball outside");
            if i > 0 {
                let rl = balls[m.input_index(i as u32 - 1)].r;
                assert!(xs[i] - xs[i - 1] >= r + rl - 1e-9, "frame {f}: balls overlap");
            }
        }
    }
}

#[test]
fn bad_sets_are_refused() {
    let b = |x: f64, r: f64, m: f64| LineBall { x, v: 0.0, r, m };
    assert_eq!(LineBalls::new(&[], 1.0, 1.0).unwrap_err(), LineError::Walls(1.0, 1.0));
    assert_eq!(
        LineBalls::new(&[b(1.0, 1.0, 1.0), b(2.5, 1.0, 1.0)], -10.0, 10.0).unwrap_err(),
        LineError::Overlap(0, 1)
    );
    assert!(LineBalls::new(&[b(1.0, 1.0, 1.0), b(3.0, 1.0, 1.0)], -10.0, 10.0).is_ok(), "touching is allowed");
    assert_eq!(
        LineBalls::new(&[b(9.5, 1.0, 1.0)], -10.0, 10.0).unwrap_err(),
        LineError::OutsideWalls { ball: 0, side: "right" }
    );
    assert!(matches!(LineBalls::new(&[b(0.0, 1.0, 0.0)], -10.0, 10.0), Err(LineError::Ball { ball: 0, .. })));
    assert!(matches!(LineBalls::new(&[b(0.0, -1.0, 1.0)], -10.0, 10.0), Err(LineError::Ball { ball: 0, .. })));
}
