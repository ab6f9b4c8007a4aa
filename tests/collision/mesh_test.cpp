// Tests for collision/src/mesh.cpp, mesh_collide.cpp and mesh_generators.cpp. Oracles: brute
// force (every triangle against the query box), closed-form volumes, the same contact computed by
// the primitive path (a mesh box against the box shape), and the one-sided normal rules.
#include <coulomb/mass_properties.h>
#include <coulomb/mesh_generators.h>
#include <coulomb/narrowphase.h>

#include "shape_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::mesh_test {
namespace {

constexpr double kEnv = 0.02;

using fixtures::box;
using fixtures::mesh_shape;
using fixtures::sphere;
Shape ground_plane() { return fixtures::plane(); }
// a flat square floor of n x n cells (2 n^2 triangles) in z = 0, facing +z, open
Surface floor_surface(int n, double size) {
  Surface s;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) s.vertices.emplace_back(size * (double(i) / n - 0.5), size * (double(j) / n - 0.5), 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int a = j * (n + 1) + i, b = a + 1, c = a + n + 2, d = a + n + 1;
      s.triangles.push_back({a, b, c});
      s.triangles.push_back({a, c, d});
    }
  return s;
}

std::vector<ContactPoint> collide(const ShapeLibrary& lib, int a, const Pose& pa, int b, const Pose& pb) {
  std::vector<ContactPoint> out;
  coulomb::collide(lib, a, pa, b, pb, kEnv, out);
  return out;
}

TEST(Mesh, ClosedBoxHasItsVolumeAndSharpEdgesOnly) {
  const auto m = make_tri_mesh(box_surface({1.0, 2.0, 0.5}).vertices, box_surface({1.0, 2.0, 0.5}).triangles);
  EXPECT_TRUE(m->closed);
  EXPECT_NEAR(m->volume, 8.0, 1e-12);
  // each face's diagonal is flat (not sharp); the 12 box edges are, and each is used twice
  int sharp = 0;
  for (std::uint8_t bits : m->sharp_edges) sharp += (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1);
  EXPECT_EQ(sharp, 24);
}

TEST(Mesh, InwardWindingIsFlippedOutwards) {
  Surface s = box_surface({1.0, 1.0, 1.0});
  for (auto& t : s.triangles) std::swap(t[1], t[2]);
  const auto m = make_tri_mesh(s.vertices, s.triangles);
  EXPECT_NEAR(m->volume, 8.0, 1e-12);
  for (std::size_t t = 0; t < m->triangles.size(); ++t) {
    const Vec3 c = (m->vertices[std::size_t(m->triangles[t][0])] + m->vertices[std::size_t(m->triangles[t][1])] +
                    m->vertices[std::size_t(m->triangles[t][2])]) / 3.0;
    EXPECT_GT(m->normals[t].dot(c), 0.0) << "triangle " << t << " faces inwards";
  }
}

TEST(Mesh, OpenSurfaceIsNotClosed) {
  const Surface s = floor_surface(2, 1.0);
  EXPECT_FALSE(make_tri_mesh(s.vertices, s.triangles)->closed);
}

TEST(Mesh, MassPropertiesOfAMeshBoxMatchTheBox) {
  ShapeLibrary lib;
  const int m = lib.add(mesh_shape(box_surface({0.3, 0.2, 0.1})));
  const int b = lib.add(box({0.3, 0.2, 0.1}));
  const MassProperties pm = mass_properties(lib, m, 700.0), pb = mass_properties(lib, b, 700.0);
  EXPECT_NEAR(pm.mass, pb.mass, 1e-12);
  EXPECT_LT((pm.inertia - pb.inertia).norm(), 1e-12);
  EXPECT_LT(pm.com.norm(), 1e-12);
}

TEST(Mesh, JackIsClosedAndHasTheVolumeOfItsCells) {
  const Surface s = jack_surface(0.1, 2);
  const auto m = make_tri_mesh(s.vertices, s.triangles);
  EXPECT_TRUE(m->closed);
  EXPECT_NEAR(m->volume, 13 * 1e-3, 1e-12);
}

