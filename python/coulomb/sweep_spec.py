"""The sweep spec (coulomb-sweep/1, python/README.md "Sweeps"): reading, checking, and its points.

    {
      "format": "coulomb-sweep/1",
      "scene": "../scenes/funnel.json",             relative to the spec's folder
      "solver": "pgs", "steps": 300, "dt": 0.01,     optional: --solver, --steps, --dt of every run
      "set": {"/time/duration": 3.5},                optional: --set overrides of every run
      "parameters": {"friction": ["/materials/stone/friction", "/materials/steel/friction"]},
      "grid": {"friction": [0.1, 0.5, 0.9]},         every combination (last key fastest), or
      "points": [{"friction": 0.1}, ...],            an explicit list (the same keys in each)
      "seeds": [1, 2, 3],                            optional: each point once per seed
      "seed_pointers": ["/generators/0/seed"],       optional; default: every random generator's seed
      "metrics": {"passed": "mean(z[moving] < 0.6)"},
      "limits": {"time_s": 600, "memory_mb": 4096}  optional: each point's wall time and memory
    }

A key of "grid" or of a point is a parameter name from "parameters" (one value set at each of
its pointers) or a JSON pointer (a parameter of its own, named by the pointer). Seed S sets the
k-th seed pointer to 1000 * S + k, so that the generators of one run differ from each other.
Every mistake raises SpecError naming the JSON pointer in the spec.
"""
import difflib
import itertools
import json
import os
import re

from . import metrics

FORMAT = "coulomb-sweep/1"
KEYS = ("format", "description", "scene", "solver", "steps", "dt", "set", "parameters", "grid", "points", "seeds",
        "seed_pointers", "metrics", "limits")
