// Uniform-grid broadphase (see broadphase.h). Layout: a dense grid over the bounds of the
// small boxes, cell = median largest box extent, grown until the grid has at most a few cells
// per box; cell_start (ncells + 1) / entries is a counting sort of the (cell, box) entries,
// filled in box order, so every cell lists its boxes ascending.
#include <coulomb/broadphase.h>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace coulomb {

namespace {

constexpr double kMaxCellsPerBox = 64.0;  // a box covering more cells than this is "large"
constexpr double kCellsPerBox = 4.0;      // grid size budget: ncells <= this * boxes + 64
constexpr double kMaxLargeFraction = 1.0 / 32.0;  // more large boxes than this: sweep and prune
constexpr std::size_t kCellsPerChunk = 64;   // cells per task of the pair search
constexpr std::size_t kBoxesPerChunk = 512;  // boxes per task of the large boxes' search

using Cell = std::array<int, 3>;

// a box as binned into a cell: its index and its first cell (see the pair search)
struct Entry {
  int box;
  Cell cell;
};

// The grid: origin, cell size and cells per axis; a point's cell is clamped into it.
struct Grid {
  Vec3 origin = Vec3::Zero();
  double cell = 1.0;
  Cell dim{1, 1, 1};
  Cell to_cell(const Vec3& p) const {
    Cell c;
    for (int a = 0; a < 3; ++a) c[std::size_t(a)] = std::clamp(int(std::floor((p[a] - origin[a]) / cell)), 0, dim[std::size_t(a)] - 1);
    return c;
  }
  int index(const Cell& c) const { return (c[2] * dim[1] + c[1]) * dim[0] + c[0]; }
  std::size_t cells() const { return std::size_t(dim[0]) * std::size_t(dim[1]) * std::size_t(dim[2]); }
};

bool finite_box(const Aabb& b) { return b.lo.allFinite() && b.hi.allFinite() && (b.lo.array() <= b.hi.array()).all(); }

// cell size: median of the largest extent of the finite boxes
double median_extent(const std::vector<Aabb>& boxes) {
  std::vector<double> extent;
  extent.reserve(boxes.size());
  for (const Aabb& b : boxes)
    if (finite_box(b)) extent.push_back((b.hi - b.lo).maxCoeff());
  if (extent.empty()) return 1.0;
  std::nth_element(extent.begin(), extent.begin() + std::ptrdiff_t(extent.size() / 2), extent.end());
  return std::max(extent[extent.size() / 2], 1e-9);
}

// A grid over the small boxes, coarsened from `cell` until it fits the cell budget; false where
// their bounds are beyond any grid (boxes near +-1e308).
bool fit_grid(const std::vector<Aabb>& boxes, const std::vector<int>& small, double cell, Grid& g) {
  Vec3 origin = Vec3::Constant(std::numeric_limits<double>::infinity()), top = -origin;
  for (int i : small) {
    origin = origin.cwiseMin(boxes[std::size_t(i)].lo);
    top = top.cwiseMax(boxes[std::size_t(i)].hi);
  }
  g.origin = origin;
  const double budget = kCellsPerBox * double(small.size()) + 64.0;
  bool fits = small.empty();
  for (int tries = 0; !fits && tries < 4096; ++tries, cell *= 1.5) {
    const Vec3 d = ((top - origin) / cell).array().floor() + 1.0;
    if (d.prod() <= budget) {
      g.dim = {int(d[0]), int(d[1]), int(d[2])};
      fits = true;
      break;
    }
  }
  g.cell = cell;
  return fits;
}

// The counting sort of the (cell, box) entries. Each entry carries its box's first cell, read by
// every candidate pair. A cell whose boxes are all static (fixed or asleep) has no pair to
// report: `moving` marks the others, and the search skips it.
struct Bins {
  std::vector<int> cell_start;  // (ncells + 1)
  std::vector<Entry> entries;
  std::vector<std::uint8_t> moving;  // (ncells)
};
void bin_boxes(const Grid& g, const std::vector<Aabb>& boxes, const std::vector<int>& small,
               const std::vector<std::uint8_t>& is_static, Bins& bins) {
  const std::size_t ncells = g.cells();
  std::vector<Cell> lo_cell(boxes.size()), hi_cell(boxes.size());
  bins.cell_start.assign(ncells + 1, 0);
  for (int i : small) {
    lo_cell[std::size_t(i)] = g.to_cell(boxes[std::size_t(i)].lo);
    hi_cell[std::size_t(i)] = g.to_cell(boxes[std::size_t(i)].hi);
    const Cell &l = lo_cell[std::size_t(i)], &h = hi_cell[std::size_t(i)];
    for (int z = l[2]; z <= h[2]; ++z)
      for (int y = l[1]; y <= h[1]; ++y)
        for (int x = l[0]; x <= h[0]; ++x) ++bins.cell_start[std::size_t(g.index({x, y, z})) + 1];
  }
  for (std::size_t c = 0; c < ncells; ++c) bins.cell_start[c + 1] += bins.cell_start[c];
  bins.entries.resize(std::size_t(bins.cell_start[ncells]));
  std::vector<int> fill(bins.cell_start.begin(), bins.cell_start.end() - 1);
  bins.moving.assign(ncells, 0);
  for (int i : small) {
    const auto u = std::size_t(i);
    const Cell &l = lo_cell[u], &h = hi_cell[u];
    const Entry e{i, l};
    const std::uint8_t m = is_static[u] == 0;
    for (int z = l[2]; z <= h[2]; ++z)
      for (int y = l[1]; y <= h[1]; ++y)
        for (int x = l[0]; x <= h[0]; ++x) {
          const auto c = std::size_t(g.index({x, y, z}));
          bins.entries[std::size_t(fill[c]++)] = e;
          bins.moving[c] |= m;
        }
  }
}

// The pairs within cells [from, to), each reported from the first cell both boxes cover.
void cell_pairs(const Grid& g, const Bins& bins, const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                std::size_t from, std::size_t to, std::vector<std::pair<int, int>>& out) {
  for (std::size_t c = from; c < to; ++c) {
    if (!bins.moving[c]) continue;
    const Entry* first = bins.entries.data() + bins.cell_start[c];
    const Entry* last = bins.entries.data() + bins.cell_start[c + 1];
    const int x = int(c % std::size_t(g.dim[0])), y = int(c / std::size_t(g.dim[0]) % std::size_t(g.dim[1]));
    const int z = int(c / (std::size_t(g.dim[0]) * std::size_t(g.dim[1])));
    for (const Entry* p = first; p != last; ++p) {
      const Aabb& bi = boxes[std::size_t(p->box)];
      const int si = is_static[std::size_t(p->box)] != 0;
      // branch-free: whether a pair is reported here is a coin flip per candidate
      std::size_t k = out.size();
      out.resize(k + std::size_t(last - p - 1));
      for (const Entry* e = p + 1; e != last; ++e) {
        const Aabb& bj = boxes[std::size_t(e->box)];
        const int here = int(x == std::max(p->cell[0], e->cell[0])) & int(y == std::max(p->cell[1], e->cell[1])) &
                         int(z == std::max(p->cell[2], e->cell[2]));
        const int overlap = int(bi.lo[0] <= bj.hi[0]) & int(bi.lo[1] <= bj.hi[1]) & int(bi.lo[2] <= bj.hi[2]) &
                            int(bj.lo[0] <= bi.hi[0]) & int(bj.lo[1] <= bi.hi[1]) & int(bj.lo[2] <= bi.hi[2]);
        out[k] = {p->box, e->box};  // ascending within a cell
        k += std::size_t(here & overlap & ~(si & int(is_static[std::size_t(e->box)] != 0)));
      }
      out.resize(k);
    }
  }
}

// counting sort on the first index, then each run by the second
void sort_pairs(const std::vector<std::vector<std::pair<int, int>>>& found, int n, std::vector<std::pair<int, int>>& pairs) {
  std::vector<int> start(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& f : found)
    for (const auto& [i, j] : f) ++start[std::size_t(i) + 1];
  for (int i = 0; i < n; ++i) start[std::size_t(i) + 1] += start[std::size_t(i)];
  pairs.resize(std::size_t(start[std::size_t(n)]));
  for (const auto& f : found)
    for (const auto& pr : f) pairs[std::size_t(start[std::size_t(pr.first)]++)] = pr;
  for (int i = 0, from = 0; i < n; ++i) {  // start[i] is now where run i ends
    std::sort(pairs.begin() + from, pairs.begin() + start[std::size_t(i)]);
    from = start[std::size_t(i)];
  }
}

}  // namespace

