"""The Python API (python/README.md) on small scenes: scenes from files and dicts, stepping and
its stats, reading and writing the body arrays, State round trips, errors with their JSON pointer,
step and body, soft bodies, the registry and FCLib problems."""
import copy
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import coulomb
from conftest import run_cli


def box_on_plane(mu=0.5, v0=2.0, steps=150):
    """A scene built in Python: a 0.2 m box sliding on a plane at v0 (SCENE_FORMAT.md)."""
    return {
        "format": "coulomb-scene/1", "name": "slide", "gravity": [0, 0, -9.81],
        "time": {"dt": 0.01, "steps": steps},
        "materials": {"default": {"density": 1000, "friction": mu}},
        "shapes": {"ground": {"type": "plane", "normal": [0, 0, 1], "offset": 0},
                   "box": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}},
        "bodies": [{"name": "ground", "shape": "ground", "fixed": True},
                   {"name": "box", "shape": "box", "position": [0, 0, 0.1], "velocity": [v0, 0, 0]}],
    }


def test_registry_and_info():
    names = [s["name"] for s in coulomb.solvers()]
    assert {"pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi"} <= set(names)
    pgs = next(s for s in coulomb.solvers() if s["name"] == "pgs")
    assert pgs["rigid"] and not pgs["soft"] and "max_iterations" in pgs["keys"]
    info = coulomb.info()
    assert info["version"] == coulomb.__version__ and info["solvers"] == names
    assert isinstance(info["cuda"]["compiled"], bool)


def test_dict_scene_slides_the_coulomb_distance():
    # a box sliding at v0 on a plane with friction mu stops after v0^2 / (2 mu g)
    mu, v0, g = 0.5, 2.0, 9.81
    w = coulomb.World(box_on_plane(mu, v0))
    stats = w.run()
    assert w.step_count == 150 and len(stats["step"]) == 150
    assert list(stats["step"][:3]) == [1, 2, 3]
    assert stats["kinetic_energy"].dtype == np.float64 and stats["converged"].dtype == np.bool_
    assert set(stats["joint_error"]) == {"linear", "angular"}
    x = w.positions[w.body_names.index("box"), 0]
    assert x == pytest.approx(v0 * v0 / (2 * mu * g), rel=1e-3)  # measured: 0.40779 m for 0.40775 m
    assert stats["kinetic_energy"][-1] < 1e-8  # it stopped


def test_step_returns_the_stats_line(coulomb_exe, scenes, tmp_path):
    w = coulomb.World(os.path.join(scenes, "sliding_box.json"))
    s = w.step()
    assert s["step"] == 1 and s["time"] == pytest.approx(w.dt)
    # the keys of a stats.jsonl line
    run_cli(coulomb_exe, "run", os.path.join(scenes, "sliding_box.json"), "--steps", "1", "--out", str(tmp_path), "--quiet")
    with open(tmp_path / "stats.jsonl") as f:
        line = json.loads(f.readline())
    assert set(s) == set(line)
    assert w.last_stats == s
    assert w.run(0)["step"].shape == (0,)


def test_run_every_and_keep_select_rows_and_keys_of_the_full_columns():
    full = coulomb.World(box_on_plane(steps=100)).run()
    every = coulomb.World(box_on_plane(steps=100)).run(every=10)
    assert list(every["step"]) == list(range(10, 101, 10))
    for key in ("time", "contacts", "kinetic_energy", "converged"):
        np.testing.assert_array_equal(every[key], full[key][9::10])
    np.testing.assert_array_equal(every["joint_error"]["linear"], full["joint_error"]["linear"][9::10])
    assert len(every["health"]) == 10
    assert list(coulomb.World(box_on_plane(steps=100)).run(25, every=10)["step"]) == [10, 20, 25]  # and the last
    kept = coulomb.World(box_on_plane(steps=100)).run(keep=["contacts", "joint_error"])
    assert set(kept) == {"contacts", "joint_error"} and set(kept["joint_error"]) == {"linear", "angular"}
    np.testing.assert_array_equal(kept["contacts"], full["contacts"])
    w = coulomb.World(box_on_plane(steps=100))
    assert w.run(keep=[]) == {} and w.step_count == 100
    with pytest.raises(ValueError, match="keep names no stats key 'contact' .*contacts"):
        w.run(1, keep=["contact"])
    with pytest.raises(ValueError, match="every must be >= 1"):
        w.run(1, every=0)


