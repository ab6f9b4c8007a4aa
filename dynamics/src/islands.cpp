// Islands by union-find with path halving and union by index (the smaller root wins, so a
// root is always its island's smallest body: numbering by smallest body falls out of it).
// Linear in bodies + contacts up to the inverse Ackermann factor; run once per step.
#include <coulomb/islands.h>

#include <algorithm>
#include <numeric>

namespace coulomb {

namespace {

int find_root(std::vector<int>& parent, int i) {
  while (parent[std::size_t(i)] != i) {
    parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];  // path halving
    i = parent[std::size_t(i)];
  }
  return i;
}

}  // namespace

void build_islands(int num_bodies, const std::vector<std::uint8_t>& is_fixed, const std::vector<int>& body_a,
                   const std::vector<int>& body_b, Islands& out) {
  const std::size_t nb = std::size_t(num_bodies), nc = body_a.size();
  std::vector<int> parent(nb);
  std::iota(parent.begin(), parent.end(), 0);
  for (std::size_t k = 0; k < nc; ++k) {
    const int a = body_a[k], b = body_b[k];
    if (is_fixed[std::size_t(a)] || is_fixed[std::size_t(b)]) continue;
    const int ra = find_root(parent, a), rb = find_root(parent, b);
    if (ra < rb) parent[std::size_t(rb)] = ra;
    else if (rb < ra) parent[std::size_t(ra)] = rb;
  }
  // a contact's island is that of its moving body (body_a when both are fixed)
  auto contact_root = [&](std::size_t k) {
    const int a = body_a[k], b = body_b[k];
    return find_root(parent, is_fixed[std::size_t(a)] && !is_fixed[std::size_t(b)] ? b : a);
  };
  // number the roots that own a contact in increasing root (= smallest body) order
  std::vector<int> root_of_contact(nc);
  std::vector<std::uint8_t> owns_contact(nb, 0);
  for (std::size_t k = 0; k < nc; ++k) {
    root_of_contact[k] = contact_root(k);
    owns_contact[std::size_t(root_of_contact[k])] = 1;
  }
  std::vector<int> island_of_root(nb, -1);
  int ni = 0;
  for (std::size_t r = 0; r < nb; ++r)
    if (owns_contact[r]) island_of_root[r] = ni++;

  // contacts per island, counting sort keeps the global order within each island
  out.contact_island.resize(nc);
  out.contact_start.assign(std::size_t(ni) + 1, 0);
  for (std::size_t k = 0; k < nc; ++k) {
    out.contact_island[k] = island_of_root[std::size_t(root_of_contact[k])];
    ++out.contact_start[std::size_t(out.contact_island[k]) + 1];
  }
  std::partial_sum(out.contact_start.begin(), out.contact_start.end(), out.contact_start.begin());
  out.contacts.resize(nc);
  std::vector<int> fill(out.contact_start.begin(), out.contact_start.end() - 1);
  for (std::size_t k = 0; k < nc; ++k) out.contacts[std::size_t(fill[std::size_t(out.contact_island[k])]++)] = int(k);

  // moving bodies per island
  out.body_island.assign(nb, -1);
  for (std::size_t i = 0; i < nb; ++i)
    if (!is_fixed[i]) out.body_island[i] = island_of_root[std::size_t(find_root(parent, int(i)))];
  // bodies of each island: its moving bodies plus the fixed ones its contacts touch, ascending
  out.body_start.assign(std::size_t(ni) + 1, 0);
  out.bodies.clear();
  std::vector<int> members;
  std::vector<std::vector<int>> per_island(static_cast<std::size_t>(ni));
  for (std::size_t i = 0; i < nb; ++i)
    if (out.body_island[i] >= 0) per_island[std::size_t(out.body_island[i])].push_back(int(i));
  for (int isl = 0; isl < ni; ++isl) {
    members = per_island[std::size_t(isl)];
    for (int e = out.contact_start[std::size_t(isl)]; e < out.contact_start[std::size_t(isl) + 1]; ++e) {
      const auto k = std::size_t(out.contacts[std::size_t(e)]);
      for (int body : {body_a[k], body_b[k]})
        if (is_fixed[std::size_t(body)]) members.push_back(body);
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    out.bodies.insert(out.bodies.end(), members.begin(), members.end());
    out.body_start[std::size_t(isl) + 1] = int(out.bodies.size());
  }
}

}  // namespace coulomb
