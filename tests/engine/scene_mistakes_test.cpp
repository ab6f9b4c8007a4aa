// Scene validation: every mistake is reported with the JSON pointer of the offending value
// (SCENE_FORMAT.md) before anything runs.
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

// ---- mistakes: each names its pointer -------------------------------------------------------

TEST(SceneMistakes, MissingFormat) {
  expect_error(without(minimal_scene(), "/format"), "/format", "missing required key 'format'");
}

TEST(SceneMistakes, WrongFormatString) {
  expect_error(with(minimal_scene(), "/format", "coulomb-scene/2"), "/format", "expected \"coulomb-scene/1\"");
  expect_error(with(minimal_scene(), "/format", 1), "/format", "expected a string");
}

TEST(SceneMistakes, DocumentNotAnObject) { expect_error(json::array(), "", "expected an object"); }

TEST(SceneMistakes, MissingTime) {
  expect_error(without(minimal_scene(), "/time"), "/time", "missing required key 'time'");
}

TEST(SceneMistakes, MissingTimeWithTypoPointsAtTheTypo) {
  json doc = without(minimal_scene(), "/time");
  doc["tmie"] = {{"dt", 0.01}, {"steps", 1}};
  expect_error(doc, "/time", "is 'tmie' a typo?");
}

TEST(SceneMistakes, BothDurationAndSteps) {
  expect_error(with(minimal_scene(), "/time/duration", 1.0), "/time", "not both");
}

TEST(SceneMistakes, NeitherDurationNorSteps) {
  expect_error(without(minimal_scene(), "/time/steps"), "/time", "missing 'duration'");
}

TEST(SceneMistakes, NonPositiveDt) {
  expect_error(with(minimal_scene(), "/time/dt", 0.0), "/time/dt", "expected a number > 0");
  expect_error(with(minimal_scene(), "/time/dt", -0.01), "/time/dt", "expected a number > 0");
  expect_error(without(minimal_scene(), "/time/dt"), "/time/dt", "missing required key 'dt'");
}

TEST(SceneMistakes, NonIntegerSteps) {
  expect_error(with(minimal_scene(), "/time/steps", 2.5), "/time/steps", "expected an integer >= 1");
  expect_error(with(minimal_scene(), "/time/steps", 0), "/time/steps", "expected an integer >= 1");
  expect_error(with(minimal_scene(), "/time/steps", "10"), "/time/steps", "expected an integer >= 1");
}

TEST(SceneMistakes, DurationShorterThanHalfAStep) {
  json doc = with(without(minimal_scene(), "/time/steps"), "/time/duration", 0.004);
  expect_error(doc, "/time/duration", "shorter than half a time step");
}

TEST(SceneMistakes, UnknownTopLevelKeySuggestsClosest) {
  expect_error(with(minimal_scene(), "/gravty", json::array({0, 0, -1})), "/gravty",
               "unknown key 'gravty' (did you mean 'gravity'?)");
}

TEST(SceneMistakes, UnknownKeyWithoutCloseMatchListsKnownKeys) {
  expect_error(with(minimal_scene(), "/collision/zzz", 1), "/collision/zzz", "known keys: envelope, margin, ccd");
}

TEST(SceneMistakes, UnknownBodyKey) {
  expect_error(with(minimal_scene(), "/bodies/1/positon", json::array({0, 0, 1})), "/bodies/1/positon",
               "did you mean 'position'?");
}

TEST(SceneMistakes, PositionNotThreeNumbers) {
  expect_error(with(minimal_scene(), "/bodies/1/position", json::array({0, 1})), "/bodies/1/position",
               "expected an array of 3 numbers");
  expect_error(with(minimal_scene(), "/bodies/1/position", json::array({0, "1", 2})), "/bodies/1/position",
               "expected an array of 3 numbers");
  expect_error(with(minimal_scene(), "/bodies/1/position", 3), "/bodies/1/position", "expected an array of 3 numbers");
}

