// Stage 3 for the position-level solver (DESIGN.md): rigid bodies, soft bodies and contacts in,
// a PositionProblem (seed 002) out; and the way back, the solved DOFs into the states.
//
// The contacts were detected at q^l; their rigid sides keep their lever arms from q^l and their
// normals for the step, so the solver can re-evaluate every gap at any iterate (seed 002 s.3.2:
// Phi(q) = n . (x_i + R_i p_i - x_j - R_j p_j), with the rotation linearised; see
// position_problem.h for why).
#pragma once
#include <coulomb/contact.h>
#include <coulomb/position_problem.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/soft_body.h>
#include <coulomb/soft_contacts.h>

#include <vector>

namespace coulomb {

// A soft vertex glued to a rigid body point (anchor in the body frame) or to a world point
// (body = -1, anchor in the world).
struct VertexAttachment {
  int soft = -1, vertex = -1;
  int body = -1;
  Vec3 anchor = Vec3::Zero();
};

struct PositionAssemblyInput {
  const RigidModel* model = nullptr;
  const RigidState* state = nullptr;               // q^l, v^l
  const std::vector<SoftBody>* soft = nullptr;
  const std::vector<Contact>* contacts = nullptr;  // rigid-rigid
  const std::vector<double>* contact_mu = nullptr; // (per rigid contact)
  const std::vector<SoftContact>* soft_contacts = nullptr;
  const std::vector<double>* soft_contact_mu = nullptr;
  const std::vector<VertexAttachment>* attachments = nullptr;
  const std::vector<JointConstraint>* joints = nullptr;  // rigid joints (may be null)
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);
  double dt = 0.01;
  // applied loads (engine/control.h), or null: (nb) force and torque at each body's centre of
  // mass, and per soft body its vertices' forces (an empty vector: none) (unit: N, N m)
  const std::vector<Vec6>* wrench = nullptr;
  const std::vector<std::vector<Vec3>>* vertex_force = nullptr;
};

// First particle index of each soft body in the problem's particle arrays (size ns + 1).
std::vector<int> particle_offsets(const std::vector<SoftBody>& soft);

// Builds the problem with the unconstrained prediction of seed 002 eq. 8 (rigid: gravity and the
// implicit gyroscopic term, then x~ = x + h v~ and the quaternion update; particles:
// v~ = v + h g, x~ = x + h v~; pinned particles and fixed bodies stay put). Impulse arrays are
// sized and zeroed (the caller sets warm starts).
void assemble_position_problem(const PositionAssemblyInput& in, PositionProblem& out);

// Writes the solved rigid DOFs and particles back into the states.
void store_position_result(const PositionProblem& p, RigidState& state, std::vector<SoftBody>& soft);

}  // namespace coulomb
