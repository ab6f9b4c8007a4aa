// The FCLib reader and harness on the problems of ../shared/fclib (README there): conversion of W
// into 4x4 blocks, our merit against libfclib's, PGS and PROX on every problem, and the reader's
// errors for damaged or unsupported files.
//
// Built twice: into solvers_unit_tests (fast checks) and, with COULOMB_FCLIB_LONG, into
// fclib_tests (label long: every problem solved with the full iteration budgets).
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <fclib.h>  // no extern "C" guard of its own
}
#include <hdf5.h>
#include <hdf5_hl.h>

namespace fs = std::filesystem;
using coulomb::AssembledOperator;
using coulomb::AssembledProblem;
using coulomb::ContactSolution;
using coulomb::FclibLocalInfo;
using coulomb::FclibStorage;
using coulomb::InputError;
using coulomb::Mat4;
using coulomb::SolverOptions;
using coulomb::SolverStats;
using coulomb::Vec3;
using coulomb::Vec4;

namespace {

fs::path data_dir() { return fs::path(COULOMB_FCLIB_DIR); }

// Every .hdf5 file of the data folder, sorted; empty if the folder is missing.
std::vector<fs::path> problems() {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(data_dir(), ec)) return out;
  for (const auto& e : fs::directory_iterator(data_dir()))
    if (e.path().extension() == ".hdf5") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

#define REQUIRE_FCLIB_DATA()                                                                   \
  do {                                                                                         \
    if (problems().empty()) GTEST_SKIP() << "no FCLib problems in " << data_dir().string(); \
  } while (0)

double our_merit(const AssembledProblem& p, const std::vector<Vec4>& lambda) {
  AssembledOperator op(p);
  return coulomb::fclib_merit(op, lambda);
}

double relative_difference(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return scale == 0.0 ? 0.0 : std::abs(a - b) / scale;
}

SolverStats solve(const std::string& solver, const AssembledProblem& p, int iterations, double tol,
                  ContactSolution& sol) {
  SolverOptions o;
  o.max_iterations = iterations;
  o.abs_tol = tol;
  o.rel_tol = tol;
  o.warm_start = false;
  sol.lambda.clear();
  return coulomb::find_solver(solver)->solve_assembled(p, o, sol);
}

#ifndef COULOMB_FCLIB_LONG  // helpers of the fast checks
// libfclib's own view of a file (owned; fclib_delete_local frees the members only).
struct RawLocal {
  explicit RawLocal(const fs::path& f) : p(fclib_read_local(f.string().c_str())) {}
  ~RawLocal() {
    if (p) {
      fclib_delete_local(p);
      std::free(p);
    }
  }
  RawLocal(const RawLocal&) = delete;
  RawLocal& operator=(const RawLocal&) = delete;
  fclib_local* p;
};

// A scratch folder removed at the end of the test.
struct TempDir {
  TempDir() {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("coulomb_fclib_" + std::string(t->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& name) const { return path / name; }
  fs::path path;
};

// Expects read_fclib_local(file) to throw an InputError naming the file and containing `words`.
void expect_rejected(const fs::path& file, const std::string& words) {
  try {
    coulomb::read_fclib_local(file);
    ADD_FAILURE() << file << " was accepted, expected an error containing '" << words << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), file.string());
    EXPECT_NE(e.message().find(words), std::string::npos) << "message: " << e.message();
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": expected an InputError, got: " << e.what();
  }
}

// A hand-made local problem written straight with HDF5, so that it can be wrong in ways
// libfclib's writer refuses (sizes that disagree, m not a multiple of spacedim, NaN, ...).
struct RawFile {
  int spacedim = 3, m = 3, n = 3, nz = -1, nzmax = 3;
  std::vector<int> p{0, 1, 2, 3}, i{0, 1, 2};
  std::vector<double> x{1.0, 1.0, 1.0}, q{-1.0, 0.0, 0.0}, mu{0.5};

