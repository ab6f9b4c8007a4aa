#include <coulomb/contact_assembly.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace coulomb {

namespace {

// contacts per task of the parallel assembly (~200 ns each on the Wall)
constexpr std::size_t kAssemblyGrain = 128;

// the bodies' part of a problem: inverse masses and world inverse inertias (eq. 58-60)
void set_bodies(const RigidModel& model, const RigidState& state, ContactProblem& out) {
  const int nb = model.size();
  out.inv_mass = model.inv_mass;
  out.inv_inertia.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) out.inv_inertia[std::size_t(i)] = world_inv_inertia(model, state, i);
}

// A problem of n contacts: the bodies, then fill(k) writes contact k (ContactProblem::set_contact)
// in parallel, then the derived blocks. Every entry is written, so a kept problem of about the
// same size is resized in place, not cleared and rebuilt; each contact depends on itself alone,
// so the result is the same bits on any thread count.
template <class Fill>
void fill_problem(const RigidModel& model, const RigidState& state, std::size_t n, ContactProblem& out, Fill&& fill) {
  set_bodies(model, state, out);
  out.joints.clear();
  out.resize_contacts(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kAssemblyGrain), [&](const auto& range) {
    for (std::size_t k = range.begin(); k < range.end(); ++k) {
      fill(k);
      out.finalize_contact(k);  // while contact k is in cache (a second pass would read it again)
    }
  });
  out.finish_finalize();
}

}  // namespace

ContactRows contact_rows(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b) {
  ContactRows J;
  contact_rows(n, t, s, r_a, r_b, J);
  return J;
}

void contact_rows(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b, ContactRows& J) {
  // eq. 56: J_{k,i} = [-C^T, -(r_i x C)^T; 0, -n^T], J_{k,j} = [C^T, (r_j x C)^T; 0, n^T], C = [n t s] (eq. 53)
  J.lin.row(0) = n.transpose();
  J.lin.row(1) = t.transpose();
  J.lin.row(2) = s.transpose();
  J.lin.row(3).setZero();  // no linear part in the torsion row
  J.ang_a.row(0) = -r_a.cross(n).transpose();
  J.ang_a.row(1) = -r_a.cross(t).transpose();
  J.ang_a.row(2) = -r_a.cross(s).transpose();
  J.ang_a.row(3) = -n.transpose();
  J.ang_b.row(0) = r_b.cross(n).transpose();
  J.ang_b.row(1) = r_b.cross(t).transpose();
  J.ang_b.row(2) = r_b.cross(s).transpose();
  J.ang_b.row(3) = n.transpose();
}

void contact_jacobian(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b,
                      Mat46& J_a, Mat46& J_b) {
  const ContactRows J = contact_rows(n, t, s, r_a, r_b);
  J_a = J.J_a();
  J_b = J.J_b();
}

void assemble_contacts(const RigidModel& model, const RigidState& state, const std::vector<Vec6>& u_free,
                       const std::vector<Contact>& contacts, const std::vector<ContactCoefficients>& coeffs,
                       const AssemblySettings& settings, ContactProblem& out) {
  fill_problem(model, state, contacts.size(), out, [&](std::size_t k) {
    const Contact& c = contacts[k];
    const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    ContactRows& J = out.rows[k];  // written in place: no temporary, no copy
    contact_rows(c.normal, t, s, c.point - state.x[a], c.point - state.x[b], J);

    const double gap = -c.depth;
    const double e = coeffs[k].restitution;
    // v_N^- = J_N u^t, needed only with restitution (a resting stack has none, and skips the
    // two Vec6 copies and the 4-row product per contact)
    const auto normal_velocity = [&] {
      Vec6 ua, ub;
      ua << state.v[a], state.w[a];
      ub << state.v[b], state.w[b];
      return J.velocity(ua, ub)[0];
    };
    const double v_pre = e > 0.0 ? normal_velocity() : 0.0;

    Vec4 bias = J.velocity(u_free[a], u_free[b]);  // J u_free, eq. 18
    if (e > 0.0 && v_pre < -settings.restitution_threshold && gap + settings.gap_horizon * v_pre <= 0.0)
      bias[0] += e * v_pre;                                   // eq. 14: v+ + e v- >= 0
    else if (gap > 0.0)
      bias[0] += gap / settings.gap_horizon;                  // speculative: close the gap, no more
    else if (settings.baumgarte_beta > 0.0)
      bias[0] += settings.baumgarte_beta * gap / settings.dt; // push out a fraction of the overlap
    out.set_contact(k, c.body_a, c.body_b, bias, coeffs[k].mu, c.point);
  });
}

}  // namespace coulomb

namespace coulomb {

void assemble_gap_problem(const RigidModel& model, const RigidState& state, const std::vector<Contact>& contacts,
                          ContactProblem& out) {
  fill_problem(model, state, contacts.size(), out, [&](std::size_t k) {
    const Contact& c = contacts[k];
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    contact_rows(c.normal, t, s, c.point - state.x[std::size_t(c.body_a)], c.point - state.x[std::size_t(c.body_b)],
                 out.rows[k]);
    out.set_contact(k, c.body_a, c.body_b, Vec4(-c.depth, 0.0, 0.0, 0.0), Vec3::Zero(), c.point);
  });
}

void assemble_gap_problem(const RigidModel& model, const RigidState& state, const std::vector<Contact>& contacts,
                          const std::vector<std::uint8_t>* still, NormalProblem& out) {
  const int nb = model.size();
  const std::vector<std::uint8_t>& hold = still ? *still : model.fixed;
  std::vector<double> inv_mass(std::size_t(nb), 0.0);
  std::vector<Mat3> inv_inertia(std::size_t(nb), Mat3::Zero());
  for (int i = 0; i < nb; ++i)
    if (!hold[std::size_t(i)]) {
      inv_mass[std::size_t(i)] = model.inv_mass[std::size_t(i)];
      inv_inertia[std::size_t(i)] = world_inv_inertia(model, state, i);
    }
  const std::size_t n = contacts.size();
  out.num_bodies = nb;
  out.body_a.resize(n);
  out.body_b.resize(n);
  out.rows.resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kAssemblyGrain), [&](const auto& range) {
    for (std::size_t k = range.begin(); k < range.end(); ++k) {
      const Contact& c = contacts[k];
      const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
      const Vec3& nrm = c.normal;
      // seed 000 eq. 56, row 0 (contact_rows): J_n = [-n^T, -(r_a x n)^T; n^T, (r_b x n)^T]
      const Vec3 ang_a = -(c.point - state.x[a]).cross(nrm), ang_b = (c.point - state.x[b]).cross(nrm);
      const Vec3 minv_a = inv_inertia[a] * ang_a, minv_b = inv_inertia[b] * ang_b;  // eq. 59-60
      NormalRow& r = out.rows[k];
      for (int j = 0; j < 3; ++j) {
        r.lin[j] = nrm[j];
        r.ang_a[j] = ang_a[j];
        r.ang_b[j] = ang_b[j];
        r.minv_a[j] = minv_a[j];
        r.minv_b[j] = minv_b[j];
      }
      r.inv_mass_a = inv_mass[a];
      r.inv_mass_b = inv_mass[b];
      r.b = -c.depth;  // eq. 49: the gap
      r.a_nn = (r.inv_mass_a + r.inv_mass_b) * nrm.squaredNorm() + ang_a.dot(minv_a) + ang_b.dot(minv_b);
      r.body_a = c.body_a;
      r.body_b = c.body_b;
      out.body_a[k] = c.body_a;
      out.body_b[k] = c.body_b;
    }
  });
}

}  // namespace coulomb
