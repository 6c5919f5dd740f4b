//! The stack walk of a ray that enters the terrain's height slab through its top or bottom: front
//! to back from the lowest 4 × 4 block of pyramid nodes that holds the whole clipped ray, testing
//! the sixteen nodes of a block together and descending two levels at a time.
//!
//! **A block.** The ray's t interval in each node of the block is its interval in the block split
//! at the block's three inner lines along u and along v, then cut to where the ray's height lies
//! within the node's height range. A node whose cut interval is not empty may hold a crossing.
//! With AVX2 one row of four nodes is one register of four f64 lanes; without it, the same IEEE
//! operations in the same order run one node at a time, so both give the same bits.
//!
//! **Order.** The nodes are numbered in the ray's order: mirrored so that node (0, 0) is the one the
//! ray enters first, then row by row, `n = 4b + a` (mirrored column a, row b). Along a straight ray
//! both a and b only grow, and every line it crosses is crossed at a t that grows with the line
//! (the lines are exact integers, and rounding is monotone). So a node's interval ends where the
//! next row's, or the next column's, begins or earlier: of two nodes with cut intervals, the lower
//! number comes first along the ray (`row_major_order_is_the_ray_order`). The mask of nodes to
//! visit is in that order as it comes out of the test; the nearest one is visited at once (its
//! grandchildren are the next block, or it is a leaf and its cells are walked), and the others
//! wait on a small stack with their block, nearest first.
//!
//! Blocks start at an even level, so that two levels down at a time ends on the leaves. While a
//! block is tested, its grandchildren's rows are fetched (the next block is among them); before
//! the first leaf of a block of leaves is walked, every leaf of it the ray may cross is fetched.

use super::cell::{cell_index, to_f};
use super::raycast::{count, max, min, Chain, Sink, Walk};
use super::Heightfield;
use crate::geom::Ray;
use std::mem::MaybeUninit;
use std::ops::ControlFlow;

/// The ray's cut t intervals `[xa[n], xb[n]]` in the sixteen nodes of a block, node `n = 4b + a` at
/// mirrored column `a` and row `b` (the module's "Order").
#[derive(Clone, Copy)]
#[repr(C)]
struct Intervals {
    xa: [f64; 16],
    xb: [f64; 16],
}

/// A block whose nodes wait on the stack (their [`Intervals`] beside it): which are still to visit,
/// and where the block is.
#[derive(Clone, Copy)]
struct Waiting {
    /// Level of the nodes.
    k: u32,
    /// The block's first node (li, lj) at level `k`.
    li: u32,
    lj: u32,
    /// Bit n: node n (see [`Intervals`]) is still to visit.
    rest: u32,
}

/// Per-ray constants of the node test: the ray, and what the walk derives from it once.
#[derive(Clone, Copy, Debug)]
struct Consts<'a> {
    w: &'a Walk,
    /// A code's t at a node's low and high ends: `c · z2t[0] + z2t[1]` and `c · z2t[0] + z2t[2]`.
    z2t: [f64; 3],
    /// The block's line (in nodes from its first) at the near side of mirrored column a (lane a;
    /// lane 0 is never used): a for a ray moving toward higher u, 4 − a otherwise.
    lines_u: [f64; 4],
    /// The same along v.
    lines_v: [f64; 4],
    /// AVX2 lane order taking a row's codes `[lo, hi, lo, hi, …]` to its lows, then its highs, in
    /// mirrored column order.
    code_order: [i32; 8],
    /// 3 when the ray moves toward lower u (mirrored column a is the block's column 3 − a), else 0.
    flip_u: usize,
    /// The same along v.
    flip_v: usize,
}

/// Per direction along an axis (0: toward higher indices, 1: toward lower): the block's line (in
/// nodes from its first) at the near side of mirrored column a ([`Consts::lines_u`]). Looked up,
/// not branched on: the direction is a coin toss from ray to ray.
const NEAR_LINES: [[f64; 4]; 2] = [[0.0, 1.0, 2.0, 3.0], [4.0, 3.0, 2.0, 1.0]];
/// Per direction along u, as [`NEAR_LINES`]: [`Consts::code_order`].
const CODE_ORDER: [[i32; 8]; 2] = [[0, 2, 4, 6, 1, 3, 5, 7], [6, 4, 2, 0, 7, 5, 3, 1]];

