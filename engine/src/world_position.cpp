// The position-level step of seed 002 (xpbd-jacobi), for scenes with or without soft bodies:
//
//   2 detect     rigid contacts and soft contacts at q^l, with each body's reach over the step
//   3 assemble   PositionProblem: predicted DOFs (eq. 8), contacts with anchors fixed at q^l,
//                elements, attachments; warm start from last step's impulses
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

// Identity of a contact across steps: the rigid bodies and particles of its two sides.
std::array<int, 8> side_key(const PbdContact& c) {
  return {c.a.rigid, c.a.particle[0], c.a.particle[1], c.a.particle[2],
          c.b.rigid, c.b.particle[0], c.b.particle[1], c.b.particle[2]};
}

}  // namespace

// Contacts that persist (same sides, and for rigid sides an anchor within a small distance of
// an old one) start from last step's impulse, re-expressed in the new contact frame;
// attachments keep theirs. Elements start from zero every step, as in seed 002 algorithm 1:
// a warm-started elastic impulse is applied to the prediction as an explicit force, and for a
// stiff material an unconverged iteration cannot take that kick back (measured: a corotational
// beam with E = 1e8 Pa and a soft ball resting on the ground both diverged within 60 steps with
// element warm starts, and are stable without).
void World::warm_start_position() {
  PositionProblem& p = pproblem_;
  if (!scene_.solver_options.warm_start) return;
  if (attachment_impulse_.size() == p.attachment_impulse.size()) p.attachment_impulse = attachment_impulse_;
  const double tol2 = std::pow(std::max(2.0 * scene_.envelope, 1e-3), 2);
  for (std::size_t k = 0; k < p.contacts.size(); ++k) {
    const PbdContact& c = p.contacts[k];
    auto [lo, hi] = std::equal_range(position_cache_.begin(), position_cache_.end(),
                                     CachedPositionImpulse{side_key(c), {}, {}});
    const CachedPositionImpulse* best = nullptr;
    double best_d2 = tol2;
    for (auto it = lo; it != hi; ++it) {
      const double d2 = (it->anchor - c.a.anchor).squaredNorm();
      if (d2 < best_d2) {
        best_d2 = d2;
        best = &*it;
      }
    }
    if (!best) continue;
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    Vec3 P(c.normal.dot(best->impulse), t.dot(best->impulse), s.dot(best->impulse));
    P[0] = std::max(0.0, P[0]);
    p.contact_impulse[k] = P;
  }
}

void World::remember_position_impulses() {
  const PositionProblem& p = pproblem_;
  attachment_impulse_ = p.attachment_impulse;
  position_cache_.resize(p.contacts.size());
  for (std::size_t k = 0; k < p.contacts.size(); ++k) {
    const PbdContact& c = p.contacts[k];
    const Vec3& P = p.contact_impulse[k];
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    position_cache_[k] = {side_key(c), c.a.anchor, P[0] * c.normal + P[1] * t + P[2] * s};
  }
  std::stable_sort(position_cache_.begin(), position_cache_.end());
}

StepResult World::run_position_stages() {
  const auto t_step = Clock::now();
  const double dt = scene_.dt;
  stats_ = StepStats{};

  // 2 detect at q^l
  auto t0 = Clock::now();
  SoftDetectInput in;
  in.rigid = detect_input();
  stats_.pairs = detect_contacts(in.rigid, contacts_).pairs;
  detect_coefficients();
  in.soft.resize(soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    const SoftBody& b = soft_[i];
    double vmax = 0.0;
    for (const Vec3& v : b.v) vmax = std::max(vmax, v.norm());
    in.soft[i] = {&b.x, &b.faces, &b.surface_vertices, dt * (vmax + scene_.gravity.norm() * dt)};
  }
  soft_contacts_.clear();
  if (!soft_.empty()) detect_soft_contacts(in, soft_contacts_);
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
  pin.gravity = scene_.gravity;
  pin.dt = dt;
  assemble_position_problem(pin, pproblem_);
  warm_start_position();
  stats_.assemble_ms = ms_since(t0);

  // 4+5 solve: positions and velocities of q^{l+1}
  stats_.solver = solver_->solve_position(pproblem_, scene_.solver_options);
  t0 = Clock::now();
  remember_position_impulses();
  store_position_result(pproblem_, state_, soft_);
  stats_.integrate_ms = ms_since(t0);

  // 7 record
  record_stats();
  stats_.wall_ms = ms_since(t_step);
  return check_state();
}

}  // namespace coulomb
