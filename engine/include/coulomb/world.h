// The World: owns the model (shapes, bodies, materials, settings) and the state of a simulation
// (coulomb/state.h) and sequences one step as the stages of DESIGN.md. It holds no physics itself.
//
//   #include <coulomb/world.h>
//   coulomb::World world(coulomb::load_scene("scenes/wall.json"));
//   coulomb::State start = world.state();             // a copy of everything a step changes
//   while (world.step_count() < world.total_steps()) {
//     if (auto r = world.step(); !r.ok()) { std::cerr << r.message << "\n"; break; }
//   }
//   coulomb::BodyState b = world.body(world.find_body("brick_0"));  // std::out_of_range if missing
//   world.set_state(start);                           // rewind: the same steps again, bit for bit
#pragma once
#include <coulomb/contact.h>
#include <coulomb/contact_assembly.h>
#include <coulomb/contact_problem.h>
#include <coulomb/control.h>
#include <coulomb/detect.h>
#include <coulomb/health.h>
#include <coulomb/island_solve.h>
#include <coulomb/islands.h>
#include <coulomb/position_assembly.h>
#include <coulomb/position_problem.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/scene.h>
#include <coulomb/soft_contacts.h>
#include <coulomb/state.h>
#include <coulomb/world_model.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace coulomb {

struct StepContext;  // engine/src/step_context.h

// Per-step statistics (the fields of stats.jsonl, SCENE_FORMAT.md).
struct StepStats {
  int step = 0;                  // index of the completed step, from 1
  double time = 0.0;             // simulated time after the step (unit: s)
  int bodies = 0;
  int contacts = 0;
  int pairs = 0;                 // broadphase candidate pairs
  int islands = 0;               // contact islands (solvers/islands.h)
  int largest_island = 0;        // contacts of the largest island
  int largest_island_bodies = 0; // moving bodies of the island with the most contacts
  int sleeping = 0;              // rigid bodies asleep at the end of the step (scene `sleep`)
  SolverStats solver;            // iterations, residual, merit, converged, time
  double kinetic_energy = 0.0;   // (unit: J)
  double potential_energy = 0.0; // (unit: J)
  double elastic_energy = 0.0;   // soft bodies' strain energy (unit: J)
  int soft_contacts = 0;         // contacts with a soft side (also counted in `contacts`)
  double max_penetration = 0.0;  // largest contact depth at detection (unit: m)
  // largest joint violation at the end of the step: positional (unit: m) and angular (unit: rad),
  // limits included (dynamics/constraints.h joint_error)
  double joint_error_linear = 0.0, joint_error_angular = 0.0;
  double wall_ms = 0.0;          // whole step
  double detect_ms = 0.0, assemble_ms = 0.0, integrate_ms = 0.0;
  double stabilize_ms = 0.0;     // stage 6, post-stabilisation (0 without it)
  // the health check's findings (coulomb/health.h); a step with any is not converged
  std::vector<HealthFinding> health;
};

// Outcome of a step. A step never throws:
//  - InvalidState: the state became invalid (NaN/Inf, or faster than the speed limit); `body`
//    is the rigid body's id (-1 for a soft body) and the message names the step and the body.
//  - Error: a stage threw (std::bad_alloc, an exception from a library, ...); the exception is
//    caught at the step boundary and the message is "step N: " followed by its what().
// After either, the world stops stepping: every further step() returns the same result and
// changes nothing, until set_state() restores a state.
struct StepResult {
  enum class Status { Ok, InvalidState, Error } status = Status::Ok;
  int body = -1;
  std::string message;
  bool ok() const { return status == Status::Ok; }
};

// A body's state in the user's terms: the pose of its shape frame and the velocity of that
// frame's origin, as written in the scene.
struct BodyState {
  std::string name;
  Vec3 position, velocity, angular_velocity;
  Quat orientation;
  bool fixed = false;      // infinite mass (kinematic bodies too)
  bool kinematic = false;  // moved by the program (World::set_kinematic_velocity, move_kinematic)
  double mass = 0.0;
};

