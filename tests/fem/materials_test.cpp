// Hyperelastic materials: stresses against finite differences of the energy, rest and rotation
// invariance, the small-strain limit, and the Lame conversion (closed-form values).
#include <coulomb/materials.h>
#include "model_param.h"
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace materials_test {

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

// a Lame pair of order one, so finite-difference errors read directly as relative errors
const Lame kLame{1.0, 1.5};

// deterministic deformation gradients near the identity with det F > 0
std::vector<Mat3> random_gradients(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.4, 0.4);
  std::vector<Mat3> out;
  while (int(out.size()) < n) {
    Mat3 F = Mat3::Identity();
    for (int i = 0; i < 9; ++i) F(i / 3, i % 3) += u(rng);
    if (F.determinant() > 0.2) out.push_back(F);
  }
  return out;
}

// an inverted F (det < 0) with well separated singular values
Mat3 inverted_gradient() {
  const Mat3 U = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Mat3 V = Eigen::AngleAxisd(-0.4, Vec3(-2, 1, 0.5).normalized()).toRotationMatrix();
  return U * Vec3(1.3, 0.8, -0.35).asDiagonal() * V.transpose();
}

// central differences of energy_density in each of the 9 entries of F
Mat3 fd_piola(MaterialModel m, const Lame& l, const Mat3& F, double h = 1e-6) {
  Mat3 P;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Mat3 Fp = F, Fm = F;
      Fp(i, j) += h;
      Fm(i, j) -= h;
      P(i, j) = (energy_density(m, l, Fp) - energy_density(m, l, Fm)) / (2.0 * h);
    }
  return P;
}

}  // namespace

class MaterialModels : public ::testing::TestWithParam<MaterialModel> {};

TEST_P(MaterialModels, FirstPiolaIsTheGradientOfTheEnergy) {
  double worst = 0.0;
  for (const Mat3& F : random_gradients(20, 7)) {
    const Mat3 P = first_piola(GetParam(), kLame, F);
    const double err = (P - fd_piola(GetParam(), kLame, F)).norm() / std::max(1.0, P.norm());
    worst = std::max(worst, err);
    EXPECT_LT(err, 1e-7) << F;
  }
  RecordProperty("max_relative_fd_error", sci(worst));
}

TEST_P(MaterialModels, RestStateHasNoEnergyAndNoStress) {
  const Mat3 I = Mat3::Identity();
  EXPECT_NEAR(energy_density(GetParam(), kLame, I), 0.0, 1e-14);
  EXPECT_LT(first_piola(GetParam(), kLame, I).norm(), 1e-14);
  // with realistic moduli too (E = 1 MPa, nu = 0.3)
  const Lame steel_like = lame_from_young(1e6, 0.3);
  EXPECT_NEAR(energy_density(GetParam(), steel_like, I), 0.0, 1e-8);
  EXPECT_LT(first_piola(GetParam(), steel_like, I).norm(), 1e-8);
}

TEST_P(MaterialModels, SmallStrainMatchesLinearElasticity) {
  // P(I + d) = mu (d + d^T) + lambda tr(d) I + O(|d|^2) with the model's own linearised Lame
  // pair: (mu, lambda) for all but stable Neo-Hookean, which linearises to (mu, lambda - mu)
  const Lame l = GetParam() == MaterialModel::NeoHookean ? stable_neo_hookean_lame(kLame) : kLame;
  Mat3 d;
  d << 0.3, -0.2, 0.5, 0.1, -0.4, 0.2, -0.3, 0.6, 0.1;
  for (double s : {1e-3, 1e-4}) {
    const Mat3 ds = s * d;
    const Mat3 lin = kLame.mu * (ds + ds.transpose()) + kLame.lambda * ds.trace() * Mat3::Identity();
    const Mat3 P = first_piola(GetParam(), l, Mat3::Identity() + ds);
    EXPECT_LT((P - lin).norm(), 10.0 * s * s) << "step " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, MaterialModels, all_material_models(), material_test_name);

TEST(Materials, InvertedElementsHaveFiniteConsistentStress) {
  // stable Neo-Hookean and the reflection-fixed corotational model stay smooth through J < 0
  const Mat3 F = inverted_gradient();
  ASSERT_LT(F.determinant(), 0.0);
  for (MaterialModel m : {MaterialModel::Corotational, MaterialModel::NeoHookean}) {
    const Mat3 P = first_piola(m, kLame, F);
    ASSERT_TRUE(P.allFinite());
    const double err = (P - fd_piola(m, kLame, F)).norm() / std::max(1.0, P.norm());
    RecordProperty(std::string("inverted_fd_error_") + (m == MaterialModel::NeoHookean ? "nh" : "corot"),
                   sci(err));
    EXPECT_LT(err, 1e-7) << material_model_name(m);
  }
}

TEST(Materials, PolarRotationIsProperAlsoForInvertedF) {
  for (const Mat3& F : {random_gradients(1, 3)[0], inverted_gradient()}) {
    const Mat3 R = polar_rotation(F);
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-12);
    EXPECT_NEAR(R.determinant(), 1.0, 1e-12);
    const Mat3 S = R.transpose() * F;
    EXPECT_LT((S - S.transpose()).norm(), 1e-12);  // F = R S with S symmetric
  }
  // an inverted F's symmetric factor carries the inversion as one negative eigenvalue
  const Mat3 S = polar_rotation(inverted_gradient()).transpose() * inverted_gradient();
  EXPECT_LT(S.determinant(), 0.0);
}

