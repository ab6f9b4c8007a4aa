// The kernels of the Schur-complement products and the Krylov vector updates (schur.h), as
// __host__ __device__ functions of one index over flat arrays: the CPU launch layer calls them
// from a oneTBB parallel_for (schur_cpu.cpp), the CUDA layer from __global__ wrappers
// (schur_cuda.cu). Both run exactly this code, which is what the CPU-vs-CUDA tests compare.
#pragma once

#if defined(__CUDACC__)
#define COULOMB_HD __host__ __device__
#else
#define COULOMB_HD
#endif

namespace coulomb::gpu::kernels {

// The flat arrays of a SchurSystem as raw pointers (what a kernel gets).
struct SchurView {
  int rows, dofs;
  const int* entry_start;
  const int* entry_dof;
  const int* entry_row;
  const double* entry_J;
  const int* dof_start;
  const int* dof_entry;
  const double* Hinv;
  const int* row_block;
  const int* block_start;
  const int* c_start;
  const double* C;
};

// z_i = H_i^-1 (J^T x)_i for DOF i (6 values), summing its entries in row order.
COULOMB_HD inline void hinv_jt(const SchurView& s, int i, const double* x, double* z) {
  double y[6] = {0, 0, 0, 0, 0, 0};
  for (int k = s.dof_start[i]; k < s.dof_start[i + 1]; ++k) {
    const int e = s.dof_entry[k];
    const double xr = x[s.entry_row[e]];
    const double* J = s.entry_J + 6 * e;
    for (int c = 0; c < 6; ++c) y[c] += J[c] * xr;
  }
  const double* H = s.Hinv + 36 * i;
  for (int a = 0; a < 6; ++a) {
    double acc = 0.0;
    for (int c = 0; c < 6; ++c) acc += H[6 * a + c] * y[c];
    z[6 * i + a] = acc;
  }
}

// (A x)_r = J_r z + (C x)_r with z = H^-1 J^T x from hinv_jt.
COULOMB_HD inline double row_product(const SchurView& s, int r, const double* z, const double* x) {
  double acc = 0.0;
  for (int e = s.entry_start[r]; e < s.entry_start[r + 1]; ++e) {
    const double* J = s.entry_J + 6 * e;
    const double* zi = z + 6 * s.entry_dof[e];
    for (int c = 0; c < 6; ++c) acc += J[c] * zi[c];
  }
  const int b = s.row_block[r];
  const int r0 = s.block_start[b], n = s.block_start[b + 1] - r0;
  const double* Cb = s.C + s.c_start[b] + (r - r0) * n;
  for (int k = 0; k < n; ++k) acc += Cb[k] * x[r0 + k];
  return acc;
}
COULOMB_HD inline void j_plus_c(const SchurView& s, int r, const double* z, const double* x, double* y) {
  y[r] = row_product(s, r, z, x);
}

// A_rr = sum over the row's entries J_e H^-1 J_e^T + C_rr (each DOF appears once per row).
COULOMB_HD inline void diagonal(const SchurView& s, int r, double* d) {
  double acc = 0.0;
  for (int e = s.entry_start[r]; e < s.entry_start[r + 1]; ++e) {
    const double* J = s.entry_J + 6 * e;
    const double* H = s.Hinv + 36 * s.entry_dof[e];
    for (int a = 0; a < 6; ++a) {
      double t = 0.0;
      for (int c = 0; c < 6; ++c) t += H[6 * a + c] * J[c];
      acc += J[a] * t;
    }
  }
  const int b = s.row_block[r];
  const int r0 = s.block_start[b], n = s.block_start[b + 1] - r0;
  acc += s.C[s.c_start[b] + (r - r0) * n + (r - r0)];
  d[r] = acc;
}

// Vector updates of the Krylov and relaxation loops (one index each).
COULOMB_HD inline void axpy(int i, double a, const double* x, double* y) { y[i] += a * x[i]; }
// y = x + b y
COULOMB_HD inline void xpby(int i, const double* x, double b, double* y) { y[i] = x[i] + b * y[i]; }
// y = d^-1 x (Jacobi preconditioner; a zero diagonal passes x through)
COULOMB_HD inline void precondition(int i, const double* d, const double* x, double* y) {
  y[i] = d[i] > 0.0 ? x[i] / d[i] : x[i];
}
// r = b - y
COULOMB_HD inline void residual(int i, const double* b, const double* y, double* r) { r[i] = b[i] - y[i]; }
// x += omega d^-1 (b - y)  (one Jacobi sweep)
COULOMB_HD inline void jacobi_update(int i, double omega, const double* d, const double* b, const double* y,
                                     double* x) {
  if (d[i] > 0.0) x[i] += omega * (b[i] - y[i]) / d[i];
}

}  // namespace coulomb::gpu::kernels
