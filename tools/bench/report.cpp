// Table and JSON-lines output of coulomb-vs-bullet (report.h).
#include "report.h"

#include "sweep_cost.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace bench {

namespace {

struct Summary {
  double ms = 0.0, mean_ms = 0.0, cpu_ms = 0.0, contacts = 0.0, merit = 0.0, solver_iterations = 0.0;
  int contacts_max = 0;
  std::array<double, kStages> stage_ms{};  // medians, one stage at a time (so they need not add up to ms)
};

Summary summarize(const RunResult& r) {
  Summary s;
  s.ms = median(r.ms);
  // the mean is the whole run's time per step: a scene with a costly phase (the funnel's
  // landing) has a median far below it
  for (const double x : r.ms) s.mean_ms += x / double(r.ms.size());
  s.cpu_ms = median(r.cpu_ms);
  s.contacts = median(std::vector<double>(r.contacts.begin(), r.contacts.end()));
  s.contacts_max = r.contacts.empty() ? 0 : *std::max_element(r.contacts.begin(), r.contacts.end());
  s.merit = median(r.merit);
  s.solver_iterations = median(std::vector<double>(r.solver_iterations.begin(), r.solver_iterations.end()));
  for (std::size_t k = 0; k < s.stage_ms.size(); ++k) {
    std::vector<double> v;
    for (const auto& st : r.stage_ms) v.push_back(st[k]);
    s.stage_ms[k] = median(v);
  }
  return s;
}

std::string config(const RunResult& r) {
  if (!r.label.empty()) return r.label;
  if (r.engine != "bullet") return r.solver;
  return "bullet-" + std::to_string(r.iterations) + (r.friction_directions == 1 ? "-1dir" : "");
}

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// Sweep cost (README.md "Sweep cost"): time per contact visit, and the bandwidth that means.
struct SweepCost {
  double sweep_ns = NAN;   // sweeps' time / contact visits
  double solve_ns = NAN;   // whole solve call / contact visits
  double bytes = 0.0;      // per contact visit
  double gbs = NAN;        // bytes / sweep_ns
  double fraction = NAN;   // of the measured copy bandwidth
};

SweepCost sweep_cost(const RunResult& r, double copy_gbs) {
  SweepCost c;
  if (!(r.contact_sweeps > 0.0)) return c;
  c.sweep_ns = r.sweep_ms * 1e6 / r.contact_sweeps;
  c.solve_ns = r.solve_ms * 1e6 / r.contact_sweeps;
  c.bytes = bytes_per_contact_sweep(r.engine == "bullet" ? "bullet" : r.solver);
  if (c.bytes > 0.0) {
    c.gbs = c.bytes / c.sweep_ns;
    c.fraction = c.gbs / copy_gbs;
  }
  return c;
}

}  // namespace

