// Build without the CUDA toolkit: no device can be used.
#include <coulomb/gpu/device.h>

namespace coulomb::gpu {

DeviceInfo query_devices() {
  DeviceInfo d;
  d.error = "built without CUDA (configure with -DCOULOMB_CUDA=ON on a machine with nvcc)";
  return d;
}

}  // namespace coulomb::gpu
