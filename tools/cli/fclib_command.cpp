// `coulomb fclib`: solve FCLib local problems with the registered solvers and compare our merit
// with libfclib's (solvers/README.md, "FCLib harness").
#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/fclib_io.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"

namespace coulomb::cli {

namespace {

struct Row {
  std::string problem;
  int nc = 0;
  std::string solver;
  SolverStats stats;
  double fclib_merit = 0.0;
};

void print_json(const Row& r) {
  const nlohmann::json j{{"problem", r.problem},          {"nc", r.nc},
                         {"solver", r.solver},            {"iterations", r.stats.iterations},
                         {"time_ms", r.stats.time_ms},    {"merit", r.stats.merit},
                         {"fclib_merit", r.fclib_merit},  {"converged", r.stats.converged},
                         {"residual", r.stats.residual},  {"linear_iterations", r.stats.linear_iterations}};
  std::cout << j.dump() << std::endl;  // one object per line, flushed as each run finishes
}

struct Table {
  int problem_width = 7, solver_width = 6;
  void header() const {
    std::printf("%-*s %6s  %-*s %10s %11s %12s %12s  %s\n", problem_width, "problem", "nc", solver_width, "solver",
                "iterations", "time_ms", "merit", "fclib_merit", "converged");
    std::fflush(stdout);
  }
  void row(const Row& r) const {
    std::printf("%-*s %6d  %-*s %10d %11.3f %12.4e %12.4e  %s\n", problem_width, r.problem.c_str(), r.nc,
                solver_width, r.solver.c_str(), r.stats.iterations, r.stats.time_ms, r.stats.merit, r.fclib_merit,
                r.stats.converged ? "yes" : "no");
    std::fflush(stdout);
  }
};

// The options of each solver: its defaults, the --option keys it accepts (through its own parse
// function, so values are checked as in a scene), then the harness's iteration limit, tolerance,
// zero start and PROX r strategy, unless --option gave them. Throws InputError.
std::vector<SolverOptions> solver_options(const std::vector<const SolverInfo*>& solvers, const FclibArgs& a) {
  nlohmann::json given = nlohmann::json::object();
  for (const std::string& o : a.options) {
    const std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--option", "expected KEY=VALUE (e.g. linear_solver=pcr), got \"" + o + "\"");
    const std::string key = o.substr(0, eq), text = o.substr(eq + 1);
    // JSON with the scene's checks (depth, range, duplicate keys), else a plain string
    nlohmann::json value;
    try {
      value = parse_scene_text(text, "--option " + key);
    } catch (const InputError& e) {
      if (e.message().rfind("invalid JSON", 0) != 0) throw InputError("--option " + key + e.pointer(), e.message());
      value = text;
    }
    bool accepted = false;
    for (const SolverInfo* s : solvers)
      accepted = accepted || std::find(s->keys.begin(), s->keys.end(), key) != s->keys.end();
    if (!accepted || key == "type") throw InputError("--option", "no chosen solver has the option key '" + key + "'");
    given[key] = value;
  }
  std::vector<SolverOptions> out;
  for (const SolverInfo* s : solvers) {
    nlohmann::json j = {{"type", s->name}};
    for (const auto& [key, value] : given.items())
      if (std::find(s->keys.begin(), s->keys.end(), key) != s->keys.end()) j[key] = value;
    SolverOptions opt = s->parse_options(*s, j, "--option");
    if (!j.contains("max_iterations")) opt.max_iterations = a.max_iterations;
    if (!j.contains("abs_tol")) opt.abs_tol = a.tol;
    if (!j.contains("rel_tol")) opt.rel_tol = a.tol;
    opt.merit_tol = a.tol;  // converged means FCLib merit <= --tol, whatever --option abs_tol says
    if (!j.contains("warm_start")) opt.warm_start = false;  // every run starts from lambda = 0
    if (!j.contains("r_factor")) opt.prox = ProxOptions::for_strategy(a.r_strategy);  // the paper's defaults
    out.push_back(opt);
  }
  return out;
}

}  // namespace

int fclib(const FclibArgs& a) {
  // the solvers: the ones asked for, or every one that can solve an assembled problem
  std::vector<const SolverInfo*> solvers;
  if (a.solvers.empty()) {
    for (const SolverInfo& s : solver_registry())
      if (s.solve_assembled) solvers.push_back(&s);
  } else {
    for (const std::string& name : a.solvers) {
      const SolverInfo* s = find_solver(name);
      if (!s) {
        std::cerr << "coulomb: invalid input: --solver: unknown solver '" << name << "' (known: " << solver_names()
                  << ")\n";
        return 2;
      }
      if (!s->solve_assembled) {
        std::cerr << "coulomb: invalid input: --solver: solver '" << name
                  << "' cannot solve assembled (FCLib) problems\n";
        return 2;
      }
      if (std::find(solvers.begin(), solvers.end(), s) == solvers.end()) solvers.push_back(s);
    }
  }
  if (solvers.empty()) {
    std::cerr << "coulomb: error: no registered solver can solve assembled (FCLib) problems\n";
    return 1;
  }

  std::vector<SolverOptions> options;
  if (const int code = guarded([&] {
        options = solver_options(solvers, a);
        return 0;
      }))
    return code;

  Table table;
  for (const std::string& f : a.files)
    table.problem_width = std::max(table.problem_width, int(std::filesystem::path(f).stem().string().size()));
  for (const SolverInfo* s : solvers) table.solver_width = std::max(table.solver_width, int(s->name.size()));
  if (!a.json) table.header();

  bool load_failed = false;
  for (const std::string& f : a.files) {
    const std::filesystem::path file(f);
    AssembledProblem problem;
    try {
      problem = read_fclib_local(file);
    } catch (const InputError& e) {
      std::cerr << "coulomb: invalid input: " << e.what() << "\n";
      load_failed = true;
      continue;
    }
    for (std::size_t i = 0; i < solvers.size(); ++i) {
      const SolverInfo* s = solvers[i];
      Row r;
      r.problem = file.stem().string();
      r.nc = problem.num_contacts();
      r.solver = s->name;
      ContactSolution sol;
      r.stats = s->solve_assembled(problem, options[i], sol);
      try {
        r.fclib_merit = libfclib_merit(file, sol.lambda);
        // the column the user reads: libfclib's merit must meet --tol too (ours agrees to ~1e-15)
        r.stats.converged = r.stats.converged && r.fclib_merit <= a.tol;
      } catch (const std::exception& e) {  // the file changed or vanished since it was read
        std::cerr << "coulomb: error: " << e.what() << "\n";
        load_failed = true;
        break;
      }
      if (a.json) print_json(r);
      else table.row(r);
    }
  }
  return load_failed ? 2 : 0;
}

}  // namespace coulomb::cli
