// Contact permutations of seed 001 section 5 (IPP, CP), computed once per solve.
#include "pgs_orderings.h"

#include <numeric>

namespace coulomb::pgs_detail {

std::vector<int> identity_order(int nc) {
  std::vector<int> order(std::size_t(std::max(nc, 0)));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// seed 001 section 5, "Impulse Propagation Permutations": a pre-processing sort of the relative
// contact velocities y, ascending (the variant whose results the paper presents), kept for the
// whole solve. Contacts are sorted as blocks by their normal row.
std::vector<int> ipp_order(const std::vector<Vec4>& v) {
  std::vector<int> order = identity_order(int(v.size()));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return v[std::size_t(a)][0] < v[std::size_t(b)][0]; });
  return order;
}

// seed 001 section 5, "Coordinate Permutations": contacts by their position along an axis.
std::vector<int> cp_order(const std::vector<Vec3>& point, const Vec3& axis, bool descending) {
  std::vector<double> key(point.size());
  for (std::size_t k = 0; k < point.size(); ++k) key[k] = point[k].dot(axis);
  std::vector<int> order = identity_order(int(point.size()));
  if (descending)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[std::size_t(a)] > key[std::size_t(b)]; });
  else
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[std::size_t(a)] < key[std::size_t(b)]; });
  return order;
}

}  // namespace coulomb::pgs_detail
