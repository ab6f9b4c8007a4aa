// The run output contract of SCENE_FORMAT.md: stats.jsonl (one object per step),
// frames.jsonl (body poses every `output.every` steps) and final_state.json; and, so that a
// replay (viewer/README.md) needs nothing but the output folder, geometry.json: the shapes, the
// bodies' shapes, materials and masses, the soft bodies' surface triangles, written once, and
// the initial frame (step 0, which frames.jsonl does not hold).
//
// Files are written under names unique to the run (NAME.RUN_ID.part) in DIR, every write checked
// (run_folder.h), and renamed over the old ones by finish() only when all of them were written
// completely, so a reader never sees a half-written run mixed with an older one and a write error
// never replaces a good earlier result.
#pragma once
#include <coulomb/run_folder.h>
#include <coulomb/world.h>

#include <cstdint>
#include <string>
#include <vector>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace coulomb {

nlohmann::json stats_json(const StepStats& s);
nlohmann::json final_state_json(const World& world);
// Body poses, soft vertex positions and, with `output.contacts`, the last step's contacts.
nlohmann::json frame_json(const World& world);
// {"format": "coulomb-geometry/1", "scene", "materials", "shapes", "bodies", "soft_bodies",
//  "joints", "initial"}: shapes in their own frames, indexed as the scene's shape library
// (compound children refer to them by index); bodies in frames.jsonl order; each rigid joint's
// anchor in the shape frames of its two bodies (in the world for b = -1).
nlohmann::json geometry_json(const World& world);

// Byte lengths of the partial stats.jsonl and frames.jsonl at a checkpoint.
struct OutputSizes {
  std::uint64_t stats = 0, frames = 0;
};

class RunOutput {
 public:
  // Creates `dir` if needed and writes the geometry of `world` (before its first step) to
  // DIR/geometry.json.RUN_ID.part, closed at once; stats and frames go to
  // DIR/NAME.RUN_ID.part until finish(). Throws OutputError if anything cannot be written.
  RunOutput(std::filesystem::path dir, const World& world, const std::string& run_id);
  // A resumed run: the partial files of run `run_id` cut to the checkpoint's `sizes`.
  RunOutput(std::filesystem::path dir, const std::string& run_id, const OutputSizes& sizes);

  void write_step(const World& world);
  // Everything written so far on disk (fsync); returns the sizes a checkpoint records.
  OutputSizes sync();
  // Writes final_state.json and renames every partial file over its final name, only after
  // every file was written, flushed and closed without error.
  void finish(const World& world);
  // Removes the partial files (after a failure: the folder keeps the complete files it had).
  void discard();

  // the partial files' names in DIR (geometry, stats, frames)
  static std::vector<std::string> partial_names(const std::string& run_id);

 private:
  std::filesystem::path part(const char* name) const;

  std::filesystem::path dir_;
  std::string run_id_;
  OutputFile stats_, frames_;
};

}  // namespace coulomb
