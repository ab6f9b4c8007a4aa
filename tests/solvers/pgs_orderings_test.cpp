// PGS merit Theta (seed 001 eq. 22-23) and the orderings of seed 001 section 5 (default, IPP,
// CP, ESP, GSP): Theta against a direct dense evaluation, every ordering reaching the same
// solution of a problem with a unique one through both operators, the per-iteration history,
// the permutations themselves, and the staggered orderings on a stack of boxes.
#include "../../solvers/src/pgs_orderings.h"

#include <coulomb/contact_assembly.h>
#include <coulomb/contact_operator.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace pgs_orderings_test {

namespace {

const std::vector<PgsOrdering> kOrderings = {PgsOrdering::Default, PgsOrdering::Ipp, PgsOrdering::Cp, PgsOrdering::Esp,
                                              PgsOrdering::Gsp};

// Dense A (4nc x 4nc) of a ContactProblem, built independently of the operators:
// A = J M^-1 J^T with J assembled from the per-contact blocks (seed 001 eq. 3).
Eigen::MatrixXd dense_A(const ContactProblem& p) {
  const int nc = p.num_contacts(), nb = p.num_bodies();
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(4 * nc, 6 * nb), Minv = Eigen::MatrixXd::Zero(6 * nb, 6 * nb);
  for (int k = 0; k < nc; ++k) {
    J.block<4, 6>(4 * k, 6 * p.body_a[std::size_t(k)]) += p.J_a(k);
    J.block<4, 6>(4 * k, 6 * p.body_b[std::size_t(k)]) += p.J_b(k);
  }
  for (int i = 0; i < nb; ++i) {
    Minv.block<3, 3>(6 * i, 6 * i) = p.inv_mass[std::size_t(i)] * Mat3::Identity();
    Minv.block<3, 3>(6 * i + 3, 6 * i + 3) = p.inv_inertia[std::size_t(i)];
  }
  return J * Minv * J.transpose();
}

// The same problem as a BSR AssembledProblem (the FCLib path), from the dense A.
AssembledProblem assembled_from(const ContactProblem& p) {
  const Eigen::MatrixXd A = dense_A(p);
  AssembledProblem q;
  const int nc = p.num_contacts();
  q.row_start.push_back(0);
  for (int k = 0; k < nc; ++k) {
    for (int j = 0; j < nc; ++j) {
      const Mat4 block = A.block<4, 4>(4 * k, 4 * j);
      if (block.isZero(0.0)) continue;
      q.col.push_back(j);
      q.block.push_back(block);
    }
    q.row_start.push_back(int(q.col.size()));
    q.b.push_back(p.b[std::size_t(k)]);
    q.mu.push_back(p.mu[std::size_t(k)]);
  }
  q.finalize();
  return q;
}

// seed 001 eq. 22-23 written out on the dense system, in the max form of eq. 10:
// H_i = min(u_i - lambda_i, max(l_i - lambda_i, -y_i)), y = A lambda + b.
double direct_theta(const Eigen::MatrixXd& A, const std::vector<Vec4>& b, const std::vector<Vec3>& mu,
                    const std::vector<Vec4>& lambda) {
  const int nc = int(b.size());
  Eigen::VectorXd x(4 * nc), bb(4 * nc);
  for (int k = 0; k < nc; ++k) {
    x.segment<4>(4 * k) = lambda[std::size_t(k)];
    bb.segment<4>(4 * k) = b[std::size_t(k)];
  }
  const Eigen::VectorXd y = A * x + bb;
  double theta = 0.0;
  for (int k = 0; k < nc; ++k) {
    const Vec3& m = mu[std::size_t(k)];
    for (int r = 0; r < (m[2] > 0.0 ? 4 : 3); ++r) {
      if (!(A(4 * k + r, 4 * k + r) > 0.0)) continue;
      const double ln = x[4 * k], li = x[4 * k + r];
      const double lo = r == 0 ? 0.0 : -m[r - 1] * ln;
      const double hi = r == 0 ? 1e300 : m[r - 1] * ln;
      const double h = std::min(hi - li, std::max(lo - li, -y[4 * k + r]));
      theta += 0.5 * h * h;
    }
  }
  return theta;
}

// One unit-mass body above a fixed one, one contact below its centre (as pgs_test.cpp).
ContactProblem one_contact(const Vec3& v_free, double mu) {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  model.add("body", 0, 0, false, 1.0, Vec3::Constant(0.1), Pose{});
  RigidState st;
  st.resize(2);
  st.x[1] = Vec3(0, 0, 0.5);
  std::vector<Vec6> u(2, Vec6::Zero());
  u[1].head<3>() = v_free;
  ContactProblem p;
  assemble_contacts(model, st, u, {Contact{0, 1, Vec3::Zero(), Vec3::UnitZ(), 0.0, -1, -1}},
                    {ContactCoefficients{Vec3(mu, mu, 0.0), 0.0}}, AssemblySettings{}, p);
  return p;
}

// Three balls (radius 0.1) on a fixed ground: ball 1 at the origin, ball 2 on top of it, ball 3
// beside it; contacts ground-1, ground-3, 1-2, 1-3 (12 rows + one torsion row on 18 velocities,
// so A restricted to the solved rows is positive definite and the solution is unique). Ball 3
// rolls into ball 1, ball 2 slides on it, ball 1 spins about the vertical.
ContactProblem three_balls() {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  const double m = 2.0, I = 0.4 * m * 0.01;
  for (int i = 0; i < 3; ++i) model.add("ball" + std::to_string(i + 1), 0, 0, false, m, Vec3::Constant(I), Pose{});
  RigidState st;
  st.resize(4);
  st.x[1] = Vec3(0, 0, 0.1);
  st.x[2] = Vec3(0, 0, 0.3);
  st.x[3] = Vec3(0.2, 0, 0.1);
  const double g = -9.81 * 0.01;
  std::vector<Vec6> u(4, Vec6::Zero());
  u[1] << 0, 0, g, 0, 0, 2.0;
  u[2] << 0, 1.0, g, 0, 0, 0;
  u[3] << -0.05, 0, g, 0, 0.5, 0;
  std::vector<Contact> c = {Contact{0, 1, Vec3(0, 0, 0), Vec3::UnitZ(), 0.0, -1, -1},
                            Contact{0, 3, Vec3(0.2, 0, 0), Vec3::UnitZ(), 0.0, -1, -1},
                            Contact{1, 2, Vec3(0, 0, 0.2), Vec3::UnitZ(), 0.0, -1, -1},
                            Contact{1, 3, Vec3(0.1, 0, 0.1), Vec3::UnitX(), 0.0, -1, -1}};
  std::vector<ContactCoefficients> coeff = {ContactCoefficients{Vec3(0.3, 0.3, 0.01), 0.0},
                                            ContactCoefficients{Vec3(0.4, 0.2, 0.0), 0.0},
                                            ContactCoefficients{Vec3(0.3, 0.3, 0.0), 0.0},
                                            ContactCoefficients{Vec3(0.25, 0.25, 0.0), 0.0}};
  ContactProblem p;
  assemble_contacts(model, st, u, c, coeff, AssemblySettings{}, p);
  return p;
}

// The same problem with its contacts handed over in the order perm.
ContactProblem permuted(const ContactProblem& p, const std::vector<int>& perm) {
  ContactProblem out = p;
  out.clear_contacts();
  for (const int k : perm) {
    const auto i = std::size_t(k);
    out.add_contact(p.body_a[i], p.body_b[i], p.rows[i], p.b[i], p.mu[i], p.point[i]);
  }
  out.finalize();
  return out;
}

SolverOptions tight(PgsOrdering ordering, double sor = 1.0) {
  SolverOptions o;
  o.pgs.ordering = ordering;
  o.max_iterations = 100000;
  o.abs_tol = 1e-14;
  o.rel_tol = 0.0;
  o.pgs.sor = sor;
  return o;
}

double max_diff(const std::vector<Vec4>& a, const std::vector<Vec4>& b) {
  double d = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) d = std::max(d, (a[k] - b[k]).cwiseAbs().maxCoeff());
  return d;
}

}  // namespace

