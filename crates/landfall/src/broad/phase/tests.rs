//! The broad phase against brute force: random multi-scale scenes moving over frames, spheres on
//! cell borders, touching exactly, identical, far out and at extreme magnitudes, and empty.

use super::*;
use crate::broad::queries::within;
use crate::broad::ProximityGrid;
use crate::rng::SplitMix64;
use proptest::prelude::*;

/// A broad phase with levels `ratio` apart, its sparse levels lifted or not, split by height as
/// `vertical` says.
fn phase(ratio: u32, lifting: bool, vertical: Vertical) -> BroadPhase {
    BroadPhase { lifting, vertical, ..BroadPhase::with_ratio(1.0, ratio).unwrap() }
}

/// Every way of splitting levels by height.
const VERTICALS: [Vertical; 3] = [Vertical::Auto, Vertical::Never, Vertical::Always];

/// The search's pairs, each once, as brute force finds them.
fn assert_brute(bp: &mut BroadPhase) {
    let mut got = bp.find_pairs().to_vec();
    assert!(got.iter().all(|&(a, b)| a < b), "lower proxy first");
    got.sort_unstable();
    let n = got.len();
    got.dedup();
    assert_eq!(got.len(), n, "a pair reported twice");
    let want = bp.pairs_brute_force();
    if got != want {
        let missing: Vec<_> = want.iter().filter(|p| got.binary_search(p).is_err()).take(5).collect();
        let extra: Vec<_> = got.iter().filter(|p| want.binary_search(p).is_err()).take(5).collect();
        panic!(
            "{} pairs, brute force {}: missing {missing:?}, extra {extra:?}; {:?}",
            got.len(),
            want.len(),
            bp.stats()
        );
    }
    // Listed ascending; the streamed search (of the rebuilt levels) lists the same pairs.
    let listed = bp.find_pairs().to_vec();
    assert!(listed == got, "listed {} pairs, not ascending", listed.len());
    let mut streamed = Vec::with_capacity(listed.len());
    bp.for_each_pair(|a, b| streamed.push((a, b)));
    assert!(streamed == got, "streamed {} pairs, listed {}", streamed.len(), listed.len());
    // So does the search of the levels rebuilt (on a copy: the next frame would rebuild).
    let mut rebuilt = bp.clone();
    rebuilt.coh.valid = false;
    streamed.clear();
    rebuilt.for_each_pair(|a, b| streamed.push((a, b)));
    streamed.sort_unstable();
    assert!(streamed == got, "streamed {} pairs from the rebuilt levels, listed {}", streamed.len(), listed.len());
    assert_eq!(bp.stats().pairs, listed.len() as u64);
}

/// The proxies whose spheres meet the closed box, by testing every object.
fn brute_box(bp: &BroadPhase, min: DVec3, max: DVec3) -> Vec<u32> {
    bp.live().filter(|&(_, s)| within(s.c.clamp(min, max) - s.c, s.r)).map(|(p, _)| p).collect()
}

/// The first sphere the ray meets in [0, max_t] (lowest proxy at equal t), by testing every object.
fn brute_ray(bp: &BroadPhase, o: DVec3, d: DVec3, max_t: f64) -> Option<(u32, f64)> {
    let hits = bp.live().filter_map(|(p, s)| Some((p, crate::geom::ray_ball(o, d, s.c, s.r).filter(|&t| t <= max_t)?)));
    hits.min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
}

/// Box, sphere and ray queries from the corners `a`–`b` of each probe (the ray from a towards b,
/// to b and without end) answer as brute force does: first on levels not sorted since the last
/// change (a scan), then sorted.
fn assert_queries(bp: &mut BroadPhase, probes: &[(DVec3, DVec3)]) {
    if let Some((c, r)) = bp.get(0) {
        bp.set(0, c, r).unwrap(); // unsorted now
    }
    for sorted in [false, true] {
        if sorted {
            bp.refresh();
        }
        for &(a, b) in probes {
            let (min, max) = (a.min(b), a.max(b));
            let mut got = Vec::new();
            bp.within_box(min, max, |p| got.push(p));
            let n = got.len();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got.len(), n, "an object reported twice");
            assert_eq!(got, brute_box(bp, min, max), "box {min} {max}, sorted {sorted}");
            let radius = (b - a).length() / 2.0;
            let mut got = Vec::new();
            bp.within_radius(a, radius, |p| got.push(p));
            got.sort_unstable();
            let want: Vec<u32> = brute_box(bp, a - radius, a + radius)
                .into_iter()
                .filter(|&p| {
                    let (c, r) = bp.get(p).unwrap();
                    within(c - a, r + radius)
                })
                .collect();
            assert_eq!(got, want, "sphere {a} {radius}, sorted {sorted}");
            if a != b {
                for max_t in [1.0, f64::INFINITY] {
                    let want = brute_ray(bp, a, b - a, max_t);
                    assert_eq!(bp.raycast(a, b - a, max_t), want, "ray {a} → {b} to {max_t}, sorted {sorted}");
                }
            }
        }
    }
}

