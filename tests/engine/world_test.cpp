// World construction: mass properties from shapes and overrides, body frames of off-centre
// shapes, body lookup, and the shape frame reported back as the user gave it.
#include <coulomb/error.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

nlohmann::json scene_with(const nlohmann::json& shapes, const nlohmann::json& bodies) {
  return {{"format", "coulomb-scene/1"}, {"time", {{"dt", 0.01}, {"steps", 10}}}, {"shapes", shapes}, {"bodies", bodies}};
}

}  // namespace

TEST(World, MassAndInertiaOverrides) {
  const nlohmann::json shapes = {{"cube", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}}};
  World w(parse_scene(scene_with(shapes, {{{"name", "density"}, {"shape", "cube"}},
                                          {{"name", "mass"}, {"shape", "cube"}, {"mass", 10.0}, {"position", {3, 0, 0}}},
                                          {{"name", "both"}, {"shape", "cube"}, {"mass", 10.0}, {"inertia", {1, 2, 3}}, {"position", {6, 0, 0}}}}),
                      "."));
  EXPECT_NEAR(w.model().mass[0], 1000.0, 1e-9);  // default density 1000 kg/m^3
  EXPECT_NEAR(w.model().inertia[0].x(), 1000.0 / 6.0, 1e-9);
  EXPECT_NEAR(w.model().mass[1], 10.0, 1e-12);
  EXPECT_NEAR(w.model().inertia[1].x(), 10.0 / 6.0, 1e-12);  // inertia scales with the mass
  EXPECT_EQ(w.model().inertia[2], Vec3(1, 2, 3));
}