TEST(SceneMistakes, ZeroQuaternion) {
  expect_error(with(minimal_scene(), "/bodies/1/orientation", json::array({0, 0, 0, 0})), "/bodies/1/orientation",
               "zero quaternion");
  expect_error(with(minimal_scene(), "/bodies/1/orientation", json::array({1, 0, 0})), "/bodies/1/orientation",
               "expected an array of 4 numbers");
}

TEST(SceneMistakes, UnknownShapeReference) {
  expect_error(with(minimal_scene(), "/bodies/1/shape", "bal"), "/bodies/1/shape",
               "unknown shape 'bal' (did you mean 'ball'?)");
  expect_error(with(minimal_scene(), "/bodies/1/shape", "teapot"), "/bodies/1/shape", "known shapes: ball, ground");
}

TEST(SceneMistakes, UnknownMaterial) {
  expect_error(with(minimal_scene(), "/bodies/1/material", "steel"), "/bodies/1/material", "unknown material 'steel'");
}

TEST(SceneMistakes, DuplicateBodyNames) {
  json doc = minimal_scene();
  doc["bodies"].push_back({{"name", "b0"}, {"shape", "ball"}});
  expect_error(doc, "/bodies/2/name", "duplicate body name 'b0' (also used by /bodies/1)");
}

TEST(SceneMistakes, GeneratedNameClashesWithBody) {
  json doc = minimal_scene();
  doc["bodies"].push_back({{"name", "ball_1"}, {"shape", "ball"}});
  doc["generators"] = json::parse(R"([{"type": "grid", "prefix": "ball", "shape": "ball",
                                       "count": [2, 1, 1], "spacing": [1, 1, 1]}])");
  expect_error(doc, "/generators/0/prefix", "'ball_1' is already used by /bodies/2");
}

TEST(SceneMistakes, GeneratedNamesClashBetweenGenerators) {
  json g = json::parse(R"({"type": "grid", "prefix": "ball", "shape": "ball", "count": [1, 1, 1], "spacing": [1, 1, 1]})");
  json doc = with(minimal_scene(), "/generators", json::array({g, g}));
  expect_error(doc, "/generators/1/prefix", "'ball_0' is already used by /generators/0");
}

TEST(SceneMistakes, NegativeRadius) {
  expect_error(with(minimal_scene(), "/shapes/ball/radius", -0.5), "/shapes/ball/radius", "expected a number > 0");
}

TEST(SceneMistakes, BoxHalfExtentsWithAZero) {
  json doc = with(minimal_scene(), "/shapes/crate", {{"type", "box"}, {"half_extents", {0.5, 0.0, 0.5}}});
  expect_error(doc, "/shapes/crate/half_extents", "expected an array of 3 numbers, each > 0");
}

TEST(SceneMistakes, ShapeKeyOfAnotherType) {
  expect_error(with(minimal_scene(), "/shapes/ball/half_extents", {1, 1, 1}), "/shapes/ball/half_extents",
               "unknown key 'half_extents'");
}

TEST(SceneMistakes, UnknownShapeType) {
  expect_error(with(minimal_scene(), "/shapes/ball/type", "spehre"), "/shapes/ball/type", "did you mean \"sphere\"?");
}

TEST(SceneMistakes, PlaneOnNonFixedBody) {
  expect_error(with(minimal_scene(), "/bodies/0/fixed", false), "/bodies/0/shape",
               "can only be used by a fixed body");
}

TEST(SceneMistakes, ZeroPlaneNormal) {
  expect_error(with(minimal_scene(), "/shapes/ground/normal", {0, 0, 0}), "/shapes/ground/normal", "must not be zero");
}

TEST(SceneMistakes, CompoundCycle) {
  json doc = minimal_scene();
  doc["shapes"]["a"] = json::parse(R"({"type": "compound", "children": [{"shape": "ball"}, {"shape": "b"}]})");
  doc["shapes"]["b"] = json::parse(R"({"type": "compound", "children": [{"shape": "a"}]})");
  expect_error(doc, "/shapes/b/children/0/shape", "cycle: a -> b -> a");
  json self = with(minimal_scene(), "/shapes/c", json::parse(R"({"type": "compound", "children": [{"shape": "c"}]})"));
  expect_error(self, "/shapes/c/children/0/shape", "cycle: c -> c");
}