/// `n` random probes over a square `side` wide at `offset`: boxes and segments of every length, some
/// along an axis (rays with a zero component) or vertical.
fn probes(rng: &mut SplitMix64, n: usize, side: f64, offset: DVec3) -> Vec<(DVec3, DVec3)> {
    (0..n)
        .map(|k| {
            let a = offset + DVec3::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), rng.range(0.0, 0.02)) * side;
            let len = side * 10f64.powf(rng.range(-4.0, 0.0));
            let mut d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.01, 0.01)) * len;
            match k % 5 {
                1 => d.y = 0.0,
                2 => d.x = 0.0,
                3 => d = DVec3::new(0.0, 0.0, -len),
                _ => {}
            }
            (a, a + d)
        })
        .collect()
}

/// `n` spheres of diameters `10^lo ..= 10^hi` (log-uniform) over a square `side` wide at `offset`.
fn scene(rng: &mut SplitMix64, n: usize, lo: f64, hi: f64, side: f64, offset: DVec3) -> Vec<(DVec3, f64)> {
    (0..n)
        .map(|_| {
            let r = 10f64.powf(rng.range(lo, hi)) / 2.0;
            let c = DVec3::new(rng.range(0.0, side), rng.range(0.0, side), rng.range(0.0, side / 50.0));
            (offset + c - DVec3::new(side / 2.0, side / 2.0, 0.0), r)
        })
        .collect()
}

/// Random scenes spanning five orders of magnitude of size, on every level ratio, near the origin
/// and 10,000 km out, over frames of moves, removals and insertions (proxies reused).
#[test]
fn random_scenes_equal_brute_force() {
    let mut rng = SplitMix64::new(11);
    for (ratio, lifting) in [(2, true), (4, true), (8, true), (16, true), (2, false), (4, false), (8, false)] {
        for (offset, vertical) in [DVec3::ZERO, DVec3::new(1e7, -1e7, 0.0), DVec3::new(-1e7, 0.0, 1e7)]
            .into_iter()
            .zip(VERTICALS.into_iter().cycle().skip(ratio as usize))
        {
            let mut bp = phase(ratio, lifting, vertical);
            let objs = scene(&mut rng, 1500, -2.0, 3.0, 3000.0, offset);
            let mut proxies: Vec<u32> = objs.iter().map(|&(c, r)| bp.insert(c, r).unwrap()).collect();
            assert_eq!(proxies, (0..1500).collect::<Vec<u32>>());
            assert_brute(&mut bp);
            assert!(
                bp.stats().levels >= if lifting { 2 } else { 8 / ratio.trailing_zeros() as usize },
                "{:?}",
                bp.stats()
            );
            for frame in 0..4 {
                for &p in &proxies {
                    let (c, r) = bp.get(p).unwrap();
                    let step = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * r * 0.5;
                    let r = if frame == 2 { r * rng.range(0.2, 5.0) } else { r };
                    bp.set(p, c + step, r).unwrap();
                }
                assert_brute(&mut bp);
                if frame % 2 == 1 {
                    assert_queries(&mut bp, &probes(&mut rng, 40, 3000.0, offset));
                }
            }
            for &p in proxies.iter().step_by(3) {
                bp.remove(p).unwrap();
            }
            assert_brute(&mut bp);
            for (c, r) in scene(&mut rng, 300, -2.0, 2.0, 3000.0, offset) {
                proxies.push(bp.insert(c, r).unwrap());
            }
            assert_brute(&mut bp);
        }
    }
}

