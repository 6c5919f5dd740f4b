//! The horizon sweep: every target of one quadrant sector decided in one pass outward from the eye.
//!
//! **Quadrants.** Around the eye the grid is cut into four quadrants (east, west, north, south),
//! each swept along its own axis in local coordinates (p, q): p along the sweep, q across it. The
//! east quadrant is the grid itself; the others are its reflections and transpositions, so one
//! sweep serves all four. A sample at local distance d = p − p_eye > 0 and lateral offset
//! l = q − q_eye belongs to east and west when |l| ≤ d (the diagonals included), to north and
//! south when |l| < d; the eye's own sample to none.
//!
//! **Projection.** In a quadrant, the point (d, l, w) (w its height above the eye) maps to
//! (u, v) = (l/d, w/d). A straight edge maps to a straight segment, and the whole segment from the
//! eye to a target P maps to the single point (u_P, v_P). Every point strictly between the eye and
//! P has a smaller d than P. So P is hidden exactly when some terrain point with 0 < d < d_P
//! projects onto u_P at or above v_P — and the highest terrain point over any u lies on an edge.
//!
//! **Sweep.** Columns are visited in increasing d. The horizon H (`envelope.rs`) holds the upper
//! envelope of the projected edges of every strip of cells already passed. A target in column c is
//! compared with H built from the strips before column c − 1, and with the two points where its
//! sight line crosses the last strip: where it enters (on column c − 1) and where it crosses the
//! strip's cell diagonal (when that diagonal does not end at the target). Inside one strip the
//! sight line to a target crosses a single cell, because |u| ≤ 1. Then the strip between columns
//! c − 1 and c (its row edges, diagonals and the edges along column c − 1) is merged into H. On
//! terrain that is seen, the strip's envelope is nearly always the far column's polyline: the row
//! edges and diagonals mostly have a triangle above them in the projection and are left out, and
//! the far edges go into the strip without a scan of the horizon (see `merge`).
//!
//! **First strip.** The strip holding the eye is clipped to the wedge |l| ≤ d before projecting; an
//! edge through the eye (an eye on a grid line or vertex) projects to a single point, its far
//! end. The targets of the first column are left to the exact walk.
//!
//! **Culling.** Each column is cut into blocks of laterals, the heightfield pyramid's nodes across
//! the sweep (of the first level whose nodes span 8 cells or more), so each block of a column has a
//! height bound (the node's maximum, lowered by the least curvature drop over the block) before it
//! is loaded. Before a column's targets, each block's horizon lower bound over the u-range of its
//! laterals on this column and the one before is compared with the highest slope those bounds allow
//! (with the target height): a block more than the band under it is *quiet* — its targets are
//! hidden and every edge of its strip cells is under the horizon — and is neither loaded, projected
//! nor merged. Its targets are reported hidden in bulk: when every sample is a target (no holes, no
//! limits) the output starts hidden and nothing is written for them. A column's blocks are loaded
//! (with one lateral either side) only when a block of that column or the next is not quiet; in a
//! block that is loaded, a target far enough under the same lower bound is still decided without
//! the horizon, and strip cells whose corners all lie under it are skipped. A block's lower bound
//! is inherited from the column before where that already makes it quiet (the horizon only rises,
//! and moving a column outwards a block's u-range falls within its own and a neighbour's u-ranges
//! on the column before): only the other blocks read the horizon. The horizon is raised
//! in place: the pieces before the strip's first u stay where they are and those after it move only
//! when the count between changes.
//!
//! **Holes.** An edge is merged while one of its triangles exists. A target whose last strip
//! touches a hole is left to the exact walk.
//!
//! **Sectors.** Any u-range of a quadrant is an independent problem: the sight lines to its
//! targets cross only terrain in that range. Sectors run in parallel; a target belongs to the
//! sector whose [u_lo, u_hi) holds its u (the last sector's range is closed).

use super::envelope::{Cursor, Envelope, Merge};
use super::eye::{Eye, TOUCH};
use super::sight::floor;
use crate::heightfield::Diagonal;
use std::ops::ControlFlow;

/// One of the four quadrants around the eye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quadrant {
    East,
    West,
    North,
    South,
}

impl Quadrant {
    pub const ALL: [Quadrant; 4] = [Quadrant::East, Quadrant::West, Quadrant::North, Quadrant::South];

    /// Grid sample (i, j) of local (p, q).
    #[inline(always)]
    fn sample(self, p: i64, q: i64) -> (usize, usize) {
        let (i, j) = match self {
            Quadrant::East => (p, q),
            Quadrant::West => (-p, q),
            Quadrant::North => (q, p),
            Quadrant::South => (q, -p),
        };
        (i as usize, j as usize)
    }

    /// Grid cell of the local cell spanning [p, p + 1] × [q, q + 1].
    #[inline(always)]
    fn cell(self, p: i64, q: i64) -> (usize, usize) {
        let (i, j) = match self {
            Quadrant::East => (p, q),
            Quadrant::West => (-p - 1, q),
            Quadrant::North => (q, p),
            Quadrant::South => (q, -p - 1),
        };
        (i as usize, j as usize)
    }

    /// Whether the local cell at (p, q) is split by its local anti-diagonal (1, 0)–(0, 1) (else by
    /// (0, 0)–(1, 1)): reflections swap the two.
    #[inline(always)]
    fn anti(self, diagonal: Diagonal, p: i64, q: i64) -> bool {
        let (i, j) = self.cell(p, q);
        diagonal.is_anti(i, j) != matches!(self, Quadrant::West | Quadrant::South)
    }

