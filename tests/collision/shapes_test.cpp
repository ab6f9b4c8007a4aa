// Tests for collision/src/shapes.cpp: convex hulls, bounding boxes and support mappings,
// each checked against an independent oracle (known cube geometry, brute-force sampling of
// the surface, Euler's formula).
#include <coulomb/shapes.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

namespace coulomb {
namespace {

constexpr double kPi = 3.14159265358979323846;

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Vec3(g(rng), g(rng), g(rng)).normalized();
}

std::vector<Vec3> cube_corners(double h) {
  std::vector<Vec3> v;
  for (int i = 0; i < 8; ++i) v.emplace_back((i & 1) ? h : -h, (i & 2) ? h : -h, (i & 4) ? h : -h);
  return v;
}

// the loop's own (Newell) normal, to check orientation independently of face_normals
Vec3 loop_normal(const ConvexHull& h, const std::vector<int>& loop) {
  Vec3 n = Vec3::Zero();
  for (std::size_t i = 0; i < loop.size(); ++i)
    n += h.vertices[std::size_t(loop[i])].cross(h.vertices[std::size_t(loop[(i + 1) % loop.size()])]);
  return n.normalized();
}

// every face: outward unit normal, ccw loop, vertices on its plane, all vertices behind it
void expect_valid_hull(const ConvexHull& h, double tol = 1e-9) {
  ASSERT_EQ(h.faces.size(), h.face_normals.size());
  ASSERT_EQ(h.faces.size(), h.face_offsets.size());
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    const Vec3& n = h.face_normals[f];
    EXPECT_NEAR(n.norm(), 1.0, 1e-12);
    EXPECT_GT(loop_normal(h, h.faces[f]).dot(n), 1.0 - 1e-9) << "face " << f << " is not ccw from outside";
    for (int v : h.faces[f]) EXPECT_NEAR(n.dot(h.vertices[std::size_t(v)]), h.face_offsets[f], tol);
    for (const Vec3& v : h.vertices) EXPECT_LE(n.dot(v), h.face_offsets[f] + tol);
  }
}

TEST(ShapeTypeName, NamesEveryType) {
  EXPECT_STREQ(shape_type_name(ShapeType::Sphere), "sphere");
  EXPECT_STREQ(shape_type_name(ShapeType::Box), "box");
  EXPECT_STREQ(shape_type_name(ShapeType::Capsule), "capsule");
  EXPECT_STREQ(shape_type_name(ShapeType::Cylinder), "cylinder");
  EXPECT_STREQ(shape_type_name(ShapeType::Plane), "plane");
  EXPECT_STREQ(shape_type_name(ShapeType::Convex), "convex");
  EXPECT_STREQ(shape_type_name(ShapeType::Compound), "compound");
}

TEST(ConvexHull, CubeWithInteriorAndFacePointsHasSixSquareFaces) {
  std::vector<Vec3> pts = cube_corners(0.5);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.4, 0.4);
  for (int i = 0; i < 50; ++i) pts.emplace_back(u(rng), u(rng), u(rng));  // interior
  for (int k = 0; k < 3; ++k) pts.push_back(0.5 * Vec3::Unit(k));      // face centres (coplanar)
  pts.push_back(Vec3(0.5, 0.1, -0.2));
  const ConvexHull h = make_convex_hull(pts);
  EXPECT_EQ(h.vertices.size(), 8u);
  ASSERT_EQ(h.faces.size(), 6u);
  std::set<std::tuple<int, int, int>> normals;
  for (std::size_t f = 0; f < 6; ++f) {
    EXPECT_EQ(h.faces[f].size(), 4u);
    const Vec3 n = h.face_normals[f];
    normals.insert({int(std::lround(n.x())), int(std::lround(n.y())), int(std::lround(n.z()))});
    EXPECT_NEAR(n.cwiseAbs().maxCoeff(), 1.0, 1e-12);  // axis aligned
    EXPECT_NEAR(h.face_offsets[f], 0.5, 1e-12);
  }
  EXPECT_EQ(normals.size(), 6u);  // all six directions, each once
  expect_valid_hull(h);
  for (const Vec3& v : h.vertices) EXPECT_NEAR(v.cwiseAbs().minCoeff(), 0.5, 0.0);  // exact input corners
}

