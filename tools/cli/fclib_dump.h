// `coulomb run --dump-fclib DIR [--dump-steps A:B]`: each step's contact problem as an FCLib local
// problem (solvers/README.md, "Writing FCLib problems").
#pragma once
#include <coulomb/world.h>

#include <filesystem>
#include <string>

namespace coulomb::cli {

// Steps first..last, counted from 1 (after World::step, step_count()).
struct StepRange {
  int first = 1;
  int last = 0;  // 0: to the end of the run
  bool contains(int step) const { return step >= first && (last == 0 || step <= last); }
};

// "A:B", "A:" (to the end) or "A" (one step), 1 <= A <= B. Throws InputError("--dump-steps", ...).
StepRange parse_step_range(const std::string& text);

class FclibDump {
 public:
  // Checks that the world's solver has a contact problem to write (velocity level, no joints) and
  // that the range meets the run, creates DIR and checks that a file can be written there.
  // Throws InputError naming --dump-fclib or --dump-steps.
  FclibDump(std::filesystem::path dir, const StepRange& steps, const World& world, const std::string& scene_file);
  // After world.step(): writes the step's problem to DIR/<scene>-<step, 6 digits>.hdf5 if the step
  // is in the range and had contacts. Throws std::runtime_error if the file cannot be written.
  void after_step(const World& world);
  int written() const { return written_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  StepRange steps_;
  std::string stem_, scene_file_;
  int written_ = 0;
  bool noted_ = false;  // the note on dropped friction is printed once
};

}  // namespace coulomb::cli
