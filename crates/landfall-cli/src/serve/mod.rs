//! `landfall serve`: the terrain in a browser. A local web server (hyper and axum) hands out the
//! page (three.js, vendored: it works offline), the terrain's mesh with the colour map's colours and
//! normals, and answers the page's questions with landfall's own queries: the exact height and
//! normal under the cursor (a ray cast on the server, so what is seen and what is queried agree),
//! line of sight, the viewshed; for the procedural world, the nested cache follows the camera (only
//! the regions that changed are sent again) and a walker moves with the character controller. No
//! file is served but the page's own assets, compiled in.
//!
//! Exposed to strangers, it stays up (`docs/robustness.md`): heavy work goes through a bounded
//! pool ([`jobs`]), connections are capped and timed ([`conn`]), and light queries (heights, rays,
//! sight lines) never wait behind heavy ones.
//!
//! # How it works
//!
//! `crates/landfall-cli/src/serve/`: an axum server on tokio (127.0.0.1 by default, `--port`, `--host`)
//! and a page made of `assets/viewer/` — `index.html`, `viewer.js` and three.js 0.170 with its
//! OrbitControls, vendored (MIT licence beside them) and compiled into the binary: the server reads no
//! file but the terrain it was given. Endpoints (every parameter checked; a bad one is a 400 whose JSON
//! message names it; anything else is a 404):
//!
//! | endpoint | answer |
//! |---|---|
//! | `/api/info` | kind, bounds, grid size, the walker; whether x, y are degrees and the metres of a unit; the tile layout; the legend's colour stops |
//! | `/api/tile?level&i&j` | a raster's level-of-detail tile (`tiles.rs`), binary (`LFM1`); in degrees its samples where the surface on the ellipsoid puts them, in metres of the east-north-up frame |
//! | `/api/mesh` | a polygon terrain's mesh, binary (`LFM1`: positions, normals, colours, indices); a heightfield beyond 2²⁰ samples drawn from every k-th sample |
//! | `/api/height?x&y`, `/api/raycast?ox…dz[&max]`, `/api/visible?ax…bz` | the library's answers (JSON); on a raster in degrees x, y, z are metres of its east-north-up frame, each point also `geodetic` (lon, lat, height above the ellipsoid), and `/api/height?lon&lat` asks at a longitude and latitude |
//! | `/api/viewshed?x&y[&h][&target][&max_distance][&curvature][&refraction]`, `/api/viewshed?lon&lat[…]` | a raster's viewshed, binary (`LFV1`: size, placement, one byte a sample), the options named and defaulted as `landfall viewshed`'s (h 1.75, target 0, no maximum distance, curvature 0, refraction 1/7); in degrees the library's `viewshed` on the ellipsoid (a `GeoSurface`), the observer at x, y of the frame or at lon, lat, the placement in degrees; an observer off the terrain is a 400 naming its extent |
//! | `/api/world/update?x&y&z` | the cache moved to the camera; every drawn region (layer × outer ring, inner region, seam) with its version, bumped when its mesh changed (hashed after each update) |
//! | `/api/world/region?level&region` | one region's painted mesh |
//! | `/api/world/walk?dx&dy` | the walker moved by the character controller (capsule), stopped by trunks, boulders and walls |
//! | `/api/world/instances` | the objects and entities as instances to dress (`instances.rs`): trees (foot, height, trunk and crown radii), buildings (box centre, half sizes, yaw), rocks, entities |
//! | `/api/world/path?ax&ay&bx&by&radius[&max_slope]` | a path for an agent of `radius` metres (0.3–30; steepest ground `max_slope` degrees, 35) around the objects held now, by `landfall world path`'s planner (`path.rs`): `points` on the ground, `length`; a point off the drawn world or a bad radius is a 400, a start or goal inside an object or on steep ground or no way between them a 422 |
//! | `/api/world/crowd?x&y&dx&dy&half` | a frame of the crowd (`crowd.rs`: 300 walkers box-stepping around the start, `landfall::behave`) for the camera at x, y looking along dx, dy and seeing `half` radians either side: each shown walker's `[x, y, z, rep]` (0 dormant, 1 approximate, 2 full) and the counts |
//! | `/api/world/objects` | the same as one mesh (`LFM1`) of their collision shapes' triangles, flat-shaded in each kind's colour, entities red |
//!
//! **Tiles.** Tile (k, i, j) takes every 2^k-th sample, 64 cells of its level across; the top level is
//! one tile over the raster (level 6 for 4097²). The page starts from the top tile and replaces a tile
//! by its four children when the camera is nearer than two tile widths and all four have arrived (until
//! then the parent stays: no holes); it keeps at most 400 tiles, choosing again on every frame and ten
//! times a second. Each tile has a skirt (its border lowered by its relief) so a fine tile beside a
//! coarse one shows no crack; the raster's own border has none. A 4097² DEM seen from its default view
//! is 7 tiles of levels 4 and 5 (about 30,000 vertices), not one mesh of 2²⁰ samples.
//!
//! **In degrees.** A raster in a geographic CRS (a `GeoSurface`) is drawn in the same tiles, each
//! vertex at its sample's ENU position (the Earth's curvature included: a 1° tile's middle stands
//! s²/2R above its edges, ≈120 m at 39 km), the colours by the slope against the ellipsoid. The page
//! has the frame's origin from `/api/info` and the WGS84 formulas to place the tiles' boxes (their
//! corners at the lowest and highest heights), to draw the water as the ellipsoid at its level, and to
//! find the sample under each vertex for the viewshed's tint; a click reads longitude, latitude and
//! height above the ellipsoid. `?viewshed=1` runs V after `?click=` (tests).
//!
//! **The page.** The scene is in metres on the ground: x, y times the metres of a unit (a raster in
//! degrees — its GeoTIFF says so, or its extent fits the globe and its relief dwarfs its extent,
//! `geo.rs` — at its mid latitude's proportions), heights times the **vertical exaggeration** slider
//! (×1 is true scale; it starts where the relief is a seventh of the extent); the queries undo both.
//! Overlays: a **scale bar** (a round distance near 140 pixels at the orbit's centre), a **north
//! arrow** turned with the camera, a **height legend** (the colour map on flat ground, stops from the
//! server, the shore's jump included), the **point under the cursor** while hovering (the server's ray
//! cast, one request at a time), a **water plane** at a chosen level over the terrain's footprint. The
//! world's objects are drawn as what they are, instanced: a tree's trunk and a cone crown around its
//! collision column, a house's walls and a gable roof inside its collision box (halls grey), rocks as
//! icosahedra, walkers as red capsules. A click casts the ray through the pixel on the server and shows
//! the exact point, height and normal; shift-click twice draws a line of sight green or red; V recolours
//! every tile's vertices by the viewshed from the last point. For the world, the page sends the camera
//! every quarter second and fetches only the regions whose version changed, and the instances when the
//! objects' version changed, and a frame of the crowd (its walkers coloured full, approximate or dormant,
//! with a legend); with *path* ticked, two clicks ask `/api/world/path` for the chosen radius (a
//! logarithmic slider, 0.3–30 m) and draw a band as wide as the agent along it, with its length; a
//! click or a line of sight lands on the objects too (`Objects::solids`), and W A S D walk the walker
//! among them. The address can ask for `?exaggeration=`, `?water=`, `?camera=x,y,z` (in terrain
//! sizes from its middle), `?hover=px,py`, `?click=px,py` and `?radius=r&path=px,py;px,py` (links and
//! tests); a script error shows as `data-error` on the body.
//!
//! Tests (`tests/viewer.rs`): the endpoints against the library from 16 concurrent clients, the 400s
//! and 404s, the world's layers, walker and objects (a ray down onto an object's flat top lands on it);
//! `serve::tiles`' unit tests (tiles cover the raster on its samples at every level, holes and skirts);
//! and in headless Chromium (SwiftShader WebGL; a failure under `LANDFALL_CI`, a visible skip elsewhere):
//! the first frame shows terrain and a click's height is the library's; ×30 against ×1 changes the
//! picture; water at 300 m turns what it covers bluer; the hover readout is the library's point; the
//! north arrow points up from the south and right from the east, and its corner of the picture changes;
//! the scale bar's metres per pixel halve at half the distance; the legend has the colour map's stops;
//! a 4097² DEM is drawn from tiles of two levels at once; the world page dresses its trees and rocks;
//! two clicks with the path control on draw a path (the picture gains its band, the readout the
//! server's length); the crowd is drawn in two colours at least, with its legend. The world's path
//! (ends, ground, clearance from every footprint, 400s and 422s) and crowd (in view means full
//! detail) endpoints are tested without a browser.
//!
//! (picture: `docs/viewer-world.png`)
//!
//! `landfall serve --world` in headless Chromium (the browser test's first frame;
//! `LANDFALL_VIEWER_WORLD_SHOT=docs/viewer-world.png cargo test -p landfall-cli --test integration
//! viewer::the_world_page` writes it): the walker (red capsule) among the objects of the cached cells
//! — tree trunks, a boulder, the stones of the finest layers' window, houses farther off.
//!
//! Not built: a heightfield's viewshed as a texture at full resolution (it recolours the tiles'
//! vertices); level-of-detail tiles for polygon terrains (a mesh comes whole); a coarse tile samples
//! every 2^k-th height rather than a filtered one.