TEST(ConvexHull, RotatedCubeMergesNearlyCoplanarTriangles) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    const Quat q = random_rotation(rng);
    std::vector<Vec3> pts;
    for (const Vec3& c : cube_corners(0.3)) pts.push_back(q * c);
    const ConvexHull h = make_convex_hull(pts);
    EXPECT_EQ(h.vertices.size(), 8u);
    EXPECT_EQ(h.faces.size(), 6u);
    expect_valid_hull(h);
  }
}

TEST(ConvexHull, PrismCapsBecomeSinglePolygons) {
  // a 12-sided prism (a faceted cylinder, as a mesh file would give it): 2 caps + 12 sides
  std::vector<Vec3> pts;
  for (int k = 0; k < 12; ++k)
    for (double z : {-0.3, 0.3}) pts.emplace_back(0.5 * std::cos(kPi * k / 6), 0.5 * std::sin(kPi * k / 6), z);
  const ConvexHull h = make_convex_hull(pts);
  EXPECT_EQ(h.vertices.size(), 24u);
  ASSERT_EQ(h.faces.size(), 14u);
  int caps = 0;
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    const bool cap = std::abs(h.face_normals[f].z()) > 0.999;
    caps += cap;
    EXPECT_EQ(h.faces[f].size(), cap ? 12u : 4u);
  }
  EXPECT_EQ(caps, 2);
  expect_valid_hull(h);
}

TEST(ConvexHull, RandomCloudContainsAllPointsAndSatisfiesEuler) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> pts;
  for (int i = 0; i < 200; ++i) pts.emplace_back(u(rng), 0.5 * u(rng), 2.0 * u(rng));
  const ConvexHull h = make_convex_hull(pts);
  expect_valid_hull(h);
  for (const Vec3& p : pts)
    for (std::size_t f = 0; f < h.faces.size(); ++f) EXPECT_LE(h.face_normals[f].dot(p), h.face_offsets[f] + 1e-12);
  // every hull vertex is one of the input points, bit for bit
  for (const Vec3& v : h.vertices) EXPECT_NE(std::find(pts.begin(), pts.end(), v), pts.end());
  // Euler: V - E + F = 2, with E = half the sum of loop lengths
  std::size_t half_edges = 0;
  for (const auto& f : h.faces) half_edges += f.size();
  EXPECT_EQ(int(h.vertices.size()) - int(half_edges / 2) + int(h.faces.size()), 2);
}

TEST(ConvexHull, DegenerateInputThrows) {
  EXPECT_THROW(make_convex_hull({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}), std::invalid_argument);
  // coplanar cloud: a flat square with points inside
  std::vector<Vec3> flat{Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(1, 1, 1), Vec3(0, 1, 1), Vec3(0.5, 0.5, 1)};
  EXPECT_THROW(make_convex_hull(flat), std::invalid_argument);
  // tilted plane
  std::vector<Vec3> tilted;
  for (int i = 0; i < 10; ++i) tilted.emplace_back(i % 3, i / 3, 0.5 * (i % 3) + 0.25 * (i / 3));
  EXPECT_THROW(make_convex_hull(tilted), std::invalid_argument);
  EXPECT_THROW(make_convex_hull({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(2, 2, 2), Vec3(3, 3, 3)}), std::invalid_argument);
  EXPECT_THROW(make_convex_hull(std::vector<Vec3>(5, Vec3(1, 2, 3))), std::invalid_argument);
  EXPECT_THROW(make_convex_hull({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, NAN)}), std::invalid_argument);
  try {
    make_convex_hull(flat);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("coplanar"), std::string::npos);
  }
}

TEST(BoxHull, MatchesHalfExtentsAndIsOutwardCcw) {
  const Vec3 h(1.0, 0.5, 0.25);
  const ConvexHull hull = box_hull(h);
  ASSERT_EQ(hull.vertices.size(), 8u);
  ASSERT_EQ(hull.faces.size(), 6u);
  expect_valid_hull(hull, 1e-15);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(hull.face_normals[std::size_t(2 * k + 1)], Vec3::Unit(k));
    EXPECT_EQ(hull.face_normals[std::size_t(2 * k)], -Vec3::Unit(k));
    EXPECT_EQ(hull.face_offsets[std::size_t(2 * k)], h[k]);
  }
}

