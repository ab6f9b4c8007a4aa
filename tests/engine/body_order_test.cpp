// The rigid bodies' spatial numbering of large scenes (world.h, spatial_body_order; issue 12,
// scaling): moving bodies along the longest axis of their starting positions (a Morton curve
// across it), fixed bodies last in the scene's order, every reference renumbered with them, small
// scenes untouched.
#include <coulomb/error.h>
#include <coulomb/output.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace coulomb;

namespace {

// n unit-spaced balls at shuffled places of a 3D lattice (the scene lists them in random spatial
// order), a fixed ground listed after them, and a ball joint between two named balls
nlohmann::json shuffled_balls(int n, int seed) {
  const int side = int(std::ceil(std::cbrt(double(n))));
  std::vector<int> cell(std::size_t(side * side * side));
  for (std::size_t i = 0; i < cell.size(); ++i) cell[i] = int(i);
  std::mt19937 rng{std::uint32_t(seed)};
  std::shuffle(cell.begin(), cell.end(), rng);
  nlohmann::json bodies = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    const int c = cell[std::size_t(i)];
    bodies.push_back({{"name", "ball_" + std::to_string(i)}, {"shape", "ball"},
                      {"position", {c % side, (c / side) % side, 1 + c / (side * side)}}});
  }
  bodies.push_back({{"name", "ground"}, {"shape", "ground"}, {"fixed", true}});
  return {{"format", "coulomb-scene/1"},
          {"time", {{"dt", 0.01}, {"steps", 2}}},
          {"shapes", {{"ball", {{"type", "sphere"}, {"radius", 0.2}}}, {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}}},
          {"bodies", bodies},
          {"joints", {{{"name", "j"}, {"type", "ball"}, {"a", "ball_3"}, {"b", "ball_7"}, {"anchor", {0, 0, 0}}}}}};
}

// mean distance between the starting positions of moving bodies with consecutive ids
double mean_step(const World& w) {
  double sum = 0.0;
  int n = 0;
  for (int i = 1; i < w.body_count(); ++i) {
    if (w.model().fixed[std::size_t(i)] || w.model().fixed[std::size_t(i) - 1]) continue;
    sum += (w.rigid_state().x[std::size_t(i)] - w.rigid_state().x[std::size_t(i) - 1]).norm();
    ++n;
  }
  return sum / n;
}

}  // namespace

TEST(BodyOrder, ALargeSceneIsNumberedInSpaceWithItsReferences) {
  const int n = int(kSpatialNumberingBodies) + 100;
  const nlohmann::json doc = shuffled_balls(n, 5);
  World spatial(parse_scene(doc, "."));
  WorldSettings scene_order;
  scene_order.spatial_numbering = false;
  World listed(parse_scene(doc, "."), scene_order);
  ASSERT_EQ(spatial.body_count(), n + 1);
  // the fixed ground comes last, as in the scene's order
  EXPECT_EQ(spatial.model().name[std::size_t(n)], "ground");
  EXPECT_TRUE(spatial.model().fixed[std::size_t(n)]);
  EXPECT_EQ(listed.model().name[std::size_t(n)], "ground");
  EXPECT_EQ(listed.model().name[0], "ball_0");
  // ids follow the longest axis (x: the lattice's extents tie, the first is taken), so that the
  // contacts sorted by body pair form a band (solvers/src/banded_sweeps.h)
  for (int i = 1; i < n; ++i) EXPECT_LE(spatial.rigid_state().x[std::size_t(i) - 1].x(), spatial.rigid_state().x[std::size_t(i)].x()) << i;
  // consecutive ids are neighbours in space: across the axis a Morton curve, which on a unit
  // lattice steps about 1.5 on average; the shuffled list steps about the mean distance of two
  // random cells (~5 here)
  EXPECT_LT(mean_step(spatial), 2.0);
  EXPECT_GT(mean_step(listed), 4.0);
  // the same bodies, each found by name where the scene put it; the joint follows its bodies
  for (int i = 0; i < n; ++i) {
    const std::string name = "ball_" + std::to_string(i);
    const int id = spatial.find_body(name);
    ASSERT_GE(id, 0);
    EXPECT_EQ(spatial.body(id).position, listed.body(listed.find_body(name)).position);
    EXPECT_EQ(spatial.scene().bodies[std::size_t(id)].name, name);  // scene() lists the bodies in id order
  }
  // scene_order() and scene_index() map between the two numberings, and the run outputs list
  // the bodies (and name the joints' bodies) in the scene's order whatever the ids
  const nlohmann::json final_state = final_state_json(spatial), geometry = geometry_json(spatial);
  const nlohmann::json frame = frame_json(spatial), listed_frame = frame_json(listed);
  for (int k = 0; k <= n; ++k) {
    const int id = spatial.scene_order()[std::size_t(k)];
    EXPECT_EQ(spatial.scene_index(id), k);
    EXPECT_EQ(spatial.model().name[std::size_t(id)], listed.model().name[std::size_t(k)]);
    EXPECT_EQ(final_state["bodies"][std::size_t(k)]["name"], listed.model().name[std::size_t(k)]);
    EXPECT_EQ(geometry["bodies"][std::size_t(k)]["name"], listed.model().name[std::size_t(k)]);
    EXPECT_EQ(frame["bodies"][std::size_t(k)], listed_frame["bodies"][std::size_t(k)]);
  }
  EXPECT_EQ(geometry["joints"][0]["a"], 3);  // ball_3 is the scene's fourth body
  EXPECT_EQ(geometry["joints"][0]["b"], 7);
  EXPECT_THROW(spatial.scene_index(n + 1), std::out_of_range);
  ASSERT_EQ(spatial.joints().size(), 1u);
  EXPECT_EQ(spatial.joints()[0].a, spatial.find_body("ball_3"));
  EXPECT_EQ(spatial.joints()[0].b, spatial.find_body("ball_7"));
  // a permutation of the scene's bodies, and the same physics (one step, no contacts between
  // balls a unit apart, the lowest layer on the ground)
  ASSERT_TRUE(spatial.step().ok());
  ASSERT_TRUE(listed.step().ok());
  for (int i = 0; i < n; ++i) {
    const std::string name = "ball_" + std::to_string(i);
    EXPECT_NEAR((spatial.body(spatial.find_body(name)).position - listed.body(listed.find_body(name)).position).norm(), 0.0, 1e-12)
        << name;
  }
}

TEST(BodyOrder, ASmallSceneKeepsTheScenesOrder) {
  const int n = int(kSpatialNumberingBodies) - 1;  // moving bodies; the ground does not count
  World w(parse_scene(shuffled_balls(n, 6), "."));
  for (int i = 0; i < n; ++i) EXPECT_EQ(w.model().name[std::size_t(i)], "ball_" + std::to_string(i));
  EXPECT_EQ(w.model().name[std::size_t(n)], "ground");
  EXPECT_EQ(w.joints()[0].a, 3);
}

TEST(BodyOrder, ErrorsNameTheBodyAsTheSceneListsIt) {
  nlohmann::json doc = shuffled_balls(int(kSpatialNumberingBodies) + 10, 7);
  SceneDef scene = parse_scene(doc, ".");
  scene.bodies[17].mass = -1.0;  // past the loader: the World's own check refuses it
  try {
    World w(std::move(scene));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/bodies/17"), std::string::npos) << e.what();
  }
}
