// PGS (seed 001 section 4) on small problems with known solutions.
#include "../../solvers/src/banded_sweeps.h"
#include "../../solvers/src/normal_pgs.h"

#include <coulomb/sweep_plan.h>

#include <coulomb/contact_assembly.h>
#include <coulomb/island_solve.h>
#include <coulomb/islands.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace coulomb;

namespace {

// A unit-mass body resting on a fixed one through a single contact below its centre, with
// free velocity `u_free` (after gravity).
ContactProblem one_contact(const Vec3& v_free, double mu, const Vec3& w_free = Vec3::Zero()) {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  model.add("body", 0, 0, false, 1.0, Vec3::Constant(0.1), Pose{});
  RigidState st;
  st.resize(2);
  st.x[1] = Vec3(0, 0, 0.5);
  std::vector<Vec6> u(2, Vec6::Zero());
  u[1] << v_free, w_free;
  ContactProblem p;
  assemble_contacts(model, st, u, {Contact{0, 1, Vec3::Zero(), Vec3::UnitZ(), 0.0, -1, -1}},
                    {ContactCoefficients{Vec3(mu, mu, 0.0), 0.0}}, AssemblySettings{}, p);
  return p;
}

SolverStats solve(const ContactProblem& p, ContactSolution& sol, int iters = 100) {
  SolverOptions o;
  o.max_iterations = iters;
  o.abs_tol = 1e-12;
  o.rel_tol = 1e-12;
  return find_solver("pgs")->solve(p, o, sol);
}

}  // namespace

TEST(Pgs, RestingContactCancelsGravityImpulse) {
  const ContactProblem p = one_contact(Vec3(0, 0, -0.0981), 0.5);
  ContactSolution sol;
  const SolverStats st = solve(p, sol);
  EXPECT_TRUE(st.converged);
  EXPECT_NEAR(sol.lambda[0][0], 0.0981, 1e-12);  // m g dt
  EXPECT_NEAR(sol.lambda[0][1], 0.0, 1e-12);
  EXPECT_LT(st.merit, 1e-10);
}

TEST(Pgs, SlidingContactSaturatesTheFrictionBox) {
  // tangential velocity 1 m/s, not enough friction to stop it in one step
  const ContactProblem p = one_contact(Vec3(1.0, 0, -0.0981), 0.5);
  ContactSolution sol;
  solve(p, sol);
  Vec3 t, s;
  tangent_basis(Vec3::UnitZ(), t, s);
  const double lt = sol.lambda[0][1] * t.x() + sol.lambda[0][2] * s.x();  // friction impulse along x
  EXPECT_NEAR(sol.lambda[0][0], 0.0981, 1e-9);
  // box friction bounds each tangent separately: along x the impulse opposes motion and its
  // components sit on the box faces
  EXPECT_LT(lt, 0.0);
  EXPECT_LE(std::abs(sol.lambda[0][1]), 0.5 * sol.lambda[0][0] + 1e-12);
  EXPECT_LE(std::abs(sol.lambda[0][2]), 0.5 * sol.lambda[0][0] + 1e-12);
}

TEST(Pgs, StickingContactStopsTheBodyWithinTheCone) {
  const ContactProblem p = one_contact(Vec3(0.01, 0.02, -0.0981), 0.8);
  ContactSolution sol;
  solve(p, sol);
  std::vector<Vec6> w;
  std::vector<Vec4> v;
  p.body_impulse_response(sol.lambda, w);
  p.contact_velocities(w, v);
  EXPECT_NEAR(v[0].head<3>().norm(), 0.0, 1e-9);  // contact point at rest
}

TEST(Pgs, SeparatingContactHasNoImpulse) {
  const ContactProblem p = one_contact(Vec3(0, 0, 1.0), 0.5);
  ContactSolution sol;
  solve(p, sol);
  EXPECT_EQ(sol.lambda[0], Vec4::Zero());
}

TEST(Pgs, WarmStartFromTheSolutionConvergesInOneSweep) {
  const ContactProblem p = one_contact(Vec3(0.01, 0.02, -0.0981), 0.8);
  ContactSolution sol;
  solve(p, sol);
  const SolverStats again = solve(p, sol);
  EXPECT_EQ(again.iterations, 1);
}

