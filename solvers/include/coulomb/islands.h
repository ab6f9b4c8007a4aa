// Simulation islands: the connected components of the contact and joint graph (Box2D island.c, Jolt
// IslandBuilder). Two moving bodies share an island when a chain of contacts joins them; fixed
// bodies never join (a fixed ground does not merge everything resting on it), so the contact
// problem of one island is independent of every other and islands can be solved in parallel.
//
// Only islands with at least one contact are listed: a body with no contact has no problem to
// solve. Islands are numbered in the order of their smallest body index, and each island's
// contacts keep the global contact order, so the partition depends on the contact list only
// (never on thread count or hash order).
#pragma once
#include <cstdint>
#include <vector>

namespace coulomb {

struct Islands {
  std::vector<int> body_island;     // (nb) island of each body, -1 for fixed or contact-free bodies
  std::vector<int> contact_island;  // (nc) island of each contact
  // island i owns contacts[contact_start[i] .. contact_start[i+1]) (global indices, ascending)
  // and bodies[body_start[i] .. body_start[i+1]) (global indices, ascending; the fixed bodies it
  // touches are listed too, but they belong to no island and may appear in several)
  std::vector<int> contact_start, contacts;  // (ni + 1), (nc)
  std::vector<int> body_start, bodies;       // (ni + 1), (sum of island body counts)
  // joints, like contacts: joint_island (nj, -1 for a joint between two fixed sides) and island
  // i's joints joint_start[i] .. joint_start[i+1] in `joints` (global indices, ascending)
  std::vector<int> joint_island, joint_start, joints;

  int count() const { return contact_start.empty() ? 0 : int(contact_start.size()) - 1; }
  int contact_count(int i) const { return contact_start[std::size_t(i) + 1] - contact_start[std::size_t(i)]; }
  int body_count(int i) const { return body_start[std::size_t(i) + 1] - body_start[std::size_t(i)]; }
  int joint_count(int i) const { return joint_start[std::size_t(i) + 1] - joint_start[std::size_t(i)]; }
};

// Union-find over the contacts (body_a[k], body_b[k]) and the joints (joint_a[j], joint_b[j],
// -1 = the world; optional) of nb bodies; is_fixed (nb) bodies and the world are never merged. A
// contact between two fixed bodies (the broadphase never makes one) gets an island of its own,
// named after its body_a. Islands are listed when they own a contact or a joint.
void build_islands(int num_bodies, const std::vector<std::uint8_t>& is_fixed, const std::vector<int>& body_a,
                   const std::vector<int>& body_b, Islands& out, const std::vector<int>* joint_a = nullptr,
                   const std::vector<int>* joint_b = nullptr);

}  // namespace coulomb
