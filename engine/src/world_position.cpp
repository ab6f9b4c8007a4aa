// The position-level step of seed 002 (xpbd-jacobi), for scenes with or without soft bodies:
//
//   2 detect     rigid contacts and soft contacts at q^l, with each body's reach over the step
//   3 assemble   PositionProblem: predicted DOFs (eq. 8), contacts with anchors fixed at q^l,
//                elements, attachments; impulses from zero (seed 002 algorithm 1)
//   4+5 solve    the solver moves positions and velocities together (implicit Euler, eq. 7-13)
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
  detect_coefficients();
  in.soft.resize(soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    const SoftBody& b = soft_[i];
    double vmax = 0.0;
    for (const Vec3& v : b.v) vmax = std::max(vmax, v.norm());
    in.soft[i] = {&b.x, &b.faces, &b.surface_vertices, dt * (vmax + scene_.gravity.norm() * dt)};
  }
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
  assemble_position_problem(pin, pproblem_);  // every impulse starts at zero (see solvers/README.md)
  stats_.assemble_ms = ms_since(t0);

  // seed 004 (cr-mlcp): candidate lists over the soft surfaces, once per step (Algorithm 1 line
  // 5); the solver asks for new collisions along them with CCD at its convergence (line 25)
  std::vector<CandidateSurface> surfaces;
  CandidateLists lists;
  CandidateOptions co;
  std::set<std::array<int, 6>> returned;  // pairs already handed to the solver this step
  const std::vector<int> base = particle_offsets(soft_);
  if (solver_->candidates && !soft_.empty()) {
    for (std::size_t i = 0; i < soft_.size(); ++i) {
      CandidateSurface c;
      c.x = &soft_[i].x;
      c.v = &soft_[i].v;
      c.faces = &soft_[i].faces;
      c.soft = int(i);
      surfaces.push_back(c);
    }
    co.dt = dt;
    build_candidates(surfaces, co, lists);
    pproblem_.find_new_contacts = [&](const std::vector<Vec3>& px_end, std::vector<ContactConstraint>& out) {
      const auto x0 = [&](int s, int v) { return soft_[std::size_t(s)].x[std::size_t(v)]; };
      const auto x1 = [&](int s, int v) { return px_end[std::size_t(base[std::size_t(s)] + v)]; };
      const auto mu = [&](int sa, int sb) {
        return pair_coeffs_[std::size_t(soft_[std::size_t(sa)].material) * nm + std::size_t(soft_[std::size_t(sb)].material)].mu[0];
      };
      // s.5.2: vertices that left their extended boxes bring their new pairs into the lists
      std::vector<std::vector<Vec3>> x_now(soft_.size());
      std::vector<const std::vector<Vec3>*> x_ptr(soft_.size());
      for (std::size_t i = 0; i < soft_.size(); ++i) {
        x_now[i].assign(px_end.begin() + base[i], px_end.begin() + base[i + 1]);
        x_ptr[i] = &x_now[i];
      }
      recheck_candidates(surfaces, x_ptr, co, lists);
      int added = 0;
      for (const VertexFaceCandidate& c : lists.vf) {
        const std::array<int, 3>& f = soft_[std::size_t(c.fs)].faces[std::size_t(c.f)];
        const std::optional<CcdHit> hit =
            ccd_vertex_face(x0(c.vs, c.v), x0(c.fs, f[0]), x0(c.fs, f[1]), x0(c.fs, f[2]), x1(c.vs, c.v),
                            x1(c.fs, f[0]), x1(c.fs, f[1]), x1(c.fs, f[2]));
        if (!hit || !returned.insert({0, c.vs, c.v, c.fs, c.f, 0}).second) continue;
        ContactConstraint k;  // a: the triangle, b: the vertex; the normal from the face to the vertex
        for (int i = 0; i < 3; ++i) k.a.particle[std::size_t(i)] = base[std::size_t(c.fs)] + f[std::size_t(i)];
        k.a.weight = Vec3(hit->wb[0], hit->wb[1], hit->wb[2]);
        k.b.particle[0] = base[std::size_t(c.vs)] + c.v;
        k.b.weight = Vec3(1, 0, 0);
        k.normal = hit->normal;
        k.mu = mu(c.vs, c.fs);
        out.push_back(k);
        ++added;
      }
      for (const EdgeEdgeCandidate& c : lists.ee) {
        const std::optional<CcdHit> hit = ccd_edge_edge(x0(c.as, c.a0), x0(c.as, c.a1), x0(c.bs, c.b0), x0(c.bs, c.b1),
                                                        x1(c.as, c.a0), x1(c.as, c.a1), x1(c.bs, c.b0), x1(c.bs, c.b1));
        if (!hit || !returned.insert({1, c.as, c.a0, c.a1, c.bs, c.b0 * 1000003 + c.b1}).second) continue;
        ContactConstraint k;  // a: edge b, b: edge a; the normal from edge b to edge a
        k.a.particle = {base[std::size_t(c.bs)] + c.b0, base[std::size_t(c.bs)] + c.b1, -1};
        k.a.weight = Vec3(hit->wb[0], hit->wb[1], 0.0);
        k.b.particle = {base[std::size_t(c.as)] + c.a0, base[std::size_t(c.as)] + c.a1, -1};
        k.b.weight = Vec3(hit->wa[0], hit->wa[1], 0.0);
        k.normal = hit->normal;
        k.mu = mu(c.as, c.bs);
        out.push_back(k);
        ++added;
      }
      return added;
    };
  }

  // 4+5 solve: positions and velocities of q^{l+1}
  stats_.solver = solver_->solve_position(pproblem_, scene_.solver_options);
  pproblem_.find_new_contacts = nullptr;  // it refers to this function's locals
  t0 = Clock::now();
  store_position_result(pproblem_, state_, soft_);
  stats_.integrate_ms = ms_since(t0);

  // 7 record
  record_stats();
  stats_.wall_ms = ms_since(t_step);
  return check_state();
}

}  // namespace coulomb