TEST(Mesh, FunnelIsClosed) {
  const Surface s = funnel_surface(1.0, 0.2, 1.0, 0.3, 0.05, 32);
  const auto m = make_tri_mesh(s.vertices, s.triangles);
  EXPECT_TRUE(m->closed);
  EXPECT_GT(m->volume, 0.0);
}

TEST(Bvh, QueryFindsEveryTriangleABruteForceFinds) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> t;
  for (int i = 0; i < 500; ++i) {
    const Vec3 c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) v.push_back(c + 0.05 * Vec3(u(rng), u(rng), u(rng)));
    t.push_back({3 * i, 3 * i + 1, 3 * i + 2});
  }
  for (int k : {18, 26}) {
    const KdopBvh bvh = build_bvh(v, t, k);
    for (int q = 0; q < 50; ++q) {
      const Vec3 c(u(rng), u(rng), u(rng));
      std::vector<Vec3> pts;
      for (int i = 0; i < 8; ++i) pts.push_back(c + 0.2 * Vec3(u(rng), u(rng), u(rng)));
      const Kdop box = kdop_of(bvh, pts.data(), int(pts.size()));
      std::vector<int> found;
      bvh_query(bvh, box, 0.01, found);
      std::vector<int> brute;
      for (std::size_t i = 0; i < t.size(); ++i) {
        const Kdop ti = kdop_of(bvh, &v[3 * i], 3);
        if (kdop_overlap(ti, box, bvh.axes(), 0.01)) brute.push_back(int(i));
      }
      // leaves hold up to 4 triangles: every overlapping triangle is found, each once, in order
      EXPECT_TRUE(std::includes(found.begin(), found.end(), brute.begin(), brute.end())) << "k = " << k;
      EXPECT_TRUE(std::adjacent_find(found.begin(), found.end(), std::greater_equal<int>()) == found.end());
      EXPECT_LE(found.size(), 4 * brute.size() + 12);
    }
  }
}

TEST(Bvh, PairsMatchBruteForceAndRefitFollowsTheVertices) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> t;
  for (int i = 0; i < 200; ++i) {
    const Vec3 c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) v.push_back(c + 0.1 * Vec3(u(rng), u(rng), u(rng)));
    t.push_back({3 * i, 3 * i + 1, 3 * i + 2});
  }
  const KdopBvh a = build_bvh(v, t, 18);
  KdopBvh b = a;
  std::vector<Vec3> moved = v;
  for (Vec3& x : moved) x += Vec3(0.3, 0.0, 0.0);
  refit(b, moved, t);
  std::vector<std::pair<int, int>> pairs, brute;
  bvh_pairs(a, b, 0.0, pairs);
  std::sort(pairs.begin(), pairs.end());
  EXPECT_TRUE(std::adjacent_find(pairs.begin(), pairs.end()) == pairs.end());
  for (std::size_t i = 0; i < t.size(); ++i)
    for (std::size_t j = 0; j < t.size(); ++j)
      if (kdop_overlap(kdop_of(a, &v[3 * i], 3), kdop_of(a, &moved[3 * j], 3), 9, 0.0)) brute.emplace_back(int(i), int(j));
  EXPECT_TRUE(std::includes(pairs.begin(), pairs.end(), brute.begin(), brute.end()));
  EXPECT_FALSE(brute.empty());
}

