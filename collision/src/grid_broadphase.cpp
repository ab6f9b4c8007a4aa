// Uniform-grid broadphase (see broadphase.h). Layout: a dense grid over the bounds of the
// small boxes, cell = median largest box extent, grown until the grid has at most a few cells
// per box; cell_start (ncells + 1) / cell_box (entries) is a counting sort of the (cell, box)
// entries, filled in box order, so every cell lists its boxes ascending.
#include <coulomb/broadphase.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace coulomb {

namespace {

constexpr double kMaxCellsPerBox = 64.0;  // a box covering more cells than this is "large"
constexpr double kCellsPerBox = 4.0;      // grid size budget: ncells <= this * boxes + 64
constexpr double kMaxLargeFraction = 1.0 / 32.0;  // more large boxes than this: sweep and prune

using Cell = std::array<int, 3>;

}  // namespace

void uniform_grid(const std::vector<Aabb>& boxes, const std::vector<std::uint8_t>& is_static,
                  std::vector<std::pair<int, int>>& pairs) {
  pairs.clear();
  const int n = int(boxes.size());
  auto finite = [&](int i) { return boxes[std::size_t(i)].lo.allFinite() && boxes[std::size_t(i)].hi.allFinite() &&
                                    (boxes[std::size_t(i)].lo.array() <= boxes[std::size_t(i)].hi.array()).all(); };

  // cell size: median of the largest extent of the finite boxes
  std::vector<double> extent;
  extent.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i)
    if (finite(i)) extent.push_back((boxes[std::size_t(i)].hi - boxes[std::size_t(i)].lo).maxCoeff());
  double cell = 1.0;
  if (!extent.empty()) {
    std::nth_element(extent.begin(), extent.begin() + std::ptrdiff_t(extent.size() / 2), extent.end());
    cell = std::max(extent[extent.size() / 2], 1e-9);
  }
  // large boxes: infinite, empty, or covering more than kMaxCellsPerBox cells
  std::vector<int> small, large;
  for (int i = 0; i < n; ++i) {
    bool is_large = !finite(i);
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

  // grid over the small boxes, coarsened until it fits the cell budget
  Vec3 origin = Vec3::Constant(std::numeric_limits<double>::infinity()), top = -origin;
  for (int i : small) {
    origin = origin.cwiseMin(boxes[std::size_t(i)].lo);
    top = top.cwiseMax(boxes[std::size_t(i)].hi);
  }
  Cell dim{1, 1, 1};
  const double budget = kCellsPerBox * double(small.size()) + 64.0;
  bool fits = small.empty();
  for (int tries = 0; !fits && tries < 4096; ++tries, cell *= 1.5) {
    const Vec3 d = ((top - origin) / cell).array().floor() + 1.0;
    if (d.prod() <= budget) {
      dim = {int(d[0]), int(d[1]), int(d[2])};
      fits = true;
      break;
    }
  }
  if (!fits) {  // bounds beyond any grid (boxes near +-1e308): everything is tested brute force
    large.insert(large.end(), small.begin(), small.end());
    std::sort(large.begin(), large.end());
    small.clear();
  }
  const auto to_cell = [&](const Vec3& p) {
    Cell c;
    for (int a = 0; a < 3; ++a) c[std::size_t(a)] = std::clamp(int(std::floor((p[a] - origin[a]) / cell)), 0, dim[std::size_t(a)] - 1);
    return c;
  };
  const auto index = [&](const Cell& c) { return (c[2] * dim[1] + c[1]) * dim[0] + c[0]; };

  // counting sort of the (cell, box) entries
  const std::size_t ncells = std::size_t(dim[0]) * std::size_t(dim[1]) * std::size_t(dim[2]);
  std::vector<Cell> lo_cell(static_cast<std::size_t>(n)), hi_cell(static_cast<std::size_t>(n));
  std::vector<int> cell_start(ncells + 1, 0);
  for (int i : small) {
    lo_cell[std::size_t(i)] = to_cell(boxes[std::size_t(i)].lo);
    hi_cell[std::size_t(i)] = to_cell(boxes[std::size_t(i)].hi);
    const Cell &l = lo_cell[std::size_t(i)], &h = hi_cell[std::size_t(i)];
    for (int z = l[2]; z <= h[2]; ++z)
      for (int y = l[1]; y <= h[1]; ++y)
        for (int x = l[0]; x <= h[0]; ++x) ++cell_start[std::size_t(index({x, y, z})) + 1];
  }
  for (std::size_t c = 0; c < ncells; ++c) cell_start[c + 1] += cell_start[c];
  std::vector<int> cell_box(static_cast<std::size_t>(cell_start[ncells]));
  std::vector<int> fill(cell_start.begin(), cell_start.end() - 1);
  for (int i : small) {
    const Cell &l = lo_cell[std::size_t(i)], &h = hi_cell[std::size_t(i)];
    for (int z = l[2]; z <= h[2]; ++z)
      for (int y = l[1]; y <= h[1]; ++y)
        for (int x = l[0]; x <= h[0]; ++x) cell_box[std::size_t(fill[std::size_t(index({x, y, z}))]++)] = i;
  }

  // pairs within each cell, each reported from the first cell both boxes cover
  for (std::size_t c = 0; c < ncells; ++c) {
    for (int p = cell_start[c]; p < cell_start[c + 1]; ++p) {
      const int i = cell_box[std::size_t(p)];
      for (int q = p + 1; q < cell_start[c + 1]; ++q) {
        const int j = cell_box[std::size_t(q)];
        if (is_static[std::size_t(i)] && is_static[std::size_t(j)]) continue;
        const Cell &li = lo_cell[std::size_t(i)], &lj = lo_cell[std::size_t(j)];
        const Cell first{std::max(li[0], lj[0]), std::max(li[1], lj[1]), std::max(li[2], lj[2])};
        if (std::size_t(index(first)) != c) continue;
        if (boxes[std::size_t(i)].overlaps(boxes[std::size_t(j)])) pairs.emplace_back(i, j);
      }
    }
  }
  // large boxes against everything (a large pair once, from its smaller index)
  std::vector<std::uint8_t> is_large(static_cast<std::size_t>(n), 0);
  for (int l : large) is_large[std::size_t(l)] = 1;
  for (int l : large) {
    for (int j = 0; j < n; ++j) {
      if (j == l || (is_large[std::size_t(j)] && j < l)) continue;
      if (is_static[std::size_t(l)] && is_static[std::size_t(j)]) continue;
      if (boxes[std::size_t(l)].overlaps(boxes[std::size_t(j)])) pairs.emplace_back(std::min(l, j), std::max(l, j));
    }
  }
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace coulomb