RUN_MEMORY = """
import json, sys, numpy, coulomb
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key + ":"))
w = coulomb.World(json.loads(sys.argv[1]))
w.run(1)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size starts again from the current one
before = status("VmRSS")
cols = w.run(int(sys.argv[2]), **json.loads(sys.argv[3]))
print((status("VmHWM") - before) / int(sys.argv[2]))
"""


def test_run_holds_a_few_hundred_bytes_per_step():
    # 30,000 steps of a box on a plane, in a fresh process: the growth of its peak resident size
    # per step (a JSON object per step took about 3.7 KB; 26 numbers of 8 bytes are 208, their
    # vectors' spare capacity up to as much, and each step's empty list of health findings 64)
    n = 30000

    def per_step(**kw):
        p = subprocess.run([sys.executable, "-c", RUN_MEMORY, json.dumps(box_on_plane(steps=n + 1)), str(n),
                            json.dumps(kw)], capture_output=True, text=True, check=True)
        return float(p.stdout)
    every = per_step()
    assert every < 700, f"{every:.0f} bytes per step"
    assert per_step(keep=["contacts"]) < 100
    print(f"World.run: {every:.0f} bytes per step with every key")


def test_writing_positions_then_stepping():
    # lift the box 1 m and let it fall: after n steps of free fall it is g t^2 / 2 lower, and its
    # velocities and orientation were left as they were
    w = coulomb.World(box_on_plane(v0=0.0))
    i = w.body_names.index("box")
    q0, v0 = w.orientations, w.velocities
    p = w.positions
    p[i, 2] = 1.1
    w.positions = p
    assert w.positions[i, 2] == 1.1
    assert np.array_equal(w.orientations, q0) and np.array_equal(w.velocities, v0)
    w.run(20)
    t = 20 * w.dt
    # Moreau's midpoint step (seed 000 eq. 41-42) integrates a constant acceleration exactly
    assert w.positions[i, 2] == pytest.approx(1.1 - 0.5 * 9.81 * t * t, abs=1e-12)
    assert w.velocities[i, 2] == pytest.approx(-9.81 * t, rel=1e-9)


def test_writing_velocities_and_orientations():
    w = coulomb.World(box_on_plane(v0=0.0, mu=0.0))
    i = w.body_names.index("box")
    v = w.velocities
    v[i] = [1.0, 0.0, 0.0]
    w.velocities = v
    w.run(10)  # frictionless: it keeps its speed
    assert w.positions[i, 0] == pytest.approx(0.1, rel=1e-12)
    q = w.orientations
    q[i] = [2.0, 0.0, 0.0, 0.0]  # normalised on write
    w.orientations = q
    assert np.allclose(w.orientations[i], [1, 0, 0, 0])
    av = w.angular_velocities
    av[i] = [0, 0, 3.0]
    w.angular_velocities = av
    assert w.angular_velocities[i, 2] == 3.0


def test_bad_writes_are_refused():
    w = coulomb.World(box_on_plane())
    with pytest.raises(ValueError, match=r"expected an array of shape \(2, 3\)"):
        w.positions = np.zeros((3, 3))
    with pytest.raises(ValueError, match="NaN"):
        w.positions = np.full((2, 3), np.nan)
    v = w.velocities
    v[w.body_names.index("ground")] = [1, 0, 0]
    with pytest.raises(ValueError, match="'ground'.*fixed"):
        w.velocities = v
    with pytest.raises(ValueError, match="zero quaternion"):
        w.orientations = np.zeros((2, 4))


def test_state_round_trip_is_bit_identical(scenes):
    w = coulomb.World(os.path.join(scenes, "tower.json"), solver="pgs")
    w.run(30)
    s = w.state()
    assert (s.step, s.time) == (30, w.time)
    w.run(30)
    a = (w.positions, w.orientations, w.velocities, w.angular_velocities)
    w.set_state(copy.copy(s))
    assert w.step_count == 30
    w.run(30)
    b = (w.positions, w.orientations, w.velocities, w.angular_velocities)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    other = coulomb.World(box_on_plane())
    with pytest.raises(coulomb.SceneError) as e:
        other.set_state(s)
    assert e.value.pointer == "State"


