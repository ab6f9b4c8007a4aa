# Sourced by tools/run and tools/test: installs the Debian packages Coulomb needs, nothing when
# all are present (apt-get; sudo when not root).
COULOMB_PACKAGES=(cmake g++ make pkg-config libeigen3-dev libccd-dev libbullet-dev libtet1.5-dev
  libspdlog-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libfclib-dev libtbb-dev libtinyobjloader-dev libboost-dev
  # the Python module and `coulomb sweep` (python/README.md), for Debian's /usr/bin/python3
  python3 python3-dev python3-pybind11 python3-numpy python3-pytest python3-distributed python3-matplotlib
  # cpack -G DEB (dpkg-shlibdeps, file) (tools/package/README.md)
  dpkg-dev file)
# What only the tests need (tools/test installs them too): headless Chromium for the replay test,
# VTK's Python reader and PIL (Debian's /usr/bin/python3) for the VTU read-back and the
# screenshots, gnuplot for the study plots.
COULOMB_TEST_PACKAGES=(chromium python3-vtk9 python3-pil gnuplot-nox)

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

# Configures (once) and builds the Release tree in build/ with all cores.
coulomb_build() {
  local root="$1"
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build" -j "$(nproc)"
}