TEST(Pgs, TorsionalFrictionBoundsTheSpinImpulse) {
  ContactProblem p = one_contact(Vec3(0, 0, -0.0981), 0.5, Vec3(0, 0, 3.0));
  p.mu[0][2] = 0.01;  // torsional coefficient
  ContactSolution sol;
  solve(p, sol);
  EXPECT_NEAR(sol.lambda[0][3], -0.01 * sol.lambda[0][0], 1e-12);  // opposes the spin, saturated
}

// The scene reader refuses a relaxation factor outside (0, 2); so does the solver when code sets
// one (its row steps h_r = sor / A_rr stand for A_rr > 0 only with sor > 0).
TEST(Pgs, ARelaxationFactorOutsideZeroTwoIsRefused) {
  const ContactProblem p = one_contact(Vec3(0.3, 0.0, -0.0981), 0.5);
  for (const double sor : {0.0, -0.5, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
    SolverOptions o;
    o.pgs.sor = sor;
    ContactSolution sol;
    EXPECT_THROW(find_solver("pgs")->solve(p, o, sol), std::invalid_argument) << "sor " << sor;
  }
  SolverOptions o;
  o.pgs.sor = 1.5;
  o.max_iterations = 100;
  o.abs_tol = o.rel_tol = 1e-12;
  ContactSolution sol;
  EXPECT_NO_THROW(find_solver("pgs")->solve(p, o, sol));
  EXPECT_NEAR(sol.lambda[0][0], 0.0981, 1e-9);
}

TEST(Merit, ConeProjectionCases) {
  EXPECT_EQ(project_on_cone(Vec3(1, 0.1, 0.1), 0.5), Vec3(1, 0.1, 0.1));  // inside
  EXPECT_EQ(project_on_cone(Vec3(-1, 0.1, 0), 0.5), Vec3::Zero());       // polar cone
  const Vec3 p = project_on_cone(Vec3(1, 2, 0), 0.5);                     // onto the boundary
  EXPECT_NEAR(std::hypot(p[1], p[2]), 0.5 * p[0], 1e-15);
  EXPECT_NEAR((Vec3(1, 2, 0) - p).dot(p), 0.0, 1e-14);  // orthogonal residual
}

// ---- converged must mean converged (issue 11: FCLib pgs said converged with a NaN residual
// when q ~ 1e300, and with merit 3.79 when W = 0) ----

namespace {
AssembledProblem one_contact(const Mat4& A, const Vec4& b, const Vec3& mu) {
  AssembledProblem p;
  p.row_start = {0, 1};
  p.col = {0};
  p.block = {A};
  p.b = {b};
  p.mu = {mu};
  p.finalize();
  return p;
}
}  // namespace

TEST(PgsHonesty, ARowNoImpulseCanFixIsNotConverged) {
  // W = 0 (the FCLib convention keeps a unit torsion diagonal): an approaching contact no body
  // responds to; the sweeps skip its rows, lambda stays 0 and the normal row stays violated
  Mat4 W = Mat4::Zero();
  W(3, 3) = 1.0;
  const AssembledProblem p = one_contact(W, Vec4(-1.0, 0.5, 0.0, 0.0), Vec3(0.5, 0.5, 0.0));
  ContactSolution sol;
  SolverOptions opt;
  const SolverStats st = find_solver("pgs")->solve_assembled(p, opt, sol);
  EXPECT_FALSE(st.converged);
  EXPECT_GT(st.merit, 0.1);
  // a separating one (b_n > 0) is solved by lambda = 0: converged
  const AssembledProblem q = one_contact(W, Vec4(1.0, 0.0, 0.0, 0.0), Vec3(0.5, 0.5, 0.0));
  EXPECT_TRUE(find_solver("pgs")->solve_assembled(q, opt, sol).converged);
}

TEST(PgsHonesty, ConvergedImpliesAFiniteResidualAndMerit) {
  for (double q : {1e300, 1e200, 1.0}) {
    // coupled rows: Gauss-Seidel stops on a relative step of 1e-6, where the natural-map
    // residual is still ~1e-10 q, whose square overflows for q = 1e300
    Mat4 A;
    A << 2.0, 0.9, 0.5, 0.0, 0.9, 1.0, 0.3, 0.0, 0.5, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0;
    const AssembledProblem p = one_contact(A, Vec4(-q, 0.3 * q, -0.2 * q, 0.0), Vec3(0.9, 0.9, 0.0));
    ContactSolution sol;
    SolverOptions opt;
    const SolverStats st = find_solver("pgs")->solve_assembled(p, opt, sol);
    if (st.converged) {
      EXPECT_TRUE(std::isfinite(st.residual)) << q;
      EXPECT_TRUE(std::isfinite(st.merit)) << q;
    }
    if (!std::isfinite(st.residual) || !std::isfinite(st.merit)) {
      EXPECT_FALSE(st.converged) << q;
    }
    if (q == 1.0) {
      EXPECT_TRUE(st.converged);
    }
    std::printf("pgs q %g: converged %d residual %g merit %g\n", q, int(st.converged), st.residual, st.merit);
  }
}

// evaluate_merit = false (World's post-stabilisation): the same impulses and convergence, and
// no merit (NaN) instead of one nobody reads; with merit_tol the merit is still evaluated.
TEST(Pgs, WithoutTheMeritTheSameImpulsesAndConvergence) {
  const ContactProblem p = one_contact(Vec3(0.01, 0.02, -0.0981), 0.8);
  ContactSolution with, without;
  SolverOptions o;
  o.abs_tol = o.rel_tol = 1e-12;
  const SolverStats a = find_solver("pgs")->solve(p, o, with);
  o.evaluate_merit = false;
  const SolverStats b = find_solver("pgs")->solve(p, o, without);
  EXPECT_TRUE(a.converged);
  EXPECT_EQ(b.converged, a.converged);
  EXPECT_EQ(b.iterations, a.iterations);
  EXPECT_EQ(without.lambda[0], with.lambda[0]);
  EXPECT_TRUE(std::isfinite(a.merit));
  EXPECT_TRUE(std::isnan(b.merit));
  o.merit_tol = 1e-8;
  ContactSolution tol;
  const SolverStats c = find_solver("pgs")->solve(p, o, tol);
  EXPECT_TRUE(std::isfinite(c.merit));
  EXPECT_LE(c.merit, 1e-8);
}

// A frictionless problem (post-stabilisation's gap problem, assemble_gap_problem) takes PGS's
// packed normal-row path when nothing it leaves out is asked for; asking for the merit takes the
// general path. Both must give the same impulses bit for bit, the same iterations and the same
// Theta, cold and warm-started (a warm start with a negative normal and non-zero friction
// impulses is projected first), on a pile of random boxes with random gaps, some of them fixed.
TEST(Pgs, FrictionlessProblemsTakeThePackedPathWithTheSameImpulses) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RigidModel model;
  RigidState st;
  const int nb = 12;
  st.resize(nb);
  for (int b = 0; b < nb; ++b) {
    model.add(std::to_string(b), 0, 0, b < 2, b < 2 ? 0.0 : 1.0 + u(rng) * 0.5,
              Vec3(0.1, 0.2, 0.15) * (1.2 + u(rng) * 0.2), Pose{});
    st.x[std::size_t(b)] = Vec3(u(rng), u(rng), u(rng));
  }
  std::vector<Contact> contacts;
  for (int k = 0; k < 60; ++k) {
    int a = int((u(rng) + 1.0) * 0.5 * nb) % nb, b = int((u(rng) + 1.0) * 0.5 * nb) % nb;
    if (a == b || (a < 2 && b < 2)) continue;
    if (a > b) std::swap(a, b);
    const Vec3 n = Vec3(u(rng), u(rng), u(rng)).normalized();
    contacts.push_back(Contact{a, b, 0.5 * (st.x[std::size_t(a)] + st.x[std::size_t(b)]), n, 0.02 * u(rng), -1, -1});
  }
  std::sort(contacts.begin(), contacts.end(), contact_less);
  ContactProblem p;
  assemble_gap_problem(model, st, contacts, p);
  const int nc = p.num_contacts();
  ASSERT_GT(nc, 40);
  for (const bool warm : {false, true}) {
    SolverOptions o;
    o.max_iterations = 40;
    o.abs_tol = o.rel_tol = 1e-9;
    o.warm_start = warm;
    ContactSolution packed, general;
    if (warm) {
      for (int k = 0; k < nc; ++k) packed.lambda.push_back(Vec4(0.01 * u(rng), u(rng), u(rng), 0.0));
      general.lambda = packed.lambda;
    }
    o.evaluate_merit = false;
    const SolverStats a = find_solver("pgs")->solve(p, o, packed);
    o.evaluate_merit = true;
    const SolverStats b = find_solver("pgs")->solve(p, o, general);
    EXPECT_EQ(a.iterations, b.iterations) << "warm " << warm;
    EXPECT_EQ(a.converged, b.converged);
    EXPECT_EQ(a.residual, b.residual);
    EXPECT_GT(a.contact_sweeps, 0.0);
    ASSERT_EQ(packed.lambda.size(), general.lambda.size());
    int active = 0;
    for (int k = 0; k < nc; ++k) {
      EXPECT_EQ(packed.lambda[std::size_t(k)], general.lambda[std::size_t(k)]) << "contact " << k << " warm " << warm;
      EXPECT_EQ(packed.lambda[std::size_t(k)].tail<3>(), Vec3::Zero());
      active += packed.lambda[std::size_t(k)][0] > 0.0;
    }
    EXPECT_GT(active, 5);  // the displacements act: not a trivially zero solution
    EXPECT_TRUE(std::isnan(a.merit));
  }
}

