// WorldBatch (coulomb/batch.h): a batch computes, bit for bit, what separate worlds compute, on 1
// and 2 threads, and resets a subset to the start.
#include <coulomb/batch.h>
#include <coulomb/error.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace coulomb;

namespace batch_test {

namespace {

SceneDef cartpole() { return load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/cartpole.json"); }

// a command that differs per world and per step
double command(int world, int step) { return 15.0 * std::sin(0.37 * world + 0.05 * step); }

bool same_bits(const RigidState& a, const RigidState& b) {
  const auto eq = [](const auto& x, const auto& y) { return std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0; };
  return a.x.size() == b.x.size() && eq(a.x, b.x) && eq(a.q, b.q) && eq(a.v, b.v) && eq(a.w, b.w);
}

}  // namespace

TEST(WorldBatch, EqualsSeparateWorldsBitForBitOnOneAndTwoThreads) {
  const SceneDef scene = cartpole();
  const int n = 6, steps = 150;
  std::vector<World> separate;
  for (int i = 0; i < n; ++i) separate.emplace_back(scene);
  for (int s = 0; s < steps; ++s)
    for (int i = 0; i < n; ++i) {
      separate[std::size_t(i)].set_command(0, command(i, s));
      ASSERT_TRUE(separate[std::size_t(i)].step().ok());
    }
  for (const int threads : {1, 2}) {
    WorldBatch batch(scene, n, threads);
    for (int s = 0; s < steps; ++s) {
      for (int i = 0; i < n; ++i) batch.world(i).set_command(0, command(i, s));
      for (const StepResult& r : batch.step()) ASSERT_TRUE(r.ok()) << r.message;
    }
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(same_bits(batch.world(i).rigid_state(), separate[std::size_t(i)].rigid_state()))
          << "world " << i << ", " << threads << " threads";
      EXPECT_EQ(batch.world(i).joint_states()[1].position, separate[std::size_t(i)].joint_states()[1].position);
    }
  }
}

TEST(WorldBatch, ResetRestoresTheStartForASubset) {
  WorldBatch batch(cartpole(), 3, 2);
  for (int i = 0; i < 3; ++i) batch.world(i).set_command(0, 10.0);
  for (int s = 0; s < 20; ++s) batch.step();
  batch.reset({1});
  EXPECT_EQ(batch.world(1).step_count(), 0);
  EXPECT_TRUE(same_bits(batch.world(1).rigid_state(), batch.initial_state().rigid));
  EXPECT_EQ(batch.world(1).command(0), 0.0);  // the scene's command
  EXPECT_EQ(batch.world(0).step_count(), 20);
  EXPECT_THROW(batch.reset({3}), std::out_of_range);
  EXPECT_THROW(WorldBatch(cartpole(), 0), InputError);
  EXPECT_THROW(WorldBatch(cartpole(), 2, 100000), InputError);
}

}  // namespace batch_test
