// NCP functions of seed 003 (Macklin et al., "Non-smooth Newton methods for deformable
// multi-body dynamics"), section 4 and appendix A: Fischer-Burmeister and the minimum map, their
// r-scaled forms with the partial derivatives a Newton method needs, and the friction
// compliance W of the fixed-point friction model (eq. 33-37, 99-105).
//
// Plain inline functions over doubles, shared by the full-system Newton solver and the FCLib
// Newton solvers (newton_fclib.cpp). A complementarity condition 0 <= a _|_ b >= 0 holds iff
// phi(a, b) = 0 (eq. 17); with the r-factor of section 7 the second argument is scaled,
// phi(c, r lambda), which leaves the roots unchanged and equalises the slopes (eq. 65-66).
#pragma once
#include <algorithm>
#include <cmath>

namespace coulomb {

// An NCP function's value and an element of its generalized gradient (Clarke), as the
// semismooth Newton method of section 6 uses them.
struct NcpValue {
  double value = 0.0;
  double d_a = 0.0;  // d phi / d (first argument)
  double d_b = 0.0;  // d phi / d (second argument)
};

// phi_FB(a, b) = a + b - sqrt(a^2 + b^2) (seed 003 eq. 23) with alpha = d/da (eq. 24) and
// beta = d/db (eq. 25); at the kink (0, 0) the choice alpha = 0, beta = 1 (eq. 26-27).
inline NcpValue phi_fb(double a, double b) {
  const double s = std::hypot(a, b);
  if (s == 0.0) return {0.0, 0.0, 1.0};
  return {a + b - s, 1.0 - a / s, 1.0 - b / s};
}

// phi_min(a, b) = min(a, b) (eq. 18) with its active-set derivative (eq. 21-22): a is the active
// argument when a <= b.
inline NcpValue phi_min(double a, double b) {
  if (a <= b) return {a, 1.0, 0.0};
  return {b, 0.0, 1.0};
}

// The contact condition 0 <= c _|_ lambda >= 0 with the r-factor, phi_FB(c, r lambda)
// (seed 003 eq. 93): d_a = d phi / d c (the factor of grad C in eq. 94), d_b = d phi / d lambda
// (eq. 95, r included).
inline NcpValue phi_fb_scaled(double c, double lambda, double r) {
  NcpValue v = phi_fb(c, r * lambda);
  v.d_b *= r;
  return v;
}

// The same with the minimum map, min(c, r lambda) (eq. 96-98).
inline NcpValue phi_min_scaled(double c, double lambda, double r) {
  NcpValue v = phi_min(c, r * lambda);
  v.d_b *= r;
  return v;
}

// Friction compliance W of the fixed-point friction model (seed 003 eq. 35-36, 103):
// phi_f = D^T qdot + W lambda_f, with W the ratio of the next slip to the next friction magnitude
// of the fixed-point iteration (eq. 99-102) on psi_f(|D^T qdot|, mu lambda_n - |lambda_f|) = 0.
//   slip     |D^T qdot| (m/s; in an FCLib problem ||u_T||)
//   friction |lambda_f| (N s)
//   limit    mu lambda_n (N s), > 0: a contact with mu lambda_n <= 0 has no friction row
//            (eq. 106: lambda_f = 0 is imposed instead)
//   r        the friction r-factor (section 7; m/s per N s)
// W = 0 when the contact sticks (next slip zero); W > 0 slides, and a friction beyond the cone is
// penalised by a growing W (figure 6).
//
// Fischer-Burmeister (eq. 104). Eq. 102 as printed has |D^T qdot|^2 in |lambda_f|^{n+1}; its
// derivation from eq. 101, |lambda_f| + psi / r, gives |D^T qdot|, which is used here (the
// printed form is not even dimensionally consistent).
inline double friction_compliance_fb(double slip, double friction, double limit, double r) {
  const double d = limit - friction;                    // distance to the cone's limit
  const double root = std::hypot(slip, r * d);
  const double next_slip = root - r * d;                // eq. 100, >= 0
  if (!(next_slip > 0.0)) return 0.0;                   // sticks (also the 0/0 of slip = 0 inside the cone)
  const double next_friction = (slip + r * limit - root) / r;  // eq. 102 (corrected)
  // Only a friction beyond the cone with a small slip makes next_friction <= 0: the iteration
  // wants the friction gone; a floor keeps W finite (large, so the Newton step removes it).
  const double floor = 1e-12 * limit;
  return next_slip / std::max(next_friction, floor);
}

// Minimum map (eq. 105): W = 0 while |D^T qdot| <= r (mu lambda_n - |lambda_f|) (stick), else
// (|D^T qdot| - r (mu lambda_n - |lambda_f|)) / (mu lambda_n).
inline double friction_compliance_min(double slip, double friction, double limit, double r) {
  const double d = limit - friction;
  if (slip <= r * d) return 0.0;
  return (slip - r * d) / limit;
}

}  // namespace coulomb
