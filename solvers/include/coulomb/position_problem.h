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
// compare with the velocity-level solvers' impulses; `*_impulse` holds them on exit (every solve
// starts from zero: no warm start at position level, solvers/README.md).
#pragma once
#include <coulomb/materials.h>
#include <coulomb/math.h>

#include <array>
#include <vector>

namespace coulomb {

// One end of a constraint: a point fixed in a rigid body's frame, a point on a soft body given by
// up to three particles with barycentric weights, or a fixed world point.
struct PbdSide {
  int rigid = -1;                          // rigid DOF index, or -1
  std::array<int, 3> particle{-1, -1, -1}; // particle DOF indices (unused entries -1)
  Vec3 weight = Vec3::Zero();              // barycentric weights of the particles (sum 1)
  // rigid, body_frame: the point in the body frame, relative to the centre of mass (it turns
  // with the body); rigid, !body_frame: the world lever arm r0 from the centre of mass at the
  // start of the step, and the point is x + r0 + h w x r0 (its rotation linearised); world side
  // (no rigid, no particle): the fixed world point (unit: m)
  Vec3 anchor = Vec3::Zero();
  bool body_frame = false;
};

// A frictional contact (seed 002 eq. 25-28): gap c = n . (p_b - p_a) - offset >= 0 with the
// normal n fixed over the step, friction in the plane of n with coefficient mu. Rigid sides use
// lever arms fixed at the start of the step (!body_frame): with x = x^l + h v and the rotation
// h w, the gap is exact in translation and linear in rotation, so a normal impulse through a
// sphere's centre never turns it (a material point on a rolling sphere would rise and tilt its
// lever arm, and normal impulses would spin the sphere up; measured: a ball rolling at 1 m/s
// gained 13x its kinetic energy in 1 s and sank 1 cm into the ground).
struct PbdContact {
  PbdSide a, b;
  Vec3 normal = Vec3::UnitZ();  // unit, from a towards b
  double offset = 0.0;          // (unit: m)
  double mu = 0.0;
};

// A linear tetrahedron with the material constraint of fem/element_constraint.h (seed 002 s.3.3).
struct PbdElement {
  std::array<int, 4> particle{};
  Mat3 Dm_inv = Mat3::Identity();  // inverse rest shape matrix (seed 002 algorithm 3)
  double volume = 0.0;             // rest volume (unit: m^3)
  int material = 0;                // index into PositionProblem::materials
};

struct PbdMaterial {
  MaterialModel model = MaterialModel::Corotational;
  Lame lame{0.0, 0.0};
  double damping = 0.0;  // Rayleigh ratio rho = eta / kappa of seed 002 eq. 19-21 (unit: s)
};

// A particle glued to a point: p_particle - p_target = 0 (3 rows, bilateral, no compliance).
struct PbdAttachment {
  int particle = -1;
  PbdSide target;  // a rigid point or a world point
};

struct PositionProblem {
  double dt = 0.01;  // h (unit: s)

  // rigid DOFs (nr): centre of mass, orientation of the principal frame, velocities
  std::vector<double> inv_mass;     // 0 for fixed bodies (unit: 1/kg)
  std::vector<Vec3> inv_inertia;    // principal inverse moments, body frame (unit: 1/(kg m^2))
  std::vector<Vec3> x, v, w;        // w in the world frame
  std::vector<Quat> q;

  // particle DOFs (np)
  std::vector<double> p_inv_mass;   // 0 for pinned particles
  std::vector<Vec3> px, pv;

  std::vector<PbdContact> contacts;
  std::vector<PbdElement> elements;
  std::vector<PbdMaterial> materials;
  std::vector<PbdAttachment> attachments;

  // multipliers as impulses (unit: N s), the result
  std::vector<Vec3> contact_impulse;                     // (normal, t, s) in tangent_basis(normal)
  std::vector<Vec6> element_impulse;     // the element's rows (unused rows 0)
  std::vector<Vec3> attachment_impulse;

  int num_rigid() const { return int(x.size()); }
  int num_particles() const { return int(px.size()); }
  // Sizes the impulse arrays to the constraints (new entries 0).
  void size_impulses();
};

// Signed gap n . (p_b - p_a) - offset of a contact at the problem's current positions (unit: m).
double contact_gap(const PositionProblem& p, const PbdContact& c);

}  // namespace coulomb
