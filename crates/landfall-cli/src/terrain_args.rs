//! The options every terrain-reading command shares, and loading the terrain with them.

use anyhow::{bail, Context, Result};
use clap::Args;
use landfall::glam::DVec3;
use landfall::{Diagonal, Frame};
use landfall_io::{load_heightfield, LoadOptions, Loaded};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A terrain file and how to place it in the world.
#[derive(Args, Debug, Clone)]
pub struct TerrainArgs {
    /// Terrain raster: .tif/.tiff (GeoTIFF), .asc (ESRI ASCII grid), .png (8/16-bit grey), .npy, .npz.
    #[arg(value_name = "TERRAIN")]
    pub path: PathBuf,
    /// Sample spacing in world units, `DX` or `DX,DY` [default: from the file, else 1].
    #[arg(long, value_name = "DX[,DY]", allow_hyphen_values = true)]
    pub spacing: Option<String>,
    /// World X,Y of the south-west sample (negative values welcome, e.g. `--origin -500,-20`)
    /// [default: from the file, else 0,0].
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub origin: Option<String>,
    /// Height scale: a sample value v becomes z = v·S + O.
    #[arg(long, value_name = "S", default_value_t = 1.0, allow_hyphen_values = true)]
    pub z_scale: f64,
    /// Height offset: a sample value v becomes z = v·S + O.
    #[arg(long, value_name = "O", default_value_t = 0.0, allow_hyphen_values = true)]
    pub z_offset: f64,
    /// How each grid cell is split into two triangles: `alternating` (by (i+j) parity),
    /// `sw-ne` (diagonal from the south-west to the north-east corner) or `se-nw`.
    #[arg(long, value_name = "D", default_value = "alternating")]
    pub diagonal: Diagonal,
    /// Gravity direction GX,GY,GZ for vertical queries [default: 0,0,-1]. With any other gravity
    /// `height` needs `x,y,z` input and answers the surface along the gravity line.
    #[arg(long, value_name = "GX,GY,GZ", allow_hyphen_values = true)]
    pub gravity: Option<String>,
    /// Min/max pyramid leaf size in cells (acceleration structure tuning).
    #[arg(long, value_name = "CELLS", default_value_t = landfall::heightfield::DEFAULT_LEAF_SIZE)]
    pub leaf_size: usize,
}

impl LoadedTerrain {
    /// Prints the loader's notes (approximations it made) on standard error.
    pub fn warn_notes(&self, path: &std::path::Path) {
        for n in &self.loaded.notes {
            eprintln!("landfall: note: {}: {n}", path.display());
        }
    }
}

/// A loaded terrain and what loading it cost.
pub struct LoadedTerrain {
    pub loaded: Loaded,
    pub load_time: Duration,
}

fn numbers<const N: usize>(opt: &str, text: &str) -> Result<[f64; N]> {
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

    /// Loads the terrain with the placement options applied.
    pub fn load(&self) -> Result<LoadedTerrain> {
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
        if self.leaf_size == 0 {
            bail!("--leaf-size: must be ≥ 1");
        }
        let opts = LoadOptions {
            spacing,
            origin,
            z_scale: self.z_scale,
            z_offset: self.z_offset,
            diagonal: self.diagonal,
            leaf_size: self.leaf_size,
        };
        let frame = self.frame()?;
        let start = Instant::now();
        let mut loaded = load_heightfield(&self.path, &opts)?;
        let load_time = start.elapsed();
        loaded.heightfield.set_frame(frame);
        Ok(LoadedTerrain { loaded, load_time })
    }
}
