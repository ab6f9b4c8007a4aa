// coulomb-newton-study: seed 003's convergence studies for newton-pcr (solvers/README.md records
// the numbers). A program, not a test.
//
// Each variant runs a scene for --steps steps with a fixed budget of Newton iterations (no early
// stop) and records the Newton residual (newton_pcr.cpp: the largest velocity-level residual of
// the momentum balance and the rows, m/s) at every iterate; the quartiles over the steps at each
// iteration go to OUT/newton_study.csv (scene, study, variant, iteration, q25, median, q75).
//   scaling (figures 16-17): the complementarity preconditioner of eq. 66 against the timestep
//                            scaling (r = h^2, h) and identity (r = 1), Fischer-Burmeister
//   ncp (s.10.3):            Fischer-Burmeister against min-map, complementarity scaling
//   linear (figure 18):      PCR, PCG, Jacobi and Gauss-Seidel with 40 linear iterations per
//                            Newton iteration
// Scenes: the heavy stack, the arch and the jointed chain by default.
#include <coulomb/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace coulomb;

namespace {

struct Variant {
  std::string study, name;
  std::vector<std::string> set;
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t i = std::size_t(pos);
  return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v.back();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seed 003's convergence studies for newton-pcr"};
  std::vector<std::string> scenes = {std::string(COULOMB_SOURCE_DIR) + "/scenes/heavy_stack.json",
                                     std::string(COULOMB_SOURCE_DIR) + "/scenes/arch.json",
                                     std::string(COULOMB_SOURCE_DIR) + "/scenes/chain.json"};
  std::string out = "out/newton_study";
  int steps = 100, iterations = 30;
  app.add_option("scenes", scenes, "scene files");
  app.add_option("--out", out, "output folder");
  app.add_option("--steps", steps, "steps per run")->check(CLI::PositiveNumber);
  app.add_option("--iterations", iterations, "Newton iterations per step (no early stop)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::vector<Variant> variants;
  for (const char* s : {"complementarity", "timestep", "identity"})
    variants.push_back({"scaling", s, {std::string("/solver/scaling=\"") + s + "\""}});
  for (const char* s : {"fb", "minmap"}) variants.push_back({"ncp", s, {std::string("/solver/ncp=\"") + s + "\""}});
  for (const char* s : {"pcr", "cg", "jacobi", "gauss-seidel"})
    variants.push_back({"linear", s, {std::string("/solver/linear=\"") + s + "\"", "/solver/linear_tol=0"}});

  std::filesystem::create_directories(out);
  std::ofstream csv(out + "/newton_study.csv");
  csv << "scene,study,variant,iteration,q25,median,q75\n";
  std::printf("%-12s %-8s %-16s %12s %12s %12s %12s\n", "scene", "study", "variant", "median it 5", "it 10", "it 20",
              "last");
  for (const std::string& scene : scenes) {
    const std::string sname = std::filesystem::path(scene).stem().string();
    for (const Variant& v : variants) {
      // every step from P = 0 with 40 linear iterations, as the paper's figures 16-18 run
      std::vector<std::string> set = {"/solver={\"type\": \"newton-pcr\", \"warm_start\": false, \"linear_iterations\": 40}",
                                      "/solver/abs_tol=0",
                                      "/solver/max_iterations=" + std::to_string(iterations),
                                      "/solver/record_history=true"};
      set.insert(set.end(), v.set.begin(), v.set.end());
      SceneDef def = load_scene(scene, set);
      def.steps = std::min(def.steps, steps);
      World w(std::move(def));
      std::vector<std::vector<double>> per_it(std::size_t(iterations) + 1);
      while (w.step_count() < w.total_steps()) {
        const StepResult r = w.step();
        if (!r.ok()) {
          std::fprintf(stderr, "%s %s: %s\n", sname.c_str(), v.name.c_str(), r.message.c_str());
          break;
        }
        const std::vector<double>& h = w.last_stats().solver.history;
        for (std::size_t k = 0; k < per_it.size() && !h.empty(); ++k) per_it[k].push_back(h[std::min(k, h.size() - 1)]);
      }
      std::vector<double> med(per_it.size(), 0.0);
      for (std::size_t k = 0; k < per_it.size(); ++k) {
        if (per_it[k].empty()) continue;
        med[k] = quantile(per_it[k], 0.5);
        csv << sname << ',' << v.study << ',' << v.name << ',' << k << ',' << quantile(per_it[k], 0.25) << ','
            << med[k] << ',' << quantile(per_it[k], 0.75) << '\n';
      }
      const auto at = [&](std::size_t k) { return med[std::min(k, med.size() - 1)]; };
      std::printf("%-12s %-8s %-16s %12.3e %12.3e %12.3e %12.3e\n", sname.c_str(), v.study.c_str(), v.name.c_str(), at(5),
                  at(10), at(20), med.back());
      std::fflush(stdout);
    }
  }
  return 0;
}
