// libFuzzer: FCLib local problems (HDF5, read_fclib_local through libfclib). Oracle: a problem
// with finite data or an InputError. Mutations of an HDF5 file mostly exercise libhdf5 itself;
// the seeds are small valid problems written by write_fclib_local.
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>

#include <hdf5.h>

#include <cstdlib>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coulomb;
  const auto file = fuzz::write_scratch("input.hdf5", {reinterpret_cast<const char*>(data), size});
  try {
    const AssembledProblem p = read_fclib_local(file);
    const int nc = p.num_contacts();
    if (p.row_start.size() != std::size_t(nc) + 1 || p.mu.size() != std::size_t(nc)) std::abort();
    for (int c : p.col)
      if (c < 0 || c >= nc) std::abort();
    for (const Vec4& b : p.b)
      if (!b.allFinite()) std::abort();
  } catch (const InputError&) {
  }
  // every HDF5 file, group, dataset, type and space the reader opened is closed again
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) std::abort();
  return 0;
}
