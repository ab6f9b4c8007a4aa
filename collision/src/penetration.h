// Contact axis and depth of two convex shapes (the narrowphase's general path): an exact
// separating-axis test for polytope pairs, libccd GJK+EPA (grown by a ball for gaps within the
// envelope) for everything else. Private to collision/.
#pragma once
#include <coulomb/shapes.h>

#include <boost/container/small_vector.hpp>

#include <utility>
#include <vector>

namespace coulomb::detail {

// A shape placed in the world; `index` is its slot in the library, `depth` its compound nesting.
struct Placed { int index; const Shape& shape; Pose pose; int depth = 0; };

// contact axis n from a to b; depth < 0 is a separation
struct Penetration { Vec3 n = Vec3::Zero(); double depth = 0.0; };

// touching (depth 0) always counts; a gap counts while it is smaller than the envelope
inline bool keep(double depth, double envelope) { return depth >= 0.0 || depth > -envelope; }

// Buffers that live on the stack up to their inline size: the narrowphase does not allocate for
// the usual shapes (counted by tests/collision/narrowphase_alloc_test.cpp).
using AxisList = boost::container::small_vector<Vec3, 32>;     // axes, polytope vertices
using PointList = boost::container::small_vector<Vec3, 32>;    // feature points (cylinder caps: 16)
using PointPairs = boost::container::small_vector<std::pair<Vec3, Vec3>, 4>;

// Local face normals and edge directions of a box or hull (parallel duplicates removed).
void polytope_axes(const Shape& s, AxisList& faces, AxisList& edges);

// Axis and depth of a and b; false when they are farther apart than the envelope. `scale` is the
// size of the pair (tolerances are relative to it).
bool penetration(const Placed& a, const Placed& b, double scale, double envelope, Penetration& pen);

}  // namespace coulomb::detail
