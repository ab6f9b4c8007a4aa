// Running libfclib in a child process (fclib_io.cpp): libhdf5 trusts a file's structure where no
// check can reach (a crafted file gave a SEGV and a 4.3 GB allocation inside H5Lexists), and
// libfclib calls exit(1) when an HDF5 call fails (a full disk while writing), so reads and writes
// run in a forked child that sends its result back through a pipe, and the caller's process is
// never at risk.
#pragma once
#include <cstddef>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace coulomb::detail {

// Plain values in and out of a byte string (the child's result on the pipe).
struct Wire {
  std::string bytes;
  std::size_t at = 0;

  template <class T>
  void put(const T& x) {
    bytes.append(reinterpret_cast<const char*>(&x), sizeof(T));
  }
  void put_string(const std::string& x) {
    put(x.size());
    bytes += x;
  }
  template <class T>
  void put_vector(const std::vector<T>& x) {
    put(x.size());
    bytes.append(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(T));
  }

  template <class T>
  T get() {
    need(sizeof(T));
    T x;
    std::memcpy(&x, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return x;
  }
  std::string get_string() {
    const auto n = get<std::size_t>();
    need(n);
    std::string x = bytes.substr(at, n);
    at += n;
    return x;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<std::size_t>();
    if (n > (bytes.size() - at) / sizeof(T)) truncated();
    std::vector<T> x(n);
    std::memcpy(x.data(), bytes.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return x;
  }

 private:
  void need(std::size_t n) const {
    if (bytes.size() - at < n) truncated();
  }
  [[noreturn]] static void truncated() { throw std::runtime_error("truncated result from a reading process"); }
};

// A child that ended without a result (a signal, or exit() inside the library): `how` says which.
struct ChildStopped : std::runtime_error {
  explicit ChildStopped(const std::string& how_it_ended)
      : std::runtime_error("the HDF5 library stopped the process (" + how_it_ended + ")"), how(how_it_ended) {}
  std::string how;
};

// produce() in a child process, its Wire returned. Its exceptions come back as the same kinds
// (InputError, std::invalid_argument, std::bad_alloc, any other std::exception as
// std::runtime_error); a child that ends any other way throws ChildStopped. `path` names the
// file in the messages of the process calls that fail.
Wire run_in_child(const std::string& path, const std::function<Wire()>& produce);

}  // namespace coulomb::detail
