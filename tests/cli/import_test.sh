#!/usr/bin/env bash
# `coulomb import` and `coulomb run`/`validate` of model files, end to end (import/README.md):
# the converted scene passes `coulomb validate` and runs to the same bytes as the model run
# directly (stats.jsonl without its wall-clock *_ms fields); warnings are FILE:LINE: lines on
# stderr; bad models and --strict exit 2; --resume of a model run re-imports it and finishes
# with the same bytes, and refuses a model file that changed.
# usage: import_test.sh COULOMB_EXE SOURCE_DIR
set -u
exe="$1"; src="$2"
robots="$src/../shared/robots/urdf"
if [ ! -d "$robots" ]; then echo "skipped: $robots is missing"; exit 77; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
strip() { sed -E 's/"[a-z_]+_ms":[-0-9.e+]+,?//g' "$1"; }
same_outputs() {  # same_outputs NAME DIR_A DIR_B
  cmp -s "$2/final_state.json" "$3/final_state.json" && ok || bad "$1: final_state.json differs"
  if [ -s "$2/stats.jsonl" ] && cmp -s <(strip "$2/stats.jsonl") <(strip "$3/stats.jsonl"); then ok
  else bad "$1: stats.jsonl differs beyond the timings"; fi
}
status_of() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['status'], m['steps_done'])" "$1/run.json"; }

# import -> validate -> run, against run of the model itself
for model in cartpole.urdf minitaur/minitaur.urdf kuka_iiwa/model.urdf; do
  name=$(basename "$(dirname "$robots/$model")")_$(basename "$model" .urdf)
  "$exe" import "$robots/$model" --out "$tmp/$name/scene.json" >"$tmp/import.txt" 2>"$tmp/warn.txt"; rc=$?
  [ $rc -eq 0 ] && ok || { bad "$model: import exit $rc: $(cat "$tmp/import.txt" "$tmp/warn.txt")"; continue; }
  grep -q "bodies" "$tmp/import.txt" && ok || bad "$model: no summary: $(cat "$tmp/import.txt")"
  "$exe" validate "$tmp/$name/scene.json" >"$tmp/validate.txt" 2>&1 && ok || bad "$model: validate: $(cat "$tmp/validate.txt")"
  "$exe" run "$tmp/$name/scene.json" --steps 100 --out "$tmp/$name/converted" --quiet 2>"$tmp/err.txt" && ok ||
    bad "$model: run of the converted scene: $(cat "$tmp/err.txt")"
  "$exe" run "$robots/$model" --steps 100 --out "$tmp/$name/direct" --quiet 2>"$tmp/err.txt" && ok ||
    bad "$model: run of the model: $(cat "$tmp/err.txt")"
  same_outputs "$model: converted and direct" "$tmp/$name/converted" "$tmp/$name/direct"
done
# mesh paths in the written scene are relative to its folder
grep -q '"file": "\.\./' "$tmp/kuka_iiwa_model/scene.json" && ! grep -q '"file": "/' "$tmp/kuka_iiwa_model/scene.json" &&
  ok || bad "kuka: mesh paths are not relative"

# warnings: FILE:LINE: ELEMENT: MESSAGE on stderr, with the run going on
"$exe" validate "$robots/minitaur/minitaur.urdf" >"$tmp/out.txt" 2>"$tmp/warn.txt" && ok || bad "validate minitaur.urdf: $(cat "$tmp/warn.txt")"
grep -q "minitaur.urdf:[0-9]*: link '[a-z_A-Z]*' contact/stiffness: not imported" "$tmp/warn.txt" && ok ||
  bad "minitaur warnings: $(cat "$tmp/warn.txt")"
"$exe" import "$robots/minitaur/minitaur.urdf" --out "$tmp/strict.json" --strict >/dev/null 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "invalid model: .*minitaur.urdf:[0-9]*: .*(a warning, an error with --strict)" "$tmp/err.txt" && ok ||
  bad "--strict: exit $rc $(cat "$tmp/err.txt")"
[ ! -e "$tmp/strict.json" ] && ok || bad "--strict wrote a scene"

