// Rigid CCD stage (`collision.ccd: true`; collision/README.md "Rigid CCD").
//
// Each position update of a step (Moreau's explicit half step, the final integration, or the
// position-level solvers' result) is bracketed by ccd_begin / ccd_clamp. ccd_clamp sweeps every
// rigid body's shape from its pose before the update to its pose after it (rigid_ccd, Bullet's
// convex casts), and a fast body that hits something on the way is moved back along its motion
// to just before the time of impact: half the contact envelope short of it, so that the next
// detection sees the contact within its envelope and the solver stops the body there. Velocities
// are left to the solver (the clamp changes where a body is, not how fast it goes): a 2 cm ball
// at 200 m/s covers 2 m in a 10 ms step, and without the clamp the Moreau half step (or a solver
// that lets a speculative contact go) could carry it past a 2 cm plate between two detections.
#include <coulomb/ccd.h>
#include <coulomb/world.h>

#include <algorithm>

namespace coulomb {

void World::ccd_begin() {
  if (!scene_.ccd) return;
  const int nb = model_.size();
  ccd_before_.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) ccd_before_[std::size_t(i)] = state_.body_pose(i);
}

void World::ccd_clamp() {
  if (!scene_.ccd) return;
  const int nb = model_.size();
  std::vector<Pose> shape0(static_cast<std::size_t>(nb)), shape1(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    shape0[k] = ccd_before_[k] * model_.shape_in_body[k];
    shape1[k] = shape_pose(model_, state_, i);
  }
  RigidCcdInput in;
  in.shapes = &scene_.shapes;
  in.body_shape = &model_.shape;
  in.pose0 = &shape0;
  in.pose1 = &shape1;
  in.is_static = &model_.fixed;
  if (filtered_) {
    in.contype = &contype_;
    in.conaffinity = &conaffinity_;
  }
  in.excluded_pairs = &scene_.excluded_pairs;  // sorted by the constructor
  std::vector<RigidCcdHit> hits;
  rigid_ccd(in, hits);
  for (const RigidCcdHit& h : hits) {
    const auto k = std::size_t(h.body);
    const Vec3 x0 = ccd_before_[k].p, x1 = state_.x[k];
    const double moved = (x1 - x0).norm();
    if (!(moved > 0)) continue;
    const double t = std::max(0.0, h.toi - 0.5 * scene_.envelope / moved);
    state_.x[k] = x0 + t * (x1 - x0);
    state_.q[k] = ccd_before_[k].q.slerp(t, state_.q[k]).normalized();
  }
}

}  // namespace coulomb
