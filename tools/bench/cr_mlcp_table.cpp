// coulomb-cr-mlcp-table: seed 004's table 1 on our scenes (solvers/README.md records it). A program,
// not a test.
//
// For each scene it runs --steps steps with cr-mlcp (preconditioner full, then diag) and, unless
// --no-xpbd, with xpbd-jacobi (the scene's own solver object, whose iteration budget is fixed),
// each from the scene's start, and prints per variant: the average and median solver time per
// step (ms), the average and median iterations per step (CR iterations for cr-mlcp, sweeps for
// xpbd-jacobi), the average number of contacts at the end of the solve (each a normal and two
// friction rows; cr-mlcp's include those its candidate lists added), the steps whose solve met its
// tolerance, and the ratio of diag's to full's average and median iterations (the paper's
// headline: 451 / 97 = 4.6x on its rings, 229 / 69 = 3.3x on its pyramid).
//
// --paper gives every soft material the paper's Table 1 parameters (s.6.2: E = 5e5 Pa, nu = 0.2,
// rho = 1000 kg/m^3, no damping) and --dt its time step (rings 0.001 s, pyramid 0.0005 s), so that
// a gap to the paper's ratio can be told apart from a difference of scene. Every row also goes to
// --csv (default tools/bench/data/cr_mlcp_table1.csv; "" for none).
#include <coulomb/error.h>
#include <coulomb/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
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
  double dt = 0, ms_mean = 0, ms_median = 0, it_mean = 0, it_median = 0, it_max = 0, contacts = 0, relin = 0;
  int converged = 0, steps = 0;
};

struct Setup {
  bool paper = false;
  bool trace = false;  // one line per step on stderr
  double dt = 0.0;  // 0: the scene's
  std::vector<std::string> set;
};

SceneDef scene_def(const std::string& scene, const std::vector<std::string>& solver, const Setup& s, int steps) {
  std::ifstream in(scene);
  if (!in) throw InputError("", "cannot read " + scene);
  nlohmann::json doc = nlohmann::json::parse(in);
  for (const std::string& a : s.set) apply_override(doc, a);
  for (const std::string& a : solver) apply_override(doc, a);
  if (s.paper)
    for (auto& [name, m] : doc["materials"].items())
      if (m.contains("young")) {  // soft materials: seed 004 s.6.2
        m["young"] = 5e5;
        m["poisson"] = 0.2;
        m["density"] = 1000.0;
        m["damping"] = 0.0;
      }
  if (s.dt > 0.0) {
    const double duration = doc["time"].value("duration", 0.0);
    doc["time"] = {{"dt", s.dt}, {"duration", duration}};
  }
  SceneDef def = parse_scene(doc, std::filesystem::path(scene).parent_path());
  def.steps = std::min(def.steps, steps);
  return def;
}

