"""`coulomb sweep` on Dask (python/README.md "Sweeps"), end to end through the CLI:
- a local cluster of 2 worker processes on 127.0.0.1 gives exactly the results of the same
  points run one by one with `coulomb run` (a funnel with its meshes, shipped to the workers);
- killing a worker of a cluster (`dask scheduler` + 2 `dask worker`) mid-sweep still completes
  every point, the other worker taking over;
- re-running resumes: done points are skipped, failed ones are recorded with their error and
  run again only with --retry-failed; another spec in the same folder is refused;
- bad specs exit 2 naming the JSON pointer, metrics that fail on the scene's initial state
  before any point runs;
- a point past its time or memory limit (spec "limits", --point-time-limit/--point-memory-limit)
  is stopped and recorded as such, with its steps and peak memory, while the others finish;
- Ctrl-C on the process group, or SIGINT to the sweep alone, ends it within seconds with exit 130
  and no traceback, and the next run runs the interrupted points and skips the finished ones;
- changed metrics are recomputed from the stored points, without simulating;
- --workers beyond 4 per core exits 2; no more workers start than there are points to run."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import coulomb
from coulomb import metrics
from conftest import SCENES, run_cli


def write_spec(path, spec):
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)
    return str(path)


def sweep(exe, *args, timeout=240):
    return subprocess.run([exe, "sweep", *args], capture_output=True, text=True, timeout=timeout)


def records(out):
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)["points"]


def small_funnel(count=8, steps=80):
    """The funnel scene's first three layers with `count` objects each (spheres, boxes, mesh jacks)."""
    gens = coulomb.read_scene(os.path.join(SCENES, "funnel.json"))["generators"][:3]
    for g in gens:
        g["count"] = count
    return {"/generators": gens, "/time": {"dt": 0.01, "steps": steps}}


FUNNEL_METRICS = {"mean_z": "mean(z[moving])", "passed": "mean(z[moving] < 0.6)",
                  "max_pen": "max(stat('max_penetration'))", "iterations": "int(sum(stat('iterations')))"}


