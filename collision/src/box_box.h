// Box-box contact: a separating-axis test and a clipped face manifold written for two boxes.
// Private to collision/ (narrowphase.cpp's box-box entry, penetration.cpp's box pairs).
#pragma once
#include <coulomb/narrowphase.h>

#include "penetration.h"

#include <vector>

namespace coulomb::detail {

// Minimum-overlap axis of two boxes over their 15 separating axes, from a towards b: the same
// axes, order, tie rule, face preference and early exit as the polytope test (penetration.cpp),
// each overlap from the boxes' projected radii (Gottschalk 1996; Ericson 2005 s.4.4.1).
// A depth below -envelope means the pair is apart (the test stopped there).
Penetration box_sat(const Placed& a, const Placed& b, double scale, double envelope);

// Appends the contact points of two boxes: box_sat's axis, then convex_manifold's rules (a
// reference face within kReferenceCos of the axis, the other box's incident face, edge or vertex
// clipped to it; else the closest pairs of the two edges or vertices) on fixed-size arrays, and
// reduce_manifold's rule for more than 4 points. Points closer than `envelope` are kept.
void box_box_contact(const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out);

}  // namespace coulomb::detail