TEST(PgsTheta, ZeroAtTheExactSolutionPositiveElsewhere) {
  // resting: lambda* = (m g dt, 0, 0, 0) stops the body, v = 0
  const ContactProblem p = one_contact(Vec3(0, 0, -0.0981), 0.5);
  MatrixFreeOperator op(p);
  std::vector<Vec4> exact = {Vec4(0.0981, 0, 0, 0)};
  EXPECT_NEAR(pgs_detail::theta(op, exact), 0.0, 1e-30);
  for (const Vec4& off : {Vec4(0.0981 * 1.01, 0, 0, 0), Vec4(0.05, 0, 0, 0), Vec4(0, 0, 0, 0), Vec4(0.0981, 0.01, 0, 0),
                          Vec4(0.0981, 0, -0.02, 0), Vec4(0.2, 0.1, 0.1, 0)}) {
    std::vector<Vec4> l = {off};
    EXPECT_GT(pgs_detail::theta(op, l), 1e-8) << off.transpose();
  }
  // and the solver reports it: ~0 once converged
  ContactSolution sol;
  const SolverStats st = find_solver("pgs")->solve(p, tight(PgsOrdering::Default), sol);
  EXPECT_TRUE(st.converged);
  EXPECT_LT(st.residual, 1e-28);
  // a sliding contact: the box face is part of the solution, Theta still vanishes there
  const ContactProblem sliding = one_contact(Vec3(1.0, 0.3, -0.0981), 0.5);
  ContactSolution s2;
  const SolverStats st2 = find_solver("pgs")->solve(sliding, tight(PgsOrdering::Default), s2);
  EXPECT_LT(st2.residual, 1e-28);
  EXPECT_NEAR(std::abs(s2.lambda[0][1]), 0.5 * s2.lambda[0][0], 1e-12);  // on the box face
}

