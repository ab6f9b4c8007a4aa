"""Driving a World from Python (python/README.md "Driving a World"): loads, actuators, joint and
contact sensing as arrays, their errors, batches, and two controllers (a cart-pole
balanced by LQR, a 6-joint arm under PD torque control)."""
import math
import os
import sys

import numpy as np
import pytest

import coulomb

ROOT = os.environ.get("COULOMB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

import arm_pd  # noqa: E402
import cartpole  # noqa: E402


def box_scene(solver="pgs", friction=0.5, gravity=-9.81):
    return {
        "format": "coulomb-scene/1",
        "gravity": [0, 0, gravity],
        "time": {"dt": 0.01, "steps": 100},
        "solver": {"type": solver, "max_iterations": 100, "abs_tol": 1e-12, "rel_tol": 1e-12},
        "integrator": "semi-implicit",
        "materials": {"default": {"density": 1000, "friction": friction}},
        "shapes": {"box": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}, "ground": {"type": "plane", "normal": [0, 0, 1]}},
        "bodies": [
            {"name": "ground", "shape": "ground", "fixed": True},
            {"name": "a", "shape": "box", "mass": 1.0, "position": [0, 0, 0.1]},
            {"name": "b", "shape": "box", "mass": 2.0, "position": [1, 0, 0.1]},
        ],
    }


def test_forces_by_name_and_id_accelerate_bodies():
    w = coulomb.World(box_scene(friction=0.0))
    w.apply_force(["a", 2], [[1.0, 0, 0], [0, 4.0, 0]])  # by name and by id, one row each
    w.run(100)
    v = w.velocities
    assert v[1, 0] == pytest.approx(1.0 * w.time, rel=1e-6)
    assert v[2, 1] == pytest.approx(2.0 * w.time, rel=1e-6)
    assert w.wrenches[1, 0] == 1.0
    w.clear_loads()
    assert not w.wrenches.any()


def test_contacts_are_a_structured_array_that_carries_the_weight():
    w = coulomb.World(box_scene())
    w.run(50)
    c = w.contacts()
    assert c.dtype.names[:4] == ("body_a", "body_b", "soft_a", "soft_b")
    up = np.where(c["body_b"] == 1, 1.0, -1.0) * c["normal_impulse"] * c["normal"][:, 2]
    on_a = (c["body_a"] == 1) | (c["body_b"] == 1)
    assert up[on_a].sum() / w.dt == pytest.approx(9.81, rel=5e-3)


def test_bad_arguments_raise_at_the_call():
    w = coulomb.World(box_scene())
    with pytest.raises(KeyError):
        w.apply_force("nobody", [1, 0, 0])
    with pytest.raises(IndexError):
        w.apply_force(17, [1, 0, 0])
    with pytest.raises(ValueError, match="force"):
        w.apply_force("a", [1, 0])
    with pytest.raises(ValueError, match="NaN"):
        w.apply_force("a", [math.nan, 0, 0])
    with pytest.raises(ValueError, match="fixed"):
        w.apply_force("ground", [1, 0, 0])
    with pytest.raises(ValueError, match="wrenches"):
        w.wrenches = np.zeros((2, 6))
    with pytest.raises(ValueError, match="commands"):
        w.commands = [1.0]  # this world has no actuators


def test_cartpole_actuator_and_joint_arrays():
    w = coulomb.World(os.path.join(ROOT, "scenes", "cartpole.json"))
    assert w.actuator_names == ["push"] and w.joint_names == ["rail", "hinge"]
    w.commands = [50.0]  # clamped to 20 N
    w.step()
    assert w.actuator_efforts[0] == 20.0
    assert w.joint_velocities[0] > 0.0
    with pytest.raises(KeyError):
        w.set_command("pull", 1.0)
    with pytest.raises(ValueError, match="NaN"):
        w.commands = [math.inf]


def test_cartpole_balanced_by_lqr_for_ten_seconds():
    worst, trace = cartpole.balance(seconds=10.0, angle=0.2)
    assert trace[-1][0] == pytest.approx(10.0)
    assert worst < 0.05  # |theta| after the first second


def test_arm_follows_a_sine_trajectory_under_pd_torque_control():
    rms, world = arm_pd.track(seconds=5.0)
    assert rms < 0.01


