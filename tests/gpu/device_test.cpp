#include <coulomb/build_info.h>
#include <coulomb/gpu/device.h>
#include <gtest/gtest.h>

using namespace coulomb;

TEST(GpuDevice, QueryIsConsistentWithTheBuild) {
  const gpu::DeviceInfo d = gpu::query_devices();
  EXPECT_EQ(d.compiled, build_info().cuda_compiled);
  if (!d.compiled) {
    EXPECT_EQ(d.device_count, 0);
    EXPECT_FALSE(d.error.empty());
  }
  if (d.device_count == 0) GTEST_SKIP() << "no CUDA device: " << d.error;
  EXPECT_FALSE(d.first_device_name.empty());
}
