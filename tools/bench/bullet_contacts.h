// Bullet's contacts and impulses of a step, seen as a Coulomb contact problem, so that the
// FCLib merit (solvers/merit.h) can judge Bullet's answer as it judges Coulomb's (README.md).
//
// After stepSimulation the dispatcher's manifolds hold the points Bullet detected at the start
// of the step (positions q^t) and the impulses its solver applied to them. Each point becomes a
// coulomb::Contact (body pair with a < b, midpoint of the two witness points, normal from a to
// b, depth = -distance), the two witness points (Bullet's solver takes each body's lever arm
// from its own one) and a Coulomb impulse (normal, t, s, 0) in Coulomb's tangent basis.
#pragma once
#include "bullet_world.h"

#include <coulomb/contact.h>
#include <coulomb/contact_problem.h>

#include <vector>

namespace bench {

struct BulletContacts {
  std::vector<coulomb::Contact> contacts;
  std::vector<coulomb::ContactCoefficients> coeffs;  // per contact, as Bullet combined them
  std::vector<coulomb::Vec3> on_a, on_b;             // witness points on bodies a and b (unit: m)
  std::vector<coulomb::Vec4> impulses;               // (normal, t, s, 0) (unit: N s)
  double max_penetration = 0.0;                      // (unit: m)
};

// Reads every manifold point of a pair with at least one moving body.
void read_contacts(BulletWorld& bw, const BulletSettings& settings, BulletContacts& out);

// Builds the contact problem Bullet's solver faced in the step, with Coulomb's Jacobians
// (contact_jacobian, seed 000 eq. 56) at the state before the step (x, q, u^t): lever arms to
// each body's witness point, free velocities u^t + dt M^-1 f (gravity and the implicit
// gyroscopic term, as Bullet's solver starts), and the normal rows' bias terms of Bullet's
// btSequentialImpulseConstraintSolver::setupContactConstraint: restitution e v_N^- above its
// velocity threshold, plus distance / dt for a separated point or Baumgarte erp * distance / dt
// for a penetration shallower than the split-impulse threshold (deeper ones are pushed apart
// outside the velocity solve).
void bullet_problem(BulletWorld& bw, const coulomb::RigidModel& model, const coulomb::RigidState& before,
                    const BulletContacts& contacts, coulomb::ContactProblem& out, std::vector<coulomb::Vec6>& u_free);

}  // namespace bench
