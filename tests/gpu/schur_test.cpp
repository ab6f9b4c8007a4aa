// The Schur-complement kernels and linear solvers of gpu/schur.h against a dense reference:
// A = J H^-1 J^T + C assembled with Eigen from the same random system (seed 003 eq. 59).
// Where CUDA is available the device runs the same solves and is compared within 1e-10
// (relative); elsewhere those tests skip.
#include <coulomb/gpu/schur.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

namespace coulomb::gpu {
namespace {

struct Dense {
  Eigen::MatrixXd J, Hinv, C;  // J: rows x 6 dofs
};

// A random system: `blocks` constraint blocks of 1-3 rows, each touching 1-2 of `dofs` DOFs,
// H^-1 blocks symmetric positive definite (some DOFs fixed: zero), C blocks symmetric PSD.
SchurSystem random_system(int dofs, int blocks, unsigned seed, Dense& d) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  SchurSystem s;
  s.dofs = dofs;
  s.Hinv.assign(36 * std::size_t(dofs), 0.0);
  d.Hinv = Eigen::MatrixXd::Zero(6 * dofs, 6 * dofs);
  for (int i = 0; i < dofs; ++i) {
    if (i % 7 == 3) continue;  // a fixed DOF
    Eigen::Matrix<double, 6, 6> B;
    for (int a = 0; a < 36; ++a) B.data()[a] = U(rng);
    const Eigen::Matrix<double, 6, 6> H = B * B.transpose() + 0.5 * Eigen::Matrix<double, 6, 6>::Identity();
    Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(s.Hinv.data() + 36 * i) = H;
    d.Hinv.block<6, 6>(6 * i, 6 * i) = H;
  }
  std::vector<std::vector<double>> Jrows;
  for (int b = 0; b < blocks; ++b) {
    const int n = 1 + int(rng() % 3);
    const int d0 = int(rng() % unsigned(dofs)), d1 = int(rng() % unsigned(dofs));
    s.c_start.push_back(int(s.C.size()));
    Eigen::MatrixXd Bc = Eigen::MatrixXd::Random(n, n) * 0.1;
    const Eigen::MatrixXd Cb = Bc * Bc.transpose();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) s.C.push_back(Cb(i, j));
    for (int i = 0; i < n; ++i) {
      std::vector<double> row(6 * std::size_t(dofs), 0.0);
      for (int dof : {d0, d1}) {
        if (dof == d1 && d1 == d0) break;
        s.entry_dof.push_back(dof);
        for (int c = 0; c < 6; ++c) {
          const double v = U(rng);
          s.entry_J.push_back(v);
          row[6 * std::size_t(dof) + std::size_t(c)] = v;
        }
      }
      s.entry_start.push_back(int(s.entry_dof.size()));
      s.row_block.push_back(b);
      Jrows.push_back(row);
    }
    s.block_start.push_back(int(Jrows.size()));
  }
  s.rows = int(Jrows.size());
  s.build_transpose();
  d.J = Eigen::MatrixXd::Zero(s.rows, 6 * dofs);
  d.C = Eigen::MatrixXd::Zero(s.rows, s.rows);
  for (int r = 0; r < s.rows; ++r) d.J.row(r) = Eigen::Map<const Eigen::RowVectorXd>(Jrows[std::size_t(r)].data(), 6 * dofs);
  for (int b = 0; b < s.blocks(); ++b) {
    const int r0 = s.block_start[std::size_t(b)], n = s.block_start[std::size_t(b) + 1] - r0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) d.C(r0 + i, r0 + j) = s.C[std::size_t(s.c_start[std::size_t(b)] + i * n + j)];
  }
  return s;
}

Eigen::MatrixXd dense_A(const Dense& d) { return d.J * d.Hinv * d.J.transpose() + d.C; }

TEST(Schur, ProductAndDiagonalMatchTheAssembledMatrix) {
  Dense d;
  const SchurSystem s = random_system(40, 60, 1, d);
  ASSERT_NO_THROW(s.validate());
  const Eigen::MatrixXd A = dense_A(d);
  const Eigen::VectorXd x = Eigen::VectorXd::Random(s.rows);
  std::vector<double> y(std::size_t(s.rows)), diag(std::size_t(s.rows));
  schur_product(s, x.data(), y.data());
  schur_diagonal(s, diag.data());
  const Eigen::VectorXd ref = A * x;
  for (int r = 0; r < s.rows; ++r) {
    EXPECT_NEAR(y[std::size_t(r)], ref[r], 1e-12 * (1.0 + std::abs(ref[r])));
    EXPECT_NEAR(diag[std::size_t(r)], A(r, r), 1e-12 * (1.0 + A(r, r)));
  }
}

