// Sweep and prune against brute force (STYLE.md lesson 12: accelerated vs brute-force oracle).
#include <coulomb/broadphase.h>
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

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

// The uniform grid against sweep and prune (and so against brute force): identical sorted lists
// on well-spread, clustered and mixed-size boxes, with infinite, empty and huge boxes mixed in.
TEST(UniformGrid, SamePairsAsSweepAndPruneOnRandomInput) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 50 + 150 * trial;
    const double side = trial % 3 == 0 ? 0.5 : 4.0;       // dense cluster or spread out
    const double max_size = trial % 4 == 1 ? 2.0 : 0.3;  // some very uneven sizes
    std::vector<Aabb> boxes(static_cast<std::size_t>(n));
    std::vector<std::uint8_t> is_static(static_cast<std::size_t>(n), 0);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const Vec3 c(side * unit(rng), side * unit(rng), 0.3 * side * unit(rng));
      const Vec3 e = max_size * Vec3(unit(rng), unit(rng), unit(rng)).cwiseProduct(Vec3::Constant(unit(rng)));
      boxes[i] = {c - e, c + e};
      is_static[i] = unit(rng) < 0.1;
    }
    boxes[1] = {Vec3::Constant(-inf), Vec3::Constant(inf)};               // a plane's box
    boxes[2] = {Vec3(-inf, -inf, -inf), Vec3(inf, inf, 0.2)};             // a half-space
    boxes[3] = {Vec3(-50, -50, -1), Vec3(50, 50, 0.1)};                   // a huge ground box
    boxes[4] = Aabb{};                                                    // empty
    boxes[5] = {boxes[6].lo, boxes[6].lo};                                // a point on a corner
    is_static[2] = is_static[3] = 1;
    std::vector<std::pair<int, int>> sap, grid;
    sweep_and_prune(boxes, is_static, sap);
    uniform_grid(boxes, is_static, grid);
    EXPECT_EQ(grid, sap) << "trial " << trial;
    EXPECT_EQ(grid, brute_force(boxes, is_static)) << "trial " << trial;
  }
}

TEST(UniformGrid, EdgeCases) {
  std::vector<std::pair<int, int>> pairs;
  uniform_grid({}, {}, pairs);
  EXPECT_TRUE(pairs.empty());
  // boxes sharing a face exactly on a cell boundary, and identical boxes
  std::vector<Aabb> boxes(4);
  boxes[0] = {Vec3(0, 0, 0), Vec3(1, 1, 1)};
  boxes[1] = {Vec3(1, 0, 0), Vec3(2, 1, 1)};
  boxes[2] = boxes[1];
  boxes[3] = {Vec3(2.5, 0, 0), Vec3(3, 1, 1)};
  uniform_grid(boxes, {0, 0, 0, 0}, pairs);
  EXPECT_EQ(pairs, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  // bounds far beyond any grid fall back to testing everything
  boxes[3] = {Vec3::Constant(-1e308), Vec3::Constant(-1e308)};
  boxes[0] = {Vec3::Constant(1e308), Vec3::Constant(1e308)};
  uniform_grid(boxes, {0, 0, 0, 0}, pairs);
  EXPECT_EQ(pairs, (std::vector<std::pair<int, int>>{{1, 2}}));
}

// The grid searches its cells in parallel and sorts by counting on the first index: a clustered
// pile (boxes with many partners, pairs that share several cells) against brute force on one and two threads, and the same list on both.
TEST(UniformGrid, ClusteredBoxesGiveTheSameSortedPairsOnOneAndTwoThreads) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Aabb> boxes;
  std::vector<std::uint8_t> is_static;
  for (int i = 0; i < 3000; ++i) {
    // a dense core of 400 boxes inside a sparse cloud, in shuffled index order
    const double side = i % 7 == 0 ? 0.6 : 6.0;
    const Vec3 c(side * unit(rng), side * unit(rng), side * unit(rng));
    const Vec3 e = 0.05 * Vec3::Ones() + 0.2 * Vec3(unit(rng), unit(rng), unit(rng));
    boxes.push_back({c - e, c + e});
    is_static.push_back(unit(rng) < 0.05);
  }
  boxes[17] = {Vec3(-100, -100, -1), Vec3(100, 100, 0.3)};  // a large ground box
  is_static[17] = 1;
  const auto expected = brute_force(boxes, is_static);
  std::size_t longest = 0;
  for (std::size_t a = 0, b = 0; a < expected.size(); a = b) {
    for (b = a; b < expected.size() && expected[b].first == expected[a].first; ++b) {}
    longest = std::max(longest, b - a);
  }
  ASSERT_GT(longest, 64u);  // a box with a long run of partners to sort
  std::vector<std::pair<int, int>> one, two;
  tbb::task_arena(1).execute([&] { uniform_grid(boxes, is_static, one); });
  tbb::task_arena(2).execute([&] { uniform_grid(boxes, is_static, two); });
  EXPECT_EQ(one, expected);
  EXPECT_EQ(two, expected);
}

// A cell whose boxes are all static (fixed or asleep) is skipped: a resting pile of static boxes
// with a few moving ones inside, on its edge and straddling cells, against brute force; and an
// all-static pile gives no pair at all.
TEST(UniformGrid, CellsOfStaticBoxesAreSkippedWithoutLosingPairs) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Aabb> boxes;
  for (int i = 0; i < 1500; ++i) {
    const Vec3 c(4.0 * unit(rng), 4.0 * unit(rng), 2.0 * unit(rng));
    const Vec3 e = 0.05 * Vec3::Ones() + 0.15 * Vec3(unit(rng), unit(rng), unit(rng));
    boxes.push_back({c - e, c + e});
  }
  boxes.push_back({Vec3(-0.3, -0.3, -0.3), Vec3(4.3, 0.1, 0.1)});  // a long moving box along an edge
  std::vector<std::uint8_t> all_static(boxes.size(), 1);
  std::vector<std::pair<int, int>> pairs;
  uniform_grid(boxes, all_static, pairs);
  EXPECT_TRUE(pairs.empty());
  std::vector<std::uint8_t> is_static = all_static;
  for (std::size_t i = 0; i < boxes.size(); i += 61) is_static[i] = 0;  // a few awake bodies
  is_static.back() = 0;
  const auto expected = brute_force(boxes, is_static);
  ASSERT_GT(expected.size(), 50u);
  uniform_grid(boxes, is_static, pairs);
  EXPECT_EQ(pairs, expected);
}
