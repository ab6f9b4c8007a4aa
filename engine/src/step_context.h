// One step's context and its stages (STYLE.md lesson 4; DESIGN.md "One step, as data flows").
//
// World::step builds a StepContext over the world's model, state and buffers, and runs the
// stage list of its solver's problem kind (world.cpp): each stage below is a free function over
// the context, with its own profile timer in StepStats. The context names what a step may read
// (scene, settings, solver, model) and what it writes (state, soft bodies, buffers, caches,
// sleep, stats).
#pragma once
#include <coulomb/world.h>

#include <cstdint>
#include <vector>

namespace coulomb {

struct StepContext {
  const SceneDef& scene;
  const WorldSettings& settings;
  const SolverInfo& solver;
  const WorldModel& model;
  RigidState& state;
  std::vector<SoftBody>& soft;
  StepBuffers& buf;
  ImpulseCache& cache;
  SleepState& sleep;
  StepStats& stats;
  int step = 0;           // this step's number, from 1
  double dt = 0.0;        // the step (unit: s)
  bool moreau = false;    // Moreau's midpoint scheme: two position half steps of dt / 2
  SolverOptions options;  // the scene's, with abs_tol scaled to the lightest body's weight

  // fixed or sleeping bodies; nullptr when sleep is off
  const std::vector<std::uint8_t>* still() const { return scene.sleep.enabled ? &buf.still : nullptr; }
  // what detection and islands treat as static: the still bodies, or the fixed ones
  const std::vector<std::uint8_t>& at_rest() const { return scene.sleep.enabled ? buf.still : model.rigid.fixed; }
};

// ---- velocity-level stages (velocity_stages.cpp) ----
// 1 predict: Moreau's explicit half step (seed 000 eq. 41), swept by the rigid CCD
void predict(StepContext& c);
// 2 detect: contacts at the detection configuration, sleeping islands they reach woken; an
// InvalidState result past the contact caps
StepResult detect(StepContext& c);
// 3 assemble: M, J, h at the detection configuration (eq. 42a), with the warm start
void assemble(StepContext& c);
// 4 solve, over islands or the whole problem, and remember the impulses for the next warm start
void solve(StepContext& c);
// 5 integrate: u^{t+1} = u_free + M^-1 J^T lambda (eq. 42b), then the position update
void integrate(StepContext& c);
// 6 stabilise: project the new positions out of penetration (seed 000 s.4.4)
void stabilize(StepContext& c);
// sleeping islands: timers, and islands that fall asleep (world_sleep.cpp)
void fall_asleep(StepContext& c);

// ---- position-level stages (position_stages.cpp; seed 002, seed 004) ----
StepResult detect_position(StepContext& c);  // 2 rigid and soft contacts at q^l
bool assemble_position(StepContext& c);      // 3 PositionProblem; true if warm-started
void solve_position(StepContext& c);         // 4+5 positions and velocities of q^{l+1}
void remember_position(StepContext& c);      // 6 the warm-starting solver's impulses

// 7 record: StepStats (all but wall_ms) after the step (velocity_stages.cpp)
void record_stats(StepContext& c);

// ---- parts the stages share ----
// the shapes at the state's poses (written into `poses`), without reach
DetectInput posed_input(const SceneDef& scene, const WorldModel& m, const RigidState& state,
                        const std::vector<std::uint8_t>& at_rest, std::vector<Pose>& poses);
DetectInput detect_input(StepContext& c);  // posed_input at buf.poses, with each body's reach
// drops the contacts of pairs that do not collide (joined by a joint, collision.exclude)
void drop_jointed_contacts(const WorldModel& m, std::vector<Contact>& contacts);
void detect_coefficients(StepContext& c);  // buf.coeffs, and the deepest contact
StepResult check_contact_caps(const StepContext& c);
SolverStats solve_islands_or_whole(StepContext& c, SolveFn fn, const ContactProblem& problem, const SolverOptions& opt,
                                   Islands& islands, ContactSolution& solution);
void admit_initial_velocities(StepContext& c);  // Moreau's first explicit half step (world_limits.cpp)
// the warm-start cache (world_cache.cpp): last step's impulses into buf.solution.lambda, and back
void warm_start(StepContext& c);
void remember_impulses(StepContext& c);
// contact k's tangents, as the last assembly wrote them (world_cache.cpp)
void contact_frame(const StepBuffers& b, std::size_t k, Vec3& t, Vec3& s);
void keep_resting_impulses(StepContext& c, std::vector<CachedContactImpulse>& old_cache);  // world_sleep.cpp
// sleeping islands (world_sleep.cpp): detect, wake the islands the contacts reach, again
int detect_settled(StepContext& c, std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs = nullptr,
                   std::vector<double>* reach = nullptr);
// rigid CCD (world_ccd.cpp): remember the body poses before a position update, then move each
// fast body back to just before its first impact during that update
void ccd_begin(StepContext& c);
void ccd_clamp(StepContext& c);
Configuration rigid_configuration(const RigidState& s);  // joints only: no particles (world_control.cpp)

inline constexpr std::size_t kMaxContacts = 500'000, kMaxPairContacts = 1024;
// solver abs_tol is at most kImpulseTolerance * impulse_scale (WorldModel)
inline constexpr double kImpulseTolerance = 1e-6;

}  // namespace coulomb
