// newton-fb and newton-minmap (seed 003 on assembled local problems, newton_fclib.cpp): one
// contact that is open, sticks or slides against its closed-form solution, every formulation and
// linear solver on a small coupled problem, warm starts, honest stats, the globalisation on a rock
// pile where the pure Newton wanders, and the option keys.
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "local_problems.h"

namespace coulomb {
namespace {

using test::coupled_problem;
using test::make_local_problem;

SolverOptions newton_options(const std::string& solver, nlohmann::json keys = nlohmann::json::object()) {
  keys["type"] = solver;
  SolverOptions o = parse_solver_options(*find_solver(solver), keys, "/solver");
  o.warm_start = false;
  o.abs_tol = 1e-12;
  return o;
}

SolverStats run(const std::string& solver, const AssembledProblem& p, const SolverOptions& o, ContactSolution& sol) {
  return find_solver(solver)->solve_assembled(p, o, sol);
}

const char* const kSolvers[] = {"newton-fb", "newton-minmap"};

// One contact with W = diag(wn, wt, wt): the closed-form solutions.
struct OneContact {
  double wn = 2.0, wt = 5.0, mu = 0.4;
  AssembledProblem problem(const Vec3& q) const {
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(3, 3);
    W.diagonal() << wn, wt, wt;
    return make_local_problem(W, q, {mu});
  }
};

void expect_impulse(const ContactSolution& sol, const Vec3& want, const std::string& what) {
  ASSERT_EQ(sol.lambda.size(), 1u);
  EXPECT_LT((sol.lambda[0].head<3>() - want).norm(), 1e-9 * std::max(1.0, want.norm()))
      << what << ": got " << sol.lambda[0].head<3>().transpose() << ", want " << want.transpose();
  EXPECT_EQ(sol.lambda[0][3], 0.0);
}

TEST(NewtonFclib, OneContactOpenSticksAndSlides) {
  const OneContact c;
  for (const char* solver : kSolvers)
    for (const char* friction : {"cone", "fixed_point"}) {
      const std::string what = std::string(solver) + " " + friction;
      const SolverOptions o = newton_options(solver, {{"friction", friction}});
      ContactSolution sol;
      // open: q_n > 0 separates, r = 0
      SolverStats s = run(solver, c.problem(Vec3(0.3, 1.0, -2.0)), o, sol);
      expect_impulse(sol, Vec3::Zero(), what + " open");
      EXPECT_TRUE(s.converged) << what;
      // sticks: r = -W^-1 q lies inside the cone (|r_T| = 0.02 < mu r_n = 0.2)
      s = run(solver, c.problem(Vec3(-1.0, 0.1, 0.0)), o, sol);
      expect_impulse(sol, Vec3(0.5, -0.02, 0.0), what + " stick");
      EXPECT_TRUE(s.converged) << what;
      EXPECT_LE(s.merit, 1e-12) << what;
      // slides: r_n = 0.5, |r_T| = mu r_n opposite the slip q_T (|q_T| = 5 > wt mu r_n = 1)
      s = run(solver, c.problem(Vec3(-1.0, 3.0, -4.0)), o, sol);
      expect_impulse(sol, Vec3(0.5, -0.2 * 0.6, 0.2 * 0.8), what + " slide");
      EXPECT_TRUE(s.converged) << what;
      EXPECT_LE(s.merit, 1e-12) << what;
    }
}

TEST(NewtonFclib, EveryFormulationAndLinearSolverReachesTheSameSolution) {
  const AssembledProblem p = coupled_problem(7);
  struct Variant {
    const char* friction;
    const char* linear_solver;
  };
  for (const char* solver : kSolvers)
    for (const Variant v : {Variant{"cone", "lu"}, Variant{"fixed_point", "lu"}, Variant{"fixed_point", "ldlt"},
                            Variant{"fixed_point", "pcr"}}) {
      SolverOptions o = newton_options(solver, {{"friction", v.friction}, {"linear_solver", v.linear_solver}});
      o.max_iterations = 200;
      ContactSolution sol;
      const SolverStats s = run(solver, p, o, sol);
      const std::string what = std::string(solver) + " " + v.friction + " " + v.linear_solver;
      EXPECT_TRUE(s.converged) << what << ": merit " << s.merit;
      EXPECT_LE(s.merit, 1e-12) << what;
      AssembledOperator op(p);
      EXPECT_EQ(s.merit, fclib_merit(op, sol.lambda)) << what;  // the merit of what is returned
      if (std::string(v.linear_solver) == "pcr") EXPECT_GT(s.linear_iterations, 0) << what;
      else EXPECT_EQ(s.linear_iterations, 0) << what;
    }
}

TEST(NewtonFclib, WarmStartFromTheSolutionNeedsNoIteration) {
  const AssembledProblem p = coupled_problem(9);
  for (const char* solver : kSolvers) {
    SolverOptions o = newton_options(solver);
    o.abs_tol = 1e-10;
    ContactSolution sol;
    const SolverStats cold = run(solver, p, o, sol);
    ASSERT_TRUE(cold.converged) << solver;
    EXPECT_GT(cold.iterations, 1) << solver;
    o.warm_start = true;
    const SolverStats warm = run(solver, p, o, sol);
    EXPECT_TRUE(warm.converged) << solver;
    EXPECT_EQ(warm.iterations, 0) << solver;
    // a perturbed warm start still converges, in fewer iterations than from zero
    for (Vec4& l : sol.lambda) l.head<3>() *= 1.05;
    const SolverStats near = run(solver, p, o, sol);
    EXPECT_TRUE(near.converged) << solver;
    EXPECT_LT(near.iterations, cold.iterations) << solver;
  }
}

TEST(NewtonFclib, StatsAreHonestWhenTheBudgetRunsOut) {
  const AssembledProblem p = coupled_problem(11);
  for (const char* solver : kSolvers) {
    SolverOptions o = newton_options(solver);
    o.max_iterations = 1;
    ContactSolution sol;
    const SolverStats s = run(solver, p, o, sol);
    EXPECT_EQ(s.iterations, 1) << solver;
    EXPECT_FALSE(s.converged) << solver;
    AssembledOperator op(p);
    EXPECT_EQ(s.merit, fclib_merit(op, sol.lambda)) << solver;
    EXPECT_GT(s.merit, o.abs_tol) << solver;
    EXPECT_GT(s.residual, 0.0) << solver;
    EXPECT_EQ(sol.lambda.size(), 4u);
  }
  // an empty problem is solved at once
  ContactSolution sol;
  const SolverStats s = run("newton-fb", AssembledProblem{}, newton_options("newton-fb"), sol);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.iterations, 0);
  EXPECT_TRUE(sol.lambda.empty());
}

// A pile of 463 contacts (tests/data/solvers/README.md): the undamped Newton steps of the pure
// method wander (the merit jumps by orders of magnitude) and stay above 1e-6; the stall test
// hands the best iterate to the projected phase once, and Newton from its result reaches the
// target. The result is the same bit for bit when solved again.
TEST(NewtonFclib, StallThenProjectedPhaseSolvesARockPile) {
  const std::string file = std::string(COULOMB_SOLVERS_DATA) + "/RockPile_tob1.hdf5";
  const AssembledProblem p = read_fclib_local(file);
  ASSERT_EQ(p.num_contacts(), 463);
  SolverOptions pure = newton_options("newton-fb", {{"stall_iterations", 0}});
  pure.abs_tol = 1e-6;
  pure.max_iterations = 300;
  ContactSolution sol_pure;
  const SolverStats s_pure = run("newton-fb", p, pure, sol_pure);
  EXPECT_FALSE(s_pure.converged);
  EXPECT_GT(s_pure.merit, 1e-6);
  EXPECT_EQ(s_pure.contact_sweeps, 0.0);

  SolverOptions hybrid = newton_options("newton-fb");
  hybrid.abs_tol = 1e-6;
  hybrid.max_iterations = 300;
  ContactSolution sol, again;
  const SolverStats s = run("newton-fb", p, hybrid, sol);
  EXPECT_TRUE(s.converged) << "merit " << s.merit << " after " << s.iterations << " iterations";
  EXPECT_GT(s.contact_sweeps, 0.0);
  EXPECT_LE(libfclib_merit(file, sol.lambda), 1e-6);
  const SolverStats s2 = run("newton-fb", p, hybrid, again);
  EXPECT_EQ(s2.merit, s.merit);
  EXPECT_EQ(s2.iterations, s.iterations);
  for (std::size_t k = 0; k < sol.lambda.size(); ++k) ASSERT_EQ(sol.lambda[k], again.lambda[k]) << k;
}

// The minimum map on the same pile stalls where its residual lies outside the range of its
// Jacobian; the r-factors halved at each projected phase move that point, and it reaches 1e-6.
TEST(NewtonFclib, MinimumMapSolvesTheRockPileWithShrinkingRFactors) {
  const std::string file = std::string(COULOMB_SOLVERS_DATA) + "/RockPile_tob1.hdf5";
  const AssembledProblem p = read_fclib_local(file);
  SolverOptions o = newton_options("newton-minmap");
  o.abs_tol = 1e-6;
  o.max_iterations = 500;
  ContactSolution sol;
  const SolverStats s = run("newton-minmap", p, o, sol);
  EXPECT_TRUE(s.converged) << "merit " << s.merit << " after " << s.iterations << " iterations";
  EXPECT_GT(s.contact_sweeps, 0.0);
  EXPECT_LE(libfclib_merit(file, sol.lambda), 1e-6);
}

TEST(NewtonFclib, Options) {
  const SolverOptions d = newton_options("newton-fb");
  EXPECT_EQ(d.newton_fclib.damping, 1.0);
  EXPECT_FALSE(d.newton_fclib.line_search);
  EXPECT_EQ(d.newton_fclib.linear_solver, NewtonLinearSolver::Lu);
  EXPECT_EQ(d.newton_fclib.friction, NewtonFriction::Cone);
  EXPECT_EQ(d.newton_fclib.stall_iterations, 40);
  EXPECT_EQ(d.newton_fclib.prox_sweeps, 200);
  const SolverOptions o = newton_options("newton-minmap", {{"damping", 0.75},
                                                           {"line_search", true},
                                                           {"friction", "fixed_point"},
                                                           {"linear_solver", "pcr"},
                                                           {"pcr_iterations", 50},
                                                           {"regularization", 0.0},
                                                           {"stall_iterations", 0},
                                                           {"prox_sweeps", 7}});
  EXPECT_EQ(o.newton_fclib.damping, 0.75);
  EXPECT_TRUE(o.newton_fclib.line_search);
  EXPECT_EQ(o.newton_fclib.friction, NewtonFriction::FixedPoint);
  EXPECT_EQ(o.newton_fclib.linear_solver, NewtonLinearSolver::Pcr);
  EXPECT_EQ(o.newton_fclib.pcr_iterations, 50);
  EXPECT_EQ(o.newton_fclib.regularization, 0.0);
  EXPECT_EQ(o.newton_fclib.stall_iterations, 0);
  EXPECT_EQ(o.newton_fclib.prox_sweeps, 7);
  auto error = [](const nlohmann::json& keys) {
    try {
      newton_options("newton-fb", keys);
    } catch (const InputError& e) {
      return std::string(e.pointer()) + ": " + e.message();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error({{"damping", 0}}), "/solver/damping: expected a step factor in (0, 1]");
  EXPECT_EQ(error({{"linear_solver", "cholesky"}}), "/solver/linear_solver: expected one of \"ldlt\", \"lu\", \"pcr\"");
  EXPECT_EQ(error({{"linear_solver", "ldlt"}}),
            "/solver/linear_solver: \"ldlt\" needs \"friction\": \"fixed_point\" (the cone's Newton matrix is "
            "unsymmetric; use \"lu\")");
  EXPECT_EQ(error({{"stall_iterations", -1}}),
            "/solver/stall_iterations: expected an integer in [0, 1000000] (0: never leave Newton)");
  EXPECT_EQ(error({{"stall_iterations", 2.5}}),
            "/solver/stall_iterations: expected an integer in [0, 1000000] (0: never leave Newton)");
  EXPECT_EQ(error({{"prox_sweeps", 0}}), "/solver/prox_sweeps: expected an integer in [1, 1000000]");
  EXPECT_EQ(error({{"prox_sweeps", "many"}}), "/solver/prox_sweeps: expected an integer in [1, 1000000]");
  EXPECT_NE(error({{"rel_tol", 1e-3}}).find("unknown key for solver 'newton-fb'"), std::string::npos);
}

}  // namespace
}  // namespace coulomb