namespace {

// A frictionless gap problem's data: nb bodies (the first two fixed) at random places, random
// contacts between them with random gaps, sorted by body pair. With `chains`, the moving bodies
// form separate islands (contacts only within bodies 2-4, 5-7, ..., and with the fixed ones).
struct GapScene {
  RigidModel model;
  RigidState st;
  std::vector<Contact> contacts;
};

GapScene gap_scene(int nb, int contacts, unsigned seed, bool chains) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  GapScene g;
  g.st.resize(nb);
  for (int b = 0; b < nb; ++b) {
    g.model.add(std::to_string(b), 0, 0, b < 2, b < 2 ? 0.0 : 1.0 + u(rng) * 0.5,
                Vec3(0.1, 0.2, 0.15) * (1.2 + u(rng) * 0.2), Pose{});
    g.st.x[std::size_t(b)] = Vec3(u(rng), u(rng), u(rng));
    g.st.q[std::size_t(b)] = Quat(Eigen::AngleAxisd(3.0 * u(rng), Vec3(u(rng), u(rng), 1.0).normalized()));
  }
  while (int(g.contacts.size()) < contacts) {
    int a = int((u(rng) + 1.0) * 0.5 * nb) % nb, b = int((u(rng) + 1.0) * 0.5 * nb) % nb;
    if (a == b || (a < 2 && b < 2)) continue;
    if (chains && a >= 2 && b >= 2 && (a - 2) / 3 != (b - 2) / 3) continue;
    if (a > b) std::swap(a, b);
    const Vec3 n = Vec3(u(rng), u(rng), u(rng)).normalized();
    g.contacts.push_back(Contact{a, b, 0.5 * (g.st.x[std::size_t(a)] + g.st.x[std::size_t(b)]), n, 0.02 * u(rng), -1, -1});
  }
  std::sort(g.contacts.begin(), g.contacts.end(), contact_less);
  return g;
}

