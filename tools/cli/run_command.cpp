// `coulomb run`, `coulomb validate` and `coulomb info`.
#include <coulomb/build_info.h>
#include <coulomb/error.h>
#include <coulomb/output.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/vtk_output.h>
#include <coulomb/world.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "commands.h"
#include "fclib_dump.h"

namespace coulomb::cli {

namespace {

SceneOverrides overrides_of(const RunArgs& a) {
  SceneOverrides o;
  o.set = a.set;
  o.solver = a.solver;
  o.dt = a.dt;
  o.steps = a.steps;
  return o;
}

// "[#########           ] 45%  step 225/500  1.31 ms/step" on one terminal line.
void draw_progress(int step, int total, double ms_per_step) {
  constexpr int kWidth = 30;
  const int filled = total > 0 ? step * kWidth / total : kWidth;
  std::fprintf(stderr, "\r[%.*s%*s] %3d%%  step %d/%d  %.2f ms/step", filled,
               "##############################", kWidth - filled, "", total > 0 ? 100 * step / total : 100,
               step, total, ms_per_step);
  std::fflush(stderr);
}

}  // namespace

int run(const RunArgs& a) {
  return guarded([&] {
    SceneDef scene = load_scene(a.scene, overrides_of(a));
    WorldSettings settings;
    settings.threads = a.threads;
    settings.islands = !a.no_islands;
    settings.broadphase = a.broadphase == "grid" ? BroadphaseType::Grid : BroadphaseType::SweepAndPrune;
    settings.max_speed = a.max_speed;
    World world(std::move(scene), settings);
    const std::filesystem::path out =
        a.out.empty() ? std::filesystem::path("out") / std::filesystem::path(a.scene).stem() : std::filesystem::path(a.out);
    RunOutput output(out, world);
    std::optional<VtkOutput> vtk;
    if (a.vtk) vtk.emplace(out / "vtk", world);
    std::optional<FclibDump> dump;
    if (!a.dump_fclib.empty())
      dump.emplace(a.dump_fclib, a.dump_steps.empty() ? StepRange{} : parse_step_range(a.dump_steps), world, a.scene);
    else if (!a.dump_steps.empty())
      throw InputError("--dump-steps", "needs --dump-fclib DIR");

    const bool progress = !a.quiet && isatty(STDERR_FILENO);
    const auto t0 = std::chrono::steady_clock::now();
    double max_pen = 0.0, sum_contacts = 0.0;
    StepResult result;
    while (world.step_count() < world.total_steps()) {
      result = world.step();
      output.write_step(world);
      if (vtk) vtk->write_step(world);
      if (dump && result.ok()) dump->after_step(world);
      max_pen = std::max(max_pen, world.last_stats().max_penetration);
      sum_contacts += world.last_stats().contacts;
      if (!result.ok()) break;
      if (progress && (world.step_count() % 10 == 0 || world.step_count() == world.total_steps())) {
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        draw_progress(world.step_count(), world.total_steps(), ms / world.step_count());
      }
    }
    output.finish(world);
    if (vtk) vtk->finish();
    if (progress) std::fprintf(stderr, "\n");
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
                  a.scene.c_str(), world.step_count(), world.time(), secs, 1e3 * secs / std::max(1, world.step_count()),
                  sum_contacts / std::max(1, world.step_count()), max_pen, out.string().c_str());
    if (!a.quiet && dump)
      std::printf("wrote %d FCLib local problems to %s\n", dump->written(), dump->dir().string().c_str());
    return 0;
  });
}

int validate(const RunArgs& a) {
  return guarded([&] {
    SceneDef scene = load_scene(a.scene, overrides_of(a));
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
  if (!b.cuda_compiled) std::printf("cuda: not compiled in (CPU only)\n");
  else if (b.cuda_devices == 0) std::printf("cuda: compiled in, no device available\n");
  else std::printf("cuda: compiled in, %d device(s), first: %s\n", b.cuda_devices, b.cuda_device_name.c_str());
  return 0;
}

}  // namespace coulomb::cli
