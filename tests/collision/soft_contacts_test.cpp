// Tests for collision/src/soft_contacts.cpp. Oracles: closed-form signed distances of a point to
// a box, plane, ball, capsule and box-shaped mesh (the nearest face, not the nearest other one,
// for a point inside); the projection of a box corner onto a flat soft surface; the depth of a
// cube's corner inside another axis-aligned cube; determinism (two calls, 1 and 2 threads);
// trees refit across calls against trees built fresh; broadphase pairs against every pair.
#include <coulomb/mesh_generators.h>
#include <coulomb/soft_contacts.h>
#include <coulomb/tet_mesh.h>

#include "shape_fixtures.h"
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <random>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::soft_contacts_test {
namespace {

constexpr double kEnv = 0.01;
constexpr double kTol = 1e-9;

// the solver's gap of a contact at detection
double gap(const SoftContact& c) { return c.normal.dot(c.b.point - c.a.point) - c.offset; }

// A world of rigid bodies (one shape each) and soft surfaces, owning all the arrays.
struct Scene {
  ShapeLibrary lib;
  std::vector<int> body_shape;
  std::vector<Pose> pose;
  std::vector<std::uint8_t> is_static;
  std::vector<double> reach;
  struct Soft {
    std::vector<Vec3> x;
    std::vector<std::array<int, 3>> faces;
    std::vector<int> surface;
    double reach = 0.0;
  };
  std::vector<Soft> soft;

  int add_rigid(Shape s, const Pose& p, bool fixed = false, double r = 0.0) {
    body_shape.push_back(lib.add(std::move(s)));
    pose.push_back(p);
    is_static.push_back(fixed ? 1 : 0);
    reach.push_back(r);
    return int(body_shape.size()) - 1;
  }
  // a cloud of loose vertices (no triangles)
  void add_vertices(const std::vector<Vec3>& x) {
    Soft s;
    s.x = x;
    for (int i = 0; i < int(x.size()); ++i) s.surface.push_back(i);
    soft.push_back(std::move(s));
  }
  // a tetrahedral box moved by `shift`
  void add_soft_box(const Vec3& half, const std::array<int, 3>& n, const Vec3& shift) {
    const TetMesh m = box_tet_mesh(half, n);
    Soft s;
    for (const Vec3& x : m.rest) s.x.push_back(x + shift);
    s.faces = boundary_faces(m);
    for (const auto& f : s.faces) s.surface.insert(s.surface.end(), f.begin(), f.end());
    std::sort(s.surface.begin(), s.surface.end());
    s.surface.erase(std::unique(s.surface.begin(), s.surface.end()), s.surface.end());
    soft.push_back(std::move(s));
  }
  SoftDetectInput input(double thickness = 0.0, double envelope = kEnv) const {
    SoftDetectInput in;
    in.rigid.shapes = &lib;
    in.rigid.body_shape = &body_shape;
    in.rigid.shape_pose = &pose;
    in.rigid.is_static = &is_static;
    in.rigid.reach = &reach;
    in.rigid.envelope = envelope;
    for (const Soft& s : soft) in.soft.push_back({&s.x, &s.faces, &s.surface, s.reach});
    in.thickness = thickness;
    return in;
  }
  std::vector<SoftContact> detect(double thickness = 0.0, double envelope = kEnv) const {
    std::vector<SoftContact> out;
    detect_soft_contacts(input(thickness, envelope), out);
    return out;
  }
};

using fixtures::box;
using fixtures::capsule;
using fixtures::plane;
using fixtures::sphere;
Shape mesh_box(const Vec3& h) { return fixtures::mesh_shape(box_surface(h)); }
Shape convex_box(const Vec3& h) {
  Shape s;
  s.type = ShapeType::Convex;
  s.hull = make_convex_hull(box_hull(h).vertices);
  return s;
}

Pose at(const Vec3& p, const Quat& q = Quat::Identity()) { return Pose{p, q}; }

std::vector<SoftContact> of_kind(const std::vector<SoftContact>& all, SoftContactKind k) {
  std::vector<SoftContact> out;
  for (const SoftContact& c : all)
    if (c.kind == k) out.push_back(c);
  return out;
}

// one vertex against one rigid body: exactly one RigidVertex contact, checked for consistency
SoftContact single_vertex_contact(const Shape& shape, const Pose& pose, const Vec3& x, double thickness = 0.0) {
  Scene s;
  s.add_rigid(shape, pose);
  s.add_vertices({x});
  const auto out = s.detect(thickness);
  EXPECT_EQ(out.size(), 1u);
  if (out.empty()) return {};
  const SoftContact& c = out[0];
  EXPECT_EQ(c.kind, SoftContactKind::RigidVertex);
  EXPECT_EQ(c.a.rigid, 0);
  EXPECT_EQ(c.a.soft, -1);
  EXPECT_EQ(c.b.soft, 0);
  EXPECT_EQ(c.b.rigid, -1);
  EXPECT_EQ(c.b.vertex, (std::array<int, 3>{0, -1, -1}));
  EXPECT_EQ(c.b.weight, Vec3(1, 0, 0));
  EXPECT_NEAR((c.b.point - x).norm(), 0.0, kTol);
  EXPECT_NEAR(c.normal.norm(), 1.0, kTol);
  EXPECT_NEAR(c.offset, thickness, kTol);
  EXPECT_NEAR(c.depth, -gap(c), kTol);
  return c;
}

size_t count_near(const Shape& shape, const Pose& pose, const Vec3& x) {
  Scene s;
  s.add_rigid(shape, pose);
  s.add_vertices({x});
  return s.detect().size();
}

TEST(SoftContacts, VertexAboveBoxFaceHasItsGapAndFaceNormal) {
  const SoftContact c = single_vertex_contact(box(Vec3(0.5, 0.5, 0.5)), Pose{}, Vec3(0.1, 0.2, 0.505));
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(c), 0.005, 1e-9);
  EXPECT_NEAR((c.a.point - Vec3(0.1, 0.2, 0.5)).norm(), 0.0, 1e-9);
}

TEST(SoftContacts, ThicknessIsTheOffset) {
  const SoftContact c = single_vertex_contact(box(Vec3(0.5, 0.5, 0.5)), Pose{}, Vec3(0.1, 0.2, 0.505), 0.002);
  EXPECT_NEAR(c.offset, 0.002, 1e-12);
  EXPECT_NEAR(gap(c), 0.003, 1e-9);
  EXPECT_NEAR((c.a.point - Vec3(0.1, 0.2, 0.5)).norm(), 0.0, 1e-9);
}

TEST(SoftContacts, VertexInsideBoxGetsTheNearestFace) {
  // 3 mm below the top face, 0.2 m from the +x face: +z, not any other face
  const SoftContact c = single_vertex_contact(box(Vec3(0.5, 0.5, 0.5)), Pose{}, Vec3(0.3, 0.1, 0.497));
  EXPECT_NEAR((c.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(c), -0.003, 1e-9);
  // deep inside: still the nearest face
  const SoftContact d = single_vertex_contact(box(Vec3(0.5, 0.5, 0.5)), Pose{}, Vec3(0.0, 0.1, 0.3));
  EXPECT_NEAR((d.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(d), -0.2, 1e-9);
}

TEST(SoftContacts, RotatedBoxNormalIsInTheWorld) {
  const Quat q(Eigen::AngleAxisd(0.5, Vec3(1, 2, 3).normalized()));
  const Pose pose = at(Vec3(1, -2, 0.5), q);
  const Vec3 local(0.1, -0.2, 0.3 + 0.004);  // 4 mm above the +z face of a box of half height 0.3
  const SoftContact c = single_vertex_contact(box(Vec3(0.4, 0.5, 0.3)), pose, pose.apply(local));
  EXPECT_NEAR((c.normal - q * Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(c), 0.004, 1e-9);
}

TEST(SoftContacts, VertexAgainstPlane) {
  const Vec3 n = Vec3(0.0, 0.6, 0.8);
  const Shape p = plane(n, 0.1);  // (0.3, 0.2, -0.15) is on n . x = 0
  const SoftContact c = single_vertex_contact(p, Pose{}, Vec3(0.3, 0.2, -0.15) + (0.1 + 0.004) * n);
  EXPECT_NEAR((c.normal - n).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(c), 0.004, 1e-9);
  const SoftContact d = single_vertex_contact(p, Pose{}, Vec3(0.3, 0.2, -0.15) + (0.1 - 0.3) * n);
  EXPECT_NEAR((d.normal - n).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(d), -0.3, 1e-9);
}

TEST(SoftContacts, VertexAgainstSphereIsRadial) {
  const Vec3 centre(0.5, -0.2, 1.0), u = Vec3(1.0, -2.0, 2.0).normalized();
  const SoftContact c = single_vertex_contact(sphere(0.3), at(centre), centre + 0.306 * u);
  EXPECT_NEAR((c.normal - u).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(c), 0.006, 1e-9);
  EXPECT_NEAR((c.a.point - (centre + 0.3 * u)).norm(), 0.0, 1e-9);
  const SoftContact d = single_vertex_contact(sphere(0.3), at(centre), centre + 0.29 * u);
  EXPECT_NEAR((d.normal - u).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(d), -0.01, 1e-9);
}

TEST(SoftContacts, VertexAgainstCapsuleSideAndCap) {
  const Shape cap = capsule(0.1, 0.2);
  const SoftContact side = single_vertex_contact(cap, Pose{}, Vec3(0.104, 0.0, 0.1));
  EXPECT_NEAR((side.normal - Vec3::UnitX()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(side), 0.004, 1e-9);
  const SoftContact top = single_vertex_contact(cap, Pose{}, Vec3(0.0, 0.0, 0.3 - 0.002));
  EXPECT_NEAR((top.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(top), -0.002, 1e-9);
}

TEST(SoftContacts, VertexAgainstCylinderCapAndSide) {
  Shape cyl = capsule(0.1, 0.2);
  cyl.type = ShapeType::Cylinder;
  // through libccd (GJK+EPA on a curved shape): the gap to 1e-6, the normal to 1e-4 inside
  const SoftContact top = single_vertex_contact(cyl, Pose{}, Vec3(0.03, 0.02, 0.204));
  EXPECT_NEAR((top.normal - Vec3::UnitZ()).norm(), 0.0, 1e-6);
  EXPECT_NEAR(gap(top), 0.004, 1e-6);
  const SoftContact side = single_vertex_contact(cyl, Pose{}, Vec3(0.0, 0.097, -0.05));
  EXPECT_NEAR((side.normal - Vec3::UnitY()).norm(), 0.0, 1e-4);
  EXPECT_NEAR(gap(side), -0.003, 1e-6);
}

TEST(SoftContacts, VertexAgainstMeshBoxOutsideAndInside) {
  const Shape m = mesh_box(Vec3(0.5, 0.5, 0.5));
  const SoftContact above = single_vertex_contact(m, Pose{}, Vec3(0.1, 0.2, 0.505));
  EXPECT_NEAR((above.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(above), 0.005, 1e-9);
  const SoftContact inside = single_vertex_contact(m, Pose{}, Vec3(0.3, 0.1, 0.497));
  EXPECT_NEAR((inside.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(inside), -0.003, 1e-9);
  const SoftContact deep = single_vertex_contact(m, Pose{}, Vec3(0.0, 0.1, 0.3));
  EXPECT_NEAR((deep.normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(deep), -0.2, 1e-9);
  // near an edge from outside: the normal joins the edge to the vertex
  const Vec3 x(0.1, 0.503, 0.504);
  const SoftContact edge = single_vertex_contact(m, Pose{}, x);
  EXPECT_NEAR((edge.normal - Vec3(0, 0.003, 0.004) / 0.005).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(edge), 0.005, 1e-9);
}

TEST(SoftContacts, VertexAgainstConvexHullAndCompound) {
  const SoftContact hull = single_vertex_contact(convex_box(Vec3(0.5, 0.5, 0.5)), Pose{}, Vec3(0.3, 0.1, 0.497));
  EXPECT_NEAR((hull.normal - Vec3::UnitZ()).norm(), 0.0, 1e-6);
  EXPECT_NEAR(gap(hull), -0.003, 1e-6);

  Scene s;
  const int child = s.lib.add(box(Vec3(0.5, 0.5, 0.5)));
  Shape compound;
  compound.type = ShapeType::Compound;
  compound.children.push_back({child, at(Vec3(2, 0, 0))});
  s.add_rigid(compound, Pose{});
  s.add_vertices({Vec3(2.1, 0.2, 0.505)});
  const auto out = s.detect();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(out[0]), 0.005, 1e-9);
  EXPECT_EQ(out[0].a.feature, 0);
}

TEST(SoftContacts, NoContactBeyondTheEnvelope) {
  const Vec3 h(0.5, 0.5, 0.5);
  EXPECT_EQ(count_near(box(h), Pose{}, Vec3(0.1, 0.2, 0.515)), 0u);
  EXPECT_EQ(count_near(mesh_box(h), Pose{}, Vec3(0.1, 0.2, 0.515)), 0u);
  EXPECT_EQ(count_near(convex_box(h), Pose{}, Vec3(0.1, 0.2, 0.515)), 0u);
  EXPECT_EQ(count_near(sphere(0.3), Pose{}, Vec3(0.0, 0.0, 0.315)), 0u);
  EXPECT_EQ(count_near(capsule(0.1, 0.2), Pose{}, Vec3(0.115, 0.0, 0.0)), 0u);
  EXPECT_EQ(count_near(plane(Vec3::UnitZ(), 0.0), Pose{}, Vec3(0.0, 0.0, 0.015)), 0u);
}

TEST(SoftContacts, ReachWidensTheEnvelope) {
  Scene s;
  s.add_rigid(box(Vec3(0.5, 0.5, 0.5)), Pose{}, false, 0.004);
  s.add_vertices({Vec3(0.1, 0.2, 0.515)});
  EXPECT_EQ(s.detect().size(), 0u);  // 15 mm > 10 + 4 mm
  s.soft[0].reach = 0.002;
  const auto out = s.detect();  // 15 mm < 10 + 4 + 2 mm
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(gap(out[0]), 0.015, 1e-9);
}

TEST(SoftContacts, BoxCornerIntoSoftTriangle) {
  Scene s;
  s.add_soft_box(Vec3(1.0, 1.0, 0.1), {2, 2, 1}, Vec3::Zero());  // top face at z = 0.1
  // a cube standing on a corner, that corner 2 mm below the top face at (0.3, 0.2)
  const double h = 0.1;
  const Quat q = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), -Vec3::UnitZ());
  const Vec3 tip(0.3, 0.2, 0.1 - 0.002);
  s.add_rigid(box(Vec3(h, h, h)), at(tip + Vec3(0, 0, h * std::sqrt(3.0)), q));
  const auto all = s.detect();
  const auto tri = of_kind(all, SoftContactKind::RigidTriangle);
  ASSERT_EQ(tri.size(), 1u);
  const SoftContact& c = tri[0];
  EXPECT_EQ(c.a.rigid, 0);
  EXPECT_EQ(c.b.soft, 0);
  EXPECT_NEAR((c.a.point - tip).norm(), 0.0, 1e-9);
  EXPECT_NEAR(c.b.weight.sum(), 1.0, 1e-12);
  EXPECT_GE(c.b.weight.minCoeff(), 0.0);
  const auto& x = s.soft[0].x;
  const Vec3 wx = c.b.weight[0] * x[std::size_t(c.b.vertex[0])] + c.b.weight[1] * x[std::size_t(c.b.vertex[1])] +
                  c.b.weight[2] * x[std::size_t(c.b.vertex[2])];
  EXPECT_NEAR((wx - Vec3(0.3, 0.2, 0.1)).norm(), 0.0, 1e-9);
  EXPECT_NEAR((c.b.point - wx).norm(), 0.0, 1e-12);
  EXPECT_NEAR((c.normal + Vec3::UnitZ()).norm(), 0.0, 1e-9);  // minus the triangle's outward normal
  EXPECT_NEAR(c.depth, 0.002, 1e-9);
  EXPECT_NEAR(gap(c), -0.002, 1e-9);
  // the triangle is a top face of the slab
  for (int v : c.b.vertex) EXPECT_NEAR(x[std::size_t(v)].z(), 0.1, 1e-12);
}

TEST(SoftContacts, BoxCornerAboveSoftTriangleWithinEnvelope) {
  Scene s;
  s.add_soft_box(Vec3(1.0, 1.0, 0.1), {2, 2, 1}, Vec3::Zero());
  const double h = 0.1;
  const Quat q = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), -Vec3::UnitZ());
  const Vec3 tip(0.3, 0.2, 0.1 + 0.006);
  s.add_rigid(box(Vec3(h, h, h)), at(tip + Vec3(0, 0, h * std::sqrt(3.0)), q));
  const auto tri = of_kind(s.detect(), SoftContactKind::RigidTriangle);
  ASSERT_EQ(tri.size(), 1u);
  EXPECT_NEAR((tri[0].normal + Vec3::UnitZ()).norm(), 0.0, 1e-9);
  EXPECT_NEAR(gap(tri[0]), 0.006, 1e-9);
  // 12 mm above: nothing
  s.pose[0] = at(Vec3(0.3, 0.2, 0.112) + Vec3(0, 0, h * std::sqrt(3.0)), q);
  EXPECT_EQ(of_kind(s.detect(), SoftContactKind::RigidTriangle).size(), 0u);
}

void check_soft_soft(const Scene& s, const std::vector<SoftContact>& out) {
  for (const SoftContact& c : out) {
    ASSERT_EQ(c.kind, SoftContactKind::VertexTriangle);
    EXPECT_NE(c.a.soft, c.b.soft);
    EXPECT_EQ(c.a.rigid, -1);
    EXPECT_EQ(c.b.rigid, -1);
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
    EXPECT_NEAR(c.b.weight.sum(), 1.0, 1e-12);
    EXPECT_GE(c.b.weight.minCoeff(), 0.0);
    const auto& xa = s.soft[std::size_t(c.a.soft)].x;
    const auto& xb = s.soft[std::size_t(c.b.soft)].x;
    EXPECT_EQ(c.a.point, xa[std::size_t(c.a.vertex[0])]);
    Vec3 wx = Vec3::Zero();
    for (int i = 0; i < 3; ++i) wx += c.b.weight[i] * xb[std::size_t(c.b.vertex[std::size_t(i)])];
    EXPECT_NEAR((wx - c.b.point).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.depth, -gap(c), 1e-12);
  }
}

TEST(SoftContacts, OverlappingSoftCubesTouchBothWays) {
  Scene s;
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3::Zero());
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3(0.15, 0.03, 0.02));  // 5 cm overlap along x
  const auto out = s.detect();
  check_soft_soft(s, out);
  int a_in_b = 0, b_in_a = 0;
  for (const SoftContact& c : out) (c.a.soft == 0 ? a_in_b : b_in_a)++;
  EXPECT_GT(a_in_b, 0);
  EXPECT_GT(b_in_a, 0);
  // cube 0's vertex (0.1, 0, 0) is 5 cm inside cube 1, nearest to its -x face
  const auto& x0 = s.soft[0].x;
  bool found = false;
  for (const SoftContact& c : out) {
    if (c.a.soft != 0 || (x0[std::size_t(c.a.vertex[0])] - Vec3(0.1, 0.0, 0.0)).norm() > 1e-12) continue;
    found = true;
    EXPECT_NEAR((c.normal - Vec3::UnitX()).norm(), 0.0, 1e-9);
    EXPECT_NEAR(c.depth, 0.05, 1e-9);
    EXPECT_NEAR(c.b.point.x(), 0.05, 1e-9);
  }
  EXPECT_TRUE(found);
}

TEST(SoftContacts, SoftCubesApartBeyondTheEnvelopeDoNotTouch) {
  Scene s;
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3::Zero());
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3(0.2 + 0.015, 0.0, 0.0));
  EXPECT_TRUE(s.detect().empty());
  // 5 mm apart: speculative contacts, both ways, with the gap as the separation
  s.soft[1].x = s.soft[0].x;
  for (Vec3& x : s.soft[1].x) x += Vec3(0.2 + 0.005, 0.0, 0.0);
  const auto out = s.detect();
  check_soft_soft(s, out);
  ASSERT_FALSE(out.empty());
  int a_in_b = 0, b_in_a = 0;
  for (const SoftContact& c : out) {
    (c.a.soft == 0 ? a_in_b : b_in_a)++;
    EXPECT_NEAR(gap(c), 0.005, 1e-9);
    EXPECT_NEAR(std::abs(c.normal.x()), 1.0, 1e-9);
  }
  EXPECT_GT(a_in_b, 0);
  EXPECT_GT(b_in_a, 0);
  // with a thickness of 1 mm per surface the gap shrinks by 2 mm
  for (const SoftContact& c : s.detect(0.001)) {
    EXPECT_NEAR(c.offset, 0.002, 1e-12);
    EXPECT_NEAR(gap(c), 0.003, 1e-9);
  }
}

