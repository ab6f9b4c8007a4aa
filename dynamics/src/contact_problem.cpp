// Assembly helpers of the ContactProblem: derived blocks and matrix-free products.
#include <coulomb/assert.h>
#include <coulomb/contact_problem.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <stdexcept>

namespace coulomb {

namespace {
// contacts per task of finalize()
constexpr int kFinalizeGrain = 128;
// how far ahead body_impulse_response asks for a contact's bodies
constexpr std::size_t kResponsePrefetch = 8;
// the size of `angular` for n contacts: each contact's I^-1 A^T kept up to kKeptResponses, else none
constexpr std::size_t kept_responses(std::size_t n) { return n <= ContactProblem::kKeptResponses ? n : 0; }
}  // namespace

void ContactProblem::clear_contacts() {
  body_a.clear(); body_b.clear(); rows.clear(); b.clear(); mu.clear(); point.clear();
  A_diag.clear();
  angular.clear();
  finalized = false;
  joints.clear();
}

void ContactProblem::reserve_contacts(std::size_t n) {
  body_a.reserve(n); body_b.reserve(n); rows.reserve(n); b.reserve(n); mu.reserve(n); point.reserve(n);
  A_diag.reserve(n);
}

void ContactProblem::resize_contacts(std::size_t n) {
  body_a.resize(n); body_b.resize(n); rows.resize(n); b.resize(n); mu.resize(n); point.resize(n);
  A_diag.resize(n);
  angular.resize(kept_responses(n));
  finalized = false;
}

void ContactProblem::set_contact(std::size_t k, int a, int b_body, const ContactRows& J, const Vec4& bias,
                                 const Vec3& mu_k, const Vec3& position) {
  rows[k] = J;
  set_contact(k, a, b_body, bias, mu_k, position);
}

void ContactProblem::set_contact(std::size_t k, int a, int b_body, const Vec4& bias, const Vec3& mu_k,
                                 const Vec3& position) {
  body_a[k] = a; body_b[k] = b_body;
  b[k] = bias; mu[k] = mu_k; point[k] = position;
  finalized = false;
}

void ContactProblem::add_contact(int a, int b_body, const ContactRows& J, const Vec4& bias, const Vec3& mu_k,
                                 const Vec3& position) {
  body_a.push_back(a); body_b.push_back(b_body);
  rows.push_back(J); b.push_back(bias); mu.push_back(mu_k); point.push_back(position);
  finalized = false;
}

void ContactProblem::add_contact(int a, int b_body, const Mat46& Ja, const Mat46& Jb, const Vec4& bias, const Vec3& mu_k,
                                 const Vec3& position) {
  if (Ja.topLeftCorner<3, 3>() != -Jb.topLeftCorner<3, 3>() || !Ja.block<1, 3>(3, 0).isZero(0.0) ||
      !Jb.block<1, 3>(3, 0).isZero(0.0))
    throw std::invalid_argument("ContactProblem::add_contact: the Jacobian blocks lack the contact structure of seed 000 "
                                "eq. 56 (J_a's linear part -J_b's, no linear part in the torsion row)");
  ContactRows J;
  J.lin = Jb.leftCols<3>();
  J.ang_a = Ja.rightCols<3>();
  J.ang_b = Jb.rightCols<3>();
  add_contact(a, b_body, J, bias, mu_k, position);
}

// M^-1 J^T's angular part I^-1 A^T (eq. 59-60) is kept for small problems (`angular`); A_kk =
// J_a M_a^-1 J_a^T + J_b M_b^-1 J_b^T, once per contact (finalize_contact).
void ContactProblem::finalize() {
  const int nc = num_contacts();
  COULOMB_ASSERT(inv_inertia.size() == inv_mass.size(), "ContactProblem: one inverse inertia per body");
  A_diag.resize(std::size_t(nc));
  angular.resize(kept_responses(std::size_t(nc)));
  // per contact, independent of the others: the same bits on any thread count
  tbb::parallel_for(tbb::blocked_range<int>(0, nc, kFinalizeGrain), [&](const tbb::blocked_range<int>& range) {
    for (int k = range.begin(); k < range.end(); ++k) finalize_contact(std::size_t(k));
  });
  finish_finalize();
}

// contact i's half of finalize(); A_diag has num_contacts() entries and `angular` as many or none
// (resize_contacts), and every body an inverse inertia
void ContactProblem::finalize_contact(std::size_t i) {
  const auto a = std::size_t(body_a[i]), bb = std::size_t(body_b[i]);
  ContactRows& r = rows[i];
  r.inv_mass_a = inv_mass[a];
  r.inv_mass_b = inv_mass[bb];
  // A_kk = J_a M_a^-1 J_a^T + J_b M_b^-1 J_b^T from the compact blocks: the linear parts share L
  // (J_a's is -L), so it is (m_a^-1 + m_b^-1) L L^T + A_a I_a^-1 A_a^T + A_b I_b^-1 A_b^T, three
  // 4x3 by 3x4 products where the two 4x6 by 6x4 products of the full forms cost the Wall's
  // assembly a third more (the same matrix, rounded differently)
  Mat4 A = (r.inv_mass_a + r.inv_mass_b) * (r.lin * r.lin.transpose());
  const Mat34 minv_ang_a = inv_inertia[a] * r.ang_a.transpose(), minv_ang_b = inv_inertia[bb] * r.ang_b.transpose();
  A.noalias() += r.ang_a * minv_ang_a;
  A.noalias() += r.ang_b * minv_ang_b;
  A_diag[i] = A;
  if (angular.size() == rows.size()) angular[i] = {minv_ang_a, minv_ang_b};
}

void ContactProblem::finish_finalize() {
  finalized = true;
  joints.finalize(inv_mass, inv_inertia);
}

void ContactProblem::body_impulse_response(const std::vector<Vec4>& lambda, std::vector<Vec6>& w) const {
  w.assign(std::size_t(num_bodies()), Vec6::Zero());
  const bool kept = keeps_angular();
  // a large problem (no kept I^-1 A^T) reads each contact's bodies' w and inverse inertias, body_b
  // far from the previous contact's: asked for kResponsePrefetch contacts ahead (a hint, the same
  // bits; a few % of a 16,000-box step)
  const std::size_t n = body_a.size(), ahead = kept || n < kResponsePrefetch ? 0 : n - kResponsePrefetch;
  for (std::size_t k = 0; k < n; ++k) {
    if (k < ahead) {
      const auto b_next = std::size_t(body_b[k + kResponsePrefetch]);
      __builtin_prefetch(&w[b_next], 1);
      __builtin_prefetch(inv_inertia[b_next].data());
      __builtin_prefetch(inv_inertia[b_next].data() + 8);
    }
    add_responses(k, lambda[k], &w[std::size_t(body_a[k])], &w[std::size_t(body_b[k])], kept);
  }
}

void ContactProblem::body_impulse_response(const std::vector<Vec4>& lambda, const std::vector<double>& joint_lambda,
                                           std::vector<Vec6>& w) const {
  body_impulse_response(lambda, w);
  if (joints.rows() > 0 && joint_lambda.size() == std::size_t(joints.rows())) joints.add_impulse_response(joint_lambda, w);
}

void NormalProblem::body_impulse_response(const std::vector<double>& lambda, std::vector<Vec6>& w) const {
  w.assign(std::size_t(num_bodies), Vec6::Zero());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const NormalRow& r = rows[k];
    r.add_responses(lambda[k], w[std::size_t(r.body_a)], w[std::size_t(r.body_b)]);
  }
}

void ContactProblem::contact_velocities(const std::vector<Vec6>& w, std::vector<Vec4>& v) const {
  v.resize(body_a.size());
  for (std::size_t k = 0; k < body_a.size(); ++k)
    v[k] = rows[k].velocity(w[std::size_t(body_a[k])], w[std::size_t(body_b[k])]) + b[k];
}

}  // namespace coulomb
