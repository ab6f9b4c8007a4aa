// Writing FCLib local problems (fclib_io.h, write_fclib_local) from the Wall's contact problem:
// the assembled operator is the matrix-free one, libfclib reads the file back as the same
// problem, and prox-gs and newton-fb give the same merits on the file as on the problem in memory.
#include <coulomb/contact_operator.h>
#include <coulomb/fclib_io.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

namespace coulomb {
namespace {

namespace fs = std::filesystem;

// A scratch folder removed at the end of the test.
struct TempDir {
  TempDir() {
    path = fs::temp_directory_path() / ("coulomb_fclib_write_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// The Wall's contact problem after a few steps (840 contacts of 81 boxes on a fixed ground).
const ContactProblem& wall_problem() {
  static World world = [] {
    World w(load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/wall.json"));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.step().ok());
    return w;
  }();
  return world.last_problem();
}

TEST(FclibWrite, AssembledOperatorIsTheMatrixFreeOne) {
  const ContactProblem& p = wall_problem();
  ASSERT_GT(p.num_contacts(), 500);
  const AssembledProblem a = assembled_problem(p);
  ASSERT_EQ(a.num_contacts(), p.num_contacts());
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> x(-1.0, 1.0);
  std::vector<Vec4> lambda(std::size_t(p.num_contacts()));
  for (Vec4& l : lambda) l = Vec4(x(rng), x(rng), x(rng), x(rng));
  MatrixFreeOperator mf(p);
  AssembledOperator as(a);
  std::vector<Vec4> v_mf, v_as;
  all_velocities(mf, lambda, v_mf);
  all_velocities(as, lambda, v_as);
  double scale = 0.0, diff = 0.0;
  for (std::size_t k = 0; k < v_mf.size(); ++k) {
    scale = std::max(scale, v_mf[k].cwiseAbs().maxCoeff());
    diff = std::max(diff, (v_mf[k] - v_as[k]).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(diff, 1e-12 * scale);
  // the ground couples nothing: a block row holds only contacts sharing a moving body
  EXPECT_LT(a.block.size(), std::size_t(p.num_contacts()) * std::size_t(p.num_contacts()) / 10);
  EXPECT_EQ(fclib_dropped_friction(a), "");  // the Wall has no torsional or anisotropic friction
}

TEST(FclibWrite, WallStepRoundTripsWithTheSameMerits) {
  const ContactProblem& p = wall_problem();
  const AssembledProblem a = assembled_problem(p);
  TempDir tmp;
  const fs::path file = tmp.path / "wall.hdf5";
  write_fclib_local(file, a, {"wall step 3", "round trip test", "W symmetric positive semi-definite"});
  FclibLocalInfo info;
  const AssembledProblem back = read_fclib_local(file, &info);
  EXPECT_EQ(info.title, "wall step 3");
  EXPECT_EQ(info.storage, FclibStorage::compressed_column);
  ASSERT_EQ(back.num_contacts(), a.num_contacts());
  // the same W, q and mu, bit for bit (the torsion rows are not written)
  AssembledOperator op_a(a), op_back(back);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> x(-1.0, 1.0);
  std::vector<Vec4> lambda(std::size_t(a.num_contacts()));
  for (Vec4& l : lambda) l = Vec4(x(rng), x(rng), x(rng), 0.0);
  for (int k = 0; k < a.num_contacts(); ++k) {
    EXPECT_EQ(op_a.velocity(k, lambda).head<3>(), op_back.velocity(k, lambda).head<3>()) << k;
    EXPECT_EQ(a.mu[std::size_t(k)][0], back.mu[std::size_t(k)][0]);
  }

  // prox-gs (a fixed budget) and newton-fb on the file and in memory: the same merits
  for (const char* name : {"prox-gs", "newton-fb"}) {
    const SolverInfo& solver = *find_solver(name);
    SolverOptions o = parse_solver_options(solver, {{"type", name}}, "/solver");
    o.warm_start = false;
    o.max_iterations = std::string(name) == "prox-gs" ? 50 : 4;
    o.abs_tol = o.rel_tol = 0.0;  // run the whole budget
    ContactSolution in_memory, from_file;
    const SolverStats s_mem = std::string(name) == "prox-gs" ? solver.solve(p, o, in_memory)
                                                             : solver.solve_assembled(a, o, in_memory);
    const SolverStats s_file = solver.solve_assembled(back, o, from_file);
    EXPECT_EQ(s_mem.iterations, s_file.iterations) << name;
    EXPECT_NEAR(s_file.merit, s_mem.merit, 1e-9 * s_mem.merit) << name;
    EXPECT_NEAR(libfclib_merit(file, from_file.lambda), s_file.merit, 1e-12 * s_file.merit) << name;
    EXPECT_LT(s_file.merit, fclib_merit(op_back, std::vector<Vec4>(lambda.size(), Vec4::Zero()))) << name;
  }
}

TEST(FclibWrite, ClearErrors) {
  const AssembledProblem a = assembled_problem(wall_problem());
  TempDir tmp;
  EXPECT_THROW(write_fclib_local(tmp.path / "no_such_dir" / "x.hdf5", a, {}), std::runtime_error);
  EXPECT_THROW(write_fclib_local(tmp.path, a, {}), std::runtime_error);  // a directory
  EXPECT_THROW(write_fclib_local(tmp.path / "empty.hdf5", AssembledProblem{}, {}), std::invalid_argument);
  // an existing file is replaced
  const fs::path file = tmp.path / "twice.hdf5";
  write_fclib_local(file, a, {});
  write_fclib_local(file, a, {"second", "", ""});
  FclibLocalInfo info;
  EXPECT_EQ(read_fclib_local(file, &info).num_contacts(), a.num_contacts());
  EXPECT_EQ(info.title, "second");
  // an unfinalized problem cannot be assembled
  ContactProblem raw = wall_problem();
  raw.finalized = false;
  EXPECT_THROW(assembled_problem(raw), std::invalid_argument);
}

TEST(FclibWrite, TorsionalFrictionIsNoted) {
  AssembledProblem a = assembled_problem(wall_problem());
  a.mu[0][2] = 0.1;
  a.mu[1][1] = 0.3;
  EXPECT_EQ(fclib_dropped_friction(a),
            "1 contacts have torsional friction (mu_tau > 0): their torsion rows are dropped; 1 contacts have "
            "anisotropic friction (mu_t != mu_s): mu_s is written");
}

}  // namespace
}  // namespace coulomb
