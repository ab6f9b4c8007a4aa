// The position-level step of seed 002 (xpbd-jacobi), for scenes with or without soft bodies:
//
//   2 detect     rigid contacts and soft contacts at q^l, with each body's reach over the step
//   3 assemble   PositionProblem: predicted DOFs (eq. 8), contacts with anchors fixed at q^l,
//                elements, attachments; impulses from zero (seed 002 algorithm 1), or for a
//                solver that warm-starts (newton-pcr) the last step's: rigid contacts by body
//                pair and point (State::contact_cache, as the velocity solvers), the other rows
//                by row (State::row_cache)
//   (seed 004)   for a solver with SolverInfo::candidates (cr-mlcp): candidate lists over the soft
//                and rigid surfaces, and PositionProblem::find_new_contacts, the CCD over them that
//                the solver calls at its convergence (seed 004 Algorithm 1 lines 5 and 25)
//   4+5 solve    the solver moves positions and velocities together (implicit Euler, eq. 7-13)
//   (seed 004)   a solve that ends unconverged: CCD from q^l to its end over the candidate lists;
//                on a hit every DOF goes back to 0.8 of the earliest time of impact
//   6 remember   the warm-starting solver's impulses, into the caches
//   7 record
//
// There is no separate integration or stabilisation stage: the solver's result is q^{l+1} and
// v^{l+1} (the scene's integrator and stabilisation settings apply to velocity-level solvers).
#include <coulomb/candidates.h>
#include <coulomb/ccd.h>
#include <coulomb/position_assembly.h>
#include <coulomb/soft_contacts.h>
#include <coulomb/world.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace coulomb {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