def test_scene_errors_carry_the_json_pointer(scenes):
    bad = box_on_plane()
    bad["bodies"][1]["position"] = [0, 0]
    with pytest.raises(coulomb.SceneError) as e:
        coulomb.World(bad)
    assert e.value.pointer == "/bodies/1/position" and str(e.value).startswith("/bodies/1/position: ")
    assert isinstance(e.value, ValueError)
    with pytest.raises(coulomb.SceneError) as e:
        coulomb.validate(os.path.join(scenes, "wall.json"), overrides={"/solver/max_iterations": -1})
    assert e.value.pointer == "/solver/max_iterations"
    with pytest.raises(coulomb.SceneError) as e:
        coulomb.load_scene(os.path.join(scenes, "wall.json"), solver="nope")
    assert e.value.pointer == "/solver/type"
    with pytest.raises(coulomb.SceneError) as e:
        coulomb.World(os.path.join(scenes, "no_such_scene.json"))
    with pytest.raises(TypeError, match="/bodies/1/velocity/0"):
        bad = box_on_plane()
        bad["bodies"][1]["velocity"][0] = object()
        coulomb.World(bad)


def test_thread_counts_above_the_cap_raise_scene_error():
    # the World's own cap (WorldSettings::kMaxThreads, also the CLI's --threads limit)
    for threads in (1025, 100000):
        with pytest.raises(coulomb.SceneError) as e:
            coulomb.World(box_on_plane(), threads=threads)
        assert e.value.pointer == "threads" and "1024" in e.value.message
    assert coulomb.World(box_on_plane(steps=2), threads=2).run()["step"][-1] == 2


def nested(levels, leaf=0):
    """A dict `levels` deep: {"a": {"a": ... leaf}}."""
    doc = leaf
    for _ in range(levels):
        doc = {"a": doc}
    return doc


def test_dicts_that_contain_themselves_or_nest_too_deep_raise_scene_error(tmp_path):
    # both recursed in the conversion to JSON until the stack overflowed
    loop = box_on_plane()
    loop["x"] = loop
    with pytest.raises(coulomb.SceneError) as e:
        coulomb.World(loop)
    assert e.value.pointer == "/x" and "contains itself" in e.value.message and "top level" in e.value.message
    bodies = box_on_plane()
    bodies["bodies"][1]["shape"] = bodies["bodies"]
    with pytest.raises(coulomb.SceneError, match="/bodies/1/shape: .*contains itself.*/bodies again"):
        coulomb.validate(bodies)
    listed = []
    listed.append(listed)
    with pytest.raises(coulomb.SceneError, match="/solver/x/0: .*contains itself.*/solver/x again"):
        coulomb.World(box_on_plane(), overrides={"/solver/x": listed})
    deep = box_on_plane()
    deep["x"] = nested(200000)
    with pytest.raises(coulomb.SceneError, match="nesting deeper than 256 levels") as e:
        coulomb.World(deep)
    assert e.value.pointer.startswith("/x/a/a/") and e.value.pointer.endswith("/...")
    for call in (lambda: coulomb.apply_overrides(deep), lambda: coulomb.load_scene(box_on_plane(), overrides={"/x": nested(200000)})):
        with pytest.raises(coulomb.SceneError, match="nesting deeper than 256 levels"):
            call()
    # the JSON reader's limit, with its message: the same document as a dict and as a file
    for levels in (255, 256):  # 256 and 257 containers with the scene's own
        doc = box_on_plane()
        doc["x"] = nested(levels)
        path = tmp_path / f"deep{levels}.json"
        path.write_text(json.dumps(doc))
        with pytest.raises(coulomb.SceneError) as from_dict:
            coulomb.validate(doc)
        with pytest.raises(coulomb.SceneError) as from_file:
            coulomb.validate(str(path))
        assert str(from_dict.value) == str(from_file.value)
        assert ("nesting deeper" in str(from_dict.value)) == (levels == 256)


def test_a_failed_step_carries_step_and_body(scenes):
    # as the CLI's max-speed check: the box starts faster than 1 m/s
    w = coulomb.World(os.path.join(scenes, "sliding_box.json"), max_speed=1.0)
    with pytest.raises(coulomb.SimulationError) as e:
        w.run()
    err = e.value
    assert (err.step, err.body, err.status) == (1, "box", "invalid_state")
    assert "step 1: body 'box'" in err.message
    assert list(err.stats["step"]) == [1]  # the columns up to the failed step
    with pytest.raises(coulomb.SimulationError) as again:  # the world steps no further
        w.step()
    assert again.value.step == 1 and w.step_count == 1