def test_local_cluster_equals_the_cli_one_by_one(coulomb_exe, tmp_path):
    spec = write_spec(tmp_path / "spec.json", {
        "format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "funnel.json"), "set": small_funnel(),
        "parameters": {"friction": ["/materials/stone/friction", "/materials/steel/friction"]},
        "grid": {"friction": [0.1, 0.9]}, "seeds": [1, 2], "metrics": FUNNEL_METRICS})
    out = str(tmp_path / "out")
    p = sweep(coulomb_exe, spec, "--out", out, "--workers", "2")
    assert p.returncode == 0, p.stderr
    assert "running on 2 worker(s)" in p.stderr
    recs = records(out)
    assert [r["point"] for r in recs] == [0, 1, 2, 3]
    assert [(r["parameters"]["friction"], r["seed"]) for r in recs] == [(0.1, 1), (0.1, 2), (0.9, 1), (0.9, 2)]
    assert all(r["status"] == "ok" and r["steps"] == 80 and r["worker"].startswith("tcp://127.0.0.1:") for r in recs)
    # the seeds reached the generators: 1000 * seed + k
    assert recs[1]["overrides"][-3:] == ["/generators/0/seed=2000", "/generators/1/seed=2001", "/generators/2/seed=2002"]

    # each point again, one by one with the CLI, from the scene file and its meshes on disk
    scene = os.path.join(SCENES, "funnel.json")
    for r in recs:
        run_dir = tmp_path / f"cli{r['point']}"
        run_cli(coulomb_exe, "run", scene, "--out", str(run_dir), "--quiet", *[f"--set={o}" for o in r["overrides"]])
        fixed = coulomb.World(scene, overrides=r["overrides"]).fixed
        expected = metrics.evaluate(metrics.compile_metrics(FUNNEL_METRICS), metrics.context_from_files(run_dir, fixed))
        assert r["metrics"] == expected, f"point {r['point']}"
    # different frictions and seeds gave different runs
    assert len({r["metrics"]["mean_z"] for r in recs}) == 4

    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    assert [row["status"] for row in rows] == ["ok"] * 4
    assert [float(row["mean_z"]) for row in rows] == [r["metrics"]["mean_z"] for r in recs]
    for m in FUNNEL_METRICS:
        with open(os.path.join(out, "plots", f"{m}_vs_friction.png"), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def start(args, log):
    return subprocess.Popen([sys.executable, "-m", *args], stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def test_killing_a_worker_mid_sweep_completes_every_point(coulomb_exe, tmp_path):
    from distributed import Client
    sched_file = str(tmp_path / "scheduler.json")
    log = open(tmp_path / "cluster.log", "w")
    procs = [start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", sched_file], log)]
    try:
        deadline = time.time() + 60
        while not os.path.exists(sched_file) and time.time() < deadline:
            time.sleep(0.2)
        for name in ("w0", "w1"):
            procs.append(start(["distributed.cli.dask_worker", "--scheduler-file", sched_file, "--nthreads", "1",
                                "--no-nanny", "--host", "127.0.0.1", "--no-dashboard", "--name", name], log))
        client = Client(scheduler_file=sched_file, timeout=60)
        client.wait_for_workers(2, timeout=60)
        address = client.scheduler.address
        by_pid = {pid: a for a, pid in client.run(os.getpid).items()}
        victim, survivor = procs[1], procs[2]

        n = 8
        spec = write_spec(tmp_path / "spec.json", {
            "format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"),
            "set": {"/generators/0/count": 120}, "steps": 100,
            "grid": {"/materials/glass/friction": [0.1 * (k + 1) for k in range(n)]},
            "metrics": {"mean_z": "mean(z[moving])"}})
        out = str(tmp_path / "out")
        sweep_log = open(tmp_path / "sweep.log", "w")
        sw = subprocess.Popen([coulomb_exe, "sweep", spec, "--out", out, "--scheduler", address],
                              stdout=sweep_log, stderr=subprocess.STDOUT)
        # kill one worker once the first point is in: the others are queued or running on both
        points_dir = os.path.join(out, "points")
        deadline = time.time() + 120
        while time.time() < deadline and sw.poll() is None:
            if os.path.isdir(points_dir) and any(f.endswith(".json") for f in os.listdir(points_dir)):
                break
            time.sleep(0.05)
        done_at_kill = len([f for f in os.listdir(points_dir) if f.endswith(".json")])
        assert sw.poll() is None and done_at_kill < n, "the sweep ended before a worker could be killed"
        # the victim holds points: one running, maybe more queued
        held = client.processing(workers=[by_pid[victim.pid]])[by_pid[victim.pid]]
        os.kill(victim.pid, signal.SIGKILL)
        assert held, "the killed worker had no point"
        victim.wait()
        assert sw.wait(timeout=180) == 0, open(tmp_path / "sweep.log").read()
        client.close()
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()
    recs = records(out)
    assert len(recs) == n and all(r["status"] == "ok" for r in recs), recs
    # the survivor ran everything that was not finished when the other died
    assert sum(r["worker"] == by_pid[survivor.pid] for r in recs) >= n - done_at_kill
    print(f"killed worker {by_pid[victim.pid]} holding {len(held)} point(s) after {done_at_kill} of {n} points "
          f"were done; the survivor ran {sum(r['worker'] == by_pid[survivor.pid] for r in recs)}")


def test_resume_skips_done_points_and_records_failures(coulomb_exe, tmp_path):
    pointer = "/materials/glass/friction"
    spec_doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"),
                "set": {"/generators/0/count": 20}, "steps": 30,
                "points": [{pointer: 0.3}, {pointer: 0.6}, {pointer: -1.0}],
                "metrics": {"mean_z": "mean(z[moving])", "contacts": "int(stat('contacts')[-1])"}}
    spec = write_spec(tmp_path / "spec.json", spec_doc)
    out = str(tmp_path / "out")
    first = sweep(coulomb_exe, spec, "--out", out, "--workers", "1")
    assert first.returncode == 1, first.stderr  # a failed point: the sweep finishes, exit 1
    recs = records(out)
    assert [r["status"] for r in recs] == ["ok", "ok", "failed"]
    assert recs[2]["error"].startswith("invalid scene: /materials/glass/friction: ")
    assert "point 2 failed: invalid scene: /materials/glass/friction" in first.stderr

    def mtimes():
        return {f: os.stat(os.path.join(out, "points", f)).st_mtime_ns for f in os.listdir(os.path.join(out, "points"))}
    before = mtimes()
    again = sweep(coulomb_exe, spec, "--out", out, "--workers", "1")
    assert again.returncode == 1
    assert "3 points, 3 already done" in again.stderr and "0 to run" in again.stderr
    assert mtimes() == before

    os.remove(os.path.join(out, "points", "1.json"))
    third = sweep(coulomb_exe, spec, "--out", out, "--workers", "1", "--retry-failed")
    assert "3 points, 1 already done" in third.stderr and "2 to run" in third.stderr, third.stderr
    recs3 = records(out)
    assert [r["status"] for r in recs3] == ["ok", "ok", "failed"]
    assert recs3[1]["metrics"] == recs[1]["metrics"]  # the same run again
    assert os.stat(os.path.join(out, "points", "0.json")).st_mtime_ns == before["0.json"]

    spec_doc["steps"] = 31
    other = write_spec(tmp_path / "other.json", spec_doc)
    refused = sweep(coulomb_exe, other, "--out", out)
    assert refused.returncode == 2 and "holds the results of another sweep" in refused.stderr


@pytest.mark.parametrize("change,pointer", [
    ({"grdi": {}}, "/grdi: unknown key (did you mean 'grid'?)"),
    ({"grid": {"frction": [1]}, "parameters": {"friction": ["/materials/glass/friction"]}},
     "/grid/frction: 'frction' is neither a JSON pointer nor a name from \"parameters\" (did you mean 'friction'?)"),
    ({"metrics": {"m": "mean(z["}}, "/metrics/m: invalid expression"),
    ({"set": {"/solver/max_iterations": -1}}, "/solver/max_iterations"),
    ({"seeds": [1], "seed_pointers": ["gens"]}, "/seed_pointers/0: expected a JSON pointer"),
    ({"limits": {"time": 5}}, "/limits/time: unknown key (did you mean 'time_s'?)"),
    ({"limits": {"memory_mb": -1}}, "/limits/memory_mb: expected a positive number"),
])
def test_bad_specs_exit_2_naming_the_pointer(coulomb_exe, tmp_path, change, pointer):
    doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"),
           "grid": {"/materials/glass/friction": [0.1]}, "metrics": {"m": "mean(z)"}}
    doc.update(change)
    p = sweep(coulomb_exe, write_spec(tmp_path / "bad.json", doc), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and pointer in p.stderr, p.stderr


def tiny_pile(count=5):
    return {"/generators/0/count": count}


def test_points_past_their_limits_are_stopped_and_recorded(coulomb_exe, tmp_path):
    # a short point; a long one (10^7 steps) past the time limit; two past the memory limit, whose
    # metric allocates (numpy.ones; the check before the sweep sees 10 bodies and allocates
    # nothing): 8 GB at once with 11 bodies, 280 MB filled with 12
    spec = write_spec(tmp_path / "spec.json", {
        "format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"), "set": tiny_pile(),
        "points": [{"/time": {"dt": 0.01, "steps": n}, "/generators/0/count": c} for n, c in
                   ((10, 5), (10**7, 5), (10, 6), (10, 7))],
        "limits": {"time_s": 1000, "memory_mb": 100000},
        "metrics": {"mean_z": "mean(z[moving])", "hog": "float(np.ones(int(1e9) * (len(names) == 11) + int(3.5e7) * (len(names) == 12)).sum())"}})
    out = str(tmp_path / "out")
    t0 = time.time()
    # the command line's limits win over the spec's
    p = sweep(coulomb_exe, spec, "--out", out, "--workers", "2", "--point-time-limit", "3",
              "--point-memory-limit", "200", "--no-plots")
    wall = time.time() - t0
    assert p.returncode == 1, p.stderr
    ok, slow, big, filled = records(out)
    assert ok["status"] == "ok" and ok["steps"] == 10 and ok["metrics"]["hog"] == 0 and ok["peak_mb"] < 200
    assert slow["status"] == "time limit" and 0 < slow["steps"] < 10**7, slow
    assert slow["error"].startswith("stopped at 3 s after ") and "peak memory" in slow["error"]
    assert slow["limits"] == {"time_s": 3, "memory_mb": 200}
    # stopped far below the 8 GB it asked for
    assert big["status"] == "memory limit" and big["error"].startswith("200 MB reached") and big["steps"] == 10, big
    assert big["peak_mb"] < 200 + 300
    assert filled["status"] == "memory limit" and filled["error"].startswith("200 MB reached") and filled["peak_mb"] > 200
    assert "point 1 time limit: stopped at 3 s" in p.stderr and "point 2 memory limit: 200 MB reached" in p.stderr
    assert "CancelledError" not in p.stderr and "Traceback" not in p.stderr
    print(f"time limit: {slow['steps']} steps in {slow['wall_s']} s; memory limit: {big['error']}; {filled['error']}; "
          f"sweep {wall:.1f} s")


