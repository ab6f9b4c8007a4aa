// Honest convergence (issue 12): with merit_tol set (what `coulomb fclib --tol` does), every solver
// with an assembled form says `converged` exactly when the FCLib merit of the impulses it returns
// is <= merit_tol: on small problems built here and on the FCLib problems of ../shared/fclib
// (skipped if missing), where `coulomb fclib --tol 1e-6` used to call KaplasTower converged at a
// merit of 1.5e-4 (prox-gs) and PGS's box-friction answers converged at merits up to 1.0.
#include <coulomb/fclib_io.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "local_problems.h"

namespace coulomb {
namespace {

namespace fs = std::filesystem;
using test::coupled_problem;
using test::make_local_problem;

std::vector<const SolverInfo*> assembled_solvers() {
  std::vector<const SolverInfo*> out;
  for (const SolverInfo& s : solver_registry())
    if (s.solve_assembled) out.push_back(&s);
  return out;
}

// The solver's defaults with the harness's settings (tools/cli/fclib_command.cpp): budget, step
// tolerances, zero start, and merit_tol (0: the solver's own stopping test).
SolverOptions options(const SolverInfo& s, int iterations, double tol, double merit_tol) {
  SolverOptions o = parse_solver_options(s, nlohmann::json{{"type", s.name}}, "/solver");
  o.max_iterations = iterations;
  o.abs_tol = o.rel_tol = tol;
  o.merit_tol = merit_tol;
  o.warm_start = false;
  return o;
}

SolverStats solve(const SolverInfo& s, const AssembledProblem& p, const SolverOptions& o, ContactSolution& sol) {
  sol = ContactSolution{};
  return s.solve_assembled(p, o, sol);
}

// One contact, W = I, q = (-1, -1, -1), mu 0.5: PGS's box friction converges at once to
// r = (1, 0.5, 0.5), whose friction lies in a corner of the box, outside the Coulomb cone
// (merit 0.08); the cone's solution is r_T = -0.5 u_T / |u_T| with |r_T| = 0.5.
AssembledProblem box_corner_problem() {
  return make_local_problem(Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d(-1.0, -1.0, -1.0), {0.5});
}

TEST(HonestConvergence, PgsBoxCornerIsConvergedByItsStepTestButNotByTheMerit) {
  const AssembledProblem p = box_corner_problem();
  const SolverInfo& pgs = *find_solver("pgs");
  for (const char* ordering : {"default", "ipp", "esp", "gsp"}) {
    SCOPED_TRACE(ordering);
    SolverOptions o = parse_solver_options(pgs, {{"type", "pgs"}, {"ordering", ordering}}, "/solver");
    o.max_iterations = 200;
    o.abs_tol = o.rel_tol = 1e-6;
    o.warm_start = false;
    ContactSolution sol;
    const SolverStats own = solve(pgs, p, o, sol);  // scenes: the step test
    EXPECT_TRUE(own.converged);
    EXPECT_LT(own.iterations, 10);
    EXPECT_GT(own.merit, 0.05);
    o.merit_tol = 1e-6;  // coulomb fclib: the merit
    const SolverStats honest = solve(pgs, p, o, sol);
    EXPECT_FALSE(honest.converged);
    EXPECT_EQ(honest.iterations, 200);  // it kept trying to the budget
    EXPECT_GT(honest.merit, 0.05);
  }
  for (const SolverInfo* s : assembled_solvers()) {
    if (s->name == "pgs") continue;
    ContactSolution sol;
    const SolverStats st = solve(*s, p, options(*s, 200, 1e-6, 1e-6), sol);
    EXPECT_TRUE(st.converged) << s->name << ": merit " << st.merit;
    EXPECT_LE(st.merit, 1e-6) << s->name;
    EXPECT_NEAR(sol.lambda[0].segment<2>(1).norm(), 0.5 * sol.lambda[0][0], 1e-5) << s->name;  // on the cone
  }
}

// Every solver, budget and tolerance on small coupled problems: converged == (merit <= merit_tol).
TEST(HonestConvergence, ConvergedIsExactlyTheMeritMeetingMeritTol) {
  int converged = 0, runs = 0;
  for (const SolverInfo* s : assembled_solvers())
    for (unsigned seed = 1; seed <= 5; ++seed)
      for (const int budget : {1, 3, 10, 30, 1000})
        for (const double tol : {1e-3, 1e-6, 1e-10}) {
          const AssembledProblem p = coupled_problem(seed);
          ContactSolution sol;
          const SolverStats st = solve(*s, p, options(*s, budget, tol, tol), sol);
          AssembledOperator op(p);
          EXPECT_EQ(st.merit, fclib_merit(op, sol.lambda)) << s->name;  // the merit of what it returns
          EXPECT_EQ(st.converged, st.merit <= tol)
              << s->name << " seed " << seed << " budget " << budget << " tol " << tol << ": merit " << st.merit;
          EXPECT_LE(st.iterations, budget);
          converged += st.converged;
          ++runs;
        }
  std::cout << "  " << converged << " of " << runs << " solves converged\n";
  EXPECT_GT(converged, runs / 4);  // the test sees both answers
  EXPECT_LT(converged, runs);
}

// A loose step test (1e-2) would stop PROX early; with merit_tol the merit decides.
TEST(HonestConvergence, ProxStopsOnTheMeritNotOnALooseStepTest) {
  const AssembledProblem p = coupled_problem(3);
  for (const char* name : {"prox-gs", "prox-jacobi"}) {
    const SolverInfo& s = *find_solver(name);
    ContactSolution sol;
    const SolverStats loose = solve(s, p, options(s, 5000, 1e-2, 0.0), sol);
    EXPECT_TRUE(loose.converged) << name;
    EXPECT_GT(loose.merit, 1e-9) << name;  // so the step test alone stops too early
    const SolverStats honest = solve(s, p, options(s, 5000, 1e-2, 1e-9), sol);
    EXPECT_TRUE(honest.converged) << name;
    EXPECT_LE(honest.merit, 1e-9) << name;
    EXPECT_GT(honest.iterations, loose.iterations) << name;
  }
}

// The shared FCLib problems (the small ones, and KaplasTower for the iterative solvers, the
// issue's example): converged == (merit <= 1e-6), and libfclib agrees.
TEST(HonestConvergence, FclibProblemsConvergeOnlyAtTheMerit) {
  const fs::path dir(COULOMB_FCLIB_DIR);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) GTEST_SKIP() << "no FCLib problems in " << dir.string();
  const double tol = 1e-6;
  int checked = 0;
  for (const char* stem : {"FC3D_Example1_SBM", "FrictionContact3D_1c", "NESpheres_10_1", "OneObject-i1028-138",
                           "Rover1039", "Rover4516", "KaplasTower-i1061-4"}) {
    const fs::path file = dir / (std::string(stem) + ".hdf5");
    if (!fs::exists(file)) continue;
    const AssembledProblem p = read_fclib_local(file);
    for (const SolverInfo* s : assembled_solvers()) {
      const bool newton = s->name.rfind("newton", 0) == 0;
      if (newton && p.num_contacts() > 100) continue;  // seconds of LU under sanitizers
      ContactSolution sol;
      const int budget = newton ? 100 : p.num_contacts() > 100 ? 600 : 2000;  // prox-gs said converged at 469
      const SolverStats st = solve(*s, p, options(*s, budget, tol, tol), sol);
      const double theirs = libfclib_merit(file, sol.lambda);
      std::cout << "  " << stem << " " << s->name << ": merit " << st.merit << " after " << st.iterations
                << " iterations, converged " << st.converged << "\n";
      EXPECT_EQ(st.converged, st.merit <= tol) << stem << " " << s->name << ": merit " << st.merit;
      if (st.converged) {
        EXPECT_LE(theirs, tol) << stem << " " << s->name;
      }
      ++checked;
      // measured: prox-gs reaches 1e-6 on the small problems (OneObject in 680 to 1040 sweeps,
      // where its step test at tol 1e-6 stopped at 1.19e-6 and said converged); PGS's box
      // friction leaves the Rovers outside the cone (merits 0.10 and 1.0)
      if (s->name == "prox-gs" && p.num_contacts() <= 100) {
        EXPECT_TRUE(st.converged) << stem;
      }
      if (s->name == "pgs" && std::string(stem).rfind("Rover", 0) == 0) {
        EXPECT_FALSE(st.converged) << stem;
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "none of the problems is in " << dir.string();
}

}  // namespace
}  // namespace coulomb