TEST(SceneMistakes, CompoundWithPlaneChild) {
  json doc = with(minimal_scene(), "/shapes/c", json::parse(R"({"type": "compound", "children": [{"shape": "ground"}]})"));
  expect_error(doc, "/shapes/c/children/0/shape", "plane cannot be part of a compound");
}

TEST(SceneMistakes, ConvexWithCoplanarPoints) {
  json flat = json::parse(R"({"type": "convex", "vertices": [[0,0,0], [1,0,0], [0,1,0], [1,1,0], [0.5,0.5,0]]})");
  expect_error(with(minimal_scene(), "/shapes/flat", flat), "/shapes/flat", "cannot build a convex hull");
}

TEST(SceneMistakes, ConvexWithBothVerticesAndFile) {
  json both = json::parse(R"({"type": "convex", "vertices": [[0,0,0]], "file": "x.obj"})");
  expect_error(with(minimal_scene(), "/shapes/both", both), "/shapes/both/file", "not both");
}

TEST(SceneMistakes, MissingObjFile) {
  TempDir dir;
  json doc = with(minimal_scene(), "/shapes/rock", {{"type", "convex"}, {"file", "meshes/rock.obj"}});
  expect_error(doc, "/shapes/rock/file", "file not found", dir.path());
}

TEST(SceneMistakes, EmptyObjFile) {
  TempDir dir;
  dir.write("empty.obj", "# nothing here\n");
  json doc = with(minimal_scene(), "/shapes/rock", {{"type", "convex"}, {"file", "empty.obj"}});
  expect_error(doc, "/shapes/rock/file", "contains no vertices", dir.path());
}

TEST(SceneMistakes, MeshFileMissing) {
  TempDir dir;
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "bunny.obj"}});
  expect_error(doc, "/shapes/m/file", "file not found", dir.path());
}

TEST(SceneMistakes, MeshEdgeSharedByThreeTriangles) {
  TempDir dir;
  dir.write("fin.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n");
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "fin.obj"}});
  expect_error(doc, "/shapes/m/file", "shared by 3 triangles", dir.path());
}

TEST(SceneMistakes, MeshDegenerateTriangle) {
  TempDir dir;
  dir.write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n");
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "flat.obj"}});
  expect_error(doc, "/shapes/m/file", "triangle 0 is degenerate", dir.path());
}

TEST(SceneMistakes, MeshKdopMustBe18Or26) {
  TempDir dir;
  dir.write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "tri.obj"}, {"kdop", 14}});
  expect_error(doc, "/shapes/m/kdop", "expected 18 or 26", dir.path());
}

TEST(SceneMistakes, RestitutionAboveOne) {
  json doc = with(minimal_scene(), "/materials/rubber", {{"restitution", 1.2}});
  expect_error(doc, "/materials/rubber/restitution", "expected a number in [0, 1]");
}

TEST(SceneMistakes, MaterialRanges) {
  expect_error(with(minimal_scene(), "/materials/m", {{"density", 0}}), "/materials/m/density", "> 0");
  expect_error(with(minimal_scene(), "/materials/m", {{"friction", -0.1}}), "/materials/m/friction", ">= 0");
  expect_error(with(minimal_scene(), "/materials/m", {{"young", 0}}), "/materials/m/young", "> 0");
  expect_error(with(minimal_scene(), "/materials/m", {{"poisson", 0.5}}), "/materials/m/poisson", "in (-1, 0.5)");
  expect_error(with(minimal_scene(), "/materials/m", {{"model", "neohookean"}}), "/materials/m/model",
               "did you mean \"neo-hookean\"?");
}

