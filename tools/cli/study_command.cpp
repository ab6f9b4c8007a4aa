// `coulomb study`: reruns the convergence studies of seed 000 (r-factor strategies, Gauss-Seidel
// vs Jacobi) and seed 001 (PGS orderings) on scenes, and writes CSV files for tools/study.
//
// PROX part (seed 000 section 5): one full simulation per scheme x strategy, every step solved
// with max_iterations and abs/rel tolerance as given, the residual ||lambda^{k+1} - lambda^k||_inf
// recorded per iteration. prox_steps.csv has a row per step, prox_quartiles.csv the quartiles of
// the residual over all steps at each iteration (a step that stopped keeps its last residual).
// Orderings part (seed 001 section 6): a pgs simulation produces one contact problem per step;
// every ordering solves that same problem from zero to the same iteration budget, recording the
// merit Theta (eq. 23) per iteration. orderings.csv has, per scene and ordering, the time per
// iteration, the mean iterations until Theta drops by --theta-drop from its first-iteration value,
// and the speedup in time to that point over default PGS (eq. 24).
#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "commands.h"

namespace coulomb::cli {

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t i = std::size_t(pos);
  return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v.back();
}

std::string scene_name(const std::string& file) { return std::filesystem::path(file).stem().string(); }

void prox_study(const StudyArgs& a, std::ofstream& steps, std::ofstream& quart) {
  for (const std::string& file : a.scenes)
    for (const char* scheme : {"prox-gs", "prox-jacobi"})
      for (const char* strategy : {"global", "local", "blocked"}) {
        SceneOverrides o;
        o.solver = scheme;
        o.steps = a.steps;
        o.set = {"/solver/max_iterations=" + std::to_string(a.max_iterations), "/solver/abs_tol=" + std::to_string(a.tol),
                 "/solver/rel_tol=" + std::to_string(a.tol), "/solver/record_history=true",
                 std::string("/solver/r_factor={\"strategy\": \"") + strategy + "\"}"};
        World w(load_scene(file, o));
        std::vector<std::vector<double>> histories;
        while (w.step_count() < w.total_steps()) {
          const StepResult r = w.step();
          const StepStats& s = w.last_stats();
          steps << scene_name(file) << ',' << scheme << ',' << strategy << ',' << s.step << ',' << s.contacts << ','
                << s.solver.iterations << ',' << s.solver.converged << ',' << s.solver.divergence_detections << ','
                << s.solver.residual << ',' << s.solver.merit << ',' << s.solver.time_ms << '\n';
          if (!s.solver.history.empty()) histories.push_back(s.solver.history);
          if (!r.ok()) {
            std::cerr << "coulomb study: " << file << " " << scheme << " " << strategy << ": " << r.message << "\n";
            break;
          }
        }
        std::size_t longest = 0;
        for (const auto& h : histories) longest = std::max(longest, h.size());
        for (std::size_t it = 0; it < longest; ++it) {
          std::vector<double> at;
          for (const auto& h : histories) at.push_back(h[std::min(it, h.size() - 1)]);
          quart << scene_name(file) << ',' << scheme << ',' << strategy << ',' << it + 1 << ',' << quantile(at, 0.25)
                << ',' << quantile(at, 0.5) << ',' << quantile(at, 0.75) << '\n';
        }
        std::fprintf(stderr, "study: %s %s %s done (%zu steps)\n", file.c_str(), scheme, strategy, histories.size());
      }
}

void orderings_study(const StudyArgs& a, std::ofstream& out) {
  std::vector<std::string> orderings;  // every PgsOrdering, "default" first
  for (std::string_view name : EnumNames<PgsOrdering>::names) orderings.emplace_back(name);
  for (const std::string& file : a.scenes) {
    SceneOverrides o;
    o.solver = "pgs";
    o.steps = a.steps;
    World w(load_scene(file, o));
    const SolverInfo* pgs = find_solver("pgs");
    struct Acc {
      double ms = 0.0;
      long iters = 0;
      double to_target = 0.0;
      int reached = 0;
      int problems = 0;
      std::vector<double> ms_to_target;  // per problem, -1 if the target was not reached
    };
    std::map<std::string, Acc> acc;
    while (w.step_count() < w.total_steps()) {
      if (!w.step().ok()) break;
      const ContactProblem& p = w.last_problem();
      if (p.num_contacts() == 0) continue;
      for (const std::string& ord : orderings) {
        SolverOptions opt = w.scene().solver_options;
        opt.pgs.ordering = *enum_from_string<PgsOrdering>(ord);
        opt.max_iterations = a.max_iterations;
        opt.abs_tol = 0.0;
        opt.rel_tol = 0.0;
        opt.warm_start = false;
        opt.record_history = true;
        ContactSolution sol;
        const SolverStats st = pgs->solve(p, opt, sol);
        Acc& c = acc[ord];
        c.ms += st.time_ms;
        c.iters += st.iterations;
        ++c.problems;
        c.ms_to_target.push_back(-1.0);
        const double target = st.history.empty() ? 0.0 : a.theta_drop * st.history.front();
        const auto hit = std::find_if(st.history.begin(), st.history.end(), [&](double th) { return th <= target; });
        if (hit != st.history.end()) {
          const double k = double(hit - st.history.begin() + 1);
          c.to_target += k;
          c.ms_to_target.back() = k * st.time_ms / std::max(1, st.iterations);
          ++c.reached;
        }
      }
    }
    const Acc& base = acc["default"];
    for (const std::string& ord : orderings) {
      const Acc& c = acc[ord];
      const double ms_per_it = c.ms / double(std::max(1L, c.iters));
      const double mean_to_target = c.reached ? c.to_target / c.reached : -1.0;
      // eq. 24 over the problems both this ordering and default PGS brought to the target
      double t_base = 0.0, t_ord = 0.0;
      for (std::size_t i = 0; i < c.ms_to_target.size() && i < base.ms_to_target.size(); ++i)
        if (c.ms_to_target[i] >= 0.0 && base.ms_to_target[i] >= 0.0) {
          t_base += base.ms_to_target[i];
          t_ord += c.ms_to_target[i];
        }
      const double speedup = t_ord > 0.0 ? t_base / t_ord : -1.0;
      out << scene_name(file) << ',' << ord << ',' << c.problems << ',' << ms_per_it << ',' << c.reached << ','
          << mean_to_target << ',' << speedup << '\n';
    }
    std::fprintf(stderr, "study: %s orderings done\n", file.c_str());
  }
}

}  // namespace

int study(const StudyArgs& a) {
  return guarded([&] {
    std::filesystem::create_directories(a.out);
    if (a.part != "orderings") {
      std::ofstream steps(std::filesystem::path(a.out) / "prox_steps.csv"), quart(std::filesystem::path(a.out) / "prox_quartiles.csv");
      steps << "scene,scheme,strategy,step,contacts,iterations,converged,divergences,residual,merit,solve_ms\n";
      quart << "scene,scheme,strategy,iteration,q1,median,q3\n";
      prox_study(a, steps, quart);
    }
    if (a.part != "prox") {
      std::ofstream ord(std::filesystem::path(a.out) / "orderings.csv");
      ord << "scene,ordering,problems,ms_per_iteration,reached_target,mean_iterations_to_target,speedup_vs_pgs\n";
      orderings_study(a, ord);
    }
    return 0;
  });
}

}  // namespace coulomb::cli