// Bodies that overlapped at load by more than collision.overlap_tolerance, and what the World
// did about it (collision.initial_overlap; "error", the default, refuses the scene instead).
// Bodies joined by a joint or an attach joint are not counted: they meet at the joint by design.
struct InitialOverlaps {
  struct Pair {
    std::string a, b;    // the two bodies' names (rigid or soft)
    double depth = 0.0;  // their deepest penetration at load (unit: m)
  };
  struct Shift {
    std::string body;            // a body "resolve" moved
    Vec3 shift = Vec3::Zero();   // the translation it got before step 1 (unit: m)
  };
  double tolerance = 0.0;    // the overlap that passed as resting contact (unit: m)
  std::vector<Pair> pairs;   // deeper than the tolerance at load, deepest first
  std::vector<Shift> shifts; // "resolve" only: in body order, rigid bodies then soft ones
};

// The material pair table (nm x nm; [a * nm + b]): the scene's contact_materials entry of the
// pair, else the scene's combine rules (friction_combine, restitution_combine) over the two
// materials.
std::vector<ContactCoefficients> material_pair_table(const SceneDef& scene);

struct WorldSettings {
  // a body whose centre of mass, or whose rim through its spin (|w| x bounding radius about the
  // centre of mass), moves faster than this invalidates the run (unit: m/s)
  double max_speed = 1e3;
  // worker threads of the world's task arena: detection, islands and prox-jacobi run in it;
  // 0 = all cores, at most kMaxThreads. Results are bit-identical for every thread count.
  int threads = 1;
  // the most the World accepts (more is an InputError "threads"; the CLI's --threads shares it):
  // TBB cannot tear down an arena of many thousands of threads safely
  static constexpr int kMaxThreads = 1024;
  // solve each contact island on its own (in parallel); false = one global problem
  bool islands = true;
  // the check of each step's result (coulomb/health.h): by default a failed check ends the run
  HealthLimits health;
  BroadphaseType broadphase = BroadphaseType::Grid;
  // number a large scene's rigid bodies in space (spatial_body_order); false = the scene's order
  bool spatial_numbering = true;
};

// The rigid bodies' numbering. Contacts are sorted by body ids (DESIGN.md), and the assembly,
// the solvers' sweeps and the impulse response visit them in that order, reading and writing
// both bodies of each. With ids that do not follow the bodies' places (a random generator, a
// list in no spatial order) consecutive contacts touch bodies far apart in memory, and each visit
// misses the cache once the bodies outgrow it. So a scene with at least kSpatialNumberingBodies
// moving bodies has its bodies numbered in space: the moving ones along the longest axis of their
// starting positions' bounding box (1024 slabs) and along a Morton curve across it within a slab
// (ties in the scene's order), then the fixed bodies, in the scene's order. Fixed bodies last
// put a body's contacts with the ground beside its contacts with its neighbours in the contact
// order (sorted by body pair, lower id first), and slabs along one axis keep every body's
// neighbours within about a slab of it: contacts that share a body lie within a band, which
// post-stabilisation's windowed sweeps need (solvers/src/banded_sweeps.h). A smaller scene keeps
// the scene's order: its bodies fit in the cache whatever their order. Returns new id -> index in
// scene.bodies (the identity for a small scene). build_world_model applies it to the World's copy
// of the scene (World::scene() lists the bodies in id order; joints and attachments are
// renumbered with them); names find bodies either way (World::find_body).
constexpr std::size_t kSpatialNumberingBodies = 1024;
std::vector<int> spatial_body_order(const SceneDef& scene);
std::vector<int> scene_order_of(const SceneDef& scene);  // the identity: the scene's own order

class World {
 public:
  // Builds the model from a validated scene. Throws InputError if a body's mass properties
  // cannot be computed (e.g. a plane on a moving body, a zero-volume shape without a mass), or if
  // bodies overlap at load by more than the scene's tolerance (collision.initial_overlap "error",
  // the default; initial_overlaps()).
  explicit World(SceneDef scene, WorldSettings settings = {});
  ~World();
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;