TEST(PgsTheta, MatchesADirectEvaluationOfEq22And23) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // assembled path: a random SPD A, a torsion row on some contacts, lambda partly outside the box
  const int nc = 5;
  Eigen::MatrixXd B(4 * nc, 4 * nc);
  for (int i = 0; i < B.size(); ++i) B.data()[i] = u(rng);
  const Eigen::MatrixXd A = B * B.transpose() + 0.1 * Eigen::MatrixXd::Identity(4 * nc, 4 * nc);
  AssembledProblem q;
  q.row_start.push_back(0);
  for (int k = 0; k < nc; ++k) {
    for (int j = 0; j < nc; ++j) {
      q.col.push_back(j);
      q.block.push_back(A.block<4, 4>(4 * k, 4 * j));
    }
    q.row_start.push_back(int(q.col.size()));
    q.b.push_back(Vec4(u(rng), u(rng), u(rng), u(rng)));
    q.mu.push_back(Vec3(0.5 + 0.3 * u(rng), 0.5 + 0.3 * u(rng), k % 2 ? 0.1 : 0.0));
  }
  q.finalize();
  AssembledOperator aop(q);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Vec4> l(nc);
    for (Vec4& x : l) x = Vec4(0.3 + u(rng), 0.5 * u(rng), 0.5 * u(rng), 0.2 * u(rng));
    const double direct = direct_theta(A, q.b, q.mu, l);
    EXPECT_GT(direct, 0.0);
    EXPECT_NEAR(pgs_detail::theta(aop, l), direct, 1e-12 * direct);
  }
  // matrix-free path against the dense J M^-1 J^T
  const ContactProblem p = three_balls();
  const Eigen::MatrixXd Ap = dense_A(p);
  MatrixFreeOperator mop(p);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Vec4> l(std::size_t(p.num_contacts()));
    for (Vec4& x : l) x = Vec4(0.1 * (1 + u(rng)), 0.05 * u(rng), 0.05 * u(rng), 0.001 * u(rng));
    const double direct = direct_theta(Ap, p.b, p.mu, l);
    EXPECT_NEAR(pgs_detail::theta(mop, l), direct, 1e-12 * direct);
  }
  // SolverStats::residual is Theta of the impulses returned (a few sweeps: not yet converged)
  for (const PgsOrdering ordering : kOrderings) {
    SolverOptions o = tight(ordering);
    o.max_iterations = 3;
    ContactSolution sol;
    const SolverStats st = find_solver("pgs")->solve(p, o, sol);
    const double direct = direct_theta(Ap, p.b, p.mu, sol.lambda);
    EXPECT_GT(st.residual, 0.0) << ordering;
    EXPECT_NEAR(st.residual, direct, 1e-12 * direct) << ordering;
  }
}

