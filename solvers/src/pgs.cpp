// Projected Gauss-Seidel with box friction (seed 001 section 4, eq. 16-18c) and the contact
// orderings of seed 001 section 5: the outer algorithm. The kernel, one contact's rows, is
// pgs_kernel.h's; how sweeps run (in order, coloured, windowed) is the sweep layer's (sweep.h),
// chosen by plan_sweep (coulomb/sweep_plan.h). One template over the contact operator
// (matrix-free for scenes, seed 000 eq. 25-26; assembled for FCLib).
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
// graph (contact_coloring.h), each colour in parallel when threads > 1.
// All orderings keep the box projection, SOR (eq. 18c) and the warm start, and return impulses
// inside the box. Results are deterministic (stable sorts; no schedule changes a bit) and the same
// on any thread count. Cost: both operators evaluate a contact's velocity as one 4-vector, so a
// set sweep still evaluates and updates the whole contact and an ESP iteration is two passes over
// the contacts; the paper's cheaper subproblems (A_nn, A_tt) would need row-restricted
// velocity() / applied() calls in contact_operator.h.
#include "cpu_clock.h"
#include "normal_pgs.h"
#include "pgs_kernel.h"
#include "sweep.h"
#include "thread_scratch.h"

#include <coulomb/contact_coloring.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <coulomb/sweep_plan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace coulomb {

namespace {

using detail::boxed;
using detail::pgs_contact;
using detail::RowStep;
using detail::SweepMax;
using detail::ThetaShares;
using pgs_detail::row_residual;
using pgs_detail::solved_rows;

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
void final_terms_of(const Op& op, const std::vector<Vec4>& lambda, bool with_merit, double tol, FinalTerms& out,
                    int begin, int end, int member) {
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
  detail::team_pass(team, op.size(), [&](int begin, int end, int member) {
    final_terms_of(op, lambda, with_merit, tol, out, begin, end, member);
  });
}

// Theta of the current iterate from the operator's current state (no reset): one pass.
template <class Op>
double current_theta(Op& op, const std::vector<Vec4>& lambda, std::vector<Vec4>& v) {
  v.resize(std::size_t(op.size()));
  for (int k = 0; k < op.size(); ++k) v[std::size_t(k)] = op.velocity(k, lambda);
  return pgs_detail::theta(std::as_const(op), lambda, v);
}

// PgsSolve's work arrays, kept per thread between solves
struct PgsScratch {
  std::vector<RowStep> step;
  std::vector<Vec4> velocity;
  FinalTerms final;
};

// Where PgsSolve sweeps, as plan_sweep chose: in its ordering (`point`: the contact positions for
// "cp", null where there are none, assembled problems), colour by colour on a team started by the
// caller before it coloured the contacts, or in windows of the sweep reach.
struct PgsSchedule {
  const std::vector<Vec3>* point = nullptr;
  const ContactColoring* coloring = nullptr;  // with team: coloured
  detail::SweepTeam* team = nullptr;
  const std::vector<int>* reach = nullptr;  // windowed
};

// The permutation Pi of seed 001 section 5, once per solve (none for a coloured sweep)
template <class Op>
std::vector<int> pgs_order(Op& op, const PgsOptions& o, const std::vector<Vec4>& lambda, const std::vector<Vec3>* point,
                           bool colored) {
  if (o.ordering == PgsOrdering::Ipp) {
    std::vector<Vec4> v0;
    all_velocities(op, lambda, v0);  // y = A lambda0 + b
    return pgs_detail::ipp_order(v0);
  }
  if (o.ordering == PgsOrdering::Cp && point) return pgs_detail::cp_order(*point, o.cp_axis, o.cp_descending);
  return colored ? std::vector<int>{} : pgs_detail::identity_order(op.size());
}

// One PGS solve: the set-up (the warm start in the box, the row steps, the ordering), the loop of
// its ordering (GSP's set sweeps, windowed sweeps, or plain and ESP iterations) and what is
// reported of the returned impulses. Joint rows (contact_operator.h) are swept after the contacts
// of every sweep, Gauss-Seidel style with their exact block solve, and take part in the stopping
// test. time_ms is the whole solve's; sweep_ms the loop's.
template <class Op>
class PgsSolve {
 public:
  PgsSolve(Op& op, const SolverOptions& opt, std::vector<Vec4>& lambda, std::vector<double>& joint_lambda,
           const PgsSchedule& schedule)
      : op_(op),
        opt_(opt),
        lambda_(lambda),
        joint_lambda_(joint_lambda),
        schedule_(schedule),
        nc_(op.size()),
        nj_(op.joint_rows()),
        team_(schedule.coloring && schedule.team ? *schedule.team : own_team_) {
    if (!(opt.pgs.sor > 0.0 && opt.pgs.sor < 2.0))  // RowStep's h > 0 stands for A_rr > 0
      throw std::invalid_argument("pgs: the relaxation factor sor must lie in (0, 2)");
    detail::start_impulses(opt, nc_, nj_, lambda, joint_lambda);
    std::vector<RowStep>& step = step_;
    step.resize(std::size_t(nc_));
    // a warm start must itself lie in the box before it is used; the row steps in the same pass as
    // the first reset
    detail::colored_reset(team_, schedule.coloring, op, lambda, [&](int k, int) {
      project_onto_box(op, lambda, k, k + 1);
      detail::row_steps(op, opt.pgs.sor, step, k, k + 1);
    });
    order_ = pgs_order(op, opt.pgs, lambda, schedule.point, schedule.coloring != nullptr);
  }

