// shape_surface (vtk_output.h): every shape's surface is closed and wound outwards, so its
// divergence-theorem volume is positive and matches the shape's volume (exactly for polyhedra,
// within the tessellation error for round shapes); a plane is a square in the plane.
#include <coulomb/mesh_generators.h>
#include <coulomb/vtk_output.h>
#include <gtest/gtest.h>

#include <map>
#include <numbers>

using namespace coulomb;

namespace {

// 1/6 sum over triangles of a . (b x c): the enclosed volume of a closed, outward surface
double enclosed_volume(const SurfaceMesh& m) {
  double v = 0.0;
  for (const auto& t : m.triangles)
    v += m.vertices[std::size_t(t[0])].dot(m.vertices[std::size_t(t[1])].cross(m.vertices[std::size_t(t[2])])) / 6.0;
  return v;
}

// every directed edge appears once and its reverse once: a closed, consistently wound surface
bool closed_and_consistent(const SurfaceMesh& m) {
  std::map<std::pair<int, int>, int> edges;
  for (const auto& t : m.triangles)
    for (int e = 0; e < 3; ++e) ++edges[{t[std::size_t(e)], t[std::size_t((e + 1) % 3)]}];
  for (const auto& [e, n] : edges) {
    if (n != 1) return false;
    const auto rev = edges.find({e.second, e.first});
    if (rev == edges.end() || rev->second != 1) return false;
  }
  return !m.triangles.empty();
}

Shape primitive(ShapeType type, double radius, double half_height) {
  Shape s;
  s.type = type;
  s.radius = radius;
  s.half_height = half_height;
  return s;
}

}  // namespace

TEST(ShapeSurface, RoundShapesAreClosedAndEncloseNearlyTheirVolume) {
  const double pi = std::numbers::pi;
  ShapeLibrary lib;
  const int sphere = lib.add(primitive(ShapeType::Sphere, 0.3, 0.0));
  const int capsule = lib.add(primitive(ShapeType::Capsule, 0.1, 0.4));
  const int cylinder = lib.add(primitive(ShapeType::Cylinder, 0.2, 0.5));
  const std::map<int, double> exact = {{sphere, 4.0 / 3.0 * pi * 0.027},
                                       {capsule, pi * 0.01 * 0.8 + 4.0 / 3.0 * pi * 0.001},
                                       {cylinder, pi * 0.04 * 1.0}};
  for (const auto& [shape, volume] : exact) {
    const SurfaceMesh m = shape_surface(lib, shape, 32);
    EXPECT_TRUE(closed_and_consistent(m)) << shape_type_name(lib[shape].type);
    // inscribed polygons of 32 sides lose 1 - sin(2 pi / 32) / (2 pi / 32) = 0.6% of the area
    const double v = enclosed_volume(m);
    EXPECT_GT(v, 0.97 * volume) << shape_type_name(lib[shape].type);
    EXPECT_LE(v, volume * (1 + 1e-12)) << shape_type_name(lib[shape].type);
  }
}

TEST(ShapeSurface, PolyhedraEncloseExactlyTheirVolume) {
  ShapeLibrary lib;
  Shape box;
  box.type = ShapeType::Box;
  box.half_extents = Vec3(0.1, 0.2, 0.3);
  const int b = lib.add(box);
  Shape hull;
  hull.type = ShapeType::Convex;  // a unit cube given by its corners and centre (not a hull vertex)
  std::vector<Vec3> corners{Vec3::Zero()};
  for (int k = 0; k < 8; ++k) corners.emplace_back(k & 1, (k >> 1) & 1, (k >> 2) & 1);
  hull.hull = make_convex_hull(corners);
  const int h = lib.add(hull);
  Shape mesh;
  mesh.type = ShapeType::Mesh;
  const Surface jack = jack_surface(0.04, 1);
  mesh.mesh = make_tri_mesh(jack.vertices, jack.triangles);
  const int j = lib.add(mesh);
  Shape compound;  // the box and the cube side by side
  compound.type = ShapeType::Compound;
  compound.children = {{b, Pose{Vec3(-1, 0, 0), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()))}}, {h, Pose{Vec3(1, 0, 0), Quat::Identity()}}};
  const int c = lib.add(compound);

  const std::map<int, double> exact = {{b, 0.2 * 0.4 * 0.6}, {h, 1.0}, {j, mesh.mesh->volume}, {c, 0.048 + 1.0}};
  for (const auto& [shape, volume] : exact) {
    const SurfaceMesh m = shape_surface(lib, shape);
    EXPECT_TRUE(closed_and_consistent(m)) << shape_type_name(lib[shape].type);
    EXPECT_NEAR(enclosed_volume(m), volume, 1e-12) << shape_type_name(lib[shape].type);
  }
  EXPECT_EQ(shape_surface(lib, c).triangles.size(), shape_surface(lib, b).triangles.size() + shape_surface(lib, h).triangles.size());
}

TEST(ShapeSurface, PlaneIsASquareFacingItsNormalBelowTheCentre) {
  ShapeLibrary lib;
  Shape plane;
  plane.type = ShapeType::Plane;
  plane.normal = Vec3(0, 0.6, 0.8);
  plane.offset = 0.5;
  const int p = lib.add(plane);
  const Vec3 centre(3, 1, 2);
  const SurfaceMesh m = shape_surface(lib, p, 16, 4.0, centre);
  ASSERT_EQ(m.vertices.size(), 4u);
  ASSERT_EQ(m.triangles.size(), 2u);
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : m.vertices) {
    EXPECT_NEAR(plane.normal.dot(v), plane.offset, 1e-12);
    mean += v / 4.0;
  }
  // the square's centre is the point of the plane nearest `centre`, its side 4
  EXPECT_NEAR((mean - (centre - plane.normal * (plane.normal.dot(centre) - plane.offset))).norm(), 0.0, 1e-12);
  EXPECT_NEAR((m.vertices[1] - m.vertices[0]).norm(), 4.0, 1e-12);
  for (const auto& t : m.triangles) {
    const Vec3 n = (m.vertices[std::size_t(t[1])] - m.vertices[std::size_t(t[0])]).cross(m.vertices[std::size_t(t[2])] - m.vertices[std::size_t(t[0])]);
    EXPECT_NEAR(n.normalized().dot(plane.normal), 1.0, 1e-12);  // counter-clockwise seen from the free side
  }
}
