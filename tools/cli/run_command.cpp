// `coulomb run`, `coulomb validate` and `coulomb info`.
#include <coulomb/build_info.h>
#include <coulomb/checkpoint.h>
#include <coulomb/error.h>
#include <coulomb/output.h>
#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/timer.h>
#include <coulomb/vtk_output.h>
#include <coulomb/world.h>
#include <unistd.h>

#include <algorithm>
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

// the arguments as --resume needs them from any working directory: absolute paths
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

// One `coulomb run`: its output folder, manifest (run.json) and partial outputs, from the folder's
// lock to the exit code. After the manifest exists, every failure is recorded in it.
class RunSession {
 public:
  explicit RunSession(const RunArgs& given) : given_(given), a_(given), resuming_(!given.resume.empty()) {}
  int execute();
  // a failure: the partial files go away unless a write failed (a full disk) after a checkpoint:
  // then they and the last good checkpoint stay, so that the user frees space and continues with
  // --resume
  void record_failure(const std::string& error, bool write_failed);

 private:
  void open_folder();
  World& make_world();
  void prepare_folder();
  void resume(World& world);
  void start(World& world);
  void checkpoint(const World& world);
  StepResult step_all(World& world);
  int interrupted(World& world);
  int finish(World& world, const StepResult& result);

  const RunArgs& given_;
  RunArgs a_;
  const bool resuming_;
  std::filesystem::path out_;
  nlohmann::json manifest_, old_;
  std::optional<RunOutput> output_;
  std::unique_ptr<FolderLock> lock_;
  std::string scene_hash_, scene_order_, body_order_, run_id_;
  double max_pen_ = 0.0, sum_contacts_ = 0.0;
  std::optional<World> world_;  // after the outputs that refer to it go, before the run's output
  std::optional<VtkOutput> vtk_;
  std::optional<FclibDump> dump_;
  bool resumable_ = false;
  Stopwatch watch_;      // from the first step
  int first_step_ = 0;
};

void RunSession::record_failure(const std::string& error, bool write_failed) {
  const bool keep = write_failed && manifest_.is_object() && manifest_.contains("checkpoint") &&
                    !manifest_["checkpoint"].is_null();
  if (output_ && !keep) output_->discard();
  if (!manifest_.is_object()) return;
  manifest_["status"] = "failed";
  manifest_["error"] = error;
  manifest_["resumable"] = keep;
  if (!keep) {
    std::error_code ignored;
    std::filesystem::remove(out_ / kCheckpointFile, ignored);
    manifest_["checkpoint"] = nullptr;
    manifest_["partial_files"] = nlohmann::json::array();
  } else {
    std::cerr << "coulomb: the last checkpoint (step " << manifest_["checkpoint"].value("step", 0)
              << ") and the partial outputs are kept: free space, then continue with: coulomb run --resume "
              << out_.string() << "\n";
  }
  try {
    write_manifest(out_, manifest_);
  } catch (const std::exception& e) {
    std::cerr << "coulomb: error: " << e.what() << "\n";
  }
}

// The output folder: --resume's, checked and locked, with the run's own arguments; or the one
// named by --out (default out/<scene>), locked if it exists, before the scene loads, so that a
// second run into it stops at once.
void RunSession::open_folder() {
  if (resuming_) {
    out_ = given_.resume;
    if (!std::filesystem::is_directory(out_)) throw InputError("--resume", "no such output folder: " + out_.string());
    lock_ = std::make_unique<FolderLock>(out_);
    old_ = read_manifest(out_);
    if (old_.is_null()) throw InputError("--resume", "no run.json in " + out_.string() + ": nothing to resume");
    const std::string status = old_.value("status", "");
    if (status == "failed" && !old_.value("resumable", false))
      throw InputError("--resume", "the run in " + out_.string() + " failed (" + old_.value("error", "?") +
                                       ") and cannot be resumed: run it again without --resume");
    if (status != "interrupted" && status != "running" && status != "failed")
      throw InputError("--resume", "the run in " + out_.string() + " is " + status + ", not interrupted: nothing to resume");
    if (!old_.contains("checkpoint") || old_["checkpoint"].is_null())
      throw InputError("--resume", "the run in " + out_.string() +
                                       " left no checkpoint (run with --checkpoint-every N to resume after kill -9)");
    a_ = args_from_json(old_["args"]);
    a_.quiet = given_.quiet;
    a_.command_line = given_.command_line;
  } else {
    out_ = a_.out.empty() ? std::filesystem::path("out") / std::filesystem::path(a_.scene).stem()
                          : std::filesystem::path(a_.out);
  }
  if (!lock_ && std::filesystem::is_directory(out_)) {
    lock_ = std::make_unique<FolderLock>(out_);
    old_ = read_manifest(out_);
  }
  if (a_.checkpoint_every > 0 && (a_.vtk || !a_.dump_fclib.empty()))
    throw InputError("--checkpoint-every", "cannot be combined with --vtk or --dump-fclib (they cannot be resumed)");
}

