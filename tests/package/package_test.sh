#!/usr/bin/env bash
# The installed C++ package (tools/package/README.md), as a user outside the tree meets it:
# cmake --install into a scratch prefix, the files and the SONAME, headers that include nothing
# but the standard library, Eigen, nlohmann_json and Coulomb's own, a consumer project built with
# find_package(Coulomb CONFIG) whose run matches the installed CLI's byte for byte, the version
# file, and pkg-config.
# usage: package_test.sh BUILD_DIR SOURCE_DIR VERSION
set -u
build="$1"; src="$2"; version="$3"
soversion="${version%.*}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
run() {  # run NAME CMD... (fails with the command's output if it exits non-zero)
  local name="$1"; shift
  if "$@" >"$tmp/out.txt" 2>&1; then ok; else fail "$name: exit $?"; sed 's/^/    /' "$tmp/out.txt" | tail -40; fi
}

prefix="$tmp/prefix"
run install cmake --install "$build" --prefix "$prefix"
lib="$prefix/lib"
for f in "lib/libcoulomb.so.$version" "lib/libcoulomb.so.$soversion" lib/libcoulomb.so include/coulomb/world.h \
         include/coulomb/math.h include/coulomb/gpu/device.h lib/cmake/Coulomb/CoulombConfig.cmake \
         lib/cmake/Coulomb/CoulombConfigVersion.cmake lib/pkgconfig/coulomb.pc bin/coulomb bin/coulomb-meshgen \
         share/coulomb/scenes/wall.json share/coulomb/sweeps/funnel_friction.json; do
  [ -e "$prefix/$f" ] && ok || fail "missing $f"
done
soname="$(readelf -d "$lib/libcoulomb.so.$version" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')"
[ "$soname" = "libcoulomb.so.$soversion" ] && ok || fail "SONAME is '$soname', expected libcoulomb.so.$soversion"

headers="$(cd "$prefix/include" && find coulomb -name '*.h' | sort)"
[ "$(echo "$headers" | wc -l)" -ge 30 ] && ok || fail "only $(echo "$headers" | wc -l) headers installed"
mkdir -p "$tmp/consumer-build"
echo "$headers" | sed 's/.*/#include <&>/' >"$tmp/consumer-build/all_headers.cpp"
# what the preprocessor reads for every installed header, with the package's and Eigen's include
# folders only: the standard library, Eigen, nlohmann_json and coulomb/, never Bullet, libccd,
# spdlog, fmt, TBB, libfclib, HDF5, TetGen or Assimp
# shellcheck disable=SC2046
c++ -std=c++20 -M -I"$prefix/include" $(pkg-config --cflags eigen3) "$tmp/consumer-build/all_headers.cpp" \
  >"$tmp/deps.txt" 2>&1 && ok || { fail "installed headers do not preprocess alone"; cat "$tmp/deps.txt"; }
# (the package's own headers are not third-party ones: coulomb/ccd.h is our CCD, not libccd's ccd.h)
bad="$(tr ' \\' '\n\n' <"$tmp/deps.txt" | grep -v "^$prefix/include/coulomb/" |
  grep -E '/(bullet|ccd|spdlog|fmt|tbb|oneapi|hdf5|hdf5/serial|tetgen|assimp)/|/(fclib|tetgen|ccd)\.h$' | sort -u)"
[ -z "$bad" ] && ok || fail "installed headers pull in: $bad"
grep -q "nlohmann/json" "$tmp/deps.txt" && grep -q "eigen3/Eigen" "$tmp/deps.txt" && ok || fail "no Eigen or nlohmann_json in the headers' dependencies?"

# a consumer project outside the tree: every installed header in one translation unit, and a run
run consumer-configure cmake -S "$src/tests/package/consumer" -B "$tmp/consumer-build" \
  -DCMAKE_PREFIX_PATH="$prefix"
