//! The persistent pair set of a [`BroadPhase`](super::BroadPhase): the pairs touching at the last
//! report, kept sorted, so that a frame reports only the pairs that began or ended touching.

use super::search::word;

#[inline]
fn pair(w: u64) -> (u32, u32) {
    ((w >> 32) as u32, w as u32)
}

/// The pairs touching at the last report, and what changed at it.
#[derive(Clone, Debug, Default)]
pub(super) struct PairSet {
    /// Touching at the last report, ascending.
    kept: Vec<u64>,
    /// Being built from this frame's pairs.
    next: Vec<u64>,
    pub began: Vec<(u32, u32)>,
    pub ended: Vec<(u32, u32)>,
    /// Proxies removed (and perhaps handed out again) since the last report: their pairs ended,
    /// even if a new object with the same proxy touches the same partner.
    renewed: Vec<bool>,
}

impl PairSet {
    /// Notes that object `proxy` was removed.
    pub fn removed(&mut self, proxy: u32) {
        let p = proxy as usize;
        if p >= self.renewed.len() {
            self.renewed.resize(p + 1, false);
        }
        self.renewed[p] = true;
    }

    /// Compares `pairs` (this frame's, lower proxy first, each once) with the last report's:
    /// `began` and `ended` are the differences, ascending.
    pub fn report(&mut self, pairs: &[(u32, u32)]) {
        self.next.clear();
        self.next.extend(pairs.iter().map(|&(a, b)| word(a, b)));
        self.next.sort_unstable();
        self.began.clear();
        self.ended.clear();
        let renewed = |w: u64| {
            let (a, b) = pair(w);
            self.renewed.get(a as usize).is_some_and(|&r| r) || self.renewed.get(b as usize).is_some_and(|&r| r)
        };
        let (mut x, mut y) = (0, 0);
        while x < self.kept.len() || y < self.next.len() {
            let (old, new) = (self.kept.get(x).copied(), self.next.get(y).copied());
            match (old, new) {
                (Some(o), Some(n)) if o == n => {
                    if renewed(o) {
                        self.ended.push(pair(o));
                        self.began.push(pair(n));
                    }
                    x += 1;
                    y += 1;
                }
                (Some(o), n) if n.is_none_or(|n| o < n) => {
                    self.ended.push(pair(o));
                    x += 1;
                }
                (_, Some(n)) => {
                    self.began.push(pair(n));
                    y += 1;
                }
                (_, None) => unreachable!("the loop runs while one side has pairs"),
            }
        }
        std::mem::swap(&mut self.kept, &mut self.next);
        self.renewed.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Began and ended are the set differences; a removed-and-reused proxy's pairs end and begin.
    #[test]
    fn reports_differences() {
        let mut s = PairSet::default();
        s.report(&[(1, 2), (0, 5), (3, 4)]);
        assert_eq!(s.began, [(0, 5), (1, 2), (3, 4)]);
        assert!(s.ended.is_empty());
        s.report(&[(3, 4), (1, 2), (2, 9)]);
        assert_eq!(s.began, [(2, 9)]);
        assert_eq!(s.ended, [(0, 5)]);
        s.removed(9);
        s.report(&[(1, 2), (2, 9), (3, 4)]);
        assert_eq!(s.began, [(2, 9)]);
        assert_eq!(s.ended, [(2, 9)]);
        s.report(&[]);
        assert_eq!(s.ended, [(1, 2), (2, 9), (3, 4)]);
        assert!(s.began.is_empty());
    }
}