def test_interrupting_ends_promptly_and_the_next_run_resumes(coulomb_exe, tmp_path):
    spec = write_spec(tmp_path / "spec.json", {
        "format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"), "set": tiny_pile(),
        "points": [{"/time": {"dt": 0.01, "steps": n}} for n in (10, 10, 10**7, 10**7)],
        "metrics": {"mean_z": "mean(z[moving])"}})
    out = str(tmp_path / "out")
    points_dir = os.path.join(out, "points")

    def interrupt(after_records, to_group):
        log = open(tmp_path / "sweep.log", "w+")
        sw = subprocess.Popen([coulomb_exe, "sweep", spec, "--out", out, "--workers", "2", "--no-plots"],
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline and sw.poll() is None:
            log.seek(0)
            text = log.read()
            n = len([f for f in os.listdir(points_dir) if f.endswith(".json")]) if os.path.isdir(points_dir) else 0
            if n >= after_records and "running on 2 worker(s)" in text:
                break
            time.sleep(0.1)
        time.sleep(1.0)  # the long points are running
        assert sw.poll() is None, "the sweep ended before it could be interrupted"
        t = time.time()
        if to_group:  # Ctrl-C in a terminal
            os.killpg(sw.pid, signal.SIGINT)
        else:
            os.kill(sw.pid, signal.SIGINT)
        rc = sw.wait(timeout=60)
        log.seek(0)
        return rc, time.time() - t, log.read()

    rc, took, text = interrupt(2, to_group=True)
    assert rc == 130, text
    assert took < 10, f"{took:.1f} s from Ctrl-C to exit"
    assert "Traceback" not in text and "Error" not in text, text
    assert sorted(f for f in os.listdir(points_dir) if f.endswith(".json")) == ["0.json", "1.json"]
    # the same command again: the two finished points are kept, the interrupted ones run
    rc2, took2, text2 = interrupt(2, to_group=False)
    assert "4 points, 2 already done" in text2 and "2 to run" in text2, text2
    assert rc2 == 130 and took2 < 10 and "Traceback" not in text2, text2
    assert [r["status"] for r in records(out)] == ["ok", "ok"]
    print(f"Ctrl-C on the group: exit after {took:.2f} s; SIGINT to the sweep: {took2:.2f} s")


def test_changed_metrics_are_recomputed_from_the_stored_points(coulomb_exe, tmp_path):
    doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"), "set": tiny_pile(10),
           "steps": 20, "grid": {"/materials/glass/friction": [0.2, 0.8]},
           "metrics": {"mean_z": "mean(z[moving])", "contacts": "int(stat('contacts')[-1])"}}
    out = str(tmp_path / "out")
    first = sweep(coulomb_exe, write_spec(tmp_path / "spec.json", doc), "--out", out, "--workers", "3", "--no-plots")
    assert first.returncode == 0, first.stderr
    assert "starting 2 worker(s), one per point to run, not 3" in first.stderr
    before = records(out)
    assert all(r["stats_keys"] == ["contacts"] and r["data"] == f"{r['point']}.npz" for r in before)
    # another metric over the same stats column, in the same folder: no point runs again
    doc["metrics"] = {"mean_z": "mean(z[moving])", "top": "max(z) + int(stat('contacts')[-1])"}
    again = sweep(coulomb_exe, write_spec(tmp_path / "spec.json", doc), "--out", out, "--no-plots")
    assert again.returncode == 0, again.stderr
    assert "2 already done in" in again.stderr and "(2 with their metrics recomputed" in again.stderr
    assert "0 to run" in again.stderr and "running on" not in again.stderr
    after = records(out)
    for b, a in zip(before, after):
        assert a["metrics"]["mean_z"] == b["metrics"]["mean_z"] and a["wall_s"] == b["wall_s"]
        assert a["metrics"]["top"] > b["metrics"]["contacts"]
    with open(os.path.join(out, "results.csv")) as f:
        assert next(csv.reader(f))[2:5] == ["status", "mean_z", "top"]


