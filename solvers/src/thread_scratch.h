// A solver's per-thread scratch, kept from one solve to the next.
//
// A solve's work arrays (PROX's r-factors and metrics, the row steps, the colouring) are as
// large as its problem and are all written before they are read. Allocated for every solve,
// they would cost a value-initialising pass in the calling thread, which no helper can share
// (PROX's ContactMetric array is 300 bytes a contact). Kept here, a vector that does not grow is
// resized without touching its elements.
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