TEST(SceneMistakes, FrictionWithFrictionS) {
  json doc = with(minimal_scene(), "/materials/ice", {{"friction", 0.1}, {"friction_s", 0.05}, {"friction_t", 0.1}});
  expect_error(doc, "/materials/ice/friction_s", "cannot be combined with 'friction'");
  json half = with(minimal_scene(), "/materials/ice", {{"friction_s", 0.05}});
  expect_error(half, "/materials/ice/friction_t", "needs both");
}

TEST(SceneMistakes, ContactMaterialNamesUnknownMaterial) {
  json doc = with(minimal_scene(), "/materials/stone", json::object());
  doc["contact_materials"] = json::parse(R"([{"a": "stone", "b": "stoen"}])");
  expect_error(doc, "/contact_materials/0/b", "did you mean 'stone'?");
  doc["contact_materials"] = json::parse(R"([{"a": "stone", "b": "default"}, {"a": "default", "b": "stone"}])");
  expect_error(doc, "/contact_materials/1", "already given at /contact_materials/0");
}

TEST(SceneMistakes, UnknownSolverType) {
  expect_error(with(minimal_scene(), "/solver", {{"type", "magic"}}), "/solver/type", "available: prox-gs, prox-jacobi, pgs");
}

TEST(SceneMistakes, FclibOnlySolverType) {
  // newton-fb solves assembled FCLib problems only: the loader refuses it at /solver/type
  expect_error(with(minimal_scene(), "/solver", {{"type", "newton-fb"}}), "/solver/type",
               "solves assembled FCLib problems only (coulomb fclib), not scenes");
}

TEST(SceneMistakes, SolverValidatesItsOwnKeys) {
  json doc = with(minimal_scene(), "/solver", {{"type", "pgs"}, {"max_iter", 5}});
  try {
    parse_scene(doc, ".");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/max_iter");
  }
}

TEST(SceneMistakes, StabilizationBetaOnlyForBaumgarte) {
  expect_error(with(minimal_scene(), "/stabilization", {{"type", "post"}, {"beta", 0.2}}), "/stabilization/beta",
               "only used by \"baumgarte\"");
  expect_error(with(minimal_scene(), "/stabilization", {{"type", "baumgarte"}, {"beta", 0.0}}),
               "/stabilization/beta", "in (0, 1]");
}

TEST(SceneMistakes, SettingsRanges) {
  expect_error(with(minimal_scene(), "/collision/envelope", -1), "/collision/envelope", ">= 0");
  expect_error(with(minimal_scene(), "/collision/ccd", 1), "/collision/ccd", "true or false");
  expect_error(with(minimal_scene(), "/collision/thickness", -0.001), "/collision/thickness", ">= 0");
  expect_error(with(minimal_scene(), "/collision/edge_edge", "yes"), "/collision/edge_edge", "true or false");
  expect_error(with(minimal_scene(), "/collision/self_contacts", 0), "/collision/self_contacts", "true or false");
  expect_error(with(minimal_scene(), "/output/every", 0), "/output/every", "expected an integer >= 1");
  expect_error(with(minimal_scene(), "/output/contacts", "yes"), "/output/contacts", "true or false");
  expect_error(with(minimal_scene(), "/integrator", "euler"), "/integrator", "expected one of");
}

TEST(SceneMistakes, BodyMassAndInertiaMustBePositive) {
  expect_error(with(minimal_scene(), "/bodies/1/mass", 0), "/bodies/1/mass", "expected a number > 0");
  expect_error(with(minimal_scene(), "/bodies/1/inertia", {1, -1, 1}), "/bodies/1/inertia", "each > 0");
}

// a scene with one soft cube for xpbd-jacobi
json soft_scene() {
  json doc = with(minimal_scene(), "/solver", {{"type", "xpbd-jacobi"}});
  doc["soft_bodies"] = json::parse(R"([{"name": "jelly", "position": [0, 0, 2],
      "mesh": {"type": "box", "half_extents": [0.1, 0.1, 0.1], "resolution": [2, 2, 2]}}])");
  return doc;
}

