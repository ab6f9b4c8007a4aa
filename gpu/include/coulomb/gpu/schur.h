// The Newton system of seed 003 in its Schur-complement form (eq. 59),
//     A dP = b,   A = J H^-1 J^T + C,
// as flat arrays that a CUDA kernel or a oneTBB loop reads without pointers, and the linear
// solvers that work on it matrix-free (s.8.2): PCR with a Jacobi preconditioner, PCG and Jacobi
// on either device, Gauss-Seidel on the CPU. The products go through J, H^-1 and C one after the
// other (seed 003 s.10: "successive multiplications of individual matrices"); A is never formed.
//
// Layout (every DOF has 6 columns; a particle uses the first 3 and zeros):
//   rows      entry_start[r] .. entry_start[r+1] index entries; entry e has DOF entry_dof[e] and
//             the 1x6 Jacobian block entry_J[6e .. 6e+5]
//   DOFs      dof_start[i] .. dof_start[i+1] index dof_entry, the entries of DOF i in row order
//             (the transpose, so that J^T x sums in a fixed order on every device)
//             entry_row[e] is the row of entry e; Hinv[36 i ..] is H_i^-1 row-major (zero for a
//             DOF that does not move)
//   blocks    block_start[b] .. block_start[b+1] are the rows of block b, row_block[r] its block;
//             its dense compliance C_b (n x n row-major, n its row count) starts at C[c_start[b]]
//
// The solver (solvers/src/newton_pcr.cpp) fills this from the constraint interface each Newton
// iteration; this module sees only numbers (README "Module graph": gpu builds on base alone).
#pragma once
#include <string>
#include <vector>

namespace coulomb::gpu {

struct SchurSystem {
  int rows = 0, dofs = 0;
  std::vector<int> entry_start{0}, entry_dof, entry_row;
  std::vector<double> entry_J;  // 6 per entry
  std::vector<int> dof_start, dof_entry;
  std::vector<double> Hinv;     // 36 per DOF
  std::vector<int> row_block, block_start{0}, c_start;
  std::vector<double> C;

  int entries() const { return int(entry_dof.size()); }
  int blocks() const { return int(block_start.size()) - 1; }
  // Builds dof_start / dof_entry / entry_row from the rows (call after the entries are set).
  void build_transpose();
  // Throws std::invalid_argument naming the first inconsistent array (sizes, indices).
  void validate() const;
};

enum class LinearSolver { Pcr, Cg, Jacobi, GaussSeidel, Direct };
enum class Device { Cpu, Cuda };

struct LinearOptions {
  LinearSolver method = LinearSolver::Pcr;
  int max_iterations = 40;
  double rel_tol = 1e-8;   // stop when ||b - A x||_2 <= rel_tol ||b||_2
  double jacobi_omega = 2.0 / 3.0;
  bool record_history = false;
};

struct LinearResult {
  int iterations = 0;
  double residual = 0.0;         // ||b - A x||_2 at exit
  double rhs_norm = 0.0;         // ||b||_2
  std::vector<double> history;   // ||b - A x||_2 after each iteration (record_history)
};

// y = A x (the matrix-free product), on the CPU kernels.
void schur_product(const SchurSystem& s, const double* x, double* y);
// The diagonal of A (the Jacobi preconditioner).
void schur_diagonal(const SchurSystem& s, double* d);

// Solves A x = b from the given x (Direct: a dense LDLT of the assembled A, a reference for
// tests and small systems; GaussSeidel: CPU only). Device::Cuda requires a CUDA build and a
// device (cuda_available()); it throws std::runtime_error otherwise.
LinearResult solve_linear(Device device, const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x,
                          const LinearOptions& o);

// Whether Device::Cuda can run here: compiled with nvcc and a device visible to the runtime.
bool cuda_available();
// The CUDA implementation (schur_cuda.cu; without CUDA it throws).
LinearResult solve_linear_cuda(const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x,
                               const LinearOptions& o);

}  // namespace coulomb::gpu
