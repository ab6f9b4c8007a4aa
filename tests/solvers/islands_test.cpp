// Islands and the contact colouring. Islands: connected components of the contact graph with fixed bodies left out
// (solvers/islands.h). Oracle: the components are written out by hand.
#include <coulomb/contact_assembly.h>
#include <coulomb/contact_coloring.h>
#include <coulomb/contact_operator.h>
#include <coulomb/island_solve.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/solver.h>
#include <coulomb/islands.h>
#include "../../solvers/src/sweep_team.h"
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

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

// The contact graph colouring (contact_coloring.h): every contact once, a body pair's consecutive
// contacts in one unit, no two units of one colour share a moving body, fixed bodies are shared
// freely, ascending order within a colour.
TEST(ContactColoring, ColoursShareNoMovingBody) {
  ContactProblem p;
  const int nb = 40;
  p.inv_mass.assign(nb, 1.0);
  p.inv_mass[0] = 0.0;  // a fixed ground under everything
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> body(0, nb - 1), points(1, 4);
  int pairs = 0;
  while (p.body_a.size() < 300) {
    int a = body(rng), b = body(rng);
    if (a == b) b = (b + 1) % nb;
    ++pairs;
    for (int n = points(rng); n > 0; --n) {  // one to four points per pair, as a manifold gives
      p.body_a.push_back(std::min(a, b));
      p.body_b.push_back(std::max(a, b));
    }
  }
  ContactColoring c;
  color_contacts(p, c);
  ASSERT_EQ(c.order.size(), p.body_a.size());
  std::vector<int> sorted = c.order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < int(sorted.size()); ++k) EXPECT_EQ(sorted[std::size_t(k)], k);
  // a unit per run of one pair: never fewer than the pairs drawn (two draws of one pair in a row
  // are one run), and each unit's contacts are one pair's, consecutive in index order
  EXPECT_LE(c.units(), pairs);
  EXPECT_GT(c.units(), pairs * 9 / 10);
  EXPECT_EQ(c.unit_start.back(), int(c.order.size()));
  EXPECT_EQ(c.units_for(32), std::max(1, 32 * c.units() / int(c.order.size())));
  EXPECT_GT(c.colors(), 1);
  for (int g = 0; g < c.colors(); ++g) {
    std::vector<int> seen(nb, 0);
    for (int u = c.color_start[std::size_t(g)]; u < c.color_start[std::size_t(g) + 1]; ++u) {
      const int k0 = c.order[std::size_t(c.unit_start[std::size_t(u)])];
      if (u > c.color_start[std::size_t(g)]) {
        EXPECT_LT(c.order[std::size_t(c.unit_start[std::size_t(u)] - 1)], k0);
      }
      for (int e = c.unit_start[std::size_t(u)]; e < c.unit_start[std::size_t(u) + 1]; ++e) {
        const int k = c.order[std::size_t(e)];
        EXPECT_EQ(k, k0 + e - c.unit_start[std::size_t(u)]);
        EXPECT_EQ(p.body_a[std::size_t(k)], p.body_a[std::size_t(k0)]);
        EXPECT_EQ(p.body_b[std::size_t(k)], p.body_b[std::size_t(k0)]);
      }
      for (int body_id : {p.body_a[std::size_t(k0)], p.body_b[std::size_t(k0)]})
        if (p.inv_mass[std::size_t(body_id)] > 0.0) {
          EXPECT_EQ(seen[std::size_t(body_id)]++, 0) << "colour " << g;
        }
    }
  }
  // about 100 pairs on 40 bodies: about 5 per body, far below the 64 colours: no overflow
  EXPECT_EQ(c.color_start[std::size_t(c.colors())], c.color_start[std::size_t(c.colors()) + 1]);
}