  // Runs one step (never throws; see StepResult).
  StepResult step();

  // Everything a step changes (coulomb/state.h), as a copy.
  State state() const;
  // Restores a State taken from this world (or from a world built from the same scene). After it,
  // stepping repeats bit for bit what followed state(). It also clears a failed step's result and
  // the last step's outputs (last_stats, contacts, impulses, problems, islands), which describe a
  // step that did not lead to the restored state. Throws InputError, changing nothing, if the
  // sizes (bodies, soft bodies, their vertices) or the contact cache's body ids do not fit, or
  // if it has joint impulses and this world has no joints.
  void set_state(const State& s);

  int step_count() const { return step_; }
  int total_steps() const { return scene_.steps; }
  double time() const { return time_; }
  double dt() const { return scene_.dt; }
  const SceneDef& scene() const { return scene_; }
  const StepStats& last_stats() const { return stats_; }

  int body_count() const { return model_.rigid.size(); }
  // Soft bodies (fem/soft_body.h): mesh, masses and the current vertex positions and velocities.
  // Ids are 0..soft_body_count()-1; any other id throws std::out_of_range naming it.
  int soft_body_count() const { return int(soft_.size()); }
  const SoftBody& soft_body(int i) const;
  int find_soft_body(const std::string& name) const;  // -1 if there is none
  // Contacts with a soft side of the last step (position-level solvers only).
  const std::vector<SoftContact>& soft_contacts() const { return buf_.soft_contacts; }
  // The position-level problem of the last step, with its impulses (xpbd-jacobi only).
  const PositionProblem& last_position_problem() const { return buf_.pproblem; }
  int find_body(const std::string& name) const;  // -1 if there is none
  // The ids in the scene's order: scene_order()[k] is the id of the k-th rigid body of the scene
  // (explicit bodies, then generated ones); scene_index(id) the inverse. The identity unless the
  // bodies were numbered in space (spatial_body_order). The run outputs list bodies in this order.
  const std::vector<int>& scene_order() const { return model_.scene_order; }
  int scene_index(int id) const;
  // Ids are 0..body_count()-1; any other id (e.g. find_body's -1) throws std::out_of_range naming it.
  BodyState body(int id) const;
  const RigidModel& model() const { return model_.rigid; }
  // The rigid part of the state (body frames at the centres of mass), without a copy.
  const RigidState& rigid_state() const { return state_; }
  // Contacts of the last step and their impulses (normal, t, s, torsion) (unit: N s).
  const std::vector<Contact>& contacts() const { return buf_.contacts; }
  const std::vector<Vec4>& contact_impulses() const { return buf_.solution.lambda; }
  // The contact problem the solver got in the last step (for studies that re-solve it).
  const ContactProblem& last_problem() const { return buf_.problem; }
  // Islands of the last step's contacts.
  const Islands& islands() const { return buf_.islands; }
  const WorldSettings& settings() const { return settings_; }
  // Rigid joints in the constraint interface's form (body frames at the centre of mass) and the
  // impulses of their rows in the last step (velocity-level solvers: N s, N m s).
  const std::vector<JointConstraint>& joints() const { return model_.joints; }
  const std::vector<double>& joint_impulses() const { return buf_.solution.joint_lambda; }

  // ---- Driving the world from a program (coulomb/control.h; engine/README.md "Control") ----
  // Every call below checks its arguments at the entry: an unknown id throws std::out_of_range
  // naming it; a non-finite value, or a load on a body that loads cannot move (fixed or
  // kinematic), throws std::invalid_argument naming the argument. Nothing is changed then.

