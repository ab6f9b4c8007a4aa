// One benchmark run per engine configuration: step the scene, time the step call alone, and
// collect contacts, penetration, the FCLib merit of the step's impulses and the drift.
#pragma once
#include "bullet_world.h"

#include <coulomb/scene.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace bench {

inline constexpr std::size_t kStages = 6;  // RunResult::stage_ms, kStageNames

struct RunResult {
  std::string engine;      // "coulomb" | "bullet"
  std::string solver;      // Coulomb solver name, or Bullet's "sequential-impulse"
  std::string label;       // the configuration's name in reports when not the solver's (prox-gs:20)
  int iterations = 0;      // the solver's iteration limit
  int threads = 1;
  int friction_directions = 2;  // Bullet: friction rows per contact (1 = Bullet's default)
  int steps = 0;           // steps completed
  std::string failure;     // why the run stopped early, empty if it did not

  int window_from = 0;            // the per-step series below skip the first window_from steps
  std::vector<double> ms;        // (measured steps) wall time of the step call (unit: ms)
  std::vector<double> cpu_ms;    // (measured steps) the process's CPU time over the step call (unit: ms)
  std::vector<int> contacts;     // (measured steps)
  std::vector<double> merit;     // merit of each measured step that had contacts
  std::vector<int> solver_iterations;  // (measured steps) Coulomb only
  // (measured steps) Coulomb only: World's stage times (StepStats, as in stats.jsonl) detect,
  // assemble, solve, integrate, stabilize (post-stabilisation), and the rest of the step
  // (prediction's bookkeeping, islands, warm start, sleep, record) (unit: ms)
  std::vector<std::array<double, kStages>> stage_ms;
  double max_penetration = 0.0;  // over the run (unit: m)
  double max_drift = 0.0;        // largest distance of a moving body's centre of mass from its start (unit: m)
  std::string merit_note;        // "n/a: ..." when no merit could be computed
  // Bullet only: largest |(u^{t+1} - u_free) - M^-1 J^T lambda| of a moving body over the run,
  // i.e. how well the rebuilt contact problem explains Bullet's velocity change (unit: m/s, rad/s)
  double reconstruction_error = 0.0;
  // Sweep cost (sweep_cost.h), totals over the run, CPU time: the solver's time in its sweeps
  // and (Bullet only; NaN for Coulomb, whose SolverStats::time_ms is wall time) in the whole
  // solve call, and the contact visits of its sweeps (contacts x sweeps)
  double sweep_ms = 0.0, solve_ms = NAN, contact_sweeps = 0.0;
};

double median(std::vector<double> v);  // NaN for an empty vector

inline constexpr const char* kStageNames[kStages] = {"detect", "assemble", "solve", "integrate", "stabilize", "other"};

// `scene.solver` picks Coulomb's solver; `scene.steps` the number of steps. The first
// `window_from` steps run untimed (a pile that has not landed yet), and no merit is computed there.
// world_merit: the World's own merit of each step (stats.jsonl's `merit`, SolverOptions::
// evaluate_merit) stays on and is timed with the step; off, the step does what Bullet's does,
// and the report's merit is the harness's alone, computed between steps for both engines.
RunResult run_coulomb(const coulomb::SceneDef& scene, int threads, int window_from = 0, bool world_merit = false);
RunResult run_bullet(const coulomb::SceneDef& scene, const BulletSettings& settings, int window_from = 0);

}  // namespace bench
