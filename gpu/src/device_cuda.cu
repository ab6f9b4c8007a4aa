// Build with the CUDA toolkit: ask the runtime which devices exist. A machine without a driver
// or a GPU answers with an error code, which is reported, not fatal.
#include <coulomb/gpu/device.h>

#include <cuda_runtime.h>

namespace coulomb::gpu {

DeviceInfo query_devices() {
  DeviceInfo d;
  d.compiled = true;
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    d.error = cudaGetErrorString(err);
    return d;
  }
  d.device_count = n;
  if (n > 0) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) d.first_device_name = prop.name;
  }
  return d;
}

}  // namespace coulomb::gpu
