// The velocity-level stages (step_context.h), seed 000: predict, detect, assemble, solve,
// integrate, stabilise and record, each a free function over the step's context with its own
// timer. The physics is in the modules (collision/, dynamics/, solvers/); a stage gathers its
// inputs from the context and calls them.
#include "step_context.h"

#include <coulomb/detect.h>
#include <coulomb/integrators.h>
#include <coulomb/island_solve.h>
#include <coulomb/memory.h>
#include <coulomb/timer.h>

#include <algorithm>
#include <cmath>

namespace coulomb {

void predict(StepContext& c) {
  ScopedTimer timer(c.stats.integrate_ms);
  if (!c.moreau) return;
  if (c.step == 1) admit_initial_velocities(c);
  ccd_begin(c);
  integrate_positions(c.model.rigid, c.state, 0.5 * c.dt, c.still());
  ccd_clamp(c);
}

StepResult detect(StepContext& c) {
  ScopedTimer timer(c.stats.detect_ms);
  c.stats.pairs = detect_settled(c, c.buf.contacts, &c.buf.pairs, &c.buf.pair_reach);
  if (StepResult capped = check_contact_caps(c); !capped.ok()) return capped;
  detect_coefficients(c);
  return {};
}

DetectInput posed_input(const SceneDef& scene, const WorldModel& m, const RigidState& state,
                        const std::vector<std::uint8_t>& at_rest, std::vector<Pose>& poses) {
  const int nb = m.rigid.size();
  poses.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) poses[std::size_t(i)] = shape_pose(m.rigid, state, i);
  DetectInput in;
  in.shapes = &scene.shapes;
  in.body_shape = &m.rigid.shape;
  in.shape_pose = &poses;
  in.is_static = &at_rest;  // pairs of two resting bodies are skipped
  in.excluded_pairs = &m.jointed_pairs;
  if (m.filtered) {
    in.contype = &m.contype;
    in.conaffinity = &m.conaffinity;
  }
  in.envelope = scene.envelope;
  return in;
}

DetectInput detect_input(StepContext& c) {
  const RigidModel& model = c.model.rigid;
  StepBuffers& b = c.buf;
  const int nb = model.size();
  DetectInput in = posed_input(c.scene, c.model, c.state, c.at_rest(), b.poses);
  in.margin = c.scene.margin;
  // reach over one step: |v| dt + |w| r dt + |g| dt^2 (a bound on any surface point's travel,
  // the broadphase's); a pair's speculative envelope is what the two can close: their relative
  // travel, both turns and |g| dt^2 (DetectInput::travel)
  b.reach.resize(std::size_t(nb));
  b.travel.resize(std::size_t(nb));
  b.turn.resize(std::size_t(nb));
  const double dt = c.dt;
  const double accel = c.scene.gravity.norm() * dt * dt;
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    const bool moves = !model.fixed[k] || model.kinematic[k];
    b.travel[k] = moves ? Vec3(dt * c.state.v[k]) : Vec3::Zero();
    b.turn[k] = moves ? dt * c.state.w[k].norm() * c.model.bound_radius[k] : 0.0;
    b.reach[k] = moves ? b.travel[k].norm() + b.turn[k] + accel : 0.0;
  }
  // bodies a contact pushed in the previous step (the contact cache, part of the state) are
  // likely stopped again: touched from the start (DetectInput::touched_hint)
  b.touched_hint.assign(std::size_t(nb), 0);
  for (const CachedContactImpulse& k : c.cache.contacts)
    if (k.impulse != Vec3::Zero())
      for (const int i : {k.a, k.b})
        if (i >= 0 && i < nb && !model.fixed[std::size_t(i)]) b.touched_hint[std::size_t(i)] = 1;
  in.reach = &b.reach;
  in.travel = &b.travel;
  in.turn = &b.turn;
  in.touched_hint = &b.touched_hint;
  in.accel_reach = accel;
  in.broadphase = c.settings.broadphase;
  return in;
}

