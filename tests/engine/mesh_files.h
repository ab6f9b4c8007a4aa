// Small mesh files of every format read_mesh documents, written by the tests themselves: a unit
// cube (8 corners, 6 quads, outward counter-clockwise) as STL (ASCII and binary), PLY (ASCII and
// binary, quads), glTF (embedded base64 buffer) and GLB with a node transform, OBJ in two
// groups; and a tetrahedron as COLLADA with a <unit> and nested node transforms.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace coulomb::mesh_test {

inline const std::vector<Vec3>& cube_corners() {
  static const std::vector<Vec3> v{{-0.5, -0.5, -0.5}, {0.5, -0.5, -0.5}, {0.5, 0.5, -0.5}, {-0.5, 0.5, -0.5},
                                   {-0.5, -0.5, 0.5},  {0.5, -0.5, 0.5},  {0.5, 0.5, 0.5},  {-0.5, 0.5, 0.5}};
  return v;
}
inline const std::vector<std::array<int, 4>>& cube_quads() {
  static const std::vector<std::array<int, 4>> q{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                                 {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  return q;
}
inline std::vector<std::array<int, 3>> cube_triangles() {
  std::vector<std::array<int, 3>> t;
  for (const auto& q : cube_quads()) {
    t.push_back({q[0], q[1], q[2]});
    t.push_back({q[0], q[2], q[3]});
  }
  return t;
}

template <class T>
void append(std::string& s, T x) {
  char b[sizeof(T)];
  std::memcpy(b, &x, sizeof(T));
  s.append(b, sizeof(T));
}

// every triangle with its own three corners, as STL stores them
inline std::string ascii_stl(const std::string& corner = "") {
  std::ostringstream out;
  out << "solid cube\n";
  for (const auto& t : cube_triangles()) {
    out << "  facet normal 0 0 0\n    outer loop\n";
    for (int i : t) {
      const Vec3& v = cube_corners()[std::size_t(i)];
      out << "      vertex " << v.x() << ' ' << v.y() << ' ' << v.z() << "\n";
    }
    out << "    endloop\n  endfacet\n";
  }
  out << corner << "endsolid cube\n";
  return out.str();
}

inline std::string binary_stl(int triangles = 12) {
  std::string s(80, ' ');
  s.replace(0, 11, "binary cube");  // a binary header must not start with "solid"
  append(s, std::uint32_t(triangles));
  const std::vector<std::array<int, 3>> cube = cube_triangles();
  for (int k = 0; k < triangles; ++k) {
    for (int i = 0; i < 3; ++i) append(s, 0.0f);  // the normal, unused
    for (int i : cube[std::size_t(k)])
      for (int a = 0; a < 3; ++a) append(s, float(cube_corners()[std::size_t(i)][a]));
    append(s, std::uint16_t(0));
  }
  return s;
}

inline std::string ply(bool binary, int bad_index = -1) {
  std::string s = std::string("ply\nformat ") + (binary ? "binary_little_endian" : "ascii") +
                  " 1.0\nelement vertex 8\nproperty float x\nproperty float y\nproperty float z\n"
                  "element face 6\nproperty list uchar int vertex_indices\nend_header\n";
  std::ostringstream text;
  for (const Vec3& v : cube_corners()) {
    if (binary)
      for (int a = 0; a < 3; ++a) append(s, float(v[a]));
    else
      text << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
  }
  for (std::size_t f = 0; f < cube_quads().size(); ++f) {
    std::array<int, 4> q = cube_quads()[f];
    if (f == 0 && bad_index >= 0) q[1] = bad_index;
    if (binary) {
      append(s, std::uint8_t(4));
      for (int i : q) append(s, std::int32_t(i));
    } else {
      text << "4 " << q[0] << ' ' << q[1] << ' ' << q[2] << ' ' << q[3] << '\n';
    }
  }
  return binary ? s : s + text.str();
}

// the cube's buffer for glTF: 8 float positions, then 36 uint16 indices
inline std::string cube_buffer() {
  std::string b;
  for (const Vec3& v : cube_corners())
    for (int a = 0; a < 3; ++a) append(b, float(v[a]));
  for (const auto& t : cube_triangles())
    for (int i : t) append(b, std::uint16_t(i));
  return b;
}

inline std::string base64(const std::string& in) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::uint32_t n = std::uint32_t(std::uint8_t(in[i])) << 16 |
                            (i + 1 < in.size() ? std::uint32_t(std::uint8_t(in[i + 1])) << 8 : 0u) |
                            (i + 2 < in.size() ? std::uint32_t(std::uint8_t(in[i + 2])) : 0u);
    out += abc[n >> 18 & 63];
    out += abc[n >> 12 & 63];
    out += i + 1 < in.size() ? abc[n >> 6 & 63] : '=';
    out += i + 2 < in.size() ? abc[n & 63] : '=';
  }
  return out;
}

