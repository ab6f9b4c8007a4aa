// The bundled sphere pile: 300 balls poured into an open box settle inside it without sinking
// into each other (speculative contacts with a per-body reach); jacks (meshes) the same.
#include <coulomb/rigid_bodies.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <limits>

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

// The overlap of two boxes (half extents ha, hb) along their separating axes (Gottschalk's 15):
// the smallest, their penetration depth; negative when apart.
double box_overlap(const Pose& a, const Vec3& ha, const Pose& b, const Vec3& hb) {
  const Mat3 ra = a.q.toRotationMatrix(), rb = b.q.toRotationMatrix();
  double best = std::numeric_limits<double>::infinity();
  const auto along = [&](Vec3 n) {
    if (n.norm() < 1e-9) return;
    n.normalize();
    const double reach = (ra.transpose() * n).cwiseAbs().dot(ha) + (rb.transpose() * n).cwiseAbs().dot(hb);
    best = std::min(best, reach - std::abs(n.dot(b.p - a.p)));
  };
  for (int i = 0; i < 3; ++i) {
    along(ra.col(i));
    along(rb.col(i));
    for (int j = 0; j < 3; ++j) along(ra.col(i).cross(rb.col(j)));
  }
  return best;
}

// 120 jacks of scenes/jacks.json (arms 8 cm thick) dropped into its bin settle without sinking
// into each other. Two oracles over the last second: the contacts' depth (max_penetration), and
// the jacks' true overlap, each jack taken as the union of its three bars (boxes through the
// centre), the largest penetration depth of two jacks' bars. A replaced face normal that
// measures a side triangle's whole reach behind another's plane gives points centimetres deep
// between jacks that barely overlap, and kicks them (collision/README.md).
TEST(JackPile, SettlesWithContactsAsDeepAsTheOverlap) {
  World w(load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/jacks.json",
                     {"/generators/0/count=120", "/generators/0/box_max=[0.62, 0.62, 4.0]", "/time/duration=3.0"}));
  std::array<Vec3, 3> bar;
  for (int k = 0; k < 3; ++k) {
    bar[std::size_t(k)] = Vec3::Constant(0.04);
    bar[std::size_t(k)][k] = 0.12;
  }
  std::vector<int> jacks;
  for (int i = 0; i < w.body_count(); ++i)
    if (w.scene().bodies[std::size_t(i)].name.rfind("jack", 0) == 0) jacks.push_back(i);
  ASSERT_EQ(jacks.size(), 120u);
  double contact_depth = 0.0, overlap = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    if (w.step_count() <= w.total_steps() - 100) continue;
    contact_depth = std::max(contact_depth, w.last_stats().max_penetration);
    for (std::size_t a = 0; a < jacks.size(); ++a)
      for (std::size_t b = a + 1; b < jacks.size(); ++b) {
        const Pose pa = shape_pose(w.model(), w.rigid_state(), jacks[a]), pb = shape_pose(w.model(), w.rigid_state(), jacks[b]);
        if ((pa.p - pb.p).norm() > 0.45) continue;  // farther than two arms' reach with the diagonal
        for (const Vec3& ha : bar)
          for (const Vec3& hb : bar) overlap = std::max(overlap, box_overlap(pa, ha, pb, hb));
      }
  }
  std::printf("jack pile, last second: deepest contact %.3g m, deepest overlap of two jacks' bars %.3g m\n",
              contact_depth, overlap);
  EXPECT_LT(overlap, 0.001);
  EXPECT_LT(contact_depth, 0.001);
}
