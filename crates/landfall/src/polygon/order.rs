//! Faces stored in spatial order: along a Z-order (Morton) curve of their polygons' centres, so
//! that faces near each other in the plane sit near each other in memory. The quadtree build reads
//! every face of a node, level after level; in the input's order those reads scatter over the whole
//! face array, in this order a node's faces are a few runs of it (see `docs/benchmarks.md`).
//!
//! A face keeps its source polygon (`Face::source`), so answers name the same polygons; only the
//! internal face indices change.

use super::soup::PolygonSoup;
use crate::geom::Aabb;
use glam::DVec3;
use rayon::prelude::*;

/// Most bits per axis of the Morton key (a grid of 2^20 × 2^20 over the polygons' centres).
const KEY_BITS: u32 = 20;

/// Bits per axis of the Morton key for `n` polygons: a grid of 64 to 256 cells per polygon, finer
/// than any order the build could use, and no more bits than that, since the radix sort takes one
/// pass per byte of the key (3 for a 13k TIN, 4 for 1M, where 20 bits per axis took 5).
fn key_bits(n: usize) -> u32 {
    ((n.max(1).ilog2() + 1).div_ceil(2) + 3).min(KEY_BITS)
}

/// The input polygons in the order their faces are stored: along a Z-order curve of their vertex
/// centroids seen along gravity (`to_local` maps world points to the local frame, where gravity is
/// −Z), ties in input order.
pub(crate) fn spatial_order(soup: &PolygonSoup, to_local: &(dyn Fn(DVec3) -> DVec3 + Sync)) -> Vec<u32> {
    let centres: Vec<DVec3> = (0..soup.len())
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|k| {
            let p = soup.polygon(k);
            to_local(p.iter().copied().sum::<DVec3>() / p.len().max(1) as f64)
        })
        .collect();
    let Aabb { min: lo, max: hi } = centres
        .par_iter()
        .with_min_len(1 << 14)
        .fold(|| Aabb::EMPTY, |b, &c| b.grown(c))
        .reduce(|| Aabb::EMPTY, |a, b| a.union(&b));
    let cells = f64::from((1u32 << key_bits(soup.len())) - 1);
    let scale = |lo: f64, hi: f64| if hi > lo { cells / (hi - lo) } else { 0.0 };
    let (sx, sy) = (scale(lo.x, hi.x), scale(lo.y, hi.y));
    // Key and index: sorting the pairs sorts by key, ties by index.
    let mut keyed: Vec<(u64, u32)> = centres
        .par_iter()
        .with_min_len(1 << 14)
        .enumerate()
        .map(|(k, c)| {
            // In [0, cells]; a float-to-integer cast saturates (and maps NaN, never met here, to 0).
            let (qx, qy) = (((c.x - lo.x) * sx) as u32, ((c.y - lo.y) * sy) as u32);
            (spread(qx) | spread(qy) << 1, k as u32)
        })
        .collect();
    sort_keyed(&mut keyed);
    keyed.into_par_iter().map(|(_, k)| k).collect()
}

/// Sorts `(key, index)` pairs made in index order by key, ties by index: a least-significant-digit
/// radix sort (eight passes of a byte, stable, the passes of bytes all keys share skipped), which
/// takes a fraction of a comparison sort's work on the build's millions of keys.
pub(crate) fn sort_keyed(pairs: &mut Vec<(u64, u32)>) {
    let n = pairs.len();
    if n < 64 {
        pairs.sort_unstable();
        return;
    }
    // All eight byte histograms in one pass.
    let mut counts = vec![[0u32; 256]; 8];
    for &(key, _) in pairs.iter() {
        for (byte, count) in counts.iter_mut().enumerate() {
            count[(key >> (8 * byte)) as usize & 255] += 1;
        }
    }
    let mut from = std::mem::take(pairs);
    let mut to = vec![(0u64, 0u32); n];
    for (byte, count) in counts.iter().enumerate() {
        if count.iter().any(|&c| c as usize == n) {
            continue; // every key has the same byte here
        }
        let mut next = [0usize; 256];
        let mut at = 0;
        for (slot, &c) in next.iter_mut().zip(count.iter()) {
            *slot = at;
            at += c as usize;
        }
        for &pair in &from {
            let digit = (pair.0 >> (8 * byte)) as usize & 255;
            to[next[digit]] = pair;
            next[digit] += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *pairs = from;
}

/// The low [`KEY_BITS`] bits of `v` spread to the even bits of a u64.
fn spread(v: u32) -> u64 {
    let mut x = u64::from(v) & ((1 << KEY_BITS) - 1);
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The radix sort gives what a comparison sort of the pairs gives: random keys, keys of a few
    /// low bits (passes skipped), equal keys (ties by index), short lists.
    #[test]
    fn keyed_pairs_sort_as_pairs_do() {
        let mut rng = crate::rng::SplitMix64::new(9);
        for (len, mask) in [
            (0, u64::MAX),
            (5, u64::MAX),
            (63, 3),
            (64, u64::MAX),
            (1000, u64::MAX),
            (5000, 0xFF_FF00),
            (5000, 0),
            (20_000, 0xFF << 56 | 7),
        ] {
            let mut pairs: Vec<(u64, u32)> = (0..len).map(|k| (rng.next_u64() & mask, k as u32)).collect();
            let mut want = pairs.clone();
            want.sort_unstable();
            sort_keyed(&mut pairs);
            assert!(pairs == want, "{len} keys under {mask:x}");
        }
    }

    #[test]
    fn spread_interleaves() {
        assert_eq!(spread(0b1011), 0b100_0101);
        assert_eq!(spread(u32::MAX), 0x55_5555_5555);
    }

    /// Every polygon once, and neighbours in the order are neighbours in the plane: the mean
    /// distance between consecutive centres is far below that of the input's random order.
    #[test]
    fn the_order_is_a_permutation_along_the_plane() {
        let mut soup = PolygonSoup::new();
        let mut rng = crate::rng::SplitMix64::new(3);
        let mut centres = Vec::new();
        for k in 0..2000 {
            let c = DVec3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.range(0.0, 9.0));
            let n = 3 + k % 3;
            soup.push(&(0..n).map(|i| c + DVec3::new((i as f64).cos(), (i as f64).sin(), 0.0)).collect::<Vec<_>>());
            centres.push(c);
        }
        let order = spatial_order(&soup, &|p| p);
        let mut seen = vec![false; soup.len()];
        order.iter().for_each(|&k| seen[k as usize] = true);
        assert!(order.len() == soup.len() && seen.iter().all(|&s| s));
        let step = |ks: &mut dyn Iterator<Item = usize>| {
            let cs: Vec<DVec3> = ks.map(|k| centres[k].with_z(0.0)).collect();
            cs.windows(2).map(|w| w[0].distance(w[1])).sum::<f64>() / cs.len() as f64
        };
        let (sorted, input) = (step(&mut order.iter().map(|&k| k as usize)), step(&mut (0..soup.len())));
        assert!(sorted * 8.0 < input, "{sorted} vs {input}");
    }
}
