//! Deterministic synthetic terrain for demos, benchmarks and tests: fractal value noise with ridged
//! mountains, the same bits on every run and thread count.

use crate::rng::mix;
use rayon::prelude::*;

/// Parameters of a generated terrain.
#[derive(Clone, Copy, Debug)]
pub struct SynthParams {
    /// Seed of the hash that drives the noise.
    pub seed: u64,
    /// Difference between the lowest and highest sample, in z units.
    pub relief: f32,
    /// Size of the largest features, in samples.
    pub feature: f64,
    /// Number of noise octaves.
    pub octaves: u32,
}

impl Default for SynthParams {
    fn default() -> Self {
        Self { seed: 1, relief: 800.0, feature: 600.0, octaves: 10 }
    }
}

/// Uniform value in [−1, 1] for lattice point (x, y) of octave `o`.
#[inline]
fn lattice(seed: u64, o: u32, x: i64, y: i64) -> f64 {
    let h = mix(seed ^ mix((o as u64) << 48 ^ mix(x as u64 ^ mix(y as u64))));
    (h >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

#[inline]
fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// Smooth value noise in [−1, 1].
fn value_noise(seed: u64, o: u32, x: f64, y: f64) -> f64 {
    let (xf, yf) = (x.floor(), y.floor());
    let (xi, yi) = (xf as i64, yf as i64);
    let (tx, ty) = (fade(x - xf), fade(y - yf));
    let a = lattice(seed, o, xi, yi);
    let b = lattice(seed, o, xi + 1, yi);
    let c = lattice(seed, o, xi, yi + 1);
    let d = lattice(seed, o, xi + 1, yi + 1);
    let top = a + (b - a) * tx;
    let bot = c + (d - c) * tx;
    top + (bot - top) * ty
}

/// Height of the generated terrain at sample coordinates (x, y), before scaling to the relief.
fn raw_height(p: &SynthParams, x: f64, y: f64) -> f64 {
    let (mut sum, mut amp, mut freq) = (0.0, 1.0, 1.0 / p.feature);
    // A slow mask decides where mountains rise (ridged noise) and where plains stay smooth.
    let mask = (0.5 + 0.8 * value_noise(p.seed, 99, x / (p.feature * 2.0), y / (p.feature * 2.0))).clamp(0.0, 1.0);
    for o in 0..p.octaves {
        let n = value_noise(p.seed, o, x * freq, y * freq);
        let ridge = 1.0 - n.abs() * 2.0;
        sum += amp * (n * (1.0 - mask) + ridge * mask * 0.8);
        amp *= 0.5 - 0.05 * mask;
        freq *= 2.0;
    }
    sum + 0.6 * mask
}

/// An `nx × ny` grid of heights (row 0 south), spanning exactly `relief` from lowest to highest.
pub fn generate(nx: usize, ny: usize, params: &SynthParams) -> Vec<f32> {
    let mut h = crate::pages::sample_buffer(nx * ny);
    h.par_chunks_mut(nx.max(1)).enumerate().for_each(|(j, row)| {
        for (i, v) in row.iter_mut().enumerate() {
            *v = raw_height(params, i as f64, j as f64) as f32;
        }
    });
    let (lo, hi) = h.iter().fold((f32::MAX, f32::MIN), |(l, u), &v| (l.min(v), u.max(v)));
    let s = if hi > lo { params.relief / (hi - lo) } else { 0.0 };
    h.par_iter_mut().for_each(|v| *v = (*v - lo) * s);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_scaled() {
        let p = SynthParams::default();
        let a = generate(65, 33, &p);
        let b = generate(65, 33, &p);
        assert_eq!(a, b);
        let (lo, hi) = a.iter().fold((f32::MAX, f32::MIN), |(l, u), &v| (l.min(v), u.max(v)));
        assert_eq!(lo, 0.0);
        assert!((hi - 800.0).abs() < 1e-3);
        assert_ne!(generate(65, 33, &SynthParams { seed: 2, ..p }), a);
    }
}
