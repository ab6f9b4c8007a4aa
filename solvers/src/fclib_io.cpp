// FCLib local problems: HDF5 checks, libfclib's reader, conversion to 4x4 blocks, libfclib's merit.
//
// libfclib (3.1.0) ends the process with exit(1) when an HDF5 call fails while it reads, and it
// allocates its arrays from the sizes stored in the file (m, n, nz, nzmax) before reading the
// datasets into them whole. So every group, dataset, type and size it will touch is checked here
// first, and every dataset it will read is read once here: if these reads succeed, libfclib's
// identical reads do too, and a malformed file becomes an InputError instead of a crash.
// libhdf5 itself trusts the file's structure where no check can reach: fuzz_fclib found a SEGV
// and a 4.3 GB allocation inside H5Lexists on mutated files. So every read of a file runs in a
// child process (fork) that sends its result back through a pipe; a child that dies or fails is
// an InputError of the file, and the caller's process is never at risk (child_process.h).
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

extern "C" {
#include <fclib.h>  // has no extern "C" guard of its own
}
#include <hdf5.h>

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "child_process.h"

namespace coulomb {

namespace {

// HDF5 prints its error stack on stderr by default; our InputError says what went wrong instead.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// An HDF5 identifier closed by `close` when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

enum class Kind { integer, real, string };

constexpr std::size_t kMaxNumberBytes = 16;       // the widest native number, long double
constexpr std::size_t kMaxStringBytes = 1 << 20;  // FCLib's title, description, math_info, comment

// Checks the structure libfclib's fclib_read_local expects, with the error messages a user needs.
class FileCheck {
 public:
  explicit FileCheck(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& message) const { throw InputError(path_, message); }

  static bool has_link(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

  // What libfclib's H5LTfind_dataset answers: it walks the group's links (H5Literate) and
  // compares only the first strlen(name) characters, so any link whose name starts with `name`
  // counts; libfclib takes an error (-1) for "found" too, and then exits on the read that follows.
  // A damaged link table, or a prefix match without the dataset itself (a damaged name
  // "title0..." found by fuzz_fclib, or a plain "title_old"), is reported here instead.
  bool listed(hid_t loc, const char* name, const std::string& where) const {
    struct Search {
      const char* name;
      std::string match;
      bool found = false;
    } search{name, {}};
    const auto visit = [](hid_t, const char* link, const H5L_info_t*, void* data) -> herr_t {
      auto* s = static_cast<Search*>(data);
      if (std::strncmp(link, s->name, std::strlen(s->name)) != 0) return 0;
      s->found = true;
      for (const char* c = link; *c && s->match.size() < 64; ++c) s->match += std::isprint(static_cast<unsigned char>(*c)) ? *c : '?';
      return 1;  // stop
    };
    if (H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, nullptr, visit, &search) < 0)
      fail(where + ": the group's link table cannot be read (damaged file?)");
    if (search.found && !has_link(loc, name))
      fail(where + " is missing, but libfclib would take the link '" + search.match +
           "' for it (it matches names by prefix) and fail (damaged file, or rename that link)");
    return search.found;
  }

  Handle group(hid_t loc, const char* name, const std::string& where) const {
    if (!has_link(loc, name)) fail(where + " is missing");
    Handle g(H5Gopen2(loc, name, H5P_DEFAULT), &H5Gclose);
    if (!g.ok()) fail(where + " is not an HDF5 group");
    return g;
  }