// n moving bodies in a row, each touching the next and a fixed ground numbered last (as the
// World numbers a large scene), two contacts a pair: a contact order whose reaches are short
GapScene banded_scene(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  GapScene g;
  g.st.resize(n + 1);
  for (int b = 0; b <= n; ++b) {
    const bool ground = b == n;
    g.model.add(std::to_string(b), 0, 0, ground, ground ? 0.0 : 1.0 + u(rng) * 0.5, Vec3(0.1, 0.2, 0.15) * (1.2 + u(rng) * 0.2),
                Pose{});
    g.st.x[std::size_t(b)] = Vec3(0.3 * b, 0.1 * u(rng), ground ? -1.0 : 0.1 * u(rng));
    g.st.q[std::size_t(b)] = Quat(Eigen::AngleAxisd(3.0 * u(rng), Vec3(u(rng), u(rng), 1.0).normalized()));
  }
  const auto touch = [&](int a, int b, const Vec3& n) {
    for (int k = 0; k < 2; ++k)
      g.contacts.push_back(Contact{a, b, 0.5 * (g.st.x[std::size_t(a)] + g.st.x[std::size_t(b)]) + 0.05 * Vec3(u(rng), u(rng), u(rng)),
                                   n, 0.02 * u(rng), k, -1});
  };
  for (int b = 0; b < n; ++b) {
    touch(b, n, -Vec3::UnitZ());  // the ground below (body_a < body_b: the normal points from b to the ground)
    if (b + 1 < n) touch(b, b + 1, Vec3(1.0, 0.1 * u(rng), 0.1 * u(rng)).normalized());
  }
  std::sort(g.contacts.begin(), g.contacts.end(), contact_less);
  return g;
}

}  // namespace

