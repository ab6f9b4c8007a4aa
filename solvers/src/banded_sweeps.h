// Cache-blocked Gauss-Seidel sweeps that compute what plain sweeps compute, bit for bit (sparse
// tiling of stationary iterative methods, Strout et al. 2004): the sweep layer's windowed
// schedule (sweep.h windowed_sweep).
//
// A sweep updates contact x from, and into, the velocities of its two bodies. Over several sweeps
// what each update reads is fixed by the order of the updates that share a moving body: in plain
// sweeps every update of sweep j at position y comes before sweep j + 1's at every x. A schedule
// keeps every result if it keeps, for each pair of contacts sharing a moving body, (j, x) before
// (j, y) for x < y and (j, y) before (j + 1, x) for all x, y; updates with no moving body in
// common commute exactly (a body that does not move is never written). wavefront_sweeps keeps
// them with frontiers: sweep j + 1 may run up to the first position x whose reach (the last
// position of any contact sharing a moving body with a contact at or before x) sweep j has not
// passed. It runs the sweeps tile by tile, a tile of the first sweep and then as far as each later
// sweep may follow, so a window of contacts is read by every sweep while it is in the caches
// instead of once per sweep from memory.
//
// The window is a tile plus one reach per sweep, so it pays where contacts sharing a body lie close
// together in the problem's order. The World's contacts are sorted by body pair, and a large
// scene's bodies are numbered along its longest axis with the fixed ones last (engine/README.md
// "Body ids"), so a box's contacts with the ground sit beside its contacts with its neighbours and
// a reach spans about one slab of the pile. Whatever the order, the results are those of plain
// sweeps; only the window's size depends on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace coulomb::detail {

// For contacts in sweep order, a[x] and b[x] their bodies (-1 for a side that does not move;
// bodies in [0, num_bodies)): reach[x] = the largest position of a contact that
// shares a moving body with any contact at or before x (at least x; nondecreasing).
std::vector<int> sweep_reach(int num_bodies, const std::vector<int>& a, const std::vector<int>& b);

// `sweeps` Gauss-Seidel sweeps over positions [0, reach.size()) in tiles of `tile` positions of
// the first sweep: visit(j, begin, end) must sweep positions [begin, end) in ascending order for
// sweep j (0-based within this call). Every (sweep, position) is visited once, in an order that
// keeps the results of plain sweeps (above).
template <class Visit>
void wavefront_sweeps(const std::vector<int>& reach, int sweeps, int tile, Visit&& visit) {
  const int n = int(reach.size());
  if (n == 0 || sweeps <= 0) return;
  std::vector<int> done(static_cast<std::size_t>(sweeps), 0);
  while (done.back() < n) {
    int limit = std::min(n, done[0] + std::max(tile, 1));
    for (int j = 0; j < sweeps; ++j) {
      // sweep j may pass position x once sweep j - 1 has passed reach[x]
      if (j > 0) limit = int(std::lower_bound(reach.begin(), reach.end(), limit) - reach.begin());
      if (limit > done[std::size_t(j)]) {
        visit(j, done[std::size_t(j)], limit);
        done[std::size_t(j)] = limit;
      }
    }
  }
}

// What windowed_sweeps did: plain sweeps' iteration count and stopping test, and whether the
// closing pass ran over the final state (over every position, after the last sweep).
struct WindowedRun {
  int iterations = 0;
  bool converged = false;
  bool closed = false;
};

// Up to `sweeps` Gauss-Seidel sweeps over [0, reach.size()) in wavefronts of `group` sweeps, with
// a stopping test after each sweep and plain sweeps' results: start(g) before a wavefront of g
// sweeps (keep the state to go back to, clear g sweeps' stopping maxima), sweep(j, begin, end)
// (positions [begin, end) in order for the wavefront's sweep j, adding to sweep j's maxima),
// met(j) (sweep j met the test), restore() (the state start kept). Where the test is met by a
// sweep before its wavefront's last, plain sweeps stop there: the state goes back to the
// wavefront's start and whole sweeps run to that sweep (at most once a solve).
//
// close(begin, end), the solve's closing pass (its residual terms, reading what the last sweep
// left), runs as one more stage of the wavefront that reaches `sweeps`: position x once the last
// sweep has passed every contact sharing a moving body with it, ascending, so the rows are read
// while the window holds them instead of in a pass of their own from memory. It counts
// (WindowedRun::closed) where that wavefront's last sweep ends the solve; where the test stops a
// sweep before it, or an earlier wavefront ends the solve, the caller runs the pass itself.
template <class Start, class Sweep, class Met, class Restore, class Close>
WindowedRun windowed_sweeps(const std::vector<int>& reach, int sweeps, int tile, int group, Start&& start, Sweep&& sweep,
                            Met&& met, Restore&& restore, Close&& close) {
  WindowedRun run;
  const int n = int(reach.size());
  for (int done = 0; done < sweeps && n > 0 && !run.converged;) {
    const int g = std::min(group, sweeps - done);
    const bool last = done + g == sweeps;
    start(g);
    wavefront_sweeps(reach, last ? g + 1 : g, tile, [&](int j, int begin, int end) {
      if (j < g) sweep(j, begin, end);
      else close(begin, end);
    });
    int first = -1;  // the first sweep that met the stopping test
    for (int j = 0; j < g && first < 0; ++j)
      if (met(j)) first = j;
    if (first >= 0 && first + 1 < g) {
      restore();
      for (int j = 0; j <= first; ++j) sweep(j, 0, n);
    }
    run.closed = last && (first < 0 || first + 1 == g);
    done += first >= 0 ? first + 1 : g;
    run.iterations = done;
    run.converged = first >= 0;
  }
  return run;
}

// How many sweeps one wavefront holds: as many as keep its window, a tile and a reach per sweep
// (the mean reach: the widest spans a few contacts), within `window` contacts; at least one.
int wavefront_group(const std::vector<int>& reach, int tile, int window);

}  // namespace coulomb::detail
