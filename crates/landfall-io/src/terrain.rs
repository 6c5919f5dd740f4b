//! Any terrain file in one call: an index file (memory-mapped), a polygon mesh or a raster, with
//! the placement options every front end (the CLI, the Python package) shares.

use crate::load::{load_heightfield, LoadOptions};
use crate::raster::{GeoKeys, GeoRef};
use crate::{is_index, is_mesh, open_index_verified, read_mesh, IoError};
use landfall::geo::GeoSurface;
use landfall::{Frame, Heightfield, PolygonTerrain, QuadtreeParams, Terrain};
use std::path::{Path, PathBuf};

/// A loaded terrain.
#[allow(clippy::large_enum_variant)] // one per program: the size difference is moot
#[derive(Clone)]
pub enum AnyTerrain {
    /// A raster.
    Heightfield(Heightfield),
    /// Polygons (a mesh file, or an index file).
    Polygons(PolygonTerrain),
    /// A raster in degrees (a geographic CRS): a surface on the WGS84 ellipsoid, a [`Terrain`] in
    /// metres in its east-north-up frame.
    Geographic(GeoSurface),
}

impl AnyTerrain {
    /// The terrain behind the common trait.
    pub fn as_dyn(&self) -> &dyn Terrain {
        match self {
            AnyTerrain::Heightfield(h) => h,
            AnyTerrain::Polygons(p) => p,
            AnyTerrain::Geographic(g) => g,
        }
    }

    /// The samples' grid, for a raster (in degrees for a geographic one).
    pub fn heightfield(&self) -> Option<&Heightfield> {
        match self {
            AnyTerrain::Heightfield(h) => Some(h),
            AnyTerrain::Geographic(g) => Some(g.heightfield()),
            AnyTerrain::Polygons(_) => None,
        }
    }
}

/// A heightfield as the terrain its CRS makes it: in degrees (geographic `geokeys`, placement from
/// the file) a [`GeoSurface`], otherwise the heightfield itself, with a note when its horizontal
/// units and its heights obviously disagree. `placed` says the placement options overrode the
/// file's (the user's coordinates are then taken as they are).
fn by_crs(
    path: &Path,
    hf: Heightfield,
    geokeys: Option<&GeoKeys>,
    placed: bool,
    frame: Option<Frame>,
    notes: &mut Vec<String>,
) -> Result<AnyTerrain, OpenError> {
    if let Some(k) = geokeys.filter(|_| !placed) {
        for (what, unit) in k.non_metre_units() {
            notes.push(format!(
                "the GeoKeys give {what} units {unit} ({}), not metres: coordinates and heights are taken as they \
                 are, so give --spacing (or --z-scale) in one unit, or reproject (gdalwarp -t_srs EPSG:...)",
                unit_name(unit)
            ));
        }
    }
    if geokeys.is_some_and(GeoKeys::is_geographic) && !placed {
        if let Err(unit) = geokeys.map_or(Ok(()), GeoKeys::angular_unit) {
            return Err(IoError::format(
                path,
                format!(
                    "GeogAngularUnitsGeoKey: the geographic CRS is in angular unit {unit} ({}); only degrees are read \
                     (gdalwarp -t_srs EPSG:4326)",
                    unit_name(unit)
                ),
            )
            .into());
        }
        if frame.is_some() {
            let msg = format!(
                "does not apply to {}: a raster in degrees is a surface on the Earth, queried in metres with gravity along its east-north-up frame's down",
                path.display()
            );
            return Err(OpenError::Option { option: "gravity", msg });
        }
        crate::hf_index::geo_tables_fit(path, hf.nx(), hf.ny(), hf.memory_bytes())?;
        let g = GeoSurface::new(hf).map_err(|e| IoError::format(path, format!("geographic CRS: {e}")))?;
        let o = g.frame().origin();
        notes.push(format!(
            "geographic CRS (degrees): a surface on the WGS84 ellipsoid; heights are asked at lon,lat, answers and \
             meshes are in metres, in the east-north-up frame at lon {}, lat {}, h 0",
            o.lon, o.lat
        ));
        return Ok(AnyTerrain::Geographic(g));
    }
    if let Some(n) = units_disagree(&hf) {
        notes.push(n);
    }
    Ok(AnyTerrain::Heightfield(hf))
}

/// Whether a note from opening a terrain is a caution (Python raises it as a warning) rather than
/// what the file simply said: its georeferencing, the model of a raster in degrees.
///
/// ```
/// assert!(!landfall_io::is_caution("georeferenced by arrays 'lon' (x) and 'lat' (y)"));
/// assert!(landfall_io::is_caution("'lat' is not evenly spaced (…); the mean is used"));
/// ```
pub fn is_caution(note: &str) -> bool {
    !["georeferenced by arrays", "placed by ", "geographic CRS (degrees)"].iter().any(|p| note.starts_with(p))
}

