// Must NOT compile: built by the ctest `layering_upward_include_fails` (WILL_FAIL) in a target
// that links coulomb_collision alone, so the engine's headers are not on its include path.
// If this ever compiles, a module can include a header from a layer above it again.
#include <coulomb/world.h>
