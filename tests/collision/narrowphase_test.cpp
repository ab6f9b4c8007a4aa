// Tests for collision/src/narrowphase.cpp. Oracles: closed-form overlap regions of stacked
// boxes, ball distances, the exact support point of a cylinder, equivalence across paths
// (the box-box path against the hull path and the general manifold) and symmetry of the
// dispatch table. Depths
// against separating-axis and point-distance oracles: narrowphase_oracle_test.cpp.
#include "narrowphase_fixtures.h"
#include "../../collision/src/box_box.h"
#include "../../collision/src/features.h"

#include <algorithm>
#include <cmath>
#include <random>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::narrowphase_test {
namespace {

constexpr double kPi = 3.14159265358979323846;

using fixtures::about;
using fixtures::at;
using fixtures::convex;
using fixtures::kEnv;
using fixtures::run;

Shape sphere(double r) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.radius = r;
  return s;
}
Shape box(const Vec3& h, bool with_hull = true) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = h;
  if (with_hull) s.hull = box_hull(h);
  return s;
}
Shape capsule(double r, double hh) {
  Shape s;
  s.type = ShapeType::Capsule;
  s.radius = r;
  s.half_height = hh;
  return s;
}
Shape cylinder(double r, double hh) {
  Shape s = capsule(r, hh);
  s.type = ShapeType::Cylinder;
  return s;
}
Shape plane(const Vec3& n = Vec3::UnitZ(), double offset = 0.0) {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = n;
  s.offset = offset;
  return s;
}

// points in a fixed order so that two manifolds can be compared point by point
std::vector<ContactPoint> sorted(std::vector<ContactPoint> pts) {
  std::sort(pts.begin(), pts.end(), [](const ContactPoint& x, const ContactPoint& y) {
    return std::tie(x.point.x(), x.point.y(), x.point.z()) < std::tie(y.point.x(), y.point.y(), y.point.z());
  });
  return pts;
}

// every expected corner is matched by one contact point
void expect_points(const std::vector<ContactPoint>& pts, const std::vector<Vec3>& expected, double tol) {
  for (const Vec3& e : expected) {
    double best = 1e300;
    for (const ContactPoint& c : pts) best = std::min(best, (c.point - e).norm());
    EXPECT_LT(best, tol) << "no contact near " << e.transpose();
  }
}

// Box (0.5 cube) resting on a wide box with overlap d; the overlap region is known exactly.
class StackedBoxes : public ::testing::Test {
 protected:
  ShapeLibrary lib;
  int base = lib.add(box(Vec3(1.0, 1.0, 0.5)));
  int top = lib.add(box(Vec3(0.5, 0.5, 0.5)));
  int base_hull = lib.add(convex(box_hull(Vec3(1.0, 1.0, 0.5)).vertices));
  int top_hull = lib.add(convex(box_hull(Vec3(0.5, 0.5, 0.5)).vertices));
  static constexpr double d = 0.01;
  // top box centred at (x, y), overlap region [x-0.5, min(x+0.5, 1)] x [y-0.5, y+0.5]
  Pose top_pose(double x, double y, const Quat& q = Quat::Identity()) const { return at(Vec3(x, y, 1.0 - d), q); }
};

TEST_F(StackedBoxes, FaceToFaceGivesFourCornersWithExactDepth) {
  const auto pts = run(lib, base, Pose{}, top, top_pose(0.2, 0.1));
  ASSERT_EQ(pts.size(), 4u);
  for (const ContactPoint& c : pts) {
    EXPECT_NEAR(c.depth, d, 1e-9);
    EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.point.z(), 0.5 - d / 2, 1e-9);  // midway between the two faces
  }
  const double z = 0.5 - d / 2;
  expect_points(pts, {{-0.3, -0.4, z}, {0.7, -0.4, z}, {0.7, 0.6, z}, {-0.3, 0.6, z}}, 1e-9);
}

TEST_F(StackedBoxes, OverhangingBoxGivesCornersOfTheOverlap) {
  const auto pts = run(lib, base, Pose{}, top, top_pose(0.8, 0.0));
  ASSERT_EQ(pts.size(), 4u);
  const double z = 0.5 - d / 2;
  expect_points(pts, {{0.3, -0.5, z}, {1.0, -0.5, z}, {1.0, 0.5, z}, {0.3, 0.5, z}}, 1e-9);
  for (const ContactPoint& c : pts) EXPECT_NEAR(c.depth, d, 1e-9);
}