/// A block as the node test sees it.
#[derive(Clone, Copy)]
struct Block<'a> {
    /// The ray's t interval in the block.
    ta: f64,
    tb: f64,
    /// The block's first node, in nodes of its level, and the level's span in cells.
    li: f64,
    lj: f64,
    span: f64,
    /// The block's codes: row r at `r · stride`, nodes at their columns.
    codes: &'a [[u16; 2]],
    stride: usize,
}

/// t where the ray crosses the block's inner lines 1–3 along one axis, in the ray's order (lanes
/// 1–3; lane 0 unused): `((first + line) · span − p0) · inv`, each line an exact integer in cells.
#[inline(always)]
fn inner_line_t(first: f64, span: f64, lines: &[f64; 4], p0: f64, inv: f64, lane: usize) -> f64 {
    ((first + lines[lane]) * span - p0) * inv
}

/// The sixteen nodes of `block` one at a time: their cut intervals into `out` and the mask of those
/// not empty (bit `4b + a`). The reference for [`nodes16_avx2`], and the test where AVX2 is missing.
#[inline(always)]
fn nodes16_scalar(c: &Consts, block: &Block, out: &mut MaybeUninit<Intervals>) -> u32 {
    const I: f64 = f64::INFINITY;
    let lines = |first: f64, lines: &[f64; 4], p0: f64, inv: f64| {
        let t = |lane| inner_line_t(first, block.span, lines, p0, inv, lane);
        ([-I, t(1), t(2), t(3)], [t(1), t(2), t(3), I])
    };
    let (enter_u, leave_u) = lines(block.li, &c.lines_u, c.w.u0, c.w.inv_du);
    let (enter_v, leave_v) = lines(block.lj, &c.lines_v, c.w.v0, c.w.inv_dv);
    let (mut xa, mut xb, mut mask) = ([0.0; 16], [0.0; 16], 0);
    for n in 0..16 {
        let (a, b) = (n & 3, n >> 2);
        let enter = max(max(block.ta, enter_u[a]), enter_v[b]);
        let leave = min(min(block.tb, leave_u[a]), leave_v[b]);
        let [lo, hi] = block.codes[(b ^ c.flip_v) * block.stride + (a ^ c.flip_u)];
        let (clo, chi) = (f64::from(lo), f64::from(hi));
        let (sa, sb) = (clo * c.z2t[0] + c.z2t[1], chi * c.z2t[0] + c.z2t[2]);
        let (enter, leave) = (max(min(sa, sb), enter), min(max(sa, sb), leave));
        mask |= u32::from((enter <= leave) & (clo <= chi)) << n;
        (xa[n], xb[n]) = (enter, leave);
    }
    out.write(Intervals { xa, xb });
    mask
}

