//! The obstacles a planner knows: discs by id, and a coarse bucket grid over the region that
//! finds the ones near a box.

use super::geom::{box_dist2, Disc};
use glam::DVec2;

/// Discs by id (a removed one leaves a hole) and where they are.
pub(crate) struct Obstacles {
    discs: Vec<Option<Disc>>,
    /// Added to every disc's radius (the agent's).
    pub(crate) inflate: f64,
    origin: DVec2,
    bucket: f64,
    nb: usize,
    buckets: Vec<Vec<u32>>,
}

impl Obstacles {
    /// No discs yet, over the square of side `side` from `origin`, in `nb × nb` buckets.
    pub(crate) fn new(origin: DVec2, side: f64, nb: usize, inflate: f64) -> Self {
        Self { discs: Vec::new(), inflate, origin, bucket: side / nb as f64, nb, buckets: vec![Vec::new(); nb * nb] }
    }

    /// The disc `id` with its radius inflated, if present.
    #[inline]
    pub(crate) fn inflated(&self, id: u32) -> Option<Disc> {
        let d = self.discs.get(id as usize)?.as_ref()?;
        Some(Disc { center: d.center, radius: d.radius + self.inflate })
    }

    /// The disc `id` as given.
    pub(crate) fn get(&self, id: u32) -> Option<Disc> {
        *self.discs.get(id as usize)?
    }

    /// Every disc present, inflated.
    pub(crate) fn iter_inflated(&self) -> impl Iterator<Item = Disc> + '_ {
        (0..self.discs.len() as u32).filter_map(|k| self.inflated(k))
    }

    /// Adds a disc, returning its id.
    pub(crate) fn add(&mut self, d: Disc) -> u32 {
        let id = self.discs.len() as u32;
        self.discs.push(Some(d));
        self.for_buckets(d, |b, _| b.push(id));
        id
    }

    /// Removes disc `id`, returning it.
    pub(crate) fn remove(&mut self, id: u32) -> Option<Disc> {
        let d = self.discs.get_mut(id as usize)?.take()?;
        self.for_buckets(d, |b, _| b.retain(|&k| k != id));
        Some(d)
    }

    /// Calls `f` with each bucket the inflated disc's box meets.
    fn for_buckets(&mut self, d: Disc, mut f: impl FnMut(&mut Vec<u32>, usize)) {
        let r = d.radius + self.inflate;
        let Some((i0, j0, i1, j1)) = self.bucket_range(d.center - r, d.center + r) else { return };
        for j in j0..=j1 {
            for i in i0..=i1 {
                f(&mut self.buckets[j * self.nb + i], j * self.nb + i);
            }
        }
    }

    /// The buckets meeting the box [lo, hi], `None` when it misses the region.
    fn bucket_range(&self, lo: DVec2, hi: DVec2) -> Option<(usize, usize, usize, usize)> {
        let (u, v) = ((lo - self.origin) / self.bucket, (hi - self.origin) / self.bucket);
        let n = self.nb as f64;
        if !(v.x >= 0.0 && v.y >= 0.0 && u.x < n && u.y < n) {
            return None;
        }
        let c = |t: f64| (t.floor().max(0.0) as usize).min(self.nb - 1);
        Some((c(u.x), c(u.y), c(v.x), c(v.y)))
    }

    /// Appends to `out` the ids of the discs whose inflated disc meets the open box (lo, hi) —
    /// distance below the inflated radius — each once.
    pub(crate) fn near(&self, lo: DVec2, hi: DVec2, out: &mut Vec<u32>) {
        let start = out.len();
        if let Some((i0, j0, i1, j1)) = self.bucket_range(lo, hi) {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    for &id in &self.buckets[j * self.nb + i] {
                        let d = self.inflated(id).expect("buckets hold present discs");
                        if box_dist2(lo, hi, d.center) < d.radius * d.radius {
                            out.push(id);
                        }
                    }
                }
            }
        }
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if w == start || out[r] != out[w - 1] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    }

    /// Whether any inflated disc whose box the buckets of [lo, hi] hold satisfies `hit`.
    pub(crate) fn any_near(&self, lo: DVec2, hi: DVec2, mut hit: impl FnMut(Disc) -> bool) -> bool {
        let Some((i0, j0, i1, j1)) = self.bucket_range(lo, hi) else { return false };
        (j0..=j1).any(|j| {
            (i0..=i1).any(|i| {
                self.buckets[j * self.nb + i]
                    .iter()
                    .any(|&id| hit(self.inflated(id).expect("buckets hold present discs")))
            })
        })
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.discs.len() * std::mem::size_of::<Option<Disc>>()
            + self.buckets.iter().map(|b| b.capacity() * 4 + std::mem::size_of::<Vec<u32>>()).sum::<usize>()
    }
}
