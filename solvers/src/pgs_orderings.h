// Private to the PGS solver (pgs.cpp) and its tests: the merit Theta of seed 001 eq. 22-23 and
// the contact permutations of seed 001 section 5. Not a public header: nothing outside
// solvers/src and tests/solvers includes it.
//
// PGS solves, per contact, the rows normal, t, s and (only when mu_tau > 0) tau, each in a box
// [l_i, u_i] (seed 001 eq. 7-8):
//   normal         l = 0,                u = +inf
//   t, s, tau      l = -mu_j lambda_n,   u = mu_j lambda_n   (mu_j = mu_s, mu_t, mu_tau)
// A row with A_ii <= 0 is one no body can respond to (A is positive semi-definite, so its whole
// row and column of A vanish); PGS leaves it alone and Theta leaves it out.
#pragma once
#include <coulomb/contact_operator.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace coulomb::pgs_detail {

// Rows PGS solves for a contact with coefficients mu = (mu_s, mu_t, mu_tau): normal, t, s, and
// the torsion row only with torsional friction; the normal row alone without any friction (the
// box of a friction row is then [0, 0], which the solve's start, project_onto_box, has already
// put its impulse in, and its residual is 0: post-stabilisation's gap problems, issue 12).
inline int solved_rows(const Vec3& mu) { return mu[2] > 0.0 ? 4 : (mu[0] > 0.0 || mu[1] > 0.0 ? 3 : 1); }

// The box [lo, hi] of row r of a contact with impulse l (seed 001 section 3: l_n = 0, u_n = inf,
// -l_t = u_t = mu lambda_n).
inline void row_bounds(const Vec4& l, const Vec3& mu, int r, double& lo, double& hi) {
  if (r == 0) {
    lo = 0.0;
    hi = std::numeric_limits<double>::infinity();
  } else {
    hi = mu[r - 1] * l[0];
    lo = -hi;
  }
}

// seed 001 eq. 22 for one row: H_i = min(u_i - lambda_i, -min(lambda_i - l_i, y_i)), zero exactly
// when lambda_i is a fixed point of eq. 11 (lambda_i = min(u_i, max(l_i, lambda_i - y_i))).
inline double natural_residual(double lambda, double lo, double hi, double y) {
  return std::min(hi - lambda, -std::min(lambda - lo, y));
}

// H_r of contact impulse l with contact velocity v = (A lambda + b)_k.
inline double row_residual(const Vec4& l, const Vec4& v, const Vec3& mu, int r) {
  double lo, hi;
  row_bounds(l, mu, r, lo, hi);
  return natural_residual(l[r], lo, hi, v[r]);
}

// seed 001 eq. 23: Theta = 1/2 H^T H over the rows PGS solves, given all contact velocities
// v = A lambda + b (one 4-vector per contact).
template <class Op>
double theta(const Op& op, const std::vector<Vec4>& lambda, const std::vector<Vec4>& v) {
  double sum = 0.0;
  for (int k = 0; k < op.size(); ++k) {
    const auto i = std::size_t(k);
    const Mat4& A = op.diag(k);
    const Vec3& mu = op.mu(k);
    const int rows = solved_rows(mu);
    for (int r = 0; r < rows; ++r) {
      if (!(A(r, r) > 0.0)) continue;
      const double h = row_residual(lambda[i], v[i], mu, r);
      sum += h * h;
    }
  }
  return 0.5 * sum;
}

// Theta of lambda, evaluated from scratch (the operator is reset to lambda first).
template <class Op>
double theta(Op& op, const std::vector<Vec4>& lambda) {
  std::vector<Vec4> v;
  all_velocities(op, lambda, v);
  return theta(std::as_const(op), lambda, v);
}

// The contact permutations of seed 001 section 5; each returns the visiting order, a
// permutation of 0..nc-1. Ties keep the given (engine's deterministic lexicographic) order.

// default: 0, 1, ..., nc-1.
std::vector<int> identity_order(int nc);

// IPP (impulse propagation permutation): contacts by their initial relative normal velocity
// y_n = (A lambda0 + b)_n ascending, the most approaching contact first. v holds one contact
// velocity 4-vector per contact (only v[k][0] is read).
std::vector<int> ipp_order(const std::vector<Vec4>& v);

// CP (coordinate permutation): contacts by dot(point_k, axis), ascending or descending.
std::vector<int> cp_order(const std::vector<Vec3>& point, const Vec3& axis, bool descending);

}  // namespace coulomb::pgs_detail
