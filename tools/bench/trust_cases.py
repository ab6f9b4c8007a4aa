#!/usr/bin/env python3
"""Hard but valid cases in every solver that takes them: each run is classified as correct,
detected (exit 3: the state check or the health check stopped it; exit 2: refused at load) or
silently wrong (exit 0 with a state that fails the case's own criterion).

    tools/bench/trust_cases.py [--coulomb build/bin/coulomb] [--out DIR] [--chain 500]

Writes DIR/trust_cases.csv and prints the table (case x solver). A few minutes on 2 cores with
the default 200-sphere chain; --chain 500 is the full-size chain (cr-mlcp then takes ~40 s).
"""
import argparse, csv, json, math, os, subprocess, sys, tempfile

RIGID = ["pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi", "newton-pcr", "cr-mlcp"]
SOFT = ["xpbd-jacobi", "newton-pcr", "cr-mlcp"]


def base(solver, dt, steps):
    return {"format": "coulomb-scene/1", "gravity": [0, 0, -9.81], "time": {"dt": dt, "steps": steps},
            "solver": {"type": solver}, "materials": {"default": {"density": 1000, "friction": 0.5}},
            "shapes": {"ground": {"type": "plane", "normal": [0, 0, 1], "offset": 0}},
            "bodies": [{"name": "ground", "shape": "ground", "fixed": True}]}


def chain(solver, n):  # ball-jointed spheres released horizontally from a fixed point
    s = base(solver, 0.01, 100)
    s["shapes"]["ball"] = {"type": "sphere", "radius": 0.05}
    s["bodies"] = []
    s["joints"] = []
    for i in range(n):
        s["bodies"].append({"name": f"s{i}", "shape": "ball", "position": [(i + 1) * 0.1, 0, 30]})
        s["joints"].append({"type": "ball", "a": f"s{i}", "b": None if i == 0 else f"s{i-1}",
                            "anchor": [(i + 0.5) * 0.1, 0, 30]})
    return s


def cubes(solver, dt, n):  # a resting stack of 1 m cubes
    s = base(solver, dt, 30)
    s["shapes"]["cube"] = {"type": "box", "half_extents": [0.5, 0.5, 0.5]}
    s["bodies"] += [{"name": f"c{i}", "shape": "cube", "position": [0, 0, 0.5 + i]} for i in range(n)]
    return s


def soft(solver, young=2e5, poisson=0.45, model="neo-hookean", v=0.0, z=0.5, box=False, steps=400):
    s = base(solver, 0.0025, steps)
    s["materials"]["rubber"] = {"density": 1100, "friction": 0.8, "young": young, "poisson": poisson,
                                "model": model, "damping": 0.002}
    mesh = ({"type": "box", "half_extents": [0.1, 0.1, 0.1], "resolution": [3, 3, 3]} if box
            else {"type": "sphere", "radius": 0.1, "resolution": 4})
    s["soft_bodies"] = [{"name": "ball", "material": "rubber", "position": [0, 0, z], "velocity": [0, 0, v],
                         "mesh": mesh}]
    return s


def foam_ramp(solver, young):  # a foam cube resting on a 20 degree rigid ramp
    a = math.radians(20)
    s = base(solver, 1 / 60, 180)
    s["materials"]["foam"] = {"density": 100, "friction": 0.6, "young": young, "poisson": 0.3, "model": "neo-hookean"}
    q = [math.cos(a / 2), 0, math.sin(a / 2), 0]
    s["shapes"]["ramp"] = {"type": "box", "half_extents": [2, 1, 0.1]}
    s["bodies"].append({"name": "ramp", "shape": "ramp", "fixed": True, "position": [0, 0, 1], "orientation": q})
    d = 0.1 + 0.15
    s["soft_bodies"] = [{"name": "cube", "material": "foam", "position": [math.sin(a) * d, 0, 1 + math.cos(a) * d],
                         "orientation": q, "mesh": {"type": "box", "half_extents": [0.15] * 3, "resolution": [4, 4, 4]}}]
    return s


def stats(out):
    return [json.loads(l) for l in open(os.path.join(out, "stats.jsonl"))]


def energy(l):
    return l["kinetic_energy"] + l["potential_energy"] + l["elastic_energy"]


def chain_ok(out, final):
    L = stats(out)
    gain = max(energy(l) for l in L) - energy(L[0])
    return gain <= 0.1 * max(l["kinetic_energy"] for l in L) and max(l["joint_error"]["linear"] for l in L) < 0.05


def resting_ok(out, final):
    return max(math.hypot(*b["velocity"]) for b in final["bodies"]) < 1e-3


def soft_ok(out, final):
    b = final["soft_bodies"][0]
    return b["min_tet_volume"] > 0 and b["centroid"][2] > 0 and 0.5 < b["volume"] / b["rest_volume"] < 2


def ramp_ok(out, final):
    return soft_ok(out, final) and max(l["kinetic_energy"] for l in stats(out)) < 10


def cases(n_chain):
    yield from ((f"chain of {n_chain}", s, chain(s, n_chain), chain_ok) for s in RIGID)
    for dt in (1e-6, 1e-4):
        for n in (1, 10):
            yield from ((f"{n} resting cube(s), dt {dt:g}", s, cubes(s, dt, n), resting_ok) for s in RIGID)
    soft_cases = {"ball E = 1 Pa": dict(young=1.0), "ball poisson -0.9": dict(poisson=-0.9),
                  "ball hit at 300 m/s": dict(v=-300, z=0.3), "linear box at 20 m/s": dict(model="linear", v=-20, z=0.3, box=True),
                  "StVK box at 20 m/s": dict(model="stvk", v=-20, z=0.3, box=True)}
    for name, kw in soft_cases.items():
        yield from ((name, s, soft(s, **kw), soft_ok) for s in SOFT)
    for young in (1e5, 1e6):
        yield from ((f"foam cube on ramp, E {young:g}", s, foam_ramp(s, young), ramp_ok) for s in SOFT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coulomb", default=os.path.join(os.path.dirname(__file__), "../../build/bin/coulomb"))
    ap.add_argument("--out", default="out/trust_cases")
    ap.add_argument("--chain", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, solver, scene, ok in cases(a.chain):
            path = os.path.join(tmp, "scene.json")
            json.dump(scene, open(path, "w"))
            out = os.path.join(tmp, "out")
            try:
                p = subprocess.run([a.coulomb, "run", path, "--out", out, "-q"], capture_output=True, text=True,
                                   timeout=a.timeout)
                rc, err = p.returncode, p.stderr.strip().splitlines()
            except subprocess.TimeoutExpired:
                rc, err = -1, ["timed out"]
            if rc == 0:
                verdict = "correct" if ok(out, json.load(open(os.path.join(out, "final_state.json")))) else "SILENTLY WRONG"
            elif rc in (2, 3):
                verdict = "detected (exit %d)" % rc
            else:
                verdict = "other (exit %d)" % rc
            why = err[-1][:160] if err and rc else ""
            rows.append({"case": case, "solver": solver, "verdict": verdict, "message": why})
            print(f"{case:30s} {solver:12s} {verdict:20s} {why}", flush=True)
    with open(os.path.join(a.out, "trust_cases.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["case", "solver", "verdict", "message"])
        w.writeheader()
        w.writerows(rows)
    wrong = sum(r["verdict"] == "SILENTLY WRONG" for r in rows)
    print(f"{len(rows)} runs: {sum(r['verdict'] == 'correct' for r in rows)} correct, "
          f"{sum(r['verdict'].startswith('detected') for r in rows)} detected, {wrong} silently wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
