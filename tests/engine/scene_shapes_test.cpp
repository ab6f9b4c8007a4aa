// Mesh files in scenes (engine/src/scene_shapes.cpp): `scale` and `unit` on every key that names
// a mesh file (`mesh` shape, `convex` shape `file`, tetgen `surface`), `"convex": true` on a
// `mesh` shape (the hull of its vertices, with the hull's mass properties), and a convex STL body
// that falls on a plane and rests. Oracles: the cube written by the test (side 1 m, volume 1 m^3,
// default density 1000 kg/m^3).
#include <coulomb/error.h>
#include <coulomb/mass_properties.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mesh_files.h"
#include "scene_test_util.h"

namespace coulomb {
namespace {

using namespace scene_test;
using namespace mesh_test;

// minimal_scene with the shape `m` and a body `m` of it
SceneDef scene_with_shape(const TempDir& dir, const json& shape) {
  json doc = with(minimal_scene(), "/shapes/m", shape);
  doc["bodies"].push_back({{"name", "m"}, {"shape", "m"}, {"position", {0, 0, 5}}});
  return parse_scene(doc, dir.path());
}

const Shape& shape_m(const SceneDef& s) {
  for (std::size_t k = 0; k < s.shape_names.size(); ++k)
    if (s.shape_names[k] == "m") return s.shapes.shapes[k];
  throw std::runtime_error("no shape m");
}

TEST(SceneMeshes, UnitMultipliesTheScalePerAxis) {
  TempDir dir;
  dir.write("cube.stl", binary_stl());
  const SceneDef s = scene_with_shape(dir, {{"type", "mesh"}, {"file", "cube.stl"}, {"scale", {1, 2, 4}}, {"unit", "cm"}});
  const Shape& m = shape_m(s);
  ASSERT_EQ(m.type, ShapeType::Mesh);
  EXPECT_TRUE(m.mesh->closed);
  expect_vec(m.mesh->lo, -0.005, -0.01, -0.02, 1e-9);
  expect_vec(m.mesh->hi, 0.005, 0.01, 0.02, 1e-9);
  // a dynamic closed mesh: mass from its enclosed volume (1 x 2 x 4 cm^3)
  EXPECT_NEAR(mass_properties(s.shapes, int(&m - s.shapes.shapes.data()), 1000.0).mass, 1000.0 * 8e-6, 1e-9);
}

TEST(SceneMeshes, EveryUnit) {
  TempDir dir;
  dir.write("cube.ply", ply(true));
  const std::vector<std::pair<std::string, double>> units{{"m", 1.0},    {"dm", 0.1},     {"cm", 0.01},
                                                          {"mm", 0.001}, {"in", 0.0254}, {"ft", 0.3048}};
  for (const auto& [unit, metres] : units) {
    const SceneDef s = scene_with_shape(dir, {{"type", "mesh"}, {"file", "cube.ply"}, {"unit", unit}});
    EXPECT_NEAR(shape_m(s).mesh->hi.x(), 0.5 * metres, 1e-9 * metres) << unit;
  }
  expect_error(with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "cube.ply"}, {"unit", "furlong"}}),
               "/shapes/m/unit", "expected one of", dir.path());
}

TEST(SceneMeshes, ConvexMeshIsTheHullWithTheHullsMassProperties) {
  TempDir dir;
  dir.write("cube.stl", ascii_stl());
  const SceneDef a = scene_with_shape(dir, {{"type", "mesh"}, {"file", "cube.stl"}, {"convex", true}, {"scale", 0.2}});
  const SceneDef b = scene_with_shape(dir, {{"type", "convex"}, {"file", "cube.stl"}, {"scale", 0.2}});
  const Shape& hull = shape_m(a);
  ASSERT_EQ(hull.type, ShapeType::Convex);
  EXPECT_EQ(hull.mesh, nullptr);
  EXPECT_EQ(hull.hull.vertices.size(), 8u);
  EXPECT_EQ(shape_m(b).hull.vertices.size(), 8u);
  World wa(a), wb(b);
  const int ia = wa.find_body("m"), ib = wb.find_body("m");
  EXPECT_NEAR(wa.model().mass[std::size_t(ia)], 1000.0 * 0.008, 1e-9);
  EXPECT_EQ(wa.model().mass[std::size_t(ia)], wb.model().mass[std::size_t(ib)]);
  EXPECT_EQ(wa.model().inertia[std::size_t(ia)], wb.model().inertia[std::size_t(ib)]);
}

