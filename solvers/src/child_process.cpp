#include "child_process.h"

#include <coulomb/error.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <new>

namespace coulomb::detail {

namespace {

void write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing to tell
    done += std::size_t(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buffer, std::size_t(n));
  }
}

// The child: produce, report on the pipe, and leave without running the parent's exit handlers.
[[noreturn]] void child(int fd, const std::function<Wire()>& produce) {
  // libfclib calls exit(1) where HDF5 fails: registered last, this handler runs first and ends
  // the child at once, before the copies of the parent's exit handlers and static destructors
  // (the TBB runtime would wait there for worker threads the child does not have)
  std::atexit([] { ::_exit(3); });
  Wire out;
  try {
    out.put('O');
    out.bytes += produce().bytes;
  } catch (const InputError& e) {
    out = {};
    out.put('E');
    out.put_string(e.pointer());
    out.put_string(e.message());
  } catch (const std::invalid_argument& e) {
    out = {};
    out.put('I');
    out.put_string(e.what());
  } catch (const std::bad_alloc&) {
    out = {};
    out.put('M');
  } catch (const std::exception& e) {
    out = {};
    out.put('R');
    out.put_string(e.what());
  }
  write_all(fd, out.bytes);
  ::close(fd);
  ::_exit(0);
}

}  // namespace

Wire run_in_child(const std::string& path, const std::function<Wire()>& produce) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(path + ": cannot create a pipe (" + std::strerror(errno) + ")");
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(path + ": cannot fork a reading process (" + std::strerror(errno) + ")");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], produce);
  }
  ::close(fds[1]);
  Wire in;
  in.bytes = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (reaped < 0) status = 0;  // reaped elsewhere (SIGCHLD ignored by the host program): the bytes tell
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || in.bytes.empty()) {
    const std::string how = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"
                                                : "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    throw ChildStopped(how);
  }
  switch (in.get<char>()) {
    case 'O': return in;
    case 'E': {
      std::string pointer = in.get_string();
      throw InputError(std::move(pointer), in.get_string());
    }
    case 'I': throw std::invalid_argument(in.get_string());
    case 'M': throw std::bad_alloc();
    default: throw std::runtime_error(in.get_string());
  }
}

}  // namespace coulomb::detail