TEST_F(StackedBoxes, HullHullMatchesBoxBox) {
  for (const Vec3& xy : {Vec3(0.2, 0.1, 0), Vec3(0.8, 0.0, 0), Vec3(-0.7, 0.75, 0)}) {
    const auto bb = sorted(run(lib, base, Pose{}, top, top_pose(xy.x(), xy.y())));
    const auto hh = sorted(run(lib, base_hull, Pose{}, top_hull, top_pose(xy.x(), xy.y())));
    ASSERT_EQ(bb.size(), 4u);
    ASSERT_EQ(hh.size(), bb.size());
    for (std::size_t i = 0; i < bb.size(); ++i) {
      EXPECT_NEAR((bb[i].point - hh[i].point).norm(), 0.0, 1e-9);
      EXPECT_NEAR((bb[i].normal - hh[i].normal).norm(), 0.0, 1e-9);
      EXPECT_NEAR(bb[i].depth, hh[i].depth, 1e-9);
    }
  }
}

// Box pairs have their own manifold code (collision/src/box_box.h: features, clipping and
// reduction in the boxes' frames); the general path is convex_manifold (features.cpp) and
// reduce_manifold along the same axis (penetration() gives two boxes box_sat). Random sizes and
// poses, a third of them nearly stacked (a small yaw, where a clipped face has up to 8 points to
// reduce), within and beyond the envelope: the same manifold, but where an edge-edge contact's
// supporting edges or corners tie and round-off picks others (a corner's neighbour counts as an
// edge within kFeatureSin): then both are edge or corner contacts (feature ids 6 + corner), one
// point at the axis' depth or a line contact whose points may lie beyond the envelope.
TEST(Narrowphase, BoxManifoldMatchesTheGeneralManifold) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0), size(0.01, 0.4);
  int compared = 0, ties = 0;
  for (int trial = 0; trial < 30000; ++trial) {
    const Shape sa = box(Vec3(size(rng), size(rng), size(rng))), sb = box(Vec3(size(rng), size(rng), size(rng)));
    const bool stacked = trial % 3 == 0;
    const Pose pa = at(Vec3::Zero(), stacked ? Quat::Identity() : Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Pose pb =
        stacked ? at(Vec3(0.3 * u(rng), 0.3 * u(rng), sa.half_extents.z() + sb.half_extents.z() - 0.005 + 0.01 * u(rng)),
                     about(Vec3::UnitZ(), 0.02 * u(rng)))
                : at(0.6 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const detail::Placed a{0, sa, pa}, b{1, sb, pb};
    std::vector<ContactPoint> boxes, general;
    detail::box_box_contact(a, b, kEnv, boxes);
    ShapeLibrary lib;
    lib.add(sa);
    lib.add(sb);
    const double scale = fixtures::face_preference(lib, 0, pa, 1, pb) / 5e-3;  // the pair's size
    detail::Penetration pen;
    if (detail::penetration(a, b, scale, kEnv, pen)) detail::convex_manifold(a, b, pen, kEnv, general);
    reduce_manifold(general, 4);
    if (boxes.empty() && general.empty()) continue;
    ++compared;
    // the same points, in any order (round-off may reorder equal coordinates)
    const auto contains = [](const std::vector<ContactPoint>& pts, const ContactPoint& p) {
      return std::any_of(pts.begin(), pts.end(), [&](const ContactPoint& q) {
        return (p.point - q.point).norm() < 1e-9 && (p.normal - q.normal).norm() < 1e-9 && std::abs(p.depth - q.depth) < 1e-9;
      });
    };
    bool same = boxes.size() == general.size();
    for (const ContactPoint& p : boxes) same = same && contains(general, p);
    if (same) continue;
    ++ties;
    const auto edge_or_corner = [&](const std::vector<ContactPoint>& pts) {
      return pts.size() <= 2 && std::all_of(pts.begin(), pts.end(), [&](const ContactPoint& c) {
               return c.feature_a >= 6 && c.feature_b >= 6 && c.depth <= pen.depth + 1e-9;
             });
    };
    EXPECT_TRUE(edge_or_corner(boxes) && edge_or_corner(general))
        << "trial " << trial << ": " << boxes.size() << " against " << general.size() << " points, not a tie of edges";
  }
  std::printf("box pairs: %d with contacts, %d edge-edge contacts on other tied edges\n", compared, ties);
  EXPECT_GT(compared, 10000);
  EXPECT_LT(ties, compared / 1000);
}

TEST_F(StackedBoxes, RandomRotationsAboutTheNormalStillGiveFourPoints) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> yaw(0.0, 2.0 * kPi), shift(-0.25, 0.25);
  for (int trial = 0; trial < 20; ++trial) {
    const Quat q = about(Vec3::UnitZ(), yaw(rng));
    const Pose base_pose = at(Vec3::Zero(), about(Vec3::UnitZ(), yaw(rng)));
    const Pose p = top_pose(shift(rng), shift(rng), q);
    for (const auto& [a, b] : {std::pair{base, top}, std::pair{base_hull, top_hull}, std::pair{base, top_hull}}) {
      const auto pts = run(lib, a, base_pose, b, p);
      ASSERT_EQ(pts.size(), 4u) << "trial " << trial << " pair " << a << "," << b;
      for (const ContactPoint& c : pts) {
        EXPECT_NEAR(c.depth, d, 1e-9);
        EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
      }
    }
  }
}