// bvh_pairs with b's tree placed by a pose (no copy, issue 12): every leaf pair of the refitted
// copy (the oracle: b's tree refitted to its vertices moved into a's frame) is among them.
TEST(Bvh, PlacedPairsHoldTheRefittedCopysPairs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> t;
  for (int i = 0; i < 200; ++i) {
    const Vec3 c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) v.push_back(c + 0.1 * Vec3(u(rng), u(rng), u(rng)));
    t.push_back({3 * i, 3 * i + 1, 3 * i + 2});
  }
  const KdopBvh a = build_bvh(v, t, 18);
  const Pose b_in_a{Vec3(0.4, -0.2, 0.1), Quat(Eigen::AngleAxisd(0.8, Vec3(1, 2, 3).normalized()))};
  std::vector<Vec3> moved = v;
  for (Vec3& x : moved) x = b_in_a.apply(x);
  KdopBvh copy = a;
  refit(copy, moved, t);
  std::vector<std::pair<int, int>> placed, refitted;
  BvhWalkScratch scratch;
  bvh_pairs(a, a, b_in_a, 0.01, placed, scratch);
  bvh_pairs(a, copy, 0.01, refitted);
  std::sort(placed.begin(), placed.end());
  std::sort(refitted.begin(), refitted.end());
  EXPECT_FALSE(refitted.empty());
  EXPECT_TRUE(std::adjacent_find(placed.begin(), placed.end()) == placed.end());
  EXPECT_TRUE(std::includes(placed.begin(), placed.end(), refitted.begin(), refitted.end()));
  EXPECT_LT(placed.size(), 4 * refitted.size()) << "the bound should stay close to the copy's";
}

// A box resting on a tessellated floor gets a 4-point face manifold with the floor's normal and
// the depth of the primitive path, although its corners lie on different triangles.
TEST(MeshContact, BoxOnFloorGetsTheFloorNormalAndFourPoints) {
  ShapeLibrary lib;
  const int floor = lib.add(mesh_shape(floor_surface(4, 2.0)));
  const int b = lib.add(box({0.3, 0.2, 0.1}));
  const auto pts = collide(lib, floor, Pose{}, b, Pose{Vec3(0.07, 0.11, 0.1 - 0.002), Quat::Identity()});
  ASSERT_EQ(pts.size(), 4u);
  for (const ContactPoint& p : pts) {
    EXPECT_NEAR(p.normal.z(), 1.0, 1e-12);
    EXPECT_NEAR(p.depth, 0.002, 1e-12);
  }
}

// A ball over the shared (flat) diagonal of two floor triangles: face normal, no bump
// (sharp-edge rule); the same ball over the floor's open boundary edge keeps the edge normal.
TEST(MeshContact, BallOnAFlatEdgeTakesTheFaceNormal) {
  ShapeLibrary lib;
  const int floor = lib.add(mesh_shape(floor_surface(1, 2.0)));
  const int ball = lib.add(sphere(0.1));
  for (double x : {-0.5, 0.0, 0.3}) {
    const auto pts = collide(lib, floor, Pose{}, ball, Pose{Vec3(x, x, 0.099), Quat::Identity()});
    ASSERT_EQ(pts.size(), 1u) << x;
    EXPECT_NEAR(pts[0].normal.z(), 1.0, 1e-12);
    EXPECT_NEAR(pts[0].depth, 0.001, 1e-12);
  }
  // beyond the boundary edge at x = 1: the closest feature is the edge, its normal points out
  const auto pts = collide(lib, floor, Pose{}, ball, Pose{Vec3(1.05, 0.0, 0.05), Quat::Identity()});
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].normal.x(), std::sqrt(0.5), 1e-9);
  EXPECT_NEAR(pts[0].normal.z(), std::sqrt(0.5), 1e-9);
}

// One-sidedness: a ball below the floor (behind its triangles) gets no contact at all.
TEST(MeshContact, NothingBehindATriangle) {
  ShapeLibrary lib;
  const int floor = lib.add(mesh_shape(floor_surface(2, 2.0)));
  const int ball = lib.add(sphere(0.1));
  EXPECT_TRUE(collide(lib, floor, Pose{}, ball, Pose{Vec3(0.2, 0.1, -0.05), Quat::Identity()}).empty());
  EXPECT_TRUE(collide(lib, floor, Pose{}, lib.add(box(Vec3::Constant(0.1))), Pose{Vec3(0.2, 0.1, -0.05), Quat::Identity()}).empty());
}