  SolverStats run() {
    stats_.converged = nc_ == 0 && nj_ == 0;
    const double loop_start =
        nc_ > 0 ? detail::process_cpu_ms() : 0.0;  // a solve without contacts has no sweep cost to time
    if (nc_ > 0 && opt_.pgs.ordering == PgsOrdering::Gsp) gsp_iterations();
    else if (schedule_.reach && nc_ > 0) windowed_iterations();
    else iterations();
    stats_.sweep_ms =
        nc_ > 0 ? detail::process_cpu_ms() - loop_start : 0.0;  // with the windowed closing stage where it ran
    stats_.contact_sweeps = double(nc_) * stats_.iterations;
    report();
    stats_.time_ms = watch_.ms();
    return stats_;
  }

 private:
  bool small(double delta, double max_lambda) const {
    return detail::small_step({delta, max_lambda}, opt_.abs_tol, opt_.rel_tol);
  }
  // the step test, or with merit_tol the FCLib merit every kMeritCheckInterval iterations (merit.h)
  bool stop(bool own_test) { return stopping_test_met(op_, lambda_, opt_.merit_tol, stats_.iterations, own_test); }
  // history: Theta after each iteration but the last, which is pushed from the final evaluation
  void record(int it) {
    if (opt_.record_history && it + 1 < opt_.max_iterations)
      stats_.history.push_back(current_theta(op_, lambda_, kept_->velocity));
  }
  JointSweep joints() { return op_.template sweep_joints<true>(joint_lambda_, joint_lambda_, 1.0); }

  // PGS's sweep (seed 001 algorithm lines 2-8 with line 2b's permutation): the kernel
  // (pgs_kernel.h) over rows First..Last of every contact, by the solve's schedule (sweep.h): in
  // the ordering, or colour by colour on the team where there is a colouring. With Track (GSP),
  // each set's share of Theta into theta_.
  template <int First, int Last, bool Track = false>
  SweepMax sweep() {
    const auto kernel = [&](int k, SweepMax& m) { pgs_contact<First, Last, Track>(op_, lambda_, step_, k, m, theta_); };
    if constexpr (!Track) {  // GSP has no colouring (plan_sweep)
      if (schedule_.coloring)
        return detail::colored_sweep(team_, *schedule_.coloring, op_, member_max_, kernel, [&](int k) {
          __builtin_prefetch(&lambda_[std::size_t(k)], 1);  // the kernel's own data, with the operator's
          const char* st = reinterpret_cast<const char*>(&step_[std::size_t(k)]);
          __builtin_prefetch(st);  // 80 bytes: the two lines they may span
          __builtin_prefetch(st + 79);
        });
    }
    return detail::ordered_sweep(op_, order_.data(), nc_, kernel);
  }