/// [`nodes16_scalar`] with one row of four nodes per AVX2 register: the same operations in the same
/// order, so the same bits.
///
/// # Safety
/// The CPU must support AVX2, and `block.codes` must hold `3 · stride + 4` codes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn nodes16_avx2(c: &Consts, block: &Block, out: &mut MaybeUninit<Intervals>) -> u32 {
    use std::arch::x86_64::*;
    const I: f64 = f64::INFINITY;
    let set = _mm256_set1_pd;
    let lines = |first: f64, lines: &[f64; 4], p0: f64, inv: f64| {
        let l = _mm256_loadu_pd(lines.as_ptr());
        let t = _mm256_mul_pd(
            _mm256_sub_pd(_mm256_mul_pd(_mm256_add_pd(set(first), l), set(block.span)), set(p0)),
            set(inv),
        );
        // [−∞, t1, t2, t3] and [t1, t2, t3, ∞].
        (
            _mm256_blend_pd::<0b0001>(t, set(-I)),
            _mm256_blend_pd::<0b1000>(_mm256_permute4x64_pd::<0b11_11_10_01>(t), set(I)),
        )
    };
    let (enter_u, leave_u) = lines(block.li, &c.lines_u, c.w.u0, c.w.inv_du);
    let (enter_v, leave_v) = lines(block.lj, &c.lines_v, c.w.v0, c.w.inv_dv);
    let (enter_u, leave_u) = (_mm256_max_pd(set(block.ta), enter_u), _mm256_min_pd(set(block.tb), leave_u));
    let (scale, lo_add, hi_add) = (set(c.z2t[0]), set(c.z2t[1]), set(c.z2t[2]));
    // The codes of a row as i32 [lo, hi, lo, hi, …] → all the lows, then all the highs, in mirrored
    // column order.
    let order = _mm256_loadu_si256(c.code_order.as_ptr().cast());
    let (xa, xb) = (out.as_mut_ptr().cast::<f64>(), out.as_mut_ptr().cast::<f64>().wrapping_add(16));
    let ptr = block.codes.as_ptr();
    let mut mask = 0;
    macro_rules! row {
        ($b:literal, $lane:literal) => {{
            let enter = _mm256_max_pd(enter_u, _mm256_permute4x64_pd::<$lane>(enter_v));
            let leave = _mm256_min_pd(leave_u, _mm256_permute4x64_pd::<$lane>(leave_v));
            // SAFETY: row (b ^ flip_v) holds 4 codes (16 bytes) from its first (the caller's slice).
            let raw = _mm_loadu_si128(ptr.add(($b ^ c.flip_v) * block.stride).cast());
            let codes = _mm256_permutevar8x32_epi32(_mm256_cvtepu16_epi32(raw), order);
            let (clo, chi) = (
                _mm256_cvtepi32_pd(_mm256_castsi256_si128(codes)),
                _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(codes)),
            );
            let sa = _mm256_add_pd(_mm256_mul_pd(clo, scale), lo_add);
            let sb = _mm256_add_pd(_mm256_mul_pd(chi, scale), hi_add);
            let enter = _mm256_max_pd(_mm256_min_pd(sa, sb), enter);
            let leave = _mm256_min_pd(_mm256_max_pd(sa, sb), leave);
            let ok = _mm256_and_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(enter, leave), _mm256_cmp_pd::<_CMP_LE_OQ>(clo, chi));
            mask |= (_mm256_movemask_pd(ok) as u32) << (4 * $b);
            // SAFETY: `out` holds two arrays of 16 (`repr(C)`); the stores fill all of it.
            _mm256_storeu_pd(xa.add(4 * $b), enter);
            _mm256_storeu_pd(xb.add(4 * $b), leave);
        }};
    }
    row!(0, 0b00_00_00_00);
    row!(1, 0b01_01_01_01);
    row!(2, 0b10_10_10_10);
    row!(3, 0b11_11_11_11);
    mask
}

/// The lowest even level k at which leaves `a ≤ b` (along one axis) fall in at most four
/// consecutive nodes, `(b >> k) − (a >> k) ≤ 3`, without a loop: below `bit_length(b − a) − 2` they
/// are at least four apart, and two levels above it at most one.
#[inline(always)]
fn block_level(a: usize, b: usize) -> usize {
    let low = super::pyramid::bit_length((b - a) as u64).saturating_sub(2);
    let k = low + (low & 1);
    k + 2 * usize::from((b >> k) - (a >> k) > 3)
}

impl Consts<'_> {
    /// Node `n` (mirrored, see [`Intervals`]) of the block whose first node is (li, lj), as a node
    /// of its level.
    #[inline(always)]
    fn node(&self, li: usize, lj: usize, n: usize) -> (usize, usize) {
        (li + (n & 3 ^ self.flip_u), lj + (n >> 2 ^ self.flip_v))
    }
}

