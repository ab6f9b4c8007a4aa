// Islands and the contact colouring. Islands: connected components of the contact graph with fixed bodies left out
// (solvers/islands.h). Oracle: the components are written out by hand.
#include <coulomb/contact_coloring.h>
#include <coulomb/islands.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace coulomb;

namespace {

struct Graph {
  std::vector<std::uint8_t> fixed;
  std::vector<int> a, b;
  void contact(int i, int j) { a.push_back(i); b.push_back(j); }
};

std::vector<int> slice(const std::vector<int>& v, const std::vector<int>& start, int i) {
  return {v.begin() + start[std::size_t(i)], v.begin() + start[std::size_t(i) + 1]};
}

}  // namespace

TEST(Islands, TwoStacksOnOneFixedGroundAreTwoIslands) {
  Graph g;
  g.fixed = {1, 0, 0, 0, 0, 0};  // 0 = ground; stack 1-2-3 and stack 4-5
  g.contact(0, 1); g.contact(0, 4); g.contact(1, 2); g.contact(2, 3); g.contact(4, 5);
  Islands isl;
  build_islands(6, g.fixed, g.a, g.b, isl);
  ASSERT_EQ(isl.count(), 2);
  EXPECT_EQ(slice(isl.contacts, isl.contact_start, 0), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(slice(isl.contacts, isl.contact_start, 1), (std::vector<int>{1, 4}));
  EXPECT_EQ(slice(isl.bodies, isl.body_start, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(slice(isl.bodies, isl.body_start, 1), (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(isl.body_island, (std::vector<int>{-1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(isl.contact_island, (std::vector<int>{0, 1, 0, 0, 1}));
}

TEST(Islands, ChainOfContactsIsOneIsland) {
  Graph g;
  g.fixed = {0, 0, 0, 0, 0, 1};
  g.contact(3, 4); g.contact(0, 1); g.contact(2, 3); g.contact(1, 2); g.contact(4, 5);
  Islands isl;
  build_islands(6, g.fixed, g.a, g.b, isl);
  ASSERT_EQ(isl.count(), 1);
  EXPECT_EQ(isl.contact_count(0), 5);
  EXPECT_EQ(slice(isl.contacts, isl.contact_start, 0), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(isl.body_count(0), 6);
}

TEST(Islands, FixedBodiesNeverJoinAnIsland) {
  Graph g;
  g.fixed = {0, 1, 0, 1, 0};  // 0 and 2 both touch fixed 1 and fixed 3; 4 touches nothing
  g.contact(0, 1); g.contact(1, 2); g.contact(0, 3); g.contact(2, 3);
  Islands isl;
  build_islands(5, g.fixed, g.a, g.b, isl);
  ASSERT_EQ(isl.count(), 2);
  EXPECT_EQ(isl.body_island, (std::vector<int>{0, -1, 1, -1, -1}));
  EXPECT_EQ(slice(isl.bodies, isl.body_start, 0), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(slice(isl.bodies, isl.body_start, 1), (std::vector<int>{1, 2, 3}));
}

TEST(Islands, NumberedBySmallestBodyWhateverTheContactOrder) {
  Graph g;
  g.fixed = std::vector<std::uint8_t>(8, 0);
  g.contact(6, 7); g.contact(2, 5); g.contact(0, 3); g.contact(3, 6);
  Islands isl;
  build_islands(8, g.fixed, g.a, g.b, isl);
  ASSERT_EQ(isl.count(), 2);
  EXPECT_EQ(slice(isl.contacts, isl.contact_start, 0), (std::vector<int>{0, 2, 3}));  // bodies 0 3 6 7
  EXPECT_EQ(slice(isl.contacts, isl.contact_start, 1), (std::vector<int>{1}));        // bodies 2 5
  EXPECT_EQ(isl.body_island[1], -1);
}

TEST(Islands, NoContactsNoIslands) {
  Islands isl;
  build_islands(3, {0, 0, 1}, {}, {}, isl);
  EXPECT_EQ(isl.count(), 0);
  EXPECT_EQ(isl.body_island, (std::vector<int>{-1, -1, -1}));
}

// The contact graph colouring (contact_coloring.h): every contact once, no two contacts of one
// colour share a moving body, fixed bodies are shared freely, ascending order within a colour.
TEST(ContactColoring, ColoursShareNoMovingBody) {
  ContactProblem p;
  const int nb = 40;
  p.inv_mass.assign(nb, 1.0);
  p.inv_mass[0] = 0.0;  // a fixed ground under everything
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> body(0, nb - 1);
  for (int k = 0; k < 300; ++k) {
    int a = body(rng), b = body(rng);
    if (a == b) b = (b + 1) % nb;
    p.body_a.push_back(std::min(a, b));
    p.body_b.push_back(std::max(a, b));
  }
  ContactColoring c;
  color_contacts(p, c);
  ASSERT_EQ(c.order.size(), p.body_a.size());
  std::vector<int> sorted = c.order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < int(sorted.size()); ++k) EXPECT_EQ(sorted[std::size_t(k)], k);
  EXPECT_GT(c.colors(), 1);
  for (int g = 0; g < c.colors(); ++g) {
    std::vector<int> seen(nb, 0);
    for (int e = c.color_start[std::size_t(g)]; e < c.color_start[std::size_t(g) + 1]; ++e) {
      const int k = c.order[std::size_t(e)];
      if (e > c.color_start[std::size_t(g)]) EXPECT_LT(c.order[std::size_t(e) - 1], k);
      for (int body_id : {p.body_a[std::size_t(k)], p.body_b[std::size_t(k)]})
        if (p.inv_mass[std::size_t(body_id)] > 0.0) EXPECT_EQ(seen[std::size_t(body_id)]++, 0) << "colour " << g;
    }
  }
  // 300 contacts on 40 bodies: about 15 per body, far below the 64 colours: no overflow
  EXPECT_EQ(c.color_start[std::size_t(c.colors())], c.color_start[std::size_t(c.colors()) + 1]);
}
