// `coulomb sweep SPEC.json --out DIR ...`: parameter sweeps on Dask. The sweep is Python
// (python/coulomb/sweep.py: Dask's client, CSV, plots); this command runs it as
// `python3 -m coulomb.sweep ARGS` with the Python module that sits beside this executable:
// build/python in the build tree, PREFIX/lib/python3/dist-packages when installed.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.h"

#ifndef COULOMB_PYTHON_EXECUTABLE  // set by python/CMakeLists.txt when the module is built
#define COULOMB_PYTHON_EXECUTABLE "/usr/bin/python3"
#endif
#ifndef COULOMB_PYTHON_INSTALL_DIR
#define COULOMB_PYTHON_INSTALL_DIR "lib/python3/dist-packages"
#endif

namespace coulomb::cli {

int sweep(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path bin = fs::canonical("/proc/self/exe", ec).parent_path();
  const fs::path candidates[] = {bin / ".." / "python", bin / ".." / COULOMB_PYTHON_INSTALL_DIR};
  fs::path package;
  for (const fs::path& c : candidates)
    if (fs::exists(c / "coulomb" / "sweep.py", ec)) {
      package = fs::weakly_canonical(c, ec);
      break;
    }
  if (package.empty()) {
    std::cerr << "coulomb: error: `coulomb sweep` needs the Python module, which is not beside this executable "
                 "(looked in " << candidates[0].lexically_normal().string() << " and "
              << candidates[1].lexically_normal().string()
              << "); build it with python3-dev and python3-pybind11 installed (python/README.md)\n";
    return 1;
  }
  // Debian's interpreter by default, whose numpy and dask the module was built against;
  // COULOMB_PYTHON names another
  const char* env_python = std::getenv("COULOMB_PYTHON");
  const std::string python = env_python && *env_python ? env_python : COULOMB_PYTHON_EXECUTABLE;
  std::string path = package.string();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) {
    path += ':';
    path += old;
  }
  setenv("PYTHONPATH", path.c_str(), 1);

  std::vector<std::string> argv_s = {python, "-m", "coulomb.sweep"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(python.c_str(), argv.data());
  std::cerr << "coulomb: error: cannot run " << python << " for `coulomb sweep`: " << std::strerror(errno)
            << " (Debian: python3; COULOMB_PYTHON names another interpreter)\n";
  return 1;
}

}  // namespace coulomb::cli
