// newton-pcr's choice of back end for one Newton system (solvers/src/newton_pcr.cpp, gpu/schur.h).
#pragma once
#include <coulomb/solver_options.h>

namespace coulomb {

// "auto" sends a Newton system to CUDA only from this many rows on: below it the per-solve upload
// and the kernel launches cost more than the CPU kernels' whole solve (gpu/README.md, measured on
// an H100 against its 16 CPU cores: break-even near 6000 rows, CUDA 2x faster at 60000, 10-20x
// slower on the bundled newton-pcr scenes of 20-100 rows).
constexpr int kNewtonAutoCudaMinRows = 20000;

// Whether newton-pcr solves a system of `rows` rows on CUDA: "cuda" always (solve_linear throws
// without a device), "cpu" never, "auto" when a device is visible and the system is large enough;
// Gauss-Seidel and direct run on the CPU only.
inline bool newton_uses_cuda(const NewtonOptions& n, int rows, bool cuda_visible) {
  if (n.linear == NewtonLinear::GaussSeidel || n.linear == NewtonLinear::Direct) return false;
  if (n.device == ComputeDevice::Auto) return cuda_visible && rows >= kNewtonAutoCudaMinRows;
  return n.device == ComputeDevice::Cuda;
}

}  // namespace coulomb
