// The per-contact NCP functions of a local problem and their Jacobian blocks (ncp_contact.h).
#include <coulomb/ncp.h>
#include <coulomb/ncp_contact.h>

#include <algorithm>
#include <cmath>

namespace coulomb {

ContactNcp contact_ncp_fixed_point(NcpFunction f, const Vec3& u, const Vec3& r, double mu, double rho_n,
                                   double rho_f) {
  ContactNcp out;
  // normal: phi(u_n, rho_n r_n), seed 003 eq. 93-95 (FB) or 96-98 (minimum map)
  const NcpValue v = f == NcpFunction::FischerBurmeister ? phi_fb_scaled(u[0], r[0], rho_n)
                                                         : phi_min_scaled(u[0], r[0], rho_n);
  out.phi[0] = v.value;
  out.d_u(0, 0) = v.d_a;
  out.d_r(0, 0) = v.d_b;
  // friction: u_T + w r_T (eq. 36) with w held constant (eq. 37) while mu r_n > 0; otherwise the
  // row only asks for r_T = 0 (eq. 106), scaled by rho_f to stay in velocity units
  const double limit = mu * r[0];
  if (limit > 0.0) {
    const double slip = std::hypot(u[1], u[2]), friction = std::hypot(r[1], r[2]);
    const double w = f == NcpFunction::FischerBurmeister ? friction_compliance_fb(slip, friction, limit, rho_f)
                                                         : friction_compliance_min(slip, friction, limit, rho_f);
    for (int i = 1; i < 3; ++i) {
      out.phi[i] = u[i] + w * r[i];
      out.d_u(i, i) = 1.0;
      out.d_r(i, i) = w;
    }
  } else {
    for (int i = 1; i < 3; ++i) {
      out.phi[i] = rho_f * r[i];
      out.d_r(i, i) = rho_f;
    }
  }
  return out;
}

ContactNcp contact_ncp_alart_curnier(const Vec3& u, const Vec3& r, double mu, double rho_n, double rho_f) {
  ContactNcp out;
  // normal: the minimum map, u_n active when u_n <= rho_n r_n (eq. 96-98)
  if (u[0] <= rho_n * r[0]) {
    out.phi[0] = u[0];
    out.d_u(0, 0) = 1.0;
  } else {
    out.phi[0] = rho_n * r[0];
    out.d_r(0, 0) = rho_n;
  }
  // friction: the projection of z = rho_f r_T - u_T on the disc of radius R (the minimum map of
  // the disc's complementarity, in the units of u)
  const double zn = rho_n * r[0] - u[0];
  const double R = mu * (rho_f / rho_n) * std::max(0.0, zn);
  const Eigen::Vector2d z(rho_f * r[1] - u[1], rho_f * r[2] - u[2]);
  const double nz = z.norm();
  if (R > 0.0 && nz <= R) {  // sticks: P(z) = z, phi_T = u_T
    out.phi.tail<2>() = u.tail<2>();
    out.d_u.bottomRightCorner<2, 2>().setIdentity();
  } else if (R > 0.0) {  // slides: P(z) = R z / |z|
    const Eigen::Vector2d zh = z / nz;
    const Eigen::Matrix2d G = (Eigen::Matrix2d::Identity() - zh * zh.transpose()) / nz;  // d(z/|z|)/dz
    out.phi.tail<2>() = rho_f * r.tail<2>() - R * zh;
    out.d_r.bottomRightCorner<2, 2>() = rho_f * (Eigen::Matrix2d::Identity() - R * G);
    out.d_u.bottomRightCorner<2, 2>() = R * G;
    // the radius follows rho_n r_n - u_n
    out.d_r.block<2, 1>(1, 0) = -zh * mu * rho_f;
    out.d_u.block<2, 1>(1, 0) = zh * mu * rho_f / rho_n;
  } else {  // no normal impulse: the disc is a point, phi_T = rho_f r_T
    out.phi.tail<2>() = rho_f * r.tail<2>();
    out.d_r.bottomRightCorner<2, 2>() = rho_f * Eigen::Matrix2d::Identity();
  }
  return out;
}

namespace {

// L_v, the matrix of the Jordan product v o . on the second-order cone: [[v0, vb^T], [vb, v0 I]]
Mat3 arrow(const Vec3& v) {
  Mat3 L = v[0] * Mat3::Identity();
  L(0, 1) = L(1, 0) = v[1];
  L(0, 2) = L(2, 0) = v[2];
  return L;
}

// v o v = (|v|^2, 2 v0 vb)
Vec3 jordan_square(const Vec3& v) { return {v.squaredNorm(), 2.0 * v[0] * v[1], 2.0 * v[0] * v[2]}; }

}  // namespace

ContactNcp contact_ncp_fb_cone(const Vec3& u, const Vec3& r, double mu, double rho) {
  ContactNcp out;
  if (!(mu > 0.0)) {  // the cone is the normal ray: scalar FB and r_T = 0
    const NcpValue v = phi_fb_scaled(u[0], r[0], rho);
    out.phi = Vec3(v.value, rho * r[1], rho * r[2]);
    out.d_u(0, 0) = v.d_a;
    out.d_r(0, 0) = v.d_b;
    out.d_r(1, 1) = out.d_r(2, 2) = rho;
    return out;
  }
  // x in K <=> r in C, y in K <=> u_hat in C*, x . y = r . u_hat
  const double slip = std::hypot(u[1], u[2]);
  const Vec3 x(rho * r[0], rho * r[1] / mu, rho * r[2] / mu);
  const Vec3 y(u[0] + mu * slip, mu * u[1], mu * u[2]);
  // w = (x o x + y o y)^(1/2) by the spectral decomposition z = l+ e+ + l- e-
  const Vec3 z = jordan_square(x) + jordan_square(y);
  const double zb = std::hypot(z[1], z[2]);
  const Eigen::Vector2d e = zb > 0.0 ? Eigen::Vector2d(z[1] / zb, z[2] / zb) : Eigen::Vector2d(1.0, 0.0);
  const double sp = std::sqrt(z[0] + zb), sm = std::sqrt(std::max(0.0, z[0] - zb));
  Vec3 w;
  w[0] = 0.5 * (sp + sm);
  w.tail<2>() = 0.5 * (sp - sm) * e;
  out.phi = x + y - w;
  // dw from w o w = z: 2 L_w dw = 2 L_x dx + 2 L_y dy
  Mat3 Gx, Gy;  // dw/dx, dw/dy
  if (sm > 1e-8 * sp) {  // w inside the cone: L_w is invertible
    const double det = w[0] * w[0] - w.tail<2>().squaredNorm();
    Mat3 Li;
    Li(0, 0) = w[0] / det;
    Li.block<1, 2>(0, 1) = -w.tail<2>().transpose() / det;
    Li.block<2, 1>(1, 0) = -w.tail<2>() / det;
    Li.bottomRightCorner<2, 2>() =
        Eigen::Matrix2d::Identity() / w[0] + w.tail<2>() * w.tail<2>().transpose() / (w[0] * det);
    Gx = Li * arrow(x);
    Gy = Li * arrow(y);
  } else if (z[0] > 0.0) {  // z on the cone's boundary: w = z / sqrt(2 z0) there
    const double s = std::sqrt(2.0 * z[0]);
    Gx = 2.0 * arrow(x) / s - z * (2.0 * x.transpose()) / (s * s * s);
    Gy = 2.0 * arrow(y) / s - z * (2.0 * y.transpose()) / (s * s * s);
  } else {  // x = y = 0: the choice of eq. 26-27, d/d(velocity) = 0 and d/d(impulse) = 1
    Gx.setZero();
    Gy.setIdentity();
  }
  // chain rule through x(r) and y(u)
  Mat3 Dx = Mat3::Zero(), Dy = Mat3::Zero();
  Dx(0, 0) = rho;
  Dx(1, 1) = Dx(2, 2) = rho / mu;
  Dy(0, 0) = 1.0;
  if (slip > 0.0) {
    Dy(0, 1) = mu * u[1] / slip;
    Dy(0, 2) = mu * u[2] / slip;
  }
  Dy(1, 1) = Dy(2, 2) = mu;
  out.d_r = (Mat3::Identity() - Gx) * Dx;
  out.d_u = (Mat3::Identity() - Gy) * Dy;
  return out;
}

}  // namespace coulomb