  void write(const fs::path& file) const {
    const hid_t f = H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t l = H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t w = H5Gcreate2(f, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t v = H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t one = 1;
    auto ints = [](hid_t g, const char* name, const std::vector<int>& d) {
      hsize_t dim = d.size();
      H5LTmake_dataset_int(g, name, 1, &dim, d.data());
    };
    auto reals = [](hid_t g, const char* name, const std::vector<double>& d) {
      hsize_t dim = d.size();
      H5LTmake_dataset_double(g, name, 1, &dim, d.data());
    };
    H5LTmake_dataset_int(l, "spacedim", 1, &one, &spacedim);
    H5LTmake_dataset_int(w, "nzmax", 1, &one, &nzmax);
    H5LTmake_dataset_int(w, "m", 1, &one, &m);
    H5LTmake_dataset_int(w, "n", 1, &one, &n);
    H5LTmake_dataset_int(w, "nz", 1, &one, &nz);
    ints(w, "p", p);
    ints(w, "i", i);
    reals(w, "x", x);
    reals(v, "q", q);
    reals(v, "mu", mu);
    H5Gclose(v);
    H5Gclose(w);
    H5Gclose(l);
    H5Fclose(f);
  }
};

// Dense W of an assembled problem (the n, t, s rows and columns), for comparisons.
std::vector<double> dense_w(const AssembledProblem& p) {
  const int nc = p.num_contacts(), m = 3 * nc;
  std::vector<double> d(std::size_t(m) * std::size_t(m), 0.0);
  for (int k = 0; k < nc; ++k)
    for (int e = p.row_start[std::size_t(k)]; e < p.row_start[std::size_t(k) + 1]; ++e)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          d[std::size_t(3 * k + r) * std::size_t(m) + std::size_t(3 * p.col[std::size_t(e)] + c)] +=
              p.block[std::size_t(e)](r, c);
  return d;
}

std::vector<Vec4> random_impulses(int nc, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec4> l(static_cast<std::size_t>(nc));
  for (Vec4& x : l) x = Vec4(std::abs(u(rng)), u(rng), u(rng), u(rng));
  return l;
}
#endif

// Problems on which PGS (box friction) ends with a higher merit than lambda = 0: see
// FclibPgs.ReducesTheMeritOfEveryProblem.
const std::vector<std::string> kPgsBoxCorner = {"Rover1039", "Rover4516"};

bool pgs_box_corner(const fs::path& file) {
  return std::find(kPgsBoxCorner.begin(), kPgsBoxCorner.end(), file.stem().string()) != kPgsBoxCorner.end();
}

// PROX-GS on the FCLib set: merit <= 1e-6 within 100000 iterations (tol 1e-12), except for the
// problems listed here, with the bound asserted for them instead. Measured with the prox-gs of
// commit 4f363ef (seed 000 algorithm 2, default "local" r-factors): BoxesStack1 still 3.9e-5 after 100000
// iterations (not converged); Capsules stalls at 5.8e-6 (its step test stops it after 2101
// iterations, and with tol 0 it is still 5.8e-6 after 100000). Every other problem ends below
// 3e-10. Bounds: about 3x the measurement.
const std::map<std::string, double> kProxGsHard = {
    {"BoxesStack1-i100000-32", 1e-4},
    {"Capsules-i122-1617", 2e-5},
};

}  // namespace

#ifndef COULOMB_FCLIB_LONG

// (1) every problem loads into well-formed blocks, nc = m / 3, and our merit is libfclib's
TEST(FclibReader, EveryProblemLoadsAndOurMeritIsLibfclibs) {
  REQUIRE_FCLIB_DATA();
  double worst = 0.0;  // largest relative difference seen
  for (const fs::path& file : problems()) {
    SCOPED_TRACE(file.filename().string());
    FclibLocalInfo info;
    const AssembledProblem p = coulomb::read_fclib_local(file, &info);
    RawLocal raw(file);
    ASSERT_NE(raw.p, nullptr);
    const int nc = p.num_contacts();
    EXPECT_EQ(nc, raw.p->W->m / 3);
    EXPECT_EQ(info.m, raw.p->W->m);
    EXPECT_EQ(info.storage, FclibStorage::compressed_column);  // as README says for this set
    EXPECT_EQ(info.title, file.stem().string());
    ASSERT_EQ(p.row_start.size(), std::size_t(nc) + 1);
    ASSERT_EQ(p.row_start.back(), int(p.block.size()));
    for (int k = 0; k < nc; ++k) {
      EXPECT_EQ(p.mu[std::size_t(k)], Vec3(raw.p->mu[k], raw.p->mu[k], 0.0));
      EXPECT_EQ(p.b[std::size_t(k)][3], 0.0);
      EXPECT_EQ(p.A_diag[std::size_t(k)](3, 3), 1.0);
      bool diagonal = false;
      for (int e = p.row_start[std::size_t(k)]; e < p.row_start[std::size_t(k) + 1]; ++e) {
        const Mat4& B = p.block[std::size_t(e)];
        const bool diag = p.col[std::size_t(e)] == k;
        diagonal = diagonal || diag;
        EXPECT_EQ(B.row(3).head<3>().norm() + B.col(3).head<3>().norm(), 0.0);
        EXPECT_EQ(B(3, 3), diag ? 1.0 : 0.0);
        if (e > p.row_start[std::size_t(k)]) {
          EXPECT_LT(p.col[std::size_t(e) - 1], p.col[std::size_t(e)]);
        }
      }
      EXPECT_TRUE(diagonal);
    }

    const std::vector<Vec4> zero(std::size_t(nc), Vec4::Zero());
    const double ours0 = our_merit(p, zero), theirs0 = coulomb::libfclib_merit(file, zero);
    EXPECT_LE(relative_difference(ours0, theirs0), 1e-10) << ours0 << " vs " << theirs0;

    ContactSolution sol;
    const SolverStats st = solve("pgs", p, 5, 0.0, sol);
    const double theirs = coulomb::libfclib_merit(file, sol.lambda);
    EXPECT_LE(relative_difference(st.merit, theirs), 1e-10) << st.merit << " vs " << theirs;
    EXPECT_LE(relative_difference(our_merit(p, sol.lambda), theirs), 1e-10);
    worst = std::max({worst, relative_difference(ours0, theirs0), relative_difference(st.merit, theirs)});
    std::cout << "  " << file.stem().string() << ": nc " << nc << ", merit(0) " << ours0 << " / libfclib "
              << theirs0 << ", after 5 PGS sweeps " << st.merit << " / libfclib " << theirs << "\n";
  }
  std::cout << "  largest relative difference, our merit vs libfclib's: " << worst << "\n";
}

// The blocks hold exactly W: A lambda + b equals W r + q computed from libfclib's arrays.
TEST(FclibReader, BlocksReproduceWTimesRPlusQ) {
  REQUIRE_FCLIB_DATA();
  for (const fs::path& file : problems()) {
    SCOPED_TRACE(file.filename().string());
    const AssembledProblem p = coulomb::read_fclib_local(file);
    RawLocal raw(file);
    const fclib_matrix& W = *raw.p->W;
    ASSERT_EQ(W.nz, -1);
    const int nc = p.num_contacts();
    const std::vector<Vec4> lambda = random_impulses(nc, 7);
    std::vector<double> u(raw.p->q, raw.p->q + W.m);
    double scale = 0.0;
    for (int j = 0; j < W.n; ++j)
      for (int k = W.p[j]; k < W.p[j + 1]; ++k) {
        u[std::size_t(W.i[k])] += W.x[k] * lambda[std::size_t(j / 3)][j % 3];
        scale = std::max(scale, std::abs(W.x[k]));
      }
    std::vector<Vec4> v;
    AssembledOperator op(p);
    coulomb::all_velocities(op, lambda, v);
    double err = 0.0;
    for (int k = 0; k < nc; ++k) {
      for (int r = 0; r < 3; ++r) err = std::max(err, std::abs(v[std::size_t(k)][r] - u[std::size_t(3 * k + r)]));
      EXPECT_EQ(v[std::size_t(k)][3], lambda[std::size_t(k)][3]);  // unit torsion diagonal, b_tau = 0
    }
    EXPECT_LE(err, 1e-12 * std::max(1.0, scale) * W.m);
  }
}

// Compressed rows and triplets (with a duplicate entry) give the same problem as compressed
// columns, and libfclib_merit still includes W r for them.
TEST(FclibReader, EveryStorageOfWGivesTheSameProblem) {
  TempDir tmp;
  // a 2-contact W with entries in all four blocks (dense, row-major) and an explicit zero
  const int m = 6;
  std::vector<double> dense(36);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < m; ++c) dense[std::size_t(r * m + c)] = r == c ? 2.0 + r : 0.1 * (r + 1) - 0.05 * c;
  dense[1 * m + 4] = 0.0;
  double q[6] = {-1.0, 0.3, -0.2, 0.5, 0.1, 0.0}, mu[2] = {0.4, 0.0};

