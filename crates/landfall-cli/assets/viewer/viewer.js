// The landfall viewer: the terrain's mesh (coloured and lit as landfall colours it), the mouse to
// orbit and fly, and every question answered by the server's exact queries.
import * as THREE from 'three';
import { OrbitControls } from '/vendor/OrbitControls.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const info = await (await fetch('/api/info')).json();
const world = info.kind === 'world';

// Scene coordinates are world coordinates minus this offset (f32 precision near the terrain).
const [lo, hi] = info.bounds;
const O = world ? new THREE.Vector3(info.walker[0], info.walker[1], info.walker[2])
                : new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
const size = world ? 2000 : Math.max(hi[0] - lo[0], hi[1] - lo[1], 1e-9);
// Heights drawn ×zs: 1 unless the relief dwarfs the extent (a raster in degrees with heights in
// metres), then scaled so the relief is a fifth of the extent. Queries undo it.
const relief = hi[2] - lo[2];
const zs = !world && relief > 5 * size ? (0.2 * size) / relief : 1;
const toScene = (p) => new THREE.Vector3(p.x - O.x, p.y - O.y, (p.z - O.z) * zs);

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
  m.position.set(origin[0] - O.x, origin[1] - O.y, (origin[2] - O.z) * zs);
  m.scale.set(1, 1, zs);
  m.userData.origin = origin;
  return m;
}

const readout = $('readout');
function show(text, data = {}) {
  readout.textContent = text;
  for (const [k, v] of Object.entries(data)) readout.dataset[k] = String(v);
}
const fmt = (v) => v.toFixed(3);

let terrainMesh = null;
const layers = new Map(); // world: 'level:region' → { version, mesh }
let objectsMesh = null, objectsVersion = -1;
let walker = world ? new THREE.Vector3(...info.walker) : null;

if (world) {
  $('title').textContent = 'landfall — the procedural world';
  $('help').textContent = 'W A S D walk (the character controller; trees and houses stop you) · mouse orbits · click: exact height and normal, roofs included · shift-click twice: line of sight';
  camera.position.set(-40, -60, 45);
  controls.target.set(0, 0, 0);
} else {
  $('title').textContent = `landfall — ${info.name}`;
  $('help').textContent = 'mouse orbits, wheel zooms, right-drag or arrow keys fly · click: exact height and normal · shift-click twice: line of sight'
    + (info.heightfield ? ' · V: viewshed from the last point' : '')
    + (zs !== 1 ? ` · heights drawn ×${zs.toPrecision(2)}` : '');
  const buf = await (await fetch('/api/mesh')).arrayBuffer();
  terrainMesh = meshFrom(buf);
  scene.add(terrainMesh);
  camera.position.set(-0.55 * size, -0.75 * size, 0.55 * size + relief * zs);
  controls.target.set(0, 0, 0);
}
controls.update();

// World: the cache follows the camera; only the regions whose version changed are fetched again.
let updating = false;
async function followCamera() {
  if (!world || updating) return;
  updating = true;
  try {
    const p = camera.position.clone();
    p.set(p.x + O.x, p.y + O.y, p.z / zs + O.z);
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
      if (have) scene.remove(have.mesh);
      const m = meshFrom(bufs[k]);
      scene.add(m);
      layers.set(key, { version, mesh: m });
    });
    for (const [key, l] of layers) if (!drawn.has(key)) { scene.remove(l.mesh); layers.delete(key); }
    // The objects (and roaming entities) as one mesh, fetched again when they changed.
    if (r.objects.version !== objectsVersion) {
      const m = meshFrom(await (await fetch('/api/world/objects')).arrayBuffer());
      if (objectsMesh) scene.remove(objectsMesh);
      scene.add(m);
      objectsMesh = m;
      objectsVersion = r.objects.version;
      document.body.dataset.objects = String(r.objects.count);
    }
  } finally { updating = false; }
}

// Clicks: the exact surface under the cursor, from the server's ray cast.
const raycaster = new THREE.Raycaster();
const marker = new THREE.Mesh(new THREE.SphereGeometry(world ? 0.3 : size * 0.004, 16, 8), new THREE.MeshBasicMaterial({ color: 0xe0301e }));
marker.visible = false;
scene.add(marker);
let last = null, losStart = null, losLine = null;

