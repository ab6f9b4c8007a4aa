// World: builds the model from a scene and runs the step as a short list of timed stages
// (DESIGN.md "One step, as data flows"; STYLE.md lesson 4). Every stage is a free function in
// its module; this file only sequences them (the warm-start cache: world_cache.cpp; the bodies'
// numbering: body_order.cpp).
#include <coulomb/detect.h>
#include <coulomb/error.h>
#include <coulomb/integrators.h>
#include <coulomb/island_solve.h>
#include <coulomb/element_constraint.h>
#include <coulomb/mass_properties.h>
#include <coulomb/memory.h>
#include <coulomb/world.h>

#include "scene_reader.h"
#include "world_mass.h"
#include <coulomb/assert.h>

#include <tbb/task_arena.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <limits>
#include <cmath>

namespace coulomb {

SolverStats solve_pgs(const ContactProblem&, const SolverOptions&, ContactSolution&);

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string number(double x) { return detail::show(x); }

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

std::vector<ContactCoefficients> material_pair_table(const SceneDef& scene) {
  const std::size_t nm = scene.materials.size();
  const CombineRule f = scene.friction_combine, e = scene.restitution_combine;
  std::vector<ContactCoefficients> table(nm * nm);
  for (std::size_t a = 0; a < nm; ++a)
    for (std::size_t b = 0; b < nm; ++b) {
      const MaterialDef &x = scene.materials[a], &y = scene.materials[b];
      ContactCoefficients& c = table[a * nm + b];
      c.mu = Vec3(combine(f, x.friction_s, y.friction_s), combine(f, x.friction_t, y.friction_t),
                  combine(f, x.torsional_friction, y.torsional_friction));
      c.restitution = combine(e, x.restitution, y.restitution);
    }
  for (const ContactMaterialDef& cm : scene.contact_materials) {
    const ContactCoefficients c{Vec3(cm.friction_s, cm.friction_t, cm.torsional_friction), cm.restitution};
    table[std::size_t(cm.a) * nm + std::size_t(cm.b)] = c;
    table[std::size_t(cm.b) * nm + std::size_t(cm.a)] = c;
  }
  return table;
}

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

  // sleeping islands live in the velocity-level stage list (world_sleep.cpp)
  if (scene_.sleep.enabled && solver_->kind != ProblemKind::Velocity)
    throw InputError("/sleep", "sleeping islands need a velocity-level solver (prox-gs, prox-jacobi, pgs); '" +
                                   scene_.solver + "' keeps every body awake: remove \"sleep\" or pick one of those");

  renumber_bodies(settings_.spatial_numbering ? spatial_body_order(scene_) : scene_order_of(scene_));
  const std::size_t nb = scene_.bodies.size();
  state_.resize(int(nb));
  for (std::size_t i = 0; i < nb; ++i) {
    const BodyDef& d = scene_.bodies[i];
    const std::string where = d.pointer.empty() ? "/bodies/" + std::to_string(i) : d.pointer;
    const Pose shape_world{d.position, d.orientation.normalized()};
    Pose body_in_shape;
    Vec3 moments = Vec3::Zero();
    double mass = 0.0;
    if (!d.fixed && !d.kinematic) {
      detail::body_mass(scene_, d, where, mass, moments, body_in_shape);
    }
    model_.add(d.name, d.shape, d.material, d.fixed || d.kinematic, mass, moments, body_in_shape.inverse());
    model_.kinematic[i] = d.kinematic ? 1 : 0;
    const Pose body_world = shape_world * body_in_shape;
    state_.x[i] = body_world.p;
    state_.q[i] = body_world.q;
    if (!d.fixed) {
      state_.w[i] = d.angular_velocity;
      state_.v[i] = d.velocity + d.angular_velocity.cross(body_world.p - shape_world.p);
    }
    detail::check_finite_start(scene_, d, where, body_world, state_.v[i], state_.w[i], mass, moments);
    if (d.kinematic && scene_.sleep.enabled)
      throw InputError(where, "body '" + d.name + "' is kinematic: sleeping islands (\"sleep\") do not watch kinematic "
                                "bodies, so one could move into a sleeping pile without waking it; turn sleep off");
  }

