// The two benchmark loops (runs.h). Only the step call is inside the timed region; reading
// states, contacts and merits happens between steps.
#include "runs.h"

#include "bullet_contacts.h"
#include "sweep_cost.h"

#include <coulomb/merit.h>
#include <coulomb/world.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <numeric>
#include <utility>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

// The bookkeeping between steps (the report's merit, Bullet's rebuilt contact problem) runs on
// the calling thread alone. fclib_merit and the problem's assembly are tbb::parallel_for loops:
// run in the global arena they would wake a TBB worker, which then spins through the next step and
// is counted in that step's process CPU time (a 1-thread run's CPU time would exceed its wall
// time).
template <class F>
auto between_steps(F&& f) {
  static tbb::task_arena one(1);
  return one.execute(std::forward<F>(f));
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The process's CPU time (all threads): on a machine shared with other jobs it counts the time
// the step ran, where the wall time also counts the time it waited for a core.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * double(t.tv_sec) + 1e-6 * double(t.tv_nsec);
}

double drift(const coulomb::RigidModel& model, const coulomb::RigidState& start, const coulomb::RigidState& end) {
  double d = 0.0;
  for (int i = 0; i < model.size(); ++i) {
    const auto k = std::size_t(i);
    if (!model.fixed[k]) d = std::max(d, (end.x[k] - start.x[k]).norm());
  }
  return d;
}

bool finite_state(const coulomb::RigidState& s) {
  for (std::size_t k = 0; k < s.x.size(); ++k)
    if (!s.x[k].allFinite() || !s.v[k].allFinite() || !s.w[k].allFinite()) return false;
  return true;
}

// Largest |(u^{t+1} - u_free) - M^-1 J^T lambda| over the moving bodies: how far the rebuilt
// problem and the impulses read back are from explaining Bullet's own velocity change.
double velocity_mismatch(const coulomb::RigidModel& model, const std::vector<coulomb::Vec6>& u_free,
                         const coulomb::RigidState& after, const coulomb::ContactProblem& problem,
                         const coulomb::ContactSolution& solution) {
  std::vector<coulomb::Vec6> response;
  problem.body_impulse_response(solution.lambda, response);
  double err = 0.0;
  for (int i = 0; i < model.size(); ++i) {
    const auto k = std::size_t(i);
    if (model.fixed[k]) continue;
    coulomb::Vec6 du;
    du << after.v[k], after.w[k];
    err = std::max(err, (du - u_free[k] - response[k]).norm());
  }
  return err;
}

void note_merit(RunResult& r) {
  if (r.merit.empty() && r.merit_note.empty()) r.merit_note = "n/a: no step had contacts";
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

RunResult run_coulomb(const coulomb::SceneDef& scene_in, int threads, int window_from, bool world_merit) {
  coulomb::SceneDef scene = scene_in;
  scene.solver_options.evaluate_merit = world_merit;
  RunResult r;
  r.window_from = window_from;
  r.engine = "coulomb";
  r.solver = scene.solver;
  r.iterations = scene.solver_options.max_iterations;
  r.threads = threads;
  coulomb::WorldSettings ws;
  ws.threads = threads;
  coulomb::World world(scene, ws);
  const coulomb::RigidState start = world.rigid_state();
  coulomb::ContactSolution solution;
  for (int step = 0; step < scene.steps; ++step) {
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    const coulomb::StepResult res = world.step();
    const auto t1 = Clock::now();
    const double c1 = cpu_ms();
    if (!res.ok()) {
      r.failure = res.message;
      break;
    }
    const coulomb::StepStats& st = world.last_stats();
    r.max_penetration = std::max(r.max_penetration, st.max_penetration);
    ++r.steps;
    if (step < window_from) continue;
    r.ms.push_back(ms_between(t0, t1));
    r.cpu_ms.push_back(c1 - c0);
    r.contacts.push_back(st.contacts);
    r.solver_iterations.push_back(st.solver.iterations);
    std::array<double, kStages> stages{st.detect_ms, st.assemble_ms, st.solver.time_ms, st.integrate_ms,
                                       st.stabilize_ms};
    stages.back() = st.wall_ms - std::accumulate(stages.begin(), stages.end() - 1, 0.0);  // the rest of the step
    r.stage_ms.push_back(stages);
    r.sweep_ms += st.solver.sweep_ms;
    r.contact_sweeps += st.solver.contact_sweeps;
    if (st.contacts > 0) {
      solution.lambda = world.contact_impulses();
      r.merit.push_back(between_steps([&] { return coulomb::fclib_merit(world.last_problem(), solution); }));
    }
  }
  r.max_drift = drift(world.model(), start, world.rigid_state());
  note_merit(r);
  return r;
}

RunResult run_bullet(const coulomb::SceneDef& scene, const BulletSettings& settings, int window_from) {
  RunResult r;
  r.window_from = window_from;
  r.engine = "bullet";
  r.solver = "sequential-impulse";
  r.iterations = settings.iterations;
  r.threads = 1;
  r.friction_directions = settings.two_friction_directions ? 2 : 1;
  // Coulomb's model gives the masses, principal inertias and body frames (bullet_world.h)
  const coulomb::World reference(scene);
  const coulomb::RigidModel& model = reference.model();
  const coulomb::RigidState start = reference.rigid_state();
  BulletWorld bw(scene, model, start, settings);

  coulomb::RigidState before, after;
  BulletContacts contacts;
  coulomb::ContactProblem problem;
  coulomb::ContactSolution solution;
  std::vector<coulomb::Vec6> u_free;
  for (int step = 0; step < scene.steps; ++step) {
    bw.read_state(before);
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    bw.step();
    const auto t1 = Clock::now();
    const double c1 = cpu_ms();
    bw.read_state(after);
    if (!finite_state(after)) {
      r.failure = "step " + std::to_string(step + 1) + ": a body has a NaN or infinite state";
      break;
    }
    read_contacts(bw, settings, contacts);
    r.max_penetration = std::max(r.max_penetration, contacts.max_penetration);
    ++r.steps;
    if (step < window_from) continue;
    r.ms.push_back(ms_between(t0, t1));
    r.cpu_ms.push_back(c1 - c0);
    r.contacts.push_back(int(contacts.contacts.size()));
    if (!contacts.contacts.empty()) {
      between_steps([&] {
        bullet_problem(bw, model, before, contacts, problem, u_free);
        solution.lambda = contacts.impulses;
        r.merit.push_back(coulomb::fclib_merit(problem, solution));
        r.reconstruction_error =
            std::max(r.reconstruction_error, velocity_mismatch(model, u_free, after, problem, solution));
      });
    }
  }
  bw.read_state(after);
  r.max_drift = drift(model, start, after);
  r.sweep_ms = bw.solver().sweep_ns * 1e-6;
  r.solve_ms = bw.solver().solve_ns * 1e-6;
  r.contact_sweeps = bw.solver().contact_sweeps;
  note_merit(r);
  return r;
}

}  // namespace bench