  // Opens a dataset, checks its type class and its number of elements (points in [min, max]),
  // and returns that number.
  hssize_t dataset(hid_t loc, const char* name, const std::string& where, Kind kind, hssize_t min_points,
                   hssize_t max_points) const {
    if (!has_link(loc, name)) fail(where + " is missing");
    Handle d(H5Dopen2(loc, name, H5P_DEFAULT), &H5Dclose);
    if (!d.ok()) fail(where + " is not an HDF5 dataset");
    Handle type(H5Dget_type(d.get()), &H5Tclose);
    Handle space(H5Dget_space(d.get()), &H5Sclose);
    if (!type.ok() || !space.ok()) fail(where + " cannot be read");
    const H5T_class_t cls = H5Tget_class(type.get());
    if (kind == Kind::integer && cls != H5T_INTEGER) fail(where + " is not an integer dataset");
    if (kind == Kind::real && cls != H5T_FLOAT && cls != H5T_INTEGER) fail(where + " is not a numeric dataset");
    if (kind == Kind::string && (cls != H5T_STRING || H5Tis_variable_str(type.get()) != 0))
      fail(where + " is not a fixed-length string");
    // The element size is stored in the file too: a float type 1983053832 bytes wide (4 elements
    // in 32 bytes of data) made the conversion to double below allocate and clear gigabytes
    // (found by fuzz_fclib). Numbers are at most 16 bytes (long double); strings at most 1 MiB.
    const std::size_t bytes = H5Tget_size(type.get());
    const std::size_t max_bytes = kind == Kind::string ? kMaxStringBytes : kMaxNumberBytes;
    if (bytes == 0 || bytes > max_bytes)
      fail(where + " has elements of " + std::to_string(bytes) + " bytes, expected 1 to " + std::to_string(max_bytes) +
           " (damaged file?)");
    const hssize_t points = H5Sget_simple_extent_npoints(space.get());
    if (points < min_points || points > max_points) {
      if (min_points == max_points)
        fail(where + " has " + std::to_string(points) + " elements, expected " + std::to_string(min_points));
      fail(where + " has " + std::to_string(points) + " elements, expected " + std::to_string(min_points) +
           " to " + std::to_string(max_points));
    }
    // read it once here, exactly as libfclib will, so that its read cannot fail
    if (kind == Kind::string) {
      std::vector<char> buf(H5Tget_size(type.get()) + 1, '\0');
      if (H5Dread(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0) fail(where + " cannot be read");
      last_string_ = std::string(buf.data(), strnlen(buf.data(), buf.size() - 1));  // may lack a NUL
    } else if (points > 0) {
      const bool ints = kind == Kind::integer;
      std::vector<double> dbuf(ints ? 0 : std::size_t(points));
      std::vector<int> ibuf(ints ? std::size_t(points) : 0);
      const herr_t st = ints ? H5Dread(d.get(), H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ibuf.data())
                             : H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dbuf.data());
      if (st < 0) fail(where + " cannot be read (damaged file?)");
    }
    return points;
  }

  int scalar_int(hid_t loc, const char* name, const std::string& where) const {
    dataset(loc, name, where, Kind::integer, 1, 1);
    Handle d(H5Dopen2(loc, name, H5P_DEFAULT), &H5Dclose);
    int v = 0;
    if (H5Dread(d.get(), H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0) fail(where + " cannot be read");
    return v;
  }

  // The optional string datasets of an info group (read by libfclib if present); empty if absent.
  std::string optional_string(hid_t loc, const char* name, const std::string& where) {
    if (!listed(loc, name, where)) return {};
    dataset(loc, name, where, Kind::string, 1, 1);
    return last_string_;
  }

 private:
  std::string path_;
  mutable std::string last_string_;
};

// What the checks established about W, used again after libfclib has read the file.
struct Layout {
  int spacedim = 0, m = 0, n = 0, nz = 0, nzmax = 0;
  std::string title, description;  // read here: libfclib's copies need not end in a NUL
};

Layout check_file(const std::filesystem::path& file) {
  const std::string path = file.string();
  FileCheck c(path);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) c.fail("no such file");
  if (std::filesystem::is_directory(file, ec)) c.fail("is a directory, not an FCLib file");
  {
    std::ifstream probe(file, std::ios::binary);
    if (!probe.good()) c.fail("cannot be opened for reading (permissions?)");
  }

  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), &H5Fclose);
  if (!f.ok()) {
    if (H5Fis_hdf5(path.c_str()) > 0) c.fail("damaged HDF5 file (truncated or corrupt): HDF5 cannot open it");
    c.fail("not an HDF5 file (FCLib problems are HDF5 files)");
  }
  if (!FileCheck::has_link(f.get(), "fclib_local")) {
    if (FileCheck::has_link(f.get(), "fclib_global"))
      c.fail("holds an FCLib global problem (M v = H r + f), not a local one (u = W r + q); "
             "reduce it to local form first (W = H^T M^-1 H, q = H^T M^-1 f + w)");
    c.fail("not an FCLib local problem: no /fclib_local group");
  }
  Handle local = c.group(f.get(), "fclib_local", "/fclib_local");
  const hid_t l = local.get();

