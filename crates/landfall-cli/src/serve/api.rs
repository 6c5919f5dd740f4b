//! The server's state and its endpoints. Every query parameter is checked and a bad one is a 400
//! whose message names it; nothing a request sends can make the server panic or read a file.

use super::jobs::{bad, held, ApiError, Jobs};
use super::{crowd, instances, mesh, path, tiles};
use axum::body::Body;
use axum::extract::{Query, State as Extract};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use landfall::collide::Shape;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::geo::GeoSurface;
use landfall::glam::{DVec2, DVec3};
use landfall::support::ColourMap;
use landfall::support::Num;
use landfall::viewshed::{
    Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, ViewshedSurface,
};
use landfall::world::{obstacles, CacheParams, LodTerrain, ObjectParams, Objects, World, WorldParams};
use landfall::{Ray, Terrain};
use landfall_io::AnyTerrain;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// What the server shows, and the pool its heavy work goes through.
pub struct State {
    kind: Kind,
    jobs: Jobs,
    /// The terrain's file, when it may be a mapped index (checked after each answer).
    path: Option<std::path::PathBuf>,
}

#[allow(clippy::large_enum_variant)] // one per server
enum Kind {
    /// A terrain file, its display mesh made on first request.
    Terrain { t: AnyTerrain, name: String, mesh: OnceLock<Vec<u8>> },
    /// The procedural world around the camera.
    World(Mutex<WorldView>),
}

/// The world, the version of each region of its drawn mesh, the objects, and the walker.
struct WorldView {
    world: World,
    version: u64,
    /// (layer, region) → (hash of its mesh, the version it last changed in).
    regions: HashMap<(u8, usize), (u64, u64)>,
    /// The objects of the cached cells and the roaming entities (`landfall world --objects`).
    objects: Objects,
    /// Bumped whenever an object appears, goes or moves.
    objects_version: u64,
    walker: DVec3,
    grounded: bool,
    /// A crowd whose behaviours' detail follows the camera (`crowd.rs`).
    crowd: crowd::Crowd,
}

impl WorldView {
    /// Brings the regions' versions up to date: a region whose mesh (vertices at their drawn
    /// heights, triangles, origin) hashes differently from before changed in this version.
    fn track(&mut self) {
        self.version += 1;
        let v = self.version;
        let mut now = HashMap::new();
        for m in self.world.meshes() {
            for (r, region) in m.regions().iter().enumerate() {
                let h = region_hash(m.origin.to_array(), region);
                let version = match self.regions.get(&(m.level, r)) {
                    Some(&(old, ver)) if old == h => ver,
                    _ => v,
                };
                now.insert((m.level, r), (h, version));
            }
        }
        self.regions = now;
    }
}

/// A hash of a region's drawn mesh.
fn region_hash(origin: [f64; 2], r: &landfall::world::Region) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    origin.map(f64::to_bits).hash(&mut h);
    for v in &r.vertices {
        [v.pos[0], v.pos[1], v.drawn_z()].map(f32::to_bits).hash(&mut h);
    }
    r.indices.hash(&mut h);
    h.finish()
}

impl State {
    /// A terrain file, opened as every command opens it.
    pub fn terrain(path: &Path, jobs: Jobs) -> anyhow::Result<Arc<Self>> {
        let opened = landfall_io::open_terrain(path, &landfall_io::TerrainOptions::default())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for n in &opened.notes {
            eprintln!("landfall: note: {}: {n}", path.display());
        }
        let name = path.file_name().map_or("terrain".into(), |n| n.to_string_lossy().into_owned());
        let state = Self { kind: Kind::Terrain { t: opened.terrain, name, mesh: OnceLock::new() }, jobs, path: None };
        Ok(Arc::new(Self { path: Some(path.to_owned()), ..state }))
    }

    /// A terrain already loaded, shown as `name`.
    pub fn of(t: AnyTerrain, name: String, jobs: Jobs) -> Arc<Self> {
        Arc::new(Self { kind: Kind::Terrain { t, name, mesh: OnceLock::new() }, jobs, path: None })
    }