// brute force: the AABB of sampled surface points must fit the computed one tightly
void expect_aabb_tight(const Aabb& box, const std::vector<Vec3>& surface, double tol) {
  Aabb sampled;
  for (const Vec3& p : surface) sampled.grow({p, p});
  for (int k = 0; k < 3; ++k) {
    EXPECT_LE(box.lo[k], sampled.lo[k] + 1e-12);
    EXPECT_GE(box.hi[k], sampled.hi[k] - 1e-12);
    EXPECT_NEAR(box.lo[k], sampled.lo[k], tol);
    EXPECT_NEAR(box.hi[k], sampled.hi[k], tol);
  }
}

std::vector<Vec3> sample_support(const Shape& s, const Pose& pose, int n) {
  std::mt19937 rng(5);
  std::vector<Vec3> pts;
  for (int i = 0; i < n; ++i) pts.push_back(pose.apply(support(s, random_unit(rng))));
  for (int k = 0; k < 3; ++k)
    for (double sign : {-1.0, 1.0}) pts.push_back(pose.apply(support(s, pose.q.conjugate() * (sign * Vec3::Unit(k)))));
  return pts;
}

TEST(Aabb, RotatedPrimitivesAndCompound) {
  ShapeLibrary lib;
  Shape box;
  box.type = ShapeType::Box;
  box.half_extents = Vec3(1.0, 0.5, 0.25);
  Shape cap;
  cap.type = ShapeType::Capsule;
  cap.radius = 0.2;
  cap.half_height = 0.7;
  Shape cyl;
  cyl.type = ShapeType::Cylinder;
  cyl.radius = 0.3;
  cyl.half_height = 0.4;
  const int ib = lib.add(box), ic = lib.add(cap), iy = lib.add(cyl);
  Shape comp;
  comp.type = ShapeType::Compound;
  comp.children = {{ib, {Vec3(1, 0, 0), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY()))}}, {ic, {Vec3(0, 2, 0), Quat::Identity()}}};
  const int io = lib.add(comp);

  // box rotated 45 degrees about z: closed form
  const Pose yaw{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(kPi / 4, Vec3::UnitZ()))};
  const Aabb b = lib.aabb(ib, yaw, 0.0);
  const double ex = 1.5 / std::sqrt(2.0);
  EXPECT_NEAR(b.hi.x(), 1 + ex, 1e-12);
  EXPECT_NEAR(b.lo.y(), 2 - ex, 1e-12);
  EXPECT_NEAR(b.hi.z(), 3.25, 1e-12);

  std::mt19937 rng(9);
  for (int trial = 0; trial < 5; ++trial) {
    const Pose pose{Vec3(0.1 * trial, -0.2, 0.3), random_rotation(rng)};
    // the box corners are its exact extreme points
    std::vector<Vec3> corners;
    for (const Vec3& c : box_hull(box.half_extents).vertices) corners.push_back(pose.apply(c));
    expect_aabb_tight(lib.aabb(ib, pose, 0.0), corners, 1e-12);
    expect_aabb_tight(lib.aabb(ic, pose, 0.0), sample_support(cap, pose, 4000), 1e-2);
    expect_aabb_tight(lib.aabb(iy, pose, 0.0), sample_support(cyl, pose, 4000), 1e-2);
    std::vector<Vec3> parts = sample_support(box, pose * comp.children[0].pose, 100);
    for (const Vec3& p : sample_support(cap, pose * comp.children[1].pose, 4000)) parts.push_back(p);
    expect_aabb_tight(lib.aabb(io, pose, 0.0), parts, 1e-2);
  }
  // margin grows every side
  const Aabb m = lib.aabb(ib, Pose{}, 0.1);
  EXPECT_NEAR(m.hi.x(), 1.1, 1e-15);
  EXPECT_NEAR(m.lo.z(), -0.35, 1e-15);
}

