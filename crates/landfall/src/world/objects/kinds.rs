//! What grows and stands in the world: kinds of objects, each living on the level whose cells are
//! a few times its size, and how a cell places its own from its random stream (the thesis' 2.4.2).

use super::shape::Shape;
use crate::params::{length, right_angle, ParamError};
use crate::place::{place_slope, Contacts, FollowParams};
use crate::rng::{mix, SplitMix64};
use crate::terrain::Terrain;
use crate::world::Cell;
use glam::DVec3;

/// The collision shape a kind gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A ball, a bit sunk into the ground.
    Ball,
    /// A trunk: a column from below the ground up to the height.
    Trunk,
    /// A building: a box on the ground, its base carried below the slope.
    Building,
}

/// A kind of object.
#[derive(Clone, Debug, PartialEq)]
pub struct Kind {
    /// Its name.
    pub name: &'static str,
    /// The form of its collision shape.
    pub form: Form,
    /// Range of its size across (diameter; for trunks the crown's, which sets its level), metres.
    pub size: (f64, f64),
    /// Range of its height (buildings, trunks), metres; balls are as high as wide.
    pub height: (f64, f64),
    /// Trunk radius as a fraction of the size (trunks only).
    pub trunk: f64,
    /// Mean number per cell of its level on ground that suits it.
    pub per_cell: f64,
    /// Steepest ground it stands on, radians (the footprint's plane, from the placement of
    /// `follow`).
    pub max_slope: f64,
    /// The ground heights it lives between, as fractions of the world's largest height (none
    /// elsewhere: trees below the tree line, houses off the peaks).
    pub heights: (f64, f64),
    /// How its density follows the cell's roughness r (log2 of the terrain's offset scale): a
    /// factor `1 + rough·r`, kept within [0.1, 3].
    pub rough: f64,
}

impl Kind {
    /// The most objects per cell [`validate`](Self::validate) accepts in
    /// [`per_cell`](Self::per_cell) (each cell's objects are made at once).
    pub const MAX_PER_CELL: f64 = 1000.0;

    /// Checks every field: `size` finite with 0 < low ≤ high; `height` finite with 0 ≤ low ≤
    /// high; `trunk` finite and ≥ 0; `per_cell` in [0, [`MAX_PER_CELL`](Self::MAX_PER_CELL)];
    /// `max_slope` in [0, π/2]; `heights` low ≤ high (either may be infinite); `rough` finite.
    ///
    /// ```
    /// use landfall::world::default_kinds;
    ///
    /// let mut stone = default_kinds()[0].clone();
    /// assert!(stone.validate().is_ok());
    /// stone.size = (0.4, 0.1);
    /// assert_eq!(stone.validate().unwrap_err().field, "size");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        range("size", self.size, true)?;
        range("height", self.height, false)?;
        length("trunk", self.trunk, false)?;
        if !(0.0..=Self::MAX_PER_CELL).contains(&self.per_cell) {
            let why = format!("{} is not a mean count in [0, {}]", self.per_cell, Self::MAX_PER_CELL);
            return Err(ParamError::new("per_cell", why));
        }
        right_angle("max_slope", self.max_slope)?;
        let (lo, hi) = self.heights;
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return Err(ParamError::new("heights", format!("({lo}, {hi}) is not a range low ≤ high")));
        }
        if !self.rough.is_finite() {
            return Err(ParamError::new("rough", format!("{} is not finite", self.rough)));
        }
        Ok(())
    }

    /// The factor on `per_cell` for a cell of height `h` and roughness `r` in a world whose
    /// heights stay within ±`max_height`.
    pub fn suits(&self, h: f64, r: f64, max_height: f64) -> f64 {
        let f = h / max_height.max(1e-9);
        if f < self.heights.0 || f > self.heights.1 {
            return 0.0;
        }
        (1.0 + self.rough * r).clamp(0.1, 3.0)
    }

    /// The level a kind lives on: the finest whose cells are at least four times its largest size.
    pub fn level(&self, cell_size: f64) -> u8 {
        (4.0 * self.size.1 / cell_size).log2().ceil().clamp(0.0, 40.0) as u8
    }
}

/// `(low, high)` finite lengths with low ≤ high (low > 0 when `positive`).
fn range(field: &'static str, (lo, hi): (f64, f64), positive: bool) -> Result<(), ParamError> {
    if length(field, lo, positive).is_ok() && hi.is_finite() && lo <= hi {
        return Ok(());
    }
    let bound = if positive { "0 < low" } else { "0 ≤ low" };
    Err(ParamError::new(field, format!("({lo}, {hi}) is not a finite range {bound} ≤ high")))
}

/// The default kinds, from 0.1 m stones to 100 m halls: stones and boulders everywhere, more on
/// rough ground; trees below the tree line (45 % of the largest height); houses and halls on gentle
/// ground below 30 % and 20 % of it.
pub fn default_kinds() -> Vec<Kind> {
    let deg = |d: f64| d.to_radians();
    vec![
        Kind {
            name: "stone",
            form: Form::Ball,
            size: (0.1, 0.4),
            height: (0.0, 0.0),
            trunk: 0.0,
            per_cell: 0.5,
            max_slope: deg(40.0),
            heights: (f64::NEG_INFINITY, f64::INFINITY),
            rough: 1.0,
        },
        Kind {
            name: "tree",
            form: Form::Trunk,
            size: (2.0, 4.0),
            height: (6.0, 16.0),
            trunk: 0.08,
            per_cell: 0.8,
            max_slope: deg(30.0),
            heights: (f64::NEG_INFINITY, 0.45),
            rough: 0.0,
        },
        Kind {
            name: "boulder",
            form: Form::Ball,
            size: (1.0, 5.0),
            height: (0.0, 0.0),
            trunk: 0.0,
            per_cell: 0.25,
            max_slope: deg(45.0),
            heights: (f64::NEG_INFINITY, f64::INFINITY),
            rough: 1.5,
        },
        Kind {
            name: "house",
            form: Form::Building,
            size: (8.0, 25.0),
            height: (5.0, 10.0),
            trunk: 0.0,
            per_cell: 0.15,
            max_slope: deg(12.0),
            heights: (f64::NEG_INFINITY, 0.3),
            rough: 0.0,
        },
        Kind {
            name: "hall",
            form: Form::Building,
            size: (40.0, 100.0),
            height: (15.0, 40.0),
            trunk: 0.0,
            per_cell: 0.08,
            max_slope: deg(8.0),
            heights: (f64::NEG_INFINITY, 0.2),
            rough: 0.0,
        },
    ]
}

