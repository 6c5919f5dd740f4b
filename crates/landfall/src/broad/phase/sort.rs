//! The sorts that order a level's objects by cell each frame: a counting sort over the level's cells
//! where they are few (at most a few per object), else an LSD radix sort of the cell keys, one byte
//! a pass, skipping the bytes every key shares. Both O(n), both stable.

/// Sorts `(keys, vals)` by key (stable) into `out_keys`, `out_vals`; afterwards `counts[k]` is where
/// the objects of key k end.
/// Keys are below `cells`: a single counting pass.
pub(super) fn counting(
    keys: &[u64],
    vals: &[u32],
    cells: usize,
    counts: &mut Vec<u32>,
    out_keys: &mut Vec<u64>,
    out_vals: &mut Vec<u32>,
) {
    counts.clear();
    counts.resize(cells + 1, 0);
    for &k in keys {
        counts[k as usize + 1] += 1;
    }
    for c in 1..counts.len() {
        counts[c] += counts[c - 1];
    }
    out_keys.clear();
    out_keys.resize(keys.len(), 0);
    out_vals.clear();
    out_vals.resize(keys.len(), 0);
    // counts[c] is where cell c's next object goes; afterwards counts[c] is where cell c ends, i.e.
    // cell c starts at counts[c - 1] (0 for c = 0).
    for (&k, &v) in keys.iter().zip(vals) {
        let at = &mut counts[k as usize];
        out_keys[*at as usize] = k;
        out_vals[*at as usize] = v;
        *at += 1;
    }
}

/// Sorts `(keys, vals)` by key (stable), in place, with `tmp_keys`, `tmp_vals` as scratch.
pub(super) fn radix(keys: &mut Vec<u64>, vals: &mut Vec<u32>, tmp_keys: &mut Vec<u64>, tmp_vals: &mut Vec<u32>) {
    let n = keys.len();
    let max = keys.iter().copied().max().unwrap_or(0);
    let bytes = (64 - max.leading_zeros()).div_ceil(8);
    tmp_keys.clear();
    tmp_keys.resize(n, 0);
    tmp_vals.clear();
    tmp_vals.resize(n, 0);
    let mut counts = [0u32; 257];
    for b in 0..bytes {
        let shift = 8 * b;
        counts.fill(0);
        for &k in keys.iter() {
            counts[((k >> shift) & 0xff) as usize + 1] += 1;
        }
        if counts.iter().any(|&c| c as usize == n) {
            continue; // every key has this byte
        }
        for c in 1..257 {
            counts[c] += counts[c - 1];
        }
        for (&k, &v) in keys.iter().zip(vals.iter()) {
            let at = &mut counts[((k >> shift) & 0xff) as usize];
            tmp_keys[*at as usize] = k;
            tmp_vals[*at as usize] = v;
            *at += 1;
        }
        std::mem::swap(keys, tmp_keys);
        std::mem::swap(vals, tmp_vals);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Both sorts order by key and keep equal keys in their order, as a stable library sort does.
    #[test]
    fn sorts_equal_a_stable_sort() {
        let mut rng = SplitMix64::new(3);
        for (n, range) in [(0usize, 1u64), (1, 1), (500, 7), (500, 1000), (3000, u64::MAX), (3000, 1 << 40)] {
            let keys: Vec<u64> = (0..n).map(|_| rng.next_u64() % range.max(1)).collect();
            let vals: Vec<u32> = (0..n as u32).collect();
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
            want.sort_by_key(|p| p.0);
            let (mut k, mut v, mut tk, mut tv) = (keys.clone(), vals.clone(), Vec::new(), Vec::new());
            radix(&mut k, &mut v, &mut tk, &mut tv);
            assert_eq!(k.into_iter().zip(v).collect::<Vec<_>>(), want);
            if range <= 1000 {
                let (mut c, mut ok, mut ov) = (Vec::new(), Vec::new(), Vec::new());
                counting(&keys, &vals, range as usize, &mut c, &mut ok, &mut ov);
                assert_eq!(ok.into_iter().zip(ov).collect::<Vec<_>>(), want);
            }
        }
    }
}