TEST(SceneMistakes, SoftBodiesNeedASolverThatHandlesThem) {
  EXPECT_NO_THROW(parse_scene(soft_scene(), "."));
  expect_error(with(soft_scene(), "/solver", {{"type", "prox-gs"}}), "/solver/type", "cannot simulate soft bodies");
}

TEST(SceneMistakes, SoftBodyMistakes) {
  expect_error(without(soft_scene(), "/soft_bodies/0/mesh"), "/soft_bodies/0/mesh", "missing required key");
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh/type", "cube"), "/soft_bodies/0/mesh/type", "expected one of");
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh/resolution", {2, 0, 2}), "/soft_bodies/0/mesh/resolution", "each >= 1");
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh", {{"type", "sphere"}, {"radius", -1}}), "/soft_bodies/0/mesh/radius",
               "expected a number > 0");
  expect_error(with(soft_scene(), "/soft_bodies/0/material", "jello"), "/soft_bodies/0/material", "unknown material");
  expect_error(with(soft_scene(), "/soft_bodies/0/name", "b0"), "/soft_bodies/0/name", "duplicate body name");
  expect_error(with(soft_scene(), "/soft_bodies/0/pinned", {{"box_min", {5, 5, 5}}, {"box_max", {6, 6, 6}}}),
               "/soft_bodies/0/pinned", "contains no vertex");
  expect_error(with(soft_scene(), "/soft_bodies/0/colour", "red"), "/soft_bodies/0/colour", "unknown key");
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh", {{"type", "file"}, {"file", "missing.node"}}),
               "/soft_bodies/0/mesh/file", "missing.node");
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh", {{"type", "tetgen"}, {"surface", "missing.obj"}, {"max_volume", 1e-3}}),
               "/soft_bodies/0/mesh/surface", "missing.obj");
}

