// Large arrays on transparent huge pages.
//
// The arrays a step streams (the contact problem's rows, 44 MB at 16,000 boxes; the packed
// post-stabilisation rows, 15 MB; the contact lists) outgrow the TLB's reach with 4 KiB pages
// long before they outgrow the caches: a 2,048-entry TLB maps 8 MB. Under a hypervisor every TLB
// miss is a two-dimensional page walk. On Linux with transparent huge pages in "madvise" mode (the
// common default) nothing is backed by 2 MiB pages unless asked, so the World asks for its large
// arrays, once a step, here: it makes a 16,000-box pile's velocity sweeps about a tenth cheaper
// per contact, with the same bits.
#pragma once

#include <cstddef>
#include <vector>

namespace coulomb {

// Arrays smaller than this are left alone (they fit a 4 KiB-page TLB's reach, and a huge page
// needs 2 MiB of aligned room inside the array).
inline constexpr std::size_t kHugePageArrayBytes = std::size_t(4) << 20;

// Asks the kernel to back the 2 MiB-aligned pages inside [data, data + bytes) with transparent
// huge pages (madvise MADV_HUGEPAGE) and to collapse the 4 KiB pages already there into them
// (MADV_COLLAPSE, Linux 6.1+): a one-time copy, about 2 ms a MB; a range already on huge pages
// costs a few microseconds. Contents are unchanged. Does nothing where the system cannot (another
// OS, an older kernel, huge pages off, none free now): it is a speed hint, never an error.
// Returns whether the kernel put those pages on huge pages (false also when there are none).
bool advise_huge_pages(const void* data, std::size_t bytes);

template <class T>
bool advise_huge_pages(const std::vector<T>& v) {
  return v.size() * sizeof(T) >= kHugePageArrayBytes && advise_huge_pages(v.data(), v.size() * sizeof(T));
}

}  // namespace coulomb
