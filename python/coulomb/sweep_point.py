"""One point of a sweep, run on a Dask worker (coulomb.sweep submits run_point).

A worker gets the scene as a dict with the point's overrides already applied (the document
`coulomb run --set ...` would validate), and the files the scene reads (meshes) as bytes, so a
worker needs the installed package but neither the scene nor a shared filesystem. The files are
written once per worker process into a private temporary folder, at the same relative paths as
beside the scene file; a scene that names a file by an absolute path reads it on the worker.
"""
import hashlib
import json
import os
import socket
import tempfile
import time

from . import metrics

_materialized = {}  # payload digest -> base folder, per worker process


def referenced_files(doc):
    """The relative file paths a scene document reads: shapes' "file", soft meshes' "surface"/"file"
    (a TetGen .node file brings its .ele)."""
    paths = []
    shapes = doc.get("shapes")
    for shape in shapes.values() if isinstance(shapes, dict) else []:
        if isinstance(shape, dict) and isinstance(shape.get("file"), str):
            paths.append(shape["file"])
    soft = doc.get("soft_bodies")
    for body in soft if isinstance(soft, list) else []:
        mesh = body.get("mesh") if isinstance(body, dict) else None
        if not isinstance(mesh, dict):
            continue
        for key in ("surface", "file"):
            if isinstance(mesh.get(key), str):
                paths.append(mesh[key])
                if mesh[key].endswith(".node"):
                    paths.append(mesh[key][: -len(".node")] + ".ele")
    return sorted({p for p in paths if not os.path.isabs(p)})


def read_files(base_dir, paths):
    """{relative path: bytes} of the files that exist (a missing one is the scene's error, reported by the run)."""
    out = {}
    for p in paths:
        full = os.path.join(base_dir, p)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out[p] = f.read()
    return out


def _materialize(files):
    """Writes the files into a temporary folder (once per payload) and returns the scenes' base folder."""
    digest = hashlib.sha256()
    for p in sorted(files):
        digest.update(p.encode() + b"\0" + hashlib.sha256(files[p]).digest())
    key = digest.hexdigest()
    if key in _materialized:
        return _materialized[key]
    root = tempfile.mkdtemp(prefix="coulomb-sweep-")
    # paths that climb out of the scene's folder ("../meshes/x.obj") stay inside root: the base
    # folder sits as deep as the deepest climb
    depth = max([len([c for c in os.path.normpath(p).split(os.sep) if c == ".."]) for p in files] + [0])
    base = os.path.join(root, *(["scene"] * (depth + 1)))
    os.makedirs(base)
    for p, data in files.items():
        full = os.path.normpath(os.path.join(base, p))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    _materialized[key] = base
    return base


def _worker_name():
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return socket.gethostname()


def run_point(files, task_json):
    """Runs one point; never raises for the point's own failures: they come back as status "failed".

    task_json: JSON text of {"point", "scene" (dict, overrides applied), "metrics" ({name:
    expression}), "threads"}.
    Returns {"point", "status", "metrics", "error", "steps", "time", "wall_s", "worker"}.
    """
    import coulomb  # on the worker

    t0 = time.perf_counter()
    task = json.loads(task_json)
    out = {"point": task["point"], "status": "failed", "metrics": {}, "error": None, "steps": 0, "time": 0.0,
           "worker": _worker_name()}
    world = None
    try:
        base = _materialize(files)
        world = coulomb.World(task["scene"], base_dir=base, threads=task.get("threads", 1))
        stats = world.run()
        final = world.final_state()
        codes = metrics.compile_metrics(task["metrics"])
        out["metrics"] = metrics.evaluate(codes, metrics.context(final, stats, world.fixed))
        out["status"] = "ok"
    except coulomb.SceneError as e:
        out["error"] = f"invalid scene: {e}"
    except coulomb.SimulationError as e:
        out["error"] = f"simulation {'became invalid' if e.status == 'invalid_state' else 'failed'} at {e}"
    except metrics.MetricError as e:
        out["error"] = str(e)
    except MemoryError:
        out["error"] = "out of memory"
    except Exception as e:  # anything else is this point's failure, never the sweep's
        out["error"] = f"{type(e).__name__}: {e}"
    if world is not None:
        out["steps"] = world.step_count
        out["time"] = world.time
    out["wall_s"] = time.perf_counter() - t0
    return out
