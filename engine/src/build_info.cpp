#include <coulomb/build_info.h>
#include <coulomb/gpu/device.h>
#include <coulomb/mesh_io.h>
#include <coulomb/shapes.h>
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
  // every shape type, from the enum itself, so that a new type cannot be left out (issue 11: mesh was)
  for (int t = 0; t < kShapeTypeCount; ++t) b.shapes.push_back(shape_type_name(ShapeType(t)));
  b.stabilizations = {"none", "baumgarte", "post"};
  b.mesh_formats = mesh_formats();
  return b;
}

}  // namespace coulomb