impl Heightfield {
    /// Walks the ray `w` over [t0, t1] front to back through 4 × 4 blocks of pyramid nodes (see the
    /// module's documentation); `z2t` turns a node's codes into t (`code_to_t`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk_stack(
        &self,
        ray: &Ray,
        w: &Walk,
        z2t: &[f64; 3],
        t0: f64,
        t1: f64,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && !scalar_forced() {
            // SAFETY: the CPU supports AVX2.
            return unsafe { self.walk_stack_avx2(ray, w, z2t, t0, t1, sink) };
        }
        self.walk_blocks::<false>(ray, w, z2t, t0, t1, sink)
    }

    /// [`walk_stack`](Self::walk_stack) compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn walk_stack_avx2(
        &self,
        ray: &Ray,
        w: &Walk,
        z2t: &[f64; 3],
        t0: f64,
        t1: f64,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        self.walk_blocks::<true>(ray, w, z2t, t0, t1, sink)
    }

    /// The walk itself; `AVX2` = true only inside [`walk_stack_avx2`](Self::walk_stack_avx2).
    #[inline(always)]
    fn walk_blocks<const AVX2: bool>(
        &self,
        ray: &Ray,
        w: &Walk,
        z2t: &[f64; 3],
        t0: f64,
        t1: f64,
        sink: &mut impl Sink,
    ) -> ControlFlow<()> {
        let p = &self.pyramid;
        let (ncx, ncy) = p.cells();
        // The start: the lowest even level at which a 4 × 4 block of nodes holds the ray's cells
        // over [t0, t1] (with a margin for rounding in u, v).
        let cover = |a: f64, b: f64, n: usize| {
            let m = 1e-9 * (1.0 + a.abs().max(b.abs()));
            let (a, b) = (cell_index(min(a, b) - m, 0, n - 1), cell_index(max(a, b) + m, 0, n - 1));
            (p.leaf_of(a), p.leaf_of(b))
        };
        let (ia, ib) = cover(w.u(t0), w.u(t1), ncx);
        let (ja, jb) = cover(w.v(t0), w.v(t1), ncy);
        let mut k = block_level(ia, ib).max(block_level(ja, jb));
        let (back_u, back_v) = (usize::from(w.du < 0.0), usize::from(w.dv < 0.0));
        let c = Consts {
            w,
            z2t: *z2t,
            lines_u: NEAR_LINES[back_u],
            lines_v: NEAR_LINES[back_v],
            code_order: CODE_ORDER[back_u],
            flip_u: 3 * back_u,
            flip_v: 3 * back_v,
        };
        let mut chain = Chain { t: f64::NAN, f: f64::NAN };
        // Waiting blocks are in strictly decreasing level order (one waits only while the walk is
        // below it), two levels apart, so there are at most 17 (levels fewer than 34: cells along an
        // axis fit in a u32), under `STACK`, so indices taken modulo `STACK` never wrap and need no
        // bounds check.
        const STACK: usize = 32;
        let mut waiting = [MaybeUninit::<Waiting>::uninit(); STACK];
        let mut intervals = [MaybeUninit::<Intervals>::uninit(); STACK];
        let mut sp = 0usize;
        // The block to expand: the nodes (li, lj) … (li + 3, lj + 3) of level k, over [ta, tb].
        let (mut li, mut lj, mut ta, mut tb) = (ia >> k, ja >> k, t0, t1);
        // Where a block lying across tiles (a tiled heightfield's lower levels) is gathered.
        let mut scratch = [[0u16; 2]; 16];
        loop {
            let lv = p.level(k);
            if k >= 2 {
                // The block's grandchildren are fetched while the block is tested: the next block
                // the walk expands is among them.
                p.prefetch_descendants(k, li, lj, 4, 2);
            }
            let (codes, stride) = p.block16(lv, li, lj, &mut scratch);
            let block = Block { ta, tb, li: to_f(li), lj: to_f(lj), span: to_f(lv.span), codes, stride };
            // The nodes' intervals are written where they wait, should any of them wait.
            let slot = &mut intervals[sp % STACK];
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `AVX2` is true only inside `walk_stack_avx2`; `block16` holds 3 · stride + 4 codes.
            let mask = if AVX2 { unsafe { nodes16_avx2(&c, &block, slot) } } else { nodes16_scalar(&c, &block, slot) };
            #[cfg(not(target_arch = "x86_64"))]
            let mask = nodes16_scalar(&c, &block, slot);
            // SAFETY: the node test wrote all of it.
            let Intervals { xa, xb } = unsafe { slot.assume_init_ref() };
            if mask != 0 {
                // The nearest node the ray may cross is visited now; the others wait on the stack.
                let (near, rest) = (mask.trailing_zeros() as usize, mask & (mask - 1));
                waiting[sp % STACK].write(Waiting { k: k as u32, li: li as u32, lj: lj as u32, rest });
                sp += usize::from(rest != 0);
                count!(0);
                let (ci, cj) = c.node(li, lj, near);
                if k > 0 {
                    (k, li, lj, ta, tb) = (k - 2, 4 * ci, 4 * cj, xa[near], xb[near]);
                    continue;
                }
                count!(1);
                // Every leaf of the block the ray may cross is fetched before the first is walked.
                let mut m = mask;
                while m != 0 {
                    let (bi, bj) = c.node(li, lj, m.trailing_zeros() as usize);
                    self.prefetch_leaf(bi, bj);
                    m &= m - 1;
                }
                self.walk_leaf(ray, w, ci, cj, xa[near], xb[near], &mut chain, sink)?;
            }
            // Pop: walk leaves until a node to expand comes up.
            loop {
                if sp == 0 {
                    return ControlFlow::Continue(());
                }
                let i = (sp - 1) % STACK;
                // SAFETY: entries below `sp` were written.
                let (top, iv) = unsafe { (waiting[i].assume_init_mut(), intervals[i].assume_init_ref()) };
                let n = top.rest.trailing_zeros() as usize;
                top.rest &= top.rest - 1;
                let cur = *top;
                sp -= usize::from(cur.rest == 0);
                let (ci, cj) = c.node(cur.li as usize, cur.lj as usize, n);
                count!(0);
                if cur.k > 0 {
                    (k, li, lj) = (cur.k as usize - 2, 4 * ci, 4 * cj);
                    (ta, tb) = (iv.xa[n], iv.xb[n]);
                    break;
                }
                count!(1);
                self.walk_leaf(ray, w, ci, cj, iv.xa[n], iv.xb[n], &mut chain, sink)?;
            }
        }
    }
}

