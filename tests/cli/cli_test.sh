#!/usr/bin/env bash
# End-to-end checks of the `coulomb` executable as a user runs it: exit codes of
# SCENE_FORMAT.md, the output files, overrides, and byte-identical reruns.
# usage: cli_test.sh COULOMB_EXE SOURCE_DIR
set -u
exe="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() {  # check NAME EXPECTED_CODE CMD...
  local name="$1" want="$2"; shift 2
  "$@" >"$tmp/out.txt" 2>&1; local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, expected $want"; sed 's/^/    /' "$tmp/out.txt"; fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}
contains() {  # contains NAME TEXT (in the last command's output)
  if grep -qF -- "$2" "$tmp/out.txt"; then passes=$((passes + 1))
  else echo "FAIL $1: output lacks '$2'"; sed 's/^/    /' "$tmp/out.txt"; fails=$((fails + 1)); fi
}
lacks() {  # lacks NAME TEXT (in the last command's output)
  if grep -qF -- "$2" "$tmp/out.txt"; then echo "FAIL $1: output has '$2'"; sed 's/^/    /' "$tmp/out.txt"; fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}

check info 0 "$exe" info
contains info-lists-pgs "pgs"
contains info-cuda "cuda:"
check info-json 0 "$exe" info --json
contains info-json-solvers '"solvers"'

check validate-wall 0 "$exe" validate "$src/scenes/wall.json"
contains validate-counts "81 bodies"

cat >"$tmp/bad.json" <<'JSON'
{"format": "coulomb-scene/1", "time": {"dt": 0.01, "steps": 10},
 "shapes": {"s": {"type": "sphere", "radius": 0.1}},
 "bodies": [{"name": "a", "shape": "s", "position": [0, 0]}]}
JSON
check invalid-scene 2 "$exe" run "$tmp/bad.json" --out "$tmp/bad" --quiet
contains invalid-scene-pointer "/bodies/0/position"
check missing-scene 2 "$exe" validate "$tmp/nope.json"
check bad-option 2 "$exe" run "$src/scenes/wall.json" --steps -3
# issue 11 "Options": NaN is never an option value, an empty solver is no solver, --set takes
# one value, a non-number says so, and limits are the real ones
for opt in "--dt nan" "--max-speed nan" "--dt inf" "--steps abc" "--solver ="; do
  set -- $opt
  value="$2"; [ "$value" = "=" ] && value=""
  check "option $opt" 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/opt" --quiet "$1" "$value"
done
check steps-abc 2 "$exe" run "$src/scenes/sliding_box.json" --steps abc
contains steps-abc-message "--steps: expected an integer in [1, 1000000000], got 'abc'"
# --threads has the World's own cap (WorldSettings::kMaxThreads)
check threads-above-cap 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/threads" --quiet --threads 1025
contains threads-above-cap-message "--threads: expected an integer in [0, 1024], got 1025"
check solver-empty 2 "$exe" validate "$src/scenes/sliding_box.json" --solver ""
contains solver-empty-message "--solver: expected a name, got an empty string"
check fclib-tol-nan 2 "$exe" fclib "$src/tests/fuzz/corpus/fuzz_fclib/FrictionContact3D_1c.hdf5" --tol nan
contains fclib-tol-nan-message "--tol: expected a finite number >= 0, got 'nan'"
check set-keeps-scene 2 "$exe" run --set X "$src/scenes/sliding_box.json" --out "$tmp/set" --quiet
contains set-keeps-scene-message 'expected POINTER=VALUE (e.g. /solver/max_iterations=50), got "X"'
check max-iterations-2e8 2 "$exe" validate "$src/scenes/sliding_box.json" --set /solver/max_iterations=2e8
contains max-iterations-limit "/solver/max_iterations: expected an integer in [1, 100000000]"
# issue 12: converged means the FCLib merit met --tol (PGS's box friction leaves this one at 1.1e-3)
check fclib-pgs-honest 0 "$exe" fclib "$src/tests/fuzz/corpus/fuzz_fclib/FrictionContact3D_1c.hdf5" --solver pgs \
  --tol 1e-6 --max-iterations 50 --json
contains fclib-pgs-honest-not-converged '"converged":false'
lacks fclib-pgs-honest-never-converged '"converged":true'
check fclib-prox-honest 0 "$exe" fclib "$src/tests/fuzz/corpus/fuzz_fclib/FrictionContact3D_1c.hdf5" --solver prox-gs \
  --tol 1e-6 --json
contains fclib-prox-honest-converged '"converged":true'
check fclib-max-iterations-2e8 2 "$exe" fclib "$src/tests/fuzz/corpus/fuzz_fclib/FrictionContact3D_1c.hdf5" --max-iterations 2e8
contains fclib-max-iterations-limit "expected an integer in [1, 100000000], got 2e8"
printf '{"format": "coulomb-scene/1", "time": {"dt": 0.01, "steps": 1}, "gravity": [0, 0, 1e400]}' >"$tmp/big_number.json"
check number-1e400 2 "$exe" validate "$tmp/big_number.json"
contains number-1e400-pointer "/gravity/2: the number 1e400 is outside the range of a double"
# found by fuzz_fclib: a damaged link table in /fclib_local/info made libfclib exit(1)
check fclib-damaged-links 2 "$exe" fclib "$src/tests/fuzz/corpus/fuzz_fclib/finding_damaged_info_link_table.hdf5"
contains fclib-damaged-links-message "link table cannot be read"
check dev-zero 2 "$exe" validate /dev/zero
contains dev-zero-limit "larger than the limit of 256 MiB"