mod api;
mod conn;
mod crowd;
#[cfg_attr(not(test), allow(dead_code))] // used by the `request` fuzz target and its replay test
pub mod fuzz;
mod instances;
mod jobs;
mod mesh;
mod path;
mod tiles;

use anyhow::{bail, Context, Result};
use clap::Args;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// Options of `landfall serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Terrain file (any the other commands read: rasters, meshes, index files).
    #[arg(value_name = "TERRAIN", required_unless_present = "world")]
    path: Option<PathBuf>,
    /// Serve the endless procedural world of `landfall world` instead of a file.
    #[arg(long, conflicts_with = "path")]
    world: bool,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on: an IP address or a host name (`localhost`). The default serves this
    /// machine only; give 0.0.0.0 to serve others.
    #[arg(long, default_value = "127.0.0.1", value_parser = parse_host)]
    host: IpAddr,
    /// Heavy requests (viewsheds, meshes, world updates) computed at once (default: half the
    /// processors, at least 1). Each holds its answer until it is sent.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Heavy requests that may wait for a worker; more are answered 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 16)]
    queue: usize,
    /// Connections open at once (the longest idle is closed to make room; also bounded by the
    /// process's file limit).
    #[arg(long, value_name = "N", default_value_t = 512)]
    max_connections: usize,
    /// Seconds a client has to send a request's headers, and to take each part of an answer
    /// (1 to 86,400).
    #[arg(long, value_name = "S", default_value_t = 10)]
    timeout: u64,
}