// A mesh box against the box primitive and the plane: the same contacts as the primitive pair.
TEST(MeshContact, MeshBoxMatchesTheBoxPrimitive) {
  ShapeLibrary lib;
  const Vec3 h(0.3, 0.2, 0.1);
  const int mb = lib.add(mesh_shape(box_surface(h))), pb = lib.add(box(h));
  const int other = lib.add(box({0.25, 0.25, 0.05})), plane = lib.add(ground_plane());
  const Pose top{Vec3(0.05, -0.02, 0.15 - 0.003), Quat::Identity()};
  const auto mesh_pts = collide(lib, mb, Pose{}, other, top), box_pts = collide(lib, pb, Pose{}, other, top);
  ASSERT_EQ(mesh_pts.size(), 4u);
  ASSERT_EQ(box_pts.size(), 4u);
  for (const ContactPoint& p : mesh_pts) {
    EXPECT_NEAR(p.normal.z(), 1.0, 1e-9);
    EXPECT_NEAR(p.depth, 0.003, 1e-9);
  }
  const Pose resting{Vec3(0.0, 0.0, 0.1 - 0.001), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()))};
  const auto on_plane = collide(lib, mb, resting, plane, Pose{});
  ASSERT_EQ(on_plane.size(), 4u);
  for (const ContactPoint& p : on_plane) {
    EXPECT_NEAR(p.normal.z(), -1.0, 1e-12);
    EXPECT_NEAR(p.depth, 0.001, 1e-12);
  }
}

// Two mesh boxes stacked: one face manifold of 4 points along the stacking axis, in either order.
TEST(MeshContact, MeshOnMeshStack) {
  ShapeLibrary lib;
  const int m = lib.add(mesh_shape(box_surface({0.2, 0.2, 0.1})));
  const Pose lower{}, upper{Vec3(0.03, 0.01, 0.2 - 0.002), Quat(Eigen::AngleAxisd(0.2, Vec3::UnitZ()))};
  for (bool swap : {false, true}) {
    const auto pts = swap ? collide(lib, m, upper, m, lower) : collide(lib, m, lower, m, upper);
    ASSERT_GE(pts.size(), 3u);
    ASSERT_LE(pts.size(), 4u);
    for (const ContactPoint& p : pts) {
      EXPECT_NEAR(std::abs(p.normal.z()), 1.0, 1e-9);
      EXPECT_NEAR(p.normal.z(), swap ? -1.0 : 1.0, 1e-9);
      EXPECT_NEAR(p.depth, 0.002, 1e-9);
    }
  }
}