TEST(PgsOrderings, AllReachTheSameSolutionThroughBothOperators) {
  const ContactProblem p = three_balls();
  const AssembledProblem q = assembled_from(p);
  // the solved rows of A are positive definite: the solution is unique
  const Eigen::MatrixXd A = dense_A(p);
  std::vector<int> rows;
  for (int k = 0; k < p.num_contacts(); ++k)
    for (int r = 0; r < pgs_detail::solved_rows(p.mu[std::size_t(k)]); ++r) rows.push_back(4 * k + r);
  Eigen::MatrixXd As(rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows.size(); ++j) As(Eigen::Index(i), Eigen::Index(j)) = A(rows[i], rows[j]);
  ASSERT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(As).eigenvalues().minCoeff(), 1e-6);

  ContactSolution reference;
  const SolverStats ref = find_solver("pgs")->solve(p, tight(PgsOrdering::Default), reference);
  ASSERT_TRUE(ref.converged);
  // sticking and sliding contacts (all pressed) and a torsion row
  EXPECT_GT(reference.lambda[2][0], 0.0);
  EXPECT_NEAR(std::abs(reference.lambda[2][1]), 0.3 * reference.lambda[2][0], 1e-12);  // ball 2 slides
  EXPECT_LT(ref.residual, 1e-24);
  for (const double sor : {1.0, 1.3}) {
    for (const PgsOrdering ordering : kOrderings) {
      ContactSolution mf, as;
      const SolverStats a = find_solver("pgs")->solve(p, tight(ordering, sor), mf);
      const SolverStats b = find_solver("pgs")->solve_assembled(q, tight(ordering, sor), as);
      EXPECT_TRUE(a.converged) << ordering << " sor " << sor;
      EXPECT_TRUE(b.converged) << ordering << " sor " << sor;
      EXPECT_LT(max_diff(mf.lambda, reference.lambda), 1e-8) << ordering << " sor " << sor;
      EXPECT_LT(max_diff(as.lambda, reference.lambda), 1e-8) << ordering << " sor " << sor;
      EXPECT_LT(a.residual, 1e-20) << ordering;
      std::cout << "[ three balls ] " << ordering << " sor " << sor << ": " << a.iterations << " iterations (matrix-free), "
                << b.iterations << " (assembled)\n";
    }
  }
  // the warm start from the solution is kept by every ordering: one iteration (GSP: one sweep
  // of each set) finds nothing left to do
  for (const PgsOrdering ordering : kOrderings) {
    ContactSolution sol = reference;
    const SolverStats st = find_solver("pgs")->solve(p, tight(ordering), sol);
    EXPECT_EQ(st.iterations, ordering == PgsOrdering::Gsp ? 2 : 1) << ordering;
    EXPECT_LT(max_diff(sol.lambda, reference.lambda), 1e-12) << ordering;
  }
}

