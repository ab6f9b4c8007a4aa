// coulomb-meshgen: writes the bundled scenes' meshes as OBJ files from their parameters
// (collision/include/coulomb/mesh_generators.h). The exact commands that made scenes/meshes/
// are listed in scenes/README.md.
//
//   coulomb-meshgen funnel OUT.obj --r-top 1.0 --r-bottom 0.15 --height 1.0 --spout 0.2 --thickness 0.05 --segments 48
//   coulomb-meshgen jack OUT.obj --arm 0.04 --length 1
//   coulomb-meshgen box OUT.obj --half-extents 0.1 0.1 0.1
//   coulomb-meshgen torus OUT.obj --major 0.3 --minor 0.1 --segments 32 --sides 12
//   coulomb-meshgen sphere OUT.obj --radius 0.1 --subdivisions 2
#include <coulomb/mesh_generators.h>
#include <coulomb/mesh_io.h>

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  CLI::App app{"Writes a generated closed triangle surface as an OBJ file"};
  app.require_subcommand(1);
  std::string out;
  double r_top = 1.0, r_bottom = 0.15, height = 1.0, spout = 0.2, thickness = 0.05, arm = 0.04;
  int segments = 48, length = 1, sides = 12, subdivisions = 2;
  double major = 0.3, minor = 0.1, radius = 0.1;
  std::vector<double> half{0.1, 0.1, 0.1};
  auto* funnel = app.add_subcommand("funnel", "a conical funnel with a spout (axis z, hole at z = 0)");
  funnel->add_option("out", out, "OBJ file to write")->required();
  funnel->add_option("--r-top", r_top, "inner radius at the top rim (m)");
  funnel->add_option("--r-bottom", r_bottom, "inner radius of the hole and spout (m)");
  funnel->add_option("--height", height, "height of the cone (m)");
  funnel->add_option("--spout", spout, "length of the spout below the cone (m)");
  funnel->add_option("--thickness", thickness, "wall thickness (m)");
  funnel->add_option("--segments", segments, "facets around the axis");
  auto* jack = app.add_subcommand("jack", "a cube with six arms (a non-convex closed surface)");
  jack->add_option("out", out, "OBJ file to write")->required();
  jack->add_option("--arm", arm, "side of the arms' square cross-section (m)");
  jack->add_option("--length", length, "arm length in cells");
  auto* box = app.add_subcommand("box", "the 12-triangle surface of a box");
  box->add_option("out", out, "OBJ file to write")->required();
  box->add_option("--half-extents", half, "half extents (m)")->expected(3);
  auto* torus = app.add_subcommand("torus", "a torus around the z axis");
  torus->add_option("out", out, "OBJ file to write")->required();
  torus->add_option("--major", major, "radius of the tube's centre circle (m)");
  torus->add_option("--minor", minor, "tube radius (m)");
  torus->add_option("--segments", segments, "facets around the axis");
  torus->add_option("--sides", sides, "facets around the tube");
  auto* sphere = app.add_subcommand("sphere", "a subdivided icosahedron");
  sphere->add_option("out", out, "OBJ file to write")->required();
  sphere->add_option("--radius", radius, "radius (m)");
  sphere->add_option("--subdivisions", subdivisions, "subdivision levels (0 = 20 triangles)");
  CLI11_PARSE(app, argc, argv);

  try {
    coulomb::Surface s;
    std::ostringstream what;
    what << "coulomb-meshgen " << app.get_subcommands().front()->get_name();
    if (funnel->parsed()) {
      s = coulomb::funnel_surface(r_top, r_bottom, height, spout, thickness, segments);
      what << " --r-top " << r_top << " --r-bottom " << r_bottom << " --height " << height << " --spout " << spout
           << " --thickness " << thickness << " --segments " << segments;
    } else if (jack->parsed()) {
      s = coulomb::jack_surface(arm, length);
      what << " --arm " << arm << " --length " << length;
    } else if (torus->parsed()) {
      s = coulomb::torus_surface(major, minor, segments, sides);
      what << " --major " << major << " --minor " << minor << " --segments " << segments << " --sides " << sides;
    } else if (sphere->parsed()) {
      s = coulomb::icosphere_surface(radius, subdivisions);
      what << " --radius " << radius << " --subdivisions " << subdivisions;
    } else {
      s = coulomb::box_surface({half[0], half[1], half[2]});
      what << " --half-extents " << half[0] << ' ' << half[1] << ' ' << half[2];
    }
    coulomb::write_obj(out, s.vertices, s.triangles, what.str());
    std::cout << out << ": " << s.vertices.size() << " vertices, " << s.triangles.size() << " triangles\n";
  } catch (const std::exception& e) {
    std::cerr << "coulomb-meshgen: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