  // the smallest impulse that matters: the lightest body's weight over one step
  for (std::size_t i = 0; i < nb; ++i)
    if (!model_.fixed[i]) {
      const double w = model_.mass[i] * scene_.gravity.norm() * scene_.dt;
      if (w > 0.0 && (impulse_scale_ == 0.0 || w < impulse_scale_)) impulse_scale_ = w;
    }

  // radius of a sphere about each body's centre of mass that holds its shape
  // and about its shape frame's origin
  bound_radius_.resize(nb);
  shape_radius_.assign(nb, 0.0);
  for (std::size_t i = 0; i < nb; ++i) {
    if (model_.shape[i] < 0) {
      // no shape: its size, for the checks that scale with it (a joint's tear, the health
      // check), is its radius of gyration about its weakest axis or its shape frame's distance
      // from the centre of mass (an imported link's frame sits at its joint), the larger
      const double gyration = model_.fixed[i] ? 0.0 : std::sqrt(model_.inertia[i].maxCoeff() / model_.mass[i]);
      bound_radius_[i] = std::max(gyration, model_.shape_in_body[i].p.norm());
      continue;
    }
    const Aabb own = scene_.shapes.aabb(model_.shape[i], Pose(), 0.0);  // infinite for a plane
    shape_radius_[i] = own.lo.cwiseAbs().cwiseMax(own.hi.cwiseAbs()).norm();
    if (model_.fixed[i]) continue;
    const Aabb box = scene_.shapes.aabb(model_.shape[i], model_.shape_in_body[i], 0.0);
    bound_radius_[i] = box.lo.cwiseAbs().cwiseMax(box.hi.cwiseAbs()).norm();
  }

  pair_coeffs_ = material_pair_table(scene_);

  // soft bodies: Young's modulus and Poisson ratio mean the same small-strain stiffness for every
  // model (stable Neo-Hookean linearises to (mu, lambda - mu), so it gets lambda + mu)
  for (std::size_t i = 0; i < scene_.soft_bodies.size(); ++i) {
    SoftBodyDef& d = scene_.soft_bodies[i];
    const MaterialDef& mat = scene_.materials[std::size_t(d.material)];
    const std::string ptr = "/soft_bodies/" + std::to_string(i);
    const MaterialModel model = parse_material_model(mat.model).value_or(MaterialModel::Corotational);
    Lame lame = lame_from_young(mat.young, mat.poisson);
    if (model == MaterialModel::NeoHookean) lame = stable_neo_hookean_lame(lame);
    if (!constraint_form_supported(model, lame))
      throw InputError(ptr + "/material", "material '" + mat.name + "': young and poisson give no valid " + mat.model +
                                              " material");
    try {
      soft_.push_back(make_soft_body(d.name, d.material, model, lame, mat.damping, std::move(d.mesh), mat.density,
                                     d.velocity, d.pinned));
    } catch (const std::invalid_argument& e) {
      throw InputError(ptr + "/mesh", e.what());
    }
    double mass = 0.0;
    for (double m : soft_.back().mass) mass += m;
    if (!(mass >= detail::kMinMass && mass <= detail::kMaxMass))
      throw InputError(ptr, "soft body '" + d.name + "' has a mass of " + number(mass) + " kg, outside the range [" +
                                number(detail::kMinMass) + ", " + number(detail::kMaxMass) +
                                "] kg that a double-precision contact solve can simulate");
    d.mesh = TetMesh{};  // the World's copy is the soft body's
  }
  // bodies joined by a joint do not collide unless it says so (drop_jointed_contacts)
  // and the pairs of collision.exclude
  for (const JointDef& d : scene_.joints)
    if (d.b >= 0 && !d.collide) jointed_pairs_.emplace_back(std::min(d.a, d.b), std::max(d.a, d.b));
  std::sort(scene_.excluded_pairs.begin(), scene_.excluded_pairs.end());
  jointed_pairs_.insert(jointed_pairs_.end(), scene_.excluded_pairs.begin(), scene_.excluded_pairs.end());
  std::sort(jointed_pairs_.begin(), jointed_pairs_.end());
  jointed_pairs_.erase(std::unique(jointed_pairs_.begin(), jointed_pairs_.end()), jointed_pairs_.end());
  // the collision filter (contype, conaffinity), handed to detection only when some body needs it
  for (const BodyDef& d : scene_.bodies) {
    contype_.push_back(d.contype);
    conaffinity_.push_back(d.conaffinity);
    filtered_ = filtered_ || d.shape < 0 || d.contype != 1 || d.conaffinity != 1;
  }
  if (scene_.sleep.enabled) sleep_.resize(int(nb));
  still_ = model_.fixed;
  // overlaps at load: refused, reported or pushed apart before the joints and attachments take
  // the load-time poses (world_overlap.cpp)
  settle_initial_overlaps();

