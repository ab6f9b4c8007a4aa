// The semi-implicit velocity system of seed 004 eq. 3-5 for cr-mlcp: A = M + h C_d + h^2 K and
// b = (M + h C_d) v^l + h f (eq. 4), assembled sparse over the DOFs that move.
//
// Why the right-hand side reads M v~ + h f_el(x^l): the first-order expansion of eq. 3 with
// f = f_el(x) - C_d v + f_ext gives (M + h C_d + h^2 K) v^{l+1} = M v^l + h (f_el(x^l) + f_ext),
// and the problem's prediction v~ = v^l + h M^-1 f_ext already holds the external (and, for rigid
// bodies, gyroscopic) part. Why Gauss-Newton stiffness: J^T C J of the compliance form is positive
// semi-definite element by element, so A stays positive definite (s.2.2) without an eigen-solve
// per element; for corotational elements it is the warped stiffness R K_0 R^T and for Neo-Hookean
// it is the principal-stretch Hessian with its eigenvalues made positive (fem/element_constraint.cpp).
#include <coulomb/cr_mlcp.h>
#include <coulomb/element_constraint.h>

#include <Eigen/Dense>
#include <cmath>

namespace coulomb {

using Mat12 = Eigen::Matrix<double, 12, 12>;

void cr_element_force_stiffness(const ElementConstraintDef& e, const ElementMaterial& m, const std::array<Vec3, 4>& x,
                                double compression_limit, Vec12& f, Mat12& K) {
  f.setZero();
  K.setZero();
  std::array<Vec3, 4> xe = x;
  if (m.model == MaterialModel::NeoHookean) {
    // s.2.1: below the limit the energy is extended linearly in each principal stretch, so the
    // force stays that at the limit and the stiffness along it vanishes. ds/dx depends on U and V
    // alone, so evaluating the compliance form at F_c = U diag(max(s, limit)) V^T gives J at F
    // and g, H at the clamped stretches.
    const Mat3 F = deformation_gradient(x, e.Dm_inv);
    Mat3 U, V;
    Vec3 s;
    signed_svd(F, U, s, V);
    if (s.minCoeff() < compression_limit) {
      const Vec3 sc = s.cwiseMax(compression_limit);
      const Mat3 Fc = U * sc.asDiagonal() * V.transpose();
      const Mat3 Ds = Fc * e.Dm_inv.inverse();
      for (int i = 0; i < 3; ++i) xe[std::size_t(i + 1)] = x[0] + Ds.col(i);
    }
  }
  ElementConstraint ec;
  element_constraint(m.model, m.lame, xe, e.Dm_inv, e.volume, ec);
  if (ec.rows == 0) return;
  const int n = ec.rows;
  const Eigen::MatrixXd C = ec.compliance.topLeftCorner(n, n).inverse();  // stiffness of the rows
  const Eigen::MatrixXd J = ec.J.topRows(n);
  // energy 1/2 c^T C c: f = -J^T C c, K = J^T C J (Gauss-Newton)
  f = -J.transpose() * (C * ec.c.head(n));
  K = J.transpose() * C * J;
  if (m.model == MaterialModel::NeoHookean && xe[1] != x[1]) {
    // J was taken at F_c; the force along the clamped directions is the extrapolated one (constant)
    // and the stiffness along them is zero: drop H's rows of the clamped stretches
    const Mat3 F = deformation_gradient(x, e.Dm_inv);
    Mat3 U, V;
    Vec3 s;
    signed_svd(F, U, s, V);
    Eigen::Matrix3d P = Eigen::Matrix3d::Identity();
    for (int i = 0; i < 3; ++i)
      if (s[i] < compression_limit) P(i, i) = 0.0;
    K = J.transpose() * (P * C * P) * J;
  }
}

void build_cr_velocity_system(const PositionProblem& p, const CrMlcpOptions& o, CrVelocitySystem& out) {
  const int nr = p.num_rigid(), np = p.num_particles();
  const double h = p.dt;
  out.num_rigid = nr;
  out.offset.assign(std::size_t(nr + np), -1);
  out.v_fixed = Eigen::VectorXd::Zero(6 * (nr + np));
  int n = 0;
  for (int i = 0; i < nr; ++i) {
    const auto k = std::size_t(i);
    if (p.inv_mass[k] > 0.0) {
      out.offset[k] = n;
      n += 6;
    }
    out.v_fixed.segment<3>(6 * i) = p.v[k];
    out.v_fixed.segment<3>(6 * i + 3) = p.w[k];
  }
  for (int j = 0; j < np; ++j) {
    const auto k = std::size_t(j);
    if (p.p_inv_mass[k] > 0.0) {
      out.offset[std::size_t(nr + j)] = n;
      n += 3;
    }
    out.v_fixed.segment<3>(6 * (nr + j)) = p.pv[k];
  }
  out.size = n;
  out.b = Eigen::VectorXd::Zero(n);
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(std::size_t(36 * nr + 3 * np + 144 * p.elements.size()));
  const double mass_scale = 1.0 + h * o.mass_damping;  // M + h alpha M

  // rigid bodies: their 6x6 mass blocks diag(m I, R I_body R^T) in the world frame
  for (int i = 0; i < nr; ++i) {
    const int c = out.offset[std::size_t(i)];
    if (c < 0) continue;
    const auto k = std::size_t(i);
    const double m = 1.0 / p.inv_mass[k];
    const Mat3 R = p.q0.size() == p.q.size() ? p.q0[k].toRotationMatrix() : p.q[k].toRotationMatrix();
    Vec3 inertia;
    for (int a = 0; a < 3; ++a) inertia[a] = p.inv_inertia[k][a] > 0.0 ? 1.0 / p.inv_inertia[k][a] : 1e12 * m;
    const Mat3 I = R * inertia.asDiagonal() * R.transpose();
    for (int a = 0; a < 3; ++a) trip.emplace_back(c + a, c + a, mass_scale * m);
    for (int a = 0; a < 3; ++a)
      for (int bb = 0; bb < 3; ++bb) trip.emplace_back(c + 3 + a, c + 3 + bb, mass_scale * I(a, bb));
    out.b.segment<3>(c) = m * p.v[k];
    out.b.segment<3>(c + 3) = I * p.w[k];
  }
  // particles: lumped masses
  for (int j = 0; j < np; ++j) {
    const int c = out.offset[std::size_t(nr + j)];
    if (c < 0) continue;
    const double m = 1.0 / p.p_inv_mass[std::size_t(j)];
    for (int a = 0; a < 3; ++a) trip.emplace_back(c + a, c + a, mass_scale * m);
    out.b.segment<3>(c) = m * p.pv[std::size_t(j)];
  }
  // elements at x^l: h f_el into b, (h beta + h^2) K into A; coupling to pinned particles moves
  // their (known) velocities to b
  const std::vector<Vec3>& x0 = p.px0.size() == p.px.size() ? p.px0 : p.px;
  for (const ElementConstraintDef& e : p.elements) {
    const ElementMaterial& m = p.materials[std::size_t(e.material)];
    const std::array<Vec3, 4> x{x0[std::size_t(e.particle[0])], x0[std::size_t(e.particle[1])],
                                x0[std::size_t(e.particle[2])], x0[std::size_t(e.particle[3])]};
    Vec12 f;
    Mat12 K;
    cr_element_force_stiffness(e, m, x, o.compression_limit, f, K);
    const double ks = h * m.damping + h * h;
    for (int a = 0; a < 4; ++a) {
      const int ca = out.offset[std::size_t(nr + e.particle[std::size_t(a)])];
      if (ca < 0) continue;
      out.b.segment<3>(ca) += h * f.segment<3>(3 * a);
      for (int bb = 0; bb < 4; ++bb) {
        const int pb = e.particle[std::size_t(bb)];
        const int cb = out.offset[std::size_t(nr + pb)];
        const Mat3 Kab = ks * K.block<3, 3>(3 * a, 3 * bb);
        if (cb < 0) {
          out.b.segment<3>(ca) -= Kab * out.v_fixed.segment<3>(6 * (nr + pb));
          continue;
        }
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s)
            if (Kab(r, s) != 0.0) trip.emplace_back(ca + r, cb + s, Kab(r, s));
      }
    }
  }
  out.A.resize(n, n);
  out.A.setFromTriplets(trip.begin(), trip.end());
  out.mass_diag = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < nr; ++i)
    if (const int c = out.offset[std::size_t(i)]; c >= 0) {
      const Mat3 R = p.q0.size() == p.q.size() ? p.q0[std::size_t(i)].toRotationMatrix() : p.q[std::size_t(i)].toRotationMatrix();
      Vec3 inertia;
      for (int a = 0; a < 3; ++a)
        inertia[a] = p.inv_inertia[std::size_t(i)][a] > 0.0 ? 1.0 / p.inv_inertia[std::size_t(i)][a] : 1e12 / p.inv_mass[std::size_t(i)];
      out.mass_diag.segment<3>(c).setConstant(1.0 / p.inv_mass[std::size_t(i)]);
      out.mass_diag.segment<3>(c + 3) = (R * inertia.asDiagonal() * R.transpose()).diagonal();
    }
  for (int j = 0; j < np; ++j)
    if (const int c = out.offset[std::size_t(nr + j)]; c >= 0) out.mass_diag.segment<3>(c).setConstant(1.0 / p.p_inv_mass[std::size_t(j)]);
}

}  // namespace coulomb
