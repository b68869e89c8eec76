// The Graph API: its text dump (golden) and the errors that name what is wrong.
#include <gtest/gtest.h>

#include "golden.h"
#include "tiny_graph.h"

namespace tessera::testing {
namespace {

using namespace graph;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const GraphError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Graph, DumpsTensorsComputeSetsAndPrograms) { expect_golden("graph.txt", dump(tiny_graph())); }

TEST(Graph, SlicesAndReshapesTheFlattenedView) {
  Graph g(*arch::find_target("tiny"));
  Tensor t = g.add_variable(DType::kF32, {4, 4}, "t");
  Tensor s = t.slice(4, 12).reshape({2, 4}).slice(2, 6);
  EXPECT_EQ(s.begin, 6u);
  EXPECT_EQ(s.end, 10u);
  EXPECT_EQ(g.describe(s), "t[6:10]");
  EXPECT_THROW(t.reshape({3, 5}), GraphError);
  EXPECT_THROW(t.slice(3, 17), GraphError);
}

TEST(Graph, MapsLinearlyInGrains) {
  Graph g(*arch::find_target("tiny"));
  Tensor t = g.add_variable(DType::kF32, {10}, "t");
  g.map_linearly(t, 2);  // 5 grains over 4 tiles: 4, 4, 2 elements
  const std::vector<Interval> want = {{0, 0, 4}, {1, 4, 8}, {2, 8, 10}};
  EXPECT_EQ(g.intervals(t), want);
}

TEST(Graph, RejectsAnUnmappedTensorByName) {
  Graph g = tiny_graph();
  g.add_variable(DType::kF32, {3}, "lost");
  EXPECT_EQ(error_of([&] { validate(g); }), "tensor 'lost' is not mapped to tiles (element 0 of 3)");
}

TEST(Graph, RejectsARegionOnAnotherTile) {
  Graph g = tiny_graph();
  Vertex v = g.add_vertex(ComputeSet{0}, "relu", 0);
  EXPECT_EQ(error_of([&] { g.connect(v, "dst", g.tensor(0).slice(2, 4)); }),
            "vertex 6 (relu on tile 0, compute set 'twice'): field 'dst': a[2:4] is not contiguous on tile 0");
}

TEST(Graph, RejectsAMissingFieldAtCompileTime) {
  Graph g = tiny_graph();
  Vertex v = g.add_vertex(ComputeSet{0}, "relu", 0);
  g.connect(v, "dst", g.tensor(0).slice(0, 2));
  g.connect(v, "src", g.tensor(0).slice(0, 2));
  EXPECT_EQ(error_of([&] { validate(g); }),
            "vertex 6 (relu on tile 0, compute set 'twice'): field 'n' is not set (f32* dst, const f32* src, u32 n)");
}

TEST(Graph, RejectsARegionWhoseLengthDisagreesWithTheCounts) {
  Graph g = tiny_graph();
  Vertex v = g.add_vertex(ComputeSet{0}, "relu", 0);
  g.connect(v, "dst", g.tensor(0).slice(0, 2));
  g.connect(v, "src", g.tensor(0).slice(0, 2));
  g.set_field(v, "n", 3);
  EXPECT_EQ(error_of([&] { validate(g); }),
            "vertex 6 (relu on tile 0, compute set 'twice'): field 'dst': a[0:2] has 2 elements, the codelet reads n = 3");
}

TEST(Graph, RejectsUnknownCodeletsAndFields) {
  Graph g = tiny_graph();
  EXPECT_EQ(error_of([&] { g.add_vertex(ComputeSet{0}, "no_such", 0); }).substr(0, 26), "unknown codelet 'no_such' ");
  Vertex v = g.add_vertex(ComputeSet{0}, "fill", 0);
  EXPECT_EQ(error_of([&] { g.set_field(v, "dst", 1); }),
            "vertex 6 (fill on tile 0, compute set 'twice'): field 'dst' is a pointer (u32* dst, u32 n, u32 value)");
  EXPECT_EQ(error_of([&] { g.set_field(v, "m", 1); }),
            "vertex 6 (fill on tile 0, compute set 'twice'): codelet fill has no field 'm' (u32* dst, u32 n, u32 value)");
}

TEST(Graph, CodeletTableComesFromTheFirmware) {
  const CodeletInfo& mv = find_codelet("matvec");
  EXPECT_EQ(mv.index, 6u);
  ASSERT_EQ(mv.fields.size(), 5u);
  EXPECT_EQ(mv.fields[1].name, "a");
  EXPECT_TRUE(mv.fields[1].is_const);
  EXPECT_EQ(mv.fields[1].length, "rows*cols");
}

}  // namespace
}  // namespace tessera::testing