    /// An error when the terrain's index file changed in place under the server (its answers since
    /// are void: `docs/robustness.md`, mapped files).
    fn unchanged(&self) -> Result<(), ApiError> {
        match &self.path {
            Some(p) => {
                landfall_io::check_mapped(p).map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
            }
            None => Ok(()),
        }
    }

    /// The procedural world (the thesis' configuration), a walker standing at the origin.
    pub fn world(jobs: Jobs) -> anyhow::Result<Arc<Self>> {
        let params = WorldParams::default();
        let far = LodTerrain::new(landfall::world::Generator::new(params.clone())?, 4, 16);
        let ground = far.height_at(0.3, 0.7).unwrap_or(0.0);
        let walker = DVec3::new(0.3, 0.7, ground + 1.0);
        let world = World::new(params, CacheParams::default(), walker + DVec3::Z * 1.0)?;
        let objects = Objects::new(&world, ObjectParams::default())?;
        let crowd = crowd::Crowd::new(walker.truncate())?;
        let mut view = WorldView {
            world,
            version: 0,
            regions: HashMap::new(),
            objects,
            objects_version: 1,
            walker,
            grounded: false,
            crowd,
        };
        view.track();
        Ok(Arc::new(Self { kind: Kind::World(Mutex::new(view)), jobs, path: None }))
    }

    /// A few words on what is served.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Terrain { name, .. } => name.clone(),
            Kind::World(_) => "the procedural world".into(),
        }
    }
}

type Params = Query<HashMap<String, String>>;
type Shared = Extract<Arc<State>>;

/// Query parameter `name` as a finite number.
fn num(q: &HashMap<String, String>, name: &str) -> Result<f64, ApiError> {
    let v = q.get(name).ok_or_else(|| bad(format!("{name}: missing")))?;
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| bad(format!("{name}: '{}' is not a finite number", landfall_io::quote(v))))
}

fn point(q: &HashMap<String, String>, p: &str) -> Result<DVec3, ApiError> {
    Ok(DVec3::new(num(q, &format!("{p}x"))?, num(q, &format!("{p}y"))?, num(q, &format!("{p}z"))?))
}

/// Runs `f` off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

fn binary(body: Body) -> Response {
    ([(header::CONTENT_TYPE, "application/octet-stream")], body).into_response()
}

fn asset(kind: &'static str, body: &'static [u8]) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// The routes.
pub fn router(state: Arc<State>) -> Router {
    const JS: &str = "text/javascript; charset=utf-8";
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", include_bytes!("../../assets/viewer/index.html")) }),
        )
        .route("/viewer.js", get(|| async { asset(JS, include_bytes!("../../assets/viewer/viewer.js")) }))
        .route(
            "/vendor/three.module.min.js",
            get(|| async { asset(JS, include_bytes!("../../assets/viewer/vendor/three.module.min.js")) }),
        )
        .route(
            "/vendor/OrbitControls.js",
            get(|| async { asset(JS, include_bytes!("../../assets/viewer/vendor/OrbitControls.js")) }),
        )
        .route("/api/info", get(info))
        .route("/api/mesh", get(terrain_mesh))
        .route("/api/tile", get(tile))
        .route("/api/height", get(height))
        .route("/api/raycast", get(raycast))
        .route("/api/visible", get(visible))
        .route("/api/viewshed", get(viewshed))
        .route("/api/world/update", get(world_update))
        .route("/api/world/region", get(world_region))
        .route("/api/world/walk", get(world_walk))
        .route("/api/world/objects", get(world_objects))
        .route("/api/world/instances", get(world_instances))
        .route("/api/world/path", get(world_path))
        .route("/api/world/crowd", get(world_crowd))
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page".into()) })
        .layer(axum::middleware::from_fn_with_state(state.clone(), void_if_changed))
        .with_state(state)
}

/// Replaces an answer by a 500 naming the file when the terrain's mapped index changed in place
/// while it was computed.
async fn void_if_changed(
    Extract(s): Shared,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let answer = next.run(request).await;
    match s.unchanged() {
        Ok(()) => answer,
        Err(e) => e.into_response(),
    }
}

