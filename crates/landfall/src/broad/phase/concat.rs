//! The joins of a parallel step's chunks, on rayon's threads rather than the calling one: the lists
//! they left copied one after another, and sorted.

use std::ops::Range;

/// Elements below which a join is copied on one thread.
const SERIAL: usize = if cfg!(test) { 4 } else { 1 << 14 };

/// Copies `part(k)` for every `k` of `parts`, in order, one after another into `out` (exactly as
/// long as they are together): the first half of the parts beside the second, on rayon's threads.
pub(super) fn concat<'a, T, F>(parts: Range<usize>, part: &F, out: &mut [T])
where
    T: Copy + Send + Sync + 'a,
    F: Fn(usize) -> &'a [T] + Sync,
{
    if parts.len() <= 1 || out.len() <= SERIAL {
        let mut at = 0;
        for k in parts {
            let p = part(k);
            out[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        return;
    }
    let mid = parts.start + parts.len() / 2;
    let (a, b) = out.split_at_mut((parts.start..mid).map(|k| part(k).len()).sum());
    rayon::join(|| concat(parts.start..mid, part, a), || concat(mid..parts.end, part, b));
}

/// Sorts `v` on rayon's threads, its first partition too (a parallel sort called from outside
/// rayon's pool partitions the whole slice on the calling thread before it splits).
pub(super) fn sort(v: &mut [u64]) {
    use rayon::prelude::*;
    rayon::scope(|_| v.par_sort_unstable());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts, empty ones among them, end to end in order, whatever their number.
    #[test]
    fn concat_is_the_parts_in_order() {
        for n in 0..12usize {
            let parts: Vec<Vec<u64>> =
                (0..n).map(|k| (0..(k * 7 % 5) as u64).map(|x| 100 * k as u64 + x).collect()).collect();
            let want: Vec<u64> = parts.concat();
            let mut out = vec![0; want.len()];
            concat(0..n, &|k| &parts[k][..], &mut out);
            assert_eq!(out, want, "{n} parts");
        }
    }
}