TEST_F(StackedBoxes, SeparatedWithinEnvelopeGivesNegativeDepth) {
  const Pose p = at(Vec3(0.2, 0.1, 1.005));  // gap 0.005
  for (const auto& [a, b] : {std::pair{base, top}, std::pair{base_hull, top_hull}}) {
    const auto pts = run(lib, a, Pose{}, b, p);
    ASSERT_EQ(pts.size(), 4u);
    for (const ContactPoint& c : pts) {
      EXPECT_NEAR(c.depth, -0.005, 1e-9);
      EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
    }
    EXPECT_TRUE(run(lib, a, Pose{}, b, at(Vec3(0.2, 0.1, 1.03))).empty());  // gap 0.03 > envelope
  }
}

TEST_F(StackedBoxes, SwappedArgumentsFlipTheNormal) {
  for (const auto& [a, b] : {std::pair{base, top}, std::pair{base_hull, top_hull}}) {
    const auto ab = sorted(run(lib, a, Pose{}, b, top_pose(0.3, -0.2)));
    const auto ba = sorted(run(lib, b, top_pose(0.3, -0.2), a, Pose{}));
    ASSERT_EQ(ab.size(), ba.size());
    for (std::size_t i = 0; i < ab.size(); ++i) {
      EXPECT_NEAR((ab[i].normal + ba[i].normal).norm(), 0.0, 1e-9);
      EXPECT_NEAR((ab[i].point - ba[i].point).norm(), 0.0, 1e-9);
      EXPECT_NEAR(ab[i].depth, ba[i].depth, 1e-9);
    }
  }
}

TEST_F(StackedBoxes, EdgeOnFaceTiltedBoxAndBoxWithoutHull) {
  // top box rolled 45 degrees about x: its lowest edge sinks d into the base
  ShapeLibrary l2 = lib;
  const int bare = l2.add(box(Vec3(0.5, 0.5, 0.5), false));
  const Pose p = at(Vec3(0.0, 0.0, 0.5 + 0.5 * std::sqrt(2.0) - d), about(Vec3::UnitX(), kPi / 4));
  for (int b : {top, top_hull, bare}) {
    const auto pts = run(l2, base, Pose{}, b, p);
    ASSERT_GE(pts.size(), 2u);
    double deepest = -1;
    for (const ContactPoint& c : pts) deepest = std::max(deepest, c.depth);
    EXPECT_NEAR(deepest, d, 1e-9);
  }
}

