// advise_huge_pages (base/memory.h): a speed hint that never changes what an array holds.
#include <coulomb/memory.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace coulomb {
namespace {

std::vector<std::uint64_t> pattern(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i * 0x9E3779B97F4A7C15ull;
  return v;
}

// kB of anonymous memory on huge pages (/proc/self/smaps_rollup), -1 where the file is absent
long anon_huge_kb() {
  std::ifstream in("/proc/self/smaps_rollup");
  for (std::string key; in >> key;) {
    if (key == "AnonHugePages:") {
      long kb = -1;
      in >> kb;
      return kb;
    }
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

TEST(HugePages, SmallArraysAndNullAreLeftAlone) {
  const std::vector<std::uint64_t> small = pattern(1000);  // 8 kB, under kHugePageArrayBytes
  EXPECT_FALSE(advise_huge_pages(small));
  EXPECT_EQ(small, pattern(1000));
  EXPECT_FALSE(advise_huge_pages(nullptr, std::size_t(64) << 20));
  EXPECT_FALSE(advise_huge_pages(small.data(), 0));
  const std::vector<std::uint64_t> empty;
  EXPECT_FALSE(advise_huge_pages(empty));
}

// Large arrays keep their contents whether or not the system grants huge pages (on this project's
// machines it does: Linux 6.18, transparent huge pages in "madvise" mode); where it does, the
// process's anonymous huge pages cover the array's aligned interior, and asking again changes
// nothing.
TEST(HugePages, LargeArraysKeepTheirContents) {
  const std::size_t n = (std::size_t(24) << 20) / sizeof(std::uint64_t);  // 24 MB
  const std::vector<std::uint64_t> expected = pattern(n);
  std::vector<std::uint64_t> v = expected;
  const long before = anon_huge_kb();
  const bool granted = advise_huge_pages(v);
  EXPECT_EQ(v, expected);
  if (granted) {
    const long after = anon_huge_kb();
    if (before >= 0) {
      EXPECT_GE(after - before, 20 * 1024) << "24 MB advised, 11 or more whole 2 MiB pages inside";
    }
  }
  EXPECT_EQ(advise_huge_pages(v), granted);  // the second time: the same answer, the same contents
  EXPECT_EQ(v, expected);
  v[12345] += 1;  // still an ordinary, writable array
  EXPECT_EQ(v[12345], expected[12345] + 1);
}

}  // namespace
}  // namespace coulomb
