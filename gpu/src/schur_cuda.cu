// The CUDA launch layer of the Schur-complement kernels (schur_kernels.h): the same
// __host__ __device__ functions as the CPU layer, launched one thread per index. The system's
// arrays are copied to the device once per solve; the Krylov loops (schur_krylov.h) run on the
// host and call one kernel per vector operation. Dot products reduce per thread block into
// partial sums that the host adds in block order (deterministic for a given size).
#include <coulomb/gpu/schur.h>
#include <coulomb/gpu/schur_kernels.h>

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "schur_krylov.h"

namespace coulomb::gpu {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n) check(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc");
    if (n) check(cudaMemset(p_, 0, n * sizeof(T)), "cudaMemset");
  }
  explicit DeviceArray(const std::vector<T>& h) : DeviceArray(h.size()) { upload(h); }
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  ~DeviceArray() { if (p_) cudaFree(p_); }
  void upload(const std::vector<T>& h) {
    if (h.size()) check(cudaMemcpy(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void download(std::vector<T>& h) const {
    h.resize(n_);
    if (n_) check(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
  }
  T* get() { return p_; }
  const T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

constexpr int kThreads = 256;
int grid(int n) { return (n + kThreads - 1) / kThreads; }

__global__ void k_hinv_jt(kernels::SchurView s, const double* x, double* z) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.dofs) kernels::hinv_jt(s, i, x, z);
}
__global__ void k_j_plus_c(kernels::SchurView s, const double* z, const double* x, double* y) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < s.rows) kernels::j_plus_c(s, r, z, x, y);
}
__global__ void k_diagonal(kernels::SchurView s, double* d) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < s.rows) kernels::diagonal(s, r, d);
}
__global__ void k_axpy(int n, double a, const double* x, double* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) kernels::axpy(i, a, x, y);
}
__global__ void k_xpby(int n, const double* x, double b, double* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) kernels::xpby(i, x, b, y);
}
__global__ void k_precondition(int n, const double* d, const double* x, double* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) kernels::precondition(i, d, x, y);
}
__global__ void k_residual(int n, const double* b, const double* y, double* r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) kernels::residual(i, b, y, r);
}
__global__ void k_jacobi(int n, double omega, const double* d, const double* b, const double* y, double* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) kernels::jacobi_update(i, omega, d, b, y, x);
}
__global__ void k_dot(int n, const double* a, const double* b, double* partial) {
  __shared__ double buf[kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? a[i] * b[i] : 0.0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (int(threadIdx.x) < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = buf[0];
}

class CudaBackend {
 public:
  using Vec = DeviceArray<double>;
  explicit CudaBackend(const SchurSystem& s)
      : n_(s.rows),
        entry_start_(s.entry_start), entry_dof_(s.entry_dof), entry_row_(s.entry_row), entry_J_(s.entry_J),
        dof_start_(s.dof_start), dof_entry_(s.dof_entry), Hinv_(s.Hinv), row_block_(s.row_block),
        block_start_(s.block_start), c_start_(s.c_start), C_(s.C), z_(6 * std::size_t(s.dofs)),
        d_(std::size_t(s.rows)), partial_(std::size_t(grid(s.rows))) {
    v_ = {s.rows,         s.dofs,           entry_start_.get(), entry_dof_.get(),  entry_row_.get(),
          entry_J_.get(), dof_start_.get(), dof_entry_.get(),   Hinv_.get(),       row_block_.get(),
          block_start_.get(), c_start_.get(), C_.get()};
    k_diagonal<<<grid(n_), kThreads>>>(v_, d_.get());
    check(cudaGetLastError(), "diagonal");
  }
  Vec vec() const { return Vec(std::size_t(n_)); }
  void product(const Vec& x, Vec& y) {
    if (v_.dofs > 0) k_hinv_jt<<<grid(v_.dofs), kThreads>>>(v_, x.get(), z_.get());
    k_j_plus_c<<<grid(n_), kThreads>>>(v_, z_.get(), x.get(), y.get());
    check(cudaGetLastError(), "product");
  }
  double dot(const Vec& a, const Vec& b) {
    k_dot<<<grid(n_), kThreads>>>(n_, a.get(), b.get(), partial_.get());
    check(cudaGetLastError(), "dot");
    partial_.download(host_);
    double s = 0.0;
    for (double p : host_) s += p;
    return s;
  }
  void axpy(double a, const Vec& x, Vec& y) { k_axpy<<<grid(n_), kThreads>>>(n_, a, x.get(), y.get()); }
  void xpby(const Vec& x, double b, Vec& y) { k_xpby<<<grid(n_), kThreads>>>(n_, x.get(), b, y.get()); }
  void precondition(const Vec& x, Vec& y) { k_precondition<<<grid(n_), kThreads>>>(n_, d_.get(), x.get(), y.get()); }
  void residual(const Vec& b, const Vec& y, Vec& r) { k_residual<<<grid(n_), kThreads>>>(n_, b.get(), y.get(), r.get()); }
  void jacobi_update(double omega, const Vec& b, const Vec& y, Vec& x) {
    k_jacobi<<<grid(n_), kThreads>>>(n_, omega, d_.get(), b.get(), y.get(), x.get());
  }
  void copy(const Vec& src, Vec& dst) {
    check(cudaMemcpy(dst.get(), src.get(), std::size_t(n_) * sizeof(double), cudaMemcpyDeviceToDevice), "copy");
  }

 private:
  int n_;
  DeviceArray<int> entry_start_, entry_dof_, entry_row_;
  DeviceArray<double> entry_J_;
  DeviceArray<int> dof_start_, dof_entry_;
  DeviceArray<double> Hinv_;
  DeviceArray<int> row_block_, block_start_, c_start_;
  DeviceArray<double> C_, z_, d_, partial_;
  std::vector<double> host_;
  kernels::SchurView v_{};
};

}  // namespace

bool cuda_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

LinearResult solve_linear_cuda(const SchurSystem& s, const std::vector<double>& b, std::vector<double>& x,
                               const LinearOptions& o) {
  if (!cuda_available()) throw std::runtime_error("device cuda: no CUDA device is available");
  CudaBackend be(s);
  DeviceArray<double> db(b), dx(x);
  LinearResult res;
  switch (o.method) {
    case LinearSolver::Cg: res = krylov::cg(be, db, dx, o); break;
    case LinearSolver::Jacobi: res = krylov::jacobi(be, db, dx, o); break;
    default: res = krylov::pcr(be, db, dx, o); break;
  }
  dx.download(x);
  check(cudaDeviceSynchronize(), "synchronize");
  return res;
}

}  // namespace coulomb::gpu