// The Tower's crossed blocks (narrowphase_oracle_test's CrossedBlocksWithAlignedCornersKeepTheirFourPoints)
// with the lower block a mesh: each block tilted by up to 4 mrad, their 0.2 m square of overlap
// sharing a corner and two sides with both (issue 12, eleventh session). Two faults of the
// triangles' path (mesh_collide.cpp), both fixed:
// - 261 of these 400 poses had fewer than 4 points along the face normal: edge axes a few mrad
//   off it, a few 1e-5 m shallower, gave edge points (now the face preference of penetration.cpp);
// - in 180 poses a side triangle, met edge-on by the upper block's bottom through its
//   diagonal, took its own normal at 0.2 m deep, the upper block's whole reach behind the side's
//   plane (now the replaced normal keeps the separating-axis depth).
// Both blocks meshes: 46 poses had fewer than 4 points along the face normal, 8 fewer than 3:
// mesh_mesh keeps the 32 deepest triangle pairs, and the blocks' flush sides (1e-4 m apart,
// facing the same way, so they give no point) took the places of the faces' pairs 0.5 mm apart.
// Such pairs now take no place: every pose has 4 face points in the GCC Release build, and at
// least 3 in the clang -O1 ASan build of CI (3 in 2 poses there), as MeshOnMeshStack allows.
TEST(MeshContact, CrossedBlocksOnAMeshKeepTheirFaceManifold) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ShapeLibrary lib;
  const Vec3 hl(0.3, 0.1, 0.06), hu(0.1, 0.3, 0.06);
  const int lower = lib.add(mesh_shape(box_surface(hl))), upper_box = lib.add(box(hu)), upper_mesh = lib.add(mesh_shape(box_surface(hu)));
  for (int trial = 0; trial < 400; ++trial) {
    const double gap = 0.001 * u(rng);
    const Pose pa{Vec3(0.0, -0.2, 0.06), Quat(Eigen::AngleAxisd(0.004 * u(rng), Vec3(u(rng), u(rng), 0.1 * u(rng)).normalized()))};
    const Pose pb{Vec3(-0.2 + 1e-4 * u(rng), 1e-4 * u(rng), 0.18 + gap),
                  Quat(Eigen::AngleAxisd(0.004 * u(rng), Vec3(u(rng), u(rng), 0.1 * u(rng)).normalized()))};
    int face = 0;
    for (const ContactPoint& c : collide(lib, lower, pa, upper_box, pb)) {
      EXPECT_LT(std::abs(c.depth), 0.005) << "trial " << trial;
      if (std::abs(c.normal.z()) < 0.5) continue;  // a side triangle's edge-on contact, shallow
      ++face;
      EXPECT_GT(c.normal.z(), 1.0 - 1e-5) << "trial " << trial;  // a face normal (each block tilts by at most 4 mrad)
    }
    EXPECT_GE(face, 4) << "trial " << trial;
    int mesh_face = 0;
    for (const ContactPoint& c : collide(lib, lower, pa, upper_mesh, pb)) {
      EXPECT_LT(std::abs(c.depth), 0.005) << "mesh-mesh trial " << trial;
      mesh_face += c.normal.z() > 1.0 - 1e-5;
    }
    EXPECT_GE(mesh_face, 3) << "mesh-mesh trial " << trial;  // 4 in the Release build; 3 in 2 poses with clang -O1
  }
}

// Non-convex: a jack lying on a floor touches it with several arms at once; a ball dropped into
// the crook between two arms touches both arms (two normals).
TEST(MeshContact, JackTouchesWithSeveralArms) {
  ShapeLibrary lib;
  const int jack = lib.add(mesh_shape(jack_surface(0.1, 2)));
  const int plane = lib.add(ground_plane());
  const auto on_plane = collide(lib, jack, Pose{Vec3(0.0, 0.0, 0.25 - 0.001), Quat::Identity()}, plane, Pose{});
  ASSERT_EQ(on_plane.size(), 4u);  // the bottom arm's end face
  const int ball = lib.add(sphere(0.1));
  // the ball sits in the crook of the +x and +z arms, touching both
  const double c = 0.05 + 0.1 - 0.001;
  const auto pts = collide(lib, jack, Pose{}, ball, Pose{Vec3(c, 0.0, c), Quat::Identity()});
  bool up = false, side = false;
  for (const ContactPoint& p : pts) {
    up = up || p.normal.z() > 0.99;
    side = side || p.normal.x() > 0.99;
  }
  EXPECT_TRUE(up && side) << pts.size() << " points";
}


