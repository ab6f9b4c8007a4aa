// One wall-clock timer for profiling: the stages' times in StepStats, the solvers' time_ms, the
// benchmarks' per-step times. Steady clock, so a clock change never makes a negative time.
//
//   Stopwatch w;  ...;  double ms = w.ms();
//   { ScopedTimer t(stats.detect_ms); ... }  // adds the block's time to stats.detect_ms
#pragma once

#include <chrono>

namespace coulomb {

class Stopwatch {
 public:
  using Clock = std::chrono::steady_clock;
  Stopwatch() : start_(Clock::now()) {}
  void restart() { start_ = Clock::now(); }
  double ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - start_).count(); }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  Clock::time_point start() const { return start_; }

 private:
  Clock::time_point start_;
};

// Adds the time from its construction to its destruction to `total` (unit: ms).
class ScopedTimer {
 public:
  explicit ScopedTimer(double& total) : total_(total) {}
  ~ScopedTimer() { total_ += watch_.ms(); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double& total_;
  Stopwatch watch_;
};

}  // namespace coulomb
