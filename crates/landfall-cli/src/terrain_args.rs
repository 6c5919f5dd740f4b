//! The options every terrain-reading command shares, and loading the terrain with them.

use anyhow::{bail, Context, Result};
use clap::Args;
use landfall::glam::DVec3;
use landfall::{CutRule, Diagonal, Frame, PolygonTerrain};
use landfall::{PolygonSoup, QuadtreeParams};
use landfall_io::{load_heightfield, Limits, LoadOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Default `--max-polygons`.
pub const DEFAULT_MAX_POLYGONS: u64 = 4_000_000;

/// The `--help` heading of the options that place a terrain in the world (after a command's own).
pub const TERRAIN_PLACEMENT: &str = "Terrain placement";
/// The `--help` heading of the acceleration and resource options (after the placement options).
pub const TERRAIN_TUNING: &str = "Terrain tuning";

/// A terrain file and how to place it in the world.
#[derive(Args, Debug, Clone)]
pub struct TerrainArgs {
    /// Terrain file: a raster (.tif/.tiff GeoTIFF, .asc ESRI ASCII grid, .png 8/16-bit grey, .npy,
    /// .npz), a polygon mesh (.obj, .gltf, .glb) or a polygon index file written by `landfall build`.
    #[arg(value_name = "TERRAIN")]
    pub path: PathBuf,
    /// Sample spacing in world units, `DX` or `DX,DY` [default: from the file, else 1].
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "DX[,DY]", allow_hyphen_values = true)]
    pub spacing: Option<String>,
    /// World X,Y of the south-west sample (negative values welcome, e.g. `--origin -500,-20`)
    /// [default: from the file, else 0,0].
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "X,Y", allow_hyphen_values = true)]
    pub origin: Option<String>,
    /// Height scale: a sample value v becomes z = v·S + O.
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "S", default_value_t = 1.0, allow_hyphen_values = true)]
    pub z_scale: f64,
    /// Height offset: a sample value v becomes z = v·S + O.
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "O", default_value_t = 0.0, allow_hyphen_values = true)]
    pub z_offset: f64,
    /// How each grid cell is split into two triangles: `alternating` (by (i+j) parity),
    /// `sw-ne` (diagonal from the south-west to the north-east corner) or `se-nw`.
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "D", default_value = "alternating")]
    pub diagonal: Diagonal,
    /// Gravity direction GX,GY,GZ for vertical queries [default: 0,0,-1]. With any other gravity
    /// `height` needs `x,y,z` input and answers the surface along the gravity line.
    #[arg(help_heading = TERRAIN_PLACEMENT, long, value_name = "GX,GY,GZ", allow_hyphen_values = true)]
    pub gravity: Option<String>,
    /// Min/max pyramid leaf size in cells (rasters: acceleration structure tuning).
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "CELLS", default_value_t = landfall::support::DEFAULT_LEAF_SIZE)]
    pub leaf_size: usize,
    /// Polygon quadtree: a leaf holding more polygons than this is split (QOTA's Maxpoly).
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "N", default_value_t = QuadtreeParams::default().max_polys)]
    pub max_polys: usize,
    /// Polygon quadtree: deepest level, the root being 0 (QOTA's Maxdepth).
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "N", default_value_t = QuadtreeParams::default().max_depth)]
    pub max_depth: usize,
    /// Polygon quadtree cut lines: `halves` (QOTA's equal quadrants) or `vertices` (through the
    /// polygon vertex nearest the middle).
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "RULE", default_value = "halves", value_parser = parse_cuts)]
    pub cuts: CutRule,
    /// Largest raster accepted, in samples (columns × rows); a file that declares more is refused
    /// before anything is read, since its heights alone would take 4 bytes a sample. For `build`
    /// to a heightfield index (`.lfh`): the most samples the index stores (each of its 256-cell
    /// tiles with data stores 257², tiles without data nothing), checked before anything is written.
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "N", default_value_t = landfall_io::DEFAULT_MAX_SAMPLES)]
    pub max_samples: u64,
    /// Largest polygon terrain built, in polygons (a mesh's faces, or a raster's triangles for
    /// `build`): building the quadtree takes up to about 1.5 KB a polygon (random heights; smooth
    /// terrain far less), so the default keeps a build within a few GB.
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "N", default_value_t = DEFAULT_MAX_POLYGONS)]
    pub max_polygons: u64,
    /// Polygon quadtree: split only when it saves at least this many containment tests per query
    /// times the polygon count (0 = QOTA's rule: split every leaf over --max-polys).
    #[arg(help_heading = TERRAIN_TUNING, long, value_name = "G", default_value_t = QuadtreeParams::default().min_gain)]
    pub min_gain: f64,
}

