#include <coulomb/output.h>

#include <stdexcept>

namespace coulomb {

namespace {

nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
nlohmann::json quat(const Quat& q) { return {q.w(), q.x(), q.y(), q.z()}; }

}  // namespace

nlohmann::json stats_json(const StepStats& s) {
  nlohmann::json health = nlohmann::json::array();  // empty: the step passed its health check
  for (const HealthFinding& f : s.health)
    health.push_back({{"check", f.check}, {"subject", f.subject}, {"value", f.value}, {"limit", f.limit}, {"message", f.message}});
  return {{"step", s.step},
          {"time", s.time},
          {"bodies", s.bodies},
          {"contacts", s.contacts},
          {"pairs", s.pairs},
          {"islands", s.islands},
          {"largest_island", s.largest_island},
          {"largest_island_bodies", s.largest_island_bodies},
          {"sleeping", s.sleeping},
          {"iterations", s.solver.iterations},
          {"linear_iterations", s.solver.linear_iterations},
          {"residual", s.solver.residual},
          {"merit", s.solver.merit},
          {"converged", s.solver.converged},
          {"health", std::move(health)},
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
          {"integrate_ms", s.integrate_ms},
          {"stabilize_ms", s.stabilize_ms}};
}

nlohmann::json final_state_json(const World& world) {
  nlohmann::json bodies = nlohmann::json::array();
  for (const int i : world.scene_order()) {  // the scene's order, whatever the ids (World::scene_order)
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

namespace {

// points flattened [x0, y0, z0, x1, ...]
nlohmann::json flat(const std::vector<Vec3>& vs) {
  nlohmann::json a = nlohmann::json::array();
  for (const Vec3& v : vs) a.insert(a.end(), {v.x(), v.y(), v.z()});
  return a;
}

// One shape in its own frame: the analytic parameters of primitives, the hull of a convex shape
// (vertices and counter-clockwise face loops), the triangles of a mesh, a compound's children.
nlohmann::json shape_json(const Shape& s) {
  nlohmann::json j = {{"name", s.name}, {"type", shape_type_name(s.type)}};
  switch (s.type) {
    case ShapeType::Sphere: j["radius"] = s.radius; break;
    case ShapeType::Box: j["half_extents"] = vec(s.half_extents); break;
    case ShapeType::Capsule:
    case ShapeType::Cylinder:
      j["radius"] = s.radius;
      j["half_height"] = s.half_height;
      break;
    case ShapeType::Plane:
      j["normal"] = vec(s.normal);
      j["offset"] = s.offset;
      break;
    case ShapeType::Convex:
      j["vertices"] = flat(s.hull.vertices);
      j["faces"] = s.hull.faces;
      break;
    case ShapeType::Compound: {
      nlohmann::json children = nlohmann::json::array();
      for (const CompoundChild& c : s.children)
        children.push_back({{"shape", c.shape}, {"position", vec(c.pose.p)}, {"orientation", quat(c.pose.q)}});
      j["children"] = std::move(children);
      break;
    }
    case ShapeType::Mesh: {
      j["vertices"] = flat(s.mesh->vertices);
      nlohmann::json tris = nlohmann::json::array();
      for (const auto& t : s.mesh->triangles) tris.insert(tris.end(), {t[0], t[1], t[2]});
      j["triangles"] = std::move(tris);
      j["closed"] = s.mesh->closed;
      break;
    }
  }
  return j;
}

// a visual mesh as geometry.json's mesh shape: any triangle soup, drawn two-sided
nlohmann::json visual_mesh_json(const TriangleMesh& m) {
  nlohmann::json tris = nlohmann::json::array();
  for (const auto& t : m.triangles) tris.insert(tris.end(), {t[0], t[1], t[2]});
  return {{"type", "mesh"}, {"vertices", flat(m.vertices)}, {"triangles", std::move(tris)}, {"closed", false}};
}

}  // namespace

nlohmann::json geometry_json(const World& world) {
  const SceneDef& scene = world.scene();
  nlohmann::json shapes = nlohmann::json::array();
  for (const Shape& s : scene.shapes.shapes) shapes.push_back(shape_json(s));
  nlohmann::json materials = nlohmann::json::array();
  for (const MaterialDef& m : scene.materials) materials.push_back(m.name);
  nlohmann::json bodies = nlohmann::json::array();
  for (const int i : world.scene_order()) {
    const BodyState b = world.body(i);
    const int shape = world.model().shape[std::size_t(i)];
    nlohmann::json body = {{"name", b.name},
                           {"shape", shape >= 0 ? nlohmann::json(shape) : nlohmann::json(nullptr)},  // null: no shape
                           {"material", world.model().material[std::size_t(i)]},
                           {"fixed", b.fixed},
                           {"mass", b.mass}};
    // visual shapes (BodyDef::visuals; the World's scene lists bodies by id), in the shape frame;
    // a visual mesh is a shape of its own after the scene's
    if (!scene.bodies[std::size_t(i)].visuals.empty()) {
      nlohmann::json visuals = nlohmann::json::array();
      for (const VisualDef& v : scene.bodies[std::size_t(i)].visuals) {
        const std::size_t shape = v.mesh ? shapes.size() : std::size_t(v.shape);
        if (v.mesh) shapes.push_back(visual_mesh_json(*v.mesh));
        nlohmann::json item = {{"shape", shape}, {"position", vec(v.position)}, {"orientation", quat(v.orientation)}};
        if (v.color) item["color"] = *v.color;
        visuals.push_back(std::move(item));
      }
      body["visual"] = std::move(visuals);
    }
    bodies.push_back(std::move(body));
  }
  nlohmann::json soft = nlohmann::json::array();
  for (int i = 0; i < world.soft_body_count(); ++i) {
    const SoftBody& b = world.soft_body(i);
    nlohmann::json faces = nlohmann::json::array();
    for (const auto& f : b.faces) faces.insert(faces.end(), {f[0], f[1], f[2]});
    soft.push_back({{"name", b.name},
                    {"material", b.material},
                    {"vertex_count", b.vertex_count()},
                    {"tet_count", b.mesh.tets.size()},
                    {"faces", std::move(faces)}});
  }
  // rigid joints: each side's anchor in that body's shape frame (in the world for b = -1), from
  // the load-time poses the scene gave the anchors in
  nlohmann::json joints = nlohmann::json::array();
  for (const JointDef& j : scene.joints) {
    auto local = [&](int body) {
      if (body < 0) return vec(j.anchor);
      const BodyDef& d = scene.bodies[std::size_t(body)];
      return vec(Pose{d.position, d.orientation.normalized()}.apply_inverse(j.anchor));
    };
    const auto listed = [&](int body) { return body < 0 ? body : world.scene_index(body); };  // as `bodies` lists them
    joints.push_back({{"name", j.name}, {"type", joint_type_name(j.type)}, {"a", listed(j.a)}, {"b", listed(j.b)},
                      {"anchor_a", local(j.a)}, {"anchor_b", local(j.b)}});
  }
  return {{"format", "coulomb-geometry/1"},
          {"scene",
           {{"name", scene.name},
            {"description", scene.description},
            {"dt", scene.dt},
            {"steps", scene.steps},
            {"output_every", scene.output_every},
            {"output_contacts", scene.output_contacts},
            {"gravity", vec(scene.gravity)},
            {"solver", scene.solver},
            {"integrator", integrator_name(scene.integrator)}}},
          {"materials", std::move(materials)},
          {"shapes", std::move(shapes)},
          {"bodies", std::move(bodies)},
          {"soft_bodies", std::move(soft)},
          {"joints", std::move(joints)},
          {"initial", frame_json(world)}};
}

nlohmann::json frame_json(const World& world) {
  nlohmann::json bodies = nlohmann::json::array();
  for (const int i : world.scene_order()) {
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
  nlohmann::json frame = {{"step", world.step_count()}, {"time", world.time()}, {"bodies", bodies}, {"soft_bodies", soft}};
  // contacts of the step that led here, flattened [px, py, pz, nx, ny, nz, ...]: the point and
  // the unit normal from side a to side b (a soft contact's point is midway between its sides)
  if (world.scene().output_contacts) {
    nlohmann::json c = nlohmann::json::array();
    auto add = [&](const Vec3& p, const Vec3& n) { c.insert(c.end(), {p.x(), p.y(), p.z(), n.x(), n.y(), n.z()}); };
    for (const Contact& k : world.contacts()) add(k.point, k.normal);
    for (const SoftContact& k : world.soft_contacts()) add(0.5 * (k.a.point + k.b.point), k.normal);
    frame["contacts"] = std::move(c);
  }
  return frame;
}

RunOutput::RunOutput(std::filesystem::path dir, const World& world, const std::string& run_id)
    : dir_(std::move(dir)), run_id_(run_id) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw OutputError("cannot create output folder " + dir_.string() + ": " + ec.message());
  OutputFile g = OutputFile::create(part("geometry.json"));
  g.write(geometry_json(world).dump());
  g.write("\n");
  g.close();
  stats_ = OutputFile::create(part("stats.jsonl"));
  frames_ = OutputFile::create(part("frames.jsonl"));
}

RunOutput::RunOutput(std::filesystem::path dir, const std::string& run_id, const OutputSizes& sizes)
    : dir_(std::move(dir)), run_id_(run_id) {
  if (!std::filesystem::is_regular_file(part("geometry.json")))
    throw OutputError("cannot resume: " + part("geometry.json").string() + " is missing");
  stats_ = OutputFile::append_at(part("stats.jsonl"), sizes.stats);
  frames_ = OutputFile::append_at(part("frames.jsonl"), sizes.frames);
}

std::filesystem::path RunOutput::part(const char* name) const { return dir_ / (std::string(name) + "." + run_id_ + ".part"); }

std::vector<std::string> RunOutput::partial_names(const std::string& run_id) {
  std::vector<std::string> out;
  for (const char* name : {"geometry.json", "stats.jsonl", "frames.jsonl", "final_state.json"})
    out.push_back(std::string(name) + "." + run_id + ".part");
  return out;
}

void RunOutput::write_step(const World& world) {
  stats_.write(stats_json(world.last_stats()).dump());
  stats_.write("\n");
  if (world.step_count() % world.scene().output_every == 0) {
    frames_.write(frame_json(world).dump());
    frames_.write("\n");
  }
}

OutputSizes RunOutput::sync() {
  stats_.sync();
  frames_.sync();
  return {stats_.size(), frames_.size()};
}

void RunOutput::finish(const World& world) {
  stats_.close();
  frames_.close();
  OutputFile f = OutputFile::create(part("final_state.json"));
  f.write(final_state_json(world).dump(2));
  f.write("\n");
  f.close();
  // every file is complete and on disk: only now replace the older results
  for (const char* name : {"stats.jsonl", "frames.jsonl", "geometry.json", "final_state.json"}) {
    std::error_code ec;
    std::filesystem::rename(part(name), dir_ / name, ec);
    if (ec) throw OutputError("cannot rename " + part(name).string() + " to " + (dir_ / name).string() + ": " + ec.message());
  }
}

void RunOutput::discard() {
  stats_ = OutputFile();
  frames_ = OutputFile();
  for (const std::string& name : partial_names(run_id_)) {
    std::error_code ignored;
    std::filesystem::remove(dir_ / name, ignored);
  }
}

}  // namespace coulomb
