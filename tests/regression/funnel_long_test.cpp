// The full funnel (scenes/funnel.json, 1998 objects): jams with mu = 0.75, flows with mu = 0.1.
// Thresholds are from measured runs (see the checks).
#include "funnel_util.h"

#include <gtest/gtest.h>

using namespace coulomb;
using namespace coulomb::testing_funnel;

namespace {
double pour(double mu) {
  World w(funnel_scene(mu, 0, 5.0));
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    if (!r.ok()) {
      ADD_FAILURE() << r.message;
      break;
    }
  }
  return fraction_below(w);
}
}  // namespace

TEST(FunnelFull, JamsWithHighFrictionAndFlowsWithLowFriction) {
  const double jam = pour(0.75), flow = pour(0.1);
  RecordProperty("fraction_below_mu_0_75", std::to_string(jam));
  RecordProperty("fraction_below_mu_0_1", std::to_string(flow));
  // measured after 5 s: FULL_JAM with mu = 0.75, FULL_FLOW with mu = 0.1
  EXPECT_LT(jam, 0.1);
  EXPECT_GT(flow, 2.0 * jam);
}