  // rigid joints: anchor and axis from the world at load time into each body's frame (centre of
  // mass, principal axes), so that the joint holds at the load-time pose
  for (const JointDef& d : scene_.joints) {
    JointConstraint j;
    j.type = d.type;
    j.a = d.a;
    j.b = d.b;
    const auto frame = [&](int body) { return body >= 0 ? state_.body_pose(body) : Pose{}; };
    const Pose pa = frame(d.a), pb = frame(d.b);
    j.anchor_a = pa.apply_inverse(d.anchor);
    j.anchor_b = pb.apply_inverse(d.anchor);
    j.axis_a = pa.q.conjugate() * d.axis;
    j.u1_a = j.axis_a.unitOrthogonal();
    j.u2_a = j.axis_a.cross(j.u1_a);
    j.axis_b = pb.q.conjugate() * d.axis;
    j.u1_b = pb.q.conjugate() * (pa.q * j.u1_a);
    j.rel = pa.q.conjugate() * pb.q;
    j.reference = d.position;
    j.angle_ref = d.position;
    j.damping = d.damping;
    j.armature = d.armature;
    j.friction = d.friction;
    j.limited = d.limited;
    j.lo = d.lo;
    j.hi = d.hi;
    j.compliance = d.compliance;
    j.angular_compliance = d.angular_compliance >= 0.0 ? d.angular_compliance : d.compliance;
    joints_.push_back(j);  // drives: init_control, from the actuators
  }
  for (const AttachDef& a : scene_.attachments)
    for (int v : a.vertices) {
      VertexAttachment va{a.soft, v, a.body, soft_[std::size_t(a.soft)].x[std::size_t(v)]};
      if (a.body >= 0) va.anchor = state_.body_pose(a.body).apply_inverse(va.anchor);
      attachments_.push_back(va);
    }
  init_control();
}

int World::find_soft_body(const std::string& name) const {
  for (int i = 0; i < soft_body_count(); ++i)
    if (soft_[std::size_t(i)].name == name) return i;
  return -1;
}

int World::find_body(const std::string& name) const {
  for (int i = 0; i < model_.size(); ++i)
    if (model_.name[std::size_t(i)] == name) return i;
  return -1;
}

BodyState World::body(int id) const {
  check_id("body", "body", id, model_.size());
  const auto k = std::size_t(id);
  const Pose sp = shape_pose(model_, state_, id);
  BodyState b;
  b.name = model_.name[k];
  b.position = sp.p;
  b.orientation = sp.q;
  b.angular_velocity = state_.w[k];
  b.velocity = state_.v[k] + state_.w[k].cross(sp.p - state_.x[k]);
  b.fixed = model_.fixed[k] != 0;
  b.kinematic = model_.kinematic[k] != 0;
  b.mass = model_.mass[k];
  return b;
}

int World::detect(std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs_out, std::vector<double>* reach) {
  const int pairs = detect_contacts(detect_input(), out, pairs_out, reach).pairs;
  drop_jointed_contacts(out);
  return pairs;
}

