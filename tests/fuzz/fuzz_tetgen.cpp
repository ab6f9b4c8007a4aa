// libFuzzer: TetGen .node/.ele files (read_tetgen). Input: the .node text, "\n%%\n", the .ele
// text. Oracle: a mesh whose tets index its points, or an InputError.
#include <coulomb/error.h>
#include <coulomb/tet_meshing.h>

#include <cstdlib>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coulomb;
  const auto parts = fuzz::split_parts({reinterpret_cast<const char*>(data), size}, 2);
  const auto node = fuzz::write_scratch("input.node", parts[0]);
  fuzz::write_scratch("input.ele", parts.size() > 1 ? parts[1] : std::string_view());
  try {
    const TetMesh m = read_tetgen(node);
    for (const auto& t : m.tets)
      for (int i : t)
        if (i < 0 || i >= int(m.rest.size())) std::abort();
  } catch (const InputError&) {
  }
  return 0;
}
