// coulomb-cr-mlcp-table: seed 004's table 1 on our scenes (solvers/README.md records it). A program,
// not a test.
//
// For each scene it runs --steps steps with cr-mlcp (preconditioner full, then diag) and with
// xpbd-jacobi (the scene's own solver object, whose iteration budget is fixed), each from the
// scene's start, and prints per variant: the average and median solver time per step (ms), the
// average and median iterations per step (CR iterations for cr-mlcp, sweeps for xpbd-jacobi), the
// average number of contacts at the end of the solve (each a normal and two friction rows;
// cr-mlcp's include those its candidate lists added), the steps whose solve met its
// tolerance, and the ratio of diag's to full's average iterations (the paper's headline: >= 3).
#include <coulomb/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

using namespace coulomb;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

struct Row {
  double ms_mean, ms_median, it_mean, it_median, contacts;
  int converged, steps;
};

Row run(const std::string& scene, const std::vector<std::string>& set, int steps) {
  SceneDef def = load_scene(scene, set);
  def.steps = std::min(def.steps, steps);
  World w(std::move(def));
  std::vector<double> ms, it, contacts;
  int converged = 0;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    if (!r.ok()) {
      std::fprintf(stderr, "%s: step %d failed: %s\n", scene.c_str(), w.step_count(), r.message.c_str());
      break;
    }
    const StepStats& s = w.last_stats();
    ms.push_back(s.solver.time_ms);
    it.push_back(double(s.solver.iterations));
    // the contacts the solver ended with (cr-mlcp adds those its candidate lists find)
    contacts.push_back(double(std::max<std::size_t>(std::size_t(s.contacts), w.last_position_problem().contacts.size())));
    converged += s.solver.converged ? 1 : 0;
  }
  return {mean(ms), median(ms), mean(it), median(it), mean(contacts), converged, int(ms.size())};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seed 004's table 1: cr-mlcp full / diag and xpbd-jacobi on the same scenes"};
  const std::string dir = std::string(COULOMB_SOURCE_DIR) + "/";
  std::vector<std::string> scenes = {dir + "tests/data/seed004/soft_pyramid_small.json",
                                     dir + "tests/data/seed004/spheres_torus_small.json",
                                     dir + "tests/data/seed004/soft_wringer_small.json",
                                     dir + "tests/data/seed004/rings_small.json", dir + "scenes/soft_stack.json"};
  int steps = 100, max_cr = 3000;
  app.add_option("scenes", scenes, "scene files");
  app.add_option("--steps", steps, "steps per run (at most the scene's)")->check(CLI::PositiveNumber);
  app.add_option("--max-iterations", max_cr, "cr-mlcp's CR iteration budget per step")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::printf("| scene | solver | ms/step avg | ms/step median | iterations avg | iterations median | contacts avg | converged |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::string& scene : scenes) {
    const std::string name = scene.substr(scene.find_last_of('/') + 1);
    const std::string budget = "/solver/max_iterations=" + std::to_string(max_cr);
    const Row full = run(scene, {"/solver/type=\"cr-mlcp\"", budget, "/solver/preconditioner=\"full\""}, steps);
    const Row diag = run(scene, {"/solver/type=\"cr-mlcp\"", budget, "/solver/preconditioner=\"diag\""}, steps);
    const Row xpbd = run(scene, {"/solver/type=\"xpbd-jacobi\""}, steps);
    const auto print = [&](const char* solver, const Row& r) {
      std::printf("| %s | %s | %.2f | %.2f | %.1f | %.0f | %.1f | %d/%d |\n", name.c_str(), solver, r.ms_mean, r.ms_median,
                  r.it_mean, r.it_median, r.contacts, r.converged, r.steps);
    };
    print("cr-mlcp full", full);
    print("cr-mlcp diag", diag);
    print("xpbd-jacobi", xpbd);
    std::printf("| %s | diag / full iterations | %.2fx | | | | | |\n", name.c_str(),
                full.it_mean > 0.0 ? diag.it_mean / full.it_mean : 0.0);
    std::fflush(stdout);
  }
  return 0;
}