namespace {

// seed 001 section 4's pseudocode, one scalar row at a time on the dense A, visiting the rows
// (contact, row) in the order given (lines 2a-2b: i <- Pi(p)); bounds from the current lambda_n.
void scalar_pgs_pass(const Eigen::MatrixXd& A, const std::vector<Vec4>& b, const std::vector<Vec3>& mu,
                     const std::vector<std::pair<int, int>>& rows, std::vector<Vec4>& lambda) {
  for (const auto& [k, r] : rows) {
    const int i = 4 * k + r;
    double y = b[std::size_t(k)][r];
    for (int j = 0; j < A.cols(); ++j) y += A(i, j) * lambda[std::size_t(j / 4)][j % 4];
    const double x = lambda[std::size_t(k)][r] - y / A(i, i);  // line 3
    const double bound = r == 0 ? 0.0 : mu[std::size_t(k)][r - 1] * lambda[std::size_t(k)][0];
    lambda[std::size_t(k)][r] = r == 0 ? std::max(0.0, x) : std::clamp(x, -bound, bound);  // line 4
  }
}

}  // namespace

TEST(PgsOrderings, SweepsAreTheScalarAlgorithmUnderTheirRowPermutation) {
  const ContactProblem p = three_balls();
  const Eigen::MatrixXd A = dense_A(p);
  const int nc = p.num_contacts();
  std::vector<std::pair<int, int>> contact_rows, normal_rows, friction_rows;
  for (int k = 0; k < nc; ++k) {
    normal_rows.push_back({k, 0});
    for (int r = 0; r < pgs_detail::solved_rows(p.mu[std::size_t(k)]); ++r) {
      contact_rows.push_back({k, r});
      if (r > 0) friction_rows.push_back({k, r});
    }
  }
  for (const int iterations : {1, 3}) {
    SolverOptions o = tight(PgsOrdering::Default);
    o.max_iterations = iterations;
    const std::vector<Vec4> zero(std::size_t(nc), Vec4::Zero());
    std::vector<Vec4> by_default = zero, by_esp = zero;
    for (int it = 0; it < iterations; ++it) {
      scalar_pgs_pass(A, p.b, p.mu, contact_rows, by_default);  // default: n, t, s, tau per contact
      scalar_pgs_pass(A, p.b, p.mu, normal_rows, by_esp);       // ESP: all normal rows (eq. 20) ...
      scalar_pgs_pass(A, p.b, p.mu, friction_rows, by_esp);     // ... then all friction rows (eq. 21)
    }
    ContactSolution d, e;  // cold starts
    find_solver("pgs")->solve(p, o, d);
    EXPECT_LT(max_diff(d.lambda, by_default), 1e-15);
    o.pgs.ordering = PgsOrdering::Esp;
    find_solver("pgs")->solve(p, o, e);
    EXPECT_LT(max_diff(e.lambda, by_esp), 1e-15);
  }
  // GSP starts with the normal set; its first iteration is one normal sweep
  std::vector<Vec4> by_gsp(std::size_t(nc), Vec4::Zero());
  scalar_pgs_pass(A, p.b, p.mu, normal_rows, by_gsp);
  SolverOptions o = tight(PgsOrdering::Gsp);
  o.max_iterations = 1;
  ContactSolution sol;
  const SolverStats st = find_solver("pgs")->solve(p, o, sol);
  EXPECT_EQ(st.iterations, 1);
  for (int k = 0; k < nc; ++k) EXPECT_NEAR(sol.lambda[std::size_t(k)][0], by_gsp[std::size_t(k)][0], 1e-15);
}

