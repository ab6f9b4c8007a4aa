// newton-pcr (seed 003) on small position-level problems with known answers: Signorini contact,
// Coulomb friction exact and isotropic over one implicit step (eq. 36 with W of eq. 104-105), a
// box resting on four redundant corner contacts (the singular system of s.8.2), a compliant
// attachment (eq. 47), and every linear back end and NCP function agreeing.
#include <coulomb/newton_device.h>
#include <coulomb/position_problem.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include "position_problems.h"

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::newton_test {
namespace {

using test::kG;

SolverStats solve(PositionProblem& p, const SolverOptions& o) {
  return find_solver("newton-pcr")->solve_position(p, o);
}

using test::box_on_corners;
using test::newton_options;
using test::particle_on_plane;

TEST(NewtonPcr, ContactHoldsTheParticleOnThePlane) {
  for (NcpFunction f : {NcpFunction::FischerBurmeister, NcpFunction::MinMap}) {
    PositionProblem p = particle_on_plane(Vec3::Zero(), 0.0, 0.01);
    const SolverStats st = solve(p, newton_options(f));
    EXPECT_TRUE(st.converged);
    EXPECT_NEAR(p.px[0].z(), 0.0, 1e-10);
    EXPECT_NEAR(p.pv[0].z(), 0.0, 1e-8);
    EXPECT_NEAR(p.contact_impulse[0][0], kG * 0.01, 1e-9);  // m g h
    EXPECT_LT(st.merit, 1e-9);
  }
}

// Over one implicit step a slip faster than mu g h loses exactly mu g h along itself and a
// slower one stops, in every direction: the smooth cone has no facets (seed 003 s.3.4, figure 5).
TEST(NewtonPcr, FrictionIsExactAndIsotropic) {
  const double h = 0.01, mu = 0.5;
  for (NcpFunction f : {NcpFunction::FischerBurmeister, NcpFunction::MinMap})
    for (const Vec3& dir : {Vec3(1, 0, 0), Vec3(1, 1, 0).normalized(), Vec3(-0.3, 0.8, 0).normalized()}) {
      PositionProblem p = particle_on_plane(0.2 * dir, mu, h);
      const SolverStats st = solve(p, newton_options(f));
      EXPECT_TRUE(st.converged) << st.residual;
      const Vec3 v = p.pv[0];
      EXPECT_NEAR(v.z(), 0.0, 1e-8);
      EXPECT_NEAR(v.dot(dir), 0.2 - mu * kG * h, 1e-8) << "direction " << dir.transpose();
      EXPECT_NEAR((v - v.dot(dir) * dir).norm(), 0.0, 1e-8);
      const Vec3& P = p.contact_impulse[0];
      EXPECT_NEAR(std::hypot(P[1], P[2]), mu * P[0], 1e-8);  // sliding: on the cone
      PositionProblem slow = particle_on_plane(0.01 * dir, mu, h);
      EXPECT_TRUE(solve(slow, newton_options(f)).converged);
      EXPECT_NEAR(slow.pv[0].norm(), 0.0, 1e-8);  // sticking: inside the cone
      EXPECT_LT(std::hypot(slow.contact_impulse[0][1], slow.contact_impulse[0][2]), mu * slow.contact_impulse[0][0]);
    }
}

TEST(NewtonPcr, RedundantContactsRestTheBoxWithEveryLinearSolver) {
  for (NewtonLinear lin : {NewtonLinear::Pcr, NewtonLinear::Cg, NewtonLinear::GaussSeidel, NewtonLinear::Direct}) {
    PositionProblem p = box_on_corners(0.01);
    SolverOptions o = newton_options(NcpFunction::FischerBurmeister, lin);
    o.abs_tol = 1e-8;
    const SolverStats st = solve(p, o);
    EXPECT_TRUE(st.converged) << to_string(lin) << " residual " << st.residual;
    for (const PbdContact& c : p.contacts) EXPECT_GT(contact_gap(p, c), -1e-8) << to_string(lin);
    EXPECT_NEAR(p.x[0].z(), 0.5, 1e-8) << to_string(lin);
    EXPECT_LT(p.w[0].norm(), 1e-6) << to_string(lin);
    double Pn = 0.0;
    for (const Vec3& P : p.contact_impulse) Pn += P[0];
    EXPECT_NEAR(Pn, kG * 0.01, 1e-8) << to_string(lin);  // the weight over the step
    // the Fischer-Burmeister function spreads the load evenly over the redundant set (s.10.3)
    for (const Vec3& P : p.contact_impulse) EXPECT_NEAR(P[0], 0.25 * kG * 0.01, 1e-6) << to_string(lin);
  }
}

// "auto" keeps small systems on the CPU (a CUDA solve costs milliseconds of upload and launches
// whatever its size: gpu/README.md); "cuda" and "cpu" are obeyed; Gauss-Seidel and direct are CPU-only.
TEST(NewtonPcr, AutoDeviceSendsOnlyLargeSystemsToCuda) {
  NewtonOptions n;
  EXPECT_EQ(n.device, ComputeDevice::Auto);
  EXPECT_FALSE(newton_uses_cuda(n, 20, true));
  EXPECT_FALSE(newton_uses_cuda(n, kNewtonAutoCudaMinRows - 1, true));
  EXPECT_TRUE(newton_uses_cuda(n, kNewtonAutoCudaMinRows, true));
  EXPECT_FALSE(newton_uses_cuda(n, kNewtonAutoCudaMinRows, false));
  n.device = ComputeDevice::Cuda;
  EXPECT_TRUE(newton_uses_cuda(n, 20, true));
  n.linear = NewtonLinear::Direct;
  EXPECT_FALSE(newton_uses_cuda(n, 20, true));
  n.linear = NewtonLinear::Cg;
  n.device = ComputeDevice::Cpu;
  EXPECT_FALSE(newton_uses_cuda(n, 1000000, true));
}

// A particle hanging from a compliant attachment: the implicit step's spring force (eq. 47 with
// compliance alpha) balances gravity at the static extension m g alpha.
TEST(NewtonPcr, CompliantAttachmentStretchesByWeightTimesCompliance) {
  const double h = 0.01, alpha = 1e-3;
  PositionProblem p;
  p.dt = h;
  p.p_inv_mass = {0.5};  // 2 kg
  const Vec3 stretched(0, 0, -2.0 * kG * alpha);
  p.px0 = {stretched};
  p.pv = {Vec3(0, 0, -kG * h)};
  p.px = {stretched + h * p.pv[0]};
  PbdAttachment a;
  a.particle = 0;
  a.compliance = alpha;  // target: the world origin
  p.attachments = {a};
  const SolverStats st = solve(p, newton_options());
  EXPECT_TRUE(st.converged);
  EXPECT_NEAR(p.px[0].z(), stretched.z(), 1e-9);
  EXPECT_NEAR(p.attachment_impulse[0][2], 2.0 * kG * h, 1e-9);
}

// A 1 kg particle under a 4096 kg one, on a plane: every NCP scaling (s.7) reaches the exact
// impulses (the complementarity scaling's advantage shows on the heavy stack scene,
// tests/regression/newton_scenes_test.cpp).
TEST(NewtonPcr, HeavyPairIsExactWithEveryScaling) {
  const double h = 0.01;
  for (NcpScaling sc : {NcpScaling::Complementarity, NcpScaling::Timestep, NcpScaling::Identity}) {
    PositionProblem p;
    p.dt = h;
    p.p_inv_mass = {1.0, 1.0 / 4096.0};
    p.px0 = {Vec3::Zero(), Vec3::Zero()};
    p.pv = {Vec3(0, 0, -kG * h), Vec3(0, 0, -kG * h)};
    p.px = {h * p.pv[0], h * p.pv[1]};
    PbdContact ground, pair;
    ground.b.particle = {0, -1, -1};
    ground.b.weight = Vec3(1, 0, 0);
    pair.a.particle = {0, -1, -1};
    pair.a.weight = Vec3(1, 0, 0);
    pair.b.particle = {1, -1, -1};
    pair.b.weight = Vec3(1, 0, 0);
    ground.mu = pair.mu = 0.5;
    p.contacts = {ground, pair};
    SolverOptions o = newton_options();
    o.newton.scaling = sc;
    const SolverStats st = solve(p, o);
    EXPECT_TRUE(st.converged) << to_string(sc);
    EXPECT_NEAR(p.contact_impulse[0][0], 4097.0 * kG * h, 1e-8 * 4097.0 * kG * h) << to_string(sc);
    EXPECT_NEAR(p.contact_impulse[1][0], 4096.0 * kG * h, 1e-8 * 4096.0 * kG * h) << to_string(sc);
    EXPECT_NEAR(p.px[1].z(), 0.0, 1e-9) << to_string(sc);
  }
}

}  // namespace
}  // namespace coulomb::newton_test
