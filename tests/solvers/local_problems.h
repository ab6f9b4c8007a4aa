// Small assembled local problems u = W r + q (FCLib form), shared by the tests of the solvers with
// an assembled form (newton_fclib_test.cpp, honest_convergence_test.cpp).
#pragma once
#include <coulomb/contact_operator.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

namespace coulomb::test {

// A local problem from dense 3x3 blocks of W (nc contacts, mu per contact); zero off-diagonal
// blocks are not stored, the torsion row gets the unit diagonal entry of fclib_io.h.
inline AssembledProblem make_local_problem(const Eigen::MatrixXd& W, const Eigen::VectorXd& q,
                                           const std::vector<double>& mu) {
  const int nc = int(mu.size());
  AssembledProblem p;
  p.row_start.assign(std::size_t(nc) + 1, 0);
  for (int k = 0; k < nc; ++k) {
    for (int j = 0; j < nc; ++j) {
      const Eigen::Matrix3d B = W.block<3, 3>(3 * k, 3 * j);
      if (B.isZero() && j != k) continue;
      Mat4 b = Mat4::Zero();
      b.topLeftCorner<3, 3>() = B;
      if (j == k) b(3, 3) = 1.0;
      p.col.push_back(j);
      p.block.push_back(b);
    }
    p.row_start[std::size_t(k) + 1] = int(p.col.size());
    p.b.push_back(Vec4(q[3 * k], q[3 * k + 1], q[3 * k + 2], 0.0));
    p.mu.push_back(Vec3(mu[std::size_t(k)], mu[std::size_t(k)], 0.0));
  }
  p.finalize();
  return p;
}

// A small coupled problem: W = J M^-1 J^T for random Jacobians of 4 contacts on 2 bodies (SPD in
// general position), some contacts pressed, some separating.
inline AssembledProblem coupled_problem(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  const int nc = 4, dofs = 12;
  Eigen::MatrixXd J(3 * nc, dofs);
  for (int i = 0; i < J.rows(); ++i)
    for (int j = 0; j < dofs; ++j) J(i, j) = g(rng);
  const Eigen::MatrixXd W = J * J.transpose() / dofs;
  Eigen::VectorXd q(3 * nc);
  for (int i = 0; i < q.size(); ++i) q[i] = g(rng);
  q[0] = -1.0;
  q[3] = -0.5;
  q[6] = 0.4;
  return make_local_problem(W, q, {0.3, 0.6, 0.5, 0.8});
}

}  // namespace coulomb::test
