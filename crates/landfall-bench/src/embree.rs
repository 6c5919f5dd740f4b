//! Embree (Intel's ray-tracing kernels) as a peer: a triangle scene of exactly the triangles of a
//! heightfield, cast one ray per call with `rtcIntersect1`. With the `embree` feature, Embree 3.13,
//! the system library `libembree3` (`apt-get install libembree-dev` on Debian); with `embree4`,
//! Embree 4.4, the release build that the Python binding `embreex` ships
//! (`scripts/fetch-embree4.sh`).
//!
//! The bindings are the few functions and structs this needs, written from Embree's headers
//! (`rtcore_*.h`, with `RTC_MAX_INSTANCE_LEVEL_COUNT` 1 and no minimum width, as both libraries are
//! built). Embree 4 differs here only in `rtcIntersect1`, which takes optional arguments in place of
//! Embree 3's intersect context.

use crate::peers::{center, grid_mesh};
use glam::DVec3;
use landfall::{Heightfield, Ray};
use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicIsize, Ordering};

type Device = *mut c_void;
type Scene = *mut c_void;
type Geometry = *mut c_void;
type MemoryMonitor = extern "C" fn(user: *mut c_void, bytes: isize, post: bool) -> bool;

const GEOMETRY_TYPE_TRIANGLE: u32 = 0;
const BUFFER_TYPE_INDEX: u32 = 0;
const BUFFER_TYPE_VERTEX: u32 = 1;
const FORMAT_UINT3: u32 = 0x5003;
const FORMAT_FLOAT3: u32 = 0x9003;
const INVALID_GEOMETRY_ID: u32 = u32::MAX;

/// `struct RTCRay`.
#[repr(C, align(16))]
struct RtcRay {
    org: [f32; 3],
    tnear: f32,
    dir: [f32; 3],
    time: f32,
    tfar: f32,
    mask: u32,
    id: u32,
    flags: u32,
}

/// `struct RTCHit`.
#[repr(C, align(16))]
struct RtcHit {
    ng: [f32; 3],
    u: f32,
    v: f32,
    prim_id: u32,
    geom_id: u32,
    inst_id: [u32; 1],
    /// Embree 4's release builds have instance arrays (`RTC_GEOMETRY_INSTANCE_ARRAY`), which add
    /// this field.
    #[cfg(feature = "embree4")]
    inst_prim_id: [u32; 1],
}

/// `struct RTCRayHit`.
#[repr(C)]
struct RtcRayHit {
    ray: RtcRay,
    hit: RtcHit,
}

/// `struct RTCIntersectContext` of Embree 3, as `rtcInitIntersectContext` fills it.
#[cfg(not(feature = "embree4"))]
#[repr(C)]
struct RtcIntersectContext {
    flags: u32,
    filter: *const c_void,
    inst_id: [u32; 1],
}

/// The library and version the peer runs, for reports.
#[cfg(not(feature = "embree4"))]
pub const VERSION: &str = "Embree 3";
/// The library and version the peer runs, for reports.
#[cfg(feature = "embree4")]
pub const VERSION: &str = "Embree 4";

#[cfg_attr(not(feature = "embree4"), link(name = "embree3"))]
#[cfg_attr(feature = "embree4", link(name = "embree4"))]
extern "C" {
    fn rtcNewDevice(config: *const c_char) -> Device;
    fn rtcReleaseDevice(device: Device);
    fn rtcGetDeviceError(device: Device) -> u32;
    fn rtcSetDeviceMemoryMonitorFunction(device: Device, f: Option<MemoryMonitor>, user: *mut c_void);
    fn rtcNewScene(device: Device) -> Scene;
    fn rtcReleaseScene(scene: Scene);
    fn rtcCommitScene(scene: Scene);
    fn rtcNewGeometry(device: Device, kind: u32) -> Geometry;
    #[allow(clippy::too_many_arguments)]
    fn rtcSetSharedGeometryBuffer(
        geometry: Geometry,
        kind: u32,
        slot: u32,
        format: u32,
        ptr: *const c_void,
        byte_offset: usize,
        byte_stride: usize,
        item_count: usize,
    );
    fn rtcCommitGeometry(geometry: Geometry);
    fn rtcAttachGeometry(scene: Scene, geometry: Geometry) -> u32;
    fn rtcReleaseGeometry(geometry: Geometry);
    #[cfg(not(feature = "embree4"))]
    fn rtcIntersect1(scene: Scene, context: *mut RtcIntersectContext, rayhit: *mut RtcRayHit);
    /// Embree 4: `args` may be null (the defaults).
    #[cfg(feature = "embree4")]
    fn rtcIntersect1(scene: Scene, rayhit: *mut RtcRayHit, args: *const c_void);
}