/// A note when a heightfield's horizontal extent is tiny beside its relief (degrees or kilometres
/// taken for metres): the extent is a few units while the heights span 50 times more.
///
/// ```
/// let h = vec![5.0, 900.0, 2000.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0];
/// let hf = landfall::Heightfield::builder(3, 3, h).spacing(0.01, 0.01).build().unwrap();
/// assert!(landfall_io::units_disagree(&hf).unwrap().contains("units disagree"));
/// ```
pub fn units_disagree(hf: &Heightfield) -> Option<String> {
    let b = hf.bounds();
    let extent = (b.max.x - b.min.x).max(b.max.y - b.min.y);
    let relief = b.max.z - b.min.z;
    (relief > 100.0 && relief > 50.0 * extent).then(|| {
        let degrees = b.min.x >= -540.0 && b.max.x <= 540.0 && b.min.y >= -90.0 && b.max.y <= 90.0;
        format!(
            "the heights span {} units over a horizontal extent of only {}: the horizontal and vertical units disagree{}",
            landfall::support::Fixed(relief, 0),
            landfall::support::Fixed(extent, 3),
            if degrees {
                "; if x, y are longitude and latitude, the file lacks its CRS (gdal_edit.py -a_srs EPSG:4326), or give --spacing in metres"
            } else {
                "; give --spacing (or --z-scale) in the same unit"
            }
        )
    })
}

/// The kind of file a terrain came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A raster (GeoTIFF, ASCII grid, PNG, NumPy).
    Raster,
    /// A polygon mesh (OBJ, glTF).
    Mesh,
    /// A polygon index file from `landfall build`.
    Index,
    /// A heightfield index file (`.lfh`) from `landfall build`, memory-mapped.
    HeightfieldIndex,
}

/// How to open a terrain file.
#[derive(Clone, Debug)]
pub struct TerrainOptions {
    /// Rasters: placement, height scale and offset, triangulation, limits. Meshes use the height
    /// scale and offset; index files refuse every placement option.
    pub raster: LoadOptions,
    /// The gravity frame; `None` is the default (0, 0, −1), and an index file keeps its own.
    pub frame: Option<Frame>,
    /// The quadtree built for a mesh.
    pub quadtree: QuadtreeParams,
    /// Largest mesh built, in polygons.
    pub max_polygons: u64,
}

impl Default for TerrainOptions {
    fn default() -> Self {
        Self {
            raster: LoadOptions::default(),
            frame: None,
            quadtree: QuadtreeParams::default(),
            max_polygons: u64::MAX,
        }
    }
}

/// An opened terrain and what its file said.
pub struct OpenedTerrain {
    /// The terrain.
    pub terrain: AnyTerrain,
    /// Remarks a user should see (approximations, polygons skipped).
    pub notes: Vec<String>,
    /// What kind of file it was.
    pub source: Source,
    /// A raster's own placement, if it had one.
    pub georef: Option<GeoRef>,
    /// A GeoTIFF's coordinate reference system, if any.
    pub geokeys: Option<GeoKeys>,
}

/// Why a terrain could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The file (reading or decoding it).
    #[error(transparent)]
    Io(#[from] IoError),
    /// An option that does not apply to this file, or is out of range for it; `option` is its
    /// name without dashes (`spacing`, `origin`, `z-scale/z-offset`, `gravity`, `max-polygons`),
    /// and the message continues after it.
    #[error("{option} {msg}")]
    Option {
        /// The option.
        option: &'static str,
        /// What is wrong, continuing after the option's name.
        msg: String,
    },
    /// The mesh's polygons do not make a terrain.
    #[error("{}: {error}", path.display())]
    Polygons {
        /// The file.
        path: PathBuf,
        /// Why.
        error: landfall::PolygonError,
    },
}

/// An index file keeps the placement it was built with: an option that would change it is refused.
fn refuse_placement(path: &Path, r: &LoadOptions) -> Result<(), OpenError> {
    for (given, option) in [
        (r.spacing.is_some(), "spacing"),
        (r.origin.is_some(), "origin"),
        (r.z_scale != 1.0 || r.z_offset != 0.0, "z-scale/z-offset"),
    ] {
        if given {
            let msg =
                format!("cannot change a prebuilt index file {}; rebuild it with `landfall build`", path.display());
            return Err(OpenError::Option { option, msg });
        }
    }
    Ok(())
}

