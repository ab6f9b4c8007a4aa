#!/usr/bin/python3
"""tools/plots/plot on a short `coulomb study` of wall.json and tower.json (8 steps) and a small
xpbd_convergence.csv: it draws prox_wall.png, prox_tower.png, orderings.png and
xpbd_convergence.png, each a 1000 x 620 picture with lines or bars in several colours.

usage: plots_test.py COULOMB_EXE SOURCE_DIR. Exit 77 (ctest: skipped) without gnuplot or PIL.
"""
import os
import shutil
import subprocess
import sys
import tempfile

try:
    from PIL import Image
except ImportError:
    print("SKIP: python3-pil is not installed (tools/test installs it)")
    sys.exit(77)
if not shutil.which("gnuplot"):
    print("SKIP: gnuplot is not installed (tools/test installs gnuplot-nox)")
    sys.exit(77)

exe, src = sys.argv[1:3]
tmp = tempfile.mkdtemp(prefix="coulomb-plots-")
failures = []
try:
    subprocess.run([exe, "study", f"{src}/scenes/wall.json", f"{src}/scenes/tower.json", "--out", tmp, "--steps", "8",
                    "--max-iterations", "200", "--tol", "0.001", "--theta-drop", "0.1"], check=True, capture_output=True)
    with open(os.path.join(tmp, "xpbd_convergence.csv"), "w") as f:
        f.write("iteration,jacobi,accelerated_jacobi,gauss_seidel\n")
        for i in range(1, 51):
            f.write(f"{i},{0.99 ** i},{0.95 ** i},{0.93 ** i}\n")
    r = subprocess.run([f"{src}/tools/plots/plot", tmp], capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        failures.append(f"plot exited {r.returncode}")
    for name in ["prox_wall.png", "prox_tower.png", "orderings.png", "xpbd_convergence.png"]:
        path = os.path.join(tmp, name)
        if not os.path.exists(path):
            failures.append(f"{name} missing")
            continue
        img = Image.open(path).convert("RGB")
        # saturated pixels: the lines, bands and bars (the frame, text and grid are grey)
        coloured = sum(1 for p in img.getdata() if max(p) - min(p) > 60)
        colours = len({p for p in img.getdata() if max(p) - min(p) > 60})
        ok = img.size == (1000, 620) and coloured > 2000 and colours >= 2
        print(("ok  " if ok else "FAIL"), f"{name}: {img.size}, {coloured} coloured pixels in {colours} colours")
        if not ok:
            failures.append(name)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
if failures:
    print("FAIL:", ", ".join(failures))
    sys.exit(1)
print("all checks passed")
