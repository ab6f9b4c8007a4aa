// newton-fb and newton-minmap on the ten FCLib problems of ../shared/fclib (skipped if the folder
// is missing): each reaches libfclib's MERIT_1 <= 1e-6 from a zero start with the default options
// (the target of solvers/README.md, "Non-smooth Newton on FCLib problems"), its stats say so
// honestly, and libfclib agrees with the merit it reports.
#include <coulomb/fclib_io.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace coulomb {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> fclib_problems() {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path dir(COULOMB_FCLIB_DIR);
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".hdf5") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class FclibNewton : public ::testing::TestWithParam<const char*> {};

TEST_P(FclibNewton, EveryProblemReachesMeritOneInAMillion) {
  const std::vector<fs::path> files = fclib_problems();
  if (files.empty()) GTEST_SKIP() << "no FCLib problems in " << COULOMB_FCLIB_DIR;
  const SolverInfo& solver = *find_solver(GetParam());
  SolverOptions o = parse_solver_options(solver, {{"type", solver.name}}, "/solver");
  o.warm_start = false;
  o.abs_tol = 1e-6;
  o.max_iterations = 100;
  for (const fs::path& file : files) {
    const AssembledProblem p = read_fclib_local(file);
    ContactSolution sol;
    const SolverStats s = solver.solve_assembled(p, o, sol);
    const double libfclib = libfclib_merit(file, sol.lambda);
    EXPECT_LE(libfclib, 1e-6) << solver.name << " on " << file.stem() << " after " << s.iterations << " iterations";
    EXPECT_TRUE(s.converged) << solver.name << " on " << file.stem();
    EXPECT_NEAR(s.merit, libfclib, 1e-12 + 1e-9 * libfclib) << solver.name << " on " << file.stem();
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, FclibNewton, ::testing::Values("newton-fb", "newton-minmap"),
                         [](const auto& info) { return std::string(info.param) == "newton-fb" ? "Fb" : "MinMap"; });

}  // namespace
}  // namespace coulomb
