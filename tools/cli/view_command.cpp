// `coulomb view OUT_DIR`: turns a run's output folder into OUT_DIR/replay.html, one page that
// opens offline: the replay template (viewer/, three.js and uPlot inlined by the build) with the
// run's data put in place of its <!--COULOMB_REPLAY_DATA--> marker.
//
// Data flow (viewer/README.md): geometry.json (shapes, bodies, soft surfaces, the initial frame)
// + frames.jsonl (poses every output.every steps) + stats.jsonl (one line per step) -> one JSON
// block (everything but the per-frame numbers) and one base64 block of little-endian float32 /
// uint32 / float64 arrays (the layout is in viewer/src/data.js). float32 keeps about 7 digits:
// 0.1 um on a 1 m scene, plenty for a picture; the plots' stats stay float64.
//
// Every way the folder can be wrong (missing, unreadable, truncated or mismatched files) is an
// InputError naming the file and line; nothing is written then.
#include <coulomb/error.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>

#include "commands.h"

namespace coulomb::cli {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string base64(const std::vector<std::uint8_t>& in) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8) | in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += alphabet[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = std::uint32_t(in[i]) << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// The arrays of the page, appended to one little-endian blob, each on an 8-byte boundary.
class Blob {
 public:
  template <class T>
  void add(const std::string& name, const char* type, const std::vector<T>& v) {
    static_assert(std::endian::native == std::endian::little, "the replay's arrays are little-endian");
    while (bytes_.size() % 8) bytes_.push_back(0);
    const std::size_t at = bytes_.size();
    bytes_.resize(at + v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), v.size() * sizeof(T));
    index_[name] = {{"type", type}, {"offset", at}, {"length", v.size()}};
  }
  const Json& index() const { return index_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  Json index_ = Json::object();
};

Json read_json_file(const fs::path& p) {
  // the scene reader's checks: size, depth, range, NUL bytes, duplicate keys
  try {
    return read_scene_file(p);
  } catch (const InputError& e) {
    throw InputError(p.string(), std::string("not valid JSON: ") + e.what());
  }
}

// a number, or an InputError at `where`
double number(const Json& j, const std::string& where) {
  if (!j.is_number()) throw InputError(where, "expected a number, got " + j.dump().substr(0, 40));
  return j.get<double>();
}

// One frame (a frames.jsonl line or geometry.json's "initial") appended to the arrays, checked
// against the geometry's counts.
struct Frames {
  std::size_t bodies = 0;
  std::vector<std::size_t> soft_vertices;  // per soft body
  bool contacts = false;
  std::vector<int> step;
  std::vector<double> time;
  std::vector<float> poses, soft, contact_data;
  std::vector<std::uint32_t> contact_offsets{0};

  void add(const Json& f, const std::string& where) {
    if (!f.is_object() || !f.contains("bodies") || !f.contains("time") || !f.contains("step"))
      throw InputError(where, "expected a frame object with step, time and bodies");
    const Json& b = f["bodies"];
    if (!b.is_array() || b.size() != bodies)
      throw InputError(where + "/bodies", "expected " + std::to_string(bodies) + " bodies (geometry.json), got " +
                                              std::to_string(b.is_array() ? b.size() : 0));
    for (std::size_t i = 0; i < bodies; ++i) {
      const Json& pq = b[i];
      const std::string w = where + "/bodies/" + std::to_string(i);
      if (!pq.is_array() || pq.size() < 2 || !pq[0].is_array() || pq[0].size() != 3 || !pq[1].is_array() || pq[1].size() != 4)
        throw InputError(w, "expected [[x, y, z], [w, x, y, z]]");
      for (int c = 0; c < 3; ++c) poses.push_back(float(number(pq[0][c], w)));
      // the page keeps three.js's order: x, y, z, w
      for (int c : {1, 2, 3, 0}) poses.push_back(float(number(pq[1][c], w)));
    }
    const Json empty = Json::array();
    const Json& s = f.contains("soft_bodies") ? f["soft_bodies"] : empty;
    if (!s.is_array() || s.size() != soft_vertices.size())
      throw InputError(where + "/soft_bodies", "expected " + std::to_string(soft_vertices.size()) + " soft bodies");
    for (std::size_t i = 0; i < soft_vertices.size(); ++i) {
      const std::string w = where + "/soft_bodies/" + std::to_string(i);
      if (!s[i].is_array() || s[i].size() != 3 * soft_vertices[i])
        throw InputError(w, "expected " + std::to_string(3 * soft_vertices[i]) + " coordinates");
      for (const Json& x : s[i]) soft.push_back(float(number(x, w)));
    }
    if (contacts && f.contains("contacts")) {
      const Json& c = f["contacts"];
      if (!c.is_array() || c.size() % 6) throw InputError(where + "/contacts", "expected 6 numbers per contact");
      for (const Json& x : c) contact_data.push_back(float(number(x, where + "/contacts")));
    }
    contact_offsets.push_back(std::uint32_t(contact_data.size() / 6));
    step.push_back(int(number(f["step"], where + "/step")));
    time.push_back(number(f["time"], where + "/time"));
    if (time.size() > 1 && !(time.back() > time[time.size() - 2]))
      throw InputError(where + "/time", "frames must go forward in time");
  }
};

// stats.jsonl as columns: every number (and boolean, as 0/1) of the first line, nested objects
// flattened with '_' (joint_error.linear -> joint_error_linear); a value missing from a later
// line is NaN (a gap in its plot).
struct Stats {
  std::vector<std::string> names;
  std::map<std::string, std::vector<double>> columns;
  std::size_t count = 0;

  static void flatten(const Json& j, const std::string& prefix, std::map<std::string, double>& out) {
    for (const auto& [k, v] : j.items()) {
      const std::string name = prefix.empty() ? k : prefix + "_" + k;
      if (v.is_number()) out[name] = v.get<double>();
      else if (v.is_boolean()) out[name] = v.get<bool>() ? 1.0 : 0.0;
      else if (v.is_null()) out[name] = std::numeric_limits<double>::quiet_NaN();
      else if (v.is_object()) flatten(v, name, out);
    }
  }
  void add(const Json& line, const std::string& where) {
    if (!line.is_object()) throw InputError(where, "expected one JSON object per line");
    std::map<std::string, double> values;
    flatten(line, "", values);
    if (count == 0) {
      if (!values.count("time")) throw InputError(where, "a stats line without \"time\"");
      for (const auto& [k, v] : values) names.push_back(k);
    }
    for (const std::string& n : names) {
      const auto it = values.find(n);
      columns[n].push_back(it == values.end() ? std::numeric_limits<double>::quiet_NaN() : it->second);
    }
    ++count;
  }
};

// Calls f(line, "FILE:N") for each non-empty line, parsed.
template <class F>
void for_each_line(const fs::path& p, F&& f) {
  std::ifstream in(p);
  if (!in) throw InputError(p.string(), "cannot read the file");
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = p.filename().string() + ":" + std::to_string(n);
    Json line;
    try {
      line = parse_scene_text(text, where);
    } catch (const InputError& e) {
      throw InputError(where, std::string("not valid JSON (a truncated run?): ") + e.what());
    }
    f(line, where);
  }
}

