// The planner (coulomb/sweep_plan.h): each plan changes where its table row says, and nowhere else.
#include <coulomb/sweep_plan.h>

#include <gtest/gtest.h>

#include <cstring>

using namespace coulomb;

namespace {

// islands of the given contact counts (contacts numbered in island order)
Islands planned_islands(const std::vector<int>& counts) {
  Islands s;
  s.contact_start.push_back(0);
  for (const int n : counts) {
    for (int k = 0; k < n; ++k) {
      s.contact_island.push_back(int(s.contact_start.size()) - 1);
      s.contacts.push_back(int(s.contacts.size()));
    }
    s.contact_start.push_back(int(s.contacts.size()));
  }
  return s;
}

}  // namespace

TEST(SweepPlan, ADominantIslandIsSolvedWholeFromFifteenSixteenths) {
  EXPECT_TRUE(plan_islands(planned_islands({}), 0, 2).whole);
  EXPECT_TRUE(plan_islands(planned_islands({7}), 7, 2).whole);
  const IslandPlan at = plan_islands(planned_islands({1, 15}), 16, 2);  // 15 of 16
  EXPECT_TRUE(at.whole);
  EXPECT_EQ(at.largest, 1);
  const IslandPlan below = plan_islands(planned_islands({2, 29}), 31, 2);  // 29 of 31 < 15/16
  EXPECT_FALSE(below.whole);
  EXPECT_EQ(below.threads_island, 1);  // at least half: every thread
  EXPECT_EQ(below.kept, (std::vector<int>{-1, 0}));  // 2 of 31 < 1/8
  EXPECT_EQ(plan_islands(planned_islands({2, 29}), 31, 1).threads_island, -1);  // one thread: nothing to keep
  const IslandPlan even = plan_islands(planned_islands({4, 4, 4, 4}), 16, 2);
  EXPECT_EQ(even.largest, 3);  // ties: the later island
  EXPECT_EQ(even.threads_island, -1);
  EXPECT_EQ(even.kept, (std::vector<int>{0, 1, 2, 3}));
}

TEST(SweepPlan, SchedulesFollowTheTable) {
  SolverOptions opt;
  const int windowed = int(sweep_limits::kWindowedBytes / sweep_limits::kVelocityContactBytes) + 1;
  EXPECT_EQ(plan_sweep({SweepKernel::Pgs, 100, 0}, opt).schedule, SweepSchedule::Ordered);
  EXPECT_FALSE(plan_sweep({SweepKernel::Pgs, sweep_limits::kPrefetchFromContacts - 1, 0}, opt).ask_ahead);
  EXPECT_TRUE(plan_sweep({SweepKernel::Pgs, sweep_limits::kPrefetchFromContacts, 0}, opt).ask_ahead);
  EXPECT_EQ(plan_sweep({SweepKernel::Pgs, windowed, 0}, opt).schedule, SweepSchedule::Windowed);
  EXPECT_EQ(plan_sweep({SweepKernel::Pgs, windowed, 3}, opt).schedule, SweepSchedule::Ordered);  // joints
  EXPECT_EQ(plan_sweep({SweepKernel::ProxGs, windowed, 0}, opt).schedule, SweepSchedule::Ordered);
  EXPECT_EQ(plan_sweep({SweepKernel::ProxJacobi, 100, 0}, opt).schedule, SweepSchedule::Jacobi);
  const int packed = int(sweep_limits::kWindowedBytes / sweep_limits::kNormalContactBytes);
  EXPECT_EQ(plan_sweep({SweepKernel::NormalPgs, packed - 1, 0}, opt).schedule, SweepSchedule::Ordered);
  EXPECT_EQ(plan_sweep({SweepKernel::NormalPgs, packed + 1, 0}, opt).schedule, SweepSchedule::Windowed);
  opt.graph_coloring = true;
  EXPECT_EQ(plan_sweep({SweepKernel::Pgs, windowed, 0}, opt).schedule, SweepSchedule::Colored);
  EXPECT_EQ(plan_sweep({SweepKernel::ProxGs, 100, 0}, opt).schedule, SweepSchedule::Colored);
  opt.pgs.ordering = PgsOrdering::Ipp;  // colouring is for the default order only
  EXPECT_EQ(plan_sweep({SweepKernel::Pgs, 100, 0}, opt).schedule, SweepSchedule::Ordered);
  for (const SweepThreshold& t : kSweepThresholds) {
    EXPECT_GT(t.value, 0.0) << t.name;
    EXPECT_GT(std::strlen(t.reason), 0u) << t.name;
  }
}
