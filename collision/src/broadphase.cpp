#include <coulomb/broadphase.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coulomb {

namespace {

// Axis along which the finite box centres spread the most (variance), 0 if none is finite.
int sweep_axis(const std::vector<Aabb>& boxes) {
  Vec3 sum = Vec3::Zero(), sum2 = Vec3::Zero();
  int n = 0;
  for (const Aabb& b : boxes) {
    if (!b.lo.allFinite() || !b.hi.allFinite()) continue;
    const Vec3 c = 0.5 * (b.lo + b.hi);
    sum += c;
    sum2 += c.cwiseProduct(c);
    ++n;
  }
  if (n == 0) return 0;
  const Vec3 var = sum2 / n - (sum / n).cwiseProduct(sum / n);
  int axis = 0;
  var.maxCoeff(&axis);
  return axis;
}

}  // namespace

void sweep_and_prune(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                     std::vector<std::pair<int, int>>& pairs) {
  pairs.clear();
  const int n = int(boxes.size());
  const int axis = sweep_axis(boxes);
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int i, int j) {
    const double a = boxes[std::size_t(i)].lo[axis], b = boxes[std::size_t(j)].lo[axis];
    return a < b || (a == b && i < j);
  });
  std::vector<int> active;
  for (int i : order) {
    const Aabb& bi = boxes[std::size_t(i)];
    // drop intervals that ended before this one starts
    std::erase_if(active, [&](int j) { return boxes[std::size_t(j)].hi[axis] < bi.lo[axis]; });
    for (int j : active) {
      if (is_static[std::size_t(i)] && is_static[std::size_t(j)]) continue;
      if (bi.overlaps(boxes[std::size_t(j)])) pairs.emplace_back(std::min(i, j), std::max(i, j));
    }
    active.push_back(i);
  }
  std::sort(pairs.begin(), pairs.end());
}

void broadphase(BroadphaseType type, const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                std::vector<std::pair<int, int>>& pairs) {
  switch (type) {
    case BroadphaseType::SweepAndPrune: sweep_and_prune(boxes, is_static, pairs); return;
    case BroadphaseType::Grid: uniform_grid(boxes, is_static, pairs); return;
  }
}

}  // namespace coulomb
