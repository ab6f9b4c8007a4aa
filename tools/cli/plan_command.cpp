// `coulomb info --plan SCENE`: the sweep plans (coulomb/sweep_plan.h) of a scene's contact
// solve after a few steps, and the threshold table they read.
#include <coulomb/island_solve.h>
#include <coulomb/sweep_plan.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "commands.h"

namespace coulomb::cli {

namespace {

// the kernel a solver sweeps with, or false for a solver that is no sweep
bool sweep_kernel(const std::string& solver, SweepKernel& k) {
  if (solver == "pgs") k = SweepKernel::Pgs;
  else if (solver == "prox-gs") k = SweepKernel::ProxGs;
  else if (solver == "prox-jacobi") k = SweepKernel::ProxJacobi;
  else return false;
  return true;
}

void print_plan(const char* what, const SolveSize& size, const SolverOptions& opt) {
  const SweepPlan plan = plan_sweep(size, opt);
  std::printf("  %s: %d contacts, %d joint rows, %s on %d thread(s): %s\n", what, size.contacts, size.joint_rows,
              to_string(plan.schedule), opt.threads, plan.reason.c_str());
}

}  // namespace

int info_plan(const RunArgs& a, int steps) {
  return guarded([&] {
    SceneDef scene = load_input(a, true);
    const std::string solver = scene.solver;
    SolverOptions opt = scene.solver_options;
    WorldSettings settings;
    settings.threads = a.threads;
    settings.islands = !a.no_islands;
    World world(std::move(scene), settings);
    for (int s = 0; s < steps; ++s) world.step();
    const ContactProblem& p = world.last_problem();
    const Islands& islands = world.islands();
    opt.threads = a.threads;
    std::printf("%s after %d step(s): solver %s, %d contacts, %d joint rows, %d island(s)\n", a.scene.c_str(), steps,
                solver.c_str(), p.num_contacts(), p.joints.rows(), islands.count());
    std::printf("  layout: %s (kept_responses)\n", p.keeps_angular() ? "each contact keeps its I^-1 A^T" : "the bodies' I^-1");
    SweepKernel kernel{};
    if (!sweep_kernel(solver, kernel)) {
      std::printf("  %s is not a Gauss-Seidel or Jacobi sweep: no sweep plan\n", solver.c_str());
    } else if (!settings.islands) {
      print_plan("whole problem (--no-islands)", {kernel, p.num_contacts(), p.joints.rows()}, opt);
    } else {
      const IslandPlan ip = plan_islands(islands, p.num_contacts(), opt.threads);
      std::printf("  islands: %s: %s\n", ip.whole ? "solved whole" : "split", ip.reason.c_str());
      if (ip.whole) {
        print_plan("whole problem", {kernel, p.num_contacts(), p.joints.rows()}, opt);
      } else {
        // one line per island of at least kept_island, the rest counted by schedule
        std::map<std::string, int> small;
        for (int i = 0; i < islands.count(); ++i) {
          SolverOptions o = opt;
          if (i != ip.threads_island) o.threads = 1;
          int rows = 0;
          for (int e = islands.joint_start[std::size_t(i)]; e < islands.joint_start[std::size_t(i) + 1]; ++e)
            rows += p.joints.rows_of(islands.joints[std::size_t(e)]);
          const SolveSize size{kernel, islands.contact_count(i), rows};
          if (ip.kept[std::size_t(i)] >= 0) {
            const std::string what = "island " + std::to_string(i) + " (kept)";
            print_plan(what.c_str(), size, o);
          } else {
            ++small[to_string(plan_sweep(size, o).schedule)];
          }
        }
        for (const auto& [schedule, n] : small) std::printf("  %d smaller island(s): %s on 1 thread\n", n, schedule.c_str());
      }
    }
    std::printf("  post-stabilisation's gap problem (normal-pgs): islands by the same rule; windowed from %zu contacts\n",
                sweep_limits::kWindowedBytes / sweep_limits::kNormalContactBytes);
    std::printf("\nthresholds (coulomb/sweep_plan.h):\n");
    for (const SweepThreshold& t : kSweepThresholds)
      std::printf("  %-15s %-10.10g %-22s %s\n", t.name, t.value, t.unit, t.reason);
    return 0;
  });
}

}  // namespace coulomb::cli
