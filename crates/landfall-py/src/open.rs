//! Opening a terrain file the way the CLI does: rasters, meshes and index files.

use landfall::{Diagonal, Frame, PolygonTerrain, QuadtreeParams};
use std::path::Path;

/// A loaded terrain (one per Python object: the size difference of the variants is moot).
#[allow(clippy::large_enum_variant)]
pub enum AnyTerrain {
    /// A raster.
    Heightfield(landfall::Heightfield),
    /// Polygons (a mesh, or an index file).
    Polygons(PolygonTerrain),
}

impl AnyTerrain {
    /// The terrain behind the common trait.
    pub fn as_dyn(&self) -> &dyn landfall::Terrain {
        match self {
            AnyTerrain::Heightfield(h) => h,
            AnyTerrain::Polygons(p) => p,
        }
    }
}

/// What `landfall.open` takes.
pub struct Options {
    pub spacing: Option<(f64, f64)>,
    pub origin: Option<(f64, f64)>,
    pub z_scale: f64,
    pub z_offset: f64,
    pub diagonal: Diagonal,
    pub frame: Frame,
}

/// An opened terrain.
pub struct Opened {
    pub terrain: AnyTerrain,
}

/// Opens `path`: an index file (memory-mapped), a mesh (.obj, .gltf, .glb) or a raster.
pub fn open(path: &Path, o: &Options) -> Result<Opened, String> {
    let placement = o.spacing.is_some() || o.origin.is_some();
    if landfall_io::is_index(path) {
        if placement || o.z_scale != 1.0 || o.z_offset != 0.0 {
            return Err(format!(
                "{}: spacing, origin, z_scale and z_offset cannot change a prebuilt index file",
                path.display()
            ));
        }
        let t = landfall_io::open_index_verified(path).map_err(|e| e.to_string())?;
        if !o.frame.is_z_up() && (o.frame.down() - t.frame().down()).length() > 1e-12 {
            return Err(format!("gravity: {} was built for gravity {}", path.display(), t.frame().down()));
        }
        return Ok(Opened { terrain: AnyTerrain::Polygons(t) });
    }
    if landfall_io::is_mesh(path) {
        if placement {
            return Err(format!("spacing and origin apply to rasters; {} is a polygon mesh", path.display()));
        }
        let mut soup = landfall_io::read_mesh(path).map_err(|e| e.to_string())?;
        for p in &mut soup.points {
            p.z = p.z * o.z_scale + o.z_offset;
        }
        let t = PolygonTerrain::from_soup(&soup, o.frame, QuadtreeParams::default())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Opened { terrain: AnyTerrain::Polygons(t) });
    }
    let opts = landfall_io::LoadOptions {
        spacing: o.spacing,
        origin: o.origin,
        z_scale: o.z_scale,
        z_offset: o.z_offset,
        diagonal: o.diagonal,
        ..Default::default()
    };
    let mut loaded = landfall_io::load_heightfield(path, &opts).map_err(|e| e.to_string())?;
    loaded.heightfield.set_frame(o.frame);
    Ok(Opened { terrain: AnyTerrain::Heightfield(loaded.heightfield) })
}