/// Opens `path`: a heightfield index (by its magic, memory-mapped after a full check), a polygon
/// index file (by its magic or `.lfq`, memory-mapped), a mesh (`.obj`, `.gltf`, `.glb`) or a
/// raster (anything else).
pub fn open_terrain(path: &Path, o: &TerrainOptions) -> Result<OpenedTerrain, OpenError> {
    let r = &o.raster;
    let refuse = |option: &'static str, msg: String| Err(OpenError::Option { option, msg });
    if crate::is_heightfield_index(path) {
        refuse_placement(path, r)?;
        let (hf, geokeys) = crate::open_heightfield_index_with_crs(path)?;
        if r.diagonal != hf.diagonal() && r.diagonal != landfall::Diagonal::default() {
            return refuse(
                "diagonal",
                format!("{}: {} was built with {}", r.diagonal.name(), path.display(), hf.diagonal().name()),
            );
        }
        if let Some(f) = o.frame {
            if (f.down() - hf.frame().down()).length() > 1e-12 {
                return refuse(
                    "gravity",
                    format!("{}: {} was built for gravity {}", f.down(), path.display(), hf.frame().down()),
                );
            }
        }
        let mut notes = Vec::new();
        let terrain = by_crs(path, hf, geokeys.as_ref(), false, None, &mut notes)?;
        return Ok(OpenedTerrain { terrain, notes, source: Source::HeightfieldIndex, georef: None, geokeys });
    }
    if is_index(path) {
        refuse_placement(path, r)?;
        let t = open_index_verified(path)?;
        if let Some(f) = o.frame {
            if (f.down() - t.frame().down()).length() > 1e-12 {
                return refuse(
                    "gravity",
                    format!("{}: {} was built for gravity {}", f.down(), path.display(), t.frame().down()),
                );
            }
        }
        let terrain = AnyTerrain::Polygons(t);
        return Ok(OpenedTerrain { terrain, notes: Vec::new(), source: Source::Index, georef: None, geokeys: None });
    }
    if is_mesh(path) {
        for (given, option) in [(r.spacing.is_some(), "spacing"), (r.origin.is_some(), "origin")] {
            if given {
                return refuse(option, format!("applies to rasters only; {} is a polygon mesh", path.display()));
            }
        }
        let mut soup = read_mesh(path)?;
        if soup.len() as u64 > o.max_polygons {
            return refuse(
                "max-polygons",
                format!(
                    "{}: {}: the mesh makes {} polygons, more than allowed (building their quadtree takes up to \
                     about 1.5 KB a polygon, {:.1} GB here)",
                    o.max_polygons,
                    path.display(),
                    soup.len(),
                    soup.len() as f64 * 1.5e3 / 1e9
                ),
            );
        }
        if r.z_scale != 1.0 || r.z_offset != 0.0 {
            for p in &mut soup.points {
                p.z = p.z * r.z_scale + r.z_offset;
            }
        }
        let t = PolygonTerrain::from_soup(&soup, o.frame.unwrap_or_else(Frame::z_up), o.quadtree)
            .map_err(|error| OpenError::Polygons { path: path.to_owned(), error })?;
        let mut notes = t.report().warnings();
        if matches!(crate::extension(path).as_str(), "gltf" | "glb") && o.frame.is_none() {
            notes.push("glTF is Y-up by convention: give gravity 0,-1,0 if this file follows it".into());
        }
        let terrain = AnyTerrain::Polygons(t);
        return Ok(OpenedTerrain { terrain, notes, source: Source::Mesh, georef: None, geokeys: None });
    }
    let mut loaded = load_heightfield(path, r)?;
    loaded.heightfield.set_frame(o.frame.unwrap_or_else(Frame::z_up));
    let placed = r.origin.is_some() || r.spacing.is_some();
    let terrain = by_crs(path, loaded.heightfield, loaded.geokeys.as_ref(), placed, o.frame, &mut loaded.notes)?;
    Ok(OpenedTerrain {
        terrain,
        notes: loaded.notes,
        source: Source::Raster,
        georef: loaded.georef,
        geokeys: loaded.geokeys,
    })
}

/// The name of an EPSG unit code, for messages.
fn unit_name(code: u16) -> &'static str {
    match code {
        9001 => "metre",
        9002 => "foot",
        9003 => "US survey foot",
        9036 => "kilometre",
        9101 => "radian",
        9102 | 9122 => "degree",
        9104 => "arc-second",
        9105 => "grad",
        9110 => "sexagesimal DMS",
        _ => "see the EPSG registry",
    }
}
