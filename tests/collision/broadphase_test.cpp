// Sweep and prune against brute force (STYLE.md lesson 12: accelerated vs brute-force oracle).
#include <coulomb/broadphase.h>
#include <gtest/gtest.h>

#include <random>

using namespace coulomb;

namespace {
std::vector<std::pair<int, int>> brute_force(const std::vector<Aabb>& b, const std::vector<std::uint8_t>& st) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < int(b.size()); ++i)
    for (int j = i + 1; j < int(b.size()); ++j)
      if (!(st[std::size_t(i)] && st[std::size_t(j)]) && b[std::size_t(i)].overlaps(b[std::size_t(j)])) out.emplace_back(i, j);
  return out;
}
}  // namespace

TEST(SweepAndPrune, MatchesBruteForceOnRandomBoxes) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> pos(-5.0, 5.0), size(0.05, 0.8);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<Aabb> boxes(400);
    std::vector<std::uint8_t> is_static(400, 0);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const Vec3 c(pos(rng), pos(rng), 0.2 * pos(rng));
      const Vec3 e(size(rng), size(rng), size(rng));
      boxes[i].lo = c - e;
      boxes[i].hi = c + e;
      is_static[i] = i % 17 == 0;
    }
    // an infinite box, as a plane has
    boxes[3].lo = Vec3::Constant(-std::numeric_limits<double>::infinity());
    boxes[3].hi = Vec3::Constant(std::numeric_limits<double>::infinity());
    std::vector<std::pair<int, int>> pairs;
    sweep_and_prune(boxes, is_static, pairs);
    EXPECT_EQ(pairs, brute_force(boxes, is_static));
  }
}

TEST(SweepAndPrune, TouchingBoxesOverlapAndStaticPairsAreSkipped) {
  std::vector<Aabb> boxes(3);
  boxes[0].lo = Vec3(0, 0, 0); boxes[0].hi = Vec3(1, 1, 1);
  boxes[1].lo = Vec3(1, 0, 0); boxes[1].hi = Vec3(2, 1, 1);  // shares a face with 0
  boxes[2].lo = Vec3(0.5, 0, 0); boxes[2].hi = Vec3(1.5, 1, 1);
  std::vector<std::pair<int, int>> pairs;
  sweep_and_prune(boxes, {1, 1, 0}, pairs);
  EXPECT_EQ(pairs, (std::vector<std::pair<int, int>>{{0, 2}, {1, 2}}));
  sweep_and_prune(boxes, {0, 0, 0}, pairs);
  EXPECT_EQ(pairs, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
}
