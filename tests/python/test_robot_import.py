"""The cart-pole imported from its URDF (../shared/robots/urdf/cartpole.urdf) behaves as the
hand-built scenes/cartpole.json does when their parameters match: balanced by the LQR controller of
python/examples/cartpole.py from the same tilt, the two follow the same trajectory within 1e-6
(import/README.md, "Validation").

The URDF's cart-pole differs from the hand-built one in its parameters, which are set on the
imported scene to the hand-built values (the hand-built scene is used as it is):
  - pole: 10 kg, inertia diag(1, 1, 1) -> 0.1 kg, the inertia of the hand-built 0.04 x 0.04 x 1 m
    box about its centre (the centre of mass stays 0.5 m above the hinge in both);
  - cart: inertia diag(1, 1, 1) -> that of the hand-built 0.4 x 0.3 x 0.2 m box of 1 kg;
  - rail limits +-15 m -> +-2.4 m; motor 1000 N, 5 m/s -> 20 N, no speed limit;
  - time step, integrator and solver (0.002 s, MuJoCo's Moreau, newton-pcr) -> the hand-built
    scene's (0.01 s, semi-implicit, pgs with its iteration limit and tolerances);
  - no ground (the URDF gets a plane z = 0 under its cart by default; the hand-built cart-pole
    floats on its rail) and the base at z = 1 m, where the hand-built rail runs.
What stays the URDF's: its three bodies (the rail `slideBar`, a fixed body without a shape, is the
prismatic joint's parent where the hand-built rail's parent is the world), its link frames (the
pole's body frame is its link frame at the hinge, the hand-built pole's is its centre) and its
collision boxes (the cart is 0.5 x 0.5 x 0.2 m; no contact happens in either scene)."""
import math
import os
import sys

import numpy as np
import pytest

import coulomb

ROOT = os.environ.get("COULOMB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
ROBOTS = os.path.join(ROOT, "..", "shared", "robots")

import cartpole  # noqa: E402

HAND_BUILT = os.path.join(ROOT, "scenes", "cartpole.json")
URDF = os.path.join(ROBOTS, "urdf", "cartpole.urdf")


def box_inertia(mass, half_extents):
    """[Ixx, Iyy, Izz] of a solid box about its centre."""
    x, y, z = (2.0 * h for h in half_extents)
    return [mass * (y * y + z * z) / 12.0, mass * (x * x + z * z) / 12.0, mass * (x * x + y * y) / 12.0]


def named(items, name):
    return next(item for item in items if item["name"] == name)


def imported_cartpole():
    """The URDF's cart-pole as a scene dict with the hand-built scene's parameters."""
    import json

    with open(HAND_BUILT) as f:
        hand = json.load(f)
    scene, _ = coulomb.import_model(URDF, ground=False, base_position=[0.0, 0.0, 1.0])
    for name in ("cart", "pole"):
        body, ref = named(scene["bodies"], name), named(hand["bodies"], name)
        body["mass"] = ref["mass"]
        body["inertia"] = box_inertia(ref["mass"], hand["shapes"][ref["shape"]]["half_extents"])
    rail, hinge = named(scene["joints"], "slider_to_cart"), named(scene["joints"], "cart_to_pole")
    rail["name"], hinge["name"] = "rail", "hinge"
    rail["limits"] = named(hand["joints"], "rail")["limits"]
    (motor,) = scene["actuators"]
    motor.pop("max_velocity")
    motor.update(name="push", joint="rail", max_effort=named(hand["actuators"], "push")["max_effort"])
    for key in ("time", "integrator", "solver", "gravity"):
        scene[key] = hand[key]
    return scene


def tilt_about_hinge(world, angle):
    """Turns the pole `angle` rad about the hinge (the y axis through [0, 0, 1]) whatever its body
    frame; for the hand-built pole it is cartpole.tilted."""
    anchor = np.array([0.0, 0.0, 1.0])
    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    p, q = world.positions, world.orientations
    pole = world.body_names.index("pole")
    p[pole] = anchor + R @ (np.asarray(p[pole]) - anchor)
    w0, x0, y0, z0 = q[pole]
    w1, y1 = math.cos(angle / 2), math.sin(angle / 2)  # (w1, 0, y1, 0) * q
    q[pole] = [w1 * w0 - y1 * y0, w1 * x0 + y1 * z0, w1 * y0 + y1 * w0, w1 * z0 - y1 * x0]
    world.positions, world.orientations = p, q


class TiltedAboutHinge(cartpole.CartPole):
    def reset(self, angle=0.2):
        self.world.set_state(self.start)
        tilt_about_hinge(self.world, angle)
        self.world.commands = [0.0]
        return self.observation()


def rollout(env, seconds, angle):
    """obs after each step under the example's LQR gain (designed on the hand-built parameters)."""
    K = cartpole.lqr_gain(env.world.dt)
    obs = env.reset(angle)
    trace = [obs]
    for _ in range(int(round(seconds / env.world.dt))):
        obs, _, done, _ = env.step(float(-K @ obs))
        trace.append(obs)
        assert not done
    return np.array(trace)


@pytest.mark.skipif(not os.path.isdir(ROBOTS), reason="../shared/robots is not beside the repository")
def test_urdf_cartpole_follows_the_hand_built_one_under_lqr():
    hand = cartpole.CartPole(HAND_BUILT)
    urdf = TiltedAboutHinge(imported_cartpole())
    # the generic tilt is the example's on the hand-built pole
    assert np.allclose(TiltedAboutHinge(HAND_BUILT).reset(0.2), hand.reset(0.2), rtol=0, atol=1e-15)
    a = rollout(hand, 5.0, 0.2)
    b = rollout(urdf, 5.0, 0.2)
    gap = np.max(np.abs(a - b), axis=0)
    print(f"\nURDF vs hand-built cart-pole, 5 s under LQR from 0.2 rad: largest |difference| of "
          f"x {gap[0]:.3g} m, x' {gap[1]:.3g} m/s, theta {gap[2]:.3g} rad, theta' {gap[3]:.3g} rad/s")
    assert np.all(gap < 1e-6), gap
    assert abs(a[-1, 2]) < 0.01 and abs(a[-1, 0]) < 0.1  # balanced, both
    # the comparison can tell a parameter apart: the pole's Iyy 0.1% larger moves theta by ~2e-5 rad
    scene = imported_cartpole()
    named(scene["bodies"], "pole")["inertia"][1] *= 1.001
    c = rollout(TiltedAboutHinge(scene), 5.0, 0.2)
    assert np.max(np.abs(a - c)[:, 2]) > 1e-6
