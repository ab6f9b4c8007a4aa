// The position-level stages of seed 002 (xpbd-jacobi, newton-pcr, cr-mlcp), for scenes with or
// without soft bodies:
//
//   2 detect     rigid contacts and soft contacts at q^l, with each body's reach over the step
//   3 assemble   PositionProblem: predicted DOFs (eq. 8), contacts with anchors fixed at q^l,
//                elements, attachments; impulses from zero (seed 002 algorithm 1), or for a
//                solver that warm-starts (newton-pcr) the last step's: rigid contacts by body
//                pair and point (State::contact_cache, as the velocity solvers), the other rows
//                by row (State::row_cache)
//   4+5 solve    the solver moves positions and velocities together (implicit Euler, eq. 7-13).
//                For a solver with SolverInfo::candidates (cr-mlcp, seed 004): candidate lists
//                over the soft and rigid surfaces (collision/candidate_contacts.h), and
//                PositionProblem::find_new_contacts, the CCD over them that the solver calls at
//                its convergence (Algorithm 1 lines 5 and 25). A solve that ends unconverged
//                gets CCD from q^l to its end over the lists; on a hit every DOF goes back to
//                0.8 of the earliest time of impact.
//   6 remember   the warm-starting solver's impulses, into the caches
//
// There is no separate integration or stabilisation stage: the solver's result is q^{l+1} and
// v^{l+1} (the scene's integrator and stabilisation settings apply to velocity-level solvers).
#include "step_context.h"

#include <coulomb/detect.h>
#include <coulomb/position_assembly.h>
#include <coulomb/soft_contacts.h>
#include <coulomb/timer.h>

#include <algorithm>