TEST(Narrowphase, BoxOnPlaneGivesFourPoints) {
  ShapeLibrary lib;
  const int g = lib.add(plane());
  const int b = lib.add(box(Vec3(0.5, 0.3, 0.2)));
  const auto pts = run(lib, g, Pose{}, b, at(Vec3(1, 2, 0.19)));
  ASSERT_EQ(pts.size(), 4u);
  for (const ContactPoint& c : pts) {
    EXPECT_NEAR(c.depth, 0.01, 1e-12);
    EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);  // from the plane to the box
    EXPECT_NEAR(c.point.z(), -0.005, 1e-12);
  }
  expect_points(pts, {{0.5, 1.7, -0.005}, {1.5, 2.3, -0.005}}, 1e-12);
  // the plane's pose moves its half-space: tilted and lifted ground
  const Pose tilted = at(Vec3(0, 0, 1), about(Vec3::UnitY(), 0.3));
  const Vec3 n = tilted.rotate(Vec3::UnitZ());
  const Pose on = at(Vec3(0, 0, 1) + n * 0.19, tilted.q);
  const auto tp = run(lib, b, on, g, tilted);
  ASSERT_EQ(tp.size(), 4u);
  for (const ContactPoint& c : tp) {
    EXPECT_NEAR(c.depth, 0.01, 1e-12);
    EXPECT_NEAR((c.normal + n).norm(), 0.0, 1e-12);
  }
}

TEST(Narrowphase, SphereSphereIsExact) {
  ShapeLibrary lib;
  const int a = lib.add(sphere(0.5)), b = lib.add(sphere(0.3));
  const Vec3 dir = Vec3(1, 2, -2) / 3.0;
  const auto pts = run(lib, a, at(Vec3(1, 1, 1)), b, at(Vec3(1, 1, 1) + 0.7 * dir));
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.1, 1e-15);
  EXPECT_NEAR((pts[0].normal - dir).norm(), 0.0, 1e-15);
  // surfaces at 0.5 and 0.4 along dir: midway at 0.45
  EXPECT_NEAR((pts[0].point - (Vec3(1, 1, 1) + 0.45 * dir)).norm(), 0.0, 1e-15);
  const auto gap = run(lib, a, Pose{}, b, at(Vec3(0.81, 0, 0)));
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_NEAR(gap[0].depth, -0.01, 1e-15);
  EXPECT_TRUE(run(lib, a, Pose{}, b, at(Vec3(0.85, 0, 0))).empty());
}

TEST(Narrowphase, SphereBoxOnFaceOnEdgeAndInside) {
  ShapeLibrary lib;
  const int s = lib.add(sphere(0.25)), b = lib.add(box(Vec3(1.0, 0.5, 0.5)));
  const Pose box_pose = at(Vec3(0, 0, 1), about(Vec3::UnitZ(), 0.4));
  const Vec3 up = Vec3::UnitZ();
  // face: sphere above the top face, 0.05 deep
  auto pts = run(lib, s, at(box_pose.apply(Vec3(0.3, 0.1, 0.7))), b, box_pose);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.05, 1e-12);
  EXPECT_NEAR((pts[0].normal + up).norm(), 0.0, 1e-12);
  // edge: centre beyond the +x,+z edge along the diagonal
  const Vec3 diag = box_pose.rotate(Vec3(1, 0, 1).normalized());
  const Vec3 edge = box_pose.apply(Vec3(1.0, 0.0, 0.5));
  pts = run(lib, s, at(edge + 0.2 * diag), b, box_pose);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.05, 1e-12);
  EXPECT_NEAR((pts[0].normal + diag).norm(), 0.0, 1e-12);
  EXPECT_NEAR((pts[0].point - (edge - 0.025 * diag)).norm(), 0.0, 1e-12);
  // centre inside, nearest face is +y at distance 0.1
  pts = run(lib, s, at(box_pose.apply(Vec3(0.2, 0.4, 0.0))), b, box_pose);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.35, 1e-12);
  EXPECT_NEAR((pts[0].normal + box_pose.rotate(Vec3::UnitY())).norm(), 0.0, 1e-12);
  // swapped: normal from the box to the sphere
  const auto ba = run(lib, b, box_pose, s, at(edge + 0.2 * diag));
  ASSERT_EQ(ba.size(), 1u);
  EXPECT_NEAR((ba[0].normal - diag).norm(), 0.0, 1e-12);
}

TEST(Narrowphase, CapsuleOnPlaneLyingGivesTwoStandingGivesOne) {
  ShapeLibrary lib;
  const int g = lib.add(plane()), c = lib.add(capsule(0.2, 0.5));
  const auto lying = run(lib, c, at(Vec3(0, 0, 0.19), about(Vec3::UnitY(), kPi / 2)), g, Pose{});
  ASSERT_EQ(lying.size(), 2u);
  for (const ContactPoint& p : lying) {
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
    EXPECT_NEAR((p.normal + Vec3::UnitZ()).norm(), 0.0, 1e-12);
  }
  EXPECT_NEAR(std::abs(lying[0].point.x() - lying[1].point.x()), 1.0, 1e-12);
  const auto standing = run(lib, c, at(Vec3(0, 0, 0.69)), g, Pose{});
  ASSERT_EQ(standing.size(), 1u);
  EXPECT_NEAR(standing[0].depth, 0.01, 1e-12);
}

