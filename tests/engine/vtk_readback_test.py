#!/usr/bin/python3
"""`coulomb run --vtk` read back with VTK's own XML reader (python3-vtk9), checked against the
run's other files:

- wall.json (81 boxes): run.pvd lists a rigid VTU per recorded step at its time; each holds
  81 x 8 points and 81 x 12 triangles; the mean of a box's corners is its position in
  final_state.json / frames.jsonl, the mean of their velocities its velocity.
- box_on_torus.json (a box and a plane; a soft torus): the soft VTU has the torus's vertices
  (at frames.jsonl's positions) and tetrahedra, its per-element strain energy sums to
  stats.jsonl's elastic_energy, and its per-vertex velocity is what the position-level step
  made of the positions, (x_n - x_{n-1}) / dt.

usage: vtk_readback_test.py COULOMB_EXE SOURCE_DIR. Exit 77 (ctest: skipped) without python3-vtk9.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
    from vtkmodules.util.numpy_support import vtk_to_numpy
    import numpy as np
except ImportError:
    print("SKIP: python3-vtk9 is not installed (tools/test installs it); run with /usr/bin/python3")
    sys.exit(77)

failures = []


def check(ok, what):
    print(("ok  " if ok else "FAIL"), what)
    if not ok:
        failures.append(what)


def read_vtu(path):
    r = vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    out = {"points": vtk_to_numpy(g.GetPoints().GetData()) if g.GetPoints() else np.zeros((0, 3)),
           "types": vtk_to_numpy(g.GetCellTypesArray()) if g.GetNumberOfCells() else np.zeros(0),
           "cells": g.GetNumberOfCells()}
    conn = g.GetCells()
    out["connectivity"] = vtk_to_numpy(conn.GetConnectivityArray()) if g.GetNumberOfCells() else np.zeros(0)
    for data in (g.GetPointData(), g.GetCellData()):
        for i in range(data.GetNumberOfArrays()):
            out[data.GetArrayName(i)] = vtk_to_numpy(data.GetArray(i))
    return out


def read_pvd(path):
    entries = []
    for ds in ET.parse(path).getroot().iter("DataSet"):
        entries.append((float(ds.get("timestep")), int(ds.get("part")), os.path.join(os.path.dirname(path), ds.get("file"))))
    return entries


def main():
    exe, src = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="coulomb-vtk-")
    try:
        # ---- wall: rigid surfaces ----
        out = os.path.join(tmp, "wall")
        subprocess.run([exe, "run", f"{src}/scenes/wall.json", "--out", out, "--steps", "20", "--set", "/output/every=10",
                        "--vtk", "--quiet"], check=True)
        entries = read_pvd(os.path.join(out, "vtk", "run.pvd"))
        check([(round(t, 9), p) for t, p, _ in entries] == [(0.0, 0), (0.1, 0), (0.2, 0)], f"run.pvd: steps 0, 10, 20 at 0, 0.1, 0.2 s: {entries}")
        final = json.load(open(os.path.join(out, "final_state.json")))
        frames = [json.loads(l) for l in open(os.path.join(out, "frames.jsonl"))]
        for (t, _, f), poses in zip(entries[1:], [fr["bodies"] for fr in frames]):
            g = read_vtu(f)
            check(g["points"].shape == (81 * 8, 3) and g["cells"] == 81 * 12, f"{os.path.basename(f)}: 648 points, 972 triangles")
            check(set(g["types"].tolist()) == {5}, "triangles only (VTK_TRIANGLE)")
            check(np.array_equal(np.bincount(g["body"]), np.full(81, 12)), "cell data body: 12 triangles per body")
            centres = g["points"].reshape(81, 8, 3).mean(axis=1)
            err = np.abs(centres - np.array([p for p, _ in poses])).max()
            check(err < 1e-12, f"t = {t:g}: mean of each box's corners = its frames.jsonl position (error {err:.1e})")
        g = read_vtu(entries[-1][2])
        v = g["velocity"].reshape(81, 8, 3).mean(axis=1)
        err = np.abs(v - np.array([b["velocity"] for b in final["bodies"]])).max()
        check(err < 1e-12, f"mean of each box's point velocities = final_state.json velocity (error {err:.1e})")

        # ---- box on torus: soft tetrahedra ----
        out = os.path.join(tmp, "torus")
        subprocess.run([exe, "run", f"{src}/scenes/box_on_torus.json", "--out", out, "--steps", "6", "--vtk", "--quiet"], check=True)
        entries = read_pvd(os.path.join(out, "vtk", "run.pvd"))
        check(len(entries) == 14 and {p for _, p, _ in entries} == {0, 1}, f"run.pvd: a rigid and a soft part for steps 0..6 ({len(entries)} entries)")
        geo = json.load(open(os.path.join(out, "geometry.json")))
        stats = [json.loads(l) for l in open(os.path.join(out, "stats.jsonl"))]
        frames = [json.loads(l) for l in open(os.path.join(out, "frames.jsonl"))]
        nv, nt = geo["soft_bodies"][0]["vertex_count"], geo["soft_bodies"][0]["tet_count"]
        soft = [read_vtu(f) for _, p, f in entries if p == 1]
        rigid = [read_vtu(f) for _, p, f in entries if p == 0]
        check(all(r["points"].shape == (12, 3) and r["cells"] == 14 for r in rigid), "rigid: a plane (4 points, 2 triangles) and a box (8, 12)")
        check(all(s["points"].shape == (nv, 3) and s["cells"] == nt for s in soft), f"soft: {nv} vertices and {nt} tetrahedra in every frame")
        check(all(set(s["types"].tolist()) == {10} for s in soft), "tetrahedra only (VTK_TETRA)")
        check(all(s["connectivity"].min() == 0 and s["connectivity"].max() == nv - 1 for s in soft), "connectivity indexes every vertex")
        for step in range(1, 7):
            s = soft[step]
            x = np.array(frames[step - 1]["soft_bodies"][0]).reshape(nv, 3)
            check(np.abs(s["points"] - x).max() < 1e-12, f"step {step}: soft points = frames.jsonl")
            e, want = s["strain_energy"].sum(), stats[step - 1]["elastic_energy"]
            check(want > 0 and abs(e - want) <= 1e-9 * want, f"step {step}: sum of strain_energy {e:.6e} J = elastic_energy {want:.6e} J")
            check(s["strain_energy"].min() >= 0, f"step {step}: no negative element energy")
            prev = soft[step - 1]["points"]
            fd = (s["points"] - prev) / 0.01
            err = np.abs(s["velocity"] - fd).max()
            check(err < 1e-9 * max(1.0, np.abs(fd).max()), f"step {step}: velocity = (x_n - x_n-1) / dt (error {err:.1e} m/s)")
        check(abs(soft[0]["strain_energy"].sum()) < 1e-12, "step 0: the rest shape stores no energy")
    finally:
        if os.environ.get("COULOMB_KEEP_TEST_FILES"):
            print("files kept in", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
