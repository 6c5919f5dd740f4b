//! Grouping a [`BroadPhase`]'s objects by level: a counting sort by level, in proxy order within a
//! level. On rayon's threads, chunks of proxies are counted apart, then each chunk's objects of each
//! occupied level are written to their place: the same members and levels.

use super::{BroadPhase, FREE};
use std::ops::Range;

/// Proxies a task of the parallel grouping takes (a few in the tests, so that they split).
const GROUP_CHUNK: usize = if cfg!(test) { 5 } else { 16384 };

/// The parallel grouping's scratch, kept for its capacity: each chunk's objects by level index, and
/// where each (occupied level, chunk) region of the members starts (one more entry: the end).
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    counts: Vec<Vec<u32>>,
    regions: Vec<usize>,
}

impl BroadPhase {
    /// Groups the objects by level (lifted or not) into `members` and `starts`: a counting sort by
    /// level, in proxy order within a level.
    pub(super) fn group(&mut self, lifted: bool) {
        if self.parallel && self.level_of.len() > GROUP_CHUNK {
            self.group_chunks(lifted);
            return;
        }
        self.counts.fill(0);
        for t in self.level_of.iter_mut().filter(|t| **t != FREE) {
            if lifted {
                *t = self.lift[*t as usize];
            }
            self.counts[*t as usize] += 1;
        }
        let mut at = 0u32;
        for c in self.counts.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        // Resized, not cleared: every entry is written.
        self.members.resize(at as usize, 0);
        for (p, &t) in self.level_of.iter().enumerate() {
            if t != FREE {
                let c = &mut self.counts[t as usize];
                self.members[*c as usize] = p as u32;
                *c += 1;
            }
        }
        // counts[t] now ends level t's members.
        self.starts.clear();
        let mut from = 0u32;
        for (t, &end) in self.counts.iter().enumerate() {
            if end > from {
                self.starts.push((t, from as usize, end as usize));
            }
            from = end;
        }
    }

    /// [`Self::group`] on rayon's threads.
    fn group_chunks(&mut self, lifted: bool) {
        use rayon::prelude::*;
        let chunks = self.level_of.len().div_ceil(GROUP_CHUNK);
        let (g, lift, count) = (&mut self.grouping, &self.lift, self.counts.len());
        if g.counts.len() < chunks {
            g.counts.resize_with(chunks, Vec::new);
        }
        let counts = &mut g.counts[..chunks];
        self.level_of.par_chunks_mut(GROUP_CHUNK).zip(counts.par_iter_mut()).for_each(|(ts, counts)| {
            counts.clear();
            counts.resize(count, 0);
            for t in ts.iter_mut().filter(|t| **t != FREE) {
                if lifted {
                    *t = lift[*t as usize];
                }
                counts[*t as usize] += 1;
            }
        });
        self.starts.clear();
        g.regions.clear();
        let mut at = 0;
        for t in 0..count {
            let from = at;
            for c in counts.iter() {
                g.regions.push(at);
                at += c[t] as usize;
            }
            if at > from {
                self.starts.push((t, from, at));
            } else {
                g.regions.truncate(g.regions.len() - chunks);
            }
        }
        g.regions.push(at);
        // Resized, not cleared: every entry is written.
        self.members.resize(at, 0);
        let (level_of, starts) = (&self.level_of, &self.starts);
        let fill = |k: usize, out: &mut [u32]| {
            let (t, first) = (starts[k / chunks].0 as u32, k % chunks * GROUP_CHUNK);
            let mut w = 0;
            for (p, &l) in level_of[first..].iter().take(GROUP_CHUNK).enumerate() {
                if l == t {
                    out[w] = (first + p) as u32;
                    w += 1;
                }
            }
        };
        scatter(0..g.regions.len() - 1, &g.regions, &mut self.members, &fill);
    }
}

/// Calls `fill(k, region)` for every region `k` of `regions` (region k spans `regions[k] ..
/// regions[k + 1]` of the whole, of which `out` is `ks`' part), on rayon's threads; an empty
/// region is skipped.
fn scatter(ks: Range<usize>, regions: &[usize], out: &mut [u32], fill: &(impl Fn(usize, &mut [u32]) + Sync)) {
    if out.is_empty() {
        return;
    }
    if ks.len() == 1 {
        fill(ks.start, out);
        return;
    }
    let mid = ks.start + ks.len() / 2;
    let (a, b) = out.split_at_mut(regions[mid] - regions[ks.start]);
    rayon::join(|| scatter(ks.start..mid, regions, a, fill), || scatter(mid..ks.end, regions, b, fill));
}