// A box overlapping a jack arm's sharp top edge by 1.5 mm, along an axis 4 degrees off the arm's
// side (-y): within the tolerance of the triangle's feature test all three vertices lie "on top"
// (a face), but 4 degrees is more than the face test's 3, and the face-normal fallback clipped the
// box to the triangle's prism, where it is not. It got no contact at all, with any envelope
// (the funnel, issue 12: 21 such box-jack pairs in 100 steps, up to 6 mm deep a step later).
TEST(MeshContact, BoxOverASharpEdgeAtAFewDegreesKeepsItsContact) {
  ShapeLibrary lib;
  const int jack = lib.add(mesh_shape(jack_surface(0.04, 1)));  // scenes/meshes/jack.obj
  const int cube = lib.add(box(Vec3::Constant(0.045)));
  const Pose at{Vec3(-0.075424972, -0.080338261, -0.017972911), Quat(0.579516337, 0.598916511, -0.445361553, -0.327281096).normalized()};
  for (const double env : {0.0, kEnv}) {
    std::vector<ContactPoint> pts;
    coulomb::collide(lib, jack, Pose{}, cube, at, env, pts);
    double deepest = -1.0;
    Vec3 n = Vec3::Zero();
    for (const ContactPoint& p : pts)
      if (p.depth > deepest) deepest = p.depth, n = p.normal;
    EXPECT_NEAR(deepest, 0.0015, 2e-4) << pts.size() << " points, envelope " << env;
    EXPECT_GT(-n.y(), std::cos(5.0 * M_PI / 180.0)) << n.transpose();  // out of the arm's -y side
    pts.clear();
    coulomb::collide(lib, cube, at, jack, Pose{}, env, pts);  // and mirrored
    EXPECT_FALSE(pts.empty()) << "envelope " << env;
  }
}


// Two jacks of scenes/jacks.json (8 cm arms), the upper one standing on an arm end on the top
// side of the lower one's +x arm, turned about z, shifted, overhanging the arm's sides; the sides
// of the upper arm that face into the lower arm lie behind the lower arm's side planes, above
// them. Where the separating-axis test of such a pair of side triangles found them apart along
// an axis that is not kept, the face normal that replaces it would measure the upper side's
// whole reach behind the lower side's plane; a replaced normal keeps the test's depth.
// - overlapping by delta (1 to 2 mm) without tilts: no point is deeper than delta, and the
//   deepest is the cap on the side, along z (a side of one arm inside the other's by less than
//   delta is a contact that deep along the side's normal: the arms overlap that little
//   sideways);
// - 2 to 3 mm apart, each tilted by up to 5 mrad (the caps' corners lower by at most 1.4 mm):
//   no point overlaps.
TEST(MeshContact, StackedJacksGetNoPointDeeperThanTheirOverlap) {
  ShapeLibrary lib;
  const int jack = lib.add(mesh_shape(jack_surface(0.08, 1)));
  std::mt19937 rng(48);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto tilt = [&](double angle) { return Quat(Eigen::AngleAxisd(angle, Vec3(u(rng), u(rng), 0.0).normalized())); };
  const auto turn = [&] { return Quat(Eigen::AngleAxisd(M_PI * u(rng), Vec3::UnitZ())); };
  int apart_points = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const double env = trial % 2 ? 0.02 : 0.1;
    const double gap = 0.0025 + 0.0005 * u(rng);
    const Pose lower{Vec3::Zero(), tilt(0.005 * u(rng))};
    const Pose upper{Vec3(0.13 + 0.03 * u(rng), 0.07 * u(rng), 0.16 + gap), tilt(0.005 * u(rng)) * turn()};
    std::vector<ContactPoint> pts;
    coulomb::collide(lib, jack, lower, jack, upper, env, pts);
    for (const ContactPoint& p : pts) EXPECT_LT(p.depth, 0.0) << "apart, trial " << trial << " normal " << p.normal.transpose();
    apart_points += int(pts.size());

    const double delta = 0.001 * (1.0 + u(rng));
    const Pose on_side{Vec3(0.11 + 0.01 * u(rng), 0.04 * u(rng), 0.16 - delta), turn()};
    pts.clear();
    coulomb::collide(lib, jack, Pose{}, jack, on_side, env, pts);
    ContactPoint deepest;
    deepest.depth = -1.0;
    for (const ContactPoint& p : pts) {
      EXPECT_LE(p.depth, delta + 1e-9) << "overlapping, trial " << trial << " normal " << p.normal.transpose();
      if (p.depth > deepest.depth) deepest = p;
    }
    EXPECT_NEAR(deepest.depth, delta, 1e-9) << "trial " << trial;
    EXPECT_GT(deepest.normal.z(), 1.0 - 1e-9) << "trial " << trial;
  }
  EXPECT_GT(apart_points, 400);  // speculative points within the envelopes
}