namespace {

// Stacks of balls (radius 0.1, 1 kg) on a fixed ground, one island per stack, each ball pushed
// sideways so that friction works; heights[i] balls in stack i.
ContactProblem ball_stacks(const std::vector<int>& heights) {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  std::vector<Contact> contacts;
  int body = 1;
  for (std::size_t s = 0; s < heights.size(); ++s)
    for (int h = 0; h < heights[s]; ++h, ++body) {
      model.add("ball" + std::to_string(body), 0, 0, false, 1.0, Vec3::Constant(0.004), Pose{});
      contacts.push_back(Contact{h == 0 ? 0 : body - 1, body, Vec3(double(s), 0, 0.2 * h), Vec3::UnitZ(), 0.0, -1, -1});
    }
  RigidState st;
  st.resize(std::size_t(body));
  std::vector<Vec6> u(std::size_t(body), Vec6::Zero());
  for (int i = 1; i < body; ++i) {
    st.x[std::size_t(i)] = Vec3(0, 0, 0.1 + 0.2 * ((i - 1) % 7));
    u[std::size_t(i)] << 0.05 * i, -0.02, -0.1, 0, 0, 0.3;
  }
  const std::vector<ContactCoefficients> coeff(contacts.size(), ContactCoefficients{Vec3(0.4, 0.4, 0.01), 0.0});
  ContactProblem p;
  assemble_contacts(model, st, u, contacts, coeff, AssemblySettings{}, p);
  return p;
}

std::vector<Vec4> island_solve(const ContactProblem& p, IslandScratch* scratch) {
  Islands isl;
  const std::vector<std::uint8_t> fixed = [&] {
    std::vector<std::uint8_t> f(std::size_t(p.num_bodies()), 0);
    f[0] = 1;
    return f;
  }();
  build_islands(p.num_bodies(), fixed, p.body_a, p.body_b, isl);
  ContactSolution sol;
  sol.lambda.assign(std::size_t(p.num_contacts()), Vec4::Zero());
  SolverOptions opt;
  opt.max_iterations = 50;
  solve_islands(find_solver("pgs")->solve, p, isl, opt, sol, scratch);
  return sol.lambda;
}

}  // namespace

// The kept sub-problems of large islands (IslandScratch) are rebuilt in full on every call: the
// impulses equal those of fresh sub-problems bit for bit, also after the scratch served another
// problem with other island sizes.
TEST(IslandScratch, SameImpulsesAsFreshSubProblems) {
  const ContactProblem p = ball_stacks({6, 2, 1, 3}), q = ball_stacks({1, 9, 4});
  const std::vector<Vec4> fresh = island_solve(p, nullptr);
  ASSERT_EQ(fresh.size(), 12u);
  EXPECT_GT(fresh[0][0], 0.0);  // the stacks press on the ground
  IslandScratch scratch;
  const std::vector<Vec4> kept = island_solve(p, &scratch);
  EXPECT_EQ(scratch.problems.size(), 3u);  // the islands with at least 1/8 of the 12 contacts: 6, 2 and 3
  const std::vector<Vec4> other = island_solve(q, &scratch);
  EXPECT_EQ(other, island_solve(q, nullptr));
  const std::vector<Vec4> again = island_solve(p, &scratch);
  EXPECT_EQ(kept, fresh);
  EXPECT_EQ(again, fresh);
}

namespace {

ContactSolution solve_with(const SolveFn fn, const ContactProblem& p, const SolverOptions& opt, const Islands* isl) {
  ContactSolution sol;
  sol.lambda.assign(std::size_t(p.num_contacts()), Vec4::Zero());
  if (isl) solve_islands(fn, p, *isl, opt, sol);
  else fn(p, opt, sol);
  return sol;
}

Islands islands_of(const ContactProblem& p) {
  Islands isl;
  std::vector<std::uint8_t> fixed(std::size_t(p.num_bodies()), 0);
  fixed[0] = 1;
  build_islands(p.num_bodies(), fixed, p.body_a, p.body_b, isl);
  return isl;
}

}  // namespace

