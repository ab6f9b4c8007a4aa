// ParaView output of a run (`coulomb run ... --vtk`): OUT/vtk/run.pvd, a time series that
// refers, per recorded frame (step 0, then every `output.every` steps), to
//   rigid_SSSSSS.vtu  every rigid body as a triangulated surface in the world:
//                     point data `velocity` (m/s, the body's velocity at that point),
//                     cell data `body` (index in geometry.json / frames.jsonl order)
//   soft_SSSSSS.vtu   every soft body's tetrahedra (VTK_TETRA) at its current positions:
//                     point data `velocity` (m/s), cell data `strain_energy` (V0 Psi(F), J; the
//                     sum over cells is stats.jsonl's elastic_energy) and `body` (soft body index)
// (SSSSSS: the step). A file is left out when the scene has no body of its kind.
//
// Why our own writer and not VTK's: libvtk9-dev would add a large dependency (about 60 Debian
// packages, a long CMake configure) to an engine that needs only this one format. The files
// are VTK XML UnstructuredGrid 1.0, little-endian, with the arrays appended raw (UInt64 byte
// count headers, Float64 points and values, Int64 connectivity), which VTK's own readers and
// ParaView read; tests/cli/vtk_readback.py reads them back with python3-vtk9.
#pragma once
#include <coulomb/shapes.h>
#include <coulomb/world.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace coulomb {

// A closed (for planes: one square) triangulated surface, counter-clockwise seen from outside.
struct SurfaceMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// The surface of shape `shape` in its own frame: boxes, hulls and meshes exactly; spheres,
// capsules and cylinders with `segments` around (and segments / 2 from pole to pole); a plane
// as the square of side `plane_size` centred at the point of the plane nearest `plane_center`
// (in the shape frame); compounds as their children's surfaces placed in the compound frame.
SurfaceMesh shape_surface(const ShapeLibrary& shapes, int shape, int segments = 16, double plane_size = 10.0,
                          const Vec3& plane_center = Vec3::Zero());

class VtkOutput {
 public:
  // Creates DIR (OUT/vtk), removes the VTU and PVD files an earlier run left there, and writes
  // the frame of step 0. Throws std::runtime_error if DIR cannot be written.
  VtkOutput(std::filesystem::path dir, const World& world);
  // Writes a frame when the step is a multiple of output.every.
  void write_step(const World& world);
  // Writes run.pvd listing every frame written.
  void finish();

 private:
  void write_frame(const World& world);

  std::filesystem::path dir_;
  std::vector<SurfaceMesh> body_surface_;  // (nb) in each body's shape frame
  struct Entry {
    double time;
    std::string file;
    int part;
  };
  std::vector<Entry> entries_;
};

}  // namespace coulomb
