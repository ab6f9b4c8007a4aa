// A contact point between two bodies, as produced by the narrowphase and consumed by
// contact assembly (dynamics/). Plain data; no pointers.
#pragma once
#include <coulomb/math.h>

#include <tuple>

namespace coulomb {

struct Contact {
  int body_a = -1;      // body index, body_a < body_b (seed 000 appendix A: i < j)
  int body_b = -1;
  Vec3 point = Vec3::Zero();   // world position, midway between the two surfaces (unit: m)
  Vec3 normal = Vec3::UnitZ(); // unit normal pointing from body_a to body_b
  double depth = 0.0;          // penetration depth (> 0 overlapping, < 0 separated within the envelope) (unit: m)
  int feature_a = -1;          // feature ids on each shape (vertex/face/child index), -1 if unknown
  int feature_b = -1;
};

// Lexicographic order used to make runs deterministic (DESIGN.md: contacts are sorted before
// assembly): bodies, features, then point coordinates.
inline bool contact_less(const Contact& x, const Contact& y) {
  return std::tie(x.body_a, x.body_b, x.feature_a, x.feature_b, x.point.x(), x.point.y(), x.point.z()) <
         std::tie(y.body_a, y.body_b, y.feature_a, y.feature_b, y.point.x(), y.point.y(), y.point.z());
}

}  // namespace coulomb
