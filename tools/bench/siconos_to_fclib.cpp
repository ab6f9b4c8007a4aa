// coulomb-siconos-to-fclib IN.dat OUT.hdf5: one 3D friction-contact problem of the Siconos test
// data (numerics/src/FrictionContact/test/data, Apache-2.0), in Siconos' text format, written as an
// FCLib local problem (write_fclib_local) for tools/bench/fclib_table.
//
// The text format (FrictionContactProblem printInFile): the dimension d (3 here), the number of
// contacts nc, then W as a NumericsMatrix: its storage (0 dense, 1 sparse-block), its sizes, and
//  - dense: the sizes again, then size0 x size1 values by columns;
//  - sparse-block: nbblocks, the block counts, the cumulative block sizes of the rows and the
//    columns, the block-row pointers and block columns (filled1, filled2 and their arrays), then
//    each block as its index followed by its values by columns;
// then q (3 nc values) and mu (nc values). 2D problems and the sparse (CSC) storage are refused.
#include <coulomb/fclib_io.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace {

using coulomb::Mat4;
using coulomb::Vec3;
using coulomb::Vec4;

struct Reader {
  std::ifstream in;
  std::string path;
  double number() {
    double v;
    if (!(in >> v)) throw std::runtime_error(path + ": the file ends early or holds a non-number");
    return v;
  }
  long integer() { return long(number()); }
};

coulomb::AssembledProblem read_dat(const std::string& path) {
  Reader r{std::ifstream(path), path};
  if (!r.in) throw std::runtime_error(path + ": cannot be opened");
  const long d = r.integer(), nc = r.integer();
  if (d != 3) throw std::runtime_error(path + ": a " + std::to_string(d) + "D problem (only 3D is written)");
  const long storage = r.integer(), size0 = r.integer(), size1 = r.integer();
  const long m = 3 * nc;
  if (size0 != m || size1 != m) throw std::runtime_error(path + ": W is not 3 nc x 3 nc");
  // the 3x3 blocks of W by (block row, block column)
  std::map<std::pair<long, long>, Mat4> blocks;
  if (storage == 0) {
    r.integer();
    r.integer();
    for (long j = 0; j < m; ++j)
      for (long i = 0; i < m; ++i) {
        const double v = r.number();
        if (v != 0.0 || i / 3 == j / 3) {
          auto [it, fresh] = blocks.try_emplace({i / 3, j / 3}, Mat4::Zero());
          it->second(i % 3, j % 3) = v;
        }
      }
  } else if (storage == 1) {
    const long nbblocks = r.integer(), nrow = r.integer(), ncol = r.integer();
    std::vector<long> rows(static_cast<std::size_t>(nrow)), cols(static_cast<std::size_t>(ncol));
    for (auto& v : rows) v = r.integer();
    for (auto& v : cols) v = r.integer();
    for (long i = 0; i < nrow; ++i)
      if (rows[std::size_t(i)] != 3 * (i + 1)) throw std::runtime_error(path + ": a block row is not 3 rows");
    for (long i = 0; i < ncol; ++i)
      if (cols[std::size_t(i)] != 3 * (i + 1)) throw std::runtime_error(path + ": a block column is not 3 columns");
    const long filled1 = r.integer(), filled2 = r.integer();
    std::vector<long> start(static_cast<std::size_t>(filled1)), col(static_cast<std::size_t>(filled2));
    for (auto& v : start) v = r.integer();
    for (auto& v : col) v = r.integer();
    if (filled2 != nbblocks || filled1 != nrow + 1) throw std::runtime_error(path + ": inconsistent block counts");
    for (long row = 0; row + 1 < filled1; ++row)
      for (long b = start[std::size_t(row)]; b < start[std::size_t(row) + 1]; ++b) {
        if (r.integer() != b) throw std::runtime_error(path + ": blocks out of order");
        Mat4 B = Mat4::Zero();
        for (int j = 0; j < 3; ++j)
          for (int i = 0; i < 3; ++i) B(i, j) = r.number();
        blocks[{row, col[std::size_t(b)]}] = B;
      }
  } else {
    throw std::runtime_error(path + ": storage " + std::to_string(storage) + " is not read (dense or sparse-block only)");
  }
  coulomb::AssembledProblem p;
  p.row_start.assign(std::size_t(nc) + 1, 0);
  for (const auto& [key, B] : blocks) {
    p.col.push_back(int(key.second));
    Mat4 b = B;
    if (key.first == key.second) b(3, 3) = 1.0;  // the unit torsion diagonal of fclib_io.h
    p.block.push_back(b);
    ++p.row_start[std::size_t(key.first) + 1];
  }
  for (long k = 0; k < nc; ++k) p.row_start[std::size_t(k) + 1] += p.row_start[std::size_t(k)];
  std::vector<double> q(static_cast<std::size_t>(m));
  for (auto& v : q) v = r.number();
  for (long k = 0; k < nc; ++k) {
    const double mu = r.number();
    p.b.push_back(Vec4(q[std::size_t(3 * k)], q[std::size_t(3 * k + 1)], q[std::size_t(3 * k + 2)], 0.0));
    p.mu.push_back(Vec3(mu, mu, 0.0));
  }
  p.finalize();
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: coulomb-siconos-to-fclib IN.dat OUT.hdf5\n");
    return 2;
  }
  try {
    const std::string in = argv[1];
    const coulomb::AssembledProblem p = read_dat(in);
    std::string title = in.substr(in.find_last_of('/') + 1);
    title = title.substr(0, title.rfind(".dat"));
    coulomb::write_fclib_local(argv[2], p, {title, "converted from Siconos test data (Apache-2.0)", ""});
    std::printf("%s: %d contacts\n", argv[2], p.num_contacts());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coulomb-siconos-to-fclib: %s\n", e.what());
    return 1;
  }
  return 0;
}
