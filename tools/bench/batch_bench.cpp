// coulomb-batch-bench SCENE: N copies of a scene in Bullet's dynamics world (bullet_world.h),
// every effort actuator commanded before every step, stepped on T threads the way
// coulomb::WorldBatch steps its worlds (one task arena, a parallel_for over the worlds). The
// Bullet side of tools/bench/batch_control (README.md, "batch_control and coulomb-batch-bench").
//
// The commands come from one formula, shared with batch_control's numpy side, so that both
// engines run the same motions: before step s (0, 1, ...), actuator k of world i gets
//     max_effort_k * 0.5 * sin(0.37 i + 0.05 s + k).
// After each step the joints' coordinates are read back (the observation a controller needs);
// world 0's at the end are printed, to hold against Coulomb's.
#include "bullet_world.h"
#include "sweep_cost.h"

#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/world.h>
#include <coulomb/timer.h>

#include <CLI/CLI.hpp>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace {

double command(const coulomb::ActuatorDef& d, int world, int step, int actuator) {
  return d.max_effort * 0.5 * std::sin(0.37 * world + 0.05 * step + actuator);
}

struct Run {
  double ms_per_world_step = 0.0;
  double cores = 0.0;               // the process's CPU time over the wall time of the timed loop
  std::vector<double> joint_error;  // (nj) the largest gap over the worlds at the end (unit: m)
  std::vector<double> world0;       // (nj) world 0's joint coordinates at the end (rad or m)
  std::string failure;              // empty, or why a world's state is not finite
};