void print_table(const ReportHeader& h, const std::vector<RunResult>& runs) {
  std::printf("scene '%s': %d bodies, dt %g s, %d steps; Coulomb on %d thread(s), Bullet on 1\n", h.scene.c_str(),
              h.bodies, h.dt, h.steps, h.threads);
  if (h.repeat > 1)
    std::printf("(each configuration: the fastest, by median CPU ms a step, of %d runs taken in turn with the others)\n",
                h.repeat);
  std::printf("(Bullet runs single-threaded: btDiscreteDynamicsWorld is its sequential world, and Debian's\n"
              " Bullet is built without BT_THREADSAFE, so it has no parallel task scheduler)\n\n");
  std::printf("%-8s %-14s %9s %9s %9s %9s %13s %12s %12s %11s\n", "engine", "config", "iters", "ms/step", "ms/step",
              "cpu ms", "contacts", "max pen [m]", "merit (med)", "drift [m]");
  std::printf("%-8s %-14s %9s %9s %9s %9s %13s %12s %12s %11s\n", "", "", "med/limit", "(median)", "(mean)", "(median)",
              "median/max", "", "", "");
  std::vector<Summary> sums;
  for (const RunResult& r : runs) {
    const Summary s = summarize(r);
    sums.push_back(s);
    char merit[32];
    if (r.merit.empty()) std::snprintf(merit, sizeof merit, "n/a");
    else std::snprintf(merit, sizeof merit, "%.2e", s.merit);
    char contacts[32];
    std::snprintf(contacts, sizeof contacts, "%g/%d", s.contacts, s.contacts_max);
    char iters[32];  // Bullet stops before its limit only at a zero residual (m_leastSquaresResidualThreshold 0)
    if (r.engine == "coulomb") std::snprintf(iters, sizeof iters, "%g/%d", s.solver_iterations, r.iterations);
    else std::snprintf(iters, sizeof iters, "%d", r.iterations);
    std::printf("%-8s %-14s %9s %9.3f %9.3f %9.3f %13s %12.2e %12s %11.2e\n", r.engine.c_str(), config(r).c_str(), iters,
                s.ms, s.mean_ms, s.cpu_ms, contacts, r.max_penetration, merit, r.max_drift);
  }
  for (const RunResult& r : runs) {
    if (!r.failure.empty()) std::printf("  %s %s stopped after %d steps: %s\n", r.engine.c_str(), config(r).c_str(),
                                        r.steps, r.failure.c_str());
    if (!r.merit_note.empty()) std::printf("  %s %s merit %s\n", r.engine.c_str(), config(r).c_str(), r.merit_note.c_str());
    if (r.engine == "bullet")
      std::printf("  %s: rebuilt contact problem explains Bullet's velocity change to %.1e (largest |du - M^-1 J^T lambda|)\n",
                  config(r).c_str(), r.reconstruction_error);
  }

  std::printf("\nCoulomb / Bullet     ms (median)   ms (mean)   cpu ms (median)       merit\n");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].engine != "coulomb") continue;
    for (std::size_t j = 0; j < runs.size(); ++j) {
      if (runs[j].engine != "bullet") continue;
      const std::string pair = config(runs[i]) + " / " + config(runs[j]);
      std::printf("%-22s %10.2fx %10.2fx %16.2fx %12.2ex\n", pair.c_str(), sums[i].ms / sums[j].ms,
                  sums[i].mean_ms / sums[j].mean_ms, sums[i].cpu_ms / sums[j].cpu_ms, sums[i].merit / sums[j].merit);
    }
  }

  std::printf("\nCoulomb step stages (median ms over the steps; rest = the step minus the five)\n");
  std::printf("%-14s %9s %9s %9s %9s %9s %9s %9s\n", "config", "step", "detect", "assemble", "solve", "integrate",
              "stabilize", "rest");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& r = runs[i];
    if (r.engine != "coulomb") continue;
    std::printf("%-14s %9.3f", config(r).c_str(), sums[i].ms);
    for (const double t : sums[i].stage_ms) std::printf(" %9.3f", t);
    std::printf("\n");
  }

  std::printf("\nSweep cost (per contact visit of a sweep; copy bandwidth %.1f GB/s, measured in this run)\n",
              h.copy_bandwidth_gbs);
  std::printf("%-14s %12s %12s %10s %9s %10s\n", "config", "sweep [ns]", "solve [ns]", "bytes", "GB/s", "of copy bw");
  for (const RunResult& r : runs) {
    const SweepCost c = sweep_cost(r, h.copy_bandwidth_gbs);
    std::printf("%-14s %12.1f %12.1f %10.0f %9.2f %9.1f%%\n", config(r).c_str(), c.sweep_ns, c.solve_ns, c.bytes, c.gbs,
                100.0 * c.fraction);
  }
}

