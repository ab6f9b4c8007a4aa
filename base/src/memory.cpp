// Transparent huge pages for large arrays (memory.h).
#include <coulomb/memory.h>

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older headers lack it, older kernels answer EINVAL
#endif
#endif

namespace coulomb {

bool advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t lo = (begin + huge - 1) & ~(huge - 1), hi = (begin + bytes) & ~(huge - 1);
  if (data == nullptr || hi <= lo) return false;
  // errors (EINVAL: huge pages off or an old kernel; EAGAIN/ENOMEM: no free huge page now) leave
  // the pages as they were, which is correct, only slower
  return madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE) == 0 &&
         madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_COLLAPSE) == 0;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

}  // namespace coulomb
