// cr-mlcp (seed 004) on small problems with known answers: the CR iteration against a direct
// solve of eq. 4, the active set of eq. 12-13, the friction cone of s.3.2 (eq. 16-18, Algorithm 3),
// and the Full preconditioner of eq. 22 against Diag.
#include <coulomb/cr_mlcp.h>
#include <coulomb/soft_body.h>
#include <coulomb/solver.h>
#include <coulomb/tet_mesh.h>
#include <gtest/gtest.h>

#include <coulomb/error.h>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "position_problems.h"

namespace coulomb {
namespace {

using test::kG;
using test::particle_on_plane;

SolverOptions options(CrPreconditioner pc = CrPreconditioner::Full) {
  const SolverInfo* info = find_solver("cr-mlcp");
  SolverOptions o = parse_solver_options(*info, nlohmann::json::object(), "/solver");
  o.cr.preconditioner = pc;
  return o;
}

// A soft box (corotational or Neo-Hookean) of n^3 cells, 1 kg/m^3 scaled, resting on z = 0 with
// one world contact per bottom vertex; `drop` lifts it above the plane.
PositionProblem soft_block(MaterialModel model, double h, int n, double drop, const Vec3& velocity = Vec3::Zero()) {
  const double a = 0.1;
  TetMesh mesh = box_tet_mesh(Vec3::Constant(a), {n, n, n});
  for (Vec3& v : mesh.rest) v.z() += a + drop;
  const Lame lame = lame_from_young(1e5, 0.3);
  const Lame use = model == MaterialModel::NeoHookean ? stable_neo_hookean_lame(lame) : lame;
  SoftBody b = make_soft_body("block", 0, model, use, 0.0, mesh, 1000.0, velocity, {});
  PositionProblem p;
  p.dt = h;
  const std::size_t nv = b.x.size();
  p.p_inv_mass = b.inv_mass;
  p.px0 = b.x;
  p.pv.resize(nv);
  p.px.resize(nv);
  for (std::size_t i = 0; i < nv; ++i) {
    p.pv[i] = b.v[i] + Vec3(0, 0, -kG * h);
    p.px[i] = b.x[i] + h * p.pv[i];
  }
  p.materials.push_back({model, use, 0.0});
  for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
    PbdElement e;
    for (int c = 0; c < 4; ++c) e.particle[std::size_t(c)] = b.mesh.tets[t][std::size_t(c)];
    e.Dm_inv = b.Dm_inv[t];
    e.volume = b.rest_volume[t];
    p.elements.push_back(e);
  }
  for (std::size_t i = 0; i < nv; ++i)
    if (b.x[i].z() < drop + 1e-9) {
      PbdContact c;
      c.a.anchor = Vec3(b.x[i].x(), b.x[i].y(), 0.0);
      c.b.particle = {int(i), -1, -1};
      c.b.weight = Vec3(1, 0, 0);
      c.normal = Vec3::UnitZ();
      c.mu = 0.5;
      p.contacts.push_back(c);
    }
  return p;
}

double total_mass(const PositionProblem& p) {
  double m = 0.0;
  for (double im : p.p_inv_mass) m += im > 0.0 ? 1.0 / im : 0.0;
  return m;
}

// eq. 4 without constraints: CR (Algorithm 1 with no rows) reaches the direct solution of A v = b.
TEST(CrMlcp, ConjugateResidualMatchesADirectSolveOfEquation4) {
  for (MaterialModel model : {MaterialModel::Corotational, MaterialModel::NeoHookean}) {
    PositionProblem p = soft_block(model, 0.01, 2, 0.05, Vec3(0.3, 0, 0));
    // squeeze it so that elastic forces and K matter
    for (Vec3& x : p.px0) x.z() *= 0.9;
    p.contacts.clear();
    CrVelocitySystem sys;
    SolverOptions o = options();
    o.rel_tol = 1e-12;
    build_cr_velocity_system(p, o.cr, sys);
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(sys.A);
    ASSERT_EQ(ldlt.info(), Eigen::Success);
    const Eigen::VectorXd v = ldlt.solve(sys.b);
    const SolverStats st = solve_cr_mlcp(p, o);
    EXPECT_TRUE(st.converged);
    double err = 0.0;
    for (std::size_t i = 0; i < p.pv.size(); ++i) err = std::max(err, (p.pv[i] - v.segment<3>(3 * int(i))).norm());
    EXPECT_LT(err, 1e-8 * v.cwiseAbs().maxCoeff()) << material_model_name(model) << " after " << st.iterations;
    // positions follow eq. 5
    for (std::size_t i = 0; i < p.px.size(); ++i) EXPECT_LT((p.px[i] - (p.px0[i] + 0.01 * p.pv[i])).norm(), 1e-14);
  }
}

// A is symmetric positive definite (s.3: the element-stiffness projection), also for a Neo-Hookean
// element squashed past the extrapolation limit and an inverted one.
TEST(CrMlcp, SystemMatrixIsPositiveDefiniteUnderStrongCompression) {
  for (double squash : {0.5, 0.1, -0.2}) {
    PositionProblem p = soft_block(MaterialModel::NeoHookean, 0.01, 1, 0.0);
    for (Vec3& x : p.px0) x.z() *= squash;
    CrVelocitySystem sys;
    build_cr_velocity_system(p, CrMlcpOptions{}, sys);
    const Eigen::MatrixXd A(sys.A);
    EXPECT_LT((A - A.transpose()).norm(), 1e-9 * A.norm());
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << squash;
    EXPECT_TRUE(sys.b.allFinite());
  }
}

// s.2.1: below the compression limit the Neo-Hookean force is that at the limit (linear energy).
TEST(CrMlcp, NeoHookeanForceIsExtrapolatedBelowTheCompressionLimit) {
  PositionProblem p = soft_block(MaterialModel::NeoHookean, 0.01, 1, 0.0);
  const PbdElement& e = p.elements[0];
  std::array<Vec3, 4> x;
  Vec12 f1, f2;
  Eigen::Matrix<double, 12, 12> K;
  for (double s : {0.2, 0.1}) {
    for (int i = 0; i < 4; ++i) x[std::size_t(i)] = p.px0[std::size_t(e.particle[std::size_t(i)])];
    const Vec3 c = 0.25 * (x[0] + x[1] + x[2] + x[3]);
    for (Vec3& xi : x) xi.z() = c.z() + s * (xi.z() - c.z());
    cr_element_force_stiffness(e, p.materials[0], x, 0.3, s == 0.2 ? f1 : f2, K);
  }
  EXPECT_LT((f1 - f2).norm(), 1e-9 * f1.norm());  // the same force at 20% and 10% height
  EXPECT_GT(f1.norm(), 0.0);
}

// eq. 12: a contact the prediction penetrates becomes active; it holds the particle at a gap in
// [0, eps_2) with the impulse of the weight over the step. A particle resting at gap 0 stays
// there: the band's middle is only the target of gaps outside the band.
TEST(CrMlcp, ActiveContactHoldsTheParticleWithinEps2) {
  for (CrPreconditioner pc : {CrPreconditioner::Diag, CrPreconditioner::Full}) {
    PositionProblem p = particle_on_plane(Vec3::Zero(), 0.5, 0.01);
    const SolverOptions o = options(pc);
    const SolverStats st = solve_cr_mlcp(p, o);
    EXPECT_TRUE(st.converged);
    EXPECT_GE(contact_gap(p, p.contacts[0]), 0.0);
    EXPECT_LT(contact_gap(p, p.contacts[0]), o.abs_tol);
    // the weight over the step, nothing more
    EXPECT_NEAR(p.contact_impulse[0][0], kG * 0.01, 1e-9);
  }
}

// eq. 13: a particle moving away keeps its contact inactive (impulse 0, free velocity); one that
// would be pulled back (attracting impulse) is released.
TEST(CrMlcp, SeparatingContactStaysInactive) {
  PositionProblem p = particle_on_plane(Vec3::Zero(), 0.5, 0.01);
  p.pv[0] = Vec3(0, 0, 1.0);
  p.px[0] = 0.01 * p.pv[0];
  const SolverStats st = solve_cr_mlcp(p, options());
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(p.contact_impulse[0][0], 0.0);
  EXPECT_NEAR(p.pv[0].z(), 1.0, 1e-12);
}

// s.3.2: inside the cone the contact sticks (static rows, |gamma| <= mu lambda); outside it slides
// with a kinetic impulse mu lambda opposing the slide (eq. 17, Algorithm 3), in every direction.
TEST(CrMlcp, FrictionConeStaticInsideKineticOnTheBoundary) {
  const double h = 0.01, mu = 0.4;
  for (double angle : {0.0, 0.7, 2.0, 4.0}) {
    const Vec3 dir(std::cos(angle), std::sin(angle), 0.0);
    PositionProblem slow = particle_on_plane(0.01 * dir, mu, h);
    EXPECT_TRUE(solve_cr_mlcp(slow, options()).converged);
    EXPECT_LT(slow.pv[0].norm(), 1e-3);  // sticks (within eps_2 / h)
    const Vec3 P = slow.contact_impulse[0];
    EXPECT_LE(std::hypot(P[1], P[2]), mu * P[0] * (1 + 1e-9));

    PositionProblem fast = particle_on_plane(1.0 * dir, mu, h);
    EXPECT_TRUE(solve_cr_mlcp(fast, options()).converged);
    const Vec3 F = fast.contact_impulse[0];
    const Eigen::Vector2d ft(F[1], F[2]);
    EXPECT_NEAR(F[0], kG * h, 1e-9);
    EXPECT_NEAR(ft.norm(), mu * F[0], 0.02 * mu * F[0]) << angle;  // |f_T| = mu f_n
    // the slide keeps its direction and loses mu g h of speed
    EXPECT_NEAR(fast.pv[0].head<2>().norm(), 1.0 - mu * kG * h, 0.02 * mu * kG * h);
    Vec3 t, s;
    tangent_basis(Vec3::UnitZ(), t, s);
    const Vec3 force = F[1] * t + F[2] * s;
    const double cosine = -force.dot(fast.pv[0]) / (force.norm() * fast.pv[0].norm());
    EXPECT_GT(cosine, std::cos(1.2 * std::numbers::pi / 180.0)) << angle;  // aligned within eps_theta
  }
}

// A soft block resting on the ground: the contacts carry its weight, nothing penetrates, and the
// Full preconditioner (eq. 22) needs fewer CR iterations than Diag.
TEST(CrMlcp, SoftBlockRestsAndFullNeedsFewerIterationsThanDiag) {
  int iters[2] = {0, 0};
  for (CrPreconditioner pc : {CrPreconditioner::Diag, CrPreconditioner::Full}) {
    PositionProblem p = soft_block(MaterialModel::Corotational, 0.01, 3, 0.0);
    const double weight = total_mass(p) * kG * 0.01;
    SolverOptions o = options(pc);
    const SolverStats st = solve_cr_mlcp(p, o);
    EXPECT_TRUE(st.converged) << to_string(pc);
    double Pn = 0.0;
    for (std::size_t k = 0; k < p.contacts.size(); ++k) {
      Pn += p.contact_impulse[k][0];
      // a gap kept where it was ends within the solve's error of it (kGapSlack)
      EXPECT_GE(contact_gap(p, p.contacts[k]), -0.01 * o.abs_tol);
      EXPECT_LT(contact_gap(p, p.contacts[k]), o.abs_tol);
    }
    // the contacts take the weight over the step (and the elastic response of the first step)
    EXPECT_GT(Pn, 0.5 * weight) << to_string(pc);
    iters[int(pc)] = st.iterations;
    std::printf("soft block %s: %d CR iterations, %d re-linearisations\n", std::string(to_string(pc)).c_str(),
                st.iterations, st.linear_iterations);
  }
  EXPECT_LT(iters[1], iters[0]);
}

// A rigid box on its four corners (redundant contacts, Z = 4 per s.3.4.1): it rests without
// turning and the contacts carry its weight.
TEST(CrMlcp, RigidBoxRestsOnRedundantContacts) {
  for (CrPreconditioner pc : {CrPreconditioner::Diag, CrPreconditioner::Full}) {
    const double a = 0.5, h = 0.01;  // test::box_on_corners' half-edge and step
    PositionProblem p = test::box_on_corners(h);
    const SolverOptions o = options(pc);
    const SolverStats st = solve_cr_mlcp(p, o);
    EXPECT_TRUE(st.converged) << to_string(pc) << " " << st.iterations << " residual " << st.residual;
    EXPECT_NEAR(p.x[0].z(), a, o.abs_tol);
    EXPECT_LT(p.w[0].norm(), 1e-4);
    double Pn = 0.0;
    for (const Vec3& P : p.contact_impulse) Pn += P[0];
    EXPECT_NEAR(Pn, kG * h, 1e-9) << to_string(pc);
  }
}

TEST(CrMlcp, OptionsAreValidated) {
  const SolverInfo* info = find_solver("cr-mlcp");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(info->soft && info->rigid);
  const auto bad = [&](const char* text) {
    EXPECT_THROW(parse_solver_options(*info, nlohmann::json::parse(text), "/solver"), InputError) << text;
  };
  bad(R"({"preconditioner": "ilu"})");
  bad(R"({"compression_limit": 0})");
  bad(R"({"mass_damping": -1})");
  bad(R"({"max_relinearizations": 1.5})");
  bad(R"({"warm_start": true})");
  const SolverOptions o =
      parse_solver_options(*info, nlohmann::json::parse(R"({"preconditioner": "diag", "friction": false})"), "/solver");
  EXPECT_EQ(o.cr.preconditioner, CrPreconditioner::Diag);
  EXPECT_FALSE(o.cr.friction);
}

}  // namespace
}  // namespace coulomb