/// The longest `--timeout`, in seconds (a deadline that far ahead still fits the clock).
const MAX_TIMEOUT: u64 = 86_400;

pub fn run(a: &ServeArgs) -> Result<()> {
    let workers = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() / 2)).max(1);
    if a.timeout == 0 || a.max_connections == 0 {
        bail!("--timeout and --max-connections must be at least 1");
    }
    if a.timeout > MAX_TIMEOUT {
        bail!("--timeout {}: at most {MAX_TIMEOUT} seconds (a day)", a.timeout);
    }
    let jobs = jobs::Jobs::new(workers, a.queue);
    let state = if a.world {
        api::State::world(jobs)?
    } else {
        let path = a.path.clone().context("give a terrain file or --world")?;
        api::State::terrain(&path, jobs)?
    };
    let limits = conn::Limits {
        max_connections: a.max_connections.min(crate::open_files::limit().saturating_sub(64).max(1)),
        header_timeout: Duration::from_secs(a.timeout),
        send_timeout: Duration::from_secs(a.timeout),
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the server")?;
    let served = rt.block_on(async move {
        let addr = SocketAddr::new(a.host, a.port);
        let listener = match listen(addr) {
            Ok(l) => l,
            Err(e) => bail!("cannot listen on {addr}: {e}"),
        };
        let local = listener.local_addr()?;
        // The one line a script waits for.
        println!("landfall serve: http://{local}/ ({}; Ctrl-C to stop)", state.describe());
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        conn::serve(listener, api::router(state), limits, stop).await;
        Ok(())
    });
    // Ctrl-C: the connections are closed; work still running on a worker is not waited for.
    rt.shutdown_background();
    served
}

/// A listening socket with a deep accept queue (a burst of connections waits for the accept loop
/// instead of being dropped, which costs a client a one-second SYN retry).
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// `--host`: an IP address, or a name resolved to its first address (`localhost`: 127.0.0.1 or ::1).
fn parse_host(s: &str) -> Result<IpAddr, String> {
    if let Ok(ip) = s.parse() {
        return Ok(ip);
    }
    use std::net::ToSocketAddrs;
    let mut found = (s, 0).to_socket_addrs().map_err(|e| format!("`{s}`: not an IP address, nor a host name: {e}"))?;
    found.next().map(|a| a.ip()).ok_or_else(|| format!("`{s}`: the name has no address"))
}
