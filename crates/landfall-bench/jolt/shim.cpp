// A C interface to the few parts of Jolt Physics 5.0 the benchmarks use: a HeightFieldShape at its
// defaults (block size 2, 8 bits per sample), its ray cast with the hit's normal, its vertical
// projection (Jolt's O(1) height lookup) and its memory. Compiled with Jolt by build.rs (feature `jolt`).

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Physics/Collision/CastResult.h>
#include <Jolt/Physics/Collision/RayCast.h>
#include <Jolt/Physics/Collision/Shape/HeightFieldShape.h>
#include <Jolt/Physics/Collision/Shape/SubShapeID.h>
#include <Jolt/RegisterTypes.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

using namespace JPH;

namespace {
std::once_flag jolt_ready;

void init_jolt() {
    std::call_once(jolt_ready, [] {
        RegisterDefaultAllocator();
        Factory::sInstance = new Factory();
        RegisterTypes();
    });
}
}  // namespace

extern "C" {

// A HeightFieldShape of n × n samples (row y at samples[y * n]), where sample (x, y) is the point
// offset + scale · (x, sample, y). Null on an error, whose message is copied into `error` (of
// `error_len` bytes, NUL-terminated).
void *lf_jolt_new(const float *samples, uint32_t n, const float offset[3], const float scale[3], char *error,
                  size_t error_len) {
    init_jolt();
    HeightFieldShapeSettings settings(samples, Vec3(offset[0], offset[1], offset[2]),
                                      Vec3(scale[0], scale[1], scale[2]), n);
    ShapeSettings::ShapeResult result = settings.Create();
    if (result.HasError()) {
        const String &e = result.GetError();
        size_t k = e.size() < error_len - 1 ? e.size() : error_len - 1;
        memcpy(error, e.data(), k);
        error[k] = 0;
        return nullptr;
    }
    // One reference held by the caller until lf_jolt_free.
    Shape *shape = result.Get().GetPtr();
    shape->AddRef();
    return shape;
}

void lf_jolt_free(void *shape) { static_cast<Shape *>(shape)->Release(); }

// Bytes the shape holds (Jolt's own count).
size_t lf_jolt_memory(const void *shape) { return static_cast<const Shape *>(shape)->GetStats().mSizeBytes; }

// First hit of the segment origin + f · dir, f in [0, 1]: true with f and the surface normal there.
bool lf_jolt_cast(const void *shape, const float origin[3], const float dir[3], float *fraction, float normal[3]) {
    const HeightFieldShape *hf = static_cast<const HeightFieldShape *>(shape);
    RayCast ray(Vec3(origin[0], origin[1], origin[2]), Vec3(dir[0], dir[1], dir[2]));
    RayCastResult hit;
    if (!hf->CastRay(ray, SubShapeIDCreator(), hit))
        return false;
    Vec3 n = hf->GetSurfaceNormal(hit.mSubShapeID2, ray.GetPointOnRay(hit.mFraction));
    *fraction = hit.mFraction;
    normal[0] = n.GetX();
    normal[1] = n.GetY();
    normal[2] = n.GetZ();
    return true;
}

// The surface's height (Jolt's y) under the point (x, z): false outside the grid or over a hole.
bool lf_jolt_height(const void *shape, float x, float z, float *y) {
    const HeightFieldShape *hf = static_cast<const HeightFieldShape *>(shape);
    Vec3 surface;
    SubShapeID id;
    if (!hf->ProjectOntoSurface(Vec3(x, 0.0f, z), surface, id))
        return false;
    *y = surface.GetY();
    return true;
}
}
