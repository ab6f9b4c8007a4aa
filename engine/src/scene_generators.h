// Placement of generated bodies (SCENE_FORMAT.md "Generators"): plain functions from the
// generator's parameters to poses, deterministic on every platform. Private to engine/.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace coulomb::detail {

// nx * ny * nz poses, x fastest, rows with odd z index shifted by odd_row_offset.
std::vector<Pose> grid_poses(const std::array<int, 3>& n, const Vec3& origin, const Vec3& spacing,
                             const Vec3& odd_row_offset);

struct RandomParams {
  int count = 0;
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // box_min, box_max
  std::uint64_t seed = 0;
  bool random_orientation = false;
  double min_separation = 0.0;
};

// Rejection sampling in the box; throws InputError at `separation_pointer` when min_separation
// cannot be met.
std::vector<Pose> random_poses(const RandomParams& q, const std::string& separation_pointer);

}  // namespace coulomb::detail