    /// The eye in local coordinates, from grid coordinates.
    fn local(self, gu: f64, gv: f64) -> (f64, f64) {
        match self {
            Quadrant::East => (gu, gv),
            Quadrant::West => (-gu, gv),
            Quadrant::North => (gv, gu),
            Quadrant::South => (-gv, gu),
        }
    }

    /// Ranges of local p and q over an nx × ny grid.
    fn extent(self, nx: usize, ny: usize) -> ((i64, i64), (i64, i64)) {
        let (nx, ny) = (nx as i64 - 1, ny as i64 - 1);
        match self {
            Quadrant::East => ((0, nx), (0, ny)),
            Quadrant::West => ((-nx, 0), (0, ny)),
            Quadrant::North => ((0, ny), (0, nx)),
            Quadrant::South => ((-ny, 0), (0, nx)),
        }
    }

    /// Grid spacing along local p (world units).
    fn step(self, dx: f64, dy: f64) -> f64 {
        match self {
            Quadrant::East | Quadrant::West => dx,
            Quadrant::North | Quadrant::South => dy,
        }
    }

    /// Whether targets with |l| = d (the diagonals) are this quadrant's.
    fn owns_diagonals(self) -> bool {
        matches!(self, Quadrant::East | Quadrant::West)
    }
}

/// A sector of a quadrant: the targets whose u lies in [u_lo, u_hi) ([u_lo, u_hi] when `last`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sector {
    pub quad: Quadrant,
    pub u_lo: f64,
    pub u_hi: f64,
    pub last: bool,
}

impl Sector {
    /// `n` equal sectors of each quadrant.
    pub fn split(n: usize) -> Vec<Sector> {
        let mut out = Vec::with_capacity(4 * n);
        for quad in Quadrant::ALL {
            for k in 0..n {
                let at = |k: usize| if k == n { 1.0 } else { -1.0 + 2.0 * k as f64 / n as f64 };
                out.push(Sector { quad, u_lo: at(k), u_hi: at(k + 1), last: k + 1 == n });
            }
        }
        out
    }

    #[inline(always)]
    fn holds(&self, u: f64) -> bool {
        u >= self.u_lo && (u < self.u_hi || (self.last && u <= self.u_hi))
    }
}

/// A target as the sweep meets it: sample (i, j) at lowered elevation `zp` (with the target
/// height), at local distance `d` (grid steps along the sweep axis), seen from the eye at slope `vp`
/// (height per step of d).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub i: usize,
    pub j: usize,
    pub zp: f64,
    pub d: f64,
    pub vp: f64,
}

/// What the sweep learns of a target: its slope from the eye and the highest slope of the terrain
/// strictly between (or that the exact walk must decide).
pub(crate) trait Sink: Sync {
    /// `h`: the highest slope of any terrain point strictly between the eye and the target, −∞ when
    /// none; `None` when the sweep leaves the target to the exact walk.
    fn target(&self, run: &Eye, t: Target, h: Option<f64>);

    /// Decides the target, if knowing that the highest slope is at least `h_lo` is enough (a
    /// certain "hidden"), and says whether it did; else `target` follows.
    fn at_least(&self, _run: &Eye, _t: Target, _h_lo: f64) -> bool {
        false
    }

    /// Whether targets the sweep knows to lie more than the band under the horizon may be reported
    /// by `hidden` alone (else each goes to `target`).
    fn culls(&self) -> bool {
        false
    }

    /// Whether the output already says "hidden" for every target: `hidden` need not be called.
    fn prefilled(&self) -> bool {
        false
    }

    /// Sample (i, j), a target, is hidden: it lies more than the band under the horizon.
    fn hidden(&self, _run: &Eye, _i: usize, _j: usize) {}
}

/// Laterals per block, at least: the horizon's lower bound is taken once per block of a column, to
/// decide the targets far below it and skip the strip cells under it at once. Blocks are the
/// pyramid's nodes across the sweep (of the first level whose nodes span this many cells), so each
/// block of a column has a height bound before it is loaded.
const BLOCK: i64 = 8;

/// One column of a sector: lateral samples q0..=q1, lowered (NaN holes), with their projections,
/// loaded a block at a time when needed.
#[derive(Default)]
struct Column {
    p: i64,
    /// Local distance p − p_eye.
    d: f64,
    inv_d: f64,
    q0: i64,
    /// The last lateral (q0 − 1 when none).
    q1: i64,
    /// Lowered heights (of the loaded blocks).
    z: Vec<f64>,
    /// Projected (u, v) of each sample (of the loaded blocks).
    uv: Vec<(f64, f64)>,
    /// Whether the column exists (inside the grid).
    exists: bool,
    /// The block of q0: block b holds laterals b·bs..b·bs + bs − 1 (bs the sweep's block size).
    b0: i64,
    /// Per block from b0: whether it is loaded, with one lateral either side.
    loaded: Vec<bool>,
    /// Per block from b0: an upper bound of the lowered heights of laterals b·bs..=(b + 1)·bs.
    zhi: Vec<f64>,
}

impl Column {
    /// Lowered height of lateral q.
    #[inline(always)]
    fn z(&self, q: i64) -> f64 {
        self.z[(q - self.q0) as usize]
    }

    /// Height above the eye of lateral q.
    #[inline(always)]
    fn w(&self, q: i64, zo: f64) -> f64 {
        self.z(q) - zo
    }

