// The bundled structured stacks stand (seed 000 section 5: Wall and Tower), and runs are
// deterministic: the same scene twice gives byte-identical final_state.json.
#include <coulomb/output.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

using namespace coulomb;

namespace {

const std::string kScenes = std::string(COULOMB_SOURCE_DIR) + "/scenes/";

struct Drift {
  double max = 0.0;
  std::string body;
};

// Runs a scene to its end and returns the largest displacement of any body.
Drift run_and_measure(const std::string& scene_file) {
  World w(load_scene(kScenes + scene_file));
  std::vector<Vec3> start;
  for (int i = 0; i < w.body_count(); ++i) start.push_back(w.body(i).position);
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    EXPECT_TRUE(r.ok()) << r.message;
    if (!r.ok()) break;
  }
  Drift d;
  for (int i = 0; i < w.body_count(); ++i) {
    const double moved = (w.body(i).position - start[std::size_t(i)]).norm();
    if (moved > d.max) d = {moved, w.body(i).name};
  }
  return d;
}

std::string final_state_after(const std::string& scene_file, int steps) {
  SceneDef scene = load_scene(kScenes + scene_file);
  scene.steps = steps;
  World w(std::move(scene));
  while (w.step_count() < w.total_steps()) EXPECT_TRUE(w.step().ok());
  return final_state_json(w).dump(2);
}

}  // namespace

TEST(Stacks, WallStandsForFiveSeconds) {
  const Drift d = run_and_measure("wall.json");
  EXPECT_LT(d.max, 0.005) << d.body << " moved " << d.max << " m";
}

TEST(Stacks, TowerStandsForFiveSeconds) {
  const Drift d = run_and_measure("tower.json");
  EXPECT_LT(d.max, 0.005) << d.body << " moved " << d.max << " m";
}

TEST(Determinism, SameSceneTwiceGivesIdenticalFinalState) {
  for (const char* scene : {"tower.json", "sphere_pile.json"}) {
    const std::string a = final_state_after(scene, 150), b = final_state_after(scene, 150);
    EXPECT_EQ(a, b) << scene;
  }
}