// An island holding at least 15/16 of the contacts takes the small ones along: the problem is
// solved whole (island_solve.cpp), bit for bit as the solver alone solves it, on 1 and 2 threads
// alike, with graph colouring and without. Below that share the islands are split as before: the
// small islands stop at their own convergence, the whole problem would sweep them as long as the
// large one.
TEST(IslandSolve, AProblemWithOneDominantIslandIsSolvedWhole) {
  for (const bool coloring : {true, false}) {
    for (const char* name : {"prox-gs", "pgs"}) {
      SCOPED_TRACE(std::string(name) + (coloring ? " coloured" : " in index order"));
      SolverOptions opt;
      opt.max_iterations = 40;
      opt.graph_coloring = coloring;
      const SolveFn solve = find_solver(name)->solve;
      const ContactProblem dominant = ball_stacks({30, 1});  // 30 of 31 contacts in one island: >= 15/16
      const Islands isl = islands_of(dominant);
      ASSERT_EQ(isl.count(), 2);
      const ContactSolution whole = solve_with(solve, dominant, opt, nullptr);
      EXPECT_GT(whole.lambda[0][0], 0.0);
      EXPECT_EQ(solve_with(solve, dominant, opt, &isl).lambda, whole.lambda);
      opt.threads = 2;
      tbb::task_arena two(2);
      two.execute([&] { EXPECT_EQ(solve_with(solve, dominant, opt, &isl).lambda, whole.lambda); });

      // 6 of 12 contacts: split, and each island solved as the solver solves it alone
      opt.threads = 1;
      const ContactProblem split = ball_stacks({6, 2, 1, 3});
      const Islands parts = islands_of(split);
      ASSERT_EQ(parts.count(), 4);
      const ContactSolution by_island = solve_with(solve, split, opt, &parts);
      const ContactProblem first = ball_stacks({6});
      const ContactSolution alone = solve_with(solve, first, opt, nullptr);
      for (int k = 0; k < 6; ++k) EXPECT_EQ(by_island.lambda[std::size_t(k)], alone.lambda[std::size_t(k)]) << k;
    }
  }
}

// colored_reset (sweep_team.h): w = M^-1 J^T lambda summed colour by colour, the reset of a
// coloured solve. It gives op.reset's velocities up to rounding, and the same bits on 1 and 2
// threads (each body sums its terms in the colour order).
TEST(ColoredReset, SameVelocitiesAsTheResetOnAnyThreadCount) {
  const ContactProblem p = ball_stacks({5, 3, 4, 7});
  ContactColoring c;
  color_contacts(p, c);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(0.0, 2.0);
  std::vector<Vec4> lambda(std::size_t(p.num_contacts()));
  for (Vec4& l : lambda) l << d(rng), d(rng) - 1.0, d(rng) - 1.0, 0.0;
  lambda[3].setZero();  // a contact without impulse adds nothing
  MatrixFreeOperator reference(p);
  reference.reset(lambda);
  std::vector<Vec4> v_ref(lambda.size()), v1(lambda.size()), v2(lambda.size());
  for (int k = 0; k < p.num_contacts(); ++k) v_ref[std::size_t(k)] = reference.velocity(k, lambda);
  const auto colored = [&](int threads, std::vector<Vec4>& v) {
    MatrixFreeOperator op(p);
    op.reset(std::vector<Vec4>(lambda.size(), Vec4::Constant(5.0)));  // stale w: the reset must clear it
    detail::SweepTeam team(threads);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (threads > 1 && !team.assembled() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    detail::colored_reset(team, &c, op, lambda);
    team.finish();
    for (int k = 0; k < p.num_contacts(); ++k) v[std::size_t(k)] = op.velocity(k, lambda);
  };
  colored(1, v1);
  tbb::task_arena two(2);
  two.execute([&] { colored(2, v2); });
  for (std::size_t k = 0; k < lambda.size(); ++k) {
    EXPECT_EQ(v1[k], v2[k]) << k;
    EXPECT_LT((v1[k] - v_ref[k]).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + v_ref[k].cwiseAbs().maxCoeff())) << k;
  }
}

