// How the Gauss-Seidel and Jacobi contact solvers sweep a problem: one planner and one table of
// every size threshold that switches a code path or a data layout.
//
// A solver is a kernel (its paper's per-contact update) and an outer algorithm; how its sweeps
// run is a schedule of the private sweep layer (solvers/src/sweep.h): in a given order, colour by
// colour on a team of threads, in cache-sized windows, or Jacobi. plan_islands() decides whether
// a problem is split into islands, plan_sweep() which schedule each solve gets; both read only the
// table below, and `coulomb info --plan SCENE` prints their choices with the rows' reasons. No
// schedule changes what a sweep computes: the plans choose speed, never results.
#pragma once
#include <coulomb/contact_problem.h>
#include <coulomb/islands.h>
#include <coulomb/solver_options.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace coulomb {

// The thresholds (values exact in a double: the tests compare fractions exactly).
namespace sweep_limits {
// an island with at least this share of the contacts is solved whole, the others with it
inline constexpr double kWholeIsland = 15.0 / 16.0;
// an island with at least this share keeps every thread; the others get one each
inline constexpr double kThreadsIsland = 1.0 / 2.0;
// an island with at least this share keeps its sub-problem between calls (IslandScratch)
inline constexpr double kKeptIsland = 1.0 / 8.0;
// from this many contacts a sweep asks for each contact's data kPrefetchAhead contacts ahead
inline constexpr int kPrefetchFromContacts = 2048;
inline constexpr int kPrefetchAhead = 8;
// a whole problem whose sweep data takes at least this many bytes is swept in windows
inline constexpr std::size_t kWindowedBytes = std::size_t(4) << 20;
// what a sweep reads per contact: pgs's velocity problem (ContactRows, row steps, b, mu, the
// impulses, body ids), and a packed normal row (NormalRow)
inline constexpr std::size_t kVelocityContactBytes = 480;
inline constexpr std::size_t kNormalContactBytes = sizeof(NormalRow);
// windows: tiles of the first sweep and the window's size, in contacts
inline constexpr int kVelocityTile = 1024, kVelocityWindow = 8192;
inline constexpr int kNormalTile = 2048, kNormalWindow = 12800;
// a coloured sweep's members wait per unit (self-synced) when fewer than this share of the units
// depend on another member, with common cuts when the modelled span is at most kCommonSpan
inline constexpr double kSelfSyncedDependent = 1.0 / 4.0;
inline constexpr double kCommonSpan = 1.05;
}  // namespace sweep_limits

// One row of the threshold table.
struct SweepThreshold {
  const char* name;
  double value;
  const char* unit;
  const char* reason;  // what it switches, and why there
};

// Every size threshold of the rigid solvers' sweeps, with the contact problem's layout switch.
inline constexpr std::array<SweepThreshold, 8> kSweepThresholds{{
    {"whole_island", sweep_limits::kWholeIsland, "of the contacts",
     "the largest island takes the others along, solved whole: no copy, one colouring, at most 1/15 more per sweep"},
    {"threads_island", sweep_limits::kThreadsIsland, "of the contacts",
     "that island keeps every thread for its own solve (coloured: run last, so its helpers find the workers free)"},
    {"kept_island", sweep_limits::kKeptIsland, "of the contacts",
     "that island's sub-problem is kept between steps, so its copy reuses memory"},
    {"prefetch", double(sweep_limits::kPrefetchFromContacts), "contacts",
     "beyond a core's L2 a sweep asks for each contact's data 8 contacts ahead"},
    {"windowed", double(sweep_limits::kWindowedBytes), "bytes of sweep data",
     "beyond the caches, sweeps run in windows that stay in them (bit for bit plain sweeps)"},
    {"kept_responses", double(ContactProblem::kKeptResponses), "contacts",
     "up to here each contact keeps its I^-1 A^T; beyond, the bodies' I^-1 (less to stream)"},
    {"self_synced", sweep_limits::kSelfSyncedDependent, "of the units dependent",
     "below it a coloured sweep's members wait per dependent unit, not at a barrier per colour"},
    {"common_span", sweep_limits::kCommonSpan, "x an even share",
     "self-synced with every colour cut at the same contacts while the modelled span stays within it"},
}};

// What one solve is: its kernel and size, and the options that bar a schedule.
enum class SweepKernel { Pgs, NormalPgs, ProxGs, ProxJacobi };
enum class SweepSchedule { Ordered, Colored, Windowed, Jacobi };
const char* to_string(SweepKernel k);
const char* to_string(SweepSchedule s);

struct SolveSize {
  SweepKernel kernel = SweepKernel::Pgs;
  int contacts = 0;
  int joint_rows = 0;
};

// The schedule of one solve and the table rows that chose it.
struct SweepPlan {
  SweepSchedule schedule = SweepSchedule::Ordered;
  bool ask_ahead = false;  // sweeps prefetch kPrefetchAhead contacts ahead
  std::string reason;
};
SweepPlan plan_sweep(const SolveSize& size, const SolverOptions& opt);

// Whether a problem is split into islands, and how its islands are solved.
struct IslandPlan {
  bool whole = true;       // solved as one problem (no islands, one island, or a dominant one)
  int largest = -1;        // the island with the most contacts (ties: the later one), -1 if none
  int threads_island = -1; // the island that keeps every thread, -1 if none
  std::vector<int> kept;   // per island: its slot in IslandScratch, -1 for a fresh sub-problem
  std::string reason;
};
IslandPlan plan_islands(const Islands& islands, int contacts, int threads);

}  // namespace coulomb
