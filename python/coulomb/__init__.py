"""Coulomb: rigid and tetrahedral FEM soft bodies in frictional contact (python/README.md).

    import coulomb
    w = coulomb.World("scenes/wall.json", solver="pgs", overrides={"/solver/max_iterations": 50})
    stats = w.run(100)                  # {key: numpy array} over the 100 steps
    print(stats["kinetic_energy"][-1], w.positions[:3])

`coulomb sweep SPEC.json --out DIR` (coulomb.sweep) runs parameter sweeps on Dask.
"""
from ._coulomb import (Batch, Scene, SceneError, SimulationError, State, World, apply_overrides, fclib_solve, info,
                       load_scene, read_scene, set_log_level, solvers, validate)

__version__ = info()["version"]

__all__ = ["Batch", "Scene", "SceneError", "SimulationError", "State", "World", "apply_overrides", "fclib_solve", "info",
           "load_scene", "read_scene", "set_log_level", "solvers", "validate"]