// A problem of more than ContactProblem::kKeptResponses contacts keeps no I^-1 A^T per contact and
// applies impulses through the bodies' inverse inertias (issue 12, eighteenth session: its sweeps
// stream fewer bytes); a smaller one keeps them. Both give M^-1 J^T lambda as the dense 6x6 product
// does (body_impulse_response and the matrix-free operator's applied()), and an island copied out
// keeps its problem's choice whatever its own size.
TEST(ContactProblem, LargeProblemsApplyTheAngularResponseFromTheInertias) {
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  std::mt19937 g(18);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int nb = 300, half = nb / 2;
  ContactProblem large;
  for (int i = 0; i < nb; ++i) {
    const bool fixed = i % 37 == 0;
    Mat3 R;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) R(r, c) = u(g);
    large.inv_mass.push_back(fixed ? 0.0 : 0.5 + 0.5 * std::abs(u(g)));
    large.inv_inertia.push_back(fixed ? Mat3::Zero() : Mat3(R * R.transpose() + 0.1 * Mat3::Identity()));
  }
  // two groups of bodies: [0, half) with more contacts than are kept, [half, nb) with 100
  const auto add = [&](ContactProblem& p, int lo, int hi) {
    int a = lo + int(std::abs(u(g)) * (hi - lo - 1)), b = lo + int(std::abs(u(g)) * (hi - lo - 1));
    if (a == b) b = a + 1 < hi ? a + 1 : a - 1;
    const Vec3 n = Vec3(u(g), u(g), 1.0 + std::abs(u(g))).normalized();
    Vec3 t, s;
    tangent_basis(n, t, s);
    p.add_contact(std::min(a, b), std::max(a, b),
                  contact_rows(n, t, s, Vec3(u(g), u(g), u(g)), Vec3(u(g), u(g), u(g))), Vec4::Zero(), Vec3(0.5, 0.5, 0.1),
                  Vec3::Zero());
  };
  ContactProblem small = large;
  for (int k = 0; k < 100; ++k) add(small, half, nb);
  for (int k = 0; k < 100; ++k) large.add_contact(small.body_a[std::size_t(k)], small.body_b[std::size_t(k)],
                                                  small.rows[std::size_t(k)], small.b[std::size_t(k)],
                                                  small.mu[std::size_t(k)], small.point[std::size_t(k)]);
  for (std::size_t k = 0; k < ContactProblem::kKeptResponses + 400; ++k) add(large, 0, half);
  small.finalize();
  large.finalize();
  EXPECT_TRUE(small.keeps_angular());
  EXPECT_FALSE(large.keeps_angular());
  for (const ContactProblem* p : {&small, &large}) {
    std::vector<Vec4> lambda(std::size_t(p->num_contacts()));
    for (Vec4& l : lambda) l = Vec4(u(g), u(g), u(g), u(g));
    std::vector<Vec6> reference(std::size_t(nb), Vec6::Zero());
    for (int k = 0; k < p->num_contacts(); ++k) {
      for (const bool side_b : {false, true}) {
        const int body = side_b ? p->body_b[std::size_t(k)] : p->body_a[std::size_t(k)];
        Mat6 Minv = Mat6::Zero();
        Minv.topLeftCorner<3, 3>() = p->inv_mass[std::size_t(body)] * Mat3::Identity();
        Minv.bottomRightCorner<3, 3>() = p->inv_inertia[std::size_t(body)];
        reference[std::size_t(body)] += Minv * (side_b ? p->J_b(k) : p->J_a(k)).transpose() * lambda[std::size_t(k)];
      }
    }
    std::vector<Vec6> w;
    p->body_impulse_response(lambda, w);
    MatrixFreeOperator op(*p);
    op.clear();
    for (int k = 0; k < p->num_contacts(); ++k) op.applied(k, lambda[std::size_t(k)]);
    for (int i = 0; i < nb; ++i) {
      const double scale = 1.0 + reference[std::size_t(i)].norm();
      EXPECT_NEAR((w[std::size_t(i)] - reference[std::size_t(i)]).norm(), 0.0, 1e-12 * scale) << "body " << i;
    }
    for (int k = 0; k < p->num_contacts(); k += 7) {
      const Vec4 v = p->rows[std::size_t(k)].velocity(reference[std::size_t(p->body_a[std::size_t(k)])],
                                                      reference[std::size_t(p->body_b[std::size_t(k)])]) + p->b[std::size_t(k)];
      EXPECT_NEAR((op.velocity(k, lambda) - v).norm(), 0.0, 1e-11 * (1.0 + v.norm())) << "contact " << k;
    }
  }
  // islands: the 100 contacts of [half, nb) are one island of each problem or several small ones
  std::vector<std::uint8_t> fixed(static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i) fixed[std::size_t(i)] = large.inv_mass[std::size_t(i)] == 0.0;
  for (const ContactProblem* p : {&small, &large}) {
    Islands isl;
    build_islands(nb, fixed, p->body_a, p->body_b, isl);
    for (int i = 0; i < isl.count(); ++i) {
      if (isl.contact_count(i) > 100) continue;  // the large group's island
      ContactProblem out;
      extract_island_problem(*p, isl, i, out);
      EXPECT_EQ(out.keeps_angular(), p->keeps_angular()) << "island " << i;
      if (!out.keeps_angular()) continue;
      for (int e = 0; e < out.num_contacts(); ++e) {
        const auto k = std::size_t(isl.contacts[std::size_t(isl.contact_start[std::size_t(i)] + e)]);
        EXPECT_EQ(out.angular[std::size_t(e)].a, p->angular[k].a);
        EXPECT_EQ(out.angular[std::size_t(e)].b, p->angular[k].b);
      }
    }
  }
}

