#!/usr/bin/env bash
# Smoke test of tools/bench/scaling: tiny counts and a few steps give the three documented tables
# (per count, fitted exponents, the largest count against Bullet-10) with finite numbers, an SVG
# plot and the JSON of every run; bad options exit with code 2.
# usage: scaling_test.sh BUILD_DIR SOURCE_DIR
set -u
build="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
export COULOMB_BUILD_DIR="$build"
script="$src/tools/bench/scaling"

python3 "$script" --counts 20,40,80 --steps 8 --window 3 --plot "$tmp/plot.svg" --json "$tmp/runs.json" >"$tmp/out.md" 2>"$tmp/err.txt"
code=$?
[ "$code" -eq 0 ] && ok || { fail "exit code $code"; cat "$tmp/err.txt"; }
grep -q "medians over steps 6-8 of 8" "$tmp/out.md" && ok || fail "window line missing"
# the same box-steps timed at every count: 3 steps at 80 boxes, 6 at 40, 12 at 20
grep -q "steps timed at each count (the same box-steps): 20: 6-17, 40: 6-11, 80: 6-8" "$tmp/out.md" && ok || fail "per-count windows missing"
python3 "$script" --counts 20,40 --steps 6 --window 2 --fixed-window >"$tmp/fixed.md" 2>"$tmp/err.txt"
grep -q "steps timed at each count (the same window): 20: 5-6, 40: 5-6" "$tmp/fixed.md" && ok || fail "--fixed-window not the same window"
num='[0-9]+(\.[0-9]+)?'
for n in 20 40 80; do  # boxes, contacts, wall, CPU and the six stages
  grep -Eq "^\| $n \| $num( \| $num){8} \|$" "$tmp/out.md" && ok || fail "no row of 10 numbers for $n boxes"
done
for q in "wall ms/step" "CPU ms/step" detect assemble solve integrate stabilize other contacts; do
  grep -Eq "^\| $q \| (-?$num|n/a) \| (ok|SUPERLINEAR)? ?\|$" "$tmp/out.md" && ok || fail "no exponent row for '$q'"
done
for c in "coulomb pgs, 10 it" "coulomb prox-gs, 10 it" "bullet-10"; do
  grep -Eq "^\| $c \| $num( \| $num){2} \| ${num}x \| " "$tmp/out.md" && ok || fail "no comparison row for $c"
done
grep -q "^| bullet-10 .* | 1.00x |" "$tmp/out.md" && ok || fail "bullet-10 is not its own reference"
grep -q "Baseline: Bullet-10" "$tmp/out.md" && fail "a baseline table without --bullet-all" || ok
grep -q "<polyline" "$tmp/plot.svg" && grep -q "</svg>" "$tmp/plot.svg" && ok || fail "no SVG plot"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert sorted(d) == ['20','40','80'] and d['80']['pgs']['window_from'] == 5 and d['80']['pgs']['steps'] == 8" "$tmp/runs.json" \
  && ok || fail "runs JSON"

# the tables again from the saved runs, without running
python3 "$script" --from-json "$tmp/runs.json" >"$tmp/again.md" 2>"$tmp/err.txt"
cmp -s "$tmp/out.md" "$tmp/again.md" && ok || fail "--from-json does not print the same tables"
echo '{}' >"$tmp/empty.json"
python3 "$script" --from-json "$tmp/empty.json" >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "bad --from-json not exit 2"

# --repeat: each configuration keeps its fastest run, and the tables say so
python3 "$script" --counts 20,40 --steps 4 --window 2 --repeat 2 --json "$tmp/rep.json" >"$tmp/rep.md" 2>"$tmp/err.txt"
[ $? -eq 0 ] && ok || { fail "--repeat 2 failed"; cat "$tmp/err.txt"; }
grep -q "; each the fastest of 2 runs" "$tmp/rep.md" && grep -q "each configuration the fastest of 2 processes" "$tmp/rep.md" \
  && ok || fail "--repeat 2 not stated in the tables"
[ "$(grep -c "run [12] of 2" "$tmp/err.txt")" -eq 4 ] && ok || fail "--repeat 2 did not run each count twice"
python3 "$script" --from-json "$tmp/rep.json" | cmp -s - "$tmp/rep.md" && ok || fail "--from-json loses --repeat"
python3 "$script" --repeat 0 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "--repeat 0 not exit 2"

# --bullet-all: Bullet-10 at every count, a row each and both fitted exponents
python3 "$script" --counts 20,40 --steps 4 --window 2 --bullet-all --json "$tmp/all.json" >"$tmp/all.md" 2>"$tmp/err.txt"
[ $? -eq 0 ] && ok || { fail "--bullet-all failed"; cat "$tmp/err.txt"; }
for n in 20 40; do
  grep -Eq "^\| $n \| $num \| $num \| ${num}x \|$" "$tmp/all.md" && ok || fail "no baseline row for $n boxes"
done
grep -Eq "^fitted exponent: Coulomb pgs -?$num, Bullet-10 -?$num$" "$tmp/all.md" && ok || fail "no baseline exponents"
python3 "$script" --from-json "$tmp/all.json" | cmp -s - "$tmp/all.md" && ok || fail "--from-json loses the baseline"

python3 "$script" --counts 40,20 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "unsorted counts not exit 2"
python3 "$script" --counts 2,x >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "bad counts not exit 2"
python3 "$script" --steps 5 --window 6 >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "window > steps not exit 2"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
