// Reading FCLib local problems (u = W r + q, Coulomb cones with mu per contact) into the
// assembled 4x4 block form every solver works on, and libfclib's own merit for comparison.
//
// The file is checked with HDF5 before libfclib reads it: libfclib exits the process on any HDF5
// failure and trusts the sizes stored in the file, so a malformed file is turned into an
// InputError (pointer = the file path) here instead of a crash.
#pragma once
#include <coulomb/contact_operator.h>

#include <filesystem>
#include <string>
#include <vector>

namespace coulomb {

// How W was stored in the file (fclib_matrix::nz: -1 compressed columns, -2 compressed rows,
// >= 0 triplets).
enum class FclibStorage { compressed_column, compressed_row, triplet };

struct FclibLocalInfo {
  int m = 0;               // rows of W (3 per contact)
  int nnz = 0;             // stored entries of W (duplicates counted separately)
  FclibStorage storage = FclibStorage::compressed_column;
  std::string title;       // info/title, empty if absent
  std::string description; // info/description, empty if absent
};

// Reads an FCLib local problem with libfclib's fclib_read_local and converts it: contact a gets
// block row a of the BSR matrix, rows and columns (normal, t1, t2, torsion) with W's three rows
// and columns of the contact, a zero torsion row and column except for a unit diagonal entry,
// b_a = (q_a, 0) and mu_a = (mu, mu, 0). Duplicate entries of W are summed, explicit zeros kept.
// Throws InputError(path, ...) for a missing or unreadable file, a file that is not HDF5 or is
// damaged, a file that holds no FCLib local problem (a global one, for instance), spacedim != 3,
// m not a multiple of 3, a non-square W, out-of-range indices, sizes that disagree, the V/R/s
// extension, non-finite values or a negative mu. `info`, if given, receives the file's details.
AssembledProblem read_fclib_local(const std::filesystem::path& file, FclibLocalInfo* info = nullptr);

// libfclib's fclib_merit_local(problem, MERIT_1, solution) for the impulses lambda (one 4-vector
// per contact, torsion ignored): r = the first three components, u = W r + q. The file is read
// again. libfclib 3.1.0 multiplies by W only when W is stored by compressed columns, so a W
// stored otherwise is handed to it as an equivalent compressed-column copy. Throws InputError as
// read_fclib_local, and std::invalid_argument if lambda does not have one entry per contact.
double libfclib_merit(const std::filesystem::path& file, const std::vector<Vec4>& lambda);

// The info group of a written problem (each string may be empty: then it is not written).
struct FclibWriteInfo {
  std::string title;
  std::string description;
  std::string math_info;
};

// Writes the contacts of an assembled problem (assembled_problem(), contact_operator.h) as an FCLib
// local problem with libfclib's fclib_write_local: W = the (normal, t, s) rows and columns of A,
// stored by compressed columns without exact zeros, q = the (normal, t, s) part of b, and one
// mu = mu_s per contact. The torsion row and column of each contact and mu_t, mu_tau are not
// written (an FCLib contact has 3 rows and one isotropic Coulomb cone): with mu_tau = 0 and
// mu_t = mu_s the written problem is the same contact problem, otherwise it is its Coulomb part
// (fclib_dropped_friction says so). An existing file is replaced atomically (written by a child
// process into a temporary beside it, then renamed). Throws std::invalid_argument for a problem
// without contacts or with a non-finite entry, std::runtime_error if the file cannot be written
// (its message names the path and, when HDF5 failed, the disk's free space and the file-size
// limit).
void write_fclib_local(const std::filesystem::path& file, const AssembledProblem& p, const FclibWriteInfo& info);

// What writing p leaves out that changes the problem: "" if nothing, else a note such as
// "3 contacts have torsional friction (mu_tau > 0): their torsion rows are dropped".
std::string fclib_dropped_friction(const AssembledProblem& p);

}  // namespace coulomb
