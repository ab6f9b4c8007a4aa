// The guards around the step: the first step's admission of the scene's initial velocities, the
// contact caps, and the state check that reports NaN, Inf and speeds over --max-speed (of the
// centre of mass, or of the rim through the spin) with the step and body.
#include "step_context.h"

#include <coulomb/contact_assembly.h>
#include <coulomb/detect.h>
#include <coulomb/integrators.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace coulomb {

// Moreau's explicit half step (seed 000 eq. 41) moves the bodies with u^t before any contact is
// detected. From step 2 on u^t came out of a solve whose speculative contacts covered that half
// step (gap_horizon = dt in assemble); the scene's initial velocities did not, and a fast body
// could cross a thin wall in the first half step. Before step 1: detect at q^0, and let every
// separated contact close at most its gap over the half step (v_n >= -gap / (dt/2), no
// restitution, no push-out of initial overlaps), solved once by the scene's solver. Velocities
// that respect every gap are left exactly as they are.
void admit_initial_velocities(StepContext& c) {
  std::vector<Contact> contacts;
  detect_contacts(detect_input(c), contacts);
  drop_jointed_contacts(c.model, contacts);
  std::erase_if(contacts, [](const Contact& k) { return !(k.depth < 0.0); });  // separated ones only
  if (contacts.empty()) return;
  std::swap(contacts, c.buf.contacts);
  detect_coefficients(c);
  std::swap(contacts, c.buf.contacts);
  const RigidModel& model = c.model.rigid;
  const int nb = model.size();
  std::vector<Vec6> u0(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) u0[std::size_t(i)] << c.state.v[std::size_t(i)], c.state.w[std::size_t(i)];
  AssemblySettings as;
  as.dt = c.scene.dt;
  as.gap_horizon = 0.5 * c.scene.dt;
  as.restitution_threshold = std::numeric_limits<double>::infinity();
  ContactProblem problem;
  assemble_contacts(model, c.state, u0, contacts, c.buf.coeffs, as, problem);
  // a gap that the initial velocities respect needs no impulse: leave them bit-exact
  bool approaching = false;
  for (int k = 0; k < problem.num_contacts(); ++k) approaching = approaching || problem.b[std::size_t(k)][0] < 0.0;
  if (!approaching) return;
  ContactSolution solution;
  solution.lambda.assign(contacts.size(), Vec4::Zero());
  SolverOptions opt = c.scene.solver_options;
  opt.warm_start = false;
  Islands islands;
  solve_islands_or_whole(c, c.solver.solve, problem, opt, islands, solution);
  std::vector<Vec6> dw;
  problem.body_impulse_response(solution.lambda, dw);
  apply_velocities(model, u0, dw, c.state, c.still());
}

// Contact caps: a step whose detection exceeds them stops with an invalid state naming the pair,
// before anything is assembled (about 1.6 KB a contact once assembled: a thousand boxes at one
// point would make millions). Contacts come sorted by body pair (detect.h).
StepResult check_contact_caps(const StepContext& c) {
  const std::vector<Contact>& contacts = c.buf.contacts;
  const RigidModel& model = c.model.rigid;
  const std::size_t n = contacts.size();
  std::size_t worst_start = 0, worst_count = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && contacts[j].body_a == contacts[i].body_a && contacts[j].body_b == contacts[i].body_b) ++j;
    if (j - i > worst_count) worst_count = j - i, worst_start = i;
    i = j;
  }
  if (worst_count <= kMaxPairContacts && n <= kMaxContacts) return {};
  const Contact& k = contacts[worst_start];
  const auto name = [&](int body) { return body >= 0 && body < model.size() ? "'" + model.name[std::size_t(body)] + "'" : std::string("?"); };
  const std::string pair = "bodies " + name(k.body_a) + " and " + name(k.body_b) + " (" + std::to_string(worst_count) + " contacts)";
  const std::string where = "step " + std::to_string(c.step) + ": ";
  if (worst_count > kMaxPairContacts)
    return {StepResult::Status::InvalidState, k.body_b,
            where + pair + " exceed the cap of " + std::to_string(kMaxPairContacts) + " contacts per pair"};
  return {StepResult::Status::InvalidState, k.body_b,
          where + std::to_string(n) + " contacts exceed the cap of " + std::to_string(kMaxContacts) +
              " in a step (about 1.6 KB each once assembled); the pair with the most: " + pair};
}

StepResult World::check_state() const {
  // any non-finite number in a step's output is an invalid state (a mass of 1e305 would give null
  // energies and a run that ends well)
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
  for (int i = 0; i < model_.rigid.size(); ++i) {
    const auto k = std::size_t(i);
    if (model_.rigid.fixed[k]) continue;
    const bool finite = state_.x[k].allFinite() && state_.v[k].allFinite() && state_.w[k].allFinite() &&
                        state_.q[k].coeffs().allFinite();
    // the spin's part: the speed of the body's farthest point about its centre of mass
    const double rim_speed = state_.w[k].norm() * model_.bound_radius[k];
    if (finite && !(state_.v[k].norm() > settings_.max_speed) && !(rim_speed > settings_.max_speed)) continue;
    const std::string where = "step " + std::to_string(step_) + ": body '" + model_.rigid.name[k] + "'";
    if (!finite) return {StepResult::Status::InvalidState, i, where + " has a NaN or infinite state"};
    if (state_.v[k].norm() > settings_.max_speed)
      return {StepResult::Status::InvalidState, i,
              where + " moves at " + std::to_string(state_.v[k].norm()) + " m/s, above the limit of " +
                  std::to_string(settings_.max_speed) + " m/s"};
    return {StepResult::Status::InvalidState, i,
            where + " spins at an angular speed of " + std::to_string(state_.w[k].norm()) + " rad/s: its rim (" +
                std::to_string(model_.bound_radius[k]) + " m from the centre of mass) moves at " +
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