/// `rtcIntersect1` with Embree 3's default intersect context.
///
/// # Safety
/// `scene` must be committed.
#[cfg(not(feature = "embree4"))]
unsafe fn intersect1(scene: Scene, rh: &mut RtcRayHit) {
    let mut ctx = RtcIntersectContext { flags: 0, filter: std::ptr::null(), inst_id: [INVALID_GEOMETRY_ID] };
    // SAFETY: both structs are laid out as Embree 3's headers define; the caller's scene is committed.
    unsafe { rtcIntersect1(scene, &mut ctx, rh) }
}

/// `rtcIntersect1` with Embree 4's default arguments (null).
///
/// # Safety
/// `scene` must be committed.
#[cfg(feature = "embree4")]
unsafe fn intersect1(scene: Scene, rh: &mut RtcRayHit) {
    // SAFETY: the struct is laid out as Embree 4's headers define; the caller's scene is committed.
    unsafe { rtcIntersect1(scene, rh, std::ptr::null()) }
}

/// Adds each allocation Embree reports (negative: a release) to the counter behind `user`.
extern "C" fn count_bytes(user: *mut c_void, bytes: isize, _post: bool) -> bool {
    // SAFETY: `user` is the `AtomicIsize` boxed in the `Embree` that owns the device.
    unsafe { &*(user as *const AtomicIsize) }.fetch_add(bytes, Ordering::Relaxed);
    true
}

/// An Embree scene of a heightfield's triangles, in f32 in a frame centred on the grid.
pub struct Embree {
    device: Device,
    scene: Scene,
    center: DVec3,
    /// Shared with Embree, which reads them in place: they live as long as the scene.
    vertices: Vec<f32>,
    indices: Vec<[u32; 3]>,
    /// Bytes Embree holds (its BVH), counted by its memory monitor.
    allocated: Box<AtomicIsize>,
}

// SAFETY: a committed scene is read-only; Embree allows `rtcIntersect1` from any thread.
unsafe impl Send for Embree {}
// SAFETY: as above.
unsafe impl Sync for Embree {}

impl Embree {
    /// Builds the scene of exactly the triangles of `hf` (the same mesh as parry's `TriMesh`).
    /// Panics, naming Embree's error code, if Embree cannot create or build it.
    pub fn new(hf: &Heightfield) -> Self {
        let c = center(hf);
        let (verts, indices) = grid_mesh(hf);
        // Embree reads vertices with 16-byte loads: one float of padding after the last.
        let mut vertices: Vec<f32> = verts.iter().flat_map(|&v| (v - c).to_array().map(|x| x as f32)).collect();
        vertices.push(0.0);
        let allocated = Box::new(AtomicIsize::new(0));
        // SAFETY: plain calls into Embree with valid, live pointers (the shared buffers live in the
        // returned value); a null device is refused, and Embree's error code is checked after the
        // build.
        unsafe {
            let device = rtcNewDevice(std::ptr::null());
            assert!(!device.is_null(), "Embree: rtcNewDevice failed");
            let user = &*allocated as *const AtomicIsize as *mut c_void;
            rtcSetDeviceMemoryMonitorFunction(device, Some(count_bytes), user);
            let scene = rtcNewScene(device);
            let geometry = rtcNewGeometry(device, GEOMETRY_TYPE_TRIANGLE);
            rtcSetSharedGeometryBuffer(
                geometry,
                BUFFER_TYPE_VERTEX,
                0,
                FORMAT_FLOAT3,
                vertices.as_ptr().cast(),
                0,
                12,
                verts.len(),
            );
            rtcSetSharedGeometryBuffer(
                geometry,
                BUFFER_TYPE_INDEX,
                0,
                FORMAT_UINT3,
                indices.as_ptr().cast(),
                0,
                12,
                indices.len(),
            );
            rtcCommitGeometry(geometry);
            rtcAttachGeometry(scene, geometry);
            rtcReleaseGeometry(geometry);
            rtcCommitScene(scene);
            let err = rtcGetDeviceError(device);
            assert_eq!(err, 0, "Embree: error code {err} building the scene");
            Embree { device, scene, center: c, vertices, indices, allocated }
        }
    }