namespace coulomb {

namespace {

std::size_t material_of(const StepContext& c, const ContactSide& s) {
  return std::size_t(s.rigid >= 0 ? c.model.rigid.material[std::size_t(s.rigid)] : c.soft[std::size_t(s.soft)].material);
}

// The soft bodies' surfaces at q^l with the reach of their vertices over the step.
SoftDetectInput soft_detect_input(const StepContext& c) {
  SoftDetectInput in;
  in.soft.resize(c.soft.size());
  const double dt = c.dt;
  for (std::size_t i = 0; i < c.soft.size(); ++i) {
    const SoftBody& b = c.soft[i];
    double vmax = 0.0;
    Vec3 mean = Vec3::Zero();
    for (const Vec3& v : b.v) vmax = std::max(vmax, v.norm()), mean += v;
    if (!b.v.empty()) mean /= double(b.v.size());
    // two vertices close on each other at most at twice the largest speed about the mean velocity
    double spread = 0.0;
    for (const Vec3& v : b.v) spread = std::max(spread, (v - mean).norm());
    in.soft[i] = {&b.x, &b.faces, &b.surface_vertices, dt * (vmax + c.scene.gravity.norm() * dt), &b.mesh.rest, 2.0 * dt * spread};
  }
  in.self_contacts = c.scene.self_contacts;
  in.edge_edge = c.scene.edge_edge;
  in.thickness = c.scene.thickness;
  return in;
}

// A side of a candidate hit as the solver's constraint side: particles with weights, or a point
// of a rigid body in its body frame (relative to the centre of mass at the start of the step).
ConstraintSide constraint_side(const StepContext& c, const CandidateSide& s, const std::vector<int>& base) {
  const CandidateContacts& cc = c.buf.candidates;
  ConstraintSide out;
  if (s.surface < cc.soft_count()) {
    for (int i = 0; i < s.count; ++i) out.particle[std::size_t(i)] = base[std::size_t(s.surface)] + s.vertex[std::size_t(i)];
    out.weight = Vec3(s.weight[0], s.weight[1], s.weight[2]);
    return out;
  }
  const auto b = std::size_t(cc.rigid_body(s.surface));
  out.rigid = int(b);
  out.anchor = c.state.q[b].conjugate() * (s.start - c.state.x[b]);
  out.body_frame = true;
  return out;
}

// Seed 004 (cr-mlcp): candidate lists over the soft and rigid surfaces, once a step (Algorithm 1
// line 5), and PositionProblem::find_new_contacts, which hands the solver the contacts that CCD
// finds along them at its convergence (line 25).
void begin_candidates(StepContext& c) {
  StepBuffers& buf = c.buf;
  buf.candidates.clear();
  if (!c.solver.candidates || c.soft.empty()) return;
  const RigidModel& model = c.model.rigid;
  std::vector<int> base = particle_offsets(c.soft);
  std::vector<CandidateSoftSurface> soft(c.soft.size());
  for (std::size_t i = 0; i < c.soft.size(); ++i) soft[i] = {&c.soft[i].x, &c.soft[i].v, &c.soft[i].faces, base[i]};
  std::vector<CandidateRigidBody> rigid(std::size_t(model.size()));
  for (int i = 0; i < model.size(); ++i) {
    const auto k = std::size_t(i);
    rigid[k] = {model.shape[k], shape_pose(model, c.state, i), c.state.x[k], c.state.v[k], c.state.w[k], model.fixed[k] != 0};
  }
  buf.candidates.begin(c.scene.shapes, soft, rigid, c.dt);
  const std::size_t nm = c.scene.materials.size();
  buf.pproblem.find_new_contacts = [&c, base = std::move(base), nm](const Configuration& end,
                                                                     std::vector<ContactConstraint>& out) {
    const RigidModel& m = c.model.rigid;
    std::vector<Pose> shape_end(std::size_t(m.size()));
    for (int b = 0; b < m.size(); ++b) shape_end[std::size_t(b)] = Pose{end.x[b], end.q[b]} * m.shape_in_body[std::size_t(b)];
    std::vector<CandidateHit> hits;
    CandidateContacts& cc = c.buf.candidates;
    const int added = cc.find(end.px, shape_end, hits);
    const auto material = [&](int s) {
      return std::size_t(s < cc.soft_count() ? c.soft[std::size_t(s)].material : m.material[std::size_t(cc.rigid_body(s))]);
    };
    for (const CandidateHit& h : hits) {
      ContactConstraint k;
      k.a = constraint_side(c, h.a, base);
      k.b = constraint_side(c, h.b, base);
      k.normal = h.normal;
      k.mu = c.model.pair_coeffs[material(h.a.surface) * nm + material(h.b.surface)].mu[0];
      out.push_back(k);
    }
    return added;
  };
}

// A solve that ran out of iterations ends where no CCD has looked (line 25 runs at convergence):
// CCD from the start to there, and if some pair collides on the way, every DOF goes back to the
// fraction 0.8 toi of its step (positions and velocities scaled alike), where none does.
void back_off_unconverged(StepContext& c) {
  PositionProblem& p = c.buf.pproblem;
  const std::vector<Vec3> w_zero(p.x.size(), Vec3::Zero());
  Configuration end;
  end.x = p.x.data();
  end.q = p.q.data();
  end.w = w_zero.data();
  end.h = c.dt;
  end.num_rigid = int(p.x.size());
  end.px = p.px.data();
  end.num_particles = int(p.px.size());
  std::vector<ContactConstraint> ignored;
  p.find_new_contacts(end, ignored);
  const double min_toi = c.buf.candidates.min_toi();
  if (!(min_toi < 1.0)) return;
  const double t = 0.8 * min_toi;
  for (std::size_t i = 0; i < p.px.size(); ++i) {
    p.px[i] = p.px0[i] + t * (p.px[i] - p.px0[i]);
    p.pv[i] *= t;
  }
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    if (p.inv_mass[i] == 0.0) continue;
    p.x[i] = p.x0[i] + t * (p.x[i] - p.x0[i]);
    p.q[i] = p.q0[i].slerp(t, p.q[i]).normalized();
    p.v[i] *= t;
    p.w[i] *= t;
  }
}

}  // namespace

