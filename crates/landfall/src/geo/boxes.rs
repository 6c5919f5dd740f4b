//! Bounding boxes of the surface's blocks in the surface's ENU frame: a quadtree of `leaf × leaf`
//! cell blocks, each box bounding every vertex of its block (so the convex hull of the vertices, and
//! with it every triangle, lies inside). Parents are the union of their children. Boxes are f32,
//! padded by 2⁻³⁰ of their coordinates' magnitude and rounded outward, so a point of a triangle on a
//! box's face is inside after any rounding of the slab test.

use super::tables::GridTables;
use crate::geom::round::{f32_down as down, f32_up as up};
use glam::DVec3;
use rayon::prelude::*;

/// One box: min x, y, z then max x, y, z. Empty boxes have min > max.
pub(crate) type Bx = [f32; 6];

const EMPTY: Bx =
    [f32::INFINITY, f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];

/// The box tree: level 0 has one box per leaf block, each next level merges 2 × 2.
#[derive(Clone, Debug)]
pub(crate) struct Boxes {
    pub leaf: usize,
    /// (columns, rows, offset into `boxes`) per level, leaves first.
    pub levels: Vec<(usize, usize, usize)>,
    pub boxes: Vec<Bx>,
}

fn union(a: &Bx, b: &Bx) -> Bx {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2]), a[3].max(b[3]), a[4].max(b[4]), a[5].max(b[5])]
}

impl Boxes {
    /// Builds the tree for `ncx × ncy` cells whose vertex (i, j) is `tables.position(i, j, h(i, j))`
    /// (NaN heights skipped).
    pub fn build(
        tables: &GridTables,
        ncx: usize,
        ncy: usize,
        leaf: usize,
        h: impl Fn(usize, usize) -> f32 + Sync,
    ) -> Self {
        let (lx, ly) = (ncx.div_ceil(leaf), ncy.div_ceil(leaf));
        let mut boxes: Vec<Bx> = (0..lx * ly)
            .into_par_iter()
            .with_min_len(64)
            .map(|k| {
                let (bi, bj) = (k % lx, k / lx);
                let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
                for j in bj * leaf..=((bj + 1) * leaf).min(ncy) {
                    for i in bi * leaf..=((bi + 1) * leaf).min(ncx) {
                        let z = h(i, j);
                        if !z.is_nan() {
                            let p = tables.position(i, j, z as f64);
                            lo = lo.min(p);
                            hi = hi.max(p);
                        }
                    }
                }
                if lo.x > hi.x {
                    return EMPTY;
                }
                let pad = lo.abs().max(hi.abs()).max_element().max(1.0) * (-30f64).exp2();
                let (lo, hi) = (lo - pad, hi + pad);
                [down(lo.x), down(lo.y), down(lo.z), up(hi.x), up(hi.y), up(hi.z)]
            })
            .collect();
        let mut levels = vec![(lx, ly, 0)];
        let (mut w, mut hgt, mut off) = (lx, ly, 0);
        while w > 1 || hgt > 1 {
            let (pw, ph) = (w.div_ceil(2), hgt.div_ceil(2));
            let start = boxes.len();
            for pj in 0..ph {
                for pi in 0..pw {
                    let mut b = EMPTY;
                    for (ci, cj) in
                        [(2 * pi, 2 * pj), (2 * pi + 1, 2 * pj), (2 * pi, 2 * pj + 1), (2 * pi + 1, 2 * pj + 1)]
                    {
                        if ci < w && cj < hgt {
                            b = union(&b, &boxes[off + cj * w + ci]);
                        }
                    }
                    boxes.push(b);
                }
            }
            levels.push((pw, ph, start));
            (w, hgt, off) = (pw, ph, start);
        }
        Self { leaf, levels, boxes }
    }

    /// Box (bi, bj) of `level`.
    #[inline(always)]
    pub fn get(&self, level: usize, bi: usize, bj: usize) -> &Bx {
        let (w, _, off) = self.levels[level];
        &self.boxes[off + bj * w + bi]
    }

    /// The root box.
    pub fn root(&self) -> &Bx {
        self.boxes.last().expect("at least one level")
    }

    /// Bytes used.
    pub fn memory_bytes(&self) -> usize {
        self.boxes.len() * std::mem::size_of::<Bx>()
    }
}

/// A ray prepared for many box tests: per axis its origin, 1/d, and the sign of d.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlabRay {
    o: [f64; 3],
    inv: [f64; 3],
    /// Per axis: d's sign bit is set (the ray meets the box's max face first; −0 included, so that
    /// 1/d = −∞ pairs with the max face).
    neg: [bool; 3],
}