fs::path find_template() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("COULOMB_VIEWER_TEMPLATE")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "coulomb" / "replay_template.html");
  for (const fs::path& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  std::string tried;
  for (const fs::path& c : candidates) tried += "\n  " + c.string();
  throw std::runtime_error(
      "the replay template is not built (the `coulomb_viewer` target, which needs npm: tools/run and tools/test "
      "install it, or configure with -DCOULOMB_VIEWER=ON); looked for:" + tried);
}

// JSON for a <script> block: '<' inside strings becomes \u003c, so that no "</script>" or
// "<!--" can end or confuse the block
// a body's `visual` list, when it has one: shapes in range, poses and colours of numbers
void check_visuals(const Json& body, std::size_t shape_count, const std::string& where) {
  if (!body.contains("visual")) return;
  const Json& list = body["visual"];
  const auto numbers = [](const Json& v, const char* key, std::size_t n) {
    if (!v.contains(key) || !v[key].is_array() || v[key].size() != n) return false;
    for (const Json& x : v[key])
      if (!x.is_number()) return false;
    return true;
  };
  if (!list.is_array()) throw InputError(where, "expected an array");
  for (std::size_t k = 0; k < list.size(); ++k) {
    const Json& v = list[k];
    const bool ok = v.is_object() && v.contains("shape") && v["shape"].is_number_unsigned() &&
                    v["shape"].get<std::size_t>() < shape_count && numbers(v, "position", 3) &&
                    numbers(v, "orientation", 4) && (!v.contains("color") || numbers(v, "color", 4));
    if (!ok)
      throw InputError(where + "/" + std::to_string(k), "expected a shape index below " + std::to_string(shape_count) +
                                                            ", a position, an orientation and an optional color of 4 numbers");
  }
}

