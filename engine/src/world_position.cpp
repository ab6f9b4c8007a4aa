// The position-level step of seed 002 (xpbd-jacobi), for scenes with or without soft bodies:
//
//   2 detect     rigid contacts and soft contacts at q^l, with each body's reach over the step
//   3 assemble   PositionProblem: predicted DOFs (eq. 8), contacts with anchors fixed at q^l,
//                elements, attachments; impulses from zero (seed 002 algorithm 1)
//   4+5 solve    the solver moves positions and velocities together (implicit Euler, eq. 7-13)
//   7 record
//
// There is no separate integration or stabilisation stage: the solver's result is q^{l+1} and
// v^{l+1} (the scene's integrator and stabilisation settings apply to velocity-level solvers).
#include <coulomb/soft_contacts.h>
#include <coulomb/world.h>

#include <algorithm>
#include <chrono>

namespace coulomb {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

StepResult World::run_position_stages() {
  const auto t_step = Clock::now();
  const double dt = scene_.dt;
  stats_ = StepStats{};

  // 2 detect at q^l
  auto t0 = Clock::now();
  SoftDetectInput in;
  in.rigid = detect_input();
  stats_.pairs = detect_contacts(in.rigid, contacts_).pairs;
  drop_jointed_contacts(contacts_);
  if (StepResult capped = check_contact_caps(); !capped.ok()) return capped;
  detect_coefficients();
  in.soft.resize(soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    const SoftBody& b = soft_[i];
    double vmax = 0.0;
    for (const Vec3& v : b.v) vmax = std::max(vmax, v.norm());
    in.soft[i] = {&b.x, &b.faces, &b.surface_vertices, dt * (vmax + scene_.gravity.norm() * dt)};
  }
  in.self_contacts = scene_.self_contacts;
  in.edge_edge = scene_.edge_edge;
  in.thickness = scene_.thickness;
  soft_contacts_.clear();
  if (!soft_.empty()) detect_soft_contacts(in, soft_detect_, soft_contacts_);  // trees refit in soft_detect_
  const std::size_t nm = scene_.materials.size();
  contact_mu_.resize(contacts_.size());
  for (std::size_t k = 0; k < contacts_.size(); ++k) contact_mu_[k] = coeffs_[k].mu[0];
  soft_contact_mu_.resize(soft_contacts_.size());
  const auto material_of = [&](const ContactSide& s) {
    return std::size_t(s.rigid >= 0 ? model_.material[std::size_t(s.rigid)] : soft_[std::size_t(s.soft)].material);
  };
  for (std::size_t k = 0; k < soft_contacts_.size(); ++k)
    soft_contact_mu_[k] = pair_coeffs_[material_of(soft_contacts_[k].a) * nm + material_of(soft_contacts_[k].b)].mu[0];
  stats_.detect_ms = ms_since(t0);

  // 3 assemble
  t0 = Clock::now();
  PositionAssemblyInput pin;
  pin.model = &model_;
  pin.state = &state_;
  pin.soft = &soft_;
  pin.contacts = &contacts_;
  pin.contact_mu = &contact_mu_;
  pin.soft_contacts = &soft_contacts_;
  pin.soft_contact_mu = &soft_contact_mu_;
  pin.attachments = &attachments_;
  pin.joints = &joints_;
  pin.gravity = scene_.gravity;
  pin.dt = dt;
  assemble_position_problem(pin, pproblem_);  // every impulse starts at zero (see solvers/README.md)
  stats_.assemble_ms = ms_since(t0);

  // 4+5 solve: positions and velocities of q^{l+1}
  // abs_tol scaled to the lightest body's weight over a step, as in run_stages (world.cpp)
  SolverOptions options = scene_.solver_options;
  if (solver_->impulse_tolerance && impulse_scale_ > 0.0) options.abs_tol = std::min(options.abs_tol, kImpulseTolerance * impulse_scale_);
  stats_.solver = solver_->solve_position(pproblem_, options);
  t0 = Clock::now();
  ccd_begin();
  store_position_result(pproblem_, state_, soft_);
  ccd_clamp();
  stats_.integrate_ms = ms_since(t0);

  // 7 record
  record_stats();
  stats_.wall_ms = ms_since(t_step);
  return check_state();
}

}  // namespace coulomb
