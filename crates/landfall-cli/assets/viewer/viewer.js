// The landfall viewer: the terrain (coloured and lit as landfall colours it; a heightfield streamed
// in level-of-detail tiles by distance), the mouse to orbit and fly, a scale bar, a north arrow, a
// height legend, a vertical-exaggeration slider and a water plane; every question (the point under
// the cursor, a click, a line of sight, a viewshed) answered by the server's exact queries.
import * as THREE from 'three';
import { OrbitControls } from '/vendor/OrbitControls.js';

// A failure shows on the page (and to tests, as data-error).
const fail = (m) => { document.body.dataset.error = String(m); };
window.addEventListener('error', (e) => fail(e.message));
window.addEventListener('unhandledrejection', (e) => fail(e.reason?.stack ?? e.reason));

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const info = await (await fetch('/api/info')).json();
const world = info.kind === 'world';
const [lo, hi] = info.bounds;
const geographic = !!info.degrees;
// A raster in degrees served as a surface on the WGS84 ellipsoid: drawn in metres in its
// east-north-up frame (x east, y north, z up at the grid's centre), the Earth's curvature included.
const ENU = info.geographic?.enu_origin ?? null;

// Scene coordinates are metres on the ground from an origin O near the terrain (f32 precision): x
// and y times the metres of a unit (a raster in degrees keeps its true proportions), heights times
// the vertical exaggeration. Queries go back to world coordinates.
const [kx, ky] = info.metres;
const O = world ? new THREE.Vector3(...info.walker)
                : new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
const size = world ? 2000 : Math.max((hi[0] - lo[0]) * kx, (hi[1] - lo[1]) * ky, 1e-9);
const relief = Math.max(hi[2] - lo[2], 1e-9);
// The starting exaggeration: the relief a seventh of the extent, within the slider's 1…50.
let ex = Number(params.get('exaggeration')) || (world ? 1 : Math.min(50, Math.max(1, Math.round(0.3 * size / relief) / 2)));
const toScene = (p) => new THREE.Vector3((p.x - O.x) * kx, (p.y - O.y) * ky, (p.z - O.z) * ex);
const toWorld = (v) => new THREE.Vector3(v.x / kx + O.x, v.y / ky + O.y, v.z / ex + O.z);

const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
const sky = new THREE.Color(0xb9cde8);
scene.background = sky;
scene.fog = new THREE.Fog(sky, size * 0.8, size * (world ? 8 : 4));
const camera = new THREE.PerspectiveCamera(55, window.innerWidth / window.innerHeight, size * 1e-4, size * 50);
camera.up.set(0, 0, 1);
scene.add(new THREE.HemisphereLight(0xdfe8ff, 0x4a3f30, 0.9));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
sun.position.set(-0.8, 0.5, 0.6).multiplyScalar(size);
scene.add(sun);

const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.screenSpacePanning = false;
controls.listenToKeyEvents(window); // arrow keys fly over it
controls.keyPanSpeed = 20;

// Everything placed from world coordinates: meshes carry their world origin and are placed (and
// placed again when the exaggeration changes) by these.
const placed = new Set();
function place(m) {
  const o = m.userData.origin;
  m.position.set((o[0] - O.x) * kx, (o[1] - O.y) * ky, (o[2] - O.z) * ex);
  m.scale.set(kx, ky, ex);
}
function track(m) { placed.add(m); place(m); return m; }
function untrack(m) { placed.delete(m); scene.remove(m); m.geometry?.dispose(); }

/** A mesh from the server's binary layout (see src/serve/mesh.rs). */
function meshFrom(buf) {
  const dv = new DataView(buf);
  const n = dv.getUint32(4, true), ni = dv.getUint32(8, true);
  const origin = [dv.getFloat64(12, true), dv.getFloat64(20, true), dv.getFloat64(28, true)];
  let at = 36;
  const take = (count, Kind) => { const a = new Kind(buf.slice(at, at + count * 4)); at += count * 4; return a; };
  const pos = take(3 * n, Float32Array), nor = take(3 * n, Float32Array), col = take(3 * n, Float32Array);
  const idx = take(ni, Uint32Array);
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
  g.setAttribute('normal', new THREE.BufferAttribute(nor, 3));
  g.setAttribute('color', new THREE.BufferAttribute(col, 3));
  g.setIndex(new THREE.BufferAttribute(idx, 1));
  const m = new THREE.Mesh(g, new THREE.MeshLambertMaterial({ vertexColors: true }));
  m.userData.origin = origin;
  m.userData.base = col.slice();
  return track(m);
}

const readout = $('readout');
function show(text, data = {}) {
  readout.textContent = text;
  for (const [k, v] of Object.entries(data)) readout.dataset[k] = String(v);
}
const fmt = (v) => v.toFixed(3);
const coord = (p) => geographic ? `lon ${p.x.toFixed(5)}  lat ${p.y.toFixed(5)}` : `x ${fmt(p.x)}  y ${fmt(p.y)}`;

