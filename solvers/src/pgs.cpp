// Projected Gauss-Seidel with box friction (seed 001 section 4, eq. 16-18b) and the contact
// orderings of seed 001 section 5.
//
// One template over the contact operator (matrix-free for scenes, seed 000 eq. 25-26; assembled
// for FCLib). Per contact the velocity is evaluated once and kept current through the diagonal
// block while its rows are visited in the order normal, t, s, tau, so the friction bounds use
// the freshest normal impulse (seed 001 algorithm lines 5-7: l(lambda), u(lambda) updated after
// each row). Box friction: |lambda_t| <= mu_s lambda_n and |lambda_s| <= mu_t lambda_n
// independently, an outer approximation of the Coulomb cone (seed 000 section 3.1).
//
// Stopping test: ||lambda^{k+1} - lambda^k||_inf <= abs_tol or <= rel_tol ||lambda^{k+1}||_inf;
// with merit_tol > 0 (`coulomb fclib`), the FCLib merit <= merit_tol instead, evaluated every
// kMeritCheckInterval iterations (merit.h), and `converged` is that merit at the returned impulses.
// Box friction's fixed points lie outside the Coulomb cone wherever a contact slides diagonally,
// so there the step test is met long before (or without) the merit: PGS then runs its budget.
// SolverStats::residual is the solver's own merit, Theta(lambda) = 1/2 H^T H of seed 001
// eq. 22-23 at the returned impulses, over the rows PGS solves (pgs_orderings.h); with
// record_history, SolverStats::history gets Theta after every iteration (one extra pass over the
// contacts per iteration), the last entry being SolverStats::residual.
//
// Orderings (PgsOptions::ordering; seed 001 section 5, line 2b of the algorithm: i <- Pi(p)).
// Each permutes contacts (a contact's rows stay together, normal first) and is computed once per
// solve, after the warm start has been projected onto the box:
//   default  contacts in the order given, the engine's deterministic lexicographic order.
//   ipp      impulse propagation: by y_n = (A lambda0 + b)_n ascending, most approaching first.
//   cp       coordinate permutation: by dot(ContactProblem::point, cp_axis), ascending, or
//            descending with cp_descending; std::stable_sort, so ties keep the default order.
//            An AssembledProblem (FCLib) has no contact positions: there "cp" runs exactly the
//            default order (documented fallback; SolverStats does not flag it).
//   esp      extreme staggered (eq. 19-21): every iteration sweeps the normal rows of all
//            contacts, then the friction rows (t, s, and tau where mu_tau > 0) of all contacts.
//            Holding the other set fixed during a sweep is what eq. 20-21's constants b'_n, b'_t
//            do; the matrix-free velocity J w + b already equals A_nn lambda_n + b'_n then.
//   gsp      greedy staggered: sweeps one set (normal rows, or friction rows) at a time and
//            counts ONE ITERATION PER SET SWEEP, so max_iterations bounds set sweeps and
//            SolverStats::iterations counts them (a set sweep visits every contact once, as a
//            full sweep does, but solves only the set's rows of it). The first sweep is the
//            normal set. The error measure of a set is its share of Theta (eq. 23: 1/2 the sum of
//            H_i^2 over the set's rows), accumulated during each sweep at no extra pass: a row of
//            the swept set is measured just before it is updated, a row of the other set right
//            after the contact's update, so both shares are current. Next is swept the set with
//            the larger share; but a set whose sweep met the stopping test is followed by the
//            other set, and GSP stops when two consecutive sweeps, one of each set, both meet it
//            (together they are one staggered sweep with ||lambda^{k+1} - lambda^k||_inf small).
//            A normal sweep leaves friction impulses alone, so if GSP ends on one they are
//            projected onto the final box (eq. 17) before returning.
// graph_coloring (default ordering only): contacts are swept colour by colour of the contact
// graph (contact_coloring.h), each colour in parallel chunks when threads > 1; the result does
// not depend on the thread count.
// All orderings keep the box projection, SOR (eq. 18c) and the warm start, and return impulses
// inside the box. Results are deterministic: no threads, stable sorts. Cost: both operators
// evaluate a contact's velocity as one 4-vector, so a set sweep still evaluates and updates the
// whole contact (about 0.6 of a full sweep's time) and an ESP iteration, two passes over the
// contacts, costs about 1.3 full sweeps; the paper's cheaper subproblems (A_nn, A_tt) would need
// row-restricted velocity() / applied() calls in contact_operator.h.
#include "pgs_orderings.h"

