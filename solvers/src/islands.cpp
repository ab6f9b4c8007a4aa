// Islands by union-find with path halving and union by index (the smaller root wins, so a
// root is always its island's smallest body: numbering by smallest body falls out of it).
// Linear in bodies + contacts up to the inverse Ackermann factor; run once per step.
#include <coulomb/assert.h>
#include <coulomb/islands.h>

#include <algorithm>
#include <numeric>
#include <utility>

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
                   const std::vector<int>& body_b, Islands& out, const std::vector<int>* joint_a,
                   const std::vector<int>* joint_b) {
  static const std::vector<int> none;
  const std::vector<int>& ja = joint_a ? *joint_a : none;
  const std::vector<int>& jb = joint_b ? *joint_b : none;
  const std::size_t nb = std::size_t(num_bodies), nc = body_a.size(), nj = ja.size();
  COULOMB_ASSERT(is_fixed.size() == nb && body_b.size() == nc && jb.size() == nj,
                 "build_islands: array sizes disagree");
  // edges: contacts 0..nc-1, then joints; a joint side -1 is the world, which joins nothing
  const auto edge = [&](std::size_t k) {
    return k < nc ? std::pair<int, int>(body_a[k], body_b[k]) : std::pair<int, int>(ja[k - nc], jb[k - nc]);
  };
  const auto fixed = [&](int body) { return body < 0 || is_fixed[std::size_t(body)]; };
  std::vector<int> parent(nb);
  std::iota(parent.begin(), parent.end(), 0);
  for (std::size_t k = 0; k < nc + nj; ++k) {
    const auto [a, b] = edge(k);
    if (fixed(a) || fixed(b)) continue;
    const int ra = find_root(parent, a), rb = find_root(parent, b);
    if (ra < rb) parent[std::size_t(rb)] = ra;
    else if (rb < ra) parent[std::size_t(ra)] = rb;
  }
  // an edge's island is that of its moving body (body_a when both are fixed; a world-world
  // joint has none and is left out)
  auto edge_root = [&](std::size_t k) {
    const auto [a, b] = edge(k);
    if (a < 0 && b < 0) return -1;
    return find_root(parent, (a < 0 || fixed(a)) && !fixed(b) ? b : a);
  };
  // number the roots that own a contact or a joint in increasing root (= smallest body) order
  std::vector<int> root_of_edge(nc + nj);
  std::vector<std::uint8_t> owns_edge(nb, 0);
  for (std::size_t k = 0; k < nc + nj; ++k) {
    root_of_edge[k] = edge_root(k);
    if (root_of_edge[k] >= 0) owns_edge[std::size_t(root_of_edge[k])] = 1;
  }
  std::vector<int> island_of_root(nb, -1);
  int ni = 0;
  for (std::size_t r = 0; r < nb; ++r)
    if (owns_edge[r]) island_of_root[r] = ni++;

  // contacts and joints per island, counting sort keeps the global order within each island
  const auto distribute = [&](std::size_t first, std::size_t count, std::vector<int>& island, std::vector<int>& start,
                              std::vector<int>& items) {
    island.resize(count);
    start.assign(std::size_t(ni) + 1, 0);
    for (std::size_t k = 0; k < count; ++k) {
      const int root = root_of_edge[first + k];
      island[k] = root >= 0 ? island_of_root[std::size_t(root)] : -1;
      if (island[k] >= 0) ++start[std::size_t(island[k]) + 1];
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    items.resize(std::size_t(start.back()));
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < count; ++k)
      if (island[k] >= 0) items[std::size_t(fill[std::size_t(island[k])]++)] = int(k);
  };
  distribute(0, nc, out.contact_island, out.contact_start, out.contacts);
  distribute(nc, nj, out.joint_island, out.joint_start, out.joints);

  // moving bodies per island
  out.body_island.assign(nb, -1);
  for (std::size_t i = 0; i < nb; ++i)
    if (!is_fixed[i]) out.body_island[i] = island_of_root[std::size_t(find_root(parent, int(i)))];
  // bodies of each island: its moving bodies plus the fixed ones its contacts and joints touch,
  // ascending
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
    for (int e = out.joint_start[std::size_t(isl)]; e < out.joint_start[std::size_t(isl) + 1]; ++e) {
      const auto k = std::size_t(out.joints[std::size_t(e)]);
      for (int body : {ja[k], jb[k]})
        if (body >= 0 && is_fixed[std::size_t(body)]) members.push_back(body);
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    out.bodies.insert(out.bodies.end(), members.begin(), members.end());
    out.body_start[std::size_t(isl) + 1] = int(out.bodies.size());
  }
}

}  // namespace coulomb
