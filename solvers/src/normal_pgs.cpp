// PGS over packed normal rows (normal_pgs.h): post-stabilisation's gap problem (solve_normal_pgs,
// whole, by island, or in cache-sized windows) and solve_pgs's frictionless path
// (frictionless_pgs), one sweep kernel for all of them.
#include "normal_pgs.h"

#include "cpu_clock.h"
#include "pgs_kernel.h"
#include "sweep.h"

#include <coulomb/island_solve.h>
#include <coulomb/sweep_plan.h>
#include <coulomb/timer.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace coulomb {

namespace {

using pgs_detail::row_residual;

using detail::SweepMax;

// The kernel: one packed row's PGS step (pgs_kernel.h normal_row_step, seed 001 eq. 16-17 for
// r = 0), its response added to both bodies (seed 000 eq. 26).
COULOMB_HOT_INLINE void normal_update(const NormalRow& r, double& x_ref, std::vector<Vec6>& w, double sor,
                                      SweepMax& m) {
  if (!(r.a_nn > 0.0)) return;  // a row no body can respond to
  Vec6& wa = w[std::size_t(r.body_a)];
  Vec6& wb = w[std::size_t(r.body_b)];
  const double x = detail::normal_row_step(x_ref, r.velocity(wa, wb), sor / r.a_nn);
  const double d = x - x_ref;
  x_ref = x;
  m.add(d, x);
  if (d != 0.0) r.add_responses(d, wa, wb);
}

bool sweep_met_tolerance(const SweepMax& m, const SolverOptions& opt) {
  return detail::small_step(m, opt.abs_tol, opt.rel_tol);
}

// Theta (seed 001 eq. 22-23) and whether a row is unresolved or not finite, summed contact by
// contact in the order they are added: normal_final_terms's pass, or the windowed sweeps' closing
// stage (banded_normal_sweeps), with the same sums.
struct NormalTerms {
  double theta = 0.0;
  bool unresolved = false;

  void add(const NormalRow& r, double l, const std::vector<Vec6>& w, const SolverOptions& opt) {
    const double v = r.velocity(w[std::size_t(r.body_a)], w[std::size_t(r.body_b)]);
    const double h = row_residual(Vec4(l, 0.0, 0.0, 0.0), Vec4(v, 0.0, 0.0, 0.0), Vec3::Zero(), 0);
    if (r.a_nn > 0.0) theta += h * h;
    else unresolved = unresolved || std::abs(h) > opt.abs_tol;
    unresolved = unresolved || !std::isfinite(l) || !std::isfinite(v);
  }
  // into stats.residual, and `converged` false where a row is unresolved or not finite
  void finish(SolverStats& stats) const {
    stats.residual = 0.5 * theta;
    stats.merit = std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(stats.residual) || unresolved) stats.converged = false;
  }
};

// NormalTerms over the contacts list[0..n) of p (all of them, in order, when list is null).
void normal_final_terms(const NormalProblem& p, const int* list, int n, const SolverOptions& opt,
                        const std::vector<double>& l, const std::vector<Vec6>& w, SolverStats& stats) {
  NormalTerms terms;
  for (int e = 0; e < n; ++e) {
    const std::size_t k = list ? std::size_t(list[e]) : std::size_t(e);
    terms.add(p.rows[k], l[k], w, opt);
  }
  terms.finish(stats);
}

// PGS sweeps over the contacts list[0..n) of p (all of them, in order, when list is null) from
// the impulses l and their response w, to pgs's stopping test; then Theta over them (seed 001
// eq. 22-23) and whether a row is unresolved (final_terms). Writes l and w only at those
// contacts and their bodies with inverse mass.
SolverStats normal_sweeps(const NormalProblem& p, const int* list, int n, const SolverOptions& opt,
                          std::vector<double>& l, std::vector<Vec6>& w) {
  SolverStats stats;
  stats.converged = n == 0;
  const double loop_start = detail::process_cpu_ms();
  for (int it = 0; it < opt.max_iterations && n > 0; ++it) {
    SweepMax m;
    for (int e = 0; e < n; ++e) {
      const std::size_t k = list ? std::size_t(list[e]) : std::size_t(e);
      normal_update(p.rows[k], l[k], w, opt.pgs.sor, m);
    }
    stats.iterations = it + 1;
    if (sweep_met_tolerance(m, opt)) {
      stats.converged = true;
      break;
    }
  }
  stats.sweep_ms = detail::process_cpu_ms() - loop_start;
  stats.contact_sweeps = double(n) * stats.iterations;
  normal_final_terms(p, list, n, opt, l, w, stats);
  return stats;
}

}  // namespace

