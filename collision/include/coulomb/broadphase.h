// Broadphase: candidate pairs of overlapping bounding boxes.
//
// Two algorithms with one output: pairs (i, j), i < j, of overlapping boxes where at least one
// of the two is not static, sorted lexicographically (so the result never depends on sort
// tie-breaking, hashing or threads). The grid is the default of DetectInput and WorldSettings:
// several times faster than sweep and prune on random boxes (tools/bench/broadphase_bench.cpp).
//
// - sweep and prune along the axis of largest spread of the box centres: sort the intervals by
//   their lower bound, sweep with an active list, test the two other axes. O(n log n + k) for
//   well-spread boxes, O(n^2) when many boxes overlap along the sweep axis (a tall pile seen
//   from above); infinite boxes (planes) sort first and meet everything, as they should.
// - a uniform grid with the median box size as its cell: each box is binned into the cells it
//   covers (counting sort, so no hashing), the boxes sharing a cell are tested, and a pair is
//   reported only from the first cell the two share (no duplicates, no hash set), in parallel
//   over fixed ranges of cells (the caller's task arena), then sorted by a counting sort on the
//   first index, so the list is the same on any thread count. A cell whose boxes are all static
//   (fixed, or asleep: a resting pile) is not searched. Boxes that
//   are infinite or cover many cells (grounds, planes, walls) are tested against every box;
//   when more than 1/32 of the boxes are that large (sizes over orders of magnitude), the grid
//   hands the call to sweep and prune, which has no size assumption.
#pragma once
#include <coulomb/shapes.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace coulomb {

enum class BroadphaseType { SweepAndPrune, Grid };

void sweep_and_prune(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                     std::vector<std::pair<int, int>>& pairs);

void uniform_grid(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                  std::vector<std::pair<int, int>>& pairs);

// The chosen algorithm; identical pairs either way.
void broadphase(BroadphaseType type, const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                std::vector<std::pair<int, int>>& pairs);

}  // namespace coulomb