  std::vector<int> cp(m + 1), ci, rp(m + 1), ri, tr, tc;
  std::vector<double> cx, rx, tx;
  for (int c = 0; c < m; ++c) {
    for (int r = 0; r < m; ++r) {
      ci.push_back(r);
      cx.push_back(dense[std::size_t(r * m + c)]);
    }
    cp[std::size_t(c) + 1] = int(ci.size());
  }
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < m; ++c) {
      ri.push_back(c);
      rx.push_back(dense[std::size_t(r * m + c)]);
    }
    rp[std::size_t(r) + 1] = int(ri.size());
  }
  for (int r = m - 1; r >= 0; --r)  // triplets in no particular order, W(2,5) split in two
    for (int c = 0; c < m; ++c) {
      const double x = dense[std::size_t(r * m + c)];
      if (r == 2 && c == 5) {
        tr.insert(tr.end(), {r, r});
        tc.insert(tc.end(), {c, c});
        tx.insert(tx.end(), {0.25 * x, 0.75 * x});
      } else {
        tr.push_back(r);
        tc.push_back(c);
        tx.push_back(x);
      }
    }
  struct Case {
    const char* name;
    fclib_matrix W;
    FclibStorage storage;
  };
  const Case cases[] = {
      {"csc", {int(cx.size()), m, m, cp.data(), ci.data(), cx.data(), -1, nullptr}, FclibStorage::compressed_column},
      {"csr", {int(rx.size()), m, m, rp.data(), ri.data(), rx.data(), -2, nullptr}, FclibStorage::compressed_row},
      // triplets: row indices in p, column indices in i (fclib.h)
      {"triplet", {int(tx.size()), m, m, tr.data(), tc.data(), tx.data(), int(tx.size()), nullptr},
       FclibStorage::triplet},
  };
  const std::vector<Vec4> lambda = random_impulses(2, 3);
  std::vector<double> merits;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fclib_matrix W = c.W;
    fclib_local local{&W, nullptr, nullptr, mu, q, nullptr, 3, nullptr};
    const fs::path file = tmp / (std::string(c.name) + ".hdf5");
    ASSERT_EQ(fclib_write_local(&local, file.string().c_str()), 1);
    FclibLocalInfo info;
    const AssembledProblem p = coulomb::read_fclib_local(file, &info);
    EXPECT_EQ(info.storage, c.storage);
    const std::vector<double> d = dense_w(p);
    for (std::size_t k = 0; k < d.size(); ++k) EXPECT_NEAR(d[k], dense[k], 1e-15) << "entry " << k;
    EXPECT_EQ(p.b[1], Vec4(0.5, 0.1, 0.0, 0.0));
    EXPECT_EQ(p.mu[1], Vec3::Zero());
    const double ours = our_merit(p, lambda), theirs = coulomb::libfclib_merit(file, lambda);
    EXPECT_LE(relative_difference(ours, theirs), 1e-12) << ours << " vs " << theirs;
    merits.push_back(theirs);
  }
  EXPECT_LE(relative_difference(merits[0], merits[1]), 1e-12);
  EXPECT_LE(relative_difference(merits[0], merits[2]), 1e-12);
}

