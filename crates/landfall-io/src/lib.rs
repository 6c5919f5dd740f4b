#![warn(missing_docs)]
//! File formats for landfall: rasters in, [`Heightfield`](landfall::Heightfield)s out.
//!
//! Supported rasters (the first row in the file is the northernmost, as in GIS; loaders flip it so
//! row 0 is south, DESIGN.md's convention):
//!
//! | extension | format | georeferencing |
//! |---|---|---|
//! | `.asc` | ESRI ASCII grid | `xllcorner`/`yllcorner` or `xllcenter`/`yllcenter`, `cellsize` (or `dx`/`dy`), `NODATA_value` → holes |
//! | `.png` | 8- or 16-bit greyscale | none (spacing 1, origin 0) |
//! | `.tif`, `.tiff` | (Geo)TIFF, one band of f32, f64, i16, u16, i32, u32, u8 | ModelPixelScale + ModelTiepoint (or ModelTransformation), PixelIsArea/PixelIsPoint, `GDAL_NODATA` |
//! | `.npy` | NumPy 2-D array of f32, f64, i16, u16 (also i8, u8, i32, u32) | none |
//! | `.npz` | NumPy archive: the 2-D array, with optional 1-D coordinate arrays | `latitude`/`longitude` (or `lat`/`lon`, `y`/`x`) arrays: origin, mean spacing and row order |
//!
//! Polygon terrains: Wavefront `.obj` (faces = polygons) and glTF 2.0 `.gltf`/`.glb` (node
//! transforms applied) through [`read_mesh`]; built QOTA quadtrees go to and come from index files
//! ([`write_index`], [`open_index`]), which load zero-copy by memory-mapping.
//!
//! Every error names the file, and the line or field that is wrong.

mod asc;
mod error;
mod index;
mod load;
mod mesh;
mod mesh_out;
mod npy;
mod png_raster;
mod raster;
mod tif;

pub use error::IoError;
pub use load::{load_heightfield, read_raster, LoadOptions, Loaded};
pub use raster::{GeoRef, Raster};

use std::path::Path;

pub use asc::write_asc;
pub use index::{is_index, open_index, open_index_verified, write_index, RawHeader, INDEX_VERSION};
pub use mesh::{is_mesh, read_gltf, read_mesh, read_obj};
pub use mesh_out::{world_parts, write_glb, write_mesh, write_obj, MeshPart};

/// Lower-case extension of `path` ("" when none).
pub fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

/// Largest decoded image (bytes) the PNG and TIFF readers accept: 4 GiB, a 32,768² f32 raster.
pub const MAX_DECODED_BYTES: usize = 4 << 30;
pub use npy::{write_npy, write_npy_matrix, NpyElement};

/// Writes `chunks` to `path` crash-safely: a temporary file in the same directory, synced, then
/// renamed over `path`, so a crash never leaves half a file.
pub(crate) fn write_atomic(path: &Path, chunks: &[&[u8]]) -> Result<(), IoError> {
    use std::io::Write as _;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // The directory is checked first, and tempfile's own errors are reduced to their kind: they
    // name its temporary file (`.tmpXXXX`), which the user never asked for.
    match std::fs::metadata(dir) {
        Err(e) => return Err(IoError::os(path, e)),
        Ok(m) if !m.is_dir() => {
            let e =
                std::io::Error::new(std::io::ErrorKind::NotADirectory, format!("{} is not a directory", dir.display()));
            return Err(IoError::os(path, e));
        }
        Ok(_) => {}
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| IoError::os(path, e.kind().into()))?;
    for c in chunks {
        tmp.write_all(c).map_err(|e| IoError::os(path, e))?;
    }
    tmp.as_file().sync_all().map_err(|e| IoError::os(path, e))?;
    tmp.persist(path).map_err(|e| IoError::os(path, e.error))?;
    Ok(())
}