// ---- A raster in degrees: geodetic (lon, lat, h) ↔ its east-north-up frame, as landfall's geo module.
const WGS84_A = 6378137, WGS84_E2 = (1 / 298.257223563) * (2 - 1 / 298.257223563), RAD = Math.PI / 180;
function ecef(lon, lat, h) {
  const sl = Math.sin(lat * RAD), cl = Math.cos(lat * RAD), n = WGS84_A / Math.sqrt(1 - WGS84_E2 * sl * sl);
  return [(n + h) * cl * Math.cos(lon * RAD), (n + h) * cl * Math.sin(lon * RAD), (n * (1 - WGS84_E2) + h) * sl];
}
const enu = ENU && (() => {
  const [sl, cl, so, co] = [Math.sin(ENU.lat * RAD), Math.cos(ENU.lat * RAD), Math.sin(ENU.lon * RAD), Math.cos(ENU.lon * RAD)];
  return { o: ecef(ENU.lon, ENU.lat, ENU.h), e: [-so, co, 0], n: [-sl * co, -sl * so, cl], u: [cl * co, cl * so, sl] };
})();
const dot3 = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
/** The frame's point (metres) of a geodetic position. */
function fromGeodetic(lon, lat, h) {
  const p = ecef(lon, lat, h), d = [0, 1, 2].map((k) => p[k] - enu.o[k]);
  return { x: dot3(d, enu.e), y: dot3(d, enu.n), z: dot3(d, enu.u) };
}
/** [lon, lat] (degrees, longitude in the turn of the frame's) of a point of the frame. */
function toLonLat(x, y, z) {
  const p = [0, 1, 2].map((k) => enu.o[k] + x * enu.e[k] + y * enu.n[k] + z * enu.u[k]);
  const r = Math.hypot(p[0], p[1]);
  let lat = Math.atan2(p[2], r * (1 - WGS84_E2));
  for (let k = 0; k < 4; k++) {
    const s = Math.sin(lat);
    lat = Math.atan2(p[2] + WGS84_E2 * WGS84_A / Math.sqrt(1 - WGS84_E2 * s * s) * s, r);
  }
  const lon = Math.atan2(p[1], p[0]) / RAD;
  return [lon + 360 * Math.round((ENU.lon - lon) / 360), lat / RAD];
}

// ---- The terrain: tiles by distance (rasters), one mesh (polygon terrains), or the world's regions.
const T = info.tiles;
const tiles = new Map(); // 'k/i/j' → { state: 'loading' | 'ready' | 'failed', mesh, used }
let inflight = 0, frame = 0, terrainMesh = null;
const LOD = 2.0; // a tile is split when the camera is nearer than this many of its widths
function tileRequest(k, i, j) {
  const key = `${k}/${i}/${j}`;
  let t = tiles.get(key);
  if (t || inflight >= 6) return t;
  t = { state: 'loading', used: frame };
  tiles.set(key, t);
  inflight++;
  fetch(`/api/tile?level=${k}&i=${i}&j=${j}`).then((r) => r.arrayBuffer()).then((buf) => {
    t.mesh = meshFrom(buf);
    t.mesh.visible = false;
    if (viewshedGrid) tint(t.mesh);
    scene.add(t.mesh);
    t.state = 'ready';
  }).catch(() => { t.state = 'failed'; }).finally(() => { inflight--; });
  return t;
}
// A tile's box in the scene: its grid corners at the lowest and highest heights (in degrees also
// its edges' middles and centre, where the Earth's curvature lifts it).
function tileBox(k, i, j) {
  const span = T.size * 2 ** k, { nx, ny } = info.heightfield;
  const [i0, j0] = [i * span, j * span], [i1, j1] = [Math.min(i0 + span, nx - 1), Math.min(j0 + span, ny - 1)];
  const x = (a) => T.origin[0] + a * T.spacing[0], y = (b) => T.origin[1] + b * T.spacing[1];
  if (!ENU) return new THREE.Box3(toScene({ x: x(i0), y: y(j0), z: lo[2] }), toScene({ x: x(i1), y: y(j1), z: hi[2] }));
  const box = new THREE.Box3();
  for (const a of [i0, (i0 + i1) / 2, i1]) for (const b of [j0, (j0 + j1) / 2, j1]) for (const h of info.heights) {
    box.expandByPoint(toScene(fromGeodetic(x(a), y(b), h)));
  }
  return box;
}
function children(k, i, j) {
  const [ci, cj] = T.counts[k - 1];
  const out = [];
  for (const [a, b] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
    if (2 * i + a < ci && 2 * j + b < cj) out.push([k - 1, 2 * i + a, 2 * j + b]);
  }
  return out;
}
// The tiles to draw: a tile near the camera is replaced by its four children once all four are
// here (until then it stays, so the ground never has a hole).
function select(k, i, j, out) {
  if (k > 0) {
    const box = tileBox(k, i, j);
    const width = Math.max(box.max.x - box.min.x, box.max.y - box.min.y);
    if (box.distanceToPoint(camera.position) < LOD * width) {
      const kids = children(k, i, j);
      const ts = kids.map((c) => tileRequest(...c));
      if (ts.every((t) => t && (t.state === 'ready' || t.state === 'failed'))) {
        for (const c of kids) select(...c, out);
        return;
      }
    }
  }
  out.push(`${k}/${i}/${j}`);
}
function updateTiles() {
  const root = tileRequest(T.top, 0, 0);
  if (!root || root.state !== 'ready') return false;
  const out = [];
  select(T.top, 0, 0, out);
  const want = new Set(out);
  for (const [key, t] of tiles) {
    if (!t.mesh) continue;
    t.mesh.visible = want.has(key);
    if (t.mesh.visible) t.used = frame;
  }
  // Keep at most 400 tiles: the longest unused go.
  if (tiles.size > 400) {
    const old = [...tiles].filter(([k, t]) => !want.has(k) && t.state !== 'loading').sort((a, b) => a[1].used - b[1].used);
    for (const [k, t] of old.slice(0, tiles.size - 400)) { if (t.mesh) untrack(t.mesh); tiles.delete(k); }
  }
  const levels = out.map((k) => Number(k.split('/')[0]));
  // What is drawn spans (in the terrain's units; metres for a raster in degrees) across x, y and z.
  const drawn = new THREE.Box3();
  for (const key of out) {
    const m = tiles.get(key)?.mesh;
    if (!m) continue;
    if (!m.geometry.boundingBox) m.geometry.computeBoundingBox();
    drawn.union(m.geometry.boundingBox.clone().translate(new THREE.Vector3(...m.userData.origin)));
  }
  const extent = drawn.isEmpty() ? '' : drawn.getSize(new THREE.Vector3()).toArray().map((v) => v.toFixed(1)).join(',');
  Object.assign(document.body.dataset, {
    tiles: out.length, finest: Math.min(...levels), levels: [...new Set(levels)].sort().join(','), loaded: tiles.size, extent,
  });
  return true;
}