    #[inline(always)]
    fn uv(&self, q: i64) -> (f64, f64) {
        self.uv[(q - self.q0) as usize]
    }

    fn q1(&self) -> i64 {
        self.q1
    }

    /// Whether lateral q is loaded.
    #[inline(always)]
    fn has(&self, q: i64) -> bool {
        self.exists && q >= self.q0 && q <= self.q1()
    }
}

/// Reusable buffers of one sweep.
#[derive(Default)]
pub(crate) struct Scratch {
    cols: [Column; 3],
    horizon: Envelope,
    /// The envelope of the strip being merged.
    strip: Envelope,
    /// The horizon's lower bound over each block, and which blocks are quiet.
    floors: Floors,
    /// The highest sample of each pyramid node across the sweep, in the node row of the columns
    /// last prepared: (that row + 1, or 0 when not read yet; the height).
    node_hi: Vec<(usize, f64)>,
}

/// The horizon's lower bound over each block of a column (see `SectorSweep::floors`).
#[derive(Default)]
struct Floors {
    /// Per block of the column: the bound, and whether the block is quiet.
    at: Vec<f64>,
    quiet: Vec<bool>,
    /// The blocks' u-ranges with their bounds: of the column before, and of this one.
    past: Past,
    now: Past,
}

impl Floors {
    /// Forgets every block (a new sweep).
    fn clear(&mut self) {
        self.at.clear();
        self.quiet.clear();
        self.past.blocks.clear();
        self.now.blocks.clear();
    }
}

/// One column's blocks from block `b0` on: each block's u-range and a lower bound of the horizon
/// over it.
#[derive(Default)]
struct Past {
    b0: i64,
    blocks: Vec<(f64, f64, f64)>,
}

impl Past {
    /// A lower bound of the horizon over [lo, hi] (the u-range of block b on the next column), −∞
    /// unless the u-ranges of blocks b − 1, b and b + 1 here cover it: the least of their bounds.
    /// The horizon only rises, so a bound of it over a range stays one. (Moving a column outwards,
    /// a block's u-range shrinks towards u = 0, into the union of its own and its neighbour's
    /// nearer u = 0: consecutive blocks' ranges overlap, each spanning both columns of a strip.)
    #[inline]
    fn bound(&self, b: i64, lo: f64, hi: f64) -> f64 {
        let (mut cur, mut low) = (lo, f64::INFINITY);
        for k in b - 1 - self.b0..=b + 1 - self.b0 {
            let Some(&(a, z, f)) = usize::try_from(k).ok().and_then(|k| self.blocks.get(k)) else {
                continue;
            };
            if z < cur {
                continue;
            }
            if a > cur {
                break;
            }
            low = low.min(f);
            cur = z;
            if cur >= hi {
                return low;
            }
        }
        f64::NEG_INFINITY
    }
}

/// The sweep of one sector for one observer.
struct SectorSweep<'a, S: Sink> {
    run: &'a Eye<'a>,
    sink: &'a S,
    sector: Sector,
    quad: Quadrant,
    /// The eye in local coordinates, and its elevation.
    op: f64,
    oq: f64,
    zo: f64,
    pmax: i64,
    qmin: i64,
    qmax: i64,
    holes: bool,
    /// Target filter needed (distance, angles or pitch limits).
    limits: bool,
    /// Laterals per block, and the pyramid level whose nodes are the blocks.
    bs: i64,
    level: usize,
    /// The level's nodes along the columns and across them.
    nodes: (usize, usize),
    /// Whether the columns are grid rows (north and south).
    rows: bool,
    /// The target height, and a bound of every target's |lowered height| (for the band).
    t: f64,
    zabs: f64,
}

