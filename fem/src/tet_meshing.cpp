// TetGen meshing, TetGen files, the sphere generator and lumped masses (see tet_meshing.h).
#include <coulomb/error.h>
#include <coulomb/tet_meshing.h>

#define TETLIBRARY
#include <tetgen.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

namespace coulomb {

namespace {

std::string edge_name(int a, int b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

// the checks of tetrahedralize's contract, in the order a user would fix them
void check_surface(const std::vector<Vec3>& v, const std::vector<std::array<int, 3>>& tris) {
  const int nv = int(v.size());
  if (nv < 4) throw std::invalid_argument("the surface has " + std::to_string(nv) + " vertices, a closed surface needs at least 4");
  if (tris.size() < 4) throw std::invalid_argument("the surface has " + std::to_string(tris.size()) + " triangles, a closed surface needs at least 4");
  for (int i = 0; i < nv; ++i)
    if (!v[std::size_t(i)].allFinite()) throw std::invalid_argument("vertex " + std::to_string(i) + " has a non-finite position");
  std::vector<char> used(std::size_t(nv), 0);
  for (std::size_t t = 0; t < tris.size(); ++t) {
    const auto& f = tris[t];
    for (int k = 0; k < 3; ++k) {
      if (f[std::size_t(k)] < 0 || f[std::size_t(k)] >= nv)
        throw std::invalid_argument("triangle " + std::to_string(t) + " refers to vertex " + std::to_string(f[std::size_t(k)]) +
                                    " but there are " + std::to_string(nv) + " vertices");
      used[std::size_t(f[std::size_t(k)])] = 1;
    }
    if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2])
      throw std::invalid_argument("triangle " + std::to_string(t) + " repeats a vertex");
    const Vec3 &a = v[std::size_t(f[0])], &b = v[std::size_t(f[1])], &c = v[std::size_t(f[2])];
    const double longest = std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    if ((b - a).cross(c - a).norm() <= 1e-12 * longest)
      throw std::invalid_argument("triangle " + std::to_string(t) + " is degenerate (zero area)");
  }
  for (int i = 0; i < nv; ++i)
    if (!used[std::size_t(i)]) throw std::invalid_argument("vertex " + std::to_string(i) + " belongs to no triangle");
  // coincident vertices: neighbours after a lexicographic sort
  std::vector<int> order(static_cast<std::size_t>(nv));
  for (int i = 0; i < nv; ++i) order[std::size_t(i)] = i;
  const auto less = [&](int i, int j) {
    const Vec3 &p = v[std::size_t(i)], &q = v[std::size_t(j)];
    return std::tie(p.x(), p.y(), p.z(), i) < std::tie(q.x(), q.y(), q.z(), j);
  };
  std::sort(order.begin(), order.end(), less);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (v[std::size_t(order[k - 1])] == v[std::size_t(order[k])])
      throw std::invalid_argument("vertices " + std::to_string(order[k - 1]) + " and " + std::to_string(order[k]) +
                                  " are at the same position");
  // each undirected edge: the triangles using it and the direction they traverse it in
  std::map<std::array<int, 2>, std::vector<std::pair<int, bool>>> edges;
  for (std::size_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = tris[t][std::size_t(k)], b = tris[t][std::size_t((k + 1) % 3)];
      edges[{std::min(a, b), std::max(a, b)}].push_back({int(t), a < b});
    }
  for (const auto& [e, uses] : edges) {
    if (uses.size() == 1)
      throw std::invalid_argument("the surface is open: edge " + edge_name(e[0], e[1]) + " belongs to one triangle (" +
                                  std::to_string(uses[0].first) + ")");
    if (uses.size() > 2)
      throw std::invalid_argument("the surface is not manifold: edge " + edge_name(e[0], e[1]) + " belongs to " +
                                  std::to_string(uses.size()) + " triangles");
    if (uses[0].second == uses[1].second)
      throw std::invalid_argument("the surface is inconsistently oriented: triangles " + std::to_string(uses[0].first) +
                                  " and " + std::to_string(uses[1].first) + " traverse edge " + edge_name(e[0], e[1]) +
                                  " in the same direction");
  }
}

std::string tetgen_failure(int code) {
  switch (code) {
    case 1: return "TetGen ran out of memory (try a larger max_volume or quality)";
    case 2: return "TetGen met an internal error";
    case 3: return "the surface intersects itself (TetGen)";
    case 4: return "the surface has a feature too small for TetGen's tolerance";
    case 5: return "the surface has two facets too close to each other (TetGen)";
    case 10: return "TetGen rejected the input";
    default: return "TetGen failed with code " + std::to_string(code);
  }
}

}  // namespace

