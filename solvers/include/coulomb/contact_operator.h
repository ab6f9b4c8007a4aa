// The linear map lambda -> v = A lambda + b in the two forms the solvers work on
// (seed 000 eq. 18, 22): matrix-free for scenes, assembled for FCLib problems.
//
// Both are small concrete classes with the same calls, and every solver is a template over
// them (STYLE.md lesson 5: no virtual call in an inner loop):
//   size(), diag(k), b(k), mu(k)   the problem's blocks
//   reset(lambda), clear()         make the operator consistent with a whole new lambda (clear:
//                                  with zero, for a reset contact by contact through applied())
//   velocity(k, lambda)            v_k = (A lambda)_k + b_k for the current lambda
//   applied(k, dlambda)            lambda_k changed by dlambda (Gauss-Seidel bookkeeping)
//   prefetch(k), prefetch_contact(k)   hints for the sweep layer (solvers/src/sweep.h)
//   joint_rows(), joint_scale(), sweep_joints<GaussSeidel>(...)   the joint rows
// The matrix-free operator also keeps w = M^-1 J^T lambda per body: copy_response() and
// set_response() read and restore it.
#pragma once
#include <coulomb/contact_problem.h>

#include <algorithm>
#include <cmath>
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

// The assembled form of a (finalized) ContactProblem's contacts: A = J M^-1 J^T in 4x4 blocks,
// A_kj = sum over the moving bodies that contacts k and j share of J_k M^-1 J_j^T (a fixed body
// couples nothing), with b and mu copied. Joint rows are not part of it. Throws
// std::invalid_argument if the problem is not finalized.
AssembledProblem assembled_problem(const ContactProblem& p);

// The result of one pass over the joint rows.
struct JointSweep {
  double max_delta = 0.0;   // ||lambda^{k+1} - lambda^k||_inf over the joint rows
  double max_lambda = 0.0;  // ||lambda^{k+1}||_inf
};

