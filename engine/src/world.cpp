// World: holds the model and the state and runs the step as a short list of timed stages over
// one StepContext (DESIGN.md "One step, as data flows"; STYLE.md lesson 4). The model is built
// by build_world_model (world_model.cpp); every stage is a free function (step_context.h) that
// calls into its module: this file only sequences them.
#include "step_context.h"

#include <coulomb/error.h>
#include <coulomb/timer.h>
#include <coulomb/world.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <string>

namespace coulomb {

namespace {

// Status::Error for step `step`. Building the message may itself run out of memory: then the
// message is a short string that needs no allocation.
StepResult step_error(int step, const char* what) {
  StepResult r;
  r.status = StepResult::Status::Error;
  try {
    r.message = "step " + std::to_string(step) + ": " + what;
  } catch (...) {
    r.message = "out of memory";
  }
  return r;
}

}  // namespace

// Every parallel loop of a step (detection, islands, prox-jacobi) runs in this arena, so
// --threads N bounds the whole step to N threads (N = 1: the calling thread alone).
struct World::Threads {
  tbb::task_arena arena;
  explicit Threads(int n) : arena(n > 0 ? n : tbb::task_arena::automatic) { arena.initialize(); }
};

void World::in_arena(const std::function<void()>& f) { threads_->arena.execute(f); }

World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

World::World(SceneDef scene, WorldSettings settings) : scene_(std::move(scene)), settings_(settings) {
  solver_ = find_solver(scene_.solver);
  if (!solver_) throw InputError("/solver/type", "unknown solver '" + scene_.solver + "' (available: " + solver_names() + ")");
  check_simulates_scenes(*solver_);
  if (settings_.threads < 0 || settings_.threads > WorldSettings::kMaxThreads)
    throw InputError("threads", "expected a thread count from 0 (all cores) to " + std::to_string(WorldSettings::kMaxThreads) +
                                    ", got " + std::to_string(settings_.threads));
  threads_ = std::make_unique<Threads>(settings_.threads);
  settings_.threads = threads_->arena.max_concurrency();
  scene_.solver_options.threads = settings_.threads;
  // sleeping islands live in the velocity-level stage list
  if (scene_.sleep.enabled && solver_->kind != ProblemKind::Velocity)
    throw InputError("/sleep", "sleeping islands need a velocity-level solver (prox-gs, prox-jacobi, pgs); '" +
                                   scene_.solver + "' keeps every body awake: remove \"sleep\" or pick one of those");

  build_world_model(scene_, settings_.spatial_numbering, model_, state_, soft_);
  if (scene_.sleep.enabled) sleep_.resize(model_.rigid.size());
  buf_.still = model_.rigid.fixed;
  // overlaps at load are refused, reported or pushed apart before the joints and attachments
  // take the load-time poses (world_overlap.cpp)
  settle_initial_overlaps();
  bind_constraints(scene_, state_, soft_, model_);
  init_control();
}

int World::find_soft_body(const std::string& name) const {
  for (int i = 0; i < soft_body_count(); ++i)
    if (soft_[std::size_t(i)].name == name) return i;
  return -1;
}

int World::find_body(const std::string& name) const {
  for (int i = 0; i < model_.rigid.size(); ++i)
    if (model_.rigid.name[std::size_t(i)] == name) return i;
  return -1;
}

BodyState World::body(int id) const {
  check_id("body", "body", id, model_.rigid.size());
  const auto k = std::size_t(id);
  const Pose sp = shape_pose(model_.rigid, state_, id);
  BodyState b;
  b.name = model_.rigid.name[k];
  b.position = sp.p;
  b.orientation = sp.q;
  b.angular_velocity = state_.w[k];
  b.velocity = state_.v[k] + state_.w[k].cross(sp.p - state_.x[k]);
  b.fixed = model_.rigid.fixed[k] != 0;
  b.kinematic = model_.rigid.kinematic[k] != 0;
  b.mass = model_.rigid.mass[k];
  return b;
}

// The step boundary: nothing thrown inside the stages (std::bad_alloc, a library's exception,
// one rethrown by TBB from a worker thread) leaves step(); it becomes Status::Error, and a failed
// step, Error or InvalidState, stops the world until set_state().
StepResult World::step() {
  if (!failure_.ok()) return failure_;
  StepResult result;
  try {
    threads_->arena.execute([&] { result = run_stages(); });
  } catch (const std::exception& e) {
    result = step_error(step_ + 1, e.what());
  } catch (...) {
    result = step_error(step_ + 1, "an exception that is not a std::exception");
  }
  if (!result.ok()) failure_ = result;
  return result;
}

StepResult World::run_stages() {
  if (stage_fault_) stage_fault_(step_ + 1);
  reference_energy();  // the health check's energy reference, before anything moves (world_health.cpp)
  apply_commands();    // the actuators' commands and the step's applied loads (world_control.cpp)
  const Stopwatch wall;
  stats_ = StepStats{};
  StepContext c{scene_, settings_, *solver_, model_, state_, soft_, buf_, cache_, sleep_, stats_};
  c.step = step_ + 1;
  c.dt = scene_.dt;
  c.moreau = scene_.integrator == IntegratorType::Moreau;
  // the absolute tolerance scaled to the problem: abs_tol is in N s, and a small body's weight
  // over a step can be below it (1e-7 N s for a 1 mm cube), which would stop the first sweep
  c.options = scene_.solver_options;
  if (solver_->impulse_tolerance && model_.impulse_scale > 0.0)
    c.options.abs_tol = std::min(c.options.abs_tol, kImpulseTolerance * model_.impulse_scale);
  StepResult result;
  switch (solver_->kind) {  // the stage list of the solver's problem kind (solvers/solver.h)
    case ProblemKind::Velocity: result = run_velocity_stages(c); break;
    case ProblemKind::Position: result = run_position_stages(c); break;
  }
  if (!result.ok()) return result;
  stats_.wall_ms = wall.ms();
  return check_step();
}

// Seed 000: Moreau's midpoint scheme (or implicit Euler) over a velocity-level contact problem.
StepResult World::run_velocity_stages(StepContext& c) {
  predict(c);                                          // 1 Moreau's explicit half step
  if (StepResult r = detect(c); !r.ok()) return r;     // 2 contacts; sleeping islands they reach wake
  actuate_drives();                                    //   drive targets at the detection configuration
  assemble(c);                                         // 3 contact and joint rows, warm start
  solve(c);                                            // 4 impulses, remembered for the next step
  integrate(c);                                        // 5 velocities, then positions
  stabilize(c);                                        // 6 post-stabilisation (scene setting)
  fall_asleep(c);                                      //   islands at rest for the sleep time
  advance_clock();
  record_stats(c);                                     // 7 record
  observe();                                           //   joint states, actuator efforts
  return {};
}

// Seed 002 (and seed 004's candidate contacts): positions and velocities solved together.
StepResult World::run_position_stages(StepContext& c) {
  if (StepResult r = detect_position(c); !r.ok()) return r;  // 2 rigid and soft contacts at q^l
  actuate_drives();                                          //   drive targets at q^l
  const bool warm = assemble_position(c);                    // 3 PositionProblem
  solve_position(c);                                         // 4+5 q^{l+1} and v^{l+1}
  if (warm) remember_position(c);                            // 6 impulses for the next step
  advance_clock();
  record_stats(c);                                           // 7 record
  observe();                                                 //   joint states, actuator efforts
  return {};
}

void World::advance_clock() {
  ++step_;
  time_ = step_ * scene_.dt;
}

}  // namespace coulomb
