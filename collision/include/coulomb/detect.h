// Collision detection stage (DESIGN.md stage 2): bodies' shapes and poses in, sorted contacts out.
#pragma once
#include <coulomb/broadphase.h>
#include <coulomb/contact.h>
#include <coulomb/shapes.h>

#include <cstdint>
#include <vector>

namespace coulomb {

struct DetectInput {
  const ShapeLibrary* shapes = nullptr;
  const std::vector<int>* body_shape = nullptr;          // (nb)
  const std::vector<Pose>* shape_pose = nullptr;         // (nb) world pose of each body's shape
  const std::vector<std::uint8_t>* is_static = nullptr;  // (nb) static pairs are skipped
  double envelope = 0.01;  // contacts are reported below this separation (unit: m)
  double margin = 0.0;     // extra growth of the bounding boxes (unit: m)
  // (nb) how far each body may move before the next detection (unit: m), or null for none:
  // a pair's envelope grows by the sum of its two bodies' reach, so that a fast body meets its
  // contact as a speculative one before it overlaps instead of after
  const std::vector<double>* reach = nullptr;
  BroadphaseType broadphase = BroadphaseType::Grid;  // same pairs either way (collision/README.md)
};

struct DetectStats {
  int pairs = 0;     // broadphase candidate pairs
  int contacts = 0;  // contact points
};

// Broadphase + narrowphase; `out` is sorted with contact_less and has body_a < body_b.
// Runs in parallel in the caller's task arena; the output does not depend on the thread count.
DetectStats detect_contacts(const DetectInput& in, std::vector<Contact>& out);

}  // namespace coulomb
