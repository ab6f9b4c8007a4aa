// Small position-level problems with known answers, shared by the tests of the position-level
// solvers (xpbd_test.cpp, newton_test.cpp).
#pragma once
#include <coulomb/position_problem.h>

namespace coulomb::test {

inline constexpr double kG = 9.81;

// A unit-mass particle at rest on the plane z = 0 (a world contact point at the origin),
// predicted one step of free fall below it, with a tangential velocity vt.
inline PositionProblem particle_on_plane(const Vec3& vt, double mu, double h) {
  PositionProblem p;
  p.dt = h;
  p.p_inv_mass = {1.0};
  p.pv = {vt + Vec3(0, 0, -kG * h)};
  p.px0 = {Vec3::Zero()};
  p.px = {h * p.pv[0]};
  PbdContact c;
  c.a.anchor = Vec3::Zero();  // world point on the plane
  c.b.particle = {0, -1, -1};
  c.b.weight = Vec3(1, 0, 0);
  c.normal = Vec3::UnitZ();
  c.mu = mu;
  p.contacts = {c};
  return p;
}

}  // namespace coulomb::test