  Layout lay;
  lay.spacedim = c.scalar_int(l, "spacedim", "/fclib_local/spacedim");
  if (lay.spacedim != 3)
    c.fail("spacedim is " + std::to_string(lay.spacedim) + ": only 3D frictional contact (spacedim 3) is supported");
  if (FileCheck::has_link(l, "V") || FileCheck::has_link(l, "R"))
    c.fail("has the optional V, R, s parts (extra equality constraints), which are not supported");

  Handle w = c.group(l, "W", "/fclib_local/W");
  const std::string W = "/fclib_local/W/";
  lay.nzmax = c.scalar_int(w.get(), "nzmax", W + "nzmax");
  lay.m = c.scalar_int(w.get(), "m", W + "m");
  lay.n = c.scalar_int(w.get(), "n", W + "n");
  lay.nz = c.scalar_int(w.get(), "nz", W + "nz");
  if (lay.m <= 0 || lay.n <= 0) c.fail("W is " + std::to_string(lay.m) + " x " + std::to_string(lay.n) + ": no contacts");
  if (lay.m != lay.n) c.fail("W is " + std::to_string(lay.m) + " x " + std::to_string(lay.n) + ", not square");
  if (lay.m % 3 != 0)
    c.fail("W has m = " + std::to_string(lay.m) + " rows, not a multiple of 3 (3 rows per contact)");
  if (lay.nzmax < 1) c.fail("W has no stored entries (nzmax = " + std::to_string(lay.nzmax) + ")");
  const hssize_t nzmax = lay.nzmax;
  if (lay.nz >= 0) {  // triplets: row indices in p, column indices in i (fclib.h)
    if (lay.nz < 1) c.fail("W (triplet form) has no entries (nz = 0)");
    if (lay.nz > lay.nzmax)
      c.fail("W has nz = " + std::to_string(lay.nz) + " triplets but room for nzmax = " + std::to_string(lay.nzmax));
    c.dataset(w.get(), "p", W + "p", Kind::integer, lay.nz, lay.nz);
    c.dataset(w.get(), "i", W + "i", Kind::integer, lay.nz, lay.nz);
    c.dataset(w.get(), "x", W + "x", Kind::real, lay.nz, nzmax);
  } else if (lay.nz == -1 || lay.nz == -2) {  // compressed columns / rows
    const hssize_t pointers = hssize_t(lay.nz == -1 ? lay.n : lay.m) + 1;
    c.dataset(w.get(), "p", W + "p", Kind::integer, pointers, pointers);
    c.dataset(w.get(), "i", W + "i", Kind::integer, nzmax, nzmax);
    c.dataset(w.get(), "x", W + "x", Kind::real, nzmax, nzmax);
  } else {
    c.fail("W has an unknown storage type nz = " + std::to_string(lay.nz) +
           " (expected -1 compressed columns, -2 compressed rows, >= 0 triplets)");
  }
  if (c.listed(w.get(), "conditioning", W + "conditioning")) {  // libfclib then reads the whole matrix info
    c.dataset(w.get(), "conditioning", W + "conditioning", Kind::real, 1, 1);
    c.dataset(w.get(), "determinant", W + "determinant", Kind::real, 1, 1);
    c.dataset(w.get(), "rank", W + "rank", Kind::integer, 1, 1);
    c.optional_string(w.get(), "comment", W + "comment");
  }

  Handle v = c.group(l, "vectors", "/fclib_local/vectors");
  c.dataset(v.get(), "q", "/fclib_local/vectors/q", Kind::real, lay.m, lay.m);
  c.dataset(v.get(), "mu", "/fclib_local/vectors/mu", Kind::real, lay.m / 3, lay.m / 3);

  if (FileCheck::has_link(l, "info")) {
    Handle info = c.group(l, "info", "/fclib_local/info");
    lay.title = c.optional_string(info.get(), "title", "/fclib_local/info/title");
    lay.description = c.optional_string(info.get(), "description", "/fclib_local/info/description");
    c.optional_string(info.get(), "math_info", "/fclib_local/info/math_info");
  }
  return lay;
}

