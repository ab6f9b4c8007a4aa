"""`coulomb sweep SPEC.json --out DIR`: a parameter sweep, every point an independent simulation on
a Dask cluster (python/README.md "Sweeps").

    coulomb sweep sweeps/funnel_friction.json --out out/funnel-sweep              # LocalCluster, all cores
    coulomb sweep SPEC.json --out DIR --workers 2                                 # two local worker processes
    coulomb sweep SPEC.json --out DIR --scheduler tcp://10.0.0.5:8786             # an existing cluster
    coulomb sweep SPEC.json --out DIR --point-time-limit 600 --point-memory-limit 2000   # per point: s, MB

The `coulomb` executable runs this module (`python3 -m coulomb.sweep`) with Debian's python3.

DIR/points/N.json holds each finished point (written as it finishes, atomically), and
DIR/points/N.npz what its metrics read (final state, fixed flags, the stats columns the metrics
name); at the end DIR/results.csv, DIR/results.json and DIR/plots/METRIC_vs_PARAMETER.png are
made from them. Running the same command again skips the points already in DIR/points
(--retry-failed runs the failed ones again, and the ones stopped by a limit), so an interrupted
sweep resumes; a point whose metrics changed in the spec is recomputed from its N.npz without
simulating, unless it lacks a stats column that the new metrics read. DIR/sweep.json records
which spec and scene the folder belongs to; another spec (other than its "metrics", "limits"
and "description") or a changed scene in the same DIR is refused.

Every metric is evaluated on the scene's initial state before any point runs: a misspelt name or
stats column exits 2 naming the metric. Each point runs in a process of its own, held to a wall
time and a memory limit (spec "limits", --point-time-limit, --point-memory-limit; sweep_point.py).

Exit codes: 0 every point ok; 1 the sweep finished but some points failed or hit a limit (each
recorded with its error) or the cluster could not be used; 2 an invalid spec, scene, metric or
argument; 130 interrupted by SIGINT, 143 by SIGTERM (what finished is kept; the interrupted
points run again on the next run).
"""
import argparse
import csv
import hashlib
import json
import logging
import os
import signal
import sys
import time
import zipfile
from concurrent.futures import CancelledError

from . import metrics, sweep_point, sweep_spec

RESULTS_FORMAT = "coulomb-sweep-results/1"
# the spec keys that results do not depend on: a folder is reused when only these change
NOT_FINGERPRINTED = ("description", "metrics", "limits")
WORKERS_PER_CORE = 4  # --workers beyond this many per core only adds processes that wait
STOPPED = ("failed", "time limit", "memory limit")  # statuses a re-run keeps unless --retry-failed


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def _write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _fingerprint(spec, scene_doc, files, whole_spec=False):
    """What the results in DIR depend on: the spec (but NOT_FINGERPRINTED; whole_spec: all of it,
    as folders written before metrics could be recomputed hold), the scene and the files it reads."""
    h = hashlib.sha256()
    doc = spec.doc if whole_spec else {k: v for k, v in spec.doc.items() if k not in NOT_FINGERPRINTED}
    h.update(json.dumps(doc, sort_keys=True).encode())
    h.update(json.dumps(scene_doc, sort_keys=True).encode())
    for p in sorted(files):
        h.update(p.encode() + b"\0" + hashlib.sha256(files[p]).digest())
    return h.hexdigest()


def _point_label(pt):
    parts = [f"{k}={json.dumps(v)}" for k, v in pt["parameters"].items()]
    if pt["seed"] is not None:
        parts.append(f"seed={pt['seed']}")
    return f"point {pt['point']}" + (f" ({', '.join(parts)})" if parts else "")


def _record(pt, result, expressions):
    """The stored record of a finished point; `data` names its N.npz (metrics.pack) if it has one."""
    return {"point": pt["point"], "parameters": pt["parameters"], "seed": pt["seed"],
            "overrides": sweep_spec.override_strings(pt["overrides"]), "status": result["status"],
            "metrics": {k: metrics.finite_or_none(v) for k, v in result["metrics"].items()},
            "error": result["error"], "steps": result["steps"], "time": result["time"],
            "wall_s": round(result["wall_s"], 3), "worker": result["worker"], "peak_mb": result.get("peak_mb"),
            "limits": result.get("limits"), "expressions": expressions,
            "data": f"{pt['point']}.npz" if result.get("simulated") else None,
            "stats_keys": result.get("stats_keys")}


