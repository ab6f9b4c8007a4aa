#include <coulomb/build_info.h>
#include <coulomb/gpu/device.h>
#include <coulomb/solver.h>

namespace coulomb {

BuildInfo build_info() {
  BuildInfo b;
  b.version = COULOMB_VERSION;
  const gpu::DeviceInfo d = gpu::query_devices();
  b.cuda_compiled = d.compiled;
  b.cuda_devices = d.device_count;
  b.cuda_device_name = d.first_device_name;
  for (const SolverInfo& s : solver_registry()) b.solvers.push_back(s.name);
  b.integrators = {"moreau", "semi-implicit", "implicit-euler"};
  b.shapes = {"sphere", "box", "capsule", "cylinder", "plane", "convex", "compound"};
  b.stabilizations = {"none", "baumgarte", "post"};
  return b;
}

}  // namespace coulomb