struct LocalDeleter {
  void operator()(fclib_local* p) const {
    fclib_delete_local(p);  // frees the members, not the struct
    std::free(p);
  }
};
using LocalPtr = std::unique_ptr<fclib_local, LocalDeleter>;

struct Entry {
  int row, col;
  double x;
};

// Checks the file, reads it with libfclib and checks what it read (indices, values).
struct Loaded {
  LocalPtr problem;
  std::vector<Entry> entries;  // every stored entry of W, in storage order
  FclibStorage storage = FclibStorage::compressed_column;
  int m = 0;
  std::string title, description;
};

Loaded load(const std::filesystem::path& file) {
  const std::string path = file.string();
  FileCheck c(path);
  QuietHdf5 quiet;
  const Layout lay = check_file(file);
  Loaded out;
  out.problem.reset(fclib_read_local(path.c_str()));
  if (!out.problem) c.fail("libfclib could not read the local problem");
  const fclib_local& p = *out.problem;
  const fclib_matrix* W = p.W;
  if (!W || p.spacedim != lay.spacedim || W->m != lay.m || W->n != lay.n || W->nz != lay.nz ||
      W->nzmax != lay.nzmax || !p.q || !p.mu)
    c.fail("changed while it was being read");
  out.m = W->m;
  out.title = lay.title;
  out.description = lay.description;

  auto bad_index = [&](const char* what, long long k, long long value, long long limit) {
    c.fail("W: " + std::string(what) + " [" + std::to_string(k) + "] = " + std::to_string(value) +
           " is out of range [0, " + std::to_string(limit) + ")");
  };
  auto add = [&](int row, int col, long long k) {
    if (row < 0 || row >= W->m) bad_index("row index", k, row, W->m);
    if (col < 0 || col >= W->n) bad_index("column index", k, col, W->n);
    const double x = W->x[k];
    if (!std::isfinite(x))
      c.fail("W(" + std::to_string(row) + ", " + std::to_string(col) + ") is not finite");
    out.entries.push_back({row, col, x});
  };
  if (W->nz >= 0) {
    out.storage = FclibStorage::triplet;
    out.entries.reserve(std::size_t(W->nz));
    for (int k = 0; k < W->nz; ++k) add(W->p[k], W->i[k], k);
  } else {
    const bool csc = W->nz == -1;
    out.storage = csc ? FclibStorage::compressed_column : FclibStorage::compressed_row;
    const int outer = csc ? W->n : W->m;
    const char* ptr = csc ? "column pointer p" : "row pointer p";
    if (W->p[0] != 0) c.fail("W: " + std::string(ptr) + "[0] = " + std::to_string(W->p[0]) + ", expected 0");
    for (int j = 0; j < outer; ++j)
      if (W->p[j + 1] < W->p[j])
        c.fail("W: " + std::string(ptr) + " decreases at " + std::to_string(j + 1) + " (" + std::to_string(W->p[j]) +
               " -> " + std::to_string(W->p[j + 1]) + ")");
    if (W->p[outer] > W->nzmax)
      c.fail("W: " + std::string(ptr) + "[" + std::to_string(outer) + "] = " + std::to_string(W->p[outer]) +
             " exceeds nzmax = " + std::to_string(W->nzmax));
    out.entries.reserve(std::size_t(W->p[outer]));
    for (int j = 0; j < outer; ++j)
      for (int k = W->p[j]; k < W->p[j + 1]; ++k) csc ? add(W->i[k], j, k) : add(j, W->i[k], k);
  }
  for (int k = 0; k < W->m; ++k)
    if (!std::isfinite(p.q[k])) c.fail("q[" + std::to_string(k) + "] is not finite");
  for (int a = 0; a < W->m / 3; ++a) {
    if (!std::isfinite(p.mu[a])) c.fail("mu[" + std::to_string(a) + "] is not finite");
    if (p.mu[a] < 0.0) c.fail("mu[" + std::to_string(a) + "] = " + std::to_string(p.mu[a]) + " is negative");
  }
  return out;
}

// What read_fclib_local takes from a file, as plain values: the reading process's result.
struct Plain {
  int m = 0;
  FclibStorage storage = FclibStorage::compressed_column;
  std::string title, description;
  std::vector<Entry> entries;
  std::vector<double> q, mu;  // (m), (m / 3)
};