TEST(Narrowphase, CapsuleCapsuleParallelGivesTwoCrossedGivesOne) {
  ShapeLibrary lib;
  const int c = lib.add(capsule(0.2, 0.5));
  const Quat lie = about(Vec3::UnitY(), kPi / 2);
  const auto parallel = run(lib, c, at(Vec3::Zero(), lie), c, at(Vec3(0.3, 0, 0.39), lie));
  ASSERT_EQ(parallel.size(), 2u);
  for (const ContactPoint& p : parallel) EXPECT_NEAR(p.depth, 0.01, 1e-12);
  const auto crossed = run(lib, c, at(Vec3::Zero(), lie), c, at(Vec3(0.1, 0.05, 0.39), about(Vec3::UnitX(), kPi / 2)));
  ASSERT_EQ(crossed.size(), 1u);
  EXPECT_NEAR(crossed[0].depth, 0.01, 1e-12);
  EXPECT_NEAR((crossed[0].normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  // a sphere against the capsule side
  const int s = lib.add(sphere(0.1));
  const auto sc = run(lib, s, at(Vec3(0.2, 0.0, 0.29)), c, at(Vec3::Zero(), lie));
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_NEAR(sc[0].depth, 0.01, 1e-12);
  EXPECT_NEAR((sc[0].normal + Vec3::UnitZ()).norm(), 0.0, 1e-12);
}

TEST(Narrowphase, CylinderOnPlaneStandingLyingTilted) {
  ShapeLibrary lib;
  const int g = lib.add(plane()), y = lib.add(cylinder(0.3, 0.4));
  const auto standing = run(lib, y, at(Vec3(0, 0, 0.39)), g, Pose{});
  ASSERT_GE(standing.size(), 3u);
  ASSERT_LE(standing.size(), 4u);
  Vec3 mean = Vec3::Zero();
  for (const ContactPoint& p : standing) {
    EXPECT_NEAR(p.depth, 0.01, 1e-12);
    EXPECT_NEAR(std::hypot(p.point.x(), p.point.y()), 0.3, 1e-12);  // on the rim
    mean += p.point / double(standing.size());
  }
  EXPECT_LT(std::hypot(mean.x(), mean.y()), 0.1);  // well spread around the axis
  // (a small envelope: the neighbouring rim samples sit 0.023 higher)
  const auto lying = run(lib, y, at(Vec3(0, 0, 0.29), about(Vec3::UnitX(), kPi / 2)), g, Pose{}, 0.005);
  ASSERT_EQ(lying.size(), 2u);
  for (const ContactPoint& p : lying) EXPECT_NEAR(p.depth, 0.01, 1e-12);
  // tilted: the deepest point is the exact support point
  const Quat tilt = about(Vec3(1, 1, 0), 0.5);
  const Pose pose = at(Vec3(0, 0, 0.4), tilt);
  const Vec3 lowest = pose.apply(support(lib[y], pose.q.conjugate() * -Vec3::UnitZ()));
  const auto tilted = run(lib, y, pose, g, Pose{});
  ASSERT_GE(tilted.size(), 1u);
  double deepest = -1;
  for (const ContactPoint& p : tilted) deepest = std::max(deepest, p.depth);
  EXPECT_NEAR(deepest, -lowest.z(), 1e-12);
}

TEST(Narrowphase, CylinderStandingOnBoxGivesAtLeastThreePoints) {
  ShapeLibrary lib;
  const int b = lib.add(box(Vec3(1, 1, 0.5))), y = lib.add(cylinder(0.3, 0.4));
  for (const Quat& q : {Quat::Identity(), about(Vec3::UnitZ(), 0.7)}) {
    const auto pts = run(lib, b, Pose{}, y, at(Vec3(0.1, -0.2, 0.5 + 0.4 - 0.01), q));
    ASSERT_GE(pts.size(), 3u);
    ASSERT_LE(pts.size(), 4u);
    for (const ContactPoint& p : pts) {
      EXPECT_NEAR(p.depth, 0.01, 1e-9);
      EXPECT_NEAR((p.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
      EXPECT_NEAR(p.point.z(), 0.495, 1e-9);
      EXPECT_LE(std::hypot(p.point.x() - 0.1, p.point.y() + 0.2), 0.3 + 1e-9);
    }
  }
  // and the other way round: the box sitting on the cylinder's top cap
  const auto flipped = run(lib, y, Pose{}, b, at(Vec3(0, 0, 0.4 + 0.5 - 0.01), about(Vec3::UnitZ(), 0.3)));
  ASSERT_GE(flipped.size(), 3u);
  for (const ContactPoint& p : flipped) EXPECT_NEAR(p.depth, 0.01, 1e-9);
}

TEST(Narrowphase, CurvedPairsThroughEpa) {
  ShapeLibrary lib;
  const int s = lib.add(sphere(0.2)), y = lib.add(cylinder(0.3, 0.4)), c = lib.add(capsule(0.1, 0.3));
  const int h = lib.add(convex(box_hull(Vec3(0.5, 0.5, 0.5)).vertices));
  // sphere on the cylinder's top cap and on its side
  auto pts = run(lib, y, Pose{}, s, at(Vec3(0.1, 0, 0.59)));
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.01, 1e-9);
  EXPECT_NEAR((pts[0].normal - Vec3::UnitZ()).norm(), 0.0, 1e-6);
  pts = run(lib, y, Pose{}, s, at(Vec3(0, 0.49, 0.1)));
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.01, 1e-6);
  EXPECT_NEAR((pts[0].normal - Vec3::UnitY()).norm(), 0.0, 1e-3);
  // capsule lying on a hull face: a line contact
  pts = run(lib, h, Pose{}, c, at(Vec3(0, 0, 0.59), about(Vec3::UnitY(), kPi / 2)));
  ASSERT_EQ(pts.size(), 2u);
  for (const ContactPoint& p : pts) EXPECT_NEAR(p.depth, 0.01, 1e-9);
  // sphere resting on a hull within the envelope, then beyond it
  pts = run(lib, h, Pose{}, s, at(Vec3(0.1, 0.2, 0.71)));
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, -0.01, 1e-9);
  EXPECT_TRUE(run(lib, h, Pose{}, s, at(Vec3(0.1, 0.2, 0.75))).empty());
}

TEST(Narrowphase, PlanePlaneYieldsNothing) {
  ShapeLibrary lib;
  const int g = lib.add(plane());
  EXPECT_TRUE(run(lib, g, Pose{}, g, at(Vec3(0, 0, -1))).empty());
}

TEST(Narrowphase, CompoundRecursesIntoChildrenAndTagsFeatures) {
  ShapeLibrary lib;
  const int s = lib.add(sphere(0.2)), b = lib.add(box(Vec3(0.5, 0.5, 0.5))), g = lib.add(plane());
  Shape comp;
  comp.type = ShapeType::Compound;
  comp.children = {{s, at(Vec3(-1, 0, 0))}, {b, at(Vec3(1, 0, 0.6))}};
  const int k = lib.add(comp);
  // dumbbell resting on the ground: the sphere sinks 0.01, the box hovers 0.29 above it
  const auto pts = run(lib, k, at(Vec3(0, 0, 0.19)), g, Pose{});
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].depth, 0.01, 1e-12);
  EXPECT_EQ(pts[0].feature_a / 1024, 1);  // child 0
  // lower the box child into the ground too: 1 + 4 points, box features tagged with child 1
  const auto both = run(lib, g, Pose{}, k, at(Vec3(0, 0, -0.11)));
  ASSERT_EQ(both.size(), 5u);
  int from_box = 0;
  for (const ContactPoint& p : both) {
    EXPECT_NEAR((p.normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
    from_box += p.feature_b / 1024 == 2;
  }
  EXPECT_EQ(from_box, 4);
  // compound against compound
  const auto kk = run(lib, k, Pose{}, k, at(Vec3(0, 0, 0.99)));
  EXPECT_EQ(kk.size(), 4u);  // box child on box child; the spheres are 0.99 apart
}

TEST(Narrowphase, OutputIsDeterministic) {
  ShapeLibrary lib;
  const int y = lib.add(cylinder(0.3, 0.4)), h = lib.add(convex(box_hull(Vec3(0.5, 0.4, 0.3)).vertices));
  const Pose pa = at(Vec3(0, 0, 0), about(Vec3(1, 2, 3), 0.4)), pb = at(Vec3(0.2, 0.1, 0.6), about(Vec3(3, -1, 2), 1.1));
  const auto first = run(lib, y, pa, h, pb, 0.05);
  ASSERT_FALSE(first.empty());
  for (int i = 0; i < 5; ++i) {
    const auto again = run(lib, y, pa, h, pb, 0.05);
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t j = 0; j < first.size(); ++j) {
      EXPECT_EQ(again[j].point, first[j].point);
      EXPECT_EQ(again[j].normal, first[j].normal);
      EXPECT_EQ(again[j].depth, first[j].depth);
      EXPECT_EQ(again[j].feature_a, first[j].feature_a);
    }
  }
}