TEST(World, OffCentreHullKeepsTheUsersFrame) {
  // a tetrahedron whose centroid is not at its frame origin, placed rotated
  const nlohmann::json shapes = {{"tet", {{"type", "convex"}, {"vertices", {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}}};
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  World w(parse_scene(scene_with(shapes, {{{"name", "t"}, {"shape", "tet"}, {"position", {1, 2, 3}},
                                           {"orientation", {q.w(), q.x(), q.y(), q.z()}},
                                           {"angular_velocity", {0, 0, 2}}}}),
                      "."));
  const BodyState b = w.body(0);
  EXPECT_NEAR((b.position - Vec3(1, 2, 3)).norm(), 0.0, 1e-12);
  EXPECT_NEAR(std::abs(b.orientation.dot(q)), 1.0, 1e-12);
  // the centre of mass sits at the centroid, and the frame origin's velocity is as given (zero)
  EXPECT_NEAR((w.rigid_state().x[0] - (Vec3(1, 2, 3) + q * Vec3::Constant(0.25))).norm(), 0.0, 1e-12);
  EXPECT_NEAR(b.velocity.norm(), 0.0, 1e-12);
  // principal axes: the body-frame inertia is diagonal and positive
  EXPECT_TRUE((w.model().inertia[0].array() > 0.0).all());
}

TEST(World, HullFallsAndRestsOnAFace) {
  // seed 000 eq. 61: with the gyroscopic term and contact, a tumbling tetrahedron comes to rest
  const nlohmann::json shapes = {{"tet", {{"type", "convex"}, {"vertices", {{0, 0, 0}, {0.3, 0, 0}, {0, 0.3, 0}, {0, 0, 0.3}}}}},
                                 {"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  nlohmann::json scene = scene_with(shapes, {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}},
                                             {{"name", "t"}, {"shape", "tet"}, {"position", {0, 0, 0.5}},
                                              {"orientation", {0.9, 0.3, 0.2, 0.1}}, {"angular_velocity", {1, -2, 3}}}});
  scene["time"] = {{"dt", 0.005}, {"duration", 3.0}};
  World w(parse_scene(scene, "."));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  EXPECT_LT(w.body(1).velocity.norm(), 1e-3);
  EXPECT_LT(w.body(1).angular_velocity.norm(), 1e-2);
  EXPECT_EQ(w.contacts().size(), 3u);  // a triangle face on the floor: its 3 corners
}

TEST(World, FindBodyByName) {
  const nlohmann::json shapes = {{"s", {{"type", "sphere"}, {"radius", 0.1}}}};
  World w(parse_scene(scene_with(shapes, {{{"name", "a"}, {"shape", "s"}}, {{"name", "b"}, {"shape", "s"}, {"position", {1, 0, 0}}}}), "."));
  EXPECT_EQ(w.find_body("b"), 1);
  EXPECT_EQ(w.find_body("nope"), -1);
  EXPECT_EQ(w.body_count(), 2);
}

TEST(World, RefusesAnFclibOnlySolver) {
  // a SceneDef built in code bypasses the loader's check: the World refuses it the same way
  const nlohmann::json shapes = {{"cube", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}}};
  SceneDef scene = parse_scene(scene_with(shapes, {{{"name", "box"}, {"shape", "cube"}}}), ".");
  scene.solver = "newton-minmap";
  try {
    World w(scene);
    ADD_FAILURE() << "the World accepted an FCLib-only solver";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/type");
    EXPECT_NE(e.message().find("solves assembled FCLib problems only"), std::string::npos) << e.message();
  }
}

// Speculative contacts by relative motion (issue 12): a 3x3 grid of boxes and balls 5 cm apart,
// falling together at 5 m/s, gets no contacts. With each pair's envelope the sum of both bodies'
// travel (0.05 m each per step) every neighbour pair used to get speculative contacts.
TEST(World, ObjectsFallingTogetherGetNoContacts) {
  const nlohmann::json shapes = {{"cube", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                                 {"ball", {{"type", "sphere"}, {"radius", 0.1}}}};
  nlohmann::json bodies = nlohmann::json::array();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      bodies.push_back({{"name", "o" + std::to_string(3 * i + j)}, {"shape", (i + j) % 2 ? "ball" : "cube"},
                        {"position", {0.25 * i, 0.25 * j, 10.0}}, {"velocity", {0, 0, -5}}});
  World w(parse_scene(scene_with(shapes, bodies), "."));
  for (int s = 0; s < 10; ++s) {
    ASSERT_TRUE(w.step().ok());
    EXPECT_EQ(w.last_stats().contacts, 0) << "step " << s + 1;
    EXPECT_GT(w.last_stats().pairs, 0) << "the broadphase bound is kept: neighbours are still candidate pairs";
  }
}

// ... and a pair that can close does get its speculative contact: a ball at 30 m/s (0.3 m per
// step) towards a resting one 0.2 m away is stopped by it, never passes through.
TEST(World, FastPairStillGetsItsSpeculativeContact) {
  const nlohmann::json shapes = {{"ball", {{"type", "sphere"}, {"radius", 0.05}}}};
  nlohmann::json scene = scene_with(shapes, {{{"name", "fast"}, {"shape", "ball"}, {"position", {0, 0, 0}}, {"velocity", {30, 0, 0}}},
                                             {{"name", "rest"}, {"shape", "ball"}, {"position", {0.3, 0, 0}}}});
  scene["gravity"] = {0, 0, 0};
  World w(parse_scene(scene, "."));
  ASSERT_TRUE(w.step().ok());
  EXPECT_GT(w.last_stats().contacts, 0);
  for (int s = 0; s < 5; ++s) ASSERT_TRUE(w.step().ok());
  EXPECT_LT(w.body(0).position.x(), w.body(1).position.x()) << "the fast ball tunnelled";
}

// ... and a column falling together onto the floor, each gap (1-2 cm) smaller than one step's
// travel (5 cm): the lowest box is stopped by the floor within the step, so the one above would
// sink into it unless the stop is passed up the column (collision/src/detect.cpp, "touched").
// Relative motion alone gave the sphere pile 12.5 mm of penetration this way. Beside the column,
// a second one falling clear of the floor's reach keeps no contacts.
TEST(World, ColumnLandingTogetherPassesTheStopUp) {
  const nlohmann::json shapes = {{"cube", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}, {"offset", 0.0}}}};
  nlohmann::json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}};
  for (int i = 0; i < 5; ++i) {
    bodies.push_back({{"name", "low" + std::to_string(i)}, {"shape", "cube"},
                      {"position", {0, 0, 0.11 + 0.22 * i}}, {"velocity", {0, 0, -5}}});
    bodies.push_back({{"name", "high" + std::to_string(i)}, {"shape", "cube"},
                      {"position", {2, 0, 3.11 + 0.22 * i}}, {"velocity", {0, 0, -5}}});
  }
  World w(parse_scene(scene_with(shapes, bodies), "."));
  ASSERT_TRUE(w.step().ok());
  // the low column: 4 corners against the floor and against each box below; the high one: none
  int low = 0, high = 0;
  for (const Contact& c : w.contacts()) (w.body(c.body_b).name.rfind("high", 0) == 0 ? high : low)++;
  EXPECT_EQ(high, 0);
  EXPECT_GE(low, 4 * 5);
  double max_pen = w.last_stats().max_penetration;
  for (int s = 0; s < 30; ++s) {
    ASSERT_TRUE(w.step().ok());
    max_pen = std::max(max_pen, w.last_stats().max_penetration);
  }
  EXPECT_LT(max_pen, 0.002);
}

// StepStats times post-stabilisation as a stage of its own (stats.jsonl `stabilize_ms`): a box
// resting on the ground, 20 steps. With "post" the stage runs (its gap solve over the box's
// contacts) and takes some time, inside the step's; without stabilisation it is 0. The stages
// (detect, assemble, solve, integrate, stabilize) never add up to more than the whole step.
TEST(World, PostStabilisationIsTimedAsAStage) {
  const nlohmann::json shapes = {{"cube", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                                 {"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  const nlohmann::json bodies = {{{"name", "ground"}, {"shape", "floor"}, {"fixed", true}},
                                 {{"name", "box"}, {"shape", "cube"}, {"position", {0, 0, 0.099}}}};
  for (const std::string type : {"post", "none"}) {
    nlohmann::json scene = scene_with(shapes, bodies);
    scene["stabilization"] = {{"type", type}};
    World w(parse_scene(scene, "."));
    double stabilize = 0.0;
    for (int s = 0; s < 20; ++s) {
      ASSERT_TRUE(w.step().ok());
      const StepStats& st = w.last_stats();
      EXPECT_GT(st.contacts, 0);
      EXPECT_GE(st.stabilize_ms, 0.0);
      EXPECT_LE(st.detect_ms + st.assemble_ms + st.solver.time_ms + st.integrate_ms + st.stabilize_ms, st.wall_ms);
      stabilize += st.stabilize_ms;
    }
    if (type == "post") EXPECT_GT(stabilize, 0.0);
    else EXPECT_EQ(stabilize, 0.0);
  }
}