detail::Wire wire_of(const Loaded& in) {
  detail::Wire w;
  w.put(in.m);
  w.put(in.storage);
  w.put_string(in.title);
  w.put_string(in.description);
  w.put_vector(in.entries);
  w.put_vector(std::vector<double>(in.problem->q, in.problem->q + in.m));
  w.put_vector(std::vector<double>(in.problem->mu, in.problem->mu + in.m / 3));
  return w;
}

Plain plain_of(detail::Wire& w) {
  Plain p;
  p.m = w.get<int>();
  p.storage = w.get<FclibStorage>();
  p.title = w.get_string();
  p.description = w.get_string();
  p.entries = w.get_vector<Entry>();
  p.q = w.get_vector<double>();
  p.mu = w.get_vector<double>();
  if (p.m < 0 || p.q.size() != std::size_t(p.m) || p.mu.size() != std::size_t(p.m / 3))
    throw std::runtime_error("fclib_io: inconsistent result from the reading process");
  return p;
}

}  // namespace

AssembledProblem read_fclib_local(const std::filesystem::path& file, FclibLocalInfo* info) {
  detail::Wire wire;
  try {
    wire = detail::run_in_child(file.string(), [&] { return wire_of(load(file)); });
  } catch (const detail::ChildStopped& e) {
    throw InputError(file.string(), "reading the file stopped the HDF5 library (" + e.how + "): not a valid FCLib local problem");
  }
  const Plain in = plain_of(wire);
  const int nc = in.m / 3;

  // group the entries by block (contact row, contact column); every contact gets a diagonal
  // block (key with entry -1) so the unit torsion diagonal always has a home
  std::vector<std::pair<long long, long long>> keyed;  // (block key, entry index or -1)
  keyed.reserve(in.entries.size() + std::size_t(nc));
  for (std::size_t e = 0; e < in.entries.size(); ++e)
    keyed.emplace_back(static_cast<long long>(in.entries[e].row / 3) * nc + in.entries[e].col / 3,
                       static_cast<long long>(e));
  for (int k = 0; k < nc; ++k) keyed.emplace_back(static_cast<long long>(k) * nc + k, -1);
  std::sort(keyed.begin(), keyed.end());

  AssembledProblem out;
  out.row_start.assign(std::size_t(nc) + 1, 0);
  long long previous = -1;
  for (const auto& [key, e] : keyed) {
    if (key != previous) {
      const int row = int(key / nc), col = int(key % nc);
      out.col.push_back(col);
      out.block.push_back(Mat4::Zero());
      if (row == col) out.block.back()(3, 3) = 1.0;  // torsion: no coupling, unit diagonal
      ++out.row_start[std::size_t(row) + 1];
      previous = key;
    }
    if (e >= 0) {
      const Entry& en = in.entries[std::size_t(e)];
      out.block.back()(en.row % 3, en.col % 3) += en.x;  // duplicates are summed
    }
  }
  for (int k = 0; k < nc; ++k) out.row_start[std::size_t(k) + 1] += out.row_start[std::size_t(k)];

  out.b.resize(std::size_t(nc));
  out.mu.resize(std::size_t(nc));
  for (int k = 0; k < nc; ++k) {
    const double* q = in.q.data() + 3 * k;
    out.b[std::size_t(k)] = Vec4(q[0], q[1], q[2], 0.0);
    out.mu[std::size_t(k)] = Vec3(in.mu[std::size_t(k)], in.mu[std::size_t(k)], 0.0);
  }
  out.finalize();

  if (info) {
    info->m = in.m;
    info->nnz = int(in.entries.size());
    info->storage = in.storage;
    info->title = in.title;
    info->description = in.description;
  }
  return out;
}