def test_load_scene_validate_and_overrides(scenes):
    path = os.path.join(scenes, "wall.json")
    sc = coulomb.load_scene(path, solver="pgs", overrides={"/solver/max_iterations": 50}, steps=10)
    assert (sc.solver, sc.steps, len(sc.body_names)) == ("pgs", 10, 81)
    assert coulomb.World(sc).total_steps == 10
    with pytest.raises(ValueError, match="already validated"):
        coulomb.World(sc, steps=3)
    v = coulomb.validate(path)
    assert (v["bodies"], v["soft_bodies"], v["solver"]) == (81, 0, "prox-gs")
    doc = coulomb.apply_overrides(coulomb.read_scene(path), overrides=["/solver/max_iterations=7"], dt=0.02)
    assert doc["solver"]["max_iterations"] == 7 and doc["time"]["dt"] == 0.02


def test_soft_vertices(scenes):
    w = coulomb.World(os.path.join(scenes, "soft_ball_drop.json"), steps=40)
    name = w.soft_body_names[0]
    x0 = w.soft_vertices(name)
    assert x0.ndim == 2 and x0.shape[1] == 3 and x0.shape[0] > 10
    w.run()
    x1 = w.soft_vertices(name)
    assert x1.shape == x0.shape and x1[:, 2].mean() < x0[:, 2].mean()  # it fell
    final = w.final_state()["soft_bodies"][0]
    assert final["vertex_count"] == x1.shape[0]
    assert np.allclose(final["centroid"], x1.mean(axis=0), atol=0.05)
    with pytest.raises(KeyError, match="no soft body named 'nope'"):
        w.soft_vertices("nope")


FCLIB = os.environ.get("COULOMB_FCLIB_DIR", "")


@pytest.mark.skipif(not os.path.exists(os.path.join(FCLIB, "FrictionContact3D_1c.hdf5")),
                    reason="../shared/fclib is not there")
def test_fclib_solve_matches_the_cli(coulomb_exe):
    path = os.path.join(FCLIB, "FrictionContact3D_1c.hdf5")
    r = coulomb.fclib_solve(path, "prox-gs", tol=1e-8)
    assert r["nc"] == r["impulses"].shape[0] and r["impulses"].shape[1] == 4
    assert r["converged"] and r["fclib_merit"] < 1e-6
    line = json.loads(run_cli(coulomb_exe, "fclib", path, "--solver", "prox-gs", "--json").stdout.splitlines()[0])
    assert (line["iterations"], line["merit"], line["fclib_merit"]) == (r["iterations"], r["merit"], r["fclib_merit"])
    with pytest.raises(coulomb.SceneError, match="unknown solver"):
        coulomb.fclib_solve(path, "nope")


def test_health_findings_and_initial_overlaps():
    # the box starts 5 cm into the ground: refused by default, moved out by "resolve"
    scene = box_on_plane(v0=0.0, steps=5)
    scene["bodies"][1]["position"] = [0, 0, 0.05]
    with pytest.raises(coulomb.SceneError):
        coulomb.World(scene)
    scene["collision"] = {"initial_overlap": "resolve"}
    w = coulomb.World(scene)
    o = w.initial_overlaps
    assert [(a, b) for a, b, _ in o["pairs"]] == [("ground", "box")] or [(a, b) for a, b, _ in o["pairs"]] == [("box", "ground")]
    assert o["pairs"][0][2] == pytest.approx(0.05, abs=1e-6)
    assert o["shifts"][0][0] == "box" and o["shifts"][0][1][2] > 0.04
    stats = w.run()
    assert stats["health"] == [[]] * 5  # a list of each step's findings: none
    # a box moved under the ground: a below_plane finding; warn goes on, stop raises
    for health in ("warn", "stop"):
        w = coulomb.World(box_on_plane(v0=0.0, steps=5), health=health)
        p = w.positions
        p[w.body_names.index("box"), 2] = -1.0
        w.positions = p
        if health == "warn":
            s = w.step()
            assert [f["check"] for f in s["health"]] == ["below_plane"] and not s["converged"]
        else:
            with pytest.raises(coulomb.SimulationError, match="behind the fixed plane 'ground'"):
                w.step()
    with pytest.raises(coulomb.SceneError, match="health"):
        coulomb.World(box_on_plane(), health="maybe")
