// The CPU launch layer of the Schur-complement kernels (schur_kernels.h): each kernel runs over
// its index range in a oneTBB parallel_for; reductions use parallel_deterministic_reduce with a
// fixed grain, so results do not depend on the thread count. Also the CPU-only back ends:
// Gauss-Seidel and a dense LDLT reference (schur.h).
#include <coulomb/gpu/schur.h>
#include <coulomb/gpu/schur_kernels.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <Eigen/Dense>
#include <stdexcept>
#include <string>

#include "schur_krylov.h"

namespace coulomb::gpu {

void SchurSystem::build_transpose() {
  const int nnz = entries();
  entry_row.assign(std::size_t(nnz), 0);
  for (int r = 0; r < rows; ++r)
    for (int e = entry_start[std::size_t(r)]; e < entry_start[std::size_t(r) + 1]; ++e) entry_row[std::size_t(e)] = r;
  dof_start.assign(std::size_t(dofs) + 1, 0);
  for (int d : entry_dof) ++dof_start[std::size_t(d) + 1];
  for (int i = 0; i < dofs; ++i) dof_start[std::size_t(i) + 1] += dof_start[std::size_t(i)];
  dof_entry.assign(std::size_t(nnz), 0);
  std::vector<int> fill(dof_start.begin(), dof_start.end() - 1);
  for (int e = 0; e < nnz; ++e) dof_entry[std::size_t(fill[std::size_t(entry_dof[std::size_t(e)])]++)] = e;
}

void SchurSystem::validate() const {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("SchurSystem: " + what); };
  if (rows < 0 || dofs < 0) fail("negative size");
  if (int(entry_start.size()) != rows + 1 || entry_start.front() != 0) fail("entry_start");
  const int nnz = entries();
  if (entry_start.back() != nnz || int(entry_J.size()) != 6 * nnz || int(entry_row.size()) != nnz) fail("entries");
  for (int r = 0; r < rows; ++r)
    if (entry_start[std::size_t(r)] > entry_start[std::size_t(r) + 1]) fail("entry_start not sorted");
  for (int d : entry_dof)
    if (d < 0 || d >= dofs) fail("entry_dof out of range");
  if (int(dof_start.size()) != dofs + 1 || int(dof_entry.size()) != nnz) fail("transpose (call build_transpose)");
  if (int(Hinv.size()) != 36 * dofs) fail("Hinv");
  if (int(row_block.size()) != rows || block_start.back() != rows || int(c_start.size()) != blocks()) fail("blocks");
  for (int b = 0; b < blocks(); ++b) {
    const int n = block_start[std::size_t(b) + 1] - block_start[std::size_t(b)];
    if (n < 0 || c_start[std::size_t(b)] < 0 || c_start[std::size_t(b)] + n * n > int(C.size())) fail("compliance");
  }
  for (int r = 0; r < rows; ++r) {
    const int b = row_block[std::size_t(r)];
    if (b < 0 || b >= blocks() || r < block_start[std::size_t(b)] || r >= block_start[std::size_t(b) + 1])
      fail("row_block");
  }
}

namespace {

kernels::SchurView view(const SchurSystem& s) {
  return {s.rows,          s.dofs,          s.entry_start.data(), s.entry_dof.data(), s.entry_row.data(),
          s.entry_J.data(), s.dof_start.data(), s.dof_entry.data(), s.Hinv.data(),      s.row_block.data(),
          s.block_start.data(), s.c_start.data(), s.C.data()};
}

template <class F>
void for_each(int n, int grain, const F& f) {
  tbb::parallel_for(tbb::blocked_range<int>(0, n, std::size_t(grain)), [&](const tbb::blocked_range<int>& r) {
    for (int i = r.begin(); i < r.end(); ++i) f(i);
  });
}

constexpr int kGrain = 256;

// The CPU backend of schur_krylov.h.
class CpuBackend {
 public:
  using Vec = std::vector<double>;
  explicit CpuBackend(const SchurSystem& s) : s_(s), v_(view(s)), z_(6 * std::size_t(s.dofs)), d_(std::size_t(s.rows)) {
    for_each(s.rows, kGrain, [&](int r) { kernels::diagonal(v_, r, d_.data()); });
  }
  Vec vec() const { return Vec(std::size_t(s_.rows), 0.0); }
  void product(const Vec& x, Vec& y) {
    for_each(s_.dofs, kGrain, [&](int i) { kernels::hinv_jt(v_, i, x.data(), z_.data()); });
    for_each(s_.rows, kGrain, [&](int r) { kernels::j_plus_c(v_, r, z_.data(), x.data(), y.data()); });
  }
  double dot(const Vec& a, const Vec& b) const {
    return tbb::parallel_deterministic_reduce(
        tbb::blocked_range<std::size_t>(0, a.size(), 1024), 0.0,
        [&](const tbb::blocked_range<std::size_t>& r, double acc) {
          for (std::size_t i = r.begin(); i < r.end(); ++i) acc += a[i] * b[i];
          return acc;
        },
        [](double x, double y) { return x + y; });
  }
  void axpy(double a, const Vec& x, Vec& y) { for_each(s_.rows, 4096, [&](int i) { kernels::axpy(i, a, x.data(), y.data()); }); }
  void xpby(const Vec& x, double b, Vec& y) { for_each(s_.rows, 4096, [&](int i) { kernels::xpby(i, x.data(), b, y.data()); }); }
  void precondition(const Vec& x, Vec& y) {
    for_each(s_.rows, 4096, [&](int i) { kernels::precondition(i, d_.data(), x.data(), y.data()); });
  }
  void residual(const Vec& b, const Vec& y, Vec& r) {
    for_each(s_.rows, 4096, [&](int i) { kernels::residual(i, b.data(), y.data(), r.data()); });
  }
  void jacobi_update(double omega, const Vec& b, const Vec& y, Vec& x) {
    for_each(s_.rows, 4096, [&](int i) { kernels::jacobi_update(i, omega, d_.data(), b.data(), y.data(), x.data()); });
  }
  void copy(const Vec& src, Vec& dst) { dst = src; }

