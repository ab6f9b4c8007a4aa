// `coulomb run`, `coulomb validate` and `coulomb info`.
#include <coulomb/build_info.h>
#include <coulomb/checkpoint.h>
#include <coulomb/error.h>
#include <coulomb/output.h>
#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/vtk_output.h>
#include <coulomb/world.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "commands.h"
#include "fclib_dump.h"
#include "run_manifest.h"

namespace coulomb::cli {

namespace {

// "[#########           ] 45%  step 225/500  1.31 ms/step" on one terminal line.
void draw_progress(int step, int total, double ms_per_step) {
  constexpr int kWidth = 30;
  const int filled = total > 0 ? step * kWidth / total : kWidth;
  std::fprintf(stderr, "\r[%.*s%*s] %3d%%  step %d/%d  %.2f ms/step", filled,
               "##############################", kWidth - filled, "", total > 0 ? 100 * step / total : 100,
               step, total, ms_per_step);
  std::fflush(stderr);
}

// the signal that asked the run to stop (SIGINT, SIGTERM), 0 while none did
volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  g_stop_signal = sig;
  std::signal(sig, SIG_DFL);  // a second Ctrl-C stops at once
}

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Removes an earlier unfinished run's partial files and checkpoint (a new run replaces it).
void remove_unfinished(const std::filesystem::path& out, const nlohmann::json& old) {
  if (!old.is_object() || !old.contains("run_id") || !old["run_id"].is_string()) return;
  std::error_code ignored;
  for (const std::string& name : RunOutput::partial_names(old["run_id"].get<std::string>()))
    std::filesystem::remove(out / name, ignored);
  std::filesystem::remove(out / kCheckpointFile, ignored);
}

// Which run wrote the complete result files that are in `out` before this run replaces them.
nlohmann::json earlier_complete_files(const std::filesystem::path& out, const nlohmann::json& old) {
  if (old.is_object()) return old.value("complete_files", nlohmann::json());
  if (std::filesystem::exists(out / "stats.jsonl"))
    return {{"run_id", nullptr}, {"note", "written by a run before run.json existed"}};
  return nullptr;
}

// the arguments as --resume needs them from any working directory: absolute paths
// The health check's findings over a run (coulomb/health.h), summed up on stderr at the end:
// per check, the steps it failed, the first one and the worst value.
struct HealthSummary {
  struct Check {
    int steps = 0, first_step = 0;
    std::string first, worst;
    double worst_value = 0.0;
  };
  std::map<std::string, Check> checks;
  void add(const StepStats& s) {
    std::set<std::string> seen;
    for (const HealthFinding& f : s.health) {
      Check& c = checks[f.check];
      if (seen.insert(f.check).second) ++c.steps;
      if (c.first.empty()) c.first_step = s.step, c.first = f.message;
      // the worst: the largest value, or the smallest volume ratio
      const bool ratio = f.check == "inverted" || f.check == "collapsed";
      if (c.worst.empty() || (ratio ? f.value < c.worst_value : f.value > c.worst_value)) c.worst_value = f.value, c.worst = f.message;
    }
  }
  void print() const {
    if (checks.empty()) return;
    std::cerr << "coulomb: the health check failed (coulomb run --health; stats.jsonl \"health\"):\n";
    for (const auto& [name, c] : checks) {
      std::cerr << "  " << name << ": " << c.steps << " step" << (c.steps == 1 ? "" : "s") << ", first at " << c.first << "\n";
      if (c.worst != c.first) std::cerr << "    worst at " << c.worst << "\n";
    }
  }
};

nlohmann::json resumable_args(const RunArgs& a) {
  nlohmann::json j = args_json(a);
  std::error_code ec;
  for (const char* key : {"scene", "out", "dump_fclib"})
    if (const std::string p = j[key]; !p.empty())
      if (const std::filesystem::path abs = std::filesystem::absolute(p, ec); !ec) j[key] = abs.lexically_normal().string();
  for (auto& p : j["import"]["search_path"])
    if (const std::filesystem::path abs = std::filesystem::absolute(p.get<std::string>(), ec); !ec) p = abs.lexically_normal().string();
  return j;
}

// the overlaps at load that collision.initial_overlap "warn" kept (the World also logs them as
// warnings) or "resolve" pushed apart, the first ten of each; `pairs`: list the pairs too
void print_initial_overlaps(const World& world, bool pairs) {
  constexpr std::size_t kShown = 10;
  const InitialOverlaps& o = world.initial_overlaps();
  if (pairs) {
    for (std::size_t k = 0; k < std::min(o.pairs.size(), kShown); ++k)
      std::printf("  overlap at the start: '%s' and '%s' by %.3g m (tolerance %.3g m)%s\n", o.pairs[k].a.c_str(),
                  o.pairs[k].b.c_str(), o.pairs[k].depth, o.tolerance, o.shifts.empty() ? ", kept" : "");
    if (o.pairs.size() > kShown) std::printf("  and %zu more overlapping pairs\n", o.pairs.size() - kShown);
  }
  for (std::size_t k = 0; k < std::min(o.shifts.size(), kShown); ++k) {
    const InitialOverlaps::Shift& m = o.shifts[k];
    std::printf("  moved apart before step 1: '%s' by [%.4g, %.4g, %.4g] m\n", m.body.c_str(), m.shift.x(), m.shift.y(),
                m.shift.z());
  }
  if (o.shifts.size() > kShown) std::printf("  and %zu more bodies moved\n", o.shifts.size() - kShown);
}

}  // namespace