TEST(Narrowphase, SymmetricCallsFlipNormalsForEveryPairType) {
  ShapeLibrary lib;
  std::vector<int> ids = {lib.add(sphere(0.3)), lib.add(box(Vec3(0.3, 0.25, 0.2))), lib.add(capsule(0.2, 0.3)),
                          lib.add(cylinder(0.25, 0.3)), lib.add(convex(box_hull(Vec3(0.2, 0.3, 0.25)).vertices))};
  ids.push_back(lib.add(convex(box_hull(Vec3(0.3, 0.1, 0.2)).vertices)));
  std::mt19937 rng(4);
  std::normal_distribution<double> g;
  for (int a : ids)
    for (int b : ids) {
      const Pose pa = at(Vec3::Zero(), Quat(g(rng), g(rng), g(rng), g(rng)).normalized());
      const Pose pb = at(Vec3(0.2, 0.15, 0.25), Quat(g(rng), g(rng), g(rng), g(rng)).normalized());
      const auto ab = run(lib, a, pa, b, pb, 0.01);
      const auto ba = run(lib, b, pb, a, pa, 0.01);
      ASSERT_FALSE(ab.empty()) << a << " " << b;
      ASSERT_EQ(ab.size(), ba.size()) << a << " " << b;
      for (std::size_t i = 0; i < ab.size(); ++i) {
        EXPECT_EQ(ab[i].normal, -ba[i].normal) << a << " " << b;
        EXPECT_EQ(ab[i].point, ba[i].point);
        EXPECT_EQ(ab[i].depth, ba[i].depth);
        EXPECT_EQ(ab[i].feature_a, ba[i].feature_b);
      }
    }
}