const layers = new Map(); // world: 'level:region' → { version, mesh }
let objectsGroup = null, objectsVersion = -1;
let walker = world ? new THREE.Vector3(...info.walker) : null;

if (world) {
  document.body.classList.add('world');
  $('title').textContent = 'landfall — the procedural world';
  $('help').textContent = 'W A S D walk (the character controller; trees and houses stop you) · mouse orbits · click: exact height and normal, roofs included · shift-click twice: line of sight · path on: click the start, then the goal';
  camera.position.set(-40, -60, 45);
  controls.target.set(0, 0, 0);
} else {
  $('title').textContent = `landfall — ${info.name}` + (ENU ? ' (degrees on the WGS84 ellipsoid, drawn in metres)' : '');
  $('help').textContent = 'mouse orbits, wheel zooms, right-drag or arrow keys fly · click: exact height and normal · shift-click twice: line of sight'
    + (info.heightfield ? ' · V: viewshed from the last point' : '');
  if (!T) {
    terrainMesh = meshFrom(await (await fetch('/api/mesh')).arrayBuffer());
    scene.add(terrainMesh);
  } else {
    tileRequest(T.top, 0, 0);
  }
  // From the south-west, or where ?camera=x,y,z says (in sizes of the terrain from its middle).
  const [cx, cy, cz] = (params.get('camera') ?? '-0.55,-0.75,0.55').split(',').map(Number);
  camera.position.set(cx * size, cy * size, cz * size + relief * ex);
  controls.target.set(0, 0, 0);
}
controls.update();

// ---- The controls: vertical exaggeration, water plane.
const exInput = $('exaggeration');
exInput.value = String(ex);
function setExaggeration(v) {
  const before = ex;
  ex = v;
  exInput.value = String(v);
  $('exaggeration-value').textContent = String(v);
  for (const m of placed) place(m);
  // Keep the camera at the same ground point, scaled heights.
  camera.position.z *= ex / before;
  controls.target.z *= ex / before;
  for (const f of onExaggeration) f();
  document.body.dataset.exaggeration = String(v);
}
const onExaggeration = [];
exInput.addEventListener('input', () => setExaggeration(Number(exInput.value)));

const water = new THREE.Mesh(new THREE.PlaneGeometry(1, 1),
  new THREE.MeshLambertMaterial({ color: 0x2f6fb8, transparent: true, opacity: 0.6, depthWrite: false }));
water.visible = false;
scene.add(water);
const wlo = world ? -200 : lo[2], whi = world ? 200 : hi[2];
const waterInput = $('water');
Object.assign(waterInput, { min: String(wlo), max: String(whi) });
waterInput.value = String(wlo < 0 && 0 < whi ? 0 : wlo + 0.3 * (whi - wlo));
function setWater(on, level) {
  water.visible = on;
  $('water-on').checked = on;
  waterInput.value = String(level);
  $('water-value').textContent = `${Number(level).toFixed(0)} m`;
  if (ENU) {
    // In degrees: the ellipsoid `level` metres up over the raster's footprint (curved as the Earth is).
    const { nx, ny } = info.heightfield;
    const g = new THREE.PlaneGeometry(1, 1, 48, 48), pos = g.getAttribute('position');
    for (let k = 0; k < pos.count; k++) {
      const lon = T.origin[0] + (pos.getX(k) + 0.5) * (nx - 1) * T.spacing[0];
      const lat = T.origin[1] + (pos.getY(k) + 0.5) * (ny - 1) * T.spacing[1];
      const p = fromGeodetic(lon, lat, Number(level));
      pos.setXYZ(k, p.x, p.y, p.z);
    }
    g.computeVertexNormals();
    water.geometry.dispose();
    water.geometry = g;
    water.userData.origin = [0, 0, 0];
    place(water);
  } else {
    // Over the terrain's footprint (the world's: 40 km around the camera).
    water.scale.set(world ? 40000 : (hi[0] - lo[0]) * kx, world ? 40000 : (hi[1] - lo[1]) * ky, 1);
    water.position.set(world ? camera.position.x : 0, world ? camera.position.y : 0, (level - O.z) * ex);
  }
  document.body.dataset.water = on ? String(level) : '';
}
$('water-on').addEventListener('change', () => setWater($('water-on').checked, Number(waterInput.value)));
waterInput.addEventListener('input', () => setWater(true, Number(waterInput.value)));
onExaggeration.push(() => setWater(water.visible, Number(waterInput.value)));