async fn info(Extract(s): Shared) -> Result<Json<Value>, ApiError> {
    blocking(move || match &s.kind {
        Kind::Terrain { t, name, .. } => {
            let b = t.as_dyn().bounds();
            // A raster comes in level-of-detail tiles (/api/tile; its grid's origin and spacing in
            // degrees for a raster in degrees, drawn in metres in its east-north-up frame), anything
            // else as one mesh.
            let (raster, geographic) = match t {
                AnyTerrain::Heightfield(h) => (Some(h), Value::Null),
                AnyTerrain::Geographic(g) => {
                    let o = g.frame().origin();
                    (Some(g.heightfield()), json!({ "enu_origin": { "lon": o.lon, "lat": o.lat, "h": o.h } }))
                }
                AnyTerrain::Polygons(_) => (None, Value::Null),
            };
            let hf = raster.map(|h| json!({ "nx": h.nx(), "ny": h.ny() }));
            let tiles = raster.map(|h| {
                let l = tiles::Layout::new(h.nx(), h.ny());
                json!({ "size": tiles::TILE, "top": l.top, "counts": (0..=l.top).map(|k| l.count(k)).collect::<Vec<_>>(),
                    "origin": h.origin().to_array(), "spacing": h.spacing().to_array() })
            });
            // The heights (not the frame's z, which the Earth's curvature lowers away from the centre).
            let (lo, hi) = match raster {
                Some(h) => h.height_range().map_or((0.0, 1.0), |(a, b)| (a as f64, b as f64)),
                None => (b.min.z, b.max.z),
            };
            // x, y in degrees on a plain heightfield (no CRS said so): drawn at true proportions.
            let degrees = matches!(t, AnyTerrain::Heightfield(_)) && crate::geo::is_geographic(&b, None);
            json!({
                "kind": "terrain", "name": name, "heightfield": hf, "tiles": tiles, "geographic": geographic,
                "bounds": [b.min.to_array(), b.max.to_array()], "heights": [lo, hi],
                "degrees": degrees, "metres": crate::geo::metres_per_unit(&b, degrees),
                "legend": legend(&ColourMap::for_range(lo, hi), lo, hi),
            })
        }
        Kind::World(w) => {
            let w = w.lock().unwrap_or_else(|e| e.into_inner());
            let b = w.world.mesh_bounds();
            let top = w.world.generator().max_abs_height();
            json!({
                "kind": "world", "bounds": [b.min.to_array(), b.max.to_array()],
                "walker": w.walker.to_array(), "layers": w.world.cache_params().layers,
                "degrees": false, "metres": [1.0, 1.0],
                // The regions' colour map, over the heights of the drawn mesh.
                "legend": legend(&ColourMap::for_range(-top, top), b.min.z, b.max.z),
            })
        }
    })
    .await
    .map(Json)
}

/// The colour map on flat ground at heights from `lo` to `hi`: `[height, r, g, b]` stops for the
/// page's legend (steep ground is rock whatever its height).
fn legend(map: &ColourMap, lo: f64, hi: f64) -> Vec<[f64; 4]> {
    // Evenly spaced, and both sides of the shore (the colours jump there).
    let mut heights: Vec<f64> = (0..=16).map(|k| lo + (hi - lo) * k as f64 / 16.0).collect();
    if lo < map.sea && map.sea < hi {
        heights.extend([map.sea - 1e-9 * (hi - lo), map.sea]);
        heights.sort_by(f64::total_cmp);
    }
    heights
        .into_iter()
        .map(|h| {
            let [r, g, b] = map.colour(h, 1.0);
            [h, r as f64, g as f64, b as f64]
        })
        .collect()
}

