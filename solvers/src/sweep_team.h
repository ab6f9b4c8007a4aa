// A team of threads for the passes and colour stages of one Gauss-Seidel solve (the idea of
// Box2D v3's solver stages, src/solver.c: b2ExecuteMainStage / b2ExecuteStage); the sweep
// layer's coloured schedule (sweep.h) runs on it.
//
// The calling thread drives; the helpers live for the whole solve and spin between stages. A
// stage, run_phases(), is phases with a barrier between them, each member its own share of each
// (the colours of a sweep, colored_sweep below; a pass over all contacts is one phase,
// team_pass). One publication per stage, and a barrier is a store to the member's own cache line
// and a read of the others'. It waits for every member, so it runs only once every helper has
// started (assembled()); before that, and after finish(), the caller does the work alone.
//
// Which member runs what must not change what a share does beyond order-free reductions
// (maxima), so that a solve is the same bit for bit on any thread count. A share must not throw:
// a helper that never reaches its barrier would keep the caller waiting (the sweeps and passes
// run here allocate nothing and throw nothing).
//
// The stage's closures live on the caller's stack and every member reads them. The caller moves
// its stack pointer down by kStackGap before it works on a stage, so that its own frames (a
// sweep's running maxima, return addresses) never share a cache line with them: a helper's
// every read of a closure would otherwise pull the line back from the caller's core.
#pragma once
#include "thread_scratch.h"

#include <coulomb/contact_coloring.h>
#include <coulomb/merit.h>
#include <coulomb/sweep_plan.h>
#include <coulomb/timer.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace coulomb::detail {

// one member's accumulator on a cache line of its own
template <class T>
struct alignas(64) Padded {
  T value{};
};