namespace {

// tetrahedralize, optionally with -Y: no Steiner points on the surface, which stays as given
TetMesh tetrahedralize_surface(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles,
                               double max_volume, double quality, bool keep_surface) {
  if (!(max_volume > 0.0) || !std::isfinite(max_volume))
    throw std::invalid_argument("max_volume must be a positive volume, got " + std::to_string(max_volume));
  if (!(quality >= 1.1) || !std::isfinite(quality))
    throw std::invalid_argument("quality (TetGen's radius-edge ratio bound) must be at least 1.1, got " +
                                std::to_string(quality) + "; 1.414 is a good default");
  check_surface(vertices, triangles);
  // memory guard: TetGen makes at least volume / max_volume tets (a tiny max_volume would run
  // until std::bad_alloc); the divergence theorem gives the enclosed volume
  double volume = 0.0;
  for (const auto& t : triangles)
    volume += vertices[std::size_t(t[0])].dot(vertices[std::size_t(t[1])].cross(vertices[std::size_t(t[2])])) / 6.0;
  const double estimate = std::abs(volume) / max_volume;
  if (!(estimate <= double(kMaxTets))) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "max_volume %g m^3 in a volume of %g m^3 makes at least %.3g tets, more than the limit of %lld",
                  max_volume, std::abs(volume), estimate, static_cast<long long>(kMaxTets));
    throw MeshTooLarge(msg);
  }

  // the surface as a TetGen piecewise linear complex: one single-triangle facet per triangle
  const auto fill = [&](tetgenio& in) {
    in.firstnumber = 0;
    in.numberofpoints = int(vertices.size());
    in.pointlist = new REAL[3 * vertices.size()];
    for (std::size_t i = 0; i < vertices.size(); ++i)
      for (int k = 0; k < 3; ++k) in.pointlist[3 * i + std::size_t(k)] = vertices[i][k];
    in.numberoffacets = int(triangles.size());
    in.facetlist = new tetgenio::facet[triangles.size()];
    for (std::size_t t = 0; t < triangles.size(); ++t) {
      tetgenio::facet& f = in.facetlist[t];
      tetgenio::init(&f);
      f.numberofpolygons = 1;
      f.polygonlist = new tetgenio::polygon[1];
      tetgenio::init(&f.polygonlist[0]);
      f.polygonlist[0].numberofvertices = 3;
      f.polygonlist[0].vertexlist = new int[3];
      for (int k = 0; k < 3; ++k) f.polygonlist[0].vertexlist[k] = triangles[t][std::size_t(k)];
    }
  };
  // pass 1, -d: list the intersecting facets. TetGen 1.5 crashes (SIGSEGV) when asked to mesh a
  // self-intersecting surface, so this pass must come first
  {
    tetgenio in, out;
    fill(in);
    char detect[] = "pdzQ";
    try {
      ::tetrahedralize(detect, &in, &out);
    } catch (int code) {
      throw std::invalid_argument(tetgen_failure(code));
    }
    if (out.numberoftrifaces > 0) {
      const int* f = out.trifacelist;
      const int b = out.firstnumber;
      throw std::invalid_argument("the surface intersects itself: " + std::to_string(out.numberoftrifaces) +
                                  " triangles cross others, the first is (" + std::to_string(f[0] - b) + ", " +
                                  std::to_string(f[1] - b) + ", " + std::to_string(f[2] - b) + ")");
    }
  }
  // pass 2: -p mesh the PLC, -q radius-edge bound (TetGen reads digits and '.' only after q),
  // -a volume bound (digits, '.', 'e', '+', '-'), -z number from 0, -Q quiet
  tetgenio in, out;
  fill(in);
  char switches[96];
  std::snprintf(switches, sizeof switches, "pzQ%sq%.6fa%.17g", keep_surface ? "Y" : "", quality, max_volume);
  try {
    ::tetrahedralize(switches, &in, &out);
  } catch (int code) {
    throw std::invalid_argument(tetgen_failure(code));
  }

  TetMesh m;
  m.rest.resize(std::size_t(out.numberofpoints));
  for (std::size_t i = 0; i < m.rest.size(); ++i)
    m.rest[i] = Vec3(out.pointlist[3 * i], out.pointlist[3 * i + 1], out.pointlist[3 * i + 2]);
  if (out.numberofcorners != 4) throw std::invalid_argument("TetGen returned " + std::to_string(out.numberofcorners) + "-node tets");
  m.tets.resize(std::size_t(out.numberoftetrahedra));
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    auto& e = m.tets[t];
    for (int k = 0; k < 4; ++k) e[std::size_t(k)] = out.tetrahedronlist[4 * t + std::size_t(k)] - out.firstnumber;
  }
  const std::string problem = check_tet_mesh(m, 0.0);  // index checks first, orientation after
  if (!problem.empty() && problem.find("inverted") == std::string::npos)
    throw std::invalid_argument("TetGen's mesh is unusable: " + problem);
  // TetGen 1.5 already writes positive tets in our convention; flip any that are not
  const std::vector<double> vol = tet_volumes(m);
  for (std::size_t t = 0; t < m.tets.size(); ++t)
    if (vol[t] < 0.0) std::swap(m.tets[t][2], m.tets[t][3]);
  if (std::string p = check_tet_mesh(m); !p.empty()) throw std::invalid_argument("TetGen's mesh is unusable: " + p);
  return m;
}

}  // namespace