def test_batch_equals_separate_worlds_and_resets():
    scene = os.path.join(ROOT, "scenes", "cartpole.json")
    n, steps = 4, 60
    rng = np.random.default_rng(3)
    u = rng.uniform(-20, 20, size=(steps, n))
    separate = [coulomb.World(scene) for _ in range(n)]
    for s in range(steps):
        for i, w in enumerate(separate):
            w.commands = [u[s, i]]
            w.step()
    for threads in (1, 2):
        b = coulomb.Batch(scene, n, threads=threads)
        for s in range(steps):
            assert b.step(u[s].reshape(n, 1)).all()
        assert np.array_equal(b.positions, np.stack([w.positions for w in separate]))
        assert np.array_equal(b.joint_positions, np.stack([w.joint_positions for w in separate]))
        b.reset([0, 2])
        assert list(b.step_counts) == [0, steps, 0, steps]
    with pytest.raises(IndexError):
        b.reset([n])
    with pytest.raises(ValueError, match="commands"):
        b.step(np.zeros((n + 1, 1)))


def test_batch_cartpoles_balance():
    env = cartpole.CartPoleBatch(8, threads=2)
    K = cartpole.lqr_gain(env.batch.dt)
    obs = env.reset(np.linspace(-0.2, 0.2, 8))
    for _ in range(300):
        obs, _, done = env.step(-obs @ K)
        assert not done.any()
    assert np.abs(obs[:, 2]).max() < 0.05


def test_commands_that_blow_up_end_with_a_simulation_error_naming_the_body():
    w = coulomb.World(os.path.join(ROOT, "scenes", "cartpole.json"), max_speed=50.0)
    w.apply_torque("pole", [0, 1e6, 0])  # persistent, far beyond anything the scene can carry
    with pytest.raises(coulomb.SimulationError) as e:
        w.run(100)
    assert e.value.body in ("cart", "pole")  # the first past the limit
    assert "spins" in str(e.value) or "moves" in str(e.value)


def test_commands_are_clamped_into_ctrl_range_and_geared():
    # a shapeless link (its inertial only) on a hinge; a geared effort actuator with a ctrl_range
    scene = box_scene(gravity=0.0)
    scene["bodies"].append({"name": "link", "mass": 1.0, "inertia": [0.1, 0.1, 0.1, 0.0, 0.0, 0.0], "position": [0, 0, 2]})
    scene["joints"] = [{"name": "hinge", "type": "hinge", "a": "link", "b": None, "anchor": [0, 0, 2], "axis": [0, 0, 1],
                        "damping": 0.0}]
    scene["actuators"] = [{"name": "m", "type": "effort", "joint": "hinge", "gear": 2.0, "ctrl_range": [-0.5, 0.5]}]
    w = coulomb.World(scene)
    w.commands = [3.0]
    assert w.commands[0] == 0.5
    w.run(10)
    assert w.actuator_efforts[0] == 0.5  # the actuator's force; the joint got gear times it
    assert w.joint_velocities[0] == pytest.approx(2.0 * 0.5 / 0.1 * w.time, rel=1e-9)


ROBOTS = os.path.join(os.environ.get("COULOMB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "..", "shared", "robots")


@pytest.mark.skipif(not os.path.isdir(ROBOTS), reason="../shared/robots is not beside the repository")
def test_import_model_and_world_from_a_model_file(tmp_path):
    # import_model returns the scene dict and the warnings; World takes the model file directly
    scene, warnings = coulomb.import_model(os.path.join(ROBOTS, "urdf", "cartpole.urdf"), dt=0.001, duration=0.05)
    assert scene["format"] == "coulomb-scene/1" and scene["time"]["dt"] == 0.001
    assert any(j["type"] == "prismatic" for j in scene["joints"])
    assert all(isinstance(w, str) for w in warnings)
    world = coulomb.World(scene)
    world.run()
    assert world.step_count == 50
    with pytest.warns(UserWarning):  # the MJCF pendulum's unsupported attributes are warned about
        world = coulomb.World(os.path.join(ROBOTS, "mjcf", "inverted_pendulum.xml"), steps=20)
    world.run()
    assert world.step_count == 20
    with pytest.raises(coulomb.ModelError, match="strict"):
        coulomb.import_model(os.path.join(ROBOTS, "mjcf", "inverted_pendulum.xml"), strict=True)
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='r'><link name='a'></robot>")
    with pytest.raises(coulomb.ModelError, match="bad.urdf"):
        coulomb.import_model(str(bad))