// A speculative envelope as large as the bodies keeps nearly every triangle pair of two jacks
// (hundreds); only the deepest kMaxTrianglePairs make contact points. The real contact, the
// deepest point, is the same as with a small envelope, and the reduction still bounds the count.
TEST(MeshContact, WideEnvelopeKeepsTheDeepestContactOfTwoJacks) {
  ShapeLibrary lib;
  const int jack = lib.add(mesh_shape(jack_surface(0.1, 2)));
  // the upper jack's bottom arm end sinks 2 mm into the lower jack's top arm end, shifted sideways
  const Pose lower{}, upper{Vec3(0.02, -0.01, 0.5 - 0.002), Quat::Identity()};
  std::vector<ContactPoint> narrow, wide;
  coulomb::collide(lib, jack, lower, jack, upper, 0.01, narrow);
  coulomb::collide(lib, jack, lower, jack, upper, 0.6, wide);
  ASSERT_FALSE(narrow.empty());
  ASSERT_FALSE(wide.empty());
  const auto deepest = [](const std::vector<ContactPoint>& pts) {
    return *std::max_element(pts.begin(), pts.end(), [](const ContactPoint& x, const ContactPoint& y) { return x.depth < y.depth; });
  };
  const ContactPoint dn = deepest(narrow), dw = deepest(wide);
  EXPECT_NEAR(dn.depth, 0.002, 1e-9);
  EXPECT_NEAR(dw.depth, dn.depth, 1e-12);
  EXPECT_NEAR(dw.normal.z(), 1.0, 1e-9);
  EXPECT_LE(wide.size(), std::size_t(4 * 4));  // kMaxMeshManifolds groups of 4
  for (const ContactPoint& p : wide) EXPECT_GT(p.depth, -0.6);
}

// The kept triangle pairs of a mesh-mesh pair are the deepest kMaxTrianglePairs whatever the
// order of the tests (the largest box bounds first, tests stopped once a pair cannot rank): with
// a 5 cm envelope (hundreds of triangle pairs, the cap full, most tests stopped early) the
// deepest point of two jacks at random turns is as deep as with a 1 mm envelope (a few
// pairs, no cap): the cap never loses the deepest pair, and the wider envelope finds no deeper
// point either (a replaced face normal keeps its separating-axis depth, so a face's clipping
// cannot reach deeper points of the same faces).
TEST(MeshContact, WideEnvelopeKeepsTheDeepestContactAtRandomTurns) {
  ShapeLibrary lib;
  const int jack = lib.add(mesh_shape(jack_surface(0.1, 2)));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // arm end on arm end, tilted up to 0.15 rad, from 3 mm deep to 1 mm apart
    const Quat q(Eigen::AngleAxisd(0.15 * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()));
    const Pose lower{}, upper{Vec3(0.02 * u(rng), 0.02 * u(rng), 0.499 + 0.002 * u(rng)), q};
    std::vector<ContactPoint> narrow, wide;
    coulomb::collide(lib, jack, lower, jack, upper, 0.001, narrow);
    coulomb::collide(lib, jack, lower, jack, upper, 0.05, wide);
    const auto deepest = [](const std::vector<ContactPoint>& pts) {
      return std::max_element(pts.begin(), pts.end(), [](const ContactPoint& x, const ContactPoint& y) { return x.depth < y.depth; })->depth;
    };
    if (narrow.empty()) continue;  // apart: nothing to compare
    ASSERT_FALSE(wide.empty()) << trial;
    EXPECT_NEAR(deepest(wide), deepest(narrow), 1e-9) << trial;
    ++compared;
  }
  EXPECT_GE(compared, 20);
}

}  // namespace
}  // namespace coulomb::mesh_test
