// The narrowphase allocates no memory in steady state (issue 12): after a warm-up call of each
// pair (which grows the per-thread scratch buffers), the same calls again allocate nothing. The
// pairs are those of the funnel (spheres, boxes, jack meshes, the funnel mesh, the ground) and
// the other closed forms. Allocations are counted by replacing the global operator new in this
// executable alone (a dedicated test binary), counting only while `counting` is set.
//
// Not covered: pairs that go through libccd's GJK+EPA (curved shapes against polytopes or
// hulls: capsule-box, cylinder-anything). libccd 2.1's EPA builds its polytope on the heap.
#include "shape_fixtures.h"

#include <coulomb/narrowphase.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
thread_local bool counting = false;
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (counting) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t al) {
  if (counting) allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = std::size_t(al);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t al) { return operator new(n, al); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace coulomb;
using namespace coulomb::fixtures;

namespace {

struct Case {
  const char* name;
  int a, b;
  Pose pa, pb;
};

Pose at(const Vec3& p, const Quat& q = Quat::Identity()) { return {p, q}; }

}  // namespace

// the counter sees what it must count (else the test below would assert nothing)
TEST(NarrowphaseAllocations, CounterSeesAVectorGrow) {
  allocations = 0;
  counting = true;
  std::vector<ContactPoint> v;
  v.reserve(3);
  counting = false;
  EXPECT_EQ(allocations.load(), 1);
}

TEST(NarrowphaseAllocations, NoneInSteadyState) {
  ShapeLibrary lib;
  const int ball = lib.add(sphere(0.05));
  const int cube = lib.add(box(Vec3(0.05, 0.05, 0.05)));
  const int ground = lib.add(plane());
  const int caps = lib.add(capsule(0.05, 0.1));
  const int jack = lib.add(mesh_shape(jack_surface(0.02, 3)));
  const int funnel = lib.add(mesh_shape(funnel_surface(1.0, 0.2, 1.0, 0.2, 0.05, 24)));
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
  const Quat turn(Eigen::AngleAxisd(0.02, Vec3::UnitX()));
  const Case cases[] = {
      {"sphere-sphere", ball, ball, at(Vec3::Zero()), at(Vec3(0.095, 0, 0))},
      {"sphere-box", ball, cube, at(Vec3(0, 0, 0.099)), at(Vec3::Zero(), tilt)},
      {"sphere-plane", ball, ground, at(Vec3(0, 0, 0.049)), at(Vec3::Zero())},
      {"box-plane", cube, ground, at(Vec3(0, 0, 0.049), turn), at(Vec3::Zero())},
      {"box-box resting (4-point face)", cube, cube, at(Vec3::Zero()), at(Vec3(0.01, 0, 0.099))},
      {"box-box tilted (clipping)", cube, cube, at(Vec3::Zero()), at(Vec3(0.01, 0.02, 0.1), turn)},
      {"box-box edge", cube, cube, at(Vec3::Zero()), at(Vec3(0.02, 0.01, 0.11), tilt)},
      {"capsule-capsule", caps, caps, at(Vec3::Zero()), at(Vec3(0.09, 0, 0))},
      {"capsule-plane", caps, ground, at(Vec3(0, 0, 0.04), Quat(Eigen::AngleAxisd(1.5, Vec3::UnitX()))), at(Vec3::Zero())},
      {"jack-sphere", jack, ball, at(Vec3::Zero(), tilt), at(Vec3(0.0, 0.0, 0.07))},
      {"jack-box", jack, cube, at(Vec3::Zero(), tilt), at(Vec3(0.0, 0.02, 0.09))},
      {"jack-jack", jack, jack, at(Vec3::Zero()), at(Vec3(0.01, 0.01, 0.035), tilt)},
      {"jack-plane", jack, ground, at(Vec3(0, 0, 0.05), tilt), at(Vec3::Zero())},
      {"funnel-sphere", funnel, ball, at(Vec3::Zero()), at(Vec3(0.55, 0.0, 0.5))},
      {"funnel-box", funnel, cube, at(Vec3::Zero()), at(Vec3(0.6, 0.1, 0.45), tilt)},
      {"funnel-jack", funnel, jack, at(Vec3::Zero()), at(Vec3(0.6, 0.0, 0.45), tilt)},
  };
  std::vector<ContactPoint> pts;
  pts.reserve(4096);
  const auto run_all = [&](std::vector<int>* found) {
    for (const Case& c : cases) {
      pts.clear();
      collide(lib, c.a, c.pa, c.b, c.pb, 0.02, pts);
      if (found) found->push_back(int(pts.size()));
      pts.clear();
      collide(lib, c.b, c.pb, c.a, c.pa, 0.02, pts);  // the mirrored order too
    }
  };
  std::vector<int> found;
  found.reserve(64);
  run_all(&found);  // warm-up: the scratch buffers grow here
  for (std::size_t k = 0; k < std::size(cases); ++k) EXPECT_GT(found[k], 0) << cases[k].name << " has no contact";
  for (std::size_t k = 0; k < std::size(cases); ++k) {
    const Case& c = cases[k];
    allocations = 0;
    counting = true;
    pts.clear();
    collide(lib, c.a, c.pa, c.b, c.pb, 0.02, pts);
    pts.clear();
    collide(lib, c.b, c.pb, c.a, c.pa, 0.02, pts);
    counting = false;
    EXPECT_EQ(allocations.load(), 0) << c.name;
  }
}
