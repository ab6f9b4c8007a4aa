// The VTU/PVD writer of vtk_output.h: shape surfaces and the file format.
//
// Format (VTK file formats, "XML File Formats"): an UnstructuredGrid piece with Points,
// Cells (connectivity, offsets, types) and PointData/CellData arrays, every array stored in
// one <AppendedData encoding="raw"> block after an '_' marker; each array's `offset` attribute
// is its byte position in that block, and each array starts with its size in bytes as a UInt64
// (header_type="UInt64"). Values are written in the machine's byte order, which must be little
// endian (checked at compile time).
#include <coulomb/soft_body.h>
#include <coulomb/element_constraint.h>
#include <coulomb/materials.h>
#include <coulomb/mesh_generators.h>
#include <coulomb/run_folder.h>
#include <coulomb/vtk_output.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numbers>
#include <stdexcept>
#include <string>

namespace coulomb {

namespace {

// A closed surface of revolution about z. `profile` holds (r, z) from the top to the bottom;
// its first and last points lie on the axis (r = 0) and become single pole vertices.
SurfaceMesh revolve(const std::vector<std::array<double, 2>>& profile, int segments) {
  SurfaceMesh m;
  const int n = segments;
  std::vector<int> ring_start;  // first vertex of each profile point's ring (poles: one vertex)
  for (const auto& [r, z] : profile) {
    ring_start.push_back(int(m.vertices.size()));
    if (r == 0.0) {
      m.vertices.emplace_back(0.0, 0.0, z);
      continue;
    }
    for (int j = 0; j < n; ++j) {
      const double phi = 2.0 * std::numbers::pi * j / n;
      m.vertices.emplace_back(r * std::cos(phi), r * std::sin(phi), z);
    }
  }
  // between consecutive rings, upper (i) to lower (i + 1), counter-clockwise seen from outside
  for (std::size_t i = 0; i + 1 < profile.size(); ++i) {
    const bool upper_pole = profile[i][0] == 0.0, lower_pole = profile[i + 1][0] == 0.0;
    for (int j = 0; j < n; ++j) {
      const int j1 = (j + 1) % n;
      const int a = ring_start[i] + (upper_pole ? 0 : j), b = ring_start[i] + (upper_pole ? 0 : j1);
      const int c = ring_start[i + 1] + (lower_pole ? 0 : j), d = ring_start[i + 1] + (lower_pole ? 0 : j1);
      if (!lower_pole) m.triangles.push_back({a, c, d});
      if (!upper_pole) m.triangles.push_back({a, d, b});
    }
  }
  return m;
}

// (r, z) of a circular arc about (0, z0) from polar angle t0 to t1 (0 = +z), `steps` pieces,
// both ends included
void arc(std::vector<std::array<double, 2>>& out, double radius, double z0, double t0, double t1, int steps) {
  for (int k = 0; k <= steps; ++k) {
    const double t = t0 + (t1 - t0) * k / steps;
    const double r = radius * std::sin(t);
    out.push_back({std::abs(r) < 1e-12 * radius ? 0.0 : r, z0 + radius * std::cos(t)});
  }
}

void append(SurfaceMesh& to, const SurfaceMesh& from, const Pose& pose) {
  const int base = int(to.vertices.size());
  for (const Vec3& v : from.vertices) to.vertices.push_back(pose.apply(v));
  for (const auto& t : from.triangles) to.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
}

// ---- VTU writing ----

static_assert(std::endian::native == std::endian::little, "the VTU files are written little-endian");

struct Array {
  std::string tag;  // the DataArray's attributes but the offset
  std::string bytes;
};

template <class T>
Array array_of(const std::string& attributes, const std::vector<T>& values) {
  Array a{attributes, std::string(values.size() * sizeof(T), '\0')};
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

std::vector<double> flat(const std::vector<Vec3>& v) {
  std::vector<double> out;
  out.reserve(3 * v.size());
  for (const Vec3& x : v) out.insert(out.end(), {x.x(), x.y(), x.z()});
  return out;
}

// One unstructured grid: points, cells of one VTK type (5 = triangle, 10 = tetrahedron) with
// `corners` points each, and point and cell arrays.
void write_vtu(const std::filesystem::path& file, const std::vector<Vec3>& points, const std::vector<std::int64_t>& connectivity,
               int corners, std::uint8_t cell_type, const std::vector<Array>& point_data, const std::vector<Array>& cell_data) {
  const std::size_t cells = corners > 0 ? connectivity.size() / std::size_t(corners) : 0;
  std::vector<std::int64_t> offsets(cells);
  for (std::size_t c = 0; c < cells; ++c) offsets[c] = std::int64_t((c + 1) * std::size_t(corners));
  const std::vector<std::uint8_t> types(cells, cell_type);

  std::vector<const Array*> order;
  std::string xml;
  std::size_t offset = 0;
  auto tag = [&](const Array& a) {
    xml += "        <DataArray " + a.tag + " format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
    offset += 8 + a.bytes.size();
    order.push_back(&a);
  };
  const Array pts = array_of("type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"", flat(points));
  const Array conn = array_of("type=\"Int64\" Name=\"connectivity\"", connectivity);
  const Array offs = array_of("type=\"Int64\" Name=\"offsets\"", offsets);
  const Array typ = array_of("type=\"UInt8\" Name=\"types\"", types);

  xml += "<?xml version=\"1.0\"?>\n";
  xml += "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n";
  xml += "  <UnstructuredGrid>\n";
  xml += "    <Piece NumberOfPoints=\"" + std::to_string(points.size()) + "\" NumberOfCells=\"" + std::to_string(cells) + "\">\n";
  xml += "      <PointData>\n";
  for (const Array& a : point_data) tag(a);
  xml += "      </PointData>\n      <CellData>\n";
  for (const Array& a : cell_data) tag(a);
  xml += "      </CellData>\n      <Points>\n";
  tag(pts);
  xml += "      </Points>\n      <Cells>\n";
  tag(conn);
  tag(offs);
  tag(typ);
  xml += "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n_";

  // checked writes, a unique temporary and an atomic rename (run_folder.h)
  for (const Array* a : order) {
    const std::uint64_t n = a->bytes.size();
    xml.append(reinterpret_cast<const char*>(&n), sizeof n);
    xml.append(a->bytes.data(), a->bytes.size());
  }
  xml += "\n  </AppendedData>\n</VTKFile>\n";
  write_file_atomically(file, xml);
}

std::string frame_name(const char* kind, int step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s_%06d.vtu", kind, step);
  return buf;
}

}  // namespace

SurfaceMesh shape_surface(const ShapeLibrary& shapes, int shape, int segments, double plane_size, const Vec3& plane_center) {
  const Shape& s = shapes[shape];
  const int n = std::max(segments, 3), half = std::max(n / 2, 2);
  SurfaceMesh m;
  switch (s.type) {
    case ShapeType::Sphere: {
      std::vector<std::array<double, 2>> profile;
      arc(profile, s.radius, 0.0, 0.0, std::numbers::pi, half);
      return revolve(profile, n);
    }
    case ShapeType::Capsule: {
      std::vector<std::array<double, 2>> profile;
      arc(profile, s.radius, s.half_height, 0.0, std::numbers::pi / 2, half / 2 + 1);
      arc(profile, s.radius, -s.half_height, std::numbers::pi / 2, std::numbers::pi, half / 2 + 1);
      return revolve(profile, n);
    }
    case ShapeType::Cylinder:
      return revolve({{0.0, s.half_height}, {s.radius, s.half_height}, {s.radius, -s.half_height}, {0.0, -s.half_height}}, n);
    case ShapeType::Box: {
      const Surface b = box_surface(s.half_extents);
      return {b.vertices, b.triangles};
    }
    case ShapeType::Plane: {
      const Vec3 nrm = s.normal.normalized();
      const Vec3 t1 = nrm.unitOrthogonal(), t2 = nrm.cross(t1);  // t1 x t2 = n
      const Vec3 c = plane_center - nrm * (nrm.dot(plane_center) - s.offset);
      const double a = 0.5 * plane_size;
      m.vertices = {c - a * t1 - a * t2, c + a * t1 - a * t2, c + a * t1 + a * t2, c - a * t1 + a * t2};
      m.triangles = {{0, 1, 2}, {0, 2, 3}};
      return m;
    }
    case ShapeType::Convex:
      m.vertices = s.hull.vertices;
      for (const std::vector<int>& f : s.hull.faces)
        for (std::size_t k = 1; k + 1 < f.size(); ++k) m.triangles.push_back({f[0], f[k], f[k + 1]});
      return m;
    case ShapeType::Mesh:
      m.vertices = s.mesh->vertices;
      m.triangles = s.mesh->triangles;
      return m;
    case ShapeType::Compound:
      for (const CompoundChild& c : s.children)
        append(m, shape_surface(shapes, c.shape, segments, plane_size, c.pose.apply_inverse(plane_center)), c.pose);
      return m;
  }
  return m;
}

VtkOutput::VtkOutput(std::filesystem::path dir, const World& world) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create " + dir_.string() + ": " + ec.message());
  // files of an earlier run, which run.pvd would no longer list
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if ((name.starts_with("rigid_") || name.starts_with("soft_")) && e.path().extension() == ".vtu")
      std::filesystem::remove(e.path(), ec);
  }
  // planes become squares of 3x the size of what stands on them, centred below it
  const ShapeLibrary& shapes = world.scene().shapes;
  Aabb box;
  for (int i = 0; i < world.body_count(); ++i) {
    const int shape = world.model().shape[std::size_t(i)];
    if (shape < 0 || shapes[shape].type == ShapeType::Plane) continue;
    const BodyState b = world.body(i);
    box.grow(shapes.aabb(shape, Pose{b.position, b.orientation}, 0.0));
  }
  for (int i = 0; i < world.soft_body_count(); ++i)
    for (const Vec3& x : world.soft_body(i).x) box.grow(Aabb{x, x});
  const bool empty = !(box.lo.array() <= box.hi.array()).all();
  const Vec3 center = empty ? Vec3::Zero() : Vec3(0.5 * (box.lo + box.hi));
  const double size = empty ? 0.0 : (box.hi - box.lo).norm();
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyState b = world.body(i);
    const Vec3 local = Pose{b.position, b.orientation}.apply_inverse(center);
    const int shape = world.model().shape[std::size_t(i)];
    // a body without a shape has no surface (its pieces then have no points)
    body_surface_.push_back(shape < 0 ? SurfaceMesh{} : shape_surface(shapes, shape, 16, std::max(3.0 * size, 2.0), local));
  }
  write_frame(world);
}