check bad-set 2 "$exe" validate "$src/scenes/wall.json" --set /solver/max_iterations=-1
contains bad-set-pointer "/solver/max_iterations"
check unknown-solver 2 "$exe" validate "$src/scenes/wall.json" --solver nope
contains unknown-solver-pointer "/solver/type"

# a body faster than --max-speed stops the run with exit code 3, naming the step and the body
check max-speed 3 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/fast" --max-speed 1 --quiet
contains max-speed-body "step 1: body 'box'"

# a normal run writes the output contract, and a rerun is byte-identical
check run-a 0 "$exe" run "$src/scenes/tower.json" --out "$tmp/a" --steps 60 --quiet
check run-b 0 "$exe" run "$src/scenes/tower.json" --out "$tmp/b" --steps 60 --quiet
for f in stats.jsonl frames.jsonl final_state.json; do
  [ -s "$tmp/a/$f" ] && passes=$((passes + 1)) || { echo "FAIL output: $f missing"; fails=$((fails + 1)); }
done
[ "$(wc -l <"$tmp/a/stats.jsonl")" -eq 60 ] && passes=$((passes + 1)) || { echo "FAIL stats.jsonl has not 60 lines"; fails=$((fails + 1)); }
for key in step time bodies contacts iterations residual converged kinetic_energy potential_energy max_penetration wall_ms; do
  head -1 "$tmp/a/stats.jsonl" | grep -q "\"$key\":" && passes=$((passes + 1)) || { echo "FAIL stats.jsonl lacks $key"; fails=$((fails + 1)); }
done
cmp -s "$tmp/a/final_state.json" "$tmp/b/final_state.json" && passes=$((passes + 1)) || { echo "FAIL reruns differ"; fails=$((fails + 1)); }
# overrides reach the run: --dt and --set
check run-overrides 0 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/c" --steps 5 --dt 0.002 --set /materials/default/friction=0.2 --quiet
grep -q '"time":0.01' "$tmp/c/stats.jsonl" && passes=$((passes + 1)) || { echo "FAIL --dt/--steps not applied"; fails=$((fails + 1)); }

# soft bodies: the final state reports them, a velocity-level solver is refused at /solver/type
check run-soft 0 "$exe" run "$src/scenes/soft_stack.json" --out "$tmp/soft" --steps 5 --quiet
for key in centroid volume min_tet_volume vertex_count; do
  grep -q "\"$key\"" "$tmp/soft/final_state.json" && passes=$((passes + 1)) || { echo "FAIL final_state.json lacks soft $key"; fails=$((fails + 1)); }
done
check soft-wrong-solver 2 "$exe" validate "$src/scenes/soft_stack.json" --solver prox-gs
contains soft-wrong-solver-pointer "/solver/type"
check info-again 0 "$exe" info
contains info-soft "[rigid + soft"
contains info-kind "xpbd-jacobi   position"
contains info-fclib-only "newton-fb     velocity  [fclib only]"
# an FCLib-only solver is refused for a scene at /solver/type, naming the solvers that can
check fclib-only-solver 2 "$exe" validate "$src/scenes/sliding_box.json" --solver newton-fb
contains fclib-only-solver-pointer "/solver/type"
contains fclib-only-solver-message "solves assembled FCLib problems only"

# --dump-fclib: each step's contact problem as an FCLib file that `coulomb fclib` solves again
check dump-fclib 0 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/dump-run" --steps 4 --quiet \
  --dump-fclib "$tmp/dump" --dump-steps 2:3
[ -s "$tmp/dump/sliding_box-000002.hdf5" ] && [ -s "$tmp/dump/sliding_box-000003.hdf5" ] && \
  [ ! -e "$tmp/dump/sliding_box-000004.hdf5" ] && passes=$((passes + 1)) || { echo "FAIL dump-fclib files"; ls "$tmp/dump"; fails=$((fails + 1)); }