@pytest.mark.parametrize("metric,message", [
    ("maen(z)", "/metrics/m: NameError: name 'maen' is not defined"),
    ("max(stat('max_penetraton'))", "/metrics/m: StatsKeyError: no stats column 'max_penetraton'"),
    ("z[moving]", "/metrics/m: TypeError: gave an array of shape"),
])
def test_metric_mistakes_exit_2_before_any_point_runs(coulomb_exe, tmp_path, metric, message):
    doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"), "set": tiny_pile(),
           "grid": {"/materials/glass/friction": [0.1]}, "metrics": {"ok": "max(z[z > 100])", "m": metric}}
    p = sweep(coulomb_exe, write_spec(tmp_path / "bad.json", doc), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert "/metrics/ok" not in p.stderr  # an empty selection depends on the run: not a mistake
    assert not os.path.exists(tmp_path / "out")


def test_absurd_worker_counts_exit_2(coulomb_exe, tmp_path):
    doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"),
           "grid": {"/materials/glass/friction": [0.1]}, "metrics": {"m": "mean(z)"}}
    t0 = time.time()
    p = sweep(coulomb_exe, write_spec(tmp_path / "spec.json", doc), "--out", str(tmp_path / "out"), "--workers", "100000")
    assert p.returncode == 2 and "--workers 100000 is more than 4 per core" in p.stderr, p.stderr
    assert time.time() - t0 < 10
