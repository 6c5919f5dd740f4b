#![deny(missing_docs)]
//! File formats for landfall: rasters in, [`Heightfield`](landfall::Heightfield)s out.
//!
//! Supported rasters (the first row in the file is the northernmost, as in GIS; loaders flip it so
//! row 0 is south, the project's convention in `docs/conventions.md`):
//!
//! | extension | format | georeferencing |
//! |---|---|---|
//! | `.asc` | ESRI ASCII grid | `xllcorner`/`yllcorner` or `xllcenter`/`yllcenter`, `cellsize` (or `dx`/`dy`), `NODATA_value` → holes |
//! | `.png` | 8- or 16-bit greyscale | none (spacing 1, origin 0) |
//! | `.tif`, `.tiff` | (Geo)TIFF and Cloud-Optimized GeoTIFF, one band of f32, f64, i16, u16, i32, u32, u8, i8; strips or tiles; NONE, LZW, DEFLATE, ZSTD, LERC, LERC_DEFLATE, LERC_ZSTD (and PACKBITS), predictors 1–3 | ModelPixelScale + ModelTiepoint (or ModelTransformation, or a `.aux.xml`/`.tfw` sidecar beside a plain TIFF), PixelIsArea/PixelIsPoint, `GDAL_NODATA` |
//! | `.npy` | NumPy 2-D array of f32, f64, i16, u16 (also i8, u8, i32, u32) | none |
//! | `.npz` | NumPy archive: the 2-D array, with optional 1-D coordinate arrays | `latitude`/`longitude` (or `lat`/`lon`, `y`/`x`) arrays: origin, mean spacing and row order |
//!
//! Polygon terrains: Wavefront `.obj` (faces = polygons) and glTF 2.0 `.gltf`/`.glb` (node
//! transforms applied) through [`read_mesh`]; built QOTA quadtrees go to and come from index files
//! ([`write_index`], [`open_index`]), which load zero-copy by memory-mapping.
//!
//! CSV batches of points, rays and spheres are read in bounded chunks by [`BatchReader`].
//!
//! Every error names the file, and the line or field that is wrong. Readers open regular files only
//! and check every size a file declares against [`Limits`] before allocating; writers go through
//! [`OutputFile`] (a temporary file renamed into place when complete), so a failed or interrupted
//! write leaves the old file whole (`docs/robustness.md`).
//!
//! # How it works
//!
//! `read_raster` dispatches on the extension and returns a `Raster` already flipped to row 0 = south;
//! `load_heightfield` applies `z = v·S + O`, the placement options or the file's georeferencing, and
//! builds the heightfield. `.npz` archives are georeferenced by their 1-D coordinate arrays when
//! present (`latitude`/`longitude`, `lat`/`lon`, `y`/`x`): an ascending y array means the rows are
//! already south-first, a descending one is flipped; unevenly spaced coordinates are reported as a note
//! and the mean step is used. Every error names the file and the line, field, tag or array.
//!
//! Meshes: `.obj` by a small parser of our own (each face a polygon as written, coordinates in f64,
//! errors with line numbers — `tobj` triangulates by default, reads f32 and reports no line), glTF/GLB
//! through the `gltf` crate (triangle primitives of the default scene, node transforms composed in f64;
//! GLB binary chunk, external buffers and base64 data URIs). glTF is Y-up by convention; coordinates are
//! kept as they are, and the CLI notes that `--gravity 0,-1,0` may be wanted.

mod asc;
mod batch;
mod error;
mod hf_index;
mod index;
mod input;
mod load;
mod mapped;
mod mesh;
mod mesh_out;
mod npy;
mod output;
mod png_raster;
mod preamble;
mod raster;
mod terrain;
mod tif;
mod tif_out;

pub use batch::{Batch, BatchReader, Query, MAX_LINE_BYTES};
pub use error::{quote, IoError};
pub use input::{Limits, DEFAULT_MAX_SAMPLES};
pub use load::{load_heightfield, read_raster, read_raster_with, LoadOptions, Loaded};
pub use mapped::check_mapped;
pub(crate) use output::write_atomic;
pub use output::{refuse_overwriting_inputs, same_file, OutputFile, OutputId, Outputs};
pub use raster::{GeoKeys, GeoRef, Raster};
pub use terrain::{
    is_caution, open_terrain, units_disagree, AnyTerrain, OpenError, OpenedTerrain, Source, TerrainOptions,
};
pub use tif_out::{write_geotiff, write_geotiff_into, Band};

use std::path::Path;

pub use asc::write_asc;
pub use hf_index::{
    build_heightfield_index, is_heightfield_index, open_heightfield_index, open_heightfield_index_with_crs,
    open_heightfield_index_with_trees, stream_geotiff_rows, IndexReport, OpenedIndex, HEIGHTFIELD_INDEX_EXTENSION,
    HEIGHTFIELD_INDEX_VERSION,
};
pub use index::{is_index, open_index, open_index_verified, write_index, RawHeader, INDEX_EXTENSION, INDEX_VERSION};
pub use mesh::{is_mesh, read_gltf, read_mesh, read_obj};
pub use mesh_out::{
    geo_part, terrain_part, world_parts, write_glb, write_mesh, write_mesh_into, write_obj, MeshPart,
    MAX_EXPORT_TRIANGLES,
};

/// Lower-case extension of `path` ("" when none).
pub fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

pub use npy::{write_npy, write_npy_matrix, NpyElement};
pub use png_raster::{write_png_rgb, write_png_rgb_into};
