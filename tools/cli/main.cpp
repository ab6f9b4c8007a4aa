// coulomb: run, validate and describe scenes from the command line.
#include "commands.h"

#include <coulomb/log.h>

#include <CLI/CLI.hpp>
#include <iostream>

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

  auto add_scene_options = [&](CLI::App* cmd) {
    cmd->add_option("scene", args.scene, "scene file (JSON, coulomb-scene/1)")->required();
    cmd->add_option("--solver", args.solver, "override the scene's solver type (keeps its common keys)");
    cmd->add_option("--set", args.set, "override a scene value: JSON_POINTER=VALUE (repeatable)");
    cmd->add_option("--steps", args.steps, "number of steps to run")->check(CLI::Range(1, 1000000000));
    cmd->add_option("--dt", args.dt, "time step in seconds")->check(CLI::PositiveNumber);
  };

  CLI::App* run = app.add_subcommand("run", "simulate a scene and write stats.jsonl, frames.jsonl, final_state.json");
  add_scene_options(run);
  run->add_option("--out", args.out, "output folder (default out/<scene name>)");
  run->add_option("--threads", args.threads, "worker threads (0 = all cores); results do not depend on it")
      ->check(CLI::Range(0, 1024));
  run->add_flag("--no-islands", args.no_islands, "solve one global contact problem instead of one per island");
  run->add_option("--broadphase", args.broadphase, "grid (uniform grid, default) or sap (sweep and prune); same pairs")
      ->check(CLI::IsMember({"sap", "grid"}));
  run->add_option("--max-speed", args.max_speed, "a body faster than this (m/s) stops the run with exit code 3")
      ->check(CLI::PositiveNumber);
  run->add_flag("--quiet,-q", args.quiet, "no progress bar and no summary");
  run->add_option("--dump-fclib", args.dump_fclib,
                  "write each step's contact problem as an FCLib local problem (HDF5) into this folder");
  run->add_option("--dump-steps", args.dump_steps, "with --dump-fclib: only steps A:B (inclusive, from 1), A: or A");
  run->add_flag("--view", args.view, "also write OUT/replay.html, as `coulomb view OUT` does");
  run->add_flag("--vtk", args.vtk, "also write OUT/vtk/run.pvd: VTU files for ParaView every output.every steps");

  coulomb::cli::ViewArgs view_args;
  CLI::App* view = app.add_subcommand("view", "write OUT_DIR/replay.html: a 3D replay with plots of a run, one offline page");
  view->add_option("dir", view_args.dir, "output folder of `coulomb run`")->required();
  view->add_option("--out", view_args.out, "the page to write (default OUT_DIR/replay.html)");
  view->add_option("--every", view_args.every, "keep every Nth recorded frame (a smaller page)")->check(CLI::Range(1, 1000000));
  view->add_flag("--quiet,-q", view_args.quiet, "no summary");

  CLI::App* validate = app.add_subcommand("validate", "check a scene without simulating it");
  add_scene_options(validate);

  coulomb::cli::StudyArgs study_args;
  CLI::App* study = app.add_subcommand("study", "rerun the convergence studies of seeds 000 and 001 (CSV output; tools/study plots)");
  study->add_option("scenes", study_args.scenes, "scene files")->required();
  study->add_option("--out", study_args.out, "output folder");
  study->add_option("--part", study_args.part, "prox, orderings or all")->check(CLI::IsMember({"prox", "orderings", "all"}));
  study->add_option("--steps", study_args.steps, "steps per run")->check(CLI::Range(1, 100000));
  study->add_option("--max-iterations", study_args.max_iterations, "iterations per step")->check(CLI::Range(1, 1000000));
  study->add_option("--tol", study_args.tol, "PROX absolute and relative tolerance")->check(CLI::NonNegativeNumber);
  study->add_option("--theta-drop", study_args.theta_drop, "orderings: reach Theta <= drop * Theta of the first iteration")
      ->check(CLI::PositiveNumber);

  bool json = false;
  CLI::App* info = app.add_subcommand("info", "list solvers, integrators, shapes and build features");
  info->add_flag("--json", json, "print one JSON object");

  coulomb::cli::FclibArgs fclib_args;
  CLI::App* fclib = app.add_subcommand("fclib", "solve FCLib local problems (HDF5) and compare merits with libfclib's");
  fclib->add_option("files", fclib_args.files, "FCLib local problem files")->required();
  fclib->add_option("--solver", fclib_args.solvers, "solver to run (repeatable; default: all with an assembled form)")
      ->allow_extra_args(false);
  fclib->add_option("--tol", fclib_args.tol, "abs_tol and rel_tol of the solvers (default 1e-8)")
      ->check(CLI::NonNegativeNumber);
  fclib->add_option("--max-iterations", fclib_args.max_iterations, "iteration limit (default 10000)")
      ->check(CLI::Range(1, 100000000));
  std::string r_strategy(coulomb::to_string(fclib_args.r_strategy));
  const auto& r_strategies = coulomb::EnumNames<coulomb::RStrategy>::names;
  fclib->add_option("--r-strategy", r_strategy, "PROX r-factor strategy: global (r = 1/max A_ii), local, blocked")
      ->check(CLI::IsMember(std::vector<std::string>(r_strategies.begin(), r_strategies.end())));
  fclib->add_option("--option", fclib_args.options,
                    "KEY=VALUE: a solver option (scene key, VALUE as JSON or a plain string) for every chosen "
                    "solver that accepts KEY (repeatable), e.g. linear_solver=pcr")
      ->allow_extra_args(false);
  fclib->add_flag("--json", fclib_args.json, "one JSON object per line instead of a table");

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
  if (run->parsed()) return coulomb::cli::run(args);
  if (validate->parsed()) return coulomb::cli::validate(args);
  if (view->parsed()) return coulomb::cli::view(view_args);
  if (study->parsed()) return coulomb::cli::study(study_args);
  if (fclib->parsed()) {
    fclib_args.r_strategy = *coulomb::enum_from_string<coulomb::RStrategy>(r_strategy);
    return coulomb::cli::fclib(fclib_args);
  }
  return coulomb::cli::info(json);
}
