// MJCF import (import/README.md).
#include <coulomb/import.h>

namespace coulomb {

ImportResult import_mjcf(const std::filesystem::path& file, const ImportOptions&) {
  throw ImportError(file.string() + ": MJCF import is not in this build yet");
}

}  // namespace coulomb
