// Graph colouring of the contact constraint graph, for Gauss-Seidel in parallel on one island
// (issue 12; the idea of Box2D v3's constraint graph, src/constraint_graph.c: contacts that share
// no moving body can be solved at the same time, in any order, with the same result).
//
// Greedy, in contact index order: each contact takes the lowest colour that neither of its
// moving bodies uses yet; fixed bodies (inverse mass 0) are never written by a sweep, so they
// join no colour. Contacts that find none of the kMaxColors colours free go to an overflow set,
// swept sequentially after the colours. The colouring depends on the problem only, never on the
// thread count, and so does a coloured sweep: within a colour no two contacts touch the same
// body velocity, so running them in parallel gives bit for bit what one thread gives.
#pragma once
#include <coulomb/contact_problem.h>

#include <vector>

namespace coulomb {

struct ContactColoring {
  static constexpr int kMaxColors = 64;
  std::vector<int> order;         // (nc) contacts grouped by colour, ascending within each, overflow last
  std::vector<int> color_start;   // (colors + 2) first slot of each colour in `order`; the last
                                  // group [color_start[colors], color_start[colors + 1]) is the overflow
  int colors() const { return int(color_start.size()) - 2; }
};

void color_contacts(const ContactProblem& p, ContactColoring& out);

}  // namespace coulomb
