// xpbd-jacobi on hand-built position problems (seed 002): contact, exact Coulomb friction and
// its isotropy, rigid contact with rotation, attachments, an elastic element, and the
// thread-count independence of the Jacobi sweep.
#include <coulomb/position_problem.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include "position_problems.h"
#include <tbb/task_arena.h>

#include <cmath>

namespace coulomb {
namespace {

using test::kG;

SolverOptions options(bool gauss_seidel, int iterations = 50) {
  SolverOptions o;
  o.max_iterations = iterations;
  o.abs_tol = 1e-12;
  o.rel_tol = 0.0;
  o.xpbd.gauss_seidel = gauss_seidel;
  return o;
}

SolverStats solve(PositionProblem& p, const SolverOptions& o) { return find_solver("xpbd-jacobi")->solve_position(p, o); }

using test::particle_on_plane;

TEST(Xpbd, ContactStopsPenetrationAtPositionLevel) {
  for (bool gs : {false, true}) {
    PositionProblem p = particle_on_plane(Vec3::Zero(), 0.0, 0.01);
    solve(p, options(gs));
    EXPECT_NEAR(p.px[0].z(), 0.0, 1e-12);
    EXPECT_NEAR(p.pv[0].z(), 0.0, 1e-10);  // v = (q^{l+1} - q^l) / h (eq. 5)
    // the normal impulse carries the weight over the step: m g h (unit: N s)
    EXPECT_NEAR(p.contact_impulse[0][0], kG * 0.01, 1e-10);
  }
}

// Coulomb's law over one implicit step: a slip faster than mu g h loses exactly mu g h in its
// own direction, a slower one stops; the same for every direction (seed 002 section 7: the
// smooth cone is isotropic, unlike box friction).
TEST(Xpbd, FrictionIsExactAndIsotropic) {
  const double h = 0.01, mu = 0.5;
  for (const Vec3& dir : {Vec3(1, 0, 0), Vec3(1, 1, 0).normalized(), Vec3(-0.3, 0.8, 0).normalized()}) {
    for (bool gs : {false, true}) {
      PositionProblem p = particle_on_plane(0.2 * dir, mu, h);
      solve(p, options(gs, 200));
      const Vec3 v = p.pv[0];
      EXPECT_NEAR(v.z(), 0.0, 1e-9);
      EXPECT_NEAR(v.dot(dir), 0.2 - mu * kG * h, 1e-9) << "direction " << dir.transpose();
      EXPECT_NEAR((v - v.dot(dir) * dir).norm(), 0.0, 1e-9);
      const Vec3& P = p.contact_impulse[0];
      EXPECT_NEAR(std::hypot(P[1], P[2]), mu * P[0], 1e-9);  // sliding: on the cone's surface
      PositionProblem slow = particle_on_plane(0.01 * dir, mu, h);
      solve(slow, options(gs, 200));
      EXPECT_NEAR(slow.pv[0].norm(), 0.0, 1e-9);  // sticking: inside the cone
      EXPECT_LT(std::hypot(slow.contact_impulse[0][1], slow.contact_impulse[0][2]), mu * slow.contact_impulse[0][0]);
    }
  }
}

// A rigid cube resting on four corner contacts with the ground: no penetration, no rotation.
TEST(Xpbd, RigidBoxRestsOnCorners) {
  for (bool gs : {false, true}) {
    PositionProblem p;
    const double h = 0.01, a = 0.5;
    p.dt = h;
    p.inv_mass = {1.0};
    p.inv_inertia = {Vec3::Constant(1.0 / (2.0 * a * a / 3.0))};
    p.v = {Vec3(0, 0, -kG * h)};
    p.w = {Vec3::Zero()};
    p.x = {Vec3(0, 0, a) + h * p.v[0]};
    p.q = {Quat::Identity()};
    for (double sx : {-a, a})
      for (double sy : {-a, a}) {
        PbdContact c;
        c.a.anchor = Vec3(sx, sy, 0);  // world point
        c.b.rigid = 0;
        c.b.anchor = Vec3(sx, sy, -a);
        c.normal = Vec3::UnitZ();
        c.mu = 0.5;
        p.contacts.push_back(c);
      }
    const SolverStats st = solve(p, options(gs, 200));
    for (const PbdContact& c : p.contacts) EXPECT_GT(contact_gap(p, c), -1e-8);
    EXPECT_NEAR(p.x[0].z(), a, 1e-8);
    // Gauss-Seidel's order tilts the box a little in the first sweeps and friction at the corners
    // takes it back: what remains is far below anything visible (1e-7 rad over the step)
    EXPECT_LT(p.w[0].norm(), 1e-4);
    EXPECT_LT(p.v[0].norm(), 1e-4);
    EXPECT_LT(st.residual, 1e-8);
  }
}

TEST(Xpbd, AttachmentHoldsParticleOnRigidPoint) {
  PositionProblem p;
  p.dt = 0.01;
  p.inv_mass = {0.0};  // a fixed rigid body, rotated
  p.inv_inertia = {Vec3::Zero()};
  p.x = {Vec3(1, 0, 0)};
  p.q = {Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()))};
  p.v = {Vec3::Zero()};
  p.w = {Vec3::Zero()};
  p.p_inv_mass = {2.0};
  p.px = {Vec3(0, 0, -0.1)};
  p.pv = {Vec3(0, 0, -1.0)};
  PbdAttachment at;
  at.particle = 0;
  at.target.rigid = 0;
  at.target.anchor = Vec3(0.2, 0, 0);
  at.target.body_frame = true;
  p.attachments = {at};
  solve(p, options(false));
  EXPECT_NEAR((p.px[0] - (p.x[0] + p.q[0] * Vec3(0.2, 0, 0))).norm(), 0.0, 1e-10);
}

