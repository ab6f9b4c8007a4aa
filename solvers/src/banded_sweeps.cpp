// Sweep reaches (banded_sweeps.h).
#include "banded_sweeps.h"

#include <algorithm>
#include <stdexcept>

namespace coulomb::detail {
namespace {

void check(int num_bodies, const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("banded sweeps: one body pair per contact");
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] < -1 || a[k] >= num_bodies || b[k] < -1 || b[k] >= num_bodies)
      throw std::invalid_argument("banded sweeps: a contact's body is out of range");
}

}  // namespace

std::vector<int> sweep_reach(int num_bodies, const std::vector<int>& a, const std::vector<int>& b) {
  check(num_bodies, a, b);
  const int nc = int(a.size());
  std::vector<int> last(static_cast<std::size_t>(num_bodies), -1);
  for (int x = 0; x < nc; ++x)
    for (const int m : {a[std::size_t(x)], b[std::size_t(x)]})
      if (m >= 0) last[std::size_t(m)] = x;
  std::vector<int> reach(static_cast<std::size_t>(nc));
  int far = -1;
  for (int x = 0; x < nc; ++x) {
    far = std::max(far, x);
    for (const int m : {a[std::size_t(x)], b[std::size_t(x)]})
      if (m >= 0) far = std::max(far, last[std::size_t(m)]);
    reach[std::size_t(x)] = far;
  }
  return reach;
}

int wavefront_group(const std::vector<int>& reach, int tile, int window) {
  if (reach.empty()) return 1;
  double sum = 0.0;
  for (std::size_t x = 0; x < reach.size(); ++x) sum += double(reach[x]) - double(x);
  const double mean = std::max(1.0, sum / double(reach.size()));
  return std::max(1, 1 + int(double(window - tile) / mean));
}

}  // namespace coulomb::detail
