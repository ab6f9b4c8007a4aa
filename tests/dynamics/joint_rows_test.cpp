// JointRows (dynamics/joint_rows.h): the inverse of each joint's equality block, against the
// block itself (A_EE A_EE^-1 = I), and its pseudo-inverse where the block is singular.
#include <coulomb/constraints.h>
#include <coulomb/joint_rows.h>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

using namespace coulomb;

namespace joint_rows_test {

namespace {

// a joint's rows between two bodies (or body a and the world) at random poses
JointRows rows_of(JointType type, bool world_b, unsigned seed, bool b_moves = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto vec = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  std::vector<Vec3> x{vec(), vec()};
  std::vector<Quat> q{Quat(Eigen::AngleAxisd(2.0, vec().normalized())), Quat(Eigen::AngleAxisd(1.0, vec().normalized()))};
  Configuration c;
  c.x = x.data();
  c.q = q.data();
  c.num_rigid = 2;
  JointConstraint j;
  j.type = type;
  j.a = 0;
  j.b = world_b ? -1 : 1;
  j.anchor_a = vec();
  j.anchor_b = vec();
  j.axis_a = vec().normalized();
  j.u1_a = j.axis_a.unitOrthogonal();
  j.u2_a = j.axis_a.cross(j.u1_a);
  j.axis_b = vec().normalized();
  j.u1_b = j.axis_b.unitOrthogonal();
  j.limited = true;
  j.lo = -0.5;
  j.hi = 0.5;
  BlockRows b;
  joint_rows(c, j, b);
  JointRows out;
  const std::vector<Vec6> u_free(2, Vec6::Zero());
  out.add_joint(j.a, j.b, b, u_free, 0.01);
  const std::vector<double> inv_mass{0.7, b_moves ? 1.3 : 0.0};
  const std::vector<Mat3> inv_inertia{Vec3(2, 3, 4).asDiagonal(), b_moves ? Mat3(Vec3(1, 5, 2).asDiagonal()) : Mat3::Zero()};
  out.finalize(inv_mass, inv_inertia);
  return out;
}

Eigen::MatrixXd equality_block(const JointRows& r) {
  const int n = r.rows_of(0), m = r.equality_rows[0];
  return Eigen::Map<const Eigen::MatrixXd>(r.block.data(), n, n).transpose().topLeftCorner(m, m);
}

}  // namespace

TEST(JointRows, EqualityBlockInverseTimesTheBlockIsTheIdentity) {
  for (const JointType t : {JointType::Ball, JointType::Hinge, JointType::Prismatic, JointType::Fixed})
    for (const bool world_b : {false, true})
      for (unsigned seed = 1; seed <= 5; ++seed) {
        const JointRows r = rows_of(t, world_b, seed);
        const int m = r.equality_rows[0];
        ASSERT_EQ(m, joint_equality_rows(t));
        const Eigen::MatrixXd E = equality_block(r);
        const Eigen::MatrixXd inv = Eigen::Map<const Eigen::MatrixXd>(r.inverse.data(), m, m);
        EXPECT_LT((E * inv - Eigen::MatrixXd::Identity(m, m)).cwiseAbs().maxCoeff(), 1e-9)
            << joint_type_name(t) << (world_b ? " to the world" : "") << ", seed " << seed;
      }
}

// A fixed joint's six rows to a body of point mass (no rotational inverse inertia on either
// side) cannot all move: the block is singular, and its pseudo-inverse E^+ satisfies E E^+ E = E.
TEST(JointRows, SingularEqualityBlockGetsItsPseudoInverse) {
  JointRows r = rows_of(JointType::Fixed, true, 3);
  const std::vector<double> inv_mass{0.7, 0.0};
  const std::vector<Mat3> inv_inertia{Mat3::Zero(), Mat3::Zero()};
  r.finalize(inv_mass, inv_inertia);
  const int m = r.equality_rows[0];
  const Eigen::MatrixXd E = equality_block(r);
  const Eigen::MatrixXd inv = Eigen::Map<const Eigen::MatrixXd>(r.inverse.data(), m, m);
  EXPECT_LT((E * inv * E - E).cwiseAbs().maxCoeff(), 1e-9 * E.cwiseAbs().maxCoeff());
  EXPECT_TRUE(inv.allFinite());
}

}  // namespace joint_rows_test