TEST(PgsOrderings, AssembledRandomSpdProblem) {
  // diagonally dominant SPD coupling between 6 contacts, some pressed, some pulled apart
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int nc = 6;
  Eigen::MatrixXd B(4 * nc, 4 * nc);
  for (int i = 0; i < B.size(); ++i) B.data()[i] = 0.2 * u(rng);
  const Eigen::MatrixXd A = B * B.transpose() + 2.0 * Eigen::MatrixXd::Identity(4 * nc, 4 * nc);
  AssembledProblem q;
  q.row_start.push_back(0);
  for (int k = 0; k < nc; ++k) {
    for (int j = 0; j < nc; ++j) {
      q.col.push_back(j);
      q.block.push_back(A.block<4, 4>(4 * k, 4 * j));
    }
    q.row_start.push_back(int(q.col.size()));
    q.b.push_back(Vec4(k == 4 ? 0.5 : -1.0 + 0.3 * u(rng), u(rng), u(rng), u(rng)));
    q.mu.push_back(Vec3(0.3, 0.2, k == 1 ? 0.05 : 0.0));
  }
  q.finalize();
  ContactSolution reference;
  ASSERT_TRUE(find_solver("pgs")->solve_assembled(q, tight(PgsOrdering::Default), reference).converged);
  EXPECT_EQ(reference.lambda[4][0], 0.0);  // separating
  for (const PgsOrdering ordering : kOrderings) {
    ContactSolution sol;
    const SolverStats st = find_solver("pgs")->solve_assembled(q, tight(ordering), sol);
    EXPECT_TRUE(st.converged) << ordering;
    EXPECT_LT(max_diff(sol.lambda, reference.lambda), 1e-8) << ordering;
  }
}

TEST(PgsOrderings, HistoryHasOneEntryPerIterationEndingAtTheResidual) {
  const ContactProblem p = three_balls();
  const AssembledProblem q = assembled_from(p);
  for (const PgsOrdering ordering : kOrderings) {
    for (const int max_it : {7, 100000}) {  // stopped by max_iterations, and converged
      SolverOptions o = tight(ordering);
      o.abs_tol = 1e-10;
      o.max_iterations = max_it;
      o.record_history = true;
      ContactSolution s1, s2;
      const SolverStats a = find_solver("pgs")->solve(p, o, s1);
      const SolverStats b = find_solver("pgs")->solve_assembled(q, o, s2);
      for (const SolverStats* st : {&a, &b}) {
        ASSERT_EQ(int(st->history.size()), st->iterations) << ordering;
        EXPECT_EQ(st->history.back(), st->residual) << ordering;
        EXPECT_EQ(st->converged, max_it > 7) << ordering;
        for (double h : st->history) EXPECT_GE(h, 0.0);
      }
      EXPECT_GT(a.history.front(), a.history.back()) << ordering;
    }
    SolverOptions o = tight(ordering);
    ContactSolution sol;
    EXPECT_TRUE(find_solver("pgs")->solve(p, o, sol).history.empty());  // only when asked
  }
}

// GSP ending on a normal sweep from a warm start whose friction lay on the edge of a larger box:
// the returned impulses are projected onto the final box (eq. 17), and the residual and merit
// reported are those of the impulses returned (the closing pass finds the impulses outside the
// box, projects them and is made again). The same from one full coloured sweep on two threads,
// where nothing is outside and the closing pass is made once.
TEST(PgsOrderings, GspEndingOnANormalSweepReturnsImpulsesInTheBox) {
  const ContactProblem p = three_balls();
  const int nc = p.num_contacts();
  ContactSolution exact;
  find_solver("pgs")->solve(p, tight(PgsOrdering::Default), exact);
  std::vector<Vec4> warm(static_cast<std::size_t>(nc));
  for (int k = 0; k < nc; ++k) {
    const double n = 2.0 * exact.lambda[std::size_t(k)][0];
    const Vec3& mu = p.mu[std::size_t(k)];
    warm[std::size_t(k)] = Vec4(n, mu[0] * n, -mu[1] * n, mu[2] * n);
  }
  for (const bool colored : {false, true}) {
    SolverOptions o = tight(PgsOrdering::Gsp);
    o.max_iterations = 1;
    if (colored) {
      o.pgs.ordering = PgsOrdering::Default;  // colouring sweeps the default order: one full sweep
      o.graph_coloring = true;
      o.threads = 2;
    }
    ContactSolution sol;
    sol.lambda = warm;
    const SolverStats st = find_solver("pgs")->solve(p, o, sol);
    int not_shrunk = 0;
    for (int k = 0; k < nc; ++k) {
      const Vec4& l = sol.lambda[std::size_t(k)];
      const Vec3& mu = p.mu[std::size_t(k)];
      EXPECT_GE(l[0], 0.0);
      for (int r = 1; r < pgs_detail::solved_rows(mu); ++r) EXPECT_LE(std::abs(l[r]), mu[r - 1] * l[0] + 1e-15) << k << " " << r;
      if (l[0] >= warm[std::size_t(k)][0]) ++not_shrunk;
    }
    EXPECT_LT(not_shrunk, nc) << "a normal impulse must have shrunk, so that friction left its box";
    MatrixFreeOperator op(p);
    EXPECT_NEAR(st.residual, pgs_detail::theta(op, sol.lambda), 1e-12 * (1.0 + st.residual)) << colored;
    EXPECT_NEAR(st.merit, fclib_merit(p, sol), 1e-12 * (1.0 + st.merit)) << colored;
  }
}

