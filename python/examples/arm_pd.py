"""PD torque control of a 6-joint arm (scenes/arm6.json) along a joint-space sine trajectory.

Each step reads the joint angles and rates as arrays, computes the torques of a PD law on the
tracking error with the trajectory's velocity as feed-forward, and sets all six commands at once.
Run as a script, it prints the RMS tracking error over 5 s.
"""
import os
import sys

import numpy as np

import coulomb

SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes", "arm6.json")

AMPLITUDE = np.array([0.5, 0.3, 0.4, 0.6, 0.4, 0.6])  # rad
FREQUENCY = np.array([0.3, 0.25, 0.35, 0.4, 0.45, 0.5])  # Hz
# each joint's gains from the inertia it turns with the arm upright (kg m^2): a critically damped
# loop of 30 rad/s, slow enough for explicit torques at the scene's 2 ms step
INERTIA = np.array([3.2e-3, 1.3, 0.67, 1.6e-3, 0.083, 0.011])
OMEGA = 30.0
KP = INERTIA * OMEGA**2  # N m / rad
KD = 2.0 * INERTIA * OMEGA  # N m s / rad


def reference(t):
    """The trajectory's angles and rates at time t."""
    w = 2 * np.pi * FREQUENCY
    return AMPLITUDE * np.sin(w * t), AMPLITUDE * w * np.cos(w * t)


def track(seconds=5.0, scene=SCENE):
    """Runs the PD loop; returns the RMS error over all joints and steps (rad) and the world."""
    world = coulomb.World(scene)
    errors = []
    while world.time < seconds - 1e-9:
        q, qd = world.joint_positions, world.joint_velocities
        q_ref, qd_ref = reference(world.time)
        world.commands = KP * (q_ref - q) + KD * (qd_ref - qd)
        world.step()
        errors.append(world.joint_positions - reference(world.time)[0])
    return float(np.sqrt(np.mean(np.square(errors)))), world


if __name__ == "__main__":
    rms, world = track()
    print(f"RMS tracking error over {world.time:.1f} s: {rms:.5f} rad")
    sys.exit(0 if rms < 0.01 else 1)