TEST(SceneMistakes, OpenTetgenSurfaceIsRejectedWithItsPointer) {
  TempDir dir;
  std::ofstream(dir.path() / "open.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n";
  expect_error(with(soft_scene(), "/soft_bodies/0/mesh", {{"type", "tetgen"}, {"surface", "open.obj"}, {"max_volume", 1e-3}}),
               "/soft_bodies/0/mesh/surface", "open", dir.path());
}

TEST(SceneMistakes, JointMistakes) {
  json attach = json::parse(R"({"type": "attach", "soft": "jelly", "vertices": {"box_min": [-1, -1, 2.09], "box_max": [1, 1, 3]}, "body": "b0"})");
  EXPECT_NO_THROW(parse_scene(with(soft_scene(), "/joints", json::array({attach})), "."));
  expect_error(with(soft_scene(), "/joints", json::array({with(attach, "/soft", "jam")})), "/joints/0/soft", "no soft body");
  expect_error(with(soft_scene(), "/joints", json::array({with(attach, "/body", "b9")})), "/joints/0/body", "no rigid body");
  expect_error(with(soft_scene(), "/joints", json::array({with(attach, "/vertices/box_min", {2, 2, 2})})),
               "/joints/0/vertices", "box_min must not exceed box_max");
  expect_error(with(minimal_scene(), "/joints", json::array({attach})), "/joints/0/soft", "no soft body");
}

TEST(SceneMistakes, RigidJointMistakes) {
  json hinge = json::parse(R"({"type": "hinge", "a": "b0", "b": null, "anchor": [0, 0, 2], "axis": [0, 1, 0],
                               "limits": [-0.5, 0.5], "compliance": 0})");
  const auto joints = [](const json& j) { return with(minimal_scene(), "/joints", json::array({j})); };
  EXPECT_EQ(parse_scene(joints(hinge), ".").joints.size(), 1u);
  expect_error(joints(with(hinge, "/type", "slider")), "/joints/0/type", "expected one of");
  expect_error(joints(with(hinge, "/a", "b7")), "/joints/0/a", "no rigid body is named 'b7'");
  expect_error(joints(with(hinge, "/b", "b0")), "/joints/0/b", "two different bodies");
  expect_error(joints(with(hinge, "/b", "nope")), "/joints/0/b", "use null for the world");
  expect_error(joints(with(with(hinge, "/a", "floor"), "/b", nullptr)), "/joints/0/a", "both sides of the joint are fixed");
  expect_error(joints(without(hinge, "/anchor")), "/joints/0/anchor", "missing required key");
  expect_error(joints(without(hinge, "/axis")), "/joints/0/axis", "missing required key");
  expect_error(joints(with(hinge, "/axis", {0, 0, 0})), "/joints/0/axis", "must not be zero");
  expect_error(joints(with(hinge, "/limits", {0.5, -0.5})), "/joints/0/limits", "lo <= hi");
  expect_error(joints(with(hinge, "/limits", {0.1, 0.5})), "/joints/0/limits", "must lie within [lo, hi]");
  // hinge angles are multi-turn: limits past +-pi are fine
  EXPECT_EQ(parse_scene(joints(with(hinge, "/limits", {-4, 7})), ".").joints[0].lo, -4.0);
  expect_error(joints(with(hinge, "/limits", {1})), "/joints/0/limits", "expected [lo, hi]");
  expect_error(joints(with(hinge, "/compliance", -1)), "/joints/0/compliance", "");
  expect_error(joints(with(hinge, "/spring", 1)), "/joints/0/spring", "unknown key");
  json ball = json::parse(R"({"type": "ball", "a": "b0", "b": null, "anchor": [0, 0, 2]})");
  EXPECT_NO_THROW(parse_scene(joints(ball), "."));
  expect_error(joints(with(ball, "/axis", {0, 0, 1})), "/joints/0/axis", "no axis");
  expect_error(joints(with(ball, "/limits", {-1, 1})), "/joints/0/limits", "no limits");
  json fixed = json::parse(R"({"type": "fixed", "a": "b0", "b": null})");
  EXPECT_EQ(parse_scene(joints(fixed), ".").joints[0].anchor, Vec3(0, 0, 1));  // body a's position
  json prismatic = json::parse(R"({"type": "prismatic", "a": "b0", "b": null, "axis": [1, 0, 0], "limits": [-1, 2]})");
  EXPECT_NO_THROW(parse_scene(joints(prismatic), "."));
  // angular_compliance and drives (scenes/README.md)
  expect_error(joints(with(hinge, "/angular_compliance", -1)), "/joints/0/angular_compliance", "");
  json driven = with(prismatic, "/drive", json::parse(R"({"target": [[0, 0], [1, 0.5]], "compliance": 1e-6})"));
  const SceneDef d = parse_scene(joints(driven), ".");
  ASSERT_EQ(d.joints[0].drive.size(), 2u);
  EXPECT_EQ(d.joints[0].drive[1], std::make_pair(1.0, 0.5));
  EXPECT_EQ(d.joints[0].drive_compliance, 1e-6);
  expect_error(joints(with(ball, "/drive", json::parse(R"({"target": [[0, 0]]})"))), "/joints/0/drive", "no drive");
  expect_error(joints(with(prismatic, "/drive", json::parse(R"({"target": []})"))), "/joints/0/drive/target", "non-empty");
  expect_error(joints(with(prismatic, "/drive", json::parse(R"({"target": [[1, 0], [1, 2]]})"))),
               "/joints/0/drive/target/1", "times must increase");
  expect_error(joints(with(prismatic, "/drive", json::parse(R"({"target": [[0, "x"]]})"))), "/joints/0/drive/target/0",
               "[time, value]");
  expect_error(joints(with(prismatic, "/drive", json::parse(R"({"target": [[0, 0]], "compliance": -1})"))),
               "/joints/0/drive/compliance", ">= 0");
  expect_error(joints(with(prismatic, "/drive", json::parse(R"({"target": [[0, 0]], "gain": 1})"))),
               "/joints/0/drive/gain", "unknown key");
}

