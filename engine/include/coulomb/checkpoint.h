// Checkpoints of a run (`coulomb run --checkpoint-every N`, `--resume DIR`).
//
// A checkpoint is the World's whole State (state.h: everything a step changes) as JSON, with the
// byte lengths the partial output files had at that step, written atomically
// (write_file_atomically) as DIR/checkpoint.json. Doubles are written in nlohmann's shortest
// round-trip form and read back with strtod, so a restored State is bit-identical and the
// resumed run writes the same bytes as an uninterrupted one (the stats' wall-clock timings aside).
// The file carries the FNV-1a 64 checksum of the rest of its contents, so that a changed or
// damaged checkpoint is refused rather than resumed into different results.
#pragma once
#include <coulomb/output.h>
#include <coulomb/state.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace coulomb {

nlohmann::json state_json(const State& s);
// Throws InputError at the pointer of a missing or malformed member.
State state_from_json(const nlohmann::json& j);

struct Checkpoint {
  std::string run_id;     // the run whose partial files it describes
  OutputSizes sizes;      // their lengths at `state.step`
  State state;
  double max_penetration = 0.0, contact_sum = 0.0;  // the CLI's summary, carried on
};

inline constexpr const char* kCheckpointFile = "checkpoint.json";

void write_checkpoint(const std::filesystem::path& dir, const Checkpoint& c);
// Throws InputError (at "--resume") for a missing, damaged, changed or foreign file.
Checkpoint read_checkpoint(const std::filesystem::path& dir);

}  // namespace coulomb
