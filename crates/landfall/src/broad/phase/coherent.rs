//! The frame of a [`BroadPhase`] between two rebuilds: the persistent set of fat-candidate pairs
//! (pairs whose fat spheres overlap or touch), updated for the objects whose fat sphere changed
//! alone, then filtered by the exact test of the spheres.
//!
//! An object whose sphere leaves its fat sphere (or grows beyond it, or shrinks well inside it), and
//! an object inserted or removed, is *dirty* for the next frame and *stale* until the next rebuild:
//! its entry in the levels (if any) no longer stands for it. A frame drops the dirty objects' pairs,
//! then finds their new ones: each dirty object's new fat sphere against the levels (skipping stale
//! entries) and against the stale objects, held in small levels of their own built each frame (a
//! pair of two dirty objects kept from the lower proxy's search). The levels are rebuilt, every fat
//! sphere re-centred, once the stale objects pass `REBUILD_SHARE` of all.

use super::boxes::Box32;
use super::concat::{self, concat};
use super::level::{Level, Sphere};
use super::search::{self, word, PairOut, SearchStats};
use super::{BroadPhase, FREE};
use glam::DVec3;

/// The share of the objects stale since the last rebuild beyond which a frame rebuilds the levels.
/// Measured on issue 72's scene 1 (`docs/benchmarks.md`): a twentieth and a fiftieth about equally
/// fast, a tenth slower, a fifth slower still.
pub(super) const REBUILD_SHARE: f64 = 0.05;

/// The fat-candidate pairs and which objects changed since they were found.
#[derive(Clone, Debug, Default)]
pub(super) struct Coherent {
    /// Whether `cands` holds every pair whose fat spheres touch (false: the next frame rebuilds).
    pub valid: bool,
    /// The fat-candidate pairs, ascending.
    pub cands: Vec<u64>,
    /// By proxy: whether its pairs must be found anew this frame, and the list of those proxies.
    pub dirty: Vec<bool>,
    pub dirty_list: Vec<u32>,
    /// By proxy: whether its entry in the levels is stale, and the list of those proxies (removed
    /// ones included).
    pub stale: Vec<bool>,
    pub stale_list: Vec<u32>,
    /// Scratch: the new pairs (and each task's, with its counts, on rayon's threads), the number
    /// of touching pairs each task kept, where each merge task wrote its pairs and how many, the
    /// touching pairs and the merged ones as written, the stale objects' levels, the stale objects
    /// grouped by level, and their levels as built.
    new: Vec<u64>,
    parts: Vec<(Vec<u64>, SearchStats)>,
    kept: Vec<usize>,
    spans: Vec<(usize, usize)>,
    touch: Vec<(u32, u32)>,
    merged: Vec<u64>,
    stale_level: Vec<u32>,
    members: Vec<u32>,
    starts: Vec<(usize, usize, usize)>,
    counts: Vec<u32>,
    levels: Vec<Level>,
}

impl Coherent {
    /// Notes that object `p`'s fat sphere changed (or it came or went).
    pub fn touched(&mut self, p: u32) {
        let u = p as usize;
        if self.dirty.len() <= u {
            self.dirty.resize(u + 1, false);
            self.stale.resize(u + 1, false);
        }
        if !self.dirty[u] {
            self.dirty[u] = true;
            self.dirty_list.push(p);
        }
        if !self.stale[u] {
            self.stale[u] = true;
            self.stale_list.push(p);
        }
    }

    /// Forgets every change (the levels were rebuilt): nothing dirty or stale.
    pub fn clear(&mut self) {
        for &p in &self.dirty_list {
            self.dirty[p as usize] = false;
        }
        for &p in &self.stale_list {
            self.stale[p as usize] = false;
        }
        self.dirty_list.clear();
        self.stale_list.clear();
    }
}

/// Keeps a dirty object's pairs with the other stale objects, each pair of dirty objects once.
struct AmongStale<'a> {
    me: u32,
    dirty: &'a [bool],
    out: &'a mut Vec<u64>,
}

impl PairOut for AmongStale<'_> {
    #[inline]
    fn pair(&mut self, a: u32, b: u32) {
        let other = if a == self.me { b } else { a };
        if other != self.me && (!self.dirty[other as usize] || self.me < other) {
            self.out.push(word(a, b));
        }
    }
}

