// Constraint forms of a linear tetrahedron (see element_constraint.h for the formulas and the
// seed references). All Jacobians are built from the rows y_i of Dm^{-1}: F(x) = sum_i x_i y_i^T
// with y_0 = -(y_1 + y_2 + y_3), so dF = dx_i y_i^T and a scalar g(F) has dg/dx_i = (dg/dF) y_i.
#include <coulomb/element_constraint.h>

#include <Eigen/Eigenvalues>

#include <cmath>

namespace coulomb {

Mat3 deformation_gradient(const std::array<Vec3, 4>& x, const Mat3& Dm_inv) {
  Mat3 Ds;
  Ds.col(0) = x[1] - x[0];
  Ds.col(1) = x[2] - x[0];
  Ds.col(2) = x[3] - x[0];
  return Ds * Dm_inv;
}

Vec6 strain_vec6(const Mat3& S) {
  Vec6 v;
  v << S(0, 0), S(1, 1), S(2, 2), S(1, 2), S(0, 2), S(0, 1);
  return v;
}

namespace {

// y_0..y_3 of seed 002 App. A: the rows of Dm^{-1} and minus their sum
std::array<Vec3, 4> shape_rows(const Mat3& Dm_inv) {
  std::array<Vec3, 4> y;
  for (int i = 0; i < 3; ++i) y[std::size_t(i + 1)] = Dm_inv.row(i).transpose();
  y[0] = -(y[1] + y[2] + y[3]);
  return y;
}

// the 12-vector d g / dx of a scalar g(F) with gradient G = dg/dF
Eigen::Matrix<double, 1, 12> gradient_through_F(const Mat3& G, const std::array<Vec3, 4>& y) {
  Eigen::Matrix<double, 1, 12> row;
  for (int i = 0; i < 4; ++i) row.segment<3>(3 * i) = (G * y[std::size_t(i)]).transpose();
  return row;
}

}  // namespace

Mat6x12 strain_jacobian(const Mat3& Dm_inv, const Mat3& A) {
  const std::array<Vec3, 4> y = shape_rows(Dm_inv);
  const Mat3 At = A.transpose();
  Mat6x12 J;
  for (int i = 0; i < 4; ++i) {
    const Vec3& yi = y[std::size_t(i)];
    // Lambda_n^i = diag(y_i), eq. 36
    const Mat3 Ln = yi.asDiagonal();
    // Lambda_s^i of eq. 38, with the 1/2 of eq. 37
    Mat3 Ls;
    Ls << 0, yi.z(), yi.y(),  //
        yi.z(), 0, yi.x(),    //
        yi.y(), yi.x(), 0;
    Ls *= 0.5;
    // eq. 39 block by block (the grad V term is absent: V0 is constant)
    J.block<3, 3>(0, 3 * i) = Ln * At;
    J.block<3, 3>(3, 3 * i) = Ls * At;
  }
  return J;
}

Mat6 strain_stiffness(const Lame& lame) {
  const double m = lame.mu, l = lame.lambda;
  Mat6 C = Mat6::Zero();
  C.topLeftCorner<3, 3>().setConstant(l);
  C.topLeftCorner<3, 3>().diagonal().array() += 2.0 * m;
  C.bottomRightCorner<3, 3>().diagonal().setConstant(4.0 * m);
  return C;
}

Mat6 strain_compliance(const Lame& lame) {
  // (2 mu I + lambda 1 1^T)^{-1} = (I - lambda / (2 mu + 3 lambda) 1 1^T) / (2 mu)
  const double m = lame.mu, l = lame.lambda;
  Mat6 E = Mat6::Zero();
  E.topLeftCorner<3, 3>().setConstant(-l / (2.0 * m + 3.0 * l));
  E.topLeftCorner<3, 3>().diagonal().array() += 1.0;
  E.topLeftCorner<3, 3>() /= 2.0 * m;
  E.bottomRightCorner<3, 3>().diagonal().setConstant(1.0 / (4.0 * m));
  return E;
}

bool constraint_form_supported(MaterialModel model, const Lame& lame) {
  if (!(lame.mu > 0.0) || !(2.0 * lame.mu + 3.0 * lame.lambda > 0.0)) return false;
  if (model == MaterialModel::NeoHookean) return lame.lambda > 0.0;  // alpha = 1 + mu / lambda
  return true;
}

void neo_hookean_stretch_derivatives(const Lame& lame, const Vec3& s, Vec3& g, Mat3& H) {
  // seed 003 App. B with C1 = mu/2, D1 = lambda/2 and its gradient read with (J - alpha)
  const double J = s.prod(), alpha = 1.0 + lame.mu / lame.lambda;
  const Vec3 dJ(s[1] * s[2], s[0] * s[2], s[0] * s[1]);
  g = lame.mu * s + lame.lambda * (J - alpha) * dJ;
  H = lame.lambda * dJ * dJ.transpose();
  H.diagonal().array() += lame.mu;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) H(i, j) += lame.lambda * (J - alpha) * s[3 - i - j];
}

