// wavefront_sweeps and sweep_reach (solvers/src/banded_sweeps.h): every (sweep, contact) visited
// once, and every two updates that share a moving body in the order plain sweeps give them, for
// contact lists in any order; the reach of a banded order is short; the closing stage of
// windowed_sweeps follows the last sweep.
#include "../../solvers/src/banded_sweeps.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace coulomb;

namespace {

struct Pairs {
  int bodies = 0;
  std::vector<int> a, b;  // -1: a side that does not move
};

Pairs random_pairs(int bodies, int contacts, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> body(-1, bodies - 1);  // -1 about one side in `bodies + 1`
  Pairs p;
  p.bodies = bodies;
  for (int k = 0; k < contacts; ++k) {
    p.a.push_back(body(rng));
    p.b.push_back(body(rng));
  }
  return p;
}

// a chain of bodies, each touching the next and the ground (-1): in the engine's pair order
// (lower body first), contacts of body i sit beside those of i + 1
Pairs chain(int bodies) {
  Pairs p;
  p.bodies = bodies;
  for (int i = 0; i < bodies; ++i) {
    p.a.push_back(i);  // with the ground
    p.b.push_back(-1);
    if (i + 1 < bodies) {
      p.a.push_back(i);
      p.b.push_back(i + 1);
    }
  }
  return p;
}

// Runs the schedule and checks it against plain sweeps' order.
void check_schedule(const Pairs& p, int sweeps, int tile) {
  const int n = int(p.a.size());
  const std::vector<int> reach = detail::sweep_reach(p.bodies, p.a, p.b);
  for (int x = 0; x < n; ++x) {
    ASSERT_GE(reach[std::size_t(x)], x);
    if (x > 0) {
      ASSERT_GE(reach[std::size_t(x)], reach[std::size_t(x) - 1]);
    }
  }
  std::vector<long> when(std::size_t(n) * std::size_t(sweeps), -1);  // (sweep, contact) -> its place in the run
  long clock = 0;
  detail::wavefront_sweeps(reach, sweeps, tile, [&](int j, int begin, int end) {
    ASSERT_LE(0, begin);
    ASSERT_LT(begin, end);
    ASSERT_LE(end, n);
    for (int x = begin; x < end; ++x) {
      long& t = when[std::size_t(j) * std::size_t(n) + std::size_t(x)];
      ASSERT_EQ(t, -1) << "sweep " << j << " contact " << x << " visited twice";
      t = clock++;
    }
  });
  ASSERT_EQ(clock, long(n) * sweeps);
  const auto at = [&](int j, int x) { return when[std::size_t(j) * std::size_t(n) + std::size_t(x)]; };
  const auto share = [&](int x, int y) {
    for (const int u : {p.a[std::size_t(x)], p.b[std::size_t(x)]})
      if (u >= 0 && (u == p.a[std::size_t(y)] || u == p.b[std::size_t(y)])) return true;
    return false;
  };
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y) {
      if (x == y || !share(x, y)) continue;
      for (int j = 0; j < sweeps; ++j) {
        if (x < y) {
          ASSERT_LT(at(j, x), at(j, y)) << "sweep " << j << ": " << x << " before " << y;
        }
        if (j + 1 < sweeps) {
          ASSERT_LT(at(j, y), at(j + 1, x)) << "sweep " << j << "'s " << y << " before sweep " << j + 1 << "'s " << x;
        }
      }
    }
  for (int x = 0; x < n; ++x)
    for (int j = 0; j + 1 < sweeps; ++j) ASSERT_LT(at(j, x), at(j + 1, x));
}

}  // namespace

TEST(BandedSweeps, TheScheduleKeepsPlainSweepsOrderForAnyContactOrder) {
  for (unsigned seed = 1; seed <= 4; ++seed)
    for (const int tile : {1, 3, 16, 1000})
      for (const int sweeps : {1, 2, 5}) check_schedule(random_pairs(30, 120, seed), sweeps, tile);
  for (const int tile : {1, 4, 50}) check_schedule(chain(60), 6, tile);
  check_schedule(Pairs{}, 3, 8);  // no contacts: nothing visited
}