TetMesh tetrahedralize(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles,
                       double max_volume, double quality) {
  return tetrahedralize_surface(vertices, triangles, max_volume, quality, false);
}

// ---- TetGen files ----

namespace {

struct Line {
  int number;                       // 1-based line number in the file
  std::vector<std::string> tokens;  // whitespace-separated, comment removed
};

// the non-blank, comment-free lines of a file
std::vector<Line> read_lines(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path.string(), "cannot open the file");
  std::vector<Line> lines;
  std::string s;
  for (int n = 1; std::getline(f, s); ++n) {
    if (auto hash = s.find('#'); hash != std::string::npos) s.erase(hash);
    std::istringstream is(s);
    Line line{n, {}};
    for (std::string tok; is >> tok;) line.tokens.push_back(tok);
    if (!line.tokens.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

struct FileReader {
  std::string path;
  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw InputError(path, "line " + std::to_string(line) + ": " + msg);
  }
  int integer(const Line& l, std::size_t k, const char* what) const {
    const std::string& s = l.tokens[k];
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) fail(l.number, std::string(what) + " '" + s + "' is not an integer");
    return v;
  }
  double real(const Line& l, std::size_t k, const char* what) const {
    const std::string& s = l.tokens[k];
    double v = 0;
    const char* b = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);  // from_chars refuses a leading '+'
    auto [end, ec] = std::from_chars(b, s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
      fail(l.number, std::string(what) + " '" + s + "' is not a finite number");
    return v;
  }
  void expect_tokens(const Line& l, std::size_t n, const char* what) const {
    if (l.tokens.size() != n)
      fail(l.number, std::string(what) + " should have " + std::to_string(n) + " numbers, found " + std::to_string(l.tokens.size()));
  }
  void expect_count(const std::vector<Line>& lines, int count, const char* what) const {
    const int found = int(lines.size()) - 1;
    if (found < count)
      fail(lines.empty() ? 1 : lines.back().number, "the header announces " + std::to_string(count) + " " + what + " but the file has " +
                                                   std::to_string(found));
    if (found > count)
      fail(lines[std::size_t(count) + 1].number, "more " + std::string(what) + " than the " + std::to_string(count) + " the header announces");
  }
};

}  // namespace