// glTF 2 JSON of the cube under a node with `node` (e.g. "\"translation\": [1, 2, 3]"); `uri`
// empty for GLB's binary chunk
inline std::string gltf_json(const std::string& node, const std::string& uri) {
  const std::string buffer = cube_buffer();
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
  "nodes": [{"mesh": 0, )" + node + R"(}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
  "buffers": [{)" + (uri.empty() ? "" : "\"uri\": \"" + uri + "\", ") + "\"byteLength\": " + std::to_string(buffer.size()) + R"(}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96, "target": 34962},
                  {"buffer": 0, "byteOffset": 96, "byteLength": 72, "target": 34963}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                 "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
                {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]})";
}

inline std::string gltf(const std::string& node) {
  return gltf_json(node, "data:application/octet-stream;base64," + base64(cube_buffer()));
}

inline std::string glb(const std::string& node) {
  std::string json = gltf_json(node, "");
  while (json.size() % 4) json += ' ';
  std::string bin = cube_buffer();
  while (bin.size() % 4) bin += '\0';
  std::string s = "glTF";
  append(s, std::uint32_t(2));
  append(s, std::uint32_t(12 + 8 + json.size() + 8 + bin.size()));
  append(s, std::uint32_t(json.size()));
  s += "JSON" + json;
  append(s, std::uint32_t(bin.size()));
  s += std::string("BIN\0", 4) + bin;
  return s;
}

// two groups that share the cube's corners: Assimp makes a mesh of each
inline std::string obj_two_groups() {
  std::ostringstream out;
  for (const Vec3& v : cube_corners()) out << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
  for (std::size_t f = 0; f < cube_quads().size(); ++f) {
    if (f == 0) out << "g bottom\n";
    if (f == 1) out << "g rest\n";
    const auto& q = cube_quads()[f];
    out << "f " << q[0] + 1 << ' ' << q[1] + 1 << ' ' << q[2] + 1 << ' ' << q[3] + 1 << '\n';
  }
  return out.str();
}

// the tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1) in centimetres, Z up, under a node
// translated by (10, 0, 0) holding one scaled by 2: in metres its corners are (0.1, 0, 0),
// (0.12, 0, 0), (0.1, 0.02, 0) and (0.1, 0, 0.02)
inline std::string collada_tet() {
  return R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="centimeter" meter="0.01"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tet" name="tet"><mesh>
      <source id="tet-pos"><float_array id="tet-pos-array" count="12">0 0 0 1 0 0 0 1 0 0 0 1</float_array>
        <technique_common><accessor source="#tet-pos-array" count="4" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="tet-vtx"><input semantic="POSITION" source="#tet-pos"/></vertices>
      <triangles count="4"><input semantic="VERTEX" source="#tet-vtx" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes><visual_scene id="Scene">
    <node id="outer"><translate>10 0 0</translate>
      <node id="inner"><scale>2 2 2</scale><instance_geometry url="#tet"/></node>
    </node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
)";
}

}  // namespace coulomb::mesh_test
