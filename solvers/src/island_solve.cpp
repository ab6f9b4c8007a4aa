// Island split, parallel solve and scatter. The split copies per-contact blocks (a few hundred
// bytes per contact), which is small beside the sweeps of any solver over the same contacts.
#include <coulomb/island_solve.h>
#include <coulomb/merit.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>

namespace coulomb {

void extract_island_problem(const ContactProblem& global, const Islands& islands, int island, ContactProblem& out) {
  const auto i = std::size_t(island);
  const auto b0 = islands.bodies.begin() + islands.body_start[i], b1 = islands.bodies.begin() + islands.body_start[i + 1];
  const auto local = [&](int body) { return int(std::lower_bound(b0, b1, body) - b0); };
  out.inv_mass.clear();
  out.inv_inertia.clear();
  for (auto it = b0; it != b1; ++it) {
    out.inv_mass.push_back(global.inv_mass[std::size_t(*it)]);
    out.inv_inertia.push_back(global.inv_inertia[std::size_t(*it)]);
  }
  out.clear_contacts();
  for (int e = islands.contact_start[i]; e < islands.contact_start[i + 1]; ++e) {
    const auto k = std::size_t(islands.contacts[std::size_t(e)]);
    out.add_contact(local(global.body_a[k]), local(global.body_b[k]), global.rows[k], global.b[k], global.mu[k],
                    global.point[k]);
    out.A_diag.push_back(global.A_diag[k]);
  }
  for (int e = islands.joint_start[i]; e < islands.joint_start[i + 1]; ++e) {
    const int j = islands.joints[std::size_t(e)];
    const int a = global.joints.body_a[std::size_t(j)], b = global.joints.body_b[std::size_t(j)];
    out.joints.append_from(global.joints, j, a < 0 ? -1 : local(a), b < 0 ? -1 : local(b));
  }
  out.finalized = global.finalized;  // rows and A_diag were copied with their derived parts
  out.joints.finalize(out.inv_mass, out.inv_inertia);
}

SolverStats solve_islands(SolveFn solve, const ContactProblem& problem, const Islands& islands,
                          const SolverOptions& opt, ContactSolution& solution, IslandScratch* scratch) {
  const int ni = islands.count(), nc = problem.num_contacts();
  // one island with every contact: the island is the problem, solve it as it is
  if (ni <= 1) return solve(problem, opt, solution);

  const auto t0 = std::chrono::steady_clock::now();
  // the large islands (at most 8) get a kept sub-problem each; the others a fresh one
  std::vector<int> slot(static_cast<std::size_t>(ni), -1);
  if (scratch) {
    int used = 0;
    for (int isl = 0; isl < ni; ++isl)
      if (8 * islands.contact_count(isl) >= nc) slot[std::size_t(isl)] = used++;
    if (scratch->problems.size() < std::size_t(used)) {
      scratch->problems.resize(std::size_t(used));
      scratch->parts.resize(std::size_t(used));
    }
  }
  std::vector<SolverStats> stats(static_cast<std::size_t>(ni));
  tbb::parallel_for(0, ni, [&](int isl) {
    const auto i = std::size_t(isl);
    ContactProblem fresh;
    ContactSolution fresh_part;
    ContactProblem& sub = slot[i] < 0 ? fresh : scratch->problems[std::size_t(slot[i])];
    ContactSolution& part = slot[i] < 0 ? fresh_part : scratch->parts[std::size_t(slot[i])];
    extract_island_problem(problem, islands, isl, sub);
    part.lambda.resize(std::size_t(sub.num_contacts()));
    const int first = islands.contact_start[i];
    for (std::size_t k = 0; k < part.lambda.size(); ++k)
      part.lambda[k] = solution.lambda[std::size_t(islands.contacts[std::size_t(first) + k])];
    // joint rows: the island's joints in global order, each joint's rows together
    const bool joints = !solution.joint_lambda.empty();
    const auto for_joint_rows = [&](auto&& f) {
      int local_row = 0;
      for (int e = islands.joint_start[i]; e < islands.joint_start[i + 1]; ++e) {
        const int j = islands.joints[std::size_t(e)];
        for (int r = problem.joints.row_start[std::size_t(j)]; r < problem.joints.row_start[std::size_t(j) + 1]; ++r)
          f(std::size_t(local_row++), std::size_t(r));
      }
    };
    if (joints) {
      part.joint_lambda.resize(std::size_t(sub.joints.rows()));
      for_joint_rows([&](std::size_t l, std::size_t g) { part.joint_lambda[l] = solution.joint_lambda[g]; });
    } else {
      part.joint_lambda.clear();  // a kept part may hold an earlier call's
    }
    SolverOptions o = opt;
    if (2 * sub.num_contacts() < nc) o.threads = 1;
    stats[i] = solve(sub, o, part);
    // islands own disjoint contacts: the scatter writes never collide
    for (std::size_t k = 0; k < part.lambda.size(); ++k)
      solution.lambda[std::size_t(islands.contacts[std::size_t(first) + k])] = part.lambda[k];
    if (joints) for_joint_rows([&](std::size_t l, std::size_t g) { solution.joint_lambda[g] = part.joint_lambda[l]; });
  });

  SolverStats all;
  std::size_t longest = 0;
  for (const SolverStats& s : stats) {
    all.iterations = std::max(all.iterations, s.iterations);
    all.residual = std::max(all.residual, s.residual);
    all.converged = all.converged && s.converged;
    all.divergence_detections += s.divergence_detections;
    all.sweep_ms += s.sweep_ms;
    all.contact_sweeps += s.contact_sweeps;
    longest = std::max(longest, s.history.size());
  }
  if (opt.record_history) {
    all.history.assign(longest, 0.0);
    for (const SolverStats& s : stats)
      for (std::size_t it = 0; it < longest && !s.history.empty(); ++it)
        all.history[it] = std::max(all.history[it], s.history[std::min(it, s.history.size() - 1)]);
  }
  all.merit = fclib_merit(problem, solution);
  all.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return all;
}

}  // namespace coulomb
