// The NCP functions of one frictional contact of a local problem (u = W r + q, Coulomb cone
// ||r_T|| <= mu r_n; FCLib's formulation), with the Jacobian blocks a semismooth Newton method
// needs: phi(u, r) in R^3 (velocity units) and d phi / d u, d phi / d r, so that the Newton
// matrix of a local problem is blockdiag(d_u) W + blockdiag(d_r) (newton_fclib.cpp).
//
// Two ways to treat friction, each with the Fischer-Burmeister function or the minimum map:
//  - fixed point (seed 003 s.4.3, eq. 33-37 and appendix A): the normal row is the scalar NCP
//    function of (u_n, rho_n r_n) (eq. 93-98) and the friction rows are u_T + w r_T, with the
//    compliance w of eq. 104-105 held constant in the Jacobian (eq. 37); r_T = 0 while
//    mu r_n <= 0 (eq. 106). The blocks are diagonal, so the Newton system has the symmetric
//    compliance form of eq. 59.
//  - cone: the same NCP functions written on the Coulomb cone itself, semismooth in every
//    variable. The minimum map becomes the Alart-Curnier function, i.e. projections on R+ and on
//    the friction disc; Fischer-Burmeister becomes its second-order-cone form (Fukushima, Luo and
//    Tseng 2002) between x = rho (r_n, r_T / mu) and y = (u_n + mu ||u_T||, mu u_T), the cone and its
//    dual mapped on the self-dual cone, whose roots are exactly FCLib's r in C, u_hat in C*,
//    r . u_hat = 0. The Jacobian blocks are full 3x3 (unsymmetric Newton matrix).
// rho_n, rho_f are the r-factors of seed 003 eq. 66: the diagonal of W for the normal and the
// tangential rows.
#pragma once
#include <coulomb/math.h>
#include <coulomb/solver_options.h>  // NcpFunction, shared with newton-pcr

namespace coulomb {

struct ContactNcp {
  Vec3 phi = Vec3::Zero();
  Mat3 d_u = Mat3::Zero();  // d phi / d u
  Mat3 d_r = Mat3::Zero();  // d phi / d r
};

// seed 003's fixed-point friction (see above). d_u and d_r are diagonal.
ContactNcp contact_ncp_fixed_point(NcpFunction f, const Vec3& u, const Vec3& r, double mu, double rho_n,
                                   double rho_f);

// Alart-Curnier, the minimum map on the cone, scaled to velocity units:
//   phi_n = min(u_n, rho_n r_n)                                        (= seed 003 eq. 96)
//   phi_T = rho_f r_T - P_D(rho_f r_T - u_T),  D = disc of radius mu (rho_f / rho_n) max(0, rho_n r_n - u_n)
ContactNcp contact_ncp_alart_curnier(const Vec3& u, const Vec3& r, double mu, double rho_n, double rho_f);

// Fischer-Burmeister on the second-order cone: phi = x + y - (x o x + y o y)^(1/2) (Jordan
// product), x = rho (r_n, r_T / mu), y = (u_n + mu ||u_T||, mu u_T). With mu = 0 the cone is the
// normal ray: phi_n = phi_FB(u_n, rho r_n) and phi_T = rho r_T.
ContactNcp contact_ncp_fb_cone(const Vec3& u, const Vec3& r, double mu, double rho);

}  // namespace coulomb
