// Island split, parallel solve and scatter. The split copies per-contact blocks (a few hundred
// bytes per contact), which is small beside the sweeps of any solver over the same contacts.
#include "normal_pgs.h"

#include <coulomb/island_solve.h>
#include <coulomb/merit.h>
#include <coulomb/sweep_plan.h>
#include <coulomb/timer.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace coulomb {

void extract_island_problem(const ContactProblem& global, const Islands& islands, int island, ContactProblem& out) {
  const auto i = std::size_t(island);
  const auto b0 = islands.bodies.begin() + islands.body_start[i],
             b1 = islands.bodies.begin() + islands.body_start[i + 1];
  const auto local = [&](int body) { return int(std::lower_bound(b0, b1, body) - b0); };
  out.inv_mass.clear();
  out.inv_inertia.clear();
  for (auto it = b0; it != b1; ++it) {
    out.inv_mass.push_back(global.inv_mass[std::size_t(*it)]);
    out.inv_inertia.push_back(global.inv_inertia[std::size_t(*it)]);
  }
  // the contacts in parallel (the caller's TBB arena), each copied alone: a kept `out` of about
  // the same size is overwritten in place, without a serial pass to clear or construct it
  const int first = islands.contact_start[i], n = islands.contact_start[i + 1] - first;
  out.resize_contacts(std::size_t(n));
  const bool kept = global.keeps_angular();  // the island keeps the problem's choice (and its bits)
  if (!kept) out.angular.clear();
  out.joints.clear();
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 256), [&](const tbb::blocked_range<int>& r) {
    for (int e = r.begin(); e != r.end(); ++e) {
      const auto k = std::size_t(islands.contacts[std::size_t(first + e)]), j = std::size_t(e);
      out.body_a[j] = local(global.body_a[k]);
      out.body_b[j] = local(global.body_b[k]);
      out.rows[j] = global.rows[k];
      out.b[j] = global.b[k];
      out.mu[j] = global.mu[k];
      out.point[j] = global.point[k];
      out.A_diag[j] = global.A_diag[k];
      if (kept) out.angular[j] = global.angular[k];
    }
  });
  for (int e = islands.joint_start[i]; e < islands.joint_start[i + 1]; ++e) {
    const int j = islands.joints[std::size_t(e)];
    const int a = global.joints.body_a[std::size_t(j)], b = global.joints.body_b[std::size_t(j)];
    out.joints.append_from(global.joints, j, a < 0 ? -1 : local(a), b < 0 ? -1 : local(b));
  }
  out.finalized = global.finalized;  // rows, A_diag and angular were copied with their derived parts
  out.joints.finalize(out.inv_mass, out.inv_inertia);
}

namespace {

// One solve_islands call: the problem, its islands and their plan, and each island's stats and
// whether its solver kept the response of its bodies
struct IslandRun {
  SolveFn solve;
  const ContactProblem& problem;
  const Islands& islands;
  const SolverOptions& opt;
  ContactSolution& solution;
  IslandScratch* scratch;
  const IslandPlan& plan;
  std::vector<SolverStats> stats = std::vector<SolverStats>(std::size_t(islands.count()));
  std::vector<std::uint8_t> kept_response = std::vector<std::uint8_t>(std::size_t(islands.count()), 1);

  // island i's joint rows in global order, each joint's rows together: f(local row, global row)
  template <class F>
  void for_joint_rows(std::size_t i, F&& f) const {
    int local_row = 0;
    for (int e = islands.joint_start[i]; e < islands.joint_start[i + 1]; ++e) {
      const int j = islands.joints[std::size_t(e)];
      for (int r = problem.joints.row_start[std::size_t(j)]; r < problem.joints.row_start[std::size_t(j) + 1]; ++r)
        f(std::size_t(local_row++), std::size_t(r));
    }
  }

