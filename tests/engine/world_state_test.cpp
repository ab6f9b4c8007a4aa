// The World's State and its boundaries: state()/set_state() round trips and rejects a State of
// another world without changing anything; body and soft body ids are checked where they enter
// the API; step() turns anything thrown inside the stages into Status::Error and stops.
// (Bit-identical replays of whole scenes: tests/regression/state_test.cpp.)
#include <coulomb/error.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <tbb/parallel_for.h>

#include <cstring>
#include <new>
#include <stdexcept>

#include "world_test_access.h"

using namespace coulomb;

namespace {

const std::string kScenes = std::string(COULOMB_SOURCE_DIR) + "/scenes/";

template <class T>
bool same_bytes(const std::vector<T>& x, const std::vector<T>& y) {
  // (memcmp on an empty vector's null data() is undefined, UBSan reports it)
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

bool same_bytes(const State& a, const State& b) {
  bool same = same_bytes(a.rigid.x, b.rigid.x) && same_bytes(a.rigid.q, b.rigid.q) && same_bytes(a.rigid.v, b.rigid.v) &&
              same_bytes(a.rigid.w, b.rigid.w) && same_bytes(a.contact_cache, b.contact_cache) &&
              same_bytes(a.joint_cache, b.joint_cache) && same_bytes(a.row_cache, b.row_cache) &&
              a.soft.size() == b.soft.size() && a.step == b.step && std::memcmp(&a.time, &b.time, sizeof(double)) == 0;
  for (std::size_t i = 0; same && i < a.soft.size(); ++i)
    same = same_bytes(a.soft[i].x, b.soft[i].x) && same_bytes(a.soft[i].v, b.soft[i].v);
  return same;
}

// soft_stack: 3 rigid bodies (ground and two cubes) and 2 soft cubes, xpbd-jacobi
World soft_stack(int threads = 1) {
  WorldSettings ws;
  ws.threads = threads;
  return World(load_scene(kScenes + "soft_stack.json", {"/time={\"dt\": 0.005, \"steps\": 20}"}), ws);
}

World sliding_box() { return World(load_scene(kScenes + "sliding_box.json")); }

// the message of the std::out_of_range that f throws ("" if it throws none)
template <class F>
std::string out_of_range_message(F&& f) {
  try {
    f();
  } catch (const std::out_of_range& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(WorldState, RoundTripWithoutStepsChangesNothing) {
  World w = soft_stack();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(w.step().ok());
  const State s = w.state();
  EXPECT_EQ(s.step, 5);
  EXPECT_EQ(s.rigid.x.size(), std::size_t(w.body_count()));
  ASSERT_EQ(s.soft.size(), 2u);
  EXPECT_EQ(s.soft[1].x.size(), std::size_t(w.soft_body(1).vertex_count()));
  w.set_state(s);
  EXPECT_TRUE(same_bytes(w.state(), s));
  EXPECT_EQ(w.step_count(), 5);
  EXPECT_EQ(w.time(), s.time);
  // the last step's outputs are cleared: they belonged to the step before the restore
  EXPECT_EQ(w.last_stats().step, 0);
  EXPECT_TRUE(w.contacts().empty());
  EXPECT_TRUE(w.soft_contacts().empty());
}

TEST(WorldState, TheRigidStateIsTheStatesRigidPart) {
  World w = sliding_box();
  ASSERT_TRUE(w.step().ok());
  EXPECT_TRUE(same_bytes(w.rigid_state().x, w.state().rigid.x));
  EXPECT_TRUE(same_bytes(w.rigid_state().q, w.state().rigid.q));
  EXPECT_FALSE(w.state().contact_cache.empty());  // the box rests on the plane: warm-start impulses
}

TEST(WorldState, AStateOfAnotherWorldIsRejectedAndChangesNothing) {
  World w = soft_stack();
  ASSERT_TRUE(w.step().ok());
  const State before = w.state();
  const State other = sliding_box().state();
  const auto expect_rejected = [&](const State& s, const std::string& fragment) {
    try {
      w.set_state(s);
      ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), fragment)) << e.what();
    }
    EXPECT_TRUE(same_bytes(w.state(), before));
  };
  expect_rejected(other, "rigid.x has 2 entries, this world has 3");

  State s = before;
  s.rigid.w.pop_back();
  expect_rejected(s, "rigid.w");
  s = before;
  s.soft.pop_back();
  expect_rejected(s, "soft has 1 entries, this world has 2");
  s = before;
  s.soft[1].v.push_back(Vec3::Zero());
  expect_rejected(s, "soft[1] ('soft_2').v");
  s = before;
  s.contact_cache.push_back({0, 7, Vec3::Zero(), Vec3::Zero(), Vec3::Zero()});
  expect_rejected(s, "refers to bodies 0 and 7");
  s = before;
  s.contact_cache = {{1, 2, Vec3::Zero(), Vec3::Zero(), Vec3::Zero()}, {0, 1, Vec3::Zero(), Vec3::Zero(), Vec3::Zero()}};
  expect_rejected(s, "not sorted");
  s = before;
  s.joint_cache = {0.0, 1.0};
  expect_rejected(s, "this world has no joints");
  s = before;
  s.step = -1;
  expect_rejected(s, "step must be >= 0");
  // and the world still steps on from where it was
  EXPECT_TRUE(w.step().ok());
  EXPECT_EQ(w.step_count(), 2);
}

TEST(WorldHandles, BodyIdsAreChecked) {
  World w = soft_stack();
  ASSERT_EQ(w.body_count(), 3);
  const std::string missing = out_of_range_message([&] { w.body(w.find_body("missing")); });
  EXPECT_TRUE(has(missing, "World::body: body id -1 is out of range (valid ids are 0..2")) << missing;
  EXPECT_TRUE(has(missing, "find_body")) << missing;
  EXPECT_TRUE(has(out_of_range_message([&] { w.body(3); }), "body id 3 is out of range (valid ids are 0..2)"));
  EXPECT_TRUE(has(out_of_range_message([&] { w.body(-7); }), "body id -7"));
  EXPECT_EQ(out_of_range_message([&] { w.body(2); }), "");
  EXPECT_EQ(w.body(w.find_body("rigid_2")).name, "rigid_2");

  ASSERT_EQ(w.soft_body_count(), 2);
  const std::string soft = out_of_range_message([&] { w.soft_body(w.find_soft_body("missing")); });
  EXPECT_TRUE(has(soft, "World::soft_body: soft body id -1 is out of range (valid ids are 0..1")) << soft;
  EXPECT_TRUE(has(soft, "find_soft_body")) << soft;
  EXPECT_TRUE(has(out_of_range_message([&] { w.soft_body(2); }), "soft body id 2"));
  EXPECT_EQ(w.soft_body(1).name, "soft_2");

  World rigid = sliding_box();
  EXPECT_TRUE(has(out_of_range_message([&] { rigid.soft_body(0); }), "soft body id 0 is out of range (the world has none)"));
}

TEST(WorldStep, AnExceptionInAStageBecomesAnErrorAndStopsTheWorld) {
  World w = sliding_box();
  ASSERT_TRUE(w.step().ok());
  ASSERT_TRUE(w.step().ok());
  const State good = w.state();
  WorldTestAccess::set_stage_fault(w, [](int step) {
    if (step == 3) throw std::bad_alloc();
  });
  StepResult r;
  EXPECT_NO_THROW(r = w.step());
  EXPECT_EQ(r.status, StepResult::Status::Error);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(has(r.message, "step 3: ")) << r.message;
  EXPECT_TRUE(has(r.message, "bad_alloc")) << r.message;
  EXPECT_EQ(w.step_count(), 2);

  // stopped: a further step returns the same failure and changes nothing
  WorldTestAccess::set_stage_fault(w, nullptr);
  const StepResult again = w.step();
  EXPECT_EQ(again.status, StepResult::Status::Error);
  EXPECT_EQ(again.message, r.message);
  EXPECT_EQ(w.step_count(), 2);

  // restoring a state clears the failure
  w.set_state(good);
  EXPECT_TRUE(w.step().ok());
  EXPECT_EQ(w.step_count(), 3);
}

TEST(WorldStep, ExceptionsFromWorkerThreadsAndOfAnyTypeAreCaught) {
  // thrown inside a parallel loop of the world's two-thread arena (rethrown by TBB)
  World w = soft_stack(2);
  WorldTestAccess::set_stage_fault(w, [](int step) {
    tbb::parallel_for(0, 64, [&](int i) {
      if (i == 37) throw std::runtime_error("a library failed at step " + std::to_string(step));
    });
  });
  const StepResult r = w.step();
  EXPECT_EQ(r.status, StepResult::Status::Error);
  EXPECT_EQ(r.message, "step 1: a library failed at step 1");

  World v = sliding_box();
  WorldTestAccess::set_stage_fault(v, [](int) { throw 42; });
  const StepResult s = v.step();
  EXPECT_EQ(s.status, StepResult::Status::Error);
  EXPECT_TRUE(has(s.message, "step 1: ")) << s.message;
  EXPECT_TRUE(has(s.message, "not a std::exception")) << s.message;
}

TEST(WorldStep, AnInvalidStateStopsTheWorldToo) {
  WorldSettings ws;
  ws.max_speed = 0.5;  // the sliding box starts faster than this
  World w(load_scene(kScenes + "sliding_box.json"), ws);
  const StepResult r = w.step();
  ASSERT_EQ(r.status, StepResult::Status::InvalidState);
  const int steps = w.step_count();
  const StepResult again = w.step();
  EXPECT_EQ(again.status, StepResult::Status::InvalidState);
  EXPECT_EQ(again.message, r.message);
  EXPECT_EQ(w.step_count(), steps);
}