// Bodies joined by a joint do not collide with each other unless the joint says so (Box2D's
// collideConnected, Bullet's disableCollisionsBetweenLinkedBodies): their shapes meet at the
// joint by design, and contacts there would fight the joint.
void World::drop_jointed_contacts(std::vector<Contact>& contacts) const {
  if (jointed_pairs_.empty()) return;
  std::erase_if(contacts, [&](const Contact& c) {
    const std::pair<int, int> key(std::min(c.body_a, c.body_b), std::max(c.body_a, c.body_b));
    return std::binary_search(jointed_pairs_.begin(), jointed_pairs_.end(), key);
  });
}

// The shapes at the current state's poses (written into `poses`), without reach.
DetectInput World::posed_input(std::vector<Pose>& poses) {
  const int nb = model_.size();
  poses.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) poses[std::size_t(i)] = shape_pose(model_, state_, i);
  DetectInput in;
  in.shapes = &scene_.shapes;
  in.body_shape = &model_.shape;
  in.shape_pose = &poses;
  in.is_static = still() ? &still_ : &model_.fixed;  // pairs of two resting bodies are skipped
  in.excluded_pairs = &jointed_pairs_;
  if (filtered_) {
    in.contype = &contype_;
    in.conaffinity = &conaffinity_;
  }
  in.envelope = scene_.envelope;
  return in;
}

DetectInput World::detect_input() {
  const int nb = model_.size();
  DetectInput in = posed_input(poses_);
  in.margin = scene_.margin;
  // reach over one step: |v| dt + |w| r dt + |g| dt^2 (a bound on any surface point's travel)
  // (the broadphase bound); a pair's speculative envelope is what the two can close: their
  // relative travel, both turns and |g| dt^2 (DetectInput::travel)
  reach_.resize(std::size_t(nb));
  travel_.resize(std::size_t(nb));
  turn_.resize(std::size_t(nb));
  const double dt = scene_.dt;
  const double accel = scene_.gravity.norm() * dt * dt;
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    const bool moves = !model_.fixed[k] || model_.kinematic[k];
    travel_[k] = moves ? Vec3(dt * state_.v[k]) : Vec3::Zero();
    turn_[k] = moves ? dt * state_.w[k].norm() * bound_radius_[k] : 0.0;
    reach_[k] = moves ? travel_[k].norm() + turn_[k] + accel : 0.0;
  }
  // bodies a contact pushed in the previous step (the contact cache, part of the state) are
  // likely stopped again: touched from the start (DetectInput::touched_hint)
  touched_hint_.assign(std::size_t(nb), 0);
  for (const CachedContactImpulse& c : cache_)
    if (c.impulse != Vec3::Zero())
      for (const int i : {c.a, c.b})
        if (i >= 0 && i < nb && !model_.fixed[std::size_t(i)]) touched_hint_[std::size_t(i)] = 1;
  in.reach = &reach_;
  in.travel = &travel_;
  in.turn = &turn_;
  in.touched_hint = &touched_hint_;
  in.accel_reach = accel;
  in.broadphase = settings_.broadphase;
  return in;
}

void World::detect_coefficients() {
  const std::size_t nm = scene_.materials.size();
  coeffs_.resize(contacts_.size());
  // and the step's deepest contact (StepStats::max_penetration) in the same pass: a pass of its own
  // in record_stats read 6.7 MB of contacts from memory at 16,000 boxes (0.4 ms a step)
  double deepest = stats_.max_penetration;
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    coeffs_[k] = pair_coeffs_[std::size_t(model_.material[std::size_t(c.body_a)]) * nm + std::size_t(model_.material[std::size_t(c.body_b)])];
    deepest = std::max(deepest, c.depth);
  }
  stats_.max_penetration = deepest;
}

