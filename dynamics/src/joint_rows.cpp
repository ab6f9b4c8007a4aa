
// Velocity-level joint rows: assembly from the constraint interface and the derived blocks.
#include <coulomb/constraints.h>
#include <coulomb/joint_rows.h>

#include <Eigen/Eigenvalues>
#include <cmath>

namespace coulomb {

namespace {

using BlockMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxBlockRows, kMaxBlockRows>;

// E^-1 of a joint's small equality block (m <= 8) by its Cholesky factor E = L L^T, written out:
// Eigen's LLT solve and condition estimate take their general blocked paths even at these sizes,
// which dominate a small joint's assembly. False where a pivot falls to 1e-12 of the largest diagonal entry: E is
// singular or nearly (redundant rows, a joint to a body that cannot move).
bool cholesky_inverse(const BlockMatrix& E, BlockMatrix& inv) {
  const int m = int(E.rows());
  const double tol = 1e-12 * E.diagonal().maxCoeff();
  BlockMatrix L = BlockMatrix::Zero(m, m), Li = BlockMatrix::Zero(m, m);
  for (int j = 0; j < m; ++j) {
    double d = E(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    if (!(d > tol)) return false;
    L(j, j) = std::sqrt(d);
    for (int i = j + 1; i < m; ++i) {
      double s = E(i, j);
      for (int k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
      L(i, j) = s / L(j, j);
    }
  }
  for (int j = 0; j < m; ++j) {  // L^-1 by forward substitution
    Li(j, j) = 1.0 / L(j, j);
    for (int i = j + 1; i < m; ++i) {
      double s = 0.0;
      for (int k = j; k < i; ++k) s -= L(i, k) * Li(k, j);
      Li(i, j) = s / L(i, i);
    }
  }
  inv.resize(m, m);  // E^-1 = L^-T L^-1
  for (int r = 0; r < m; ++r)
    for (int c = r; c < m; ++c) {
      double s = 0.0;
      for (int k = c; k < m; ++k) s += Li(k, r) * Li(k, c);
      inv(r, c) = inv(c, r) = s;
    }
  return true;
}

// The inverse of a joint's equality block, or where it is singular its pseudo-inverse, which
// keeps the solve defined (it then moves nothing along the null space).
BlockMatrix equality_inverse(const BlockMatrix& E) {
  const int m = int(E.rows());
  BlockMatrix inv = BlockMatrix::Zero(m, m);
  if (m == 0 || !(E.diagonal().maxCoeff() > 0.0) || cholesky_inverse(E, inv)) return inv;
  Eigen::SelfAdjointEigenSolver<BlockMatrix> es(E);
  const double cut = 1e-12 * es.eigenvalues().cwiseAbs().maxCoeff();
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxBlockRows, 1> d = es.eigenvalues();
  for (int i = 0; i < m; ++i) d[i] = d[i] > cut ? 1.0 / d[i] : 0.0;
  return es.eigenvectors() * d.asDiagonal() * es.eigenvectors().transpose();
}

}  // namespace

void JointRows::clear() {
  body_a.clear();
  body_b.clear();
  row_start.assign(1, 0);
  J_a.clear();
  J_b.clear();
  b.clear();
  eps.clear();
  lo.clear();
  hi.clear();
  MinvJT_a.clear();
  MinvJT_b.clear();
  equality_rows.clear();
  block_start.assign(1, 0);
  inverse_start.assign(1, 0);
  block.clear();
  inverse.clear();
}

void JointRows::add_joint(int a, int b_body, const BlockRows& rows, const std::vector<Vec6>& u_free, double dt,
                          int coordinate_row) {
  body_a.push_back(a);
  body_b.push_back(b_body);
  const auto columns = [&](int body, int r) {
    if (body < 0) return Vec6(Vec6::Zero());
    for (int d = 0; d < rows.dofs; ++d)
      if (rows.dof[std::size_t(d)] == body) return Vec6(rows.J.block<1, 6>(r, 6 * d).transpose());
    return Vec6(Vec6::Zero());
  };
  for (int r = 0; r < rows.rows; ++r) {
    const Vec6 ja = columns(a, r), jb = columns(b_body, r);
    double v = (coordinate_row >= 0 && r >= coordinate_row ? 1.0 : kJointErrorReduction) * rows.value[r] / dt;
    if (a >= 0) v += ja.dot(u_free[std::size_t(a)]);
    if (b_body >= 0) v += jb.dot(u_free[std::size_t(b_body)]);
    J_a.push_back(ja);
    J_b.push_back(jb);
    b.push_back(v);
    eps.push_back(rows.compliance(r, r) / (dt * dt));
    // bounds on the row's force, as impulses over the step (0 and infinity stay as they are)
    const bool forces = rows.kind[std::size_t(r)] == RowKind::Actuator;
    lo.push_back(forces ? rows.lo[r] * dt : rows.lo[r]);
    hi.push_back(forces ? rows.hi[r] * dt : rows.hi[r]);
  }
  row_start.push_back(int(b.size()));
}

void JointRows::finalize(const std::vector<double>& inv_mass, const std::vector<Mat3>& inv_inertia) {
  const int nr = rows();
  MinvJT_a.assign(std::size_t(nr), Vec6::Zero());
  MinvJT_b.assign(std::size_t(nr), Vec6::Zero());
  const auto minv = [&](int body, const Vec6& J) {
    Vec6 out = Vec6::Zero();
    if (body < 0) return out;
    out.head<3>() = inv_mass[std::size_t(body)] * J.head<3>();
    out.tail<3>() = inv_inertia[std::size_t(body)] * J.tail<3>();
    return out;
  };
  equality_rows.clear();
  block_start.assign(1, 0);
  inverse_start.assign(1, 0);
  block.clear();
  inverse.clear();
  for (int j = 0; j < count(); ++j) {
    const int r0 = row_start[std::size_t(j)], n = rows_of(j);
    for (int r = r0; r < r0 + n; ++r) {
      MinvJT_a[std::size_t(r)] = minv(body_a[std::size_t(j)], J_a[std::size_t(r)]);
      MinvJT_b[std::size_t(r)] = minv(body_b[std::size_t(j)], J_b[std::size_t(r)]);
    }
    // at most kMaxBlockRows: on the stack, no allocation a joint a step
    BlockMatrix A(n, n);
    for (int r = 0; r < n; ++r)
      for (int s = 0; s < n; ++s)
        A(r, s) = J_a[std::size_t(r0 + r)].dot(MinvJT_a[std::size_t(r0 + s)]) +
                  J_b[std::size_t(r0 + r)].dot(MinvJT_b[std::size_t(r0 + s)]) + (r == s ? eps[std::size_t(r0 + r)] : 0.0);
    int m = 0;
    while (m < n && std::isinf(lo[std::size_t(r0 + m)]) && std::isinf(hi[std::size_t(r0 + m)])) ++m;
    equality_rows.push_back(m);
    for (int r = 0; r < n; ++r)
      for (int s = 0; s < n; ++s) block.push_back(A(r, s));
    block_start.push_back(int(block.size()));
    const BlockMatrix Einv = equality_inverse(A.topLeftCorner(m, m));
    for (int r = 0; r < m; ++r)
      for (int s = 0; s < m; ++s) inverse.push_back(Einv(r, s));
    inverse_start.push_back(int(inverse.size()));
  }
}

void JointRows::add_impulse_response(const std::vector<double>& lambda, std::vector<Vec6>& w) const {
  for (int j = 0; j < count(); ++j) {
    const int a = body_a[std::size_t(j)], bb = body_b[std::size_t(j)];
    for (int r = row_start[std::size_t(j)]; r < row_start[std::size_t(j) + 1]; ++r) {
      const double l = lambda[std::size_t(r)];
      if (l == 0.0) continue;
      if (a >= 0) w[std::size_t(a)] += MinvJT_a[std::size_t(r)] * l;
      if (bb >= 0) w[std::size_t(bb)] += MinvJT_b[std::size_t(r)] * l;
    }
  }
}

void JointRows::append_from(const JointRows& o, int j, int a_local, int b_local) {
  body_a.push_back(a_local);
  body_b.push_back(b_local);
  for (int r = o.row_start[std::size_t(j)]; r < o.row_start[std::size_t(j) + 1]; ++r) {
    const auto i = std::size_t(r);
    J_a.push_back(o.J_a[i]);
    J_b.push_back(o.J_b[i]);
    b.push_back(o.b[i]);
    eps.push_back(o.eps[i]);
    lo.push_back(o.lo[i]);
    hi.push_back(o.hi[i]);
  }
  row_start.push_back(int(b.size()));
}

}  // namespace coulomb
