#include <coulomb/contact_assembly.h>

namespace coulomb {

namespace {

// the bodies' part of a problem: inverse masses and world inverse inertias (eq. 58-60)
void set_bodies(const RigidModel& model, const RigidState& state, ContactProblem& out) {
  const int nb = model.size();
  out.inv_mass = model.inv_mass;
  out.inv_inertia.resize(std::size_t(nb));
  for (int i = 0; i < nb; ++i) out.inv_inertia[std::size_t(i)] = world_inv_inertia(model, state, i);
  out.clear_contacts();
}

}  // namespace

void contact_jacobian(const Vec3& n, const Vec3& t, const Vec3& s, const Vec3& r_a, const Vec3& r_b,
                      Mat46& J_a, Mat46& J_b) {
  Mat3 C;
  C << n, t, s;  // eq. 53
  // eq. 56: J_{k,i} = [-C^T, -(r_i x C)^T; 0, -n^T], J_{k,j} = [C^T, (r_j x C)^T; 0, n^T]
  J_b.setZero();
  J_b.topLeftCorner<3, 3>() = C.transpose();
  J_b.topRightCorner<3, 3>() = (skew(r_b) * C).transpose();
  J_b.block<1, 3>(3, 3) = n.transpose();
  J_a.setZero();
  J_a.topLeftCorner<3, 3>() = -C.transpose();
  J_a.topRightCorner<3, 3>() = -(skew(r_a) * C).transpose();
  J_a.block<1, 3>(3, 3) = -n.transpose();
}

void assemble_contacts(const RigidModel& model, const RigidState& state, const std::vector<Vec6>& u_free,
                       const std::vector<Contact>& contacts, const std::vector<ContactCoefficients>& coeffs,
                       const AssemblySettings& settings, ContactProblem& out) {
  set_bodies(model, state, out);

  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    Mat46 Ja, Jb;
    contact_jacobian(c.normal, t, s, c.point - state.x[a], c.point - state.x[b], Ja, Jb);

    Vec6 ua, ub;
    ua << state.v[a], state.w[a];
    ub << state.v[b], state.w[b];
    const double v_pre = (Ja * ua + Jb * ub)[0];  // v_N^- = J_N u^t
    const double gap = -c.depth;
    const double e = coeffs[k].restitution;

    Vec4 bias = Ja * u_free[a] + Jb * u_free[b];  // J u_free, eq. 18
    if (e > 0.0 && v_pre < -settings.restitution_threshold && gap + settings.gap_horizon * v_pre <= 0.0)
      bias[0] += e * v_pre;                                   // eq. 14: v+ + e v- >= 0
    else if (gap > 0.0)
      bias[0] += gap / settings.gap_horizon;                  // speculative: close the gap, no more
    else if (settings.baumgarte_beta > 0.0)
      bias[0] += settings.baumgarte_beta * gap / settings.dt; // push out a fraction of the overlap
    out.add_contact(c.body_a, c.body_b, Ja, Jb, bias, coeffs[k].mu, c.point);
  }
  out.finalize();
}

}  // namespace coulomb

namespace coulomb {

void assemble_gap_problem(const RigidModel& model, const RigidState& state, const std::vector<Contact>& contacts,
                          ContactProblem& out) {
  set_bodies(model, state, out);
  for (const Contact& c : contacts) {
    Vec3 t, s;
    tangent_basis(c.normal, t, s);
    Mat46 Ja, Jb;
    contact_jacobian(c.normal, t, s, c.point - state.x[std::size_t(c.body_a)], c.point - state.x[std::size_t(c.body_b)],
                     Ja, Jb);
    out.add_contact(c.body_a, c.body_b, Ja, Jb, Vec4(-c.depth, 0.0, 0.0, 0.0), Vec3::Zero(), c.point);
  }
  out.finalize();
}

}  // namespace coulomb
