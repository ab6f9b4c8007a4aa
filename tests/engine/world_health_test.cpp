// The step's health check (coulomb/health.h): each finding on a state that shows it,
// what each HealthAction does with it, and that sound runs have none.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "world_test_access.h"

using namespace coulomb;
using nlohmann::json;

namespace {

// a 1 m cube resting on a plane, a fixed 1 m box beside it, and a ball hanging from a ball joint
json health_scene(const std::string& solver = "pgs") {
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -9.81}},
          {"time", {{"dt", 0.01}, {"steps", 50}}},
          {"solver", {{"type", solver}}},
          {"shapes",
           {{"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}},
            {"cube", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}},
            {"ball", {{"type", "sphere"}, {"radius", 0.1}}}}},
          {"bodies",
           {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}},
            {{"name", "cube"}, {"shape", "cube"}, {"position", {0, 0, 0.5}}},
            {{"name", "block"}, {"shape", "cube"}, {"position", {5, 0, 0.5}}, {"fixed", true}},
            {{"name", "bob"}, {"shape", "ball"}, {"position", {-3, 0, 2}}}}},
          {"joints", {{{"name", "hook"}, {"type", "ball"}, {"a", "bob"}, {"b", nullptr}, {"anchor", {-3, 0, 2.5}}}}}};
}

World make(const json& scene, HealthAction action = HealthAction::Stop) {
  WorldSettings s;
  s.health.action = action;
  return World(parse_scene(scene, "."), s);
}

const HealthFinding* find(const StepStats& s, const std::string& check) {
  for (const HealthFinding& f : s.health)
    if (f.check == check) return &f;
  return nullptr;
}

TEST(WorldHealth, SoundRunsHaveNoFindings) {
  for (const char* solver : {"pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi", "newton-pcr", "cr-mlcp"}) {
    World w = make(health_scene(solver));
    while (w.step_count() < w.total_steps()) {
      const StepResult r = w.step();
      ASSERT_TRUE(r.ok()) << solver << ": " << r.message;
      EXPECT_TRUE(w.last_stats().health.empty()) << solver << ": " << w.last_stats().health.front().message;
    }
  }
}

// Energy from nowhere: the reference moved down by 1 kJ reads as a 1 kJ gain in a passive step.
TEST(WorldHealth, EnergyGainedWithoutExternalWorkStopsTheRun) {
  World w = make(health_scene());
  ASSERT_TRUE(w.step().ok());
  WorldTestAccess::shift_energy_reference(w, -1000.0);
  const StepResult r = w.step();
  EXPECT_EQ(r.status, StepResult::Status::InvalidState);
  EXPECT_NE(r.message.find("step 2: the energy rose by 1000 J without external work"), std::string::npos) << r.message;
  const HealthFinding* f = find(w.last_stats(), "energy");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->value, 1000.0, 1.0);
  EXPECT_FALSE(w.last_stats().solver.converged);
  EXPECT_FALSE(w.step().ok());  // a failed step stops the world
}

TEST(WorldHealth, WarnReportsAndGoesOnOffChecksNothing) {
  World warn = make(health_scene(), HealthAction::Warn);
  ASSERT_TRUE(warn.step().ok());
  WorldTestAccess::shift_energy_reference(warn, -1000.0);
  EXPECT_TRUE(warn.step().ok());
  EXPECT_NE(find(warn.last_stats(), "energy"), nullptr);
  EXPECT_FALSE(warn.last_stats().solver.converged);
  EXPECT_TRUE(warn.step().ok());  // the reference moved to the gain: the next step is clean
  EXPECT_TRUE(warn.last_stats().health.empty());

  World off = make(health_scene(), HealthAction::Off);
  ASSERT_TRUE(off.step().ok());
  WorldTestAccess::shift_energy_reference(off, -1000.0);
  EXPECT_TRUE(off.step().ok());
  EXPECT_TRUE(off.last_stats().health.empty());
}

// Work done by the program is not a gain: a 1 MN push over one step throws the 1000 kg cube up
// at 10 m/s; its flight (passive again) is checked against the energy it had when the push ended.
TEST(WorldHealth, ExternalWorkMovesTheReference) {
  World w = make(health_scene());
  const int cube = w.find_body("cube");
  w.apply_force(cube, Vec3(0, 0, 1e6), LoadDuration::NextStep);
  for (int i = 0; i < 30; ++i) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_TRUE(w.last_stats().health.empty());
  }
  EXPECT_GT(w.body(cube).position.z(), 2.0);  // it flew
}

