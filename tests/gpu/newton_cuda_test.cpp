// newton-pcr's whole solve with its linear systems on CUDA against the CPU kernels (label gpu:
// skipped where no CUDA device is visible).
#include <coulomb/gpu/schur.h>
#include <coulomb/newton_device.h>
#include <coulomb/position_problem.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include "../solvers/position_problems.h"

namespace coulomb::newton_cuda_test {
namespace {

using test::box_on_corners;

SolverOptions options(NcpFunction f, NewtonLinear lin) {
  SolverOptions o;
  o.max_iterations = 100;
  o.rel_tol = 0.0;
  o.newton.ncp = f;
  o.newton.linear = lin;
  o.newton.linear_tol = 1e-10;
  o.newton.linear_iterations = 200;
  o.newton.device = ComputeDevice::Cpu;
  return o;
}

SolverStats solve(PositionProblem& p, const SolverOptions& o) { return find_solver("newton-pcr")->solve_position(p, o); }

// The whole Newton solve with its linear systems on CUDA (where a device is visible) against the
// CPU kernels: the same Newton and linear iteration counts, the same rest state.
TEST(NewtonPcr, CudaRestsTheBoxLikeTheCpu) {
  if (!gpu::cuda_available()) GTEST_SKIP() << "no CUDA device here";
  for (NewtonLinear lin : {NewtonLinear::Pcr, NewtonLinear::Cg}) {
    PositionProblem pc = box_on_corners(0.01), pg = box_on_corners(0.01);
    SolverOptions o = options(NcpFunction::FischerBurmeister, lin);
    o.abs_tol = 1e-8;
    const SolverStats sc = solve(pc, o);
    o.newton.device = ComputeDevice::Cuda;
    const SolverStats sg = solve(pg, o);
    EXPECT_TRUE(sg.converged) << to_string(lin);
    EXPECT_EQ(sc.iterations, sg.iterations) << to_string(lin);
    EXPECT_EQ(sc.linear_iterations, sg.linear_iterations) << to_string(lin);
    EXPECT_NEAR((pc.x[0] - pg.x[0]).norm(), 0.0, 1e-12) << to_string(lin);
    for (std::size_t k = 0; k < pc.contact_impulse.size(); ++k)
      EXPECT_NEAR((pc.contact_impulse[k] - pg.contact_impulse[k]).norm(), 0.0, 1e-12) << to_string(lin);
  }
}

}  // namespace
}  // namespace coulomb::newton_cuda_test