void print_markdown(const ReportHeader& h, const std::vector<RunResult>& runs) {
  std::printf("| scene | engine | config | iters | threads | steps | ms/step | mean ms/step | cpu ms/step | contacts med/max | max pen [m] | "
              "merit (med) | drift [m] | sweep ns/contact | Coulomb/Bullet: ms, merit |\n");
  std::printf("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (const RunResult& r : runs) {
    const Summary s = summarize(r);
    std::string ratios;
    if (r.engine == "coulomb") {
      for (const RunResult& b : runs) {
        if (b.engine != "bullet") continue;
        const Summary bs = summarize(b);
        char buf[96];
        std::snprintf(buf, sizeof buf, "%svs %s: %.2fx (mean %.2fx), %.1e", ratios.empty() ? "" : "; ", config(b).c_str(),
                      s.ms / bs.ms, s.mean_ms / bs.mean_ms, s.merit / bs.merit);
        ratios += buf;
      }
    }
    char merit[32] = "n/a";
    if (!r.merit.empty()) std::snprintf(merit, sizeof merit, "%.1e", s.merit);
    std::printf("| %s | %s | %s | %d | %d | %d%s | %.3f | %.3f | %.3f | %g/%d | %.1e | %s | %.1e | %.1f | %s |\n",
                h.scene.c_str(), r.engine.c_str(), config(r).c_str(), r.iterations, r.threads, r.steps,
                r.failure.empty() ? "" : " (stopped)", s.ms, s.mean_ms, s.cpu_ms, s.contacts, s.contacts_max, r.max_penetration, merit, r.max_drift,
                sweep_cost(r, h.copy_bandwidth_gbs).sweep_ns, ratios.c_str());
  }
}

void print_json_lines(const ReportHeader& h, const std::vector<RunResult>& runs) {
  for (const RunResult& r : runs) {
    const Summary s = summarize(r);
    nlohmann::json j = {{"scene", h.scene},
                        {"engine", r.engine},
                        {"config", config(r)},
                        {"solver", r.solver},
                        {"iterations", r.iterations},
                        {"threads", r.threads},
                        {"repeat", h.repeat},
                        {"steps", r.steps},
                        {"window_from", r.window_from},
                        {"ms_per_step", number_or_null(s.ms)},
                        {"mean_ms_per_step", number_or_null(s.mean_ms)},
                        {"cpu_ms_per_step", number_or_null(s.cpu_ms)},
                        {"contacts", number_or_null(s.contacts)},
                        {"contacts_max", s.contacts_max},
                        {"max_penetration", r.max_penetration},
                        {"merit", number_or_null(s.merit)},
                        {"max_drift", r.max_drift}};
    const SweepCost c = sweep_cost(r, h.copy_bandwidth_gbs);
    j["sweep_ns_per_contact"] = number_or_null(c.sweep_ns);
    j["solve_ns_per_contact_sweep"] = number_or_null(c.solve_ns);
    j["bytes_per_contact_sweep"] = c.bytes;
    j["copy_bandwidth_gbs"] = h.copy_bandwidth_gbs;
    j["sweep_bandwidth_fraction"] = number_or_null(c.fraction);
    if (r.engine == "coulomb") {
      j["solver_iterations"] = number_or_null(s.solver_iterations);
      nlohmann::json stages = nlohmann::json::object();
      for (std::size_t k = 0; k < s.stage_ms.size(); ++k) stages[kStageNames[k]] = number_or_null(s.stage_ms[k]);
      j["stage_ms"] = stages;
      nlohmann::json ratios = nlohmann::json::array();
      for (const RunResult& b : runs) {
        if (b.engine != "bullet") continue;
        const Summary bs = summarize(b);
        ratios.push_back({{"bullet_iterations", b.iterations},
                          {"ms_ratio", number_or_null(s.ms / bs.ms)},
                          {"mean_ms_ratio", number_or_null(s.mean_ms / bs.mean_ms)},
                          {"cpu_ms_ratio", number_or_null(s.cpu_ms / bs.cpu_ms)},
                          {"merit_ratio", number_or_null(s.merit / bs.merit)}});
      }
      j["vs_bullet"] = ratios;
    }
    if (r.engine == "bullet") {
      j["friction_directions"] = r.friction_directions;
      j["reconstruction_error"] = r.reconstruction_error;
    }
    if (!r.merit_note.empty()) j["merit_note"] = r.merit_note;
    if (!r.failure.empty()) j["failure"] = r.failure;
    std::printf("%s\n", j.dump().c_str());
  }
}

}  // namespace bench
