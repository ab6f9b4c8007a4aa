// The colour-stage team of parallel Gauss-Seidel (solvers/src/sweep_team.h): every item of every
// stage runs exactly once whatever the thread count, stages never overlap, and a team whose
// helpers never get a thread still finishes (the caller does the work).
#include "../../solvers/src/sweep_team.h"
#include "../../solvers/src/thread_scratch.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace coulomb {
namespace {

// Runs `stages` passes (team_pass) of varying length; each item counts its visits, and a pass
// checks that the previous one is complete when it starts.
void run_stages(detail::SweepTeam& team, int stages, std::vector<int>& member_items) {
  member_items.assign(std::size_t(team.size()), 0);
  std::vector<std::atomic<int>> visits(4096);
  std::vector<detail::Padded<int>> per_member(std::size_t(team.size()));
  int expected_done = 0;
  std::atomic<int> done{0};
  for (int s = 0; s < stages; ++s) {
    const int n = 1 + (s * 977) % 4096;
    for (auto& v : visits) v.store(0, std::memory_order_relaxed);
    auto f = [&](int begin, int end, int member) {
      ASSERT_EQ(done.load(), expected_done) << "stage " << s << " started before the previous one ended";
      for (int i = begin; i < end; ++i) visits[std::size_t(i)].fetch_add(1, std::memory_order_relaxed);
      per_member[std::size_t(member)].value += end - begin;
    };
    detail::team_pass(team, n, f);
    for (int i = 0; i < 4096; ++i)
      ASSERT_EQ(visits[std::size_t(i)].load(), i < n ? 1 : 0) << "stage " << s << " item " << i;
    done.store(expected_done += n);
  }
  for (int m = 0; m < team.size(); ++m) member_items[std::size_t(m)] = per_member[std::size_t(m)].value;
}

// body(team) on a team of `threads` members in an arena of as many threads, once every helper
// has started (more threads than this 2-core machine has: TBB must be allowed them, each spins
// in turn).
template <class Body>
void on_assembled_team(int threads, Body&& body) {
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
  tbb::task_arena arena(threads);
  arena.execute([&] {
    detail::SweepTeam team(threads);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!team.assembled() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    ASSERT_TRUE(team.assembled()) << threads << " threads: a helper did not start within 10 s";
    body(team);
  });
}

TEST(SweepTeam, EveryItemOfEveryStageRunsOnceOnAnyThreadCount) {
  for (const int threads : {1, 2, 3, 4}) {
    detail::SweepTeam team(threads);
    std::vector<int> items;
    run_stages(team, 300, items);
    team.finish();
    int total = 0;
    for (int x : items) total += x;
    int expected = 0;
    for (int s = 0; s < 300; ++s) expected += 1 + (s * 977) % 4096;
    EXPECT_EQ(total, expected) << threads << " threads";
    // after finish() the caller works alone, and still completes
    run_stages(team, 20, items);
    for (int m = 1; m < team.size(); ++m) EXPECT_EQ(items[std::size_t(m)], 0);
  }
}

// Helpers started inside an arena of one thread never run while the caller works: the caller
// must take every item rather than wait for them.
TEST(SweepTeam, HelpersThatNeverStartLeaveTheWorkToTheCaller) {
  tbb::task_arena one(1);
  one.execute([] {
    detail::SweepTeam team(4);
    std::vector<int> items;
    run_stages(team, 100, items);
    for (int m = 1; m < team.size(); ++m) EXPECT_EQ(items[std::size_t(m)], 0);
    EXPECT_GT(items[0], 0);
  });
}

// run_phases (the colours of a sweep): once every helper has started, each member runs its own
// share of every phase, and no member starts a phase before all have finished the one before;
// passes in between still run every item once.
TEST(SweepTeam, PhasesRunInOrderWithABarrierBetweenThem) {
  for (const int threads : {2, 3}) {
    const int rounds = threads == 2 ? 200 : 20;
    on_assembled_team(threads, [&](detail::SweepTeam& team) {
      constexpr int kPhases = 7;
      std::vector<detail::Padded<std::atomic<int>>> finished(std::size_t(kPhases) * std::size_t(threads));
      std::atomic<int> early{0};
      std::vector<int> items;
      for (int round = 0; round < rounds; ++round) {
        for (auto& f : finished) f.value.store(0);
        auto f = [&](int phase, int member, int members) {
          EXPECT_EQ(members, threads);
          if (phase > 0)
            for (int m = 0; m < members; ++m)
              if (finished[std::size_t(phase - 1) * std::size_t(members) + std::size_t(m)].value.load() != 1) ++early;
          finished[std::size_t(phase) * std::size_t(members) + std::size_t(member)].value.fetch_add(1);
        };
        ASSERT_TRUE(team.run_phases(kPhases, f));
        for (const auto& x : finished) ASSERT_EQ(x.value.load(), 1) << "round " << round;
        if (round % 10 == 0) run_stages(team, 5, items);  // dynamic stages between phased ones
      }
      EXPECT_EQ(early.load(), 0) << threads << " threads: a phase started before the previous one ended";
    });
  }
}

// A team whose helpers cannot start does not share phases: run_phases leaves the work to the
// caller (colored_sweep then sweeps alone) instead of waiting for them.
TEST(SweepTeam, PhasesAreNotSharedWithHelpersThatNeverStart) {
  tbb::task_arena one(1);
  one.execute([] {
    detail::SweepTeam team(4);
    int calls = 0;
    auto f = [&](int, int, int) { ++calls; };
    EXPECT_FALSE(team.assembled());
    EXPECT_FALSE(team.run_phases(3, f));
    EXPECT_EQ(calls, 0);
  });
}

// ColorSchedule (sweep_team.h) moves each colour's cuts toward equal times: with the first 50 of
// 100 one-contact units three times as costly as the rest, two members' cut settles where each
// run costs the same (unit 33 of 100), three members' cuts where each costs a third; every cut
// stays inside its colour, and the colours are balanced each on its own. (Colour 1's unit j
// meets colour 0's unit j + 50: half of colour 1 or more is dependent however it is cut, so the
// sweeps have barriers and these cuts.)
TEST(ColorSchedule, CutsSettleWhereTheMembersTimesAreEqual) {
  ContactColoring c;
  for (int k = 0; k < 200; ++k) c.order.push_back(k);
  for (int u = 0; u <= 200; ++u) c.unit_start.push_back(u);
  c.color_start = {0, 100, 200, 200};  // two colours of 100 units, no overflow
  for (int u = 0; u < 100; ++u) c.unit_bodies.push_back({u, -1});
  for (int j = 0; j < 100; ++j) c.unit_bodies.push_back({(j + 50) % 100, -1});
  c.bodies = 100;
  const auto cost = [](int g, int u) { return g == 0 && u < 50 ? 3.0 : 1.0; };  // colour 1: uniform
  for (const int members : {2, 3}) {
    detail::ColorSchedule s;
    s.prepare(c, members);
    ASSERT_FALSE(s.self_synced()) << members;
    for (int g = 0; g < 2; ++g)
      for (int m = 0; m <= members; ++m)
        EXPECT_EQ(s.unit(g, m), 100 * g + (100 * m + members / 2) / members) << members;
    for (int sweep = 0; sweep < 30; ++sweep) {
      for (int g = 0; g < 2; ++g)
        for (int m = 0; m < members; ++m) {
          double t = 0.0;
          for (int u = s.unit(g, m); u < s.unit(g, m + 1); ++u) t += cost(g, u - 100 * g);
          s.record(g, m, std::uint64_t(1000.0 * t));
        }
      s.rebalance(c);
    }
    // colour 0 costs 3 u up to unit 50, then 150 + (u - 50): a half (100) at u = 33.3, thirds
    // (66.7 and 133.3) at u = 22.2 and 44.4
    if (members == 2) {
      EXPECT_NEAR(s.unit(0, 1), 33, 1);
    }
    if (members == 3) {
      EXPECT_NEAR(s.unit(0, 1), 22, 1);
      EXPECT_NEAR(s.unit(0, 2), 44, 1);
    }
    for (int m = 0; m < members; ++m) EXPECT_LE(s.unit(0, m), s.unit(0, m + 1));
    EXPECT_EQ(s.unit(0, 0), 0);
    EXPECT_EQ(s.unit(0, members), 100);
    for (int m = 0; m <= members; ++m) EXPECT_NEAR(s.unit(1, m), 100 + 100.0 * m / members, 1) << members;
  }
}

// Self-synced sweeps cut every colour at the same contact indices while the waits they bring
// stay short (ColorSchedule::modelled_span). Colour 0 holds contacts 0-49, colour 1 contacts
// 50-99, one unit each: the common cut at contact 50 gives colour 0 to the first member and
// colour 1 to the second. When colour 1's first ten units share a body with colour 0's, the
// second member would wait for all of colour 0 before them (a span of 60 contacts against 50):
// each colour is cut at its half instead, where no unit waits.
TEST(ColorSchedule, CommonCutsUnlessTheirWaitsAreLong) {
  for (const bool shared : {false, true}) {
    ContactColoring c;
    for (int k = 0; k < 100; ++k) c.order.push_back(k);
    for (int u = 0; u <= 100; ++u) c.unit_start.push_back(u);
    c.color_start = {0, 50, 100, 100};
    for (int u = 0; u < 50; ++u) c.unit_bodies.push_back({u, -1});
    for (int j = 0; j < 50; ++j) c.unit_bodies.push_back({shared && j < 10 ? j : 100 + j, -1});
    c.bodies = 150;
    detail::ColorSchedule s;
    s.prepare(c, 2);
    EXPECT_TRUE(s.self_synced()) << shared;
    EXPECT_EQ(s.unit(0, 1), shared ? 25 : 50) << shared;
    EXPECT_EQ(s.unit(1, 1), shared ? 75 : 50) << shared;
    for (int u = 0; u < 100; ++u) EXPECT_FALSE(s.dependent(u)) << shared << " unit " << u;
  }
}

// A self-synced run_phases stage (the colours of a self-synced sweep): no barrier between
// phases, only where a phase calls wait_phase; after the wait every member has finished the
// phases before, and the stage ends with every phase done by every member.
TEST(SweepTeam, SelfSyncedPhasesWaitWhereAsked) {
  for (const int threads : {2, 3}) {
    on_assembled_team(threads, [&](detail::SweepTeam& team) {
      constexpr int kPhases = 9;
      std::vector<detail::Padded<std::atomic<int>>> finished(std::size_t(kPhases) * std::size_t(threads));
      std::atomic<int> early{0};
      for (int round = 0; round < (threads == 2 ? 200 : 20); ++round) {
        for (auto& f : finished) f.value.store(0);
        auto f = [&](int phase, int member, int members) {
          if ((phase + member) % 2 == 1) {  // every other phase waits, member by member
            team.wait_phase(phase - 1, member);
            for (int p = 0; p < phase; ++p)
              for (int m = 0; m < members; ++m)
                if (finished[std::size_t(p) * std::size_t(members) + std::size_t(m)].value.load() != 1) ++early;
          }
          finished[std::size_t(phase) * std::size_t(members) + std::size_t(member)].value.fetch_add(1);
        };
        ASSERT_TRUE(team.run_phases(kPhases, f, true));
        for (const auto& x : finished) ASSERT_EQ(x.value.load(), 1) << "round " << round;
      }
      EXPECT_EQ(early.load(), 0) << threads << " threads: a wait returned before the phases it waited for ended";
    });
  }
}

// The dependent units of ColorSchedule: a unit whose moving body another member's run wrote
// earlier in the sweep. A chain of bodies 0-1, 2-3 (colour 0) and 1-2, 3-4 (colour 1) on two
// members: 1-2 is the first member's and body 2 was the second's; 3-4 is the second's, whose
// body 3 it wrote itself. One of four units is dependent: not fewer than 1/4, so barriers.
TEST(ColorSchedule, AUnitIsDependentWhenAnotherMemberWroteItsBodyEarlierInTheSweep) {
  ContactColoring c;
  c.order = {0, 1, 2, 3};
  c.unit_start = {0, 1, 2, 3, 4};
  c.color_start = {0, 2, 4, 4};
  c.unit_bodies = {{0, 1}, {2, 3}, {1, 2}, {3, 4}};
  c.bodies = 5;
  detail::ColorSchedule s;
  s.prepare(c, 2);
  ASSERT_EQ(s.unit(0, 1), 1);
  ASSERT_EQ(s.unit(1, 1), 3);
  EXPECT_FALSE(s.dependent(0));
  EXPECT_FALSE(s.dependent(1));
  EXPECT_TRUE(s.dependent(2));
  EXPECT_FALSE(s.dependent(3));
  EXPECT_TRUE(s.waits(1, 0));
  EXPECT_FALSE(s.waits(1, 1));
  EXPECT_FALSE(s.self_synced());
  // a fixed body (-1) is never waited for, and one member never waits
  c.unit_bodies = {{-1, 1}, {2, 3}, {1, -1}, {3, 4}};
  detail::ColorSchedule t;
  t.prepare(c, 2);
  EXPECT_FALSE(t.dependent(2));
  EXPECT_TRUE(t.self_synced());
  detail::ColorSchedule alone;
  alone.prepare(c, 1);
  EXPECT_FALSE(alone.self_synced());
}

// Self-synced, a member's run of a colour is swept from synced_order(): the contacts of its units
// that wait for no one, then from split() those of its dependent units, each run where it lies in
// c.order. Colour 0: units of bodies 0-1, 2-3 (the first member's), 4-5, 6-7 (the second's);
// colour 1: 3-4 and 1-8 (the first's; 3-4 waits for body 4), 5-9 and 7-10. One dependent unit of
// eight: self-synced, and the first member's colour-1 run is swept 1-8 first, then 3-4.
TEST(ColorSchedule, ASelfSyncedRunSweepsItsDependentUnitsLast) {
  ContactColoring c;
  c.order = {0, 1, 2, 3, 4, 5, 6, 7};
  c.unit_start = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  c.color_start = {0, 4, 8, 8};
  c.unit_bodies = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {3, 4}, {1, 8}, {5, 9}, {7, 10}};
  c.bodies = 11;
  detail::ColorSchedule s;
  s.prepare(c, 2);
  ASSERT_TRUE(s.self_synced());
  ASSERT_EQ(s.unit(1, 1), 6);
  EXPECT_TRUE(s.dependent(4));
  EXPECT_TRUE(s.waits(1, 0));
  EXPECT_FALSE(s.waits(1, 1));
  const std::vector<int> order(s.synced_order(), s.synced_order() + 8);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 5, 4, 6, 7}));
  EXPECT_EQ(s.split(1, 0), 5);  // the dependent unit's contact from position 5
  EXPECT_EQ(s.split(0, 0), 2);  // runs without one: split at their end
  EXPECT_EQ(s.split(1, 1), 8);
}

// A solver's per-thread scratch: the same vectors, contents kept, for the next solve on the
// thread; a solve nested inside another on the same thread, or one on another thread, gets its own.
TEST(ThreadScratch, KeptPerThreadAndFreshWhenInUse) {
  struct Work {
    std::vector<int> v;
  };
  const int* kept = nullptr;
  {
    detail::ThreadScratch<Work> outer;
    outer->v.assign(1000, 7);
    kept = outer->v.data();
    {
      detail::ThreadScratch<Work> nested;
      EXPECT_TRUE(nested->v.empty());
      EXPECT_NE(&*nested, &*outer);
    }
  }
  {
    detail::ThreadScratch<Work> again;
    EXPECT_EQ(again->v.data(), kept);
    ASSERT_EQ(again->v.size(), 1000u);
    EXPECT_EQ(again->v[999], 7);
    std::thread([&] {
      detail::ThreadScratch<Work> other;
      EXPECT_TRUE(other->v.empty());
    }).join();
  }
}

}  // namespace
}  // namespace coulomb
