// Contact assembly (DESIGN.md stage 3): turns the narrowphase's contacts and the bodies' state
// into the ContactProblem every solver consumes. The only place that knows both worlds.
#pragma once
#include <coulomb/contact.h>
#include <coulomb/contact_problem.h>
#include <coulomb/rigid_bodies.h>

#include <cstdint>
#include <vector>

namespace coulomb {

// Per-contact material data, resolved from the two bodies' materials.
struct ContactCoefficients {
  Vec3 mu = Vec3(0.5, 0.5, 0.0);  // (mu_s, mu_t, mu_tau), seed 000 eq. 16
  double restitution = 0.0;       // Newton coefficient epsilon_N, seed 000 eq. 14
};

struct AssemblySettings {
  double dt = 0.01;                     // step (unit: s)
  double gap_horizon = 0.01;            // time over which a speculative contact may close its gap (unit: s)
  double baumgarte_beta = 0.0;          // 0 = no Baumgarte term
  double restitution_threshold = 0.1;   // closing speed below which restitution is ignored (unit: m/s)
};

// Contact Jacobian blocks of seed 000 eq. 56 for a contact frame C = [n t s] with arms r_a, r_b
// from the two centres of mass to the contact point; rows (normal, t, s, torsion).
void contact_jacobian(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b,
                      Mat46& J_a, Mat46& J_b);
// The same blocks in the compact form the ContactProblem keeps (contact_problem.h).
ContactRows contact_rows(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b);
// the same into J (its lin and ang blocks, every entry; the finalize() fields are left alone)
void contact_rows(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b, ContactRows& J);

// Fills `out` (bodies and contacts) and finalizes it. `state` holds the configuration the
// contacts were detected at and the pre-step velocities u^t; `u_free` the unconstrained
// velocities. The normal row's b gets, in this order of precedence:
//   - Newton restitution e * v_N^- (eq. 14, 19b) for a contact closing faster than the
//     threshold that will touch within the step,
//   - the speculative term gap / gap_horizon for a separated contact (arrive, do not cross),
//   - Baumgarte beta * gap / dt for a penetrating contact when beta > 0.
void assemble_contacts(const RigidModel& model, const RigidState& state, const std::vector<Vec6>& u_free,
                       const std::vector<Contact>& contacts, const std::vector<ContactCoefficients>& coeffs,
                       const AssemblySettings& settings, ContactProblem& out);

}  // namespace coulomb

namespace coulomb {

// The position-level problem of post-stabilisation (seed 000 section 4.4, eq. 49): the normal
// rows of J with b = g (the signed gaps), zero friction, so any solver of the velocity problem
// finds the contact displacements lambda >= 0 with J M^-1 J^T lambda + g >= 0.
void assemble_gap_problem(const RigidModel& model, const RigidState& state, const std::vector<Contact>& contacts,
                          ContactProblem& out);
// The same problem in packed normal rows (what post-stabilisation solves, solve_normal_pgs): the
// same J_n, b = g and A_nn, without the ContactProblem's tangent rows and 4x4 blocks. A body
// marked in `still` (fixed or asleep; null: the model's fixed bodies) gets no inverse mass, so
// that it neither moves nor takes a share of the displacement. Contacts in parallel, the same
// bits on any thread count.
void assemble_gap_problem(const RigidModel& model, const RigidState& state, const std::vector<Contact>& contacts,
                          const std::vector<std::uint8_t>* still, NormalProblem& out);

}  // namespace coulomb
