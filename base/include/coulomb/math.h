// Small geometric types shared by every module: vectors, quaternions, rigid poses.
// Eigen does the arithmetic; this header only names the types and a few helpers.
#pragma once
#include <Eigen/Core>
#include <Eigen/Geometry>

// For a small function of a solver's inner loop (ContactRows::velocity, add_responses): GCC leaves
// it out of line, and in the shared library every call then goes through the PLT (several % of a
// pgs solve). Inlining changes no result: the build targets baseline x86-64, which has no FMA for
// the compiler to contract into.
#if defined(__GNUC__)
#define COULOMB_HOT_INLINE inline __attribute__((always_inline))
#else
#define COULOMB_HOT_INLINE inline
#endif

namespace coulomb {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// A rigid transform x -> q * x + p (unit quaternion q).
struct Pose {
  Vec3 p = Vec3::Zero();
  Quat q = Quat::Identity();

  Vec3 apply(const Vec3& x) const { return q * x + p; }
  Vec3 rotate(const Vec3& x) const { return q * x; }
  Vec3 apply_inverse(const Vec3& x) const { return q.conjugate() * (x - p); }
  Pose operator*(const Pose& o) const { return {q * o.p + p, q * o.q}; }
  Pose inverse() const {
    Quat qi = q.conjugate();
    return {-(qi * p), qi};
  }
};

// Skew-symmetric cross-product matrix, seed 000 eq. 54.
inline Mat3 skew(const Vec3& r) {
  Mat3 m;
  m << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  return m;
}

// Two unit vectors t, s completing n to a right-handed orthonormal frame [n t s]
// (seed 000 eq. 53). Deterministic: depends on n only.
inline void tangent_basis(const Vec3& n, Vec3& t, Vec3& s) {
  // pick the axis least aligned with n to avoid cancellation
  Vec3 a = std::abs(n.x()) < 0.57735 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57735 ? Vec3::UnitY() : Vec3::UnitZ());
  t = n.cross(a).normalized();
  s = n.cross(t);
}

inline bool all_finite(const Vec3& v) { return v.allFinite(); }

}  // namespace coulomb