// A compressed free tetrahedron springs back towards its rest volume under its element constraint.
TEST(Xpbd, ElementPushesTowardsRestShape) {
  for (MaterialModel m : {MaterialModel::Linear, MaterialModel::Corotational, MaterialModel::StVK, MaterialModel::NeoHookean}) {
    PositionProblem p;
    p.dt = 0.01;
    const std::array<Vec3, 4> rest{Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0, 0.1, 0), Vec3(0, 0, 0.1)};
    Mat3 Dm;
    for (int c = 0; c < 3; ++c) Dm.col(c) = rest[std::size_t(c) + 1] - rest[0];
    PbdElement e;
    e.particle = {0, 1, 2, 3};
    e.Dm_inv = Dm.inverse();
    e.volume = Dm.determinant() / 6.0;
    p.elements = {e};
    PbdMaterial mat;
    mat.model = m;
    mat.lame = {3e4, 5e4};
    p.materials = {mat};
    for (const Vec3& r : rest) {
      p.px.push_back(Vec3(r.x(), r.y(), 0.7 * r.z()));
      p.pv.push_back(Vec3::Zero());
      p.p_inv_mass.push_back(1.0 / 0.05);
    }
    const auto volume = [&] { return (p.px[1] - p.px[0]).cross(p.px[2] - p.px[0]).dot(p.px[3] - p.px[0]) / 6.0; };
    const double v0 = volume();
    solve(p, options(true, 20));
    EXPECT_GT(volume(), v0) << material_model_name(m);
    EXPECT_GT(p.pv[3].z(), 0.0) << material_model_name(m);
    // momentum is conserved by internal forces
    Vec3 momentum = Vec3::Zero();
    for (const Vec3& v : p.pv) momentum += v;
    EXPECT_LT(momentum.norm(), 1e-9) << material_model_name(m);
  }
}

// A pile of particles on the ground and on each other: the Jacobi sweep gives bit-identical
// results on 1 and 2 threads.
TEST(Xpbd, JacobiDoesNotDependOnThreadCount) {
  PositionProblem base;
  base.dt = 0.01;
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    base.p_inv_mass.push_back(1.0);
    base.pv.push_back(Vec3(0.01 * (i % 7), 0, -0.1));
    base.px.push_back(Vec3(0.05 * (i % 20), 0.05 * (i / 20), -0.001 * (i % 5)));
    PbdContact g;
    g.a.anchor = Vec3(base.px.back().x(), base.px.back().y(), 0);
    g.b.particle = {i, -1, -1};
    g.b.weight = Vec3(1, 0, 0);
    g.mu = 0.3;
    base.contacts.push_back(g);
    if (i > 0) {
      PbdContact c = g;
      c.a = PbdSide{};
      c.a.particle = {i - 1, -1, -1};
      c.a.weight = Vec3(1, 0, 0);
      c.normal = (base.px[std::size_t(i)] - base.px[std::size_t(i) - 1]).normalized();
      c.offset = 0.05;
      base.contacts.push_back(c);
    }
  }
  PositionProblem one = base, two = base;
  tbb::task_arena(1).execute([&] { solve(one, options(false, 30)); });
  tbb::task_arena(2).execute([&] { solve(two, options(false, 30)); });
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(one.px[std::size_t(i)], two.px[std::size_t(i)]);
    ASSERT_EQ(one.pv[std::size_t(i)], two.pv[std::size_t(i)]);
  }
}

}  // namespace
}  // namespace coulomb
