// Small position-level problems with known answers, shared by the tests of the position-level
// solvers (xpbd_test.cpp, newton_test.cpp, tests/gpu/newton_cuda_test.cpp).
#pragma once
#include <coulomb/position_problem.h>
#include <coulomb/solver_options.h>

namespace coulomb::test {

inline constexpr double kG = 9.81;

// newton-pcr to tight tolerances on the CPU, for problems with known answers.
inline SolverOptions newton_options(NcpFunction f = NcpFunction::FischerBurmeister,
                                    NewtonLinear lin = NewtonLinear::Pcr) {
  SolverOptions o;
  o.max_iterations = 100;
  o.abs_tol = 1e-10;
  o.rel_tol = 0.0;
  o.newton.ncp = f;
  o.newton.linear = lin;
  o.newton.linear_tol = 1e-10;
  o.newton.linear_iterations = 200;
  o.newton.device = ComputeDevice::Cpu;
  return o;
}

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

// A 1 m cube resting on four corner contacts: the contacts are redundant, so the Newton matrix
// is singular (s.8.2); every back end still rests it without penetration or turning.
inline PositionProblem box_on_corners(double h) {
  PositionProblem p;
  const double a = 0.5;
  p.dt = h;
  p.inv_mass = {1.0};
  p.inv_inertia = {Vec3::Constant(1.0 / (2.0 * a * a / 3.0))};
  p.v = {Vec3(0, 0, -kG * h)};
  p.w = {Vec3::Zero()};
  p.x0 = {Vec3(0, 0, a)};
  p.q0 = {Quat::Identity()};
  p.x = {Vec3(0, 0, a) + h * p.v[0]};
  p.q = {Quat::Identity()};
  for (double sx : {-a, a})
    for (double sy : {-a, a}) {
      PbdContact c;
      c.a.anchor = Vec3(sx, sy, 0);
      c.b.rigid = 0;
      c.b.anchor = Vec3(sx, sy, -a);
      c.normal = Vec3::UnitZ();
      c.mu = 0.5;
      p.contacts.push_back(c);
    }
  return p;
}

}  // namespace coulomb::test
