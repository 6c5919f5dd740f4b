//! Fat spheres: what a [`BroadPhase`](super::BroadPhase) registers in its levels for an object — its
//! sphere with the radius enlarged in proportion to its size — so that an object moving less than
//! the margin keeps its place in the levels and its candidate pairs.

use super::level::Sphere;

/// The margin: a fat sphere's radius is `r · (1 + FAT_MARGIN)` plus [`slack`]. Measured on issue
/// 72's scenes 1 and 3 (`docs/benchmarks.md`): 0.5–1 are about equally fast, 0.25 and 2 slower.
pub(super) const FAT_MARGIN: f64 = 0.75;

/// Far more than the rounding of a sphere test at this size and distance from the origin: a fat
/// sphere's radius exceeds what the margin gives by this much, and a sphere counts as within its
/// fat sphere only by half of it to spare (so that whenever the f64 test finds two spheres
/// touching, it finds their fat spheres touching).
#[inline]
fn slack(s: &Sphere) -> f64 {
    (s.r + s.c.abs().max_element()) * 1e-12 + f64::MIN_POSITIVE * 16.0
}

/// The fat sphere around `s`.
#[inline]
pub(super) fn fatten(s: &Sphere) -> Sphere {
    Sphere { c: s.c, r: s.r * (1.0 + FAT_MARGIN) + slack(s) }
}

/// The sphere around `s` with no margin (only the slack): what a rebuild for one search registers.
#[inline]
pub(super) fn thin(s: &Sphere) -> Sphere {
    Sphere { c: s.c, r: s.r + slack(s) }
}

/// Whether `s` still lies within the fat sphere `fat` (with half the slack to spare) and has not
/// shrunk so far that `fat` is more than a margin too wide for it.
#[inline]
pub(super) fn holds(fat: &Sphere, s: &Sphere) -> bool {
    let sl = slack(s);
    let room = fat.r - s.r - 0.5 * sl;
    if room < 0.0 || fat.r > (s.r * (1.0 + FAT_MARGIN) + sl) * (1.0 + FAT_MARGIN) {
        return false;
    }
    let d = s.c - fat.c;
    let lim = room * (1.0 - 1e-9);
    if (lim * lim).is_normal() {
        // |d|² may underflow only where |d| is far below `lim`.
        return d.length_squared() <= lim * lim;
    }
    // |d| at d's own scale.
    let m = d.abs().max_element();
    m == 0.0 || (m <= room && m * (d / m).length() <= lim)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// A sphere holds its fat sphere; moved by less than the margin too, beyond it not; a radius
    /// grown past the margin or shrunk by more than it does not.
    #[test]
    fn holds_within_the_margin() {
        for (c, r) in
            [(DVec3::ZERO, 1.0), (DVec3::new(1e7, -3.0, 2.0), 0.01), (DVec3::splat(1e-160), 1e-170), (DVec3::ZERO, 0.0)]
        {
            let s = Sphere { c, r };
            let f = fatten(&s);
            assert!(holds(&f, &s), "{c} {r}");
            let moved = Sphere { c: c + DVec3::X * r * FAT_MARGIN * 0.9, r };
            assert!(r == 0.0 || holds(&f, &moved), "{c} {r}");
            let far = Sphere { c: c + DVec3::X * (r * FAT_MARGIN * 1.1 + 1e-300), r };
            assert!(!holds(&f, &far), "{c} {r}");
            assert!(!holds(&f, &Sphere { c, r: r * (1.0 + FAT_MARGIN) * 1.01 + 1e-300 }), "{c} {r}");
            assert!(r == 0.0 || !holds(&f, &Sphere { c, r: r * 0.5 }), "{c} {r}");
        }
    }
}
