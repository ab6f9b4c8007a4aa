// Self-contact of soft bodies (collision.self_contacts with collision.edge_edge) in every solver
// that simulates soft bodies: a bar in free fall, touching nothing, gets no contact, keeps its
// energy and its shape. Within one body only its deformation brings its own features together,
// the side of two of its edges is not a body's inside, and features that are neighbours in the
// rest shape are no self-contact (collision/README.md, "Soft contacts").
#include <coulomb/soft_body.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <nlohmann/json.hpp>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::self_contact_test {
namespace {

// A 1 m x 0.2 m x 0.2 m rubber bar (40 kg) at 10 m height moving at 5 m/s along x, no ground:
// KE 500 J, PE 3924 J. `resolution` cells along x (and a fifth of it across), `envelope`,
// `duration` (unit: s).
nlohmann::json falling_bar(const std::string& solver, int resolution, double envelope, double duration) {
  const int across = std::max(resolution / 5, 1);
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -9.81}},
          {"time", {{"dt", 0.01}, {"duration", duration}}},
          {"solver", {{"type", solver}}},
          {"collision", {{"envelope", envelope}, {"self_contacts", true}, {"edge_edge", true}}},
          {"materials",
           {{"default", {{"density", 1000}, {"friction", 0.5}}},
            {"rubber", {{"density", 1000}, {"friction", 0.5}, {"young", 1e6}, {"poisson", 0.4}, {"model", "neo-hookean"}}}}},
          {"soft_bodies",
           {{{"name", "bar"}, {"material", "rubber"}, {"position", {0, 0, 10}}, {"velocity", {5, 0, 0}},
             {"mesh", {{"type", "box"}, {"half_extents", {0.5, 0.1, 0.1}}, {"resolution", {resolution, across, across}}}}}}}};
}

std::vector<std::string> soft_solvers() {
  std::vector<std::string> names;
  for (const SolverInfo& s : solver_registry())
    if (s.soft && simulates_scenes(s)) names.push_back(s.name);
  return names;
}

}  // namespace

class FreeFallingBar : public ::testing::TestWithParam<std::string> {};

// 10 x 2 x 2 cells (10 cm) with the default 1 cm envelope: its face diagonals beside each long
// edge are 5.8 cm apart and lie behind each other's faces (read as 5.8 cm deep contacts, they
// blow it up); 20 x 4 x 4 cells (5 cm) with a 5 cm envelope: its surface features 3.5 and 5 cm
// apart at rest are neighbours, not contacts.
TEST_P(FreeFallingBar, GetsNoSelfContactAndKeepsItsEnergyAndShape) {
  const std::string solver = GetParam();
  for (const auto& [resolution, envelope, duration] : {std::tuple{10, 0.01, 0.3}, std::tuple{20, 0.05, 0.1}}) {
    World w(parse_scene(falling_bar(solver, resolution, envelope, duration), "."));
    const SoftBody& bar = w.soft_body(0);
    const double rest_min = *std::min_element(bar.rest_volume.begin(), bar.rest_volume.end());
    const double energy0 = 0.5 * 40.0 * 25.0 + 40.0 * 9.81 * 10.0;
    int contacts = 0;
    while (w.step_count() < w.total_steps()) {
      ASSERT_TRUE(w.step().ok()) << solver;
      contacts += int(w.soft_contacts().size());
    }
    const StepStats& s = w.last_stats();
    const double energy = s.kinetic_energy + s.potential_energy + s.elastic_energy;
    std::printf("%s, %d cells along, envelope %g: %d contacts, energy %.2f J of %.2f, volume ratio %.6f, min tet volume %.4g of %.4g\n",
                solver.c_str(), resolution, envelope, contacts, energy, energy0, soft_volume(bar) / bar.total_rest_volume,
                soft_min_tet_volume(bar), rest_min);
    EXPECT_EQ(contacts, 0) << solver << ", " << resolution;
    EXPECT_NEAR(energy / energy0, 1.0, 0.01) << solver << ", " << resolution;
    EXPECT_NEAR(soft_volume(bar) / bar.total_rest_volume, 1.0, 1e-3) << solver << ", " << resolution;
    EXPECT_GT(soft_min_tet_volume(bar), 0.99 * rest_min) << solver << ", " << resolution;
  }
}

INSTANTIATE_TEST_SUITE_P(SoftSolvers, FreeFallingBar, ::testing::ValuesIn(soft_solvers()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace coulomb::self_contact_test