TEST(Schur, EverySolverReducesTheResidualOfAPositiveDefiniteSystem) {
  Dense d;
  const SchurSystem s = random_system(30, 40, 2, d);
  const Eigen::MatrixXd A = dense_A(d) + 1e-3 * Eigen::MatrixXd::Identity(s.rows, s.rows);
  // put the shift into C's diagonal so that the kernels see the same matrix
  SchurSystem sh = s;
  for (int b = 0; b < sh.blocks(); ++b) {
    const int r0 = sh.block_start[std::size_t(b)], n = sh.block_start[std::size_t(b) + 1] - r0;
    for (int i = 0; i < n; ++i) sh.C[std::size_t(sh.c_start[std::size_t(b)] + i * n + i)] += 1e-3;
  }
  const Eigen::VectorXd xref = Eigen::VectorXd::Random(s.rows);
  const Eigen::VectorXd bref = A * xref;
  const std::vector<double> b(bref.data(), bref.data() + bref.size());
  for (LinearSolver m : {LinearSolver::Pcr, LinearSolver::Cg, LinearSolver::Direct}) {
    LinearOptions o;
    o.method = m;
    o.max_iterations = 2000;
    o.rel_tol = 1e-12;
    std::vector<double> x(b.size(), 0.0);
    const LinearResult r = solve_linear(Device::Cpu, sh, b, x, o);
    const Eigen::Map<const Eigen::VectorXd> xs(x.data(), Eigen::Index(x.size()));
    EXPECT_LE(r.residual, 1e-10 * r.rhs_norm) << int(m);
    EXPECT_LE((xs - xref).norm(), 1e-6 * xref.norm()) << int(m);
    EXPECT_LE((A * xs - bref).norm(), 1e-9 * bref.norm()) << int(m);
  }
  // the relaxations converge slowly on this coupled system: they must reduce the residual
  for (LinearSolver m : {LinearSolver::Jacobi, LinearSolver::GaussSeidel}) {
    LinearOptions o;
    o.method = m;
    o.max_iterations = 50;
    o.rel_tol = 0.0;
    o.jacobi_omega = 0.3;
    std::vector<double> x(b.size(), 0.0);
    const LinearResult r = solve_linear(Device::Cpu, sh, b, x, o);
    EXPECT_EQ(r.iterations, 50);
    EXPECT_LT(r.residual, 0.9 * r.rhs_norm) << int(m);
  }
}

TEST(Schur, PcrResidualDecreasesMonotonicallyOnASingularSystem) {
  // seed 003 s.8.2: redundant constraints make A singular (here: every row duplicated, C = 0);
  // PCR still decreases ||b - A x|| at every iteration (eq. 69), CG need not
  Dense d;
  SchurSystem s = random_system(20, 15, 3, d);
  std::fill(s.C.begin(), s.C.end(), 0.0);
  SchurSystem dup = s;
  const int m = s.rows;
  for (int r = 0; r < m; ++r) {  // row r + m copies row r, in a block of its own
    for (int e = s.entry_start[std::size_t(r)]; e < s.entry_start[std::size_t(r) + 1]; ++e) {
      dup.entry_dof.push_back(s.entry_dof[std::size_t(e)]);
      dup.entry_J.insert(dup.entry_J.end(), s.entry_J.begin() + 6 * e, s.entry_J.begin() + 6 * e + 6);
    }
    dup.entry_start.push_back(int(dup.entry_dof.size()));
    dup.row_block.push_back(dup.blocks());
    dup.c_start.push_back(int(dup.C.size()));
    dup.C.push_back(0.0);
    dup.block_start.push_back(m + r + 1);
  }
  dup.rows = 2 * m;
  dup.build_transpose();
  ASSERT_NO_THROW(dup.validate());
  // a consistent right-hand side: b = A x for some x
  std::vector<double> x0(std::size_t(dup.rows)), b(std::size_t(dup.rows));
  for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = std::sin(double(i));
  schur_product(dup, x0.data(), b.data());
  LinearOptions o;
  o.max_iterations = 60;
  o.rel_tol = 0.0;
  o.record_history = true;
  std::vector<double> x(b.size(), 0.0);
  const LinearResult r = solve_linear(Device::Cpu, dup, b, x, o);
  ASSERT_GE(r.history.size(), 10u);
  for (std::size_t i = 1; i < r.history.size(); ++i)  // (above round-off)
    if (r.history[i - 1] > 1e-10 * r.rhs_norm) {
      EXPECT_LE(r.history[i], r.history[i - 1] * (1.0 + 1e-9)) << i;
    }
  EXPECT_LT(r.residual, 1e-6 * r.rhs_norm);
}

TEST(Schur, ValidateNamesTheBrokenArray) {
  Dense d;
  SchurSystem s = random_system(5, 4, 4, d);
  s.entry_dof[0] = 99;
  try {
    s.validate();
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("entry_dof"), std::string::npos) << e.what();
  }
}

TEST(Schur, CudaMatchesTheCpuKernels) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device here";
  Dense d;
  const SchurSystem s = random_system(200, 300, 5, d);
  std::vector<double> b(std::size_t(s.rows));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(double(i));
  for (LinearSolver m : {LinearSolver::Pcr, LinearSolver::Cg, LinearSolver::Jacobi}) {
    LinearOptions o;
    o.method = m;
    o.max_iterations = 30;
    o.rel_tol = 0.0;
    o.jacobi_omega = 0.3;
    std::vector<double> xc(b.size(), 0.0), xg(b.size(), 0.0);
    const LinearResult rc = solve_linear(Device::Cpu, s, b, xc, o);
    const LinearResult rg = solve_linear(Device::Cuda, s, b, xg, o);
    EXPECT_EQ(rc.iterations, rg.iterations);
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < xc.size(); ++i) {
      diff = std::max(diff, std::abs(xc[i] - xg[i]));
      norm = std::max(norm, std::abs(xc[i]));
    }
    EXPECT_LE(diff, 1e-10 * norm) << int(m);
  }
}

TEST(Schur, CudaWithoutADeviceIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  Dense d;
  const SchurSystem s = random_system(5, 4, 6, d);
  std::vector<double> b(std::size_t(s.rows), 1.0), x;
  EXPECT_THROW(solve_linear(Device::Cuda, s, b, x, LinearOptions{}), std::runtime_error);
}

}  // namespace
}  // namespace coulomb::gpu