check dump-fclib-solve 0 "$exe" fclib "$tmp/dump/sliding_box-000002.hdf5" --solver newton-fb --solver prox-gs --json
contains dump-fclib-solve-newton '"solver":"newton-fb"'
contains dump-fclib-solve-converged '"converged":true'
check dump-steps-reversed 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/dump" --dump-steps 3:2
contains dump-steps-reversed-option "--dump-steps"
check dump-steps-garbage 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/dump" --dump-steps x
check dump-steps-beyond 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/dump" --dump-steps 9:
contains dump-steps-beyond-message "the run has 4 steps"
check dump-steps-alone 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-steps 1:2
contains dump-steps-alone-message "needs --dump-fclib"
touch "$tmp/a-file"
check dump-fclib-not-a-dir 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/a-file"
contains dump-fclib-not-a-dir-message "--dump-fclib"
check dump-fclib-position-solver 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/dump" --solver xpbd-jacobi
contains dump-fclib-position-solver-message "velocity-level"
# the solvers it suggests are velocity-level ones, never the position-level one just refused
check dump-fclib-newton 2 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/d2" --steps 4 --quiet --dump-fclib "$tmp/dump" --solver newton-pcr
contains dump-fclib-newton-suggests "use one that does (--solver "
for s in newton-pcr cr-mlcp xpbd-jacobi; do lacks "dump-fclib-newton-not-$s" "$s," ; lacks "dump-fclib-newton-not-$s-last" "$s)"; done
# a write error while dumping (a file-size limit): exit 1 naming the step, the file and the limit;
# run.json records the failure; no temporary is left
(ulimit -f 4; exec "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/dfull" --steps 4 --quiet --dump-fclib "$tmp/dumpfull") \
  >"$tmp/out.txt" 2>&1; rc=$?
[ $rc -eq 1 ] && passes=$((passes + 1)) || { echo "FAIL dump-fclib-full: exit $rc"; cat "$tmp/out.txt"; fails=$((fails + 1)); }
contains dump-fclib-full-step "--dump-fclib: step 1: "
contains dump-fclib-full-limit "file-size limit (ulimit -f) 4096 bytes"
grep -q '"status": *"failed"' "$tmp/dfull/run.json" && passes=$((passes + 1)) || { echo "FAIL dump-fclib-full: run.json"; cat "$tmp/dfull/run.json"; fails=$((fails + 1)); }
[ -z "$(ls "$tmp/dumpfull" | grep '\.tmp$')" ] && passes=$((passes + 1)) || { echo "FAIL dump-fclib-full: temporaries left"; ls "$tmp/dumpfull"; fails=$((fails + 1)); }
check fclib-bad-option 2 "$exe" fclib "$tmp/dump/sliding_box-000002.hdf5" --solver newton-fb --option bogus=1
contains fclib-bad-option-message "no chosen solver has the option key 'bogus'"
check fclib-bad-option-value 2 "$exe" fclib "$tmp/dump/sliding_box-000002.hdf5" --solver newton-fb --option linear_solver=ldlt
contains fclib-bad-option-value-pointer "--option/linear_solver"

# --log-level: global (before or after the subcommand); an unknown level is an argument mistake
check log-level-bogus 2 "$exe" --log-level bogus info
contains log-level-bogus-option "--log-level"
contains log-level-bogus-value "'bogus'"
check log-level-bogus-after 2 "$exe" validate "$src/scenes/sliding_box.json" --log-level bogus
contains log-level-bogus-after-option "--log-level"
check log-level-debug 0 "$exe" --log-level debug validate "$src/scenes/sliding_box.json"
contains log-level-debug-message "coulomb: debug: loaded scene"
check log-level-debug-after 0 "$exe" run "$src/scenes/sliding_box.json" --out "$tmp/log" --steps 2 --quiet --log-level=debug
contains log-level-debug-after-message "loaded scene"
check log-level-default 0 "$exe" validate "$src/scenes/sliding_box.json"
lacks log-level-default-quiet "loaded scene"
check log-level-help 0 "$exe" --help
contains log-level-help-option "--log-level"

# overlaps at load are refused naming the pair and the depth, or pushed apart on request
check door-in-ground 2 "$exe" validate "$src/scenes/door.json" --set '/bodies/2/position=[0.5, 0, 0.5]'
contains door-in-ground-pair "/bodies/2: bodies 'floor' and 'door' overlap by 0.5 m at the start"
check door-in-ground-resolve 0 "$exe" validate "$src/scenes/door.json" --set '/bodies/2/position=[0.5, 0, 0.5]' \
  --set /collision/initial_overlap=resolve
contains door-in-ground-moved "moved apart before step 1: 'door' by [0, 0, 0.5] m"
check door-in-ground-warn 0 "$exe" validate "$src/scenes/door.json" --set '/bodies/2/position=[0.5, 0, 0.5]' \
  --set /collision/initial_overlap=warn
contains door-in-ground-kept "overlap at the start: 'floor' and 'door' by 0.5 m (tolerance 0.01 m), kept"
# a finite but huge value is refused at load with its pointer
check huge-anchor 2 "$exe" validate "$src/scenes/door.json" --set '/joints/0/anchor=[0, 0, 1e308]'
contains huge-anchor-pointer "/joints/0/anchor: expected an array of 3 numbers, each in [-1e9, 1e9]"
# every bundled scene validates: none starts with an overlap deeper than its tolerance
for scene in "$src"/scenes/*.json; do
  check "validate-$(basename "$scene")" 0 "$exe" validate "$scene"
  lacks "validate-$(basename "$scene")-no-overlap" "overlap at the start"
done

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
