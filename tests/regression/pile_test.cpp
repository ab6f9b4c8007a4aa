// The bundled sphere pile: 300 balls poured into an open box settle inside it without sinking
// into each other (speculative contacts with a per-body reach).
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

using namespace coulomb;

TEST(SpherePile, SettlesInsideTheBoxWithSmallPenetration) {
  World w(load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/sphere_pile.json"));
  double max_pen = 0.0;
  int max_contacts = 0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    max_pen = std::max(max_pen, w.last_stats().max_penetration);
    max_contacts = std::max(max_contacts, w.last_stats().contacts);
  }
  // measured: 0.6 mm at most (balls of 50 mm radius falling up to 1.6 m at dt = 10 ms)
  EXPECT_LT(max_pen, 0.002);
  EXPECT_GT(max_contacts, 900);
  // settled: the mean speed of a ball is below 2 cm/s (measured: about 0.5 cm/s at 3 s)
  EXPECT_LT(w.last_stats().kinetic_energy, 0.5 * 300 * 1.31 * 0.02 * 0.02);
  for (int i = 0; i < w.body_count(); ++i) {
    const BodyState b = w.body(i);
    if (b.fixed) continue;
    EXPECT_LT(std::abs(b.position.x()), 0.5) << b.name;
    EXPECT_LT(std::abs(b.position.y()), 0.5) << b.name;
    EXPECT_GT(b.position.z(), 0.049) << b.name;
  }
}