// Bodies joined by a joint do not collide with each other unless the joint says so (Box2D's
// collideConnected, Bullet's disableCollisionsBetweenLinkedBodies): their shapes meet at the
// joint by design, and contacts there would fight the joint.
void drop_jointed_contacts(const WorldModel& m, std::vector<Contact>& contacts) {
  if (m.jointed_pairs.empty()) return;
  std::erase_if(contacts, [&](const Contact& k) {
    const std::pair<int, int> key(std::min(k.body_a, k.body_b), std::max(k.body_a, k.body_b));
    return std::binary_search(m.jointed_pairs.begin(), m.jointed_pairs.end(), key);
  });
}

// The material pair's coefficients of each contact, and the step's deepest contact
// (StepStats::max_penetration) in the same pass over the contacts.
void detect_coefficients(StepContext& c) {
  const std::size_t nm = c.scene.materials.size();
  const std::vector<Contact>& contacts = c.buf.contacts;
  std::vector<ContactCoefficients>& coeffs = c.buf.coeffs;
  coeffs.resize(contacts.size());
  double deepest = c.stats.max_penetration;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& x = contacts[k];
    coeffs[k] = c.model.pair_coeffs[std::size_t(c.model.rigid.material[std::size_t(x.body_a)]) * nm +
                                    std::size_t(c.model.rigid.material[std::size_t(x.body_b)])];
    deepest = std::max(deepest, x.depth);
  }
  c.stats.max_penetration = deepest;
  advise_huge_pages(coeffs);  // streamed again by the solve's sweeps (base/memory.h)
}

namespace {

// The joints' rows at the detection configuration, linearised in the velocities
// (dynamics/joint_rows.h), into the contact problem, and their warm start.
void assemble_joints(StepContext& c) {
  ContactProblem& problem = c.buf.problem;
  ContactSolution& solution = c.buf.solution;
  problem.joints.clear();
  if (c.model.joints.empty()) {
    solution.joint_lambda.clear();
    return;
  }
  const Configuration q = rigid_configuration(c.state);
  BlockRows rows;
  for (const JointConstraint& j : c.model.joints) {
    joint_rows(q, j, rows);
    const int coordinate = j.coordinate_rows();
    problem.joints.add_joint(j.a, j.b, rows, c.buf.u_free, c.dt, coordinate > 0 ? rows.rows - coordinate : -1);
  }
  problem.joints.finalize(problem.inv_mass, problem.inv_inertia);
  // every joint keeps its rows from step to step, so last step's impulses match row by row
  if (c.scene.solver_options.warm_start && c.cache.joints.size() == std::size_t(problem.joints.rows()))
    solution.joint_lambda = c.cache.joints;
  else
    solution.joint_lambda.assign(std::size_t(problem.joints.rows()), 0.0);
}

}  // namespace

void assemble(StepContext& c) {
  ScopedTimer timer(c.stats.assemble_ms);
  const double dt = c.dt;
  free_velocities(c.model.rigid, c.state, c.scene.gravity, dt, c.scene.integrator == IntegratorType::ImplicitEuler,
                  c.buf.u_free, c.still(), &c.buf.load);
  AssemblySettings as;
  as.dt = dt;
  // A speculative contact may close its gap over one dt: for Moreau that is the rest of this
  // step (dt/2) plus the next step's explicit half step (dt/2), which moves with u^{t+1} before
  // any contact can act (seed 000 eq. 41); a horizon of dt/2 would let that half step overlap.
  as.gap_horizon = dt;
  as.baumgarte_beta = c.scene.stabilization == StabilizationType::Baumgarte ? c.scene.baumgarte_beta : 0.0;
  as.restitution_threshold = std::max(2.0 * c.scene.gravity.norm() * dt, 1e-3);
  assemble_contacts(c.model.rigid, c.state, c.buf.u_free, c.buf.contacts, c.buf.coeffs, as, c.buf.problem);
  warm_start(c);
  assemble_joints(c);
}