    /// Embree's first hit t in [0, `max_t`], in landfall's units of |dir| (f32, as Embree casts).
    #[inline]
    pub fn raycast(&self, ray: &Ray, max_t: f64) -> Option<f32> {
        let o = (ray.origin - self.center).to_array().map(|x| x as f32);
        let tfar = if max_t.is_finite() { max_t as f32 } else { f32::INFINITY };
        let mut rh = RtcRayHit {
            ray: RtcRay {
                org: o,
                tnear: 0.0,
                dir: ray.dir.to_array().map(|x| x as f32),
                time: 0.0,
                tfar,
                mask: u32::MAX,
                id: 0,
                flags: 0,
            },
            hit: RtcHit {
                ng: [0.0; 3],
                u: 0.0,
                v: 0.0,
                prim_id: INVALID_GEOMETRY_ID,
                geom_id: INVALID_GEOMETRY_ID,
                inst_id: [INVALID_GEOMETRY_ID],
                #[cfg(feature = "embree4")]
                inst_prim_id: [INVALID_GEOMETRY_ID],
            },
        };
        // SAFETY: the scene is committed.
        unsafe { intersect1(self.scene, &mut rh) };
        (rh.hit.geom_id != INVALID_GEOMETRY_ID).then_some(rh.ray.tfar)
    }

    /// Bytes of the scene: Embree's own allocations (the BVH) plus the shared vertex and index
    /// buffers.
    pub fn memory_bytes(&self) -> usize {
        let own = self.allocated.load(Ordering::Relaxed).max(0) as usize;
        own + std::mem::size_of_val(self.vertices.as_slice()) + std::mem::size_of_val(self.indices.as_slice())
    }
}

impl Drop for Embree {
    fn drop(&mut self) {
        // SAFETY: the handles were created in `new` and are released once, scene first.
        unsafe {
            rtcReleaseScene(self.scene);
            rtcReleaseDevice(self.device);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrains;

    /// Embree agrees with landfall on oblique rays and lines of sight over a generated terrain, and
    /// the structs match Embree's sizes (a wrong layout would make it read garbage or miss).
    #[test]
    fn embree_hits_what_landfall_hits() {
        assert_eq!(std::mem::size_of::<RtcRayHit>(), if cfg!(feature = "embree4") { 96 } else { 80 });
        #[cfg(not(feature = "embree4"))]
        assert_eq!(std::mem::size_of::<RtcIntersectContext>(), 24);
        let t = terrains::generated(257);
        let e = Embree::new(&t.hf);
        let mut set = landfall::support::workload::oblique(&t.hf, 500, 5);
        set.extend(landfall::support::workload::line_of_sight(&t.hf, 500, 6));
        assert_eq!(crate::peers::differing(&t.hf, &set, |r, m| e.raycast(r, m)), 0);
        let hits = set.iter().filter(|(r, m)| e.raycast(r, *m).is_some()).count();
        assert!(hits > 100, "{hits} hits: too few to compare");
        assert!(e.memory_bytes() > 257 * 257 * 12);
    }
}