WorldSettings world_settings(const RunArgs& a) {
  WorldSettings settings;
  settings.threads = a.threads;
  settings.islands = !a.no_islands;
  settings.broadphase = a.broadphase == "grid" ? BroadphaseType::Grid : BroadphaseType::SweepAndPrune;
  settings.max_speed = a.max_speed;
  settings.health.action = a.health == "off" ? HealthAction::Off : a.health == "warn" ? HealthAction::Warn : HealthAction::Stop;
  return settings;
}

std::string names_hash(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += n + '\n';
  return fnv1a64_hex(all);
}

// The scene (a model file is imported again on --resume: its hash guards that it is the same)
// and its world. The bodies' names in id order are hashed too: a large scene's ids follow space
// (World, spatial_body_order), and a checkpoint's State is by id, so a resumed run must number
// its bodies as it started.
World& RunSession::make_world() {
  SceneDef scene = load_input(a_, a_.quiet || resuming_);
  scene_hash_ = fnv1a64_hex(file_bytes(a_.scene));
  std::vector<std::string> listed;
  for (const BodyDef& b : scene.bodies) listed.push_back(b.name);
  scene_order_ = names_hash(listed);
  World& world = world_.emplace(std::move(scene), world_settings(a_));
  body_order_ = names_hash(world.model().name);
  if (!a_.quiet) print_initial_overlaps(world, false);
  return world;
}

// The folder exists and is locked; what writers killed mid-write left behind is removed (the
// lock says none is writing now).
void RunSession::prepare_folder() {
  std::error_code ec;
  std::filesystem::create_directories(out_, ec);
  if (ec) throw OutputError("cannot create output folder " + out_.string() + ": " + ec.message());
  if (!lock_) {
    lock_ = std::make_unique<FolderLock>(out_);  // a second run into `out` stops here
    old_ = read_manifest(out_);
  }
  const int stale = remove_stale_temporaries(out_);
  if (stale > 0 && !a_.quiet) std::fprintf(stderr, "coulomb: removed %d stale temporary file(s) from %s\n", stale, out_.c_str());
}

void RunSession::resume(World& world) {
  if (old_.value("scene_fnv1a64", "") != scene_hash_)
    throw InputError("--resume", "the scene file " + a_.scene + " changed since the run started (fnv1a64 " +
                                     old_.value("scene_fnv1a64", "?") + ", now " + scene_hash_ + ")");
  // a run written before the field existed numbered its bodies in the scene's order
  if (old_.value("body_order_fnv1a64", scene_order_) != body_order_)
    throw InputError("--resume", "this build numbers the scene's bodies differently from the run's start "
                                 "(a checkpoint written by another version of coulomb?): run it again without --resume");
  const Checkpoint ck = read_checkpoint(out_);
  run_id_ = old_.value("run_id", "");
  if (ck.run_id != run_id_)
    throw InputError("--resume", "checkpoint.json belongs to run " + ck.run_id + ", run.json to run " + run_id_);
  world.set_state(ck.state);
  max_pen_ = ck.max_penetration;
  sum_contacts_ = ck.contact_sum;
  manifest_ = old_;
  manifest_["status"] = "running";
  manifest_.erase("error");
  manifest_.erase("resumable");
  manifest_["resumed_at"].push_back(ck.state.step);
  manifest_["steps_done"] = ck.state.step;
  write_manifest(out_, manifest_);
  output_.emplace(out_, run_id_, ck.sizes);
}

void RunSession::start(World& world) {
  run_id_ = unique_run_id();
  remove_unfinished(out_, old_);
  manifest_ = {{"format", "coulomb-run/1"},
               {"run_id", run_id_},
               {"status", "running"},
               {"command_line", a_.command_line},
               {"args", resumable_args(a_)},
               {"scene", a_.scene},
               {"model_format", model_format(a_.scene)},
               {"scene_fnv1a64", scene_hash_},
               {"body_order_fnv1a64", body_order_},
               {"steps_done", 0},
               {"total_steps", world.total_steps()},
               {"started", utc_now()},
               {"checkpoint", nullptr},
               {"partial_files", RunOutput::partial_names(run_id_)},
               {"resumed_at", nlohmann::json::array()},
               {"complete_files", earlier_complete_files(out_, old_)}};
  write_manifest(out_, manifest_);
  output_.emplace(out_, world, run_id_);
}

// the partial files on disk, the State beside them, then the manifest that points at both
void RunSession::checkpoint(const World& world) {
  Checkpoint ck;
  ck.run_id = run_id_;
  ck.sizes = output_->sync();
  ck.state = world.state();
  ck.max_penetration = max_pen_;
  ck.contact_sum = sum_contacts_;
  write_checkpoint(out_, ck);
  manifest_["checkpoint"] = {{"file", kCheckpointFile}, {"step", world.step_count()}};
  manifest_["steps_done"] = world.step_count();
  write_manifest(out_, manifest_);
}