Row run(const std::string& scene, const std::vector<std::string>& solver, const Setup& setup, int steps) {
  World w(scene_def(scene, solver, setup, steps));
  std::vector<double> ms, it, contacts, relin;
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
    relin.push_back(double(s.solver.linear_iterations));  // cr-mlcp: re-linearisations
    // the contacts the solver ended with (cr-mlcp adds those its candidate lists find)
    contacts.push_back(double(std::max<std::size_t>(std::size_t(s.contacts), w.last_position_problem().contacts.size())));
    converged += s.solver.converged ? 1 : 0;
    if (setup.trace)
      std::fprintf(stderr, "%s %s step %d: %d iterations, %d re-linearisations, %d contacts added, %s, residual %.3g\n",
                   scene.c_str(), solver.back().c_str(), w.step_count(), s.solver.iterations, s.solver.linear_iterations,
                   int(w.last_position_problem().contacts.size()) - s.contacts,
                   s.solver.converged ? "converged" : "NOT converged", s.solver.residual);
  }
  Row row;
  row.dt = w.dt();
  row.ms_mean = mean(ms);
  row.ms_median = median(ms);
  row.it_mean = mean(it);
  row.it_median = median(it);
  row.it_max = it.empty() ? 0.0 : *std::max_element(it.begin(), it.end());
  row.contacts = mean(contacts);
  row.relin = mean(relin);
  row.converged = converged;
  row.steps = int(ms.size());
  return row;
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
  bool no_xpbd = false, no_diag = false;
  Setup setup;
  std::string csv = dir + "tools/bench/data/cr_mlcp_table1.csv";
  app.add_option("scenes", scenes, "scene files");
  app.add_option("--steps", steps, "steps per run (at most the scene's)")->check(CLI::PositiveNumber);
  app.add_option("--max-iterations", max_cr, "cr-mlcp's CR iteration budget per step")->check(CLI::PositiveNumber);
  app.add_flag("--no-xpbd", no_xpbd, "leave out the xpbd-jacobi rows");
  app.add_flag("--no-diag", no_diag, "leave out the cr-mlcp diag rows (and the ratio)");
  app.add_flag("--paper", setup.paper, "soft materials with seed 004's Table 1 parameters (E 5e5 Pa, nu 0.2, rho 1000, no damping)");
  app.add_option("--dt", setup.dt, "time step for every scene (unit: s; default: the scene's)")->check(CLI::PositiveNumber);
  app.add_option("--set", setup.set, "POINTER=VALUE applied to every scene (as coulomb run --set)");
  app.add_flag("--trace", setup.trace, "one line per step on stderr");
  app.add_option("--csv", csv, "CSV file for the rows (empty: none)");
  CLI11_PARSE(app, argc, argv);

  std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (!csv.empty() && !out) {
    std::fprintf(stderr, "cannot write %s\n", csv.c_str());
    return 1;
  }
  if (out)
    std::fprintf(out, "scene,solver,paper_materials,dt,steps,converged,ms_mean,ms_median,iterations_mean,"
                      "iterations_median,iterations_max,relinearizations_mean,contacts_mean\n");
  std::printf("| scene | solver | ms/step avg | ms/step median | iterations avg | iterations median | iterations max | contacts avg | converged |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::string& scene : scenes) {
    const std::string name = scene.substr(scene.find_last_of('/') + 1);
    const std::string budget = "/solver/max_iterations=" + std::to_string(max_cr);
    const auto print = [&](const char* solver, const Row& r) {
      std::printf("| %s | %s | %.2f | %.2f | %.1f | %.0f | %.0f | %.1f | %d/%d |\n", name.c_str(), solver, r.ms_mean,
                  r.ms_median, r.it_mean, r.it_median, r.it_max, r.contacts, r.converged, r.steps);
      if (out) {
        std::fprintf(out, "%s,%s,%d,%g,%d,%d,%.3f,%.3f,%.2f,%.1f,%.0f,%.3f,%.2f\n", name.c_str(), solver, setup.paper ? 1 : 0,
                     r.dt, r.steps, r.converged, r.ms_mean, r.ms_median, r.it_mean, r.it_median, r.it_max, r.relin, r.contacts);
        std::fflush(out);
      }
    };
    const Row full = run(scene, {"/solver/type=\"cr-mlcp\"", budget, "/solver/preconditioner=\"full\""}, setup, steps);
    print("cr-mlcp full", full);
    if (no_diag) {
      if (!no_xpbd) print("xpbd-jacobi", run(scene, {"/solver/type=\"xpbd-jacobi\""}, setup, steps));
      continue;
    }
    const Row diag = run(scene, {"/solver/type=\"cr-mlcp\"", budget, "/solver/preconditioner=\"diag\""}, setup, steps);
    print("cr-mlcp diag", diag);
    if (!no_xpbd) print("xpbd-jacobi", run(scene, {"/solver/type=\"xpbd-jacobi\""}, setup, steps));
    std::printf("| %s | diag / full iterations | %.2fx (median %.2fx) | | | | | | |\n", name.c_str(),
                full.it_mean > 0.0 ? diag.it_mean / full.it_mean : 0.0,
                full.it_median > 0.0 ? diag.it_median / full.it_median : 0.0);
    std::fflush(stdout);
  }
  if (out) std::fclose(out);
  return 0;
}
