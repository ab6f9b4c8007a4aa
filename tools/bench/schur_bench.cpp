// coulomb-schur-bench: the Newton system's linear solve (gpu/schur.h, seed 003 eq. 59) on the CPU
// kernels and on CUDA, same system, same options, in one process (tools/bench/README.md).
// The system is a contact-like chain: `bodies` rigid DOFs in a row, each resting on the ground
// (a 3-row block on that DOF alone) and touching the next (a 3-row block on both), so that
// rows ~ 6 x bodies and every row couples through H^-1 as a stack's contacts do.
#include <coulomb/gpu/schur.h>
#include <coulomb/timer.h>
#include <tbb/global_control.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using coulomb::gpu::Device;
using coulomb::gpu::LinearOptions;
using coulomb::gpu::LinearResult;
using coulomb::gpu::LinearSolver;
using coulomb::gpu::SchurSystem;

SchurSystem chain_system(int bodies, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  SchurSystem s;
  s.dofs = bodies;
  s.Hinv.assign(36 * std::size_t(bodies), 0.0);
  for (int i = 0; i < bodies; ++i)  // a diagonally dominant SPD inverse mass block
    for (int a = 0; a < 6; ++a)
      for (int b = a; b < 6; ++b) {
        const double v = a == b ? 2.0 + U(rng) : 0.1 * U(rng);
        s.Hinv[36 * std::size_t(i) + std::size_t(6 * a + b)] = v;
        s.Hinv[36 * std::size_t(i) + std::size_t(6 * b + a)] = v;
      }
  auto add_block = [&](int d0, int d1) {
    const int b = s.blocks();
    s.c_start.push_back(int(s.C.size()));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s.C.push_back(i == j ? 1e-6 : 0.0);  // a small compliance
    for (int r = 0; r < 3; ++r) {
      for (int d : {d0, d1}) {
        if (d < 0) continue;
        s.entry_dof.push_back(d);
        for (int c = 0; c < 6; ++c) s.entry_J.push_back(U(rng));
      }
      s.entry_start.push_back(s.entries());
      s.row_block.push_back(b);
    }
    s.block_start.push_back(int(s.row_block.size()));
  };
  for (int i = 0; i < bodies; ++i) {
    add_block(i, -1);
    if (i + 1 < bodies) add_block(i, i + 1);
  }
  s.rows = int(s.row_block.size());
  s.build_transpose();
  s.validate();
  return s;
}

struct Timed {
  LinearResult result;
  std::vector<double> x;
  double median_ms = 0.0;
};

Timed timed_solve(Device dev, const SchurSystem& s, const std::vector<double>& b, const LinearOptions& o, int reps) {
  Timed t;
  std::vector<double> ms;
  for (int k = 0; k < reps; ++k) {
    std::vector<double> x(b.size(), 0.0);
    const coulomb::Stopwatch watch;
    t.result = coulomb::gpu::solve_linear(dev, s, b, x, o);
    ms.push_back(watch.ms());
    t.x = std::move(x);
  }
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU vs CUDA linear solves of the Newton system (seed 003 eq. 59)"};
  std::vector<int> sizes{100, 1000, 10000, 100000, 1000000};
  int iterations = 40, reps = 5, threads = 0;
  app.add_option("--bodies", sizes, "chain lengths (rows ~ 6 x bodies), repeatable")
      ->check(CLI::Range(1, 20000000));
  app.add_option("--iterations", iterations, "PCR iterations per solve (rel_tol 0: always this many)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--reps", reps, "solves per device and size (the median is printed)")->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "CPU worker threads (0 = all cores)")->check(CLI::Range(0, 4096));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);
  const bool cuda = coulomb::gpu::cuda_available();
  if (!cuda) std::printf("no CUDA device: CPU timings only\n");
  LinearOptions o;
  o.method = LinearSolver::Pcr;
  o.max_iterations = iterations;
  o.rel_tol = 0.0;
  std::printf("| bodies | rows | PCR iterations cpu / cuda | cpu ms/solve | cuda ms/solve | cpu/cuda | max |dx| / max |x| |\n");
  std::printf("| ---: | ---: | :---: | ---: | ---: | ---: | ---: |\n");
  for (int n : sizes) {
    const SchurSystem s = chain_system(n, 7);
    std::vector<double> b(std::size_t(s.rows));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(double(i));
    const Timed c = timed_solve(Device::Cpu, s, b, o, reps);
    if (!cuda) {
      std::printf("| %d | %d | %d / - | %.3f | - | - | - |\n", n, s.rows, c.result.iterations, c.median_ms);
      continue;
    }
    timed_solve(Device::Cuda, s, b, o, 1);  // the first call pays for the context and module load
    const Timed g = timed_solve(Device::Cuda, s, b, o, reps);
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < c.x.size(); ++i) {
      diff = std::max(diff, std::abs(c.x[i] - g.x[i]));
      norm = std::max(norm, std::abs(c.x[i]));
    }
    std::printf("| %d | %d | %d / %d | %.3f | %.3f | %.2f | %.1e |\n", n, s.rows, c.result.iterations,
                g.result.iterations, c.median_ms, g.median_ms, c.median_ms / g.median_ms, norm > 0 ? diff / norm : diff);
    std::fflush(stdout);
  }
  return 0;
}