// ContactSolution::response: the solvers that sweep a matrix-free operator (pgs, prox-gs,
// prox-jacobi) return w = M^-1 J^T lambda as their sweeps kept it, which the World integrates
// with (seed 000 eq. 42b) instead of forming the product again. It is the product of the
// impulses returned up to rounding, zero for the fixed ground, whole or split into islands, and
// the same bits on 1 and 2 threads; a split whose islands' solver keeps none returns none.
TEST(ContactSolution, TheSolversResponseIsTheProductOfTheImpulsesReturned) {
  const auto check = [](const ContactProblem& p, const ContactSolution& sol) {
    ASSERT_EQ(sol.response.size(), std::size_t(p.num_bodies()));
    std::vector<Vec6> w;
    p.body_impulse_response(sol.lambda, sol.joint_lambda, w);
    EXPECT_EQ(sol.response[0], Vec6::Zero());  // the ground
    double largest = 0.0;
    for (const Vec6& x : w) largest = std::max(largest, x.cwiseAbs().maxCoeff());
    EXPECT_GT(largest, 0.1);  // the stacks are pushed: not a trivial zero response
    for (std::size_t i = 0; i < w.size(); ++i)
      EXPECT_LT((sol.response[i] - w[i]).cwiseAbs().maxCoeff(), 1e-12 * largest) << "body " << i;
  };
  for (const char* name : {"pgs", "prox-gs", "prox-jacobi"})
    for (const bool coloring : {false, true}) {
      if (coloring && std::string(name) == "prox-jacobi") continue;  // colouring is for the Gauss-Seidel sweeps
      SCOPED_TRACE(std::string(name) + (coloring ? " coloured" : ""));
      SolverOptions opt;
      opt.max_iterations = 7;  // stopped early: the response must follow the impulses, not the solution
      opt.graph_coloring = coloring;
      const SolveFn solve = find_solver(name)->solve;
      const ContactProblem whole = ball_stacks({30, 1}), split = ball_stacks({6, 2, 1, 3});
      const Islands one = islands_of(whole), parts = islands_of(split);
      const ContactSolution a = solve_with(solve, whole, opt, nullptr), b = solve_with(solve, split, opt, &parts);
      check(whole, a);
      check(split, b);
      if (coloring) {
        opt.threads = 2;
        tbb::task_arena two(2);
        two.execute([&] {
          EXPECT_EQ(solve_with(solve, whole, opt, &one).response, a.response);
          EXPECT_EQ(solve_with(solve, split, opt, &parts).response, b.response);
        });
      }
    }
  // a solver that keeps no response: the split returns none, and the World forms the product
  const SolveFn without = [](const ContactProblem& p, const SolverOptions& o, ContactSolution& s) {
    const SolverStats stats = find_solver("pgs")->solve(p, o, s);
    s.response.clear();
    return stats;
  };
  const ContactProblem split = ball_stacks({6, 2, 1, 3});
  const Islands parts = islands_of(split);
  EXPECT_TRUE(solve_with(without, split, SolverOptions{}, &parts).response.empty());
  // an assembled problem has no bodies
  ContactSolution assembled;
  assembled.response.assign(3, Vec6::Ones());
  find_solver("pgs")->solve_assembled(assembled_problem(split), SolverOptions{}, assembled);
  EXPECT_TRUE(assembled.response.empty());
}