// Signed distance of x to the box [-h, h] (Euclidean outside, minus the nearest face inside)
// and its gradient, the outward normal of the nearest feature; `tie` when two faces are
// nearly as near (inside) or the gradient is ill-defined.
double box_sdf(const Vec3& h, const Vec3& x, Vec3& grad, bool& tie) {
  const Vec3 q = x.cwiseAbs() - h;
  tie = false;
  if (q.maxCoeff() > 0.0) {
    const Vec3 out = q.cwiseMax(0.0);
    grad = out.cwiseProduct(x.cwiseSign()) / out.norm();
    return out.norm();
  }
  int k = 0;
  q.maxCoeff(&k);
  for (int i = 0; i < 3; ++i)
    if (i != k && q[i] > q[k] - 1e-6) tie = true;
  grad = Vec3::Zero();
  grad[k] = x[k] >= 0.0 ? 1.0 : -1.0;
  return q[k];
}

// Random points around and inside a cube, as loose soft vertices (VertexTriangle against a soft
// cube) and against a rigid box, a rigid mesh box and a convex hull (RigidVertex): the gap is
// the box's signed distance, reported exactly when it is below the envelope (outside) or the
// depth is within the envelope plus the depth bound (a soft cube's quarter extent: 5 cm).
TEST(SoftContacts, RandomPointsMatchTheBoxSignedDistance) {
  const Vec3 h(0.1, 0.1, 0.1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.115, 0.115);
  std::vector<Vec3> pts;
  for (int i = 0; i < 400; ++i) pts.push_back(Vec3(u(rng), u(rng), u(rng)));
  const Shape rigid[3] = {box(h), mesh_box(h), convex_box(h)};
  for (int kind = 0; kind < 4; ++kind) {
    Scene s;
    s.add_vertices(pts);
    if (kind == 0) s.add_soft_box(h, {2, 2, 2}, Vec3::Zero());
    else s.add_rigid(rigid[kind - 1], Pose{});
    std::vector<const SoftContact*> by_vertex(pts.size(), nullptr);
    const auto out = s.detect();
    for (const SoftContact& c : out) {
      if (c.a.soft == 1) continue;  // kind 0: the cube's vertices have no triangles to meet
      const int v = kind == 0 ? c.a.vertex[0] : c.b.vertex[0];
      ASSERT_EQ(by_vertex[std::size_t(v)], nullptr) << "two contacts for one vertex";
      by_vertex[std::size_t(v)] = &c;
    }
    const double tol = kind == 3 ? 1e-6 : 1e-9;  // the hull goes through libccd
    int inside = 0, outside = 0, missed = 0;  // reported contacts inside and outside, unreported points
    for (std::size_t i = 0; i < pts.size(); ++i) {
      Vec3 grad;
      bool tie = false;
      const double d = box_sdf(h, pts[i], grad, tie);
      const bool expected = kind == 0 ? (d < kEnv && d > -(kEnv + 0.05)) : d < kEnv;
      if (std::abs(d - kEnv) < 1e-6 || std::abs(d + kEnv + 0.05) < 1e-6) continue;
      ASSERT_EQ(by_vertex[i] != nullptr, expected) << "kind " << kind << " point " << pts[i].transpose() << " sdf " << d;
      if (!by_vertex[i]) { ++missed; continue; }
      (d < 0.0 ? inside : outside)++;
      const SoftContact& c = *by_vertex[i];
      EXPECT_NEAR(gap(c), d, tol) << "kind " << kind << " point " << pts[i].transpose();
      // the normal leaves the box (RigidVertex: from box to vertex; VertexTriangle: from vertex into the cube)
      if (!tie) {
        EXPECT_NEAR((c.normal - (kind == 0 ? -grad : grad)).norm(), 0.0, 1e3 * tol) << "kind " << kind;
      }
    }
    EXPECT_GT(inside, 20);
    EXPECT_GT(outside, 20);
    EXPECT_GT(missed, 20);
  }
}

