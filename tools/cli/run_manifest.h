// DIR/run.json, the manifest of a `coulomb run` output folder, so that its outputs cannot lie.
//
// It says which run the folder's files belong to and how that run ended, and is replaced
// atomically (write_file_atomically) at the start, at every checkpoint and at the end:
//   {"format": "coulomb-run/1", "run_id", "status": "running" | "complete" | "interrupted" |
//    "failed", "command_line": [...], "args": {...}, "scene", "model_format" ("" for a scene file,
//    "urdf" or "mjcf" for a model imported at the start and again on --resume: args.import holds
//    the import options), "scene_fnv1a64" (of the scene or model file), "steps_done",
//    "total_steps", "started", "updated", "checkpoint": {"file", "step"} | null,
//    "partial_files": [...], "error" (failed), "signal" (interrupted), "resumed_at": [steps],
//    "complete_files": {"run_id", "status", "steps_done", "finished"} | null}
// complete_files names the run that wrote the complete stats.jsonl, frames.jsonl,
// geometry.json and final_state.json in the folder: this run once it has finished, else the
// earlier run whose results are still there (null when there are none). A "running" manifest
// whose folder lock is free belongs to a run that was killed (kill -9, power loss).
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "commands.h"

namespace coulomb::cli {

inline constexpr const char* kManifestFile = "run.json";

nlohmann::json args_json(const RunArgs& a);
// The arguments of an earlier run (for --resume); throws InputError naming run.json's pointer.
RunArgs args_from_json(const nlohmann::json& j);

// The folder's run.json, or null when it has none. Throws InputError if it is damaged.
nlohmann::json read_manifest(const std::filesystem::path& dir);
// Sets "updated" and replaces DIR/run.json atomically.
void write_manifest(const std::filesystem::path& dir, nlohmann::json& manifest);

// "2026-11-23T02:04:30Z"
std::string utc_now();

}  // namespace coulomb::cli
