#!/usr/bin/env python3
"""newton-pcr's scenes in the shape of seed 003's Table 2, with the solver as each scene sets it
(the Wall with newton-pcr's defaults alone: {"type": "newton-pcr"}).

    tools/bench/newton_table2.py [--coulomb build/bin/coulomb] [--out tools/bench/data/newton_table2.csv]
                                 [--scenes table_pile,arch,...] [--steps N] [--set SCENE:POINTER=VALUE]...
    tools/bench/newton_table2.py --budgets [--steps 500]     # tools/bench/data/newton_budgets.csv

For each scene one `coulomb run --threads 1` and, from its stats.jsonl and frames.jsonl: bodies,
joints, tets, contacts (rigid + soft; median and largest over the steps), the solver's budget,
Newton iterations and linear iterations per step (mean), assembly and solve ms per step (mean
and standard deviation, wall clock), the Newton residual (median and largest), the steps that
met the tolerance, the largest penetration and the largest displacement of a body from where the first step left
it (drift: meaningful for the resting scenes), and the largest joint error (linear, angular). The
load average before and after each run goes into the CSV: the times are this host's, shared with
other jobs. The scene `robots` is written at run time from the models in ../shared/robots (four
MJCF ants and two Minitaurs on one ground, ROBOT_MODELS below); without that folder it is an error.

--budgets runs the Wall and the Tower under several Newton x linear budgets, warm-started or not,
each in one coulomb-vs-bullet run with Bullet at 100 iterations (1 thread): ms per step (median,
mean, CPU), penetration and drift of both engines. Exit codes: 0, 1 when a run fails.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

SCENES = ["table_pile", "arch", "soft_grasp", "beam", "heavy_stack", "wall", "tower", "robots"]
# scenes whose own solver is not newton-pcr: run with its defaults
DEFAULT_SOLVER = {"wall", "tower"}

# The multi-robot scene, written at run time from the models in ../shared/robots (beside the
# repository; never copied into it): (model, `coulomb import` options, the body made free, copies
# as offsets of the imported pose in m). The bundled ant.xml has its free joint commented out, so
# its torso is freed to fall; the Minitaur's base floats and starts 10 cm above the ground.
ROBOTS_DIR = os.path.join("..", "shared", "robots")
ROBOT_MODELS = [
    ("mjcf/ant.xml", [], "torso", [(-1.5, -1.5, 0.0), (1.5, -1.5, 0.0), (-1.5, 1.5, 0.0), (1.5, 1.5, 0.0)]),
    ("urdf/minitaur/minitaur.urdf", ["--floating-base"], None, [(-1.5, 0.0, 0.1), (1.5, 0.0, 0.1)]),
]
ROBOTS_DT, ROBOTS_SECONDS = 0.002, 2.0  # MuJoCo's default step; landing, coming to rest, staying there
# The ants' light links on joints with armature 1 kg m^2 are the beam's mass-ratio problem again:
# at the default 60 linear iterations most steps after landing end unconverged and the ants never
# come to rest; 200 converge them (data/newton_table2_robots_defaults.csv has the default's run).
ROBOTS_SOLVER = {"type": "newton-pcr", "linear_iterations": 200}


def robots_scene(coulomb, root, folder):
    """Imports ROBOT_MODELS into `folder` and writes folder/robots.json: every copy's names
    prefixed with MODEL_K/, its bodies and joint anchors moved by its offset, one ground plane,
    ROBOTS_SOLVER. Returns the scene's path."""
    robots = os.path.normpath(os.path.join(root, ROBOTS_DIR))
    if not os.path.isdir(robots):
        raise RuntimeError(f"no robot models at {robots} (../shared/robots beside the repository)")
    scene = {"format": "coulomb-scene/1", "name": "robots",
             "description": "newton_table2.py's multi-robot scene: " + ", ".join(
                 f"{len(copies)} x {model}" for model, _, _, copies in ROBOT_MODELS) +
             " (../shared/robots, imported by coulomb import) dropped side by side on one ground plane",
             "gravity": [0.0, 0.0, -9.81], "time": {"dt": ROBOTS_DT, "duration": ROBOTS_SECONDS},
             "solver": dict(ROBOTS_SOLVER), "materials": {}, "shapes": {}, "bodies": [], "joints": [],
             "actuators": [], "collision": {}}
    for model, options, free, copies in ROBOT_MODELS:
        tag = os.path.splitext(os.path.basename(model))[0]
        imported = os.path.join(folder, tag + ".json")
        r = subprocess.run([coulomb, "import", os.path.join(robots, model), "--out", imported, "--quiet",
                            "--dt", str(ROBOTS_DT)] + options, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"coulomb import {model} failed ({r.returncode}): {r.stderr[-2000:]}")
        with open(imported) as f:
            doc = json.load(f)
        for key, value in doc.get("collision", {}).items():
            if key != "exclude":
                scene["collision"][key] = value  # the ant's MuJoCo rules (friction_combine max)
        scene["materials"].update(doc.get("materials", {}))  # named by their values: shared as they are
        for k, offset in enumerate(copies):
            add_copy(scene, doc, f"{tag}_{k + 1}/", offset, free)
    scene["bodies"].append({"name": "ground", "shape": "ground", "fixed": True})
    scene["shapes"]["ground"] = {"type": "plane", "normal": [0.0, 0.0, 1.0], "offset": 0.0}
    path = os.path.join(folder, "robots.json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    return path


def add_copy(scene, doc, prefix, offset, free):
    """One copy of an imported model in `scene`: names prefixed, moved by offset, its ground left out."""
    ground = {b["name"] for b in doc["bodies"] if b["name"].startswith("ground") and "shape" in b
              and doc["shapes"][b["shape"]]["type"] == "plane" and b.get("fixed")}
    ground_shapes = {b["shape"] for b in doc["bodies"] if b["name"] in ground}
    for name, shape in doc["shapes"].items():
        if name in ground_shapes:
            continue
        shape = dict(shape)
        if "children" in shape:
            shape["children"] = [dict(c, shape=prefix + c["shape"]) for c in shape["children"]]
        scene["shapes"][prefix + name] = shape
    for body in doc["bodies"]:
        if body["name"] in ground:
            continue
        body = dict(body, name=prefix + body["name"])
        if "shape" in body:
            body["shape"] = prefix + body["shape"]
        if "visual" in body:
            body["visual"] = [dict(v, shape=prefix + v["shape"]) if "shape" in v else v for v in body["visual"]]
        body["position"] = [p + d for p, d in zip(body["position"], offset)]
        if body["name"] == prefix + (free or ""):
            body.pop("fixed", None)
        scene["bodies"].append(body)
    for joint in doc.get("joints", []):
        joint = dict(joint, name=prefix + joint["name"], **{k: prefix + joint[k] for k in ("a", "b") if k in joint})
        if "anchor" in joint:
            joint["anchor"] = [p + d for p, d in zip(joint["anchor"], offset)]
        scene["joints"].append(joint)
    for actuator in doc.get("actuators", []):
        scene["actuators"].append(dict(actuator, name=prefix + actuator["name"], joint=prefix + actuator["joint"]))
    for a, b in doc.get("collision", {}).get("exclude", []):
        scene["collision"].setdefault("exclude", []).append([prefix + a, prefix + b])


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def mean_std(xs):
    if not xs:
        return float("nan"), float("nan")
    return statistics.fmean(xs), (statistics.pstdev(xs) if len(xs) > 1 else 0.0)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coulomb", default=os.path.join(root, "build", "bin", "coulomb"))
    ap.add_argument("--out", default=os.path.join(root, "tools", "bench", "data", "newton_table2.csv"))
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--steps", type=int, default=0, help="steps per scene (default: the scene's)")
    ap.add_argument("--set", action="append", default=[], help="SCENE:POINTER=VALUE, an override for one scene")
    ap.add_argument("--budgets", action="store_true",
                    help="instead: the Wall and the Tower under Newton x linear budgets, warm and cold, with "
                         "Bullet-100 in the same coulomb-vs-bullet run (default out: data/newton_budgets.csv)")
    a = ap.parse_args()
    if a.budgets:
        return budgets(root, a)

    rows = []
    generated = tempfile.TemporaryDirectory()
    for name in a.scenes.split(","):
        scene_file = os.path.join(root, "scenes", name + ".json")
        if name == "robots":
            try:
                scene_file = robots_scene(a.coulomb, root, generated.name)
            except RuntimeError as e:
                print(f"robots: {e}", file=sys.stderr)
                return 1
        with open(scene_file) as f:
            scene = json.load(f)
        cmd = [a.coulomb, "run", scene_file, "--threads", "1"]
        if name in DEFAULT_SOLVER:
            cmd += ["--set", '/solver={"type": "newton-pcr"}']
        for s in a.set:
            if s.startswith(name + ":"):
                cmd += ["--set", s[len(name) + 1:]]
        if a.steps > 0:
            cmd += ["--steps", str(a.steps)]
        info = subprocess.run([a.coulomb, "validate", scene_file], capture_output=True, text=True)
        m = re.search(r"(\d+) bodies, \d+ soft bodies with \d+ vertices and (\d+) tets", info.stdout)
        if not m:
            print(f"{name}: coulomb validate said: {info.stdout}{info.stderr}", file=sys.stderr)
            return 1
        bodies, tets = int(m.group(1)), int(m.group(2))
        with tempfile.TemporaryDirectory() as out:
            load_before = load()
            r = subprocess.run(cmd + ["--out", out], capture_output=True, text=True)
            load_after = load()
            if r.returncode != 0:
                print(f"{name}: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}", file=sys.stderr)
                return 1
            with open(os.path.join(out, "stats.jsonl")) as f:
                stats = [json.loads(line) for line in f if line.strip()]
            with open(os.path.join(out, "frames.jsonl")) as f:
                frames = [json.loads(line) for line in f if line.strip()]
        solver = {"type": "newton-pcr"} if name in DEFAULT_SOLVER else scene.get("solver", {})
        # frames hold [position, orientation] per body after each step: drift from the first
        start = [b[0] for b in frames[0]["bodies"]]
        drift = max((sum((p - q) ** 2 for p, q in zip(b[0], s0)) ** 0.5 for b, s0 in zip(frames[-1]["bodies"], start)),
                    default=0.0)
        contacts = [s["contacts"] + s.get("soft_contacts", 0) for s in stats]
        asm, sol = mean_std([s["assemble_ms"] for s in stats]), mean_std([s["solve_ms"] for s in stats])
        residuals = [s["residual"] for s in stats if s["residual"] is not None]
        rows.append({
            "scene": name, "steps": len(stats), "dt": scene["time"]["dt"], "bodies": bodies,
            "joints": len(scene.get("joints", [])), "tets": tets,
            "contacts_median": int(statistics.median(contacts)), "contacts_max": max(contacts),
            "solver": json.dumps(solver, separators=(",", ":")) + "".join(" " + x for x in a.set if x.startswith(name + ":")),
            "newton_iterations": round(statistics.fmean(s["iterations"] for s in stats), 2),
            "linear_iterations": round(statistics.fmean(s["linear_iterations"] for s in stats), 1),
            "assembly_ms": round(asm[0], 3), "assembly_ms_std": round(asm[1], 3),
            "solve_ms": round(sol[0], 3), "solve_ms_std": round(sol[1], 3),
            "residual_median": f"{statistics.median(residuals):.3g}", "residual_max": f"{max(residuals):.3g}",
            "converged_steps": sum(1 for s in stats if s["converged"]),
            "max_penetration_m": f"{max(s['max_penetration'] for s in stats):.3g}", "drift_m": f"{drift:.3g}",
            "joint_error_m": f"{max(s.get('joint_error', {}).get('linear', 0.0) for s in stats):.3g}",
            "joint_error_rad": f"{max(s.get('joint_error', {}).get('angular', 0.0) for s in stats):.3g}",
            "load_before": load_before, "load_after": load_after,
        })
        print(",".join(str(v) for v in rows[-1].values()), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {a.out}")
    return 0


# (Newton iterations, linear iterations, warm start): Table 2's range, and the default
BUDGETS = [(4, 20, True), (6, 20, True), (6, 20, False), (6, 40, True), (8, 40, True), (8, 80, True),
           (12, 80, True), (20, 40, True), (10, 60, True), (20, 50, True), (20, 60, True), (20, 80, True)]


def budgets(root, a):
    exe = os.path.join(os.path.dirname(a.coulomb), "coulomb-vs-bullet")
    out = a.out if "--out" in sys.argv else os.path.join(root, "tools", "bench", "data", "newton_budgets.csv")
    steps = a.steps or 500
    rows = []
    for scene in ("wall", "tower"):
        for newton, linear, warm in BUDGETS:
            solver = {"type": "newton-pcr", "max_iterations": newton, "linear_iterations": linear, "warm_start": warm}
            cmd = [exe, os.path.join(root, "scenes", scene + ".json"), "--steps", str(steps), "--threads", "1",
                   "--set", "/solver=" + json.dumps(solver), "--solver", "newton-pcr", "--bullet-iterations", "100",
                   "--json"]
            load_before = load()
            r = subprocess.run(cmd, capture_output=True, text=True)
            load_after = load()
            if r.returncode != 0:
                print(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}", file=sys.stderr)
                return 1
            lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
            c = next(x for x in lines if x["engine"] == "coulomb")
            b = next(x for x in lines if x["engine"] == "bullet")
            rows.append({"scene": scene, "steps": steps, "newton_iterations": newton, "linear_iterations": linear,
                         "warm_start": warm, "ms_per_step": round(c["ms_per_step"], 3),
                         "mean_ms_per_step": round(c["mean_ms_per_step"], 3), "cpu_ms_per_step": round(c["cpu_ms_per_step"], 3),
                         "newton_iterations_median": c.get("solver_iterations"),
                         "max_penetration_m": f"{c['max_penetration']:.3g}", "drift_m": f"{c['max_drift']:.3g}",
                         "bullet100_ms_per_step": round(b["ms_per_step"], 3),
                         "bullet100_mean_ms_per_step": round(b["mean_ms_per_step"], 3),
                         "bullet100_drift_m": f"{b['max_drift']:.3g}", "load_before": load_before, "load_after": load_after})
            print(",".join(str(v) for v in rows[-1].values()), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
