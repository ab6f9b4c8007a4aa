// WorldBatch: independent worlds stepped in parallel, one task per world (coulomb/batch.h).
#include <coulomb/batch.h>
#include <coulomb/error.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <stdexcept>
#include <string>

namespace coulomb {

struct WorldBatch::Pool {
  tbb::task_arena arena;
  explicit Pool(int n) : arena(n > 0 ? n : tbb::task_arena::automatic) { arena.initialize(); }
};

WorldBatch::~WorldBatch() = default;
WorldBatch::WorldBatch(WorldBatch&&) noexcept = default;
WorldBatch& WorldBatch::operator=(WorldBatch&&) noexcept = default;

WorldBatch::WorldBatch(const SceneDef& scene, int count, int threads, WorldSettings settings) {
  if (count < 1) throw InputError("count", "a batch needs at least one world, got " + std::to_string(count));
  if (threads < 0 || threads > WorldSettings::kMaxThreads)
    throw InputError("threads", "expected a thread count in [0, " + std::to_string(WorldSettings::kMaxThreads) + "] (0 = all cores), got " +
                                    std::to_string(threads));
  if (settings.threads != 1)
    throw InputError("threads", "each world of a batch runs on one thread; the batch's own thread count spreads them");
  worlds_.reserve(std::size_t(count));
  for (int i = 0; i < count; ++i) worlds_.emplace_back(scene, settings);
  initial_ = worlds_.front().state();
  results_.assign(std::size_t(count), StepResult{});
  pool_ = std::make_unique<Pool>(threads);
  threads_ = pool_->arena.max_concurrency();
}

void WorldBatch::check(int i) const {
  if (i < 0 || i >= size())
    throw std::out_of_range("WorldBatch: world " + std::to_string(i) + " is out of range (valid: 0.." + std::to_string(size() - 1) + ")");
}

World& WorldBatch::world(int i) {
  check(i);
  return worlds_[std::size_t(i)];
}

const World& WorldBatch::world(int i) const {
  check(i);
  return worlds_[std::size_t(i)];
}

const std::vector<StepResult>& WorldBatch::step() {
  // one world per task: a world's step is the same sequence of operations wherever it runs
  pool_->arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int>(0, size(), 1), [&](const tbb::blocked_range<int>& r) {
      for (int i = r.begin(); i < r.end(); ++i) results_[std::size_t(i)] = worlds_[std::size_t(i)].step();
    });
  });
  return results_;
}

void WorldBatch::reset(const std::vector<int>& worlds) { reset(worlds, initial_); }

void WorldBatch::reset(const std::vector<int>& worlds, const State& s) {
  for (int i : worlds) check(i);
  for (int i : worlds) {
    worlds_[std::size_t(i)].set_state(s);  // InputError for a State of another scene, before any change
    results_[std::size_t(i)] = StepResult{};
  }
}

void WorldBatch::reset_all() {
  for (int i = 0; i < size(); ++i) {
    worlds_[std::size_t(i)].set_state(initial_);
    results_[std::size_t(i)] = StepResult{};
  }
}

}  // namespace coulomb