namespace detail {

SolverStats frictionless_pgs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  const Stopwatch watch;
  const int nc = p.num_contacts();
  std::vector<Vec4>& lambda = sol.lambda;
  if (!opt.warm_start || int(lambda.size()) != nc) lambda.assign(std::size_t(nc), Vec4::Zero());
  sol.joint_lambda.clear();
  NormalProblem packed;
  packed.num_bodies = p.num_bodies();
  packed.rows.resize(std::size_t(nc));
  std::vector<double> l(static_cast<std::size_t>(nc));
  const bool kept = p.keeps_angular();
  for (int k = 0; k < nc; ++k) {
    const auto i = std::size_t(k);
    const ContactRows& c = p.rows[i];
    NormalRow& n = packed.rows[i];
    const Vec3 minv_a =
        kept ? Vec3(p.angular[i].a.col(0)) : Vec3(p.inv_inertia[std::size_t(p.body_a[i])] * c.ang_a.row(0).transpose());
    const Vec3 minv_b =
        kept ? Vec3(p.angular[i].b.col(0)) : Vec3(p.inv_inertia[std::size_t(p.body_b[i])] * c.ang_b.row(0).transpose());
    for (int j = 0; j < 3; ++j) {
      n.lin[j] = c.lin(0, j);
      n.ang_a[j] = c.ang_a(0, j);
      n.ang_b[j] = c.ang_b(0, j);
      n.minv_a[j] = minv_a[j];
      n.minv_b[j] = minv_b[j];
    }
    n.inv_mass_a = c.inv_mass_a;
    n.inv_mass_b = c.inv_mass_b;
    n.b = p.b[i][0];
    n.a_nn = p.A_diag[i](0, 0);
    n.body_a = p.body_a[i];
    n.body_b = p.body_b[i];
    lambda[i] = Vec4(std::max(0.0, lambda[i][0]), 0.0, 0.0, 0.0);  // project_onto_box with mu = 0
    l[i] = lambda[i][0];
  }
  std::vector<Vec6>& w = sol.response;
  p.body_impulse_response(lambda, w);  // the operator's reset; the sweeps keep it current
  SolverStats stats =
      plan_sweep({SweepKernel::NormalPgs, nc, 0}, opt).schedule == SweepSchedule::Windowed
          ? banded_normal_sweeps(packed, nullptr, opt, l, w, sweep_limits::kNormalTile, sweep_limits::kNormalWindow)
          : normal_sweeps(packed, nullptr, nc, opt, l, w);
  for (int k = 0; k < nc; ++k) lambda[std::size_t(k)][0] = l[std::size_t(k)];
  stats.time_ms = watch.ms();
  return stats;
}