Run run(const coulomb::SceneDef& scene, const coulomb::RigidModel& model, const coulomb::RigidState& start,
        const bench::BulletSettings& settings, int count, int steps, tbb::task_arena& arena) {
  // built one after another: each constructor sets Bullet's global callbacks and thresholds
  std::vector<std::unique_ptr<bench::BulletWorld>> worlds;
  for (int i = 0; i < count; ++i) worlds.push_back(std::make_unique<bench::BulletWorld>(scene, model, start, settings));
  const int na = int(scene.actuators.size()), nj = int(scene.joints.size());
  std::vector<double> observed(std::size_t(count) * std::size_t(nj));
  const double c0 = bench::process_cpu_ns();
  const coulomb::Stopwatch watch;
  arena.execute([&] {
    for (int s = 0; s < steps; ++s)
      tbb::parallel_for(tbb::blocked_range<int>(0, count, 1), [&](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i < r.end(); ++i) {
          bench::BulletWorld& w = *worlds[std::size_t(i)];
          for (int a = 0; a < na; ++a) w.apply_effort(a, command(scene.actuators[std::size_t(a)], i, s, a));
          w.step();
          double* q = observed.data() + std::size_t(i) * std::size_t(nj);
          for (int j = 0; j < nj; ++j) q[j] = w.joint_position(j);
        }
      });
  });
  const double wall_ms = watch.ms();
  const double c1 = bench::process_cpu_ns();
  Run out;
  out.ms_per_world_step = wall_ms / (double(count) * double(steps));
  out.cores = (c1 - c0) * 1e-6 / wall_ms;
  out.joint_error.assign(std::size_t(nj), 0.0);
  out.world0.assign(observed.begin(), observed.begin() + nj);
  coulomb::RigidState end;
  for (int i = 0; i < count && out.failure.empty(); ++i) {
    worlds[std::size_t(i)]->read_state(end);
    for (int k = 0; k < int(end.x.size()); ++k) {
      const auto b = std::size_t(k);
      if (!end.x[b].allFinite() || !end.q[b].coeffs().allFinite() || !end.v[b].allFinite() || !end.w[b].allFinite())
        out.failure = "world " + std::to_string(i) + ": body " + std::to_string(k) + " has a NaN or infinite state";
    }
    for (int j = 0; j < nj; ++j)
      out.joint_error[std::size_t(j)] = std::max(out.joint_error[std::size_t(j)], worlds[std::size_t(i)]->joint_gap(j));
  }
  return out;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coulomb-batch-bench: N copies of a scene in Bullet, commanded every step, on T threads"};
  std::string scene_file;
  int worlds = 64, steps = 100, threads = 1, iterations = 10, repeat = 3, warmup_steps = 20, pool_size = 256;
  std::vector<std::string> set;
  bool json = false;
  app.add_option("scene", scene_file, "scene file (JSON, coulomb-scene/1); its actuators must be effort ones")->required();
  app.add_option("--worlds", worlds, "copies of the scene (default 64)")->check(CLI::Range(1, 1000000));
  app.add_option("--steps", steps, "steps per run (default 100)")->check(CLI::Range(1, 100000000));
  app.add_option("--threads", threads, "threads the worlds are spread over (default 1)")->check(CLI::Range(1, 1024));
  app.add_option("--bullet-iterations", iterations, "Bullet solver iterations (default 10)")->check(CLI::Range(1, 1000000));
  app.add_option("--repeat", repeat, "runs from the start, each on new worlds; the median is reported (default 3)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup-steps", warmup_steps,
                 "steps of an untimed run on worlds of its own before the timed ones (default 20; 0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bullet-pool-size", pool_size,
                 "entries of each world's manifold and collision-algorithm pools (default 256; Bullet's own 4096 "
                 "are about 7 MB a world, touched whole when built; beyond them Bullet allocates from the heap)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--set", set, "override a scene value: JSON_POINTER=VALUE (repeatable)")->allow_extra_args(false);
  app.add_flag("--json", json, "one JSON object on one line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    coulomb::SceneOverrides o;
    o.set = set;
    // Coulomb's World gives the masses, principal inertias and body frames, and its scene lists
    // the bodies in their id order (bullet_world.h)
    const coulomb::World reference(coulomb::load_scene(scene_file, o));
    const coulomb::SceneDef& scene = reference.scene();
    for (const coulomb::ActuatorDef& d : scene.actuators)
      if (!std::isfinite(d.max_effort))
        throw coulomb::InputError(d.pointer, "actuator '" + d.name + "' has no max_effort, which scales its commands");
    bench::BulletSettings settings;
    settings.iterations = iterations;
    settings.timed_solver = false;  // its timers' system calls would be a large part of a small world's step
    settings.pool_size = pool_size;

    tbb::task_arena arena(threads);
    arena.initialize();
    // untimed, so that no timed run is the first to start the arena's threads and to take the
    // allocator's memory
    if (warmup_steps > 0) run(scene, reference.model(), reference.rigid_state(), settings, worlds, warmup_steps, arena);
    std::vector<Run> runs;
    for (int r = 0; r < repeat; ++r)
      runs.push_back(run(scene, reference.model(), reference.rigid_state(), settings, worlds, steps, arena));
    std::vector<double> ms, cores;
    for (const Run& r : runs) {
      ms.push_back(r.ms_per_world_step);
      cores.push_back(r.cores);
    }
    const double median = median_of(ms);
    // every run computes the same motion, so the last one's joints stand for all
    const Run& last = runs.back();
    const double max_error = last.joint_error.empty() ? 0.0 : *std::max_element(last.joint_error.begin(), last.joint_error.end());

    if (json) {
      std::printf("{\"scene\":%s,\"engine\":\"bullet\",\"worlds\":%d,\"steps\":%d,\"threads\":%d,\"iterations\":%d,"
                  "\"repeat\":%d,\"warmup_steps\":%d,\"actuators\":%zu,\"joints\":%zu,\"ms_per_world_step\":%.9g,\"us_per_world_step\":%.6g,"
                  "\"ms_per_world_step_runs\":[",
                  json_string(scene.name).c_str(), worlds, steps, threads, iterations, repeat, warmup_steps, scene.actuators.size(),
                  scene.joints.size(), median, median * 1e3);
      for (std::size_t k = 0; k < ms.size(); ++k) std::printf("%s%.9g", k ? "," : "", ms[k]);
      std::printf("],\"cores_used\":%.3g,\"max_joint_error\":%.6g,\"joint_errors\":{", median_of(cores), max_error);
      for (std::size_t j = 0; j < last.joint_error.size(); ++j)
        std::printf("%s%s:%.6g", j ? "," : "", json_string(scene.joints[j].name).c_str(), last.joint_error[j]);
      std::printf("},\"final_joint_positions\":[");
      for (std::size_t j = 0; j < last.world0.size(); ++j) std::printf("%s%.9g", j ? "," : "", last.world0[j]);
      std::printf("],\"failure\":%s}\n", last.failure.empty() ? "null" : json_string(last.failure).c_str());
    } else {
      std::printf("%s: %d Bullet worlds (%d iterations), %d steps, %d thread%s: %.3f us per world-step (median of %d; "
                  "%.2f cores used), largest joint error %.3g m\n",
                  scene.name.c_str(), worlds, iterations, steps, threads, threads == 1 ? "" : "s", median * 1e3, repeat,
                  median_of(cores), max_error);
      if (!last.failure.empty()) std::printf("failure: %s\n", last.failure.c_str());
    }
    return last.failure.empty() ? 0 : 1;
  } catch (const coulomb::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
