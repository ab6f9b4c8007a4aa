// Rigid CCD stage (`collision.ccd: true`; collision/README.md "Rigid CCD").
//
// Each position update of a step (Moreau's explicit half step, the final integration, or the
// position-level solvers' result) is bracketed by ccd_begin / ccd_clamp inside its stage. ccd_clamp sweeps every
// rigid body's shape from its pose before the update to its pose after it (rigid_ccd, Bullet's
// convex casts), and a fast body that hits something on the way is moved back along its motion
// to just before the time of impact: half the contact envelope short of it, so that the next
// detection sees the contact within its envelope and the solver stops the body there. Velocities
// are left to the solver (the clamp changes where a body is, not how fast it goes): a 2 cm ball
// at 200 m/s covers 2 m in a 10 ms step, and without the clamp the Moreau half step (or a solver
// that lets a speculative contact go) could carry it past a 2 cm plate between two detections.
#include "step_context.h"

#include <coulomb/ccd.h>

#include <algorithm>

namespace coulomb {

void ccd_begin(StepContext& c) {
  if (!c.scene.ccd) return;
  const int nb = c.model.rigid.size();
  c.buf.ccd_before.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) c.buf.ccd_before[std::size_t(i)] = c.state.body_pose(i);
}

void ccd_clamp(StepContext& c) {
  if (!c.scene.ccd) return;
  const RigidModel& model = c.model.rigid;
  const std::vector<Pose>& before = c.buf.ccd_before;
  RigidState& state = c.state;
  const int nb = model.size();
  std::vector<Pose> shape0(static_cast<std::size_t>(nb)), shape1(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    shape0[k] = before[k] * model.shape_in_body[k];
    shape1[k] = shape_pose(model, state, i);
  }
  RigidCcdInput in;
  in.shapes = &c.scene.shapes;
  in.body_shape = &model.shape;
  in.pose0 = &shape0;
  in.pose1 = &shape1;
  in.is_static = &model.fixed;
  if (c.model.filtered) {
    in.contype = &c.model.contype;
    in.conaffinity = &c.model.conaffinity;
  }
  in.excluded_pairs = &c.scene.excluded_pairs;  // sorted by build_world_model
  std::vector<RigidCcdHit> hits;
  rigid_ccd(in, hits);
  for (const RigidCcdHit& h : hits) {
    const auto k = std::size_t(h.body);
    const Vec3 x0 = before[k].p, x1 = state.x[k];
    const double moved = (x1 - x0).norm();
    if (!(moved > 0)) continue;
    const double t = std::max(0.0, h.toi - 0.5 * c.scene.envelope / moved);
    state.x[k] = x0 + t * (x1 - x0);
    state.q[k] = before[k].q.slerp(t, state.q[k]).normalized();
  }
}

}  // namespace coulomb