/// The same pairs as the dual quad-tree's on the same objects.
#[test]
fn equals_the_proximity_grid() {
    let mut rng = SplitMix64::new(12);
    let objs = scene(&mut rng, 3000, -2.0, 3.0, 5000.0, DVec3::ZERO);
    let mut bp = BroadPhase::new(1.0);
    let mut grid = ProximityGrid::new(1.0).unwrap();
    for (k, &(c, r)) in objs.iter().enumerate() {
        bp.insert(c, r).unwrap();
        grid.insert(k as u64, c, r).unwrap();
    }
    let mut got = bp.find_pairs().to_vec();
    got.sort_unstable();
    let mut want = Vec::new();
    grid.pairs(|a, b| want.push((a.min(b) as u32, a.max(b) as u32)));
    want.sort_unstable();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

/// Spheres centred on cell borders of several levels, touching exactly across them (sums of
/// powers of two: exact in f64), boxes as wide as their cells, and many identical spheres.
#[test]
fn borders_touching_and_identical() {
    for ((ratio, lifting), vertical) in
        [(2, true), (4, true), (8, true), (4, false)].into_iter().flat_map(|c| VERTICALS.map(|v| (c, v)))
    {
        let mut bp = phase(ratio, lifting, vertical);
        for l in -3i32..4 {
            let w = (ratio as f64).powi(l);
            for k in -3i32..3 {
                let border = (k as f64 + 0.5) * w;
                // A sphere as wide as the level's cells on the border, one touching it across the
                // border, and a point on it; the same on a layer's border and across it in z.
                bp.insert(DVec3::new(border, border, 0.0), w / 2.0).unwrap();
                bp.insert(DVec3::new(border + w, border, 0.0), w / 2.0).unwrap();
                bp.insert(DVec3::new(border, border + w / 2.0, 0.0), 0.0).unwrap();
                bp.insert(DVec3::new(border - w / 4.0, -border, w / 4.0), w / 4.0).unwrap();
                bp.insert(DVec3::new(border, -border, border), w / 2.0).unwrap();
                bp.insert(DVec3::new(border, -border, border + w), w / 2.0).unwrap();
                bp.insert(DVec3::new(-border, border, border - w / 2.0), 0.0).unwrap();
            }
        }
        for _ in 0..20 {
            bp.insert(DVec3::new(0.5, 0.5, 0.0), 0.25).unwrap();
        }
        assert_brute(&mut bp);
        let pairs = bp.find_pairs().len();
        assert!(pairs > 190 + 100, "{pairs}");
    }
}

/// A scene scaled to 1e±150 and far from the origin, and the empty broad phase.
#[test]
fn extreme_magnitudes_and_empty() {
    let mut bp = BroadPhase::new(1.0);
    assert!(bp.find_pairs().is_empty());
    let mut rng = SplitMix64::new(13);
    let base = scene(&mut rng, 400, -2.0, 2.0, 300.0, DVec3::ZERO);
    // Coordinates up to 1.5e150 (the accepted range ends at 3.2e150).
    for (scale, vertical) in [1e-150, 1e-20, 1e20, 1e148].into_iter().flat_map(|s| VERTICALS.map(|v| (s, v))) {
        for offset in [0.0, 1e7].into_iter().filter(|&o| (o + 200.0) * scale < 3e150) {
            let mut bp = phase(4, true, vertical);
            for &(c, r) in &base {
                bp.insert((c + DVec3::splat(offset)) * scale, r * scale).unwrap();
            }
            assert_brute(&mut bp);
            let mut unit = BroadPhase::new(1.0);
            for &(c, r) in &base {
                unit.insert(c + DVec3::splat(offset), r).unwrap();
            }
            if offset == 0.0 {
                // The same scene at any scale has the same pairs (the powers of ten round alike
                // often enough that a large share must agree).
                assert!(bp.find_pairs().len().abs_diff(unit.find_pairs().len()) <= 3);
            }
        }
    }
    let p = bp.insert(DVec3::ZERO, 1.0).unwrap();
    bp.remove(p).unwrap();
    assert!(bp.is_empty());
    assert!(bp.find_pairs().is_empty());
}

/// Bad input is refused with an error naming it; nothing panics.
#[test]
fn bad_input_is_refused() {
    let mut bp = BroadPhase::new(1.0);
    assert!(matches!(bp.insert(DVec3::new(f64::NAN, 0.0, 0.0), 1.0), Err(BroadPhaseError::BadSphere { .. })));
    assert!(matches!(bp.insert(DVec3::ZERO, -1.0), Err(BroadPhaseError::BadSphere { .. })));
    assert!(matches!(bp.insert(DVec3::ZERO, f64::INFINITY), Err(BroadPhaseError::BadSphere { .. })));
    assert!(matches!(bp.insert(DVec3::new(1e200, 0.0, 0.0), 1.0), Err(BroadPhaseError::BadSphere { .. })));
    assert_eq!(bp.set(3, DVec3::ZERO, 1.0), Err(BroadPhaseError::Unknown(3)));
    assert_eq!(bp.remove(0), Err(BroadPhaseError::Unknown(0)));
    let p = bp.insert(DVec3::ZERO, 1.0).unwrap();
    assert!(bp.set(p, DVec3::ZERO, f64::NAN).is_err());
    assert_eq!(bp.get(p), Some((DVec3::ZERO, 1.0)), "a refused move changes nothing");
    assert!(BroadPhase::with_ratio(1.0, 3).is_err());
    assert!(BroadPhase::with_ratio(0.0, 4).is_err());
    let msg = bp.insert(DVec3::ZERO, -2.0).unwrap_err().to_string();
    assert!(msg.contains("radius -2"), "{msg}");
}

/// A coordinate: random, or on a cell border of some level (ties), scaled.
fn coord() -> impl Strategy<Value = f64> {
    prop_oneof![
        -40.0..40.0f64,
        (-6i32..6, -4i32..4).prop_map(|(k, l)| (k as f64 + 0.5) * 4f64.powi(l)),
        (-20i32..20).prop_map(|k| k as f64 * 0.25),
    ]
}

/// A radius: random over four orders of magnitude, zero, or a power of two (exact touching).
fn radius() -> impl Strategy<Value = f64> {
    prop_oneof![(-2.0..2.0f64).prop_map(|e| 10f64.powf(e) / 2.0), Just(0.0), (-4i32..4).prop_map(|e| 2f64.powi(e)),]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any spheres, at any of several scales and offsets, on any ratio: brute force's pairs, and
    /// its answers to box, sphere and ray queries from corners on cell borders and elsewhere.
    #[test]
    fn pairs_equal_brute_force(
        objs in prop::collection::vec((coord(), coord(), coord(), radius()), 0..60),
        scale_offset in prop::sample::select(vec![
            (1.0, 0.0), (1.0, 1e7), (1.0, -5e3), (1e-150, 0.0), (1e-150, 1e7), (5e147, 0.0), (1e142, -1e7), (3.0e-7, 5e3),
        ]),
        ratio in prop::sample::select(vec![2u32, 4, 8, 16]),
        lifting in any::<bool>(),
        vertical in prop::sample::select(VERTICALS.to_vec()),
        moved in prop::collection::vec((coord(), coord(), coord()), 0..60),
        probes in prop::collection::vec(((coord(), coord(), coord()), (coord(), coord(), coord())), 0..8),
    ) {
        let (scale, offset) = scale_offset;
        let mut bp = phase(ratio, lifting, vertical);
        for &(x, y, z, r) in &objs {
            bp.insert(DVec3::new(x + offset, y + offset, z) * scale, r * scale).unwrap();
        }
        assert_brute(&mut bp);
        let at = |(x, y, z): (f64, f64, f64)| DVec3::new(x + offset, y + offset, z) * scale;
        let probes: Vec<(DVec3, DVec3)> = probes.iter().map(|&(a, b)| (at(a), at(b))).collect();
        assert_queries(&mut bp, &probes);
        for (p, &(x, y, z)) in moved.iter().enumerate().take(objs.len()) {
            let (_, r) = bp.get(p as u32).unwrap();
            bp.set(p as u32, at((x, y, z)), r).unwrap();
        }
        assert_brute(&mut bp);
    }
}

/// One change between frames: move (and resize) an object, remove one, or insert one.
#[derive(Clone, Debug)]
enum Change {
    Set(usize, (f64, f64, f64), f64),
    Remove(usize),
    Insert((f64, f64, f64), f64),
}

fn change() -> impl Strategy<Value = Change> {
    let at = || (coord(), coord(), coord());
    prop_oneof![
        3 => (any::<prop::sample::Index>(), at(), radius()).prop_map(|(i, c, r)| Change::Set(i.index(1 << 20), c, r)),
        1 => any::<prop::sample::Index>().prop_map(|i| Change::Remove(i.index(1 << 20))),
        1 => (at(), radius()).prop_map(|(c, r)| Change::Insert(c, r)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Frame after frame, objects jump across cells and levels (moved anywhere, resized), are
    /// removed and inserted (proxies reused) between searches, some frames not searched at all:
    /// every search equals brute force, and every object reads back as last set.
    #[test]
    fn frames_of_jumps_insertions_and_removals_equal_brute_force(
        objs in prop::collection::vec((coord(), coord(), coord(), radius()), 0..50),
        frames in prop::collection::vec((prop::collection::vec(change(), 0..30), any::<bool>()), 1..6),
        ratio in prop::sample::select(vec![2u32, 4, 8]),
        lifting in any::<bool>(),
        vertical in prop::sample::select(VERTICALS.to_vec()),
    ) {
        let mut bp = phase(ratio, lifting, vertical);
        let v = |(x, y, z): (f64, f64, f64)| DVec3::new(x, y, z);
        // The objects as they should stand, by proxy.
        let mut want: Vec<Option<(DVec3, f64)>> = Vec::new();
        let put = |want: &mut Vec<Option<(DVec3, f64)>>, p: u32, o| {
            if want.len() <= p as usize {
                want.resize(p as usize + 1, None);
            }
            want[p as usize] = Some(o);
        };
        for &(x, y, z, r) in &objs {
            let p = bp.insert(v((x, y, z)), r).unwrap();
            put(&mut want, p, (v((x, y, z)), r));
        }
        assert_brute(&mut bp);
        for (changes, search) in &frames {
            for ch in changes {
                let live: Vec<u32> = (0..want.len() as u32).filter(|&p| want[p as usize].is_some()).collect();
                match *ch {
                    Change::Set(i, c, r) if !live.is_empty() => {
                        let p = live[i % live.len()];
                        bp.set(p, v(c), r).unwrap();
                        put(&mut want, p, (v(c), r));
                    }
                    Change::Remove(i) if !live.is_empty() => {
                        let p = live[i % live.len()];
                        bp.remove(p).unwrap();
                        want[p as usize] = None;
                    }
                    Change::Insert(c, r) => {
                        let p = bp.insert(v(c), r).unwrap();
                        prop_assert!(want.get(p as usize).is_none_or(|o| o.is_none()), "proxy {} in use", p);
                        put(&mut want, p, (v(c), r));
                    }
                    _ => {}
                }
            }
            if *search {
                assert_brute(&mut bp);
            }
            prop_assert_eq!(bp.len(), want.iter().flatten().count());
            for (p, o) in want.iter().enumerate() {
                prop_assert_eq!(bp.get(p as u32), *o, "proxy {}", p);
            }
        }
        assert_brute(&mut bp);
    }
}

/// One change between frames aimed at the fat spheres: an object moved back or forth to about its
/// fat sphere's edge, its radius grown or shrunk by about the margin, a jump anywhere (across
/// levels), a removal, an insertion (taking a removed object's proxy).
#[derive(Clone, Debug)]
enum Nudge {
    Edge(usize, f64),
    Scale(usize, f64),
    Jump(usize, (f64, f64, f64), f64),
    Remove(usize),
    Insert((f64, f64, f64), f64),
}

fn nudge() -> impl Strategy<Value = Nudge> {
    let i = || any::<prop::sample::Index>().prop_map(|i| i.index(1 << 20));
    prop_oneof![
        4 => (i(), 0.7..1.3f64).prop_map(|(i, t)| Nudge::Edge(i, t)),
        2 => (i(), -2.5..2.5f64).prop_map(|(i, t)| Nudge::Scale(i, t)),
        1 => (i(), (coord(), coord(), coord()), radius()).prop_map(|(i, c, r)| Nudge::Jump(i, c, r)),
        1 => i().prop_map(Nudge::Remove),
        1 => ((coord(), coord(), coord()), radius()).prop_map(|(c, r)| Nudge::Insert(c, r)),
    ]
}

/// Applies `n` to `bp` (an edge step along the unit `dir`); true when it removed the last object.
fn apply(bp: &mut BroadPhase, n: &Nudge, dir: DVec3) -> bool {
    let v = |(x, y, z): (f64, f64, f64)| DVec3::new(x, y, z);
    let live: Vec<u32> = bp.live().map(|(p, _)| p).collect();
    let pick = |i: usize| live.get(i % live.len().max(1)).copied();
    match *n {
        Nudge::Edge(i, t) => {
            if let Some(p) = pick(i) {
                let (c, r) = bp.get(p).unwrap();
                bp.set(p, c + dir * (r * fat::FAT_MARGIN * t), r).unwrap();
            }
        }
        Nudge::Scale(i, t) => {
            if let Some(p) = pick(i) {
                let (c, r) = bp.get(p).unwrap();
                bp.set(p, c, r * (1.0 + fat::FAT_MARGIN).powf(t)).unwrap();
            }
        }
        Nudge::Jump(i, c, r) => {
            if let Some(p) = pick(i) {
                bp.set(p, v(c), r).unwrap();
            }
        }
        Nudge::Remove(i) => {
            if let Some(p) = pick(i) {
                bp.remove(p).unwrap();
                return bp.is_empty();
            }
        }
        Nudge::Insert(c, r) => {
            bp.insert(v(c), r).unwrap();
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Frames between rebuilds: objects oscillating across their fat spheres' edges, radii growing
    /// and shrinking past the margin, jumps across levels, removals and reused proxies, up to 24
    /// frames with no rebuild, then a forced one: every frame's pairs are brute force's, ascending.
    #[test]
    fn frames_between_rebuilds_equal_brute_force(
        objs in prop::collection::vec((coord(), coord(), coord(), radius()), 1..40),
        frames in prop::collection::vec(prop::collection::vec(nudge(), 0..6), 1..24),
        ratio in prop::sample::select(vec![2u32, 4, 8]),
        lifting in any::<bool>(),
        vertical in prop::sample::select(VERTICALS.to_vec()),
    ) {
        let mut bp = phase(ratio, lifting, vertical);
        bp.rebuild_share = f64::INFINITY;
        let v = |(x, y, z): (f64, f64, f64)| DVec3::new(x, y, z);
        for &(x, y, z, r) in &objs {
            bp.insert(v((x, y, z)), r).unwrap();
        }
        prop_assert_eq!(bp.find_pairs().to_vec(), bp.pairs_brute_force());
        let mut rebuilds = bp.rebuilds;
        for (f, nudges) in frames.iter().enumerate() {
            let mut emptied = false;
            let sign = if f % 2 == 0 { 1.0 } else { -1.0 };
            for n in nudges {
                // All forgotten: the next frame rebuilds.
                emptied |= apply(&mut bp, n, DVec3::new(1.0, 0.5, -0.25).normalize() * sign);
            }
            prop_assert_eq!(bp.find_pairs().to_vec(), bp.pairs_brute_force(), "frame {}", f);
            prop_assert!(bp.rebuilds == rebuilds || emptied, "frame {}: rebuilt", f);
            rebuilds = bp.rebuilds;
        }
        bp.coh.valid = false;
        prop_assert_eq!(bp.find_pairs().to_vec(), bp.pairs_brute_force());
        prop_assert!(bp.rebuilds > rebuilds || bp.is_empty());
        assert_brute(&mut bp);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// On rayon's threads (with the tests' small chunks, so that every step is split): frame after
    /// frame of drifts of every object (`set_all`, some given bad spheres), the nudges above and
    /// rebuilds (at any share, and forced), the same pairs in the same order, the same counts and
    /// the same events as on one thread, bit for bit, and brute force's pairs.
    #[test]
    fn parallel_frames_equal_serial_bit_for_bit(
        objs in prop::collection::vec((coord(), coord(), coord(), radius()), 1..120),
        frames in prop::collection::vec(
            (prop::collection::vec(nudge(), 0..6), -1.5..1.5f64, 0usize..8, any::<bool>()),
            1..24,
        ),
        share in prop::sample::select(vec![0.05, 0.3, f64::INFINITY]),
        ratio in prop::sample::select(vec![2u32, 4, 8]),
        vertical in prop::sample::select(VERTICALS.to_vec()),
    ) {
        let v = |(x, y, z): (f64, f64, f64)| DVec3::new(x, y, z);
        let mut bps = [phase(ratio, true, vertical), phase(ratio, true, vertical)];
        bps[1].set_parallel(true);
        for bp in &mut bps {
            bp.rebuild_share = share;
            for &(x, y, z, r) in &objs {
                bp.insert(v((x, y, z)), r).unwrap();
            }
        }
        for (f, (nudges, drift, bad, force)) in frames.iter().enumerate() {
            for bp in &mut bps {
                // Every object drifts by `drift` of its fat margin along its own direction; one in
                // `bad` (if any) is given a centre that is not finite, and keeps its sphere.
                let res = bp.set_all(|p, c, r| {
                    let dir = DVec3::new((p % 3) as f64 - 1.0, (p % 5) as f64 - 2.0, 1.0).normalize();
                    if *bad > 0 && p as usize % 8 == *bad {
                        (DVec3::NAN, r)
                    } else {
                        (c + dir * (r * fat::FAT_MARGIN * drift), r)
                    }
                });
                let any_bad = bp.live().any(|(p, _)| *bad > 0 && p as usize % 8 == *bad);
                prop_assert_eq!(res.is_err(), any_bad);
                for n in nudges {
                    apply(bp, n, DVec3::X);
                }
                if *force {
                    bp.coh.valid = false;
                }
            }
            let [one, many] = &mut bps;
            let want = one.pair_events();
            let want = (want.0.to_vec(), want.1.to_vec());
            let got = many.pair_events();
            prop_assert_eq!((got.0.to_vec(), got.1.to_vec()), want, "frame {}: events", f);
            prop_assert_eq!(&many.pairs, &one.pairs, "frame {}", f);
            prop_assert_eq!(&many.coh.cands, &one.coh.cands, "frame {}: fat pairs", f);
            prop_assert_eq!((&many.members, &many.starts, &many.lift), (&one.members, &one.starts, &one.lift), "frame {}: levels", f);
            prop_assert_eq!(many.stats(), one.stats(), "frame {}", f);
            prop_assert_eq!(many.rebuilds, one.rebuilds, "frame {}", f);
            prop_assert_eq!(one.pairs.clone(), one.pairs_brute_force(), "frame {}", f);
        }
    }
}

/// Over frames of moves, removals and reinsertions, the events are the differences between
/// consecutive frames' brute-force pair sets (a reused proxy's pairs end and begin again).
#[test]
fn events_are_the_differences_of_brute_force() {
    use std::collections::BTreeSet;
    let mut rng = SplitMix64::new(14);
    let mut bp = BroadPhase::new(1.0);
    for (c, r) in scene(&mut rng, 800, -1.0, 1.5, 200.0, DVec3::ZERO) {
        bp.insert(c, r).unwrap();
    }
    let mut before: BTreeSet<(u32, u32)> = BTreeSet::new();
    for frame in 0..6 {
        let mut renewed = Vec::new();
        if frame == 3 {
            for p in (0..800).step_by(7) {
                let (c, r) = bp.get(p).unwrap();
                bp.remove(p).unwrap();
                renewed.push(bp.insert(c, r).unwrap());
            }
        }
        for p in 0..800 {
            let (c, r) = bp.get(p).unwrap();
            bp.set(p, c + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * r, r).unwrap();
        }
        let now: BTreeSet<(u32, u32)> = bp.pairs_brute_force().into_iter().collect();
        let renewed_pair = |&(a, b): &(u32, u32)| renewed.contains(&a) || renewed.contains(&b);
        let ended: Vec<_> = before.iter().filter(|p| !now.contains(p) || renewed_pair(p)).copied().collect();
        let began: Vec<_> = now.iter().filter(|p| !before.contains(p) || renewed_pair(p)).copied().collect();
        let (b, e) = bp.pair_events();
        assert_eq!((b.to_vec(), e.to_vec()), (began, ended), "frame {frame}");
        assert!(frame == 0 || !b.is_empty() && !e.is_empty(), "frame {frame}: the scene moves enough");
        before = now;
    }
}

/// The broad phase of `objs` with sparse levels lifted, after checking that it searches fewer
/// levels than without lifting and finds the same pairs.
fn lifted_keeps_the_pairs(objs: &[(DVec3, f64)]) -> BroadPhase {
    let (mut lifted, mut flat) = (phase(4, true, Vertical::Auto), phase(4, false, Vertical::Auto));
    for &(c, r) in objs {
        lifted.insert(c, r).unwrap();
        flat.insert(c, r).unwrap();
    }
    let mut a = lifted.find_pairs().to_vec();
    let mut b = flat.find_pairs().to_vec();
    assert!(lifted.stats().levels < flat.stats().levels, "{:?} {:?}", lifted.stats(), flat.stats());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    lifted
}

/// Sparse levels are lifted (fewer levels searched), and the pairs stay the same.
#[test]
fn lifting_keeps_the_pairs() {
    let mut rng = SplitMix64::new(15);
    let objs = scene(&mut rng, 4000, -2.0, 3.0, 20_000.0, DVec3::ZERO);
    lifted_keeps_the_pairs(&objs);
}

/// On rayon's threads: the same pairs in the same order as on one thread, frame after frame.
#[test]
fn parallel_equals_sequential_in_order() {
    let mut rng = SplitMix64::new(16);
    let objs = scene(&mut rng, 20_000, -2.0, 3.0, 30_000.0, DVec3::ZERO);
    let (mut one, mut many) = (BroadPhase::new(1.0), BroadPhase::new(1.0));
    many.set_parallel(true);
    for &(c, r) in &objs {
        one.insert(c, r).unwrap();
        many.insert(c, r).unwrap();
    }
    for frame in 0..3 {
        for p in 0..objs.len() as u32 {
            let (c, r) = one.get(p).unwrap();
            let c = c + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * r * 0.1;
            one.set(p, c, r).unwrap();
            many.set(p, c, r).unwrap();
        }
        let want = one.find_pairs().to_vec();
        assert!(want.len() > 1000, "{}", want.len());
        assert_eq!(many.find_pairs(), &want[..], "frame {frame}");
        assert_eq!(many.stats(), one.stats());
    }
    let mut got = want_sorted(&mut many);
    assert_eq!(got.len(), many.pairs_brute_force().len());
    got.dedup();
    assert_eq!(got, many.pairs_brute_force());
}

fn want_sorted(bp: &mut BroadPhase) -> Vec<(u32, u32)> {
    let mut v = bp.find_pairs().to_vec();
    v.sort_unstable();
    v
}

/// Walkers on the ground under aircraft stacked 100–3,000 m up over the same square (issue 72's
/// scene 4, smaller), near the origin and 10,000 km out, moving in all three axes: the same pairs
/// and query answers as brute force whether the levels are split by height or not, and split by
/// default, with at least 5× fewer candidates than unsplit.
#[test]
fn stacked_scenes_equal_brute_force() {
    let mut rng = SplitMix64::new(17);
    for offset in [DVec3::ZERO, DVec3::new(1e7, 1e7, 0.0), DVec3::new(-1e7, 0.0, -1e7)] {
        let mut objs: Vec<(DVec3, f64)> = (0..2000)
            .map(|_| (offset + DVec3::new(rng.range(-30.0, 30.0), rng.range(-60.0, 60.0), 0.9), 0.25))
            .collect();
        objs.extend((0..400).map(|_| {
            let c = DVec3::new(rng.range(-30.0, 30.0), rng.range(-60.0, 60.0), rng.range(100.0, 3000.0));
            (offset + c, rng.range(5.0, 30.0))
        }));
        let mut candidates = Vec::new();
        for vertical in VERTICALS {
            let mut bp = phase(4, true, vertical);
            for &(c, r) in &objs {
                bp.insert(c, r).unwrap();
            }
            for frame in 0..3 {
                assert_brute(&mut bp);
                if frame == 1 {
                    assert_queries(&mut bp, &probes(&mut rng, 30, 200.0, offset + DVec3::new(0.0, 0.0, 50.0)));
                    let mut tall = probes(&mut rng, 30, 3000.0, offset);
                    for (a, b) in &mut tall {
                        (a.z, b.z) = (rng.range(0.0, 3000.0), rng.range(0.0, 3000.0));
                    }
                    assert_queries(&mut bp, &tall);
                }
                for p in 0..objs.len() as u32 {
                    let (c, r) = bp.get(p).unwrap();
                    let step = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * r;
                    bp.set(p, c + step, r).unwrap();
                }
            }
            bp.find_pairs();
            assert_eq!(bp.stats().vertical > 0, vertical != Vertical::Never, "{vertical:?}: {:?}", bp.stats());
            candidates.push(bp.stats().candidates);
        }
        let [auto, never, always] = candidates[..] else { unreachable!() };
        assert!(auto * 5 <= never && always * 5 <= never, "candidates: auto {auto}, never {never}, always {always}");
    }
}

/// A layer index beyond ±2³⁰ keeps the level unsplit (a flea far above a tall stack), and a
/// stack over more than 4 layers is split by default; the pairs are brute force's either way.
#[test]
fn split_only_where_layers_fit() {
    for vertical in [Vertical::Auto, Vertical::Always] {
        let mut bp = phase(4, true, vertical);
        for k in 0..20 {
            bp.insert(DVec3::new(0.0, 0.0, 0.3 * k as f64), 0.2).unwrap(); // 7 layers of 1 m
        }
        assert_brute(&mut bp);
        assert_eq!(bp.stats().vertical, 1);
        let flea = bp.insert(DVec3::new(0.0, 0.0, 2e9), 0.2).unwrap();
        assert_brute(&mut bp);
        bp.refresh(); // the levels rebuilt with the flea
        assert_brute(&mut bp);
        assert_eq!(bp.stats().vertical, 0, "{:?}", bp.stats());
        bp.set(flea, DVec3::new(0.0, 0.0, 3.5), 0.2).unwrap();
        assert_brute(&mut bp);
        bp.refresh();
        assert_brute(&mut bp);
        assert_eq!(bp.stats().vertical, 1);
    }
}

/// A group too large to count whole (over `CROWD_SAMPLE` objects: a sample of its cells is
/// counted) is still lifted where sparse, kept where crowded, and the pairs stay the same.
#[test]
fn sampled_crowding_decides_as_counted() {
    let mut rng = SplitMix64::new(21);
    // 80,000 spheres of 0.1–0.3 m, about 0.06 to a 1 m cell (their finest level is lifted), and 20
    // of 10–30 m.
    let mut objs = scene(&mut rng, 80_000, -1.0, -0.5, 1_200.0, DVec3::ZERO);
    objs.extend(scene(&mut rng, 20, 1.0, 1.5, 1_200.0, DVec3::ZERO));
    let lifted = lifted_keeps_the_pairs(&objs);
    // Crowded (the same in a 60 m square, 20 to a 1 m cell): the finest level stays.
    let mut crowd = phase(4, true, Vertical::Auto);
    for &(c, r) in &objs {
        crowd.insert(DVec3::new(c.x * 0.05, c.y * 0.05, c.z), r).unwrap();
    }
    crowd.find_pairs();
    assert!(crowd.stats().levels > lifted.stats().levels, "{:?} {:?}", crowd.stats(), lifted.stats());
}
