// URDF import (import/README.md).
#include <coulomb/import.h>

namespace coulomb {

ImportResult import_urdf(const std::filesystem::path& file, const ImportOptions&) {
  throw ImportError(file.string() + ": URDF import is not in this build yet");
}

}  // namespace coulomb