// In a chain the reach of a contact is a few positions, so a wavefront's later sweeps follow the
// first closely: with tiles of 8, sweep 5 has begun before sweep 0 passed position 40.
TEST(BandedSweeps, AChainsReachIsShortAndItsSweepsOverlap) {
  const Pairs p = chain(200);
  const std::vector<int> reach = detail::sweep_reach(p.bodies, p.a, p.b);
  for (std::size_t x = 0; x < reach.size(); ++x) EXPECT_LE(reach[x] - int(x), 3) << x;
  int first_sweep_at = 0, when_sixth_began = -1;
  detail::wavefront_sweeps(reach, 6, 8, [&](int j, int, int end) {
    if (j == 0) first_sweep_at = end;
    if (j == 5 && when_sixth_began < 0) when_sixth_began = first_sweep_at;
  });
  EXPECT_GT(when_sixth_began, 0);
  EXPECT_LE(when_sixth_began, 40);
}

// windowed_sweeps's closing stage (a solve's residual pass, read in the window): it runs in the
// wavefront that reaches the sweep budget, over every position once and in ascending order, each
// after the last sweep has passed it and every contact sharing a moving body with it; `closed` says
// whether it read the final state: yes where the budget or that wavefront's last sweep ends the
// solve, no where the test stops a sweep inside it (the state goes back and sweeps plainly) or an
// earlier wavefront ends the solve (the stage never ran).
TEST(BandedSweeps, TheClosingStageFollowsTheLastSweepWhereItEndsTheSolve) {
  for (const bool chained : {true, false}) {
    const Pairs p = chained ? chain(60) : random_pairs(30, 120, 5);
    const int n = int(p.a.size()), sweeps = 7;
    const std::vector<int> reach = detail::sweep_reach(p.bodies, p.a, p.b);
    const auto share = [&](int x, int y) {
      if (x == y) return true;
      for (const int u : {p.a[std::size_t(x)], p.b[std::size_t(x)]})
        if (u >= 0 && (u == p.a[std::size_t(y)] || u == p.b[std::size_t(y)])) return true;
      return false;
    };
    // stop: the sweep (0-based over the solve) whose test is met, -1 none
    for (const auto& case_ : std::vector<std::pair<int, int>>{{3, -1}, {3, 4}, {3, 2}, {3, 6}, {7, 6}, {7, 3}}) {
      const int group = case_.first, stop = case_.second;  // (a structured binding: not capturable before clang 16)
      int base = 0, g_now = 0;  // the wavefront's first sweep and size
      long clock = 0;
      std::vector<long> last_sweep(std::size_t(n), -1), closed_at(std::size_t(n), -1);
      int close_next = 0;  // the closing stage visits positions in ascending order
      const detail::WindowedRun run = detail::windowed_sweeps(
          reach, sweeps, 4, group,
          [&](int g) {
            base += g_now;
            g_now = g;
          },
          [&](int j, int begin, int end) {
            for (int x = begin; x < end; ++x)
              if (base + j == sweeps - 1) last_sweep[std::size_t(x)] = clock++;
          },
          [&](int j) { return base + j == stop; }, [] {},
          [&](int begin, int end) {
            ASSERT_EQ(begin, close_next);
            for (int x = begin; x < end; ++x) closed_at[std::size_t(x)] = clock++;
            close_next = end;
          });
      const std::string where = "chained " + std::to_string(chained) + " group " + std::to_string(group) + " stop " +
                                std::to_string(stop);
      EXPECT_EQ(run.iterations, stop >= 0 ? stop + 1 : sweeps) << where;
      EXPECT_EQ(run.converged, stop >= 0) << where;
      const int last_first = (sweeps - 1) / group * group;  // the first sweep of the budget's wavefront
      const bool ran = stop < 0 || stop >= last_first;
      EXPECT_EQ(run.closed, stop < 0 || stop == sweeps - 1) << where;
      EXPECT_EQ(close_next, ran ? n : 0) << where;
      if (stop >= 0) continue;
      for (int x = 0; x < n; ++x)
        for (int y = 0; y < n; ++y)
          if (share(x, y)) {
            ASSERT_LT(last_sweep[std::size_t(y)], closed_at[std::size_t(x)]) << where << ": " << y << " before " << x;
          }
    }
  }
}

TEST(BandedSweeps, BodiesOutOfRangeAreRefused) {
  EXPECT_THROW(detail::sweep_reach(3, {0, 3}, {1, -1}), std::invalid_argument);
  EXPECT_THROW(detail::sweep_reach(3, {0}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(detail::sweep_reach(3, {-2}, {1}), std::invalid_argument);
}
