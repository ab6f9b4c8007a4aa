#!/usr/bin/env bash
# Smoke test of tools/bench/coulomb-vs-bullet: a short run of the sliding box with --json gives
# one line per engine configuration, each with the documented fields as finite numbers.
# usage: coulomb_vs_bullet_test.sh EXE SOURCE_DIR
set -u
exe="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

"$exe" "$src/scenes/sliding_box.json" --steps 20 --json >"$tmp/out.jsonl" 2>"$tmp/err.txt"
code=$?
[ "$code" -eq 0 ] && ok || { fail "exit code $code"; cat "$tmp/err.txt"; }
# default configurations: Coulomb prox-gs and pgs, Bullet at 10 and 100 iterations
[ "$(wc -l <"$tmp/out.jsonl")" -eq 4 ] && ok || fail "expected 4 JSON lines, got $(wc -l <"$tmp/out.jsonl")"
for engine in coulomb bullet; do
  [ "$(grep -c "\"engine\":\"$engine\"" "$tmp/out.jsonl")" -eq 2 ] && ok || fail "expected 2 $engine lines"
done
number='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
while IFS= read -r line; do
  for key in ms_per_step mean_ms_per_step cpu_ms_per_step contacts max_penetration merit max_drift iterations threads steps \
             sweep_ns_per_contact bytes_per_contact_sweep copy_bandwidth_gbs sweep_bandwidth_fraction; do
    echo "$line" | grep -Eq "\"$key\":$number[,}]" && ok || fail "field $key missing or not a finite number in: $line"
  done
  echo "$line" | grep -q '"steps":20[,}]' && ok || fail "not 20 steps in: $line"
done <"$tmp/out.jsonl"

# every shape type goes through the Bullet scene builder, and the contact problem rebuilt from
# Bullet's manifolds explains Bullet's own velocity change (M^-1 J^T lambda = u' - u_free)
"$exe" "$src/tools/bench/shapes.json" --steps 20 --json --solver prox-gs --bullet-iterations 10 >"$tmp/shapes.jsonl" 2>"$tmp/err.txt"
code=$?
[ "$code" -eq 0 ] && ok || { fail "shapes: exit code $code"; cat "$tmp/err.txt"; }
err="$(grep -o '"reconstruction_error":[^,}]*' "$tmp/shapes.jsonl" | cut -d: -f2)"
awk -v e="${err:-x}" 'BEGIN { exit !(e ~ /^[0-9.eE+-]+$/ && e + 0 < 1e-9) }' && ok || fail "shapes: reconstruction error '$err'"
[ "$(grep -c '"merit":' "$tmp/shapes.jsonl")" -eq 2 ] && ok || fail "shapes: expected 2 lines with a merit"

# NAME:ITERATIONS sets that run's iteration limit and names it; --coulomb-only runs no Bullet
"$exe" "$src/scenes/sliding_box.json" --steps 5 --json --coulomb-only --solver pgs:3 --solver prox-gs >"$tmp/it.jsonl" 2>"$tmp/err.txt"
[ "$(wc -l <"$tmp/it.jsonl")" -eq 2 ] && ok || fail "--coulomb-only: expected 2 lines, got $(wc -l <"$tmp/it.jsonl")"
grep -q '"config":"pgs:3".*"iterations":3[,}]' "$tmp/it.jsonl" && ok || fail "pgs:3 is not a 3-iteration run named pgs:3"
grep -q '"config":"prox-gs".*"iterations":50[,}]' "$tmp/it.jsonl" && ok || fail "prox-gs lost the scene's 50 iterations"
"$exe" "$src/scenes/sliding_box.json" --solver pgs:0 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "pgs:0 not exit 2"
# equal_quality: the table with a row per configuration and the chosen count's note
COULOMB_BUILD_DIR="$(dirname "$(dirname "$exe")")" python3 "$src/tools/bench/equal_quality" --steps 5 --scenes wall \
  --counts 10,20 >"$tmp/eq.md" 2>"$tmp/err.txt"
[ $? -eq 0 ] && ok || { fail "equal_quality exit code"; cat "$tmp/err.txt"; }
[ "$(grep -c '^| wall | ' "$tmp/eq.md")" -eq 5 ] && ok || fail "equal_quality: expected 5 wall rows"
grep -q "^- wall: load average" "$tmp/eq.md" && ok || fail "equal_quality: no note for wall"
# after 5 steps both counts are within Bullet-100's drift (8 mm): the first is the smallest and
# every count from it on stays within
grep -q "Bullet-100's (.* m): prox-gs:10 (.*x Bullet-100's CPU time); every count from prox-gs:10 " "$tmp/eq.md" && ok \
  || fail "equal_quality: the note names neither the smallest count nor the count from which all stay within"

# a bad option and a missing scene exit with code 2 (SCENE_FORMAT.md)
"$exe" "$src/scenes/sliding_box.json" --steps -1 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "bad option not exit 2"
"$exe" "$tmp/nope.json" >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "missing scene not exit 2"
"$exe" "$src/scenes/sliding_box.json" --solver nope >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "unknown solver not exit 2"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
