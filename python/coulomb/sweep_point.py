"""One point of a sweep: run_point on a Dask worker, which runs the simulation in a child process
of its own (`python3 -m coulomb.sweep_point`) and holds it to the point's limits.

A worker gets the scene as a dict with the point's overrides already applied (the document
`coulomb run --set ...` would validate), and the files the scene reads (meshes) as bytes, so a
worker needs the installed package but neither the scene nor a shared filesystem. The files are
written once per worker process into a private temporary folder, at the same relative paths as
beside the scene file; a scene that names a file by an absolute path reads it on the worker.

Limits. The child is a process of its own so that a point can be stopped wherever it is (inside
a long step, or allocating) and its memory is its own, not the Dask worker's: run_point polls
the child every 20 ms and kills it when its wall time passes `time_s` or its resident memory
passes `memory_mb`; the child also caps its address space at its size after start-up plus
`memory_mb`, so that an allocation faster than the polling fails (MemoryError) instead of
taking the machine. The child reports its steps after each chunk of steps (chunks of about
0.2 s), which the record of a stopped point gives with its peak memory (the child's maximum
resident size, from wait4).

Interruption. The child dies at once on SIGINT (Ctrl-C on the process group), and exits when
its worker dies (the end of its stdin); run_point kills it when the worker closes or the task is
cancelled. Such a point comes back as "interrupted", which the next run of the sweep runs again.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from . import metrics

POLL_S = 0.02  # how often run_point looks at its child's time and memory
CHUNK_S = 0.2  # the child's chunks of steps last about this long

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


def default_memory_mb():
    """This machine's RAM over its cores: the share Dask gives a one-thread worker."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return max(256, int(total / (os.cpu_count() or 1) / 2**20))


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def _stop_requested():
    """True when this point's Dask task was cancelled or its worker is closing."""
    try:
        from distributed import get_worker
        from distributed.worker import thread_state
        worker = get_worker()
    except (ImportError, ValueError):
        return False
    if worker.status.name not in ("running", "paused"):
        return True
    ts = worker.state.tasks.get(getattr(thread_state, "key", None))
    return ts is None or ts.state in ("cancelled", "released", "forgotten")


class _Progress(threading.Thread):
    """Reads the child's progress lines ({"steps", "time"}) and keeps the last."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.last = stream, {"steps": 0, "time": 0.0}

    def run(self):
        for line in self.stream:
            try:
                self.last = json.loads(line)
            except ValueError:
                pass


def _mb(x):
    return f"{x:.0f} MB"


def run_point(files, task_json):
    """Runs one point in a child process; never raises for the point's own failures: they come
    back as status "failed", "time limit", "memory limit" or "interrupted".

    task_json: JSON text of {"point", "scene" (dict, overrides applied), "metrics" ({name:
    expression}), "threads", "keep" (the stats keys the metrics read, None: all), "limits"
    ({"time_s", "memory_mb"}: None is no time limit, and default_memory_mb(); 0 is none)}.
    Returns {"point", "status", "metrics", "error", "steps", "time", "wall_s", "worker", "peak_mb",
    "limits", "data"}: data is metrics.pack's bytes when the simulation finished (None otherwise).
    """
    t0 = time.perf_counter()
    task = json.loads(task_json)
    limits = dict(task.get("limits") or {})
    if limits.get("memory_mb") is None:
        limits["memory_mb"] = default_memory_mb()
    time_s, memory_mb = limits.get("time_s") or None, limits["memory_mb"] or None
    out = {"point": task["point"], "status": "failed", "metrics": {}, "error": None, "steps": 0, "time": 0.0,
           "worker": _worker_name(), "peak_mb": None, "limits": limits, "data": None}
    work = tempfile.mkdtemp(prefix="coulomb-point-")
    try:
        child_task = {"scene": task["scene"], "base_dir": _materialize(files), "metrics": task["metrics"],
                      "threads": task.get("threads", 1), "keep": task.get("keep"), "memory_mb": memory_mb,
                      "out": work}
        _supervise(child_task, time_s, memory_mb, work, out)
    except Exception as e:  # anything else is this point's failure, never the sweep's
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["wall_s"] = time.perf_counter() - t0
    return out


def _supervise(child_task, time_s, memory_mb, work, out):
    """Runs the child on child_task, polls its time and memory until it ends, and fills `out`."""
    import coulomb
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(coulomb.__file__)))
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    with open(os.path.join(work, "stderr"), "wb") as err:
        child = subprocess.Popen([sys.executable, "-m", "coulomb.sweep_point"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=err, env=env, cwd=work)
    progress = _Progress(child.stdout)
    progress.start()
    child.stdin.write(json.dumps(child_task).encode() + b"\n")
    child.stdin.flush()
    t0, peak, stopped, status = time.monotonic(), 0.0, None, None
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        rss = _rss_mb(child.pid)
        peak = max(peak, rss)
        if stopped is None:
            if memory_mb and rss > memory_mb:
                stopped = "memory limit"
            elif time_s and time.monotonic() - t0 > time_s:
                stopped = "time limit"
            elif _stop_requested():
                stopped = "interrupted"
            if stopped:
                child.kill()
        time.sleep(POLL_S)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it
    child.stdin.close()
    progress.join(timeout=5)
    child.stdout.close()
    peak = max(peak, usage.ru_maxrss / 1024)
    reached = progress.last
    out.update(steps=reached["steps"], time=reached["time"], peak_mb=round(peak, 1))
    result_path = os.path.join(work, "result.json")
    if stopped is None and memory_mb and peak > memory_mb:
        stopped = "memory limit"  # it went past the limit between two polls: the same point, the same record
    if stopped is None and os.path.exists(result_path):
        with open(result_path) as f:
            out.update(json.load(f))
        out["peak_mb"] = round(peak, 1)
        data_path = os.path.join(work, "data.npz")
        if os.path.exists(data_path):
            with open(data_path, "rb") as f:
                out["data"] = f.read()
        if out["status"] == "memory limit":
            out["error"] = (f"{_mb(memory_mb)} reached (an allocation failed) after {out['steps']} steps "
                            f"(t = {out['time']:g} s); peak memory {_mb(peak)}")
        return
    if stopped is None and child.returncode == -signal.SIGINT:
        stopped = "interrupted"
    out["status"] = stopped or "failed"
    where = f"after {reached['steps']} steps (t = {reached['time']:g} s)"
    if stopped == "time limit":
        out["error"] = f"stopped at {time_s:g} s {where}; peak memory {_mb(peak)}"
    elif stopped == "memory limit":
        out["error"] = f"{_mb(memory_mb)} reached {where}; peak memory {_mb(peak)}"
    elif stopped == "interrupted":
        out["error"] = f"stopped {where}"
    else:
        with open(os.path.join(work, "stderr"), "rb") as f:
            tail = f.read()[-600:].decode(errors="replace").strip()
        if memory_mb and "std::bad_alloc" in tail:  # an allocation past the address-space cap, in C++
            out["status"] = "memory limit"
            out["error"] = f"{_mb(memory_mb)} reached (an allocation failed) {where}; peak memory {_mb(peak)}"
            return
        how = (f"was killed by {signal.Signals(-child.returncode).name}" if child.returncode < 0 else
               f"exited {child.returncode}")
        out["error"] = f"the point's process {how} {where}; peak memory {_mb(peak)}" + (f": {tail}" if tail else "")


def _concat(chunks):
    """World.run's columns of consecutive chunks, joined."""
    import numpy as np
    if not chunks:
        return {}
    out = {}
    for key, first in chunks[0].items():
        if isinstance(first, dict):
            out[key] = _concat([c[key] for c in chunks])
        elif isinstance(first, list):
            out[key] = [x for c in chunks for x in c[key]]
        else:
            out[key] = np.concatenate([c[key] for c in chunks])
    return out


