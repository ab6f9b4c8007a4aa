// Checked output files, atomic replacement and the output folder's lock; see run_folder.h.
#include <coulomb/run_folder.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <regex>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace coulomb {

namespace {

constexpr std::size_t kBufferBytes = std::size_t(1) << 20;

std::string os_error(const char* what, const std::filesystem::path& p, int err) {
  return std::string("cannot ") + what + " " + p.string() + ": " + std::strerror(err);
}

// write all of [data, data + n) or throw, retrying after signals and short writes
void write_all(int fd, const char* data, std::size_t n, const std::filesystem::path& p) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw OutputError(os_error("write", p, errno));
    }
    data += w;
    n -= std::size_t(w);
  }
}

// the folder's entry of a renamed file on disk too (best effort: some file systems refuse)
void sync_folder(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

OutputFile::OutputFile(OutputFile&& o) noexcept
    : fd_(o.fd_), path_(std::move(o.path_)), buffer_(std::move(o.buffer_)), size_(o.size_) {
  o.fd_ = -1;
}

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    buffer_ = std::move(o.buffer_);
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

OutputFile OutputFile::create(const std::filesystem::path& path) {
  OutputFile f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd_ < 0) throw OutputError(os_error("create", path, errno));
  f.buffer_.reserve(kBufferBytes);
  return f;
}

OutputFile OutputFile::append_at(const std::filesystem::path& path, std::uint64_t size) {
  OutputFile f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (f.fd_ < 0) throw OutputError(os_error("open", path, errno));
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) throw OutputError(os_error("stat", path, errno));
  if (std::uint64_t(st.st_size) < size)
    throw OutputError(path.string() + " has " + std::to_string(st.st_size) + " bytes, the checkpoint expects at least " +
                      std::to_string(size));
  if (::ftruncate(f.fd_, off_t(size)) != 0) throw OutputError(os_error("truncate", path, errno));
  if (::lseek(f.fd_, off_t(size), SEEK_SET) < 0) throw OutputError(os_error("seek in", path, errno));
  f.size_ = size;
  f.buffer_.reserve(kBufferBytes);
  return f;
}

void OutputFile::fail(const char* what) const { throw OutputError(os_error(what, path_, errno)); }

void OutputFile::flush_buffer() {
  if (buffer_.empty()) return;
  const std::string pending = std::move(buffer_);
  buffer_.clear();
  write_all(fd_, pending.data(), pending.size(), path_);
}

void OutputFile::write(std::string_view text) {
  if (fd_ < 0) throw OutputError("cannot write " + path_.string() + ": the file is closed");
  size_ += text.size();
  if (buffer_.size() + text.size() > kBufferBytes) {
    flush_buffer();
    if (text.size() > kBufferBytes) {
      write_all(fd_, text.data(), text.size(), path_);
      return;
    }
  }
  buffer_.append(text);
}

void OutputFile::sync() {
  if (fd_ < 0) return;
  flush_buffer();
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("sync");  // EINVAL: /dev/null and the like
}

void OutputFile::close() {
  if (fd_ < 0) return;
  sync();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close");
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path tmp = path;
  tmp += "." + unique_run_id() + ".tmp";
  try {
    OutputFile f = OutputFile::create(tmp);
    f.write(text);
    f.close();
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw OutputError("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  sync_folder(path.parent_path());
}

int remove_stale_temporaries(const std::filesystem::path& dir) {
  static const std::regex temporary(R"(.+\.[0-9]+-[0-9]+(-[0-9]+)?\.tmp)");
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code ignored;
    if (entry.is_regular_file(ignored) && std::regex_match(entry.path().filename().string(), temporary) &&
        std::filesystem::remove(entry.path(), ignored))
      ++removed;
  }
  return removed;
}

std::string unique_run_id() {
  static int counter = 0;  // several ids within one microsecond of one process
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  return std::to_string(::getpid()) + "-" + std::to_string(us) + (counter++ ? "-" + std::to_string(counter) : "");
}

FolderLock::FolderLock(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kFileName;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError(os_error("create the lock file", file, errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw OutputError("another coulomb run is writing into " + dir.string() +
                        (n > 0 ? " (process " + std::string(pid, std::size_t(n)) + ")" : std::string()) +
                        "; wait for it or choose another --out");
    throw OutputError(os_error("lock", file, err));
  }
  // the holder's pid, for the message above (informative only: the lock is the flock)
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

void ignore_file_size_signal() { std::signal(SIGXFSZ, SIG_IGN); }

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace coulomb