int run(const RunArgs& given) {
  ignore_file_size_signal();  // a write past RLIMIT_FSIZE fails with EFBIG instead of killing us
  const bool resuming = !given.resume.empty();
  RunArgs a = given;
  std::filesystem::path out;
  nlohmann::json manifest;
  std::optional<RunOutput> output;
  std::unique_ptr<FolderLock> lock;

  // after the manifest exists, every failure is recorded in it; the partial files go away unless
  // a write failed (a full disk) after a checkpoint: then they and the last good checkpoint stay,
  // so that the user frees space and continues with --resume
  const auto record_failure = [&](const std::string& error, bool write_failed) {
    const bool keep = write_failed && manifest.is_object() && manifest.contains("checkpoint") &&
                      !manifest["checkpoint"].is_null();
    if (output && !keep) output->discard();
    if (!manifest.is_object()) return;
    manifest["status"] = "failed";
    manifest["error"] = error;
    manifest["resumable"] = keep;
    if (!keep) {
      std::error_code ignored;
      std::filesystem::remove(out / kCheckpointFile, ignored);
      manifest["checkpoint"] = nullptr;
      manifest["partial_files"] = nlohmann::json::array();
    } else {
      std::cerr << "coulomb: the last checkpoint (step " << manifest["checkpoint"].value("step", 0)
                << ") and the partial outputs are kept: free space, then continue with: coulomb run --resume "
                << out.string() << "\n";
    }
    try {
      write_manifest(out, manifest);
    } catch (const std::exception& e) {
      std::cerr << "coulomb: error: " << e.what() << "\n";
    }
  };

  const int code = guarded([&] {
    try {
      nlohmann::json old;
      if (resuming) {
        out = given.resume;
        if (!std::filesystem::is_directory(out)) throw InputError("--resume", "no such output folder: " + out.string());
        lock = std::make_unique<FolderLock>(out);
        old = read_manifest(out);
        if (old.is_null()) throw InputError("--resume", "no run.json in " + out.string() + ": nothing to resume");
        const std::string status = old.value("status", "");
        if (status == "failed" && !old.value("resumable", false))
          throw InputError("--resume", "the run in " + out.string() + " failed (" + old.value("error", "?") +
                                           ") and cannot be resumed: run it again without --resume");
        if (status != "interrupted" && status != "running" && status != "failed")
          throw InputError("--resume", "the run in " + out.string() + " is " + status + ", not interrupted: nothing to resume");
        if (!old.contains("checkpoint") || old["checkpoint"].is_null())
          throw InputError("--resume", "the run in " + out.string() +
                                           " left no checkpoint (run with --checkpoint-every N to resume after kill -9)");
        a = args_from_json(old["args"]);
        a.quiet = given.quiet;
        a.command_line = given.command_line;
      } else {
        out = a.out.empty() ? std::filesystem::path("out") / std::filesystem::path(a.scene).stem()
                            : std::filesystem::path(a.out);
      }
      // an existing folder is locked before the scene loads: a second run stops at once
      if (!lock && std::filesystem::is_directory(out)) {
        lock = std::make_unique<FolderLock>(out);
        old = read_manifest(out);
      }
      if (a.checkpoint_every > 0 && (a.vtk || !a.dump_fclib.empty()))
        throw InputError("--checkpoint-every", "cannot be combined with --vtk or --dump-fclib (they cannot be resumed)");

      // a model file is imported again on --resume: its hash below guards that it is the same
      SceneDef scene = load_input(a, a.quiet || resuming);
      const std::string scene_hash = fnv1a64_hex(file_bytes(a.scene));
      WorldSettings settings;
      settings.threads = a.threads;
      settings.islands = !a.no_islands;
      settings.broadphase = a.broadphase == "grid" ? BroadphaseType::Grid : BroadphaseType::SweepAndPrune;
      settings.max_speed = a.max_speed;
      settings.health.action = a.health == "off" ? HealthAction::Off : a.health == "warn" ? HealthAction::Warn : HealthAction::Stop;
      // bodies' names in id order: a large scene's ids follow space (World, spatial_body_order),
      // and a checkpoint's State is by id, so a resumed run must number its bodies as it started
      const auto names_hash = [](const auto& names) {
        std::string all;
        for (const std::string& n : names) all += n + '\n';
        return fnv1a64_hex(all);
      };
      std::vector<std::string> listed;
      for (const BodyDef& b : scene.bodies) listed.push_back(b.name);
      const std::string scene_order = names_hash(listed);
      World world(std::move(scene), settings);
      const std::string body_order = names_hash(world.model().name);
      if (!a.quiet) print_initial_overlaps(world, false);

      std::error_code ec;
      std::filesystem::create_directories(out, ec);
      if (ec) throw OutputError("cannot create output folder " + out.string() + ": " + ec.message());
      if (!lock) {
        lock = std::make_unique<FolderLock>(out);  // a second run into `out` stops here
        old = read_manifest(out);
      }
      // what writers killed mid-write left behind (the lock says none is writing now)
      const int stale = remove_stale_temporaries(out);
      if (stale > 0 && !a.quiet) std::fprintf(stderr, "coulomb: removed %d stale temporary file(s) from %s\n", stale, out.c_str());

      double max_pen = 0.0, sum_contacts = 0.0;
      std::string run_id;
      if (resuming) {
        if (old.value("scene_fnv1a64", "") != scene_hash)
          throw InputError("--resume", "the scene file " + a.scene + " changed since the run started (fnv1a64 " +
                                           old.value("scene_fnv1a64", "?") + ", now " + scene_hash + ")");
        // a run written before the field existed numbered its bodies in the scene's order
        if (old.value("body_order_fnv1a64", scene_order) != body_order)
          throw InputError("--resume", "this build numbers the scene's bodies differently from the run's start "
                                       "(a checkpoint written by another version of coulomb?): run it again without --resume");
        const Checkpoint ck = read_checkpoint(out);
        run_id = old.value("run_id", "");
        if (ck.run_id != run_id)
          throw InputError("--resume", "checkpoint.json belongs to run " + ck.run_id + ", run.json to run " + run_id);
        world.set_state(ck.state);
        max_pen = ck.max_penetration;
        sum_contacts = ck.contact_sum;
        manifest = old;
        manifest["status"] = "running";
        manifest.erase("error");
        manifest.erase("resumable");
        manifest["resumed_at"].push_back(ck.state.step);
        manifest["steps_done"] = ck.state.step;
        write_manifest(out, manifest);
        output.emplace(out, run_id, ck.sizes);
      } else {
        run_id = unique_run_id();
        remove_unfinished(out, old);
        manifest = {{"format", "coulomb-run/1"},
                    {"run_id", run_id},
                    {"status", "running"},
                    {"command_line", a.command_line},
                    {"args", resumable_args(a)},
                    {"scene", a.scene},
                    {"model_format", model_format(a.scene)},
                    {"scene_fnv1a64", scene_hash},
                    {"body_order_fnv1a64", body_order},
                    {"steps_done", 0},
                    {"total_steps", world.total_steps()},
                    {"started", utc_now()},
                    {"checkpoint", nullptr},
                    {"partial_files", RunOutput::partial_names(run_id)},
                    {"resumed_at", nlohmann::json::array()},
                    {"complete_files", earlier_complete_files(out, old)}};
        write_manifest(out, manifest);
        output.emplace(out, world, run_id);
      }

      std::optional<VtkOutput> vtk;
      if (a.vtk) vtk.emplace(out / "vtk", world);
      std::optional<FclibDump> dump;
      if (!a.dump_fclib.empty())
        dump.emplace(a.dump_fclib, a.dump_steps.empty() ? StepRange{} : parse_step_range(a.dump_steps), world, a.scene);
      else if (!a.dump_steps.empty())
        throw InputError("--dump-steps", "needs --dump-fclib DIR");

      // the partial files on disk, the State beside them, then the manifest that points at both
      const bool resumable = !a.vtk && a.dump_fclib.empty();
      const auto checkpoint = [&] {
        Checkpoint ck;
        ck.run_id = run_id;
        ck.sizes = output->sync();
        ck.state = world.state();
        ck.max_penetration = max_pen;
        ck.contact_sum = sum_contacts;
        write_checkpoint(out, ck);
        manifest["checkpoint"] = {{"file", kCheckpointFile}, {"step", world.step_count()}};
        manifest["steps_done"] = world.step_count();
        write_manifest(out, manifest);
      };

      g_stop_signal = 0;
      std::signal(SIGINT, on_stop_signal);
      std::signal(SIGTERM, on_stop_signal);
      const bool progress = !a.quiet && isatty(STDERR_FILENO);
      const auto t0 = std::chrono::steady_clock::now();
      const int first_step = world.step_count();
      StepResult result;
      HealthSummary health;
      while (world.step_count() < world.total_steps() && !g_stop_signal) {
        result = world.step();
        health.add(world.last_stats());
        output->write_step(world);
        if (vtk) vtk->write_step(world);
        if (dump && result.ok()) dump->after_step(world);
        max_pen = std::max(max_pen, world.last_stats().max_penetration);
        sum_contacts += world.last_stats().contacts;
        if (!result.ok()) break;
        if (a.checkpoint_every > 0 && world.step_count() % a.checkpoint_every == 0 &&
            world.step_count() < world.total_steps())
          checkpoint();
        if (progress && (world.step_count() % 10 == 0 || world.step_count() == world.total_steps())) {
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          draw_progress(world.step_count(), world.total_steps(), ms / std::max(1, world.step_count() - first_step));
        }
      }
      if (progress) std::fprintf(stderr, "\n");
      if (result.ok()) health.print();  // a stopped run names its finding in its error

      if (g_stop_signal && result.ok() && world.step_count() < world.total_steps()) {
        // interrupted: the partial files and, when the run can be resumed, a checkpoint stay
        const int sig = g_stop_signal;
        if (resumable) checkpoint();
        else output->sync();
        manifest["status"] = "interrupted";
        manifest["signal"] = sig == SIGINT ? "SIGINT" : "SIGTERM";
        manifest["steps_done"] = world.step_count();
        write_manifest(out, manifest);
        std::cerr << "coulomb: interrupted at step " << world.step_count() << " of " << world.total_steps()
                  << "; the partial outputs are in " << out.string() << " (see run.json)"
                  << (resumable ? "; continue with: coulomb run --resume " + out.string() : std::string()) << "\n";
        return 130;
      }

      output->finish(world);
      if (vtk) vtk->finish();
      std::error_code ignored;
      std::filesystem::remove(out / kCheckpointFile, ignored);
      manifest["steps_done"] = world.step_count();
      manifest["checkpoint"] = nullptr;
      manifest["partial_files"] = nlohmann::json::array();
      manifest["status"] = result.ok() ? "complete" : "failed";
      if (!result.ok()) manifest["error"] = result.message;
      manifest["complete_files"] = {{"run_id", run_id},
                                    {"status", manifest["status"]},
                                    {"steps_done", world.step_count()},
                                    {"finished", utc_now()}};
      write_manifest(out, manifest);
      output.reset();

      // the replay of a failed run is written too (it shows how the run went wrong); if the replay
      // cannot be written, the run's own failure keeps its exit code
      const int replay = a.view ? guarded([&] {
        write_replay(ViewArgs{out.string(), "", 1, true});
        return 0;
      })
                                : 0;
      if (result.status == StepResult::Status::Error) {  // a stage threw (World::step caught it)
        std::cerr << "coulomb: error at " << result.message << "\n";
        return 1;
      }
      if (!result.ok()) {
        std::cerr << "coulomb: simulation became invalid at " << result.message << "\n";
        return 3;
      }
      if (replay) return replay;
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!a.quiet)
        std::printf("%s: %d steps (%.3g s simulated) in %.3f s, %.3f ms/step, %.1f contacts/step, max penetration %.3g m -> %s\n",
                    a.scene.c_str(), world.step_count(), world.time(), secs,
                    1e3 * secs / std::max(1, world.step_count() - first_step),
                    sum_contacts / std::max(1, world.step_count()), max_pen, out.string().c_str());
      if (!a.quiet && dump)
        std::printf("wrote %d FCLib local problems to %s\n", dump->written(), dump->dir().string().c_str());
      return 0;
    } catch (const OutputError& e) {
      record_failure(e.what(), true);
      throw;
    } catch (const std::exception& e) {
      record_failure(e.what(), false);
      throw;
    }
  });
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return code;
}

