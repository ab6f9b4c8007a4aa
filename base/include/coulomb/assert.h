// COULOMB_ASSERT(cond, msg): the one check for programmer errors, i.e. a broken invariant or
// precondition inside the engine that no input, however bad, should be able to cause (array
// sizes that must agree, an index a caller computed). User input (scenes, meshes, options,
// FCLib files) is never checked with it: it is validated and rejected by throwing InputError
// (error.h), and a step that goes wrong reports it through StepStatus.
//
// Why abort, and why in every build type (Release included, unlike <cassert>): a failed
// invariant means the state is already wrong, and a simulation that runs on would write
// plausible but wrong output. Aborting stops at the first wrong value, gives a core dump or a
// sanitizer stack trace, and cannot be caught and ignored the way an exception can. The checks
// are cheap (O(1) guards outside inner loops), so keeping them costs nothing measurable.
//
// On failure it logs "FILE:LINE: assertion 'cond' failed: msg" through coulomb::logger() at
// critical level (to stderr directly if that logger is set to off) and calls std::abort().
// msg (a string or string literal) is evaluated only when the check fails.
#pragma once
#include <string_view>

namespace coulomb::detail {
[[noreturn]] void assert_failed(const char* condition, std::string_view message, const char* file,
                                int line) noexcept;
}  // namespace coulomb::detail

#define COULOMB_ASSERT(cond, msg)                                                   \
  do {                                                                              \
    if (!(cond)) ::coulomb::detail::assert_failed(#cond, (msg), __FILE__, __LINE__); \
  } while (false)
