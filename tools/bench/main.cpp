// coulomb-vs-bullet SCENE: the same scene stepped by Coulomb's World and by Bullet's
// btDiscreteDynamicsWorld in one process; prints ms per step, contacts, penetration, the FCLib
// merit of each engine's impulses and the drift (README.md).
#include "report.h"
#include "runs.h"
#include "sweep_cost.h"

#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/solver.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"coulomb-vs-bullet: one scene in Coulomb and in Bullet's sequential-impulse solver"};
  std::string scene_file;
  int steps = 0, threads = 1, window_from = 0, warmup_steps = 100, repeat = 1;
  std::vector<std::string> solvers{"prox-gs", "pgs"}, set;
  std::vector<int> bullet_iterations{10, 100};
  bool json = false, markdown = false, one_friction_direction = false, no_bullet = false, world_merit = false;
  app.add_option("scene", scene_file, "scene file (JSON, coulomb-scene/1)")->required();
  app.add_option("--steps", steps, "steps per run (default: the scene's)")->check(CLI::Range(1, 100000000));
  app.add_option("--threads", threads, "Coulomb's worker threads (Bullet is single-threaded)")->check(CLI::Range(1, 1024));
  app.add_option("--solver", solvers,
                 "Coulomb solver, NAME or NAME:ITERATIONS (sets /solver/max_iterations for that run; repeatable; "
                 "default prox-gs and pgs)")
      ->allow_extra_args(false);
  app.add_option("--bullet-iterations", bullet_iterations, "Bullet solver iterations (repeatable; default 10 and 100)")
      ->allow_extra_args(false)
      ->check(CLI::Range(1, 1000000));
  app.add_option("--window-from", window_from,
                 "time (and take medians of contacts and merits over) only the steps after this one; the first steps still run")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup-steps", warmup_steps,
                 "untimed steps of the first Coulomb and the first Bullet configuration before the measured runs "
                 "(default 100; 0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", repeat,
                 "run every configuration N times, in turn (round-robin), and report each one's run with the least "
                 "median CPU time a step (default 1): this host's speed swung by 1.5x between stretches of seconds")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--no-bullet,--coulomb-only", no_bullet, "run Coulomb's solvers only")->excludes("--bullet-iterations");
  app.add_option("--set", set, "override a scene value for both engines: JSON_POINTER=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--bullet-one-friction-direction", one_friction_direction,
               "Bullet's default: one friction direction per contact (no friction along the second tangent; the merit still judges both)");
  app.add_flag("--world-merit", world_merit,
               "keep Coulomb's own per-step merit (stats.jsonl's) inside the timed step; by default it is off, "
               "since the report's merit is computed for both engines between steps");
  app.add_flag("--json", json, "one JSON object per line per engine configuration");
  app.add_flag("--markdown", markdown, "a markdown table instead of the text table")->excludes("--json");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    coulomb::SceneOverrides o;
    o.steps = steps;
    o.set = set;
    const coulomb::SceneDef scene = coulomb::load_scene(scene_file, o);
    if (window_from >= scene.steps)
      throw coulomb::InputError("--window-from", std::to_string(window_from) + " leaves no step to measure out of " +
                                                     std::to_string(scene.steps));
    if (no_bullet) bullet_iterations.clear();
    std::vector<coulomb::SceneDef> coulomb_scenes;
    std::vector<std::string> labels;  // per Coulomb configuration: NAME:ITERATIONS, or empty (the solver's name)
    for (const std::string& spec : solvers) {
      // NAME:ITERATIONS: the iteration limit of this run only, after the --set overrides
      const std::size_t colon = spec.find(':');
      coulomb::SceneOverrides so = o;
      so.solver = spec.substr(0, colon);  // validated like `coulomb run --solver`
      if (colon != std::string::npos) {
        const std::string n = spec.substr(colon + 1);
        if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 7 || std::stoi(n) < 1)
          throw coulomb::InputError("--solver", spec + ": expected NAME or NAME:ITERATIONS with ITERATIONS >= 1");
        so.set.push_back("/solver/max_iterations=" + n);
      }
      coulomb_scenes.push_back(coulomb::load_scene(scene_file, so));
      labels.push_back(colon != std::string::npos ? spec : "");
    }
    std::vector<bench::BulletSettings> bullet_settings;
    for (int n : bullet_iterations) {
      bench::BulletSettings bs;
      bs.iterations = n;
      bs.two_friction_directions = !one_friction_direction;
      bullet_settings.push_back(bs);
    }
    // Warm-up, untimed, so that no measured run is the process's first use of the allocator's
    // memory, the thread pool and the caches. A guard, not a measured correction: a first
    // configuration's lead is within a shared host's noise, which --repeat answers.
    if (warmup_steps > 0) {
      const auto shortened = [&](coulomb::SceneDef d) {
        d.steps = std::min(d.steps, warmup_steps);
        return d;
      };
      if (!coulomb_scenes.empty()) bench::run_coulomb(shortened(coulomb_scenes.front()), threads, 0, world_merit);
      if (!bullet_settings.empty()) bench::run_bullet(shortened(scene), bullet_settings.front(), 0);
    }
    // configuration k: Coulomb's first, then Bullet's; each round runs every one once
    const std::size_t nconfig = coulomb_scenes.size() + bullet_settings.size();
    const auto run_config = [&](std::size_t k) {
      if (k >= coulomb_scenes.size()) return bench::run_bullet(scene, bullet_settings[k - coulomb_scenes.size()], window_from);
      bench::RunResult r = bench::run_coulomb(coulomb_scenes[k], threads, window_from, world_merit);
      r.label = labels[k];
      return r;
    };
    std::vector<bench::RunResult> runs(nconfig);
    for (int round = 0; round < repeat; ++round)
      for (std::size_t k = 0; k < nconfig; ++k) {
        bench::RunResult r = run_config(k);
        if (round == 0 || bench::median(r.cpu_ms) < bench::median(runs[k].cpu_ms)) runs[k] = std::move(r);
      }
    const bench::ReportHeader h{scene.name, int(scene.bodies.size()), scene.dt, scene.steps, threads,
                                bench::measure_copy_bandwidth_gbs(), repeat};
    if (json) bench::print_json_lines(h, runs);
    else if (markdown) bench::print_markdown(h, runs);
    else bench::print_table(h, runs);
  } catch (const coulomb::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