/// One level-of-detail tile of a heightfield (see `tiles.rs`), in the mesh layout.
async fn tile(Extract(s): Shared, Query(q): Params) -> Result<Response, ApiError> {
    let (level, i, j) = (num(&q, "level")?, num(&q, "i")?, num(&q, "j")?);
    let whole = |v: f64, name: &str| {
        (v.fract() == 0.0 && (0.0..1e9).contains(&v))
            .then_some(v as usize)
            .ok_or_else(|| bad(format!("{name}: {} is not a tile index", Num(v))))
    };
    let (level, i, j) = (whole(level, "level")?.min(255) as u8, whole(i, "i")?, whole(j, "j")?);
    let bytes = blocking(move || {
        let src = match &s.kind {
            Kind::Terrain { t: AnyTerrain::Heightfield(hf), .. } => {
                let b = hf.bounds();
                tiles::Source::Plain(hf, crate::geo::metres_per_unit(&b, crate::geo::is_geographic(&b, None)))
            }
            Kind::Terrain { t: AnyTerrain::Geographic(g), .. } => tiles::Source::Geo(g),
            _ => return Err(bad("tiles are made of rasters; this terrain comes whole from /api/mesh")),
        };
        let hf = src.hf();
        let (lo, hi) = hf.height_range().map_or((0.0, 1.0), |(a, b)| (a as f64, b as f64));
        let layout = tiles::Layout::new(hf.nx(), hf.ny());
        let part =
            tiles::tile(src, &layout, level, i, j, &ColourMap::for_range(lo, hi)).map_err(|e| bad(e.to_string()))?;
        Ok(mesh::encode(&part))
    })
    .await??;
    Ok(binary(Body::from(bytes)))
}

async fn terrain_mesh(Extract(s): Shared) -> Result<Response, ApiError> {
    let st = s.clone();
    let (bytes, worker) = st
        .jobs
        .run(move |_| match &s.kind {
            Kind::Terrain { t, mesh: m, .. } => {
                let part = || match t {
                    AnyTerrain::Heightfield(h) => mesh::terrain_mesh(t.as_dyn(), Some(h)),
                    AnyTerrain::Polygons(_) => mesh::terrain_mesh(t.as_dyn(), None),
                    AnyTerrain::Geographic(g) => mesh::geo_mesh(g),
                };
                let bytes = m.get_or_init(|| part().map(|p| mesh::encode(&p)).unwrap_or_default());
                if bytes.is_empty() {
                    Err(ApiError(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "the terrain is too large to draw as one mesh".into(),
                    ))
                } else {
                    Ok(bytes.clone())
                }
            }
            Kind::World(_) => Err(bad("the world is sent by regions: /api/world/update, then /api/world/region")),
        })
        .await?;
    Ok(binary(held(bytes, worker)))
}

/// The terrain a query runs on: the file's, or the world's drawn mesh with its objects standing on
/// it (a click lands on a roof, a line of sight is blocked by a trunk).
fn with_terrain<T>(s: &State, f: impl FnOnce(&dyn Terrain) -> T) -> T {
    match &s.kind {
        Kind::Terrain { t, .. } => f(t.as_dyn()),
        Kind::World(w) => {
            let w = w.lock().unwrap_or_else(|e| e.into_inner());
            f(&w.objects.solids(&w.world))
        }
    }
}

async fn height(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    // On a raster in degrees the point may also be asked at its longitude and latitude.
    if q.contains_key("lon") || q.contains_key("lat") {
        let (lon, lat) = (num(&q, "lon")?, num(&q, "lat")?);
        return blocking(move || {
            let g = geographic(&s).ok_or_else(|| bad("lon, lat: the terrain is not in degrees; ask at x, y"))?;
            Ok(match g.surface_at(lon, lat) {
                Some(p) => json!({ "height": p.enu.z, "normal": p.normal.to_array(), "point": p.enu.to_array(),
                    "geodetic": { "lon": p.geodetic.lon, "lat": p.geodetic.lat, "h": p.geodetic.h } }),
                None => json!({ "height": null }),
            })
        })
        .await?
        .map(Json);
    }
    let (x, y) = (num(&q, "x")?, num(&q, "y")?);
    blocking(move || {
        with_terrain(&s, |t| match t.top_surface(DVec3::new(x, y, 0.0)) {
            Some(sp) => with_geodetic(&s, sp.point, json!({ "height": sp.point.z, "normal": sp.normal.to_array() })),
            None => json!({ "height": null }),
        })
    })
    .await
    .map(Json)
}

