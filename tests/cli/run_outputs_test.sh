#!/usr/bin/env bash
# Outputs that must not lie or get lost, end to end through `coulomb run`:
# write errors (a file-size limit), the folder lock, run.json, SIGINT, --checkpoint-every and
# --resume after SIGINT, after kill -9 (also with sleeping islands) and after a write error, with
# outputs byte-identical to an uninterrupted run's; edited, missing checkpoints; stale temporaries
# (stats.jsonl compared without its wall-clock *_ms fields, which no two runs share).
# usage: run_outputs_test.sh COULOMB_EXE SOURCE_DIR
set -u
exe="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
scene="$src/scenes/tower.json"
steps=400  # long enough (~1 s) that the interrupted runs are still running when the test signals them
status_of() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['status'], m['steps_done'])" "$1/run.json"; }
# the same bytes, stats.jsonl without the timings
same_outputs() {  # same_outputs NAME DIR_A DIR_B
  local f
  for f in frames.jsonl final_state.json geometry.json; do
    cmp -s "$2/$f" "$3/$f" && ok || bad "$1: $f differs"
  done
  strip() { sed -E 's/"(wall|detect|assemble|solve|integrate)_ms":[-0-9.e+]+,?//g' "$1"; }
  if [ "$(wc -l <"$2/stats.jsonl")" -eq "$steps" ] && cmp -s <(strip "$2/stats.jsonl") <(strip "$3/stats.jsonl"); then ok
  else bad "$1: stats.jsonl differs beyond the timings"; fi
}
# wait until the run writing into DIR has checkpointed at least N steps (run.json says so)
wait_steps() {  # wait_steps DIR N
  for _ in $(seq 1 1000); do
    python3 - "$1/run.json" "$2" 2>/dev/null <<'PY' && return 0
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if m["status"] == "running" and m["steps_done"] >= int(sys.argv[2]) else 1)
PY
    sleep 0.02
  done
  return 1
}

# reference: one uninterrupted run
"$exe" run "$scene" --out "$tmp/ref" --steps $steps --quiet && ok || bad "reference run"
[ "$(status_of "$tmp/ref")" = "complete $steps" ] && ok || bad "reference run.json: $(status_of "$tmp/ref")"

# SIGINT: exit 130, partial files and a checkpoint, run.json says interrupted; --resume finishes it
"$exe" run "$scene" --out "$tmp/int" --steps $steps --checkpoint-every 10 --quiet & pid=$!
wait_steps "$tmp/int" 30 || bad "sigint: the run did not start"
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "sigint: exit $rc, expected 130"
set -- $(status_of "$tmp/int")
if [ "$1" = interrupted ] && [ "$2" -ge 30 ] && [ "$2" -lt $steps ]; then ok; else bad "sigint: run.json says $*"; fi
[ ! -e "$tmp/int/stats.jsonl" ] && ok || bad "sigint: a complete-looking stats.jsonl appeared"
# a checkpoint whose numbers were edited is refused (its checksum), and so is a missing one;
# the untouched checkpoint then resumes
cp "$tmp/int/checkpoint.json" "$tmp/checkpoint.good"
python3 - "$tmp/int/checkpoint.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["state"]["rigid"]["x"][3][2] += 1e-3
json.dump(c, open(sys.argv[1], "w"))
PY
"$exe" run --resume "$tmp/int" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "checksum does not match" "$tmp/err.txt" && ok || bad "edited checkpoint: exit $rc $(cat "$tmp/err.txt")"
rm "$tmp/int/checkpoint.json"
"$exe" run --resume "$tmp/int" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "checkpoint.json is missing" "$tmp/err.txt" && ok || bad "missing checkpoint: exit $rc $(cat "$tmp/err.txt")"
cp "$tmp/checkpoint.good" "$tmp/int/checkpoint.json"
"$exe" run --resume "$tmp/int" --quiet && ok || bad "resume after sigint"
[ "$(status_of "$tmp/int")" = "complete $steps" ] && ok || bad "resumed run.json: $(status_of "$tmp/int")"
same_outputs "resume after sigint" "$tmp/int" "$tmp/ref"
ls "$tmp/int" | grep -q '\.part$\|checkpoint.json' && bad "resume left partial files: $(ls "$tmp/int")" || ok

# kill -9 with --checkpoint-every: resumes from the last checkpoint, same outputs
"$exe" run "$scene" --out "$tmp/k9" --steps $steps --checkpoint-every 20 --quiet & pid=$!
wait_steps "$tmp/k9" 40 || bad "kill -9: the run did not start"
sleep 0.1  # between two checkpoints: the partial files are longer than the checkpoint says
kill -9 $pid; wait $pid 2>/dev/null
set -- $(status_of "$tmp/k9")
[ "$1" = running ] && ok || bad "kill -9: run.json says $* (expected running: the writer died)"
"$exe" run --resume "$tmp/k9" --quiet && ok || bad "resume after kill -9"
same_outputs "resume after kill -9" "$tmp/k9" "$tmp/ref"
"$exe" run --resume "$tmp/k9" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "not interrupted" "$tmp/err.txt" && ok || bad "resume of a complete run: exit $rc $(cat "$tmp/err.txt")"