// Post-stabilisation's packed normal rows hold the ContactProblem's row 0, column 0 and A_nn
// (up to the rounding of A_nn's sum), b = the gap; a body held still gets no inverse mass.
TEST(Pgs, PackedGapRowsAreTheGapProblemsNormalRows) {
  const GapScene g = gap_scene(12, 60, 4, false);
  ContactProblem full;
  assemble_gap_problem(g.model, g.st, g.contacts, full);
  NormalProblem packed;
  assemble_gap_problem(g.model, g.st, g.contacts, nullptr, packed);
  ASSERT_EQ(packed.num_contacts(), full.num_contacts());
  EXPECT_EQ(packed.num_bodies, full.num_bodies());
  for (int k = 0; k < full.num_contacts(); ++k) {
    const auto i = std::size_t(k);
    const ContactRows& c = full.rows[i];
    const NormalRow& n = packed.rows[i];
    const Mat64 Ma = full.MinvJT_a(k), Mb = full.MinvJT_b(k);  // column 0: M^-1 J_n^T
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(n.lin[j], c.lin(0, j));
      EXPECT_EQ(n.ang_a[j], c.ang_a(0, j));
      EXPECT_EQ(n.ang_b[j], c.ang_b(0, j));
      EXPECT_NEAR(n.minv_a[j], Ma(3 + j, 0), 1e-14 * (1.0 + std::abs(Ma(3 + j, 0))));
      EXPECT_NEAR(n.minv_b[j], Mb(3 + j, 0), 1e-14 * (1.0 + std::abs(Mb(3 + j, 0))));
    }
    EXPECT_EQ(n.inv_mass_a, c.inv_mass_a);
    EXPECT_EQ(n.inv_mass_b, c.inv_mass_b);
    EXPECT_EQ(n.b, full.b[i][0]);
    EXPECT_NEAR(n.a_nn, full.A_diag[i](0, 0), 1e-13 * full.A_diag[i](0, 0));
    EXPECT_EQ(n.body_a, full.body_a[i]);
    EXPECT_EQ(packed.body_b[i], full.body_b[i]);
  }
  // body 5 held still (asleep): its rows lose its inverse mass and inertia, no one else's do
  std::vector<std::uint8_t> still = g.model.fixed;
  still[5] = 1;
  NormalProblem held;
  assemble_gap_problem(g.model, g.st, g.contacts, &still, held);
  int touching = 0;
  for (int k = 0; k < held.num_contacts(); ++k) {
    const NormalRow &h = held.rows[std::size_t(k)], &n = packed.rows[std::size_t(k)];
    if (h.body_a == 5 || h.body_b == 5) ++touching;
    EXPECT_EQ(h.inv_mass_a, h.body_a == 5 ? 0.0 : n.inv_mass_a);
    EXPECT_EQ(h.inv_mass_b, h.body_b == 5 ? 0.0 : n.inv_mass_b);
    if (h.body_b == 5) {
      EXPECT_EQ(Vec3(h.minv_b[0], h.minv_b[1], h.minv_b[2]), Vec3::Zero());
    }
  }
  EXPECT_GT(touching, 0);
}