/// Keeps a dirty object's pairs with the levels' entries that are not stale.
struct Fresh<'a> {
    me: u32,
    stale: &'a [bool],
    out: &'a mut Vec<u64>,
}

impl PairOut for Fresh<'_> {
    #[inline]
    fn pair(&mut self, a: u32, b: u32) {
        let other = if a == self.me { b } else { a };
        if !self.stale[other as usize] {
            self.out.push(word(a, b));
        }
    }
}

impl BroadPhase {
    /// Updates the fat-candidate pairs for the objects dirty since the last frame (the levels as
    /// the last rebuild left them, `coh.valid`).
    pub(super) fn coherent_frame(&mut self) -> SearchStats {
        let mut st = self.level_stats();
        let c = &mut self.coh;
        st.dirty = c.dirty_list.len() as u64;
        if c.dirty_list.is_empty() {
            return st;
        }
        // The stale objects (alive) grouped by the level each is searched on, as `group` does: their
        // levels first (`FREE`: removed; on rayon's threads, chunks), then a counting sort.
        let (levels, fat, size, lift) = (&self.levels, &self.fat, &self.size_level, &self.lift);
        let level = |(l, &p): (&mut u32, &u32)| {
            *l = FREE;
            if size[p as usize] != FREE {
                let s = &fat[p as usize];
                *l = lift[levels.raised(size[p as usize] as usize, s.c.x.abs().max(s.c.y.abs()))];
            }
        };
        // Resized, not cleared: every entry is written.
        c.stale_level.resize(c.stale_list.len(), FREE);
        if self.parallel && c.stale_list.len() > STALE_CHUNK {
            use rayon::prelude::*;
            c.stale_level
                .par_chunks_mut(STALE_CHUNK)
                .zip(c.stale_list.par_chunks(STALE_CHUNK))
                .for_each(|(l, ps)| l.iter_mut().zip(ps).for_each(level));
        } else {
            c.stale_level.iter_mut().zip(&c.stale_list).for_each(level);
        }
        c.counts.clear();
        c.counts.resize(levels.count() + 1, 0);
        for &t in c.stale_level.iter().filter(|&&t| t != FREE) {
            c.counts[t as usize + 1] += 1;
        }
        for t in 1..c.counts.len() {
            c.counts[t] += c.counts[t - 1];
        }
        c.starts.clear();
        for t in 0..levels.count() {
            if c.counts[t + 1] > c.counts[t] {
                c.starts.push((t, c.counts[t] as usize, c.counts[t + 1] as usize));
            }
        }
        c.members.clear();
        c.members.resize(c.counts[levels.count()] as usize, 0);
        for (&p, &t) in c.stale_list.iter().zip(&c.stale_level) {
            if t != FREE {
                let at = &mut c.counts[t as usize];
                c.members[*at as usize] = p;
                *at += 1;
            }
        }
        if c.levels.len() < c.starts.len() {
            c.levels.resize_with(c.starts.len(), Level::default);
        }
        let (vertical, members) = (self.vertical, &c.members);
        let build =
            |(lv, &(t, s, e)): (&mut Level, &(usize, usize, usize))| lv.build(levels, t, &members[s..e], fat, vertical);
        if self.parallel {
            use rayon::prelude::*;
            c.levels.par_iter_mut().zip(&c.starts).for_each(build);
        } else {
            c.levels.iter_mut().zip(&c.starts).for_each(build);
        }
        // Each dirty object against the levels' entries that still stand, and against the stale
        // objects (each pair of two dirty objects once, from the lower proxy); on rayon's threads,
        // chunks of the dirty objects, their pairs joined in chunk order.
        let stale_levels = &c.levels[..c.starts.len()];
        let (levels, built, fat, size) = (&self.levels, &self.built[..self.occupied], &self.fat, &self.size_level);
        let (stale, dirty) = (&c.stale, &c.dirty);
        let search = |ps: &[u32], new: &mut Vec<u64>, st: &mut SearchStats| {
            let mut fingers = [0usize; 9];
            for &p in ps {
                if size[p as usize] == FREE {
                    continue;
                }
                let s: &Sphere = &fat[p as usize];
                let h = DVec3::splat(s.h());
                let b = Box32::around((s.c - h).to_array(), (s.c + h).to_array());
                let mut out = Fresh { me: p, stale, out: new };
                for lv in built {
                    search::against_level(levels, (&b, s, p), lv, &mut fingers, &mut out, st);
                }
                let mut out = AmongStale { me: p, dirty, out: new };
                for lv in stale_levels {
                    search::against_level(levels, (&b, s, p), lv, &mut fingers, &mut out, st);
                }
            }
        };
        if self.parallel && c.dirty_list.len() > SEARCH_CHUNK {
            use rayon::prelude::*;
            let chunks = c.dirty_list.len().div_ceil(SEARCH_CHUNK);
            if c.parts.len() < chunks {
                c.parts.resize_with(chunks, Default::default);
            }
            c.parts[..chunks].par_iter_mut().zip(c.dirty_list.par_chunks(SEARCH_CHUNK)).for_each(|((new, st), ps)| {
                new.clear();
                *st = SearchStats::default();
                search(ps, new, st);
            });
            let parts = &c.parts[..chunks];
            for (_, part) in parts {
                st += *part;
            }
            c.new.resize(parts.iter().map(|p| p.0.len()).sum(), 0);
            concat(0..chunks, &|k| &parts[k].0[..], &mut c.new);
        } else {
            c.new.clear();
            search(&c.dirty_list, &mut c.new, &mut st);
        }
        // Drop the dirty objects' kept pairs and merge the new ones (each found once) in; on
        // rayon's threads, chunks of the kept pairs with the new ones falling among them, each
        // written where it would start were no pair dropped, then joined in order.
        if self.parallel {
            concat::sort(&mut c.new);
        } else {
            c.new.sort_unstable();
        }
        let upper = c.cands.len() + c.new.len();
        if c.merged.len() < upper {
            c.merged.resize(upper, 0);
        }
        let (cands, new, dirty) = (&c.cands, &c.new, &c.dirty);
        if self.parallel && cands.len() > MERGE_CHUNK {
            let chunks = cands.len().div_ceil(MERGE_CHUNK);
            c.spans.clear();
            c.spans.resize(chunks, (0, 0));
            merge_chunks(cands, new, dirty, (&mut c.merged[..upper], 0), &mut c.spans);
            // The chunks joined into the old pairs' vector (resized, not cleared: only its growth
            // is written here).
            c.cands.resize(c.spans.iter().map(|s| s.1).sum(), 0);
            let (merged, spans) = (&c.merged, &c.spans);
            concat(0..chunks, &|k| &merged[spans[k].0..spans[k].0 + spans[k].1], &mut c.cands);
        } else {
            let n = drop_and_merge(cands, new, dirty, &mut c.merged[..upper]);
            // The old pairs' vector keeps its length: the next frame's `resize` writes only its
            // growth.
            std::mem::swap(&mut c.cands, &mut c.merged);
            c.cands.truncate(n);
        }
        for &p in &c.dirty_list {
            c.dirty[p as usize] = false;
        }
        c.dirty_list.clear();
        st
    }