TEST(Aabb, PlaneIsInfiniteAndOverlapsEverything) {
  ShapeLibrary lib;
  Shape plane;
  plane.type = ShapeType::Plane;
  const int ip = lib.add(plane);
  Shape ball;
  ball.radius = 1.0;
  const int is = lib.add(ball);
  const Aabb p = lib.aabb(ip, Pose{}, 0.0);
  EXPECT_TRUE(std::isinf(p.lo.x()) && p.lo.x() < 0);
  EXPECT_TRUE(std::isinf(p.hi.z()) && p.hi.z() > 0);
  EXPECT_TRUE(p.overlaps(lib.aabb(is, Pose{Vec3(5, 5, 100), Quat::Identity()}, 0.0)));
}

// support(d) . d must equal the maximum over the shape: compare with dense surface sampling
TEST(Support, MaximisesTheDotProductOverSampledSurfaces) {
  Shape sphere;
  sphere.radius = 0.7;
  Shape box;
  box.type = ShapeType::Box;
  box.half_extents = Vec3(0.3, 0.6, 0.9);
  Shape cap;
  cap.type = ShapeType::Capsule;
  cap.radius = 0.25;
  cap.half_height = 0.5;
  Shape cyl;
  cyl.type = ShapeType::Cylinder;
  cyl.radius = 0.4;
  cyl.half_height = 0.6;
  Shape hull;
  hull.type = ShapeType::Convex;
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> cloud;
  for (int i = 0; i < 60; ++i) cloud.emplace_back(u(rng), u(rng), u(rng));
  hull.hull = make_convex_hull(cloud);

  // surface samples of each shape (hull: its vertices are the exact candidates)
  const auto samples = [&](const Shape& s) {
    std::vector<Vec3> pts;
    const int n = 64;
    for (int i = 0; i <= n; ++i)
      for (int j = 0; j < 2 * n; ++j) {
        const double th = kPi * i / n, ph = kPi * j / n;
        const Vec3 dir(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th));
        const Vec3 radial(std::cos(ph), std::sin(ph), 0.0);
        const double z = -1.0 + 2.0 * i / n;
        switch (s.type) {
          case ShapeType::Sphere: pts.push_back(s.radius * dir); break;
          case ShapeType::Box: pts.push_back(s.half_extents.cwiseProduct(Vec3(std::copysign(1.0, dir.x()), (j % 3) - 1.0, z))); break;
          case ShapeType::Capsule: pts.push_back(Vec3(0, 0, dir.z() >= 0 ? s.half_height : -s.half_height) + s.radius * dir); break;
          case ShapeType::Cylinder: pts.push_back(s.radius * radial + Vec3(0, 0, z * s.half_height)); break;
          default: break;
        }
      }
    if (s.type == ShapeType::Box)
      for (int i = 0; i < 8; ++i)
        pts.push_back(s.half_extents.cwiseProduct(Vec3((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1)));
    if (s.type == ShapeType::Convex) pts = cloud;
    return pts;
  };
  for (const Shape* s : {&sphere, &box, &cap, &cyl, &hull}) {
    const std::vector<Vec3> pts = samples(*s);
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 d = random_unit(rng) * (0.5 + trial % 3);
      const double best = support(*s, d).dot(d);
      double sampled = -1e300;
      for (const Vec3& p : pts) sampled = std::max(sampled, p.dot(d));
      // never beaten by a sample, and within the sampling resolution of the best one
      EXPECT_GE(best, sampled - 1e-12) << shape_type_name(s->type);
      EXPECT_LE(best, sampled + 0.05 * d.norm()) << shape_type_name(s->type);
    }
  }
  // axis directions hit exact extreme points
  EXPECT_EQ(support(box, Vec3(1, -1, 1)), Vec3(0.3, -0.6, 0.9));
  EXPECT_NEAR((support(cap, Vec3(0, 0, -2)) - Vec3(0, 0, -0.75)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(support(cyl, Vec3(1, 0, 1)).x(), 0.4, 1e-15);
  EXPECT_NEAR(support(cyl, Vec3(1, 0, 1)).z(), 0.6, 1e-15);
}

}  // namespace
}  // namespace coulomb