// ---- The legend: the colour map on flat ground, by height (steep ground is rock at any height).
{
  const srgb = (c) => Math.round(255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055));
  const stops = info.legend.map(([h, r, g, b]) => `rgb(${srgb(r)},${srgb(g)},${srgb(b)}) ${(100 * (h - info.legend[0][0]) / (info.legend.at(-1)[0] - info.legend[0][0] || 1)).toFixed(1)}%`);
  $('legend-bar').style.background = `linear-gradient(to top, ${stops.join(', ')})`;
  const [h0, h1] = [info.legend[0][0], info.legend.at(-1)[0]];
  const ticks = [h0, h1];
  if (h0 < 0 && 0 < h1) ticks.push(0);
  const step = niceLength((h1 - h0) / 4);
  for (let v = Math.ceil(h0 / step) * step; v < h1; v += step) {
    if (ticks.every((t) => Math.abs(t - v) > 0.12 * (h1 - h0))) ticks.push(v);
  }
  $('legend-ticks').innerHTML = ticks.map((v) => `<span style="top:${(100 * (h1 - v) / (h1 - h0 || 1)).toFixed(1)}%">${Math.round(v)} m</span>`).join('');
  $('legend').dataset.stops = String(info.legend.length);
}

/** 1, 2 or 5 times a power of ten, at most `v`. */
function niceLength(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  return [5, 2, 1].map((m) => m * p).find((l) => l <= v) ?? p;
}

// ---- The scale bar (metres across the screen at the orbit's centre) and the north arrow (+y).
function overlays() {
  const d = camera.position.distanceTo(controls.target);
  const perPixel = 2 * d * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)) / window.innerHeight;
  const metres = niceLength(perPixel * 140);
  const px = metres / perPixel;
  $('scalebar-bar').style.width = `${px.toFixed(0)}px`;
  $('scalebar-label').textContent = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  Object.assign($('scalebar').dataset, { metres, px: px.toFixed(1) });
  camera.updateMatrixWorld();
  const a = controls.target.clone().project(camera);
  const b = controls.target.clone().add(new THREE.Vector3(0, size * 0.01, 0)).project(camera);
  const angle = Math.atan2(b.x - a.x, (b.y - a.y) * window.innerHeight / window.innerWidth) * 180 / Math.PI;
  $('north-arrow').setAttribute('transform', `rotate(${angle.toFixed(1)})`);
  $('north').dataset.angle = angle.toFixed(1);
}

// ---- The world: the cache follows the camera; only the regions whose version changed are fetched again.
let updating = false;
async function followCamera() {
  if (!world || updating) return;
  updating = true;
  try {
    const p = toWorld(camera.position);
    const r = await (await fetch(`/api/world/update?x=${p.x}&y=${p.y}&z=${p.z}`)).json();
    const drawn = new Set();
    const wanted = r.regions.filter(({ level, region, version }) => {
      const key = `${level}:${region}`;
      drawn.add(key);
      const have = layers.get(key);
      return !(have && have.version === version);
    });
    // The changed regions, fetched together.
    const bufs = await Promise.all(wanted.map(({ level, region }) =>
      fetch(`/api/world/region?level=${level}&region=${region}`).then((x) => x.arrayBuffer())));
    wanted.forEach(({ level, region, version }, k) => {
      const key = `${level}:${region}`;
      const have = layers.get(key);
      if (have) untrack(have.mesh);
      const m = meshFrom(bufs[k]);
      scene.add(m);
      layers.set(key, { version, mesh: m });
    });
    for (const [key, l] of layers) if (!drawn.has(key)) { untrack(l.mesh); layers.delete(key); }
    // The objects (and roaming entities), drawn again when they changed.
    if (r.objects.version !== objectsVersion) {
      objectsVersion = r.objects.version;
      dress(await (await fetch('/api/world/instances')).json());
      document.body.dataset.objects = String(r.objects.count);
    }
  } finally { updating = false; }
}