TEST(Materials, RotationInvariantModelsIgnoreRigidRotation) {
  const Mat3 R = Eigen::AngleAxisd(1.1, Vec3(0.3, -1.0, 0.4).normalized()).toRotationMatrix();
  for (MaterialModel m : {MaterialModel::Corotational, MaterialModel::StVK, MaterialModel::NeoHookean}) {
    EXPECT_NEAR(energy_density(m, kLame, R), 0.0, 1e-13) << material_model_name(m);
    EXPECT_LT(first_piola(m, kLame, R).norm(), 1e-13) << material_model_name(m);
  }
  // the linear model measures sym(F) - I, which a rotation does not zero: it is not rotation
  // invariant (the reason corotational elasticity exists)
  EXPECT_GT(energy_density(MaterialModel::Linear, kLame, R), 0.1);
  EXPECT_GT(first_piola(MaterialModel::Linear, kLame, R).norm(), 0.1);
}

TEST(Materials, LameFromYoungMatchesClosedForm) {
  // mu = E / (2 (1 + nu)) = 1e6 / 2.6, lambda = E nu / ((1 + nu)(1 - 2 nu)) = 3e5 / 0.52
  const Lame l = lame_from_young(1e6, 0.3);
  EXPECT_NEAR(l.mu, 384615.38461538462, 1e-6);
  EXPECT_NEAR(l.lambda, 576923.07692307692, 1e-6);
  // nu = 0 decouples the axes; a negative nu gives a negative lambda
  EXPECT_DOUBLE_EQ(lame_from_young(2.0, 0.0).lambda, 0.0);
  EXPECT_DOUBLE_EQ(lame_from_young(2.0, 0.0).mu, 1.0);
  EXPECT_LT(lame_from_young(1.0, -0.5).lambda, 0.0);
}

TEST(Materials, LameFromYoungRejectsUnphysicalInput) {
  EXPECT_THROW(lame_from_young(0.0, 0.3), std::invalid_argument);
  EXPECT_THROW(lame_from_young(-1.0, 0.3), std::invalid_argument);
  EXPECT_THROW(lame_from_young(1e6, 0.5), std::invalid_argument);
  EXPECT_THROW(lame_from_young(1e6, -1.0), std::invalid_argument);
  EXPECT_THROW(lame_from_young(1e6, 0.7), std::invalid_argument);
  EXPECT_THROW(lame_from_young(std::nan(""), 0.3), std::invalid_argument);
  EXPECT_THROW(lame_from_young(1e6, std::nan("")), std::invalid_argument);
  EXPECT_THROW(lame_from_young(std::numeric_limits<double>::infinity(), 0.3), std::invalid_argument);
}

TEST(Materials, ParsesSceneNames) {
  EXPECT_EQ(parse_material_model("linear"), MaterialModel::Linear);
  EXPECT_EQ(parse_material_model("corotational"), MaterialModel::Corotational);
  EXPECT_EQ(parse_material_model("stvk"), MaterialModel::StVK);
  EXPECT_EQ(parse_material_model("neo-hookean"), MaterialModel::NeoHookean);
  EXPECT_FALSE(parse_material_model("NeoHookean").has_value());
  EXPECT_FALSE(parse_material_model("").has_value());
  for (MaterialModel m : {MaterialModel::Linear, MaterialModel::Corotational, MaterialModel::StVK,
                          MaterialModel::NeoHookean})
    EXPECT_EQ(parse_material_model(material_model_name(m)), m);
}

namespace coulomb {
namespace {

// polar_rotation's closed-form fast path (eigen-decomposition of F^T F) against the SVD:
// rotations of strains from 1e-3 to 0.5, and the SVD fallback for inverted F
TEST(Materials, PolarRotationFastPathMatchesTheSvd) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int t = 0; t < 3000; ++t) {
    const double scale = t % 3 == 0 ? 1e-3 : (t % 3 == 1 ? 0.1 : 0.5);
    Mat3 A;
    for (int i = 0; i < 9; ++i) A(i / 3, i % 3) = scale * u(rng);
    const Mat3 F = Eigen::AngleAxisd(3.0 * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()).toRotationMatrix() *
                   (Mat3::Identity() + A);
    Mat3 U, V;
    Vec3 s;
    signed_svd(F, U, s, V);
    const Mat3 R = polar_rotation(F);
    worst = std::max(worst, (R - U * V.transpose()).norm());
    EXPECT_NEAR(R.determinant(), 1.0, 1e-12);
  }
  EXPECT_LT(worst, 1e-10);
}

}  // namespace
}  // namespace coulomb

}  // namespace materials_test