TEST(SoftContacts, OutputIsSortedAndDeterministic) {
  Scene s;
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {3, 2, 2}, Vec3::Zero());
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 3, 2}, Vec3(0.15, 0.03, 0.02));
  s.add_rigid(plane(Vec3::UnitZ(), -0.095), Pose{}, true);
  s.add_rigid(box(Vec3(0.05, 0.05, 0.05)), at(Vec3(0.0, 0.0, 0.14), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()))));
  s.add_rigid(mesh_box(Vec3(0.05, 0.05, 0.05)), at(Vec3(0.15, 0.0, 0.16)));
  const auto first = s.detect(0.001);
  const auto second = s.detect(0.001);
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end(), soft_contact_less));
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].a.point, second[i].a.point);
    EXPECT_EQ(first[i].b.point, second[i].b.point);
    EXPECT_EQ(first[i].b.vertex, second[i].b.vertex);
    EXPECT_EQ(first[i].normal, second[i].normal);
    EXPECT_EQ(first[i].depth, second[i].depth);
  }
  // the same list with 1 and 2 threads (one buffer per task, concatenated in task order, sorted)
  Scene many = s;
  many.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3(-0.15, 0.02, 0.01));
  many.add_soft_box(Vec3(0.1, 0.1, 0.1), {2, 2, 2}, Vec3(0.0, 0.17, -0.01));
  std::vector<SoftContact> one, two;
  tbb::task_arena(1).execute([&] { one = many.detect(0.001); });
  tbb::task_arena(2).execute([&] { two = many.detect(0.001); });
  ASSERT_EQ(one.size(), two.size());
  ASSERT_GT(one.size(), first.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_FALSE(soft_contact_less(one[i], two[i]) || soft_contact_less(two[i], one[i]));
    EXPECT_EQ(one[i].normal, two[i].normal);
    EXPECT_EQ(one[i].depth, two[i].depth);
    EXPECT_EQ(one[i].b.weight, two[i].b.weight);
  }
  int kinds[3] = {0, 0, 0};
  for (const SoftContact& c : first) kinds[int(c.kind)]++;
  EXPECT_GT(kinds[0], 0);
  EXPECT_GT(kinds[1], 0);
  EXPECT_GT(kinds[2], 0);
}

