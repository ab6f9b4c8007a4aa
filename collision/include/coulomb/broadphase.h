// Broadphase: candidate pairs of overlapping bounding boxes.
//
// Sweep and prune along the axis of largest spread of the box centres: sort the intervals by
// their lower bound, sweep with an active list, test the two other axes. O(n log n + k) for n
// boxes and k overlaps, which keeps thousands of bodies cheap; infinite boxes (planes) sort
// first and meet everything, as they should.
#pragma once
#include <coulomb/shapes.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace coulomb {

// Pairs (i, j), i < j, of overlapping boxes where at least one of the two is not static,
// sorted lexicographically (deterministic regardless of the sort's tie-breaking).
void sweep_and_prune(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                     std::vector<std::pair<int, int>>& pairs);

}  // namespace coulomb
