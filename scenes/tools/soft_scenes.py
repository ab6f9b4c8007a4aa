# Writes the seed 004 scenes (figure 1, 7 and 8 after the paper, at our sizes):
#   scenes/rings.json          about 100 elastic rings dropped into a box (figure 8(h))
#   scenes/soft_pyramid.json   a square pyramid of 91 soft blocks (figure 8(e))
#   scenes/spheres_torus.json  nine soft spheres rolled between a rigid torus and a rotating sphere (figure 7)
#   scenes/soft_wringer.json   a Neo-Hookean bar pushed through two rotating rollers (figure 1, reduced)
# and their reduced versions for the regression tests under tests/data/seed004/.
# Run from the repository root: python3 scenes/tools/soft_scenes.py
import json, math, os, random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write(path, scene):
    path = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(scene, indent=1) + "\n")


def torus_obj(path, major, minor, segments, sides):
    """Closed torus surface about z, outward faces counter-clockwise (as coulomb-meshgen torus)."""
    lines = [f"# scenes/tools/soft_scenes.py: torus major {major} minor {minor} segments {segments} sides {sides}"]
    for i in range(segments):
        u = 2 * math.pi * i / segments
        for j in range(sides):
            w = 2 * math.pi * j / sides
            r = major + minor * math.cos(w)
            lines.append(f"v {r * math.cos(u):.9g} {r * math.sin(u):.9g} {minor * math.sin(w):.9g}")
    idx = lambda i, j: (i % segments) * sides + (j % sides) + 1
    for i in range(segments):
        for j in range(sides):
            a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)
            lines += [f"f {a} {b} {c}", f"f {a} {c} {d}"]
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write("\n".join(lines) + "\n")


def random_quat(rng):
    # uniform random rotation (Shoemake)
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return [round(v, 6) for v in (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
                                  b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))]


def box_walls(half_x, half_y, height, thickness=0.05):
    """A fixed ground box and four walls around [-half_x, half_x] x [-half_y, half_y]."""
    t = thickness
    shapes = {
        "floor": {"type": "box", "half_extents": [half_x + 2 * t, half_y + 2 * t, t]},
        "wall_x": {"type": "box", "half_extents": [t, half_y + 2 * t, height / 2]},
        "wall_y": {"type": "box", "half_extents": [half_x, t, height / 2]},
    }
    bodies = [
        {"name": "floor", "shape": "floor", "position": [0, 0, -t], "fixed": True},
        {"name": "wall_px", "shape": "wall_x", "position": [half_x + t, 0, height / 2], "fixed": True},
        {"name": "wall_nx", "shape": "wall_x", "position": [-half_x - t, 0, height / 2], "fixed": True},
        {"name": "wall_py", "shape": "wall_y", "position": [0, half_y + t, height / 2], "fixed": True},
        {"name": "wall_ny", "shape": "wall_y", "position": [0, -half_y - t, height / 2], "fixed": True},
    ]
    return shapes, bodies


# The bundled scenes run cr-mlcp (seed 004: every step ends free of intersections); the reduced
# test copies keep xpbd-jacobi's sweep budget, the baseline of tools/bench/cr_mlcp_table.cpp
# (the tests choose cr-mlcp themselves).
CR_MLCP = {"type": "cr-mlcp", "max_iterations": 3000}


def scene(name, description, dt, duration, iterations, materials, shapes, bodies, soft, joints=None):
    solver = CR_MLCP if iterations == "cr-mlcp" else {"type": "xpbd-jacobi", "max_iterations": iterations}
    s = {"format": "coulomb-scene/1", "name": name, "description": description,
         "gravity": [0, 0, -9.81], "time": {"dt": dt, "duration": duration},
         "solver": solver,
         "materials": materials, "shapes": shapes, "bodies": bodies, "soft_bodies": soft}
    if joints:
        s["joints"] = joints
    return s


TEST_MESHES = "../../../scenes/meshes/"  # from tests/data/seed004/


# --- rings (figure 8(h): 120 rings, E = 5e6 Pa in the paper's stiff variant, mu = 0.5) -------------
RING_MAJOR, RING_MINOR = 0.05, 0.012
torus_obj("scenes/meshes/ring.obj", RING_MAJOR, RING_MINOR, 16, 6)


