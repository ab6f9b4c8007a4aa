// The failure path of COULOMB_ASSERT (assert.h).
#include <coulomb/assert.h>
#include <coulomb/log.h>

#include <cstdio>
#include <cstdlib>

namespace coulomb::detail {

void assert_failed(const char* condition, std::string_view message, const char* file, int line) noexcept {
  spdlog::logger& log = logger();
  if (log.should_log(spdlog::level::critical)) {
    log.critical("{}:{}: assertion '{}' failed: {}", file, line, condition, message);
    log.flush();
  } else {  // --log-level off must not hide why the process aborts
    std::fprintf(stderr, "coulomb: %s:%d: assertion '%s' failed: %.*s\n", file, line, condition,
                 int(message.size()), message.data());
  }
  std::abort();
}

}  // namespace coulomb::detail
