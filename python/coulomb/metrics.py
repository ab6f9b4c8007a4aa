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

Run by a sweep's workers on the state in memory, and by the tests on `coulomb run`'s files
(context_from_files), so that both give the same numbers for the same run.
"""
import json
import math

import numpy as np

_BUILTINS = {"len": len, "float": float, "int": int, "bool": bool, "round": round, "any": any, "all": all,
             "abs": abs, "range": range, "True": True, "False": False, "None": None}


class MetricError(Exception):
    """A metric that failed: its name and the error."""

    def __init__(self, name, error):
        super().__init__(f"metric '{name}': {error}")
        self.name = name


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


def _stat(stats):
    def stat(key):
        value = stats
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                known = ", ".join(sorted(stats))
                raise KeyError(f"no stats column '{key}' (columns: {known})")
            value = value[part]
        return np.asarray(value)
    return stat


def _rows(bodies, key, width):
    return np.array([b[key] for b in bodies], dtype=float).reshape(len(bodies), width)


def context(final, stats, fixed):
    """The names a metric sees, for a final state (dict), stats columns and the bodies' fixed flags."""
    bodies = final["bodies"]
    positions = _rows(bodies, "position", 3)
    velocities = _rows(bodies, "velocity", 3)
    fixed = np.asarray(fixed, dtype=bool)
    if fixed.shape != (len(bodies),):
        raise ValueError(f"fixed has shape {fixed.shape}, the final state has {len(bodies)} bodies")
    return {
        "final": final, "stats": stats, "stat": _stat(stats), "np": np,
        "names": [b["name"] for b in bodies], "fixed": fixed, "moving": ~fixed,
        "positions": positions, "orientations": _rows(bodies, "orientation", 4), "velocities": velocities,
        "angular_velocities": _rows(bodies, "angular_velocity", 3),
        "x": positions[:, 0], "y": positions[:, 1], "z": positions[:, 2],
        "speed": np.linalg.norm(velocities, axis=1),
        "soft": final.get("soft_bodies", []), "time": final["time"],
        "steps": int(len(stats["step"])) if "step" in stats else 0,
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
            raise MetricError(name, f"{type(e).__name__}: {e}") from None
    return values


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
