// detect_uncovered_pairs (collision/detect.h): post-stabilisation's narrowphase over the step's
// pairs without a contact. With the bodies' motion since the detection, a pair whose relative
// motion stayed within half its reach then is not run, mesh pairs included.
#include <coulomb/detect.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "shape_fixtures.h"

using namespace coulomb;
using namespace coulomb::fixtures;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace uncovered_pairs_test {

namespace {

// Two unit cubes 5 mm apart along x, as at the end of a step; the envelope is 1 cm, so the
// narrowphase gives them contacts.
struct TwoCubes {
  ShapeLibrary lib;
  std::vector<int> body_shape;
  std::vector<Pose> poses{2};
  std::vector<std::uint8_t> is_static{0, 0};
  std::vector<std::pair<int, int>> pairs{{0, 1}};
  explicit TwoCubes(bool mesh) {
    const int cube = lib.add(box(Vec3::Constant(0.5)));
    const int m = mesh ? lib.add(mesh_shape(box_surface(Vec3::Constant(0.5)))) : cube;
    body_shape = {cube, m};
    poses[1].p = Vec3(1.005, 0.0, 0.0);
  }
  DetectInput input() const {
    DetectInput in;
    in.shapes = &lib;
    in.body_shape = &body_shape;
    in.shape_pose = &poses;
    in.is_static = &is_static;
    in.envelope = 0.01;
    return in;
  }
  std::size_t run(const CoveredMotion* motion) const {
    std::vector<Contact> out;
    detect_uncovered_pairs(input(), pairs, {}, out, nullptr, motion);
    return out.size();
  }
};

}  // namespace

TEST(UncoveredPairs, APairThatMovedLessThanHalfItsReachIsNotRunAgain) {
  const TwoCubes scene(false);
  const std::size_t all = scene.run(nullptr);
  ASSERT_GT(all, 0u);  // a face pair within the envelope
  // the detection covered 4 cm beyond the envelope; the cubes moved 1.5 cm together since, within
  // half of it (the margin for a separating axis that turns): their gap was then more than
  // 1 cm + 4 cm, and a contact now would contradict it
  std::vector<double> reach{0.04};
  std::vector<Vec3> shift{Vec3(0.01, 0.0, 0.0), Vec3(-0.005, 0.0, 0.0)};
  std::vector<double> turn{0.0, 0.0};
  const CoveredMotion within{&reach, &shift, &turn};
  EXPECT_EQ(scene.run(&within), 0u);
  // a turn counts: 6 mm more of rotation travel passes half the reach, and the pair runs
  turn = {0.003, 0.003};
  EXPECT_EQ(scene.run(&within), all);
  turn = {0.0, 0.0};
  shift[0] = Vec3(0.0, 0.021, 0.0);  // sideways, but relative motion all the same
  EXPECT_EQ(scene.run(&within), all);
}

TEST(UncoveredPairs, AMeshPairIsJudgedByItsMotionToo) {
  // a mesh pair within reach gets its contacts at the detection (mesh_collide.cpp), so its motion
  // vouches for it as for a convex pair: skipped within half the reach, run beyond
  const TwoCubes scene(true);
  std::vector<double> reach{0.04};
  std::vector<Vec3> shift{Vec3(0.01, 0.0, 0.0), Vec3::Zero()};
  std::vector<double> turn{0.0, 0.0};
  const CoveredMotion motion{&reach, &shift, &turn};
  const std::size_t all = scene.run(nullptr);
  EXPECT_GT(all, 0u);
  EXPECT_EQ(scene.run(&motion), 0u);
  shift[1] = Vec3(0.0, 0.0, 0.02);  // relative motion 2.2 cm, past half the reach
  EXPECT_EQ(scene.run(&motion), all);
}

TEST(UncoveredPairs, AMotionOfTheWrongSizeIsRejected) {
  const TwoCubes scene(false);
  std::vector<double> reach{0.02, 0.02};  // two reaches for one pair
  std::vector<Vec3> shift{Vec3::Zero(), Vec3::Zero()};
  std::vector<double> turn{0.0, 0.0};
  const CoveredMotion wrong{&reach, &shift, &turn};
  EXPECT_THROW(scene.run(&wrong), std::invalid_argument);
  reach.pop_back();
  turn.pop_back();
  EXPECT_THROW(scene.run(&wrong), std::invalid_argument);
}

}  // namespace uncovered_pairs_test