LIMITS = ("time_s", "memory_mb")
# results columns that parameters and metrics must not shadow
RESERVED = {"point", "seed", "status", "error", "wall_s", "worker", "steps"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


class SpecError(ValueError):
    def __init__(self, pointer, message):
        super().__init__(f"{pointer}: {message}" if pointer else message)
        self.pointer = pointer
        self.message = message


def _escape(key):
    return key.replace("~", "~0").replace("/", "~1")


def _is_pointer(s):
    return isinstance(s, str) and s.startswith("/")


def _check_pointer(value, where):
    if not _is_pointer(value):
        raise SpecError(where, f"expected a JSON pointer into the scene (\"/materials/wood/friction\"), got {value!r}")
    return value


def _pointer_list(value, where):
    if not isinstance(value, list) or not value:
        raise SpecError(where, "expected a non-empty list of JSON pointers")
    return [_check_pointer(p, f"{where}/{i}") for i, p in enumerate(value)]


class Spec:
    """A checked spec. points() gives its points; seed pointers need the scene (resolve_seeds)."""

    def __init__(self, doc, path):
        if not isinstance(doc, dict):
            raise SpecError("", "a sweep spec is a JSON object")
        for key in doc:
            if key not in KEYS:
                hint = difflib.get_close_matches(key, KEYS, n=1)
                raise SpecError(f"/{_escape(key)}", "unknown key" + (f" (did you mean '{hint[0]}'?)" if hint else
                                                                       f"; known: {', '.join(KEYS)}"))
        if doc.get("format") != FORMAT:
            raise SpecError("/format", f"must be \"{FORMAT}\", got {doc.get('format')!r}")
        self.doc = doc
        self.path = os.path.abspath(path)
        self.description = doc.get("description", "")
        if not isinstance(doc.get("scene"), str) or not doc["scene"]:
            raise SpecError("/scene", "expected the scene file's path (relative to the spec's folder)")
        self.scene = os.path.normpath(os.path.join(os.path.dirname(self.path), doc["scene"]))
        self.solver = doc.get("solver")
        if self.solver is not None and not isinstance(self.solver, str):
            raise SpecError("/solver", "expected a solver name")
        self.steps = doc.get("steps")
        if self.steps is not None and (not isinstance(self.steps, int) or isinstance(self.steps, bool) or self.steps < 1):
            raise SpecError("/steps", "expected an integer >= 1")
        self.dt = doc.get("dt")
        if self.dt is not None and (not isinstance(self.dt, (int, float)) or isinstance(self.dt, bool) or self.dt <= 0):
            raise SpecError("/dt", "expected a positive number of seconds")
        base = doc.get("set", {})
        if not isinstance(base, dict):
            raise SpecError("/set", "expected an object {pointer: value}")
        self.base = [(_check_pointer(p, f"/set/{_escape(p)}"), v) for p, v in base.items()]

        self.parameters = {}  # name -> pointers
        params = doc.get("parameters", {})
        if not isinstance(params, dict):
            raise SpecError("/parameters", "expected an object {name: [pointers]}")
        for name, pointers in params.items():
            where = f"/parameters/{_escape(name)}"
            if not _NAME.match(name) or name in RESERVED:
                raise SpecError(where, "a parameter's name is an identifier (letters, digits, _) other than " +
                                ", ".join(sorted(RESERVED)))
            self.parameters[name] = _pointer_list(pointers, where)

        if "grid" in doc and "points" in doc:
            raise SpecError("/points", "give either \"grid\" or \"points\", not both")
        self.keys = []  # the swept parameters' names, in column order
        if "grid" in doc:
            grid = doc["grid"]
            if not isinstance(grid, dict) or not grid:
                raise SpecError("/grid", "expected a non-empty object {parameter: [values]}")
            for key, values in grid.items():
                self._key(key, f"/grid/{_escape(key)}")
                if not isinstance(values, list) or not values:
                    raise SpecError(f"/grid/{_escape(key)}", "expected a non-empty list of values")
            self.keys = list(grid)
            self._combos = [dict(zip(self.keys, c)) for c in itertools.product(*grid.values())]
        elif "points" in doc:
            pts = doc["points"]
            if not isinstance(pts, list) or not pts:
                raise SpecError("/points", "expected a non-empty list of objects {parameter: value}")
            for i, p in enumerate(pts):
                if not isinstance(p, dict) or not p:
                    raise SpecError(f"/points/{i}", "expected an object {parameter: value}")
                for key in p:
                    self._key(key, f"/points/{i}/{_escape(key)}")
                if i == 0:
                    self.keys = list(p)
                elif set(p) != set(self.keys):
                    raise SpecError(f"/points/{i}", f"has the keys {sorted(p)}, the first point {sorted(self.keys)}: "
                                    "every point sets the same parameters")
            self._combos = [dict(p) for p in pts]
        else:
            self._combos = [{}]
        for name in self.parameters:
            if name not in self.keys:
                raise SpecError(f"/parameters/{_escape(name)}", "is defined but neither \"grid\" nor \"points\" sets it")

        self.seeds = doc.get("seeds")
        if self.seeds is not None:
            if (not isinstance(self.seeds, list) or not self.seeds or
                    any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in self.seeds)):
                raise SpecError("/seeds", "expected a non-empty list of integers >= 0")
            if len(set(self.seeds)) != len(self.seeds):
                raise SpecError("/seeds", "holds a seed twice")
        self.seed_pointers = None
        if "seed_pointers" in doc:
            if self.seeds is None:
                raise SpecError("/seed_pointers", "is set but \"seeds\" is not")
            self.seed_pointers = _pointer_list(doc["seed_pointers"], "/seed_pointers")

        m = doc.get("metrics")
        if not isinstance(m, dict) or not m:
            raise SpecError("/metrics", "expected a non-empty object {name: expression}")
        for name, expr in m.items():
            where = f"/metrics/{_escape(name)}"
            if not _NAME.match(name) or name in RESERVED or name in self.keys:
                raise SpecError(where, "a metric's name is an identifier (letters, digits, _) other than the "
                                "parameters' and " + ", ".join(sorted(RESERVED)))
            if not isinstance(expr, str):
                raise SpecError(where, "expected an expression (a string)")
        try:
            self.codes = metrics.compile_metrics(m)
        except SyntaxError as e:
            raise SpecError(f"/metrics/{_escape(e.metric)}", f"invalid expression: {e.msg}") from None
        self.metrics = dict(m)

        limits = doc.get("limits", {})
        if not isinstance(limits, dict):
            raise SpecError("/limits", "expected an object {\"time_s\": seconds, \"memory_mb\": megabytes}")
        for key, value in limits.items():
            where = f"/limits/{_escape(key)}"
            if key not in LIMITS:
                hint = difflib.get_close_matches(key, LIMITS, n=1)
                raise SpecError(where, "unknown key" + (f" (did you mean '{hint[0]}'?)" if hint else
                                                        f"; known: {', '.join(LIMITS)}"))
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or
                                      not value > 0 or value == float("inf")):
                raise SpecError(where, "expected a positive number, or null for no limit")
        self.limits = {k: limits.get(k) for k in LIMITS}

    def _key(self, key, where):
        if key in self.parameters or _is_pointer(key):
            return
        hint = difflib.get_close_matches(key, list(self.parameters), n=1)
        raise SpecError(where, f"'{key}' is neither a JSON pointer nor a name from \"parameters\"" +
                        (f" (did you mean '{hint[0]}'?)" if hint else ""))

    def resolve_seeds(self, scene_doc):
        """The seed pointers: the spec's, or every random generator of the scene (after "set")."""
        if self.seeds is None:
            return []
        if self.seed_pointers is not None:
            return self.seed_pointers
        gens = scene_doc.get("generators", []) if isinstance(scene_doc, dict) else []
        pointers = [f"/generators/{i}/seed" for i, g in enumerate(gens)
                    if isinstance(g, dict) and g.get("type") == "random"]
        if not pointers:
            raise SpecError("/seeds", "the scene has no random generator: name the seeds' targets in \"seed_pointers\"")
        return pointers

    def points(self, seed_pointers):
        """Every point: {"point", "parameters", "seed", "overrides": [(pointer, value)]} in order."""
        out = []
        for combo in self._combos:
            for seed in (self.seeds if self.seeds is not None else [None]):
                overrides = list(self.base)
                for key in self.keys:
                    for p in self.parameters.get(key, [key]):
                        overrides.append((p, combo[key]))
                if seed is not None:
                    overrides += [(p, 1000 * seed + k) for k, p in enumerate(seed_pointers)]
                out.append({"point": len(out), "parameters": {k: combo[k] for k in self.keys}, "seed": seed,
                            "overrides": overrides})
        return out


def override_strings(overrides):
    """[(pointer, value)] -> the "POINTER=VALUE" strings of `coulomb run --set`."""
    return [f"{p}={json.dumps(v, separators=(',', ':'))}" for p, v in overrides]


def load(path):
    """Reads and checks a spec file; raises SpecError (or OSError for a file that cannot be read)."""
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise SpecError("", f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    return Spec(doc, path)


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise SpecError("", f"key '{k}' appears twice in one object")
        seen[k] = v
    return seen