# body order: a run.json whose bodies were numbered otherwise (another build) is not resumed; one
# written before the field existed numbered them in the scene's order, as this build does the tower
"$exe" run "$scene" --out "$tmp/ord" --steps $steps --checkpoint-every 10 --quiet & pid=$!
wait_steps "$tmp/ord" 30 || bad "body order: the run did not start"
kill -INT $pid; wait $pid
edit_manifest() {  # edit_manifest DIR PYTHON-STATEMENT-ON-m
  python3 - "$1/run.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(m, open(sys.argv[1], "w"))
PY
}
edit_manifest "$tmp/ord" 'm["body_order_fnv1a64"] = "0000000000000000"'
"$exe" run --resume "$tmp/ord" --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "numbers the scene's bodies differently" "$tmp/err.txt" && ok || bad "resume with another body order: exit $rc $(cat "$tmp/err.txt")"
edit_manifest "$tmp/ord" 'del m["body_order_fnv1a64"]'
"$exe" run --resume "$tmp/ord" --quiet && ok || bad "resume of a run.json without body_order_fnv1a64"
same_outputs "resume without body_order_fnv1a64" "$tmp/ord" "$tmp/ref"

# sleeping islands (scene `sleep`): the tower falls asleep at step 20 with a 0.2 s sleep time; a
# run interrupted around then resumes with the same rest timers and sleeping islands
sleep_set='/sleep={"time": 0.2}'
"$exe" run "$scene" --set "$sleep_set" --out "$tmp/sref" --steps $steps --quiet && ok || bad "sleep reference run"
tail -1 "$tmp/sref/stats.jsonl" | grep -q '"sleeping":48' && ok || bad "sleep: the tower did not fall asleep"
"$exe" run "$scene" --set "$sleep_set" --out "$tmp/sint" --steps $steps --checkpoint-every 5 --quiet & pid=$!
wait_steps "$tmp/sint" 5 || bad "sleep: the run did not start"
kill -INT $pid; wait $pid
"$exe" run --resume "$tmp/sint" --quiet && ok || bad "sleep: resume after sigint"
same_outputs "sleep: resume after sigint" "$tmp/sint" "$tmp/sref"

# a write error (file-size limit): exit 1 naming the OS error, the earlier results untouched
cp -r "$tmp/ref" "$tmp/full"
(ulimit -f 64; exec "$exe" run "$scene" --out "$tmp/full" --steps 1000 --quiet) 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 1 ] && grep -q "File too large" "$tmp/err.txt" && ok || bad "fsize: exit $rc: $(cat "$tmp/err.txt")"
same_outputs "fsize keeps the earlier results" "$tmp/full" "$tmp/ref"
set -- $(status_of "$tmp/full")
[ "$1" = failed ] && ok || bad "fsize: run.json says $*"
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(m['complete_files']['steps_done'] != $steps)" "$tmp/full/run.json" \
  && ok || bad "fsize: run.json does not name the earlier complete run"
ls "$tmp/full" | grep -q '\.part$\|\.tmp$' && bad "fsize left partial files: $(ls "$tmp/full")" || ok

# a write error after a checkpoint (a full disk): the last checkpoint and the partial files stay,
# run.json says failed but resumable, and once there is room --resume finishes the same run
(ulimit -f 256; exec "$exe" run "$scene" --out "$tmp/full2" --steps $steps --checkpoint-every 5 --quiet) 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 1 ] && grep -q "continue with: coulomb run --resume" "$tmp/err.txt" && ok || bad "fsize with checkpoints: exit $rc: $(cat "$tmp/err.txt")"
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(not (m['status'] == 'failed' and m['resumable'] and m['checkpoint']))" \
  "$tmp/full2/run.json" && ok || bad "fsize with checkpoints: run.json $(cat "$tmp/full2/run.json")"
[ -e "$tmp/full2/checkpoint.json" ] && ok || bad "fsize with checkpoints: the checkpoint was deleted"
"$exe" run --resume "$tmp/full2" --quiet && ok || bad "resume after a write error"
same_outputs "resume after a write error" "$tmp/full2" "$tmp/ref"

# temporaries of writers killed mid-write are removed by the next run into the folder
touch "$tmp/ref/run.json.12345-1700000000000000.tmp" "$tmp/ref/checkpoint.json.12345-1700000000000001-2.tmp" "$tmp/ref/notes.tmp"
"$exe" run "$scene" --out "$tmp/ref" --steps $steps --quiet 2>"$tmp/err.txt" && ok || bad "run into a folder with stale temporaries"
[ "$(ls "$tmp/ref" | grep -c '[0-9]\.tmp$')" -eq 0 ] && [ -e "$tmp/ref/notes.tmp" ] && ok || bad "stale temporaries: $(ls "$tmp/ref")"

# a second run into a folder in use fails at once
"$exe" run "$scene" --out "$tmp/lock" --steps 3000 --checkpoint-every 1 --quiet & pid=$!
wait_steps "$tmp/lock" 1 || bad "lock: the first run did not start"
"$exe" run "$scene" --out "$tmp/lock" --steps 10 --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 1 ] && grep -q "another coulomb run is writing into" "$tmp/err.txt" && ok || bad "lock: exit $rc: $(cat "$tmp/err.txt")"
kill -INT $pid; wait $pid

# --resume takes its options from run.json only
"$exe" run --resume "$tmp/lock" --steps 5 --quiet 2>"$tmp/err.txt"; rc=$?
[ $rc -eq 2 ] && ok || bad "resume with --steps: exit $rc"

echo "run outputs: $passes passed, $fails failed"
[ $fails -eq 0 ]
