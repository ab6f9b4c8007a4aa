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
