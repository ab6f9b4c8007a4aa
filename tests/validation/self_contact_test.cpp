// Self-contact of soft bodies (collision.self_contacts with collision.edge_edge) in every solver
// that simulates soft bodies: a bar in free fall, touching nothing, gets no contact, keeps its
// energy and its shape. Within one body only its deformation brings its own features together,
// the side of two of its edges is not a body's inside, and features that are neighbours in the
// rest shape are no self-contact (collision/README.md, "Soft contacts"). And a soft U whose upper
// arm sags onto its lower arm comes down onto it without crossing it with self-contacts, and
// sinks through it without.
#include <coulomb/candidates.h>
#include <coulomb/intersections.h>
#include <coulomb/mesh_generators.h>
#include <coulomb/soft_body.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
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

// a solver's name as an identifier (test names, file names)
std::string identifier(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}
std::string test_name(const ::testing::TestParamInfo<std::string>& p) { return identifier(p.param); }

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

namespace {

// A U of 5 cm cells lying on the ground, open towards +x: two arms of 8 x 2 cells (40 cm x 10 cm
// x 5 cm) joined by one column at x < 2.5 cm, the slot between them 5 cm high. Soft gel (E = 20
// kPa): the upper arm cannot carry itself and sags onto the lower one.
nlohmann::json sagging_u(const std::string& solver, bool self, const std::string& surface) {
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -9.81}},
          {"time", {{"dt", 0.005}, {"duration", 0.3}}},
          {"solver", {{"type", solver}}},
          {"collision", {{"self_contacts", self}, {"edge_edge", self}, {"thickness", 0.001}}},
          {"materials",
           {{"default", {{"density", 1000}, {"friction", 0.5}}},
            {"gel", {{"density", 1000}, {"friction", 0.5}, {"young", 2e4}, {"poisson", 0.3}, {"model", "neo-hookean"}}}}},
          {"shapes", {{"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}, {"offset", 0}}}}},
          {"bodies", {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}}},
          {"soft_bodies",
           {{{"name", "u"}, {"material", "gel"}, {"position", {0, 0, 0.035}},
             {"mesh", {{"type", "tetgen"}, {"surface", surface}, {"max_volume", 1e-4}, {"quality", 1.5}}}}}}};
}

// the U's surface as an OBJ file (the tetgen mesh type reads one), named after `tag`
std::string write_u_surface(const std::string& tag) {
  std::vector<std::array<int, 3>> cells;
  for (int j = 0; j < 2; ++j) {
    for (int i = 0; i < 8; ++i) cells.push_back({i, j, 0}), cells.push_back({i, j, 2});
    cells.push_back({0, j, 1});
  }
  const Surface u = voxel_surface(cells, 0.05);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("coulomb_self_contact_u_" + tag + ".obj");
  std::ofstream out(path);
  for (const Vec3& v : u.vertices) out << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
  for (const auto& t : u.triangles) out << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
  return path.string();
}

// Over the run: the lowest point of the upper arm (beyond the column, by rest position), and the
// surface's intersecting triangle pairs (the intersection checker, collision/intersections.h).
struct Sag {
  double upper_low = std::numeric_limits<double>::infinity();
  int intersections = 0;
};
Sag sag(const std::string& solver, bool self, const std::string& surface) {
  World w(parse_scene(sagging_u(solver, self, surface), "."));
  const SoftBody& u = w.soft_body(0);
  CandidateSurface cs;
  cs.x = &u.x;
  cs.faces = &u.faces;
  cs.soft = 0;
  Sag s;
  while (w.step_count() < w.total_steps()) {
    EXPECT_TRUE(w.step().ok()) << solver;
    for (std::size_t v = 0; v < u.x.size(); ++v)
      if (u.mesh.rest[v].x() > 0.1 && u.mesh.rest[v].z() > 0.1) s.upper_low = std::min(s.upper_low, u.x[v].z());
    s.intersections += int(find_intersections({cs}).size());
  }
  EXPECT_GT(soft_min_tet_volume(u), 0.0) << solver;
  return s;
}

}  // namespace

class SaggingU : public ::testing::TestWithParam<std::string> {};

// With self-contacts the upper arm comes down onto the lower one (its underside, 5 cm above the
// lower arm's top at rest, sinks by more than 3 cm as both squash) and the surface never crosses
// itself; without them it sinks through (the control, xpbd-jacobi). cr-mlcp's CCD over its
// candidate lists, self pairs included, would stop it either way.
TEST_P(SaggingU, UpperArmComesDownOntoTheLowerWithoutCrossingIt) {
  const std::string solver = GetParam();
  const std::string surface = write_u_surface(identifier(solver));
  const Sag with = sag(solver, true, surface);
  std::printf("%s, U with self-contacts: upper arm's lowest point %.4f m (0.11 at rest), %d intersecting triangle pairs\n",
              solver.c_str(), with.upper_low, with.intersections);
  EXPECT_LT(with.upper_low, 0.08) << "the upper arm must come down onto the lower one";
  EXPECT_EQ(with.intersections, 0) << solver;
  if (solver == "xpbd-jacobi") {
    const Sag without = sag(solver, false, surface);
    std::printf("%s, U without self-contacts: upper arm's lowest point %.4f m, %d intersecting triangle pairs\n",
                solver.c_str(), without.upper_low, without.intersections);
    EXPECT_GT(without.intersections, 0);
  }
  std::filesystem::remove(surface);
}

INSTANTIATE_TEST_SUITE_P(SoftSolvers, FreeFallingBar, ::testing::ValuesIn(soft_solvers()), test_name);
INSTANTIATE_TEST_SUITE_P(SoftSolvers, SaggingU, ::testing::ValuesIn(soft_solvers()), test_name);

}  // namespace coulomb::self_contact_test
