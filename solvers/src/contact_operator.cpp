// The assembled operator's derived data (contact_operator.h).
#include <coulomb/contact_operator.h>

#include <algorithm>
#include <stdexcept>

namespace coulomb {

void AssembledProblem::finalize() {
  const int nc = num_contacts();
  A_diag.assign(std::size_t(nc), Mat4::Zero());
  for (int k = 0; k < nc; ++k)
    for (int e = row_start[std::size_t(k)]; e < row_start[std::size_t(k) + 1]; ++e)
      if (col[std::size_t(e)] == k) A_diag[std::size_t(k)] += block[std::size_t(e)];
}

AssembledProblem assembled_problem(const ContactProblem& p) {
  const int nc = p.num_contacts(), nb = p.num_bodies();
  if (!p.finalized || int(p.A_diag.size()) != nc)
    throw std::invalid_argument("assembled_problem: the ContactProblem is not finalized");
  // the contacts of each moving body (CSR), with the side the body is on
  std::vector<int> start(std::size_t(nb) + 1, 0);
  auto moving = [&](int body) {
    return p.inv_mass[std::size_t(body)] != 0.0 || p.inv_inertia[std::size_t(body)] != Mat3::Zero();
  };
  for (int k = 0; k < nc; ++k)
    for (int body : {p.body_a[std::size_t(k)], p.body_b[std::size_t(k)]})
      if (moving(body)) ++start[std::size_t(body) + 1];
  for (int b = 0; b < nb; ++b) start[std::size_t(b) + 1] += start[std::size_t(b)];
  std::vector<std::pair<int, int>> incident(static_cast<std::size_t>(start.back()));  // (contact, side 0 = a, 1 = b)
  std::vector<int> next(start.begin(), start.end() - 1);
  for (int k = 0; k < nc; ++k) {
    if (moving(p.body_a[std::size_t(k)])) incident[std::size_t(next[std::size_t(p.body_a[std::size_t(k)])]++)] = {k, 0};
    if (moving(p.body_b[std::size_t(k)])) incident[std::size_t(next[std::size_t(p.body_b[std::size_t(k)])]++)] = {k, 1};
  }
  // every product J_k M^-1 J_j^T through a shared body, then summed per block (k, j)
  struct Term {
    int row, col;
    Mat4 value;
  };
  std::vector<Term> terms;
  for (int k = 0; k < nc; ++k) terms.push_back({k, k, Mat4::Zero()});  // every diagonal block exists
  for (int b = 0; b < nb; ++b)
    for (int x = start[std::size_t(b)]; x < start[std::size_t(b) + 1]; ++x)
      for (int y = start[std::size_t(b)]; y < start[std::size_t(b) + 1]; ++y) {
        const auto [k, sk] = incident[std::size_t(x)];
        const auto [j, sj] = incident[std::size_t(y)];
        const Mat46 Jk = sk == 0 ? p.J_a(k) : p.J_b(k);
        const Mat64 Mj = sj == 0 ? p.MinvJT_a(j) : p.MinvJT_b(j);
        terms.push_back({k, j, Mat4(Jk * Mj)});
      }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  AssembledProblem out;
  out.row_start.assign(std::size_t(nc) + 1, 0);
  for (std::size_t t = 0; t < terms.size(); ++t) {
    if (t > 0 && terms[t].row == terms[t - 1].row && terms[t].col == terms[t - 1].col) {
      out.block.back() += terms[t].value;
      continue;
    }
    out.col.push_back(terms[t].col);
    out.block.push_back(terms[t].value);
    ++out.row_start[std::size_t(terms[t].row) + 1];
  }
  for (int k = 0; k < nc; ++k) out.row_start[std::size_t(k) + 1] += out.row_start[std::size_t(k)];
  out.b = p.b;
  out.mu = p.mu;
  out.finalize();
  return out;
}

}  // namespace coulomb
