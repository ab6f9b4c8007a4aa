"""`coulomb sweep` on Dask (python/README.md "Sweeps"), end to end through the CLI:
- a local cluster of 2 worker processes on 127.0.0.1 gives exactly the results of the same
  points run one by one with `coulomb run` (a funnel with its meshes, shipped to the workers);
- killing a worker of a cluster (`dask scheduler` + 2 `dask worker`) mid-sweep still completes
  every point, the other worker taking over;
- re-running resumes: done points are skipped, failed ones are recorded with their error and
  run again only with --retry-failed; another spec in the same folder is refused;
- bad specs exit 2 naming the JSON pointer."""
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
])
def test_bad_specs_exit_2_naming_the_pointer(coulomb_exe, tmp_path, change, pointer):
    doc = {"format": "coulomb-sweep/1", "scene": os.path.join(SCENES, "sphere_pile.json"),
           "grid": {"/materials/glass/friction": [0.1]}, "metrics": {"m": "mean(z)"}}
    doc.update(change)
    p = sweep(coulomb_exe, write_spec(tmp_path / "bad.json", doc), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and pointer in p.stderr, p.stderr
