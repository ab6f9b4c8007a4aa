// The linear map lambda -> v = A lambda + b in the two forms the solvers work on
// (seed 000 eq. 18, 22): matrix-free for scenes, assembled for FCLib problems.
//
// Both are small concrete classes with the same four calls, and every solver is a template over
// them (STYLE.md lesson 5: no virtual call in an inner loop):
//   reset(lambda)         make the operator consistent with a whole new lambda
//   velocity(k, lambda)   v_k = (A lambda)_k + b_k for the current lambda
//   applied(k, dlambda)   lambda_k changed by dlambda (Gauss-Seidel bookkeeping)
//   diag(k), b(k), mu(k), size()
#pragma once
#include <coulomb/contact_problem.h>

#include <vector>

namespace coulomb {

// An assembled local problem v = A lambda + b in 4x4 blocks (normal, t, s, tau), stored by block
// rows (BSR). FCLib problems have 3 rows per contact; their torsion row and column are zero and
// mu_tau = 0, with a unit diagonal entry so that no solver divides by zero.
struct AssembledProblem {
  std::vector<int> row_start;   // (nc + 1) first block of each block row
  std::vector<int> col;         // (nnz) block column (contact index)
  std::vector<Mat4> block;      // (nnz) A_kj
  std::vector<Vec4> b;          // (nc)
  std::vector<Vec3> mu;         // (nc) (mu_s, mu_t, mu_tau)
  std::vector<Mat4> A_diag;     // (nc) A_kk, filled by finalize()

  int num_contacts() const { return int(b.size()); }
  void finalize();
};

class MatrixFreeOperator {
 public:
  explicit MatrixFreeOperator(const ContactProblem& p) : p_(p) {}
  int size() const { return p_.num_contacts(); }
  const Mat4& diag(int k) const { return p_.A_diag[std::size_t(k)]; }
  const Vec4& b(int k) const { return p_.b[std::size_t(k)]; }
  const Vec3& mu(int k) const { return p_.mu[std::size_t(k)]; }
  void reset(const std::vector<Vec4>& lambda) { p_.body_impulse_response(lambda, w_); }
  // seed 000 eq. 25: v_k = J_k w + b_k with w = M^-1 J^T lambda kept up to date
  Vec4 velocity(int k, const std::vector<Vec4>&) const {
    const auto i = std::size_t(k);
    return p_.J_a[i] * w_[std::size_t(p_.body_a[i])] + p_.J_b[i] * w_[std::size_t(p_.body_b[i])] + p_.b[i];
  }
  // seed 000 eq. 26
  void applied(int k, const Vec4& dlambda) {
    const auto i = std::size_t(k);
    w_[std::size_t(p_.body_a[i])] += p_.MinvJT_a[i] * dlambda;
    w_[std::size_t(p_.body_b[i])] += p_.MinvJT_b[i] * dlambda;
  }

 private:
  const ContactProblem& p_;
  std::vector<Vec6> w_;
};

class AssembledOperator {
 public:
  explicit AssembledOperator(const AssembledProblem& p) : p_(p) {}
  int size() const { return p_.num_contacts(); }
  const Mat4& diag(int k) const { return p_.A_diag[std::size_t(k)]; }
  const Vec4& b(int k) const { return p_.b[std::size_t(k)]; }
  const Vec3& mu(int k) const { return p_.mu[std::size_t(k)]; }
  void reset(const std::vector<Vec4>&) {}
  Vec4 velocity(int k, const std::vector<Vec4>& lambda) const {
    Vec4 v = p_.b[std::size_t(k)];
    for (int e = p_.row_start[std::size_t(k)]; e < p_.row_start[std::size_t(k) + 1]; ++e)
      v += p_.block[std::size_t(e)] * lambda[std::size_t(p_.col[std::size_t(e)])];
    return v;
  }
  void applied(int, const Vec4&) {}  // velocity() reads lambda itself

 private:
  const AssembledProblem& p_;
};

// All contact velocities v = A lambda + b for a given lambda.
template <class Op>
void all_velocities(Op& op, const std::vector<Vec4>& lambda, std::vector<Vec4>& v) {
  op.reset(lambda);
  v.resize(std::size_t(op.size()));
  for (int k = 0; k < op.size(); ++k) v[std::size_t(k)] = op.velocity(k, lambda);
}

}  // namespace coulomb