#include "banded_sweeps.h"
#include "normal_pgs.h"

#include "cpu_clock.h"

#include <coulomb/contact_coloring.h>
#include <type_traits>
#include <coulomb/island_solve.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <tbb/parallel_for.h>

#include "sweep_team.h"
#include "thread_scratch.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace coulomb {

namespace {

using pgs_detail::row_residual;
using pgs_detail::solved_rows;

// An impulse projected onto its box (seed 001 eq. 17): lambda_n >= 0, |lambda_j| <= mu_j lambda_n.
inline Vec4 boxed(Vec4 l, const Vec3& mu) {
  l[0] = std::max(0.0, l[0]);
  for (int r = 1; r < 4; ++r) l[r] = std::clamp(l[r], -mu[r - 1] * l[0], mu[r - 1] * l[0]);
  return l;
}

// Projects the impulses of contacts [begin, end) onto their boxes. Returns whether any impulse
// changed.
template <class Op>
bool project_onto_box(const Op& op, std::vector<Vec4>& lambda, int begin, int end) {
  bool changed = false;
  for (int k = begin; k < end; ++k) {
    Vec4& l = lambda[std::size_t(k)];
    const Vec4 before = l;
    l = boxed(l, op.mu(k));
    changed = changed || l != before;
  }
  return changed;
}

// The same over every contact, on the team (sweep_team.h).
template <class Op>
bool project_onto_box(detail::SweepTeam& team, const Op& op, std::vector<Vec4>& lambda) {
  std::vector<detail::Padded<bool>> changed(std::size_t(team.size()));
  detail::team_pass(team, op.size(), [&](int begin, int end, int member) {
    if (project_onto_box(op, lambda, begin, end)) changed[std::size_t(member)].value = true;
  });
  return std::any_of(changed.begin(), changed.end(), [](const auto& c) { return c.value; });
}

struct SweepResult {
  double max_delta = 0.0;       // ||lambda^{k+1} - lambda^k||_inf over the swept rows
  double max_lambda = 0.0;      // ||lambda^{k+1}||_inf over the swept rows
  double theta_normal = 0.0;    // Track only: the normal rows' share of Theta (GSP error measure)
  double theta_friction = 0.0;  // Track only: the friction rows' share
};

// One projected Gauss-Seidel pass (seed 001 algorithm lines 2-8 with line 2b's permutation) over
// the contacts in `order`, solving rows First..Last of each (0..3: all; 0..0: the normal set;
// 1..3: the friction set of eq. 21). With Track, also accumulates each set's share of Theta.
// What a sweep needs of contact k's A_kk, computed once per solve (row_steps): h[r] = sor / A_rr,
// or 0 for a row no body can respond to (A_rr <= 0; with sor > 0, h[r] > 0 exactly where
// A_rr > 0), so that a sweep multiplies instead of dividing; and c = A_rq h[r] for the rows q
// before r, the products the sweep's row steps take (the same bits: the sweep formed
// A_rq * h_r itself). 80 bytes where the sweep read A_kk (128) and h (32): at 16,000 boxes the
// sweeps stream their contacts' data from memory (issue 12, scaling), and GSP's tracking reads
// A_kk itself.
struct RowStep {
  Vec4 h;
  double c[6];  // (r, q) = (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2): c[r (r - 1) / 2 + q]
  static constexpr int index(int r, int q) { return r * (r - 1) / 2 + q; }
};

// step[k] for contacts [begin, end) of a `step` already sized
template <class Op>
void row_steps(const Op& op, double sor, std::vector<RowStep>& step, int begin, int end) {
  for (int k = begin; k < end; ++k) {
    const Mat4& A = op.diag(k);
    RowStep& st = step[std::size_t(k)];
    for (int r = 0; r < 4; ++r) {
      const double a = A(r, r);
      st.h[r] = a > 0.0 ? sor / a : 0.0;
      for (int q = 0; q < r; ++q) st.c[RowStep::index(r, q)] = A(r, q) * st.h[r];
    }
  }
}

template <int First, int Last, bool Track, class Op>
void sweep_contact(Op& op, std::vector<Vec4>& lambda, int k, const std::vector<RowStep>& step, SweepResult& s) {
  {
    Vec4& l = lambda[std::size_t(k)];
    const RowStep& st = step[std::size_t(k)];
    const Vec4& h_r = st.h;
    const Vec3& mu = op.mu(k);
    Vec4 v = op.velocity(k, lambda);
    const int rows = solved_rows(mu);  // no torsion row without torsional friction
    const int end = std::min(Last + 1, rows);
    if constexpr (!Track) {
      // The same steps with each row's velocity taken apart: x_r = (l_r - v_r h_r) - sum over the
      // rows q before r of (A_rq h_r) d_q, so that a row waits on the previous row's step through
      // one product and one subtraction, where v += A.col(q) d_q and then l_r - v_r h_r took two
      // of each: the rows of a contact are the sweep's longest chain (issue 12, sixteenth
      // session). Rows unrolled with compile-time indices keep the steps in registers.
      double d[4] = {0.0, 0.0, 0.0, 0.0};
      // the contact's largest step and impulse, kept in registers and merged into s once: s lives
      // in memory, and a maximum per row through it chained every row of the sweep to the last
      // through a store and a load (the same maxima, exact in any order)
      double max_delta = 0.0, max_lambda = 0.0;
      const auto row = [&](auto index) {
        constexpr int r = decltype(index)::value;
        if constexpr (r >= First && r <= Last) {
          if (r >= end || !(h_r[r] > 0.0)) return;  // a row no body can respond to
          // eq. 16-17 with the SOR splitting (18c), projected on the box of pgs_detail::row_bounds
          double x = l[r] - v[r] * h_r[r];
          if constexpr (r > First) x -= st.c[RowStep::index(r, First)] * d[First];
          if constexpr (r > First + 1) x -= st.c[RowStep::index(r, First + 1)] * d[First + 1];
          if constexpr (r > First + 2) x -= st.c[RowStep::index(r, First + 2)] * d[First + 2];
          if constexpr (r == 0) x = std::max(0.0, x);
          else x = std::clamp(x, -mu[r - 1] * l[0], mu[r - 1] * l[0]);
          d[r] = x - l[r];
          l[r] = x;
          max_delta = std::isfinite(d[r]) ? std::max(max_delta, std::abs(d[r])) : std::numeric_limits<double>::infinity();
          max_lambda = std::max(max_lambda, std::abs(x));
        }
      };
      row(std::integral_constant<int, 0>{});
      row(std::integral_constant<int, 1>{});
      row(std::integral_constant<int, 2>{});
      row(std::integral_constant<int, 3>{});
      s.max_delta = std::max(s.max_delta, max_delta);
      s.max_lambda = std::max(s.max_lambda, max_lambda);
      if (d[0] != 0.0 || d[1] != 0.0 || d[2] != 0.0 || d[3] != 0.0) op.applied(k, Vec4(d[0], d[1], d[2], d[3]));
      return;
    }
    // Track (GSP): the velocity itself, whose residuals the error measure reads
    const Mat4& A = op.diag(k);
    Vec4 dl = Vec4::Zero();
    for (int r = First; r < end; ++r) {
      if (!(A(r, r) > 0.0)) continue;  // a row no body can respond to
      if constexpr (Track) {
        const double h = row_residual(l, v, mu, r);  // seed 001 eq. 22, before the update
        (r == 0 ? s.theta_normal : s.theta_friction) += 0.5 * h * h;
      }
      // eq. 16-17 with the SOR splitting (18c): a relaxed Gauss-Seidel step, projected on the box
      // of pgs_detail::row_bounds (written out: a clamp to +inf for the normal row costs ~2%)
      double x = l[r] - v[r] * h_r[r];
      x = r == 0 ? std::max(0.0, x) : std::clamp(x, -mu[r - 1] * l[0], mu[r - 1] * l[0]);
      const double d = x - l[r];
      l[r] = x;
      dl[r] += d;
      v += A.col(r) * d;  // the other rows of this contact see the change at once
      // a NaN step must not read as a zero step (std::max drops NaN)
      s.max_delta = std::isfinite(d) ? std::max(s.max_delta, std::abs(d)) : std::numeric_limits<double>::infinity();
      s.max_lambda = std::max(s.max_lambda, std::abs(x));
    }
    if constexpr (Track) {
      for (int r = 0; r < rows; ++r) {
        if ((r >= First && r < end) || !(A(r, r) > 0.0)) continue;
        const double h = row_residual(l, v, mu, r);  // the other set, after this contact's update
        (r == 0 ? s.theta_normal : s.theta_friction) += 0.5 * h * h;
      }
    }
    if (dl != Vec4::Zero()) op.applied(k, dl);
  }
}

// In a large problem each contact's bodies are asked for kPrefetchContacts contacts ahead
// (op.prefetch: a hint, the same bits): contacts come sorted by body ids, so body_b jumps about
// memory, and the bodies of a large problem outgrow the caches (issue 12, the scaling scene).
template <int First, int Last, bool Track, class Op>
SweepResult sweep(Op& op, std::vector<Vec4>& lambda, const std::vector<int>& order, const std::vector<RowStep>& step) {
  SweepResult s;
  detail::for_each_asking_ahead(op, order.data(), int(order.size()),
                                [&](int k) { sweep_contact<First, Last, Track>(op, lambda, k, step, s); },
                                [&](int k) { op.prefetch(k); });
  return s;
}

// The same sweep colour by colour on the team (sweep_team.h). max_delta and max_lambda are
// maxima, exact in any order: the result is that of one thread, bit for bit.
template <int First, int Last, class Op>
SweepResult colored_sweep(Op& op, std::vector<Vec4>& lambda, const ContactColoring& c, const std::vector<RowStep>& step,
                          detail::SweepTeam& team, std::vector<detail::Padded<SweepResult>>& acc) {
  acc.assign(std::size_t(team.size()), {});
  detail::colored_sweep(team, c, op, [&](const int* contacts, int n, int member) {
    SweepResult s;
    detail::for_each_in_run(op, contacts, n, [&](int k) { sweep_contact<First, Last, false>(op, lambda, k, step, s); },
                            [&](int k) {  // the solver's own per-contact data, with the operator's
                              __builtin_prefetch(&lambda[std::size_t(k)], 1);
                              const char* st = reinterpret_cast<const char*>(&step[std::size_t(k)]);
                              __builtin_prefetch(st);  // 80 bytes: the two lines they may span
                              __builtin_prefetch(st + 79);
                            });
    SweepResult& m = acc[std::size_t(member)].value;
    m.max_delta = std::max(m.max_delta, s.max_delta);
    m.max_lambda = std::max(m.max_lambda, s.max_lambda);
  });
  SweepResult s;
  for (const auto& a : acc) {
    s.max_delta = std::max(s.max_delta, a.value.max_delta);
    s.max_lambda = std::max(s.max_lambda, a.value.max_lambda);
  }
  return s;
}

// What a solve reports of its returned impulses, from one pass over the contacts on the team
// (each v = A lambda + b from the operator's current w): each contact's share of Theta (seed 001
// eq. 22-23) and of the FCLib merit (merit.h), and whether a row is unresolved: a row the sweeps
// skip (W_rr <= 0: no body responds to it) whose complementarity residual is not zero (no impulse
// can fix it, so the problem is unsolvable there and PGS must not say converged), or a
// non-finite impulse or velocity. The shares are summed in index order by the caller: the same
// bits on any thread count.
// Also whether an impulse lies outside its box (seed 001 eq. 17), where the caller projects it and
// evaluates the terms again: the check rides on this pass instead of a pass of its own before it.
struct FinalTerms {
  std::vector<double> theta, merit;
  std::vector<std::uint8_t> unresolved;
  std::vector<detail::Padded<bool>> outside;  // per member: an impulse outside its box
};

// final_terms's arrays for n contacts and a team of `members`, before the terms of any contact
inline void prepare_final_terms(FinalTerms& out, std::size_t n, int members, bool with_merit) {
  out.theta.resize(n);
  out.merit.resize(with_merit ? n : 0);
  out.unresolved.resize(n);
  out.outside.assign(std::size_t(members), {});
}

// final_terms for the contacts [begin, end), by team member `member`
template <class Op>
void final_terms_of(const Op& op, const std::vector<Vec4>& lambda, bool with_merit, double tol, FinalTerms& out, int begin,
                    int end, int member) {
  bool outside = false;
  for (int k = begin; k < end; ++k) {
    const auto i = std::size_t(k);
    outside = outside || boxed(lambda[i], op.mu(k)) != lambda[i];
    const Vec4 v = op.velocity(k, lambda);
    const Mat4& A = op.diag(k);
    const Vec3& mu = op.mu(k);
    double sum = 0.0;
    bool unresolved = !lambda[i].allFinite() || !v.allFinite();
    for (int r = 0; r < pgs_detail::solved_rows(mu); ++r) {
      const double h = row_residual(lambda[i], v, mu, r);
      if (A(r, r) > 0.0) sum += h * h;
      else unresolved = unresolved || std::abs(h) > tol;
    }
    out.theta[i] = sum;
    out.unresolved[i] = unresolved;
    if (with_merit) out.merit[i] = natural_map_term(lambda[i].head<3>(), v.head<3>(), mu[0]);
  }
  if (outside) out.outside[std::size_t(member)].value = true;
}

template <class Op>
void final_terms(detail::SweepTeam& team, const Op& op, const std::vector<Vec4>& lambda, bool with_merit, double tol,
                 FinalTerms& out) {
  prepare_final_terms(out, std::size_t(op.size()), team.size(), with_merit);
  detail::team_pass(team, op.size(),
                    [&](int begin, int end, int member) { final_terms_of(op, lambda, with_merit, tol, out, begin, end, member); });
}

// Theta of the current iterate from the operator's current state (no reset): one pass.
template <class Op>
double current_theta(Op& op, const std::vector<Vec4>& lambda, std::vector<Vec4>& v) {
  v.resize(std::size_t(op.size()));
  for (int k = 0; k < op.size(); ++k) v[std::size_t(k)] = op.velocity(k, lambda);
  return pgs_detail::theta(std::as_const(op), lambda, v);
}

// pgs()'s work arrays, kept per thread between solves
struct PgsScratch {
  std::vector<RowStep> step;
  std::vector<Vec4> velocity;
  FinalTerms final;
};

// `point` holds the contact positions, or is null where there are none (assembled problems).
// Joint rows (contact_operator.h) are swept after the contacts of every sweep, Gauss-Seidel
// style with their exact block solve, and take part in the stopping test.
template <class Op>
SolverStats pgs(Op& op, const SolverOptions& opt, std::vector<Vec4>& lambda, std::vector<double>& joint_lambda,
                const std::vector<Vec3>* point, const ContactColoring* coloring = nullptr,
                detail::SweepTeam* shared_team = nullptr, const std::vector<int>* reach = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nc = op.size(), nj = op.joint_rows();
  if (!(opt.pgs.sor > 0.0 && opt.pgs.sor < 2.0))  // RowStep's h > 0 stands for A_rr > 0
    throw std::invalid_argument("pgs: the relaxation factor sor must lie in (0, 2)");
  SolverStats stats;
  if (!opt.warm_start || int(lambda.size()) != nc) lambda.assign(std::size_t(nc), Vec4::Zero());
  if (!opt.warm_start || int(joint_lambda.size()) != nj) joint_lambda.assign(std::size_t(nj), 0.0);
  const auto joints = [&] { return op.template sweep_joints<true>(joint_lambda, joint_lambda, 1.0); };

  // graph_coloring: the helpers of the colour stages (sweep_team.h), started by the caller before
  // it coloured the contacts; they also take the passes over all contacts at the end
  detail::SweepTeam own_team(1);
  detail::SweepTeam& team = coloring && shared_team ? *shared_team : own_team;
  std::vector<detail::Padded<SweepResult>> member_results;

  // (the thread's scratch, thread_scratch.h: every entry is written before it is read)
  detail::ThreadScratch<PgsScratch> kept;
  std::vector<Vec4>& scratch = kept->velocity;
  std::vector<RowStep>& step = kept->step;
  step.resize(std::size_t(nc));
  const auto reset = [&] { detail::colored_reset(team, coloring, op, lambda); };
  // a warm start must itself lie in the box before it is used; the row steps in the same pass as
  // the first reset
  detail::colored_reset(team, coloring, op, lambda, [&](int k, int) {
    project_onto_box(op, lambda, k, k + 1);
    row_steps(op, opt.pgs.sor, step, k, k + 1);
  });

  // the permutation Pi of seed 001 section 5, once per solve
  std::vector<int> order;
  if (opt.pgs.ordering == PgsOrdering::Ipp) {
    std::vector<Vec4> v0;
    all_velocities(op, lambda, v0);  // y = A lambda0 + b
    order = pgs_detail::ipp_order(v0);
  } else if (opt.pgs.ordering == PgsOrdering::Cp && point) {
    order = pgs_detail::cp_order(*point, opt.pgs.cp_axis, opt.pgs.cp_descending);
  } else if (!coloring) {
    order = pgs_detail::identity_order(nc);
  }

  const auto small = [&](double delta, double max_lambda) {
    return delta <= opt.abs_tol || delta <= opt.rel_tol * max_lambda;
  };
  // the step test, or with merit_tol the FCLib merit every kMeritCheckInterval iterations (merit.h)
  const auto stop = [&](bool own_test) {
    return stopping_test_met(op, lambda, opt.merit_tol, stats.iterations, own_test);
  };
  // history: Theta after each iteration but the last, which is pushed from the final evaluation
  const auto record = [&](int it) {
    if (opt.record_history && it + 1 < opt.max_iterations) stats.history.push_back(current_theta(op, lambda, scratch));
  };

  const bool merit_wanted = opt.evaluate_merit || opt.merit_tol > 0.0;  // merit_tol's test reads it
  FinalTerms& final = kept->final;
  bool closed = false;  // the final terms came with the sweeps (the windowed loop's closing stage)
  stats.converged = nc == 0 && nj == 0;
  const double loop_start = nc > 0 ? detail::process_cpu_ms() : 0.0;  // a solve without contacts has no sweep cost to time
  if (nc > 0 && opt.pgs.ordering == PgsOrdering::Esp) {
    for (int it = 0; it < opt.max_iterations; ++it) {
      const SweepResult n = sweep<0, 0, false>(op, lambda, order, step);  // eq. 20
      const SweepResult f = sweep<1, 3, false>(op, lambda, order, step);  // eq. 21
      const JointSweep j = joints();
      stats.iterations = it + 1;
      if (stop(small(std::max({n.max_delta, f.max_delta, j.max_delta}),
                     std::max({n.max_lambda, f.max_lambda, j.max_lambda})))) {
        stats.converged = true;
        break;
      }
      record(it);
    }
  } else if (nc > 0 && opt.pgs.ordering == PgsOrdering::Gsp) {
    int set = 0;                      // 0: normal rows, 1: friction rows
    int previous = -1;                // the set of the previous sweep if it met the stopping test
    double set_max_lambda[2] = {0.0, 0.0};
    for (int it = 0; it < opt.max_iterations; ++it) {
      const SweepResult s = set == 0 ? sweep<0, 0, true>(op, lambda, order, step)
                                     : sweep<1, 3, true>(op, lambda, order, step);
      const JointSweep j = joints();  // joints join every set sweep
      stats.iterations = it + 1;
      set_max_lambda[set] = s.max_lambda;  // the other set is unchanged since its last sweep
      const bool met = small(std::max(s.max_delta, j.max_delta),
                             std::max({set_max_lambda[0], set_max_lambda[1], j.max_lambda}));
      if (stop(met && previous == 1 - set)) {
        stats.converged = true;
        break;
      }
      record(it);
      const double own = set == 0 ? s.theta_normal : s.theta_friction;
      const double other = set == 0 ? s.theta_friction : s.theta_normal;
      previous = met ? set : -1;
      if (met || !(own > other)) set = 1 - set;  // greedy: the set with the larger error next
    }
  } else if (reach && nc > 0) {
    if constexpr (std::is_same_v<Op, MatrixFreeOperator>) {  // the only operator with bodies
      // windowed sweeps (solve_pgs decides: the default order, no joints, no history, the own test;
      // banded_sweeps.h): wavefronts of `group` sweeps with the plain sweeps' results, bit for bit,
      // going back to a wavefront's start where the test stopped a sweep inside it; the final
      // terms as the last wavefront's closing stage, in the window (the order is the identity)
      prepare_final_terms(final, std::size_t(nc), 1, merit_wanted);
      std::vector<Vec4> l0;
      std::vector<Vec6> w0;
      std::vector<SweepResult> result;
      const detail::WindowedRun run = detail::windowed_sweeps(
          *reach, opt.max_iterations, detail::kVelocityTile,
          detail::wavefront_group(*reach, detail::kVelocityTile, detail::kVelocityWindow),
          [&](int g) {
            l0 = lambda;
            op.copy_response(w0);
            result.assign(std::size_t(g), SweepResult{});
          },
          [&](int j, int begin, int end) {
            SweepResult& r = result[std::size_t(j)];
            detail::for_each_asking_ahead(op, order.data() + begin, end - begin,
                                          [&](int k) { sweep_contact<0, 3, false>(op, lambda, k, step, r); },
                                          [&](int k) { op.prefetch(k); });
          },
          [&](int j) { return small(result[std::size_t(j)].max_delta, result[std::size_t(j)].max_lambda); },
          [&] {
            lambda = l0;
            op.set_response(w0);
          },
          [&](int begin, int end) { final_terms_of(std::as_const(op), lambda, merit_wanted, opt.abs_tol, final, begin, end, 0); });
      stats.iterations = run.iterations;
      stats.converged = run.converged;
      closed = run.closed;
    }
  } else {
    for (int it = 0; it < opt.max_iterations && nc + nj > 0; ++it) {
      const SweepResult s = coloring ? colored_sweep<0, 3>(op, lambda, *coloring, step, team, member_results)
                                     : sweep<0, 3, false>(op, lambda, order, step);
      const JointSweep j = joints();
      stats.iterations = it + 1;
      if (stop(small(std::max(s.max_delta, j.max_delta), std::max(s.max_lambda, j.max_lambda)))) {
        stats.converged = true;
        break;
      }
      record(it);
    }
  }

  stats.sweep_ms = nc > 0 ? detail::process_cpu_ms() - loop_start : 0.0;  // with the windowed closing stage where it ran
  stats.contact_sweeps = double(nc) * stats.iterations;

  // GSP may end on a normal sweep: its friction impulses then get the final box. For the other
  // orderings every friction row was projected after its normal row, so nothing is outside it
  // (a row the sweeps skip, W_rr <= 0, may be). The closing pass finds such impulses; only then
  // are they projected, the operator reset (the sweeps kept w = M^-1 J^T lambda current, eq. 26)
  // and the pass run again, instead of a pass of its own over every contact for the check.
  if (!closed) final_terms(team, std::as_const(op), lambda, merit_wanted, opt.abs_tol, final);
  if (std::any_of(final.outside.begin(), final.outside.end(), [](const auto& o) { return o.value; })) {
    if (project_onto_box(team, op, lambda)) reset();
    final_terms(team, std::as_const(op), lambda, merit_wanted, opt.abs_tol, final);
  }
  double theta = 0.0;
  for (const double t : final.theta) theta += t;
  stats.residual = 0.5 * theta;  // seed 001 eq. 23
  if (opt.record_history && stats.iterations > 0) stats.history.push_back(stats.residual);
  if (merit_wanted)
    stats.merit = fclib_merit_of_terms(op, [&](int k) { return final.merit[std::size_t(k)]; });
  else
    stats.merit = std::numeric_limits<double>::quiet_NaN();
  team.finish();
  // Converged must mean converged (issue 11): a non-finite iterate (q ~ 1e300 overflows) makes
  // every delta NaN, which the stopping test cannot see, and a row with W_rr = 0 is skipped by
  // the sweeps, so a violated one (W = 0, b_n < 0) leaves lambda unchanged and "converged".
  // With merit_tol (FCLib problems, no joints) it is the merit of the impulses returned, GSP's
  // final projection included, however the loop ended (issue 12).
  if (opt.merit_tol > 0.0) stats.converged = stats.merit <= opt.merit_tol;
  const bool unresolved = std::find(final.unresolved.begin(), final.unresolved.end(), 1) != final.unresolved.end();
  if (!std::isfinite(stats.residual) || (merit_wanted && !std::isfinite(stats.merit)) || unresolved)
    stats.converged = false;
  stats.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

// A frictionless problem (every mu zero, no joints: post-stabilisation's gap problem, seed 000
// eq. 49-50) solves only its normal rows, so a sweep needs of each contact only row 0 of J and
// column 0 of M^-1 J^T. The matrix-free operator would stream the whole ContactRows (304 bytes),
// A_kk and the 4-vectors for it; packed normal rows (contact_problem.h NormalRow) are 160 bytes
// (issue 12: at the funnel's landing the gap problem holds ~20,000 contacts, 10 MB of ContactRows
// per sweep, which outgrow the caches). The arithmetic is pgs()'s for row 0, term for term (the
// other rows' terms are exact zeros), so the impulses are the same, where the problem keeps its
// I^-1 A^T (ContactProblem::angular; a larger one's general path applies I^-1 (A^T l), rounded
// differently from this path's (I^-1 A^T) l); what this path leaves out it does not support:
// orderings, colouring, history and the merit (solve_pgs checks).
bool frictionless(const ContactProblem& p, const SolverOptions& opt) {
  if (p.joints.count() > 0 || opt.pgs.ordering != PgsOrdering::Default || opt.graph_coloring || opt.record_history ||
      opt.evaluate_merit || opt.merit_tol > 0.0)
    return false;
  for (const Vec3& mu : p.mu)
    if (solved_rows(mu) != 1) return false;
  return true;
}

}  // namespace

namespace {

// Whether solve_pgs sweeps a problem in windows (banded_sweeps.h): beyond the caches, in the
// default order, without what the windowed loop leaves out (joints, which every sweep ends with;
// the history; the merit test every few sweeps).
bool windowed(const ContactProblem& p, const SolverOptions& opt) {
  return std::size_t(p.num_contacts()) * detail::kVelocityContactBytes >= detail::kBandedSweepBytes &&
         opt.pgs.ordering == PgsOrdering::Default && !opt.graph_coloring && p.joints.count() == 0 && !opt.record_history &&
         !(opt.merit_tol > 0.0);
}

// The sweep reach of p's contacts in their order: a side moves where its body has an inverse
// mass (the operator writes no other: MatrixFreeOperator::applied)
std::vector<int> velocity_reach(const ContactProblem& p) {
  const auto nc = std::size_t(p.num_contacts());
  std::vector<int> a(nc), b(nc);
  for (std::size_t k = 0; k < nc; ++k) {
    a[k] = p.inv_mass[std::size_t(p.body_a[k])] > 0.0 ? p.body_a[k] : -1;
    b[k] = p.inv_mass[std::size_t(p.body_b[k])] > 0.0 ? p.body_b[k] : -1;
  }
  return detail::sweep_reach(p.num_bodies(), a, b);
}

}  // namespace

SolverStats solve_pgs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  if (opt.pgs.ordering == PgsOrdering::Cp && p.point.size() != std::size_t(p.num_contacts()))
    throw std::invalid_argument("pgs ordering \"cp\": ContactProblem::point must hold one position per contact");
  if (frictionless(p, opt)) return detail::frictionless_pgs(p, opt, sol);
  MatrixFreeOperator op(p, &sol.joint_lambda);
  SolverStats stats;
  if (opt.graph_coloring && opt.pgs.ordering == PgsOrdering::Default) {
    const auto t0 = std::chrono::steady_clock::now();
    detail::SweepTeam team(opt.threads);
    detail::ThreadScratch<ContactColoring> coloring;  // kept per thread (thread_scratch.h)
    color_contacts(p, *coloring);
    stats = pgs(op, opt, sol.lambda, sol.joint_lambda, &p.point, &*coloring, &team);
    stats.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();  // with the colouring
  } else if (windowed(p, opt)) {
    const std::vector<int> reach = velocity_reach(p);
    stats = pgs(op, opt, sol.lambda, sol.joint_lambda, &p.point, nullptr, nullptr, &reach);
  } else {
    stats = pgs(op, opt, sol.lambda, sol.joint_lambda, &p.point);
  }
  op.copy_response(sol.response);  // current: pgs reset it after any final projection
  return stats;
}

// FCLib problems carry no contact positions: "cp" runs the default order here.
SolverStats solve_pgs_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  AssembledOperator op(p);
  sol.response.clear();  // an assembled problem has no bodies
  return pgs(op, opt, sol.lambda, sol.joint_lambda, nullptr);
}

}  // namespace coulomb
