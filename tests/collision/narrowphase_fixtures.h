// Helpers shared by the narrowphase tests: hull shapes, poses, and collide() with the checks
// every returned point must pass.
#pragma once
#include <coulomb/narrowphase.h>

#include <gtest/gtest.h>

#include <vector>

namespace coulomb::fixtures {

inline constexpr double kEnv = 0.02;

inline Shape convex(const std::vector<Vec3>& pts) {
  Shape s;
  s.type = ShapeType::Convex;
  s.hull = make_convex_hull(pts);
  return s;
}
inline Pose at(const Vec3& p, const Quat& q = Quat::Identity()) { return {p, q}; }
inline Quat about(const Vec3& axis, double angle) { return Quat(Eigen::AngleAxisd(angle, axis.normalized())); }

// How much deeper than the minimum overlap a polytope pair's deepest point may be: an edge axis
// within 3 degrees of the best face axis stands for that face's contact unless it overlaps less by
// more than 5e-3 of the pair's size (the sum of the posed bounding boxes' half diagonals), so that
// tilted stacked faces keep their face manifold (collision/src/penetration.cpp, kFacePreference).
inline double face_preference(const ShapeLibrary& lib, int a, const Pose& pa, int b, const Pose& pb) {
  const auto size = [&](int s, const Pose& p) {
    const Aabb box = lib.aabb(s, p, 0.0);
    return 0.5 * (box.hi - box.lo).norm();
  };
  return 5e-3 * (size(a, pa) + size(b, pb));
}

inline std::vector<ContactPoint> run(const ShapeLibrary& lib, int a, const Pose& pa, int b, const Pose& pb, double env = kEnv) {
  std::vector<ContactPoint> out;
  const int n = collide(lib, a, pa, b, pb, env, out);
  EXPECT_EQ(n, int(out.size()));
  for (const ContactPoint& c : out) {
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
    EXPECT_TRUE(c.point.allFinite());
    EXPECT_GT(c.depth, -env);
  }
  return out;
}


}  // namespace coulomb::fixtures