void VtkOutput::write_step(const World& world) {
  if (world.step_count() % world.scene().output_every == 0) write_frame(world);
}

void VtkOutput::write_frame(const World& world) {
  const int step = world.step_count();
  if (world.body_count() > 0) {
    std::vector<Vec3> points, velocity;
    std::vector<std::int64_t> conn;
    std::vector<std::int32_t> body;
    for (int i = 0; i < world.body_count(); ++i) {
      const BodyState b = world.body(i);
      const Pose pose{b.position, b.orientation};
      const std::int64_t base = std::int64_t(points.size());
      for (const Vec3& v : body_surface_[std::size_t(i)].vertices) {
        points.push_back(pose.apply(v));
        // the shape frame's origin moves with b.velocity: v + w x (x - origin)
        velocity.push_back(b.velocity + b.angular_velocity.cross(points.back() - b.position));
      }
      for (const auto& t : body_surface_[std::size_t(i)].triangles) {
        conn.insert(conn.end(), {base + t[0], base + t[1], base + t[2]});
        body.push_back(i);
      }
    }
    write_vtu(dir_ / frame_name("rigid", step), points, conn, 3, 5,
              {array_of("type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"", flat(velocity))},
              {array_of("type=\"Int32\" Name=\"body\"", body)});
    entries_.push_back({world.time(), frame_name("rigid", step), 0});
  }
  if (world.soft_body_count() > 0) {
    std::vector<Vec3> points, velocity;
    std::vector<std::int64_t> conn;
    std::vector<double> energy;
    std::vector<std::int32_t> body;
    for (int i = 0; i < world.soft_body_count(); ++i) {
      const SoftBody& b = world.soft_body(i);
      const std::int64_t base = std::int64_t(points.size());
      points.insert(points.end(), b.x.begin(), b.x.end());
      velocity.insert(velocity.end(), b.v.begin(), b.v.end());
      for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
        const auto& tet = b.mesh.tets[t];
        for (int k = 0; k < 4; ++k) conn.push_back(base + tet[std::size_t(k)]);
        const std::array<Vec3, 4> x{b.x[std::size_t(tet[0])], b.x[std::size_t(tet[1])], b.x[std::size_t(tet[2])],
                                    b.x[std::size_t(tet[3])]};
        // as soft_elastic_energy sums it (stats.jsonl elastic_energy)
        energy.push_back(b.rest_volume[t] * energy_density(b.model, b.lame, deformation_gradient(x, b.Dm_inv[t])));
        body.push_back(i);
      }
    }
    write_vtu(dir_ / frame_name("soft", step), points, conn, 4, 10,
              {array_of("type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"", flat(velocity))},
              {array_of("type=\"Float64\" Name=\"strain_energy\"", energy), array_of("type=\"Int32\" Name=\"body\"", body)});
    entries_.push_back({world.time(), frame_name("soft", step), 1});
  }
}

void VtkOutput::finish() {
  std::string text = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n";
  char line[256];
  for (const Entry& e : entries_) {
    std::snprintf(line, sizeof line, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"%d\" file=\"%s\"/>\n", e.time, e.part,
                  e.file.c_str());
    text += line;
  }
  text += "  </Collection>\n</VTKFile>\n";
  write_file_atomically(dir_ / "run.pvd", text);
}

}  // namespace coulomb