// two contact lists are the same, field by field and bit by bit
void expect_same(const std::vector<SoftContact>& x, const std::vector<SoftContact>& y) {
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const SoftContact &c = x[i], &d = y[i];
    EXPECT_EQ(c.kind, d.kind) << i;
    for (const auto& [p, q] : {std::pair{&c.a, &d.a}, std::pair{&c.b, &d.b}}) {
      EXPECT_EQ(p->rigid, q->rigid) << i;
      EXPECT_EQ(p->soft, q->soft) << i;
      EXPECT_EQ(p->vertex, q->vertex) << i;
      EXPECT_EQ(p->weight, q->weight) << i;
      EXPECT_EQ(p->point, q->point) << i;
      EXPECT_EQ(p->feature, q->feature) << i;
    }
    EXPECT_EQ(c.normal, d.normal) << i;
    EXPECT_EQ(c.offset, d.offset) << i;
    EXPECT_EQ(c.depth, d.depth) << i;
  }
}

std::array<int, 3> count_kinds(const std::vector<SoftContact>& out) {
  std::array<int, 3> n{0, 0, 0};
  for (const SoftContact& c : out) ++n[std::size_t(c.kind)];
  return n;
}

// A shear and twist about z (large enough to reorder the median splits of a fresh tree), then
// a small random jitter.
void deform(std::vector<Vec3>& x, const Vec3& centre, double amount, std::mt19937& rng) {
  std::uniform_real_distribution<double> jitter(-0.004, 0.004);
  for (Vec3& p : x) {
    Vec3 d = p - centre;
    const double angle = amount * d.z() * 10.0;
    d = Eigen::AngleAxisd(angle, Vec3::UnitZ()) * d;
    d.x() += amount * 2.0 * d.z();
    d.y() *= 1.0 + amount;
    p = centre + d + Vec3(jitter(rng), jitter(rng), jitter(rng));
  }
}

