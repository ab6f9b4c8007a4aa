// Tests of the scene loader (engine/src/scene_loader.cpp) against SCENE_FORMAT.md.
//
// Mistakes: each test breaks one rule of the format in an otherwise valid scene and checks that
// the InputError names the exact JSON pointer of the offending value and says what is wrong.
// Valid input: every key of a full scene file arrives in SceneDef unchanged; generators are
// checked against their definitions (grid formula, mt19937_64 raw outputs as the oracle for the
// random generator).
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace coulomb {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// the smallest valid scene: one ball above a fixed ground plane
json minimal_scene() {
  return json::parse(R"({
    "format": "coulomb-scene/1",
    "time": {"dt": 0.01, "steps": 10},
    "shapes": {
      "ball": {"type": "sphere", "radius": 0.5},
      "ground": {"type": "plane", "normal": [0, 0, 1]}
    },
    "bodies": [
      {"name": "floor", "shape": "ground", "fixed": true},
      {"name": "b0", "shape": "ball", "position": [0, 0, 1]}
    ]
  })");
}

// `doc` with the value at `pointer` replaced (or added)
json with(json doc, const std::string& pointer, const json& value) {
  doc[json::json_pointer(pointer)] = value;
  return doc;
}

json without(json doc, const std::string& pointer) {
  json::json_pointer p(pointer);
  doc[p.parent_pointer()].erase(p.back());
  return doc;
}

// parse_scene must throw InputError at exactly `pointer` with `fragment` in its message
void expect_error(const json& doc, const std::string& pointer, const std::string& fragment,
                  const fs::path& base_dir = ".") {
  try {
    parse_scene(doc, base_dir);
    ADD_FAILURE() << "no error; expected one at '" << pointer << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(e.message().find(fragment), std::string::npos) << "message: " << e.message();
  }
}

// a fresh folder under the system temp folder, removed afterwards
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("coulomb_scene_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

 private:
  fs::path path_;
};

const char* kCubeObj = R"(# unit cube centred at the origin
v -0.5 -0.5 -0.5
v  0.5 -0.5 -0.5
v  0.5  0.5 -0.5
v -0.5  0.5 -0.5
v -0.5 -0.5  0.5
v  0.5 -0.5  0.5
v  0.5  0.5  0.5
v -0.5  0.5  0.5
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
)";

const BodyDef& body(const SceneDef& s, const std::string& name) {
  for (const BodyDef& b : s.bodies)
    if (b.name == name) return b;
  throw std::runtime_error("no body " + name);
}

void expect_vec(const Vec3& v, double x, double y, double z, double tol = 1e-12) {
  EXPECT_NEAR(v.x(), x, tol);
  EXPECT_NEAR(v.y(), y, tol);
  EXPECT_NEAR(v.z(), z, tol);
}

void expect_quat(const Quat& q, double w, double x, double y, double z, double tol = 1e-12) {
  EXPECT_NEAR(q.w(), w, tol);
  EXPECT_NEAR(q.x(), x, tol);
  EXPECT_NEAR(q.y(), y, tol);
  EXPECT_NEAR(q.z(), z, tol);
}

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

TEST(SceneMistakes, MeshShapeNotSupportedYet) {
  json doc = with(minimal_scene(), "/shapes/m", {{"type", "mesh"}, {"file", "bunny.obj"}});
  expect_error(doc, "/shapes/m/type", "not supported yet");
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
  expect_error(with(minimal_scene(), "/collision/ccd", true), "/collision/ccd", "not supported yet");
  expect_error(with(minimal_scene(), "/output/every", 0), "/output/every", "expected an integer >= 1");
  expect_error(with(minimal_scene(), "/integrator", "euler"), "/integrator", "expected one of");
}

TEST(SceneMistakes, BodyMassAndInertiaMustBePositive) {
  expect_error(with(minimal_scene(), "/bodies/1/mass", 0), "/bodies/1/mass", "expected a number > 0");
  expect_error(with(minimal_scene(), "/bodies/1/inertia", {1, -1, 1}), "/bodies/1/inertia", "each > 0");
}

TEST(SceneMistakes, SoftBodiesNotSupportedYet) {
  expect_error(with(minimal_scene(), "/soft_bodies", json::array({{{"name", "jelly"}}})), "/soft_bodies",
               "not supported yet");
}

TEST(SceneMistakes, JointsNotSupportedYet) {
  expect_error(with(minimal_scene(), "/joints", json::array({{{"type", "ball"}}})), "/joints", "not supported yet");
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

// ---- valid input ------------------------------------------------------------------------------

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
  EXPECT_DOUBLE_EQ(s.solver_options.sor, 1.3);
  EXPECT_EQ(s.stabilization, StabilizationType::Baumgarte);
  EXPECT_DOUBLE_EQ(s.baumgarte_beta, 0.3);
  EXPECT_DOUBLE_EQ(s.envelope, 0.02);
  EXPECT_DOUBLE_EQ(s.margin, 0.001);
  EXPECT_FALSE(s.ccd);
  EXPECT_EQ(s.output_every, 5);

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
  TriangleMesh m = read_obj(dir.write("cube.obj", kCubeObj), "/x");
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.triangles.size(), 12u);
  for (const auto& t : m.triangles)
    for (int v : t) EXPECT_TRUE(v >= 0 && v < 8);
}

TEST(MeshIo, FaceWithMissingVertexIsAnError) {
  TempDir dir;
  fs::path file = dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
  try {
    read_obj(file, "/shapes/s/file");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/shapes/s/file");
    EXPECT_NE(e.message().find("vertex 9"), std::string::npos) << e.message();
  }
}

TEST(MeshIo, FolderIsNotAnObjFile) {
  TempDir dir;
  try {
    read_obj(dir.path(), "/p");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/p");
    EXPECT_NE(e.message().find("is a folder"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace coulomb