/// The surface in degrees being served, if it is one.
fn geographic(s: &State) -> Option<&GeoSurface> {
    match &s.kind {
        Kind::Terrain { t: AnyTerrain::Geographic(g), .. } => Some(g),
        _ => None,
    }
}

/// The geodetic position (longitude in the grid's turn and latitude in degrees, height above the
/// WGS84 ellipsoid in metres) of a point of `g`'s east-north-up frame.
fn geodetic(g: &GeoSurface, enu: DVec3) -> Value {
    let p = g.frame().enu_to_geodetic(enu);
    json!({ "lon": g.wrap_lon(p.lon), "lat": p.lat, "h": p.h })
}

/// `answer` with the geodetic position of `enu` added when the terrain is in degrees (its x, y, z
/// are metres in its east-north-up frame).
fn with_geodetic(s: &State, enu: DVec3, mut answer: Value) -> Value {
    if let Some(g) = geographic(s) {
        answer["geodetic"] = geodetic(g, enu);
    }
    answer
}

async fn raycast(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let (o, d) = (point(&q, "o")?, point(&q, "d")?);
    let max_t = if q.contains_key("max") { num(&q, "max")? } else { f64::INFINITY };
    let ray = Ray::new(o, d);
    ray.validate(max_t).map_err(|e| bad(format!("ray: {e}")))?;
    blocking(move || {
        with_terrain(&s, |t| match t.raycast(&ray, max_t) {
            Some(h) => with_geodetic(
                &s,
                h.point,
                json!({ "hit": true, "t": h.t, "point": h.point.to_array(), "normal": h.normal.to_array() }),
            ),
            None => json!({ "hit": false }),
        })
    })
    .await
    .map(Json)
}

async fn visible(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let (a, b) = (point(&q, "a")?, point(&q, "b")?);
    for (name, p) in [("a", a), ("b", b)] {
        if p.abs().max_element() > landfall::PolygonTerrain::MAX_COORDINATE {
            return Err(bad(format!("{name}: a coordinate beyond ±1e150 (landfall's coordinate range)")));
        }
    }
    blocking(move || {
        with_terrain(&s, |t| {
            let blocked = landfall::segment_crossing(t, a, b).map(|s| a + (b - a) * s);
            let answer = json!({ "visible": blocked.is_none(), "blocked_at": blocked.map(|p| p.to_array()) });
            match blocked {
                Some(p) => with_geodetic(&s, p, answer),
                None => answer,
            }
        })
    })
    .await
    .map(Json)
}