// Trees kept in a SoftDetectCache are built once and refit as the vertices move; the contacts
// must be those of trees built fresh at the moved positions, although the refit trees group
// the triangles differently. New faces rebuild the tree.
TEST(SoftContacts, RefitTreesGiveTheContactsOfFreshTrees) {
  Scene s;
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {4, 3, 3}, Vec3::Zero());
  s.add_soft_box(Vec3(0.1, 0.1, 0.1), {3, 4, 3}, Vec3(0.17, 0.03, 0.02));
  s.add_rigid(plane(Vec3::UnitZ(), -0.095), Pose{}, true);
  s.add_rigid(box(Vec3(0.05, 0.05, 0.05)), at(Vec3(0.0, 0.0, 0.14), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()))));
  s.add_rigid(mesh_box(Vec3(0.05, 0.05, 0.05)), at(Vec3(0.15, 0.0, 0.16)));
  s.add_rigid(capsule(0.03, 0.05), at(Vec3(-0.05, 0.12, 0.0), Quat(Eigen::AngleAxisd(1.2, Vec3::UnitY()))));
  SoftDetectCache cache;
  std::vector<SoftContact> kept;
  detect_soft_contacts(s.input(0.001), cache, kept);
  EXPECT_EQ(cache.builds, 2);
  EXPECT_EQ(cache.refits, 0);
  expect_same(kept, s.detect(0.001));

  std::mt19937 rng(11);
  bool reordered = false;
  for (int step = 1; step <= 4; ++step) {
    deform(s.soft[0].x, Vec3::Zero(), 0.05 * step, rng);
    deform(s.soft[1].x, Vec3(0.17, 0.03, 0.02), -0.04 * step, rng);
    kept.clear();
    const SoftDetectStats st = detect_soft_contacts(s.input(0.001), cache, kept);
    const auto fresh = s.detect(0.001);
    expect_same(kept, fresh);
    const auto n = count_kinds(kept);
    EXPECT_EQ(st.rigid_vertex, n[0]);
    EXPECT_EQ(st.rigid_triangle, n[1]);
    EXPECT_EQ(st.vertex_triangle, n[2]);
    EXPECT_GT(n[0], 0);
    EXPECT_GT(n[1] + n[2], 0);
    for (std::size_t i = 0; i < s.soft.size(); ++i)
      reordered |= cache.bodies[i].bvh.order != build_bvh(s.soft[i].x, s.soft[i].faces, 18).order;
  }
  EXPECT_TRUE(reordered) << "the deformation should make a fresh tree differ from the refit one";
  EXPECT_EQ(cache.builds, 2);
  EXPECT_EQ(cache.refits, 8);

  // a topology change (a face dropped) rebuilds that body's tree only
  s.soft[1].faces.pop_back();
  kept.clear();
  detect_soft_contacts(s.input(0.001), cache, kept);
  expect_same(kept, s.detect(0.001));
  EXPECT_EQ(cache.builds, 3);
  EXPECT_EQ(cache.refits, 9);
}