# bad models: exit 2 with file, line and element
printf '<robot name="r">\n<link name="a">\n</robot>\n' >"$tmp/bad.urdf"
"$exe" run "$tmp/bad.urdf" --out "$tmp/bad" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.urdf:2: XML: XML_ERROR_MISMATCHED_ELEMENT" "$tmp/err.txt" && ok || bad "malformed: exit $rc $(cat "$tmp/err.txt")"
"$exe" import "$tmp/none.urdf" --out "$tmp/none.json" 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "none.urdf: robot: no such file" "$tmp/err.txt" && ok || bad "missing: exit $rc $(cat "$tmp/err.txt")"
"$exe" import "$robots/cartpole.urdf" --out "$tmp/x.json" --base-position 1 2 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "--base-position with two numbers: exit $rc"

# the import options reach the scene; --set applies to the imported document
"$exe" import "$robots/cartpole.urdf" --out "$tmp/opts.json" --no-ground --floating-base --base-position 0 0 3 \
  --dt 0.001 --duration 2 --solver pgs >/dev/null 2>&1 && ok || bad "import with options"
python3 - "$tmp/opts.json" <<'PY' && ok || bad "import options: $(head -c 400 "$tmp/opts.json")"
import json, sys
s = json.load(open(sys.argv[1]))
names = [b["name"] for b in s["bodies"]]
root = s["bodies"][names.index("slideBar")]
assert "ground" not in names and not root.get("fixed", False) and root["position"] == [0, 0, 3], s["bodies"]
assert s["time"] == {"dt": 0.001, "duration": 2} and s["solver"]["type"] == "pgs", (s["time"], s["solver"])
PY
"$exe" validate "$robots/cartpole.urdf" --set /time/dt=0.004 --no-ground >"$tmp/out.txt" 2>/dev/null && grep -q "3 bodies.* of 0.004 s" "$tmp/out.txt" &&
  ok || bad "validate with --set and --no-ground: $(cat "$tmp/out.txt")"

# --resume of a model run: imported again with the options in run.json, same bytes
steps=1500
cp "$robots/cartpole.urdf" "$tmp/cp.urdf"
"$exe" run "$tmp/cp.urdf" --out "$tmp/ref" --steps $steps --base-position 0 0 1 --quiet 2>/dev/null && ok || bad "reference run"
"$exe" run "$tmp/cp.urdf" --out "$tmp/int" --steps $steps --base-position 0 0 1 --checkpoint-every 10 --quiet 2>/dev/null & pid=$!
for _ in $(seq 1 500); do grep -q '"steps_done": [1-9][0-9]' "$tmp/int/run.json" 2>/dev/null && break; sleep 0.02; done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "sigint: exit $rc"
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); assert m['model_format']=='urdf' and m['args']['import']['base_position']==[0,0,1]" \
  "$tmp/int/run.json" && ok || bad "run.json lacks the model: $(cat "$tmp/int/run.json")"
"$exe" run --resume "$tmp/int" --quiet 2>"$tmp/err.txt" && ok || bad "resume: $(cat "$tmp/err.txt")"
[ "$(status_of "$tmp/int")" = "complete $steps" ] && ok || bad "resumed run.json: $(status_of "$tmp/int")"
same_outputs "resume of a model run" "$tmp/int" "$tmp/ref"
# a model file changed since the start is refused
"$exe" run "$tmp/cp.urdf" --out "$tmp/chg" --steps $steps --checkpoint-every 10 --quiet 2>/dev/null & pid=$!
for _ in $(seq 1 500); do grep -q '"steps_done": [1-9][0-9]' "$tmp/chg/run.json" 2>/dev/null && break; sleep 0.02; done
kill -INT $pid; wait $pid
echo "<!-- edited -->" >>"$tmp/cp.urdf"
"$exe" run --resume "$tmp/chg" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "changed since the run started" "$tmp/err.txt" && ok || bad "resume of a changed model: exit $rc $(cat "$tmp/err.txt")"

echo "import_test: $passes passed, $fails failed"
[ $fails -eq 0 ]