// (2) PGS lowers the merit of every problem (a short run; README has the 10000-iteration table)
// except the two Rover problems. There PGS converges (in about 20 sweeps) to a solution of its box
// friction model with friction impulses in the corners of the box, outside the Coulomb cone
// (||lambda_T|| up to sqrt(2) mu lambda_N), and the FCLib merit of that point is higher than at
// lambda = 0 (measured: Rover1039 0.0935 -> 0.102, Rover4516 0.0499 -> 0.997; PROX-GS solves
// both to 1e-12, so the problems themselves are fine).
TEST(FclibPgs, ReducesTheMeritOfEveryProblem) {
  REQUIRE_FCLIB_DATA();
  for (const fs::path& file : problems()) {
    SCOPED_TRACE(file.filename().string());
    const AssembledProblem p = coulomb::read_fclib_local(file);
    const double m0 = our_merit(p, std::vector<Vec4>(std::size_t(p.num_contacts()), Vec4::Zero()));
    ContactSolution sol;
    const SolverStats st = solve("pgs", p, 200, 1e-8, sol);
    std::cout << "  " << file.stem().string() << ": merit " << m0 << " -> " << st.merit << " after "
              << st.iterations << " PGS iterations\n";
    EXPECT_TRUE(std::isfinite(st.merit));
    if (!pgs_box_corner(file)) {
      EXPECT_LT(st.merit, m0);
      continue;
    }
    // the documented exception: converged, and outside the cone because of the box
    EXPECT_TRUE(st.converged);
    double worst = 0.0;  // max over contacts of ||lambda_T|| / (mu lambda_N)
    for (int k = 0; k < p.num_contacts(); ++k) {
      const Vec4& l = sol.lambda[std::size_t(k)];
      if (l[0] > 0.0) worst = std::max(worst, l.segment<2>(1).norm() / (p.mu[std::size_t(k)][0] * l[0]));
    }
    EXPECT_GT(worst, 1.01);  // measured: Rover1039 1.015, Rover4516 1.41
    EXPECT_LE(worst, std::sqrt(2.0) * (1.0 + 1e-12));
  }
}

