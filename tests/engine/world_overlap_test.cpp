// Overlaps at load (collision.initial_overlap, engine/src/world_overlap.cpp): bodies that start
// overlapping by more than collision.overlap_tolerance are refused by default with the pair and
// the depth (exit 2, so `coulomb validate` says so), kept and reported with "warn", or translated
// apart before step 1 with "resolve"; jointed pairs and resting contact within the tolerance pass,
// and so does every bundled scene.
#include <coulomb/error.h>
#include <coulomb/scene.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>

namespace coulomb::overlap_test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kScenes = fs::path(COULOMB_SOURCE_DIR) / "scenes";

// scenes/door.json with the door's bottom 0.5 m below the ground (its hinge to the post kept)
json door_in_ground(const std::string& mode = "") {
  json doc = read_scene_file(kScenes / "door.json");
  doc["bodies"][2]["position"][2] = 0.5;
  if (!mode.empty()) doc["collision"]["initial_overlap"] = mode;
  return doc;
}

// a 20 cm soft cube on a ramp tilted 20 degrees, its bottom face 2 cm into the ramp's top face
json cube_in_ramp(const std::string& mode = "") {
  const double a = 20.0 * std::numbers::pi / 180.0;
  const Quat q(Eigen::AngleAxisd(a, Vec3::UnitY()));
  const Vec3 n = q * Vec3::UnitZ();
  const Vec3 c = (0.1 + 0.1 - 0.02) * n;  // the ramp's half thickness, the cube's half size, less 2 cm
  json doc = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", 0.005}, {"steps", 100}}},
      {"solver", {{"type", "xpbd-jacobi"}, {"max_iterations", 30}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.8}}},
                     {"gel", {{"density", 1000}, {"young", 2e5}, {"poisson", 0.3}, {"damping", 0.005}}}}},
      {"shapes", {{"ramp", {{"type", "box"}, {"half_extents", {1.0, 0.5, 0.1}}}}}},
      {"bodies", {{{"name", "ramp"}, {"shape", "ramp"}, {"fixed", true}, {"orientation", {q.w(), q.x(), q.y(), q.z()}}}}},
      {"soft_bodies", {{{"name", "cube"}, {"material", "gel"}, {"position", {c.x(), c.y(), c.z()}},
                        {"orientation", {q.w(), q.x(), q.y(), q.z()}},
                        {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {3, 3, 3}}}}}}}};
  if (!mode.empty()) doc["collision"]["initial_overlap"] = mode;
  return doc;
}

// the InputError of building a World from `doc`, or none
std::optional<InputError> load_error(const json& doc) {
  try {
    World w(parse_scene(doc, kScenes));
  } catch (const InputError& e) {
    return e;
  }
  return std::nullopt;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(InitialOverlap, ADoorHalfAMetreInTheGroundIsRefusedNamingThePairAndTheDepth) {
  const std::optional<InputError> e = load_error(door_in_ground());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pointer(), "/bodies/2");  // the door, the body that can move
  EXPECT_TRUE(has(e->message(), "bodies 'floor' and 'door' overlap by 0.5 m")) << e->what();
  EXPECT_TRUE(has(e->message(), "collision.overlap_tolerance (0.01 m)")) << e->what();
  EXPECT_TRUE(has(e->message(), "\"resolve\"")) << e->what();
}

TEST(InitialOverlap, ASoftCubeTwoCentimetresIntoARampIsRefused) {
  const std::optional<InputError> e = load_error(cube_in_ramp());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pointer(), "/soft_bodies/0");
  EXPECT_TRUE(has(e->message(), "bodies 'ramp' and 'cube' overlap by 0.02 m")) << e->what();
}

TEST(InitialOverlap, WarnKeepsAndReportsTheOverlap) {
  World w(parse_scene(door_in_ground("warn"), kScenes));
  const InitialOverlaps& o = w.initial_overlaps();
  ASSERT_EQ(o.pairs.size(), 1u);
  EXPECT_EQ(o.pairs[0].a, "floor");
  EXPECT_EQ(o.pairs[0].b, "door");
  EXPECT_NEAR(o.pairs[0].depth, 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(o.tolerance, 0.01);
  EXPECT_TRUE(o.shifts.empty());
  // as asked: the hinge holds the door in the ground, and nothing pushes it out
  ASSERT_TRUE(w.step().ok());
  EXPECT_NEAR(w.last_stats().max_penetration, 0.5, 1e-3);
}

// "resolve" lifts the door out of the ground before step 1; the hinge then holds it at its new
// height, and the run is the bundled door's, 0.5 m higher: the ball knocks it open, nothing sinks
// or flies off.
TEST(InitialOverlap, ResolveLiftsTheDoorOutAndItSwingsWithoutSinking) {
  World w(parse_scene(door_in_ground("resolve"), kScenes));
  const InitialOverlaps& o = w.initial_overlaps();
  ASSERT_EQ(o.pairs.size(), 1u);
  ASSERT_EQ(o.shifts.size(), 1u);
  EXPECT_EQ(o.shifts[0].body, "door");
  EXPECT_NEAR(o.shifts[0].shift.z(), 0.5, 1e-6);
  EXPECT_NEAR(o.shifts[0].shift.head<2>().norm(), 0.0, 1e-9);
  const int door = w.find_body("door");
  EXPECT_NEAR(w.body(door).position.z(), 1.0, 1e-6);
  double deepest = 0.0, fastest = 0.0;
  while (w.step_count() < 300) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
    deepest = std::max(deepest, w.last_stats().max_penetration);
    fastest = std::max(fastest, w.body(door).velocity.norm());
  }
  std::printf("door resolved: deepest contact %.4f m over 300 steps, fastest door point %.3f m/s, z %.4f m\n", deepest,
              fastest, w.body(door).position.z());
  EXPECT_LT(deepest, 0.01);
  EXPECT_LT(fastest, 5.0);
  EXPECT_NEAR(w.body(door).position.z(), 1.0, 0.01);
}