// A shape outside the library (a soft vertex's ball) collides exactly as the same shape added
// to a copy of the library at index `b_id`, against every shape type and a compound.
TEST(Narrowphase, ShapeOutsideTheLibraryMatchesItsLibraryCopy) {
  ShapeLibrary lib;
  std::vector<int> ids = {lib.add(sphere(0.3)), lib.add(box(Vec3(0.3, 0.25, 0.2))), lib.add(capsule(0.2, 0.3)),
                          lib.add(cylinder(0.25, 0.3)), lib.add(convex(box_hull(Vec3(0.2, 0.3, 0.25)).vertices)),
                          lib.add(plane(Vec3(0.0, 0.6, 0.8), 0.1))};
  Shape compound;
  compound.type = ShapeType::Compound;
  compound.children = {{ids[1], at(Vec3(0.1, 0, 0))}, {ids[0], at(Vec3(-0.2, 0.1, 0))}};
  ids.push_back(lib.add(compound));
  const Shape ball = sphere(0.05);
  ShapeLibrary with_ball = lib;
  const int b_id = with_ball.add(ball);
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  std::size_t touching = 0;
  for (int a : ids)
    for (int trial = 0; trial < 20; ++trial) {
      const Pose pa = at(Vec3::Zero(), Quat(g(rng), g(rng), g(rng), g(rng)).normalized());
      const Pose pb = at(0.2 * Vec3(g(rng), g(rng), g(rng)));
      std::vector<ContactPoint> outside, copy;
      collide(lib, a, pa, ball, b_id, pb, 0.05, outside);
      collide(with_ball, a, pa, b_id, pb, 0.05, copy);
      ASSERT_EQ(outside.size(), copy.size()) << a;
      touching += copy.empty() ? 0 : 1;
      for (std::size_t i = 0; i < copy.size(); ++i) {
        EXPECT_EQ(outside[i].point, copy[i].point);
        EXPECT_EQ(outside[i].normal, copy[i].normal);
        EXPECT_EQ(outside[i].depth, copy[i].depth);
        EXPECT_EQ(outside[i].feature_a, copy[i].feature_a);
      }
    }
  EXPECT_GT(touching, 40u);
  std::vector<ContactPoint> none;
  EXPECT_EQ(collide(lib, ids[0], Pose{}, ball, 0, Pose{}, 0.05, none), 0);  // b_id must not name a library shape
}