/// The viewshed of one observer as `LFV1`, the grid's size (2 × u32), its origin and spacing (4 ×
/// f64: x, y of sample (0, 0), then the steps; degrees for a raster in degrees), then one byte a
/// sample (1 visible, 0 hidden, 255 nodata), rows from the south. The observer is at x, y (the
/// terrain's coordinates: metres of its east-north-up frame for a raster in degrees), or at lon,
/// lat on a raster in degrees; h metres above the ground (1.75 by default). As `landfall viewshed`'s
/// options of the same names: `target` (metres above each sample, 0), `max_distance` (metres, none),
/// `curvature` (1 or 0: lower the samples for the Earth's curvature on a projected raster; off) and
/// `refraction` (K, 1/7). In degrees the lines of sight are straight on the WGS84 ellipsoid, with the
/// refraction K, as `landfall viewshed` draws them. A bad value is a 400 naming the parameter.
async fn viewshed(Extract(s): Shared, Query(q): Params) -> Result<Response, ApiError> {
    let at = if q.contains_key("lon") || q.contains_key("lat") {
        Where::Geodetic(num(&q, "lon")?, num(&q, "lat")?)
    } else {
        Where::Terrain(num(&q, "x")?, num(&q, "y")?)
    };
    let or = |name: &str, default: f64| if q.contains_key(name) { num(&q, name) } else { Ok(default) };
    let defaults = ViewshedParams::default();
    let curvature = match q.get("curvature").map(String::as_str) {
        None | Some("0") => false,
        Some("1") => true,
        Some(v) => return Err(bad(format!("curvature: '{}' (expected 1 or 0)", landfall_io::quote(v)))),
    };
    let params = defaults
        .clone()
        .with_observer_height(or("h", defaults.observer_height)?)
        .with_target_height(or("target", defaults.target_height)?)
        .with_max_distance(or("max_distance", defaults.max_distance)?)
        .with_curvature(curvature)
        .with_refraction(or("refraction", defaults.refraction)?);
    let st = s.clone();
    let (bytes, worker) = st
        .jobs
        .run(move |cancel| {
            let Kind::Terrain { t, .. } = &s.kind else {
                return Err(bad("viewsheds are computed on rasters (a grid of samples), not the world"));
            };
            // The answer is one byte a sample: a sparse index may span far more than it holds.
            if let Some(hf) = t.heightfield() {
                landfall_io::Limits::default().check_answer(hf.nx(), hf.ny(), 1, false).map_err(bad)?;
            }
            // The cancel flag is raised when the client goes: the sweep stops between its parts.
            let hooks = Hooks::default().with_cancel(cancel);
            let (hf, surface, o): (_, &dyn ViewshedSurface, _) = match (t, at) {
                (AnyTerrain::Geographic(g), at) => {
                    let (lon, lat) = match at {
                        Where::Geodetic(lon, lat) => (lon, lat),
                        Where::Terrain(x, y) => {
                            let ground = g.top_surface(DVec3::new(x, y, 0.0)).ok_or_else(|| {
                                bad(format!(
                                    "x, y: no ground at ({}, {}) (the terrain covers {}: metres east and north of \
                                     its centre)",
                                    Num(x),
                                    Num(y),
                                    g.bounds().xy_extent()
                                ))
                            })?;
                            let p = g.frame().enu_to_geodetic(ground.point);
                            (p.lon, p.lat)
                        }
                    };
                    (g.heightfield(), g, Observer::at(lon, lat))
                }
                (AnyTerrain::Heightfield(hf), Where::Terrain(x, y)) => (hf, hf, Observer::at(x, y)),
                (AnyTerrain::Heightfield(_), Where::Geodetic(..)) => {
                    return Err(bad("lon, lat: the terrain is not in degrees; give x, y"))
                }
                (AnyTerrain::Polygons(_), _) => {
                    return Err(bad("viewsheds are computed on rasters (a grid of samples); this is a polygon terrain"))
                }
            };
            let v = match landfall::viewshed::viewshed(surface, &[o], &params, ViewshedMode::Visibility, &hooks) {
                Ok(ViewshedOutput::Visibility(v, _)) => v,
                Ok(_) => return Err(ApiError::internal("a visibility run answered something else".into())),
                Err(ViewshedError::Cancelled) => return Err(ApiError::gone()),
                Err(e @ (ViewshedError::ObserverOutside { .. } | ViewshedError::ObserverOverHole { .. })) => {
                    return Err(bad(format!("{e} (the terrain covers {})", hf.bounds().xy_extent())))
                }
                Err(e) => return Err(bad(e.to_string())),
            };
            let mut out = b"LFV1".to_vec();
            out.extend_from_slice(&(hf.nx() as u32).to_le_bytes());
            out.extend_from_slice(&(hf.ny() as u32).to_le_bytes());
            for v in [hf.origin().x, hf.origin().y, hf.spacing().x, hf.spacing().y] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&v.values);
            Ok(out)
        })
        .await?;
    Ok(binary(held(bytes, worker)))
}

/// Where a viewshed's observer stands.
#[derive(Clone, Copy)]
enum Where {
    /// At x, y of the terrain's coordinates.
    Terrain(f64, f64),
    /// At a longitude and latitude (degrees), on a raster in degrees.
    Geodetic(f64, f64),
}