double max_vertex_speed(const SoftBody& b) {
  double v = 0.0;
  for (const Vec3& x : b.v) v = std::max(v, x.norm());
  return v;
}

// "resolve" moves the soft cube out along the ramp's normal; it then rests on the ramp (mu 0.8 >
// tan 20 deg) instead of blowing up.
TEST(InitialOverlap, ResolveSettlesTheSoftCubeOnTheRamp) {
  World kept(parse_scene(cube_in_ramp("warn"), kScenes));
  const StepResult first = kept.step();
  const double kept_speed = first.ok() ? max_vertex_speed(kept.soft_body(0)) : INFINITY;
  World w(parse_scene(cube_in_ramp("resolve"), kScenes));
  const InitialOverlaps& o = w.initial_overlaps();
  ASSERT_EQ(o.shifts.size(), 1u);
  EXPECT_EQ(o.shifts[0].body, "cube");
  const double a = 20.0 * std::numbers::pi / 180.0;
  const Vec3 n(std::sin(a), 0.0, std::cos(a));
  EXPECT_NEAR(o.shifts[0].shift.dot(n), 0.02, 1e-3);
  double fastest = 0.0, deepest = 0.0;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
    fastest = std::max(fastest, max_vertex_speed(w.soft_body(0)));
    deepest = std::max(deepest, w.last_stats().max_penetration);
  }
  std::printf("soft cube 2 cm in the ramp: step 1 kept: %s, fastest vertex %.3g m/s; resolved: fastest %.3g m/s, "
              "deepest contact %.4f m over %d steps\n",
              first.ok() ? "ok" : first.message.c_str(), kept_speed, fastest, deepest, w.step_count());
  EXPECT_LT(fastest, 1.0);
  EXPECT_LT(deepest, 0.005);
}

// bodies joined by a joint meet at it by design (unless the joint says they collide)
TEST(InitialOverlap, JointedBodiesMayOverlap) {
  json doc = read_scene_file(kScenes / "door.json");
  doc["bodies"][1]["position"][0] = 0.0;  // the post inside the door's hinge edge
  EXPECT_FALSE(load_error(doc));
  doc["joints"][0]["collide"] = true;
  const std::optional<InputError> e = load_error(doc);
  ASSERT_TRUE(e);
  EXPECT_TRUE(has(e->message(), "bodies 'post' and 'door'")) << e->what();
}

// resting contact within the tolerance passes; the tolerance defaults to the envelope
TEST(InitialOverlap, TheToleranceIsTheEnvelopeUnlessGiven) {
  json doc = read_scene_file(kScenes / "door.json");
  doc["bodies"][2]["position"][2] = 0.995;  // 5 mm into the ground
  EXPECT_FALSE(load_error(doc));
  doc["collision"]["envelope"] = 0.004;
  EXPECT_TRUE(load_error(doc));
  doc["collision"]["overlap_tolerance"] = 0.006;
  EXPECT_FALSE(load_error(doc));
}

TEST(InitialOverlap, SoftBodiesOverlappingEachOtherAreRefused) {
  json doc = cube_in_ramp();
  doc["soft_bodies"][0]["position"] = {0, 0, 2};
  doc["soft_bodies"][0].erase("orientation");
  json other = doc["soft_bodies"][0];
  other["name"] = "other";
  other["position"] = {0, 0, 2.17};  // 3 cm into the first
  doc["soft_bodies"].push_back(other);
  const std::optional<InputError> e = load_error(doc);
  ASSERT_TRUE(e);
  EXPECT_TRUE(has(e->message(), "bodies 'cube' and 'other' overlap by 0.03 m")) << e->what();
}

// a pinned soft body cannot move, nor can a fixed one: "resolve" says so
TEST(InitialOverlap, ResolveRefusesWhatCannotMove) {
  json doc = cube_in_ramp("resolve");
  doc["soft_bodies"][0]["pinned"] = {{"box_min", {-10, -10, -10}}, {"box_max", {10, 10, 10}}};
  const std::optional<InputError> e = load_error(doc);
  ASSERT_TRUE(e);
  EXPECT_TRUE(has(e->message(), "neither can move")) << e->what();
}

// Every bundled scene starts without overlaps deeper than its tolerance (resting stacks touch
// within the envelope), so the default "error" refuses none of them.
TEST(InitialOverlap, EveryBundledSceneLoads) {
  int scenes = 0;
  for (const fs::directory_entry& f : fs::directory_iterator(kScenes)) {
    if (f.path().extension() != ".json") continue;
    ++scenes;
    try {
      World w(load_scene(f.path()));
      EXPECT_TRUE(w.initial_overlaps().pairs.empty()) << f.path();
    } catch (const InputError& e) {
      ADD_FAILURE() << f.path() << ": " << e.what();
    }
  }
  EXPECT_GT(scenes, 20);
}

}  // namespace
}  // namespace coulomb::overlap_test