// How colored_sweep shares the colours among the members. Member m
// sweeps units [unit(g, m), unit(g, m + 1)) of colour g. Chosen once per colouring, the first
// of these that fits:
//  - Self-synced with common cuts, when fewer than 1/4 of the units are dependent and the
//    waits cost little (modelled_span() at most kCommonSpan): every colour cut at the same
//    contact indices, member m taking the units that start in the m-th of equal slices of the
//    index range. A unit is dependent when one of its moving bodies was last written, earlier in
//    the sweep, by another member's run. A member sweeps its run's other units first and waits
//    only before its dependent ones, for the other members to finish the colours before
//    (SweepTeam::run_phases, self_synced). Each unit still follows every unit of an earlier
//    colour that it shares a body with, and precedes every later one, as in one thread's colour
//    order: the body's last writer was the member itself (program order; that member waited
//    before any dependent unit of its own), or another member, which the wait covers. The cuts
//    are common because contact indices follow the bodies: a member then keeps the same
//    contacts, and mostly the same bodies, in every colour, and their cache lines stay in its
//    core (cut at each colour's half, a band of units around the middle changes members).
//  - Self-synced with each colour cut at its half (equal contact counts), when that has fewer
//    than 1/4 of its units dependent.
//  - Barriers and balanced cuts otherwise: a barrier after each colour, and after each sweep the
//    cuts go halfway toward those that would have split each colour's measured time equally, the
//    time taken as spread evenly over each run's contacts (bodies numbered in generation order
//    rather than in space, engine/README.md "Body ids", make most units dependent).
// The 1/4 and kCommonSpan are the table's self_synced and common_span rows (sweep_plan.h).
// Neither changes what a sweep computes (a colour's units share no moving body), so a solve is
// the same bit for bit on any thread count and whatever the timings. The caller moves the cuts
// between sweeps; the members only read them, and each writes its own times.
class ColorSchedule {
 public:
  // A new solve: the next prepare() prepares whatever colouring it is given (one at the address
  // of an earlier one may be another; a team keeps its thread's schedule, SweepTeam).
  void forget() { coloring_ = nullptr; }
  // For colouring c on `members` members, before a sweep: equal contact counts and the
  // dependent units, the first time this colouring (a team serves one solve, and so one) is seen.
  void prepare(const ContactColoring& c, int members) {
    if (&c == coloring_ && c.units() == units_ && members == members_) return;
    coloring_ = &c;
    colors_ = c.colors();
    units_ = c.units();
    members_ = members;
    fraction_.assign(std::size_t(colors_) * std::size_t(members + 1), 0.0);
    for (int g = 0; g < colors_; ++g)
      for (int i = 0; i <= members; ++i) fraction_[index(g, i)] = double(i) / members;
    unit_.assign(fraction_.size(), 0);
    stride_ = (colors_ + 7) / 8 * 8;  // a member's times on cache lines of its own
    ticks_.assign(std::size_t(stride_) * std::size_t(members), 0);
    if (members > 1) {
      place_common(c);
      mark_dependent(c);
      if (self_synced_ && modelled_span(c) <= sweep_limits::kCommonSpan) return;
    }
    place(c);
    mark_dependent(c);
  }
  // Whether the sweeps wait per unit (self-synced, the cuts fixed) rather than at a barrier
  // after each colour (the cuts balanced): when fewer than 1/4 of the units are dependent.
  bool self_synced() const { return self_synced_; }
  // whether unit u waits for the other members' runs of the colours before its own
  bool dependent(int u) const { return dependent_[std::size_t(u)] != 0; }
  // whether member m's run of colour g has a dependent unit
  bool waits(int g, int m) const { return waits_[index(g, m)] != 0; }
  // Self-synced: the contacts of c.order in another order within each member's run of each
  // colour, those of the run's units that wait for no one first, then those of its dependent
  // units from split(g, m) on (a run's position in c.order unchanged). One visit each, rather
  // than one per stretch of consecutive units of a kind, each too short for the sweep's asking
  // ahead (sweep.h colored_sweep) to begin.
  const int* synced_order() const { return order_.data(); }
  int split(int g, int m) const { return split_[index(g, m)]; }
  // the first unit of member i's run of colour g (i = members: one past the colour's last unit)
  int unit(int g, int i) const { return unit_[index(g, i)]; }
  // what member m's run of colour g took (sweep_ticks), by that member
  void record(int g, int member, std::uint64_t ticks) {
    ticks_[std::size_t(member) * std::size_t(stride_) + std::size_t(g)] = ticks;
  }
  // after a sweep in which every member recorded every colour
  void rebalance(const ContactColoring& c) {
    for (int g = 0; g < colors_; ++g) {
      double total = 0.0;
      for (int m = 0; m < members_; ++m) total += double(ticks(g, m));
      const int k0 = c.unit_start[std::size_t(unit(g, 0))], n = c.unit_start[std::size_t(unit(g, members_))] - k0;
      if (!(total > 0.0) || n <= 0) continue;
      int m = 0;
      double below = 0.0;  // the time of the runs before run m
      for (int i = 1; i < members_; ++i) {
        const double target = total * i / members_;
        while (m < members_ - 1 && below + double(ticks(g, m)) < target) below += double(ticks(g, m++));
        const double t = double(ticks(g, m));
        const int lo = c.unit_start[std::size_t(unit(g, m))], hi = c.unit_start[std::size_t(unit(g, m + 1))];
        const double x = t > 0.0 ? lo + std::min(1.0, (target - below) / t) * (hi - lo) : lo;
        double& f = fraction_[index(g, i)];
        f = 0.5 * f + 0.5 * (x - k0) / n;
      }
    }
    place(c);
  }

