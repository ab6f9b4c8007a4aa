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
using test::newton_options;

SolverStats solve(PositionProblem& p, const SolverOptions& o) {
  return find_solver("newton-pcr")->solve_position(p, o);
}

// The whole Newton solve with its linear systems on CUDA (where a device is visible) against the
// CPU kernels: the same Newton and linear iteration counts, the same rest state.
TEST(NewtonPcr, CudaRestsTheBoxLikeTheCpu) {
  if (!gpu::cuda_available()) GTEST_SKIP() << "no CUDA device here";
  for (NewtonLinear lin : {NewtonLinear::Pcr, NewtonLinear::Cg}) {
    PositionProblem pc = box_on_corners(0.01), pg = box_on_corners(0.01);
    SolverOptions o = newton_options(NcpFunction::FischerBurmeister, lin);
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