// Over islands (solvers/island_solve.h) or, with islands off, over the whole problem.
SolverStats solve_islands_or_whole(StepContext& c, SolveFn fn, const ContactProblem& problem, const SolverOptions& opt,
                                   Islands& islands, ContactSolution& solution) {
  build_islands(c.model.rigid.size(), c.at_rest(), problem.body_a, problem.body_b, islands, &problem.joints.body_a,
                &problem.joints.body_b);
  solution.response.clear();  // set again by a solver that keeps it (ContactSolution::response)
  return c.settings.islands ? solve_islands(fn, problem, islands, opt, solution, &c.buf.island_scratch)
                            : fn(problem, opt, solution);
}

void solve(StepContext& c) {
  c.stats.solver = solve_islands_or_whole(c, c.solver.solve, c.buf.problem, c.options, c.buf.islands, c.buf.solution);
  remember_impulses(c);
  c.cache.joints = c.buf.solution.joint_lambda;
}

// With the solver's own M^-1 J^T lambda where it kept one (ContactSolution::response), then the
// position update: eq. 42c (Moreau's second half step) or eq. 67.
void integrate(StepContext& c) {
  ScopedTimer timer(c.stats.integrate_ms);
  StepBuffers& b = c.buf;
  const bool kept_response = b.solution.response.size() == std::size_t(c.model.rigid.size());
  if (!kept_response) b.problem.body_impulse_response(b.solution.lambda, b.solution.joint_lambda, b.dw);
  apply_velocities(c.model.rigid, b.u_free, kept_response ? b.solution.response : b.dw, c.state, c.still());
  ccd_begin(c);
  integrate_positions(c.model.rigid, c.state, c.moreau ? 0.5 * c.dt : c.dt, c.still());
  ccd_clamp(c);
}

// Post-stabilisation, seed 000 eq. 43-51: the gaps at q^{t+1}, solve the gap LCP (eq. 49-50)
// with PGS (frictionless, so its box is the normal cone) and displace the bodies (eq. 51).
// Velocities are untouched; the step's contacts and impulses stay those of the velocity solve.
// The gaps are those of the step's contacts carried to q^{t+1} (refresh_contacts): a second
// detection would cost as much as the first. The step's speculative contacts cover what each
// pair could close with its velocities at the detection; a pair that came together only because
// the solve changed a velocity (a body deflected sideways) has no contact among them, so the
// step's candidate pairs without contacts are run through the narrowphase at q^{t+1}
// (detect_uncovered_pairs): only those with a body whose velocity the solve changed, and only
// where their boxes overlap. CCD moves bodies too, so with it every such pair is run.
void stabilize(StepContext& c) {
  if (c.scene.stabilization != StabilizationType::Post) return;
  ScopedTimer timer(c.stats.stabilize_ms);
  const RigidModel& model = c.model.rigid;
  StepBuffers& b = c.buf;
  const DetectInput in = posed_input(c.scene, c.model, c.state, c.at_rest(), b.end_poses);
  refresh_contacts(b.contacts, b.poses, b.end_poses, b.gap_contacts);
  std::vector<std::uint8_t> deflected;
  if (!c.scene.ccd) {
    deflected.assign(std::size_t(model.size()), 0);
    for (std::size_t i = 0; i < deflected.size(); ++i)
      deflected[i] = !model.fixed[i] && (c.state.v[i] != b.u_free[i].head<3>() || c.state.w[i] != b.u_free[i].tail<3>());
  }
  // each shape's move since the detection: its origin's shift, and its points' travel by the
  // turn, at most the chord 2 sin(angle / 2) r = 2 |vec(dq)| r
  const std::size_t nb = std::size_t(model.size());
  b.shift.resize(nb);
  b.turned.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    b.shift[i] = b.end_poses[i].p - b.poses[i].p;
    const double chord = 2.0 * (b.end_poses[i].q * b.poses[i].q.conjugate()).vec().norm();
    b.turned[i] = chord > 0.0 ? chord * c.model.shape_radius[i] : 0.0;  // a plane may not turn (inf), may stay (0)
  }
  const CoveredMotion motion{&b.pair_reach, &b.shift, &b.turned};
  std::vector<Contact> added;
  detect_uncovered_pairs(in, b.pairs, b.contacts, added, c.scene.ccd ? nullptr : &deflected, &motion);
  drop_jointed_contacts(c.model, added);
  if (!added.empty()) {
    b.gap_contacts.insert(b.gap_contacts.end(), added.begin(), added.end());
    std::sort(b.gap_contacts.begin(), b.gap_contacts.end(), contact_less);
  }
  advise_huge_pages(b.gap_contacts);  // read again by the gap assembly (base/memory.h)
  // packed normal rows (contact_problem.h NormalProblem): the frictionless problem without the
  // tangent rows and 4x4 blocks a ContactProblem would write and read back
  assemble_gap_problem(model, c.state, b.gap_contacts, c.still(), b.gap_problem);
  SolverOptions opt;  // plain PGS: the scene's solver options belong to the velocity problem
  opt.max_iterations = c.scene.solver_options.max_iterations;
  opt.abs_tol = c.scene.solver_options.abs_tol;
  opt.rel_tol = c.scene.solver_options.rel_tol;
  opt.warm_start = false;
  // the islands of the velocity problem where the gap problem has the same contacts, body for
  // body, and no joint rows joined them (no pair added: a pile at rest): the same islands
  const Islands* islands = nullptr;
  if (c.settings.islands) {
    const bool same = b.problem.joints.count() == 0 && b.gap_problem.body_a == b.problem.body_a &&
                      b.gap_problem.body_b == b.problem.body_b;
    if (!same) build_islands(model.size(), c.at_rest(), b.gap_problem.body_a, b.gap_problem.body_b, b.gap_islands);
    islands = same ? &b.islands : &b.gap_islands;
  }
  // the displacements M^-1 J_n^T lambda as the sweeps kept them (no pass over the rows again)
  solve_normal_pgs(b.gap_problem, islands, opt, b.gap_lambda, &b.dw);
  apply_displacements(model, b.dw, c.state, c.still());
}