namespace {
// The 6-row strain forms: c = sqrt(V0) vec6(strain), J = sqrt(V0) Lambda A^T (App. A eq. 39 with
// A = F, I or the frozen R), compliance = the strain compliance of the Lame pair.
void strain_form(double sqrt_v, const Mat3& strain, const Mat3& A, const Mat3& Dm_inv, const Lame& lame,
                 ElementConstraint& out) {
  out.rows = 6;
  out.c = sqrt_v * strain_vec6(strain);
  out.J = sqrt_v * strain_jacobian(Dm_inv, A);
  out.compliance = strain_compliance(lame);
}
}  // namespace

void element_constraint(MaterialModel model, const Lame& lame, const std::array<Vec3, 4>& x, const Mat3& Dm_inv,
                        double rest_volume, ElementConstraint& out) {
  out = ElementConstraint{};
  if (!constraint_form_supported(model, lame)) return;
  const Mat3 F = deformation_gradient(x, Dm_inv);
  const Mat3 I = Mat3::Identity();
  const double sqrt_v = std::sqrt(rest_volume);
  switch (model) {
    case MaterialModel::StVK:  // seed 002 eq. 34 with the rest volume; App. A eq. 39 without its grad V term
      return strain_form(sqrt_v, 0.5 * (F.transpose() * F - I), F, Dm_inv, lame, out);
    case MaterialModel::Linear:  // seed 003 eq. 85: constant J and compliance
      return strain_form(sqrt_v, 0.5 * (F + F.transpose()) - I, I, Dm_inv, lame, out);
    case MaterialModel::Corotational: {
      // R^T F = S is symmetric already; sym() only removes round-off. R is held fixed in J.
      const Mat3 R = polar_rotation(F);
      const Mat3 G = R.transpose() * F;
      return strain_form(sqrt_v, 0.5 * (G + G.transpose()) - I, R, Dm_inv, lame, out);
    }
    case MaterialModel::NeoHookean: {
      // The compliance form of seed 003 eq. 79-84 and App. B: s = the principal stretches
      // (signed singular values of F), c = (V0 H)^-1 V0 dPsi/ds, compliance (V0 H)^-1 with
      // H = d2Psi/ds2 projected to be positive definite (Teran et al. 2005) and J = ds/dx
      // (d sigma_i / dF = u_i v_i^T). Then -J^T C c = -V0 J^T dPsi/ds is the exact elastic force
      // and c = 0 at rest. (Not the two-row form of Macklin and Mueller 2021, which rests at large
      // opposing multipliers and diverges without geometric stiffness, nor a Green-strain
      // compliance form, which loses control of collapsing elements at impacts.)
      Mat3 U, V;
      Vec3 s, g;
      Mat3 H;
      signed_svd(F, U, s, V);
      neo_hookean_stretch_derivatives(lame, s, g, H);
      Eigen::SelfAdjointEigenSolver<Mat3> eig(H);
      const Vec3 ev = eig.eigenvalues().cwiseAbs().cwiseMax(lame.mu);
      const Mat3 E = eig.eigenvectors() * ev.cwiseInverse().asDiagonal() * eig.eigenvectors().transpose() / rest_volume;
      const std::array<Vec3, 4> y = shape_rows(Dm_inv);
      out.rows = 3;
      for (int i = 0; i < 3; ++i) out.J.row(i) = gradient_through_F(U.col(i) * V.col(i).transpose(), y);
      out.compliance.topLeftCorner<3, 3>() = E;
      out.c.head<3>() = E * (rest_volume * g);
      return;
    }
  }
}

void element_forces(MaterialModel model, const Lame& lame, const std::array<Vec3, 4>& x, const Mat3& Dm_inv,
                    double rest_volume, Vec12& f) {
  const Mat3 F = deformation_gradient(x, Dm_inv);
  const Mat3 H = -rest_volume * first_piola(model, lame, F) * Dm_inv.transpose();
  f.segment<3>(3) = H.col(0);
  f.segment<3>(6) = H.col(1);
  f.segment<3>(9) = H.col(2);
  f.segment<3>(0) = -(H.col(0) + H.col(1) + H.col(2));
}

}  // namespace coulomb
