// A C interface to the few parts of Jolt Physics 5.0 the benchmarks use: a HeightFieldShape at its
// defaults (block size 2, 8 bits per sample), its ray cast with the hit's normal, its vertical
// projection (Jolt's O(1) height lookup) and its memory; and a BroadPhaseQuadTree over one dynamic
// sphere body per object, moved, updated and asked for its colliding pairs each frame. Compiled with
// Jolt by build.rs (feature `jolt`).

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Body/BodyManager.h>
#include <Jolt/Physics/Body/BodyPair.h>
#include <Jolt/Physics/Collision/BroadPhase/BroadPhaseQuadTree.h>
#include <Jolt/Physics/Collision/Shape/SphereShape.h>
#include <Jolt/Physics/Collision/CastResult.h>
#include <Jolt/Physics/Collision/RayCast.h>
#include <Jolt/Physics/Collision/Shape/HeightFieldShape.h>
#include <Jolt/Physics/Collision/Shape/SubShapeID.h>
#include <Jolt/RegisterTypes.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

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

// One object layer, one broad-phase layer, everything collides with everything.
class OneLayer final : public BroadPhaseLayerInterface {
  public:
    uint GetNumBroadPhaseLayers() const override { return 1; }
    BroadPhaseLayer GetBroadPhaseLayer(ObjectLayer) const override { return BroadPhaseLayer(0); }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char *GetBroadPhaseLayerName(BroadPhaseLayer) const override { return "all"; }
#endif
};

// The colliding pairs as body indices, two per pair.
class PairList final : public BodyPairCollector {
  public:
    std::vector<uint32_t> pairs;
    void AddHit(const BodyPair &p) override {
        pairs.push_back(p.mBodyA.GetIndex());
        pairs.push_back(p.mBodyB.GetIndex());
    }
};

// A BodyManager and a BroadPhaseQuadTree holding one dynamic, active sphere body per object.
struct Broad {
    OneLayer layers;
    ObjectVsBroadPhaseLayerFilter object_vs_layer;
    ObjectLayerPairFilter pair_filter;
    BodyManager bodies;
    BroadPhaseQuadTree broad;
    std::vector<BodyID> ids;
    std::vector<BodyID> active;
    PairList found;
};
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

// A broad phase of n sphere bodies, body k (index k) at (xyzr[4k], xyzr[4k + 1], xyzr[4k + 2]) of
// radius xyzr[4k + 3] (Jolt's frame: the caller swaps axes if it cares). Null on an error, whose
// message is copied into `error` (of `error_len` bytes, NUL-terminated).
void *lf_jolt_broad_new(const float *xyzr, uint32_t n, char *error, size_t error_len) {
    init_jolt();
    auto fail = [&](const char *e) -> void * {
        size_t k = strlen(e) < error_len - 1 ? strlen(e) : error_len - 1;
        memcpy(error, e, k);
        error[k] = 0;
        return nullptr;
    };
    if (n == 0 || n > BodyID::cMaxBodyIndex)
        return fail("Jolt takes 1 to 8,388,607 bodies");
    Broad *b = new Broad();
    b->bodies.Init(n, 1024, b->layers);
    b->broad.Init(&b->bodies, b->layers);
    b->ids.reserve(n);
    for (uint32_t k = 0; k < n; ++k) {
        const float *o = xyzr + 4 * size_t(k);
        BodyCreationSettings settings(new SphereShapeSettings(o[3]), RVec3(o[0], o[1], o[2]), Quat::sIdentity(),
                                      EMotionType::Dynamic, 0);
        settings.mOverrideMassProperties = EOverrideMassProperties::MassAndInertiaProvided;
        settings.mMassPropertiesOverride.mMass = 1.0f;
        settings.mMassPropertiesOverride.mInertia = Mat44::sIdentity();
        Body *body = b->bodies.AllocateBody(settings);
        if (body == nullptr || !b->bodies.AddBody(body)) {
            delete b;
            return fail("Jolt refused a body");
        }
        if (body->GetID().GetIndex() != k) {
            delete b;
            return fail("Jolt gave the bodies other indices than their order");
        }
        b->ids.push_back(body->GetID());
    }
    BroadPhase::AddState state = b->broad.AddBodiesPrepare(b->ids.data(), int(n));
    b->broad.AddBodiesFinalize(b->ids.data(), int(n), state);
    b->bodies.ActivateBodies(b->ids.data(), int(n));
    b->broad.Optimize();
    return b;
}

void lf_jolt_broad_free(void *broad) {
    Broad *b = static_cast<Broad *>(broad);
    b->broad.RemoveBodies(b->ids.data(), int(b->ids.size()));
    delete b;
}

// One frame: every body moved to xyz[3k ..] (bounds recomputed), the broad phase told, its tree
// updated as PhysicsSystem::Update does, then every pair of bodies whose boxes, the first widened by
// `margin`, overlap. Returns the number of pairs; *pairs points at their body indices, two per
// pair, valid until the next call.
size_t lf_jolt_broad_frame(void *broad, const float *xyz, float margin, const uint32_t **pairs) {
    Broad *b = static_cast<Broad *>(broad);
    b->broad.FrameSync();
    BodyVector &all = b->bodies.GetBodies();
    for (size_t k = 0; k < b->ids.size(); ++k) {
        const float *o = xyz + 3 * k;
        all[k]->SetPositionAndRotationInternal(RVec3(o[0], o[1], o[2]), Quat::sIdentity(), false);
    }
    b->broad.NotifyBodiesAABBChanged(b->ids.data(), int(b->ids.size()), true);
    b->broad.LockModifications();
    BroadPhase::UpdateState update = b->broad.UpdatePrepare();
    b->broad.UpdateFinalize(update);
    b->broad.UnlockModifications();
    // FindCollidingPairs sorts the active bodies it is given: a copy.
    b->active.assign(b->ids.begin(), b->ids.end());
    b->found.pairs.clear();
    b->broad.FindCollidingPairs(b->active.data(), int(b->active.size()), margin, b->object_vs_layer, b->pair_filter,
                                b->found);
    *pairs = b->found.pairs.data();
    return b->found.pairs.size() / 2;
}
}
