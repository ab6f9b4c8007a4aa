"""`coulomb sweep SPEC.json --out DIR`: a parameter sweep, every point an independent simulation on
a Dask cluster (python/README.md "Sweeps").

    coulomb sweep sweeps/funnel_friction.json --out out/funnel-sweep              # LocalCluster, all cores
    coulomb sweep SPEC.json --out DIR --workers 2                                 # two local worker processes
    coulomb sweep SPEC.json --out DIR --scheduler tcp://10.0.0.5:8786             # an existing cluster

The `coulomb` executable runs this module (`python3 -m coulomb.sweep`) with Debian's python3.

DIR/points/N.json holds each finished point (written as it finishes, atomically); at the end
DIR/results.csv, DIR/results.json and DIR/plots/METRIC_vs_PARAMETER.png are made from them.
Running the same command again skips the points already in DIR/points (--retry-failed runs the
failed ones again), so an interrupted sweep resumes. DIR/sweep.json records which spec and scene
the folder belongs to; another spec or a changed scene in the same DIR is refused.

Exit codes: 0 every point ok; 1 the sweep finished but some points failed (each recorded with its
error) or the cluster could not be used; 2 an invalid spec, scene or argument; 130 interrupted
(what finished is kept).
"""
import argparse
import csv
import hashlib
import json
import os
import sys
import time

from . import metrics, sweep_point, sweep_spec

RESULTS_FORMAT = "coulomb-sweep-results/1"


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def _write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _fingerprint(spec, scene_doc, files):
    """What the results in DIR depend on: the spec, the scene document and the files it reads."""
    h = hashlib.sha256()
    h.update(json.dumps(spec.doc, sort_keys=True).encode())
    h.update(json.dumps(scene_doc, sort_keys=True).encode())
    for p in sorted(files):
        h.update(p.encode() + b"\0" + hashlib.sha256(files[p]).digest())
    return h.hexdigest()


def _point_label(pt):
    parts = [f"{k}={json.dumps(v)}" for k, v in pt["parameters"].items()]
    if pt["seed"] is not None:
        parts.append(f"seed={pt['seed']}")
    return f"point {pt['point']}" + (f" ({', '.join(parts)})" if parts else "")


def _record(pt, result):
    """The stored record of a finished point."""
    return {"point": pt["point"], "parameters": pt["parameters"], "seed": pt["seed"],
            "overrides": sweep_spec.override_strings(pt["overrides"]), "status": result["status"],
            "metrics": {k: metrics.finite_or_none(v) for k, v in result["metrics"].items()},
            "error": result["error"], "steps": result["steps"], "time": result["time"],
            "wall_s": round(result["wall_s"], 3), "worker": result["worker"]}


def _load_done(points_dir, pts, retry_failed):
    done = {}
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
        if rec.get("status") == "ok" or (rec.get("status") == "failed" and not retry_failed):
            done[pt["point"]] = rec
    return done


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


