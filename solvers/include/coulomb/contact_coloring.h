// Graph colouring of the contact constraint graph, for Gauss-Seidel in parallel on one island
// (issue 12; the idea of Box2D v3's constraint graph, src/constraint_graph.c: constraints that
// share no moving body can be solved at the same time, in any order, with the same result).
//
// The graph's nodes are units: the contacts of one body pair, as the narrowphase emits them (a
// run of consecutive contacts with the same body_a and body_b), like Box2D's manifolds. A unit's
// contacts are swept one after the other by one thread, so the points of a box-on-box face never
// need a colour each (the Wall: 6 colours of 106-142 contacts).
//
// Greedy, in contact index order: each unit takes the lowest colour that neither of its moving
// bodies uses yet; fixed bodies (inverse mass 0) are never written by a sweep, so they join no
// colour. Units that find none of the kMaxColors colours free go to an overflow set, swept
// sequentially after the colours. The colouring depends on the problem only, never on the thread
// count, and so does a coloured sweep: within a colour no two units touch the same body velocity,
// so running them in parallel gives bit for bit what one thread gives.
#pragma once
#include <coulomb/contact_problem.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace coulomb {

struct ContactColoring {
  static constexpr int kMaxColors = 64;
  std::vector<int> order;        // (nc) contacts grouped by colour, units ascending within a colour
                                 // and a unit's contacts together in index order, overflow last
  std::vector<int> unit_start;   // (units + 1) first slot of each unit in `order`
  std::vector<int> color_start;  // (colors + 2) first unit of each colour; the last group
                                 // [color_start[colors], color_start[colors + 1]) is the overflow
  std::vector<std::array<int, 2>> unit_bodies;  // (units) each unit's moving bodies, -1 for a fixed one
  int bodies = 0;                                // the problem's body count
  int colors() const { return int(color_start.size()) - 2; }
  int units() const { return int(unit_start.size()) - 1; }
  // how many units hold about `contacts` contacts on average (at least 1): a team block's size
  int units_for(int contacts) const {
    return std::max(1, int(std::int64_t(contacts) * units() / std::max<std::int64_t>(1, std::int64_t(order.size()))));
  }
};

void color_contacts(const ContactProblem& p, ContactColoring& out);

}  // namespace coulomb
