//! `landfall`: terrain queries from the command line.
//!
//! # How it works
//!
//! `height` and `raycast` stream their CSV through landfall-io's `BatchReader`: rows are read in chunks
//! of 65,536, each chunk answered in parallel and written in order before the next is read, so memory
//! stays bounded. Line numbers in errors are true file lines (a reader that indexes newlines maps each
//! record's byte offset to its line; the csv crate alone does not count blank lines). A progress bar
//! (bytes read) is drawn on a terminal only; each batch ends with one line (rows, how many found
//! ground or hit) and, when none did, a warning with the terrain's extent.
//!
//! **Progress** (`progress.rs`): every step of a long run (the demo's workloads, each of `world`'s
//! paths and its rendering, placing the objects, events, batches, builds, meshes, viewsheds) shows a
//! bar or a spinner with its time on a terminal, and off a terminal one line when it ends if it took
//! longer than two seconds (`LANDFALL_PROGRESS_AFTER` changes the threshold; the tests set 0).
//!
//! **Help** (`examples.rs`): each command's `--help` lists its own options first, then the terrain's
//! under "Terrain placement" (spacing, origin, heights, diagonal, gravity) and "Terrain tuning" (the
//! pyramid's and quadtree's parameters, limits), then two or three examples on the shipped data; a unit
//! test parses every example and checks the order. Every command that writes a file takes `-o` and
//! `--out`.
//!
//! **Pictures for people** (`preview/`): `viewshed --png` draws the raster from above at 1024 to 2048
//! pixels on its long side (at ground proportions for degrees), shaded and coloured on the exact
//! triangles, tinted by the viewshed, with a title, a legend, a scale bar, a north arrow and the
//! observers marked; text in a 5 × 7 pixel font of its own (`font.rs`). Errors about a position (an
//! observer off the terrain or over a hole) name the terrain's extent (`Aabb::xy_extent`). Every output goes through `OutputFile` (a temporary file,
//! renamed when complete), and an output that is one of the inputs is refused
//! (`docs/robustness.md`).
//!
//! Terrain files are recognised by content and extension: an index file by its magic or its `.lfq`
//! extension, `.obj`/`.gltf`/
//! `.glb` as polygon meshes, anything else as a raster. `build` writes an index from any of them (a
//! raster becomes its triangles, holes left out). Options that cannot apply are refused by name
//! (`--spacing` on a mesh, placement options or another gravity on a prebuilt index).
//!
//! `world` flies a viewer through the procedural world (walk 1.5 m/s, drive 30 m/s, fly 300 m/s at
//! 500 m, teleport up to 5,000 km per frame; 60 frames per second), times every update and prints mean,
//! 99th percentile and worst per path with cells generated, regions rewritten and memory; then draws the
//! drawn layers from above (`world-layers.png`) and a view from 300 m ray cast on the drawn mesh
//! (`world-view.png`), and `--export` writes the mesh. `demo` takes its terrain from the same generator:
//! a 2049² piece of the world at 4 m spacing (`Generator::corner_grid`), as a heightfield.

/// `println!` that ends the program quietly when standard output is closed (e.g. piped into
/// `head`), instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod behave;
mod build;
mod csv_batch;
mod demo;
mod events;
mod examples;
mod geo;
mod info;
mod interrupt;
mod map_budget;
mod memory;
mod open_files;
mod path_error;
mod preview;
mod progress;
mod proximity;
mod render;
mod serve;
mod terrain_args;
mod viewshed;
mod world;
mod world_map;
mod world_path;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use terrain_args::TerrainArgs;

