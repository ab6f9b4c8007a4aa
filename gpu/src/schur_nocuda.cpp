// Build without the CUDA toolkit: Device::Cuda is never available (schur.h).
#include <coulomb/gpu/schur.h>

#include <stdexcept>

namespace coulomb::gpu {

bool cuda_available() { return false; }

LinearResult solve_linear_cuda(const SchurSystem&, const std::vector<double>&, std::vector<double>&,
                               const LinearOptions&) {
  throw std::runtime_error("device cuda: built without CUDA (configure with -DCOULOMB_CUDA=ON on a machine with nvcc)");
}

}  // namespace coulomb::gpu