void uniform_grid(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                  std::vector<std::pair<int, int>>& pairs) {
  pairs.clear();
  const int n = int(boxes.size());
  const double cell = median_extent(boxes);
  // large boxes: infinite, empty, or covering more than kMaxCellsPerBox cells
  std::vector<int> small, large;
  for (int i = 0; i < n; ++i) {
    bool is_large = !finite_box(boxes[std::size_t(i)]);
    if (!is_large) {
      const Vec3 span = (boxes[std::size_t(i)].hi - boxes[std::size_t(i)].lo) / cell;
      is_large = (span.array() + 1.0).prod() > kMaxCellsPerBox;
    }
    (is_large ? large : small).push_back(i);
  }
  // Many large boxes (sizes spread over orders of magnitude) would make the brute-force part
  // quadratic; sweep and prune has no size assumption and gives the same pairs.
  if (double(large.size()) > kMaxLargeFraction * n + 16.0) {
    sweep_and_prune(boxes, is_static, pairs);
    return;
  }
  Grid g;
  if (!fit_grid(boxes, small, cell, g)) {  // everything is tested brute force
    large.insert(large.end(), small.begin(), small.end());
    std::sort(large.begin(), large.end());
    small.clear();
  }
  Bins bins;
  bin_boxes(g, boxes, small, is_static, bins);

  // Pairs within each cell, each reported from the first cell both boxes cover (no duplicates,
  // no hash set), and the large boxes against every box (a pair of two large boxes once, from
  // its smaller index), in parallel over fixed ranges of cells and of boxes. The lists are
  // concatenated in range order and sorted by a counting sort on the first index, then each first
  // index's few partners: the result does not depend on the thread count.
  std::vector<std::uint8_t> is_large(static_cast<std::size_t>(n), 0);
  for (int l : large) is_large[std::size_t(l)] = 1;
  const std::size_t ncells = g.cells();
  const std::size_t cell_chunks = (ncells + kCellsPerChunk - 1) / kCellsPerChunk;
  const std::size_t box_chunks = large.empty() ? 0 : (std::size_t(n) + kBoxesPerChunk - 1) / kBoxesPerChunk;
  std::vector<std::vector<std::pair<int, int>>> found(cell_chunks + box_chunks);
  tbb::parallel_for(std::size_t(0), found.size(), [&](std::size_t chunk) {
    std::vector<std::pair<int, int>>& out = found[chunk];
    if (chunk < cell_chunks) {
      cell_pairs(g, bins, boxes, is_static, chunk * kCellsPerChunk, std::min(ncells, (chunk + 1) * kCellsPerChunk), out);
      return;
    }
    // the large boxes against a range of boxes
    const std::size_t from = (chunk - cell_chunks) * kBoxesPerChunk;
    const std::size_t to = std::min(std::size_t(n), from + kBoxesPerChunk);
    for (int l : large)
      for (int j = int(from); j < int(to); ++j) {
        if (j == l || (is_large[std::size_t(j)] && j < l)) continue;
        if (is_static[std::size_t(l)] && is_static[std::size_t(j)]) continue;
        if (boxes[std::size_t(l)].overlaps(boxes[std::size_t(j)])) out.emplace_back(std::min(l, j), std::max(l, j));
      }
  });
  sort_pairs(found, n, pairs);
}

}  // namespace coulomb