/// The random stream of kind `kind` in cell (i, j) of `level`: hashed from (seed, level, i, j),
/// branched away from the terrain's (whose keys never carry this tag).
pub fn cell_stream(seed: u64, level: u8, i: i64, j: i64, kind: usize) -> SplitMix64 {
    const OBJECTS: u64 = 0x6f62_6a65_6374_7321;
    let k = mix(mix(mix(seed ^ OBJECTS) ^ level as u64) ^ i as u64);
    SplitMix64::new(mix(mix(k ^ j as u64) ^ kind as u64))
}

/// One object as its cell's stream draws it, before it is set on the ground.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Draw {
    /// Where it stands in x and y.
    pub x: f64,
    pub y: f64,
    heading: f64,
    /// Its size across.
    pub size: f64,
    height: f64,
}

impl Draw {
    /// How far from (x, y) its placement looks at the ground: its three contacts lie within
    /// √½ of its size, a building's corners within 0.61.
    pub fn reach(&self) -> f64 {
        0.75 * self.size
    }
}

/// The objects kind `kind` draws in cell (i, j) of its level (width `s`) from the cell's own
/// stream, with the cell's own values `cell` setting the density: `each` gets them in order.
/// Deterministic: the same cell gives the same draws whatever came before.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_in_cell(
    spec: &Kind,
    kind: usize,
    seed: u64,
    level: u8,
    (i, j): (i64, i64),
    s: f64,
    cell: Cell,
    max_height: f64,
    mut each: impl FnMut(Draw),
) {
    let mut rng = cell_stream(seed, level, i, j, kind);
    let mean = spec.per_cell * spec.suits(cell.h as f64, cell.r as f64, max_height);
    let n = mean.floor() as usize + usize::from(rng.uniform() < mean.fract());
    for _ in 0..n {
        let (x, y) = ((i as f64 + rng.uniform()) * s, (j as f64 + rng.uniform()) * s);
        let heading = rng.range(0.0, std::f64::consts::TAU);
        let size = rng.range(spec.size.0, spec.size.1);
        let height = rng.range(spec.height.0, spec.height.1);
        each(Draw { x, y, heading, size, height });
    }
}

/// The slope under object `d` of kind `spec` placed by [`place`](crate::place()) on `own` from
/// above every possible ground (`max_height`), or `None` where its kind may not stand there.
pub(crate) fn slope_on<T: Terrain + ?Sized>(spec: &Kind, d: &Draw, own: &T, max_height: f64) -> Option<f64> {
    let params = FollowParams {
        length: d.size,
        width: d.size,
        contacts: Contacts::ThreePoints,
        max_slope: spec.max_slope,
        probe_up: 0.0,
    };
    // From above every possible ground: the only surface below.
    place_slope(own, DVec3::new(d.x, d.y, max_height + 1.0), d.heading, &params).ok()
}

/// The shape of object `d` of kind `spec` allowed on ground of `slope` ([`slope_on`]), standing
/// on `ground`: the ground right under it (the placement's plane says only whether it may stand).
pub(crate) fn shape_on<U: Terrain + ?Sized>(spec: &Kind, d: &Draw, slope: f64, ground: &U) -> Option<Shape> {
    let Draw { x, y, heading, size, height } = *d;
    // The ground's height alone (the nearest surface below the highest point: the only one).
    let g = ground.floor_point_below(DVec3::new(x, y, f64::MAX))?;
    // Carry a footprint's base below the sloping ground on its low side.
    let skirt = 0.5 * size * slope.tan() + 0.05 * size;
    Some(match spec.form {
        Form::Ball => {
            let r = 0.5 * size;
            Shape::Sphere { c: g + DVec3::Z * (0.6 * r), r }
        }
        Form::Trunk => {
            let r = spec.trunk * size;
            Shape::Column { a: g - DVec3::Z * skirt.max(r), b: g + DVec3::Z * height, r }
        }
        Form::Building => {
            // Its base below the ground at every corner of the footprint, its roof `height`
            // above the ground at its centre.
            let half = DVec3::new(0.5 * size, 0.35 * size, 0.0);
            let (sn, cs) = heading.sin_cos();
            let lowest = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].iter().fold(g.z, |m, &(dx, dy)| {
                let (lx, ly) = (dx * half.x, dy * half.y);
                let q = DVec3::new(x + lx * cs - ly * sn, y + lx * sn + ly * cs, f64::MAX);
                ground.floor_point_below(q).map_or(m, |s| m.min(s.z))
            });
            let (base, roof) = (lowest - 0.1, g.z + height);
            let c = DVec3::new(g.x, g.y, 0.5 * (base + roof));
            Shape::Box { c, half: DVec3::new(half.x, half.y, 0.5 * (roof - base)), yaw: heading }
        }
    })
}
