// The library's diagnostics go through spdlog (DESIGN.md dependencies), never straight to
// std::cerr: one named logger, "coulomb", writing to stderr at level warn by default, so an
// embedding program sees warnings and worse and decides the rest with set_log_level (the CLI's
// --log-level). User-facing results and errors are not log messages: a step reports trouble
// through StepStatus, bad input throws InputError (error.h), the CLI prints both itself.
//
// An embedding program that wants the library's messages elsewhere registers its own spdlog
// logger named "coulomb" (spdlog::register_logger) before its first call into the library;
// logger() then uses that one. It can also reach this one with spdlog::get("coulomb").
//
// Inside the build tree (COULOMB_SPDLOG_HEADERS, defined by base/CMakeLists.txt for every target
// that links the library) spdlog's logger class is complete here. The installed headers declare it
// only, so that a program built against the package needs no spdlog headers (tools/package); one
// that calls the logger's methods includes <spdlog/spdlog.h> itself.
#pragma once
#ifdef COULOMB_SPDLOG_HEADERS
#include <spdlog/logger.h>
#else
namespace spdlog {
class logger;
}
#endif

#include <string>

namespace coulomb {

// The "coulomb" logger (created and registered with spdlog on first use; thread-safe).
spdlog::logger& logger();

// Sets logger()'s level by name: trace, debug, info, warn, error, critical or off.
// Throws InputError("--log-level", ...) naming the accepted levels for anything else.
void set_log_level(const std::string& level);

}  // namespace coulomb