// (3) damaged and unsupported files are InputErrors naming the file, never a crash
TEST(FclibReader, RejectsMissingGarbageAndTruncatedFiles) {
  TempDir tmp;
  expect_rejected(tmp / "no_such_problem.hdf5", "no such file");
  expect_rejected(tmp.path, "directory");

  const fs::path garbage = tmp / "garbage.hdf5";
  {
    std::ofstream out(garbage, std::ios::binary);
    std::mt19937 rng(1);
    for (int k = 0; k < 4096; ++k) out.put(char(rng() & 0xff));
  }
  expect_rejected(garbage, "not an HDF5 file");
  const fs::path empty = tmp / "empty.hdf5";
  std::ofstream(empty).close();
  expect_rejected(empty, "not an HDF5 file");

  if (problems().empty()) GTEST_SKIP() << "no FCLib problems to truncate in " << data_dir().string();
  // truncated copies of a problem, cut at several places (superblock, metadata, data)
  const fs::path source = problems().front();
  const auto size = std::uintmax_t(fs::file_size(source));
  std::vector<char> bytes(size);
  std::ifstream(source, std::ios::binary).read(bytes.data(), std::streamsize(size));
  for (const double frac : {0.001, 0.01, 0.1, 0.5, 0.9, 0.999}) {
    const fs::path cut = tmp / ("truncated_" + std::to_string(int(frac * 1000)) + ".hdf5");
    std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(double(size) * frac));
    SCOPED_TRACE(cut.filename().string());
    expect_rejected(cut, frac < 0.005 ? "" : "damaged HDF5 file");
  }
}