namespace {

double merit_of_file(const std::filesystem::path& file, const std::vector<Vec4>& lambda) {
  Loaded in = load(file);
  fclib_local& p = *in.problem;
  const int m = in.m, nc = m / 3;
  if (int(lambda.size()) != nc)
    throw std::invalid_argument("libfclib_merit: " + std::to_string(lambda.size()) + " impulses for " +
                                std::to_string(nc) + " contacts");
  std::vector<double> r(static_cast<std::size_t>(m), 0.0);
  std::vector<double> u(p.q, p.q + m);
  for (int k = 0; k < nc; ++k)
    for (int i = 0; i < 3; ++i) r[std::size_t(3 * k + i)] = lambda[std::size_t(k)][i];
  for (const Entry& e : in.entries) u[std::size_t(e.row)] += e.x * r[std::size_t(e.col)];

  // libfclib's MERIT_1 computes W r itself, but only for compressed-column storage: hand it
  // an equivalent compressed-column W otherwise (duplicates kept; its product sums them)
  std::vector<int> colptr, rowind;
  std::vector<double> values;
  fclib_matrix csc{};
  fclib_matrix* const original = p.W;
  if (in.storage != FclibStorage::compressed_column) {
    const int n = original->n;
    colptr.assign(std::size_t(n) + 1, 0);
    for (const Entry& e : in.entries) ++colptr[std::size_t(e.col) + 1];
    for (int j = 0; j < n; ++j) colptr[std::size_t(j) + 1] += colptr[std::size_t(j)];
    rowind.resize(in.entries.size());
    values.resize(in.entries.size());
    std::vector<int> next(colptr.begin(), colptr.end() - 1);
    for (const Entry& e : in.entries) {
      const auto at = std::size_t(next[std::size_t(e.col)]++);
      rowind[at] = e.row;
      values[at] = e.x;
    }
    csc.nzmax = int(in.entries.size());
    csc.m = original->m;
    csc.n = n;
    csc.p = colptr.data();
    csc.i = rowind.data();
    csc.x = values.data();
    csc.nz = -1;
    csc.info = nullptr;
    p.W = &csc;
  }
  fclib_solution sol{nullptr, u.data(), r.data(), nullptr};  // v, u, r, l
  const double merit = fclib_merit_local(&p, MERIT_1, &sol);
  p.W = original;  // the deleter frees libfclib's own W
  return merit;
}

}  // namespace

double libfclib_merit(const std::filesystem::path& file, const std::vector<Vec4>& lambda) {
  try {
    detail::Wire wire = detail::run_in_child(file.string(), [&] {
      detail::Wire w;
      w.put(merit_of_file(file, lambda));
      return w;
    });
    return wire.get<double>();
  } catch (const detail::ChildStopped& e) {
    throw InputError(file.string(), "reading the file stopped the HDF5 library (" + e.how + "): not a valid FCLib local problem");
  }
}

std::string fclib_dropped_friction(const AssembledProblem& p) {
  int torsion = 0, anisotropic = 0;
  for (const Vec3& mu : p.mu) {
    if (mu[2] > 0.0) ++torsion;
    if (mu[1] != mu[0]) ++anisotropic;
  }
  std::string note;
  if (torsion > 0)
    note += std::to_string(torsion) + " contacts have torsional friction (mu_tau > 0): their torsion rows are dropped";
  if (anisotropic > 0)
    note += std::string(note.empty() ? "" : "; ") + std::to_string(anisotropic) +
            " contacts have anisotropic friction (mu_t != mu_s): mu_s is written";
  return note;
}

namespace {

// What may have stopped a write into `dir`: the space left on its disk and the file-size limit.
std::string storage_report(const std::filesystem::path& dir) {
  std::string out;
  struct statvfs fs{};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0)
    out = std::to_string(static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize) + " bytes free on the disk of " +
          (dir.empty() ? std::string(".") : dir.string());
  struct rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    out += (out.empty() ? "" : ", ") + std::string("file-size limit (ulimit -f) ") + std::to_string(limit.rlim_cur) + " bytes";
  return out.empty() ? "a full disk or a file-size limit?" : out + " (a full disk or a file-size limit?)";
}