 private:
  // each cut at the first unit at or after its fraction of the colour's contacts
  void place(const ContactColoring& c) {
    for (int g = 0; g < colors_; ++g) {
      const int u0 = c.color_start[std::size_t(g)], u1 = c.color_start[std::size_t(g) + 1];
      const int k0 = c.unit_start[std::size_t(u0)], k1 = c.unit_start[std::size_t(u1)];
      for (int i = 0; i <= members_; ++i) {
        const int target = k0 + int(std::lround(fraction_[index(g, i)] * (k1 - k0)));
        unit_[index(g, i)] = i == 0 ? u0
                             : i == members_
                                 ? u1
                                 : int(std::lower_bound(c.unit_start.begin() + u0, c.unit_start.begin() + u1, target) -
                                       c.unit_start.begin());
      }
    }
  }
  // A unit is dependent when one of its moving bodies was last written, earlier in the sweep,
  // by another member's run.
  void mark_dependent(const ContactColoring& c) {
    dependent_.assign(std::size_t(units_), 0);
    waits_.assign(fraction_.size(), 0);
    writer_.assign(std::size_t(c.bodies), -1);
    int count = 0;
    for (int g = 0; g < colors_; ++g)
      for (int m = 0; m < members_; ++m)
        for (int u = unit(g, m); u < unit(g, m + 1); ++u)
          for (const int b : c.unit_bodies[std::size_t(u)]) {
            if (b < 0) continue;
            int& w = writer_[std::size_t(b)];
            if (w >= 0 && w != m && !dependent_[std::size_t(u)]) {
              dependent_[std::size_t(u)] = 1;
              waits_[index(g, m)] = 1;
              ++count;
            }
            w = m;  // a colour's units share no moving body: no other unit of g reads it
          }
    self_synced_ = members_ > 1 && count < sweep_limits::kSelfSyncedDependent * units_;
    if (!self_synced_) return;
    // each run's contacts, those of its other units first, then those of its dependent ones
    order_.resize(c.order.size());
    split_.assign(fraction_.size(), 0);
    for (int g = 0; g < colors_; ++g)
      for (int m = 0; m < members_; ++m) {
        const int a = unit(g, m), b = unit(g, m + 1);
        int slot = c.unit_start[std::size_t(a)];
        for (const bool dependent : {false, true}) {
          if (dependent) split_[index(g, m)] = slot;
          for (int u = a; u < b; ++u)
            if ((dependent_[std::size_t(u)] != 0) == dependent)
              for (int e = c.unit_start[std::size_t(u)]; e < c.unit_start[std::size_t(u) + 1]; ++e)
                order_[std::size_t(slot++)] = c.order[std::size_t(e)];
        }
      }
  }
  // every colour cut at the same contact indices: member i's units start in [i n / members,
  // (i + 1) n / members) (a colour lists its units in ascending contact order)
  void place_common(const ContactColoring& c) {
    const auto n = std::int64_t(c.order.size());
    for (int g = 0; g < colors_; ++g) {
      const auto u0 = c.unit_start.begin() + c.color_start[std::size_t(g)];
      const auto u1 = c.unit_start.begin() + c.color_start[std::size_t(g) + 1];
      for (int i = 0; i <= members_; ++i) {
        const auto cut = int(n * i / members_);
        const auto u = std::partition_point(u0, u1, [&](int slot) { return c.order[std::size_t(slot)] < cut; });
        unit_[index(g, i)] =
            i == 0 ? int(u0 - c.unit_start.begin()) : int((i == members_ ? u1 : u) - c.unit_start.begin());
      }
    }
  }
  // A self-synced sweep's time as modelled from the cuts and the dependent units: a contact costs
  // 1, a member sweeps its run's other units, then waits for the others to finish the colours
  // before and sweeps its dependent ones. Returned relative to an even share (contacts / members).
  double modelled_span(const ContactColoring& c) const {
    std::vector<double> t(std::size_t(members_), 0.0), finished(std::size_t(members_), 0.0);
    for (int g = 0; g < colors_; ++g) {
      for (int m = 0; m < members_; ++m) {
        double own = 0.0, waiting = 0.0;
        for (int u = unit(g, m); u < unit(g, m + 1); ++u)
          (dependent_[std::size_t(u)] ? waiting : own) +=
              c.unit_start[std::size_t(u) + 1] - c.unit_start[std::size_t(u)];
        double& x = t[std::size_t(m)];
        x += own;
        if (waiting > 0.0) {
          for (int o = 0; o < members_; ++o)
            if (o != m) x = std::max(x, finished[std::size_t(o)]);
          x += waiting;
        }
      }
      finished = t;
    }
    const int n = c.unit_start[std::size_t(c.color_start[std::size_t(colors_)])];  // the overflow is the caller's
    return n > 0 ? *std::max_element(t.begin(), t.end()) * members_ / n : 1.0;
  }
  std::size_t index(int g, int i) const { return std::size_t(g) * std::size_t(members_ + 1) + std::size_t(i); }
  std::uint64_t ticks(int g, int m) const { return ticks_[std::size_t(m) * std::size_t(stride_) + std::size_t(g)]; }
  const ContactColoring* coloring_ = nullptr;  // the colouring prepared for
  int colors_ = -1, units_ = -1, members_ = 0, stride_ = 0;
  std::vector<double> fraction_;  // per colour: members + 1 cuts, as fractions of its contacts
  std::vector<int> unit_;         // the same cuts as unit indices
  std::vector<std::uint64_t> ticks_;
  std::vector<std::uint8_t> dependent_, waits_;  // per unit; per colour and member
  std::vector<int> order_, split_;               // self-synced: synced_order(), split()
  std::vector<int> writer_;                      // mark_dependent(): the member that last wrote each body
  bool self_synced_ = false;
};

