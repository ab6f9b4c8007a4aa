#include <coulomb/contact_coloring.h>

#include <bit>
#include <cstdint>

namespace coulomb {

void color_contacts(const ContactProblem& p, ContactColoring& out) {
  const int nc = p.num_contacts();
  constexpr int kOverflow = ContactColoring::kMaxColors;
  std::vector<std::uint64_t> used(std::size_t(p.num_bodies()), 0);  // colours each body is in
  std::vector<int> color(static_cast<std::size_t>(nc));
  int colors = 0;
  for (int k = 0; k < nc; ++k) {
    const auto a = std::size_t(p.body_a[std::size_t(k)]), b = std::size_t(p.body_b[std::size_t(k)]);
    const bool move_a = p.inv_mass[a] > 0.0, move_b = p.inv_mass[b] > 0.0;
    const std::uint64_t taken = (move_a ? used[a] : 0) | (move_b ? used[b] : 0);
    const int c = taken == ~std::uint64_t(0) ? kOverflow : std::countr_one(taken);
    color[std::size_t(k)] = c;
    if (c == kOverflow) continue;
    colors = std::max(colors, c + 1);
    if (move_a) used[a] |= std::uint64_t(1) << c;
    if (move_b) used[b] |= std::uint64_t(1) << c;
  }
  // counting sort by colour (stable: ascending contact index within a colour)
  out.color_start.assign(std::size_t(colors) + 2, 0);
  for (int c : color) ++out.color_start[std::size_t(c == kOverflow ? colors : c) + 1];
  for (std::size_t c = 1; c < out.color_start.size(); ++c) out.color_start[c] += out.color_start[c - 1];
  std::vector<int> next(out.color_start.begin(), out.color_start.end() - 1);
  out.order.resize(std::size_t(nc));
  for (int k = 0; k < nc; ++k) {
    const int c = color[std::size_t(k)];
    out.order[std::size_t(next[std::size_t(c == kOverflow ? colors : c)]++)] = k;
  }
}

}  // namespace coulomb
