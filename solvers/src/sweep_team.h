// A team of threads for the colour stages of one Gauss-Seidel solve (issue 12; the idea of
// Box2D v3's solver stages, src/solver.c: b2ExecuteMainStage / b2ExecuteStage).
//
// The calling thread drives. Each run() publishes one stage, a range cut into blocks, which every
// member (the caller is member 0) claims from one atomic claim word, a share of what is left at a
// time (take_blocks); run() returns when the members' counts of blocks done add up to all. The helpers live for the whole solve and spin
// between stages, so a stage costs a store, a few cache-line transfers and a wait, where a
// tbb::parallel_for per colour cost a task spawn and a join each time (measured 1.03-1.27x on
// 2 threads with it). No stage ever waits for a particular thread: a helper that gets no core
// (a loaded machine, a nested parallel region) leaves its blocks to the caller, so a team never
// deadlocks and never needs its helpers to start at all.
//
// Even members take blocks from the front of a stage, odd ones from the back, like Box2D's
// per-worker start index: the colours of a sweep list their contacts in index order, which
// follows the bodies, so the caller keeps working on the low bodies and the first helper on the
// high ones from colour to colour, and their velocities stay in each core's cache.
//
// Which member runs a block is left to chance; what a block does must not depend on it beyond
// order-free reductions (maxima), so that a solve is the same bit for bit on any thread count.
// A block must not throw: a helper's block that never counts done would keep the caller waiting
// (the sweeps and passes run here allocate nothing and throw nothing).
#pragma once
#include <coulomb/contact_coloring.h>
#include <coulomb/merit.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace coulomb::detail {

// contacts per block of a colour stage of a sweep (~0.5 us of work; 8 against 32 gave 2-8% less
// 2-thread solve time on the Wall and spheres.json, within noise on 1 thread)
inline constexpr int kTeamSweepBlock = 8;
// contacts per block of a pass over all contacts (velocities, merit terms, r-factors)
inline constexpr int kTeamPassBlock = 256;

// one member's accumulator on a cache line of its own
template <class T>
struct alignas(64) Padded {
  T value{};
};

class SweepTeam {
 public:
  // threads: members including the caller (< 2: run() does all in the caller, no helper starts)
  // The helpers are tasks of the caller's TBB arena (World's --threads arena): a nested arena
  // of its own made a worker move over for every solve, which took from nothing to milliseconds
  // (measured: spheres 2-thread solves of 2.4 to 3.7 ms in three runs).
  explicit SweepTeam(int threads) : threads_(threads < 1 ? 1 : threads) {
    for (int m = 1; m < threads_; ++m) helpers_.run([this, m] { member_loop(m); });
  }
  ~SweepTeam() { finish(); }
  SweepTeam(const SweepTeam&) = delete;
  SweepTeam& operator=(const SweepTeam&) = delete;

  int size() const { return threads_; }

  // Sends the helpers home (they stop spinning); run() then works in the caller alone.
  void finish() {
    if (threads_ < 2 || quit_.exchange(true, std::memory_order_acq_rel)) return;
    helpers_.wait();  // a helper that never started returns at once
  }

