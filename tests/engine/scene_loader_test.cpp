// Scene loading: values round-trip, defaults, generators, overrides, OBJ meshes.
#include "scene_test_util.h"

#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

namespace coulomb {
namespace {

using namespace scene_test;
using nlohmann::json;
namespace fs = std::filesystem;


TEST(SceneLoader, MinimalSceneGetsTheDocumentedDefaults) {
  SceneDef s = parse_scene(minimal_scene(), ".");
  expect_vec(s.gravity, 0, 0, -9.81);
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.integrator, IntegratorType::Moreau);
  EXPECT_STREQ(integrator_name(s.integrator), "moreau");
  EXPECT_EQ(s.solver, "prox-gs");  // SCENE_FORMAT.md default
  EXPECT_EQ(s.stabilization, StabilizationType::None);
  EXPECT_DOUBLE_EQ(s.envelope, 0.01);
  EXPECT_DOUBLE_EQ(s.margin, 0.0);
  EXPECT_FALSE(s.ccd);
  EXPECT_EQ(s.output_every, 1);
  EXPECT_FALSE(s.output_contacts);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "default");
  EXPECT_EQ(s.bodies[1].material, 0);
  expect_quat(s.bodies[1].orientation, 1, 0, 0, 0);
  EXPECT_FALSE(s.bodies[1].mass.has_value());
  EXPECT_FALSE(s.bodies[1].inertia.has_value());
}

TEST(SceneLoader, EmptySoftBodiesAndJointsAreAccepted) {
  json doc = minimal_scene();
  doc["soft_bodies"] = json::array();
  doc["joints"] = json::array();
  EXPECT_NO_THROW(parse_scene(doc, "."));
}