// solve_normal_pgs on the packed rows finds pgs's impulses on the ContactProblem (the same sweep;
// A_nn rounds differently), swept whole without islands; with islands, each island stops on its
// own test, as solve_islands does, and the impulses are the same bits on 1 and 2 threads.
TEST(Pgs, NormalPgsSolvesTheGapProblemWholeAndByIsland) {
  SolverOptions o;
  o.max_iterations = 5000;
  o.abs_tol = o.rel_tol = 1e-10;
  o.warm_start = false;
  o.evaluate_merit = false;
  for (const bool chains : {false, true}) {
    const GapScene g = gap_scene(32, 90, 9, chains);
    ContactProblem full;
    assemble_gap_problem(g.model, g.st, g.contacts, full);
    NormalProblem packed;
    assemble_gap_problem(g.model, g.st, g.contacts, nullptr, packed);
    Islands islands;
    build_islands(g.model.size(), g.model.fixed, packed.body_a, packed.body_b, islands);
    if (chains) {
      ASSERT_GT(islands.count(), 5);
    }
    ContactSolution reference;
    reference.lambda.assign(g.contacts.size(), Vec4::Zero());  // solve_islands reads the warm start
    const SolverStats r = chains ? solve_islands(find_solver("pgs")->solve, full, islands, o, reference)
                                 : find_solver("pgs")->solve(full, o, reference);
    std::vector<double> one, two;
    std::vector<Vec6> kept_one, kept_two;  // the sweeps' own response (post-stabilisation's displacements)
    const SolverStats s = solve_normal_pgs(packed, chains ? &islands : nullptr, o, one, &kept_one);
    tbb::task_arena(2).execute([&] { solve_normal_pgs(packed, chains ? &islands : nullptr, o, two, &kept_two); });
    EXPECT_EQ(kept_one, kept_two);
    EXPECT_TRUE(r.converged);
    EXPECT_TRUE(s.converged);
    EXPECT_TRUE(std::isnan(s.merit));
    ASSERT_EQ(one.size(), reference.lambda.size());
    int active = 0;
    for (std::size_t k = 0; k < one.size(); ++k) {
      EXPECT_NEAR(one[k], reference.lambda[k][0], 1e-9 * (1.0 + std::abs(reference.lambda[k][0]))) << "contact " << k;
      EXPECT_EQ(one[k], two[k]) << "contact " << k;
      active += one[k] > 0.0;
    }
    EXPECT_GT(active, 5);
    // the response of the impulses is the ContactProblem's
    std::vector<Vec6> w_packed, w_full;
    packed.body_impulse_response(one, w_packed);
    std::vector<Vec4> l4(one.size(), Vec4::Zero());
    for (std::size_t k = 0; k < one.size(); ++k) l4[k][0] = one[k];
    full.body_impulse_response(l4, w_full);
    ASSERT_EQ(kept_one.size(), w_packed.size());
    for (int b = 0; b < g.model.size(); ++b) {
      EXPECT_NEAR((w_packed[std::size_t(b)] - w_full[std::size_t(b)]).norm(), 0.0, 1e-12) << "body " << b;
      EXPECT_NEAR((kept_one[std::size_t(b)] - w_packed[std::size_t(b)]).norm(), 0.0, 1e-12) << "body " << b;
    }
  }
}

