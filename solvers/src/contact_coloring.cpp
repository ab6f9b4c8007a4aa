#include <coulomb/contact_coloring.h>

#include "thread_scratch.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace coulomb {

namespace {
// color_contacts' work arrays, kept per thread (thread_scratch.h)
struct ColoringScratch {
  std::vector<int> first, color, slot, unit_order;
  std::vector<std::uint64_t> used;
};
}  // namespace

void color_contacts(const ContactProblem& p, ContactColoring& out) {
  const int nc = p.num_contacts();
  constexpr int kOverflow = ContactColoring::kMaxColors;
  detail::ThreadScratch<ColoringScratch> scratch;
  // units: runs of consecutive contacts of one body pair; first[u] is unit u's first contact
  std::vector<int>& first = scratch->first;
  first.clear();
  for (int k = 0; k < nc; ++k)
    if (k == 0 || p.body_a[std::size_t(k)] != p.body_a[std::size_t(k) - 1] ||
        p.body_b[std::size_t(k)] != p.body_b[std::size_t(k) - 1])
      first.push_back(k);
  const int nu = int(first.size());
  first.push_back(nc);

  std::vector<std::uint64_t>& used = scratch->used;  // colours each body is in
  used.assign(std::size_t(p.num_bodies()), 0);
  std::vector<int>& color = scratch->color;
  color.resize(std::size_t(nu));
  int colors = 0;
  for (int u = 0; u < nu; ++u) {
    const int k = first[std::size_t(u)];
    const auto a = std::size_t(p.body_a[std::size_t(k)]), b = std::size_t(p.body_b[std::size_t(k)]);
    const bool move_a = p.inv_mass[a] > 0.0, move_b = p.inv_mass[b] > 0.0;
    const std::uint64_t taken = (move_a ? used[a] : 0) | (move_b ? used[b] : 0);
    const int c = taken == ~std::uint64_t(0) ? kOverflow : std::countr_one(taken);
    color[std::size_t(u)] = c;
    if (c == kOverflow) continue;
    colors = std::max(colors, c + 1);
    if (move_a) used[a] |= std::uint64_t(1) << c;
    if (move_b) used[b] |= std::uint64_t(1) << c;
  }
  // counting sort of the units by colour (stable: ascending unit index within a colour)
  const auto group = [&](int u) { return std::size_t(color[std::size_t(u)] == kOverflow ? colors : color[std::size_t(u)]); };
  out.color_start.assign(std::size_t(colors) + 2, 0);
  for (int u = 0; u < nu; ++u) ++out.color_start[group(u) + 1];
  for (std::size_t c = 1; c < out.color_start.size(); ++c) out.color_start[c] += out.color_start[c - 1];
  std::vector<int>& slot = scratch->slot;
  slot.assign(out.color_start.begin(), out.color_start.end() - 1);
  std::vector<int>& unit_order = scratch->unit_order;
  unit_order.resize(std::size_t(nu));
  for (int u = 0; u < nu; ++u) unit_order[std::size_t(slot[group(u)]++)] = u;
  out.order.clear();
  out.order.reserve(std::size_t(nc));
  out.unit_start.assign(1, 0);
  out.unit_start.reserve(std::size_t(nu) + 1);
  out.unit_bodies.clear();
  out.unit_bodies.reserve(std::size_t(nu));
  out.bodies = p.num_bodies();
  for (const int u : unit_order) {
    const int k0 = first[std::size_t(u)];
    for (int k = k0; k < first[std::size_t(u) + 1]; ++k) out.order.push_back(k);
    out.unit_start.push_back(int(out.order.size()));
    const auto a = std::size_t(p.body_a[std::size_t(k0)]), b = std::size_t(p.body_b[std::size_t(k0)]);
    out.unit_bodies.push_back({p.inv_mass[a] > 0.0 ? int(a) : -1, p.inv_mass[b] > 0.0 ? int(b) : -1});
  }
}

}  // namespace coulomb