TEST(FclibReader, RejectsUnsupportedOrInconsistentProblems) {
  TempDir tmp;
  {  // a global problem
    int Mp[3] = {0, 1, 2}, Mi[2] = {0, 1}, Hp[4] = {0, 1, 2, 2}, Hi[2] = {0, 1};
    double Mx[2] = {1, 1}, Hx[2] = {1, 1}, f[2] = {1, 2}, w[3] = {0, 0, 0}, mu[1] = {0.5};
    fclib_matrix M{2, 2, 2, Mp, Mi, Mx, -1, nullptr}, H{2, 2, 3, Hp, Hi, Hx, -1, nullptr};
    fclib_global g{&M, &H, nullptr, mu, f, nullptr, w, 3, nullptr};
    const fs::path file = tmp / "global.hdf5";
    ASSERT_EQ(fclib_write_global(&g, file.string().c_str()), 1);
    expect_rejected(file, "global problem");
  }
  {  // a 2D local problem
    int p[3] = {0, 1, 2}, i[2] = {0, 1};
    double x[2] = {1, 1}, q[2] = {-1, 0}, mu[1] = {0.3};
    fclib_matrix W{2, 2, 2, p, i, x, -1, nullptr};
    fclib_local l{&W, nullptr, nullptr, mu, q, nullptr, 2, nullptr};
    const fs::path file = tmp / "local2d.hdf5";
    ASSERT_EQ(fclib_write_local(&l, file.string().c_str()), 1);
    expect_rejected(file, "spacedim is 2");
  }
  {  // an HDF5 file without any FCLib group
    const fs::path file = tmp / "plain.hdf5";
    const hid_t f = H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    expect_rejected(file, "no /fclib_local group");
  }
  RawFile good;
  good.write(tmp / "good.hdf5");
  EXPECT_EQ(coulomb::read_fclib_local(tmp / "good.hdf5").num_contacts(), 1);

  auto rejected = [&](const char* name, RawFile f, const std::string& words) {
    SCOPED_TRACE(name);
    f.write(tmp / name);
    expect_rejected(tmp / name, words);
  };
  RawFile f = good;
  f.spacedim = 0;  // libfclib would divide by it
  rejected("spacedim0.hdf5", f, "spacedim is 0");
  f = good;  // 4 x 4: not a multiple of 3
  f.m = f.n = 4;
  f.p = {0, 1, 2, 3, 3};
  f.q = {-1, 0, 0, 0};
  rejected("m4.hdf5", f, "not a multiple of 3");
  f = good;
  f.n = 6;
  f.p = {0, 1, 2, 3, 3, 3, 3};
  rejected("nonsquare.hdf5", f, "not square");
  f = good;
  f.q[1] = std::nan("");
  rejected("nan_q.hdf5", f, "q[1] is not finite");
  f = good;
  f.x[2] = INFINITY;
  rejected("inf_w.hdf5", f, "W(2, 2) is not finite");
  f = good;
  f.mu[0] = -0.1;
  rejected("negative_mu.hdf5", f, "is negative");
  f = good;
  f.mu[0] = std::nan("");
  rejected("nan_mu.hdf5", f, "mu[0] is not finite");
  f = good;  // x shorter than nzmax: libfclib would read past its data
  f.x = {1.0, 1.0};
  rejected("short_x.hdf5", f, "/fclib_local/W/x has 2 elements, expected 3");
  f = good;  // more values than libfclib allocates: it would overflow its buffer
  f.q = {-1, 0, 0, 0, 0, 0};
  rejected("long_q.hdf5", f, "/fclib_local/vectors/q has 6 elements, expected 3");
  f = good;
  f.mu = {0.5, 0.5};
  rejected("long_mu.hdf5", f, "/fclib_local/vectors/mu has 2 elements");
  f = good;
  f.i[1] = 3;
  rejected("row_out_of_range.hdf5", f, "row index [1] = 3 is out of range");
  f = good;
  f.p = {0, 2, 1, 3};
  rejected("p_decreasing.hdf5", f, "decreases");
  f = good;
  f.p = {0, 1, 2, 4};
  rejected("p_past_nzmax.hdf5", f, "exceeds nzmax");
  f = good;
  f.nz = -3;
  rejected("storage.hdf5", f, "unknown storage type");
  f = good;  // triplets whose index arrays disagree with nz
  f.nz = 3;
  f.p = {0, 1};
  rejected("triplet_sizes.hdf5", f, "/fclib_local/W/p has 2 elements, expected 3");
  f = good;  // triplet column out of range
  f.nz = 3;
  f.p = {0, 1, 2};
  f.i = {0, 1, 5};
  rejected("triplet_col.hdf5", f, "column index [2] = 5 is out of range");
}

