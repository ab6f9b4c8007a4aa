// coulomb: run, validate and describe scenes from the command line, and import robot models.
#include "commands.h"

#include <coulomb/log.h>
#include <coulomb/world.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace {

// Option checks that name what was expected. CLI11's PositiveNumber and NonNegativeNumber let NaN
// through (every comparison with NaN is false) and its Range says "not in range" for "abc".

// the whole of `s` as a double, or false
bool parse_double(const std::string& s, double& x) {
  if (s.empty()) return false;
  char* end = nullptr;
  x = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// a finite number > 0 (or >= 0 with `zero_ok`)
CLI::Validator finite_number(bool zero_ok) {
  const std::string what = zero_ok ? "a finite number >= 0" : "a finite number > 0";
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        double x = 0.0;
        if (!parse_double(s, x) || !std::isfinite(x) || (zero_ok ? x < 0.0 : x <= 0.0))
          return "expected " + what + ", got '" + s + "'";
        return {};
      },
      zero_ok ? "NUMBER>=0" : "NUMBER>0");
}

// an integer in [lo, hi]; "2e8" counts as the integer it writes
CLI::Validator integer_in(long long lo, long long hi) {
  const std::string what = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        long long v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size()) {
          double x = 0.0;
          if (!parse_double(s, x) || !std::isfinite(x) || std::floor(x) != x) return "expected " + what + ", got '" + s + "'";
          if (x < double(lo) || x > double(hi)) return "expected " + what + ", got " + s;
          s = std::to_string((long long)x);  // so that the int conversion that follows reads it
          return {};
        }
        if (v < lo || v > hi) return "expected " + what + ", got " + s;
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// not the empty string (`--solver ""` would silently mean no override)
// a finite number (`--base-position`)
const CLI::Validator finite_any(
    [](std::string& s) -> std::string {
      double x = 0.0;
      return parse_double(s, x) && std::isfinite(x) ? std::string() : "expected a finite number, got '" + s + "'";
    },
    "NUMBER");

const CLI::Validator kNonEmpty(
    [](std::string& s) -> std::string { return s.empty() ? std::string("expected a name, got an empty string") : std::string(); },
    "NAME");

void add_scene_options(CLI::App* cmd, coulomb::cli::RunArgs& args, bool scene_required) {
  CLI::Option* scene = cmd->add_option("scene", args.scene, "scene file (JSON, coulomb-scene/1) or model file (URDF .urdf, MJCF .xml)");
  if (scene_required) scene->required();
  cmd->add_option("--solver", args.solver, "override the scene's solver type (keeps its common keys)")->check(kNonEmpty);
  // one value per --set, so that `--set X scene.json` leaves the scene path alone
  cmd->add_option("--set", args.set, "override a scene value: JSON_POINTER=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--steps", args.steps, "number of steps to run")->check(integer_in(1, 1000000000));
  cmd->add_option("--dt", args.dt, "time step in seconds")->check(finite_number(false));
}

// how a model file (URDF, MJCF) becomes a scene: `import`, and `run` and `validate` of a model
void add_import_options(CLI::App* cmd, coulomb::cli::ImportArgs& into) {
  cmd->add_option("--search-path", into.search_path,
                  "model files: a folder searched for package://NAME/... (as NAME/...) and relative mesh paths "
                  "(repeatable)")
      ->allow_extra_args(false)
      ->type_name("DIR");
  cmd->add_flag("--strict", into.strict, "model files: every import warning is an error (exit 2)");
  cmd->add_flag("--no-ground", into.no_ground, "model files: no ground plane z = 0");
  cmd->add_flag("--floating-base", into.floating_base, "URDF: the root link is a free body, not welded to the world");
  cmd->add_option("--base-position", into.base_position,
                  "model files: the root's position X Y Z (default: on the ground with one, else the origin)")
      ->expected(3)
      ->allow_extra_args(false)
      ->check(finite_any);
}

