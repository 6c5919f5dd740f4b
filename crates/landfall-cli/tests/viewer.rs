//! `landfall serve`: its endpoints (answers equal to the library's, bad parameters a 400 with a
//! message, requests outside the terrain, many clients at once) and the page in headless Chromium
//! (the first frame shows terrain; a click shows the exact height under it; each control and
//! overlay does what it says; a large DEM comes in tiles of several levels). The browser part is
//! skipped with a visible line when `chromium` is not installed (`apt-get install chromium`), and
//! fails in CI.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_landfall")
}

fn dem() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz")
}

/// A server on a free port; killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(bin())
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.split("http://").nth(1).unwrap().split('/').next().unwrap().to_string();
        Self { child, addr }
    }

    /// GET `path`: (status, body).
    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut body = raw[split + 4..].to_vec();
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            body = unchunk(&body);
        }
        (status, body)
    }

    fn json(&self, path: &str) -> (u16, serde_json::Value) {
        let (s, b) = self.get(path);
        (s, serde_json::from_slice(&b).unwrap_or(serde_json::Value::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..end]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + n]);
        b = &b[end + 2 + n + 2..];
    }
}

#[test]
fn endpoints_answer_as_the_library_and_refuse_bad_requests() {
    let server = Server::start(&[dem().to_str().unwrap()]);
    let t = landfall_io::open_terrain(&dem(), &landfall_io::TerrainOptions::default()).unwrap().terrain;
    let t = t.as_dyn();
    // Heights from many clients at once equal the library's, bit for bit.
    let answers: Vec<(f64, f64, serde_json::Value)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..16)
            .map(|c| {
                let server = &server;
                sc.spawn(move || {
                    (0..15)
                        .map(|k| {
                            // The DEM is in degrees: the viewer works in metres in its east-north-up frame.
                            let (x, y) =
                                (-140_000.0 + (c * 15 + k) as f64 * 1170.0, -100_000.0 + (k as f64) * 13_000.0);
                            let (status, v) = server.json(&format!("/api/height?x={x}&y={y}"));
                            assert_eq!(status, 200);
                            (x, y, v)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(answers.len(), 240);
    for (x, y, v) in answers {
        let want = t.top_surface(landfall::glam::DVec3::new(x, y, 0.0)).map(|s| s.point.z);
        assert_eq!(v["height"].as_f64(), want, "at ({x}, {y})");
    }
    // A ray's hit is the library's.
    let (s, v) = server.json("/api/raycast?ox=1000&oy=2000&oz=3000&dx=0.1&dy=0.2&dz=-1");
    assert_eq!(s, 200);
    let ray = landfall::Ray::new(
        landfall::glam::DVec3::new(1000.0, 2000.0, 3000.0),
        landfall::glam::DVec3::new(0.1, 0.2, -1.0),
    );
    let h = t.raycast(&ray, f64::INFINITY).expect("the ray hits");
    assert_eq!(v["t"].as_f64(), Some(h.t));
    // Outside the terrain: no ground, no hit.
    assert!(server.json("/api/height?x=1e7&y=0").1["height"].is_null());
    assert_eq!(server.json("/api/raycast?ox=1e7&oy=0&oz=10&dx=1&dy=0&dz=0").1["hit"], false);
    // Line of sight over the strait, blocked through the mountains.
    let (s, v) = server.json("/api/visible?ax=-110000&ay=90000&az=3000&bx=110000&by=-90000&bz=3000");
    assert_eq!(s, 200);
    assert!(v["visible"].is_boolean());
    // Bad parameters: 400 with a message naming the parameter; unknown pages: 404.
    for (path, word) in [
        ("/api/height?x=1", "y: missing"),
        ("/api/height?x=abc&y=1", "x: 'abc'"),
        ("/api/height?x=nan&y=1", "x: 'nan'"),
        ("/api/raycast?ox=0&oy=0&oz=0&dx=0&dy=0&dz=0", "direction"),
        ("/api/raycast?ox=0&oy=0&oz=0&dx=1&dy=0&dz=0&max=-1", "max"),
        // From beyond ±1e150 a line's answer keeps none of the terrain's digits.
        ("/api/raycast?ox=-4e307&oy=-4e307&oz=-4e307&dx=1&dy=1&dz=1", "1e150"),
        ("/api/visible?ax=0&ay=0&az=0&bx=9e307&by=9e307&bz=9e307", "b: a coordinate beyond ±1e150"),
        ("/api/viewshed?x=1", "y: missing"),
        ("/api/viewshed?x=0&y=0&max_distance=0", "max distance"),
        ("/api/world/update?x=0&y=0&z=0", "procedural world"),
    ] {
        let (s, v) = server.json(path);
        assert_eq!(s, 400, "{path}");
        assert!(v["error"].as_str().unwrap().contains(word), "{path}: {v}");
    }
    // A bad parameter's message is about it alone.
    let (_, v) = server.json("/api/viewshed?x=0&y=0&max_distance=0");
    assert!(!v["error"].as_str().unwrap().contains("terrain covers"), "{v}");
    // A long bad value is quoted cut short, not echoed whole.
    let (s, v) = server.json(&format!("/api/height?x={}&y=1", "9".repeat(400) + "z"));
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().len() < 120, "{v}");
    assert_eq!(server.get("/../../etc/passwd").0, 404);
    assert_eq!(server.get("/data/topobathy.npz").0, 404);
    // The mesh and the viewshed come as binary.
    let (s, mesh) = server.get("/api/mesh");
    assert_eq!((s, &mesh[..4]), (200, &b"LFM1"[..]));
    let (s, info) = server.json("/api/info");
    assert_eq!(s, 200);
    assert!(info["geographic"]["enu_origin"]["lat"].as_f64().is_some_and(|l| (l - 49.0).abs() < 0.01));
}

/// A raster in degrees over HTTP: every answer in metres on the ellipsoid as the library (and the
/// CLI) gives it — heights asked at x, y of the east-north-up frame or at lon, lat, each with its
/// geodetic position; rays and lines of sight in the frame; the viewshed from an observer at x, y or
/// at lon, lat equal to the library's `viewshed` on the `GeoSurface`, byte for byte; bad or misplaced observers a 400 naming why.
#[test]
fn a_raster_in_degrees_is_answered_in_metres_on_the_ellipsoid() {
    let server = Server::start(&[dem().to_str().unwrap()]);
    let opened = landfall_io::open_terrain(&dem(), &landfall_io::TerrainOptions::default()).unwrap().terrain;
    let landfall_io::AnyTerrain::Geographic(g) = &opened else { panic!("topobathy.npz is in degrees") };
    let f64s =
        |v: &serde_json::Value| -> Vec<f64> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
    // At x, y in metres: the ground's geodetic position lies on the surface at its lon, lat.
    let (s, v) = server.json("/api/height?x=-20000&y=15000");
    assert_eq!(s, 200);
    let (lon, lat, h) = (
        v["geodetic"]["lon"].as_f64().unwrap(),
        v["geodetic"]["lat"].as_f64().unwrap(),
        v["geodetic"]["h"].as_f64().unwrap(),
    );
    let want = g.height_at(lon, lat).unwrap();
    assert!((h - want).abs() < 1e-6, "{h} against the surface's {want} at {lon}, {lat}");
    assert!((234.0..238.0).contains(&lon), "{lon}: not in the grid's turn of longitudes");
    // At lon, lat: the library's point, in the frame and geodetic.
    let (lon, lat) = (236.3, 48.7);
    let (s, v) = server.json(&format!("/api/height?lon={lon}&lat={lat}"));
    assert_eq!(s, 200);
    let p = g.surface_at(lon, lat).unwrap();
    assert_eq!(f64s(&v["point"]), p.enu.to_array().to_vec());
    assert_eq!(f64s(&v["normal"]), p.normal.to_array().to_vec());
    assert_eq!([lon, lat, p.geodetic.h].map(Some), ["lon", "lat", "h"].map(|k| v["geodetic"][k].as_f64()), "{v}");
    assert!(server.json("/api/height?lon=10&lat=10").1["height"].is_null());
    // A ray's hit carries its geodetic position, on the surface.
    let (_, v) = server.json("/api/raycast?ox=1000&oy=2000&oz=3000&dx=0.1&dy=0.2&dz=-1");
    let hit = &v["geodetic"];
    let want = g.height_at(hit["lon"].as_f64().unwrap(), hit["lat"].as_f64().unwrap()).unwrap();
    assert!((hit["h"].as_f64().unwrap() - want).abs() < 1e-6, "{v}");
    // The viewshed from x, y (metres) is the library's from the ground's lon, lat; from lon, lat too.
    use landfall::viewshed::{Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams};
    let viewshed_with = |lon: f64, lat: f64, p: ViewshedParams| -> Vec<u8> {
        let out =
            landfall::viewshed::viewshed(g, &[Observer::at(lon, lat)], &p, ViewshedMode::Visibility, &Hooks::default());
        let Ok(ViewshedOutput::Visibility(v, _)) = out else { panic!("{out:?}") };
        v.values
    };
    let viewshed =
        |lon: f64, lat: f64, h: f64| viewshed_with(lon, lat, ViewshedParams::default().with_observer_height(h));
    let grid = |bytes: &[u8]| -> (usize, usize, [f64; 4]) {
        let u = |k: usize| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap()) as usize;
        let f = |k: usize| f64::from_le_bytes(bytes[k..k + 8].try_into().unwrap());
        (u(4), u(8), [f(12), f(20), f(28), f(36)])
    };
    let hf = g.heightfield();
    let geo = [hf.origin().x, hf.origin().y, hf.spacing().x, hf.spacing().y];
    let (s, bytes) = server.get("/api/viewshed?x=1000&y=2000&h=50");
    assert_eq!((s, &bytes[..4]), (200, &b"LFV1"[..]));
    assert_eq!(grid(&bytes), (hf.nx(), hf.ny(), geo));
    let (_, ground) = server.json("/api/height?x=1000&y=2000");
    let (lon, lat) = (ground["geodetic"]["lon"].as_f64().unwrap(), ground["geodetic"]["lat"].as_f64().unwrap());
    let want = viewshed(lon, lat, 50.0);
    assert!(bytes[44..] == want[..], "the served viewshed differs from the library's");
    let seen = want.iter().filter(|&&v| v == 1).count();
    assert!(seen > 100 && want.contains(&0), "{seen} seen");
    let (s, bytes) = server.get("/api/viewshed?lon=236.2&lat=48.3");
    assert_eq!(s, 200);
    assert!(bytes[44..] == viewshed(236.2, 48.3, 1.75)[..], "lon, lat: the served viewshed differs from the library's");
    // The options of `landfall viewshed`, by the same names.
    let (s, bytes) = server.get("/api/viewshed?lon=236.2&lat=48.3&h=10&target=5&max_distance=20000&refraction=0");
    assert_eq!(s, 200);
    let p = ViewshedParams::default()
        .with_observer_height(10.0)
        .with_target_height(5.0)
        .with_max_distance(20_000.0)
        .with_refraction(0.0);
    let want = viewshed_with(236.2, 48.3, p);
    assert!(bytes[44..] == want[..], "with options: the served viewshed differs from the library's");
    assert!(want.iter().filter(|&&v| v == 1).count() < viewshed(236.2, 48.3, 10.0).iter().filter(|&&v| v == 1).count());
    for (path, word) in [
        ("/api/viewshed?lon=236.2&lat=48.3&max_distance=-1", "max distance: -1"),
        ("/api/viewshed?lon=236.2&lat=48.3&curvature=yes", "curvature: 'yes'"),
        ("/api/viewshed?lon=236.2&lat=48.3&target=x", "target: 'x'"),
        ("/api/viewshed?x=1e7&y=0", "no ground"),
        ("/api/viewshed?lon=10&lat=10", "outside"),
        ("/api/viewshed?lon=236.2", "lat: missing"),
        ("/api/viewshed?x=0&y=0&h=-1", "observer height"),
        ("/api/height?lon=236.2&lat=x", "lat: 'x'"),
    ] {
        let (s, v) = server.json(path);
        assert_eq!(s, 400, "{path}: {v}");
        assert!(v["error"].as_str().unwrap().contains(word), "{path}: {v}");
    }
}

#[test]
fn the_world_follows_the_camera_and_the_walker_walks() {
    let server = Server::start(&["--world"]);
    let (s, info) = server.json("/api/info");
    assert_eq!((s, info["kind"].as_str()), (200, Some("world")));
    let w = info["walker"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    let (s, first) = server.json(&format!("/api/world/update?x={}&y={}&z={}", w[0], w[1], w[2] + 2.0));
    assert_eq!(s, 200);
    let regions = first["regions"].as_array().unwrap().clone();
    assert!(regions.len() >= 15, "{first}");
    let (level, region) = (regions[0]["level"].as_u64().unwrap(), regions[0]["region"].as_u64().unwrap());
    let (s, bytes) = server.get(&format!("/api/world/region?level={level}&region={region}"));
    assert_eq!((s, &bytes[..4]), (200, &b"LFM1"[..]));
    // A small step changes few regions: the others keep their versions (and are not sent again).
    let (_, after) = server.json(&format!("/api/world/update?x={}&y={}&z={}", w[0] + 3.0, w[1], w[2] + 2.0));
    let after = after["regions"].as_array().unwrap().clone();
    let kept = regions.iter().filter(|r| after.contains(r)).count();
    assert!(kept * 2 > regions.len(), "{kept} of {} regions kept", regions.len());
    assert!(kept < regions.len() || after.len() != regions.len(), "a 3 m step changed nothing");
    // The walker moves with the character controller and stays on the ground.
    let mut p = w.clone();
    for _ in 0..20 {
        let (s, v) = server.json("/api/world/walk?dx=0.5&dy=0.2");
        assert_eq!(s, 200);
        p = v["walker"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    }
    assert!((p[0] - w[0]).hypot(p[1] - w[1]) > 3.0, "{p:?} from {w:?}");
    // The objects of the cached cells come as one mesh; a ray down onto the top of one lands on it
    // (clicks and rays see objects), not on the ground under it.
    let (_, now) = server.json(&format!("/api/world/update?x={}&y={}&z={}", p[0], p[1], p[2] + 2.0));
    assert!(now["objects"]["count"].as_u64().unwrap() > 100, "{}", now["objects"]);
    let (s, mesh) = server.get("/api/world/objects");
    assert_eq!((s, &mesh[..4]), (200, &b"LFM1"[..]));
    let u32_at = |k: usize| u32::from_le_bytes(mesh[k..k + 4].try_into().unwrap()) as usize;
    let f64_at = |k: usize| f64::from_le_bytes(mesh[k..k + 8].try_into().unwrap());
    let f32_at = |k: usize| f32::from_le_bytes(mesh[k..k + 4].try_into().unwrap()) as f64;
    let (n, ni) = (u32_at(4), u32_at(8));
    assert!(n > 1000 && ni == n && mesh.len() == 36 + n * 36 + ni * 4, "{n} vertices, {ni} indices");
    let origin = [f64_at(12), f64_at(20), f64_at(28)];
    let vertex = |v: usize| -> [f64; 3] { [0, 1, 2].map(|c| origin[c] + f32_at(36 + (3 * v + c) * 4)) };
    let normal_z = |v: usize| f32_at(36 + n * 12 + (3 * v + 2) * 4);
    let roof = (0..n / 3).find(|&t| normal_z(3 * t) > 0.9).expect("an object with a flat top");
    let c: Vec<f64> = (0..3).map(|k| (0..3).map(|v| vertex(3 * roof + v)[k]).sum::<f64>() / 3.0).collect();
    let (_, hit) = server.json(&format!("/api/raycast?ox={}&oy={}&oz={}&dx=0&dy=0&dz=-1", c[0], c[1], c[2] + 300.0));
    let z = hit["point"][2].as_f64().expect("the ray hits");
    assert!(z >= c[2] - 1e-3, "the ray went through the object's top at {} to {z}", c[2]);
    assert_eq!(server.json("/api/world/walk?dx=50&dy=0").0, 400);
    assert_eq!(server.json("/api/world/region?level=99&region=0").0, 400);
    assert_eq!(server.json("/api/world/region?level=5&region=3").0, 400);
    assert_eq!(server.json("/api/mesh").0, 400);
}

/// The objects' footprints with their heights, as the planner sees them (`landfall::world::footprint`
/// and `Shape::height`), from the instances the page draws: a trunk's radius and length, a
/// building's half diagonal and height, a rock's radius and diameter.
fn footprints(inst: &serde_json::Value) -> Vec<([f64; 2], f64, f64)> {
    let o: Vec<f64> = inst["origin"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let rows = |k: &str| {
        inst[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<f64>>())
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    for t in rows("trees") {
        out.push(([o[0] + t[0], o[1] + t[1]], t[4], t[3]));
    }
    for b in rows("buildings") {
        out.push(([o[0] + b[0], o[1] + b[1]], b[3].hypot(b[4]), 2.0 * b[5]));
    }
    for r in rows("rocks") {
        out.push(([o[0] + r[0], o[1] + r[1]], r[3], 2.0 * r[3]));
    }
    out
}

/// `/api/world/path`: the path starts and ends at the points asked, its corners are on the world's
/// ground, every segment keeps the agent's radius from every object's footprint but those it steps
/// over (no taller than 0.15 of its radius), its length is its segments'; bad input is a 400 naming the parameter, a start on steep ground a 422.
#[test]
fn the_world_plans_paths_between_two_points() {
    use landfall::glam::DVec2;
    use landfall::world::{CacheParams, Generator, LodTerrain, WorldParams};
    let server = Server::start(&["--world"]);
    let (_, info) = server.json("/api/info");
    let w: Vec<f64> = info["walker"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(server.json(&format!("/api/world/update?x={}&y={}&z={}", w[0] - 40.0, w[1] - 60.0, w[2] + 45.0)).0, 200);
    let (_, inst) = server.json("/api/world/instances");
    let discs = footprints(&inst);
    assert!(discs.len() > 100, "{} objects", discs.len());
    let ground =
        LodTerrain::new(Generator::new(WorldParams::default()).unwrap(), CacheParams::default().mesh_finest, 64);
    let mut corners = 0;
    for (a, b, r) in
        [([20.0, 20.0], [40.0, -40.0], 1.0), ([-40.0, 40.0], [40.0, -40.0], 0.5), ([20.0, 20.0], [-40.0, 40.0], 2.0)]
    {
        let (s, v) =
            server.json(&format!("/api/world/path?ax={}&ay={}&bx={}&by={}&radius={r}", a[0], a[1], b[0], b[1]));
        assert_eq!(s, 200, "{v}");
        let pts: Vec<[f64; 3]> =
            v["points"].as_array().unwrap().iter().map(|p| [0, 1, 2].map(|k| p[k].as_f64().unwrap())).collect();
        assert_eq!((pts[0][0], pts[0][1]), (a[0], a[1]));
        assert_eq!((pts[pts.len() - 1][0], pts[pts.len() - 1][1]), (b[0], b[1]));
        corners += pts.len();
        for p in &pts {
            let z = ground.height_at(p[0], p[1]).unwrap();
            assert!((p[2] - z).abs() < 1e-9, "corner {p:?} not on the ground {z}");
        }
        let xy = |p: &[f64; 3]| DVec2::new(p[0], p[1]);
        for s in pts.windows(2) {
            let (p, q) = (xy(&s[0]), xy(&s[1]));
            for (c, rad, _) in discs.iter().filter(|d| d.2 > 0.15 * r * (1.0 + 1e-6)) {
                let c = DVec2::from(*c);
                let t = ((c - p).dot(q - p) / (q - p).length_squared().max(1e-300)).clamp(0.0, 1.0);
                let d = (p + (q - p) * t).distance(c);
                assert!(d >= rad + r - 1e-9, "segment {p} {q} passes {d} m from an object of radius {rad} at {c}");
            }
        }
        let length: f64 = pts.windows(2).map(|s| xy(&s[0]).distance(xy(&s[1]))).sum();
        assert!(
            (length - v["length"].as_f64().unwrap()).abs() < 1e-9
                && length >= DVec2::from(a).distance(DVec2::from(b)) - 1e-9
        );
        assert!(v["line"].as_array().unwrap().len() >= pts.len());
    }
    assert!(corners > 6, "every path straight: the objects were not in the way ({corners} corners)");
    // A start at a tree's foot is moved out of its footprint grown by the radius, at most 5 m,
    // and the answer says how far.
    let blocks = |d: &&([f64; 2], f64, f64)| d.2 > 0.15 * (1.0 + 1e-6);
    let (c, rad, _) = *discs
        .iter()
        .filter(blocks)
        .filter(|(c, rad, _)| *rad < 2.0 && c[0].hypot(c[1]) < 60.0)
        .min_by(|p, q| (p.0[0] - 20.0).hypot(p.0[1] - 20.0).total_cmp(&(q.0[0] - 20.0).hypot(q.0[1] - 20.0)))
        .expect("a tree near");
    let (s, v) = server.json(&format!("/api/world/path?ax={}&ay={}&bx=40&by=-40&radius=1", c[0], c[1]));
    assert_eq!(s, 200, "{v}");
    let start = DVec2::new(v["points"][0][0].as_f64().unwrap(), v["points"][0][1].as_f64().unwrap());
    let moved = v["moved"][0].as_f64().unwrap();
    assert!((start.distance(DVec2::from(c)) - moved).abs() < 1e-9 && moved >= rad + 1.0 - 1e-9 && moved <= 5.0, "{v}");
    assert!(
        discs.iter().filter(blocks).all(|(o, r, _)| start.distance(DVec2::from(*o)) >= r + 1.0 - 1e-9),
        "moved into another object"
    );
    assert_eq!(v["moved"][1].as_f64(), Some(0.0));
    for (query, status, word) in [
        ("ax=20&ay=20&bx=40&by=-40&radius=0.1", 400, "radius"),
        ("ax=20&ay=20&bx=40&by=-40&radius=31", 400, "radius"),
        ("ax=20&ay=20&bx=40&by=-40", 400, "radius: missing"),
        ("ax=20&bx=40&by=-40&radius=1", 400, "ay: missing"),
        ("ax=20&ay=20&bx=nan&by=-40&radius=1", 400, "bx"),
        ("ax=20&ay=20&bx=1e7&by=-40&radius=1", 400, "off the drawn world"),
        ("ax=20&ay=20&bx=40&by=-40&radius=1&max_slope=0", 400, "max_slope"),
        ("ax=20&ay=20&bx=2000&by=-40&radius=0.3", 400, "at most 1000 m"),
        ("ax=0&ay=0&bx=40&by=-40&radius=1&max_slope=3", 422, "steeper"),
    ] {
        let (s, v) = server.json(&format!("/api/world/path?{query}"));
        assert_eq!(s, status, "{query}: {v}");
        assert!(v["error"].as_str().unwrap().contains(word), "{query}: {v}");
    }
}

/// Headless Chromium: `None` (a visible skip, or a failure in CI) when it is not installed.
fn chromium() -> Option<&'static str> {
    common::skip::tool(&["chromium", "chromium-browser", "google-chrome"], "apt-get install chromium")
}

fn headless(browser: &str, url: &str, extra: &[&str]) -> Vec<u8> {
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
        .args(["--window-size=1000,650", "--virtual-time-budget=30000", "--hide-scrollbars"])
        .args(extra)
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    out.stdout
}

#[test]
fn the_page_shows_terrain_and_a_click_shows_the_exact_height() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&[dem().to_str().unwrap()]);
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("view.png");
    let url = format!("http://{}/?click=500,380", server.addr);
    // The click's readout: the exact surface under the pixel, as the library answers at that x, y.
    let r = page(browser, &url, &shot, &[("readout", "clicked")]).has("readout", "clicked").unwrap();
    let (x, y, z) = (num(&r, "x"), num(&r, "y"), num(&r, "z"));
    let t = landfall_io::open_terrain(&dem(), &landfall_io::TerrainOptions::default()).unwrap().terrain;
    let want = t.as_dyn().top_surface(landfall::glam::DVec3::new(x, y, 0.0)).unwrap().point.z;
    assert!((z - want).abs() <= 1e-6 * (1.0 + want.abs()), "page says {z}, the library {want}");
    // Keep the screenshot for the docs when asked.
    if let Ok(to) = std::env::var("LANDFALL_VIEWER_SHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
}

#[test]
fn the_world_page_shows_the_world() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&["--world"]);
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("world.png");
    // The objects come as trees, buildings and rocks to draw, not as triangles.
    let body =
        page(browser, &format!("http://{}/", server.addr), &shot, &[("body", "trees")]).has("body", "trees").unwrap();
    assert!(num(&body, "trees") > 10.0 && num(&body, "rocks") > 10.0, "{body:?}");
    let (_, inst) = server.json("/api/world/instances");
    let trees = inst["trees"].as_array().unwrap().len() as f64;
    assert!((trees - num(&body, "trees")).abs() <= 0.1 * trees, "{trees} trees served, {body:?} drawn");
    // Keep the screenshot for the docs when asked.
    if let Ok(to) = std::env::var("LANDFALL_VIEWER_WORLD_SHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
}

/// `serve --world` with the path control on: two clicks draw the path between the points under
/// them (a yellow band as wide as the agent, which the picture had none of before), and the
/// readout shows its length, the server's for those two points.
#[test]
fn the_world_page_draws_a_path_between_two_clicks() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&["--world"]);
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("path.png");
    let yellow = |px: &[[u8; 3]]| px.iter().filter(|p| p[0] > 220 && p[1] > 185 && p[1] < 235 && p[2] < 90).count();
    let (before, _) = screenshot(browser, &format!("http://{}/", server.addr), &shot);
    let url = format!("http://{}/?radius=1&path=650,200;600,400", server.addr);
    // The band comes after two ray casts and a plan: a few tries for a picture that has it.
    let mut after = page(browser, &url, &shot, &[("readout", "path-length")]);
    for _ in 0..4 {
        if yellow(&after.px) > 500 {
            break;
        }
        after = page(browser, &url, &shot, &[("readout", "path-length")]);
    }
    let (r, after) = (after.has("readout", "path-length").unwrap(), after.px);
    assert!(yellow(&before) < 50, "{} yellow pixels before the path", yellow(&before));
    assert!(yellow(&after) > 500 && changed(&before, &after) > 0.003, "{} yellow pixels with the path", yellow(&after));
    let xy = |k: &str| -> Vec<f64> { r[k].split(',').map(|v| v.parse().unwrap()).collect() };
    let (a, b) = (xy("path-from"), xy("path-to"));
    let (s, v) = server.json(&format!("/api/world/path?ax={}&ay={}&bx={}&by={}&radius=1", a[0], a[1], b[0], b[1]));
    assert_eq!(s, 200, "{v}");
    let want = v["length"].as_f64().unwrap();
    assert!((num(&r, "path-length") - want).abs() < 1e-6 * want, "page says {r:?}, the server {want}");
    assert!(want >= (a[0] - b[0]).hypot(a[1] - b[1]) - 1e-9 && num(&r, "path-radius") == 1.0);
    if let Ok(to) = std::env::var("LANDFALL_VIEWER_PATH_SHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
}

/// `/api/world/crowd`: a frame of the crowd for a camera: every walker in its field of view (0.7
/// rad either side) and near enough to be resolved (0.9 m across at most 90 m) is at full detail; the counts add up to
/// the crowd; bad parameters are a 400.
#[test]
fn the_crowd_follows_the_camera() {
    let server = Server::start(&["--world"]);
    let (eye, look) = ([-40.0, -60.0], [40.0, 60.0]);
    let mut v = serde_json::Value::Null;
    for _ in 0..3 {
        let (s, got) =
            server.json(&format!("/api/world/crowd?x={}&y={}&dx={}&dy={}&half=0.7", eye[0], eye[1], look[0], look[1]));
        assert_eq!(s, 200, "{got}");
        v = got;
    }
    let count = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(count("full") + count("approximate") + count("dormant"), 300, "{v}");
    let walkers = v["walkers"].as_array().unwrap();
    let (mut seen, mut reps) = (0, [0; 3]);
    for w in walkers {
        let [x, y, _, rep] = [0, 1, 2, 3].map(|k| w[k].as_f64().unwrap());
        reps[rep as usize] += 1;
        let (dx, dy) = (x - eye[0], y - eye[1]);
        let off = (dx * look[1] - dy * look[0]).atan2(dx * look[0] + dy * look[1]).abs();
        if dx.hypot(dy) < 85.0 && off < 0.6 {
            seen += 1;
            assert_eq!(rep, 2.0, "a walker in view at ({x}, {y}) is not at full detail: {w}");
        }
    }
    assert!(seen > 0, "no walker in view");
    assert!(reps[2] > 0 && reps[0] + reps[1] > 0, "one representation only: {reps:?}");
    // Every walker stands on the ground as drawn: the world's own height there (`/api/height`
    // answers the top of the objects too: a walker under a tree is lower).
    let (mut asked, mut on) = (0, 0);
    for w in walkers.iter().step_by(5) {
        let [x, y, z] = [0, 1, 2].map(|k| w[k].as_f64().unwrap());
        let (s, h) = server.json(&format!("/api/height?x={x}&y={y}"));
        let top = h["height"].as_f64().unwrap_or_else(|| panic!("walker {w}: {s} {h}"));
        assert!(z <= top, "walker {w} above the drawn surface: {h}");
        asked += 1;
        on += usize::from(z == top);
    }
    assert!(on * 4 >= asked * 3, "{on} of {asked} walkers on the ground as drawn");
    assert_eq!(server.json("/api/world/crowd?x=1&y=2&dx=0&half=1").0, 400);
    assert_eq!(server.json("/api/world/crowd?x=1e12&y=2&dx=0&dy=1&half=1").0, 400);
    assert_eq!(server.json("/api/world/crowd?x=1&y=2&dx=0&dy=1&half=4").0, 400);
}

/// `serve --world` colours the crowd's walkers by representation, with a legend of the three
/// colours and their counts: the picture (the legend's corner left out) shows walkers in two
/// colours at least.
#[test]
fn the_world_page_colours_the_crowd_by_representation() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&["--world"]);
    let url = format!("http://{}/", server.addr);
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("crowd.png");
    let colours = [[0xff, 0x3d, 0xf0], [0xff, 0xa6, 0x00], [0x3d, 0x7b, 0xff]];
    let mut counts = [0; 3];
    for attempt in 0..3 {
        let p = page(browser, &url, &shot, &[("crowd", "shown")]);
        if attempt == 0 {
            let c = p.has("crowd", "shown").unwrap();
            let (full, approx, dormant) = (num(&c, "full"), num(&c, "approximate"), num(&c, "dormant"));
            assert_eq!(full + approx + dormant, 300.0, "{c:?}");
            assert!(full >= 1.0 && approx + dormant >= 1.0 && num(&c, "shown") >= full, "{c:?}");
        }
        let (px, width) = (p.px, p.width);
        for (k, c) in colours.iter().enumerate() {
            counts[k] = px
                .iter()
                .enumerate()
                .filter(|(i, p)| {
                    i % width < width - 150 && (0..3).map(|j| (p[j] as i32 - c[j]).abs()).sum::<i32>() < 60
                })
                .count();
        }
        if counts.iter().filter(|&&n| n >= 15).count() >= 2 {
            break;
        }
    }
    assert!(counts.iter().filter(|&&n| n >= 15).count() >= 2, "walkers in fewer than two colours: {counts:?} pixels");
    if let Ok(to) = std::env::var("LANDFALL_VIEWER_CROWD_SHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
}

type Attributes = std::collections::HashMap<String, String>;

/// One load of a page in headless Chromium: its screenshot (RGB pixels, rows from the top, and the
/// width) and its DOM after the page has drawn.
struct Page {
    px: Vec<[u8; 3]>,
    width: usize,
    dom: String,
}

impl Page {
    /// The `data-` attributes of the element with `id` (the body's for `body`), if it is there.
    fn attributes(&self, id: &str) -> Option<Attributes> {
        let dom = &self.dom;
        let start = if id == "body" { dom.find("<body") } else { dom.find(&format!("id=\"{id}\"")) }?;
        let open = if id == "body" { &dom[start..] } else { &dom[dom[..start].rfind('<').unwrap_or(start)..] };
        let tag = &open[..open.find('>').unwrap_or(open.len())];
        Some(
            tag.split(" data-")
                .skip(1)
                .filter_map(|a| {
                    a.split_once("=\"").map(|(k, v)| (k.to_string(), v.split('"').next().unwrap().to_string()))
                })
                .collect(),
        )
    }

    /// The attributes of `id` when they include `want`.
    fn has(&self, id: &str, want: &str) -> Option<Attributes> {
        self.attributes(id).filter(|a| a.contains_key(want))
    }

    /// Whether the picture shows terrain: a good part of the pixels not the sky and over a hundred
    /// colours (lit, coloured ground, not a blank canvas). Why not, otherwise.
    fn shows_terrain(&self) -> Result<(), String> {
        let sky = [0xb9, 0xcd, 0xe8];
        let px = &self.px;
        let terrain = px.iter().filter(|p| (0..3).map(|k| (p[k] as i32 - sky[k]).abs()).sum::<i32>() > 40).count();
        let colours: std::collections::HashSet<[u8; 3]> = px.iter().map(|p| p.map(|c| c / 8)).collect();
        if terrain * 5 > px.len() && colours.len() > 100 {
            return Ok(());
        }
        Err(format!("{terrain} of {} pixels differ from the sky, {} colours", px.len(), colours.len()))
    }
}

/// `url` loaded once in headless Chromium, its screenshot written to `shot` and read back and its
/// DOM dumped (one browser start for both); `None` when the screenshot is missing.
fn load(browser: &str, url: &str, shot: &Path) -> Option<Page> {
    let _ = std::fs::remove_file(shot);
    let dom = headless(browser, url, &["--dump-dom", &format!("--screenshot={}", shot.display())]);
    let f = std::fs::File::open(shot).ok()?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(f)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let ch = frame.color_type.samples();
    let px = buf[..frame.buffer_size()].chunks_exact(ch).map(|p| [p[0], p[1], p[2]]).collect();
    Some(Page { px, width: frame.width as usize, dom: String::from_utf8_lossy(&dom).to_string() })
}

/// `url` once its screenshot shows terrain and its DOM has every `(id, data- attribute)` of `want`.
/// Headless Chromium takes its picture and its DOM after a budget of virtual time, which does not
/// always wait for the page's fetches: a few tries, each judged on its own.
fn page(browser: &str, url: &str, shot: &Path, want: &[(&str, &str)]) -> Page {
    let mut last = String::from("no screenshot");
    for _ in 0..5 {
        let Some(page) = load(browser, url, shot) else { continue };
        match page.shows_terrain() {
            Err(why) => last = why,
            Ok(()) => match want.iter().find(|(id, a)| page.has(id, a).is_none()) {
                Some((id, a)) => last = format!("#{id} has no data-{a}: {:?}", page.attributes(id)),
                None => return page,
            },
        }
    }
    panic!("{url}: after five tries (a blank canvas, or the page unfinished?): {last}");
}

/// `url`'s screenshot, once it shows terrain: pixels and width.
fn screenshot(browser: &str, url: &str, shot: &Path) -> (Vec<[u8; 3]>, usize) {
    let p = page(browser, url, shot, &[]);
    (p.px, p.width)
}

/// The `data-` attributes of the element with `id` once the page has drawn (the body's for `body`);
/// `want` must be among them.
fn attributes(browser: &str, url: &str, id: &str, want: &str) -> Attributes {
    let dir = tempfile::tempdir().unwrap();
    page(browser, url, &dir.path().join("page.png"), &[(id, want)]).has(id, want).unwrap()
}

fn num(a: &Attributes, k: &str) -> f64 {
    a[k].parse().unwrap_or_else(|_| panic!("data-{k}={}", a[k]))
}

/// Share of pixels that differ clearly between two screenshots of one size.
fn changed(a: &[[u8; 3]], b: &[[u8; 3]]) -> f64 {
    assert_eq!(a.len(), b.len());
    let d = a.iter().zip(b).filter(|(p, q)| (0..3).map(|k| (p[k] as i32 - q[k] as i32).abs()).sum::<i32>() > 30);
    d.count() as f64 / a.len() as f64
}

/// The page's controls and overlays: each is there, and each changes what is drawn as it should —
/// the exaggeration slider the relief, the water plane the colour of the low ground, the hover
/// readout tells the exact point under the cursor, the north arrow turns with the camera, the scale
/// bar follows the distance, the legend holds the colour map's stops.
#[test]
fn the_controls_are_there_and_change_the_picture() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&[dem().to_str().unwrap()]);
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("c.png");
    let url = |q: &str| format!("http://{}/?{q}", server.addr);
    let south = "camera=0,-1,1&exaggeration=1";

    // Each view loaded once: its picture and the overlays' attributes together.
    let from_south =
        page(browser, &url(south), &shot, &[("north", "angle"), ("scalebar", "metres"), ("legend", "stops")]);
    let from_east = page(browser, &url("camera=1,0,1&exaggeration=1"), &shot, &[("north", "angle")]);
    let (flat, w) = (&from_south.px, from_south.width);

    // Vertical exaggeration: ×1 against ×30 from the same place.
    let (steep, _) = screenshot(browser, &url("camera=0,-1,1&exaggeration=30"), &shot);
    assert!(changed(flat, &steep) > 0.05, "×30 changed {:.3} of the picture", changed(flat, &steep));
    // Water at 300 m: the ground it covers turns blue.
    let (wet, _) = screenshot(browser, &url(&format!("{south}&water=300")), &shot);
    let blueness = |p: &[u8; 3]| p[2] as i32 - p[0] as i32;
    let covered: Vec<bool> = flat
        .iter()
        .zip(&wet)
        .filter(|(p, q)| (0..3).map(|k| (p[k] as i32 - q[k] as i32).abs()).sum::<i32>() > 30)
        .map(|(p, q)| blueness(q) > blueness(p))
        .collect();
    let bluer = covered.iter().filter(|&&b| b).count() as f64 / covered.len().max(1) as f64;
    assert!(
        covered.len() as f64 > 0.03 * flat.len() as f64 && bluer > 0.8,
        "water: {} pixels changed, {bluer:.2} of them bluer",
        covered.len()
    );

    // Hovering: the exact point under the cursor, as the library answers at its x, y.
    let hover = attributes(browser, &url(&format!("{south}&hover=500,380")), "hover", "z");
    let t = landfall_io::open_terrain(&dem(), &landfall_io::TerrainOptions::default()).unwrap().terrain;
    let want = t.as_dyn().top_surface(landfall::glam::DVec3::new(num(&hover, "x"), num(&hover, "y"), 0.0)).unwrap();
    assert!((num(&hover, "z") - want.point.z).abs() <= 1e-6 * (1.0 + want.point.z.abs()), "{hover:?} vs {want:?}");

    // The north arrow: up from the south, right from the east (north is on the right facing west).
    let north = |p: &Page| num(&p.has("north", "angle").unwrap(), "angle");
    let (south_angle, east_angle) = (north(&from_south), north(&from_east));
    assert!(south_angle.abs() < 3.0 && (east_angle - 90.0).abs() < 3.0, "{south_angle}°, {east_angle}°");
    let corner = |px: &[[u8; 3]]| -> Vec<[u8; 3]> {
        (10..58).flat_map(|y| (w - 58..w - 10).map(move |x| y * w + x)).map(|k| px[k]).collect()
    };
    assert!(changed(&corner(flat), &corner(&from_east.px)) > 0.05, "the drawn arrow did not turn");

    // The scale bar: metres per pixel halve when the camera comes twice as near.
    let scale = |a: Attributes| {
        assert!((40.0..400.0).contains(&num(&a, "px")), "{a:?}");
        num(&a, "metres") / num(&a, "px")
    };
    let near = attributes(browser, &url("camera=0,-0.5,0.5&exaggeration=1"), "scalebar", "metres");
    let ratio = scale(near) / scale(from_south.has("scalebar", "metres").unwrap());
    assert!((ratio - 0.5).abs() < 0.03, "metres per pixel went × {ratio} for half the distance");

    // The legend: the colour map's stops from the lowest to the highest height.
    let legend = from_south.has("legend", "stops").unwrap();
    assert!(num(&legend, "stops") >= 17.0, "{legend:?}");
}

/// A 4097² DEM comes in level-of-detail tiles by distance: several levels drawn at once, a few
/// dozen tiles fetched, never one mesh of the whole raster.
#[test]
fn a_large_dem_streams_tiles_by_distance() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let n = 4097usize;
    let npy = dir.path().join("big.npy");
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n}, {n}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for k in 0..n * n {
        let (i, j) = ((k % n) as f32, (k / n) as f32);
        bytes
            .extend((400.0 * (i / 700.0).sin() * (j / 900.0).cos() + 30.0 * (i / 60.0 + j / 80.0).sin()).to_le_bytes());
    }
    std::fs::write(&npy, bytes).unwrap();
    let server = Server::start(&[npy.to_str().unwrap()]);
    let (_, info) = server.json("/api/info");
    let top = info["tiles"]["top"].as_u64().unwrap();
    assert_eq!(top, 6);
    let mut body = Default::default();
    for _ in 0..5 {
        body = attributes(browser, &format!("http://{}/?exaggeration=3", server.addr), "body", "levels");
        if body["levels"].contains(',') {
            break;
        }
    }
    let levels: Vec<u64> = body["levels"].split(',').map(|l| l.parse().unwrap()).collect();
    assert!(levels.len() >= 2 && levels[0] < top, "one level drawn: {body:?}");
    assert!(num(&body, "loaded") <= 400.0, "{body:?}");
    assert!(!body.contains_key("error"), "{body:?}");
}

