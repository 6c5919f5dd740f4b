//! The addressing of a [`BroadPhase`](super::BroadPhase): levels `ratio` apart (cells of level ℓ
//! are `unit · ratio^ℓ` wide), each level's cells in the thesis' dual layout (cell i spans
//! `[(i − ½)·w, (i + ½)·w)`, so no two levels share a boundary), an object's level (the finest
//! whose cells are at least as wide as its box, raised until its cell indices stay below 2³⁰), and
//! each object's half-width with the margin that keeps the f32 boxes and the cell indices
//! conservative.

/// Largest |coordinate| or radius accepted: squares and sums of squares stay finite.
pub(super) const MAX_COORD: f64 = 3.2e150;

/// Cell indices stay within ±`INDEX_LIMIT` (+ 2 for a query's margin): they fit in an i32, and
/// f64 holds `x / w` to about 2⁻²² of a cell.
const INDEX_LIMIT: f64 = (1u64 << 30) as f64;

/// Half-width of an object's box: its radius, widened by far more than the rounding of any
/// coordinate, box corner or cell index (a box test never rejects a pair the exact test accepts).
#[inline]
pub(super) fn half_width(center_max: f64, radius: f64) -> f64 {
    radius * (1.0 + f64::EPSILON * 4096.0) + center_max * (f64::EPSILON * 4.0) + f64::MIN_POSITIVE
}

/// The levels of one broad phase and their widths.
#[derive(Clone, Debug)]
pub(super) struct Levels {
    /// log₂ of the ratio between consecutive levels.
    shift: i32,
    /// Width of each level's cells.
    width: Vec<f64>,
    /// 1 / width.
    inv: Vec<f64>,
}

impl Levels {
    /// Levels `2^shift` apart with level-0 cells `unit` wide, as many as f64 widths allow
    /// (from 2⁻¹⁰⁰⁰ to 2¹⁰⁰⁰).
    pub fn new(unit: f64, shift: i32) -> Self {
        let lu = unit.log2();
        let min = ((-1000.0 - lu) / shift as f64).ceil() as i32;
        let max = ((1000.0 - lu) / shift as f64).floor() as i32;
        let width: Vec<f64> = (min..=max).map(|l| unit * ((l * shift) as f64).exp2()).collect();
        let inv = width.iter().map(|w| 1.0 / w).collect();
        Self { shift, width, inv }
    }

    /// Number of levels.
    pub fn count(&self) -> usize {
        self.width.len()
    }

    /// The index of the cell of level index `t` holding coordinate `x`.
    #[inline]
    pub fn index(&self, t: usize, x: f64) -> i64 {
        floor(x * self.inv[t] + 0.5)
    }

    /// Width of the cells of level index `t`.
    #[inline]
    pub fn width(&self, t: usize) -> f64 {
        self.width[t]
    }

    /// [`Self::index`] of `x` clamped to `lo ..= hi` (whatever x's magnitude).
    #[inline]
    pub fn index_within(&self, t: usize, x: f64, (lo, hi): (i64, i64)) -> i64 {
        floor((x * self.inv[t] + 0.5).clamp(lo as f64, hi as f64)).clamp(lo, hi)
    }

    /// The level index by size of an object of radius `r`: the finest whose cells are at least
    /// 2r·(1 + 2⁻¹³) wide (room for [`half_width`]'s margins).
    pub fn by_size(&self, r: f64) -> usize {
        let need = (2.0 * r).max(f64::MIN_POSITIVE * 8.0) * (1.0 + 1.0 / 8192.0);
        let guess = ((need / self.width[0]).log2() / self.shift as f64).ceil();
        self.by_size_from(guess.clamp(0.0, (self.count() - 1) as f64) as usize, r)
    }

    /// [`Self::by_size`], searched from level index `t` (cheap when it is the answer or near it).
    pub fn by_size_from(&self, mut t: usize, r: f64) -> usize {
        let need = (2.0 * r).max(f64::MIN_POSITIVE * 8.0) * (1.0 + 1.0 / 8192.0);
        t = t.min(self.count() - 1);
        while t + 1 < self.count() && self.width[t] < need {
            t += 1;
        }
        while t > 0 && self.width[t - 1] >= need {
            t -= 1;
        }
        t
    }

    /// Level index `t` raised until a point `center_max` from the origin (on either axis) has a
    /// cell index within ±2³⁰.
    #[inline]
    pub fn raised(&self, mut t: usize, center_max: f64) -> usize {
        while t + 1 < self.count() && center_max * self.inv[t] > INDEX_LIMIT {
            t += 1;
        }
        t
    }
}

/// ⌊v⌋ for |v| < 2⁶² (inline: `f64::floor` may be a library call).
#[inline]
fn floor(v: f64) -> i64 {
    let i = v as i64;
    i - ((i as f64) > v) as i64
}
