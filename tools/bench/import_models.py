#!/usr/bin/env python3
"""The robot models of ../shared/robots imported and run as `coulomb run MODEL` runs them, in the
importers' default solver and in the others that run joints: exit code, steps, ms per step,
converged steps, largest kinetic energy, penetration and joint error, and the error of a failed
run (import/README.md, "Defaults").

    tools/bench/import_models.py [--coulomb build/bin/coulomb] [--out DIR] [--steps 500]
                                 [--solvers default,pgs,prox-gs,xpbd-jacobi]

Writes DIR/import_models.csv and prints it. A few minutes on 2 cores (22_humanoids.xml takes
most of it).
"""
import argparse, csv, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROBOTS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "robots"))
MODELS = ["urdf/cartpole.urdf", "urdf/kuka_iiwa/model.urdf", "urdf/minitaur/minitaur.urdf", "mjcf/ant.xml",
          "mjcf/humanoid.xml", "mjcf/hopper.xml", "mjcf/half_cheetah.xml", "mjcf/reacher.xml",
          "mjcf/inverted_pendulum.xml", "mjcf/mujoco/humanoid.xml", "mjcf/mujoco/22_humanoids.xml"]


def run(exe, model, solver, steps, out):
    cmd = [exe, "run", os.path.join(ROBOTS, model), "--out", out, "--quiet", "--steps", str(steps)]
    if solver != "default":
        cmd += ["--solver", solver]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t
    row = {"model": model, "solver": solver, "exit": p.returncode, "wall_s": round(wall, 2)}
    try:
        stats = [json.loads(line) for line in open(os.path.join(out, "stats.jsonl"))]
    except OSError:
        stats = []
    if stats:
        row.update(steps=len(stats), ms_per_step=round(sum(s["wall_ms"] for s in stats) / len(stats), 3),
                   converged=sum(bool(s["converged"]) for s in stats),
                   max_kinetic_energy=max(s["kinetic_energy"] for s in stats),
                   max_penetration=max(s["max_penetration"] for s in stats),
                   max_joint_error=max(s.get("joint_error", {}).get("linear", 0.0) for s in stats))
    if p.returncode != 0:
        row["error"] = (p.stderr.strip().splitlines() or [""])[-1][:300]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coulomb", default=os.path.join(HERE, "..", "..", "build", "bin", "coulomb"))
    ap.add_argument("--out", default="out/import_models")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--solvers", default="default,pgs,prox-gs,xpbd-jacobi")
    a = ap.parse_args()
    if not os.path.isdir(ROBOTS):
        sys.exit(f"no robot models at {ROBOTS} (../shared/robots beside the repository)")
    os.makedirs(a.out, exist_ok=True)
    fields = ["model", "solver", "exit", "steps", "ms_per_step", "converged", "max_kinetic_energy",
              "max_penetration", "max_joint_error", "wall_s", "error"]
    rows = []
    for model in MODELS:
        for solver in a.solvers.split(","):
            row = run(a.coulomb, model, solver, a.steps, os.path.join(a.out, "runs", model.replace("/", "_") + "." + solver))
            rows.append(row)
            print(" ".join(f"{k}={row[k]}" for k in fields if k in row), flush=True)
    with open(os.path.join(a.out, "import_models.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print("wrote", os.path.join(a.out, "import_models.csv"))


if __name__ == "__main__":
    main()