// The objects as what they are: trees (a trunk and a crown), houses and halls (walls and a gable
// roof), rocks and the roaming walkers, drawn as instances around the collision shapes' places.
const parts = (() => {
  const up = (g) => g.rotateX(Math.PI / 2);
  const trunk = up(new THREE.CylinderGeometry(1, 1, 1, 7)).translate(0, 0, 0.5);
  const crown = up(new THREE.ConeGeometry(1, 1, 9)).translate(0, 0, 0.5);
  const walls = new THREE.BoxGeometry(1, 1, 1).translate(0, 0, 0.5);
  const roof = new THREE.BufferGeometry();
  // A gable roof over a unit footprint, its ridge along x at height 1.
  const v = [[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0, 1], [-0.5, 0, 1], [-0.5, 0.5, 0], [0.5, 0.5, 0]];
  const tri = [[0, 1, 2], [0, 2, 3], [4, 3, 2], [4, 2, 5], [0, 3, 4], [1, 5, 2]];
  roof.setAttribute('position', new THREE.Float32BufferAttribute(tri.flat().flatMap((k) => v[k]), 3));
  roof.computeVertexNormals();
  const rock = new THREE.IcosahedronGeometry(1, 0);
  const body = up(new THREE.CapsuleGeometry(0.35, 1.0, 4, 8)).translate(0, 0, 0.85);
  const mat = (c) => new THREE.MeshLambertMaterial({ color: c, flatShading: true });
  return {
    trunk: [trunk, mat(0x6b4a2b)], crown: [crown, mat(0x2f6b2a)], walls: [walls, mat(0xe8dcc2)],
    hallWalls: [walls, mat(0xb9b4aa)], roof: [roof, mat(0xa0452e)], hallRoof: [roof, mat(0x5d6670)],
    rock: [rock, mat(0x8a8580)], body: [body, mat(0xd04020)],
  };
})();
function dress(d) {
  if (objectsGroup) { scene.remove(objectsGroup); placed.delete(objectsGroup); objectsGroup.traverse((o) => o.dispose?.()); }
  const g = new THREE.Group();
  g.userData.origin = d.origin;
  const m4 = new THREE.Matrix4(), q = new THREE.Quaternion(), Z = new THREE.Vector3(0, 0, 1);
  const add = (name, list, each) => {
    if (!list.length) return;
    const [geo, mat] = parts[name];
    const im = new THREE.InstancedMesh(geo, mat, list.length);
    list.forEach((e, k) => { const [p, s, yaw] = each(e, k); q.setFromAxisAngle(Z, yaw); im.setMatrixAt(k, m4.compose(p, q, s)); });
    im.userData.kind = name;
    g.add(im);
  };
  const V = (x, y, z) => new THREE.Vector3(x, y, z);
  add('trunk', d.trees, ([x, y, z, h, r]) => [V(x, y, z), V(r, r, 0.5 * h), 0]);
  add('crown', d.trees, ([x, y, z, h, , c], k) => [V(x, y, z + 0.3 * h), V(c, c, 0.7 * h), k]);
  const big = (k) => d.kinds[d.building_kind[k]] === 'hall';
  for (const hall of [false, true]) {
    const list = d.buildings.filter((_, k) => big(k) === hall);
    add(hall ? 'hallWalls' : 'walls', list, ([x, y, z, hx, hy, hz, yaw]) => [V(x, y, z - hz), V(2 * hx, 2 * hy, 1.45 * hz), yaw]);
    add(hall ? 'hallRoof' : 'roof', list, ([x, y, z, hx, hy, hz, yaw]) => [V(x, y, z + 0.45 * hz), V(2 * hx, 2 * hy, 0.55 * hz), yaw]);
  }
  add('rock', d.rocks, ([x, y, z, r]) => [V(x, y, z), V(r, r, r), 0]);
  add('body', d.entities, ([x, y, z]) => [V(x, y, z - 0.5), V(1, 1, 1), 0]);
  objectsGroup = track(g);
  scene.add(g);
  Object.assign(document.body.dataset, { trees: d.trees.length, buildings: d.buildings.length, rocks: d.rocks.length });
}