run consumer-build cmake --build "$tmp/consumer-build" -j 2
scene="$prefix/share/coulomb/scenes/sliding_box.json"
run consumer-run "$tmp/consumer-build/consumer" "$scene" "$tmp/consumer_final.json"
grep -q "coulomb $version: 600 steps" "$tmp/out.txt" && ok || { fail "consumer output"; cat "$tmp/out.txt"; }
# the consumer found the installed library, not the build tree's
ldd "$tmp/consumer-build/consumer" | grep -qE "libcoulomb.so.$soversion => $prefix/(bin/\.\./)?lib/" && ok ||
  { fail "consumer does not load $lib/libcoulomb.so.$soversion"; ldd "$tmp/consumer-build/consumer"; }
# the installed CLI runs from the prefix (RUNPATH \$ORIGIN/../lib) and agrees with the consumer
run installed-cli "$prefix/bin/coulomb" run "$scene" --out "$tmp/cli" --quiet
ldd "$prefix/bin/coulomb" | grep -qE "libcoulomb.so.$soversion => $prefix/(bin/\.\./)?lib/" && ok ||
  fail "installed coulomb does not load $lib"
cmp -s "$tmp/cli/final_state.json" "$tmp/consumer_final.json" && ok ||
  fail "consumer's final state differs from the installed CLI's"
# the replay template, when the build made one (viewer/), is installed and found by `coulomb view`
if [ -f "$build/share/coulomb/replay_template.html" ]; then
  run installed-view "$prefix/bin/coulomb" view "$tmp/cli" --quiet
  grep -q 'id="coulomb-meta"' "$tmp/cli/replay.html" && ok || fail "installed coulomb view wrote no replay"
fi

# the version file: 0.1 accepts 0.1.x; another minor version is refused (SameMinorVersion)
mkdir -p "$tmp/v"
cat >"$tmp/v/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(v LANGUAGES NONE)
find_package(Coulomb \${WANT} CONFIG QUIET)
message(STATUS "Coulomb_FOUND=\${Coulomb_FOUND} Coulomb_VERSION=\${Coulomb_VERSION}")
CMAKE
cmake -S "$tmp/v" -B "$tmp/v/b1" -DWANT="$soversion" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/out.txt" 2>&1
grep -q "Coulomb_FOUND=1 Coulomb_VERSION=$version" "$tmp/out.txt" && ok || { fail "find_package($soversion)"; cat "$tmp/out.txt"; }
cmake -S "$tmp/v" -B "$tmp/v/b2" -DWANT="${version%%.*}.$(( ${soversion#*.} + 1 ))" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/out.txt" 2>&1
grep -q "Coulomb_FOUND=0" "$tmp/out.txt" && ok || { fail "a newer minor version was accepted"; cat "$tmp/out.txt"; }

# pkg-config, from the installed .pc (its prefix follows the file)
export PKG_CONFIG_PATH="$lib/pkgconfig"
[ "$(pkg-config --modversion coulomb)" = "$version" ] && ok || fail "pkg-config --modversion"
pkg-config --cflags coulomb | grep -q -- "-I$lib/pkgconfig/../../include" && ok || fail "pkg-config --cflags: $(pkg-config --cflags coulomb)"
cat >"$tmp/pc.cpp" <<'CPP'
#include <coulomb/build_info.h>
#include <cstdio>
int main() { std::printf("%s %zu\n", coulomb::build_info().version.c_str(), coulomb::build_info().solvers.size()); }
CPP
# shellcheck disable=SC2046
run pkg-config-build c++ "$tmp/pc.cpp" -o "$tmp/pc" $(pkg-config --cflags --libs coulomb)
LD_LIBRARY_PATH="$lib" "$tmp/pc" >"$tmp/out.txt" 2>&1 && grep -q "^$version [1-9]" "$tmp/out.txt" && ok ||
  { fail "pkg-config program"; cat "$tmp/out.txt"; }

echo "package_test: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