async function pick(px, py) {
  const ndc = new THREE.Vector2((px / window.innerWidth) * 2 - 1, -(py / window.innerHeight) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const r0 = raycaster.ray.origin, d0 = raycaster.ray.direction;
  const o = new THREE.Vector3(r0.x + O.x, r0.y + O.y, r0.z / zs + O.z), d = new THREE.Vector3(d0.x, d0.y, d0.z / zs);
  const r = await (await fetch(`/api/raycast?ox=${o.x}&oy=${o.y}&oz=${o.z}&dx=${d.x}&dy=${d.y}&dz=${d.z}`)).json();
  return r.hit ? { p: new THREE.Vector3(...r.point), n: r.normal } : null;
}

async function click(px, py, shift) {
  const h = await pick(px, py);
  if (!h) { show('no terrain under the cursor', { hit: 0 }); return; }
  last = h.p;
  marker.position.copy(toScene(h.p));
  marker.visible = true;
  if (!shift) {
    show(`x ${fmt(h.p.x)}  y ${fmt(h.p.y)}\nheight ${fmt(h.p.z)}\nnormal ${h.n.map(fmt).join(', ')}`,
         { hit: 1, x: h.p.x, y: h.p.y, z: h.p.z, nz: h.n[2], clicked: 1 });
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
  scene.add(losLine);
  readout.innerHTML = `line of sight: <span class="${r.visible ? 'visible' : 'hidden'}">${r.visible ? 'clear' : 'blocked'}</span>`;
  readout.dataset.visible = r.visible ? '1' : '0';
}

let down = null;
renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
renderer.domElement.addEventListener('pointerup', (e) => {
  if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 4) click(e.clientX, e.clientY, e.shiftKey);
  down = null;
});

// V: the viewshed from the last point, over the vertex colours.
let base = null;
async function viewshed() {
  if (!info.heightfield || !last || !terrainMesh) return;
  show('computing the viewshed…');
  const buf = await (await fetch(`/api/viewshed?x=${last.x}&y=${last.y}&h=2`)).arrayBuffer();
  const dv = new DataView(buf);
  const nx = dv.getUint32(4, true), ny = dv.getUint32(8, true);
  const ox = dv.getFloat64(12, true), oy = dv.getFloat64(20, true), sx = dv.getFloat64(28, true), sy = dv.getFloat64(36, true);
  const v = new Uint8Array(buf, 44);
  const g = terrainMesh.geometry, pos = g.getAttribute('position'), col = g.getAttribute('color');
  if (!base) base = col.array.slice();
  const org = terrainMesh.userData.origin;
  let seen = 0;
  for (let k = 0; k < pos.count; k++) {
    const i = Math.round((pos.getX(k) + org[0] - ox) / sx), j = Math.round((pos.getY(k) + org[1] - oy) / sy);
    const s = (i >= 0 && j >= 0 && i < nx && j < ny) ? v[j * nx + i] : 255;
    const tint = s === 1 ? [0.2, 0.85, 0.25] : s === 0 ? [0.7, 0.12, 0.1] : null;
    for (let c = 0; c < 3; c++) col.array[3 * k + c] = tint ? base[3 * k + c] * 0.4 + tint[c] * 0.6 : base[3 * k + c];
    seen += s === 1;
  }
  col.needsUpdate = true;
  show(`viewshed from ${fmt(last.x)}, ${fmt(last.y)} (2 m up): ${seen} of ${pos.count} vertices seen`, { viewshed: seen });
}

// World: W A S D walk the walker with the character controller; the camera follows it.
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
    const step = p.clone().sub(walker);
    walker = p;
    camera.position.add(step); controls.target.add(step);
  } finally { walking = false; }
}
const walkerMark = new THREE.Mesh(new THREE.CapsuleGeometry(0.4, 1.0, 4, 12), new THREE.MeshLambertMaterial({ color: 0xd04020 }));
walkerMark.rotation.x = Math.PI / 2;
if (world) scene.add(walkerMark);

// The world's first regions are in the scene before the first frame (as the heightfield's mesh).
if (world) await followCamera();
let frames = 0, then = performance.now(), lastFollow = performance.now();
renderer.setAnimationLoop(() => {
  const now = performance.now(), dt = Math.min((now - then) / 1000, 0.1);
  then = now;
  controls.update();
  if (world) {
    walk(dt);
    walkerMark.position.copy(toScene(walker));
    if (now - lastFollow > 250) { lastFollow = now; followCamera(); }
  }
  renderer.render(scene, camera);
  frames++;
  if (frames === 2) {
    document.body.dataset.ready = '1';
    if (!readout.dataset.hit) show(world ? 'walk with W A S D, click the ground' : 'click the terrain');
    // A click asked for in the address (for tests and links): ?click=px,py
    const c = params.get('click');
    if (c) { const [x, y] = c.split(',').map(Number); click(x, y, false); }
  }
});
window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});