def _covers(stored, needed):
    """Whether stored stats keys (None: all) hold the needed ones (None: all)."""
    return stored is None or (needed is not None and set(needed) <= set(stored))


def _load_done(points_dir, pts, retry_failed, expressions, needed):
    """The points of DIR/points to keep as they are ({point: record}) and those to recompute from
    their N.npz ({point: record}); the others run."""
    done, recompute = {}, {}
    for pt in pts:
        path = os.path.join(points_dir, f"{pt['point']}.json")
        if not os.path.exists(path):
            continue
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, json.JSONDecodeError):
            continue  # a damaged record: run the point again
        if rec.get("parameters") != pt["parameters"] or rec.get("seed") != pt["seed"]:
            continue
        simulated = rec.get("data") and os.path.exists(os.path.join(points_dir, rec["data"]))
        if simulated and (rec.get("expressions") != expressions or (retry_failed and rec.get("status") != "ok")):
            if _covers(rec.get("stats_keys"), needed):
                recompute[pt["point"]] = rec
            continue  # the new metrics read stats columns it did not keep: run it again
        if rec.get("status") == "ok" or (rec.get("status") in STOPPED and not retry_failed):
            done[pt["point"]] = rec
    return done, recompute


def _recompute(points_dir, rec, codes, expressions):
    """A point's record with its metrics evaluated on its stored data, without simulating; None
    if the data cannot be read (the point runs again)."""
    try:
        with open(os.path.join(points_dir, rec["data"]), "rb") as f:
            final, fixed, stats, steps = metrics.unpack(f.read())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    rec = dict(rec, expressions=expressions, metrics={}, status="ok", error=None)
    try:
        values = metrics.evaluate(codes, metrics.context(final, stats, fixed, steps=steps))
        rec["metrics"] = {k: metrics.finite_or_none(v) for k, v in values.items()}
    except metrics.MetricError as e:
        rec["status"], rec["error"] = "failed", str(e)
    return rec


def _check_metrics(spec, base_doc):
    """Evaluates every metric on the base scene's initial state with two zero rows of stats:
    {name: problem} of those that fail whatever a run gives (metrics.check)."""
    import coulomb
    world = coulomb.World(base_doc, base_dir=os.path.dirname(spec.scene))
    stats = metrics.representative_stats(world.run(0))
    ctx = metrics.context(world.final_state(), stats, world.fixed, steps=2)
    return metrics.check(spec.codes, ctx)


def _write_results(out, spec, pts, done, scene_path):
    records = [done[pt["point"]] for pt in pts if pt["point"] in done]
    doc = {"format": RESULTS_FORMAT, "spec": spec.path, "scene": scene_path, "description": spec.description,
           "parameters": spec.keys, "seeded": spec.seeds is not None, "metrics": list(spec.metrics),
           "expressions": spec.metrics, "points_total": len(pts), "points": records}
    _write_atomic(os.path.join(out, "results.json"), json.dumps(doc, indent=1) + "\n")
    columns = ["point"] + spec.keys + (["seed"] if spec.seeds is not None else []) + ["status"] + \
        list(spec.metrics) + ["steps", "wall_s", "worker", "error"]
    tmp = os.path.join(out, f"results.csv.tmp{os.getpid()}")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in records:
            row = [r["point"]]
            row += [v if isinstance(v, (int, float, str)) else json.dumps(v) for v in r["parameters"].values()]
            if spec.seeds is not None:
                row.append(r["seed"])
            row.append(r["status"])
            row += [repr(r["metrics"][m]) if isinstance(r["metrics"].get(m), float) else
                    ("" if r["metrics"].get(m) is None else r["metrics"][m]) for m in spec.metrics]
            row += [r["steps"], r["wall_s"], r["worker"], r["error"] or ""]
            w.writerow(row)
    os.replace(tmp, os.path.join(out, "results.csv"))
    return records