def _client(args):
    """A Dask client: on the given scheduler, or on a LocalCluster of worker processes."""
    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler, timeout=args.connect_timeout), None
    cluster = LocalCluster(n_workers=args.workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None)
    return Client(cluster), cluster


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
        # the base of every point must be a valid scene; a point's own overrides may still fail (recorded)
        coulomb.validate(base_doc, base_dir=os.path.dirname(spec.scene))
    except coulomb.SceneError as e:
        _log(f"coulomb sweep: the sweep's scene {spec.scene} (with \"set\", \"solver\", \"steps\", \"dt\") is invalid: {e}")
        return 2
    except sweep_spec.SpecError as e:
        _log(f"coulomb sweep: invalid spec {args.spec}: {e}")
        return 2

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
        tasks[pt["point"]] = {"point": pt["point"], "scene": doc, "metrics": spec.metrics, "threads": args.threads}
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
        if old.get("fingerprint") != fingerprint:
            _log(f"coulomb sweep: {out} holds the results of another sweep ({old.get('spec')}; its spec, scene or "
                 "meshes differ from this one's): give another --out, or delete the folder to start over")
            return 2
    else:
        _write_atomic(marker, json.dumps({"spec": spec.path, "scene": spec.scene, "fingerprint": fingerprint,
                                          "points": len(pts)}, indent=1) + "\n")

    done = _load_done(points_dir, pts, args.retry_failed)
    for i, error in failed_early.items():
        if i not in done:
            pt = pts[i]
            rec = _record(pt, {"status": "failed", "metrics": {}, "error": error, "steps": 0, "time": 0.0,
                               "wall_s": 0.0, "worker": None})
            _write_atomic(os.path.join(points_dir, f"{i}.json"), json.dumps(rec, indent=1) + "\n")
            done[i] = rec
    todo = [pt for pt in pts if pt["point"] not in done]
    _log(f"coulomb sweep: {len(pts)} points, {len(pts) - len(todo)} already done in {out}, {len(todo)} to run")

    t0 = time.perf_counter()
    interrupted = cluster_error = False
    workers = 0
    if todo:
        try:
            client, cluster = _client(args)
        except ImportError as e:
            _log(f"coulomb sweep: Dask is not installed for {sys.executable} (Debian: python3-distributed): {e}")
            return 1
        except (OSError, TimeoutError) as e:
            _log(f"coulomb sweep: cannot reach the Dask scheduler {args.scheduler}: {e}")
            return 1
        try:
            from distributed import as_completed
            workers = len(client.scheduler_info().get("workers", {}))
            _log(f"coulomb sweep: running on {workers} worker(s) of {client.scheduler.address}")
            # the files once to every worker (in a list: Dask scatters a dict's values under its keys);
            # each task as JSON text, which Dask passes through untouched (it would replace any
            # string of a nested argument that equals the name of a Dask key)
            [files_future] = client.scatter([files], broadcast=True, hash=False)
            futures = {}
            for pt in todo:
                f = client.submit(sweep_point.run_point, files_future, json.dumps(tasks[pt["point"]]), pure=False,
                                  key=f"coulomb-point-{pt['point']}-{fingerprint[:10]}-{os.getpid()}")
                futures[f] = pt
            finished = 0
            for f in as_completed(list(futures)):
                pt = futures[f]
                try:
                    result = f.result()
                except Exception as e:  # the point's task itself was lost (e.g. its workers kept dying)
                    result = {"status": "failed", "metrics": {}, "error": f"{type(e).__name__}: {e}", "steps": 0,
                              "time": 0.0, "wall_s": 0.0, "worker": None}
                rec = _record(pt, result)
                _write_atomic(os.path.join(points_dir, f"{pt['point']}.json"), json.dumps(rec, indent=1) + "\n")
                done[pt["point"]] = rec
                finished += 1
                if not args.quiet:
                    what = "ok" if rec["status"] == "ok" else f"FAILED: {rec['error']}"
                    _log(f"[{finished}/{len(todo)}] {_point_label(pt)}: {what} ({rec['wall_s']:.2f} s on {rec['worker']})")
                f.release()
        except KeyboardInterrupt:
            interrupted = True
        except Exception as e:  # the cluster itself failed (scheduler lost, ...): keep what finished
            _log(f"coulomb sweep: error from the Dask cluster: {type(e).__name__}: {e}")
            cluster_error = True
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    wall = time.perf_counter() - t0

    records = _write_results(out, spec, pts, done, spec.scene)
    plots = [] if args.no_plots else _plots(out, spec, records)
    ok = sum(r["status"] == "ok" for r in records)
    failed = [r for r in records if r["status"] != "ok"]
    _log(f"coulomb sweep: {len(records)} of {len(pts)} points done ({ok} ok, {len(failed)} failed); "
         f"ran {len(todo)} in {wall:.1f} s on {workers} worker(s); results in {out}/results.csv, results.json"
         + (f", {len(plots)} plots in {out}/plots" if plots else ""))
    if interrupted:
        _log("coulomb sweep: interrupted; run the same command again to resume")
        return 130
    for r in failed:
        _log(f"  point {r['point']} failed: {r['error']}")
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
                       help="local worker processes (default: one per core), on 127.0.0.1")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads of each simulation (World threads; 0 = all cores; default 1)")
    p.add_argument("--retry-failed", action="store_true", help="run the points recorded as failed again")
    p.add_argument("--no-plots", action="store_true", help="do not draw plots")
    p.add_argument("--connect-timeout", type=float, default=30.0, metavar="S", help="seconds to reach --scheduler")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per finished point")
    p.add_argument("--log-level", default=None, metavar="LEVEL", help="the library's diagnostics (coulomb --log-level)")
    args = p.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be >= 1")
    if args.threads < 0:
        p.error("--threads must be >= 0")
    if args.log_level:
        import coulomb
        try:
            coulomb.set_log_level(args.log_level)
        except coulomb.SceneError as e:
            p.error(str(e))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