// The joints' rows at the detection configuration, linearised in the velocities
// (dynamics/joint_rows.h), into the contact problem, and their warm start.
void World::assemble_joints() {
  problem_.joints.clear();
  if (joints_.empty()) {
    solution_.joint_lambda.clear();
    return;
  }
  actuate_drives();  // at the detection configuration, where the rows are evaluated
  const Configuration c = rigid_configuration(state_);
  BlockRows rows;
  for (const JointConstraint& j : joints_) {
    joint_rows(c, j, rows);
    const int coordinate = j.coordinate_rows();
    problem_.joints.add_joint(j.a, j.b, rows, u_free_, scene_.dt, coordinate > 0 ? rows.rows - coordinate : -1);
  }
  problem_.joints.finalize(problem_.inv_mass, problem_.inv_inertia);
  // every joint keeps its rows from step to step, so last step's impulses match row by row
  if (scene_.solver_options.warm_start && joint_cache_.size() == std::size_t(problem_.joints.rows()))
    solution_.joint_lambda = joint_cache_;
  else
    solution_.joint_lambda.assign(std::size_t(problem_.joints.rows()), 0.0);
}

// Post-stabilisation, seed 000 eq. 43-51: the gaps at q^{t+1}, solve the gap LCP (eq. 49-50)
// with PGS (frictionless, so its box is the normal cone) and displace the bodies (eq. 51).
// Velocities are untouched. The step's contacts and impulses stay those of the velocity solve.
// The gaps are those of the step's contacts carried to q^{t+1} (refresh_contacts), not of a
// second detection (on the funnel that detection took 370 of 782 ms per step, issue 12). The
// step's speculative contacts cover what each pair could close with its velocities at the
// detection; a pair that came together only because the solve changed a velocity (a body
// deflected sideways) has no contact among them, so the step's candidate pairs without contacts
// are run through the narrowphase at q^{t+1} (detect_uncovered_pairs): only those with a body
// whose velocity the solve changed (a free-flying pair moved as detection predicted), and only
// where their boxes overlap. CCD moves bodies too, so with it every such pair is run.
void World::stabilize() {
  const DetectInput in = posed_input(end_poses_);
  refresh_contacts(contacts_, poses_, end_poses_, gap_contacts_);
  std::vector<std::uint8_t> deflected;
  if (!scene_.ccd) {
    deflected.assign(std::size_t(model_.size()), 0);
    for (std::size_t i = 0; i < deflected.size(); ++i)
      deflected[i] = !model_.fixed[i] && (state_.v[i] != u_free_[i].head<3>() || state_.w[i] != u_free_[i].tail<3>());
  }
  // each shape's move since the detection: its origin's shift, and its points' travel by the
  // turn, at most the chord 2 sin(angle / 2) r = 2 |vec(dq)| r
  const std::size_t nb = std::size_t(model_.size());
  shift_.resize(nb);
  turned_.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    shift_[i] = end_poses_[i].p - poses_[i].p;
    const double chord = 2.0 * (end_poses_[i].q * poses_[i].q.conjugate()).vec().norm();
    turned_[i] = chord > 0.0 ? chord * shape_radius_[i] : 0.0;  // a plane may not turn (inf), may stay (0)
  }
  const CoveredMotion motion{&step_reach_, &shift_, &turned_};
  std::vector<Contact> added;
  detect_uncovered_pairs(in, step_pairs_, contacts_, added, scene_.ccd ? nullptr : &deflected, &motion);
  drop_jointed_contacts(added);
  if (!added.empty()) {
    gap_contacts_.insert(gap_contacts_.end(), added.begin(), added.end());
    std::sort(gap_contacts_.begin(), gap_contacts_.end(), contact_less);
  }
  // packed normal rows (contact_problem.h NormalProblem): the frictionless problem without the
  // tangent rows and 4x4 blocks a ContactProblem would write and read back (issue 12)
  assemble_gap_problem(model_, state_, gap_contacts_, still(), gap_problem_);
  SolverOptions opt;  // plain PGS: the scene's solver options belong to the velocity problem
  opt.max_iterations = scene_.solver_options.max_iterations;
  opt.abs_tol = scene_.solver_options.abs_tol;
  opt.rel_tol = scene_.solver_options.rel_tol;
  opt.warm_start = false;
  // the islands of the velocity problem where the gap problem has the same contacts, body for body,
  // and no joint rows joined them (no pair added: a pile at rest): the same islands
  const Islands* islands = nullptr;
  if (settings_.islands) {
    const bool same = problem_.joints.count() == 0 && gap_problem_.body_a == problem_.body_a &&
                      gap_problem_.body_b == problem_.body_b;
    if (!same)
      build_islands(model_.size(), still() ? still_ : model_.fixed, gap_problem_.body_a, gap_problem_.body_b, gap_islands_);
    islands = same ? &islands_ : &gap_islands_;
  }
  // the displacements M^-1 J_n^T lambda as the sweeps kept them (no pass over the rows again)
  solve_normal_pgs(gap_problem_, islands, opt, gap_lambda_, &dw_);
  apply_displacements(model_, dw_, state_, still());
}

