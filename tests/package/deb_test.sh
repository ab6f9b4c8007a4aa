#!/usr/bin/env bash
# The Debian package (tools/package/README.md): `cpack -G DEB` from the build tree, its control
# fields, then the package unpacked into a scratch root with dpkg-deb -x (no dpkg database, no
# root) and used from there: `coulomb info`, `coulomb run`, the Python module and `coulomb sweep --help`.
# usage: deb_test.sh BUILD_DIR VERSION PYTHON (PYTHON empty: the build has no Python module)
set -u
build="$1"; version="$2"; python="$3"
soversion="${version%.*}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
run() {  # run NAME CMD...
  local name="$1"; shift
  if "$@" >"$tmp/out.txt" 2>&1; then ok; else fail "$name: exit $?"; sed 's/^/    /' "$tmp/out.txt" | tail -40; fi
}

run cpack cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg"
deb="$(ls "$tmp"/pkg/coulomb_"$version"*.deb 2>/dev/null | head -1)"
[ -n "$deb" ] && ok || { fail "no coulomb_$version*.deb in $tmp/pkg"; ls -R "$tmp/pkg" | head; echo "deb_test: $passes passed, $fails failed"; exit 1; }
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -I "$deb" >"$tmp/info.txt"
grep -q "^ Package: coulomb$" "$tmp/info.txt" && ok || fail "control: Package"
grep -q "^ Version: $version$" "$tmp/info.txt" && ok || fail "control: Version"
# the shared libraries' packages, from dpkg-shlibdeps, and the Python module's
depends="$(sed -n 's/^ Depends: //p' "$tmp/info.txt")"
echo "Depends: $depends"
for p in libc6 libtbb libspdlog libccd libbullet python3-numpy; do
  echo "$depends" | grep -q "$p" && ok || fail "Depends lacks $p"
done
dpkg-deb -c "$deb" >"$tmp/contents.txt"
for f in ./usr/bin/coulomb "./usr/lib/libcoulomb.so.$version" ./usr/include/coulomb/world.h \
         ./usr/lib/cmake/Coulomb/CoulombConfig.cmake ./usr/lib/pkgconfig/coulomb.pc \
         ./usr/lib/python3/dist-packages/coulomb/__init__.py ./usr/share/coulomb/sweeps/funnel_friction.json; do
  grep -q " $f\( \|$\)" "$tmp/contents.txt" && ok || fail "package lacks $f"
done

root="$tmp/root"
run extract dpkg-deb -x "$deb" "$root"
# from the scratch root, with no environment pointing at it: the CLI finds its library by RUNPATH
run info "$root/usr/bin/coulomb" info
grep -q "^coulomb $version" "$tmp/out.txt" && grep -q "prox-gs" "$tmp/out.txt" && ok || { fail "coulomb info output"; cat "$tmp/out.txt"; }
ldd "$root/usr/bin/coulomb" | grep -qE "libcoulomb.so.$soversion => $root/usr/(bin/\.\./)?lib/" && ok ||
  { fail "coulomb does not load the package's library"; ldd "$root/usr/bin/coulomb"; }
run run-wall "$root/usr/bin/coulomb" run "$root/usr/share/coulomb/scenes/wall.json" --steps 20 --out "$tmp/wall" --quiet
# the Python module of the package (and the package's libcoulomb, which it finds by RUNPATH)
if [ -z "$python" ]; then
  echo "no Python module in this build: its checks are skipped"
  echo "deb_test: $passes passed, $fails failed"
  [ "$fails" -eq 0 ]; exit
fi
run python-import env PYTHONPATH="$root/usr/lib/python3/dist-packages" "$python" -c "
import coulomb
w = coulomb.World('$root/usr/share/coulomb/scenes/wall.json', steps=5)
w.run()
maps = [l.split()[-1] for l in open('/proc/self/maps') if 'libcoulomb' in l]
assert coulomb.__file__.startswith('$root/'), coulomb.__file__
assert maps and all(m.startswith('$root/usr/lib/') for m in maps), maps
print(coulomb.__version__, w.step_count)"
grep -q "^$version 5$" "$tmp/out.txt" && ok || { fail "python output"; cat "$tmp/out.txt"; }
run sweep-help "$root/usr/bin/coulomb" sweep --help
grep -q "SPEC.json" "$tmp/out.txt" && ok || { fail "coulomb sweep --help"; cat "$tmp/out.txt"; }

echo "deb_test: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