TEST(SceneLoader, FullSceneRoundTripsEveryValue) {
  const fs::path folder = fs::path(COULOMB_SOURCE_DIR) / "tests/data/engine";
  SceneDef s = load_scene(folder / "full_scene.json");
  EXPECT_EQ(fs::weakly_canonical(s.base_dir), fs::weakly_canonical(folder));
  EXPECT_EQ(s.name, "every key");
  EXPECT_NE(s.description.find("every rigid-body key"), std::string::npos);
  expect_vec(s.gravity, 0.5, -0.25, -9.0);
  EXPECT_DOUBLE_EQ(s.dt, 0.005);
  EXPECT_EQ(s.steps, 400);  // duration 2 s / dt 5 ms
  EXPECT_EQ(s.integrator, IntegratorType::ImplicitEuler);
  EXPECT_EQ(s.solver, "pgs");
  EXPECT_EQ(s.solver_options.max_iterations, 40);
  EXPECT_DOUBLE_EQ(s.solver_options.abs_tol, 1e-7);
  EXPECT_DOUBLE_EQ(s.solver_options.rel_tol, 1e-5);
  EXPECT_FALSE(s.solver_options.warm_start);
  EXPECT_DOUBLE_EQ(s.solver_options.pgs.sor, 1.3);
  EXPECT_EQ(s.stabilization, StabilizationType::Baumgarte);
  EXPECT_DOUBLE_EQ(s.baumgarte_beta, 0.3);
  EXPECT_DOUBLE_EQ(s.envelope, 0.02);
  EXPECT_DOUBLE_EQ(s.margin, 0.001);
  EXPECT_FALSE(s.ccd);
  EXPECT_EQ(s.output_every, 5);
  EXPECT_TRUE(s.output_contacts);

  // materials: "default" stays at index 0, the others follow in name order
  ASSERT_EQ(s.materials.size(), 3u);
  const MaterialDef& def = s.materials[0];
  const MaterialDef& ice = s.materials[1];
  const MaterialDef& stone = s.materials[2];
  EXPECT_EQ(def.name, "default");
  EXPECT_DOUBLE_EQ(def.density, 900);
  EXPECT_DOUBLE_EQ(def.friction_s, 0.4);
  EXPECT_DOUBLE_EQ(def.friction_t, 0.4);
  EXPECT_EQ(ice.name, "ice");
  EXPECT_DOUBLE_EQ(ice.density, 917);
  EXPECT_DOUBLE_EQ(ice.friction_s, 0.04);
  EXPECT_DOUBLE_EQ(ice.friction_t, 0.09);
  EXPECT_DOUBLE_EQ(ice.restitution, 0.5);
  EXPECT_EQ(stone.name, "stone");
  EXPECT_DOUBLE_EQ(stone.density, 2500);
  EXPECT_DOUBLE_EQ(stone.friction_s, 0.6);
  EXPECT_DOUBLE_EQ(stone.friction_t, 0.6);
  EXPECT_DOUBLE_EQ(stone.torsional_friction, 0.01);
  EXPECT_DOUBLE_EQ(stone.restitution, 0.1);
  EXPECT_DOUBLE_EQ(stone.young, 5e9);
  EXPECT_DOUBLE_EQ(stone.poisson, 0.25);
  EXPECT_EQ(stone.model, "linear");
  EXPECT_DOUBLE_EQ(stone.damping, 0.02);

  // contact materials: given values, else the geometric mean of the pair
  ASSERT_EQ(s.contact_materials.size(), 2u);
  const ContactMaterialDef& si = s.contact_materials[0];
  EXPECT_EQ(si.a, 1);
  EXPECT_EQ(si.b, 2);
  EXPECT_DOUBLE_EQ(si.friction_s, 0.2);
  EXPECT_DOUBLE_EQ(si.friction_t, 0.2);
  EXPECT_DOUBLE_EQ(si.torsional_friction, 0.003);
  EXPECT_DOUBLE_EQ(si.restitution, 0.05);
  const ContactMaterialDef& ss = s.contact_materials[1];
  EXPECT_EQ(ss.a, 2);
  EXPECT_EQ(ss.b, 2);
  EXPECT_DOUBLE_EQ(ss.friction_s, 0.6);
  EXPECT_DOUBLE_EQ(ss.torsional_friction, 0.01);
  EXPECT_DOUBLE_EQ(ss.restitution, 0.1);

  // shapes, numbered in name order
  const std::vector<std::string> names{"ball", "brick", "can", "dumbbell", "ground", "pill", "tetra", "wedge"};
  ASSERT_EQ(s.shape_names, names);
  ASSERT_EQ(s.shapes.shapes.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(s.shapes.shapes[i].name, names[i]);
  const Shape& ball = s.shapes[0];
  EXPECT_EQ(ball.type, ShapeType::Sphere);
  EXPECT_DOUBLE_EQ(ball.radius, 0.1);
  const Shape& brick = s.shapes[1];
  EXPECT_EQ(brick.type, ShapeType::Box);
  expect_vec(brick.half_extents, 0.2, 0.1, 0.05);
  EXPECT_EQ(brick.hull.vertices.size(), 8u);
  const Shape& can = s.shapes[2];
  EXPECT_EQ(can.type, ShapeType::Cylinder);
  EXPECT_DOUBLE_EQ(can.radius, 0.07);
  EXPECT_DOUBLE_EQ(can.half_height, 0.12);
  const Shape& dumbbell = s.shapes[3];
  EXPECT_EQ(dumbbell.type, ShapeType::Compound);
  ASSERT_EQ(dumbbell.children.size(), 3u);
  EXPECT_EQ(dumbbell.children[0].shape, 0);
  expect_vec(dumbbell.children[0].pose.p, 0, 0, -0.3);
  expect_quat(dumbbell.children[1].pose.q, 0, 0, 0, 1);
  EXPECT_EQ(dumbbell.children[2].shape, 5);
  expect_vec(dumbbell.children[2].pose.p, 0, 0, 0);
  const Shape& ground = s.shapes[4];
  EXPECT_EQ(ground.type, ShapeType::Plane);
  expect_vec(ground.normal, 0, 0, 1);  // normalised from [0, 0, 2]
  EXPECT_DOUBLE_EQ(ground.offset, -0.5);
  const Shape& pill = s.shapes[5];
  EXPECT_EQ(pill.type, ShapeType::Capsule);
  EXPECT_DOUBLE_EQ(pill.radius, 0.05);
  EXPECT_DOUBLE_EQ(pill.half_height, 0.2);
  const Shape& tetra = s.shapes[6];  // from meshes/tetra.obj, relative to the scene's folder
  EXPECT_EQ(tetra.type, ShapeType::Convex);
  EXPECT_EQ(tetra.hull.vertices.size(), 4u);
  const Shape& wedge = s.shapes[7];
  EXPECT_EQ(wedge.type, ShapeType::Convex);
  EXPECT_EQ(wedge.hull.vertices.size(), 5u);

  // bodies: explicit ones first, then generated ones
  ASSERT_EQ(s.bodies.size(), 7u);
  const BodyDef& floor = s.bodies[0];
  EXPECT_EQ(floor.name, "floor");
  EXPECT_EQ(floor.shape, 4);
  EXPECT_TRUE(floor.fixed);
  EXPECT_EQ(floor.material, 0);
  const BodyDef& slider = s.bodies[1];
  EXPECT_EQ(slider.name, "slider");
  EXPECT_EQ(slider.shape, 1);
  EXPECT_EQ(slider.material, 1);
  expect_vec(slider.position, 1, 2, 3);
  expect_quat(slider.orientation, 0, 1, 0, 0);
  expect_vec(slider.velocity, 0.1, 0.2, 0.3);
  expect_vec(slider.angular_velocity, -1, -2, -3);
  EXPECT_FALSE(slider.fixed);
  ASSERT_TRUE(slider.mass.has_value());
  EXPECT_DOUBLE_EQ(*slider.mass, 2.5);
  ASSERT_TRUE(slider.inertia.has_value());
  expect_vec(*slider.inertia, 0.1, 0.2, 0.3);
  const BodyDef& weights = s.bodies[2];
  EXPECT_EQ(weights.shape, 3);
  EXPECT_EQ(weights.material, 2);
  EXPECT_EQ(s.bodies[3].name, "wall_0");
  EXPECT_EQ(s.bodies[3].material, 2);
  EXPECT_EQ(s.bodies[6].name, "wall_3");
  expect_vec(s.bodies[6].position, 0.6, 5, 0.15);
}

TEST(SceneLoader, GridGeneratorNamesXFastestAndOffsetsOddRows) {
  json doc = with(minimal_scene(), "/generators", json::parse(R"([{"type": "grid", "prefix": "brick",
      "shape": "ball", "count": [3, 2, 2], "origin": [1, 2, 3], "spacing": [0.5, 0.25, 2],
      "odd_row_offset": [0.1, 0.2, 0.3]}])"));
  SceneDef s = parse_scene(doc, ".");
  ASSERT_EQ(s.bodies.size(), 2u + 12u);
  // body I sits at (i, j, k) with I = i + 3 (j + 2 k); odd k adds the offset
  for (int I = 0; I < 12; ++I) {
    const BodyDef& b = s.bodies[std::size_t(2 + I)];
    int i = I % 3, j = (I / 3) % 2, k = I / 6;
    EXPECT_EQ(b.name, "brick_" + std::to_string(I));
    Vec3 expected(1 + 0.5 * i, 2 + 0.25 * j, 3 + 2.0 * k);
    if (k == 1) expected += Vec3(0.1, 0.2, 0.3);
    expect_vec(b.position, expected.x(), expected.y(), expected.z());
    EXPECT_EQ(b.shape, 0);
    EXPECT_FALSE(b.fixed);
  }
  expect_vec(body(s, "brick_7").position, 1.6, 2.2, 5.3);
}

