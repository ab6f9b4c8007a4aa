// Shared by the libFuzzer harnesses (tests/fuzz/README.md): a private scratch folder for inputs
// that the readers take as files, and the splitting of one input into parts.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace coulomb::fuzz {

// /tmp/coulomb-fuzz-PID: one per process (libFuzzer's -jobs run several)
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d = std::filesystem::temp_directory_path() / ("coulomb-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::filesystem::path write_scratch(const std::string& name, std::string_view bytes) {
  const std::filesystem::path p = scratch_dir() / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
  return p;
}

// "a\n%%\nb\n%%\nc" -> {"a", "b", "c"}: the separator line between the parts of one input
inline std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts) {
  constexpr std::string_view kSep = "\n%%\n";
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const std::size_t at = text.find(kSep);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kSep.size());
  }
  parts.push_back(text);
  return parts;
}

}  // namespace coulomb::fuzz