  // External loads, for the coming steps (LoadDuration). A force at a world point becomes that
  // force at the centre of mass and its torque about it, computed now.
  void apply_force(int body, const Vec3& force, LoadDuration d = LoadDuration::Persistent);  // at the centre of mass
  void apply_force(int body, const Vec3& force, const Vec3& point, LoadDuration d = LoadDuration::Persistent);
  void apply_torque(int body, const Vec3& torque, LoadDuration d = LoadDuration::Persistent);
  void apply_impulse(int body, const Vec3& impulse, const Vec3& point);  // over the next step (N s)
  void apply_vertex_force(int soft, int vertex, const Vec3& force, LoadDuration d = LoadDuration::Persistent);
  void apply_vertex_impulse(int soft, int vertex, const Vec3& impulse);  // over the next step (N s)
  // Replaces a body's persistent load: force (N) and torque (N m) at its centre of mass.
  void set_wrench(int body, const Vec3& force, const Vec3& torque);
  void clear_loads();  // every persistent and next-step load, on every body and vertex
  const Control& control() const { return control_; }

  // Kinematic bodies (scene `"kinematic": true`): infinite mass, moved by their velocity, which
  // the program sets; they push what they touch and nothing pushes them. Velocities are those of
  // the shape frame's origin, as in BodyState. move_kinematic sets the velocities that bring the
  // shape frame to the pose at the end of the next step (exactly for the position, to second
  // order in the turn for the orientation); the body keeps moving with them until told otherwise.
  bool kinematic(int body) const;
  void set_kinematic_velocity(int body, const Vec3& velocity, const Vec3& angular_velocity);
  void move_kinematic(int body, const Vec3& position, const Quat& orientation);
  // Puts a kinematic body's shape frame at a pose now, keeping its velocities: with a velocity and
  // put back in place every step it is a conveyor belt (its contacts drag at that velocity).
  void set_kinematic_pose(int body, const Vec3& position, const Quat& orientation);

  // Actuators (scene `actuators` and joint drives; SceneDef::actuators). A command set here acts
  // from the next step on and replaces the actuator's schedule, if it had one. It is clamped into
  // the actuator's ctrl_range and, for a velocity command, to +-max_velocity (command() reads the
  // clamped value); it is in actuator units (ActuatorDef: the joint's coordinate times the gear).
  int actuator_count() const { return int(scene_.actuators.size()); }
  int find_actuator(const std::string& name) const;  // -1 if there is none
  const ActuatorDef& actuator(int id) const;
  void set_command(int actuator, double value);
  double command(int actuator) const;
  const std::vector<double>& commands() const { return control_.command; }
  // the effort each actuator applied in the last step: the generalised force on its joint's
  // coordinate (N m or N), or with a gear (ActuatorDef) the actuator's force, the joint getting
  // gear times it; an effort actuator's command clamped to max_effort
  const std::vector<double>& actuator_efforts() const { return actuator_effort_; }

  // Joint state after the last step (coulomb/control.h JointState), one entry per joint in
  // scene order (scene().joints).
  int joint_count() const { return int(model_.joints.size()); }
  int find_joint(const std::string& name) const;  // -1 if there is none
  const std::vector<JointState>& joint_states() const { return joint_states_; }
  const JointState& joint_state(int id) const;

  // The last step's contacts, rigid and soft, with their impulses (coulomb/control.h
  // ContactRecord), built on the first call after a step.
  const std::vector<ContactRecord>& contact_records() const;

  // Sleeping islands (scene `sleep`, solvers/sleep.h; velocity-level solvers only). A sleeping
  // body is neither integrated nor solved and its contacts with other resting bodies are left out
  // of contacts(). wake(id) wakes the body's whole island and returns how many bodies woke (0 if
  // it was awake); set_state() with a sleeping body moved or given a velocity wakes it too.
  bool sleeping(int id) const;
  int sleeping_count() const;
  int wake(int id);

  // Overlaps found at load deeper than collision.overlap_tolerance (collision.initial_overlap
  // "warn" or "resolve"; empty when none). "error" throws an InputError from the constructor
  // instead, naming the deepest pair, its depth and the body's pointer (world_overlap.cpp).
  const InitialOverlaps& initial_overlaps() const { return initial_overlaps_; }

