// Proximal operators of the PROX schemes (seed 000 sections 3-4), exposed for tests and for
// other solvers that need an exact Coulomb-Contensou projection.
#pragma once
#include <coulomb/math.h>

namespace coulomb {

// Closest point of the solid ellipsoid x^2/a^2 + y^2/b^2 + z^2/c^2 <= 1 to `z` (seed 000 eq.
// 28-38): z itself when inside; otherwise the root t > 0 of g(t) (eq. 35) by bracketed
// bisection (eq. 36, alpha = 1.5) after scaling into the unit cube (eq. 37-38), and
// x = (tK + I)^-1 z (eq. 32). A zero semi-axis flattens the set (that coordinate becomes 0),
// which covers the 2D ellipse of friction without torsion; equal in-plane axes without torsion
// use the closed-form disc projection.
Vec3 prox_ellipsoid(const Vec3& z, const Vec3& axes);

// The friction set F(mu lambda_n) of eq. 15b-16 for friction impulses (t, s, tau).
inline Vec3 prox_friction(const Vec3& z, const Vec3& mu, double lambda_n) {
  return prox_ellipsoid(z, mu * std::max(0.0, lambda_n));
}

}  // namespace coulomb