TEST(SceneMistakes, GeneratorMistakes) {
  json grid = json::parse(R"({"type": "grid", "prefix": "g", "shape": "ball", "count": [2, 0, 1], "spacing": [1, 1, 1]})");
  expect_error(with(minimal_scene(), "/generators", json::array({grid})), "/generators/0/count", "each >= 1");
  json random = json::parse(R"({"type": "random", "prefix": "r", "shape": "ball", "count": 3,
                                "box_min": [0, 0, 0], "box_max": [1, 0, 1]})");
  expect_error(with(minimal_scene(), "/generators", json::array({random})), "/generators/0/box_max", "box_max > box_min");
  json plane = json::parse(R"({"type": "grid", "prefix": "p", "shape": "ground", "count": [1, 1, 1], "spacing": [1, 1, 1]})");
  expect_error(with(minimal_scene(), "/generators", json::array({plane})), "/generators/0/shape", "fixed body");
  json stacked = json::parse(R"({"type": "grid", "prefix": "s", "shape": "ball", "count": [1, 3, 1], "spacing": [1, 0, 1]})");
  expect_error(with(minimal_scene(), "/generators", json::array({stacked})), "/generators/0/spacing", "would overlap");
  json row = json::parse(R"({"type": "grid", "prefix": "s", "shape": "ball", "count": [3, 1, 1], "spacing": [1, 0, 0]})");
  EXPECT_EQ(parse_scene(with(minimal_scene(), "/generators", json::array({row})), ".").bodies.size(), 5u);
}

TEST(SceneMistakes, RandomGeneratorCannotKeepMinSeparation) {
  // two points in a unit cube are at most sqrt(3) < 2 apart
  json random = json::parse(R"({"type": "random", "prefix": "r", "shape": "ball", "count": 2, "seed": 1,
                                "box_min": [0, 0, 0], "box_max": [1, 1, 1], "min_separation": 2.0})");
  expect_error(with(minimal_scene(), "/generators", json::array({random})), "/generators/0/min_separation",
               "could not place body 2 of 2");
}

