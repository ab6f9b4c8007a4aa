"""The Python module and the CLI run the same engine on the same scene: the Wall (the PROX
paper's 81 bricks) gives bit-identical final states and per-step stats both ways, from the file
and from a dict built in Python."""
import os

import numpy as np
import pytest

import coulomb
from conftest import read_run, run_cli

TIMINGS = {"wall_ms", "detect_ms", "assemble_ms", "solve_ms", "integrate_ms", "stabilize_ms"}  # measured, not computed


def same_stats(columns, rows):
    """stats.jsonl lines equal World.run's columns, all but the timings."""
    assert len(rows) == len(columns["step"])
    for key, col in columns.items():
        if key in TIMINGS:
            continue
        if isinstance(col, dict):
            for sub, c in col.items():
                assert np.array_equal(c, [r[key][sub] for r in rows]), f"{key}.{sub}"
        else:
            assert np.array_equal(col, [r[key] for r in rows]), key


# the example in full (500 steps of pgs), and the scene's own prox-gs for 60 steps (its
# 100 iterations at 1e-6 make a full run take 8 s here)
@pytest.mark.parametrize("solver,overrides,steps", [("pgs", {"/solver/max_iterations": 50}, None), (None, {}, 60)],
                         ids=["pgs", "prox-gs"])
def test_wall_final_state_is_bit_identical_to_the_cli(coulomb_exe, scenes, tmp_path, solver, overrides, steps):
    scene = os.path.join(scenes, "wall.json")
    args = ["run", scene, "--out", str(tmp_path / "cli"), "--quiet"]
    if solver:
        args += ["--solver", solver]
    if steps:
        args += ["--steps", str(steps)]
    args += [f"--set={p}={v}" for p, v in overrides.items()]
    run_cli(coulomb_exe, *args)
    cli_final, cli_stats = read_run(tmp_path / "cli")

    w = coulomb.World(scene, solver=solver, overrides=overrides, steps=steps)
    split = 30 if steps else 100
    first = w.run(split)
    at_split = w.final_state()
    rest = w.run()
    stats = {k: (np.concatenate([first[k], rest[k]]) if not isinstance(v, dict) else
                 {s: np.concatenate([first[k][s], rest[k][s]]) for s in v}) for k, v in first.items()}
    assert w.step_count == (steps or 500)
    final = w.final_state()
    assert final == cli_final  # every float equal: the JSON holds doubles exactly
    # and the body arrays are those numbers
    assert np.array_equal(w.positions, [b["position"] for b in cli_final["bodies"]])
    assert np.array_equal(w.orientations, [b["orientation"] for b in cli_final["bodies"]])
    assert np.array_equal(w.velocities, [b["velocity"] for b in cli_final["bodies"]])
    assert np.array_equal(w.angular_velocities, [b["angular_velocity"] for b in cli_final["bodies"]])
    same_stats(stats, cli_stats)

    # the same scene as a dict in Python (read as the CLI reads the file) gives the same run
    doc = coulomb.read_scene(scene)
    w2 = coulomb.World(doc, solver=solver, overrides=overrides, steps=steps, base_dir=scenes)
    w2.run(split)
    assert w2.final_state() == at_split