TEST(WorldHealth, TornJointsAreFound) {
  World w = make(health_scene(), HealthAction::Warn);
  State s = w.state();
  s.rigid.x[std::size_t(w.find_body("bob"))] += Vec3(0, 2, 0);  // 2 m from its hook
  w.set_state(s);
  ASSERT_TRUE(w.step().ok());
  // the solver pulls it back over a few steps; the first one still sees it torn
  const HealthFinding* f = find(w.last_stats(), "joint");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "hook");
  EXPECT_GT(f->value, 1.0);
}

TEST(WorldHealth, BodiesBehindPlanesOrInsideFixedBoxesAreFound) {
  {
    World w = make(health_scene(), HealthAction::Warn);
    State s = w.state();
    s.rigid.x[std::size_t(w.find_body("cube"))] = Vec3(0, 0, -2);  // wholly under the ground
    w.set_state(s);
    ASSERT_TRUE(w.step().ok());
    const HealthFinding* f = find(w.last_stats(), "below_plane");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->subject, "body 'cube'");
    EXPECT_GT(f->value, 1.9);
    EXPECT_NE(f->message.find("fixed plane 'ground'"), std::string::npos) << f->message;
  }
  {
    World w = make(health_scene());
    State s = w.state();
    s.rigid.x[std::size_t(w.find_body("cube"))] = Vec3(5, 0, 0.5);  // in the fixed block
    w.set_state(s);
    const StepResult r = w.step();
    EXPECT_EQ(r.status, StepResult::Status::InvalidState);
    EXPECT_EQ(r.body, w.find_body("cube"));
    EXPECT_NE(r.message.find("inside the fixed body 'block'"), std::string::npos) << r.message;
  }
}

// A soft cube with one corner pushed through the opposite face: an inverted element.
TEST(WorldHealth, InvertedElementsAreFound) {
  json scene = health_scene("xpbd-jacobi");
  scene["materials"] = {{"default", {{"density", 1000}}}, {"gel", {{"density", 1000}, {"young", 1e5}, {"poisson", 0.3}}}};
  scene["soft_bodies"] = {{{"name", "jelly"}, {"material", "gel"}, {"position", {2, 2, 1}},
                           {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {1, 1, 1}}}}}};
  World w = make(scene, HealthAction::Warn);
  State s = w.state();
  Vec3 lo = s.soft[0].x[0];
  std::size_t corner = 0;
  for (std::size_t i = 0; i < s.soft[0].x.size(); ++i)
    if (s.soft[0].x[i].sum() < lo.sum()) lo = s.soft[0].x[i], corner = i;
  s.soft[0].x[corner] += Vec3(0.4, 0.4, 0.4);  // through to beyond the far corner
  w.set_state(s);
  ASSERT_TRUE(w.step().ok());
  const HealthFinding* f = find(w.last_stats(), "inverted");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "jelly");
  EXPECT_LT(f->value, 0.0);
}

// A linear-model soft cube turned by 90 degrees as a whole: no strain, but linear strain no longer
// describes it (a turned element reads as stretched); a corotational one is fine.
TEST(WorldHealth, LinearModelPastSmallRotationsIsFound) {
  for (const char* model : {"linear", "corotational"}) {
    json scene = health_scene("xpbd-jacobi");
    scene["gravity"] = {0, 0, 0};
    scene["materials"] = {{"default", {{"density", 1000}}},
                          {"gel", {{"density", 1000}, {"young", 1e5}, {"poisson", 0.3}, {"model", model}}}};
    scene["soft_bodies"] = {{{"name", "jelly"}, {"material", "gel"}, {"position", {2, 2, 1}},
                             {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {2, 2, 2}}}}}};
    World w = make(scene, HealthAction::Warn);
    State s = w.state();
    const Mat3 turn = Eigen::AngleAxisd(1.5707963267948966, Vec3::UnitZ()).toRotationMatrix();
    for (Vec3& x : s.soft[0].x) x = Vec3(2, 2, 1) + turn * (x - Vec3(2, 2, 1));
    w.set_state(s);
    ASSERT_TRUE(w.step().ok());
    const HealthFinding* f = find(w.last_stats(), "rotation");
    if (std::string(model) == "linear") {
      ASSERT_NE(f, nullptr);
      // the linear forces pull the turned elements back within the step, part of the way
      EXPECT_GT(f->value, 0.5);
      EXPECT_LT(f->value, 1.58);
      EXPECT_NE(f->message.find("linear model"), std::string::npos);
    } else {
      EXPECT_EQ(f, nullptr);
    }
  }
}

}  // namespace
