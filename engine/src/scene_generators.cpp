// Placement of generated bodies (see scene_generators.h).
#include "scene_generators.h"

#include "scene_reader.h"

#include <coulomb/error.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <tuple>

namespace coulomb::detail {

namespace {

// random generator: consecutive rejected candidates before giving up on one body
constexpr int kMaxPlacementTries = 10'000;

// uniform double in [0, 1) from the top 53 bits of one raw output: the same on every standard
// library, unlike std::uniform_real_distribution
double unit_double(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

// uniformly distributed rotation: K. Shoemake, "Uniform random rotations", Graphics Gems III (1992)
Quat random_rotation(std::mt19937_64& rng) {
  double u1 = unit_double(rng), u2 = unit_double(rng), u3 = unit_double(rng);
  double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
  double t2 = 2.0 * std::numbers::pi * u2, t3 = 2.0 * std::numbers::pi * u3;
  return Quat(b * std::cos(t3), a * std::sin(t2), a * std::cos(t2), b * std::sin(t3));
}

}  // namespace

std::vector<Pose> grid_poses(const std::array<int, 3>& n, const Vec3& origin, const Vec3& spacing,
                             const Vec3& odd_row_offset) {
  std::vector<Pose> poses;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        Pose p;
        p.p = origin + Vec3(i * spacing.x(), j * spacing.y(), k * spacing.z());
        if (k % 2 == 1) p.p += odd_row_offset;
        poses.push_back(p);
      }
  return poses;
}


// Rejection sampling: each candidate centre is drawn (x, y, z) and kept when it lies at least
// min_separation from every centre placed before by this generator; then, if asked, its rotation
// is drawn. A hash grid with cells no smaller than min_separation limits each test to 27 cells.
std::vector<Pose> random_poses(const RandomParams& q, const std::string& separation_pointer) {
  std::mt19937_64 rng(q.seed);
  const Vec3 extent = q.hi - q.lo;
  const double cell = std::max(q.min_separation, extent.maxCoeff() * 1e-6);
  using Cell = std::array<std::int64_t, 3>;
  struct CellHash {
    std::size_t operator()(const Cell& c) const {
      return std::hash<std::int64_t>()(c[0] * 73856093 ^ c[1] * 19349663 ^ c[2] * 83492791);
    }
  };
  std::unordered_map<Cell, std::vector<int>, CellHash> grid;
  auto cell_of = [&](const Vec3& p) {
    Vec3 c = ((p - q.lo) / cell).array().floor();
    return Cell{std::int64_t(c.x()), std::int64_t(c.y()), std::int64_t(c.z())};
  };
  std::vector<Pose> poses;
  auto far_enough = [&](const Vec3& p) {
    Cell c = cell_of(p);
    for (std::int64_t dx = -1; dx <= 1; ++dx)
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dz = -1; dz <= 1; ++dz) {
          auto it = grid.find(Cell{c[0] + dx, c[1] + dy, c[2] + dz});
          if (it == grid.end()) continue;
          for (int other : it->second)
            if ((poses[std::size_t(other)].p - p).norm() < q.min_separation) return false;
        }
    return true;
  };
  for (int i = 0; i < q.count; ++i) {
    Pose pose;
    int tries = 0;
    for (;;) {
      for (int d = 0; d < 3; ++d) pose.p[d] = q.lo[d] + unit_double(rng) * extent[d];
      if (q.min_separation == 0.0 || far_enough(pose.p)) break;
      if (++tries == kMaxPlacementTries)
        throw InputError(separation_pointer,
                         "could not place body " + std::to_string(i + 1) + " of " + std::to_string(q.count) +
                             " at least " + show(q.min_separation) + " from the others after " +
                             std::to_string(kMaxPlacementTries) +
                             " tries; enlarge the box or lower 'count' or 'min_separation'");
    }
    if (q.random_orientation) pose.q = random_rotation(rng);
    if (q.min_separation > 0.0) grid[cell_of(pose.p)].push_back(i);
    poses.push_back(pose);
  }
  return poses;
}

}  // namespace coulomb::detail
