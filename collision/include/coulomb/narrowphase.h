// Narrowphase: contact points between two shapes placed in the world.
//
// One table of plain functions indexed by the two shape types (STYLE.md lesson 6); symmetry is
// handled once by swapping the arguments and flipping the normals. Compounds recurse into
// their children. Each convex pair yields at most 4 well-spread points (a stable manifold for
// stacking); points are reported when the surfaces are closer than `envelope`.
#pragma once
#include <coulomb/contact.h>
#include <coulomb/shapes.h>

#include <vector>

namespace coulomb {

struct ContactPoint {
  Vec3 point;    // world, midway between the surfaces
  Vec3 normal;   // unit, from shape a towards shape b
  double depth;  // penetration (> 0) or minus the separation (< 0, > -envelope)
  int feature_a = -1;
  int feature_b = -1;
};

// Appends the contact points between shape `a` at `pa` and shape `b` at `pb` to `out`.
// Returns the number of points appended.
int collide(const ShapeLibrary& lib, int a, const Pose& pa, int b, const Pose& pb, double envelope,
            std::vector<ContactPoint>& out);
// The same with a shape `b` that is not in the library (a soft vertex's ball, without copying
// the library to add it). `b_id` (>= the library's size) stands for its index: the order of two
// shapes of one type. `b`'s compound children, if any, are library shapes.
int collide(const ShapeLibrary& lib, int a, const Pose& pa, const Shape& b, int b_id, const Pose& pb,
            double envelope, std::vector<ContactPoint>& out);

// Reduces a set of points sharing one normal to at most `max_points` well-spread ones: the
// deepest first, then the points that maximise the spanned area. Keeps the input order stable.
// At most 8 points are kept (a larger max_points counts as 8).
void reduce_manifold(std::vector<ContactPoint>& pts, int max_points = 4);

}  // namespace coulomb
