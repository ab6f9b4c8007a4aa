// Time integration of rigid bodies (seed 000 section 4.3 and appendix A).
//
// A step is split into stages the World sequences: the Moreau midpoint scheme (eq. 41-42) is
//   integrate_positions(h/2) -> detect/assemble at q^{t+1/2} -> solve ->
//   apply_velocities -> integrate_positions(h/2),
// and semi-implicit Euler is detect at q^t -> solve -> apply_velocities -> integrate_positions(h).
#pragma once
#include <coulomb/rigid_bodies.h>

#include <cstdint>
#include <vector>

namespace coulomb {

// Every function here leaves the fixed bodies alone, or, when `still` (nb) is given, the bodies it
// marks (the fixed ones and the sleeping ones, solvers/sleep.h): their state is not touched.

// x += h v and Q += h Gamma(Q) w followed by normalisation (eq. 65-67). Fixed bodies stay put.
void integrate_positions(const RigidModel& m, RigidState& s, double h,
                         const std::vector<std::uint8_t>* still = nullptr);

// Unconstrained velocities u + h M^-1 h(q, u) with h from eq. 61 (gravity, gyroscopic term).
// With `implicit_gyroscopic` the gyroscopic term is integrated with one Newton step of the
// backward-Euler equation I (w2 - w1) + h w2 x I w2 = 0 in the body frame, which conserves
// spin about stable axes where the explicit term gains energy. `wrench` (nb), when given, adds
// applied loads: force (N) and torque (N m) at the centre of mass, world frame. A held kinematic
// body's u is its own velocity (RigidModel::kinematic). Output: (v, w) per body.
void free_velocities(const RigidModel& m, const RigidState& s, const Vec3& gravity, double h,
                     bool implicit_gyroscopic, std::vector<Vec6>& u_free,
                     const std::vector<std::uint8_t>* still = nullptr, const std::vector<Vec6>* wrench = nullptr);  // still bodies get u = 0

// u^{t+1} = u_free + dw (eq. 42b with dw = M^-1 J^T lambda), written into the state.
void apply_velocities(const RigidModel& m, const std::vector<Vec6>& u_free, const std::vector<Vec6>& dw, RigidState& s,
                      const std::vector<std::uint8_t>* still = nullptr);

// dQ/dt = Gamma(Q) w (eq. 65), w in the world frame, Q = (w, x, y, z).
Eigen::Vector4d quaternion_rate(const Quat& q, const Vec3& w);

}  // namespace coulomb

namespace coulomb {

// q^corrected = q + M^-1 J^T lambda (seed 000 eq. 51): dq holds (dx, dtheta) per body; the
// rotation dtheta is applied to the orientation to first order and renormalised.
void apply_displacements(const RigidModel& m, const std::vector<Vec6>& dq, RigidState& s,
                         const std::vector<std::uint8_t>* still = nullptr);

}  // namespace coulomb