class MatrixFreeOperator {
 public:
  // joint_lambda: the joint rows' impulses that w includes (null: no joints are solved)
  explicit MatrixFreeOperator(const ContactProblem& p, const std::vector<double>* joint_lambda = nullptr)
      : p_(p), joint_lambda_(joint_lambda), kept_(p.keeps_angular()) {}
  int size() const { return p_.num_contacts(); }
  const Mat4& diag(int k) const { return p_.A_diag[std::size_t(k)]; }
  const Vec4& b(int k) const { return p_.b[std::size_t(k)]; }
  const Vec3& mu(int k) const { return p_.mu[std::size_t(k)]; }
  void reset(const std::vector<Vec4>& lambda) {
    if (joint_lambda_) p_.body_impulse_response(lambda, *joint_lambda_, response_);
    else p_.body_impulse_response(lambda, response_);
    w_.resize(response_.size());
    for (std::size_t i = 0; i < response_.size(); ++i) w_[i].v = response_[i];
  }
  // w = 0 for every body: the start of a reset done contact by contact with applied()
  // (colored_reset in solvers/src/sweep_team.h)
  void clear() {
    w_.resize(std::size_t(p_.num_bodies()));
    for (BodyVelocity& b : w_) b.v.setZero();
  }
  int joint_rows() const { return joint_lambda_ ? p_.joints.rows() : 0; }
  // w set to a copy copy_response took: a windowed solve going back to where a wavefront began
  // (solvers/src/banded_sweeps.h)
  void set_response(const std::vector<Vec6>& w) {
    w_.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) w_[i].v = w[i];
  }
  // w as the sweeps left it (ContactSolution::response): current after every solver's exit
  void copy_response(std::vector<Vec6>& out) const {
    out.resize(w_.size());
    for (std::size_t i = 0; i < w_.size(); ++i) out[i] = w_[i].v;
  }
  // The joint rows' impulse scale: max_r |lambda_r| and |b_r| / A_rr (PROX's divergence test
  // compares its first sweep with a multiple of it)
  double joint_scale() const {
    double s = 0.0;
    const JointRows& J = p_.joints;
    if (!joint_lambda_ || joint_lambda_->size() != std::size_t(J.rows())) return s;
    for (int j = 0; j < J.count(); ++j) {
      const int r0 = J.row_start[std::size_t(j)], n = J.rows_of(j);
      const double* A = J.block.data() + J.block_start[std::size_t(j)];
      for (int r = 0; r < n; ++r) {
        const auto i = std::size_t(r0 + r);
        s = std::max(s, std::abs((*joint_lambda_)[i]));
        if (A[r * n + r] > 0.0) s = std::max(s, std::abs(J.b[i]) / A[r * n + r]);
      }
    }
    return s;
  }
  // One pass over the joints (dynamics/joint_rows.h) from the impulses `from` (those w holds)
  // into `to`: per joint, the block solve of its equality rows, then its limit rows one by one,
  // lambda_r <- max(0, lambda_r - v_r / A_rr); each step scaled by `scale` (PROX's r back-tracking;
  // 1 = exact). GaussSeidel: w follows every change and `from` may alias `to`; Jacobi: every
  // joint reads w of lambda^k and w is left alone (the caller resets it).
  template <bool GaussSeidel>
  JointSweep sweep_joints(const std::vector<double>& from, std::vector<double>& to, double scale);
  // seed 000 eq. 25: v_k = J_k w + b_k with w = M^-1 J^T lambda kept up to date; reads the
  // contact's compact blocks (ContactRows), both bodies' w and b_k only. Always inlined: GCC
  // left it a call inside the sweeps, its 4-vector returned through memory (issue 12).
  [[gnu::always_inline]] Vec4 velocity(int k, const std::vector<Vec4>&) const {
    const auto i = std::size_t(k);
    return p_.rows[i].velocity(w_[std::size_t(p_.body_a[i])].v, w_[std::size_t(p_.body_b[i])].v) + p_.b[i];
  }
  // Asks for contact k's bodies' w lines for writing (PREFETCHW) and, where the problem keeps no
  // I^-1 A^T, their inverse inertias (a hint, nothing changes).
  [[gnu::always_inline]] void prefetch(int k) const {
#if defined(__x86_64__)
    const auto i = std::size_t(k);
    __asm__ volatile("prefetchw %0" : : "m"(w_[std::size_t(p_.body_a[i])]));
    __asm__ volatile("prefetchw %0" : : "m"(w_[std::size_t(p_.body_b[i])]));
    if (!kept_) {
      const auto inertia = [](const Mat3& I) {  // 72 bytes: the two lines it may span
        __builtin_prefetch(I.data());
        __builtin_prefetch(I.data() + 8);
      };
      inertia(p_.inv_inertia[std::size_t(p_.body_a[i])]);
      inertia(p_.inv_inertia[std::size_t(p_.body_b[i])]);
    }
#else
    (void)k;
#endif
  }
  // Asks for contact k's own data (its ContactRows, A_kk, b, mu and body indices) ahead of its
  // visit: a colour lists its contacts far apart in memory, where the hardware prefetchers do not
  // follow.
  [[gnu::always_inline]] void prefetch_contact(int k) const {
    const auto i = std::size_t(k);
    const char* rows = reinterpret_cast<const char*>(&p_.rows[i]);
    for (std::size_t off = 0; off < sizeof(ContactRows); off += 64) __builtin_prefetch(rows + off);
    const char* a = reinterpret_cast<const char*>(&p_.A_diag[i]);
    __builtin_prefetch(a);
    __builtin_prefetch(a + 64);
    __builtin_prefetch(&p_.b[i]);
    __builtin_prefetch(&p_.mu[i]);
    __builtin_prefetch(&p_.body_a[i]);
    __builtin_prefetch(&p_.body_b[i]);
    if (kept_) {
      const char* m = reinterpret_cast<const char*>(&p_.angular[i]);
      for (std::size_t off = 0; off < sizeof(AngularResponse); off += 64) __builtin_prefetch(m + off);
    }
  }
  // seed 000 eq. 26. A fixed body's w stays zero (its M^-1 J^T is zero) and is not written, so
  // that contacts of one colour (contact_coloring.h) may share it while they run in parallel.
  [[gnu::always_inline]] void applied(int k, const Vec4& dlambda) {
    const auto i = std::size_t(k);
    const ContactRows& r = p_.rows[i];
    p_.add_responses(i, dlambda, r.inv_mass_a > 0.0 ? &w_[std::size_t(p_.body_a[i])].v : nullptr,
                     r.inv_mass_b > 0.0 ? &w_[std::size_t(p_.body_b[i])].v : nullptr, kept_);
  }

 private:
  const ContactProblem& p_;
  const std::vector<double>* joint_lambda_ = nullptr;
  bool kept_ = false;  // p_.keeps_angular(): each contact's I^-1 A^T kept, else the bodies' I^-1
  // w per body on a cache line of its own: 48-byte Vec6s packed two to a line would make the
  // threads of a colour stage (contact_coloring.h), which write different bodies, write the same
  // lines
  struct alignas(64) BodyVelocity {
    Vec6 v;
  };
  std::vector<BodyVelocity> w_;
  std::vector<Vec6> response_;  // reset()'s product, copied into w_
};