TEST(PgsOrderings, CoordinatePermutation) {
  // directly: by dot(point, axis), ties in the given order either way
  const std::vector<Vec3> pts = {Vec3(0, 0, 0.3), Vec3(5, 0, 0.1), Vec3(0, 0, 0.2), Vec3(-1, 2, 0.1)};
  EXPECT_EQ(pgs_detail::cp_order(pts, Vec3::UnitZ(), false), (std::vector<int>{1, 3, 2, 0}));
  EXPECT_EQ(pgs_detail::cp_order(pts, Vec3::UnitZ(), true), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(pgs_detail::cp_order(pts, Vec3::UnitX(), false), (std::vector<int>{3, 0, 2, 1}));
  EXPECT_EQ(pgs_detail::cp_order({}, Vec3::UnitZ(), false), std::vector<int>{});

  // observably, through one sweep: contact heights are z = 0, 0, 0.2, 0.1, so "cp" ascending
  // visits 0, 1 (tie, given order), 3, 2 and descending 2, 3, 0, 1; one cp sweep must equal one
  // default sweep on the contacts handed over in that order
  const ContactProblem p = three_balls();
  const std::vector<int> up = pgs_detail::cp_order(p.point, Vec3::UnitZ(), false);
  ASSERT_EQ(up, (std::vector<int>{0, 1, 3, 2}));
  EXPECT_EQ(p.point[std::size_t(up.front())].z(), 0.0);  // the lowest contact first
  SolverOptions one = tight(PgsOrdering::Cp);
  one.max_iterations = 1;
  for (const bool descending : {false, true}) {
    one.pgs.ordering = PgsOrdering::Cp;
    one.pgs.cp_descending = descending;
    ContactSolution by_cp, by_default;
    find_solver("pgs")->solve(p, one, by_cp);
    const std::vector<int> perm = descending ? std::vector<int>{2, 3, 0, 1} : std::vector<int>{0, 1, 3, 2};
    one.pgs.ordering = PgsOrdering::Default;
    find_solver("pgs")->solve(permuted(p, perm), one, by_default);
    for (std::size_t v = 0; v < perm.size(); ++v)
      EXPECT_LT((by_cp.lambda[std::size_t(perm[v])] - by_default.lambda[v]).cwiseAbs().maxCoeff(), 1e-15)
          << "descending " << descending << " contact " << perm[v];
  }
  // and the order of one sweep does matter on this problem
  ContactSolution asc, desc;
  one.pgs.ordering = PgsOrdering::Cp;
  one.pgs.cp_descending = false;
  find_solver("pgs")->solve(p, one, asc);
  one.pgs.cp_descending = true;
  find_solver("pgs")->solve(p, one, desc);
  EXPECT_GT(max_diff(asc.lambda, desc.lambda), 1e-4);

  // an assembled (FCLib) problem has no positions: "cp" is exactly the default order
  const AssembledProblem q = assembled_from(p);
  SolverOptions o = tight(PgsOrdering::Cp);
  o.pgs.cp_descending = true;
  o.max_iterations = 3;
  ContactSolution with_cp, with_default;
  find_solver("pgs")->solve_assembled(q, o, with_cp);
  o.pgs.ordering = PgsOrdering::Default;
  find_solver("pgs")->solve_assembled(q, o, with_default);
  EXPECT_EQ(max_diff(with_cp.lambda, with_default.lambda), 0.0);
}

TEST(PgsOrderings, ImpulsePropagationPermutation) {
  // ascending relative normal velocity, most approaching first; ties in the given order
  const std::vector<Vec4> v = {Vec4(0.1, -9, 0, 0), Vec4(-0.3, 0, 0, 0), Vec4(-0.3, 5, 0, 0), Vec4(0.0, 0, 0, 0)};
  EXPECT_EQ(pgs_detail::ipp_order(v), (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(pgs_detail::identity_order(3), (std::vector<int>{0, 1, 2}));
}

TEST(PgsOrderings, CpNeedsContactPositions) {
  ContactProblem p = three_balls();
  p.point.clear();
  ContactSolution sol;
  EXPECT_THROW(find_solver("pgs")->solve(p, tight(PgsOrdering::Cp), sol), std::invalid_argument);
  EXPECT_NO_THROW(find_solver("pgs")->solve(p, tight(PgsOrdering::Esp), sol));
}

namespace {

// Four boxes stacked on a fixed ground box, solved with the given ordering.
nlohmann::json box_stack(PgsOrdering ordering) {
  nlohmann::json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}, {"position", {0, 0, -0.1}}}};
  for (int i = 0; i < 4; ++i)
    bodies.push_back({{"name", "box" + std::to_string(i)}, {"shape", "box"}, {"position", {0.02 * i, 0, 0.1 + 0.2 * i}}});
  return {{"format", "coulomb-scene/1"},
          {"time", {{"dt", 0.01}, {"steps", 60}}},
          {"solver",
           {{"type", "pgs"}, {"ordering", std::string(to_string(ordering))}, {"max_iterations", 20000}, {"abs_tol", 1e-6}, {"rel_tol", 1e-6}}},
          {"materials", {{"default", {{"density", 500}, {"friction", 0.6}}}}},
          {"shapes",
           {{"ground", {{"type", "box"}, {"half_extents", {1, 1, 0.1}}}},
            {"box", {{"type", "box"}, {"half_extents", {0.2, 0.15, 0.1}}}}}},
          {"bodies", bodies}};
}

}  // namespace