TetMesh read_tetgen(const std::filesystem::path& node_file) {
  std::filesystem::path ele_file = node_file;
  ele_file.replace_extension(".ele");
  TetMesh m;
  int base = 0;
  std::vector<int> node_line;  // line of each point in the .node file

  // .node: header "<#points> 3 <#attributes> <#markers>", then "<i> x y z [attributes] [marker]"
  {
    const FileReader r{node_file.string()};
    const std::vector<Line> lines = read_lines(node_file);
    if (lines.empty()) r.fail(1, "the file is empty");
    const Line& h = lines[0];
    if (h.tokens.size() < 1 || h.tokens.size() > 4) r.fail(h.number, "the header should be '<#points> 3 <#attributes> <0|1>'");
    const int np = r.integer(h, 0, "the point count");
    const int dim = h.tokens.size() > 1 ? r.integer(h, 1, "the dimension") : 3;
    const int na = h.tokens.size() > 2 ? r.integer(h, 2, "the attribute count") : 0;
    const int nm = h.tokens.size() > 3 ? r.integer(h, 3, "the boundary marker flag") : 0;
    if (np <= 0) r.fail(h.number, "the point count must be positive (points in a .poly file are not supported)");
    if (dim != 3) r.fail(h.number, "the dimension must be 3, got " + std::to_string(dim));
    if (na < 0) r.fail(h.number, "the attribute count must not be negative");
    if (nm != 0 && nm != 1) r.fail(h.number, "the boundary marker flag must be 0 or 1");
    r.expect_count(lines, np, "points");
    m.rest.resize(std::size_t(np));
    for (int i = 0; i < np; ++i) {
      const Line& l = lines[std::size_t(i) + 1];
      r.expect_tokens(l, std::size_t(4 + na + nm), "a point line");
      const int id = r.integer(l, 0, "the point number");
      if (i == 0) {
        if (id != 0 && id != 1) r.fail(l.number, "the first point must be numbered 0 or 1, got " + std::to_string(id));
        base = id;
      } else if (id != base + i) {
        r.fail(l.number, "expected point number " + std::to_string(base + i) + ", got " + std::to_string(id));
      }
      m.rest[std::size_t(i)] = Vec3(r.real(l, 1, "x"), r.real(l, 2, "y"), r.real(l, 3, "z"));
      node_line.push_back(l.number);
      for (int k = 0; k < na + nm; ++k) r.real(l, std::size_t(4 + k), "an attribute or marker");
    }
  }

  // .ele: header "<#tets> 4 <0|1 region attribute>", then "<i> n0 n1 n2 n3 [attribute]"
  const FileReader r{ele_file.string()};
  if (!std::filesystem::exists(ele_file)) throw InputError(ele_file.string(), "missing: a .node file needs the .ele file beside it");
  const std::vector<Line> lines = read_lines(ele_file);
  if (lines.empty()) r.fail(1, "the file is empty");
  const Line& h = lines[0];
  if (h.tokens.size() < 1 || h.tokens.size() > 3) r.fail(h.number, "the header should be '<#tets> 4 <0|1>'");
  const int nt = r.integer(h, 0, "the tet count");
  const int nodes = h.tokens.size() > 1 ? r.integer(h, 1, "the nodes per tet") : 4;
  const int nattr = h.tokens.size() > 2 ? r.integer(h, 2, "the region attribute count") : 0;
  if (nt <= 0) r.fail(h.number, "the tet count must be positive");
  if (nodes == 10) r.fail(h.number, "10-node (quadratic) tets are not supported, only 4-node tets");
  if (nodes != 4) r.fail(h.number, "tets must have 4 nodes, got " + std::to_string(nodes));
  if (nattr < 0) r.fail(h.number, "the region attribute count must not be negative");
  r.expect_count(lines, nt, "tets");
  if (nt > kMaxTets) r.fail(h.number, "the tet count " + std::to_string(nt) + " is above the limit of " + std::to_string(kMaxTets));
  m.tets.resize(std::size_t(nt));
  const int nv = int(m.rest.size());
  for (int t = 0; t < nt; ++t) {
    const Line& l = lines[std::size_t(t) + 1];
    r.expect_tokens(l, std::size_t(5 + nattr), "a tet line");
    if (const int id = r.integer(l, 0, "the tet number"); id != base + t)
      r.fail(l.number, "expected tet number " + std::to_string(base + t) + ", got " + std::to_string(id));
    for (int k = 0; k < 4; ++k) {
      const int p = r.integer(l, std::size_t(1 + k), "a point number");
      if (p < base || p >= base + nv)
        r.fail(l.number, "point " + std::to_string(p) + " is out of range: the .node file has points " + std::to_string(base) +
                             " to " + std::to_string(base + nv - 1));
      m.tets[std::size_t(t)][std::size_t(k)] = p - base;
    }
    for (int k = 0; k < nattr; ++k) r.real(l, std::size_t(5 + k), "a region attribute");
  }

  // orientation: all positive as is, all negative flipped, a mix names the odd tet out
  const std::vector<double> vol = tet_volumes(m);
  const auto npos = std::count_if(vol.begin(), vol.end(), [](double x) { return x > 0.0; });
  const auto nneg = std::count_if(vol.begin(), vol.end(), [](double x) { return x < 0.0; });
  if (npos > 0 && nneg > 0) {
    const bool odd_is_negative = nneg <= npos;
    for (int t = 0; t < nt; ++t)
      if (odd_is_negative ? vol[std::size_t(t)] < 0.0 : vol[std::size_t(t)] > 0.0)
        r.fail(lines[std::size_t(t) + 1].number,
               "tet " + std::to_string(base + t) + " is " + (odd_is_negative ? "inverted" : "positively oriented") + " but " +
                   std::to_string(odd_is_negative ? npos : nneg) + " of the " + std::to_string(nt) + " tets are " +
                   (odd_is_negative ? "positively oriented" : "inverted") + " (volume " + std::to_string(vol[std::size_t(t)]) + ")");
  }
  if (nneg > 0 && npos == 0)
    for (auto& e : m.tets) std::swap(e[2], e[3]);

  if (std::string p = check_tet_mesh(m); !p.empty())
    throw InputError(ele_file.string(), p + " (tets counted from 0 in file order)");
  std::vector<char> used(std::size_t(nv), 0);
  for (const auto& e : m.tets)
    for (int p : e) used[std::size_t(p)] = 1;
  for (int i = 0; i < nv; ++i)
    if (!used[std::size_t(i)])
      throw InputError(node_file.string(), "line " + std::to_string(node_line[std::size_t(i)]) + ": point " +
                                               std::to_string(base + i) + " belongs to no tet (a soft body's vertices all need mass)");
  return m;
}