fn world_of(s: &State) -> Result<std::sync::MutexGuard<'_, WorldView>, ApiError> {
    match &s.kind {
        Kind::World(w) => Ok(w.lock().unwrap_or_else(|e| e.into_inner())),
        Kind::Terrain { .. } => Err(bad("not serving the procedural world (landfall serve --world)")),
    }
}

/// The drawn mesh's regions and their versions (a region's version changes when its mesh does).
fn regions(w: &WorldView) -> Value {
    let mut list: Vec<(u8, usize, u64)> = w.regions.iter().map(|(&(l, r), &(_, v))| (l, r, v)).collect();
    list.sort_unstable();
    let drawn: Vec<Value> = list
        .into_iter()
        .map(|(level, region, version)| json!({ "level": level, "region": region, "version": version }))
        .collect();
    json!({
        "version": w.version, "regions": drawn, "walker": w.walker.to_array(), "viewer": w.world.viewer().to_array(),
        "objects": { "version": w.objects_version, "count": w.objects.len(), "entities": w.objects.entities().count() },
    })
}

async fn world_update(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let p = point(&q, "")?;
    let st = s.clone();
    st.jobs
        .run(move |_| {
            let mut w = world_of(&s)?;
            let limit = 1e9;
            if p.x.abs() > limit || p.y.abs() > limit {
                return Err(bad("x, y: beyond ±10⁹ m"));
            }
            let far = (p - w.world.viewer()).truncate().length() > 1000.0;
            let stats = if far { w.world.teleport(p) } else { w.world.update(p) }.map_err(|e| bad(e.to_string()))?;
            if stats.regions_rebuilt > 0 || stats.layers_changed != 0 {
                w.track();
            }
            // The objects follow the cache; the roaming entities walk a step (the page asks about four
            // times a second).
            let w = &mut *w;
            let sync = w.objects.sync(&w.world);
            w.objects.step(&w.world, 0.25);
            if sync.generated + sync.dropped > 0 || w.objects.entities().next().is_some() {
                w.objects_version += 1;
            }
            Ok(regions(w))
        })
        .await
        .map(|(v, _)| Json(v))
}

async fn world_region(Extract(s): Shared, Query(q): Params) -> Result<Response, ApiError> {
    let (level, region) = (num(&q, "level")?, num(&q, "region")?);
    let st = s.clone();
    let (bytes, worker) = st
        .jobs
        .run(move |_| {
            let w = world_of(&s)?;
            let m = w.world.meshes().find(|m| m.level as f64 == level).ok_or_else(|| {
                bad(format!("level: {} is not a drawn layer ({:?})", Num(level), w.world.drawn_layers()))
            })?;
            let r = (region.fract() == 0.0 && (0.0..3.0).contains(&region))
                .then(|| m.regions()[region as usize])
                .ok_or_else(|| bad(format!("region: {} (0 outer ring, 1 inner, 2 seam)", Num(region))))?;
            let mut part = landfall_io::MeshPart {
                name: format!("layer {level} region {region}"),
                origin: [m.origin.x, m.origin.y, 0.0],
                positions: r.vertices.iter().map(|v| [v.pos[0], v.pos[1], v.drawn_z()]).collect(),
                indices: r.indices.clone(),
                ..landfall_io::MeshPart::default()
            };
            let top = w.world.generator().max_abs_height();
            part.paint(&landfall::support::ColourMap::for_range(-top, top));
            Ok(mesh::encode(&part))
        })
        .await?;
    Ok(binary(held(bytes, worker)))
}

