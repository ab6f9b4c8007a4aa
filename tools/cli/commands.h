// The subcommands of the `coulomb` executable. Each returns the process exit code of
// SCENE_FORMAT.md: 0 success, 1 other failure, 2 invalid scene or arguments, 3 invalid state.
#pragma once
#include <coulomb/error.h>
#include <coulomb/import.h>
#include <coulomb/scene.h>
#include <coulomb/solver_options.h>

#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace coulomb::cli {

// What `coulomb import`, and `coulomb run` and `validate` of a model file (URDF, MJCF), pass to
// the importer (coulomb/import.h ImportOptions).
struct ImportArgs {
  std::vector<std::string> search_path;  // --search-path DIR (repeatable)
  bool strict = false;                   // --strict: every warning is an error (exit 2)
  bool no_ground = false;                // --no-ground
  bool floating_base = false;            // --floating-base
  std::vector<double> base_position;     // --base-position X Y Z (empty: the importer's default)
};

struct RunArgs {
  std::string scene;
  std::string out;                 // empty: out/<scene file stem>
  std::string solver;              // empty: the scene's
  std::vector<std::string> set;    // POINTER=VALUE
  int steps = 0;                   // 0: the scene's
  double dt = 0.0;                 // 0: the scene's
  int threads = 1;                 // 0: all cores
  bool no_islands = false;         // solve one global contact problem
  std::string broadphase = "grid";  // "grid" | "sap"
  double max_speed = 1e3;
  std::string health = "stop";     // "stop" | "warn" | "off" (coulomb/health.h HealthAction)
  bool quiet = false;
  std::string dump_fclib;          // empty: no dump; else each step's contact problem as FCLib files here
  std::string dump_steps;          // empty: every step; else "A:B", "A:" or "A"
  bool view = false;               // also write OUT/replay.html (coulomb view)
  bool vtk = false;                // also write OUT/vtk/run.pvd and its VTU files
  int checkpoint_every = 0;        // > 0: write OUT/checkpoint.json every N steps
  std::string resume;              // non-empty: continue the interrupted run in this folder
  std::vector<std::string> command_line;  // argv, for run.json
  ImportArgs import;               // when `scene` is a model file (model_format is not "")
};

// `coulomb import MODEL --out SCENE.json` (import/README.md).
struct ImportCommandArgs {
  std::string model;
  std::string out;                 // the scene file to write
  ImportArgs import;
  double dt = 0.0, duration = 0.0;  // 0: the model's or the importer's default
  std::string solver;              // empty: the importer's default
  bool quiet = false;
};

// `coulomb view OUT_DIR` (view_command.cpp, viewer/README.md).
struct ViewArgs {
  std::string dir;                 // a `coulomb run` output folder
  std::string out;                 // empty: DIR/replay.html
  int every = 1;                   // keep every Nth recorded frame
  bool quiet = false;
};
struct ViewResult {
  std::string file;
  int frames = 0, bodies = 0, soft_bodies = 0;
  std::uintmax_t bytes = 0;
};

// `coulomb fclib`: FCLib local problems through the registered solvers (solvers/README.md).
struct FclibArgs {
  std::vector<std::string> files;
  std::vector<std::string> solvers;  // empty: every solver with an assembled form
  double tol = 1e-8;                 // abs_tol and rel_tol
  int max_iterations = 10000;
  bool json = false;                 // one JSON object per line instead of a table
  RStrategy r_strategy = RStrategy::Local;  // PROX r-factor strategy (seed 000 section 4.2)
  std::vector<std::string> options;  // KEY=VALUE: a solver option key for every chosen solver that has it
};

struct StudyArgs {
  std::vector<std::string> scenes;
  std::string out = "out/study";
  std::string part = "all";        // "prox" | "orderings" | "all"
  int steps = 450;                 // seed 000 section 5: the first 450 steps
  int max_iterations = 1000;
  double tol = 1e-3;               // abs and rel tolerance of the PROX runs
  double theta_drop = 1e-3;        // orderings: reach Theta <= theta_drop * Theta after iteration 1
};

// Runs a body of work and maps exceptions to the exit codes of SCENE_FORMAT.md.
template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const ImportError& e) {
    std::cerr << "coulomb: invalid model: " << e.what() << "\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "coulomb: invalid input: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "coulomb: error: " << e.what() << "\n";
    return 1;
  }
}

int run(const RunArgs& args);
// Writes the replay page; throws InputError for a missing or broken output folder.
ViewResult write_replay(const ViewArgs& args);
int view(const ViewArgs& args);
int study(const StudyArgs& args);
int validate(const RunArgs& args);
int import_command(const ImportCommandArgs& args);
ImportOptions import_options(const ImportArgs& args);
// The scene of `coulomb run` and `validate`: a scene file with the overrides, or a model file
// (model_format) imported with args.import and then overridden; prints the import warnings on
// stderr unless `quiet`. Throws InputError or ImportError.
SceneDef load_input(const RunArgs& args, bool quiet);
int info(bool json);
// `coulomb info --plan SCENE` (plan_command.cpp): the sweep plans after `steps` steps and the threshold table.
int info_plan(const RunArgs& args, int steps);
int fclib(const FclibArgs& args);
// `coulomb sweep`: runs `python3 -m coulomb.sweep ARGS` (sweep_command.cpp); returns only on failure.
int sweep(const std::vector<std::string>& args);

}  // namespace coulomb::cli