    /// The touching pairs among the fat-candidate pairs, ascending, into `pairs`: on rayon's threads,
    /// chunks of the pairs, each written to its place in a scratch list (only ever lengthened, so
    /// never cleared), then joined in order.
    pub(super) fn touching(&mut self) {
        let (sp, cands, kept, buf) = (&self.spheres, &self.coh.cands, &mut self.coh.kept, &mut self.coh.touch);
        if buf.len() < cands.len() {
            buf.resize(cands.len(), (0, 0));
        }
        let out = &mut self.pairs;
        if !self.parallel || cands.len() <= TOUCH_CHUNK {
            let n = touching_chunk(sp, cands, buf);
            out.clear();
            out.extend_from_slice(&buf[..n]);
            return;
        }
        use rayon::prelude::*;
        let chunks = cands.len().div_ceil(TOUCH_CHUNK);
        kept.clear();
        kept.resize(chunks, 0);
        buf[..cands.len()]
            .par_chunks_mut(TOUCH_CHUNK)
            .zip(cands.par_chunks(TOUCH_CHUNK))
            .zip(kept.par_iter_mut())
            .for_each(|((buf, cands), n)| *n = touching_chunk(sp, cands, buf));
        // Resized, not cleared: only its growth is written here.
        out.resize(kept.iter().sum(), (0, 0));
        let (buf, kept) = (&*buf, &*kept);
        concat(0..chunks, &|k| &buf[k * TOUCH_CHUNK..k * TOUCH_CHUNK + kept[k]], out);
    }
}