StepResult detect_position(StepContext& c) {
  ScopedTimer timer(c.stats.detect_ms);
  StepBuffers& b = c.buf;
  SoftDetectInput in = soft_detect_input(c);
  in.rigid = detect_input(c);
  c.stats.pairs = detect_contacts(in.rigid, b.contacts).pairs;
  drop_jointed_contacts(c.model, b.contacts);
  if (StepResult capped = check_contact_caps(c); !capped.ok()) return capped;
  detect_coefficients(c);
  b.soft_contacts.clear();
  if (!c.soft.empty()) detect_soft_contacts(in, b.soft_detect, b.soft_contacts);  // trees refit in soft_detect
  const std::size_t nm = c.scene.materials.size();
  b.contact_mu.resize(b.contacts.size());
  for (std::size_t k = 0; k < b.contacts.size(); ++k) b.contact_mu[k] = b.coeffs[k].mu[0];
  b.soft_contact_mu.resize(b.soft_contacts.size());
  for (std::size_t k = 0; k < b.soft_contacts.size(); ++k)
    b.soft_contact_mu[k] = c.model.pair_coeffs[material_of(c, b.soft_contacts[k].a) * nm + material_of(c, b.soft_contacts[k].b)].mu[0];
  return {};
}

bool assemble_position(StepContext& c) {
  ScopedTimer timer(c.stats.assemble_ms);
  StepBuffers& b = c.buf;
  PositionAssemblyInput pin;
  pin.model = &c.model.rigid;
  pin.state = &c.state;
  pin.soft = &c.soft;
  pin.contacts = &b.contacts;
  pin.contact_mu = &b.contact_mu;
  pin.soft_contacts = &b.soft_contacts;
  pin.soft_contact_mu = &b.soft_contact_mu;
  pin.attachments = &c.model.attachments;
  pin.joints = &c.model.joints;
  pin.gravity = c.scene.gravity;
  pin.dt = c.dt;
  pin.wrench = &b.load;
  pin.vertex_force = &b.vertex_load;
  assemble_position_problem(pin, b.pproblem);  // every impulse starts at zero
  const bool warm = c.scene.solver_options.warm_start &&
                    std::find(c.solver.keys.begin(), c.solver.keys.end(), "warm_start") != c.solver.keys.end();
  if (warm) {
    warm_start(c);  // buf.solution.lambda: the cached impulse of each rigid contact that persists
    for (std::size_t k = 0; k < b.contacts.size(); ++k) b.pproblem.contact_impulse[k] = b.solution.lambda[k].head<3>();
    b.pproblem.set_row_impulses(c.cache.rows);
  }
  return warm;
}

void solve_position(StepContext& c) {
  begin_candidates(c);
  c.stats.solver = c.solver.solve_position(c.buf.pproblem, c.options);
  if (c.buf.pproblem.find_new_contacts && !c.stats.solver.converged) back_off_unconverged(c);
  c.buf.pproblem.find_new_contacts = nullptr;  // it refers to the step's context
  ScopedTimer timer(c.stats.integrate_ms);
  ccd_begin(c);
  store_position_result(c.buf.pproblem, c.state, c.soft);
  ccd_clamp(c);
}

// The rigid contacts' impulses (the first contacts of the problem's, in the same tangent basis
// of the normal) and the other rows'.
void remember_position(StepContext& c) {
  StepBuffers& b = c.buf;
  for (std::size_t k = 0; k < b.contacts.size(); ++k) {
    const Vec3& P = b.pproblem.contact_impulse[k];
    b.solution.lambda[k] = Vec4(P[0], P[1], P[2], 0.0);
  }
  remember_impulses(c);
  c.cache.rows = b.pproblem.row_impulses();
}

}  // namespace coulomb
