"""Metrics of a run: Python expressions over its final state and its per-step stats.

A sweep spec names its metrics as expressions (python/README.md, "Sweeps"), e.g.

    "passed_fraction": "mean(z[moving] < 0.6)"
    "max_penetration": "max(stat('max_penetration'))"

They are evaluated with these names and nothing else (no builtins beyond the few listed):

    final              the final state, as final_state.json (a dict)
    stats              the per-step stats as columns {key: numpy array} (World.run, stats.jsonl)
    stat(key)          one column; "joint_error.linear" reaches into a nested one
    names              body names in scene order
    fixed, moving      (n,) bool arrays: fixed bodies and the others
    positions, orientations, velocities, angular_velocities   (n, 3) / (n, 4) arrays
    x, y, z            the columns of positions; speed: |velocities|
    soft               final["soft_bodies"] (centroid, volume, ... of each soft body)
    time, steps        simulated time (s) and completed steps
    np                 numpy; mean, median, std, count (nonzero), norm, sqrt, sum, min, max, abs, len, float,
                       int, bool, round, any, all

Run by a sweep's points on the state in memory, by the sweep on the data it stored for a point
(pack / unpack: metrics changed after the runs are recomputed without simulating), and by the
tests on `coulomb run`'s files (context_from_files), so that all give the same numbers for the
same run. A sweep checks its metrics before any point runs (check) on the scene's initial state.
"""
import ast
import io
import json
import math

import numpy as np

def _numpy_import(name, *args, **kwargs):
    """numpy's C methods (a.sum(), a.mean()) import numpy modules through the caller's builtins."""
    if name.split(".")[0] != "numpy":
        raise ImportError(f"metrics cannot import {name}")
    return __import__(name, *args, **kwargs)


_BUILTINS = {"__import__": _numpy_import, "len": len, "float": float, "int": int, "bool": bool, "round": round, "any": any, "all": all,
             "abs": abs, "range": range, "True": True, "False": False, "None": None}


class MetricError(Exception):
    """A metric that failed: its name and the error."""

    def __init__(self, name, error, cause=None):
        super().__init__(f"metric '{name}': {error}")
        self.name = name
        self.cause = cause


def compile_metrics(metrics):
    """{name: expression} -> {name: code}; raises SyntaxError (with .metric set) for a bad expression."""
    out = {}
    for name, expr in metrics.items():
        try:
            out[name] = compile(expr, f"<metric {name}>", "eval")
        except SyntaxError as e:
            e.metric = name
            raise
    return out


class StatsKeyError(KeyError):
    """stat(key) or stats[key] named no stats column (a mistake, whatever the run)."""

    def __str__(self):
        return self.args[0]


class _Stats(dict):
    """The stats columns; a missing key raises StatsKeyError listing the columns."""

    def __missing__(self, key):
        raise StatsKeyError(f"no stats column '{key}' (columns: {', '.join(sorted(self))})")


def _stat(stats):
    def stat(key):
        value = stats
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                raise StatsKeyError(f"no stats column '{key}' (columns: {', '.join(sorted(stats))})")
            value = value[part]
        return np.asarray(value)
    return stat


def stats_keys(metrics):
    """The top-level stats keys that the expressions {name: expression} read: a set, or None when
    one reads `stats` or `stat` other than as stats["key"] / stat("key"), so that every key counts.
    A run keeps only these columns (World.run keep=)."""
    keys = set()
    for expr in metrics.values():
        tree = ast.parse(expr, mode="eval")
        literal = set()  # the Name nodes used as stat("key") or stats["key"]
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "stat" and
                    len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant) and
                    isinstance(node.args[0].value, str)):
                keys.add(node.args[0].value.split(".")[0])
                literal.add(id(node.func))
            elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "stats" and
                  isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                keys.add(node.slice.value)
                literal.add(id(node.value))
        if any(isinstance(n, ast.Name) and n.id in ("stat", "stats") and id(n) not in literal for n in ast.walk(tree)):
            return None
    return keys


def _rows(bodies, key, width):
    return np.array([b[key] for b in bodies], dtype=float).reshape(len(bodies), width)


def context(final, stats, fixed, steps=None):
    """The names a metric sees, for a final state (dict), stats columns, the bodies' fixed flags
    and the completed steps (default: the length of the "step" column)."""
    bodies = final["bodies"]
    positions = _rows(bodies, "position", 3)
    velocities = _rows(bodies, "velocity", 3)
    fixed = np.asarray(fixed, dtype=bool)
    if fixed.shape != (len(bodies),):
        raise ValueError(f"fixed has shape {fixed.shape}, the final state has {len(bodies)} bodies")
    return {
        "final": final, "stats": _Stats(stats), "stat": _stat(stats), "np": np,
        "names": [b["name"] for b in bodies], "fixed": fixed, "moving": ~fixed,
        "positions": positions, "orientations": _rows(bodies, "orientation", 4), "velocities": velocities,
        "angular_velocities": _rows(bodies, "angular_velocity", 3),
        "x": positions[:, 0], "y": positions[:, 1], "z": positions[:, 2],
        "speed": np.linalg.norm(velocities, axis=1),
        "soft": final.get("soft_bodies", []), "time": final["time"],
        "steps": int(steps) if steps is not None else int(len(stats["step"])) if "step" in stats else 0,
        "mean": np.mean, "median": np.median, "std": np.std, "count": np.count_nonzero, "norm": np.linalg.norm,
        "sqrt": np.sqrt, "sum": np.sum, "min": np.min, "max": np.max,
    }


