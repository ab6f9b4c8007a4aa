// State <-> JSON and the checkpoint file; see checkpoint.h.
#include <coulomb/checkpoint.h>
#include <coulomb/error.h>
#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>

#include <fstream>
#include <iterator>

#include "scene_reader.h"

namespace coulomb {

namespace {

using detail::child_pointer;
using Json = nlohmann::json;

Json vec3s(const std::vector<Vec3>& vs) {
  Json a = Json::array();
  for (const Vec3& v : vs) a.push_back({v.x(), v.y(), v.z()});
  return a;
}

Json quats(const std::vector<Quat>& qs) {
  Json a = Json::array();
  for (const Quat& q : qs) a.push_back({q.w(), q.x(), q.y(), q.z()});
  return a;
}

// exact components: no normalisation (as_vec3 / as_unit_quat would change the bits)
Vec4 components(const Json& j, const std::string& ptr, int n) {
  if (!j.is_array() || j.size() != std::size_t(n)) throw InputError(ptr, "expected an array of " + std::to_string(n) + " numbers");
  Vec4 c = Vec4::Zero();
  for (int i = 0; i < n; ++i) c[i] = detail::as_number(j[std::size_t(i)], child_pointer(ptr, std::size_t(i)));
  return c;
}

std::vector<Vec3> read_vec3s(const Json& j, const std::string& ptr) {
  detail::as_array(j, ptr);
  std::vector<Vec3> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(components(j[i], child_pointer(ptr, i), 3).head<3>());
  return out;
}

std::vector<Quat> read_quats(const Json& j, const std::string& ptr) {
  detail::as_array(j, ptr);
  std::vector<Quat> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Vec4 c = components(j[i], child_pointer(ptr, i), 4);
    out.emplace_back(c[0], c[1], c[2], c[3]);
  }
  return out;
}

Json vec6s(const std::vector<Vec6>& vs) {
  Json a = Json::array();
  for (const Vec6& v : vs) a.push_back(std::vector<double>(v.data(), v.data() + 6));
  return a;
}

std::vector<Vec6> read_vec6s(const Json& j, const std::string& ptr) {
  detail::as_array(j, ptr);
  std::vector<Vec6> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = child_pointer(ptr, i);
    if (!j[i].is_array() || j[i].size() != 6) throw InputError(p, "expected an array of 6 numbers");
    Vec6 v;
    for (int k = 0; k < 6; ++k) v[k] = detail::as_number(j[i][std::size_t(k)], child_pointer(p, std::size_t(k)));
    out.push_back(v);
  }
  return out;
}

Json control_json(const Control& c) {
  Json vf = Json::array(), vsf = Json::array();
  for (const auto& f : c.vertex_force) vf.push_back(vec3s(f));
  for (const auto& f : c.vertex_step_force) vsf.push_back(vec3s(f));
  return {{"wrench", vec6s(c.wrench)},       {"step_wrench", vec6s(c.step_wrench)}, {"vertex_force", vf},
          {"vertex_step_force", vsf},          {"command", c.command},                {"commanded", c.commanded}};
}

Control read_control(const Json& j) {
  detail::ObjectReader r(j, "/control");
  Control c;
  c.wrench = read_vec6s(r.require("wrench"), "/control/wrench");
  c.step_wrench = read_vec6s(r.require("step_wrench"), "/control/step_wrench");
  for (const char* key : {"vertex_force", "vertex_step_force"}) {
    const std::string ptr = std::string("/control/") + key;
    const Json& a = detail::as_array(r.require(key), ptr);
    auto& out = std::string(key) == "vertex_force" ? c.vertex_force : c.vertex_step_force;
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read_vec3s(a[i], child_pointer(ptr, i)));
  }
  const Json& command = detail::as_array(r.require("command"), "/control/command");
  for (std::size_t i = 0; i < command.size(); ++i)
    c.command.push_back(detail::as_number(command[i], child_pointer("/control/command", i)));
  const Json& commanded = detail::as_array(r.require("commanded"), "/control/commanded");
  for (std::size_t i = 0; i < commanded.size(); ++i)
    c.commanded.push_back(std::uint8_t(detail::as_int(commanded[i], child_pointer("/control/commanded", i), 0, 1)));
  r.finish();
  return c;
}

}  // namespace

