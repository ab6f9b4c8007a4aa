#include <coulomb/output.h>

#include <stdexcept>

namespace coulomb {

namespace {

nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
nlohmann::json quat(const Quat& q) { return {q.w(), q.x(), q.y(), q.z()}; }

std::ofstream open_or_throw(const std::filesystem::path& p) {
  std::ofstream f(p, std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + p.string());
  return f;
}

}  // namespace

nlohmann::json stats_json(const StepStats& s) {
  return {{"step", s.step},
          {"time", s.time},
          {"bodies", s.bodies},
          {"contacts", s.contacts},
          {"pairs", s.pairs},
          {"islands", s.islands},
          {"largest_island", s.largest_island},
          {"largest_island_bodies", s.largest_island_bodies},
          {"iterations", s.solver.iterations},
          {"linear_iterations", s.solver.linear_iterations},
          {"residual", s.solver.residual},
          {"merit", s.solver.merit},
          {"converged", s.solver.converged},
          {"divergence_detections", s.solver.divergence_detections},
          {"kinetic_energy", s.kinetic_energy},
          {"potential_energy", s.potential_energy},
          {"elastic_energy", s.elastic_energy},
          {"soft_contacts", s.soft_contacts},
          {"max_penetration", s.max_penetration},
          {"joint_error", {{"linear", s.joint_error_linear}, {"angular", s.joint_error_angular}}},
          {"wall_ms", s.wall_ms},
          {"detect_ms", s.detect_ms},
          {"assemble_ms", s.assemble_ms},
          {"solve_ms", s.solver.time_ms},
          {"integrate_ms", s.integrate_ms}};
}

nlohmann::json final_state_json(const World& world) {
  nlohmann::json bodies = nlohmann::json::array();
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyState b = world.body(i);
    bodies.push_back({{"name", b.name},
                      {"position", vec(b.position)},
                      {"orientation", quat(b.orientation)},
                      {"velocity", vec(b.velocity)},
                      {"angular_velocity", vec(b.angular_velocity)}});
  }
  nlohmann::json soft = nlohmann::json::array();
  for (int i = 0; i < world.soft_body_count(); ++i) {
    const SoftBody& b = world.soft_body(i);
    soft.push_back({{"name", b.name},
                    {"centroid", vec(soft_centroid(b))},
                    {"volume", soft_volume(b)},
                    {"rest_volume", b.total_rest_volume},
                    {"min_tet_volume", soft_min_tet_volume(b)},
                    {"vertex_count", b.vertex_count()}});
  }
  return {{"time", world.time()}, {"bodies", bodies}, {"soft_bodies", soft}};
}

nlohmann::json frame_json(const World& world) {
  nlohmann::json bodies = nlohmann::json::array();
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyState b = world.body(i);
    bodies.push_back({vec(b.position), quat(b.orientation)});
  }
  // soft bodies: every vertex position, flattened [x0, y0, z0, x1, ...] (the mesh is in the scene)
  nlohmann::json soft = nlohmann::json::array();
  for (int i = 0; i < world.soft_body_count(); ++i) {
    nlohmann::json xs = nlohmann::json::array();
    for (const Vec3& x : world.soft_body(i).x) {
      xs.push_back(x.x());
      xs.push_back(x.y());
      xs.push_back(x.z());
    }
    soft.push_back(std::move(xs));
  }
  return {{"step", world.step_count()}, {"time", world.time()}, {"bodies", bodies}, {"soft_bodies", soft}};
}

RunOutput::RunOutput(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir_.string() + ": " + ec.message());
  stats_ = open_or_throw(dir_ / "stats.jsonl.tmp");
  frames_ = open_or_throw(dir_ / "frames.jsonl.tmp");
}

void RunOutput::write_step(const World& world) {
  stats_ << stats_json(world.last_stats()).dump() << '\n';
  if (world.step_count() % world.scene().output_every == 0) frames_ << frame_json(world).dump() << '\n';
}

void RunOutput::finish(const World& world) {
  stats_.close();
  frames_.close();
  {
    std::ofstream f = open_or_throw(dir_ / "final_state.json.tmp");
    f << final_state_json(world).dump(2) << '\n';
  }
  for (const char* name : {"stats.jsonl", "frames.jsonl", "final_state.json"})
    std::filesystem::rename(dir_ / (std::string(name) + ".tmp"), dir_ / name);
}

}  // namespace coulomb
