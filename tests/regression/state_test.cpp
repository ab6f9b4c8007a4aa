// Replays from a State are bit-identical (DESIGN.md: a State can be copied out and restored
// bit-exactly). For each scene and thread count: run 100 steps, take world.state(), run 100
// more and record every step's impulses and the final state, set_state() back to the snapshot
// and run the same 100 steps again: both runs must agree to the last bit (doubles compared by
// their bytes). Anything a step kept
// outside the State (a cache, scratch reused across steps, solver or island data) would show
// up here as a difference.
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace state_test {

namespace {

const std::string kScenes = std::string(COULOMB_SOURCE_DIR) + "/scenes/";

struct Variant {
  std::string name;
  std::string scene;
  std::vector<std::string> overrides;
  int threads = 1;
  int steps = 100;  // before the snapshot, and after it
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// What one run of steps leaves behind: the final State and, per step, the solver's impulses
// and counts, as raw doubles so that the comparison is bitwise.
struct Trace {
  State final;
  std::vector<double> impulses;  // every step's contact, joint, element and attachment impulses
  std::vector<int> counts;       // every step's contacts, soft contacts and solver iterations
};

template <class V>
void append(std::vector<double>& out, const std::vector<V>& v) {
  for (const V& x : v) out.insert(out.end(), x.data(), x.data() + x.size());
}

Trace run(World& w, int steps) {
  Trace t;
  for (int i = 0; i < steps; ++i) {
    const StepResult r = w.step();
    EXPECT_TRUE(r.ok()) << r.message;
    if (!r.ok()) break;
    append(t.impulses, w.contact_impulses());
    t.impulses.insert(t.impulses.end(), w.joint_impulses().begin(), w.joint_impulses().end());
    const PositionProblem& p = w.last_position_problem();
    append(t.impulses, p.contact_impulse);
    append(t.impulses, p.element_impulse);
    append(t.impulses, p.attachment_impulse);
    append(t.impulses, p.joint_impulse);
    const StepStats& s = w.last_stats();
    t.counts.insert(t.counts.end(), {s.step, s.contacts, s.soft_contacts, s.solver.iterations});
  }
  t.final = w.state();
  return t;
}

template <class T>
bool same_bytes(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

void expect_same(const State& a, const State& b) {
  EXPECT_TRUE(same_bytes(a.rigid.x, b.rigid.x));
  EXPECT_TRUE(same_bytes(a.rigid.q, b.rigid.q));
  EXPECT_TRUE(same_bytes(a.rigid.v, b.rigid.v));
  EXPECT_TRUE(same_bytes(a.rigid.w, b.rigid.w));
  ASSERT_EQ(a.soft.size(), b.soft.size());
  for (std::size_t i = 0; i < a.soft.size(); ++i) {
    EXPECT_TRUE(same_bytes(a.soft[i].x, b.soft[i].x)) << "soft body " << i;
    EXPECT_TRUE(same_bytes(a.soft[i].v, b.soft[i].v)) << "soft body " << i;
  }
  EXPECT_TRUE(same_bytes(a.contact_cache, b.contact_cache));
  EXPECT_TRUE(same_bytes(a.joint_cache, b.joint_cache));
  EXPECT_TRUE(same_bytes(a.row_cache, b.row_cache));
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof(double)), 0);
}

class StateReplay : public ::testing::TestWithParam<Variant> {};

}  // namespace

TEST_P(StateReplay, IsBitIdentical) {
  const Variant& v = GetParam();
  const int kSteps = v.steps;
  WorldSettings ws;
  ws.threads = v.threads;
  World w(load_scene(kScenes + v.scene, v.overrides), ws);
  run(w, kSteps);
  const State snapshot = w.state();
  ASSERT_EQ(snapshot.step, kSteps);
  const Trace first = run(w, kSteps);
  ASSERT_EQ(first.final.step, 2 * kSteps);

  w.set_state(snapshot);
  const Trace again = run(w, kSteps);
  expect_same(first.final, again.final);
  EXPECT_EQ(first.counts, again.counts);
  EXPECT_FALSE(first.impulses.empty());  // the replay covers steps with contacts or joints
  EXPECT_TRUE(same_bytes(first.impulses, again.impulses)) << first.impulses.size() << " vs " << again.impulses.size();
}

// The Wall (81 boxes, one island) with prox-gs and pgs, and with post-stabilisation (its own
// detection and PGS solve per step); the soft ball (xpbd-jacobi) falls for the first 100 steps
// and hits the ground in the replayed ones; the soft stack has soft-soft and soft-rigid contacts
// from the start (30 + 30 steps: its 40 Jacobi sweeps over both cubes make it the slowest); the
// pendulums hang from a ball joint and a hinge (joint warm-start cache; no contacts); newton-pcr
// warm-starts from State::contact_cache and State::row_cache: the door's hinge and its limit,
// and the soft grasp's jaws (joints and drives), ball (elements) and their contacts.
INSTANTIATE_TEST_SUITE_P(
    Scenes, StateReplay,
    ::testing::Values(Variant{"wall_prox_gs_1", "wall.json", {}, 1}, Variant{"wall_prox_gs_2", "wall.json", {}, 2},
                      Variant{"wall_pgs_1", "wall.json", {"/solver/type=\"pgs\""}, 1},
                      Variant{"wall_pgs_2", "wall.json", {"/solver/type=\"pgs\""}, 2},
                      Variant{"wall_post_2", "wall.json", {"/stabilization={\"type\": \"post\"}"}, 2},
                      Variant{"soft_ball_1", "soft_ball_drop.json", {}, 1},
                      Variant{"soft_ball_2", "soft_ball_drop.json", {}, 2},
                      Variant{"soft_stack_2", "soft_stack.json", {}, 2, 30},
                      Variant{"pendulum_prox_gs_2", "pendulum.json", {}, 2},
                      Variant{"pendulum_xpbd_1", "pendulum.json", {"/solver={\"type\": \"xpbd-jacobi\"}"}, 1},
                      Variant{"door_newton_1", "door.json", {"/solver={\"type\": \"newton-pcr\"}"}, 1},
                      Variant{"soft_grasp_newton_1", "soft_grasp.json", {}, 1, 15}),
    [](const ::testing::TestParamInfo<Variant>& info) { return info.param.name; });

}  // namespace state_test