def _exit_when_orphaned():
    """The worker holds our stdin open: its end means the worker died, and so does this point."""
    while os.read(0, 65536):  # unbuffered: the interpreter's stdin object stays free
        pass
    os._exit(3)


def _cap_address_space(memory_mb):
    """The address space as now plus memory_mb (and room for a few thread stacks): beyond it an
    allocation fails at once, while run_point's polling of the resident size may be late."""
    import resource
    with open("/proc/self/statm") as f:
        size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = size + int((memory_mb + 256) * 2**20)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or cap < hard:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _child():
    """`python3 -m coulomb.sweep_point`: the simulation of one point (run_point's child)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the point at once, without a traceback
    # (the sweep starts its local workers with SIGINT ignored, which their children would inherit)
    task = json.loads(sys.stdin.buffer.readline())
    threading.Thread(target=_exit_when_orphaned, daemon=True).start()
    import coulomb
    out = {"status": "failed", "metrics": {}, "error": None, "steps": 0, "time": 0.0, "simulated": False,
           "stats_keys": task["keep"]}
    world = None
    try:
        if task["memory_mb"]:
            _cap_address_space(task["memory_mb"])
        world = coulomb.World(task["scene"], base_dir=task["base_dir"], threads=task["threads"])
        chunks, n = [], 1
        while world.step_count < world.total_steps:
            t = time.perf_counter()
            chunks.append(world.run(min(n, world.total_steps - world.step_count), keep=task["keep"]))
            print(json.dumps({"steps": world.step_count, "time": world.time}), flush=True)
            if time.perf_counter() - t < CHUNK_S / 2:
                n *= 2
        stats = _concat(chunks)
        del chunks
        final, fixed = world.final_state(), world.fixed
        out["simulated"] = True
        with open(os.path.join(task["out"], "data.npz"), "wb") as f:
            f.write(metrics.pack(final, fixed, stats, world.step_count))
        codes = metrics.compile_metrics(task["metrics"])
        out["metrics"] = metrics.evaluate(codes, metrics.context(final, stats, fixed, steps=world.step_count))
        out["status"] = "ok"
    except coulomb.SceneError as e:
        out["error"] = f"invalid scene: {e}"
    except coulomb.SimulationError as e:
        out["error"] = f"simulation {'became invalid' if e.status == 'invalid_state' else 'failed'} at {e}"
    except metrics.MetricError as e:
        out["error"] = str(e)
        if isinstance(e.cause, MemoryError):
            out["status"] = "memory limit"
    except MemoryError:
        out["status"] = "memory limit"
    except Exception as e:  # anything else is this point's failure, never the sweep's
        out["error"] = f"{type(e).__name__}: {e}"
    if world is not None:
        out["steps"], out["time"] = world.step_count, world.time
    with open(os.path.join(task["out"], "result.json.tmp"), "w") as f:
        json.dump(out, f)
    os.replace(os.path.join(task["out"], "result.json.tmp"), os.path.join(task["out"], "result.json"))
    sys.stdout.flush()
    os._exit(0)  # at once: the stdin thread still reads


if __name__ == "__main__":
    _child()