/// Exact ground heights and ray casts on terrain rasters (GeoTIFF, ESRI ASCII grid, PNG, NumPy) and
/// polygon terrains (OBJ, glTF/GLB, or an index file from `landfall build`).
///
/// Coordinates are world units, right-handed, Z up. Raster rows are read north first (as GIS
/// writes them); sample (i, j) of a raster stands at origin + (i·dx, j·dy), j counted from the south.
/// Heights between samples are exact on the triangles of the grid (never bilinear). Polygons may
/// overlap (bridges, overhangs) and leave gaps (holes).
#[derive(Parser, Debug)]
#[command(name = "landfall", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a terrain's size, bounds, height range, holes, memory and acceleration build time.
    #[command(after_help = examples::INFO)]
    Info {
        #[command(flatten)]
        terrain: TerrainArgs,
    },
    /// Ground height under points, from a CSV with header `x,y` or `x,y,z`.
    ///
    /// `x,y`: the topmost surface on the vertical line through (x, y). `x,y,z`: the nearest surface
    /// at or below the point along gravity. Output header `x,y,z,nx,ny,nz`, one row per input row in
    /// order: the surface point and its upward unit normal, all six fields empty where there is no
    /// ground (outside the terrain, over a hole, or nothing below the point). With `--all`: header
    /// `index,x,y,z,nx,ny,nz`, one row per surface on the line (index = 0-based input row), lowest
    /// first, no row where there is none.
    ///
    /// A raster in degrees (a geographic CRS) is a surface on the WGS84 ellipsoid: input `lon,lat`
    /// or `lon,lat,h` (also `x,y[,z]`), the surface on the ellipsoid normal through (lon, lat);
    /// output header `lon,lat,h,ecef_x,ecef_y,ecef_z,nx,ny,nz` (h in metres along the normal; the
    /// unit normal in Earth-centred coordinates), all nine empty where there is none.
    ///
    /// A row that is not a finite number in each field stops the run: the error names the line
    /// (the header is line 1) and the field, and the exit status is non-zero. The output is written
    /// to a temporary file beside it and renamed into place only when complete, so a failed or
    /// interrupted run leaves an existing output file as it was; an output that is also an input
    /// is refused.
    #[command(after_help = examples::HEIGHT)]
    Height {
        #[command(flatten)]
        terrain: TerrainArgs,
        /// Input CSV of query points (`-`: standard input).
        #[arg(long, value_name = "IN.csv")]
        points: PathBuf,
        /// Output CSV.
        #[arg(short, long, value_name = "OUT.csv")]
        out: PathBuf,
        /// List every surface on each vertical line instead of one.
        #[arg(long)]
        all: bool,
        /// For a heightfield index (`.lfh`): keep at most about this many MiB of the mapped file in
        /// the process's memory — the queries go in smaller chunks, and after a chunk that leaves
        /// more of the map resident, its pages are let go (the kernel reads them again when used).
        /// Prints the peak resident memory at the end. Without it the map's pages are the kernel's
        /// to keep or evict.
        #[arg(long, value_name = "MIB")]
        cache_mb: Option<u64>,
    },
    /// First ray–terrain hits, from a CSV with header `ox,oy,oz,dx,dy,dz[,max_t]`.
    ///
    /// The ray is origin + t·dir, t ≥ 0 in units of |dir|, up to max_t (default unbounded). The
    /// terrain is two-sided: the first crossing counts from either side. Output header
    /// `hit,t,x,y,z,nx,ny,nz`: hit = 1 or 0, the other fields empty on a miss; the normal is the
    /// hit triangle's, pointing up (against gravity).
    ///
    /// A raster in degrees: input `lon,lat,h,de,dn,du[,max_t]` (the direction in the
    /// east-north-up frame at the origin; t in metres for a unit direction), rays straight in
    /// Earth-centred coordinates; output header `hit,t,lon,lat,h,ecef_x,ecef_y,ecef_z,nx,ny,nz`.
    ///
    /// A row with a field that is not a finite number, a zero direction or a negative max_t stops
    /// the run: the error names the line (the header is line 1) and the field, and the exit status
    /// is non-zero. The output is written to a temporary file beside it and renamed into place only
    /// when complete, so a failed or interrupted run leaves an existing output file as it was; an
    /// output that is also an input is refused.
    #[command(after_help = examples::RAYCAST)]
    Raycast {
        #[command(flatten)]
        terrain: TerrainArgs,
        /// Input CSV of rays (`-`: standard input).
        #[arg(long, value_name = "IN.csv")]
        rays: PathBuf,
        /// Output CSV.
        #[arg(short, long, value_name = "OUT.csv")]
        out: PathBuf,
        /// For a heightfield index (`.lfh`): keep at most about this many MiB of the mapped file in
        /// the process's memory — the queries go in smaller chunks, and after a chunk that leaves
        /// more of the map resident, its pages are let go (the kernel reads them again when used).
        /// Prints the peak resident memory at the end. Without it the map's pages are the kernel's
        /// to keep or evict.
        #[arg(long, value_name = "MIB")]
        cache_mb: Option<u64>,
    },
    /// Preprocess a terrain into an index file that later commands load without rebuilding.
    ///
    /// With an output named `*.lfh`: a heightfield index of a raster of any size — the samples and
    /// their min/max pyramid, written in one streaming pass (a GeoTIFF is read a band of tiles or a
    /// strip at a time: memory is a band of rows, not the raster; tiled and Cloud-Optimized GeoTIFFs
    /// with every compression GDAL writes for elevation — LZW, DEFLATE, ZSTD, LERC, LERC_DEFLATE,
    /// LERC_ZSTD — and predictors 2 and 3; a directory of
    /// GeoTIFF tiles on one grid, or a `.txt` list of them (one path a line), is streamed as one
    /// mosaic, gaps as holes). Every command then
    /// memory-maps it and answers exactly as on the raster itself (bit for bit), touching only the
    /// pages the queries use; opening checks it whole (checksum, samples, pyramid).
    ///
    /// Any other output name: the QOTA quadtree of the terrain's polygons (a raster's triangles, a
    /// mesh's faces) with its gravity, memory-mapped (zero-copy) by every command. A raster in
    /// degrees, a directory or a list of tiles take `.lfh` only.
    ///
    /// The file is written to a temporary name and renamed, so a crash never leaves half a file.
    #[command(after_help = examples::BUILD)]
    Build {
        #[command(flatten)]
        terrain: TerrainArgs,
        /// Index file to write.
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Write a terrain's triangles as a mesh (`.glb` glTF binary or `.obj`), with per-vertex normals
    /// and the height-and-tilt colour map's colours (water below 0, sand, grass, rock, snow), so
    /// Blender or any glTF viewer shows it coloured and shaded.
    ///
    /// Any terrain: a raster (two triangles a cell, holes left out), a polygon mesh, an index file
    /// (`.lfq`, `.lfh`). Vertices are shared where triangles meet; glTF is Y-up (landfall's (x, y, z)
    /// is written (x, z, −y)), OBJ keeps landfall's coordinates with `v x y z r g b` colours. At most
    /// 50 million triangles. Written to a temporary file and renamed.
    #[command(after_help = examples::MESH)]
    Mesh {
        #[command(flatten)]
        terrain: TerrainArgs,
        /// Output mesh (.glb or .obj).
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Show a terrain in the browser: a local web server and a page (three.js, offline) to fly over
    /// it, coloured and lit; click for the exact height and normal under the cursor (the server's ray
    /// cast), shift-click two points for a line of sight, V for the viewshed from the last point.
    ///
    /// `--world`: the endless procedural world, the nested cache following the camera (only changed
    /// regions of its mesh are sent again) and a walker moved by the keyboard (W A S D) with the character
    /// controller. Listens on 127.0.0.1 (this machine only) unless --host says otherwise; prints the
    /// address. Serves nothing but its own page and the terrain's answers.
    #[command(after_help = examples::SERVE)]
    Serve(serve::ServeArgs),
    /// Run the main workloads on a generated terrain, print throughput, render a picture.
    ///
    /// Without arguments: a deterministic 2049×2049 piece of the procedural world of `landfall world`
    /// (4 m spacing, about 8 km across, centred on the origin), a million
    /// vertical queries, a million picking rays, 100,000 line-of-sight rays and a crowd of 2,000
    /// character controllers walking 200 moves each, then a perspective rendering made with
    /// landfall's own batch ray casts (sun shadows by shadow rays) with the walkers' paths drawn,
    /// written to `landfall-out/demo.png`.
    #[command(after_help = examples::DEMO)]
    Demo(demo::DemoArgs),
    /// Fly a viewer through the endless procedural world; print update costs; draw the layers.
    ///
    /// The world is generated on the fly (hashed stochastic subdivision) and kept around the
    /// viewer in a nested level-of-detail cache: by default the thesis' configuration, 16 layers of
    /// 40×40 cells, 1 m finest cells, the mesh drawn from layer 1 to 12 (77,824 m from the middle to
    /// its edge). The viewer walks (1.5 m/s), drives (30 m/s), flies (300 m/s, 500 m up) and
    /// teleports (up to 5,000 km per frame), 1,200 frames each at 60 frames per second; each path
    /// prints the update cost per frame (cache shifts, cells generated, mesh regions rewritten),
    /// the cells generated per frame and the memory. Then it writes `landfall-out/world-layers.png`
    /// (the drawn layers from above, their outer rings, inner regions and seams) and
    /// `landfall-out/world-view.png` (the view from 300 m, ray cast on the drawn mesh), and with
    /// `--export` the mesh as glTF binary or OBJ.
    #[command(after_help = examples::WORLD)]
    World(world::WorldCli),
    /// Every pair of spheres that overlap or touch, from a CSV with header `id,x,y,z,radius`.
    ///
    /// Ids are any distinct integers (from −2¹²⁷ to 2¹²⁷ − 1: every i64 and u64); radii are ≥ 0. Output header `a,b`: one row per pair of ids
    /// whose spheres overlap or touch (centre distance ≤ the sum of the radii, in 3-D), a < b, sorted
    /// by a then b. Found by the broad phase (the thesis' dual levels as sorted arrays: a flea and a
    /// house in one pass).
    ///
    /// Pairs are not held in memory: they go to temporary files beside the output as they are
    /// found, in sorted runs of 4 million, merged into the output at the end (the pairs take about
    /// 40 MB of memory whatever their count, beside the spheres themselves and the broad phase over
    /// them: 30,000 identical spheres make 4.5·10⁸ pairs). With --max-pairs N
    /// the search keeps the first N pairs it finds (sorted), counts the rest, and says so.
    ///
    /// A bad row (a field that is not a finite number, an id that is not an integer or repeats
    /// another, a negative radius) stops the run with an error naming the line and field and a
    /// non-zero exit status; the output is written to a temporary file and renamed into place only
    /// when complete.
    #[command(after_help = examples::PROXIMITY)]
    Proximity {
        /// Input CSV of spheres (`-`: standard input).
        #[arg(long, value_name = "IN.csv")]
        objects: PathBuf,
        /// Output CSV of pairs.
        #[arg(short, long, value_name = "PAIRS.csv")]
        out: PathBuf,
        /// Keep at most this many pairs (the first found); the output says how many more there were.
        #[arg(long, value_name = "N")]
        max_pairs: Option<u64>,
    },
    /// What an observer sees: a GeoTIFF of the samples visible from a point, exact on the
    /// triangles of the grid.
    ///
    /// The observer stands at X,Y, its eye --observer-height above the ground there (the surface of
    /// the triangulated grid, not the nearest cell's value); the target of each sample is its height
    /// plus --target-height. A target is visible when the straight segment from the eye to it
    /// meets no triangle before the target (a graze blocks; holes block nothing). Output: the
    /// input raster's size and georeferencing (and CRS, for a GeoTIFF input), one byte a sample:
    /// 1 visible, 0 not visible, 255 nodata (holes, beyond --max-distance, outside the angles),
    /// with GDAL's nodata tag set. With --observers, the number of observers that see each sample
    /// (u16, 65535 nodata, counts capped at 65534).
    ///
    /// Differences from gdal_viewshed: every sample is decided exactly on the triangles (GDAL
    /// interpolates a reference plane from the previous ring of cells and is wrong on a few per
    /// cent of the visible cells); visible is 1 (GDAL: 255); curvature is off unless --curvature
    /// is given (GDAL applies -cc 0.85714 by default: use --curvature to match); the observer's
    /// ground is the triangulated surface at X,Y; --mode ground/dem give the least target height /
    /// elevation that would be seen (GDAL's GROUND and DEM modes), 0 / the ground where already
    /// visible.
    #[command(after_help = examples::VIEWSHED)]
    Viewshed(viewshed::ViewshedArgs),
    /// Event-driven simulations: behaviours exact between events, events in time order.
    #[command(subcommand)]
    Events(events::EventsCommand),
    /// Behaviours with levels of detail that follow the viewer: the ballroom dance.
    #[command(subcommand)]
    Behave(behave::BehaveCommand),
}

fn main() {
    let cli = Cli::parse();
    open_files::limit();
    let result = match cli.command {
        Command::Info { terrain } => info::run(&terrain),
        Command::Height { terrain, points, out, all, cache_mb } => {
            csv_batch::height(&terrain, &points, &out, all, cache_mb)
        }
        Command::Raycast { terrain, rays, out, cache_mb } => csv_batch::raycast(&terrain, &rays, &out, cache_mb),
        Command::Build { terrain, out } => build::run(&terrain, &out),
        Command::Mesh { terrain, out } => build::mesh(&terrain, &out),
        Command::Serve(args) => serve::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::World(cli) => world::dispatch(&cli),
        Command::Proximity { objects, out, max_pairs } => proximity::run(&objects, &out, max_pairs),
        Command::Events(cmd) => events::run(&cmd),
        Command::Behave(cmd) => behave::run(&cmd),
        Command::Viewshed(args) => viewshed::run(&args),
    };
    if let Err(e) = result {
        eprintln!("landfall: error: {e:#}");
        std::process::exit(1);
    }
}