/// Sweeps one sector, reporting every target in it to `sink`. `column` is called after each column
/// with the number of samples it held; `Break` stops the sweep.
pub(crate) fn sweep<S: Sink>(
    run: &Eye,
    sector: Sector,
    sink: &S,
    scratch: &mut Scratch,
    column: &mut dyn FnMut(usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Some((s, p_first, p_last)) = SectorSweep::new(run, sector, sink) else {
        return ControlFlow::Continue(());
    };
    let Scratch { cols, horizon, strip, floors, node_hi } = scratch;
    horizon.clear();
    node_hi.clear();
    node_hi.resize(s.nodes.1, (0, 0.0));
    let [near, far, next] = cols;
    for (c, p) in [(&mut *near, p_first - 1), (&mut *far, p_first), (&mut *next, p_first + 1)] {
        s.prepare(c, p, node_hi);
        s.load_all(c);
    }
    s.first_column(far);
    column(far.z.len())?;
    floors.clear();
    s.merge(near, far, next, horizon, strip, &floors.at, &floors.quiet, true);
    for p in p_first + 1..=p_last {
        std::mem::swap(near, far);
        std::mem::swap(far, next);
        s.prepare(next, p + 1, node_hi);
        s.floors(near, far, horizon, floors);
        s.column(near, far, horizon, &floors.at, &floors.quiet);
        column(far.z.len())?;
        if p < p_last {
            s.merge(near, far, next, horizon, strip, &floors.at, &floors.quiet, false);
        }
    }
    ControlFlow::Continue(())
}

/// The samples a sweep of `sector` loads: the work it does, for progress.
pub(crate) fn work(run: &Eye, sector: Sector) -> u64 {
    let Some((s, p_first, p_last)) = SectorSweep::new(run, sector, &()) else {
        return 0;
    };
    (p_first - 1..=p_last + 1)
        .map(|p| {
            let (lo, hi) = s.range(p as f64 + 1.0 - s.op);
            (hi - lo + 1).max(0) as u64
        })
        .sum()
}

impl Sink for () {
    fn target(&self, _: &Eye, _: Target, _: Option<f64>) {}
}

impl<'a, S: Sink> SectorSweep<'a, S> {
    /// The sweep of `sector` with its first and last column, if it has any.
    fn new(run: &'a Eye<'a>, sector: Sector, sink: &'a S) -> Option<(Self, i64, i64)> {
        let hf = run.sight.hf;
        let quad = sector.quad;
        let (op, oq) = quad.local(run.sight.ou, run.sight.ov);
        let ((_, pmax), (qmin, qmax)) = quad.extent(hf.nx(), hf.ny());
        let p_first = floor(op) + 1;
        // Columns beyond the maximum distance hold no target (the last one is within it; a reach
        // past the grid, up to infinite, is the grid's end).
        let step = {
            let sp = hf.spacing();
            quad.step(sp.x, sp.y)
        };
        let params = run.params;
        let reach = params.max_distance / step;
        let p_last = if op + reach < pmax as f64 { pmax.min(floor(op + reach) + 1) } else { pmax };
        let limits = params.max_distance.is_finite() || params.azimuths.is_some() || params.pitch.is_some();
        let zo = run.sight.zo;
        (p_first <= p_last).then(|| {
            let holes = hf.has_holes();
            let pyr = hf.pyramid();
            let mut level = 0;
            while level + 1 < pyr.depth() && ((pyr.leaf_size() << level) as i64) < BLOCK {
                level += 1;
            }
            let bs = (pyr.leaf_size() << level) as i64;
            let rows = matches!(quad, Quadrant::North | Quadrant::South);
            let (nbx, nby) = pyr.level_size(level);
            let nodes = if rows { (nby, nbx) } else { (nbx, nby) };
            let t = params.target_height;
            // |lowered target| ≤ the highest |sample| + the target height + the greatest drop.
            let sight = &run.sight;
            let (ex, ey) = ((hf.nx() - 1) as f64, (hf.ny() - 1) as f64);
            let far2 = [(0.0, 0.0), (ex, 0.0), (0.0, ey), (ex, ey)].map(|(u, v)| sight.dist2(u, v));
            let zabs = hf.height_range().map_or(0.0, |(a, b)| f64::from(a.abs().max(b.abs())))
                + t
                + sight.curv.abs() * far2.into_iter().fold(0.0, f64::max);
            let s = SectorSweep {
                run,
                sink,
                sector,
                quad,
                op,
                oq,
                zo,
                pmax,
                qmin,
                qmax,
                holes,
                limits,
                bs,
                level,
                nodes,
                rows,
                t,
                zabs,
            };
            (s, p_first, p_last)
        })
    }

    /// The lateral range a column at local distance d must hold for the strips on both its sides
    /// (with a margin of three samples for the strips' slant), clamped to the grid.
    fn range(&self, d: f64) -> (i64, i64) {
        let lo = floor(self.oq + self.sector.u_lo * d) - 3;
        let hi = -floor(-(self.oq + self.sector.u_hi * d)) + 3;
        (lo.max(self.qmin), hi.min(self.qmax))
    }

    /// Sets column `c` to column p (none beyond the grid), the lateral range of the strip after
    /// it, with its blocks' height bounds and nothing loaded.
    fn prepare(&self, c: &mut Column, p: i64, node_hi: &mut [(usize, f64)]) {
        c.p = p;
        c.d = p as f64 - self.op;
        c.inv_d = 1.0 / c.d;
        c.exists = p <= self.pmax;
        let (q0, q1) = self.range(c.d + 1.0);
        c.q0 = q0;
        c.q1 = if c.exists && q1 >= q0 { q1 } else { q0 - 1 };
        let n = (c.q1 - q0 + 1) as usize;
        // Debug builds poison what is not loaded: a read of it raises the horizon to the sky.
        let poison = if cfg!(debug_assertions) { 1e300 } else { f64::NAN };
        if cfg!(debug_assertions) {
            c.z.clear();
            c.uv.clear();
        }
        c.z.resize(n, poison);
        c.uv.resize(n, (0.0, poison));
        c.b0 = q0.div_euclid(self.bs);
        c.loaded.clear();
        c.zhi.clear();
        if n > 0 {
            let nb = (c.q1.div_euclid(self.bs) - c.b0 + 1) as usize;
            c.loaded.resize(nb, false);
            let g = p.unsigned_abs() as usize;
            c.zhi.extend((0..nb).map(|k| self.zhi(g, c.b0 + k as i64, node_hi)));
        }
    }

    /// An upper bound of the lowered heights of column g (its grid index along the sweep axis) at
    /// laterals b·bs..=(b + 1)·bs: the pyramid node holding them, lowered by the least drop over
    /// them. −∞ when all are holes. `node_hi` keeps the nodes read, for the columns after.
    #[inline]
    fn zhi(&self, g: usize, b: i64, node_hi: &mut [(usize, f64)]) -> f64 {
        let gi = (g / self.bs as usize).min(self.nodes.0 - 1);
        let bi = (b as usize).min(self.nodes.1 - 1);
        let hi = match node_hi[bi] {
            (tag, hi) if tag == gi + 1 => hi,
            _ => {
                let pyr = self.run.sight.hf.pyramid();
                let (_, hi) = if self.rows { pyr.node(self.level, bi, gi) } else { pyr.node(self.level, gi, bi) };
                node_hi[bi] = (gi + 1, hi);
                hi
            }
        };
        let sight = &self.run.sight;
        if sight.curv == 0.0 || hi == f64::NEG_INFINITY {
            return hi;
        }
        let q = self.oq.clamp((b * self.bs) as f64, ((b + 1) * self.bs) as f64);
        let (u, v) = if self.rows { (q, g as f64) } else { (g as f64, q) };
        hi - sight.curv * sight.dist2(u, v)
    }

    /// Loads block b of column `c` (laterals b·bs − 1..=(b + 1)·bs within its range), unless
    /// loaded or outside it.
    #[inline]
    fn load(&self, c: &mut Column, b: i64) {
        let k = b - c.b0;
        if k < 0 || k as usize >= c.loaded.len() || c.loaded[k as usize] {
            return;
        }
        c.loaded[k as usize] = true;
        let (lo, hi) = ((b * self.bs - 1).max(c.q0), (b * self.bs + self.bs).min(c.q1));
        if lo > hi {
            return;
        }
        let (i, j) = self.quad.sample(c.p, lo);
        let (s, e) = ((lo - c.q0) as usize, (hi - c.q0) as usize + 1);
        self.run.sight.lowered_into(i, j, self.rows, &mut c.z[s..e]);
        let (inv, oq, zo) = (c.inv_d, self.oq, self.zo);
        for (k, (uv, &z)) in c.uv[s..e].iter_mut().zip(&c.z[s..e]).enumerate() {
            *uv = (((lo + k as i64) as f64 - oq) * inv, (z - zo) * inv);
        }
    }

    /// Loads every block of column `c`.
    fn load_all(&self, c: &mut Column) {
        for k in 0..c.loaded.len() as i64 {
            self.load(c, c.b0 + k);
        }
    }

    /// The targets of column `c` with their lateral range: (first q, last q).
    fn targets(&self, c: &Column) -> (i64, i64) {
        let d = c.d;
        let lo = -floor(-(self.oq + self.sector.u_lo.max(-1.0) * d));
        let hi = floor(self.oq + self.sector.u_hi.min(1.0) * d);
        (lo.max(self.qmin).max(c.q0), hi.min(self.qmax).min(c.q1()))
    }

    /// Whether lateral q of column c is a target of this sector (u its projection).
    #[inline(always)]
    fn owns(&self, d: f64, l: f64, u: f64) -> bool {
        let inside = if self.quad.owns_diagonals() { l.abs() <= d } else { l.abs() < d };
        inside && self.sector.holds(u)
    }

    /// The first column (d ≤ 1): its targets go to the exact walk.
    fn first_column(&self, c: &Column) {
        let (qa, qb) = self.targets(c);
        for q in qa..=qb {
            let l = q as f64 - self.oq;
            if !self.owns(c.d, l, l * c.inv_d) {
                continue;
            }
            if let Some(t) = self.target_of(c, q) {
                self.sink.target(self.run, t, None);
            }
        }
    }

    /// Lateral q of column `c` as a target, if it is one (not a hole, within the limits).
    #[inline(always)]
    fn target_of(&self, c: &Column, q: i64) -> Option<Target> {
        let run = self.run;
        let zp = c.z(q) + run.params.target_height;
        if zp.is_nan() {
            return None;
        }
        let (i, j) = self.quad.sample(c.p, q);
        if self.limits && !run.is_target(i, j, zp) {
            return None;
        }
        let vp = (zp - self.zo) * c.inv_d;
        Some(Target { i, j, zp, d: c.d, vp })
    }

    /// The horizon's lower bound over each block of `far` (`floors`): over the u-range of the
    /// block's targets and of the cells of the strip from `near` there (the block's laterals
    /// b·bs..=(b + 1)·bs on both columns); and whether the block is `quiet`: its samples on both
    /// columns, by their height bounds, more than the band under that bound. A quiet block's
    /// targets are hidden and its strip cells under the horizon, known before loading it.
    ///
    /// A block whose bound inherited from the column before (`Past::bound`) already makes it quiet
    /// keeps that bound without reading the horizon; the others read it (`Cursor::lowest`), as
    /// before. Any lower bound of the horizon makes a quiet block's verdicts certain, so the
    /// answers do not depend on which bound decided it (debug builds check that the inherited one
    /// is a lower bound, to the band).
    fn floors(&self, near: &Column, far: &Column, horizon: &Envelope, floors: &mut Floors) {
        let Floors { at: floors, quiet, past, now } = floors;
        std::mem::swap(past, now);
        now.blocks.clear();
        now.b0 = far.b0;
        floors.clear();
        quiet.clear();
        let mut cursor = horizon.cursor();
        // The band of `at_least` for any target of the column, twice.
        let band = 2.0 * TOUCH * (1.0 + self.zo.abs() + self.zabs) * far.inv_d;
        for (k, &zf) in far.zhi.iter().enumerate() {
            let b = far.b0 + k as i64;
            let (l0, l1) = ((b * self.bs) as f64 - self.oq, ((b + 1) * self.bs) as f64 - self.oq);
            let lo = (l0 * near.inv_d).min(l0 * far.inv_d);
            let hi = (l1 * near.inv_d).max(l1 * far.inv_d);
            let kn = b - near.b0;
            let vn = if kn >= 0 && (kn as usize) < near.zhi.len() {
                (near.zhi[kn as usize] - self.zo) * near.inv_d
            } else {
                f64::NEG_INFINITY
            };
            let vf = (zf + self.t - self.zo) * far.inv_d;
            let top = vn.max(vf) + band;
            let kept = past.bound(b, lo, hi);
            #[cfg(debug_assertions)]
            {
                let least = horizon.least(lo, hi);
                // Both are read off pieces to rounding, which the band covers (a piece off a
                // 1e21 m spike is read to ±1e5 near its foot).
                assert!(kept <= least + band, "inherited {kept} above the horizon {least} (band {band})");
            }
            let floor = if kept > top { kept } else { cursor.lowest(lo, hi) };
            floors.push(floor);
            quiet.push(floor > top);
            now.blocks.push((lo, hi, floor));
        }
    }

    /// The targets of column `far` against the horizon (everything up to `near`, its edges
    /// included) and the cell diagonal of the last strip. A target far enough under the block's
    /// lower bound (`floors`) is decided without either; a quiet block's without loading it.
    fn column(&self, near: &mut Column, far: &mut Column, horizon: &Envelope, floors: &[f64], quiet: &[bool]) {
        let (qa, qb) = self.targets(far);
        let mut cursor = horizon.cursor();
        let diag = self.run.sight.hf.diagonal();
        let zo = self.zo;
        let culls = self.sink.culls();
        let mut qs = qa;
        while qs <= qb {
            let b = qs.div_euclid(self.bs);
            let k = (b - far.b0) as usize;
            let qe = qb.min((b + 1) * self.bs - 1);
            if culls && quiet[k] {
                if !self.sink.prefilled() {
                    self.hidden(far, qs, qe);
                }
                qs = qe + 1;
                continue;
            }
            self.load(near, b);
            self.load(far, b);
            let floor = floors[k];
            for q in qs..=qe {
                let (u, _) = far.uv(q);
                let l = q as f64 - self.oq;
                if !self.owns(far.d, l, u) {
                    continue;
                }
                let Some(t) = self.target_of(far, q) else {
                    continue;
                };
                // A target at or above the floor is not decided by it (the verdict "hidden" needs
                // the floor above the target's slope): the common case of a visible target.
                if floor > t.vp && self.sink.at_least(self.run, t, floor) {
                    continue;
                }
                let h = cursor.at(u);
                // The last strip: the sight line crosses one cell, (near, q − 1) when it comes from
                // below (u > 0), (near, q) from above; and that cell's diagonal when it does not end
                // at the target. (Where it enters the strip, on the near column, is in the horizon.)
                let d = if u > 0.0 && self.quad.anti(diag, near.p, q - 1) {
                    // Diagonal (far, q − 1)–(near, q): crossed t = 1/(1 + u) steps back from the target.
                    let t = 1.0 / (1.0 + u);
                    (far.w(q - 1, zo) * (1.0 - t) + near.w(q, zo) * t) / (far.d - t)
                } else if u < 0.0 && !self.quad.anti(diag, near.p, q) {
                    // Diagonal (near, q)–(far, q + 1).
                    let t = 1.0 / (1.0 - u);
                    (far.w(q + 1, zo) * (1.0 - t) + near.w(q, zo) * t) / (far.d - t)
                } else {
                    f64::NEG_INFINITY
                };
                let h =
                    if self.holes && (d.is_nan() || self.hole_near(near, far, q, u)) { None } else { Some(h.max(d)) };
                self.sink.target(self.run, t, h);
            }
            qs = qe + 1;
        }
    }

    /// Reports the targets of column `c` at laterals qa..=qb hidden, without loading them.
    fn hidden(&self, c: &Column, qa: i64, qb: i64) {
        let run = self.run;
        for q in qa..=qb {
            let l = q as f64 - self.oq;
            if !self.owns(c.d, l, l * c.inv_d) {
                continue;
            }
            let (i, j) = self.quad.sample(c.p, q);
            let zp = run.sight.lowered(i, j) + self.t;
            if zp.is_nan() || (self.limits && !run.is_target(i, j, zp)) {
                continue;
            }
            self.sink.hidden(run, i, j);
        }
    }

    /// Whether a cell of the last strip next to lateral q of `far` (or a sample at its corners) is
    /// a hole.
    fn hole_near(&self, near: &Column, far: &Column, q: i64, u: f64) -> bool {
        let hf = self.run.sight.hf;
        let (lo, hi) = if u > 0.0 {
            (q - 1, q)
        } else if u < 0.0 {
            (q, q + 1)
        } else {
            (q - 1, q + 1)
        };
        for k in lo.max(self.qmin)..hi.min(self.qmax) {
            let (i, j) = self.quad.cell(near.p, k);
            if hf.is_cell_masked(i, j) || [near.z(k), near.z(k + 1), far.z(k), far.z(k + 1)].iter().any(|z| z.is_nan())
            {
                return true;
            }
        }
        false
    }

    /// Triangle existence of the cell of the strip from `a` to `b` at lateral q: (T1, T2), T1
    /// holding the cell's row edge at q, T2 the one at q + 1 (see `merge`).
    #[inline(always)]
    fn triangles(&self, a: &Column, b: &Column, q: i64, anti: bool) -> (bool, bool) {
        if !self.holes {
            return (true, true);
        }
        if !(a.has(q) && a.has(q + 1) && b.has(q) && b.has(q + 1)) {
            return (false, false);
        }
        let (i, j) = self.quad.cell(a.p, q);
        if self.run.sight.hf.is_cell_masked(i, j) {
            return (false, false);
        }
        let ok = |c: &Column, q: i64| !c.z(q).is_nan();
        let (a0, a1, b0, b1) = (ok(a, q), ok(a, q + 1), ok(b, q), ok(b, q + 1));
        if anti {
            (a0 && b0 && a1, b0 && b1 && a1)
        } else {
            (a0 && b0 && b1, a0 && b1 && a1)
        }
    }

    /// Whether the far column's edge at lateral q exists: one of its triangles does, in this strip
    /// (`this`, the cell's triangles) or the next (that cell's near triangle).
    #[inline(always)]
    fn far_edge(&self, far: &Column, next: &Column, q: i64, this: (bool, bool), anti: bool) -> bool {
        if !self.holes || if anti { this.1 } else { this.0 } {
            return true;
        }
        if !(next.has(q) && next.has(q + 1)) {
            return false;
        }
        let after = self.quad.anti(self.run.sight.hf.diagonal(), far.p, q);
        let (t1, t2) = self.triangles(far, next, q, after);
        if after {
            t1
        } else {
            t2
        }
    }

    /// Merges the strip between `near` and `far` into the horizon: its row edges, diagonals and
    /// the edges along `far`. The strip holding the eye (`first`) is clipped to the wedge |l| ≤ d
    /// (the edges along `near`, at d ≤ 0, are outside it).
    ///
    /// In the cell's local frame (x along the sweep, y lateral) a main-diagonal cell is split into
    /// T1 = (0,0)(1,0)(1,1) and T2 = (0,0)(1,1)(0,1); an anti-diagonal one into T1 = (0,0)(1,0)(0,1)
    /// and T2 = (1,0)(1,1)(0,1). An edge counts while one of its triangles exists. Two kinds of
    /// edges are skipped, being below the horizon all along: an edge with one of its triangles on
    /// its upper side in the projection (that triangle's other edges cover it), and one under the
    /// horizon all along (checked at its ends and the horizon's breaks between), the latter a
    /// block of cells at a time where all their corners are under the block's lower bound
    /// (`floors`). The edges along `far` are not scanned against the horizon: on terrain that is
    /// seen they rise above it and are nearly all of the strip's envelope, and raising the horizon
    /// compares them with it anyway (leaving one in is never wrong, only work). The rest are
    /// gathered into the strip's envelope, and the horizon is raised to it.
    #[allow(clippy::too_many_arguments)]
    fn merge(
        &self,
        near: &mut Column,
        far: &mut Column,
        next: &mut Column,
        horizon: &mut Envelope,
        strip: &mut Envelope,
        floors: &[f64],
        quiet: &[bool],
        first: bool,
    ) {
        let diag = self.run.sight.hf.diagonal();
        let qa = near.q0.max(far.q0);
        let qb = near.q1().min(far.q1()) - 1;
        if qa > qb {
            return;
        }
        strip.clear();
        let mut g = Gather { m: strip.merge(), cursor: horizon.cursor(), floor: f64::NEG_INFINITY };
        let zo = self.zo;
        let point = |c: &Column, q: i64| [c.d, q as f64 - self.oq, c.w(q, zo)];
        // Cell q − 1's triangle T2 (holding the row edge at q) with its third vertex.
        let mut prev: Option<(f64, f64)> = None;
        // Cells before this one lie under the horizon.
        let mut skip_to = qa;
        // The first lateral of the next block (of this one at first).
        let mut next_block = qa;
        for q in qa..=qb {
            if q < skip_to {
                continue;
            }
            if !first && q == next_block {
                let b = q.div_euclid(self.bs);
                let k = (b - far.b0) as usize;
                next_block = (b + 1) * self.bs;
                let end = next_block.min(qb + 1);
                if quiet[k] {
                    skip_to = end;
                    prev = None;
                    continue;
                }
                self.load(near, b);
                self.load(far, b);
                if self.holes {
                    self.load(next, b);
                }
                // Plain comparisons (as `max` here, NaN included): no NaN handling to pay.
                let top = (q..=end).fold(f64::NEG_INFINITY, |m, k| {
                    let (a, b) = (near.uv(k).1, far.uv(k).1);
                    let m = if a > m { a } else { m };
                    if b > m {
                        b
                    } else {
                        m
                    }
                });
                if top < floors[k] {
                    // Every edge of these cells (the row edge at `end` too) is under the horizon.
                    skip_to = end;
                    prev = None;
                    continue;
                }
                g.floor = floors[k];
            }
            let anti = self.quad.anti(diag, near.p, q);
            let (t1, t2) = self.triangles(near, far, q, anti);
            let far_edge = self.far_edge(far, next, q, (t1, t2), anti);
            if first {
                let mut edge = |e0: [f64; 3], e1: [f64; 3]| {
                    if let Some((ua, va, ub, vb)) = clip_project(e0, e1) {
                        g.m.insert(ua, va, ub, vb);
                    }
                };
                let (a0, a1, b0, b1) = (point(near, q), point(near, q + 1), point(far, q), point(far, q + 1));
                if t1 || prev.is_some() {
                    edge(a0, b0);
                }
                if t1 || t2 {
                    if anti {
                        edge(b0, a1);
                    } else {
                        edge(a0, b1);
                    }
                }
                if far_edge {
                    edge(b0, b1);
                }
                if q == qb && t2 {
                    edge(a1, b1);
                }
                prev = t2.then_some((0.0, 0.0));
                continue;
            }
            let (a0, a1, b0, b1) = (near.uv(q), near.uv(q + 1), far.uv(q), far.uv(q + 1));
            // Each edge with the vertex opposite it in each of its (existing) triangles.
            if anti {
                // T1 = (a0, b0, a1), T2 = (b0, b1, a1).
                if t1 || prev.is_some() {
                    g.edge(a0, b0, t1.then_some(a1), prev);
                }
                if t1 || t2 {
                    g.edge(b0, a1, t1.then_some(a0), t2.then_some(b1));
                }
                if far_edge {
                    g.far(b0, b1, t2.then_some(a1));
                }
                prev = t2.then_some(b0);
            } else {
                // T1 = (a0, b0, b1), T2 = (a0, b1, a1).
                if t1 || prev.is_some() {
                    g.edge(a0, b0, t1.then_some(b1), prev);
                }
                if t1 || t2 {
                    g.edge(a0, b1, t1.then_some(b0), t2.then_some(a1));
                }
                if far_edge {
                    g.far(b0, b1, t1.then_some(a0));
                }
                prev = t2.then_some(a0);
            }
        }
        // The row edge at qb + 1 (top of the last cell).
        if !first && prev.is_some() {
            g.edge(near.uv(qb + 1), far.uv(qb + 1), prev, None);
        }
        drop(g);
        horizon.raise(strip);
    }
}

/// The edges of a strip that may show above the horizon, gathered into the strip's envelope.
struct Gather<'a> {
    m: Merge<'a>,
    cursor: Cursor<'a>,
    /// The horizon's lower bound over the block of cells being gathered.
    floor: f64,
}

