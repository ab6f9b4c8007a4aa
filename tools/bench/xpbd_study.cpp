// coulomb-xpbd-study: the two experiments of seed 002 for the position-level solver
// (solvers/README.md records the numbers). A program, not a test.
//
// 1. Convergence (seed 002 figure 9): a pile scene run with plain Jacobi, accelerated (Nesterov)
//    Jacobi and Gauss-Seidel at a fixed iteration count, no warm start; each step's constraint
//    error per iteration (L2 of the penetrations) is normalised by its maximum and averaged over
//    the steps. Written to OUT/xpbd_convergence.csv and summarised on stdout.
// 2. Time (seed 002 tables 1-2): about 2000 rigid boxes (12 x 15 x 12 cm, the paper's figure 8)
//    in five loose layers dropped on the ground; ms per step of accelerated Jacobi on 2 threads
//    against Gauss-Seidel on 1 thread (and Jacobi on 1 thread), measured in the same run.
#include <coulomb/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

struct Variant {
  const char* name;
  bool nesterov, gauss_seidel;
};
constexpr Variant kVariants[] = {{"jacobi", false, false}, {"accelerated-jacobi", true, false}, {"gauss-seidel", false, true}};

std::vector<double> mean_normalised_error(const std::string& pile, const Variant& v, int steps, int iterations) {
  const std::vector<std::string> set = {"/solver={\"type\": \"xpbd-jacobi\"}",
                                        "/solver/max_iterations=" + std::to_string(iterations),
                                        "/solver/abs_tol=0", "/solver/rel_tol=0",
                                        "/solver/record_history=true",
                                        std::string("/solver/nesterov=") + (v.nesterov ? "true" : "false"),
                                        std::string("/solver/gauss_seidel=") + (v.gauss_seidel ? "true" : "false"),
                                        "/time={\"dt\": 0.01, \"steps\": " + std::to_string(steps) + "}"};
  World w(load_scene(pile, set));
  std::vector<double> sum(std::size_t(iterations), 0.0);
  int counted = 0;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n", v.name, r.message.c_str());
      break;
    }
    const std::vector<double>& h = w.last_stats().solver.history;
    const double mx = h.empty() ? 0.0 : *std::max_element(h.begin(), h.end());
    if (!(mx > 0.0)) continue;
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += (i < h.size() ? h[i] : h.back()) / mx;
    ++counted;
  }
  for (double& s : sum) s /= std::max(counted, 1);
  std::printf("  %-20s %d steps with contacts\n", v.name, counted);
  return sum;
}

nlohmann::json boxes_scene(int steps, int iterations) {
  // 20 x 20 x 5 boxes on a loose grid, the lowest layer 2 cm above the ground
  return {{"format", "coulomb-scene/1"},
          {"time", {{"dt", 0.016}, {"steps", steps}}},
          {"solver", {{"type", "xpbd-jacobi"}, {"max_iterations", iterations}, {"abs_tol", 0}, {"rel_tol", 0}}},
          {"materials", {{"default", {{"density", 500}, {"friction", 0.3}}}}},
          {"shapes", {{"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}},
                      {"box", {{"type", "box"}, {"half_extents", {0.06, 0.075, 0.06}}}}}},
          {"bodies", {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}}},
          {"generators", {{{"type", "grid"}, {"prefix", "box"}, {"shape", "box"}, {"count", {20, 20, 5}},
                           {"origin", {-2.0, -2.0, 0.08}}, {"spacing", {0.2, 0.2, 0.16}},
                           {"odd_row_offset", {0.05, 0.05, 0}}}}}};
}

