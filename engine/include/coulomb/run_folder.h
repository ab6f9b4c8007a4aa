// Output files that do not lie or get lost (issue 11): every write, flush and close checked, a
// complete file only ever replaced by a complete one, one writer per output folder.
//
// Why: with std::ofstream nothing checked the stream state, so a full disk or a file-size limit
// gave exit 0, a 0-byte final_state.json and a truncated stats.jsonl renamed over a good earlier
// result; two runs into one folder shared the same ".tmp" names and mixed their lines.
//   OutputFile          a POSIX descriptor with a buffer; write/flush/close throw OutputError
//                       with the OS message (errno) and the file name.
//   write_file_atomically  text -> a unique temporary beside the target, fsync, rename over it.
//   FolderLock          flock(2) on DIR/.coulomb.lock, held while a run writes into DIR. The
//                       kernel drops it when the process dies (kill -9 leaves no stale lock).
// Resource-limit signals: a write past RLIMIT_FSIZE raises SIGXFSZ, whose default action kills
// the process without a word; ignore_file_size_signal() makes such writes fail with EFBIG.
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace coulomb {

// A write, flush, sync, rename or lock that failed: the message names the file and the OS error.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile(OutputFile&& o) noexcept;
  OutputFile& operator=(OutputFile&& o) noexcept;
  ~OutputFile();  // closes without checks (the error path); call close() to know

  // A new, empty file (truncates an existing one).
  static OutputFile create(const std::filesystem::path& path);
  // An existing file cut to `size` bytes, written on from there (a resumed run). Throws
  // OutputError if the file is missing or shorter than `size`.
  static OutputFile append_at(const std::filesystem::path& path, std::uint64_t size);

  bool is_open() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }
  // bytes written so far, buffered ones included
  std::uint64_t size() const { return size_; }

  void write(std::string_view text);
  // the buffer to the kernel, then fsync: after sync() the first size() bytes are on disk
  void sync();
  // flush, fsync and close, each checked
  void close();

 private:
  void flush_buffer();
  [[noreturn]] void fail(const char* what) const;

  int fd_ = -1;
  std::filesystem::path path_;
  std::string buffer_;
  std::uint64_t size_ = 0;
};

// Writes `text` to "PATH.<unique>.tmp", fsyncs it and renames it over `path`: a reader sees the
// old file or the new one, never a part. Throws OutputError (the temporary is removed).
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// Removes the temporaries "NAME.<pid>-<digits>[-<n>].tmp" that write_file_atomically leaves in
// `dir` when its process is killed mid-write; call it holding the folder's lock, when no other
// writer can own one. Returns how many it removed.
int remove_stale_temporaries(const std::filesystem::path& dir);

// "<pid>-<microseconds since the epoch>": unique among the runs of one machine.
std::string unique_run_id();

class FolderLock {
 public:
  static constexpr const char* kFileName = ".coulomb.lock";
  // Takes the lock of `dir` (which must exist) or throws OutputError at once, naming the
  // process that holds it.
  explicit FolderLock(const std::filesystem::path& dir);
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

 private:
  int fd_ = -1;
};

// SIGXFSZ -> ignored, so that a write past the file-size limit returns EFBIG (an OutputError).
void ignore_file_size_signal();

// FNV-1a, 64 bits, as 16 hex digits: the scene file's fingerprint in run.json.
std::string fnv1a64_hex(std::string_view bytes);

}  // namespace coulomb