def _plots(out, spec, records):
    """One PNG per metric and swept parameter: every ok point, and the mean over the other
    parameters and the seeds with its range. Returns the files written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _log("coulomb sweep: matplotlib is not installed (Debian: python3-matplotlib): no plots")
        return []
    ok = [r for r in records if r["status"] == "ok"]
    if not ok or not spec.keys:
        return []
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    written = []
    for key in spec.keys:
        values = [r["parameters"][key] for r in ok]
        if any(isinstance(v, (list, dict)) for v in values):
            continue  # vector-valued parameters have no axis
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        levels = sorted(set(values)) if numeric else sorted(set(values), key=str)
        xpos = {v: (v if numeric else i) for i, v in enumerate(levels)}
        safe_key = "".join(c if c.isalnum() or c in "-_" else "_" for c in key).strip("_")
        for m in spec.metrics:
            pts = [(xpos[r["parameters"][key]], r["metrics"][m]) for r in ok
                   if isinstance(r["metrics"].get(m), (int, float))]
            if not pts:
                continue
            fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=110)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", alpha=0.45, color="tab:blue", label="runs")
            xs, mean, lo, hi = [], [], [], []
            for v in levels:
                ys = [y for x, y in pts if x == xpos[v]]
                if ys:
                    xs.append(xpos[v])
                    mean.append(sum(ys) / len(ys))
                    lo.append(mean[-1] - min(ys))
                    hi.append(max(ys) - mean[-1])
            ax.errorbar(xs, mean, yerr=[lo, hi], color="tab:red", marker="s", capsize=3, label="mean (range)")
            if not numeric:
                ax.set_xticks(range(len(levels)), [str(v) for v in levels])
            ax.set_xlabel(key)
            ax.set_ylabel(m)
            ax.set_title(f"{m} vs {key} ({len(pts)} runs)", fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = os.path.join(out, "plots", f"{m}_vs_{safe_key}.png")
            fig.savefig(path)
            plt.close(fig)
            written.append(path)
    return written


class _Interrupted(BaseException):
    """SIGINT or SIGTERM reached the sweep (signum); a BaseException, as KeyboardInterrupt, so that
    no handler of a point's errors takes it."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise _Interrupted(signum)


def _client(args, n_points):
    """A Dask client: on the given scheduler, or on a LocalCluster of worker processes (at most
    one per point to run)."""
    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler, timeout=args.connect_timeout), None
    n = min(args.workers or os.cpu_count() or 1, n_points)
    if args.workers and n < args.workers:
        _log(f"coulomb sweep: starting {n} worker(s), one per point to run, not {args.workers}")
    # the Dask processes start with SIGINT ignored (an ignored signal stays ignored through fork
    # and exec, and Python and asyncio then leave it so), so that Ctrl-C on the process group
    # reaches this process and the points' own processes only: this process then stops the
    # cluster, where Dask's processes would print tracebacks. A Ctrl-C while they start is lost.
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        return Client(cluster), cluster
    finally:
        signal.signal(signal.SIGINT, handler)


def _stop(client, futures):
    """Stops the sweep's points and the cluster without waiting for running points: they are
    cancelled, and their processes killed by their workers (sweep_point.run_point)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break this
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # lost connections are expected now
    try:
        client.cancel(list(futures), force=True)
    except Exception:  # a cluster that is gone already
        pass


def _limits(spec, args):
    """Each point's limits: the command line's, else the spec's (0 on the command line: none)."""
    limits = dict(spec.limits)
    if args.point_time_limit is not None:
        limits["time_s"] = args.point_time_limit or None
    if args.point_memory_limit is not None:
        limits["memory_mb"] = args.point_memory_limit  # 0: none (sweep_point.run_point)
    return limits


