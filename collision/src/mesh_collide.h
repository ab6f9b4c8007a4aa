// Narrowphase pairs with a triangle mesh as shape a (see mesh_collide.cpp). Private to collision/.
#pragma once
#include <coulomb/narrowphase.h>

#include "penetration.h"

#include <vector>

namespace coulomb::detail {

// mesh a against a convex shape b (sphere, box, capsule, cylinder, convex)
void mesh_convex(const ShapeLibrary& lib, const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out);
// mesh a against a plane b
void mesh_plane(const ShapeLibrary& lib, const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out);
// mesh a against mesh b
void mesh_mesh(const ShapeLibrary& lib, const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out);

// Filters and reduces the contacts of one non-convex pair: near-duplicate points (two triangles
// reporting one contact across their shared edge) are dropped, the rest are grouped by normal
// direction (within kClusterAngle) and each group is reduced to 4 points (reduce_manifold).
// At most kMaxMeshManifolds groups are kept, the deepest first.
inline constexpr double kClusterCos = 0.9396926207859084;  // cos(20 deg)
inline constexpr int kMaxMeshManifolds = 4;
// A mesh-mesh pair makes contact points for at most this many triangle pairs, the deepest ones
// (at most kMaxMeshManifolds x 4 points survive the reduction). Two jacks within a speculative
// envelope of a few centimetres keep hundreds of triangle pairs, and each clipped manifold but
// the deepest few is reduced away: the funnel's landing spent most of its detection there.
inline constexpr int kMaxTrianglePairs = 32;
void reduce_mesh_contacts(std::vector<ContactPoint>& pts, std::size_t from, double duplicate_distance);

}  // namespace coulomb::detail