def _plain(value):
    """A metric's value as a JSON-able Python scalar."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"gave an array of shape {value.shape}, not one number (reduce it, e.g. with mean())")
        value = value.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return value
    raise TypeError(f"gave a {type(value).__name__}, not a number")


def evaluate(codes, ctx):
    """{name: code} -> {name: value}; raises MetricError naming the first metric that fails."""
    values = {}
    for name, code in codes.items():
        try:
            with np.errstate(all="ignore"):
                values[name] = _plain(eval(code, {"__builtins__": _BUILTINS}, dict(ctx)))
        except Exception as e:  # the user's expression: any error is this metric's
            raise MetricError(name, f"{type(e).__name__}: {e}", e) from None
    return values


# errors that depend on a run's numbers (an empty selection, a division by zero, an index past
# the bodies a parameter removes, an array sized by the run); the others (a misspelt name or
# stats column, a metric that gives an array, a wrong type) are mistakes whatever the run
_DATA_DEPENDENT = (ArithmeticError, ValueError, IndexError, MemoryError)


def representative_stats(columns, rows=2):
    """Columns shaped as World.run(0) gave them, with `rows` zero rows: stats to check metrics on."""
    out = {}
    for key, value in columns.items():
        if isinstance(value, dict):
            out[key] = representative_stats(value, rows)
        elif isinstance(value, np.ndarray):
            out[key] = np.zeros(rows, dtype=value.dtype)
        else:
            out[key] = [[] for _ in range(rows)]
    return out


def check(codes, ctx):
    """{name: message} of the metrics that fail on `ctx` with an error that is a mistake whatever
    the run's numbers (an unknown name or stats column, an array where a number is due, ...)."""
    problems = {}
    for name, code in codes.items():
        try:
            evaluate({name: code}, ctx)
        except MetricError as e:
            if not isinstance(e.cause, _DATA_DEPENDENT):
                problems[name] = f"{type(e.cause).__name__}: {e.cause}"
    return problems


def _flatten(columns, prefix=""):
    for key, value in columns.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def pack(final, fixed, stats, steps):
    """What metrics need of a finished run, as .npz bytes: the final state, the fixed flags, the
    completed steps and the kept stats columns (a list-valued column as JSON)."""
    arrays = {"final": np.frombuffer(json.dumps(final).encode(), dtype=np.uint8),
              "fixed": np.asarray(fixed, dtype=bool), "steps": np.int64(steps)}
    for key, value in _flatten(stats):
        if isinstance(value, np.ndarray):
            arrays[f"stats/{key}"] = value
        else:
            arrays[f"json/{key}"] = np.frombuffer(json.dumps(value).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def unpack(data):
    """pack's bytes -> (final, fixed, stats, steps)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        final = json.loads(z["final"].tobytes())
        fixed, steps, stats = z["fixed"], int(z["steps"]), {}
        for name in z.files:
            kind, _, key = name.partition("/")
            if kind not in ("stats", "json"):
                continue
            value = z[name] if kind == "stats" else json.loads(z[name].tobytes())
            *parents, leaf = key.split(".")
            node = stats
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = value
    return final, fixed, stats, steps


def columns_from_rows(rows):
    """stats.jsonl lines (dicts) -> columns {key: numpy array} with World.run's types."""
    if not rows:
        return {}
    out = {}
    for key, first in rows[0].items():
        if isinstance(first, dict):
            out[key] = columns_from_rows([r[key] for r in rows])
        elif isinstance(first, bool):
            out[key] = np.array([r[key] for r in rows], dtype=bool)
        elif isinstance(first, int):
            out[key] = np.array([r[key] for r in rows], dtype=np.int64)
        else:
            out[key] = np.array([r[key] for r in rows], dtype=float)
    return out


def context_from_files(run_dir, fixed):
    """The metric context of a `coulomb run` output folder (final_state.json, stats.jsonl)."""
    with open(f"{run_dir}/final_state.json") as f:
        final = json.load(f)
    with open(f"{run_dir}/stats.jsonl") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return context(final, columns_from_rows(rows), fixed)


def finite_or_none(value):
    """NaN and infinities are not JSON: results.json writes them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
