// Hyperelastic energy densities and first Piola-Kirchhoff stresses (see materials.h for the
// formulas). Each model is a small value/gradient pair; tests/fem/materials_test.cpp checks
// every gradient against central finite differences of the value.
#include <coulomb/materials.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <cmath>
#include <stdexcept>

namespace coulomb {

std::optional<MaterialModel> parse_material_model(std::string_view name) {
  if (name == "linear") return MaterialModel::Linear;
  if (name == "corotational") return MaterialModel::Corotational;
  if (name == "stvk") return MaterialModel::StVK;
  if (name == "neo-hookean") return MaterialModel::NeoHookean;
  return std::nullopt;
}

const char* material_model_name(MaterialModel model) {
  switch (model) {
    case MaterialModel::Linear: return "linear";
    case MaterialModel::Corotational: return "corotational";
    case MaterialModel::StVK: return "stvk";
    case MaterialModel::NeoHookean: return "neo-hookean";
  }
  return "unknown";
}

Lame lame_from_young(double young, double poisson) {
  // written so that NaN fails every test
  if (!(young > 0.0) || !std::isfinite(young))
    throw std::invalid_argument("Young's modulus must be positive and finite");
  if (!(poisson > -1.0 && poisson < 0.5))
    throw std::invalid_argument("Poisson ratio must lie in (-1, 0.5)");
  Lame l;
  l.mu = young / (2.0 * (1.0 + poisson));
  l.lambda = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  return l;
}

Lame stable_neo_hookean_lame(const Lame& small_strain) {
  return {small_strain.mu, small_strain.lambda + small_strain.mu};
}

void signed_svd(const Mat3& F, Mat3& U, Vec3& s, Mat3& V) {
  const Eigen::JacobiSVD<Mat3, Eigen::NoQRPreconditioner> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  U = svd.matrixU();
  V = svd.matrixV();
  s = svd.singularValues();
  // Eigen sorts singular values in decreasing order: a reflection goes into the smallest one, so
  // U and V are rotations and an inverted F gets s[2] < 0 (Irving et al. 2004)
  if (U.determinant() < 0.0) {
    U.col(2) = -U.col(2);
    s[2] = -s[2];
  }
  if (V.determinant() < 0.0) {
    V.col(2) = -V.col(2);
    s[2] = -s[2];
  }
}

Mat3 polar_rotation(const Mat3& F) {
  // fast path for the common, well-conditioned case: S = sqrt(F^T F) from the closed-form 3x3
  // eigen-decomposition, R = F S^-1 (about 3x cheaper than the SVD; the solver calls this once per
  // corotational element per iteration)
  if (F.determinant() > 0.0) {
    Eigen::SelfAdjointEigenSolver<Mat3> eig;
    eig.computeDirect(F.transpose() * F);
    const Vec3 l = eig.eigenvalues();  // increasing
    if (l[0] > 1e-6 * l[2]) {
      const Mat3& Q = eig.eigenvectors();
      const Mat3 S_inv = Q * l.cwiseSqrt().cwiseInverse().asDiagonal() * Q.transpose();
      return F * S_inv;
    }
  }
  Mat3 U, V;
  Vec3 s;
  signed_svd(F, U, s, V);
  return U * V.transpose();
}

Mat3 cofactor(const Mat3& F) {
  // column k of cof(F) is the cross product of the other two columns (dJ/dF)
  Mat3 C;
  C.col(0) = F.col(1).cross(F.col(2));
  C.col(1) = F.col(2).cross(F.col(0));
  C.col(2) = F.col(0).cross(F.col(1));
  return C;
}

namespace {

Mat3 sym(const Mat3& A) { return 0.5 * (A + A.transpose()); }

}  // namespace

double energy_density(MaterialModel model, const Lame& lame, const Mat3& F) {
  const double mu = lame.mu, lambda = lame.lambda;
  const Mat3 I = Mat3::Identity();
  switch (model) {
    case MaterialModel::Linear: {
      const Mat3 eps = sym(F) - I;
      const double tr = eps.trace();
      return mu * eps.squaredNorm() + 0.5 * lambda * tr * tr;
    }
    case MaterialModel::Corotational: {
      const Mat3 R = polar_rotation(F);
      const double tr = (R.transpose() * F - I).trace();
      return mu * (F - R).squaredNorm() + 0.5 * lambda * tr * tr;
    }
    case MaterialModel::StVK: {
      const Mat3 E = 0.5 * (F.transpose() * F - I);
      const double tr = E.trace();
      return mu * E.squaredNorm() + 0.5 * lambda * tr * tr;
    }
    case MaterialModel::NeoHookean: {
      // lambda/2 (J - alpha)^2 - lambda/2 (1 - alpha)^2 with alpha = 1 + mu/lambda expands to
      // lambda/2 (J - 1)^2 - mu (J - 1): the same energy, without dividing by lambda
      const double Jm1 = F.determinant() - 1.0;
      return 0.5 * mu * (F.squaredNorm() - 3.0) - mu * Jm1 + 0.5 * lambda * Jm1 * Jm1;
    }
  }
  return 0.0;
}

Mat3 first_piola(MaterialModel model, const Lame& lame, const Mat3& F) {
  const double mu = lame.mu, lambda = lame.lambda;
  const Mat3 I = Mat3::Identity();
  switch (model) {
    case MaterialModel::Linear: {
      const Mat3 eps = sym(F) - I;
      return 2.0 * mu * eps + lambda * eps.trace() * I;
    }
    case MaterialModel::Corotational: {
      const Mat3 R = polar_rotation(F);
      return 2.0 * mu * (F - R) + lambda * (R.transpose() * F - I).trace() * R;
    }
    case MaterialModel::StVK: {
      const Mat3 E = 0.5 * (F.transpose() * F - I);
      return F * (2.0 * mu * E + lambda * E.trace() * I);
    }
    case MaterialModel::NeoHookean: {
      // P = mu F + lambda (J - alpha) cof(F), with lambda (J - alpha) = lambda (J - 1) - mu.
      // Seed 003 App. B prints the principal-stretch gradient with (J - 1) where (J - alpha) is
      // meant: only (J - alpha) makes P(I) = 0 and matches its own Hessian (k_0 = 2J - alpha).
      const double J = F.determinant();
      return mu * F + (lambda * (J - 1.0) - mu) * cofactor(F);
    }
  }
  return Mat3::Zero();
}

}  // namespace coulomb