// A cheap clock for ColorSchedule: the time-stamp counter where there is one.
inline std::uint64_t sweep_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return std::uint64_t(Stopwatch::Clock::now().time_since_epoch().count());
#endif
}

class SweepTeam {
 public:
  // threads: members including the caller (< 2: no helper starts)
  // The helpers are tasks of the caller's TBB arena (World's --threads arena): a nested arena
  // of its own would make a worker move over for every solve.
  explicit SweepTeam(int threads) : threads_(threads < 1 ? 1 : threads) {
    for (int m = 1; m < threads_; ++m) helpers_.run([this, m] { member_loop(m); });
    schedule_->forget();
  }
  ~SweepTeam() { finish(); }
  SweepTeam(const SweepTeam&) = delete;
  SweepTeam& operator=(const SweepTeam&) = delete;

  int size() const { return threads_; }
  // the cuts of this team's coloured sweeps
  ColorSchedule& schedule() { return *schedule_; }

  // Sends the helpers home (they stop spinning); the caller then works alone.
  void finish() {
    if (threads_ < 2 || quit_.exchange(true, std::memory_order_acq_rel)) return;
    helpers_.wait();  // a helper that never started returns at once
  }

  // Whether run_phases() would share its phases: every helper has started and waits for work.
  bool assembled() const {
    if (threads_ < 2 || quit_.load(std::memory_order_relaxed)) return false;
    for (int m = 1; m < threads_; ++m)
      if (!present_[std::size_t(m)].value.load(std::memory_order_acquire)) return false;
    return true;
  }