// Random multi-body scenes: the broadphase's candidate pairs give exactly the contacts of every
// (rigid, soft) and (soft, soft) pair (SoftDetectInput::all_pairs), with both broadphases, for
// 1 and 2 threads, while skipping most pairs.
TEST(SoftContacts, BroadphasePairsGiveTheContactsOfEveryPair) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> g;
  const auto random_pose = [&](double spread) {
    return at(Vec3(spread * u(rng), spread * u(rng), 0.3 * spread * u(rng)), Quat(g(rng), g(rng), g(rng), g(rng)).normalized());
  };
  int culled_pairs = 0, all_kinds = 0;
  for (int trial = 0; trial < 6; ++trial) {
    Scene s;
    const double spread = 0.6;
    s.add_rigid(plane(Vec3::UnitZ(), -0.25), Pose{}, true);
    for (int i = 0; i < 10; ++i) {
      const Vec3 c(spread * u(rng), spread * u(rng), 0.3 * spread * u(rng));
      s.add_soft_box(Vec3(0.08, 0.1, 0.06), {2, 3, 2}, c);
      deform(s.soft.back().x, c, 0.1 * u(rng), rng);
      s.soft.back().reach = 0.01 * std::abs(u(rng));
    }
    Shape compound;
    compound.type = ShapeType::Compound;
    compound.children = {{s.lib.add(box(Vec3(0.04, 0.04, 0.04))), at(Vec3(0.05, 0, 0))},
                         {s.lib.add(sphere(0.04)), at(Vec3(-0.05, 0, 0))}};
    // no convex hulls: a ball against a rotated hull can loop in libccd's EPA
    // (Narrowphase.DISABLED_SmallBallAgainstRotatedHullTerminates)
    const Shape shapes[] = {box(Vec3(0.06, 0.05, 0.04)), sphere(0.05), capsule(0.03, 0.06), mesh_box(Vec3(0.05, 0.05, 0.05)),
                            compound};
    for (int i = 0; i < 24; ++i)
      s.add_rigid(shapes[i % 5], random_pose(spread), i % 7 == 0, 0.01 * std::abs(u(rng)));

    SoftDetectInput every = s.input(0.002);
    every.all_pairs = true;
    std::vector<SoftContact> oracle;
    const SoftDetectStats all = detect_soft_contacts(every, oracle);
    EXPECT_EQ(all.pairs, 25 * 10 + 10 * 9 / 2);
    for (BroadphaseType type : {BroadphaseType::Grid, BroadphaseType::SweepAndPrune})
      for (int threads : {1, 2}) {
        SoftDetectInput in = s.input(0.002);
        in.rigid.broadphase = type;
        std::vector<SoftContact> out;
        SoftDetectStats st;
        tbb::task_arena(threads).execute([&] { st = detect_soft_contacts(in, out); });
        expect_same(out, oracle);
        EXPECT_LT(st.pairs, all.pairs / 2);
        culled_pairs += all.pairs - st.pairs;
      }
    const auto n = count_kinds(oracle);
    all_kinds += n[0] > 0 && n[1] > 0 && n[2] > 0;
  }
  EXPECT_GT(culled_pairs, 0);
  EXPECT_GE(all_kinds, 3) << "most scenes should have contacts of every kind";
}

}  // namespace
}  // namespace coulomb::soft_contacts_test
