// libFuzzer: the scene loader. Input: scene JSON, then optionally "\n%%\n" and one --set
// assignment (POINTER=VALUE) per line. Oracle: parse_scene returns a SceneDef or throws
// InputError; anything else (a crash, a sanitizer report, another exception) is a finding.
#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>

#include <string>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coulomb;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto parts = fuzz::split_parts(input, 2);
  try {
    nlohmann::json doc = parse_scene_text(std::string(parts[0]), "fuzz input");
    SceneOverrides o;
    if (parts.size() > 1) {
      std::string_view sets = parts[1];
      while (!sets.empty() && o.set.size() < 8) {
        const std::size_t nl = sets.find('\n');
        o.set.emplace_back(sets.substr(0, nl));
        sets = nl == std::string_view::npos ? std::string_view() : sets.substr(nl + 1);
      }
    }
    apply_overrides(doc, o);
    // relative mesh paths resolve in an empty folder: only what the input itself holds is read
    parse_scene(doc, fuzz::scratch_dir() / "no-such-folder");
  } catch (const InputError&) {
  }
  return 0;
}
