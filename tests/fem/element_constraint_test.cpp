// Element constraint forms (seed 002 eq. 15-18, 34, App. A; Macklin & Mueller 2021): the
// Jacobian against finite differences of the constraint, the energy 1/2 c^T C c against
// V0 Psi(F), the constraint force -J^T C c against the direct elastic force, and that force
// against finite differences of V0 Psi(F(x)).
#include <coulomb/element_constraint.h>
#include "model_param.h"
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace element_constraint_test {

namespace {

const Lame kLame{1.0, 1.5};
const double kH = 1e-6;

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

struct Tet {
  std::array<Vec3, 4> rest;
  Mat3 Dm_inv;
  double V0;
};

// an irregular, positively oriented rest tetrahedron
Tet rest_tet() {
  Tet t;
  t.rest = {Vec3(0.1, -0.2, 0.0), Vec3(1.0, 0.1, 0.05), Vec3(0.2, 1.1, 0.1), Vec3(0.1, 0.3, 0.9)};
  Mat3 Dm;
  for (int j = 0; j < 3; ++j) Dm.col(j) = t.rest[std::size_t(j + 1)] - t.rest[0];
  t.Dm_inv = Dm.inverse();
  t.V0 = Dm.determinant() / 6.0;
  return t;
}

// a deformed, rotated and translated configuration (det F > 0)
std::array<Vec3, 4> deformed(const Tet& t) {
  const Mat3 R = Eigen::AngleAxisd(0.6, Vec3(1, -1, 2).normalized()).toRotationMatrix();
  const std::array<Vec3, 4> d = {Vec3(0.05, -0.1, 0.08), Vec3(-0.15, 0.12, 0.02),
                                 Vec3(0.1, 0.2, -0.12), Vec3(-0.07, 0.04, 0.25)};
  std::array<Vec3, 4> x;
  for (std::size_t i = 0; i < 4; ++i) x[i] = R * (t.rest[i] + d[i]) + Vec3(0.3, -2.0, 1.0);
  return x;
}

// vertex 3 pushed through the opposite face: det F < 0
std::array<Vec3, 4> inverted(const Tet& t) {
  std::array<Vec3, 4> x = t.rest;
  x[3] = Vec3(0.35, 0.3, -0.4);
  x[1] += Vec3(0.1, -0.05, 0.02);
  return x;
}

std::array<Vec3, 4> perturbed(std::array<Vec3, 4> x, int k, double h) {
  x[std::size_t(k / 3)](k % 3) += h;
  return x;
}

// central differences of a vector function of the 12 vertex coordinates
template <class Fn>
Eigen::Matrix<double, 6, 12> fd_jacobian(const std::array<Vec3, 4>& x, Fn c) {
  Eigen::Matrix<double, 6, 12> J;
  for (int k = 0; k < 12; ++k) J.col(k) = (c(perturbed(x, k, kH)) - c(perturbed(x, k, -kH))) / (2.0 * kH);
  return J;
}

ElementConstraint constraint(MaterialModel m, const Lame& l, const Tet& t, const std::array<Vec3, 4>& x) {
  ElementConstraint ec;
  element_constraint(m, l, x, t.Dm_inv, t.V0, ec);
  return ec;
}

// the constraint's stiffness C = compliance^{-1} on its meaningful rows
Eigen::MatrixXd stiffness(const ElementConstraint& ec) {
  return ec.compliance.topLeftCorner(ec.rows, ec.rows).inverse();
}

double constraint_energy(const ElementConstraint& ec) {
  const Eigen::VectorXd c = ec.c.head(ec.rows);
  return 0.5 * c.dot(stiffness(ec) * c);
}

Vec12 constraint_force(const ElementConstraint& ec) {
  const Eigen::VectorXd c = ec.c.head(ec.rows);
  return -ec.J.topRows(ec.rows).transpose() * (stiffness(ec) * c);
}

// the constant 1/2 c^T C c - V0 Psi: V0 (3 mu / 2 + mu^2 / (2 lambda)) for stable Neo-Hookean
double energy_offset(MaterialModel m, const Lame& l, double V0) {
  return m == MaterialModel::NeoHookean ? V0 * (1.5 * l.mu + 0.5 * l.mu * l.mu / l.lambda) : 0.0;
}

}  // namespace

class ElementModels : public ::testing::TestWithParam<MaterialModel> {};

TEST_P(ElementModels, JacobianMatchesFiniteDifferencesOfTheConstraint) {
  const MaterialModel m = GetParam();
  const Tet t = rest_tet();
  const std::array<Vec3, 4> x = deformed(t);
  const ElementConstraint ec = constraint(m, kLame, t, x);
  Eigen::Matrix<double, 6, 12> fd;
  if (m == MaterialModel::Corotational) {
    // J holds the polar rotation fixed: compare with FD of c at a frozen R (the FD of the full
    // c differs by the rotation derivative, which the force test below shows is force-free)
    const Mat3 R = polar_rotation(deformation_gradient(x, t.Dm_inv));
    fd = fd_jacobian(x, [&](const std::array<Vec3, 4>& y) {
      const Mat3 G = R.transpose() * deformation_gradient(y, t.Dm_inv);
      return Vec6(std::sqrt(t.V0) * strain_vec6(0.5 * (G + G.transpose()) - Mat3::Identity()));
    });
  } else if (m == MaterialModel::NeoHookean) {
    // the compliance form: J is the Jacobian of the principal stretches s, not of c
    fd = fd_jacobian(x, [&](const std::array<Vec3, 4>& y) {
      Mat3 U, V;
      Vec3 s;
      signed_svd(deformation_gradient(y, t.Dm_inv), U, s, V);
      Vec6 out = Vec6::Zero();
      out.head<3>() = s;
      return out;
    });
  } else {
    fd = fd_jacobian(x, [&](const std::array<Vec3, 4>& y) { return constraint(m, kLame, t, y).c; });
  }
  const double err = (ec.J.topRows(ec.rows) - fd.topRows(ec.rows)).norm() / ec.J.norm();
  RecordProperty("relative_fd_error", sci(err));
  EXPECT_LT(err, 1e-8);
  EXPECT_TRUE(ec.J.bottomRows(6 - ec.rows).isZero());
}

TEST_P(ElementModels, ConstraintEnergyEqualsRestVolumeTimesEnergyDensity) {
  // seed 002 eq. 15: U = 1/2 c^T C c must be the element's elastic energy V0 Psi(F)
  // (Neo-Hookean's compliance form is a local quadratic model instead: its own test below)
  const MaterialModel m = GetParam();
  if (m == MaterialModel::NeoHookean) GTEST_SKIP() << "compliance form: see NeoHookeanComplianceIsTheInverseHessian";
  const Tet t = rest_tet();
  for (const auto& x : {deformed(t), t.rest}) {
    const ElementConstraint ec = constraint(m, kLame, t, x);
    const double U = t.V0 * energy_density(m, kLame, deformation_gradient(x, t.Dm_inv));
    EXPECT_NEAR(constraint_energy(ec), U + energy_offset(m, kLame, t.V0), 1e-12);
  }
  // realistic moduli (E = 1 MPa, nu = 0.3): same identity, relative
  const Lame l = lame_from_young(1e6, 0.3);
  const std::array<Vec3, 4> x = deformed(t);
  const double U = t.V0 * energy_density(m, l, deformation_gradient(x, t.Dm_inv)) + energy_offset(m, l, t.V0);
  EXPECT_NEAR(constraint_energy(constraint(m, l, t, x)) / U, 1.0, 1e-12);
}

TEST_P(ElementModels, ConstraintForceEqualsElasticForce) {
  // seed 002 s.2.3: f_e = -J^T C c is the elastic force -V0 dPsi/dx
  const MaterialModel m = GetParam();
  const Tet t = rest_tet();
  for (const auto& x : {deformed(t), t.rest}) {
    Vec12 f;
    element_forces(m, kLame, x, t.Dm_inv, t.V0, f);
    EXPECT_LT((constraint_force(constraint(m, kLame, t, x)) - f).norm(), 1e-12 * std::max(1.0, f.norm()));
  }
}

TEST_P(ElementModels, ElasticForceIsMinusTheEnergyGradient) {
  const MaterialModel m = GetParam();
  const Tet t = rest_tet();
  std::vector<std::array<Vec3, 4>> configs = {deformed(t)};
  // stable Neo-Hookean and corotational are defined through inversion
  if (m == MaterialModel::NeoHookean || m == MaterialModel::Corotational) configs.push_back(inverted(t));
  double worst = 0.0;
  for (const auto& x : configs) {
    Vec12 f, fd;
    element_forces(m, kLame, x, t.Dm_inv, t.V0, f);
    for (int k = 0; k < 12; ++k) {
      const double up = energy_density(m, kLame, deformation_gradient(perturbed(x, k, kH), t.Dm_inv));
      const double dn = energy_density(m, kLame, deformation_gradient(perturbed(x, k, -kH), t.Dm_inv));
      fd(k) = -t.V0 * (up - dn) / (2.0 * kH);
    }
    const double err = (f - fd).norm() / f.norm();
    worst = std::max(worst, err);
    EXPECT_LT(err, 1e-7) << "det F = " << deformation_gradient(x, t.Dm_inv).determinant();
  }
  RecordProperty("relative_fd_error", sci(worst));
}

TEST_P(ElementModels, ForcesHaveNoNetForceAndRotationInvariantOnesNoNetTorque) {
  const MaterialModel m = GetParam();
  const Tet t = rest_tet();
  const std::array<Vec3, 4> x = deformed(t);
  Vec12 f;
  element_forces(m, kLame, x, t.Dm_inv, t.V0, f);
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  for (int i = 0; i < 4; ++i) {
    force += f.segment<3>(3 * i);
    torque += x[std::size_t(i)].cross(f.segment<3>(3 * i));
  }
  EXPECT_LT(force.norm(), 1e-13 * f.norm());
  // angular momentum is conserved by internal forces of a rotation-invariant energy only
  if (m == MaterialModel::Linear)
    EXPECT_GT(torque.norm(), 1e-3 * f.norm());
  else
    EXPECT_LT(torque.norm(), 1e-12 * f.norm());
}

INSTANTIATE_TEST_SUITE_P(AllModels, ElementModels, all_material_models(), material_test_name);

TEST(ElementConstraint, CorotationalRotationDerivativeIsForceFree) {
  // the J of element_constraint drops dR/dx; the full derivative of c (by FD) gives the same
  // force -J^T C c, because R^T F is symmetric and its stress commutes with it
  const Tet t = rest_tet();
  for (const auto& x : {deformed(t), inverted(t)}) {
    const ElementConstraint ec = constraint(MaterialModel::Corotational, kLame, t, x);
    const Eigen::Matrix<double, 6, 12> full = fd_jacobian(x, [&](const std::array<Vec3, 4>& y) {
      return constraint(MaterialModel::Corotational, kLame, t, y).c;
    });
    const Vec12 f_full = -full.transpose() * (strain_stiffness(kLame) * ec.c);
    Vec12 f;
    element_forces(MaterialModel::Corotational, kLame, x, t.Dm_inv, t.V0, f);
    EXPECT_LT((f_full - f).norm(), 1e-7 * f.norm());
    // ...while the Jacobians themselves differ (the frozen-R linearisation is a real choice)
    EXPECT_GT((full - ec.J).norm(), 1e-3 * ec.J.norm());
  }
}

TEST(ElementConstraint, DeformationGradientOfAnAffineMapIsItsMatrix) {
  const Tet t = rest_tet();
  Mat3 A;
  A << 1.2, 0.1, -0.3, 0.0, 0.9, 0.2, 0.4, -0.1, 1.1;
  std::array<Vec3, 4> x;
  for (std::size_t i = 0; i < 4; ++i) x[i] = A * t.rest[i] + Vec3(3, 2, 1);
  EXPECT_LT((deformation_gradient(x, t.Dm_inv) - A).norm(), 1e-13);
  EXPECT_LT((deformation_gradient(t.rest, t.Dm_inv) - Mat3::Identity()).norm(), 1e-14);
}

TEST(ElementConstraint, StrainStiffnessGivesTheStVKEnergyAndItsInverseIsTheCompliance) {
  // 1/2 s^T C s = mu S:S + lambda/2 tr(S)^2 for a symmetric S with tensor shear components
  Mat3 S;
  S << 0.3, -0.2, 0.5, -0.2, -0.4, 0.15, 0.5, 0.15, 0.1;
  const Vec6 s = strain_vec6(S);
  const double psi = kLame.mu * S.squaredNorm() + 0.5 * kLame.lambda * S.trace() * S.trace();
  EXPECT_NEAR(0.5 * s.dot(strain_stiffness(kLame) * s), psi, 1e-14);
  for (const Lame& l : {kLame, lame_from_young(1e6, 0.3), lame_from_young(1.0, -0.5), lame_from_young(5.0, 0.49)})
    EXPECT_LT((strain_compliance(l) * strain_stiffness(l) - Mat6::Identity()).norm(), 1e-12);
}

TEST(ElementConstraint, LinearJacobianIsConstant) {
  const Tet t = rest_tet();
  const ElementConstraint a = constraint(MaterialModel::Linear, kLame, t, t.rest);
  const ElementConstraint b = constraint(MaterialModel::Linear, kLame, t, deformed(t));
  EXPECT_EQ(a.J, b.J);
  EXPECT_TRUE(a.c.isZero());
}

TEST(ElementConstraint, RigidMotionLeavesRotationInvariantConstraintsAtRest) {
  const Tet t = rest_tet();
  const Mat3 R = Eigen::AngleAxisd(2.0, Vec3(0.2, 0.5, -1.0).normalized()).toRotationMatrix();
  std::array<Vec3, 4> x;
  for (std::size_t i = 0; i < 4; ++i) x[i] = R * t.rest[i] + Vec3(-1, 4, 2);
  EXPECT_LT(constraint(MaterialModel::StVK, kLame, t, x).c.norm(), 1e-14);
  EXPECT_LT(constraint(MaterialModel::Corotational, kLame, t, x).c.norm(), 1e-14);
  // the Neo-Hookean compliance form rests at c = 0 (zero rest multipliers)
  EXPECT_LT(constraint(MaterialModel::NeoHookean, kLame, t, x).c.norm(), 1e-12);
}

TEST(ElementConstraint, NeoHookeanConstraintFormNeedsPositiveLambda) {
  const Tet t = rest_tet();
  const Lame zero_lambda = lame_from_young(1.0, 0.0);
  EXPECT_FALSE(constraint_form_supported(MaterialModel::NeoHookean, zero_lambda));
  EXPECT_TRUE(constraint_form_supported(MaterialModel::StVK, zero_lambda));
  EXPECT_TRUE(constraint_form_supported(MaterialModel::NeoHookean, kLame));
  EXPECT_TRUE(constraint_form_supported(MaterialModel::NeoHookean, stable_neo_hookean_lame(zero_lambda)));
  EXPECT_FALSE(constraint_form_supported(MaterialModel::Linear, Lame{0.0, 1.0}));
  EXPECT_EQ(constraint(MaterialModel::NeoHookean, zero_lambda, t, deformed(t)).rows, 0);
  EXPECT_EQ(constraint(MaterialModel::StVK, zero_lambda, t, deformed(t)).rows, 6);
}

// seed 003 eq. 84 and App. B: the compliance is the inverse of V0 d2Psi/ds2 in the principal
// stretches, checked against finite differences of the App. B gradient, and that gradient
// against finite differences of the energy density along a stretch
TEST(ElementConstraint, NeoHookeanComplianceIsTheInverseHessianInPrincipalStretches) {
  const Vec3 s(1.2, 0.9, 1.05);
  Vec3 g;
  Mat3 H;
  neo_hookean_stretch_derivatives(kLame, s, g, H);
  const double h = 1e-6;
  Mat3 fd;
  for (int q = 0; q < 3; ++q) {
    Vec3 d = Vec3::Zero();
    d[q] = h;
    Vec3 gp, gm;
    Mat3 Hp, Hm;
    neo_hookean_stretch_derivatives(kLame, s + d, gp, Hp);
    neo_hookean_stretch_derivatives(kLame, s - d, gm, Hm);
    fd.col(q) = (gp - gm) / (2.0 * h);
    const double dpsi = (energy_density(MaterialModel::NeoHookean, kLame, Mat3((s + d).asDiagonal())) -
                         energy_density(MaterialModel::NeoHookean, kLame, Mat3((s - d).asDiagonal()))) / (2.0 * h);
    EXPECT_NEAR(dpsi, g[q], 1e-7 * g.norm());
  }
  EXPECT_LT((fd - H).norm(), 1e-7 * H.norm());
  // through element_constraint on a deformed tet: compliance = (V0 H)^-1 where H needs no projection
  const Tet t = rest_tet();
  const ElementConstraint ec = constraint(MaterialModel::NeoHookean, kLame, t, deformed(t));
  Mat3 U, V;
  Vec3 st;
  signed_svd(deformation_gradient(deformed(t), t.Dm_inv), U, st, V);
  neo_hookean_stretch_derivatives(kLame, st, g, H);
  EXPECT_LT((ec.compliance.topLeftCorner<3, 3>() * (t.V0 * H) - Mat3::Identity()).norm(), 1e-9);
  EXPECT_EQ(ec.rows, 3);
}

}  // namespace element_constraint_test