  // f(phase, member, members) for phase = 0 .. phases-1, every member its own share of each
  // phase (the split is f's: members is the team's size), with a barrier between phases: no
  // member starts phase p + 1 before every member has finished phase p. Returns false without
  // running anything unless every helper has started (assembled()): then the caller does the work
  // itself, and a helper still starting joins a later stage.
  //
  // With `self_synced`, there is no barrier between phases, only after the last one: f itself
  // calls wait_phase(p - 1, member) before the part of phase p that needs what other members
  // wrote in earlier phases, and goes ahead with the rest.
  template <class F>
  [[gnu::noinline]] bool run_phases(int phases, F& f, bool self_synced = false) {
    if (phases < 1 || !assembled()) return false;
    phase_base_.store(phase_count_, std::memory_order_relaxed);
    phases_.store(self_synced ? -phases : phases, std::memory_order_relaxed);
    ctx_.store(&f, std::memory_order_relaxed);
    phase_fn_.store(&trampoline<F>, std::memory_order_relaxed);
    stage_.store(stage_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    stack_gap();
    run_member_phases(0, phase_count_, self_synced ? -phases : phases, &trampoline<F>, &f);
    phase_count_ += std::uint32_t(phases);
    return true;
  }

  // In a self-synced run_phases() stage, from its phase function: returns once every other
  // member has finished phases 0 .. `phase` (at once for phase < 0). The stage's base cannot
  // change meanwhile: the caller publishes again only after every member's last phase.
  void wait_phase(int phase, int member) const {
    if (phase >= 0) wait_for(phase_base_.load(std::memory_order_relaxed) + std::uint32_t(phase) + 1, member);
  }

 private:
  using Fn = void (*)(void*, int, int, int);     // a stage's closure called through ctx_
  static constexpr std::size_t kStackGap = 256;  // bytes: four cache lines, two line pairs

  // Moves the caller's stack pointer down by kStackGap until the stage function that calls it
  // returns (see the top of the file): always inlined, so the alloca is that function's, and
  // run_phases() is never inlined, so a loop of stages never grows the stack.
  [[gnu::always_inline]] static inline void stack_gap() {
    void* gap = __builtin_alloca(kStackGap);
    __asm__ volatile("" : : "r"(gap) : "memory");
  }

  template <class F>
  static void trampoline(void* ctx, int begin, int end, int member) {
    (*static_cast<F*>(ctx))(begin, end, member);
  }

  // One member's part of a run_phases() stage: its share of each phase, then the barrier. A
  // member's count of phases finished lives on its own cache line; phase p is done by all when
  // every count has reached base + p + 1 (counts only grow: the team's phases are numbered
  // through its life, so no count is ever reset).
  // `phases` < 0: a self-synced stage of -phases phases, with the barrier after the last only.
  void run_member_phases(int member, std::uint32_t base, int phases, Fn fn, void* ctx) {
    const bool self_synced = phases < 0;
    if (self_synced) phases = -phases;
    for (int p = 0; p < phases; ++p) {
      fn(ctx, p, member, threads_);
      const std::uint32_t target = base + std::uint32_t(p) + 1;
      arrived_[std::size_t(member)].value.store(target, std::memory_order_release);
      if (!self_synced || p == phases - 1) wait_for(target, member);
    }
  }

  // until every other member's count of phases finished has reached `target`
  void wait_for(std::uint32_t target, int member) const {
    for (int m = 0; m < threads_; ++m) {
      if (m == member) continue;
      for (unsigned spins = 0; arrived_[std::size_t(m)].value.load(std::memory_order_acquire) < target; ++spins)
        relax(spins);
    }
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

  void member_loop(int member) {
    std::uint32_t seen = 0;
    present_[std::size_t(member)].value.store(true, std::memory_order_release);
    for (;;) {
      std::uint32_t stage;
      for (unsigned spins = 0; (stage = stage_.load(std::memory_order_acquire)) == seen; ++spins) {
        if (quit_.load(std::memory_order_acquire)) return;
        relax(spins);
      }
      seen = stage;
      // the caller waits for this member's last barrier before it publishes again, so the
      // stage's parameters stay as they are while they are read here
      run_member_phases(member, phase_base_.load(std::memory_order_relaxed), phases_.load(std::memory_order_relaxed),
                        phase_fn_.load(std::memory_order_relaxed), ctx_.load(std::memory_order_relaxed));
    }
  }

  const int threads_;
  std::uint32_t phase_count_ = 0;                    // the caller's count of phases published (run_phases)
  alignas(64) std::atomic<std::uint32_t> stage_{0};  // stages published; the release publishes their parameters
  std::atomic<void*> ctx_{nullptr};
  std::atomic<bool> quit_{false};
  // run_phases(): the stage's parameters, and per member its count of phases finished and
  // whether it has started (its own cache line each)
  alignas(64) std::atomic<std::uint32_t> phase_base_{0};
  std::atomic<int> phases_{0};
  std::atomic<Fn> phase_fn_{nullptr};
  std::vector<Padded<std::atomic<std::uint32_t>>> arrived_ =
      std::vector<Padded<std::atomic<std::uint32_t>>>(std::size_t(threads_));
  std::vector<Padded<std::atomic<bool>>> present_ = std::vector<Padded<std::atomic<bool>>>(std::size_t(threads_));
  tbb::task_group helpers_;
  // the thread's kept schedule (thread_scratch.h: its arrays are not allocated again for every
  // solve), told in the constructor that no colouring is prepared
  ThreadScratch<ColorSchedule> schedule_;
};

// One Gauss-Seidel sweep colour by colour (contact_coloring.h), the overflow group last in the
// caller. visit(contacts, n, member) for runs of n contacts, k = contacts[0 .. n): a run keeps its
// running maxima in registers and merges them once (kept in the member's slot for every contact,
// they cost the sphere pile a store and a reload per row on the maxima's dependency chain).
// Once every helper has started, the colours are the phases of one run_phases() stage: member m
// sweeps the m-th of `members` runs of whole units of each colour, where the team's
// ColorSchedule cuts them, self-synced or with barriers, so each member sweeps about the same
// part of every colour (contact index order follows the bodies: the caller keeps the low bodies,
// the helper the high ones, and their velocities stay in each core's cache). Before that (a
// helper still starting) the caller sweeps the colours alone.
// `balance`: whether the sweep's times move the cuts (a pass of another cost per contact than the
// solve's sweeps, colored_reset, leaves them alone).
template <class Op, class Visit>
void colored_sweep(SweepTeam& team, const ContactColoring& c, const Op& op, Visit&& visit, bool balance = true) {
  // the run's bodies' velocity lines, for writing (those the other core wrote in the previous
  // colour come together rather than one per contact)
  const auto prefetch_bodies = [&](int u0, int u1) {
    for (int u = u0; u < u1; ++u) op.prefetch(c.order[std::size_t(c.unit_start[std::size_t(u)])]);
  };
  const auto units = [&](int u0, int u1, int member) {
    if (u1 <= u0) return;
    prefetch_bodies(u0, u1);
    const int first = c.unit_start[std::size_t(u0)];
    visit(c.order.data() + first, c.unit_start[std::size_t(u1)] - first, member);
  };
  // member's run of colour g: whole units, cut where the schedule puts them
  ColorSchedule& schedule = team.schedule();
  schedule.prepare(c, team.size());
  auto share = [&](int g, int member, int) {
    const std::uint64_t t0 = sweep_ticks();
    units(schedule.unit(g, member), schedule.unit(g, member + 1), member);
    schedule.record(g, member, sweep_ticks() - t0);
  };
  // self-synced: the contacts of the units that wait for no one, then, once the other members
  // have finished the colours before, the others (the schedule's synced_order())
  auto synced_share = [&](int g, int member, int) {
    const int a = schedule.unit(g, member), b = schedule.unit(g, member + 1);
    if (!schedule.waits(g, member)) {
      units(a, b, member);
      return;
    }
    const int first = c.unit_start[std::size_t(a)], split = schedule.split(g, member),
              end = c.unit_start[std::size_t(b)];
    const int* order = schedule.synced_order();
    for (int e = first; e < split; ++e) op.prefetch(order[e]);
    if (split > first) visit(order + first, split - first, member);
    team.wait_phase(g - 1, member);
    for (int e = split; e < end; ++e) op.prefetch(order[e]);
    visit(order + split, end - split, member);
  };
  const bool synced = schedule.self_synced();
  const bool shared = synced ? team.run_phases(c.colors(), synced_share, true) : team.run_phases(c.colors(), share);
  if (shared && !synced && balance) schedule.rebalance(c);
  if (!shared)
    for (int g = 0; g < c.colors(); ++g) units(c.color_start[std::size_t(g)], c.color_start[std::size_t(g) + 1], 0);
  units(c.color_start[std::size_t(c.colors())], c.color_start[std::size_t(c.colors()) + 1], 0);
}

// f(begin, end, member) over [0, n), items independent of each other: once every helper has
// started, member m takes the m-th of equal slices in one phase (the slices follow the index
// order as the sweeps' runs do, so a member mostly reads what it wrote in them), else the caller
// takes them all.
template <class F>
void team_pass(SweepTeam& team, int n, F&& f) {
  auto slice = [&](int, int member, int members) {
    const int begin = int(std::int64_t(n) * member / members), end = int(std::int64_t(n) * (member + 1) / members);
    if (end > begin) f(begin, end, member);
  };
  if (!team.run_phases(1, slice) && n > 0) f(0, n, 0);
}

// op.reset(lambda) (w = M^-1 J^T lambda, seed 000 eq. 26) for a coloured solve, on the team: w
// from zero, then each contact's impulse added with applied(), colour by colour, so that every
// body sums its terms in the colour order on any thread count (op.reset sums them in index order,
// in the caller alone), and the resets of PROX's rejected sweeps are shared by the team. An
// operator with joint rows resets as before: the joints are not coloured.
// Without a colouring (c null), op.reset(lambda): the solve's reset either way.
//
// before(k, member), if given, is called for every contact k just before its impulse is read: a
// solve's own setup of each contact (its warm start projected, its row steps or r-factors), in the
// same pass over the contacts as the reset (without a colouring, in a team_pass before it). The
// setup pass was one more stage over every contact, whose data the reset then read again.
struct NoSetup {
  void operator()(int, int) const {}
};
template <class Op, class Before = NoSetup>
void colored_reset(SweepTeam& team, const ContactColoring* c, Op& op, std::vector<Vec4>& lambda, Before&& before = {}) {
  if (!c || op.joint_rows() > 0) {
    if constexpr (!std::is_same_v<std::decay_t<Before>, NoSetup>)  // a plain reset has no pass of its own
      team_pass(team, op.size(), [&](int begin, int end, int member) {
        for (int k = begin; k < end; ++k) before(k, member);
      });
    op.reset(lambda);
    return;
  }
  op.clear();
  colored_sweep(
      team, *c, op,
      [&](const int* contacts, int n, int member) {
        for (int e = 0; e < n; ++e) {
          const int k = contacts[e];
          before(k, member);
          if (lambda[std::size_t(k)] != Vec4::Zero()) op.applied(k, lambda[std::size_t(k)]);
        }
      },
      false);
}

// fclib_merit (merit.h) for an operator whose w is already M^-1 J^T lambda (a solver whose sweeps
// kept it current, seed 000 eq. 26: no reset), each contact's velocity and natural map term in one
// pass on the team, the terms summed in index order by the caller: the same bits on any thread
// count. (A pass for the velocities and one for the terms were two stages, each with the
// contacts' data read again.)
template <class Op>
double team_fclib_merit(SweepTeam& team, const Op& op, const std::vector<Vec4>& lambda, std::vector<double>& term) {
  term.resize(std::size_t(op.size()));
  auto f = [&](int begin, int end, int) {
    for (int k = begin; k < end; ++k) {
      const auto i = std::size_t(k);
      const Vec4 v = op.velocity(k, lambda);
      term[i] = natural_map_term(lambda[i].head<3>(), v.head<3>(), op.mu(k)[0]);
    }
  };
  team_pass(team, op.size(), f);
  return fclib_merit_of_terms(op, [&](int k) { return term[std::size_t(k)]; });
}

}  // namespace coulomb::detail