json random_scene(std::uint64_t seed, double min_separation, bool random_orientation) {
  json g = {{"type", "random"},           {"prefix", "ball"},     {"shape", "ball"},
            {"count", 60},                {"box_min", {-1, -2, 0}}, {"box_max", {1, 2, 3}},
            {"seed", seed},               {"random_orientation", random_orientation},
            {"min_separation", min_separation}};
  return with(minimal_scene(), "/generators", json::array({g}));
}

TEST(SceneLoader, RandomGeneratorIsDeterministicAndKeepsMinSeparation) {
  SceneDef a = parse_scene(random_scene(7, 0.6, true), ".");
  SceneDef b = parse_scene(random_scene(7, 0.6, true), ".");
  SceneDef c = parse_scene(random_scene(8, 0.6, true), ".");
  ASSERT_EQ(a.bodies.size(), 62u);
  bool differs = false;
  for (std::size_t i = 2; i < a.bodies.size(); ++i) {
    const BodyDef& p = a.bodies[i];
    EXPECT_EQ(p.name, "ball_" + std::to_string(i - 2));
    EXPECT_EQ(p.position, b.bodies[i].position);
    EXPECT_EQ(p.orientation.coeffs(), b.bodies[i].orientation.coeffs());
    differs = differs || p.position != c.bodies[i].position;
    EXPECT_NEAR(p.orientation.norm(), 1.0, 1e-12);
    EXPECT_TRUE((p.position.array() >= Vec3(-1, -2, 0).array()).all());
    EXPECT_TRUE((p.position.array() < Vec3(1, 2, 3).array()).all());
    for (std::size_t j = 2; j < i; ++j) EXPECT_GE((p.position - a.bodies[j].position).norm(), 0.6);
  }
  EXPECT_TRUE(differs);
}

TEST(SceneLoader, RandomGeneratorDrawsFromRawMt19937_64Outputs) {
  // the documented recipe: u = (raw >> 11) * 2^-53 per coordinate, x then y then z
  SceneDef s = parse_scene(random_scene(42, 0.0, false), ".");
  std::mt19937_64 rng(42);
  auto u = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  for (int i = 0; i < 3; ++i) {
    double x = -1 + 2 * u(), y = -2 + 4 * u(), z = 0 + 3 * u();
    expect_vec(s.bodies[std::size_t(2 + i)].position, x, y, z, 0.0);
    expect_quat(s.bodies[std::size_t(2 + i)].orientation, 1, 0, 0, 0, 0.0);
  }
}

