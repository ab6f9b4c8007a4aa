// PGS's kernel: one contact's update of seed 001 (section 4, the pseudocode's lines 3-7 with the
// SOR splitting of eq. 18c), for pgs.cpp's sweeps and normal_pgs.cpp's packed normal rows. No
// threads, prefetches or windows here: the schedules of sweep.h run it.
//
// Row r of contact k:  lambda_r <- proj_[l_r, u_r](lambda_r - h_r y_r),  h_r = sor / A_rr
// (eq. 16-17), with y = (A lambda + b)_k current through the rows of k already updated, in the
// order normal, t, s, tau, so that the friction bounds +-mu_j lambda_n use the freshest normal
// impulse (the pseudocode's l(lambda), u(lambda)). Box friction: |lambda_t| <= mu_s lambda_n and
// |lambda_s| <= mu_t lambda_n independently (seed 000 section 3.1).
#pragma once
#include "pgs_orderings.h"
#include "sweep.h"

#include <coulomb/math.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace coulomb::detail {

// An impulse projected onto its box (seed 001 eq. 17): lambda_n >= 0, |lambda_j| <= mu_j lambda_n.
inline Vec4 boxed(Vec4 l, const Vec3& mu) {
  l[0] = std::max(0.0, l[0]);
  for (int r = 1; r < 4; ++r) l[r] = std::clamp(l[r], -mu[r - 1] * l[0], mu[r - 1] * l[0]);
  return l;
}

// The normal row alone (eq. 16-17, r = 0): the step of packed normal rows and of row 0 above.
COULOMB_HOT_INLINE double normal_row_step(double lambda, double y, double h) { return std::max(0.0, lambda - y * h); }

// What the kernel needs of A_kk, once per solve: h[r] = sor / A_rr, or 0 for a row no body can
// respond to (A_rr <= 0), so that a sweep multiplies instead of dividing; and c = A_rq h_r for
// the rows q before r. A row's y_r is then never formed: x_r = (lambda_r - y_r^0 h_r) - sum_q
// c_rq d_q from the velocity at the contact's start y^0 and the earlier rows' steps d_q, one
// product and one subtraction on the chain from row to row. 80 bytes, read in place of A_kk.
struct RowStep {
  Vec4 h;
  double c[6];  // (r, q) = (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2): c[r (r - 1) / 2 + q]
  static constexpr int index(int r, int q) { return r * (r - 1) / 2 + q; }
};

template <class Op>
void row_steps(const Op& op, double sor, std::vector<RowStep>& step, int begin, int end) {
  for (int k = begin; k < end; ++k) {
    const Mat4& A = op.diag(k);
    RowStep& st = step[std::size_t(k)];
    for (int r = 0; r < 4; ++r) {
      const double a = A(r, r);
      st.h[r] = a > 0.0 ? sor / a : 0.0;
      for (int q = 0; q < r; ++q) st.c[RowStep::index(r, q)] = A(r, q) * st.h[r];
    }
  }
}

// The sets' shares of Theta = 1/2 sum H_i^2 (seed 001 eq. 22-23): GSP's error measure.
struct ThetaShares {
  double normal = 0.0;
  double friction = 0.0;
  void add(int r, double h) { (r == 0 ? normal : friction) += 0.5 * h * h; }
};

// Contact k's rows First..Last (0..3: all; 0..0: the normal set; 1..3: the friction set of
// eq. 21), the bodies' velocities updated once (op.applied, seed 000 eq. 26). With Track (GSP),
// also each row's residual H_r (eq. 22): a swept row's just before its step, another row's after
// the contact's update; the tracked y_r is then formed, and the step reads it.
template <int First, int Last, bool Track, class Op>
COULOMB_HOT_INLINE void pgs_contact(Op& op, std::vector<Vec4>& lambda, const std::vector<RowStep>& step, int k, SweepMax& s,
                                    ThetaShares& theta) {
  Vec4& l = lambda[std::size_t(k)];
  const RowStep& st = step[std::size_t(k)];
  const Vec3& mu = op.mu(k);
  const Vec4 v = op.velocity(k, lambda);
  const int rows = pgs_detail::solved_rows(mu);  // no torsion row without torsional friction
  const int end = std::min(Last + 1, rows);
  double d[4] = {0.0, 0.0, 0.0, 0.0};
  SweepMax m;  // the contact's maxima in registers, merged into s once
  // y_r after the steps d of this contact's rows First..before (Track reads A_kk itself), and
  // its residual H_r
  const auto tracked = [&](int r, int before) {
    const Mat4& A = op.diag(k);
    double y = v[r];
    for (int q = First; q < before; ++q) y += A(r, q) * d[q];
    return y;
  };
  const auto residual = [&](int r, double y) {
    Vec4 vy = v;
    vy[r] = y;
    return pgs_detail::row_residual(l, vy, mu, r);
  };
  const auto row = [&](auto index) {
    constexpr int r = decltype(index)::value;
    if constexpr (r >= First && r <= Last) {
      if (r >= end || !(st.h[r] > 0.0)) return;  // a row no body can respond to
      double x;
      if constexpr (Track) {
        const double y = tracked(r, r);
        theta.add(r, residual(r, y));
        x = l[r] - y * st.h[r];  // eq. 16 (18c)
      } else {
        x = l[r] - v[r] * st.h[r];  // eq. 16 (18c), the earlier rows' steps through c
        if constexpr (r > First) x -= st.c[RowStep::index(r, First)] * d[First];
        if constexpr (r > First + 1) x -= st.c[RowStep::index(r, First + 1)] * d[First + 1];
        if constexpr (r > First + 2) x -= st.c[RowStep::index(r, First + 2)] * d[First + 2];
      }
      if constexpr (r == 0) x = std::max(0.0, x);  // eq. 17
      else x = std::clamp(x, -mu[r - 1] * l[0], mu[r - 1] * l[0]);
      d[r] = x - l[r];
      l[r] = x;
      m.add(d[r], x);
    }
  };
  row(std::integral_constant<int, 0>{});
  row(std::integral_constant<int, 1>{});
  row(std::integral_constant<int, 2>{});
  row(std::integral_constant<int, 3>{});
  if constexpr (Track) {
    for (int r = 0; r < rows; ++r) {
      if ((r >= First && r < end) || !(st.h[r] > 0.0)) continue;
      theta.add(r, residual(r, tracked(r, end)));  // the other set, after this contact's update
    }
  }
  s.merge(m);
  if (d[0] != 0.0 || d[1] != 0.0 || d[2] != 0.0 || d[3] != 0.0) op.applied(k, Vec4(d[0], d[1], d[2], d[3]));
}

}  // namespace coulomb::detail