fn parse_cuts(s: &str) -> Result<CutRule, String> {
    match s {
        "halves" => Ok(CutRule::Halves),
        "vertices" => Ok(CutRule::Vertices),
        _ => Err(format!("'{s}': expected halves or vertices")),
    }
}

pub use landfall_io::{AnyTerrain, Source};

/// A loaded terrain and what loading it cost.
pub struct LoadedTerrain {
    pub terrain: AnyTerrain,
    /// Loader notes (approximations made, polygons skipped).
    pub notes: Vec<String>,
    pub load_time: Duration,
    /// Where it came from.
    pub source: Source,
    /// The coordinate reference system of a GeoTIFF (or of the GeoTIFF an index was built from).
    pub geokeys: Option<landfall_io::GeoKeys>,
}

impl LoadedTerrain {
    /// Prints the loader's notes on standard error.
    pub fn warn_notes(&self, path: &std::path::Path) {
        for n in &self.notes {
            eprintln!("landfall: note: {}: {n}", path.display());
        }
    }
}

pub(crate) fn numbers<const N: usize>(opt: &str, text: &str) -> Result<[f64; N]> {
    let v: Vec<f64> = text
        .split(',')
        .map(|s| s.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .with_context(|| format!("--{opt}: '{text}' is not a list of finite numbers"))?;
    v.try_into()
        .map_err(|v: Vec<f64>| anyhow::anyhow!("--{opt}: expected {N} comma-separated numbers, got {}", v.len()))
}

impl TerrainArgs {
    /// The gravity frame the options ask for.
    pub fn frame(&self) -> Result<Frame> {
        match &self.gravity {
            None => Ok(Frame::z_up()),
            Some(g) => {
                let [x, y, z] = numbers::<3>("gravity", g)?;
                Frame::from_gravity(DVec3::new(x, y, z)).map_err(|e| anyhow::anyhow!("--gravity: {e}"))
            }
        }
    }

    /// What a file may make the readers allocate.
    pub fn limits(&self) -> Limits {
        Limits { max_samples: self.max_samples }
    }

    /// The polygon quadtree parameters the options ask for.
    pub fn quadtree_params(&self) -> Result<QuadtreeParams> {
        let p = QuadtreeParams::default()
            .with_max_polys(self.max_polys)
            .with_max_depth(self.max_depth)
            .with_cuts(self.cuts)
            .with_min_gain(self.min_gain);
        // The library's rules; the option is the field's name.
        p.validate().map_err(|e| anyhow::anyhow!("--{}: {}", e.field.replace('_', "-"), e.why))?;
        Ok(p)
    }

    /// Loads the terrain (raster, mesh or index file) with the placement options applied.
    pub fn load(&self) -> Result<LoadedTerrain> {
        let start = Instant::now();
        let opened = self.open()?;
        Ok(LoadedTerrain {
            terrain: opened.terrain,
            notes: opened.notes,
            load_time: start.elapsed(),
            source: opened.source,
            geokeys: opened.geokeys,
        })
    }

    /// An error naming the file when it is an index that changed in place while the command read
    /// it: the answers since are void (`docs/robustness.md`, mapped files).
    pub fn unchanged(&self) -> Result<()> {
        Ok(landfall_io::check_mapped(&self.path)?)
    }

    /// Opens the terrain through landfall-io's `open_terrain`, option errors named as options.
    fn open(&self) -> Result<landfall_io::OpenedTerrain> {
        // Before the kind is guessed from the name or the content: a missing file is reported as
        // missing, not as an unknown kind of file.
        let meta = std::fs::metadata(&self.path).with_context(|| format!("{}", self.path.display()))?;
        if meta.is_dir() {
            bail!("{}: is a directory, not a terrain file", self.path.display());
        }
        let opts = landfall_io::TerrainOptions {
            raster: self.load_options()?,
            frame: if self.gravity.is_some() { Some(self.frame()?) } else { None },
            quadtree: self.quadtree_params()?,
            max_polygons: self.max_polygons,
        };
        landfall_io::open_terrain(&self.path, &opts).map_err(|e| match e {
            landfall_io::OpenError::Option { option, msg } => anyhow::anyhow!("--{option} {msg}"),
            e => anyhow::anyhow!(e),
        })
    }

    /// Refuses to build a polygon terrain of more than `--max-polygons` polygons; `what` says where
    /// they come from.
    pub fn check_polygons(&self, polygons: u64, what: &str) -> Result<()> {
        if polygons > self.max_polygons {
            bail!(
                "{}: {what} makes {polygons} polygons, more than --max-polygons {} allows (building their \
                 quadtree takes up to about 1.5 KB a polygon, {:.1} GB here); raise --max-polygons if the memory \
                 is there{}",
                self.path.display(),
                self.max_polygons,
                polygons as f64 * 1.5e3 / 1e9,
                if what.contains("raster") { ", or query the raster itself: rasters need no build" } else { "" }
            );
        }
        Ok(())
    }

    /// Builds a polygon terrain from `soup` with the height scale/offset, gravity and quadtree options.
    pub fn polygons_from(&self, soup: &mut PolygonSoup) -> Result<PolygonTerrain> {
        self.check_polygons(soup.len() as u64, "the mesh")?;
        if self.z_scale != 1.0 || self.z_offset != 0.0 {
            for p in &mut soup.points {
                p.z = p.z * self.z_scale + self.z_offset;
            }
        }
        PolygonTerrain::from_soup(soup, self.frame()?, self.quadtree_params()?)
            .with_context(|| format!("{}", self.path.display()))
    }

    /// The raster options (placement, heights, triangulation, limits) the arguments ask for.
    /// The raster options (placement, heights, triangulation, limits) the arguments ask for.
    pub fn raster_options(&self) -> Result<LoadOptions> {
        self.load_options()
    }

    fn load_options(&self) -> Result<LoadOptions> {
        let spacing = match &self.spacing {
            None => None,
            Some(s) if s.contains(',') => Some(numbers::<2>("spacing", s)?.into()),
            Some(s) => {
                let [d] = numbers::<1>("spacing", s)?;
                Some((d, d))
            }
        };
        if let Some((dx, dy)) = spacing {
            if dx <= 0.0 || dy <= 0.0 {
                bail!("--spacing: must be > 0, got {dx},{dy}");
            }
        }
        let origin = self.origin.as_deref().map(|o| numbers::<2>("origin", o)).transpose()?.map(Into::into);
        if !(1..=landfall::support::MAX_LEAF_SIZE).contains(&self.leaf_size) {
            bail!("--leaf-size: must be 1 to {} cells, got {}", landfall::support::MAX_LEAF_SIZE, self.leaf_size);
        }
        Ok(LoadOptions {
            spacing,
            origin,
            z_scale: self.z_scale,
            z_offset: self.z_offset,
            diagonal: self.diagonal,
            leaf_size: self.leaf_size,
            limits: self.limits(),
        })
    }

    /// Loads a raster as a heightfield, with what the file said (notes, placement, CRS).
    pub fn load_raster_with_georef(&self) -> Result<landfall_io::Loaded> {
        if landfall_io::is_heightfield_index(&self.path) {
            // A heightfield index: the mapped heightfield, placed as it was built.
            let opened = self.open()?;
            let heightfield = match opened.terrain {
                AnyTerrain::Heightfield(hf) => hf,
                AnyTerrain::Geographic(g) => g.into_heightfield(),
                AnyTerrain::Polygons(_) => bail!("{}: not a heightfield", self.path.display()),
            };
            let (o, s) = (heightfield.origin(), heightfield.spacing());
            let georef = Some(landfall_io::GeoRef { origin: (o.x, o.y), spacing: (s.x, s.y) });
            return Ok(landfall_io::Loaded { heightfield, georef, notes: opened.notes, geokeys: opened.geokeys });
        }
        let opts = self.load_options()?;
        let frame = self.frame()?;
        let mut loaded = load_heightfield(&self.path, &opts)?;
        loaded.heightfield.set_frame(frame);
        Ok(loaded)
    }
}
