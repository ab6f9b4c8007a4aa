// A batch of independent worlds of one scene, stepped together on a thread pool: for learning
// and sampling, where one program drives many copies of a model (python/README.md "Batches").
//
//   coulomb::WorldBatch batch(coulomb::load_scene("scenes/cartpole.json"), 256, /*threads*/ 2);
//   for (int i = 0; i < batch.size(); ++i) batch.world(i).set_command(0, u[i]);
//   const std::vector<coulomb::StepResult>& r = batch.step();   // every world, one step
//   batch.reset({3, 17});                                       // back to the start
//
// Each world runs on one thread at a time and its own single-thread arena, and the batch hands
// whole worlds to its threads, so world i of a batch computes, bit for bit, what a separate
// World of the same scene computes, on any thread count (tests/engine/batch_test.cpp).
#pragma once
#include <coulomb/world.h>

#include <memory>
#include <vector>

namespace coulomb {

class WorldBatch {
 public:
  // `count` copies of `scene` (each World built with `settings`, whose thread count must be 1),
  // stepped on `threads` threads (0 = all cores). Throws InputError for a count < 1, a thread
  // count out of [0, WorldSettings::kMaxThreads], or a scene a World refuses.
  WorldBatch(const SceneDef& scene, int count, int threads = 1, WorldSettings settings = {});
  ~WorldBatch();
  WorldBatch(WorldBatch&&) noexcept;
  WorldBatch& operator=(WorldBatch&&) noexcept;

  int size() const { return int(worlds_.size()); }
  int threads() const { return threads_; }
  World& world(int i);  // std::out_of_range outside 0..size()-1
  const World& world(int i) const;

  // One step of every world, in parallel; the results, one per world. A world whose step failed
  // stops (World::step) until it is reset or given a state; the others go on.
  const std::vector<StepResult>& step();
  const std::vector<StepResult>& last_results() const { return results_; }

  // The state each world was built with (the scene's start), and resets to it or to a given state.
  const State& initial_state() const { return initial_; }
  void reset(const std::vector<int>& worlds);  // to initial_state()
  void reset(const std::vector<int>& worlds, const State& s);
  void reset_all();

 private:
  void check(int i) const;
  std::vector<World> worlds_;
  std::vector<StepResult> results_;
  State initial_;
  int threads_ = 1;
  struct Pool;  // the task arena (batch.cpp)
  std::unique_ptr<Pool> pool_;
};

}  // namespace coulomb
