// What this build of Coulomb can do, for `coulomb info` and embedding programs.
#pragma once
#include <string>
#include <vector>

namespace coulomb {

struct BuildInfo {
  std::string version;
  bool cuda_compiled = false;     // the gpu/ module was built with nvcc
  int cuda_devices = 0;           // devices visible at run time (0 without CUDA)
  std::string cuda_device_name;   // first device, if any
  std::vector<std::string> solvers, integrators, shapes, stabilizations;
  std::vector<std::string> mesh_formats;  // file extensions read_mesh documents (mesh_io.h)
};

BuildInfo build_info();

}  // namespace coulomb