StepResult World::run_position_stages() {
  const auto t_step = Clock::now();
  const double dt = scene_.dt;
  stats_ = StepStats{};

  // 2 detect at q^l
  auto t0 = Clock::now();
  SoftDetectInput in;
  in.rigid = detect_input();
  stats_.pairs = detect_contacts(in.rigid, contacts_).pairs;
  drop_jointed_contacts(contacts_);
  if (StepResult capped = check_contact_caps(); !capped.ok()) return capped;
  detect_coefficients();
  in.soft.resize(soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    const SoftBody& b = soft_[i];
    double vmax = 0.0;
    Vec3 mean = Vec3::Zero();
    for (const Vec3& v : b.v) vmax = std::max(vmax, v.norm()), mean += v;
    if (!b.v.empty()) mean /= double(b.v.size());
    // two vertices close on each other at most at twice the largest speed about the mean velocity
    double spread = 0.0;
    for (const Vec3& v : b.v) spread = std::max(spread, (v - mean).norm());
    in.soft[i] = {&b.x, &b.faces, &b.surface_vertices, dt * (vmax + scene_.gravity.norm() * dt), &b.mesh.rest, 2.0 * dt * spread};
  }
  in.self_contacts = scene_.self_contacts;
  in.edge_edge = scene_.edge_edge;
  in.thickness = scene_.thickness;
  soft_contacts_.clear();
  if (!soft_.empty()) detect_soft_contacts(in, soft_detect_, soft_contacts_);  // trees refit in soft_detect_
  const std::size_t nm = scene_.materials.size();
  contact_mu_.resize(contacts_.size());
  for (std::size_t k = 0; k < contacts_.size(); ++k) contact_mu_[k] = coeffs_[k].mu[0];
  soft_contact_mu_.resize(soft_contacts_.size());
  const auto material_of = [&](const ContactSide& s) {
    return std::size_t(s.rigid >= 0 ? model_.material[std::size_t(s.rigid)] : soft_[std::size_t(s.soft)].material);
  };
  for (std::size_t k = 0; k < soft_contacts_.size(); ++k)
    soft_contact_mu_[k] = pair_coeffs_[material_of(soft_contacts_[k].a) * nm + material_of(soft_contacts_[k].b)].mu[0];
  stats_.detect_ms = ms_since(t0);

  // 3 assemble
  t0 = Clock::now();
  PositionAssemblyInput pin;
  pin.model = &model_;
  pin.state = &state_;
  pin.soft = &soft_;
  pin.contacts = &contacts_;
  pin.contact_mu = &contact_mu_;
  pin.soft_contacts = &soft_contacts_;
  pin.soft_contact_mu = &soft_contact_mu_;
  pin.attachments = &attachments_;
  pin.joints = &joints_;
  pin.gravity = scene_.gravity;
  pin.dt = dt;
  pin.wrench = &load_;
  pin.vertex_force = &vertex_load_;
  actuate_drives();  // at q^l, from which the solver's rows start
  assemble_position_problem(pin, pproblem_);  // every impulse starts at zero
  const bool warm = scene_.solver_options.warm_start &&
                    std::find(solver_->keys.begin(), solver_->keys.end(), "warm_start") != solver_->keys.end();
  if (warm) {
    warm_start();  // solution_.lambda: the cached impulse of each rigid contact that persists
    for (std::size_t k = 0; k < contacts_.size(); ++k) pproblem_.contact_impulse[k] = solution_.lambda[k].head<3>();
    pproblem_.set_row_impulses(row_cache_);
  }
  stats_.assemble_ms = ms_since(t0);

  // seed 004 (cr-mlcp): candidate lists over the soft and rigid surfaces, once per step
  // (Algorithm 1 line 5); the solver asks for new collisions along them with CCD at its
  // convergence (line 25). Surfaces: soft body i is surface i, then one per non-plane rigid body.
  std::vector<CandidateSurface> surfaces;
  CandidateLists lists;
  CandidateOptions co;
  // pairs already handed to the solver this step, with how many times: a pair that the CCD still
  // finds colliding at a later convergence slid past its contact (fixed weights and normal: an
  // edge sliding along an edge, a vertex leaving its triangle), so it is handed over again, with
  // the weights and normal of the new hit, up to kMaxReturns times
  constexpr int kMaxReturns = 4;
  std::map<std::array<int, 7>, int> returned;
  double min_toi = 1.0;  // the earliest time of impact of any CCD hit (returned or not) of the last call
  const std::vector<int> base = particle_offsets(soft_);
  const int ns = int(soft_.size());
  std::vector<int> rigid_body;                       // rigid surface -> body
  std::vector<std::vector<Vec3>> rigid_local, rigid_x0, rigid_v;
  std::vector<std::vector<std::array<int, 3>>> rigid_faces;
  if (solver_->candidates && !soft_.empty()) {
    for (int i = 0; i < model_.size(); ++i) {
      std::vector<Vec3> local;
      std::vector<std::array<int, 3>> faces;
      if (model_.shape[std::size_t(i)] < 0) continue;  // no shape: collides with nothing
      shape_triangles(scene_.shapes, model_.shape[std::size_t(i)], local, faces);
      if (faces.empty()) continue;
      const Pose pose = shape_pose(model_, state_, i);
      std::vector<Vec3> x0(local.size()), v(local.size());
      for (std::size_t k = 0; k < local.size(); ++k) {
        x0[k] = pose.apply(local[k]);
        v[k] = state_.v[std::size_t(i)] + state_.w[std::size_t(i)].cross(x0[k] - state_.x[std::size_t(i)]);
      }
      rigid_body.push_back(i);
      rigid_local.push_back(std::move(local));
      rigid_x0.push_back(std::move(x0));
      rigid_v.push_back(std::move(v));
      rigid_faces.push_back(std::move(faces));
    }
    for (int i = 0; i < ns; ++i) {
      CandidateSurface c;
      c.x = &soft_[std::size_t(i)].x;
      c.v = &soft_[std::size_t(i)].v;
      c.faces = &soft_[std::size_t(i)].faces;
      c.soft = i;
      surfaces.push_back(c);
    }
    for (std::size_t r = 0; r < rigid_body.size(); ++r) {
      CandidateSurface c;
      c.x = &rigid_x0[r];
      c.v = &rigid_v[r];
      c.faces = &rigid_faces[r];
      c.rigid = rigid_body[r];
      c.fixed = model_.fixed[std::size_t(rigid_body[r])] != 0;
      c.self = false;
      surfaces.push_back(c);
    }
    co.dt = dt;
    build_candidates(surfaces, co, lists);
    pproblem_.find_new_contacts = [&](const Configuration& end, std::vector<ContactConstraint>& out) {
      // end positions of every surface's vertices
      std::vector<std::vector<Vec3>> x_now(surfaces.size());
      std::vector<const std::vector<Vec3>*> x_ptr(surfaces.size());
      for (int i = 0; i < ns; ++i)
        x_now[std::size_t(i)].assign(end.px + base[std::size_t(i)], end.px + base[std::size_t(i) + 1]);
      for (std::size_t r = 0; r < rigid_body.size(); ++r) {
        const int b = rigid_body[r];
        const Pose pose = Pose{end.x[b], end.q[b]} * model_.shape_in_body[std::size_t(b)];
        for (const Vec3& l : rigid_local[r]) x_now[std::size_t(ns) + r].push_back(pose.apply(l));
      }
      for (std::size_t i = 0; i < surfaces.size(); ++i) x_ptr[i] = &x_now[i];
      recheck_candidates(surfaces, x_ptr, co, lists);  // s.5.2: vertices that left their boxes
      min_toi = 1.0;
      const auto x0 = [&](int s, int v) { return (*surfaces[std::size_t(s)].x)[std::size_t(v)]; };
      const auto x1 = [&](int s, int v) { return x_now[std::size_t(s)][std::size_t(v)]; };
      const auto material = [&](int s) {
        return std::size_t(s < ns ? soft_[std::size_t(s)].material : model_.material[std::size_t(rigid_body[std::size_t(s - ns)])]);
      };
      // a side over up to three vertices of surface s with weights w: particles, or a point of a
      // rigid body in its body frame (relative to the centre of mass at the start of the step)
      const auto side = [&](int s, std::array<int, 3> v, const std::array<double, 3>& w, int n) {
        ConstraintSide out_side;
        if (s < ns) {
          for (int i = 0; i < n; ++i) out_side.particle[std::size_t(i)] = base[std::size_t(s)] + v[std::size_t(i)];
          out_side.weight = Vec3(w[0], n > 1 ? w[1] : 0.0, n > 2 ? w[2] : 0.0);
          return out_side;
        }
        const int b = rigid_body[std::size_t(s - ns)];
        Vec3 p = Vec3::Zero();
        for (int i = 0; i < n; ++i) p += w[std::size_t(i)] * x0(s, v[std::size_t(i)]);
        out_side.rigid = b;
        out_side.anchor = state_.q[std::size_t(b)].conjugate() * (p - state_.x[std::size_t(b)]);
        out_side.body_frame = true;
        return out_side;
      };
      int added = 0;
      const auto push = [&](ContactConstraint k, int sa, int sb) {
        k.mu = pair_coeffs_[material(sa) * nm + material(sb)].mu[0];
        out.push_back(k);
        ++added;
      };
      for (const VertexFaceCandidate& c : lists.vf) {
        const std::array<int, 3>& f = (*surfaces[std::size_t(c.fs)].faces)[std::size_t(c.f)];
        const std::optional<CcdHit> hit =
            ccd_vertex_face(x0(c.vs, c.v), x0(c.fs, f[0]), x0(c.fs, f[1]), x0(c.fs, f[2]), x1(c.vs, c.v),
                            x1(c.fs, f[0]), x1(c.fs, f[1]), x1(c.fs, f[2]));
        if (hit) min_toi = std::min(min_toi, hit->toi);
        if (!hit || ++returned[{0, c.vs, c.v, c.fs, c.f, 0, 0}] > kMaxReturns) continue;
        ContactConstraint k;  // a: the triangle, b: the vertex; the normal from the face to the vertex
        k.a = side(c.fs, f, hit->wb, 3);
        k.b = side(c.vs, {c.v, -1, -1}, {1.0, 0.0, 0.0}, 1);
        k.normal = hit->normal;
        push(k, c.fs, c.vs);
      }
      for (const EdgeEdgeCandidate& c : lists.ee) {
        const std::optional<CcdHit> hit = ccd_edge_edge(x0(c.as, c.a0), x0(c.as, c.a1), x0(c.bs, c.b0), x0(c.bs, c.b1),
                                                        x1(c.as, c.a0), x1(c.as, c.a1), x1(c.bs, c.b0), x1(c.bs, c.b1));
        if (hit) min_toi = std::min(min_toi, hit->toi);
        if (!hit || ++returned[{1, c.as, c.a0, c.a1, c.bs, c.b0, c.b1}] > kMaxReturns) continue;
        ContactConstraint k;  // a: edge b, b: edge a; the normal from edge b to edge a
        k.a = side(c.bs, {c.b0, c.b1, -1}, hit->wb, 2);
        k.b = side(c.as, {c.a0, c.a1, -1}, hit->wa, 2);
        k.normal = hit->normal;
        push(k, c.bs, c.as);
      }
      return added;
    };
  }

  // 4+5 solve: positions and velocities of q^{l+1}
  // abs_tol scaled to the lightest body's weight over a step, as in run_stages (world.cpp)
  SolverOptions options = scene_.solver_options;
  if (solver_->impulse_tolerance && impulse_scale_ > 0.0) options.abs_tol = std::min(options.abs_tol, kImpulseTolerance * impulse_scale_);
  stats_.solver = solver_->solve_position(pproblem_, options);
  // A solve that ran out of iterations ends where no CCD has looked (line 25 runs at convergence):
  // CCD from the start to there, and if some pair collides on the way, every DOF goes back to the
  // fraction 0.8 toi of its step (positions and velocities scaled alike), where none does.
  if (pproblem_.find_new_contacts && !stats_.solver.converged) {
    PositionProblem& p = pproblem_;
    const std::vector<Vec3> w_zero(p.x.size(), Vec3::Zero());
    Configuration end;
    end.x = p.x.data();
    end.q = p.q.data();
    end.w = w_zero.data();
    end.h = dt;
    end.num_rigid = int(p.x.size());
    end.px = p.px.data();
    end.num_particles = int(p.px.size());
    std::vector<ContactConstraint> ignored;
    p.find_new_contacts(end, ignored);
    if (min_toi < 1.0) {
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
  }
  pproblem_.find_new_contacts = nullptr;  // it refers to this function's locals
  t0 = Clock::now();
  ccd_begin();
  store_position_result(pproblem_, state_, soft_);
  ccd_clamp();
  stats_.integrate_ms = ms_since(t0);

  // 6 remember: the rigid contacts' impulses (the first contacts_.size() of the problem's, in the
  // same tangent basis of the normal) and the other rows'
  if (warm) {
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      const Vec3& P = pproblem_.contact_impulse[k];
      solution_.lambda[k] = Vec4(P[0], P[1], P[2], 0.0);
    }
    remember_impulses();
    row_cache_ = pproblem_.row_impulses();
  }

  // 7 record
  record_stats();
  observe();  // joint states, actuator efforts (world_control.cpp)
  stats_.wall_ms = ms_since(t_step);
  return check_step();
}

}  // namespace coulomb