 private:
  const SchurSystem& s_;
  kernels::SchurView v_;
  Vec z_, d_;
};

double norm(const std::vector<double>& v) { return Eigen::Map<const Eigen::VectorXd>(v.data(), Eigen::Index(v.size())).norm(); }

// Gauss-Seidel over the rows, matrix-free: z = H^-1 J^T x is kept up to date as each x_r changes,
// so (A x)_r = J_r z + (C x)_r costs one row (the PGS structure of the velocity solvers).
LinearResult gauss_seidel(const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x,
                          const LinearOptions& o) {
  const kernels::SchurView v = view(s);
  LinearResult res;
  res.rhs_norm = norm(b);
  std::vector<double> z(6 * std::size_t(s.dofs)), d(std::size_t(s.rows)), y(std::size_t(s.rows)), r(b.size());
  for (int i = 0; i < s.dofs; ++i) kernels::hinv_jt(v, i, x.data(), z.data());
  for (int i = 0; i < s.rows; ++i) kernels::diagonal(v, i, d.data());
  const auto true_residual = [&] {
    schur_product(s, x.data(), y.data());
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - y[i];
    return norm(r);
  };
  double rn = true_residual();
  while (res.iterations < o.max_iterations && rn > o.rel_tol * res.rhs_norm) {
    for (int row = 0; row < s.rows; ++row) {
      if (!(d[std::size_t(row)] > 0.0)) continue;
      const double Ax = kernels::row_product(v, row, z.data(), x.data());
      const double delta = (b[std::size_t(row)] - Ax) / d[std::size_t(row)];
      x[std::size_t(row)] += delta;
      for (int e = s.entry_start[std::size_t(row)]; e < s.entry_start[std::size_t(row) + 1]; ++e) {
        const int i = s.entry_dof[std::size_t(e)];
        const double* H = s.Hinv.data() + 36 * i;
        const double* J = s.entry_J.data() + 6 * e;
        for (int a = 0; a < 6; ++a) {
          double t = 0.0;
          for (int c = 0; c < 6; ++c) t += H[6 * a + c] * J[c];
          z[6 * std::size_t(i) + std::size_t(a)] += t * delta;
        }
      }
    }
    rn = true_residual();
    ++res.iterations;
    if (o.record_history) res.history.push_back(rn);
  }
  res.residual = rn;
  return res;
}

// The reference: A assembled column by column from the products, then a dense LDLT solve
// (robust for the semi-definite systems of redundant contacts, seed 003 s.8.2).
LinearResult direct(const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x) {
  const int n = s.rows;
  Eigen::MatrixXd A(n, n);
  std::vector<double> e(std::size_t(n), 0.0);
  std::vector<double> col(std::size_t(n), 0.0);
  for (int j = 0; j < n; ++j) {
    e[std::size_t(j)] = 1.0;
    schur_product(s, e.data(), col.data());
    A.col(j) = Eigen::Map<const Eigen::VectorXd>(col.data(), n);
    e[std::size_t(j)] = 0.0;
  }
  const Eigen::Map<const Eigen::VectorXd> bb(b.data(), n);
  const Eigen::VectorXd sol = A.ldlt().solve(bb);
  for (int i = 0; i < n; ++i) x[std::size_t(i)] = sol[i];
  LinearResult res;
  res.iterations = 1;
  res.rhs_norm = bb.norm();
  res.residual = (bb - A * sol).norm();
  return res;
}

}  // namespace

void schur_product(const SchurSystem& s, const double* x, double* y) {
  const kernels::SchurView v = view(s);
  std::vector<double> z(6 * std::size_t(s.dofs));
  for_each(s.dofs, kGrain, [&](int i) { kernels::hinv_jt(v, i, x, z.data()); });
  for_each(s.rows, kGrain, [&](int r) { kernels::j_plus_c(v, r, z.data(), x, y); });
}

void schur_diagonal(const SchurSystem& s, double* d) {
  const kernels::SchurView v = view(s);
  for_each(s.rows, kGrain, [&](int r) { kernels::diagonal(v, r, d); });
}

LinearResult solve_linear(Device device, const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x,
                          const LinearOptions& o) {
  if (int(b.size()) != s.rows) throw std::invalid_argument("solve_linear: b has the wrong size");
  x.resize(b.size(), 0.0);
  if (s.rows == 0) return {};
  if (device == Device::Cuda) {
    if (o.method == LinearSolver::GaussSeidel || o.method == LinearSolver::Direct)
      throw std::invalid_argument("solve_linear: Gauss-Seidel and direct run on the CPU only");
    return solve_linear_cuda(s, b, x, o);
  }
  switch (o.method) {
    case LinearSolver::GaussSeidel: return gauss_seidel(s, b, x, o);
    case LinearSolver::Direct: return direct(s, b, x);
    default: break;
  }
  CpuBackend be(s);
  switch (o.method) {
    case LinearSolver::Cg: return krylov::cg(be, b, x, o);
    case LinearSolver::Jacobi: return krylov::jacobi(be, b, x, o);
    default: return krylov::pcr(be, b, x, o);
  }
}

}  // namespace coulomb::gpu