CLI::App* add_run_command(CLI::App& app, coulomb::cli::RunArgs& args) {
  CLI::App* run = app.add_subcommand("run", "simulate a scene and write stats.jsonl, frames.jsonl, final_state.json");
  add_scene_options(run, args, false);  // not with --resume
  add_import_options(run, args.import);
  run->add_option("--out", args.out, "output folder (default out/<scene name>)");
  run->add_option("--threads", args.threads, "worker threads (0 = all cores); results do not depend on it")
      ->check(integer_in(0, coulomb::WorldSettings::kMaxThreads));
  run->add_flag("--no-islands", args.no_islands, "solve one global contact problem instead of one per island");
  run->add_option("--broadphase", args.broadphase, "grid (uniform grid, default) or sap (sweep and prune); same pairs")
      ->check(CLI::IsMember({"sap", "grid"}));
  run->add_option("--max-speed", args.max_speed,
                  "a body faster than this (m/s), at its centre of mass or at its rim through its spin, stops the run "
                  "with exit code 3")
      ->check(finite_number(false));
  run->add_option("--health", args.health,
                  "after each step, check energy gained without external work, inverted or collapsed elements, torn "
                  "joints and bodies inside fixed solids: stop (default: exit 3 at the first finding), warn (report "
                  "them on stderr and in stats.jsonl, keep going) or off")
      ->check(CLI::IsMember({"stop", "warn", "off"}));
  run->add_flag("--quiet,-q", args.quiet, "no progress bar and no summary");
  run->add_option("--dump-fclib", args.dump_fclib,
                  "write each step's contact problem as an FCLib local problem (HDF5) into this folder");
  run->add_option("--dump-steps", args.dump_steps, "with --dump-fclib: only steps A:B (inclusive, from 1), A: or A");
  run->add_flag("--view", args.view, "also write OUT/replay.html, as `coulomb view OUT` does");
  run->add_flag("--vtk", args.vtk, "also write OUT/vtk/run.pvd: VTU files for ParaView every output.every steps");
  run->add_option("--checkpoint-every", args.checkpoint_every,
                  "write OUT/checkpoint.json (the whole state) every N steps, for --resume after a crash or kill -9")
      ->check(integer_in(1, 1000000000));
  run->add_option("--resume", args.resume,
                  "continue the interrupted run in this output folder (its run.json gives the scene and options)")
      ->type_name("DIR");

  return run;
}

CLI::App* add_view_command(CLI::App& app, coulomb::cli::ViewArgs& view_args) {
  CLI::App* view = app.add_subcommand("view", "write OUT_DIR/replay.html: a 3D replay with plots of a run, one offline page");
  view->add_option("dir", view_args.dir, "output folder of `coulomb run`")->required();
  view->add_option("--out", view_args.out, "the page to write (default OUT_DIR/replay.html)");
  view->add_option("--every", view_args.every, "keep every Nth recorded frame (a smaller page)")->check(integer_in(1, 1000000));
  view->add_flag("--quiet,-q", view_args.quiet, "no summary");

  return view;
}

CLI::App* add_import_command(CLI::App& app, coulomb::cli::ImportCommandArgs& import_args) {
  CLI::App* import = app.add_subcommand("import", "convert a URDF or MJCF model into a scene file (import/README.md)");
  import->add_option("model", import_args.model, "model file: .urdf, or .xml / .mjcf (URDF <robot> or MJCF <mujoco>)")
      ->required();
  import->add_option("--out", import_args.out, "the scene file to write (mesh paths relative to its folder)")->required();
  add_import_options(import, import_args.import);
  import->add_option("--dt", import_args.dt, "time step in seconds (default: the model's, else 0.002)")
      ->check(finite_number(false));
  import->add_option("--duration", import_args.duration, "simulated time in seconds (default: 5)")->check(finite_number(false));
  import->add_option("--solver", import_args.solver, "the scene's solver type (default newton-pcr)")->check(kNonEmpty);
  import->add_flag("--quiet,-q", import_args.quiet, "no summary (warnings are still printed)");

  return import;
}

CLI::App* add_study_command(CLI::App& app, coulomb::cli::StudyArgs& study_args) {
  CLI::App* study = app.add_subcommand("study", "rerun the convergence studies of seeds 000 and 001 (CSV output; tools/study plots)");
  study->add_option("scenes", study_args.scenes, "scene files")->required();
  study->add_option("--out", study_args.out, "output folder");
  study->add_option("--part", study_args.part, "prox, orderings or all")->check(CLI::IsMember({"prox", "orderings", "all"}));
  study->add_option("--steps", study_args.steps, "steps per run")->check(integer_in(1, 100000));
  study->add_option("--max-iterations", study_args.max_iterations, "iterations per step")->check(integer_in(1, 1000000));
  study->add_option("--tol", study_args.tol, "PROX absolute and relative tolerance")->check(finite_number(true));
  study->add_option("--theta-drop", study_args.theta_drop, "orderings: reach Theta <= drop * Theta of the first iteration")
      ->check(finite_number(false));

  return study;
}

CLI::App* add_fclib_command(CLI::App& app, coulomb::cli::FclibArgs& fclib_args, std::string& r_strategy) {
  CLI::App* fclib = app.add_subcommand("fclib", "solve FCLib local problems (HDF5) and compare merits with libfclib's");
  fclib->add_option("files", fclib_args.files, "FCLib local problem files")->required();
  fclib->add_option("--solver", fclib_args.solvers, "solver to run (repeatable; default: all with an assembled form)")
      ->allow_extra_args(false)
      ->check(kNonEmpty);
  fclib->add_option("--tol", fclib_args.tol,
                    "abs_tol and rel_tol of the solvers; converged means FCLib merit <= it (default 1e-8)")
      ->check(finite_number(true));
  fclib->add_option("--max-iterations", fclib_args.max_iterations, "iteration limit (default 10000)")
      ->check(integer_in(1, 100000000));
  r_strategy = coulomb::to_string(fclib_args.r_strategy);
  const auto& r_strategies = coulomb::EnumNames<coulomb::RStrategy>::names;
  fclib->add_option("--r-strategy", r_strategy, "PROX r-factor strategy: global (r = 1/max A_ii), local, blocked")
      ->check(CLI::IsMember(std::vector<std::string>(r_strategies.begin(), r_strategies.end())));
  fclib->add_option("--option", fclib_args.options,
                    "KEY=VALUE: a solver option (scene key, VALUE as JSON or a plain string) for every chosen "
                    "solver that accepts KEY (repeatable), e.g. linear_solver=pcr")
      ->allow_extra_args(false);
  fclib->add_flag("--json", fclib_args.json, "one JSON object per line instead of a table");

  return fclib;
}

