// The CUDA device backend's entry point. Built with nvcc when COULOMB_CUDA finds it
// (device_cuda.cu); otherwise device_cpu.cpp reports that CUDA is not compiled in, so every
// caller works the same way on machines without a GPU.
#pragma once
#include <string>

namespace coulomb::gpu {

struct DeviceInfo {
  bool compiled = false;          // built with the CUDA toolkit
  int device_count = 0;           // devices the runtime can see now
  std::string first_device_name;  // empty if none
  std::string error;              // the runtime's message when the query failed (no driver, ...)
};

DeviceInfo query_devices();

}  // namespace coulomb::gpu