// mean ms per step (whole step and solver) over the last `timed` steps
std::pair<double, double> time_boxes(int steps, int timed, int iterations, bool gauss_seidel, int threads, int& contacts) {
  nlohmann::json scene = boxes_scene(steps, iterations);
  scene["solver"]["gauss_seidel"] = gauss_seidel;
  WorldSettings ws;
  ws.threads = threads;
  World w(parse_scene(scene, "."), ws);
  double step_ms = 0.0, solve_ms = 0.0;
  contacts = 0;
  while (w.step_count() < w.total_steps()) {
    if (!w.step().ok()) break;
    if (w.step_count() > steps - timed) {
      step_ms += w.last_stats().wall_ms;
      solve_ms += w.last_stats().solver.time_ms;
      contacts += w.last_stats().contacts;
    }
  }
  contacts /= timed;
  return {step_ms / timed, solve_ms / timed};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seed 002 studies of xpbd-jacobi: convergence per iteration and the 2000-box timing"};
  std::string pile = std::string(COULOMB_SOURCE_DIR) + "/scenes/sphere_pile.json", out = "out/xpbd_study";
  int steps = 200, iterations = 50, box_steps = 60, box_timed = 20, box_iterations = 10;
  app.add_option("--pile", pile, "scene for the convergence study");
  app.add_option("--steps", steps, "steps of the pile");
  app.add_option("--iterations", iterations, "iterations per step in the convergence study");
  app.add_option("--box-steps", box_steps, "steps of the 2000-box run (the last --box-timed are timed)");
  app.add_option("--box-timed", box_timed, "timed steps of the 2000-box run");
  app.add_option("--box-iterations", box_iterations, "iterations per step of the 2000-box run (paper: 10)");
  app.add_option("--out", out, "folder for the CSV file");
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::create_directories(out);
    std::printf("== convergence (seed 002 figure 9): %s, %d steps, %d iterations, no warm start ==\n", pile.c_str(),
                steps, iterations);
    std::vector<std::vector<double>> curves;
    for (const Variant& v : kVariants) curves.push_back(mean_normalised_error(pile, v, steps, iterations));
    std::ofstream csv(std::filesystem::path(out) / "xpbd_convergence.csv");
    csv << "iteration,jacobi,accelerated_jacobi,gauss_seidel\n";
    for (int i = 0; i < iterations; ++i)
      csv << i + 1 << ',' << curves[0][std::size_t(i)] << ',' << curves[1][std::size_t(i)] << ','
          << curves[2][std::size_t(i)] << '\n';
    std::printf("mean normalised constraint error after k iterations:\n  %-10s %-12s %-20s %-12s\n", "k", "jacobi",
                "accelerated-jacobi", "gauss-seidel");
    for (int k : {1, 5, 10, 20, 30, 50, 100})
      if (k <= iterations)
        std::printf("  %-10d %-12.4f %-20.4f %-12.4f\n", k, curves[0][std::size_t(k - 1)], curves[1][std::size_t(k - 1)],
                    curves[2][std::size_t(k - 1)]);

    std::printf("== 2000 boxes (seed 002 tables 1-2): %d steps of 16 ms, last %d timed, %d iterations ==\n", box_steps,
                box_timed, box_iterations);
    int c1 = 0, c2 = 0, c3 = 0;
    const auto gs = time_boxes(box_steps, box_timed, box_iterations, true, 1, c1);
    const auto aj1 = time_boxes(box_steps, box_timed, box_iterations, false, 1, c2);
    const auto aj2 = time_boxes(box_steps, box_timed, box_iterations, false, 2, c3);
    std::printf("  %-32s %10s %10s %9s\n", "solver", "step ms", "solve ms", "contacts");
    std::printf("  %-32s %10.2f %10.2f %9d\n", "gauss-seidel, 1 thread", gs.first, gs.second, c1);
    std::printf("  %-32s %10.2f %10.2f %9d\n", "accelerated jacobi, 1 thread", aj1.first, aj1.second, c2);
    std::printf("  %-32s %10.2f %10.2f %9d\n", "accelerated jacobi, 2 threads", aj2.first, aj2.second, c3);
    std::printf("speedup of accelerated jacobi (2 threads) over gauss-seidel (1 thread): step %.2fx, solve %.2fx "
                "(paper, dual core: 1.55x)\n",
                gs.first / aj2.first, gs.second / aj2.second);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coulomb-xpbd-study: %s\n", e.what());
    return 1;
  }
  return 0;
}
