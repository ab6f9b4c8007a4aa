// A solver's per-thread scratch, kept from one solve to the next (issue 12).
//
// A solve's work arrays (PROX's r-factors and metrics, the row steps, the colouring) are as
// large as its problem and are all written before they are read. Allocated for every solve,
// they cost a value-initialising pass in the calling thread, which no helper can share: on
// spheres.json (6,100 contacts) PROX's ContactMetric array alone is 1.8 MB of identity matrices,
// and the allocations before the first pass took 0.67 M cycles of an 11.8 M cycle (5.1 ms)
// prox-gs:10 solve on one thread, 0.68 M of 6.7 M (2.9 ms) on two (rdtsc, the mean over the 360
// solves of 3,000 contacts or more in a 400-step run). Kept here, a
// vector that does not grow is resized without touching its elements.
//
// One T per thread: the solves of islands on TBB workers each hold their own. A solve that finds
// its thread's scratch in use (a nested solve on a thread that waits inside another one) gets a
// fresh T of its own instead.
#pragma once
#include <memory>

namespace coulomb::detail {

template <class T>
class ThreadScratch {
 public:
  ThreadScratch() {
    Slot& s = slot();
    if (s.busy) {
      own_ = std::make_unique<T>();
      value_ = own_.get();
    } else {
      s.busy = true;
      value_ = &s.value;
    }
  }
  ~ThreadScratch() {
    if (!own_) slot().busy = false;
  }
  ThreadScratch(const ThreadScratch&) = delete;
  ThreadScratch& operator=(const ThreadScratch&) = delete;
  T& operator*() { return *value_; }
  T* operator->() { return value_; }

 private:
  struct Slot {
    T value;
    bool busy = false;
  };
  static Slot& slot() {
    thread_local Slot s;
    return s;
  }
  std::unique_ptr<T> own_;
  T* value_ = nullptr;
};

}  // namespace coulomb::detail