  // f(begin, end, member) over [begin, end) in blocks of about `block` items, on every member;
  // returns when all blocks are done. A range of fewer than two blocks runs in the caller alone.
  template <class F>
  void run(int begin, int end, int block, F& f) {
    block = std::max({1, block, (end - begin + kMaxBlocks - 1) / kMaxBlocks});
    const int blocks = end > begin ? (end - begin + block - 1) / block : 0;
    if (threads_ < 2 || blocks < 2 || quit_.load(std::memory_order_relaxed)) {
      if (end > begin) f(begin, end, 0);
      return;
    }
    // the stage's parameters, then the release that publishes them (helpers acquire the claim)
    begin_.store(begin, std::memory_order_relaxed);
    end_.store(end, std::memory_order_relaxed);
    block_.store(block, std::memory_order_relaxed);
    ctx_.store(&f, std::memory_order_relaxed);
    fn_.store(&trampoline<F>, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    ++stage_;
    claim_.store(pack(stage_, 0, std::uint32_t(blocks)), std::memory_order_release);
    take_blocks(stage_, 0);
    for (unsigned spins = 0; done_.load(std::memory_order_acquire) < blocks; ++spins) relax(spins);
  }

 private:
  using Fn = void (*)(void*, int, int, int);
  static constexpr int kMaxBlocks = 0xffff;  // a claim word holds 16-bit block indices

  template <class F>
  static void trampoline(void* ctx, int begin, int end, int member) {
    (*static_cast<F*>(ctx))(begin, end, member);
  }

  // claim word: stage (32 bits) | first unclaimed block (16) | one past the last unclaimed (16)
  static std::uint64_t pack(std::uint32_t stage, std::uint32_t front, std::uint32_t back) {
    return std::uint64_t(stage) << 32 | std::uint64_t(front) << 16 | back;
  }

  static void relax(unsigned spins) {
#if defined(__x86_64__) || defined(__i386__)
    if (spins < 4096) {
      __builtin_ia32_pause();
      return;
    }
#endif
    std::this_thread::yield();  // a long wait: give the core to whoever holds the work
  }

  // Claims blocks of `stage` (from the front for even members, the back for odd ones) until none
  // is left. A claim takes 1/threads of what is left (guided self-scheduling, Polychronopoulos &
  // Kuck 1987): a stage of 16 blocks on 2 threads costs about 5 claims instead of 16, and every
  // claim moves the claim word's cache line between cores (~100 ns here). The member counts its
  // blocks done once, when it finds none left. A compare-exchange that still finds `stage` in the
  // claim word owns its blocks, and the caller cannot publish the next stage (nor change the
  // parameters read here) before they are counted done.
  void take_blocks(std::uint32_t stage, int member) {
    const bool from_back = member % 2 == 1;
    int taken = 0;
    std::uint64_t v = claim_.load(std::memory_order_acquire);
    for (;;) {
      if (std::uint32_t(v >> 32) != stage) break;
      const std::uint32_t front = std::uint32_t(v >> 16) & 0xffffu, back = std::uint32_t(v) & 0xffffu;
      if (front >= back) break;
      const std::uint32_t n = std::max<std::uint32_t>(1, (back - front) / std::uint32_t(threads_));
      const std::uint32_t first_block = from_back ? back - n : front;
      const std::uint64_t next = from_back ? pack(stage, front, back - n) : pack(stage, front + n, back);
      if (!claim_.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      const int begin = begin_.load(std::memory_order_relaxed), block = block_.load(std::memory_order_relaxed);
      const int end = end_.load(std::memory_order_relaxed);
      const Fn fn = fn_.load(std::memory_order_relaxed);
      void* const ctx = ctx_.load(std::memory_order_relaxed);
      // one block at a time, in the member's direction, as single-block claims would run them
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t b = from_back ? first_block + n - 1 - i : first_block + i;
        const int first = begin + int(b) * block;
        fn(ctx, first, std::min(end, first + block), member);
      }
      taken += int(n);
      v = claim_.load(std::memory_order_acquire);
    }
    if (taken > 0) done_.fetch_add(taken, std::memory_order_release);
  }

  void member_loop(int member) {
    std::uint32_t seen = 0;
    for (;;) {
      std::uint64_t v = claim_.load(std::memory_order_acquire);
      for (unsigned spins = 0; std::uint32_t(v >> 32) == seen; ++spins) {
        if (quit_.load(std::memory_order_acquire)) return;
        relax(spins);
        v = claim_.load(std::memory_order_acquire);
      }
      seen = std::uint32_t(v >> 32);
      take_blocks(seen, member);
    }
  }

  const int threads_;
  std::uint32_t stage_ = 0;  // the caller's count of published stages
  alignas(64) std::atomic<std::uint64_t> claim_{0};
  alignas(64) std::atomic<int> done_{0};
  alignas(64) std::atomic<int> begin_{0}, end_{0}, block_{1};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<Fn> fn_{nullptr};
  std::atomic<bool> quit_{false};
  tbb::task_group helpers_;
};

// One Gauss-Seidel sweep colour by colour (contact_coloring.h): each colour is one stage of the
// team, cut into blocks of whole units of about kTeamSweepBlock contacts; the overflow group
// follows in the caller. visit(first, end, member) once per block, for the contacts
// c.order[first .. end): a block keeps its running maxima in registers and merges them once
// (kept in the member's slot for every contact, they cost the sphere pile a store and a reload
// per row on the maxima's dependency chain).
template <class Visit>
void colored_sweep(SweepTeam& team, const ContactColoring& c, Visit&& visit) {
  auto block = [&](int first_unit, int end_unit, int member) {
    visit(c.unit_start[std::size_t(first_unit)], c.unit_start[std::size_t(end_unit)], member);
  };
  const int units = c.units_for(kTeamSweepBlock);
  for (int g = 0; g < c.colors(); ++g) team.run(c.color_start[std::size_t(g)], c.color_start[std::size_t(g) + 1], units, block);
  block(c.color_start[std::size_t(c.colors())], c.color_start[std::size_t(c.colors()) + 1], 0);
}

// all_velocities (contact_operator.h) with the product on the team, for an operator whose w is
// already M^-1 J^T lambda (a solver whose sweeps kept it current, seed 000 eq. 26: no reset, a
// scatter into the bodies). Each v_k is computed alone: the same bits on any thread count.
template <class Op>
void team_velocities(SweepTeam& team, const Op& op, const std::vector<Vec4>& lambda, std::vector<Vec4>& v) {
  v.resize(std::size_t(op.size()));
  auto f = [&](int begin, int end, int) {
    for (int k = begin; k < end; ++k) v[std::size_t(k)] = op.velocity(k, lambda);
  };
  team.run(0, op.size(), kTeamPassBlock, f);
}

// fclib_merit_at (merit.h) with its terms on the team, summed in index order by the caller: the
// same bits as fclib_merit_at.
template <class Op>
double team_fclib_merit_at(SweepTeam& team, const Op& op, const std::vector<Vec4>& lambda, const std::vector<Vec4>& v,
                           std::vector<double>& term) {
  term.resize(std::size_t(op.size()));
  auto f = [&](int begin, int end, int) {
    for (int k = begin; k < end; ++k) {
      const auto i = std::size_t(k);
      term[i] = natural_map_term(lambda[i].head<3>(), v[i].head<3>(), op.mu(k)[0]);
    }
  };
  team.run(0, op.size(), kTeamPassBlock, f);
  return fclib_merit_of_terms(op, [&](int k) { return term[std::size_t(k)]; });
}

}  // namespace coulomb::detail