 private:
  StepResult run_stages();
  // the two stage lists (world.cpp): velocity-level solvers, position-level solvers
  StepResult run_velocity_stages(StepContext& c);
  StepResult run_position_stages(StepContext& c);
  void advance_clock();  // the step is done: step_ and time_
  void in_arena(const std::function<void()>& f);  // runs f in the world's task arena (world.cpp)
  // sleeping islands (world_sleep.cpp)
  void check_sleep_state(const State& s) const;
  void restore_sleep(const State& s);
  StepResult check_state() const;
  // the constructor's check of overlaps at load (world_overlap.cpp): report, refuse or resolve
  void settle_initial_overlaps();
  // the health check (world_health.cpp): findings into stats_.health; a Stop result if any
  StepResult check_health();
  StepResult check_step();       // check_state, then check_health
  void reference_energy();       // before a step: the energy check's reference, if it has none
  void health_scales();          // gravity_scale_ and soft_radius_, once
  double total_energy() const;   // kinetic + gravitational + elastic (unit: J)
  bool external_work() const;    // loads, actuators, drives or moving kinematic bodies this step
  // Throws std::out_of_range unless 0 <= id < count, naming World::<accessor> and find_<accessor>
  // (world_state.cpp). `call` names the method in the message where it is not the accessor itself
  // (e.g. apply_force checks a body id: "World::apply_force: body id ..., find_body returns -1").
  static void check_id(const char* accessor, const char* what, int id, int count, const char* call = nullptr);

  SceneDef scene_;
  WorldSettings settings_;
  struct Threads;                    // the task arena (world.cpp), so that TBB stays out of this header
  std::unique_ptr<Threads> threads_;
  const SolverInfo* solver_ = nullptr;
  WorldModel model_;                 // built once (build_world_model); the joints' drives change
  InitialOverlaps initial_overlaps_;
  StepBuffers buf_;                  // what a step works on (world_model.h)

  // The State (world_state.cpp): state_, the soft bodies' x and v, cache_, sleep_, the joints'
  // angle references, control_, step_ and time_.
  RigidState state_;
  std::vector<SoftBody> soft_;
  ImpulseCache cache_;
  SleepState sleep_;                 // rest timers and sleeping islands
  int step_ = 0;
  double time_ = 0.0;
  StepStats stats_;

  // control (world_control.cpp)
  Control control_;                      // (State) the program's loads and commands
  std::vector<double> actuator_effort_;  // (na) last step
  std::vector<int> joint_drive_;         // (nj) the joint's position or velocity actuator, -1 if none
  std::vector<JointState> joint_states_; // (nj) after the last step
  mutable std::vector<ContactRecord> contact_records_;
  mutable bool records_valid_ = false;
  void init_control();       // the control arrays at construction
  void apply_commands();     // before the stages: scheduled commands, the step's loads
  void actuate_drives();     // the drive rows' targets and compliances at the current configuration
  void observe();            // after a step: observe_joints, next-step loads cleared, records stale
  // hinge references and joint states at the current state; with `reactions`, also the joints'
  // reactions and the drives' efforts from the last solve
  void observe_joints(bool reactions);
  void check_control(const Control& c) const;  // set_state: sizes and finite values
  Vec6& body_load(int body, LoadDuration d, const char* call);  // checked

  // the energy check's reference (HealthLimits): the energy it is compared with, the largest
  // kinetic + elastic energy since, and the scale gravity adds (sum of m |g| bounding radius)
  struct EnergyReference {
    bool set = false;
    double energy = 0.0, peak = 0.0;
  } energy_ref_;
  double gravity_scale_ = 0.0;
  std::vector<double> soft_radius_;  // (ns) rest bounding radius about the rest centroid (unit: m)
  bool health_scaled_ = false;
  StepResult failure_;  // the failed step's result, returned by every later step(); Ok if none

  // Tests only (tests/engine/world_state_test.cpp): called with the step's number inside the
  // step, in the task arena, so that a test can make a stage throw.
  friend struct WorldTestAccess;
  void (*stage_fault_)(int step) = nullptr;
};

}  // namespace coulomb