TEST(SceneMeshes, ConvexFileAndTetgenSurfaceTakeAUnit) {
  TempDir dir;
  dir.write("cube.gltf", gltf(R"("translation": [0, 0, 0])"));
  const SceneDef s = scene_with_shape(dir, {{"type", "convex"}, {"file", "cube.gltf"}, {"unit", "mm"}});
  const Aabb box = s.shapes.aabb(shape_m(s), Pose(), 0.0);
  expect_vec(box.hi, 0.0005, 0.0005, 0.0005, 1e-9);

  dir.write("cube.stl", binary_stl());
  json doc = with(minimal_scene(), "/solver", {{"type", "xpbd-jacobi"}});
  doc["soft_bodies"] = {{{"name", "jelly"},
                         {"position", {0, 0, 2}},
                         {"mesh", {{"type", "tetgen"}, {"surface", "cube.stl"}, {"unit", "dm"}, {"max_volume", 1e-4}}}}};
  const SceneDef soft = parse_scene(doc, dir.path());
  ASSERT_EQ(soft.soft_bodies.size(), 1u);
  Vec3 lo = Vec3::Constant(1e9), hi = -lo;
  for (const Vec3& x : soft.soft_bodies[0].mesh.rest) {
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  expect_vec(lo, -0.05, -0.05, 1.95, 1e-6);
  expect_vec(hi, 0.05, 0.05, 2.05, 1e-6);
}

TEST(SceneMeshes, MistakesAtTheirPointers) {
  TempDir dir;
  dir.write("cube.stl", binary_stl());
  const json mesh = {{"type", "mesh"}, {"file", "cube.stl"}};
  expect_error(with(with(minimal_scene(), "/shapes/m", mesh), "/shapes/m/convex", "yes"), "/shapes/m/convex",
               "expected true or false", dir.path());
  json both = mesh;
  both["convex"] = true;
  both["kdop"] = 26;
  expect_error(with(minimal_scene(), "/shapes/m", both), "/shapes/m/kdop", "has no kDOP tree", dir.path());
  expect_error(with(minimal_scene(), "/shapes/m",
                    {{"type", "convex"}, {"vertices", {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {"unit", "mm"}}),
               "/shapes/m/unit", "applies to a mesh file", dir.path());
  expect_error(with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "cube.stl"}, {"scale", -1}}),
               "/shapes/m/scale", "expected a number > 0", dir.path());
  // a file the reader rejects: the error is at the key that names it
  dir.write("notes.txt", "not a mesh");
  expect_error(with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "notes.txt"}, {"convex", true}}),
               "/shapes/m/file", "cannot read mesh file", dir.path());
  // a flat mesh has no hull
  dir.write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  expect_error(with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "tri.obj"}, {"convex", true}}),
               "/shapes/m/file", "cannot build a convex hull", dir.path());
}

TEST(SceneMeshes, ConvexBinaryStlBodyFallsOnAPlaneAndRests) {
  TempDir dir;
  dir.write("cube.stl", binary_stl());
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "cube.stl"}, {"convex", true}, {"unit", "dm"}});
  doc["bodies"] = json::parse(R"([{"name": "floor", "shape": "ground", "fixed": true},
                                  {"name": "box", "shape": "m", "position": [0, 0, 0.5],
                                   "orientation": [0.98, 0.1, 0.15, 0.05]}])");
  doc["time"] = {{"dt", 0.005}, {"duration", 2.0}};
  World w(parse_scene(doc, dir.path()));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  const BodyState b = w.body(w.find_body("box"));
  EXPECT_LT(b.velocity.norm(), 1e-3);
  EXPECT_LT(b.angular_velocity.norm(), 1e-2);
  // resting on a face: the centre half the side (5 cm) above the plane
  EXPECT_NEAR(b.position.z(), 0.05, 2e-3);
}

}  // namespace
}  // namespace coulomb
