// Outputs that must not lie (issue 11): every write, flush and close of OutputFile is checked
// (a file-size limit in a child process, /dev/full), atomic replacement never leaves a part,
// the folder lock admits one writer, and a checkpointed State reads back bit for bit.
// (End to end through `coulomb run`: tests/cli/run_outputs_test.sh.)
#include <coulomb/checkpoint.h>
#include <coulomb/error.h>
#include <coulomb/run_folder.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace coulomb {
namespace {

namespace fs = std::filesystem;

class RunFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("coulomb_run_folder_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  fs::path dir_;
};

TEST_F(RunFolder, AWriteErrorIsReportedWithTheOsMessage) {
  // /dev/full: every write fails with ENOSPC; buffered text fails at sync/close at the latest
  OutputFile f = OutputFile::create("/dev/full");
  f.write("x");
  try {
    f.close();
    ADD_FAILURE() << "no OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: No space left on device"), std::string::npos) << e.what();
  }
}

TEST_F(RunFolder, AFileSizeLimitFailsTheWriteInsteadOfKillingTheProcess) {
  // in a child: RLIMIT_FSIZE is per process, and SIGXFSZ would kill the test runner
  const fs::path file = dir_ / "big.txt";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ignore_file_size_signal();
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      OutputFile f = OutputFile::create(file);
      for (int i = 0; i < 1000; ++i) f.write(std::string(100, 'a'));
      f.close();
    } catch (const OutputError& e) {
      _exit(std::string(e.what()).find("File too large") != std::string::npos ? 42 : 43);
    }
    _exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST_F(RunFolder, AtomicReplacementKeepsTheOldFileOnFailure) {
  const fs::path file = dir_ / "a.json";
  write_file_atomically(file, "first\n");
  write_file_atomically(file, "second\n");
  EXPECT_EQ(read(file), "second\n");
  // a folder in the way of the rename: the target keeps its content, no temporary stays
  EXPECT_THROW(write_file_atomically(dir_, "x"), OutputError);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(RunFolder, AppendAtCutsToTheCheckpointedSize) {
  const fs::path file = dir_ / "s.jsonl";
  {
    OutputFile f = OutputFile::create(file);
    f.write("one\ntwo\nthree-partial");
    f.close();
  }
  OutputFile f = OutputFile::append_at(file, 8);
  f.write("three\n");
  f.close();
  EXPECT_EQ(read(file), "one\ntwo\nthree\n");
  EXPECT_THROW(OutputFile::append_at(file, 1000), OutputError);
}

TEST_F(RunFolder, TheLockAdmitsOneWriter) {
  std::optional<FolderLock> first;
  first.emplace(dir_);
  try {
    FolderLock second(dir_);
    ADD_FAILURE() << "a second lock was granted";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("another coulomb run is writing into"), std::string::npos) << e.what();
  }
  first.reset();
  EXPECT_NO_THROW(FolderLock again(dir_));
}

TEST_F(RunFolder, ACheckpointRestoresTheStateBitForBit) {
  World world(load_scene(fs::path(COULOMB_SOURCE_DIR) / "scenes/tower.json", std::vector<std::string>{}));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(world.step().ok());
  Checkpoint c;
  c.run_id = "r1";
  c.sizes = {123, 456};
  c.state = world.state();
  write_checkpoint(dir_, c);
  const Checkpoint back = read_checkpoint(dir_);
  EXPECT_EQ(back.run_id, "r1");
  EXPECT_EQ(back.sizes.stats, 123u);
  EXPECT_EQ(back.sizes.frames, 456u);
  const State& a = c.state;
  const State& b = back.state;
  ASSERT_EQ(a.rigid.x.size(), b.rigid.x.size());
  ASSERT_FALSE(a.contact_cache.empty());
  ASSERT_EQ(a.contact_cache.size(), b.contact_cache.size());
  const auto same = [](const auto& u, const auto& v) { return std::memcmp(u.data(), v.data(), sizeof(double) * u.size()) == 0; };
  for (std::size_t i = 0; i < a.rigid.x.size(); ++i) {
    EXPECT_TRUE(same(a.rigid.x[i], b.rigid.x[i]));
    EXPECT_TRUE(same(a.rigid.q[i].coeffs(), b.rigid.q[i].coeffs()));
    EXPECT_TRUE(same(a.rigid.v[i], b.rigid.v[i]));
    EXPECT_TRUE(same(a.rigid.w[i], b.rigid.w[i]));
  }
  for (std::size_t k = 0; k < a.contact_cache.size(); ++k) {
    EXPECT_EQ(a.contact_cache[k].a, b.contact_cache[k].a);
    EXPECT_TRUE(same(a.contact_cache[k].impulse, b.contact_cache[k].impulse));
    EXPECT_TRUE(same(a.contact_cache[k].local_point, b.contact_cache[k].local_point));
    EXPECT_TRUE(same(a.contact_cache[k].torsion, b.contact_cache[k].torsion));
  }
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof(double)), 0);
  // the restored world takes the same next step as the original
  World other(load_scene(fs::path(COULOMB_SOURCE_DIR) / "scenes/tower.json", std::vector<std::string>{}));
  other.set_state(b);
  ASSERT_TRUE(world.step().ok());
  ASSERT_TRUE(other.step().ok());
  const State s1 = world.state(), s2 = other.state();
  for (std::size_t i = 0; i < s1.rigid.x.size(); ++i) EXPECT_TRUE(same(s1.rigid.x[i], s2.rigid.x[i]));
}

// newton-pcr's warm start (State::row_cache: the joints' and elements' row impulses) reads back
// bit for bit, and a checkpoint without it (written before it existed) reads as a cold start.
TEST_F(RunFolder, ACheckpointKeepsTheNewtonRowImpulses) {
  World world(load_scene(fs::path(COULOMB_SOURCE_DIR) / "scenes/soft_grasp.json", std::vector<std::string>{}));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(world.step().ok());
  Checkpoint c;
  c.run_id = "r1";
  c.state = world.state();
  ASSERT_FALSE(c.state.row_cache.empty());
  write_checkpoint(dir_, c);
  const State back = read_checkpoint(dir_).state;
  ASSERT_EQ(back.row_cache.size(), c.state.row_cache.size());
  EXPECT_EQ(std::memcmp(back.row_cache.data(), c.state.row_cache.data(), sizeof(double) * back.row_cache.size()), 0);
  nlohmann::json old = state_json(c.state);
  old.erase("row_cache");
  EXPECT_TRUE(state_from_json(old).row_cache.empty());
}

TEST_F(RunFolder, ADamagedCheckpointIsAnInputError) {
  write_file_atomically(dir_ / kCheckpointFile, R"({"format": "coulomb-checkpoint/1", "run_id": "r"})");
  EXPECT_THROW(read_checkpoint(dir_), InputError);
  EXPECT_THROW(read_checkpoint(dir_ / "missing"), InputError);
}

}  // namespace
}  // namespace coulomb
