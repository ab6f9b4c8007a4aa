// The "coulomb" spdlog logger (log.h).
#include <coulomb/error.h>
#include <coulomb/log.h>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <memory>
#include <utility>

namespace coulomb {

spdlog::logger& logger() {
  // Held here as well as in spdlog's registry, so spdlog::drop_all() by the embedding program
  // does not pull it from under the library.
  static const std::shared_ptr<spdlog::logger> instance = [] {
    if (auto own = spdlog::get("coulomb")) return own;  // the embedding program's (log.h)
    auto made = std::make_shared<spdlog::logger>("coulomb", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    made->set_pattern("%n: %l: %v");  // "coulomb: warning: ...", like the CLI's own messages
    made->set_level(spdlog::level::warn);
    made->flush_on(spdlog::level::warn);
    spdlog::register_logger(made);
    return made;
  }();
  return *instance;
}

void set_log_level(const std::string& level) {
  // spdlog::level::from_str would map any unknown name to "off"; a typo must not silence the log.
  static constexpr std::array<std::pair<const char*, spdlog::level::level_enum>, 7> kLevels{{
      {"trace", spdlog::level::trace},
      {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},
      {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},
  }};
  for (const auto& [name, value] : kLevels)
    if (level == name) {
      logger().set_level(value);
      return;
    }
  throw InputError("--log-level",
                   "unknown level '" + level + "' (expected trace, debug, info, warn, error, critical or off)");
}

}  // namespace coulomb