def rings(count, layers_xy, seed, meshes="meshes/"):
    rng = random.Random(seed)
    pitch = 2 * (RING_MAJOR + RING_MINOR) + 0.01  # a sphere around each ring, never overlapping at start
    n = layers_xy
    half = n * pitch / 2
    shapes, bodies = box_walls(half, half, 0.5)
    soft = []
    for k in range(count):
        i, j, l = k % n, (k // n) % n, k // (n * n)
        soft.append({"name": f"ring_{k}", "material": "rubber",
                     "position": [round(-half + (i + 0.5) * pitch, 6), round(-half + (j + 0.5) * pitch, 6),
                                  round(0.08 + l * pitch, 6)],
                     "orientation": random_quat(rng),
                     "mesh": {"type": "tetgen", "surface": meshes + "ring.obj", "max_volume": 4e-6, "quality": 2.0}})
    return shapes, bodies, soft


RING_MATERIALS = {"default": {"density": 1000, "friction": 0.5},
                  "rubber": {"density": 1100, "friction": 0.5, "young": 1e6, "poisson": 0.3,
                             "model": "corotational", "damping": 0.002}}
sh, bo, so = rings(100, 5, 4)
write("scenes/rings.json", scene(
    "rings", "Seed 004 figure 8(h) at our size: 100 elastic rings (corotational, E = 1e6 Pa, major radius 5 cm, "
    "tube 1.2 cm) in random orientations fall into a 0.72 m box and tangle into a pile; mu = 0.5. The rings are "
    "thin, so without continuous collision detection they can pass through each other: the step must end free of "
    "intersections (written by scenes/tools/soft_scenes.py).",
    0.002, 2.0, "cr-mlcp", RING_MATERIALS, {**sh}, bo, so))
sh, bo, so = rings(8, 2, 4, TEST_MESHES)
write("tests/data/seed004/rings_small.json", scene(
    "rings_small", "rings.json reduced to 8 rings in a 0.29 m box, for the regression tests.",
    0.002, 0.6, 30, RING_MATERIALS, sh, bo, so))


# --- soft pyramid (figure 8(e): 140 blocks in a pyramid) ------------------------------------------
def pyramid(levels, block=0.1, gap=0.002):
    soft = []
    k = 0
    for level in range(levels):
        n = levels - level
        for i in range(n):
            for j in range(n):
                x = (i - (n - 1) / 2) * (block + gap)
                y = (j - (n - 1) / 2) * (block + gap)
                z = block / 2 + gap + level * (block + gap)
                soft.append({"name": f"block_{k}", "material": "foam", "position": [round(x, 6), round(y, 6), round(z, 6)],
                             "mesh": {"type": "box", "half_extents": [block / 2] * 3, "resolution": [2, 2, 2]}})
                k += 1
    shapes = {"ground": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}
    bodies = [{"name": "ground", "shape": "ground", "fixed": True}]
    return shapes, bodies, soft


PYRAMID_MATERIALS = {"default": {"density": 1000, "friction": 0.5},
                     "foam": {"density": 500, "friction": 0.5, "young": 5e6, "poisson": 0.3,
                              "model": "corotational", "damping": 0.002}}
sh, bo, so = pyramid(6)
write("scenes/soft_pyramid.json", scene(
    "soft_pyramid", "Seed 004 figure 8(e) at our size: a square pyramid of 91 soft 10 cm blocks (6x6, 5x5, ..., 1; "
    "corotational, E = 5e6 Pa, mu = 0.5) with 2 mm gaps settles and stands (written by scenes/tools/soft_scenes.py).",
    0.002, 1.0, "cr-mlcp", PYRAMID_MATERIALS, sh, bo, so))
sh, bo, so = pyramid(2)
write("tests/data/seed004/soft_pyramid_small.json", scene(
    "soft_pyramid_small", "soft_pyramid.json reduced to 5 blocks (2x2 and 1), for the regression tests.",
    0.002, 0.5, 30, PYRAMID_MATERIALS, sh, bo, so))


# --- spheres between a torus and a rotating sphere (figure 7) -------------------------------------
# Torus: major 0.3, minor 0.1, lying flat, fixed. Central sphere radius 0.168 at z = 0.2 rotating
# about z at 1 rad/s (a hinge to the world with a position drive). A soft sphere of radius 0.06
# wedged in the groove touches both: centre at rho = 0.22, z = 0.1386.
def spheres_torus(count, duration, meshes="meshes/"):
    omega = 1.0
    shapes = {"torus": {"type": "mesh", "file": meshes + "torus.obj"},
              "driver": {"type": "sphere", "radius": 0.168}}
    bodies = [{"name": "torus", "shape": "torus", "material": "steel", "fixed": True},
              {"name": "driver", "shape": "driver", "material": "steel", "position": [0, 0, 0.2]}]
    joints = [{"name": "spin", "type": "hinge", "a": "driver", "b": None, "anchor": [0, 0, 0.2], "axis": [0, 0, 1],
               "drive": {"target": [[0.0, 0.0], [duration, omega * duration]]}}]
    soft = []
    for k in range(count):
        a = 2 * math.pi * k / count
        soft.append({"name": f"sphere_{k}", "material": "rubber",
                     "position": [round(0.222 * math.cos(a), 6), round(0.222 * math.sin(a), 6), 0.1436],
                     "mesh": {"type": "sphere", "radius": 0.06, "resolution": 3}})
    materials = {"default": {"density": 1000, "friction": 0.5},
                 "steel": {"density": 7800, "friction": 0.5},
                 "rubber": {"density": 1100, "friction": 0.5, "young": 5e5, "poisson": 0.3,
                            "model": "corotational", "damping": 0.002}}
    return materials, shapes, bodies, soft, joints


m, sh, bo, so, jo = spheres_torus(9, 4.0)
write("scenes/spheres_torus.json", scene(
    "spheres_torus", "Seed 004 figure 7: nine soft spheres (r = 6 cm, E = 5e5 Pa, mu = 0.5) wedged between a fixed "
    "rigid torus (major 0.3 m, tube 0.1 m) and a rigid sphere (r = 0.168 m) that a driven hinge turns at 1 rad/s; "
    "friction rolls the spheres around the groove (written by scenes/tools/soft_scenes.py).",
    0.005, 4.0, "cr-mlcp", m, sh, bo, so, jo))
m, sh, bo, so, jo = spheres_torus(3, 1.0, TEST_MESHES)
write("tests/data/seed004/spheres_torus_small.json", scene(
    "spheres_torus_small", "spheres_torus.json reduced to 3 spheres and 1 s, for the regression tests.",
    0.005, 1.0, 30, m, sh, bo, so, jo))


# --- figure 1, reduced: a hyperelastic bar through rotating rollers -------------------------------
# Two rigid cylinders (r = 5 cm, along y) with a 5 cm gap turn inwards; a stable Neo-Hookean bar
# (8 x 8 x 30 cm) above them is pushed down by a driven carriage glued to its top face, at the
# rollers' surface speed, and squeezed to 5/8 of its width on the way through.
def wringer(resolution, duration):
    r, gap, speed = 0.05, 0.05, 0.1
    cx = r + gap / 2
    omega = speed / r
    half = [0.04, 0.04, 0.15]
    bottom = 0.045
    top = bottom + 2 * half[2]
    shapes = {"roller": {"type": "cylinder", "radius": r, "half_height": 0.1},
              "carriage": {"type": "box", "half_extents": [0.06, 0.06, 0.01]}}
    q_y = [round(math.cos(math.pi / 4), 9), round(math.sin(math.pi / 4), 9), 0, 0]  # local z -> world y
    bodies = [{"name": "roller_left", "shape": "roller", "material": "steel", "position": [-cx, 0, 0], "orientation": q_y},
              {"name": "roller_right", "shape": "roller", "material": "steel", "position": [cx, 0, 0], "orientation": q_y},
              {"name": "carriage", "shape": "carriage", "material": "steel", "mass": 1.0,
               "position": [0, 0, top + 0.011]}]
    joints = [{"name": "left", "type": "hinge", "a": "roller_left", "b": None, "anchor": [-cx, 0, 0], "axis": [0, 1, 0],
               "drive": {"target": [[0.0, 0.0], [duration, omega * duration]]}},
              {"name": "right", "type": "hinge", "a": "roller_right", "b": None, "anchor": [cx, 0, 0], "axis": [0, 1, 0],
               "drive": {"target": [[0.0, 0.0], [duration, -omega * duration]]}},
              {"name": "push", "type": "prismatic", "a": "carriage", "b": None, "axis": [0, 0, 1],
               "drive": {"target": [[0.0, 0.0], [duration, -speed * duration]]}},
              {"type": "attach", "soft": "bar", "vertices": {"box_min": [-1, -1, top - 0.001], "box_max": [1, 1, 1]},
               "body": "carriage"}]
    soft = [{"name": "bar", "material": "rubber", "position": [0, 0, bottom + half[2]],
             "mesh": {"type": "box", "half_extents": half, "resolution": resolution}}]
    materials = {"default": {"density": 1000, "friction": 0.5},
                 "steel": {"density": 7800, "friction": 0.8},
                 "rubber": {"density": 1100, "friction": 0.8, "young": 5e5, "poisson": 0.2,
                            "model": "neo-hookean", "damping": 0.002}}
    return materials, shapes, bodies, soft, joints


m, sh, bo, so, jo = wringer([4, 4, 12], 3.0)
write("scenes/soft_wringer.json", scene(
    "soft_wringer", "Seed 004 figure 1, reduced: a stable Neo-Hookean bar (8 x 8 x 30 cm, E = 5e5 Pa, nu = 0.2) is "
    "pushed by a driven carriage glued to its top face through two rigid rollers that turn inwards at the same "
    "surface speed (0.1 m/s) with a 5 cm gap: it is squeezed to 5/8 of its width, with large compression and "
    "contact forces, and comes out below (written by scenes/tools/soft_scenes.py).",
    0.005, 3.0, "cr-mlcp", m, sh, bo, so, jo))
m, sh, bo, so, jo = wringer([2, 2, 6], 1.0)
write("tests/data/seed004/soft_wringer_small.json", scene(
    "soft_wringer_small", "soft_wringer.json with a coarse bar and 1 s, for the regression tests.",
    0.005, 1.0, 40, m, sh, bo, so, jo))