// libccd's EPA (ccdGJKPenetration, through convex_convex) did not return for this 2 mm ball
// 2.07 cm from a rotated box-shaped hull, within the envelope (found by
// SoftContacts.BroadphasePairsGiveTheContactsOfEveryPair with a random scene). Its EPA loop has
// no iteration bound; penetration.cpp now bounds it by a support-call budget and falls back.
TEST(Narrowphase, SmallBallAgainstRotatedHullTerminates) {
  ShapeLibrary lib;
  const int a = lib.add(convex(box_hull(Vec3(0.04, 0.06, 0.05)).vertices));
  const int b = lib.add(sphere(0.002));
  const Pose pa = at(Vec3(-0.43407097078062395, 0.58252680105030163, -0.16214460722638896),
                     Quat(0.17023324202709542, 0.38844010506228466, 0.9039702036287609, -0.054523380668498114));
  const Pose pb = at(Vec3(-0.45518670447311532, 0.50670047382260541, -0.094518801307537231));
  std::vector<ContactPoint> out;
  collide(lib, a, pa, b, pb, 0.023100026683171397, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].depth, -(0.02270689844391606 - 0.002), 1e-6);  // the corner region's distance, less the radius
}

TEST(ReduceManifold, KeepsTheDeepestAndAtMostFourSpreadPoints) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<ContactPoint> pts;
    for (int i = 0; i < 12; ++i) pts.push_back({Vec3(u(rng), u(rng), 0.0), Vec3::UnitZ(), 0.1 * u(rng), i, 0});
    const auto deepest = *std::max_element(pts.begin(), pts.end(), [](auto& x, auto& y) { return x.depth < y.depth; });
    reduce_manifold(pts);
    ASSERT_EQ(pts.size(), 4u);
    EXPECT_TRUE(std::any_of(pts.begin(), pts.end(), [&](auto& p) { return p.feature_a == deepest.feature_a; }));
    for (std::size_t i = 1; i < pts.size(); ++i) EXPECT_LT(pts[i - 1].feature_a, pts[i].feature_a);  // input order kept
  }
  // the four corners of a square win over its interior points
  std::vector<ContactPoint> sq;
  for (int i = 0; i < 9; ++i) sq.push_back({Vec3(i % 3 - 1.0, i / 3 - 1.0, 0.0), Vec3::UnitZ(), 0.0, i, 0});
  sq[4].depth = 0.01;  // the centre is deepest: it stays, with three corners
  reduce_manifold(sq);
  ASSERT_EQ(sq.size(), 4u);
  int centre = 0, corners = 0;
  for (const ContactPoint& p : sq) {
    centre += p.feature_a == 4;
    corners += p.feature_a == 0 || p.feature_a == 2 || p.feature_a == 6 || p.feature_a == 8;
  }
  EXPECT_EQ(centre, 1);
  EXPECT_EQ(corners, 3);
  // small inputs are untouched; collinear ones keep their ends
  std::vector<ContactPoint> line;
  for (int i = 0; i < 6; ++i) line.push_back({Vec3(i, 0, 0), Vec3::UnitZ(), i == 2 ? 0.1 : 0.0, i, 0});
  reduce_manifold(line);
  ASSERT_EQ(line.size(), 3u);
  EXPECT_EQ(line[0].feature_a, 0);
  EXPECT_EQ(line[1].feature_a, 2);
  EXPECT_EQ(line[2].feature_a, 5);
  std::vector<ContactPoint> two(2, ContactPoint{Vec3::Zero(), Vec3::UnitZ(), 0.0});
  reduce_manifold(two);
  EXPECT_EQ(two.size(), 2u);
}

}  // namespace
}  // namespace coulomb::narrowphase_test