// Stage 4 over islands (solvers/island_solve.h) or, with islands off, over the whole problem.
SolverStats World::solve(SolveFn fn, const ContactProblem& problem, const SolverOptions& opt, Islands& islands,
                         IslandScratch& scratch, ContactSolution& solution) {
  build_islands(model_.size(), still() ? still_ : model_.fixed, problem.body_a, problem.body_b, islands, &problem.joints.body_a,
                &problem.joints.body_b);
  solution.response.clear();  // set again by a solver that keeps it (ContactSolution::response)
  return settings_.islands ? solve_islands(fn, problem, islands, opt, solution, &scratch) : fn(problem, opt, solution);
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
  apply_commands();  // the actuators' commands and the step's applied loads (world_control.cpp)
  switch (solver_->kind) {  // the stage list of the solver's problem kind (solvers/solver.h)
    case ProblemKind::Position: return run_position_stages();  // world_position.cpp (seed 002)
    case ProblemKind::Velocity: break;                          // the stages below
  }
  const auto t_step = Clock::now();
  const double dt = scene_.dt;
  const bool moreau = scene_.integrator == IntegratorType::Moreau;
  stats_ = StepStats{};

  // 1 predict: Moreau's explicit half step (seed 000 eq. 41)
  auto t0 = Clock::now();
  if (moreau && step_ == 0) admit_initial_velocities();
  ccd_begin();
  if (moreau) integrate_positions(model_, state_, 0.5 * dt, still());
  ccd_clamp();
  stats_.integrate_ms += ms_since(t0);

  // 2 detect
  t0 = Clock::now();
  stats_.pairs = detect_settled(contacts_, &step_pairs_, &step_reach_);  // and wake the sleeping islands they reach
  if (StepResult capped = check_contact_caps(); !capped.ok()) return capped;
  detect_coefficients();
  stats_.detect_ms = ms_since(t0);

  // 3 assemble at the detection configuration (eq. 42a: M, J, h at q^{t+1/2} for Moreau)
  t0 = Clock::now();
  free_velocities(model_, state_, scene_.gravity, dt, scene_.integrator == IntegratorType::ImplicitEuler, u_free_,
                 still(), &load_);
  AssemblySettings as;
  as.dt = dt;
  // A speculative contact may close its gap over one dt: for Moreau that is the rest of this
  // step (dt/2) plus the next step's explicit half step (dt/2), which moves with u^{t+1} before
  // any contact can act (seed 000 eq. 41); a horizon of dt/2 would let that half step overlap.
  as.gap_horizon = dt;
  as.baumgarte_beta = scene_.stabilization == StabilizationType::Baumgarte ? scene_.baumgarte_beta : 0.0;
  as.restitution_threshold = std::max(2.0 * scene_.gravity.norm() * dt, 1e-3);
  assemble_contacts(model_, state_, u_free_, contacts_, coeffs_, as, problem_);
  warm_start();
  assemble_joints();
  stats_.assemble_ms = ms_since(t0);

  // 4 solve, with the absolute tolerance scaled to the problem (abs_tol is in N s: 1e-6 stopped
  // the first sweep of a 1 mm cube whose weight over a step is 1e-7 N s, "converged" while it sank)
  SolverOptions options = scene_.solver_options;
  if (solver_->impulse_tolerance && impulse_scale_ > 0.0) options.abs_tol = std::min(options.abs_tol, kImpulseTolerance * impulse_scale_);
  stats_.solver = solve(solver_->solve, problem_, options, islands_, island_scratch_, solution_);
  remember_impulses();
  joint_cache_ = solution_.joint_lambda;

  // 5 integrate: u^{t+1} = u_free + M^-1 J^T lambda (eq. 42b), with the solver's own M^-1 J^T
  // lambda where it kept one (ContactSolution::response), then the position update
  t0 = Clock::now();
  const bool kept_response = solution_.response.size() == std::size_t(model_.size());
  if (!kept_response) problem_.body_impulse_response(solution_.lambda, solution_.joint_lambda, dw_);
  apply_velocities(model_, u_free_, kept_response ? solution_.response : dw_, state_, still());
  ccd_begin();
  integrate_positions(model_, state_, moreau ? 0.5 * dt : dt, still());  // eq. 42c or eq. 67
  ccd_clamp();
  stats_.integrate_ms += ms_since(t0);

  // 6 stabilise: project the new positions out of penetration (seed 000 section 4.4)
  if (scene_.stabilization == StabilizationType::Post) {
    t0 = Clock::now();
    stabilize();
    stats_.stabilize_ms = ms_since(t0);
  }
  fall_asleep();  // islands at rest for the scene's sleep time (world_sleep.cpp)

  // 7 record
  record_stats();
  observe();  // joint states, actuator efforts (world_control.cpp)
  advise_huge_pages();
  stats_.wall_ms = ms_since(t_step);
  return check_step();
}

