// Long runs (label `long`, `tools/test --long`): the structured stacks stand for 30 s.
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

using namespace coulomb;

class LongStack : public ::testing::TestWithParam<const char*> {};

TEST_P(LongStack, StandsForThirtySeconds) {
  SceneDef scene = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/" + GetParam());
  scene.steps = int(30.0 / scene.dt);
  World w(std::move(scene));
  std::vector<Vec3> start;
  for (int i = 0; i < w.body_count(); ++i) start.push_back(w.body(i).position);
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  for (int i = 0; i < w.body_count(); ++i)
    EXPECT_LT((w.body(i).position - start[std::size_t(i)]).norm(), 0.01) << w.body(i).name;
}

INSTANTIATE_TEST_SUITE_P(Scenes, LongStack, ::testing::Values("wall.json", "tower.json"));