/// The objects and roaming entities as one mesh: each triangle of their collision shapes (what
/// rays and the walker collide with) flat-shaded in its kind's colour, entities in red.
async fn world_objects(Extract(s): Shared) -> Result<Response, ApiError> {
    let st = s.clone();
    let (bytes, worker) = st
        .jobs
        .run(move |_| {
            let w = world_of(&s)?;
            let origin = w.world.viewer();
            let mut part = landfall_io::MeshPart {
                name: "objects".into(),
                origin: origin.to_array(),
                ..landfall_io::MeshPart::default()
            };
            let mut add = |tri: [DVec3; 3], colour: DVec3| {
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero().as_vec3().to_array();
                for p in tri {
                    part.indices.push(part.positions.len() as u32);
                    part.positions.push((p - origin).as_vec3().to_array());
                    part.normals.push(n);
                    part.colors.push(colour.as_vec3().to_array());
                }
            };
            for (_, o) in w.objects.iter() {
                let colour = crate::world_map::kind_colour(o.kind as usize);
                for k in 0..o.shape.triangle_count() {
                    add(o.shape.triangle(k), colour);
                }
            }
            for e in w.objects.entities() {
                let ball = landfall::world::Shape::Sphere { c: e.position, r: 0.5 };
                for k in 0..ball.triangle_count() {
                    add(ball.triangle(k), DVec3::new(0.85, 0.1, 0.1));
                }
            }
            Ok(mesh::encode(&part))
        })
        .await?;
    Ok(binary(held(bytes, worker)))
}

/// The objects and entities as instances for the page to dress as trees, houses and rocks.
async fn world_instances(Extract(s): Shared) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let w = world_of(&s)?;
        Ok(instances::instances(&w.objects, w.world.viewer()))
    })
    .await?
    .map(Json)
}

/// A frame of the crowd for the camera at `x, y` looking along `dx, dy`, seeing `half` radians
/// either side (`crowd.rs`).
async fn world_crowd(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let (eye, look) = (DVec2::new(num(&q, "x")?, num(&q, "y")?), DVec2::new(num(&q, "dx")?, num(&q, "dy")?));
    let half = num(&q, "half")?;
    if eye.abs().max_element() > 1e9 {
        return Err(bad("x, y: beyond ±10⁹ m"));
    }
    if !(half > 0.0 && half <= std::f64::consts::PI) {
        return Err(bad(format!("half: {} is not an angle in (0, π] radians", Num(half))));
    }
    blocking(move || {
        let mut w = world_of(&s)?;
        let WorldView { world, crowd, .. } = &mut *w;
        crowd.frame(&*world, eye, look, half)
    })
    .await?
    .map(Json)
}

/// A path between two points for an agent of a radius (`path.rs`): `ax, ay` to `bx, by`,
/// `radius` metres (0.3 to 30), `max_slope` degrees (35 by default).
async fn world_path(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let (a, b) = (DVec2::new(num(&q, "ax")?, num(&q, "ay")?), DVec2::new(num(&q, "bx")?, num(&q, "by")?));
    let max_slope = if q.contains_key("max_slope") { num(&q, "max_slope")? } else { 35.0 };
    let agent = path::agent(num(&q, "radius")?, max_slope)?;
    let st = s.clone();
    st.jobs
        .run(move |_| {
            // What the planner needs is copied out; the world is not held while it plans.
            let (ground, discs, bounds) = {
                let w = world_of(&s)?;
                let ground = LodTerrain::new(w.world.generator().clone(), w.world.cache_params().mesh_finest, 1024);
                (ground, obstacles(&w.objects, &agent), w.world.mesh_bounds())
            };
            path::plan(&ground, &discs, bounds, agent, a, b)
        })
        .await
        .map(|(v, _)| Json(v))
}

async fn world_walk(Extract(s): Shared, Query(q): Params) -> Result<Json<Value>, ApiError> {
    let (dx, dy) = (num(&q, "dx")?, num(&q, "dy")?);
    if dx.hypot(dy) > 10.0 {
        return Err(bad("dx, dy: at most 10 m a step"));
    }
    blocking(move || {
        let mut w = world_of(&s)?;
        let ctl = CharacterController::new(
            ControllerParams::default().with_shape(Shape::Capsule { half_height: 0.5 }).with_radius(0.4),
            DVec3::Z,
        )
        .expect("the walker's fixed controller parameters are valid");
        let m = ctl.move_by(&TerrainSweep(&w.objects.solids(&w.world)), w.walker, DVec3::new(dx, dy, -0.5), w.grounded);
        w.walker = m.position;
        w.grounded = m.grounded;
        Ok(json!({ "walker": m.position.to_array(), "grounded": m.grounded }))
    })
    .await?
    .map(Json)
}