impl Gather<'_> {
    /// The edge from p0 to p1, with the third vertex of each of its triangles. Skipped when a
    /// triangle lies on its upper side in the projection (that triangle's other edges cover it)
    /// or when the horizon is at or above it all along (at once when the edge lies under the block's
    /// lower bound).
    #[inline(always)]
    fn edge(&mut self, p0: (f64, f64), p1: (f64, f64), c0: Option<(f64, f64)>, c1: Option<(f64, f64)>) {
        if c0.is_some_and(|c| above(p0, p1, c)) || c1.is_some_and(|c| above(p0, p1, c)) {
            return;
        }
        if p0.1.max(p1.1) < self.floor || self.cursor.covers(p0.0, p0.1, p1.0, p1.1) {
            return;
        }
        self.m.insert(p0.0, p0.1, p1.0, p1.1);
    }

    /// An edge along the far column, from p0 to p1: as `edge`, but not scanned against the
    /// horizon (most of them rise above it; raising the horizon compares them with it anyway).
    #[inline(always)]
    fn far(&mut self, p0: (f64, f64), p1: (f64, f64), c: Option<(f64, f64)>) {
        if c.is_some_and(|c| above(p0, p1, c)) || p0.1.max(p1.1) < self.floor {
            return;
        }
        self.m.insert(p0.0, p0.1, p1.0, p1.1);
    }
}