// Steps to the end, a failed step or a stop signal, writing every step's outputs.
StepResult RunSession::step_all(World& world) {
  g_stop_signal = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const bool progress = !a_.quiet && isatty(STDERR_FILENO);
  watch_.restart();
  first_step_ = world.step_count();
  StepResult result;
  HealthSummary health;
  while (world.step_count() < world.total_steps() && !g_stop_signal) {
    result = world.step();
    health.add(world.last_stats());
    output_->write_step(world);
    if (vtk_) vtk_->write_step(world);
    if (dump_ && result.ok()) dump_->after_step(world);
    max_pen_ = std::max(max_pen_, world.last_stats().max_penetration);
    sum_contacts_ += world.last_stats().contacts;
    if (!result.ok()) break;
    if (a_.checkpoint_every > 0 && world.step_count() % a_.checkpoint_every == 0 && world.step_count() < world.total_steps())
      checkpoint(world);
    if (progress && (world.step_count() % 10 == 0 || world.step_count() == world.total_steps()))
      draw_progress(world.step_count(), world.total_steps(), watch_.ms() / std::max(1, world.step_count() - first_step_));
  }
  if (progress) std::fprintf(stderr, "\n");
  if (result.ok()) health.print();  // a stopped run names its finding in its error
  return result;
}

// Interrupted: the partial files and, when the run can be resumed, a checkpoint stay.
int RunSession::interrupted(World& world) {
  const int sig = g_stop_signal;
  if (resumable_) checkpoint(world);
  else output_->sync();
  manifest_["status"] = "interrupted";
  manifest_["signal"] = sig == SIGINT ? "SIGINT" : "SIGTERM";
  manifest_["steps_done"] = world.step_count();
  write_manifest(out_, manifest_);
  std::cerr << "coulomb: interrupted at step " << world.step_count() << " of " << world.total_steps()
            << "; the partial outputs are in " << out_.string() << " (see run.json)"
            << (resumable_ ? "; continue with: coulomb run --resume " + out_.string() : std::string()) << "\n";
  return 130;
}

// The complete outputs and manifest, the replay, the summary line; the exit code.
int RunSession::finish(World& world, const StepResult& result) {
  output_->finish(world);
  if (vtk_) vtk_->finish();
  std::error_code ignored;
  std::filesystem::remove(out_ / kCheckpointFile, ignored);
  manifest_["steps_done"] = world.step_count();
  manifest_["checkpoint"] = nullptr;
  manifest_["partial_files"] = nlohmann::json::array();
  manifest_["status"] = result.ok() ? "complete" : "failed";
  if (!result.ok()) manifest_["error"] = result.message;
  manifest_["complete_files"] = {{"run_id", run_id_},
                                 {"status", manifest_["status"]},
                                 {"steps_done", world.step_count()},
                                 {"finished", utc_now()}};
  write_manifest(out_, manifest_);
  output_.reset();

  // the replay of a failed run is written too (it shows how the run went wrong); if the replay
  // cannot be written, the run's own failure keeps its exit code
  const int replay = a_.view ? guarded([&] {
    write_replay(ViewArgs{out_.string(), "", 1, true});
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
  const double secs = watch_.seconds();
  if (!a_.quiet)
    std::printf("%s: %d steps (%.3g s simulated) in %.3f s, %.3f ms/step, %.1f contacts/step, max penetration %.3g m -> %s\n",
                a_.scene.c_str(), world.step_count(), world.time(), secs,
                1e3 * secs / std::max(1, world.step_count() - first_step_),
                sum_contacts_ / std::max(1, world.step_count()), max_pen_, out_.string().c_str());
  if (!a_.quiet && dump_)
    std::printf("wrote %d FCLib local problems to %s\n", dump_->written(), dump_->dir().string().c_str());
  return 0;
}

int RunSession::execute() {
  open_folder();
  World& world = make_world();
  prepare_folder();
  if (resuming_) resume(world);
  else start(world);
  if (a_.vtk) vtk_.emplace(out_ / "vtk", world);
  if (!a_.dump_fclib.empty())
    dump_.emplace(a_.dump_fclib, a_.dump_steps.empty() ? StepRange{} : parse_step_range(a_.dump_steps), world, a_.scene);
  else if (!a_.dump_steps.empty())
    throw InputError("--dump-steps", "needs --dump-fclib DIR");
  resumable_ = !a_.vtk && a_.dump_fclib.empty();
  const StepResult result = step_all(world);
  if (g_stop_signal && result.ok() && world.step_count() < world.total_steps()) return interrupted(world);
  return finish(world, result);
}

}  // namespace

int run(const RunArgs& given) {
  ignore_file_size_signal();  // a write past RLIMIT_FSIZE fails with EFBIG instead of killing us
  RunSession session(given);
  const int code = guarded([&] {
    try {
      return session.execute();
    } catch (const OutputError& e) {
      session.record_failure(e.what(), true);
      throw;
    } catch (const std::exception& e) {
      session.record_failure(e.what(), false);
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
