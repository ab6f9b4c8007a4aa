// The keys robot importers (URDF, MJCF) emit (scenes/README.md): a body's full inertia tensor,
// centre of mass, no shape and collision filter; collision.exclude; a joint's position, damping,
// friction and armature; an actuator's gear, ctrl_range, velocity damping and max_velocity. Each
// arrives in SceneDef, and each bad value fails at its JSON pointer.
#include "scene_test_util.h"

#include <coulomb/output.h>
#include <coulomb/world.h>

#include <unistd.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <filesystem>
#include <fstream>

namespace coulomb::scene_test {
namespace {

// a pendulum scene: a link hung on a hinge from the world, and an actuator on it
json robot_scene() {
  json doc = minimal_scene();
  doc["bodies"].push_back(json::parse(R"({"name": "link", "mass": 1.0, "inertia": [0.02, 0.03, 0.04],
                                          "position": [0, 0, 3]})"));
  doc["joints"] = json::parse(R"([{"name": "hinge", "type": "hinge", "a": "link", "b": null, "anchor": [0, 0, 3],
                                   "axis": [0, 1, 0]}])");
  doc["actuators"] = json::parse(R"([{"name": "motor", "type": "effort", "joint": "hinge"}])");
  return doc;
}

TEST(SceneModelKeys, BodyKeysArrive) {
  json doc = robot_scene();
  doc["bodies"][2]["inertia"] = {0.05, 0.04, 0.03, 0.005, -0.004, 0.006};
  doc["bodies"][2]["center_of_mass"] = {0.0, 0.05, -0.3};
  doc["bodies"][2]["contype"] = 2;
  doc["bodies"][2]["conaffinity"] = 4294967295u;
  doc["collision"]["exclude"] = json::array({json::array({"b0", "link"})});
  const SceneDef s = parse_scene(doc, ".");
  const BodyDef& b = s.bodies[2];
  EXPECT_EQ(b.shape, -1);
  EXPECT_EQ(*b.inertia, Vec3(0.05, 0.04, 0.03));
  EXPECT_EQ(b.inertia_products, Vec3(0.005, -0.004, 0.006));
  EXPECT_EQ(*b.center_of_mass, Vec3(0.0, 0.05, -0.3));
  EXPECT_EQ(b.contype, 2u);
  EXPECT_EQ(b.conaffinity, 4294967295u);
  EXPECT_EQ(s.bodies[1].contype, 1u);
  EXPECT_EQ(s.bodies[1].conaffinity, 1u);
  ASSERT_EQ(s.excluded_pairs.size(), 1u);
  EXPECT_EQ(s.excluded_pairs[0], std::make_pair(1, 2));
  // the World diagonalises the tensor: its principal moments are the tensor's eigenvalues
  const World w(s);
  Mat3 I;
  I << 0.05, 0.005, -0.004, 0.005, 0.04, 0.006, -0.004, 0.006, 0.03;
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(I);
  Vec3 moments = w.model().inertia[std::size_t(w.find_body("link"))];
  std::sort(moments.data(), moments.data() + 3);  // the eigenvalues come in increasing order
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(moments[k], eig.eigenvalues()[k], 1e-12);
}

TEST(SceneModelKeys, BodyMistakes) {
  const json doc = robot_scene();
  expect_error(with(doc, "/bodies/2/inertia", {1, 1}), "/bodies/2/inertia", "6 entries");
  expect_error(with(doc, "/bodies/2/inertia", {1, 1, 1, 0, 0, "x"}), "/bodies/2/inertia/5", "number");
  expect_error(with(doc, "/bodies/2/inertia", {1, -1, 1, 0, 0, 0}), "/bodies/2/inertia/1", "");
  expect_error(without(doc, "/bodies/2/mass"), "/bodies/2", "needs \"mass\" and \"inertia\"");
  expect_error(with(doc, "/bodies/1/center_of_mass", {0, 0, 0}), "/bodies/1/center_of_mass", "needs \"mass\"");
  expect_error(with(doc, "/bodies/2/contype", -1), "/bodies/2/contype", "32 bits");
  expect_error(with(doc, "/bodies/2/contype", 1.5), "/bodies/2/contype", "32 bits");
  expect_error(with(doc, "/bodies/2/conaffinity", 4294967296u), "/bodies/2/conaffinity", "32 bits");
  const auto pair = [](const json& a, const json& b) { return json::array({json::array({a, b})}); };
  expect_error(with(doc, "/collision/exclude", pair("b0", "nobody")), "/collision/exclude/0/1", "no rigid body");
  expect_error(with(doc, "/collision/exclude", json::array({json::array({"b0"})})), "/collision/exclude/0",
               "two rigid body names");
  expect_error(with(doc, "/collision/exclude", pair("b0", "b0")), "/collision/exclude/0", "two different");
  expect_error(with(doc, "/collision/exclude", pair("b0", 3)), "/collision/exclude/0/1", "string");
  // a tensor no mass distribution has: not positive definite
  const json bad = with(doc, "/bodies/2/inertia", {0.01, 0.01, 0.01, 0.02, 0, 0});
  EXPECT_THROW(World(parse_scene(bad, ".")), InputError);
}

