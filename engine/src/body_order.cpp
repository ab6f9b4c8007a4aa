// The rigid bodies' numbering (world.h, spatial_body_order; renumber_bodies, scene_index).
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

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

std::vector<int> scene_order_of(const SceneDef& scene) {
  std::vector<int> order(scene.bodies.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<int> spatial_body_order(const SceneDef& scene) {
  const std::size_t nb = scene.bodies.size();
  std::vector<int> order = scene_order_of(scene);
  std::vector<int> moving;
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::size_t i = 0; i < nb; ++i) {
    if (scene.bodies[i].fixed) continue;
    moving.push_back(int(i));
    lo = lo.cwiseMin(scene.bodies[i].position);
    hi = hi.cwiseMax(scene.bodies[i].position);
  }
  if (moving.size() < kSpatialNumberingBodies) return order;
  int axis = 0;  // the longest extent of the starting positions
  (hi - lo).maxCoeff(&axis);
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  const double size = (hi - lo).maxCoeff();
  const double scale = size > 0.0 && std::isfinite(size) ? 1023.0 / size : 0.0;  // the loader checked the positions
  std::vector<std::uint64_t> key(nb, 0);
  for (const int i : moving) {
    const Vec3 q = (scene.bodies[std::size_t(i)].position - lo) * scale;  // in [0, 1023]
    key[std::size_t(i)] = std::uint64_t(q[axis]) << 32 | spread_bits(std::uint32_t(q[u])) | spread_bits(std::uint32_t(q[v])) << 1;
  }
  std::stable_sort(moving.begin(), moving.end(), [&](int a, int b) { return key[std::size_t(a)] < key[std::size_t(b)]; });
  order = moving;
  for (std::size_t i = 0; i < nb; ++i)
    if (scene.bodies[i].fixed) order.push_back(int(i));
  return order;
}

// The scene's bodies in the order `order` (new id -> old index), and every reference to them.
void renumber_bodies(SceneDef& scene, const std::vector<int>& order, WorldModel& m) {
  const std::size_t nb = scene.bodies.size();
  m.scene_index = order;
  m.scene_order.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) m.scene_order[std::size_t(order[i])] = int(i);
  bool identity = true;
  for (std::size_t i = 0; i < nb; ++i) identity = identity && order[i] == int(i);
  if (identity) return;
  std::vector<int> id(nb);
  std::vector<BodyDef> bodies(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const auto old = std::size_t(order[i]);
    id[old] = int(i);
    bodies[i] = std::move(scene.bodies[old]);
    if (bodies[i].pointer.empty()) bodies[i].pointer = "/bodies/" + std::to_string(old);  // errors name the scene's body
  }
  scene.bodies = std::move(bodies);
  const auto renumber = [&](int& body) { if (body >= 0) body = id[std::size_t(body)]; };
  for (JointDef& j : scene.joints) {
    renumber(j.a);
    renumber(j.b);
  }
  for (AttachDef& a : scene.attachments) renumber(a.body);
  for (auto& [a, b] : scene.excluded_pairs) {
    renumber(a);
    renumber(b);
    if (a > b) std::swap(a, b);
  }
}

int World::scene_index(int id) const {
  if (id < 0 || id >= body_count())
    throw std::out_of_range("World::scene_index: body id " + std::to_string(id) + " is out of range (" +
                            (body_count() == 0 ? std::string("the world has none")
                                               : "valid ids are 0.." + std::to_string(body_count() - 1)) + ")");
  return model_.scene_index[std::size_t(id)];
}

}  // namespace coulomb
