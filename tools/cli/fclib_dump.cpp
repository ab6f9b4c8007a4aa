// Writing each step's contact problem as an FCLib local problem (fclib_dump.h).
//
// The problem is the one the solver got, World::last_problem() (DESIGN.md stage 3 -> 4), in its
// assembled form W = J M^-1 J^T (contact_operator.h) with q = b: nothing here reaches bodies.
#include "fclib_dump.h"

#include <coulomb/build_info.h>
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>
#include <coulomb/run_folder.h>
#include <coulomb/solver.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace coulomb::cli {

namespace {

bool parse_step(std::string_view s, int& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 1;
}

}  // namespace

StepRange parse_step_range(const std::string& text) {
  const std::string usage = "expected A:B, A: or A with steps counted from 1 and A <= B, got \"" + text + "\"";
  StepRange r;
  const std::size_t colon = text.find(':');
  const std::string_view all(text);
  if (colon == std::string::npos) {
    if (!parse_step(all, r.first)) throw InputError("--dump-steps", usage);
    r.last = r.first;
    return r;
  }
  if (!parse_step(all.substr(0, colon), r.first)) throw InputError("--dump-steps", usage);
  const std::string_view tail = all.substr(colon + 1);
  if (!tail.empty() && (!parse_step(tail, r.last) || r.last < r.first)) throw InputError("--dump-steps", usage);
  return r;
}

FclibDump::FclibDump(std::filesystem::path dir, const StepRange& steps, const World& world,
                     const std::string& scene_file)
    : dir_(std::move(dir)), steps_(steps), stem_(std::filesystem::path(scene_file).stem().string()),
      scene_file_(scene_file) {
  const SolverInfo* solver = find_solver(world.scene().solver);
  if (!solver || solver->kind != ProblemKind::Velocity) {
    std::string velocity;
    for (const SolverInfo& s : solver_registry())
      if (s.kind == ProblemKind::Velocity && s.rigid) velocity += (velocity.empty() ? "" : ", ") + s.name;
    throw InputError("--dump-fclib", "solver '" + world.scene().solver +
                                         "' does not solve a velocity-level contact problem, which is what an FCLib "
                                         "local problem holds; use one that does (--solver " + velocity + ")");
  }
  if (!world.joints().empty())
    throw InputError("--dump-fclib", "the scene has rigid joints, whose rows an FCLib local problem cannot hold");
  if (steps_.first > world.total_steps())
    throw InputError("--dump-steps", "the range starts at step " + std::to_string(steps_.first) + " but the run has " +
                                         std::to_string(world.total_steps()) + " steps");
  std::error_code ec;
  if (std::filesystem::exists(dir_, ec) && !std::filesystem::is_directory(dir_, ec))
    throw InputError("--dump-fclib", dir_.string() + " exists and is not a directory");
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw InputError("--dump-fclib", "cannot create the directory " + dir_.string() + ": " + ec.message());
  const std::filesystem::path probe = dir_ / ".coulomb-write-check";
  if (!std::ofstream(probe).good())
    throw InputError("--dump-fclib", "cannot write files in " + dir_.string() + " (permissions?)");
  std::filesystem::remove(probe, ec);
}

void FclibDump::after_step(const World& world) {
  const int step = world.step_count();
  const ContactProblem& problem = world.last_problem();
  if (!steps_.contains(step) || problem.num_contacts() == 0) return;
  const AssembledProblem assembled = assembled_problem(problem);
  const std::string dropped = fclib_dropped_friction(assembled);
  if (!dropped.empty() && !noted_) {
    std::cerr << "coulomb: note: --dump-fclib: step " << step << ": " << dropped
              << " (FCLib contacts have 3 rows and an isotropic Coulomb cone)\n";
    noted_ = true;
  }
  char name[32];
  std::snprintf(name, sizeof(name), "-%06d.hdf5", step);
  FclibWriteInfo info;
  info.title = stem_ + " step " + std::to_string(step);
  info.description = "written by coulomb " + build_info().version + " from " + scene_file_ + " (solver " +
                     world.scene().solver + ", dt " + std::to_string(world.dt()) +
                     " s): W = J M^-1 J^T and q = J u_free + bias in (normal, t1, t2) rows per contact, "
                     "the torsion rows dropped" +
                     (dropped.empty() ? std::string() : "; " + dropped);
  info.math_info = "W symmetric positive semi-definite";
  try {
    write_fclib_local(dir_ / (stem_ + name), assembled, info);
  } catch (const std::exception& e) {
    throw OutputError("--dump-fclib: step " + std::to_string(step) + ": " + e.what());
  }
  ++written_;
}

}  // namespace coulomb::cli
