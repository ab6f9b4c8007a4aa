// Assembly helpers of the ContactProblem: derived blocks and matrix-free products.
#include <coulomb/assert.h>
#include <coulomb/contact_problem.h>

namespace coulomb {

void ContactProblem::clear_contacts() {
  body_a.clear(); body_b.clear(); J_a.clear(); J_b.clear(); b.clear(); mu.clear(); point.clear();
  MinvJT_a.clear(); MinvJT_b.clear(); A_diag.clear();
  joints.clear();
}

void ContactProblem::add_contact(int a, int b_body, const Mat46& Ja, const Mat46& Jb, const Vec4& bias, const Vec3& mu_k,
                                 const Vec3& position) {
  body_a.push_back(a); body_b.push_back(b_body);
  J_a.push_back(Ja); J_b.push_back(Jb); b.push_back(bias); mu.push_back(mu_k); point.push_back(position);
}

// M^-1 J^T for one body: the linear part scales by 1/m, the angular part by I^-1 (eq. 59-60).
static Mat64 minv_jt(double inv_m, const Mat3& inv_I, const Mat46& J) {
  Mat64 out;
  out.topRows<3>() = inv_m * J.leftCols<3>().transpose();
  out.bottomRows<3>() = inv_I * J.rightCols<3>().transpose();
  return out;
}

void ContactProblem::finalize() {
  const int nc = num_contacts();
  COULOMB_ASSERT(inv_inertia.size() == inv_mass.size(), "ContactProblem: one inverse inertia per body");
  MinvJT_a.resize(std::size_t(nc)); MinvJT_b.resize(std::size_t(nc)); A_diag.resize(std::size_t(nc));
  for (int k = 0; k < nc; ++k) {
    const auto a = std::size_t(body_a[std::size_t(k)]), bb = std::size_t(body_b[std::size_t(k)]);
    MinvJT_a[std::size_t(k)] = minv_jt(inv_mass[a], inv_inertia[a], J_a[std::size_t(k)]);
    MinvJT_b[std::size_t(k)] = minv_jt(inv_mass[bb], inv_inertia[bb], J_b[std::size_t(k)]);
    A_diag[std::size_t(k)] = J_a[std::size_t(k)] * MinvJT_a[std::size_t(k)] + J_b[std::size_t(k)] * MinvJT_b[std::size_t(k)];
  }
  joints.finalize(inv_mass, inv_inertia);
}

void ContactProblem::body_impulse_response(const std::vector<Vec4>& lambda, std::vector<Vec6>& w) const {
  w.assign(std::size_t(num_bodies()), Vec6::Zero());
  for (std::size_t k = 0; k < body_a.size(); ++k) {
    w[std::size_t(body_a[k])] += MinvJT_a[k] * lambda[k];
    w[std::size_t(body_b[k])] += MinvJT_b[k] * lambda[k];
  }
}

void ContactProblem::body_impulse_response(const std::vector<Vec4>& lambda, const std::vector<double>& joint_lambda,
                                           std::vector<Vec6>& w) const {
  body_impulse_response(lambda, w);
  if (joints.rows() > 0 && joint_lambda.size() == std::size_t(joints.rows())) joints.add_impulse_response(joint_lambda, w);
}

void ContactProblem::contact_velocities(const std::vector<Vec6>& w, std::vector<Vec4>& v) const {
  v.resize(body_a.size());
  for (std::size_t k = 0; k < body_a.size(); ++k)
    v[k] = J_a[k] * w[std::size_t(body_a[k])] + J_b[k] * w[std::size_t(body_b[k])] + b[k];
}

}  // namespace coulomb
