//! A conservative horizon per azimuth sector, to prove most visible targets visible without
//! walking their whole segment.
//!
//! Every cell bounds the elevation slope σ(X) = (h(X) − z_eye)/ρ(X) of its points as seen from the
//! eye (ρ the horizontal distance): its highest corner over its nearest distance (or, when that
//! corner is below the eye, over its farthest). The bound goes into every azimuth sector the cell
//! overlaps, in the distance bin of its nearest point, and each sector keeps the running maximum
//! over its bins. A target's segment lies in one sector (it has one azimuth), so the largest bound
//! of that sector's bins before the target bounds σ along the segment up to there; if the target's
//! own slope σ_P exceeds it, no terrain point before that distance reaches the line of sight, and
//! only the stretches near the target and near the eye (where the bounds are weak) are walked
//! exactly. A sector bound that is not below σ_P proves nothing: the target is walked in full.

use super::sight::{floor, Sight};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Sectors around the eye (a power of two).
const SECTORS: usize = 1 << 14;

/// The sector bounds of one observer.
pub(crate) struct Horizon {
    /// Distance bin width (world units).
    bin: f64,
    /// The stretch near the eye left to the exact walk (world units).
    pub near: f64,
    bins: usize,
    /// `max[k·bins + b]`: the largest slope bound of sector k over bins 0..=b.
    max: Vec<f32>,
}

impl Horizon {
    /// The bounds of every cell of the terrain around `sight`'s eye (which has no holes).
    pub fn new(sight: &Sight) -> Self {
        let hf = sight.hf;
        let sp = hf.spacing();
        let diag = sp.x.hypot(sp.y);
        let (nx, ny) = (hf.nx(), hf.ny());
        let far = {
            let corners =
                [(0.0, 0.0), ((nx - 1) as f64, 0.0), (0.0, (ny - 1) as f64), ((nx - 1) as f64, (ny - 1) as f64)];
            corners.iter().map(|&(u, v)| sight.dist2(u, v).sqrt()).fold(0.0, f64::max)
        };
        let bin = 4.0 * diag;
        let near = 3.0 * diag;
        let bins = (far / bin) as usize + 2;
        let cells: Vec<AtomicU32> = (0..SECTORS * bins).map(|_| AtomicU32::new(key(f32::NEG_INFINITY))).collect();
        let width = TURN / SECTORS as f64;
        let (ou, ov) = (sight.ou, sight.ov);
        (0..ny - 1).into_par_iter().for_each(|j| {
            for i in 0..nx - 1 {
                let k = sight.corners(i, j);
                let hmax = k.h00.max(k.h10).max(k.h01).max(k.h11);
                // Nearest and farthest points of the cell.
                let cu = ou.clamp(i as f64, i as f64 + 1.0);
                let cv = ov.clamp(j as f64, j as f64 + 1.0);
                let dmin = sight.dist2(cu, cv).sqrt();
                let fu = if ou < i as f64 + 0.5 { i as f64 + 1.0 } else { i as f64 };
                let fv = if ov < j as f64 + 0.5 { j as f64 + 1.0 } else { j as f64 };
                let dmax = sight.dist2(fu, fv).sqrt();
                if dmax < near {
                    continue;
                }
                let from = dmin.max(near);
                let rise = hmax - sight.zo;
                let bound = if rise > 0.0 { rise / from } else { rise / dmax };
                // Round up to f32, so that the stored bound still bounds.
                let b32 = bound as f32;
                let b32 = if (b32 as f64) < bound { b32.next_up() } else { b32 };
                let b = ((from / bin) as usize).min(bins - 1);
                // The cell's azimuths: around its centre's, spanning less than half a turn (the
                // eye is not inside it, being at least `near` away from some of it … or inside, in
                // which case every sector).
                let inside = dmin == 0.0;
                let (lo, hi) = if inside {
                    (0.0, TURN)
                } else {
                    let centre = azimuth(sight, i as f64 + 0.5, j as f64 + 0.5);
                    let mut lo: f64 = 0.0;
                    let mut hi: f64 = 0.0;
                    for (du, dv) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
                        let a = azimuth(sight, i as f64 + du, j as f64 + dv);
                        // Relative to the centre's, in (−half a turn, half a turn].
                        let mut d = a - centre;
                        if d > 0.5 * TURN {
                            d -= TURN;
                        } else if d <= -0.5 * TURN {
                            d += TURN;
                        }
                        lo = lo.min(d);
                        hi = hi.max(d);
                    }
                    // A hair wider, so that rounding never leaves out a sector the cell touches.
                    (centre + lo - 1e-9, centre + hi + 1e-9)
                };
                let k0 = floor(lo / width);
                let k1 = floor(hi / width);
                debug_assert!(k1 - k0 <= SECTORS as i64);
                for k in k0..=k1 {
                    let k = k.rem_euclid(SECTORS as i64) as usize;
                    cells[k * bins + b].fetch_max(key(b32), Ordering::Relaxed);
                }
            }
        });
        let mut max: Vec<f32> = cells.into_iter().map(|c| unkey(c.into_inner())).collect();
        for row in max.chunks_mut(bins) {
            for b in 1..bins {
                row[b] = row[b].max(row[b - 1]);
            }
        }
        Self { bin, near, bins, max }
    }

    /// The largest slope bound of the terrain in the target's sector at distances below `cut`
    /// (a multiple of the bin width), and `cut`; `None` when the target is too near for the
    /// bounds to help.
    pub fn bound(&self, sight: &Sight, pi: usize, pj: usize, dist: f64, reach: f64) -> Option<(f64, f64)> {
        let bins_before = floor((dist - reach) / self.bin) as f64;
        let cut = bins_before * self.bin;
        if cut <= self.near || bins_before < 1.0 {
            return None;
        }
        let az = azimuth(sight, pi as f64, pj as f64);
        let k = ((az * (SECTORS as f64 / TURN)) as usize).min(SECTORS - 1);
        let b = (bins_before as usize - 1).min(self.bins - 1);
        Some((self.max[k * self.bins + b] as f64, cut))
    }
}

/// An f32 as a u32 that orders the same way (for an atomic maximum).
fn key(f: f32) -> u32 {
    let b = f.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The inverse of [`key`].
fn unkey(k: u32) -> f32 {
    f32::from_bits(if k >> 31 == 1 { k & !(1 << 31) } else { !k })
}

/// A full turn of [`azimuth`].
const TURN: f64 = 4.0;

/// A pseudo-angle of grid point (u, v) around the eye, in [0, 4): the "diamond angle", which grows
/// with the true angle (east = 0, counter-clockwise) without a trigonometric call. Sectors are
/// equal in it, not in degrees (they differ by at most √2), which bounds need not care about.
fn azimuth(sight: &Sight, u: f64, v: f64) -> f64 {
    let sp = sight.hf.spacing();
    let (x, y) = ((u - sight.ou) * sp.x, (v - sight.ov) * sp.y);
    let a = if y >= 0.0 {
        if x >= 0.0 {
            y / (x + y)
        } else {
            1.0 - x / (y - x)
        }
    } else if x < 0.0 {
        2.0 - y / (-x - y)
    } else {
        3.0 + x / (x - y)
    };
    // (0, 0) is the eye itself (0/0): any sector.
    if a.is_nan() {
        0.0
    } else {
        a
    }
}