std::string script_json(const Json& j) {
  std::string s = j.dump();
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

// The folder holds a finished run's outputs.
void check_run_folder(const fs::path& dir, const ViewArgs& a) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(a.dir, "no such output folder (run `coulomb run SCENE --out " + a.dir + "` first)");
  for (const char* name : {"geometry.json", "frames.jsonl", "stats.jsonl"})
    if (!fs::is_regular_file(dir / name, ec))
      throw InputError((dir / name).string(), std::string("missing: ") +
                                                  (std::strcmp(name, "geometry.json") == 0
                                                       ? "the folder was written by an older coulomb or by a run that did not finish; run the scene again"
                                                       : "not the output folder of a finished `coulomb run`"));
  if (a.every < 1) throw InputError("--every", "expected an integer >= 1");
}

// geometry.json's format, its arrays, the bodies' shapes and the joints' bodies and anchors
// (the soft bodies are checked as their frames are read).
void check_geometry(const Json& geometry, const std::string& gfile) {
  if (!geometry.is_object() || geometry.value("format", "") != "coulomb-geometry/1")
    throw InputError(gfile, "expected \"format\": \"coulomb-geometry/1\"");
  for (const char* key : {"scene", "shapes", "bodies", "soft_bodies", "materials", "initial"})
    if (!geometry.contains(key)) throw InputError(gfile, std::string("missing \"") + key + "\"");
  const Json& shapes = geometry["shapes"];
  const Json& bodies = geometry["bodies"];
  if (!shapes.is_array() || !bodies.is_array() || !geometry["soft_bodies"].is_array() || !geometry["materials"].is_array())
    throw InputError(gfile, "shapes, bodies, soft_bodies and materials must be arrays");
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const Json& b = bodies[i];
    // shape null: a body without one (scenes/README.md)
    const bool shape_ok = b.is_object() && b.contains("shape") &&
                          (b["shape"].is_null() || (b["shape"].is_number_integer() && b["shape"].get<long>() >= 0 &&
                                                    b["shape"].get<std::size_t>() < shapes.size()));
    if (!shape_ok || !b.contains("name"))
      throw InputError(gfile + "/bodies/" + std::to_string(i), "expected a name and a shape index below " +
                                                                   std::to_string(shapes.size()) + " (or null)");
    check_visuals(b, shapes.size(), gfile + "/bodies/" + std::to_string(i) + "/visual");
  }
  const Json joints = geometry.value("joints", Json::array());
  for (std::size_t i = 0; i < (joints.is_array() ? joints.size() : 0); ++i) {
    const Json& j = joints[i];
    auto body = [&](const char* k, long lo) {
      return j.contains(k) && j[k].is_number_integer() && j[k].get<long>() >= lo && j[k].get<long>() < long(bodies.size());
    };
    auto point = [&](const char* k) {
      return j.contains(k) && j[k].is_array() && j[k].size() == 3 && j[k][0].is_number() && j[k][1].is_number() && j[k][2].is_number();
    };
    if (!j.is_object() || !body("a", 0) || !body("b", -1) || !point("anchor_a") || !point("anchor_b"))
      throw InputError(gfile + "/joints/" + std::to_string(i), "expected bodies a and b (or -1) and two anchors");
  }
  if (!joints.is_array()) throw InputError(gfile + "/joints", "expected an array");
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (!shapes[i].is_object() || !shapes[i].contains("type"))
      throw InputError(gfile + "/shapes/" + std::to_string(i), "expected a shape with a type");
}