// ---- The world's crowd (landfall::behave): walkers whose simulation's detail follows the camera,
// each drawn in its representation's colour (the legend's): full, approximate, dormant.
const REPS = [0x3d7bff, 0xffa600, 0xff3df0]; // dormant, approximate, full
let crowdMesh = null, crowding = false;
async function followCrowd() {
  if (!world || crowding) return;
  crowding = true;
  try {
    const p = toWorld(camera.position), t = toWorld(controls.target);
    // The field of view on the ground: the widest angle from the look direction of the picture's
    // corner rays (a camera looking down sees wider on the ground than its opening).
    const look = Math.atan2(t.y - p.y, t.x - p.x);
    let half = 0;
    for (const [u, v] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) {
      raycaster.setFromCamera(new THREE.Vector2(u, v), camera);
      const d = raycaster.ray.direction;
      half = Math.max(half, Math.abs(Math.atan2(Math.sin(Math.atan2(d.y, d.x) - look), Math.cos(Math.atan2(d.y, d.x) - look))));
    }
    const r = await (await fetch(`/api/world/crowd?x=${p.x}&y=${p.y}&dx=${t.x - p.x}&dy=${t.y - p.y}&half=${half}`)).json();
    if (!crowdMesh || crowdMesh.count < r.walkers.length) {
      if (crowdMesh) untrack(crowdMesh);
      const g = new THREE.CapsuleGeometry(r.radius, 2 * r.radius, 4, 8).rotateX(Math.PI / 2).translate(0, 0, 2 * r.radius);
      crowdMesh = new THREE.InstancedMesh(g, new THREE.MeshBasicMaterial({ color: 0xffffff }), Math.max(r.walkers.length, 1));
      crowdMesh.userData.origin = [O.x, O.y, O.z];
      crowdMesh.frustumCulled = false;
      track(crowdMesh);
      scene.add(crowdMesh);
    }
    const m4 = new THREE.Matrix4(), c = new THREE.Color();
    r.walkers.forEach(([x, y, z, rep], k) => {
      crowdMesh.setMatrixAt(k, m4.makeTranslation(x - O.x, y - O.y, z - O.z));
      crowdMesh.setColorAt(k, c.setHex(REPS[rep]));
    });
    crowdMesh.count = r.walkers.length;
    crowdMesh.instanceMatrix.needsUpdate = true;
    if (crowdMesh.instanceColor) crowdMesh.instanceColor.needsUpdate = true;
    for (const k of ['full', 'approximate', 'dormant']) { $(`crowd-${k}`).textContent = String(r[k]); $('crowd').dataset[k] = String(r[k]); }
    $('crowd').dataset.shown = String(r.walkers.length);
  } finally { crowding = false; }
}

// ---- Clicks and hovering: the exact surface under the cursor, from the server's ray cast.
const raycaster = new THREE.Raycaster();
const marker = new THREE.Mesh(new THREE.SphereGeometry(world ? 0.3 : size * 0.004, 16, 8), new THREE.MeshBasicMaterial({ color: 0xe0301e }));
marker.visible = false;
scene.add(marker);
let last = null, losStart = null, losLine = null;
onExaggeration.push(() => {
  if (last) marker.position.copy(toScene(last));
  if (losLine) losLine.geometry.setFromPoints(losLine.userData.ends.map(toScene));
});

