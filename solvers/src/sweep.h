// The sweep layer: how the Gauss-Seidel and Jacobi contact solvers' sweeps run.
//
// A solver gives a kernel, its paper's update of one contact, kernel(k, SweepMax&), which adds
// the contact's step and impulse to the sweep's maxima; a schedule runs it over the contacts:
//   ordered_sweep    in a given order (pgs's orderings, prox, the packed normal rows)
//   colored_sweep    colour by colour on a SweepTeam (sweep_team.h)
//   windowed_sweep   in cache-sized wavefronts of several sweeps (banded_sweeps.h)
//   jacobi_sweep     every contact from the same iterate, in parallel blocks
// plan_sweep (coulomb/sweep_plan.h) chooses one per solve. No schedule changes what a kernel
// computes or the order of any two updates that share a moving body, and the maxima are
// order-free: a solve's results are those of one thread sweeping in order, bit for bit.
// Prefetching belongs here, not in kernels: op.prefetch(k) (the bodies' velocities) and the
// solver's own per-contact data through `also(k)`, both hints that change no bit.
#pragma once
#include "banded_sweeps.h"
#include "sweep_team.h"

#include <coulomb/sweep_plan.h>
#include <coulomb/timer.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace coulomb::detail {

// What the stopping tests read of a sweep: ||lambda^{k+1} - lambda^k||_inf and ||lambda^{k+1}||_inf
// over the rows it solved (maxima: exact in any order).
struct SweepMax {
  double delta = 0.0;
  double lambda = 0.0;
  // one row's step d to impulse x; a NaN step must not read as a zero step (std::max drops NaN)
  void add(double d, double x) {
    delta = std::isfinite(d) ? std::max(delta, std::abs(d)) : std::numeric_limits<double>::infinity();
    lambda = std::max(lambda, std::abs(x));
  }
  void merge(const SweepMax& o) {
    delta = std::max(delta, o.delta);
    lambda = std::max(lambda, o.lambda);
  }
};

// The stopping test of pgs and normal-pgs: a step within abs_tol, or within rel_tol of the impulses.
inline bool small_step(const SweepMax& s, double abs_tol, double rel_tol) {
  return s.delta <= abs_tol || s.delta <= rel_tol * s.lambda;
}

// kernel(k, m) for k = order[0 .. n) (0 .. n) where order is null), asking for each contact's
// bodies kPrefetchAhead contacts ahead on problems of the prefetch row's size.
template <class Op, class Kernel>
SweepMax ordered_sweep(const Op& op, const int* order, int n, Kernel&& kernel) {
  SweepMax m;
  const bool ahead = op.size() >= sweep_limits::kPrefetchFromContacts;
  constexpr int kAhead = sweep_limits::kPrefetchAhead;
  for (int e = 0; e < n; ++e) {
    if (ahead && e + kAhead < n) op.prefetch(order ? order[e + kAhead] : e + kAhead);
    kernel(order ? order[e] : e, m);
  }
  return m;
}

// One Gauss-Seidel sweep colour by colour on the team (sweep_team.h colored_sweep); `acc` holds
// the members' maxima (kept by the caller between sweeps). A colour lists its contacts far apart
// in memory, where the hardware prefetchers do not follow: on problems of the prefetch row's size
// each run asks kPrefetchAhead contacts ahead for the operator's data (op.prefetch_contact) and
// the solver's own (also(k): its impulses, row steps or r-factors).
template <class Op, class Kernel, class Also>
SweepMax colored_sweep(SweepTeam& team, const ContactColoring& c, const Op& op, std::vector<Padded<SweepMax>>& acc,
                       Kernel&& kernel, Also&& also) {
  acc.assign(std::size_t(team.size()), {});
  const bool ahead = op.size() >= sweep_limits::kPrefetchFromContacts;
  constexpr int kAhead = sweep_limits::kPrefetchAhead;
  colored_sweep(team, c, op, [&](const int* contacts, int n, int member) {
    SweepMax m;
    for (int e = 0; e < n; ++e) {
      if (ahead && e + kAhead < n) {
        op.prefetch_contact(contacts[e + kAhead]);
        also(contacts[e + kAhead]);
      }
      kernel(contacts[e], m);
    }
    acc[std::size_t(member)].value.merge(m);
  });
  SweepMax s;
  for (const auto& a : acc) s.merge(a.value);
  return s;
}

// Up to `sweeps` sweeps of positions [0, reach.size()) in windows (windowed_sweeps, banded_sweeps.h),
// with the stopping test small(SweepMax) after each: save() keeps the state a wavefront starts
// from and restore() goes back to it; sweep(begin, end, m) sweeps positions [begin, end) in order
// into m; close(begin, end) is the solve's closing pass (WindowedRun::closed).
template <class Save, class Restore, class Sweep, class Small, class Close>
WindowedRun windowed_sweep(const std::vector<int>& reach, int sweeps, int tile, int window, Save&& save,
                           Restore&& restore, Sweep&& sweep, Small&& small, Close&& close) {
  std::vector<SweepMax> result;
  return windowed_sweeps(
      reach, sweeps, tile, wavefront_group(reach, tile, window),
      [&](int g) {
        save();
        result.assign(std::size_t(g), SweepMax{});
      },
      [&](int j, int begin, int end) { sweep(begin, end, result[std::size_t(j)]); },
      [&](int j) { return small(result[std::size_t(j)]); }, restore, close);
}

// f(begin, end) over [0, n): items that read only the previous iterate, in parallel blocks of
// kJacobiBlock where threads > 1 (in the caller's arena), else in the caller.
inline constexpr int kJacobiBlock = 64;
template <class F>
void jacobi_sweep(int n, int threads, F&& f) {
  if (threads > 1)
    tbb::parallel_for(tbb::blocked_range<int>(0, n, kJacobiBlock),
                      [&](const tbb::blocked_range<int>& r) { f(r.begin(), r.end()); });
  else if (n > 0) f(0, n);
}

// A solve's first impulses: the caller's warm start where asked for and of the problem's sizes,
// else zeros.
inline void start_impulses(const SolverOptions& opt, int contacts, int joint_rows, std::vector<Vec4>& lambda,
                           std::vector<double>& joint_lambda) {
  if (!opt.warm_start || int(lambda.size()) != contacts) lambda.assign(std::size_t(contacts), Vec4::Zero());
  if (!opt.warm_start || int(joint_lambda.size()) != joint_rows) joint_lambda.assign(std::size_t(joint_rows), 0.0);
}

// A coloured solve of p: the team's helpers start before the contacts are coloured, so that they
// are awake for the solve's first pass; solve(coloring, team) with the colouring kept per thread
// (thread_scratch.h); time_ms includes the colouring.
template <class Solve>
SolverStats colored_solve(const ContactProblem& p, int threads, Solve&& solve) {
  const Stopwatch watch;
  SweepTeam team(threads);
  ThreadScratch<ContactColoring> coloring;
  color_contacts(p, *coloring);
  SolverStats stats = solve(*coloring, team);
  stats.time_ms = watch.ms();
  return stats;
}

}  // namespace coulomb::detail