Json state_json(const State& s) {
  Json soft = Json::array();
  for (const SoftState& b : s.soft) soft.push_back({{"x", vec3s(b.x)}, {"v", vec3s(b.v)}});
  Json cache = Json::array();
  for (const CachedContactImpulse& c : s.contact_cache)
    cache.push_back({{"a", c.a},
                     {"b", c.b},
                     {"local_point", {c.local_point.x(), c.local_point.y(), c.local_point.z()}},
                     {"impulse", {c.impulse.x(), c.impulse.y(), c.impulse.z()}},
                     {"torsion", {c.torsion.x(), c.torsion.y(), c.torsion.z()}}});
  return {{"step", s.step},
          {"time", s.time},
          {"rigid", {{"x", vec3s(s.rigid.x)}, {"q", quats(s.rigid.q)}, {"v", vec3s(s.rigid.v)}, {"w", vec3s(s.rigid.w)}}},
          {"soft", soft},
          {"contact_cache", cache},
          {"joint_cache", s.joint_cache},
          {"row_cache", s.row_cache},
          {"sleep", {{"timer", s.sleep.timer}, {"island", s.sleep.island}}},
          {"joint_angle", s.joint_angle},
          {"control", control_json(s.control)}};
}

State state_from_json(const Json& j) {
  detail::ObjectReader top(j, "");
  State s;
  s.step = top.integer("step", 0, 0);
  s.time = top.required_number("time");
  {
    detail::ObjectReader r(top.require("rigid"), "/rigid");
    s.rigid.x = read_vec3s(r.require("x"), "/rigid/x");
    s.rigid.q = read_quats(r.require("q"), "/rigid/q");
    s.rigid.v = read_vec3s(r.require("v"), "/rigid/v");
    s.rigid.w = read_vec3s(r.require("w"), "/rigid/w");
    r.finish();
  }
  const Json& soft = detail::as_array(top.require("soft"), "/soft");
  for (std::size_t i = 0; i < soft.size(); ++i) {
    const std::string ptr = child_pointer("/soft", i);
    detail::ObjectReader r(soft[i], ptr);
    s.soft.push_back({read_vec3s(r.require("x"), ptr + "/x"), read_vec3s(r.require("v"), ptr + "/v")});
    r.finish();
  }
  const Json& cache = detail::as_array(top.require("contact_cache"), "/contact_cache");
  for (std::size_t i = 0; i < cache.size(); ++i) {
    const std::string ptr = child_pointer("/contact_cache", i);
    detail::ObjectReader r(cache[i], ptr);
    CachedContactImpulse c;
    c.a = r.integer("a", -1);
    c.b = r.integer("b", -1);
    c.local_point = components(r.require("local_point"), ptr + "/local_point", 3).head<3>();
    c.impulse = components(r.require("impulse"), ptr + "/impulse", 3).head<3>();
    c.torsion = components(r.require("torsion"), ptr + "/torsion", 3).head<3>();
    r.finish();
    s.contact_cache.push_back(c);
  }
  const Json& joints = detail::as_array(top.require("joint_cache"), "/joint_cache");
  for (std::size_t i = 0; i < joints.size(); ++i)
    s.joint_cache.push_back(detail::as_number(joints[i], child_pointer("/joint_cache", i)));
  // newton-pcr's row impulses (absent from checkpoints written before it warm-started: a cold start)
  if (const Json* rows = top.find("row_cache")) {
    const Json& a = detail::as_array(*rows, "/row_cache");
    for (std::size_t i = 0; i < a.size(); ++i) s.row_cache.push_back(detail::as_number(a[i], child_pointer("/row_cache", i)));
  }
  // sleeping islands (absent from checkpoints written before sleeping existed: everybody awake);
  // World::set_state checks the sizes and the island ids
  if (const Json* sleep = top.find("sleep")) {
    detail::ObjectReader r(*sleep, "/sleep");
    const Json& timer = detail::as_array(r.require("timer"), "/sleep/timer");
    for (std::size_t i = 0; i < timer.size(); ++i)
      s.sleep.timer.push_back(detail::as_number(timer[i], child_pointer("/sleep/timer", i)));
    const Json& island = detail::as_array(r.require("island"), "/sleep/island");
    for (std::size_t i = 0; i < island.size(); ++i)
      s.sleep.island.push_back(detail::as_int(island[i], child_pointer("/sleep/island", i), -1));
    r.finish();
  }
  // joint angles and control (absent from checkpoints written before they existed: the defaults)
  if (const Json* angles = top.find("joint_angle")) {
    detail::as_array(*angles, "/joint_angle");
    for (std::size_t i = 0; i < angles->size(); ++i)
      s.joint_angle.push_back(detail::as_number((*angles)[i], child_pointer("/joint_angle", i)));
  }
  if (const Json* control = top.find("control")) s.control = read_control(*control);
  top.finish();
  return s;
}