async function pick(px, py) {
  const ndc = new THREE.Vector2((px / window.innerWidth) * 2 - 1, -(py / window.innerHeight) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const r0 = raycaster.ray.origin, d0 = raycaster.ray.direction;
  const o = toWorld(r0), d = new THREE.Vector3(d0.x / kx, d0.y / ky, d0.z / ex);
  const r = await (await fetch(`/api/raycast?ox=${o.x}&oy=${o.y}&oz=${o.z}&dx=${d.x}&dy=${d.y}&dz=${d.z}`)).json();
  return r.hit ? { p: new THREE.Vector3(...r.point), n: r.normal, geo: r.geodetic } : null;
}

async function click(px, py, shift) {
  const h = await pick(px, py);
  if (!h) { show('no terrain under the cursor', { hit: 0 }); return; }
  last = h.p;
  marker.position.copy(toScene(h.p));
  marker.visible = true;
  if (!shift && world && $('path-on').checked) { pathEnd(h.p); return; }
  if (!shift) {
    // In degrees: longitude, latitude and the height above the ellipsoid (x, y, z: the frame's metres).
    const where = h.geo ? `lon ${h.geo.lon.toFixed(5)}  lat ${h.geo.lat.toFixed(5)}\nheight ${fmt(h.geo.h)} (WGS84 ellipsoid)`
                        : `${coord(h.p)}\nheight ${fmt(h.p.z)}`;
    show(`${where}\nnormal ${h.n.map(fmt).join(', ')}`, { hit: 1, x: h.p.x, y: h.p.y, z: h.p.z, nz: h.n[2], clicked: 1,
      ...(h.geo ? { lon: h.geo.lon, lat: h.geo.lat, h: h.geo.h } : {}) });
    if (params.has('viewshed')) viewshed();
    return;
  }
  const eye = h.p.clone().add(new THREE.Vector3(0, 0, 2 * Math.max(1, relief / 1000)));
  if (!losStart) { losStart = eye; show('line of sight: shift-click the second point', {}); return; }
  const a = losStart, b = eye;
  losStart = null;
  const r = await (await fetch(`/api/visible?ax=${a.x}&ay=${a.y}&az=${a.z}&bx=${b.x}&by=${b.y}&bz=${b.z}`)).json();
  if (losLine) scene.remove(losLine);
  const g = new THREE.BufferGeometry().setFromPoints([toScene(a), toScene(b)]);
  losLine = new THREE.Line(g, new THREE.LineBasicMaterial({ color: r.visible ? 0x18c43a : 0xe0301e }));
  losLine.userData.ends = [a, b];
  scene.add(losLine);
  readout.innerHTML = `line of sight: <span class="${r.visible ? 'visible' : 'hidden'}">${r.visible ? 'clear' : 'blocked'}</span>`;
  readout.dataset.visible = r.visible ? '1' : '0';
}

// ---- The world: a path between two clicked points for an agent of the chosen radius (the server
// plans it as `landfall world path` does), drawn on the ground as a band as wide as the agent.
const radiusInput = $('radius');
// The slider is logarithmic: 0.3 m to 30 m.
const agentRadius = () => Number((0.3 * 100 ** Number(radiusInput.value)).toPrecision(2));
radiusInput.addEventListener('input', () => { $('radius-value').textContent = `${agentRadius()} m`; });
let pathStart = null, pathBand = null;
onExaggeration.push(() => { if (pathBand) drawPath(pathBand.userData.line, pathBand.userData.radius); });
function drawPath(line, r) {
  if (pathBand) { scene.remove(pathBand); pathBand.geometry.dispose(); }
  // A band r either side of the line, a little above the ground.
  const pos = [], idx = [];
  line.forEach(([x, y, z], k) => {
    const [px, py] = line[Math.max(k - 1, 0)], [nx, ny] = line[Math.min(k + 1, line.length - 1)];
    const dx = nx - px, dy = ny - py, l = Math.hypot(dx, dy) || 1;
    for (const s of [-r, r]) pos.push(...toScene(new THREE.Vector3(x - s * dy / l, y + s * dx / l, z + 0.5)).toArray());
    if (k > 0) idx.push(2 * k - 2, 2 * k - 1, 2 * k, 2 * k - 1, 2 * k + 1, 2 * k);
  });
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.setIndex(idx);
  pathBand = new THREE.Mesh(g, new THREE.MeshBasicMaterial({ color: 0xffd21f, side: THREE.DoubleSide }));
  pathBand.userData = { line, radius: r };
  scene.add(pathBand);
}
async function pathEnd(p) {
  if (!pathStart) { pathStart = p; show(`path from ${coord(p)}: click the goal`, {}); return; }
  const a = pathStart, r = agentRadius();
  pathStart = null;
  show('planning…', {});
  const res = await fetch(`/api/world/path?ax=${a.x}&ay=${a.y}&bx=${p.x}&by=${p.y}&radius=${r}`);
  const v = await res.json();
  if (!res.ok) { show(`no path: ${v.error}`, { pathError: res.status }); return; }
  drawPath(v.line, r);
  const moved = v.moved.map((d, k) => d > 0 ? `\n${['start', 'goal'][k]} moved ${d.toFixed(2)} m to walkable ground` : '').join('');
  show(`path ${v.length.toFixed(1)} m, ${v.points.length} corners (radius ${r} m, ${v.ms.toFixed(0)} ms)${moved}`,
    { pathLength: v.length, pathCorners: v.points.length, pathFrom: `${a.x},${a.y}`, pathTo: `${p.x},${p.y}`, pathRadius: r });
}

// Hovering: the point under the cursor, asked at most one at a time.
let hovering = false, hoverAt = null;
async function hover(px, py) {
  hoverAt = [px, py];
  if (hovering) return;
  hovering = true;
  try {
    while (hoverAt) {
      const [x, y] = hoverAt;
      hoverAt = null;
      const h = await pick(x, y);
      const el = $('hover');
      if (h) {
        el.textContent = h.geo ? `lon ${h.geo.lon.toFixed(5)}  lat ${h.geo.lat.toFixed(5)}  height ${h.geo.h.toFixed(1)}`
                               : `${coord(h.p)}  height ${h.p.z.toFixed(1)}`;
        Object.assign(el.dataset, { x: h.p.x, y: h.p.y, z: h.p.z });
      } else {
        el.textContent = 'off the terrain';
        delete el.dataset.x;
      }
    }
  } finally { hovering = false; }
}

let down = null;
renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
renderer.domElement.addEventListener('pointerup', (e) => {
  if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 4) click(e.clientX, e.clientY, e.shiftKey);
  down = null;
});
renderer.domElement.addEventListener('pointermove', (e) => { if (!down) hover(e.clientX, e.clientY); });

// ---- V: the viewshed from the last point, over the vertex colours of every tile (and those to come).
let viewshedGrid = null;
function tint(m) {
  const { nx, ny, ox, oy, sx, sy, v } = viewshedGrid;
  const g = m.geometry, pos = g.getAttribute('position'), col = g.getAttribute('color'), base = m.userData.base;
  const org = m.userData.origin;
  let seen = 0;
  for (let k = 0; k < pos.count; k++) {
    // The sample under the vertex: its x, y on the grid, or in degrees its lon, lat.
    const [x, y] = ENU ? toLonLat(pos.getX(k) + org[0], pos.getY(k) + org[1], pos.getZ(k) + org[2])
                       : [pos.getX(k) + org[0], pos.getY(k) + org[1]];
    const i = Math.round((x - ox) / sx), j = Math.round((y - oy) / sy);
    const s = (i >= 0 && j >= 0 && i < nx && j < ny) ? v[j * nx + i] : 255;
    const t = s === 1 ? [0.2, 0.85, 0.25] : s === 0 ? [0.7, 0.12, 0.1] : null;
    for (let c = 0; c < 3; c++) col.array[3 * k + c] = t ? base[3 * k + c] * 0.4 + t[c] * 0.6 : base[3 * k + c];
    seen += s === 1;
  }
  col.needsUpdate = true;
  return seen;
}
async function viewshed() {
  if (!info.heightfield || !last) return;
  show('computing the viewshed…');
  const buf = await (await fetch(`/api/viewshed?x=${last.x}&y=${last.y}&h=2`)).arrayBuffer();
  const dv = new DataView(buf);
  viewshedGrid = {
    nx: dv.getUint32(4, true), ny: dv.getUint32(8, true), ox: dv.getFloat64(12, true), oy: dv.getFloat64(20, true),
    sx: dv.getFloat64(28, true), sy: dv.getFloat64(36, true), v: new Uint8Array(buf, 44),
  };
  const meshes = terrainMesh ? [terrainMesh] : [...tiles.values()].filter((t) => t.mesh).map((t) => t.mesh);
  const seen = viewshedGrid.v.reduce((n, s) => n + (s === 1), 0);
  meshes.forEach(tint);
  show(`viewshed from ${ENU ? 'here' : coord(last)} (2 m up${ENU ? ', on the WGS84 ellipsoid' : ''}): ${seen} of ${viewshedGrid.nx * viewshedGrid.ny} samples seen`, { viewshed: seen });
}