  // island isl's sub-problem (the plan's kept one where there is a scratch, else a fresh one) and
  // its warm start, its solve, and the scatter of its impulses and its bodies' responses
  void solve_island(int isl) {
    const auto i = std::size_t(isl);
    const int slot = scratch ? plan.kept[i] : -1;
    ContactProblem fresh;
    ContactSolution fresh_part;
    ContactProblem& sub = slot < 0 ? fresh : scratch->problems[std::size_t(slot)];
    ContactSolution& part = slot < 0 ? fresh_part : scratch->parts[std::size_t(slot)];
    extract_island_problem(problem, islands, isl, sub);
    const int* contacts = islands.contacts.data() + islands.contact_start[i];
    part.lambda.resize(std::size_t(sub.num_contacts()));
    for (std::size_t k = 0; k < part.lambda.size(); ++k) part.lambda[k] = solution.lambda[std::size_t(contacts[k])];
    const bool joints = !solution.joint_lambda.empty();
    part.joint_lambda.resize(joints ? std::size_t(sub.joints.rows()) : 0);  // a kept part may hold an earlier call's
    if (joints)
      for_joint_rows(i, [&](std::size_t l, std::size_t g) { part.joint_lambda[l] = solution.joint_lambda[g]; });
    SolverOptions o = opt;
    if (isl != plan.threads_island) o.threads = 1;
    part.response.clear();  // a kept part may hold an earlier call's
    stats[i] = solve(sub, o, part);
    // islands own disjoint contacts: the scatter writes never collide
    for (std::size_t k = 0; k < part.lambda.size(); ++k) solution.lambda[std::size_t(contacts[k])] = part.lambda[k];
    if (joints)
      for_joint_rows(i, [&](std::size_t l, std::size_t g) { solution.joint_lambda[g] = part.joint_lambda[l]; });
    // the responses of the island's own bodies (the fixed ones it lists are shared with other
    // islands, and move with no impulse: their entries stay zero)
    if (part.response.size() != std::size_t(sub.num_bodies())) {
      kept_response[i] = 0;
      return;
    }
    for (int e = islands.body_start[i]; e < islands.body_start[i + 1]; ++e) {
      const auto body = std::size_t(islands.bodies[std::size_t(e)]);
      if (islands.body_island[body] == isl)
        solution.response[body] = part.response[std::size_t(e - islands.body_start[i])];
    }
  }
};

}  // namespace

SolverStats solve_islands(SolveFn solve, const ContactProblem& problem, const Islands& islands,
                          const SolverOptions& opt, ContactSolution& solution, IslandScratch* scratch) {
  // one island, or one with nearly every contact (sweep_plan.h, whole_island): the problem is
  // solved as it is, the small islands along with the large one
  const IslandPlan plan = plan_islands(islands, problem.num_contacts(), opt.threads);
  if (plan.whole) return solve(problem, opt, solution);

  const Stopwatch watch;
  // the large islands (kept_island) get a kept sub-problem each; the others a fresh one
  if (scratch) {
    const auto used = std::size_t(std::count_if(plan.kept.begin(), plan.kept.end(), [](int s) { return s >= 0; }));
    if (scratch->problems.size() < used) {
      scratch->problems.resize(used);
      scratch->parts.resize(used);
    }
  }
  // the whole problem's response from the islands' (ContactSolution::response), where every
  // island's solver kept one; bodies in no island get none (zero)
  solution.response.assign(std::size_t(problem.num_bodies()), Vec6::Zero());
  IslandRun run{solve, problem, islands, opt, solution, scratch, plan};
  // The island of threads_island keeps every thread for its own solve. With graph colouring
  // (sweep_team.h) it runs in the calling thread after the others, so that its helpers find the
  // workers free: a worker of the parallel loop that took it could find no second thread for them.
  const int large = plan.threads_island;
  const bool large_last = large >= 0 && opt.graph_coloring;
  tbb::parallel_for(0, islands.count(), [&](int isl) {
    if (!large_last || isl != large) run.solve_island(isl);
  });
  if (large_last) run.solve_island(large);

  if (std::find(run.kept_response.begin(), run.kept_response.end(), 0) != run.kept_response.end())
    solution.response.clear();
  SolverStats all = detail::merge_island_stats(run.stats, opt.record_history);
  all.merit = opt.evaluate_merit ? fclib_merit(problem, solution) : std::numeric_limits<double>::quiet_NaN();
  all.time_ms = watch.ms();
  return all;
}

namespace detail {

SolverStats merge_island_stats(const std::vector<SolverStats>& stats, bool record_history) {
  SolverStats all;
  std::size_t longest = 0;
  for (const SolverStats& s : stats) {  // in island order: the same sums on any thread count
    all.iterations = std::max(all.iterations, s.iterations);
    all.residual = std::max(all.residual, s.residual);
    all.converged = all.converged && s.converged;
    all.divergence_detections += s.divergence_detections;
    all.sweep_ms += s.sweep_ms;
    all.contact_sweeps += s.contact_sweeps;
    longest = std::max(longest, s.history.size());
  }
  if (record_history) {
    all.history.assign(longest, 0.0);
    for (const SolverStats& s : stats)
      for (std::size_t it = 0; it < longest && !s.history.empty(); ++it)
        all.history[it] = std::max(all.history[it], s.history[std::min(it, s.history.size() - 1)]);
  }
  return all;
}

}  // namespace detail

}  // namespace coulomb
