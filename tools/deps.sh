# Sourced by tools/run and tools/test: installs the Debian packages Coulomb needs, nothing when
# all are present (apt-get; sudo when not root).
COULOMB_PACKAGES=(cmake g++ make ninja-build pkg-config libeigen3-dev libccd-dev libbullet-dev libtet1.5-dev
  libspdlog-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libfclib-dev libtbb-dev libboost-dev
  # meshes (STL, PLY, glTF, COLLADA, OBJ) through Assimp; URDF and MJCF import (import/README.md)
  libassimp-dev liburdfdom-dev libtinyxml2-dev
  # the Python module and `coulomb sweep` (python/README.md), for Debian's /usr/bin/python3
  python3 python3-dev python3-pybind11 python3-numpy python3-pytest python3-distributed python3-matplotlib
  # cpack -G DEB (dpkg-shlibdeps, file) (tools/package/README.md)
  dpkg-dev file)
# What only the tests need (tools/test installs them too): headless Chromium for the replay test,
# VTK's Python reader and PIL (Debian's /usr/bin/python3) for the VTU read-back and the
# screenshots, gnuplot for the study plots.
COULOMB_TEST_PACKAGES=(chromium python3-vtk9 python3-pil gnuplot-nox)
# The sanitizer build of .ci/run and tools/fuzz: Debian's clang with libFuzzer and the
# sanitizer runtimes (libclang-rt-14-dev holds libclang_rt.fuzzer and asan/ubsan).
COULOMB_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

# coulomb_install_deps [EXTRA_PACKAGE...]: COULOMB_PACKAGES and the extras, plus Debian's npm
# (with its nodejs) unless an npm is already on PATH: the build runs `npm ci` for viewer/.
coulomb_install_deps() {
  local missing=()
  for p in "${COULOMB_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "coulomb: installing missing packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# coulomb_generator DIR: the CMake generator option for a build folder: Ninja for a new folder (it
# compiles a target's sources while the libraries it links are still being built, where Make's
# generator waits; CI's budget, .ci/run), nothing for one already configured (it keeps its own).
coulomb_generator() {
  [ -f "$1/CMakeCache.txt" ] || echo "-GNinja"
}

# Configures (once) and builds the Release tree in build/ with all cores.
coulomb_build() {
  local root="$1"
  cmake -S "$root" -B "$root/build" $(coulomb_generator "$root/build") -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build" -j "$(nproc)"
}

# coulomb_configure_sanitized DIR: configures the one sanitizer tree (.ci/run, tools/fuzz): clang,
# so that the same objects serve the unit tests and the fuzzers; ASan + UBSan at -O1 (as the ASan
# documentation advises: the brute-force unit tests run several times faster than at -O0), with
# line tables only, which is what the sanitizers' stack traces print. UBSan keeps its checks of
# arithmetic, casts, shifts, bounds, enums and dynamic types; those of pointers ASan covers at run
# time (null: ASan reports the dereference; object-size: the out-of-bounds access; alignment and
# pointer-overflow) are left out: with them clang took 77 CPU s for solvers/src/prox.cpp and 118 for
# the solvers' first unit-test batch, without them 51 and 84 (CI's budget, .ci/run). A tree
# configured earlier with gcc is started afresh: CMake cannot switch compilers.
coulomb_configure_sanitized() {
  local root build="$1"
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  grep -qs 'CMAKE_CXX_COMPILER:.*clang' "$build/CMakeCache.txt" || rm -rf "$build"
  cmake -S "$root" -B "$build" $(coulomb_generator "$build") -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-gline-tables-only -O1" \
    -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" -DCOULOMB_SANITIZE=address,undefined \
    -DCOULOMB_NO_SANITIZE=alignment,null,pointer-overflow,object-size -DCOULOMB_UNIT_TESTS_ONLY=ON -DCOULOMB_CUDA=OFF -DCOULOMB_FUZZ=ON >/dev/null
}