/// Whether projected point c is strictly above the line through p0 and p1 (not a vertical line).
/// Strictly: the three edges of a triangle that projects to a segment would each be "covered" by
/// the other two.
#[inline(always)]
fn above(p0: (f64, f64), p1: (f64, f64), c: (f64, f64)) -> bool {
    let du = p1.0 - p0.0;
    // c left of p0 → p1 when the cross product is positive: above when p1 is to the right.
    let cross = du * (c.1 - p0.1) - (p1.1 - p0.1) * (c.0 - p0.0);
    (du > 0.0 && cross > 0.0) || (du < 0.0 && cross < 0.0)
}

/// The part of the edge from e0 to e1 (each (d, l, w)) inside the wedge |l| ≤ d, projected to
/// (u, v) at both ends; `None` when it misses the wedge or meets it only at the eye. An edge
/// through the eye is radial: it projects to one point, its far end (its slope from the eye grows
/// towards that end, since the eye is not below the ground).
fn clip_project(e0: [f64; 3], e1: [f64; 3]) -> Option<(f64, f64, f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for sign in [1.0, -1.0] {
        // Inside where g(t) = sign·l(t) − d(t) ≤ 0.
        let (g0, g1) = (sign * e0[1] - e0[0], sign * e1[1] - e1[0]);
        if g0 > 0.0 && g1 > 0.0 {
            return None;
        }
        if g0 > 0.0 {
            t0 = t0.max(g0 / (g0 - g1));
        } else if g1 > 0.0 {
            t1 = t1.min(g0 / (g0 - g1));
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| {
        if t <= 0.0 {
            e0
        } else if t >= 1.0 {
            e1
        } else {
            [e0[0] + t * (e1[0] - e0[0]), e0[1] + t * (e1[1] - e0[1]), e0[2] + t * (e1[2] - e0[2])]
        }
    };
    let (a, b) = (at(t0), at(t1));
    let radial = e0[0] * e1[1] - e0[1] * e1[0] == 0.0;
    if radial || a[0] <= 0.0 || b[0] <= 0.0 {
        let far = if a[0] >= b[0] { a } else { b };
        if far[0] <= 0.0 {
            return None;
        }
        let (u, v) = (far[1] / far[0], far[2] / far[0]);
        return Some((u, v, u, v));
    }
    Some((a[1] / a[0], a[2] / a[0], b[1] / b[0], b[2] / b[0]))
}