// `visual`: shapes the viewer draws in place of the collision shape, with no mass and no contact
TEST(SceneModelKeys, VisualShapesArrive) {
  json doc = robot_scene();
  doc["shapes"]["panel"] = json::parse(R"({"type": "box", "half_extents": [2, 2, 0.1]})");
  doc["bodies"][1]["visual"] = json::parse(R"([{"shape": "panel", "position": [0, 0, 0.5], "color": [1, 0, 0]},
                                                {"shape": "ball", "orientation": [0, 1, 0, 0], "color": [0, 0, 1, 0.5]}])");
  doc["bodies"][2]["visual"] = json::parse(R"([{"shape": "ball"}])");
  const SceneDef s = parse_scene(doc, ".");
  ASSERT_EQ(s.bodies[1].visuals.size(), 2u);
  const VisualDef& v = s.bodies[1].visuals[0];
  EXPECT_EQ(s.shape_names[std::size_t(v.shape)], "panel");
  EXPECT_EQ(v.position, Vec3(0, 0, 0.5));
  EXPECT_EQ(*v.color, (std::array<double, 4>{1, 0, 0, 1}));
  EXPECT_EQ(*s.bodies[1].visuals[1].color, (std::array<double, 4>{0, 0, 1, 0.5}));
  EXPECT_FALSE(s.bodies[2].visuals[0].color.has_value());
  // no mass: the ball weighs what it weighs without its visual panel
  const World w(s), plain(parse_scene(robot_scene(), "."));
  EXPECT_EQ(w.model().mass, plain.model().mass);
  // geometry.json carries them, by shape index, in the body's shape frame
  const json g = geometry_json(w);
  const json& shapes = g["shapes"];
  const json& visual = g["bodies"][1]["visual"];
  ASSERT_EQ(visual.size(), 2u);
  EXPECT_EQ(shapes[visual[0]["shape"].get<std::size_t>()]["type"], "box");
  EXPECT_EQ(visual[0]["position"], json({0, 0, 0.5}));
  EXPECT_EQ(visual[0]["color"], json({1, 0, 0, 1}));
  EXPECT_EQ(visual[1]["orientation"], json({0, 1, 0, 0}));
  EXPECT_FALSE(g["bodies"][0].contains("visual"));
  EXPECT_EQ(g["bodies"][2]["visual"][0].size(), 3u);  // shape, position, orientation: no colour
  // the panel overlaps the floor and the link, and nothing collides with it: the same motion
  World run(s), reference(parse_scene(robot_scene(), "."));
  for (int k = 0; k < 10; ++k) run.step(), reference.step();
  for (const char* name : {"b0", "link"})
    EXPECT_EQ(run.body(run.find_body(name)).position, reference.body(reference.find_body(name)).position) << name;
}