impl SlabRay {
    /// The ray `o + t·d`.
    #[inline(always)]
    pub fn new(o: DVec3, d: DVec3) -> Self {
        let d = d.to_array();
        Self { o: o.to_array(), inv: d.map(|x| 1.0 / x), neg: d.map(f64::is_sign_negative) }
    }

    /// The t interval inside box `b`, cut to [t0, t1], or `None`.
    ///
    /// Without a branch per axis: along an axis where d = ±0, 1/d = ±∞ makes the slab's interval
    /// (−∞, ∞) when the origin is strictly inside it and an infinite empty one when outside (which
    /// the final test's `lo < ∞`, `hi > −∞` rejects even for infinite t0 or t1); an origin exactly on
    /// the face gives NaN, which leaves the bound as it was (conservative). So does a subnormal d.
    #[inline(always)]
    pub fn hit(&self, b: &Bx, t0: f64, t1: f64) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = (t0, t1);
        for k in 0..3 {
            let (near, far) = if self.neg[k] { (b[k + 3], b[k]) } else { (b[k], b[k + 3]) };
            let a = (near as f64 - self.o[k]) * self.inv[k];
            let c = (far as f64 - self.o[k]) * self.inv[k];
            if a > lo {
                lo = a;
            }
            if c < hi {
                hi = c;
            }
        }
        (lo <= hi && lo < f64::INFINITY && hi > f64::NEG_INFINITY).then_some((lo, hi))
    }
}

/// True when box `b` overlaps the box [`lo`, `hi`].
#[inline]
pub(crate) fn overlaps(b: &Bx, lo: DVec3, hi: DVec3) -> bool {
    (b[0] as f64) <= hi.x
        && (b[1] as f64) <= hi.y
        && (b[2] as f64) <= hi.z
        && (b[3] as f64) >= lo.x
        && (b[4] as f64) >= lo.y
        && (b[5] as f64) >= lo.z
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The textbook slab test, one branch per axis.
    fn reference(b: &Bx, o: DVec3, d: DVec3, t0: f64, t1: f64) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = (t0, t1);
        for k in 0..3 {
            let (bmin, bmax) = (b[k] as f64, b[k + 3] as f64);
            if d[k] == 0.0 {
                if o[k] < bmin || o[k] > bmax {
                    return None;
                }
                continue;
            }
            let (a, c) = ((bmin - o[k]) / d[k], (bmax - o[k]) / d[k]);
            lo = lo.max(a.min(c));
            hi = hi.min(a.max(c));
        }
        (lo <= hi).then_some((lo, hi))
    }

    /// A coordinate: on a face, or a random value, a direction component: ±0 or random.
    fn coord() -> impl Strategy<Value = f64> {
        prop_oneof![Just(-1.0), Just(2.0), -5.0f64..5.0]
    }

    proptest! {
        /// The prepared test agrees with the reference (to the rounding of 1/d against a division),
        /// along axes where the ray does not move too, and is never stricter for an origin on a face.
        #[test]
        fn slab_ray_matches_the_reference(o in prop::array::uniform3(coord()),
                                          d in prop::array::uniform3(prop_oneof![Just(0.0), Just(-0.0), -1.0f64..1.0]),
                                          t0 in prop_oneof![Just(f64::NEG_INFINITY), -3.0f64..3.0],
                                          t1 in prop_oneof![Just(f64::INFINITY), -3.0f64..30.0]) {
            let b: Bx = [-1.0, -1.0, -1.0, 2.0, 2.0, 2.0];
            let (o, d) = (DVec3::from_array(o), DVec3::from_array(d));
            prop_assume!(d != DVec3::ZERO);
            let got = SlabRay::new(o, d).hit(&b, t0, t1);
            let on_face = (0..3).any(|k| d[k] == 0.0 && (o[k] == -1.0 || o[k] == 2.0));
            match reference(&b, o, d, t0, t1) {
                Some((lo, hi)) => {
                    let (a, c) = got.expect("the reference's hit");
                    let close = |x: f64, y: f64| x == y || (x - y).abs() <= 1e-12 * (1.0 + x.abs());
                    prop_assert!(close(a, lo) && close(c, hi), "{got:?} vs {:?}", (lo, hi));
                }
                None => prop_assert!(got.is_none() || on_face, "{got:?}"),
            }
        }
    }
}
