// Hostile scene text (issue 11, "Parsing"): linear-time loading, a depth limit, numbers beyond
// the double range, NUL bytes, oversized files, --set values with the same checks, and OBJ
// vertex lines Assimp's OBJ parser would read as numbers. Each is an InputError with the pointer or the
// file and line, never a crash or a silently different scene.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>
#include <coulomb/scene_overrides.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace coulomb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// the InputError that `f` throws (fails the test if it throws none)
template <class F>
InputError error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", "");
}

const std::string kScene =
    R"({"format": "coulomb-scene/1", "time": {"dt": 0.01, "steps": 1},
        "shapes": {"s": {"type": "sphere", "radius": 0.5}},
        "bodies": [{"name": "a", "shape": "s", "position": [0, 0, 1]}]})";

TEST(JsonLimits, NumberBeyondTheDoubleRangeNamesItsPointer) {
  std::string text = kScene;
  text.replace(text.find("[0, 0, 1]"), 9, "[0, 1e400, 1]");
  const InputError e = error_of([&] { parse_scene_text(text, "t"); });
  EXPECT_EQ(e.pointer(), "/bodies/0/position/1");
  EXPECT_NE(e.message().find("1e400"), std::string::npos) << e.what();
  EXPECT_EQ(error_of([] { parse_scene_text(R"({"a": -1e999})", "t"); }).pointer(), "/a");
}

TEST(JsonLimits, NestingDeeperThanTheLimitIsAnErrorNotACrash) {
  // 52,000 levels segfaulted (exit 139) before the limit
  const std::string deep = std::string(52000, '[') + std::string(52000, ']');
  const InputError e = error_of([&] { parse_scene_text(deep, "t"); });
  EXPECT_NE(e.message().find("nesting deeper than 256 levels"), std::string::npos) << e.what();
  EXPECT_EQ(e.pointer().substr(0, 6), "/0/0/0");
  // at the limit it parses
  EXPECT_NO_THROW(parse_scene_text(std::string(256, '[') + std::string(256, ']'), "t"));
  EXPECT_THROW(parse_scene_text(std::string(257, '[') + std::string(257, ']'), "t"), InputError);
}

TEST(JsonLimits, TextAfterANulByteIsRejectedWithLineAndColumn) {
  std::string text = kScene + std::string(1, '\0') + "{\"ignored\": 1}";
  const InputError e = error_of([&] { parse_scene_text(text, "'x.json'"); });
  EXPECT_EQ(e.pointer(), "");
  EXPECT_NE(e.message().find("NUL byte"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("line 3"), std::string::npos) << e.what();
}

TEST(JsonLimits, DuplicateKeysAndSyntaxErrorsKeepTheirMessages) {
  EXPECT_EQ(error_of([] { parse_scene_text(R"({"a": {"b": 1, "b": 2}})", "t"); }).pointer(), "/a/b");
  EXPECT_EQ(error_of([] { parse_scene_text(R"([1, {"c": [0, {"k": 1, "k": 1}]}])", "t"); }).pointer(), "/1/c/1/k");
  const InputError e = error_of([] { parse_scene_text("{\n  \"a\": tru\n}", "'f.json'"); });
  EXPECT_NE(e.message().find("invalid JSON in 'f.json' at line 2"), std::string::npos) << e.what();
}

TEST(JsonLimits, ParsesAsTheLibraryDoes) {
  const std::string text = R"({"a": [1, -2, 3.5, "x", null, true, {"b": []}], "c": {}, "d": 18446744073709551615})";
  EXPECT_EQ(parse_scene_text(text, "t"), json::parse(text));
}

TEST(JsonLimits, ASceneFileOverTheSizeLimitOrNotAFileStopsEarly) {
  const InputError e = error_of([] { read_scene_file("/dev/zero"); });
  EXPECT_NE(e.message().find("larger than the limit of 256 MiB"), std::string::npos) << e.what();
}

TEST(JsonLimits, SetValuesGetTheSameChecks) {
  json doc = parse_scene_text(kScene, "t");
  EXPECT_EQ(error_of([&] { apply_override(doc, "/time/steps=1e400"); }).pointer(), "/time/steps");
  EXPECT_EQ(error_of([&] { apply_override(doc, "/x={\"a\": 1, \"a\": 2}"); }).pointer(), "/x/a");
  apply_override(doc, "/solver/type=pgs");  // not JSON: a string
  EXPECT_EQ(doc["solver"]["type"], "pgs");
}

class ObjVertexLines : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    const fs::path p = fs::temp_directory_path() /
                       ("coulomb_obj_test_" + std::to_string(::getpid()) + "_" + std::to_string(files_.size()) + ".obj");
    std::ofstream(p) << text;
    files_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const fs::path& p : files_) fs::remove(p);
  }
  std::vector<fs::path> files_;
};

TEST_F(ObjVertexLines, NanAndWordsAreErrorsWithFileAndLine) {
  // Assimp's OBJ parser reads both as numbers: read_mesh checks the vertex lines first
  InputError e = error_of([&] { read_mesh(write("# c\nv 0 0 0\nv nan 0 0\nf 1 2 1\n"), "/shapes/m/file"); });
  EXPECT_EQ(e.pointer(), "/shapes/m/file");
  EXPECT_NE(e.message().find("line 3: vertex coordinate 'nan' is not a finite number"), std::string::npos) << e.what();
  e = error_of([&] { read_mesh(write("v hello 5 world\n"), "/p"); });
  EXPECT_NE(e.message().find("line 1: vertex coordinate 'hello'"), std::string::npos) << e.what();
  e = error_of([&] { read_mesh(write("v 1 2\n"), "/p"); });
  EXPECT_NE(e.message().find("a vertex needs 3 coordinates"), std::string::npos) << e.what();
  e = error_of([&] { read_mesh("/dev/zero", "/p"); });
  EXPECT_NE(e.message().find("not a regular file"), std::string::npos) << e.what();
}

TEST_F(ObjVertexLines, ValidLinesStillRead) {
  // w, vertex colours, comments, tabs and CRLF are fine
  const TriangleMesh m = read_mesh(write("v 0 0 0 1\nv\t1 0 0 # x\r\nv 0 1 0 0.5 0.5 0.5\nvn 0 0 1\nf 1 2 3\n"), "/p");
  ASSERT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.vertices[1], Vec3(1, 0, 0));
  ASSERT_EQ(m.triangles.size(), 1u);
}

}  // namespace
}  // namespace coulomb