// a visual mesh is any triangle soup (open, with a zero-area triangle), drawn as a shape of its
// own after the scene's in geometry.json
TEST(SceneModelKeys, VisualMeshIsATriangleSoupAfterTheScenesShapes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("coulomb_visual_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "soup.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nf 1 2 4\n";
  json doc = robot_scene();
  doc["bodies"][1]["visual"] = json::parse(R"([{"mesh": "soup.obj", "scale": 2, "color": [0, 1, 0]}])");
  const World w(parse_scene(doc, dir));
  std::filesystem::remove_all(dir);
  const json g = geometry_json(w);
  const json& v = g["bodies"][1]["visual"][0];
  const std::size_t scene_shapes = w.scene().shapes.shapes.size();
  ASSERT_EQ(g["shapes"].size(), scene_shapes + 1);
  EXPECT_EQ(v["shape"], scene_shapes);
  const json& mesh = g["shapes"][scene_shapes];
  EXPECT_EQ(mesh["type"], "mesh");
  EXPECT_EQ(mesh["closed"], false);
  EXPECT_EQ(mesh["triangles"], json({0, 1, 2, 0, 1, 3}));
  EXPECT_EQ(mesh["vertices"][9], 4.0);  // the fourth vertex's x, scaled
}

TEST(SceneModelKeys, VisualMistakes) {
  json doc = robot_scene();
  doc["bodies"][1]["visual"] = json::parse(R"([{"shape": "ball"}])");
  expect_error(with(doc, "/bodies/1/visual", json::object()), "/bodies/1/visual", "array");
  expect_error(with(doc, "/bodies/1/visual/0/shape", "nothing"), "/bodies/1/visual/0/shape", "nothing");
  expect_error(with(doc, "/bodies/1/visual/0/shape", "ground"), "/bodies/1/visual/0/shape", "plane");
  expect_error(with(doc, "/bodies/1/visual/0/color", {1, 0}), "/bodies/1/visual/0/color", "[red, green, blue]");
  expect_error(with(doc, "/bodies/1/visual/0/color", {1, 0, 1.5}), "/bodies/1/visual/0/color/2", "");
  expect_error(with(doc, "/bodies/1/visual/0/scale", 2), "/bodies/1/visual/0/scale", "");
  expect_error(without(doc, "/bodies/1/visual/0/shape"), "/bodies/1/visual/0", "either \"shape\"");
  expect_error(with(doc, "/bodies/1/visual/0/mesh", "x.obj"), "/bodies/1/visual/0", "either \"shape\"");
  json file = without(doc, "/bodies/1/visual/0/shape");
  expect_error(with(file, "/bodies/1/visual/0/mesh", "missing.obj"), "/bodies/1/visual/0/mesh", "missing.obj");
}

TEST(SceneModelKeys, JointKeysArrive) {
  json doc = robot_scene();
  doc["joints"][0]["position"] = 0.5;
  doc["joints"][0]["limits"] = {0.2, 1.0};
  doc["joints"][0]["damping"] = 0.3;
  doc["joints"][0]["friction"] = 0.2;
  doc["joints"][0]["armature"] = 0.01;
  const SceneDef s = parse_scene(doc, ".");
  const JointDef& j = s.joints[0];
  EXPECT_EQ(j.position, 0.5);
  EXPECT_EQ(j.damping, 0.3);
  EXPECT_EQ(j.friction, 0.2);
  EXPECT_EQ(j.armature, 0.01);
  const World w(s);
  EXPECT_DOUBLE_EQ(w.joint_state(0).position, 0.5);
}

TEST(SceneModelKeys, JointMistakes) {
  json doc = robot_scene();
  doc["joints"][0]["position"] = 0.5;
  expect_error(with(doc, "/joints/0/limits", {0.6, 1.0}), "/joints/0/limits", "within [lo, hi]");
  expect_error(with(doc, "/joints/0/damping", -1), "/joints/0/damping", "");
  expect_error(with(doc, "/joints/0/friction", -1), "/joints/0/friction", "");
  expect_error(with(doc, "/joints/0/armature", -1), "/joints/0/armature", "");
  json ball = robot_scene();
  ball["joints"][0] = json::parse(R"({"type": "ball", "a": "link", "b": null, "anchor": [0, 0, 3], "damping": 1})");
  ball.erase("actuators");
  expect_error(ball, "/joints/0/damping", "only hinge and prismatic");
}

TEST(SceneModelKeys, ActuatorKeysArrive) {
  json doc = robot_scene();
  doc["actuators"] = json::parse(R"([{"name": "m", "type": "velocity", "joint": "hinge", "gear": -2.5, "damping": 3,
                                      "ctrl_range": [-1, 1], "max_velocity": 0.5, "command": 0.8}])");
  const SceneDef s = parse_scene(doc, ".");
  const ActuatorDef& a = s.actuators[0];
  EXPECT_EQ(a.gear, -2.5);
  EXPECT_EQ(a.damping, 3.0);
  EXPECT_EQ(a.ctrl_lo, -1.0);
  EXPECT_EQ(a.ctrl_hi, 1.0);
  EXPECT_EQ(a.max_velocity, 0.5);
  World w(s);
  EXPECT_EQ(w.command(0), 0.5);  // 0.8 within ctrl_range, then clamped to max_velocity
  w.set_command(0, -7.0);
  EXPECT_EQ(w.command(0), -0.5);
}

TEST(SceneModelKeys, CtrlRangeClampsEveryCommand) {
  json doc = robot_scene();
  doc["actuators"][0]["ctrl_range"] = {-2, 3};
  doc["actuators"][0]["command"] = 5;
  World w(parse_scene(doc, "."));
  EXPECT_EQ(w.command(0), 3.0);
  w.set_command(0, -10.0);
  EXPECT_EQ(w.command(0), -2.0);
  w.set_command(0, 1.5);
  EXPECT_EQ(w.command(0), 1.5);
  doc["actuators"][0].erase("command");
  doc["actuators"][0]["schedule"] = {{0.0, -9.0}, {1.0, -9.0}};
  World s(parse_scene(doc, "."));
  ASSERT_TRUE(s.step().ok());
  EXPECT_EQ(s.command(0), -2.0);
  EXPECT_EQ(s.actuator_efforts()[0], -2.0);
}

TEST(SceneModelKeys, ActuatorMistakes) {
  const json doc = robot_scene();
  expect_error(with(doc, "/actuators/0/gear", 0), "/actuators/0/gear", "non-zero");
  expect_error(with(doc, "/actuators/0/gear", 2e6), "/actuators/0/gear", "");
  expect_error(with(doc, "/actuators/0/ctrl_range", {1, 1}), "/actuators/0/ctrl_range", "lo < hi");
  expect_error(with(doc, "/actuators/0/ctrl_range", {1}), "/actuators/0/ctrl_range", "[lo, hi]");
  expect_error(with(doc, "/actuators/0/max_velocity", 0), "/actuators/0/max_velocity", "");
  expect_error(with(doc, "/actuators/0/damping", 1), "/actuators/0/damping", "unknown");  // effort: no damping
  json vel = with(doc, "/actuators/0/type", "velocity");
  expect_error(with(vel, "/actuators/0/damping", 0), "/actuators/0/damping", "");
}

}  // namespace
}  // namespace coulomb::scene_test