def run(args):
    try:
        spec = sweep_spec.load(args.spec)
    except sweep_spec.SpecError as e:
        _log(f"coulomb sweep: invalid spec {args.spec}: {e}")
        return 2
    except OSError as e:
        _log(f"coulomb sweep: cannot read {args.spec}: {e.strerror}")
        return 2

    import coulomb
    try:
        scene_doc = coulomb.read_scene(spec.scene)
        base_doc = coulomb.apply_overrides(scene_doc, solver=spec.solver, steps=spec.steps, dt=spec.dt,
                                           overrides=sweep_spec.override_strings(spec.base))
        seed_pointers = spec.resolve_seeds(base_doc)
        # the base of every point must be a valid scene (a point's own overrides may still fail,
        # recorded), and every metric must evaluate on its initial state
        problems = _check_metrics(spec, base_doc)
    except coulomb.SceneError as e:
        _log(f"coulomb sweep: the sweep's scene {spec.scene} (with \"set\", \"solver\", \"steps\", \"dt\") is invalid: {e}")
        return 2
    except sweep_spec.SpecError as e:
        _log(f"coulomb sweep: invalid spec {args.spec}: {e}")
        return 2
    if problems:
        for name, problem in problems.items():
            _log(f"coulomb sweep: invalid spec {args.spec}: /metrics/{name}: {problem} "
                 "(on the scene's initial state, before any point ran)")
        return 2
    needed = metrics.stats_keys(spec.metrics)
    keep = sorted(needed) if needed is not None else None
    limits = _limits(spec, args)

    # every point's document: the scene with its overrides, as `coulomb run --set ...` makes it
    pts = spec.points(seed_pointers)
    tasks, failed_early, paths = {}, {}, set()
    for pt in pts:
        try:
            doc = coulomb.apply_overrides(scene_doc, solver=spec.solver, steps=spec.steps, dt=spec.dt,
                                          overrides=sweep_spec.override_strings(pt["overrides"]))
        except coulomb.SceneError as e:
            failed_early[pt["point"]] = f"invalid scene: {e}"
            continue
        tasks[pt["point"]] = {"point": pt["point"], "scene": doc, "metrics": spec.metrics, "threads": args.threads,
                              "keep": keep, "limits": limits}
        paths.update(sweep_point.referenced_files(doc))
    files = sweep_point.read_files(os.path.dirname(spec.scene), sorted(paths))
    fingerprint = _fingerprint(spec, scene_doc, files)

    out = args.out
    points_dir = os.path.join(out, "points")
    os.makedirs(points_dir, exist_ok=True)
    marker = os.path.join(out, "sweep.json")
    if os.path.exists(marker):
        with open(marker) as f:
            old = json.load(f)
        if old.get("fingerprint") == _fingerprint(spec, scene_doc, files, whole_spec=True):
            old["fingerprint"] = fingerprint
            _write_atomic(marker, json.dumps(old, indent=1) + "\n")
        if old.get("fingerprint") != fingerprint:
            _log(f"coulomb sweep: {out} holds the results of another sweep ({old.get('spec')}; its spec, scene or "
                 "meshes differ from this one's): give another --out, or delete the folder to start over")
            return 2
    else:
        _write_atomic(marker, json.dumps({"spec": spec.path, "scene": spec.scene, "fingerprint": fingerprint,
                                          "points": len(pts)}, indent=1) + "\n")

    def store(pt, result):
        if result.get("data") is not None:  # first the data, so that a record naming it has it
            tmp = os.path.join(points_dir, f"{pt['point']}.npz.tmp{os.getpid()}")
            with open(tmp, "wb") as f:
                f.write(result["data"])
            os.replace(tmp, os.path.join(points_dir, f"{pt['point']}.npz"))
        rec = _record(pt, result, spec.metrics)
        _write_atomic(os.path.join(points_dir, f"{pt['point']}.json"), json.dumps(rec, indent=1) + "\n")
        return rec

    done, recompute = _load_done(points_dir, pts, args.retry_failed, spec.metrics, needed)
    for i, rec in recompute.items():
        rec = _recompute(points_dir, rec, spec.codes, spec.metrics)
        if rec is not None:
            _write_atomic(os.path.join(points_dir, f"{i}.json"), json.dumps(rec, indent=1) + "\n")
            done[i] = rec
    for i, error in failed_early.items():
        if i not in done:
            done[i] = store(pts[i], {"status": "failed", "metrics": {}, "error": error, "steps": 0, "time": 0.0,
                                     "wall_s": 0.0, "worker": None})
    todo = [pt for pt in pts if pt["point"] not in done]
    recomputed = [i for i in recompute if i in done]
    _log(f"coulomb sweep: {len(pts)} points, {len(pts) - len(todo)} already done in {out}"
         + (f" ({len(recomputed)} with their metrics recomputed from the stored points)" if recomputed else "")
         + f", {len(todo)} to run")

    t0 = time.perf_counter()
    interrupted = None
    cluster_error = False
    workers = 0
    if todo:
        signal.signal(signal.SIGINT, _raise_interrupted)
        signal.signal(signal.SIGTERM, _raise_interrupted)
        client = cluster = None
        futures = {}
        try:
            client, cluster = _client(args, len(todo))
            from distributed import as_completed
            workers = len(client.scheduler_info().get("workers", {}))
            _log(f"coulomb sweep: running on {workers} worker(s) of {client.scheduler.address}")
            # the files once to every worker (in a list: Dask scatters a dict's values under its keys);
            # each task as JSON text, which Dask passes through untouched (it would replace any
            # string of a nested argument that equals the name of a Dask key)
            [files_future] = client.scatter([files], broadcast=True, hash=False)
            for pt in todo:
                f = client.submit(sweep_point.run_point, files_future, json.dumps(tasks[pt["point"]]), pure=False,
                                  key=f"coulomb-point-{pt['point']}-{fingerprint[:10]}-{os.getpid()}")
                futures[f] = pt
            finished = 0
            for f in as_completed(list(futures)):
                pt = futures.pop(f)
                try:
                    result = f.result()
                except CancelledError:  # by the cluster, not the point: the next run runs it
                    result = {"status": "interrupted", "metrics": {}, "error": "cancelled by the Dask cluster",
                              "steps": 0, "time": 0.0, "wall_s": 0.0, "worker": None}
                except Exception as e:  # the point's task itself was lost (e.g. its workers kept dying)
                    result = {"status": "failed", "metrics": {}, "error": f"{type(e).__name__}: {e}", "steps": 0,
                              "time": 0.0, "wall_s": 0.0, "worker": None}
                rec = store(pt, result)
                done[pt["point"]] = rec
                finished += 1
                if not args.quiet:
                    what = "ok" if rec["status"] == "ok" else f"{rec['status'].upper()}: {rec['error']}"
                    _log(f"[{finished}/{len(todo)}] {_point_label(pt)}: {what} ({rec['wall_s']:.2f} s on {rec['worker']})")
                f.release()
        except (ImportError, OSError, TimeoutError) as e:
            if client is None:
                if isinstance(e, ImportError):
                    _log(f"coulomb sweep: Dask is not installed for {sys.executable} (Debian: python3-distributed): {e}")
                else:
                    _log(f"coulomb sweep: cannot reach the Dask scheduler {args.scheduler}: {e}")
                return 1
            _log(f"coulomb sweep: error from the Dask cluster: {type(e).__name__}: {e}")
            cluster_error = True
        except (_Interrupted, KeyboardInterrupt) as e:
            interrupted = e.signum if isinstance(e, _Interrupted) else signal.SIGINT
        except Exception as e:  # the cluster itself failed (scheduler lost, ...): keep what finished
            _log(f"coulomb sweep: error from the Dask cluster: {type(e).__name__}: {e}")
            cluster_error = True
        finally:
            if interrupted is not None:
                _log(f"coulomb sweep: interrupted ({signal.Signals(interrupted).name}); stopping "
                     f"{len(futures)} point(s)")
                if client is not None:
                    _stop(client, futures)
            else:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the cluster closes in any case
            try:
                if client is not None:
                    client.close(timeout=5)
                if cluster is not None:
                    cluster.close(timeout=5)
            except Exception:  # a cluster that is gone already
                pass
            signal.signal(signal.SIGINT, _raise_interrupted)
            signal.signal(signal.SIGTERM, _raise_interrupted)
    wall = time.perf_counter() - t0

    records = _write_results(out, spec, pts, done, spec.scene)
    plots = [] if args.no_plots or interrupted else _plots(out, spec, records)
    ok = sum(r["status"] == "ok" for r in records)
    failed = [r for r in records if r["status"] != "ok"]
    _log(f"coulomb sweep: {len(records)} of {len(pts)} points done ({ok} ok, {len(failed)} not); "
         f"ran {len(todo)} in {wall:.1f} s on {workers} worker(s); results in {out}/results.csv, results.json"
         + (f", {len(plots)} plots in {out}/plots" if plots else ""))
    if interrupted is not None:
        _log("coulomb sweep: interrupted; run the same command again to run the points not done")
        return 128 + interrupted
    for r in failed:
        _log(f"  point {r['point']} {r['status']}: {r['error']}")
    if cluster_error or len(records) < len(pts):
        _log("coulomb sweep: not every point ran; run the same command again to resume")
        return 1
    return 1 if failed else 0


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="coulomb sweep",
        description="Run a parameter sweep on Dask: every point of SPEC.json an independent simulation; "
                    "results in DIR/results.csv, DIR/results.json and DIR/plots. Re-running resumes.")
    p.add_argument("spec", metavar="SPEC.json", help="sweep spec (coulomb-sweep/1, python/README.md)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created; reused to resume)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="an existing Dask scheduler (`dask scheduler`, workers from `dask worker`)")
    where.add_argument("--workers", type=int, metavar="N",
                       help=f"local worker processes (default: one per core; at most {WORKERS_PER_CORE} per core, "
                            "and no more than the points to run), on 127.0.0.1")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads of each simulation (World threads; 0 = all cores; default 1)")
    p.add_argument("--point-time-limit", type=float, metavar="S",
                   help="stop a point after S seconds of wall time (default: the spec's \"limits\", else none; 0: none)")
    p.add_argument("--point-memory-limit", type=float, metavar="MB",
                   help="stop a point whose process holds more than MB megabytes (default: the spec's \"limits\", "
                        "else the worker machine's RAM over its cores; 0: none)")
    p.add_argument("--retry-failed", action="store_true",
                   help="run the points recorded as failed, or stopped by a limit, again")
    p.add_argument("--no-plots", action="store_true", help="do not draw plots")
    p.add_argument("--connect-timeout", type=float, default=30.0, metavar="S", help="seconds to reach --scheduler")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per finished point")
    p.add_argument("--log-level", default=None, metavar="LEVEL", help="the library's diagnostics (coulomb --log-level)")
    args = p.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be >= 1")
    cores = os.cpu_count() or 1
    if args.workers is not None and args.workers > WORKERS_PER_CORE * cores:
        p.error(f"--workers {args.workers} is more than {WORKERS_PER_CORE} per core ({WORKERS_PER_CORE * cores} on "
                f"this machine's {cores} cores): more local processes only wait for the cores; for more machines use "
                "--scheduler")
    for name in ("point_time_limit", "point_memory_limit"):
        value = getattr(args, name)
        if value is not None and not (0 <= value < float("inf")):
            p.error(f"--{name.replace('_', '-')} must be a number >= 0 (0: no limit)")
    if args.threads < 0:
        p.error("--threads must be >= 0")
    if args.log_level:
        import coulomb
        try:
            coulomb.set_log_level(args.log_level)
        except coulomb.SceneError as e:
            p.error(str(e))
    try:
        return run(args)
    except (_Interrupted, KeyboardInterrupt) as e:  # before the points ran, or while plotting
        signum = e.signum if isinstance(e, _Interrupted) else signal.SIGINT
        _log(f"coulomb sweep: interrupted ({signal.Signals(signum).name})")
        return 128 + signum


if __name__ == "__main__":
    sys.exit(main())