void write_local(const std::string& tmp, std::vector<int>& colptr, std::vector<int>& rowind,
                 std::vector<double>& values, std::vector<double>& q, std::vector<double>& mu, int m,
                 const FclibWriteInfo& info) {
  std::vector<char> title(info.title.begin(), info.title.end()), description(info.description.begin(), info.description.end()),
      math_info(info.math_info.begin(), info.math_info.end());
  title.push_back('\0');
  description.push_back('\0');
  math_info.push_back('\0');
  fclib_info fi{info.title.empty() ? nullptr : title.data(), info.description.empty() ? nullptr : description.data(),
                info.math_info.empty() ? nullptr : math_info.data()};
  fclib_matrix W{int(values.size()), m, m, colptr.data(), rowind.data(), values.data(), -1, nullptr};
  fclib_local local{&W, nullptr, nullptr, mu.data(), q.data(), nullptr, 3, &fi};
  QuietHdf5 quiet;
  if (fclib_write_local(&local, tmp.c_str()) != 1) throw std::runtime_error(tmp + ": libfclib could not write the problem");
}

}  // namespace

void write_fclib_local(const std::filesystem::path& file, const AssembledProblem& p, const FclibWriteInfo& info) {
  const int nc = p.num_contacts(), m = 3 * nc;
  if (nc == 0) throw std::invalid_argument("write_fclib_local: the problem has no contacts");
  // W by compressed columns: column 3j + c holds block (k, j)'s column c for every block row k
  std::vector<std::vector<std::pair<int, double>>> columns(static_cast<std::size_t>(m));
  for (int k = 0; k < nc; ++k)
    for (int e = p.row_start[std::size_t(k)]; e < p.row_start[std::size_t(k) + 1]; ++e) {
      const int j = p.col[std::size_t(e)];
      const Mat4& B = p.block[std::size_t(e)];
      for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
          if (B(r, c) != 0.0) {
            if (!std::isfinite(B(r, c))) throw std::invalid_argument("write_fclib_local: W has a non-finite entry");
            columns[std::size_t(3 * j + c)].emplace_back(3 * k + r, B(r, c));
          }
    }
  std::vector<int> colptr(std::size_t(m) + 1, 0), rowind;
  std::vector<double> values;
  for (int c = 0; c < m; ++c) {
    std::sort(columns[std::size_t(c)].begin(), columns[std::size_t(c)].end());
    for (const auto& [row, x] : columns[std::size_t(c)]) {
      rowind.push_back(row);
      values.push_back(x);
    }
    colptr[std::size_t(c) + 1] = int(rowind.size());
  }
  std::vector<double> q(static_cast<std::size_t>(m)), mu(static_cast<std::size_t>(nc));
  for (int k = 0; k < nc; ++k) {
    for (int i = 0; i < 3; ++i) q[std::size_t(3 * k + i)] = p.b[std::size_t(k)][i];
    mu[std::size_t(k)] = p.mu[std::size_t(k)][0];
    if (!std::isfinite(mu[std::size_t(k)]) || mu[std::size_t(k)] < 0.0)
      throw std::invalid_argument("write_fclib_local: mu[" + std::to_string(k) + "] is negative or not finite");
  }
  for (double x : q)
    if (!std::isfinite(x)) throw std::invalid_argument("write_fclib_local: q has a non-finite entry");
  if (rowind.empty()) {  // libfclib cannot store an all-zero W: keep one explicit zero
    rowind.push_back(0);
    values.push_back(0.0);
    for (int c = 1; c <= m; ++c) colptr[std::size_t(c)] = 1;
  }

  const std::string path = file.string();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw std::runtime_error(path + ": is a directory");
  // written beside the target by a child process (libfclib ends its process when an HDF5 call
  // fails), then renamed over it: the target is the old file or the whole new one
  const std::filesystem::path temporary = path + "." + std::to_string(::getpid()) + ".tmp";
  const std::string tmp = temporary.string();
  try {
    detail::run_in_child(path, [&] {
      {
        QuietHdf5 quiet;
        Handle f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), &H5Fclose);
        if (!f.ok()) throw std::runtime_error(path + ": cannot create the file (missing directory or no permission?)");
      }
      write_local(tmp, colptr, rowind, values, q, mu, m, info);
      return detail::Wire{};
    });
  } catch (const detail::ChildStopped& e) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error(path + ": writing the file failed inside the HDF5 library (" + e.how + "); " +
                             storage_report(file.parent_path()));
  } catch (...) {
    std::filesystem::remove(temporary, ec);
    throw;
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error(path + ": cannot replace the file (" + ec.message() + ")");
  }
}

}  // namespace coulomb