// The initial frame and every `every`-th frame of frames.jsonl.
Frames read_frames(const Json& geometry, const std::string& gfile, const fs::path& dir, int every) {
  const Json& softs = geometry["soft_bodies"];
  Frames frames;
  frames.bodies = geometry["bodies"].size();
  for (std::size_t i = 0; i < softs.size(); ++i) {
    if (!softs[i].is_object() || !softs[i].contains("vertex_count") || !softs[i]["vertex_count"].is_number_unsigned() ||
        !softs[i].contains("faces") || !softs[i]["faces"].is_array())
      throw InputError(gfile + "/soft_bodies/" + std::to_string(i), "expected vertex_count and faces");
    const std::size_t nv = softs[i]["vertex_count"].get<std::size_t>();
    for (const Json& v : softs[i]["faces"])
      if (!v.is_number_unsigned() || v.get<std::size_t>() >= nv)
        throw InputError(gfile + "/soft_bodies/" + std::to_string(i) + "/faces", "a vertex index out of range");
    frames.soft_vertices.push_back(nv);
  }
  frames.contacts = geometry["scene"].value("output_contacts", false);
  frames.add(geometry["initial"], gfile + "/initial");
  long line = 0;
  for_each_line(dir / "frames.jsonl", [&](const Json& f, const std::string& where) {
    if (++line % every == 0) frames.add(f, where);
  });
  return frames;
}

// The page: the template up to its marker, the replay's metadata and buffers, the rest of it;
// written with checked writes, a unique temporary and an atomic rename (run_folder.h).
void write_page(const fs::path& out, const Json& meta, const Blob& blob) {
  const fs::path tpl_path = find_template();
  std::ifstream tf(tpl_path, std::ios::binary);
  std::stringstream tss;
  tss << tf.rdbuf();
  const std::string tpl = tss.str();
  const std::string marker = "<!--COULOMB_REPLAY_DATA-->";
  const std::size_t at = tpl.find(marker);
  if (!tf || at == std::string::npos)
    throw std::runtime_error(tpl_path.string() + " is not a replay template (no " + marker + "); rebuild coulomb_viewer");
  std::string page(tpl.data(), at);
  page += "<script type=\"application/json\" id=\"coulomb-meta\">" + script_json(meta) + "</script>\n";
  page += "<script type=\"application/octet-stream\" id=\"coulomb-bin\">" + base64(blob.bytes()) + "</script>";
  page.append(tpl, at + marker.size());
  write_file_atomically(out, page);
}

}  // namespace

ViewResult write_replay(const ViewArgs& a) {
  const fs::path dir(a.dir);
  check_run_folder(dir, a);
  const Json geometry = read_json_file(dir / "geometry.json");
  const std::string gfile = (dir / "geometry.json").string();
  check_geometry(geometry, gfile);
  const Frames frames = read_frames(geometry, gfile, dir, a.every);
  Stats stats;
  for_each_line(dir / "stats.jsonl", [&](const Json& s, const std::string& where) { stats.add(s, where); });

  Blob blob;
  blob.add("poses", "f32", frames.poses);
  blob.add("soft", "f32", frames.soft);
  blob.add("contact_offsets", "u32", frames.contact_offsets);
  blob.add("contacts", "f32", frames.contact_data);
  std::vector<double> columns;
  for (const std::string& n : stats.names) columns.insert(columns.end(), stats.columns[n].begin(), stats.columns[n].end());
  blob.add("stats", "f64", columns);

  const Json& bodies = geometry["bodies"];
  const Json& softs = geometry["soft_bodies"];
  const Json meta = {{"format", "coulomb-replay/1"},
                     {"scene", geometry["scene"]},
                     {"materials", geometry["materials"]},
                     {"shapes", geometry["shapes"]},
                     {"bodies", bodies},
                     {"soft_bodies", softs},
                     {"joints", geometry.value("joints", Json::array())},
                     {"contacts", frames.contacts},
                     {"frames", {{"count", frames.time.size()}, {"step", frames.step}, {"time", frames.time}, {"stride", a.every}}},
                     {"stats", {{"count", stats.count}, {"columns", stats.names}}},
                     {"buffers", blob.index()}};
  const fs::path out = a.out.empty() ? dir / "replay.html" : fs::path(a.out);
  write_page(out, meta, blob);
  return {out.string(), int(frames.time.size()), int(bodies.size()), int(softs.size()), std::uintmax_t(fs::file_size(out))};
}

int view(const ViewArgs& a) {
  return guarded([&] {
    const ViewResult r = write_replay(a);
    if (!a.quiet)
      std::printf("%s: %d frames of %d bodies and %d soft bodies, %.1f MB\n", r.file.c_str(), r.frames, r.bodies,
                  r.soft_bodies, double(r.bytes) / 1e6);
    return 0;
  });
}

}  // namespace coulomb::cli