TEST(SceneLoader, OverridesApplyBeforeValidation) {
  TempDir dir;
  fs::path file = dir.write("scene.json", minimal_scene().dump(2));
  SceneDef s = load_scene(file, {"/solver/max_iterations=50", "/time/steps=123", "/name=ramp test",
                                 "/bodies/1/position=[0, 0, 5]"});
  EXPECT_EQ(s.solver_options.max_iterations, 50);
  EXPECT_EQ(s.steps, 123);
  EXPECT_EQ(s.name, "ramp test");  // not JSON, so taken as a string
  expect_vec(s.bodies[1].position, 0, 0, 5);
  try {
    load_scene(file, {"/time/steps=0"});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/time/steps");
  }
}

TEST(SceneLoader, OverrideCreatesMissingMembersAndAppends) {
  json doc = minimal_scene();
  apply_override(doc, "/collision/ccd=true");
  apply_override(doc, "/shapes/a~1b/type=sphere");
  apply_override(doc, "/bodies/-={\"name\": \"b1\", \"shape\": \"ball\"}");
  EXPECT_EQ(doc["collision"]["ccd"], true);
  EXPECT_EQ(doc["shapes"]["a/b"]["type"], "sphere");
  EXPECT_EQ(doc["bodies"].size(), 3u);
  EXPECT_EQ(doc["bodies"][2]["name"], "b1");
}

TEST(SceneLoader, OrientationIsNormalised) {
  SceneDef s = parse_scene(with(minimal_scene(), "/bodies/1/orientation", {2, 0, 0, 0}), ".");
  expect_quat(s.bodies[1].orientation, 1, 0, 0, 0);
  s = parse_scene(with(minimal_scene(), "/bodies/1/orientation", {1, 1, 0, 0}), ".");
  expect_quat(s.bodies[1].orientation, std::sqrt(0.5), std::sqrt(0.5), 0, 0);
  s = parse_scene(with(minimal_scene(), "/bodies/1/orientation", {0, 0, 3e300, 4e300}), ".");
  expect_quat(s.bodies[1].orientation, 0, 0, 0.6, 0.8);
}

TEST(SceneLoader, DurationRoundsToWholeSteps) {
  json doc = with(without(minimal_scene(), "/time/steps"), "/time/duration", 1.0);
  doc["time"]["dt"] = 0.003;
  EXPECT_EQ(parse_scene(doc, ".").steps, 333);  // round(333.33)
}

TEST(SceneLoader, ConvexShapeFromObjCube) {
  TempDir dir;
  dir.write("meshes/cube.obj", kCubeObj);
  json doc = with(minimal_scene(), "/shapes/cube", {{"type", "convex"}, {"file", "meshes/cube.obj"}});
  doc["bodies"].push_back({{"name", "c"}, {"shape", "cube"}});
  SceneDef s = parse_scene(doc, dir.path());
  const Shape& cube = s.shapes[1];
  EXPECT_EQ(s.shape_names[1], "cube");
  EXPECT_EQ(cube.type, ShapeType::Convex);
  ASSERT_EQ(cube.hull.vertices.size(), 8u);
  Vec3 lo = cube.hull.vertices[0], hi = lo;
  for (const Vec3& v : cube.hull.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  expect_vec(lo, -0.5, -0.5, -0.5);
  expect_vec(hi, 0.5, 0.5, 0.5);
  EXPECT_EQ(s.bodies[2].shape, 1);
}

TEST(MeshIo, ObjQuadsAreFannedIntoTriangles) {
  TempDir dir;
  TriangleMesh m = read_mesh(dir.write("cube.obj", kCubeObj), "/x");
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.triangles.size(), 12u);
  for (const auto& t : m.triangles)
    for (int v : t) EXPECT_TRUE(v >= 0 && v < 8);
}

TEST(MeshIo, FaceWithMissingVertexIsAnError) {
  TempDir dir;
  fs::path file = dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
  try {
    read_mesh(file, "/shapes/s/file");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/shapes/s/file");
    // Assimp's OBJ importer says "vertex index out of range", without the index
    EXPECT_NE(e.message().find("out of range"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find(file.string()), std::string::npos) << e.message();
  }
}

TEST(MeshIo, FolderIsNotAMeshFile) {
  TempDir dir;
  try {
    read_mesh(dir.path(), "/p");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/p");
    EXPECT_NE(e.message().find("is a folder"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace coulomb