// ---- The world: W A S D walk the walker with the character controller; the camera follows it.
const keys = new Set();
window.addEventListener('keydown', (e) => { keys.add(e.key.toLowerCase()); if (e.key.toLowerCase() === 'v') viewshed(); });
window.addEventListener('keyup', (e) => keys.delete(e.key.toLowerCase()));
let walking = false;
async function walk(dt) {
  if (!world || walking) return;
  const fwd = new THREE.Vector3(); camera.getWorldDirection(fwd); fwd.z = 0; fwd.normalize();
  const right = new THREE.Vector3(fwd.y, -fwd.x, 0);
  const m = new THREE.Vector3();
  if (keys.has('w')) m.add(fwd); if (keys.has('s')) m.sub(fwd);
  if (keys.has('d')) m.add(right); if (keys.has('a')) m.sub(right);
  if (m.lengthSq() === 0) return;
  m.normalize().multiplyScalar(4 * dt);
  walking = true;
  try {
    const r = await (await fetch(`/api/world/walk?dx=${m.x}&dy=${m.y}`)).json();
    const p = new THREE.Vector3(...r.walker);
    const step = toScene(p).sub(toScene(walker));
    walker = p;
    camera.position.add(step); controls.target.add(step);
  } finally { walking = false; }
}
const walkerMark = new THREE.Mesh(new THREE.CapsuleGeometry(0.4, 1.0, 4, 12), new THREE.MeshLambertMaterial({ color: 0xd04020 }));
walkerMark.rotation.x = Math.PI / 2;
if (world) scene.add(walkerMark);

// Settings asked for in the address (for links and tests): ?exaggeration=5&water=120&hover=px,py&click=px,py
// (&viewshed=1: the viewshed from the clicked point); in the world ?radius=2&path=px,py;px,py (a path
// between the points under two pixels)
setExaggeration(ex);
if (params.has('water')) setWater(true, Number(params.get('water')));
else setWater(false, Number(waterInput.value));

// The first frame waits for the ground: the world's first regions, or the top tile.
if (world) { await followCamera(); await followCrowd(); }
if (T) {
  while (!updateTiles()) await new Promise((r) => setTimeout(r, 20));
}
let then = performance.now(), lastFollow = performance.now(), settled = 0;
renderer.setAnimationLoop(() => {
  const now = performance.now(), dt = Math.min((now - then) / 1000, 0.1);
  then = now;
  frame++;
  controls.update();
  if (T) updateTiles();
  if (world) {
    walk(dt);
    walkerMark.position.copy(toScene(walker));
    if (now - lastFollow > 250) { lastFollow = now; followCamera(); followCrowd(); }
  }
  overlays();
  renderer.render(scene, camera);
  if (frame === 2) {
    document.body.dataset.drawn = '1';
    if (!readout.dataset.hit) show(world ? 'walk with W A S D, click the ground' : 'click the terrain');
    const c = params.get('click');
    if (c) { const [x, y] = c.split(',').map(Number); click(x, y, false); }
    const path = params.get('path');
    if (world && path) {
      $('path-on').checked = true;
      if (params.has('radius')) { radiusInput.value = String(Math.log(Number(params.get('radius')) / 0.3) / Math.log(100)); radiusInput.dispatchEvent(new Event('input')); }
      (async () => { for (const e of path.split(';')) { const [x, y] = e.split(',').map(Number); await click(x, y, false); } })();
    }
    const h = params.get('hover');
    if (h) { const [x, y] = h.split(',').map(Number); hover(x, y); }
  }
});
// The tiles are chosen again ten times a second whether or not frames are drawn (a hidden tab, a
// headless browser), and drawn when they changed. Settled: no tile on its way twice in a row.
let shown = '';
setInterval(() => {
  if (!T) return;
  updateTiles();
  if (document.body.dataset.levels + document.body.dataset.tiles !== shown) {
    shown = document.body.dataset.levels + document.body.dataset.tiles;
    renderer.render(scene, camera);
  }
  settled = inflight === 0 ? settled + 1 : 0;
  document.body.dataset.settled = settled >= 2 ? '1' : '0';
}, 100);
window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});
