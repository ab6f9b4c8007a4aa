#!/usr/bin/env bash
# Smoke test of tools/bench/coulomb-batch-bench: 4 Bullet cartpoles for 20 steps on 1 and 2
# threads give one JSON line with the documented fields, finite, and joints that hold; bad input
# exits 2.
# usage: batch_bench_test.sh EXE SOURCE_DIR
set -u
exe="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
number='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'

for threads in 1 2; do
  "$exe" "$src/scenes/cartpole.json" --worlds 4 --steps 20 --threads "$threads" --bullet-iterations 10 --repeat 2 --json \
    >"$tmp/out.json" 2>"$tmp/err.txt"
  code=$?
  [ "$code" -eq 0 ] && ok || { fail "$threads threads: exit code $code"; cat "$tmp/err.txt"; }
  [ "$(wc -l <"$tmp/out.json")" -eq 1 ] && ok || fail "$threads threads: expected 1 JSON line"
  line="$(head -1 "$tmp/out.json")"
  for key in ms_per_world_step us_per_world_step cores_used max_joint_error worlds steps threads iterations repeat \
             warmup_steps actuators joints; do
    echo "$line" | grep -Eq "\"$key\":$number[,}]" && ok || fail "field $key missing or not a finite number in: $line"
  done
  for key in '"scene":"cartpole"' '"engine":"bullet"' '"worlds":4,' '"steps":20,' "\"threads\":$threads," \
             '"actuators":1,' '"joints":2,' '"failure":null' '"joint_errors":{"rail":' '"ms_per_world_step_runs":\['; do
    echo "$line" | grep -q "$key" && ok || fail "no $key in: $line"
  done
  # the rail and the hinge hold to well under a millimetre after 20 steps
  err="$(echo "$line" | grep -Eo "\"max_joint_error\":$number" | cut -d: -f2)"
  awk -v e="${err:-x}" 'BEGIN { exit !(e ~ /^[0-9.eE+-]+$/ && e + 0 < 1e-3) }' && ok || fail "joint error '$err'"
  # world 0's pushes, 10 sin(0.05 s) N, are positive over the 20 steps: the cart moves along +x
  # and the pole, left behind, turns about +y the negative way (Coulomb's signs, scenes/README.md)
  q="$(echo "$line" | grep -Eo '"final_joint_positions":\[[^]]*' | cut -d[ -f2)"
  awk -v q="${q:-x}" 'BEGIN { n = split(q, v, ","); exit !(n == 2 && v[1] + 0 > 0.01 && v[2] + 0 < -0.01) }' && ok \
    || fail "world 0's rail and hinge at the end: '$q' (expected > 0.01 m and < -0.01 rad)"
done

# the text form; a velocity or position actuator is refused (input error), as are bad options
"$exe" "$src/scenes/cartpole.json" --worlds 2 --steps 5 --repeat 1 >"$tmp/out.txt" 2>&1
[ $? -eq 0 ] && grep -q 'us per world-step' "$tmp/out.txt" && ok || fail "text output: $(cat "$tmp/out.txt")"
"$exe" "$src/scenes/cartpole.json" --worlds 2 --steps 5 --set '/actuators/0/type="velocity"' >"$tmp/out.txt" 2>&1
[ $? -eq 2 ] && grep -q 'effort actuators only' "$tmp/out.txt" && ok || fail "a velocity actuator not refused: $(cat "$tmp/out.txt")"
"$exe" "$src/scenes/cartpole.json" --worlds 0 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "--worlds 0 not exit 2"
"$exe" "$tmp/nope.json" >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "missing scene not exit 2"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