// Element sizes are stored in the file: fuzz_fclib's input (tests/fuzz/corpus/fuzz_fclib/
// finding_float_1983053832_bytes.hdf5) declared mu's float type 1983053832 bytes wide, and reading
// its 4 elements as doubles allocated and cleared gigabytes (over 1 s). Rejected before any read.
TEST(FclibReader, RejectsHugeElementTypes) {
  TempDir tmp;
  // a good file whose dataset `name` in `group` is replaced by one of `n` elements of `type`
  // (no data written: the reader must refuse it from its type alone)
  auto replaced = [&](const char* file, const char* group, const char* name, hid_t type, hsize_t n) {
    RawFile().write(tmp / file);
    const hid_t f = H5Fopen((tmp / file).string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t g = H5Lexists(f, group, H5P_DEFAULT) > 0 ? H5Gopen2(f, group, H5P_DEFAULT)
                                                         : H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (H5Lexists(g, name, H5P_DEFAULT) > 0) H5Ldelete(g, name, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(d, 0) << file;
    H5Dclose(d);
    H5Sclose(space);
    H5Gclose(g);
    H5Fclose(f);
    return tmp / file;
  };
  const hid_t wide_float = H5Tcopy(H5T_IEEE_F64LE);
  ASSERT_GE(H5Tset_size(wide_float, 1983053832), 0);  // the finding's size
  expect_rejected(replaced("wide_mu.hdf5", "/fclib_local/vectors", "mu", wide_float, 1),
                  "/fclib_local/vectors/mu has elements of 1983053832 bytes, expected 1 to 16");
  H5Tclose(wide_float);
  const hid_t wide_int = H5Tcopy(H5T_STD_I32LE);
  ASSERT_GE(H5Tset_size(wide_int, 32), 0);
  expect_rejected(replaced("wide_m.hdf5", "/fclib_local/W", "m", wide_int, 1), "/fclib_local/W/m has elements of 32 bytes");
  H5Tclose(wide_int);
  const hid_t long_string = H5Tcopy(H5T_C_S1);
  ASSERT_GE(H5Tset_size(long_string, std::size_t(1) << 30), 0);
  expect_rejected(replaced("long_title.hdf5", "/fclib_local/info", "title", long_string, 1),
                  "/fclib_local/info/title has elements of 1073741824 bytes, expected 1 to 1048576");
  H5Tclose(long_string);
  // a 16-byte float (long double) is still read
  const hid_t quad = H5Tcopy(H5T_NATIVE_LDOUBLE);
  RawFile().write(tmp / "quad.hdf5");
  {
    const hid_t f = H5Fopen((tmp / "quad.hdf5").string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/fclib_local/vectors/mu", H5P_DEFAULT);
    const hsize_t one = 1;
    const hid_t space = H5Screate_simple(1, &one, nullptr);
    const hid_t d = H5Dcreate2(f, "/fclib_local/vectors/mu", quad, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const long double mu = 0.25L;
    EXPECT_GE(H5Dwrite(d, H5T_NATIVE_LDOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &mu), 0);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
  }
  H5Tclose(quad);
  EXPECT_DOUBLE_EQ(coulomb::read_fclib_local(tmp / "quad.hdf5").mu[0][0], 0.25);
}

// libfclib's H5LTfind_dataset matches dataset names by prefix: fuzz_fclib's input
// (tests/fuzz/corpus/fuzz_fclib/finding_info_title_prefix.hdf5) had a damaged info link named
// "title0..." and no "title", libfclib took it for "title", failed to read it and exited.
TEST(FclibReader, RejectsALinkThatLibfclibWouldTakeForAnotherByPrefix) {
  TempDir tmp;
  RawFile().write(tmp / "prefix.hdf5");
  {
    const hid_t f = H5Fopen((tmp / "prefix.hdf5").string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t info = H5Gcreate2(f, "/fclib_local/info", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(H5LTmake_dataset_string(info, "title_old", "an older title"), 0);
    H5Gclose(info);
    H5Fclose(f);
  }
  expect_rejected(tmp / "prefix.hdf5", "/fclib_local/info/title is missing, but libfclib would take the link 'title_old'");
  // the exact name next to a longer one is read as usual
  {
    const hid_t f = H5Fopen((tmp / "prefix.hdf5").string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(H5LTmake_dataset_string(f, "/fclib_local/info/title", "the title"), 0);
    H5Fclose(f);
  }
  FclibLocalInfo info;
  EXPECT_EQ(coulomb::read_fclib_local(tmp / "prefix.hdf5", &info).num_contacts(), 1);
  EXPECT_EQ(info.title, "the title");
}

// libfclib_merit wants one impulse per contact
TEST(FclibReader, LibfclibMeritChecksTheImpulseCount) {
  TempDir tmp;
  RawFile().write(tmp / "one.hdf5");
  EXPECT_THROW(coulomb::libfclib_merit(tmp / "one.hdf5", std::vector<Vec4>(2, Vec4::Zero())), std::invalid_argument);
  EXPECT_DOUBLE_EQ(coulomb::libfclib_merit(tmp / "one.hdf5", {Vec4(1.0, 0, 0, 0)}), 0.0);  // r = 1 cancels q_n = -1
}

// libhdf5 trusts a file's structure: two of fuzz_fclib's findings crashed it (a SEGV in
// H5Lexists on a damaged symbol-table heap) or made it allocate 4.3 GB, inside H5Lexists, before
// any check of ours could see them. The reader runs in a child process, so both are InputErrors
// of the file, and the caller's process goes on (it reads a good file right after).
TEST(FclibReader, FilesThatBreakLibhdf5AreInputErrors) {
  const fs::path corpus = fs::path(COULOMB_SOURCE_DIR) / "tests/fuzz/corpus/fuzz_fclib";
  expect_rejected(corpus / "finding_hdf5_local_heap_segv.hdf5", "not a valid FCLib local problem");
  try {
    coulomb::read_fclib_local(corpus / "finding_hdf5_local_heap_4gb.hdf5");
    ADD_FAILURE() << "the 4 GB heap file was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), (corpus / "finding_hdf5_local_heap_4gb.hdf5").string());
  }
  EXPECT_THROW(coulomb::libfclib_merit(corpus / "finding_hdf5_local_heap_segv.hdf5", {}), InputError);
  TempDir tmp;
  RawFile().write(tmp / "one.hdf5");
  EXPECT_EQ(coulomb::read_fclib_local(tmp / "one.hdf5").num_contacts(), 1);
}

#endif  // !COULOMB_FCLIB_LONG

// (4) PROX-GS reaches merit 1e-6 on every problem within 100000 iterations (or the documented
// bound of kProxGsHard). fclib_tests (label long) runs them all with that budget; the unit suite
// runs the problems of up to 100 contacts outside kProxGsHard with 5000 iterations (they need
// at most 1744, OneObject), so that it stays fast in sanitizer builds too.
#ifdef COULOMB_FCLIB_LONG
#define FCLIB_PROX_SUITE FclibProxGsAllProblems  // distinct names: CTest sees both executables
#else
#define FCLIB_PROX_SUITE FclibProxGs
#endif
TEST(FCLIB_PROX_SUITE, ReachesMeritOneInAMillion) {
  REQUIRE_FCLIB_DATA();
  if (!coulomb::find_solver("prox-gs")) GTEST_SKIP() << "no solver named prox-gs is registered";
  ASSERT_NE(coulomb::find_solver("prox-gs")->solve_assembled, nullptr);
  for (const fs::path& file : problems()) {
    SCOPED_TRACE(file.filename().string());
    const AssembledProblem p = coulomb::read_fclib_local(file);
#ifdef COULOMB_FCLIB_LONG
    const int budget = 100000;
#else
    const int budget = 5000;
    if (p.num_contacts() > 100 || kProxGsHard.count(file.stem().string())) continue;
#endif
    ContactSolution sol;
    const SolverStats st = solve("prox-gs", p, budget, 1e-12, sol);
    const double theirs = coulomb::libfclib_merit(file, sol.lambda);
    std::cout << "  " << file.stem().string() << ": prox-gs merit " << st.merit << " (libfclib " << theirs
              << ") after " << st.iterations << " iterations, " << st.time_ms << " ms\n";
    const auto hard = kProxGsHard.find(file.stem().string());
    const double bound = hard == kProxGsHard.end() ? 1e-6 : hard->second;
    EXPECT_LE(st.merit, bound);
    EXPECT_LE(theirs, bound);
  }
}

#ifdef COULOMB_FCLIB_LONG
// The README table: PGS at --tol 1e-8 --max-iterations 10000 on every problem; its merit and
// libfclib's agree, and it is below the merit at lambda = 0 except on kPgsBoxCorner.
TEST(FclibPgs, FullBudgetOnEveryProblem) {
  REQUIRE_FCLIB_DATA();
  for (const fs::path& file : problems()) {
    SCOPED_TRACE(file.filename().string());
    const AssembledProblem p = coulomb::read_fclib_local(file);
    const double m0 = our_merit(p, std::vector<Vec4>(std::size_t(p.num_contacts()), Vec4::Zero()));
    ContactSolution sol;
    const SolverStats st = solve("pgs", p, 10000, 1e-8, sol);
    const double theirs = coulomb::libfclib_merit(file, sol.lambda);
    std::cout << "  " << file.stem().string() << ": pgs merit " << st.merit << " (libfclib " << theirs << ") after "
              << st.iterations << " iterations, " << st.time_ms << " ms\n";
    EXPECT_LE(relative_difference(st.merit, theirs), 1e-10);
    if (!pgs_box_corner(file)) {
      EXPECT_LT(st.merit, m0);
    }
  }
}
#endif
