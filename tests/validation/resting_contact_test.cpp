// A box at rest carries exactly its weight: the normal impulses of one step add up to m g dt.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

nlohmann::json box_on(const std::string& ground, const std::string& solver_type, const std::string& integrator) {
  nlohmann::json ground_shape = ground == "plane"
                                    ? nlohmann::json{{"type", "plane"}, {"normal", {0, 0, 1}}, {"offset", 0}}
                                    : nlohmann::json{{"type", "box"}, {"half_extents", {2, 2, 0.5}}};
  return {{"format", "coulomb-scene/1"},
          {"time", {{"dt", 0.01}, {"steps", 100}}},
          {"integrator", integrator},
          {"solver", {{"type", solver_type}, {"max_iterations", 200}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
          {"materials", {{"default", {{"density", 800}, {"friction", 0.6}}}}},
          {"shapes", {{"ground", ground_shape}, {"cube", {{"type", "box"}, {"half_extents", {0.3, 0.2, 0.1}}}}}},
          {"bodies",
           {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}, {"position", {0, 0, ground == "plane" ? 0.0 : -0.5}}},
            {{"name", "box"}, {"shape", "cube"}, {"position", {0.1, -0.2, 0.1}}}}}};
}

// sum over contacts of the vertical component of the normal impulses
double vertical_impulse(const World& w) {
  double total = 0.0;
  for (std::size_t k = 0; k < w.contacts().size(); ++k) total += w.contact_impulses()[k][0] * w.contacts()[k].normal.z();
  return total;
}

}  // namespace

class RestingBox : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RestingBox, NormalImpulseEqualsWeightTimesDt) {
  const auto& [ground, integrator] = GetParam();
  World w(parse_scene(box_on(ground, "pgs", integrator), "."));
  const int box = w.find_body("box");
  const double m = w.body(box).mass;
  EXPECT_NEAR(m, 800 * 0.6 * 0.4 * 0.2, 1e-9);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(w.step().ok());
    ASSERT_GE(w.contacts().size(), 4u);
    EXPECT_NEAR(vertical_impulse(w), m * 9.81 * 0.01, 1e-3 * m * 9.81 * 0.01) << "step " << i;
  }
  // and it stays put
  EXPECT_LT((w.body(box).position - Vec3(0.1, -0.2, 0.1)).norm(), 1e-4);
  EXPECT_LT(w.body(box).velocity.norm(), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(GroundsAndIntegrators, RestingBox,
                         ::testing::Combine(::testing::Values("plane", "box"),
                                            ::testing::Values("moreau", "semi-implicit", "implicit-euler")));

TEST(RestingBox, FourContactsShareTheLoadOfACentredBox) {
  nlohmann::json scene = box_on("plane", "pgs", "moreau");
  scene["bodies"][1]["position"] = {0, 0, 0.1};
  World w(parse_scene(scene, "."));
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(w.step().ok());
  ASSERT_EQ(w.contacts().size(), 4u);
  const double total = vertical_impulse(w);
  // PGS need not split a statically indeterminate load evenly, but all four corners carry some
  for (const Vec4& l : w.contact_impulses()) EXPECT_GT(l[0], 0.0);
  EXPECT_NEAR(total, w.body(w.find_body("box")).mass * 9.81 * 0.01, 1e-6);
}
