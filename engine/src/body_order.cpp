// The rigid bodies' spatial numbering (world.h, spatial_body_order).
#include <coulomb/world.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

namespace coulomb {

namespace {

// Spreads the low 10 bits of x to every third bit (bit i to bit 3i).
std::uint32_t spread_bits(std::uint32_t x) {
  x &= 0x3ffu;
  x = (x | (x << 16)) & 0x030000ffu;
  x = (x | (x << 8)) & 0x0300f00fu;
  x = (x | (x << 4)) & 0x030c30c3u;
  x = (x | (x << 2)) & 0x09249249u;
  return x;
}

}  // namespace

std::vector<int> spatial_body_order(const SceneDef& scene) {
  const std::size_t nb = scene.bodies.size();
  std::vector<int> order(nb);
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> moving;
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::size_t i = 0; i < nb; ++i) {
    if (scene.bodies[i].fixed) continue;
    moving.push_back(int(i));
    lo = lo.cwiseMin(scene.bodies[i].position);
    hi = hi.cwiseMax(scene.bodies[i].position);
  }
  if (moving.size() < kSpatialNumberingBodies) return order;
  const double size = (hi - lo).maxCoeff();
  const double scale = size > 0.0 && std::isfinite(size) ? 1023.0 / size : 0.0;  // the loader checked the positions
  std::vector<std::uint32_t> key(nb, 0);
  for (const int i : moving) {
    const Vec3 q = (scene.bodies[std::size_t(i)].position - lo) * scale;  // in [0, 1023]
    key[std::size_t(i)] = spread_bits(std::uint32_t(q.x())) | spread_bits(std::uint32_t(q.y())) << 1 |
                          spread_bits(std::uint32_t(q.z())) << 2;
  }
  std::stable_sort(moving.begin(), moving.end(), [&](int a, int b) { return key[std::size_t(a)] < key[std::size_t(b)]; });
  order.clear();
  for (std::size_t i = 0; i < nb; ++i)
    if (scene.bodies[i].fixed) order.push_back(int(i));
  order.insert(order.end(), moving.begin(), moving.end());
  return order;
}

}  // namespace coulomb