TEST(SceneMistakes, InvalidJsonTextGivesLineAndColumn) {
  TempDir dir;
  // the stray '}' after the trailing comma is line 3, column 23
  fs::path file = dir.write("broken.json", "{\n  \"format\": \"coulomb-scene/1\",\n  \"time\": {\"dt\": 0.01,}\n}\n");
  try {
    load_scene(file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "");
    EXPECT_NE(e.message().find("invalid JSON"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("line 3, column 23"), std::string::npos) << e.message();
  }
}

TEST(SceneMistakes, DuplicateJsonKey) {
  TempDir dir;
  fs::path file = dir.write("dup.json", R"({"format": "coulomb-scene/1", "time": {"dt": 0.01, "steps": 2, "dt": 0.02}})");
  try {
    load_scene(file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/time/dt");
    EXPECT_NE(e.message().find("duplicate key 'dt'"), std::string::npos) << e.message();
  }
  fs::path in_array = dir.write("dup2.json", R"({"bodies": [{"name": "a"}, {"name": "b", "name": "c"}]})");
  try {
    load_scene(in_array);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/bodies/1/name");
  }
}

TEST(SceneMistakes, MissingSceneFile) {
  TempDir dir;
  try {
    load_scene(dir.path() / "nope.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "");
    EXPECT_NE(e.message().find("scene file not found"), std::string::npos) << e.message();
  }
}

TEST(SceneMistakes, BadSetPointer) {
  auto expect_set_error = [](const std::string& assignment, const std::string& pointer, const std::string& fragment) {
    json doc = minimal_scene();
    try {
      apply_override(doc, assignment);
      ADD_FAILURE() << "no error for " << assignment;
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), pointer) << e.what();
      EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
    }
  };
  expect_set_error("time/steps=5", "time/steps", "must start with '/'");
  expect_set_error("/time/steps", "--set", "expected POINTER=VALUE");
  expect_set_error("/time/dt/x=1", "/time/dt/x", "cannot go through /time/dt");
  expect_set_error("/bodies/7/name=x", "/bodies/7/name", "out of range");
  expect_set_error("/bodies/first/name=x", "/bodies/first/name", "not an index");
  expect_set_error("/a~2b=1", "/a~2b", "'~' must be followed by 0 or 1");
}



// The `actuators` section and kinematic bodies (scenes/README.md "Actuators", "Kinematic bodies").
TEST(SceneMistakes, ActuatorMistakes) {
  json doc = minimal_scene();
  doc["joints"] = json::parse(R"([{"name": "axle", "type": "hinge", "a": "b0", "b": null, "anchor": [0, 0, 1], "axis": [0, 1, 0]},
                                   {"name": "pin", "type": "ball", "a": "b0", "b": null, "anchor": [0, 0, 1]}])");
  json servo = json::parse(R"({"name": "m", "type": "position", "joint": "axle", "stiffness": 100, "damping": 2,
                               "max_effort": 5, "schedule": [[0, 0], [1, 4]]})");
  const auto acts = [&](const json& a) { return with(doc, "/actuators", json::array({a})); };
  const SceneDef d = parse_scene(acts(servo), ".");
  ASSERT_EQ(d.actuators.size(), 1u);
  EXPECT_EQ(d.actuators[0].type, ActuatorType::Position);
  EXPECT_EQ(d.actuators[0].joint, 0);
  EXPECT_EQ(d.actuators[0].stiffness, 100.0);
  EXPECT_EQ(d.actuators[0].schedule[1], std::make_pair(1.0, 4.0));
  expect_error(acts(with(servo, "/joint", "elbow")), "/actuators/0/joint", "no joint is named 'elbow'");
  expect_error(acts(with(servo, "/joint", "pin")), "/actuators/0/joint", "actuators drive hinge and prismatic");
  expect_error(acts(with(servo, "/type", "torque")), "/actuators/0/type", "expected one of");
  expect_error(acts(with(servo, "/max_effort", 0)), "/actuators/0/max_effort", "");
  expect_error(acts(with(servo, "/stiffness", -1)), "/actuators/0/stiffness", "");
  expect_error(acts(with(with(servo, "/stiffness", 0), "/damping", 0)), "/actuators/0/stiffness", "does nothing");
  expect_error(acts(with(servo, "/schedule", json::parse("[[1, 0], [0, 1]]"))), "/actuators/0/schedule/1", "times must increase");
  expect_error(acts(with(servo, "/gain", 1)), "/actuators/0/gain", "unknown key");
  expect_error(acts(without(servo, "/name")), "/actuators/0/name", "missing required key");
  // one position or velocity actuator per joint (a drive counts), any number of effort ones
  json effort = json::parse(R"({"name": "e", "type": "effort", "joint": "axle"})");
  EXPECT_EQ(parse_scene(with(doc, "/actuators", json::array({servo, effort, with(effort, "/name", "f")})), ".").actuators.size(), 3u);
  expect_error(with(doc, "/actuators", json::array({servo, with(servo, "/name", "n")})), "/actuators/1", "already has");
  expect_error(with(doc, "/actuators", json::array({effort, effort})), "/actuators/1/name", "duplicate actuator name");
  json driven = with(doc, "/joints/0/drive", json::parse(R"({"target": [[0, 0]]})"));
  EXPECT_EQ(parse_scene(driven, ".").actuators.at(0).name, "axle");  // the drive is a servo named after its joint
  expect_error(with(driven, "/actuators", json::array({servo})), "/joints/0/drive", "already has");
  // kinematic bodies: not fixed at once
  expect_error(with(minimal_scene(), "/bodies/1/kinematic", "yes"), "/bodies/1/kinematic", "");
  expect_error(with(with(minimal_scene(), "/bodies/1/kinematic", true), "/bodies/1/fixed", true), "/bodies/1/kinematic",
               "fixed or kinematic");
}

}  // namespace
}  // namespace coulomb