/// Fat-candidate pairs a task of the parallel merge takes.
const MERGE_CHUNK: usize = if cfg!(test) { 4 } else { 16384 };

/// Merges chunks of `cands` (`spans.len()` of them, `MERGE_CHUNK` each) with the new pairs among
/// them into `out` (which starts at `base` of the whole output), on rayon's threads: chunk k
/// (k > 0) takes the new pairs from its first kept pair on and writes from `k · MERGE_CHUNK` plus
/// the number of new pairs before it (chunk 0 from 0, with the new pairs below it); `spans[k]`:
/// where it wrote and how many.
fn merge_chunks(
    cands: &[u64],
    new: &[u64],
    dirty: &[bool],
    (out, base): (&mut [u64], usize),
    spans: &mut [(usize, usize)],
) {
    if spans.len() <= 1 {
        if let Some(s) = spans.first_mut() {
            *s = (base, drop_and_merge(cands, new, dirty, out));
        }
        return;
    }
    let half = spans.len() / 2;
    let at = half * MERGE_CHUNK;
    let cut = new.partition_point(|&w| w < cands[at]);
    let ((ca, cb), (na, nb)) = (cands.split_at(at), new.split_at(cut));
    let ((oa, ob), (sa, sb)) = (out.split_at_mut(at + cut), spans.split_at_mut(half));
    rayon::join(
        || merge_chunks(ca, na, dirty, (oa, base), sa),
        || merge_chunks(cb, nb, dirty, (ob, base + at + cut), sb),
    );
}

/// The pairs of `cands` neither of whose objects is `dirty`, merged with `new` (ascending, none
/// kept twice), written to the front of `out`; returns their number.
fn drop_and_merge(cands: &[u64], new: &[u64], dirty: &[bool], out: &mut [u64]) -> usize {
    let (mut n, mut y) = (0, 0);
    for &w in cands {
        while y < new.len() && new[y] < w {
            out[n] = new[y];
            (n, y) = (n + 1, y + 1);
        }
        out[n] = w;
        n += !(dirty[(w >> 32) as usize] || dirty[(w & 0xffff_ffff) as usize]) as usize;
    }
    for &w in &new[y..] {
        out[n] = w;
        n += 1;
    }
    n
}

/// Stale objects a task finds the levels of on rayon's threads.
const STALE_CHUNK: usize = if cfg!(test) { 3 } else { 1024 };

/// Dirty objects a task of the parallel search takes (a few in the tests, so that they split).
const SEARCH_CHUNK: usize = if cfg!(test) { 3 } else { 64 };

/// Fat-candidate pairs a task of the parallel exact tests takes.
const TOUCH_CHUNK: usize = if cfg!(test) { 5 } else { 16384 };

/// The pairs of `cands` whose spheres (`sp`, by proxy) touch, written to the front of `out` (as
/// long as `cands`), in order; returns their number.
///
/// The loop is bound by loading the spheres (by proxy, so the upper ones of consecutive pairs lie
/// anywhere): each pair's result is written unconditionally and the count advanced by the test (no
/// branch to mispredict, so the loads of many pairs are in flight at once), and the upper sphere of
/// the pair `AHEAD` places on is prefetched.
fn touching_chunk(sp: &[Sphere], cands: &[u64], out: &mut [(u32, u32)]) -> usize {
    const AHEAD: usize = 32;
    let mut n = 0;
    for (k, &w) in cands.iter().enumerate() {
        if let Some(&ahead) = cands.get(k + AHEAD) {
            prefetch(&sp[(ahead & 0xffff_ffff) as usize]);
        }
        let (a, b) = ((w >> 32) as u32, w as u32);
        let (sa, sb) = (&sp[a as usize], &sp[b as usize]);
        let (d, r) = (sa.c - sb.c, sa.r + sb.r);
        let (d2, r2) = (d.length_squared(), r * r);
        // `within`'s fast path, without its branch; its other cases (rare) call it.
        let hit = if d2.is_normal() && r2.is_normal() && d2 < f64::MAX && r2 < f64::MAX {
            d2 <= r2
        } else {
            crate::broad::queries::within(d, r)
        };
        out[n] = (a, b);
        n += hit as usize;
    }
    n
}

/// Asks the core to load `s` into the cache (nothing on other architectures).
#[inline(always)]
fn prefetch(s: &Sphere) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; any address may be prefetched, and SSE is part of
    // the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((s as *const Sphere).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}
