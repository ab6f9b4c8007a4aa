// The planner (sweep_plan.h): every choice of schedule, from the threshold table alone.
#include <coulomb/sweep_plan.h>

#include <cstdio>

namespace coulomb {

namespace {

std::string share(const char* what, double count, double total, double limit, const char* row) {
  char s[160];
  std::snprintf(s, sizeof s, "%s %.0f of %.0f contacts %s %g (%s)", what, count, total, count >= limit * total ? ">=" : "<",
                limit, row);
  return s;
}

}  // namespace

const char* to_string(SweepKernel k) {
  switch (k) {
    case SweepKernel::Pgs: return "pgs";
    case SweepKernel::NormalPgs: return "normal-pgs";
    case SweepKernel::ProxGs: return "prox-gs";
    case SweepKernel::ProxJacobi: return "prox-jacobi";
  }
  return "?";
}

const char* to_string(SweepSchedule s) {
  switch (s) {
    case SweepSchedule::Ordered: return "ordered";
    case SweepSchedule::Colored: return "coloured";
    case SweepSchedule::Windowed: return "windowed";
    case SweepSchedule::Jacobi: return "jacobi";
  }
  return "?";
}

SweepPlan plan_sweep(const SolveSize& size, const SolverOptions& opt) {
  using namespace sweep_limits;
  SweepPlan plan;
  const auto bytes = [&](std::size_t per_contact) { return std::size_t(size.contacts) * per_contact; };
  const bool default_order = opt.pgs.ordering == PgsOrdering::Default;
  switch (size.kernel) {
    case SweepKernel::ProxJacobi:
      plan.schedule = SweepSchedule::Jacobi;
      plan.reason = "every contact from lambda^k (algorithm 1)";
      return plan;
    case SweepKernel::NormalPgs:
      // packed rows stream in order: no asking ahead
      if (bytes(kNormalContactBytes) >= kWindowedBytes) {
        plan.schedule = SweepSchedule::Windowed;
        plan.reason = "packed rows beyond the caches (windowed)";
      } else {
        plan.reason = "packed rows within the caches (windowed)";
      }
      return plan;
    case SweepKernel::Pgs:
    case SweepKernel::ProxGs: {
      const bool pgs = size.kernel == SweepKernel::Pgs;
      plan.ask_ahead = size.contacts >= kPrefetchFromContacts;
      plan.reason = plan.ask_ahead ? "asks ahead (prefetch)" : "no asking ahead (prefetch)";
      if (opt.graph_coloring && (!pgs || default_order)) {
        plan.schedule = SweepSchedule::Colored;
        plan.reason += "; graph_coloring";
      } else if (pgs && default_order && size.joint_rows == 0 && !opt.record_history && !(opt.merit_tol > 0.0) &&
                 bytes(kVelocityContactBytes) >= kWindowedBytes) {
        // windows leave out what every sweep ends with (joints), the history and the merit test
        plan.schedule = SweepSchedule::Windowed;
        plan.reason += "; sweep data beyond the caches (windowed)";
      } else if (pgs && bytes(kVelocityContactBytes) >= kWindowedBytes) {
        plan.reason += "; beyond the caches, but its order, joints, history or merit test keep whole sweeps";
      }
      return plan;
    }
  }
  return plan;
}

IslandPlan plan_islands(const Islands& islands, int contacts, int threads) {
  using namespace sweep_limits;
  IslandPlan plan;
  const int ni = islands.count();
  if (ni > 0) plan.largest = 0;
  for (int isl = 1; isl < ni; ++isl)
    if (islands.contact_count(isl) >= islands.contact_count(plan.largest)) plan.largest = isl;
  if (ni <= 1) {
    plan.reason = ni == 1 ? "one island" : "no islands";
    return plan;
  }
  const double largest = islands.contact_count(plan.largest), total = contacts;
  plan.reason = share("largest island", largest, total, kWholeIsland, "whole_island");
  if (largest >= kWholeIsland * total) return plan;
  plan.whole = false;
  if (threads > 1 && largest >= kThreadsIsland * total) plan.threads_island = plan.largest;
  if (threads > 1) plan.reason += "; " + share("it holds", largest, total, kThreadsIsland, "threads_island");
  plan.kept.assign(std::size_t(ni), -1);
  int used = 0;
  for (int isl = 0; isl < ni; ++isl)
    if (double(islands.contact_count(isl)) >= kKeptIsland * total) plan.kept[std::size_t(isl)] = used++;
  return plan;
}

}  // namespace coulomb