template <bool GaussSeidel>
JointSweep MatrixFreeOperator::sweep_joints(const std::vector<double>& from, std::vector<double>& to, double scale) {
  JointSweep out;
  const JointRows& J = p_.joints;
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 8, 1> v, d;
  for (int j = 0; j < J.count(); ++j) {
    const int r0 = J.row_start[std::size_t(j)], n = J.rows_of(j), m = J.equality_rows[std::size_t(j)];
    const int a = J.body_a[std::size_t(j)], b = J.body_b[std::size_t(j)];
    const double* A = J.block.data() + J.block_start[std::size_t(j)];
    v.resize(n);
    d.setZero(n);
    for (int r = 0; r < n; ++r) {
      const auto i = std::size_t(r0 + r);
      double x = J.b[i] + J.eps[i] * from[i];
      if (a >= 0) x += J.J_a[i].dot(w_[std::size_t(a)].v);
      if (b >= 0) x += J.J_b[i].dot(w_[std::size_t(b)].v);
      v[r] = x;
    }
    // equality rows: d_E = -(A_EE + E)^-1 v_E
    const double* Einv = J.inverse.data() + J.inverse_start[std::size_t(j)];
    for (int r = 0; r < m; ++r) {
      double x = 0.0;
      for (int s = 0; s < m; ++s) x -= Einv[r * m + s] * v[s];
      d[r] = scale * x;
    }
    if constexpr (GaussSeidel)
      for (int r = m; r < n; ++r)
        for (int s = 0; s < m; ++s) v[r] += A[r * n + s] * d[s];
    // boxed rows (limits, bounded drives) one at a time, projected onto [lo, hi]
    for (int r = m; r < n; ++r) {
      const auto i = std::size_t(r0 + r);
      const double arr = A[r * n + r];
      if (!(arr > 0.0)) continue;
      d[r] = std::clamp(from[i] - scale * v[r] / arr, J.lo[i], J.hi[i]) - from[i];
      if constexpr (GaussSeidel)
        for (int s = r + 1; s < n; ++s) v[s] += A[s * n + r] * d[r];
    }
    for (int r = 0; r < n; ++r) {
      const auto i = std::size_t(r0 + r);
      const double next = from[i] + d[r];
      to[i] = next;
      out.max_delta = std::max(out.max_delta, std::abs(d[r]));
      out.max_lambda = std::max(out.max_lambda, std::abs(next));
      if constexpr (GaussSeidel) {
        if (d[r] == 0.0) continue;
        if (a >= 0) w_[std::size_t(a)].v += J.MinvJT_a[i] * d[r];
        if (b >= 0) w_[std::size_t(b)].v += J.MinvJT_b[i] * d[r];
      }
    }
  }
  return out;
}

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
  void clear() {}
  void prefetch(int) const {}
  void prefetch_contact(int) const {}
  // FCLib problems are contacts only: there are no joint rows to sweep
  int joint_rows() const { return 0; }
  double joint_scale() const { return 0.0; }
  template <bool GaussSeidel>
  JointSweep sweep_joints(const std::vector<double>&, std::vector<double>&, double) { return {}; }

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