// The arrays the next step streams again, where they are large (base/memory.h: 2 MiB pages,
// asked for once a step; a few microseconds each once in place, nothing below 4 MiB)
void World::advise_huge_pages() const {
  using coulomb::advise_huge_pages;
  advise_huge_pages(contacts_);
  advise_huge_pages(gap_contacts_);
  advise_huge_pages(cache_);
  advise_huge_pages(coeffs_);
  advise_huge_pages(problem_.rows);
  advise_huge_pages(problem_.b);
  advise_huge_pages(problem_.mu);
  advise_huge_pages(problem_.point);
  advise_huge_pages(problem_.A_diag);
  advise_huge_pages(problem_.angular);
  advise_huge_pages(solution_.lambda);
  advise_huge_pages(gap_problem_.rows);
  advise_huge_pages(step_pairs_);
}

void World::record_stats() {
  ++step_;
  time_ = step_ * scene_.dt;
  stats_.step = step_;
  stats_.time = time_;
  stats_.bodies = model_.size() + soft_body_count();
  stats_.contacts = int(contacts_.size() + soft_contacts_.size());
  stats_.soft_contacts = int(soft_contacts_.size());
  stats_.islands = islands_.count();
  stats_.sleeping = sleep_.sleeping_count();
  for (int i = 0; i < islands_.count(); ++i)
    if (islands_.contact_count(i) > stats_.largest_island) {
      stats_.largest_island = islands_.contact_count(i);
      stats_.largest_island_bodies = 0;
      for (int e = islands_.body_start[std::size_t(i)]; e < islands_.body_start[std::size_t(i) + 1]; ++e)
        stats_.largest_island_bodies += model_.fixed[std::size_t(islands_.bodies[std::size_t(e)])] ? 0 : 1;
    }
  // the rigid contacts' deepest came with detect_coefficients
  for (const SoftContact& c : soft_contacts_) stats_.max_penetration = std::max(stats_.max_penetration, c.depth);
  if (!joints_.empty()) {
    const Configuration c = rigid_configuration(state_);
    for (const JointConstraint& j : joints_) {
      const JointError e = joint_error(c, j);
      stats_.joint_error_linear = std::max(stats_.joint_error_linear, e.linear);
      stats_.joint_error_angular = std::max(stats_.joint_error_angular, e.angular);
    }
  }
  stats_.kinetic_energy = kinetic_energy(model_, state_);
  stats_.potential_energy = potential_energy(model_, state_, scene_.gravity);
  for (const SoftBody& b : soft_) {
    stats_.kinetic_energy += soft_kinetic_energy(b);
    stats_.potential_energy += soft_potential_energy(b, scene_.gravity);
    stats_.elastic_energy += soft_elastic_energy(b);
  }
}

}  // namespace coulomb
