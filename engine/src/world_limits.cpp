// The World's guards around the step (split from world.cpp): the first step's admission of the
// scene's initial velocities (issue 11), the contact caps, and the state check that reports NaN,
// Inf and speeds over --max-speed (of the centre of mass, or of the rim through the spin) with
// the step and body.
#include <coulomb/contact_assembly.h>
#include <coulomb/integrators.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace coulomb {

// Moreau's explicit half step (seed 000 eq. 41) moves the bodies with u^t before any contact is
// detected. From step 2 on u^t came out of a solve whose speculative contacts covered that half
// step (gap_horizon = dt below); the scene's initial velocities did not, so a 20 cm ball at
// 200 m/s 0.39 m from a 2 cm wall crossed it in the first half step (issue 11). Before step 1:
// detect at q^0, and let every separated contact close at most its gap over the half step
// (v_n >= -gap / (dt/2), no restitution, no push-out of initial overlaps), solved once by the
// scene's solver. Velocities that respect every gap are left exactly as they are.
void World::admit_initial_velocities() {
  std::vector<Contact> contacts;
  detect(contacts);
  std::erase_if(contacts, [](const Contact& c) { return !(c.depth < 0.0); });  // separated ones only
  if (contacts.empty()) return;
  std::swap(contacts, contacts_);
  detect_coefficients();
  std::swap(contacts, contacts_);
  const int nb = model_.size();
  std::vector<Vec6> u0(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) u0[std::size_t(i)] << state_.v[std::size_t(i)], state_.w[std::size_t(i)];
  AssemblySettings as;
  as.dt = scene_.dt;
  as.gap_horizon = 0.5 * scene_.dt;
  as.restitution_threshold = std::numeric_limits<double>::infinity();
  ContactProblem problem;
  assemble_contacts(model_, state_, u0, contacts, coeffs_, as, problem);
  // a gap that the initial velocities respect needs no impulse: leave them bit-exact
  bool approaching = false;
  for (int k = 0; k < problem.num_contacts(); ++k) approaching = approaching || problem.b[std::size_t(k)][0] < 0.0;
  if (!approaching) return;
  ContactSolution solution;
  solution.lambda.assign(contacts.size(), Vec4::Zero());
  SolverOptions opt = scene_.solver_options;
  opt.warm_start = false;
  Islands islands;
  solve(solver_->solve, problem, opt, islands, island_scratch_, solution);
  std::vector<Vec6> dw;
  problem.body_impulse_response(solution.lambda, dw);
  apply_velocities(model_, u0, dw, state_, still());
}

// Contact caps (issue 11: 1000 boxes at one point made 2M contacts and 3.2 GB, about 1.6 KB per
// contact once assembled): a step whose detection exceeds them stops with an invalid state
// naming the pair, before anything is assembled. Contacts come sorted by body pair (detect.h).
StepResult World::check_contact_caps() const {
  const std::size_t n = contacts_.size();
  std::size_t worst_start = 0, worst_count = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && contacts_[j].body_a == contacts_[i].body_a && contacts_[j].body_b == contacts_[i].body_b) ++j;
    if (j - i > worst_count) worst_count = j - i, worst_start = i;
    i = j;
  }
  if (worst_count <= kMaxPairContacts && n <= kMaxContacts) return {};
  const Contact& c = contacts_[worst_start];
  const auto name = [&](int body) { return body >= 0 && body < model_.size() ? "'" + model_.name[std::size_t(body)] + "'" : std::string("?"); };
  const std::string pair = "bodies " + name(c.body_a) + " and " + name(c.body_b) + " (" + std::to_string(worst_count) + " contacts)";
  const std::string where = "step " + std::to_string(step_ + 1) + ": ";
  if (worst_count > kMaxPairContacts)
    return {StepResult::Status::InvalidState, c.body_b,
            where + pair + " exceed the cap of " + std::to_string(kMaxPairContacts) + " contacts per pair"};
  return {StepResult::Status::InvalidState, c.body_b,
          where + std::to_string(n) + " contacts exceed the cap of " + std::to_string(kMaxContacts) +
              " in a step (about 1.6 KB each once assembled); the pair with the most: " + pair};
}

StepResult World::check_state() const {
  // any non-finite number in a step's output is an invalid state (issue 11: a mass of 1e305 gave
  // null energies with exit 0)
  // a merit the solver options did not ask for (SolverOptions::evaluate_merit) is NaN by design
  const double merit = scene_.solver_options.evaluate_merit ? stats_.solver.merit : 0.0;
  const double outputs[] = {stats_.kinetic_energy, stats_.potential_energy, stats_.elastic_energy,
                            stats_.solver.residual, merit, stats_.max_penetration};
  const char* names[] = {"kinetic energy", "potential energy", "elastic energy", "solver residual", "merit",
                         "max penetration"};
  for (std::size_t k = 0; k < std::size(outputs); ++k)
    if (!std::isfinite(outputs[k]))
      return {StepResult::Status::InvalidState, -1,
              "step " + std::to_string(step_) + ": the " + names[k] + " is " + std::to_string(outputs[k])};  // nan, inf or -inf, as %g prints them
  for (int i = 0; i < model_.size(); ++i) {
    const auto k = std::size_t(i);
    if (model_.fixed[k]) continue;
    const bool finite = state_.x[k].allFinite() && state_.v[k].allFinite() && state_.w[k].allFinite() &&
                        state_.q[k].coeffs().allFinite();
    // the spin's part: the speed of the body's farthest point about its centre of mass
    const double rim_speed = state_.w[k].norm() * bound_radius_[k];
    if (finite && !(state_.v[k].norm() > settings_.max_speed) && !(rim_speed > settings_.max_speed)) continue;
    const std::string where = "step " + std::to_string(step_) + ": body '" + model_.name[k] + "'";
    if (!finite) return {StepResult::Status::InvalidState, i, where + " has a NaN or infinite state"};
    if (state_.v[k].norm() > settings_.max_speed)
      return {StepResult::Status::InvalidState, i,
              where + " moves at " + std::to_string(state_.v[k].norm()) + " m/s, above the limit of " +
                  std::to_string(settings_.max_speed) + " m/s"};
    return {StepResult::Status::InvalidState, i,
            where + " spins at an angular speed of " + std::to_string(state_.w[k].norm()) + " rad/s: its rim (" +
                std::to_string(bound_radius_[k]) + " m from the centre of mass) moves at " +
                std::to_string(rim_speed) + " m/s, above the limit of " + std::to_string(settings_.max_speed) + " m/s"};
  }
  for (const SoftBody& b : soft_)
    for (int i = 0; i < b.vertex_count(); ++i) {
      const auto k = std::size_t(i);
      const bool finite = b.x[k].allFinite() && b.v[k].allFinite();
      if (finite && !(b.v[k].norm() > settings_.max_speed)) continue;
      const std::string where = "step " + std::to_string(step_) + ": soft body '" + b.name + "' vertex " + std::to_string(i);
      if (!finite) return {StepResult::Status::InvalidState, -1, where + " has a NaN or infinite state"};
      return {StepResult::Status::InvalidState, -1,
              where + " moves at " + std::to_string(b.v[k].norm()) + " m/s, above the limit of " +
                  std::to_string(settings_.max_speed) + " m/s"};
    }
  return {};
}

}  // namespace coulomb