int validate(const RunArgs& a) {
  return guarded([&] {
    SceneDef scene = load_input(a, false);
    const std::string solver = scene.solver;
    const std::size_t shapes = scene.shapes.shapes.size();
    World world(std::move(scene));  // also checks mass properties
    int vertices = 0, tets = 0;
    for (int i = 0; i < world.soft_body_count(); ++i) {
      vertices += world.soft_body(i).vertex_count();
      tets += int(world.soft_body(i).mesh.tets.size());
    }
    std::printf("%s: ok (%d bodies, %d soft bodies with %d vertices and %d tets, %zu shapes, solver %s, %d steps of %g s)\n",
                a.scene.c_str(), world.body_count(), world.soft_body_count(), vertices, tets, shapes, solver.c_str(),
                world.total_steps(), world.dt());
    print_initial_overlaps(world, true);
    return 0;
  });
}

int info(bool json) {
  const BuildInfo b = build_info();
  if (json) {
    nlohmann::json solvers = nlohmann::json::array();
    for (const SolverInfo& s : solver_registry())
      solvers.push_back({{"name", s.name}, {"description", s.description}, {"kind", std::string(to_string(s.kind))},
                         {"rigid", s.rigid}, {"soft", s.soft}, {"joints", s.joints}, {"gpu", s.gpu}, {"keys", s.keys}});
    std::cout << nlohmann::json{{"version", b.version},
                                {"solvers", solvers},
                                {"integrators", b.integrators},
                                {"stabilizations", b.stabilizations},
                                {"shapes", b.shapes},
                                {"mesh_formats", b.mesh_formats},
                                {"cuda", {{"compiled", b.cuda_compiled}, {"devices", b.cuda_devices}, {"device", b.cuda_device_name}}}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::printf("coulomb %s\n\nsolvers (name, problem kind, what it handles):\n", b.version.c_str());
  int width = 0, name_width = 0;  // of the capabilities and name columns
  for (const SolverInfo& s : solver_registry()) {
    width = std::max(width, int(solver_capabilities(s).size()) + 2);
    name_width = std::max(name_width, int(s.name.size()));
  }
  for (const SolverInfo& s : solver_registry()) {
    std::string handles = "[";
    handles += solver_capabilities(s);
    handles += "]";
    std::printf("  %-*s %-8s  %-*s  %s\n", name_width, s.name.c_str(), std::string(to_string(s.kind)).c_str(), width,
                handles.c_str(), s.description.c_str());
  }
  auto list = [](const char* title, const std::vector<std::string>& v) {
    std::printf("%s:", title);
    for (const std::string& s : v) std::printf(" %s", s.c_str());
    std::printf("\n");
  };
  std::printf("\n");
  list("integrators", b.integrators);
  list("stabilization", b.stabilizations);
  list("shapes", b.shapes);
  list("mesh files", b.mesh_formats);
  if (!b.cuda_compiled) std::printf("cuda: not compiled in (CPU only)\n");
  else if (b.cuda_devices == 0) std::printf("cuda: compiled in, no device available\n");
  else std::printf("cuda: compiled in, %d device(s), first: %s\n", b.cuda_devices, b.cuda_device_name.c_str());
  return 0;
}

}  // namespace coulomb::cli
