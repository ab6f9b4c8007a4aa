// The position-level problem of seed 002 (DESIGN.md stage 3 -> 4 for the position-based solver).
//
// A position-based solver does not see a linear map lambda -> v: it re-evaluates every
// constraint c(q) and its gradient at each iterate (seed 002 eq. 10-13, algorithm 1). This struct
// holds what that takes, as plain arrays: the degrees of freedom (rigid frames and particles)
// with their inverse masses, and the constraints that act on them (contacts, tetrahedral
// elements, attachments). The solver moves the DOFs in place; it never sees bodies, shapes or
// the scene.
//
// On entry x, q, v, w, px, pv hold the unconstrained prediction q~ = q^l + h v~, v~ (eq. 8);
// on exit they hold q^{l+1}, v^{l+1}. Multipliers are impulses h*gamma (unit: N s), so that they
// compare with the velocity-level solvers' impulses; `*_impulse` holds them on exit. On entry they
// are zero (assemble_position_problem), or the last step's impulses of the same constraints for a
// solver that warm-starts (newton-pcr; the World carries them in its State).
#pragma once
#include <coulomb/constraints.h>
#include <coulomb/materials.h>
#include <coulomb/math.h>

#include <array>
#include <functional>
#include <vector>

namespace coulomb {

// The constraint kinds are those of the one constraint interface (dynamics/constraints.h); the
// position-level solver evaluates them at its iterates through that interface.
//
// Contacts (seed 002 eq. 25-28): gap c = n . (p_b - p_a) - offset >= 0 with the normal n fixed
// over the step, friction in the plane of n with coefficient mu. Rigid sides use lever arms fixed
// at the start of the step (!body_frame): with x = x^l + h v and the rotation h w, the gap is
// exact in translation and linear in rotation, so a normal impulse through a sphere's centre never
// turns it (a material point on a rolling sphere would rise and tilt its lever arm, and normal
// impulses would spin the sphere up; measured: a ball rolling at 1 m/s gained 13x its kinetic
// energy in 1 s and sank 1 cm into the ground). Joints and attachments use body-frame points.
using PbdSide = ConstraintSide;
using PbdContact = ContactConstraint;
using PbdElement = ElementConstraintDef;    // a linear tetrahedron (seed 002 s.3.3)
using PbdMaterial = ElementMaterial;
using PbdAttachment = AttachmentConstraint; // a particle glued to a rigid or world point

using JointImpulse = Eigen::Matrix<double, kMaxBlockRows, 1>;

struct PositionProblem {
  double dt = 0.01;  // h (unit: s)

  // rigid DOFs (nr): centre of mass, orientation of the principal frame, velocities
  std::vector<double> inv_mass;     // 0 for fixed bodies (unit: 1/kg)
  std::vector<Vec3> inv_inertia;    // principal inverse moments, body frame (unit: 1/(kg m^2))
  std::vector<Vec3> x, v, w;        // w in the world frame
  std::vector<Quat> q;
  // the configuration at the start of the step, q^l (seed 003's q^-, eq. 50: q = q^- + h G u);
  // set by the assembly, read by newton-pcr (xpbd-jacobi works from the prediction alone)
  std::vector<Vec3> x0, px0;
  std::vector<Quat> q0;

  // particle DOFs (np)
  std::vector<double> p_inv_mass;   // 0 for pinned particles
  std::vector<Vec3> px, pv;

  std::vector<PbdContact> contacts;
  std::vector<PbdElement> elements;
  std::vector<PbdMaterial> materials;
  std::vector<PbdAttachment> attachments;
  std::vector<JointConstraint> joints;  // rigid joints (body indices = rigid DOF indices)

  // multipliers as impulses (unit: N s), the result
  std::vector<Vec3> contact_impulse;                     // (normal, t, s) in tangent_basis(normal)
  std::vector<Vec6> element_impulse;     // the element's rows (unused rows 0)
  std::vector<Vec3> attachment_impulse;
  std::vector<JointImpulse> joint_impulse;               // the joint's rows (unused rows 0)

  // Optional, for cr-mlcp (seed 004 Algorithm 1 line 25, "check all candidates for new
  // collisions"): given the end-of-step configuration (rigid x, q and particles px, indexed as the
  // problem's DOFs), appends the contacts of pairs that collide between the start of the step and
  // there and that it has not returned before in this step, and returns how many. Set by the World
  // from its candidate lists (CCD over vertex-face and edge-edge pairs of soft and rigid surfaces);
  // null: the solver checks only the contacts it holds.
  std::function<int(const Configuration& end, std::vector<ContactConstraint>& out)> find_new_contacts;

  int num_rigid() const { return int(x.size()); }
  int num_particles() const { return int(px.size()); }
  // The problem's DOFs as a configuration of the constraint interface.
  Configuration configuration() const;
  // Sizes the impulse arrays to the constraints (new entries 0).
  void size_impulses();
  // The joints', elements' and attachments' impulses as one flat array, by row: joints
  // (nj x kMaxBlockRows), then elements (ne x 6), then attachments (na x 3) (unit: N s, N m s).
  // set_row_impulses takes such an array back if its size is this problem's, else leaves the
  // impulses as they are and returns false (the constraints changed: a cold start).
  std::vector<double> row_impulses() const;
  bool set_row_impulses(const std::vector<double>& r);
};

// Signed gap n . (p_b - p_a) - offset of a contact at the problem's current positions (unit: m).
double contact_gap(const PositionProblem& p, const PbdContact& c);

}  // namespace coulomb
