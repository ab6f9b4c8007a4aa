"""Coulomb: rigid and tetrahedral FEM soft bodies in frictional contact (python/README.md).

    import coulomb
    w = coulomb.World("scenes/wall.json", solver="pgs", overrides={"/solver/max_iterations": 50})
    stats = w.run(100)                  # {key: numpy array} over the 100 steps
    print(stats["kinetic_energy"][-1], w.positions[:3])

World also takes a URDF or MJCF model file; coulomb.import_model(path) returns its scene dict and
the import warnings (import/README.md).
`coulomb sweep SPEC.json --out DIR` (coulomb.sweep) runs parameter sweeps on Dask.
"""
from ._coulomb import (Batch, ModelError, Scene, SceneError, SimulationError, State, World, apply_overrides, fclib_solve,
                       import_model, info, load_scene, read_scene, set_log_level, solvers, validate)

__version__ = info()["version"]

__all__ = ["Batch", "ModelError", "Scene", "SceneError", "SimulationError", "State", "World", "apply_overrides",
           "fclib_solve", "import_model", "info", "load_scene", "read_scene", "set_log_level", "solvers", "validate"]
