// libFuzzer: OBJ files (read_mesh: our vertex-line check, then Assimp). Oracle: a mesh whose
// vertices are finite and whose triangles index them, or an InputError.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>

#include <cmath>
#include <cstdlib>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coulomb;
  const auto file = fuzz::write_scratch("input.obj", {reinterpret_cast<const char*>(data), size});
  try {
    const TriangleMesh m = read_mesh(file, "/shapes/fuzz/file");
    for (const Vec3& v : m.vertices)
      if (!v.allFinite()) std::abort();
    for (const auto& t : m.triangles)
      for (int i : t)
        if (i < 0 || i >= int(m.vertices.size())) std::abort();
  } catch (const InputError&) {
  }
  return 0;
}