// solve_normal_pgs's sweeps over a whole problem too large for the caches, in windows that stay
// in them (banded_sweeps.h): wavefront_sweeps's order of the updates gives the results of plain
// sweeps, bit for bit. The stopping test is pgs's, after each sweep, in wavefronts of as many
// sweeps as keep a window within `window` contacts (windowed_sweeps: where the test is met inside
// one, back to its start and plain sweeps). Theta and the rest are normal_sweeps's, summed in the
// same order: where the sweeps end in the last wavefront, by its closing stage while the window
// holds the rows (at 16,000 boxes the pass of its own read 15 MB from memory: 0.55 ms), its time
// then within sweep_ms.
SolverStats banded_normal_sweeps(const NormalProblem& p, const std::vector<int>* body_island, const SolverOptions& opt,
                                 std::vector<double>& lambda, std::vector<Vec6>& w, int tile, int window) {
  SolverStats stats;
  const int nc = p.num_contacts();
  stats.converged = nc == 0;
  const double loop_start = detail::process_cpu_ms();
  // the sides a sweep writes: from the islands (a body outside every island does not move) and
  // the body ids kept beside the rows where they are given, which saves reading every row
  std::vector<int> a(static_cast<std::size_t>(nc)), b(static_cast<std::size_t>(nc));
  const bool ids = body_island && body_island->size() == std::size_t(p.num_bodies) &&
                   p.body_a.size() == std::size_t(nc) && p.body_b.size() == std::size_t(nc);
  for (std::size_t k = 0; k < std::size_t(nc); ++k) {
    if (ids) {
      a[k] = (*body_island)[std::size_t(p.body_a[k])] >= 0 ? p.body_a[k] : -1;
      b[k] = (*body_island)[std::size_t(p.body_b[k])] >= 0 ? p.body_b[k] : -1;
    } else {
      a[k] = p.rows[k].inv_mass_a > 0.0 ? p.rows[k].body_a : -1;
      b[k] = p.rows[k].inv_mass_b > 0.0 ? p.rows[k].body_b : -1;
    }
  }
  const std::vector<int> reach = sweep_reach(p.num_bodies, a, b);
  std::vector<double> l0;
  std::vector<Vec6> w0;
  NormalTerms closing;
  const WindowedRun run = windowed_sweep(
      reach, std::max(opt.max_iterations, 0), tile, window,
      [&] {
        l0 = lambda;  // where plain sweeps would go back to
        w0 = w;
      },
      [&] {
        lambda = l0;
        w = w0;
      },
      [&](int begin, int end, SweepMax& m) {
        for (int x = begin; x < end; ++x)
          normal_update(p.rows[std::size_t(x)], lambda[std::size_t(x)], w, opt.pgs.sor, m);
      },
      [&](const SweepMax& m) { return sweep_met_tolerance(m, opt); },
      [&](int begin, int end) {
        for (int x = begin; x < end; ++x) closing.add(p.rows[std::size_t(x)], lambda[std::size_t(x)], w, opt);
      });
  stats.iterations = run.iterations;
  stats.converged = stats.converged || run.converged;
  stats.contact_sweeps = double(nc) * stats.iterations;
  stats.sweep_ms = detail::process_cpu_ms() - loop_start;  // with the closing stage where it ran
  if (run.closed) closing.finish(stats);                   // Theta from the last wavefront's closing stage
  else normal_final_terms(p, nullptr, nc, opt, lambda, w, stats);
  return stats;
}

}  // namespace detail

SolverStats solve_normal_pgs(const NormalProblem& p, const Islands* islands, const SolverOptions& opt,
                             std::vector<double>& lambda, std::vector<Vec6>* response) {
  const Stopwatch watch;
  const int nc = p.num_contacts();
  std::vector<Vec6> own;
  std::vector<Vec6>& w = response ? *response : own;
  if (!opt.warm_start || int(lambda.size()) != nc) {
    // from zero impulses w = 0 without a pass over the rows (post-stabilisation starts cold every
    // step: at 16,000 boxes that pass read 15 MB of rows to add zeros)
    lambda.assign(std::size_t(nc), 0.0);
    w.assign(std::size_t(p.num_bodies), Vec6::Zero());
  } else {
    for (double& x : lambda) x = std::max(0.0, x);  // project_onto_box with mu = 0
    p.body_impulse_response(lambda, w);
  }
  if (islands) {
    if (islands->contact_island.size() != std::size_t(nc) || islands->body_island.size() != std::size_t(p.num_bodies))
      throw std::invalid_argument("solve_normal_pgs: the islands are not those of this problem");
    for (const NormalRow& r : p.rows)  // islands share only bodies outside them: those must not move
      if ((r.inv_mass_a > 0.0 && islands->body_island[std::size_t(r.body_a)] < 0) ||
          (r.inv_mass_b > 0.0 && islands->body_island[std::size_t(r.body_b)] < 0))
        throw std::invalid_argument("solve_normal_pgs: a body outside every island has an inverse mass");
  }
  SolverStats stats;
  const int ni = islands ? islands->count() : 0;
  if (!islands || plan_islands(*islands, nc, opt.threads).whole) {
    if (plan_sweep({SweepKernel::NormalPgs, nc, 0}, opt).schedule == SweepSchedule::Windowed)
      stats = detail::banded_normal_sweeps(p, islands ? &islands->body_island : nullptr, opt, lambda, w,
                                           sweep_limits::kNormalTile, sweep_limits::kNormalWindow);
    else stats = normal_sweeps(p, nullptr, nc, opt, lambda, w);
  } else {
    std::vector<SolverStats> part(static_cast<std::size_t>(ni));
    tbb::parallel_for(0, ni, [&](int i) {
      const int first = islands->contact_start[std::size_t(i)];
      part[std::size_t(i)] =
          normal_sweeps(p, islands->contacts.data() + first, islands->contact_count(i), opt, lambda, w);
    });
    stats = detail::merge_island_stats(part, false);
    stats.merit = std::numeric_limits<double>::quiet_NaN();
  }
  stats.time_ms = watch.ms();
  return stats;
}


}  // namespace coulomb