void write_checkpoint(const std::filesystem::path& dir, const Checkpoint& c) {
  const Json j = {{"format", "coulomb-checkpoint/1"},
                  {"run_id", c.run_id},
                  {"files", {{"stats.jsonl", c.sizes.stats}, {"frames.jsonl", c.sizes.frames}}},
                  {"summary", {{"max_penetration", c.max_penetration}, {"contact_sum", c.contact_sum}}},
                  {"state", state_json(c.state)}};
  Json sealed = j;
  sealed["fnv1a64"] = fnv1a64_hex(j.dump());
  write_file_atomically(dir / kCheckpointFile, sealed.dump() + "\n");
}

Checkpoint read_checkpoint(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kCheckpointFile;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw InputError("--resume", file.string() + " is missing (deleted?): the run cannot continue from it; run it again "
                                                 "without --resume");
  Json j = read_scene_file(file);
  const std::string where = file.string() + ": ";
  // the checksum of the rest of the file, as written (a parsed document dumps as it was dumped)
  if (!j.is_object() || !j.contains("fnv1a64") || !j["fnv1a64"].is_string())
    throw InputError("--resume", where + "no checksum (fnv1a64): not a checkpoint this build wrote; run again without --resume");
  const std::string sum = j["fnv1a64"].get<std::string>();
  j.erase("fnv1a64");
  if (fnv1a64_hex(j.dump()) != sum)
    throw InputError("--resume", where + "the checksum does not match the contents (the file was changed or damaged): "
                                         "run again without --resume");
  try {
    detail::ObjectReader top(j, "");
    if (top.required_string("format") != "coulomb-checkpoint/1")
      throw InputError("/format", "expected \"coulomb-checkpoint/1\"");
    Checkpoint c;
    c.run_id = top.required_string("run_id");
    detail::ObjectReader files(top.require("files"), "/files");
    c.sizes.stats = detail::as_uint64(files.require("stats.jsonl"), "/files/stats.jsonl");
    c.sizes.frames = detail::as_uint64(files.require("frames.jsonl"), "/files/frames.jsonl");
    files.finish();
    detail::ObjectReader summary(top.require("summary"), "/summary");
    c.max_penetration = summary.required_number("max_penetration");
    c.contact_sum = summary.required_number("contact_sum");
    summary.finish();
    c.state = state_from_json(top.require("state"));
    top.finish();
    return c;
  } catch (const InputError& e) {
    throw InputError(e.pointer(), where + e.message());
  }
}

}  // namespace coulomb