void record_stats(StepContext& c) {
  StepStats& s = c.stats;
  const RigidModel& model = c.model.rigid;
  const Islands& islands = c.buf.islands;
  s.step = c.step;
  s.time = c.step * c.scene.dt;
  s.bodies = model.size() + int(c.soft.size());
  s.contacts = int(c.buf.contacts.size() + c.buf.soft_contacts.size());
  s.soft_contacts = int(c.buf.soft_contacts.size());
  s.islands = islands.count();
  s.sleeping = c.sleep.sleeping_count();
  for (int i = 0; i < islands.count(); ++i)
    if (islands.contact_count(i) > s.largest_island) {
      s.largest_island = islands.contact_count(i);
      s.largest_island_bodies = 0;
      for (int e = islands.body_start[std::size_t(i)]; e < islands.body_start[std::size_t(i) + 1]; ++e)
        s.largest_island_bodies += model.fixed[std::size_t(islands.bodies[std::size_t(e)])] ? 0 : 1;
    }
  // the rigid contacts' deepest came with detect_coefficients
  for (const SoftContact& k : c.buf.soft_contacts) s.max_penetration = std::max(s.max_penetration, k.depth);
  if (!c.model.joints.empty()) {
    const Configuration q = rigid_configuration(c.state);
    for (const JointConstraint& j : c.model.joints) {
      const JointError e = joint_error(q, j);
      s.joint_error_linear = std::max(s.joint_error_linear, e.linear);
      s.joint_error_angular = std::max(s.joint_error_angular, e.angular);
    }
  }
  s.kinetic_energy = kinetic_energy(model, c.state);
  s.potential_energy = potential_energy(model, c.state, c.scene.gravity);
  for (const SoftBody& b : c.soft) {
    s.kinetic_energy += soft_kinetic_energy(b);
    s.potential_energy += soft_potential_energy(b, c.scene.gravity);
    s.elastic_energy += soft_elastic_energy(b);
  }
}

}  // namespace coulomb