// ---- sphere ----

namespace {

// a geodesic icosphere: each icosahedron face split into f x f triangles, projected on the
// unit sphere, outward oriented. A point on face (A, B, C) is i A + j B + k C over f with
// i + j + k = f; it is keyed by its (vertex, weight) pairs in vertex order, so a point on a
// shared edge gets one index and one position (computed from the key) whichever face makes it.
void icosphere(int f, std::vector<Vec3>& verts, std::vector<std::array<int, 3>>& tris) {
  const double g = (1.0 + std::sqrt(5.0)) / 2.0;
  const Vec3 ico[12] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                        {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  static constexpr int kFaces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                        {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                        {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                        {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  using Key = std::vector<std::pair<int, int>>;
  std::map<Key, int> index;
  const auto point = [&](const int* face, int i, int j, int k) {
    Key key;
    const int w[3] = {i, j, k};
    for (int c = 0; c < 3; ++c)
      if (w[c] > 0) key.push_back({face[c], w[c]});
    std::sort(key.begin(), key.end());
    auto [it, inserted] = index.try_emplace(key, int(verts.size()));
    if (inserted) {
      Vec3 p = Vec3::Zero();
      for (const auto& [v, wt] : key) p += double(wt) * ico[v];
      verts.push_back(p.normalized());
    }
    return it->second;
  };
  for (const auto& face : kFaces) {
    // row a (0..f) from vertex A; along the row, b steps towards B, the rest goes to C
    const auto id = [&](int a, int b) { return point(face, f - a - b, b, a); };
    for (int a = 0; a < f; ++a)
      for (int b = 0; b < f - a; ++b) {
        tris.push_back({id(a, b), id(a, b + 1), id(a + 1, b)});
        if (b + 1 < f - a) tris.push_back({id(a, b + 1), id(a + 1, b + 1), id(a + 1, b)});
      }
  }
}

}  // namespace

TetMesh sphere_tet_mesh(double radius, int resolution) {
  if (!(radius > 0.0) || !std::isfinite(radius)) throw std::invalid_argument("radius must be positive, got " + std::to_string(radius));
  if (resolution < 2) throw std::invalid_argument("resolution must be at least 2, got " + std::to_string(resolution));
  std::vector<Vec3> verts;
  std::vector<std::array<int, 3>> tris;
  icosphere(resolution, verts, tris);
  for (Vec3& p : verts) p *= radius;
  const double h = 2.0 * radius / resolution;
  return tetrahedralize_surface(verts, tris, h * h * h / 6.0, 1.414, true);
}

// ---- per-vertex data ----

std::vector<double> lumped_masses(const TetMesh& mesh, double density) {
  if (!(density > 0.0) || !std::isfinite(density))
    throw std::invalid_argument("density must be positive, got " + std::to_string(density));
  std::vector<double> mass(mesh.rest.size(), 0.0);
  const std::vector<double> vol = tet_volumes(mesh);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t)
    for (int v : mesh.tets[t]) mass[std::size_t(v)] += 0.25 * density * vol[t];
  return mass;
}

std::vector<std::array<int, 2>> surface_edges(const std::vector<std::array<int, 3>>& faces) {
  std::vector<std::array<int, 2>> e;
  e.reserve(3 * faces.size());
  for (const auto& f : faces)
    for (int k = 0; k < 3; ++k) {
      const int a = f[std::size_t(k)], b = f[std::size_t((k + 1) % 3)];
      e.push_back({std::min(a, b), std::max(a, b)});
    }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  return e;
}

std::vector<int> surface_vertices(const std::vector<std::array<int, 3>>& faces) {
  std::vector<int> v;
  v.reserve(3 * faces.size());
  for (const auto& f : faces) v.insert(v.end(), f.begin(), f.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace coulomb
