"""A cart-pole environment on Coulomb, reset/step in the style of Gym, with no RL package.

    env = CartPole()                       # scenes/cartpole.json: 1 kg cart, 1 m 0.1 kg pole, 20 N motor
    obs = env.reset(angle=0.2)             # [x, x_dot, theta, theta_dot]; theta 0 = upright
    obs, reward, done, info = env.step(u)  # u: the force on the cart (N), clamped to 20 N

Run as a script, it balances the pole from 0.2 rad with an LQR controller designed on the
linearised model (numpy only) and prints how far the pole strayed from upright. CartPoleBatch
does the same for N poles at once on coulomb.Batch.
"""
import math
import os
import sys

import numpy as np

import coulomb

SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes", "cartpole.json")


def tilted(world, angle):
    """Turns the pole `angle` rad about the hinge (the y axis through [0, 0, 1]); 0 is upright."""
    p, q = world.positions, world.orientations
    pole = world.body_names.index("pole")
    p[pole] = [0.5 * math.sin(angle), 0.0, 1.0 + 0.5 * math.cos(angle)]
    q[pole] = [math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0]
    world.positions, world.orientations = p, q


def lqr_gain(dt, M=1.0, m=0.1, l=0.5, inertia=None, q=(1.0, 1.0, 100.0, 1.0), r=0.1, g=9.81):
    """The discrete LQR gain K (u = -K obs) of the cart-pole linearised about upright: a cart of
    mass M and a pole of mass m whose centre lies l from the hinge (inertia about its centre)."""
    inertia = m * (2 * l) ** 2 / 12 if inertia is None else inertia
    # (M + m) x'' + m l th'' = u ;  m l x'' + (I + m l^2) th'' = m g l th
    E = np.array([[M + m, m * l], [m * l, inertia + m * l * l]])
    Ei = np.linalg.inv(E)
    A = np.zeros((4, 4))
    A[0, 1] = A[2, 3] = 1.0
    A[[1, 3], 2] = Ei @ np.array([0.0, m * g * l])
    B = np.zeros((4, 1))
    B[[1, 3], 0] = Ei @ np.array([1.0, 0.0])
    Ad, Bd = np.eye(4) + dt * A, dt * B
    Q, R = np.diag(q), np.array([[r]])
    P = Q.copy()
    for _ in range(5000):  # the discrete Riccati equation by fixed-point iteration
        K = np.linalg.solve(R + Bd.T @ P @ Bd, Bd.T @ P @ Ad)
        P = Q + Ad.T @ P @ (Ad - Bd @ K)
    return K.ravel()


class CartPole:
    """reset() -> obs; step(u) -> (obs, reward, done, info). obs = [x, x_dot, theta, theta_dot]."""

    def __init__(self, scene=SCENE, **world_args):
        self.world = coulomb.World(scene, **world_args)
        self.start = self.world.state()
        self.rail = self.world.joint_names.index("rail")
        self.hinge = self.world.joint_names.index("hinge")

    def observation(self):
        q, qd = self.world.joint_positions, self.world.joint_velocities
        return np.array([q[self.rail], qd[self.rail], q[self.hinge], qd[self.hinge]])

    def reset(self, angle=0.2):
        self.world.set_state(self.start)
        tilted(self.world, angle)
        self.world.commands = [0.0]
        return self.observation()

    def step(self, u):
        self.world.commands = [u]
        self.world.step()
        obs = self.observation()
        done = abs(obs[2]) > 0.8 or abs(obs[0]) > 2.3
        return obs, 1.0 if not done else 0.0, done, {"time": self.world.time}


class CartPoleBatch:
    """N cart-poles on coulomb.Batch: reset(angles) -> (N, 4); step(u (N,)) -> (obs, reward, done)."""

    def __init__(self, n, threads=1, scene=SCENE):
        self.batch = coulomb.Batch(scene, n, threads=threads)
        self.rail = self.batch.joint_names.index("rail")
        self.hinge = self.batch.joint_names.index("hinge")
        probe = CartPole(scene)
        self.states = {}
        self._probe = probe

    def _start(self, angle):
        if angle not in self.states:
            self._probe.reset(angle)
            self.states[angle] = self._probe.world.state()
        return self.states[angle]

    def reset(self, angles, worlds=None):
        worlds = range(len(self.batch)) if worlds is None else worlds
        for i, a in zip(worlds, angles):
            self.batch.reset([i], self._start(float(a)))
        return self.observation()

    def observation(self):
        q, qd = self.batch.joint_positions, self.batch.joint_velocities
        return np.stack([q[:, self.rail], qd[:, self.rail], q[:, self.hinge], qd[:, self.hinge]], axis=1)

    def step(self, u):
        ok = self.batch.step(np.asarray(u, dtype=float).reshape(-1, 1))
        obs = self.observation()
        done = (np.abs(obs[:, 2]) > 0.8) | (np.abs(obs[:, 0]) > 2.3) | ~ok
        return obs, (~done).astype(float), done


def balance(seconds=10.0, angle=0.2):
    """Balances one pole from `angle` with LQR; returns the largest |theta| after the first second
    and the (t, theta) trace."""
    env = CartPole()
    K = lqr_gain(env.world.dt)
    obs = env.reset(angle)
    trace = []
    while env.world.time < seconds - 1e-9:
        obs, _, done, info = env.step(float(-K @ obs))
        trace.append((info["time"], obs[2]))
        if done:
            break
    late = [abs(th) for t, th in trace if t >= 1.0]
    return max(late) if late else math.inf, trace


if __name__ == "__main__":
    worst, trace = balance()
    print(f"balanced for {trace[-1][0]:.2f} s; largest |theta| after 1 s: {worst:.4f} rad")
    sys.exit(0 if worst < 0.05 else 1)