// `coulomb run`: --resume takes the interrupted run's own scene and options from its run.json
int run_parsed(CLI::App* run, coulomb::cli::RunArgs& args, int argc, char** argv) {
  args.command_line.assign(argv, argv + argc);
  if (!args.resume.empty()) {
    for (const char* name : {"scene", "--solver", "--set", "--steps", "--dt", "--out", "--no-islands", "--broadphase",
                             "--max-speed", "--health", "--dump-fclib", "--dump-steps", "--view", "--vtk", "--checkpoint-every",
                             "--search-path", "--strict", "--no-ground", "--floating-base", "--base-position"})
      if (run->count(name) > 0) {
        std::cerr << "coulomb: invalid input: --resume: " << name
                  << " cannot be given with --resume (the run continues with the options in DIR/run.json)\n";
        return 2;
      }
  } else if (args.scene.empty()) {
    std::cerr << "coulomb: invalid input: run: a scene file is required (or --resume DIR)\n";
    return 2;
  }
  return coulomb::cli::run(args);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Coulomb: rigid and deformable bodies in frictional contact"};
  app.require_subcommand(1);
  // global: accepted before or after the subcommand (subcommands pass it up to the app)
  app.fallthrough();
  std::string log_level = "warn";
  app.add_option("--log-level", log_level,
                 "library diagnostics on stderr: trace, debug, info, warn (default), error, critical or off")
      ->type_name("LEVEL");
  coulomb::cli::RunArgs args;
  CLI::App* run = add_run_command(app, args);
  coulomb::cli::ViewArgs view_args;
  CLI::App* view = add_view_command(app, view_args);
  CLI::App* validate = app.add_subcommand("validate", "check a scene without simulating it");
  add_scene_options(validate, args, true);
  add_import_options(validate, args.import);
  coulomb::cli::ImportCommandArgs import_args;
  CLI::App* import = add_import_command(app, import_args);
  coulomb::cli::StudyArgs study_args;
  CLI::App* study = add_study_command(app, study_args);
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "list solvers, integrators, shapes and build features");
  info->add_flag("--json", json, "print one JSON object");
  coulomb::cli::RunArgs plan_args;
  int plan_steps = 1;
  info->add_option("--plan", plan_args.scene, "print the sweep plans of SCENE's contact solve (coulomb/sweep_plan.h)");
  info->add_option("--steps", plan_steps, "--plan: steps before the plan is read (default 1)")->check(integer_in(1, 100000));
  info->add_option("--solver", plan_args.solver, "--plan: solver instead of the scene's");
  info->add_option("--threads", plan_args.threads, "--plan: threads (default 1)")->check(integer_in(1, 1024));
  info->add_flag("--no-islands", plan_args.no_islands, "--plan: one global contact problem");
  coulomb::cli::FclibArgs fclib_args;
  std::string r_strategy;
  CLI::App* fclib = add_fclib_command(app, fclib_args, r_strategy);
  // the sweep is Python (python/coulomb/sweep.py): its arguments, --help included, go to it untouched
  CLI::App* sweep = app.add_subcommand("sweep", "run a parameter sweep on Dask: results.csv, results.json, plots "
                                                "(coulomb sweep --help)");
  sweep->prefix_command()->fallthrough(false);
  sweep->set_help_flag();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // invalid arguments
  }
  if (const int code = coulomb::cli::guarded([&] {
        coulomb::set_log_level(log_level);
        return 0;
      }))
    return code;
  if (sweep->parsed()) return coulomb::cli::sweep(sweep->remaining());
  if (run->parsed()) return run_parsed(run, args, argc, argv);
  if (validate->parsed()) return coulomb::cli::validate(args);
  if (import->parsed()) return coulomb::cli::import_command(import_args);
  if (view->parsed()) return coulomb::cli::view(view_args);
  if (study->parsed()) return coulomb::cli::study(study_args);
  if (fclib->parsed()) {
    fclib_args.r_strategy = *coulomb::enum_from_string<coulomb::RStrategy>(r_strategy);
    return coulomb::cli::fclib(fclib_args);
  }
  if (!plan_args.scene.empty()) return coulomb::cli::info_plan(plan_args, plan_steps);
  return coulomb::cli::info(json);
}