  // GSP: one set's rows a sweep, the set with the larger share of Theta next (the file's top)
  void gsp_iterations() {
    int set = 0;        // 0: normal rows, 1: friction rows
    int previous = -1;  // the set of the previous sweep if it met the stopping test
    double set_max_lambda[2] = {0.0, 0.0};
    for (int it = 0; it < opt_.max_iterations; ++it) {
      theta_ = {};
      const SweepMax s = set == 0 ? sweep<0, 0, true>() : sweep<1, 3, true>();
      const JointSweep j = joints();  // joints join every set sweep
      stats_.iterations = it + 1;
      set_max_lambda[set] = s.lambda;  // the other set is unchanged since its last sweep
      const bool met =
          small(std::max(s.delta, j.max_delta), std::max({set_max_lambda[0], set_max_lambda[1], j.max_lambda}));
      if (stop(met && previous == 1 - set)) {
        stats_.converged = true;
        return;
      }
      record(it);
      const double own = set == 0 ? theta_.normal : theta_.friction;
      const double other = set == 0 ? theta_.friction : theta_.normal;
      previous = met ? set : -1;
      if (met || !(own > other)) set = 1 - set;  // greedy: the set with the larger error next
    }
  }

  // windowed (plan_sweep: the default order, no joints, no history, the own test): the plain
  // sweeps' results, bit for bit; the final terms as the last wavefront's closing stage, in the
  // window (the order is the identity)
  void windowed_iterations() {
    if constexpr (std::is_same_v<Op, MatrixFreeOperator>) {  // the only operator with bodies
      Op& op = op_;
      std::vector<Vec4>& lambda = lambda_;
      const std::vector<RowStep>& step = step_;
      FinalTerms& final = kept_->final;
      prepare_final_terms(final, std::size_t(nc_), 1, merit_wanted_);
      std::vector<Vec4> l0;
      std::vector<Vec6> w0;
      const detail::WindowedRun run = detail::windowed_sweep(
          *schedule_.reach, opt_.max_iterations, sweep_limits::kVelocityTile, sweep_limits::kVelocityWindow,
          [&] {
            l0 = lambda;
            op.copy_response(w0);
          },
          [&] {
            lambda = l0;
            op.set_response(w0);
          },
          [&](int begin, int end, SweepMax& m) {
            m.merge(detail::ordered_sweep(op, order_.data() + begin, end - begin, [&](int k, SweepMax& r) {
              pgs_contact<0, 3, false>(op, lambda, step, k, r, theta_);
            }));
          },
          [&](const SweepMax& m) { return detail::small_step(m, opt_.abs_tol, opt_.rel_tol); },
          [&](int begin, int end) {
            final_terms_of(std::as_const(op), lambda, merit_wanted_, opt_.abs_tol, final, begin, end, 0);
          });
      stats_.iterations = run.iterations;
      stats_.converged = run.converged;
      closed_ = run.closed;
    }
  }

  // one iteration: every contact's rows, or with ESP (eq. 19-21) the normal rows of all contacts
  // (eq. 20), then their friction rows (eq. 21); the joints after the contacts
  void iterations() {
    for (int it = 0; it < opt_.max_iterations && nc_ + nj_ > 0; ++it) {
      SweepMax s = opt_.pgs.ordering == PgsOrdering::Esp ? sweep<0, 0>() : sweep<0, 3>();
      if (opt_.pgs.ordering == PgsOrdering::Esp) s.merge(sweep<1, 3>());
      const JointSweep j = joints();
      stats_.iterations = it + 1;
      if (stop(small(std::max(s.delta, j.max_delta), std::max(s.lambda, j.max_lambda)))) {
        stats_.converged = true;
        return;
      }
      record(it);
    }
  }