// A gap problem too large for the caches is swept in windows (solvers/src/banded_sweeps.h,
// banded_normal_sweeps): its impulses, responses, iteration count, `converged` and Theta are
// those of plain sweeps bit for bit, with the contacts in any order (random pairs here: reaches
// across the whole problem; chains: short ones), a cold or a warm start, one wavefront or many
// (the window), tiles of 1 to all contacts, the moving bodies from the islands or from the rows,
// and a stopping test met before the last sweep of a wavefront (which goes back and sweeps plainly).
TEST(Pgs, WindowedNormalSweepsAreThePlainSweepsBitForBit) {
  int stopped_inside = 0, wavefronts = 0;
  for (const bool chains : {false, true}) {
    const GapScene g = gap_scene(chains ? 200 : 40, chains ? 1500 : 300, 11, chains);
    NormalProblem packed;
    assemble_gap_problem(g.model, g.st, g.contacts, nullptr, packed);
    Islands islands;
    build_islands(g.model.size(), g.model.fixed, packed.body_a, packed.body_b, islands);
    const int nc = packed.num_contacts();
    for (const double tol : {0.0, 1e-1, 1e-2, 1e-3, 1e-5}) {
      for (const bool warm : {false, true}) {
        SolverOptions o;
        o.max_iterations = 25;
        o.abs_tol = o.rel_tol = tol;
        o.warm_start = warm;
        std::vector<double> start(std::size_t(nc), 0.0);
        if (warm)
          for (std::size_t k = 0; k < start.size(); ++k) start[k] = 0.01 * double((k * 7919) % 13);  // some zero
        std::vector<double> plain = start;
        std::vector<Vec6> w_plain;
        const SolverStats r = solve_normal_pgs(packed, nullptr, o, plain, &w_plain);  // below the window's size
        if (tol > 0.0 && r.converged && r.iterations > 1 && r.iterations < o.max_iterations) ++stopped_inside;
        for (const int tile : {1, 7, 64, nc}) {
          for (const int window : {1, 100, 1 << 20}) {
            for (const bool by_island : {false, true}) {
              std::vector<double> l = start;
              std::vector<Vec6> w(std::size_t(g.model.size()), Vec6::Zero());
              if (warm) packed.body_impulse_response(l, w);  // as solve_normal_pgs starts a warm solve
              const SolverStats s = detail::banded_normal_sweeps(packed, by_island ? &islands.body_island : nullptr, o, l,
                                                                 w, tile, window);
              const std::string where = "chains " + std::to_string(chains) + " tol " + std::to_string(tol) + " warm " +
                                        std::to_string(warm) + " tile " + std::to_string(tile) + " window " +
                                        std::to_string(window);
              ASSERT_EQ(l.size(), plain.size());
              for (std::size_t k = 0; k < l.size(); ++k) ASSERT_EQ(l[k], plain[k]) << where << " contact " << k;
              ASSERT_EQ(w, w_plain) << where;
              EXPECT_EQ(s.iterations, r.iterations) << where;
              EXPECT_EQ(s.converged, r.converged) << where;
              EXPECT_EQ(s.residual, r.residual) << where;
              EXPECT_EQ(s.contact_sweeps, r.contact_sweeps) << where;
              wavefronts += window == 1 << 20 && tile < nc;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(stopped_inside, 0) << "no tolerance stopped the sweeps before their budget";
  EXPECT_GT(wavefronts, 0);
}

// A frictional problem beyond the caches (solve_pgs's windowed sweeps, banded_sweeps.h; about
// 8,800 contacts and more) gets the impulses, the response, the iteration count, `converged`,
// Theta and the merit of plain sweeps bit for bit (the final terms from the last wavefront's closing
// stage where it ends the solve). The plain reference is the same call with record_history,
// which the windowed loop leaves to plain sweeps (the history only reads the iterates); contacts
// in chains (short reaches: several sweeps a wavefront) and at random (one), cold and warm, with
// tolerances that stop inside a wavefront.
TEST(Pgs, WindowedFrictionalSweepsAreThePlainSweepsBitForBit) {
  int stopped_inside = 0, warm_stopped_in_first = 0;
  for (const bool chains : {true, false}) {
    const GapScene g = chains ? banded_scene(2600, 17) : gap_scene(3000, 9000, 17, false);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<Vec6> u_free(std::size_t(g.model.size()), Vec6::Zero());
    for (int b = 2; b < g.model.size(); ++b) u_free[std::size_t(b)] << u(rng), u(rng), u(rng) - 1.0, u(rng), u(rng), u(rng);
    ContactProblem p;
    assemble_contacts(g.model, g.st, u_free, g.contacts,
                      std::vector<ContactCoefficients>(g.contacts.size(), ContactCoefficients{Vec3(0.5, 0.5, 0.0), 0.0}),
                      AssemblySettings{}, p);
    ASSERT_GE(std::size_t(p.num_contacts()) * sweep_limits::kVelocityContactBytes, sweep_limits::kWindowedBytes);
    std::vector<int> a(p.body_a), b(p.body_b);  // the moving sides, as solve_pgs finds them
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!(p.inv_mass[std::size_t(a[k])] > 0.0)) a[k] = -1;
      if (!(p.inv_mass[std::size_t(b[k])] > 0.0)) b[k] = -1;
    }
    const int group = detail::wavefront_group(detail::sweep_reach(p.num_bodies(), a, b), sweep_limits::kVelocityTile,
                                              sweep_limits::kVelocityWindow);
    if (chains) EXPECT_GT(group, 3);  // several sweeps a wavefront
    else EXPECT_LE(group, 2);  // reaches across most of the problem
    for (const double tol : {0.0, 3e-1, 1e-1, 1e-2, 1e-3, 1e-4}) {
      for (const bool warm : {false, true}) {
        SolverOptions o;
        o.max_iterations = 20;
        o.abs_tol = o.rel_tol = tol;
        ContactSolution plain, windowed;
        if (warm) {
          plain.lambda.assign(std::size_t(p.num_contacts()), Vec4(0.02, 0.001, -0.001, 0.0));
          windowed.lambda = plain.lambda;
        }
        o.evaluate_merit = true;  // the final terms' merit, from the windowed loop's closing stage too
        o.record_history = true;
        const SolverStats r = find_solver("pgs")->solve(p, o, plain);
        o.record_history = false;
        const SolverStats s = find_solver("pgs")->solve(p, o, windowed);
        const std::string where = "chains " + std::to_string(chains) + " tol " + std::to_string(tol) + " warm " + std::to_string(warm);
        ASSERT_EQ(windowed.lambda.size(), plain.lambda.size());
        for (std::size_t k = 0; k < plain.lambda.size(); ++k) ASSERT_EQ(windowed.lambda[k], plain.lambda[k]) << where << " contact " << k;
        ASSERT_EQ(windowed.response, plain.response) << where;
        EXPECT_EQ(s.iterations, r.iterations) << where;
        EXPECT_EQ(s.converged, r.converged) << where;
        EXPECT_EQ(s.residual, r.residual) << where;
        EXPECT_EQ(s.merit, r.merit) << where;
        EXPECT_TRUE(std::isfinite(s.merit)) << where;
        if (tol > 0.0 && r.converged && r.iterations > 1 && r.iterations < o.max_iterations) ++stopped_inside;
        if (warm && r.converged && r.iterations < group) ++warm_stopped_in_first;
      }
    }
  }
  EXPECT_GT(stopped_inside, 0) << "no tolerance stopped the sweeps before their budget";
  // a warm start stopped inside the first wavefront: it goes back to the projected warm start
  EXPECT_GT(warm_stopped_in_first, 0);
}

// Islands share only bodies that do not move; a problem that gives such a body an inverse mass
// would let two islands write it at once, and is refused.
TEST(Pgs, NormalPgsRefusesIslandsThatShareAMovingBody) {
  const GapScene g = gap_scene(32, 90, 9, true);
  NormalProblem packed;
  assemble_gap_problem(g.model, g.st, g.contacts, nullptr, packed);
  std::vector<std::uint8_t> still = g.model.fixed;
  still[2] = 1;  // islands built with body 2 held still, rows that still move it
  Islands islands;
  build_islands(g.model.size(), still, packed.body_a, packed.body_b, islands);
  SolverOptions o;
  std::vector<double> l;
  EXPECT_THROW(solve_normal_pgs(packed, &islands, o, l), std::invalid_argument);
  Islands other;  // another problem's: half the contacts
  const std::vector<int> half_a(packed.body_a.begin(), packed.body_a.begin() + 40),
      half_b(packed.body_b.begin(), packed.body_b.begin() + 40);
  build_islands(g.model.size(), g.model.fixed, half_a, half_b, other);
  EXPECT_THROW(solve_normal_pgs(packed, &other, o, l), std::invalid_argument);
}