/// Whether the walk must use the scalar node test where AVX2 is present: never, outside tests.
#[cfg(not(test))]
#[inline(always)]
fn scalar_forced() -> bool {
    false
}

/// Whether the walk must use the scalar node test where AVX2 is present: while this thread's test
/// asks for it.
#[cfg(test)]
fn scalar_forced() -> bool {
    tests::SCALAR.with(std::cell::Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Hit;
    use crate::heightfield::{synth, workload};
    use std::cell::Cell;

    thread_local! {
        /// True while this thread's test runs the walk with the scalar node test.
        pub(super) static SCALAR: Cell<bool> = const { Cell::new(false) };
    }

    /// The walk with the scalar node test (the one CPUs without AVX2 run) gives the same hits, bit
    /// for bit, as with the AVX2 one, on grids of odd sizes and several leaf sizes, with holes.
    #[test]
    fn scalar_and_avx2_walks_hit_the_same() {
        let params = synth::SynthParams::default();
        let mut walked = 0;
        for (nx, ny, leaf, seed) in [(300, 257, 8, 1), (129, 400, 4, 2), (513, 77, 16, 3), (1025, 1025, 8, 4)] {
            let mut h = synth::generate(nx, ny, &params);
            for k in (0..h.len()).step_by(997) {
                h[k] = f32::NAN;
            }
            let hf = Heightfield::builder(nx, ny, h).leaf_size(leaf).build().unwrap();
            let rays = workload::oblique(&hf, 4000, seed);
            let cast = |scalar: bool| -> Vec<Option<Hit>> {
                SCALAR.with(|s| s.set(scalar));
                rays.iter().map(|(r, m)| hf.raycast(r, *m)).collect()
            };
            let (vector, scalar) = (cast(false), cast(true));
            SCALAR.with(|s| s.set(false));
            for (k, (a, b)) in vector.iter().zip(&scalar).enumerate() {
                assert_eq!(
                    a.map(|h| (h.t.to_bits(), h.triangle)),
                    b.map(|h| (h.t.to_bits(), h.triangle)),
                    "{nx}×{ny} ray {k}"
                );
            }
            walked += vector.iter().filter(|h| h.is_some()).count();
        }
        assert!(walked > 2000, "{walked}");
    }

    /// `block_level` gives the level the search upwards over even levels gives.
    #[test]
    fn block_level_matches_a_search_up_the_even_levels() {
        let search = |a: usize, b: usize| (0..).step_by(2).find(|&k| (b >> k) - (a >> k) <= 3).unwrap();
        let mut pairs: Vec<(usize, usize)> = (0..300).flat_map(|a| (a..300).map(move |b| (a, b))).collect();
        for p in 2..usize::BITS - 3 {
            let s = 1usize << p;
            for (a, b) in [(s - 1, s), (s - 1, 2 * s), (s + 1, 3 * s - 1), (0, s - 1), (1, s + 1), (s - 3, 4 * s + 5)] {
                pairs.push((a, b));
            }
        }
        for (a, b) in pairs {
            assert_eq!(block_level(a, b), search(a, b), "{a}..{b}");
        }
    }

    /// Calls `check` with `count` random node tests: random intervals and blocks, rays moving either
    /// way along u and v, up, down and level, random codes including the empty one.
    fn random_blocks(count: usize, mut check: impl FnMut(usize, &Consts, &Block)) {
        let mut rng = crate::rng::SplitMix64::new(48);
        for case in 0..count {
            let stride = 8 + 4 * (case % 3);
            let codes: Vec<[u16; 2]> = (0..3 * stride + 4)
                .map(|_| {
                    if rng.range(0.0, 1.0) < 0.1 {
                        return [u16::MAX, 0];
                    }
                    let (a, b) = (rng.range(0.0, 65534.0) as u16, rng.range(0.0, 65534.0) as u16);
                    [a.min(b), a.max(b)]
                })
                .collect();
            let (flip_u, flip_v) = (3 * (case & 1), 3 * (case >> 1 & 1));
            let dz = [rng.range(-3.0, 3.0), 0.0][usize::from(case % 7 == 0)];
            let (z0, inv_dz) = (rng.range(-30.0, 30.0), 1.0 / dz);
            let q = [40.0 / 65534.0, -20.0 - 1e-9, -20.0 + 1e-9];
            let du = if flip_u == 0 { rng.range(0.1, 2.0) } else { -rng.range(0.1, 2.0) };
            let dv = if flip_v == 0 { rng.range(0.1, 2.0) } else { -rng.range(0.1, 2.0) };
            // The ray passes through a random point of the block at a random t.
            let (li, lj, span) =
                (rng.range(0.0, 20.0).floor(), rng.range(0.0, 20.0).floor(), [1.0, 2.0, 8.0][case % 3]);
            let (pu, pv, tp) =
                ((li + rng.range(0.0, 4.0)) * span, (lj + rng.range(0.0, 4.0)) * span, rng.range(-20.0, 20.0));
            let w = Walk {
                u0: pu - du * tp,
                v0: pv - dv * tp,
                z0,
                du,
                dv,
                dz,
                inv_du: 1.0 / du,
                inv_dv: 1.0 / dv,
                inv_dz,
                prune_eps: 1e-9,
            };
            let c = Consts {
                w: &w,
                z2t: [q[0] * inv_dz, (q[1] - z0) * inv_dz, (q[2] - z0) * inv_dz],
                lines_u: NEAR_LINES[flip_u / 3],
                lines_v: NEAR_LINES[flip_v / 3],
                code_order: CODE_ORDER[flip_u / 3],
                flip_u,
                flip_v,
            };
            let reach = 8.0 * span;
            let ta = tp - rng.range(0.0, reach);
            let tb = [ta, tp + rng.range(0.0, reach)][usize::from(case % 5 != 0)];
            check(case, &c, &Block { ta, tb, li, lj, span, codes: &codes, stride });
        }
    }

    /// Of two nodes with cut intervals, the lower number's ends where the higher's begins or
    /// earlier, so the walk visits a block's nodes in mask order.
    #[test]
    fn row_major_order_is_the_ray_order() {
        let mut pairs = 0;
        random_blocks(20_000, |case, c, block| {
            let mut out = MaybeUninit::uninit();
            let mask = nodes16_scalar(c, block, &mut out);
            // SAFETY: the test wrote all of it.
            let iv = unsafe { out.assume_init() };
            for n in (0..16).filter(|n| mask >> n & 1 == 1) {
                for m in (n + 1..16).filter(|m| mask >> m & 1 == 1) {
                    assert!(
                        iv.xb[n] <= iv.xa[m],
                        "case {case}: node {n} [{}, {}], node {m} [{}, {}]",
                        iv.xa[n],
                        iv.xb[n],
                        iv.xa[m],
                        iv.xb[m]
                    );
                    pairs += 1;
                }
            }
        });
        assert!(pairs > 10_000, "{pairs}");
    }

    /// The AVX2 test of sixteen nodes gives the scalar version's bits on random blocks. Every node
    /// is seen both crossed and not.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sixteen_node_lanes_match_the_scalar_test() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut seen = [[0usize; 2]; 16];
        random_blocks(20_000, |case, c, block| {
            let (mut vector, mut scalar) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            // SAFETY: AVX2 is present; `codes` holds 3 · stride + 4 codes.
            let vector_mask = unsafe { nodes16_avx2(c, block, &mut vector) };
            let scalar_mask = nodes16_scalar(c, block, &mut scalar);
            // SAFETY: both wrote all of their output.
            let (vector, scalar) = unsafe { (vector.assume_init(), scalar.assume_init()) };
            assert_eq!(vector_mask, scalar_mask, "case {case}");
            for n in 0..16 {
                assert_eq!(vector.xa[n].to_bits(), scalar.xa[n].to_bits(), "case {case}");
                assert_eq!(vector.xb[n].to_bits(), scalar.xb[n].to_bits(), "case {case}");
                seen[n][(scalar_mask >> n & 1) as usize] += 1;
            }
        });
        assert!(seen.iter().flatten().all(|&n| n > 500), "{seen:?}");
    }
}
