// Which modules' headers one module's target sees. Built once per module by the ctest
// `layering_module_visibility` (tests/CMakeLists.txt), each time in a target that links that
// module's target alone. COULOMB_SEES_<module> is 1 for the module itself and the modules below
// it in the expected graph (the table in tests/CMakeLists.txt, README.md "Module graph"): their
// headers must compile here, and every other module's headers must not be found at all.

// every module builds on base/
#include <coulomb/assert.h>
#include <coulomb/error.h>
#include <coulomb/log.h>
#include <coulomb/math.h>

#if COULOMB_SEES_collision
#include <coulomb/contact.h>
#include <coulomb/shapes.h>
#elif __has_include(<coulomb/shapes.h>)
#error "collision/ headers are visible here, but this module is not above collision in the graph"
#endif

#if COULOMB_SEES_fem
#include <coulomb/materials.h>
#include <coulomb/tet_mesh.h>
#elif __has_include(<coulomb/tet_mesh.h>)
#error "fem/ headers are visible here, but this module is not above fem in the graph"
#endif

#if COULOMB_SEES_dynamics
#include <coulomb/contact_problem.h>
#include <coulomb/position_problem.h>
#include <coulomb/rigid_bodies.h>
#elif __has_include(<coulomb/rigid_bodies.h>)
#error "dynamics/ headers are visible here, but this module is not above dynamics in the graph"
#endif

#if COULOMB_SEES_gpu
#include <coulomb/gpu/device.h>
#elif __has_include(<coulomb/gpu/device.h>)
#error "gpu/ headers are visible here, but this module is not above gpu in the graph"
#endif

#if COULOMB_SEES_solvers
#include <coulomb/islands.h>
#include <coulomb/solver.h>
#elif __has_include(<coulomb/solver.h>)
#error "solvers/ headers are visible here, but this module is not above solvers in the graph"
#endif

#if COULOMB_SEES_engine
#include <coulomb/world.h>
#elif __has_include(<coulomb/world.h>)
#error "engine/ headers are visible here, but only the engine's users may see them"
#endif