/// A raster in degrees in the page: drawn in level-of-detail tiles in metres in its east-north-up
/// frame (the drawn extent is the surface's own, ~290 × 220 km for `topobathy.npz`, not 4 × 2
/// units), a click tells the point's longitude, latitude and height above the ellipsoid, and the
/// viewshed from it (`&viewshed=1`) counts the samples the library's `viewshed` sees on the `GeoSurface` and tints
/// the ground green and red.
#[test]
fn a_raster_in_degrees_is_drawn_in_metres_with_its_viewshed() {
    let Some(browser) = chromium() else { return };
    let server = Server::start(&[dem().to_str().unwrap()]);
    let opened = landfall_io::open_terrain(&dem(), &landfall_io::TerrainOptions::default()).unwrap().terrain;
    let landfall_io::AnyTerrain::Geographic(g) = &opened else { panic!("topobathy.npz is in degrees") };
    let url = |q: &str| format!("http://{}/?{q}", server.addr);
    // Tiles of several levels, spanning the surface's extent in metres.
    let body = attributes(browser, &url("exaggeration=3"), "body", "extent");
    assert!(!body.contains_key("error"), "{body:?}");
    assert!(!body["levels"].is_empty(), "{body:?}");
    let hf = g.heightfield();
    let (mut lo, mut hi) = (landfall::glam::DVec3::INFINITY, landfall::glam::DVec3::NEG_INFINITY);
    for j in 0..hf.ny() {
        for i in 0..hf.nx() {
            let p = g.tables().position(i, j, hf.sample(i, j).max(-1e9) as f64);
            if p.is_finite() {
                (lo, hi) = (lo.min(p), hi.max(p));
            }
        }
    }
    let drawn: Vec<f64> = body["extent"].split(',').map(|v| v.parse().unwrap()).collect();
    let want = hi - lo;
    for k in 0..2 {
        assert!((drawn[k] - want[k]).abs() < 0.01 * want[k], "drawn extent {drawn:?}, the surface's {want}");
    }
    assert!(want.x > 250_000.0 && want.y > 200_000.0, "{want}");
    // A click: lon, lat, height on the ellipsoid; the viewshed from there is the library's.
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("geo.png");
    let q = "camera=0,-0.6,0.8&click=500,330&viewshed=1";
    let tinted = page(browser, &url(q), &shot, &[("readout", "viewshed")]);
    let readout = tinted.has("readout", "viewshed").unwrap();
    let (lon, lat, h) = (num(&readout, "lon"), num(&readout, "lat"), num(&readout, "h"));
    let want = g.height_at(lon, lat).unwrap();
    assert!((h - want).abs() < 1e-6, "the page says {h} m at {lon}, {lat}; the surface {want} m");
    use landfall::viewshed::{Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams, VISIBLE};
    let ground = g.frame().enu_to_geodetic(landfall::glam::DVec3::new(
        num(&readout, "x"),
        num(&readout, "y"),
        num(&readout, "z"),
    ));
    let p = ViewshedParams::default().with_observer_height(2.0);
    let out = landfall::viewshed::viewshed(
        g,
        &[Observer::at(ground.lon, ground.lat)],
        &p,
        ViewshedMode::Visibility,
        &Hooks::default(),
    );
    let Ok(ViewshedOutput::Visibility(v, _)) = out else { panic!("{out:?}") };
    let seen = v.values.iter().filter(|&&s| s == VISIBLE).count();
    assert_eq!(num(&readout, "viewshed") as usize, seen, "the page's viewshed against the library's");
    // The tint, against the same view without it: hidden ground redder, visible ground greener.
    let (plain, _) = screenshot(browser, &url("camera=0,-0.6,0.8&click=500,330"), &shot);
    let (mut redder, mut greener) = (0, 0);
    for (p, t) in plain.iter().zip(&tinted.px) {
        let [dr, dg] = [0, 1].map(|k| t[k] as i32 - p[k] as i32);
        redder += usize::from(dr - dg > 40);
        greener += usize::from(dg - dr > 40);
    }
    assert!(redder > plain.len() / 10 && greener > 100, "{redder} pixels redder, {greener} greener");
}
