// Quaternion kinematics (seed 000 eq. 65-67) and the gyroscopic term (eq. 61).
#include <coulomb/integrators.h>
#include <gtest/gtest.h>

#include <numbers>

using namespace coulomb;

namespace {
RigidModel one_body(const Vec3& inertia) {
  RigidModel m;
  m.add("b", 0, 0, false, 1.0, inertia, Pose{});
  return m;
}
}  // namespace

TEST(Quaternion, RateIsHalfOmegaTimesQ) {
  const Quat q = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Vec3 w(0.3, -1.2, 0.5);
  const Quat expected = Quat(0, w.x(), w.y(), w.z()) * q;  // dQ/dt = 1/2 [0, w] * Q, w in the world frame
  const Eigen::Vector4d rate = quaternion_rate(q, w);
  EXPECT_NEAR(rate[0], 0.5 * expected.w(), 1e-15);
  EXPECT_NEAR(rate[1], 0.5 * expected.x(), 1e-15);
  EXPECT_NEAR(rate[2], 0.5 * expected.y(), 1e-15);
  EXPECT_NEAR(rate[3], 0.5 * expected.z(), 1e-15);
}

TEST(Quaternion, ConstantSpinMatchesTheExactRotation) {
  RigidModel m = one_body(Vec3::Ones());
  RigidState s;
  s.resize(1);
  const Vec3 axis = Vec3(1, -2, 0.5).normalized();
  s.w[0] = 2.0 * axis;  // 2 rad/s
  const double dt = 1e-4, T = 1.0;
  for (int i = 0; i < int(T / dt); ++i) integrate_positions(m, s, dt);
  const Quat exact(Eigen::AngleAxisd(2.0 * T, axis));
  EXPECT_NEAR(std::abs(s.q[0].dot(exact)), 1.0, 1e-7);
  EXPECT_NEAR(s.q[0].norm(), 1.0, 1e-14);  // normalised after every step (eq. 67)
}

TEST(Quaternion, PositionUpdateIsExplicitEuler) {
  RigidModel m = one_body(Vec3::Ones());
  RigidState s;
  s.resize(1);
  s.x[0] = Vec3(1, 2, 3);
  s.v[0] = Vec3(0.5, 0, -1);
  integrate_positions(m, s, 0.1);
  EXPECT_NEAR((s.x[0] - Vec3(1.05, 2, 2.9)).norm(), 0.0, 1e-15);
}

TEST(Quaternion, FixedBodiesDoNotMove) {
  RigidModel m;
  m.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  RigidState s;
  s.resize(1);
  s.v[0] = Vec3(1, 1, 1);
  integrate_positions(m, s, 1.0);
  EXPECT_EQ(s.x[0], Vec3::Zero());
}

TEST(Gyroscopic, TorqueFreeSpinAboutAPrincipalAxisIsSteady) {
  RigidModel m = one_body(Vec3(1, 2, 3));
  RigidState s;
  s.resize(1);
  s.w[0] = Vec3(0, 0, 5);
  std::vector<Vec6> u;
  for (bool implicit : {false, true}) {
    free_velocities(m, s, Vec3::Zero(), 0.01, implicit, u);
    EXPECT_NEAR((u[0].tail<3>() - s.w[0]).norm(), 0.0, 1e-12);
  }
}

TEST(Gyroscopic, ImplicitTermDoesNotGainEnergyWhereExplicitDoes) {
  // spin about the intermediate axis with a small perturbation: the explicit gyroscopic term
  // pumps energy into the tumbling motion, the implicit one does not (energy may only decay)
  for (bool implicit : {false, true}) {
    RigidModel m = one_body(Vec3(1, 2, 3));
    RigidState s;
    s.resize(1);
    s.w[0] = Vec3(0.05, 4.0, 0.05);
    auto energy = [&] {
      const Vec3 wb = s.q[0].conjugate() * s.w[0];
      return 0.5 * wb.dot(m.inertia[0].cwiseProduct(wb));
    };
    const double e0 = energy();
    std::vector<Vec6> u, dw(1, Vec6::Zero());
    for (int i = 0; i < 2000; ++i) {
      free_velocities(m, s, Vec3::Zero(), 0.01, implicit, u);
      apply_velocities(m, u, dw, s);
      integrate_positions(m, s, 0.01);
    }
    if (implicit) EXPECT_LE(energy(), e0 * (1 + 1e-9));
    else EXPECT_GT(energy(), e0 * 1.01);
  }
}

TEST(Gravity, FreeVelocityAddsGravityTimesDt) {
  RigidModel m = one_body(Vec3::Ones());
  RigidState s;
  s.resize(1);
  std::vector<Vec6> u;
  free_velocities(m, s, Vec3(0, 0, -9.81), 0.01, false, u);
  EXPECT_NEAR(u[0][2], -0.0981, 1e-15);
}