TEST(PgsOrderings, StaggeredOrderingsConvergeOnABoxStack) {
  for (const PgsOrdering ordering : kOrderings) {
    World w(parse_scene(box_stack(ordering), "."));
    const Vec3 top0 = w.body(w.find_body("box3")).position;
    double iterations = 0.0, theta = 0.0;
    int converged = 0, max_it = 0;
    for (int i = 0; i < w.total_steps(); ++i) {
      ASSERT_TRUE(w.step().ok());
      const SolverStats& s = w.last_stats().solver;
      iterations += s.iterations;
      max_it = std::max(max_it, s.iterations);
      theta = std::max(theta, s.residual);
      converged += s.converged;
    }
    const int steps = w.total_steps();
    std::cout << "[ box stack ] " << ordering << ": mean " << iterations / steps << " iterations, max " << max_it
              << ", converged " << converged << "/" << steps << ", max Theta " << theta << "\n";
    // the staggered orderings must converge on every step; the load distribution of a stack is
    // statically indeterminate, so the counts of all orderings vary a lot from step to step
    if (ordering == PgsOrdering::Esp || ordering == PgsOrdering::Gsp) {
      EXPECT_EQ(converged, steps) << ordering;
    }
    EXPECT_LT(theta, 1e-8) << ordering;
    EXPECT_LT((w.body(w.find_body("box3")).position - top0).norm(), 1e-3) << ordering;  // it stands
  }
}

}  // namespace pgs_orderings_test