  // Theta, the merit and convergence of the returned impulses. GSP may end on a normal sweep: its
  // friction impulses then get the final box. For the other orderings every friction row was
  // projected after its normal row, so nothing is outside it (a row the sweeps skip, W_rr <= 0,
  // may be). The closing pass finds such impulses; only then are they projected, the operator
  // reset (the sweeps kept w = M^-1 J^T lambda current, eq. 26) and the pass run again, instead
  // of a pass of its own over every contact for the check.
  void report() {
    FinalTerms& final = kept_->final;
    if (!closed_) final_terms(team_, std::as_const(op_), lambda_, merit_wanted_, opt_.abs_tol, final);
    if (std::any_of(final.outside.begin(), final.outside.end(), [](const auto& o) { return o.value; })) {
      if (project_onto_box(team_, op_, lambda_)) detail::colored_reset(team_, schedule_.coloring, op_, lambda_);
      final_terms(team_, std::as_const(op_), lambda_, merit_wanted_, opt_.abs_tol, final);
    }
    double theta = 0.0;
    for (const double t : final.theta) theta += t;
    stats_.residual = 0.5 * theta;  // seed 001 eq. 23
    if (opt_.record_history && stats_.iterations > 0) stats_.history.push_back(stats_.residual);
    stats_.merit = merit_wanted_ ? fclib_merit_of_terms(op_, [&](int k) { return final.merit[std::size_t(k)]; })
                                 : std::numeric_limits<double>::quiet_NaN();
    team_.finish();
    // Converged must mean converged: a non-finite iterate (q ~ 1e300 overflows) makes every delta
    // NaN, which the stopping test cannot see, and a row with W_rr = 0 is skipped by the sweeps, so
    // a violated one (W = 0, b_n < 0) leaves lambda unchanged and "converged". With merit_tol
    // (FCLib problems, no joints) it is the merit of the impulses returned, GSP's final projection
    // included, however the loop ended.
    if (opt_.merit_tol > 0.0) stats_.converged = stats_.merit <= opt_.merit_tol;
    const bool unresolved = std::find(final.unresolved.begin(), final.unresolved.end(), 1) != final.unresolved.end();
    if (!std::isfinite(stats_.residual) || (merit_wanted_ && !std::isfinite(stats_.merit)) || unresolved)
      stats_.converged = false;
  }

  const Stopwatch watch_;
  Op& op_;
  const SolverOptions& opt_;
  std::vector<Vec4>& lambda_;
  std::vector<double>& joint_lambda_;
  const PgsSchedule schedule_;
  const int nc_, nj_;
  const bool merit_wanted_ = opt_.evaluate_merit || opt_.merit_tol > 0.0;  // merit_tol's test reads it
  detail::SweepTeam own_team_{1};
  detail::SweepTeam& team_;
  detail::ThreadScratch<PgsScratch> kept_;  // the work arrays (every entry is written before it is read)
  std::vector<RowStep>& step_ = kept_->step;
  std::vector<detail::Padded<SweepMax>> member_max_;  // a coloured sweep's
  ThetaShares theta_;
  std::vector<int> order_;  // the permutation Pi (empty for a coloured sweep)
  SolverStats stats_;
  bool closed_ = false;  // the final terms came with the sweeps (the windowed loop's closing stage)
};

// A frictionless problem (every mu zero, no joints: post-stabilisation's gap problem, seed 000
// eq. 49-50) solves only its normal rows, so a sweep needs of each contact only row 0 of J and
// column 0 of M^-1 J^T. The matrix-free operator would stream the whole ContactRows (304 bytes),
// A_kk and the 4-vectors for it; packed normal rows (contact_problem.h NormalRow) are 160 bytes.
// The arithmetic is PgsSolve's for row 0, term for term (the
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
  const SweepPlan plan = plan_sweep({SweepKernel::Pgs, p.num_contacts(), p.joints.rows()}, opt);
  if (plan.schedule == SweepSchedule::Colored) {
    stats = detail::colored_solve(p, opt.threads, [&](const ContactColoring& c, detail::SweepTeam& team) {
      return PgsSolve(op, opt, sol.lambda, sol.joint_lambda, {&p.point, &c, &team}).run();
    });
  } else if (plan.schedule == SweepSchedule::Windowed) {
    const std::vector<int> reach = velocity_reach(p);
    stats = PgsSolve(op, opt, sol.lambda, sol.joint_lambda, {&p.point, nullptr, nullptr, &reach}).run();
  } else {
    stats = PgsSolve(op, opt, sol.lambda, sol.joint_lambda, {&p.point}).run();
  }
  op.copy_response(sol.response);  // current: pgs reset it after any final projection
  return stats;
}

// FCLib problems carry no contact positions: "cp" runs the default order here.
SolverStats solve_pgs_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  AssembledOperator op(p);
  sol.response.clear();  // an assembled problem has no bodies
  return PgsSolve(op, opt, sol.lambda, sol.joint_lambda, {}).run();
}

}  // namespace coulomb
