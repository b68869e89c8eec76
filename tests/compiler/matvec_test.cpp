// End to end: a distributed matrix-vector product built with the Graph API on the `small`
// target (16 tiles), compiled, loaded onto the emulator and run in ISS and native mode;
// y must equal a plain C++ reference in the same order of operations, bit for bit.
//
// A (64x64) is split into 4x4 blocks of 16x16, block (r, c) on tile 4r + c. x streams in to
// row 0 of the tiles and is copied down each column; each tile computes its block's partial
// (matvec); slice c2 of partial (r, c) goes to tile (r, c2), which adds the four partials of
// its slice (reduce_sum); y streams out. The Copy/compute body runs twice (Repeat).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <random>

#include "tessera/arch/device_regs.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/file.h"
#include "tessera/passes/passes.h"
#include "tiny_graph.h"

namespace tessera::testing {
namespace {

using namespace graph;

constexpr uint32_t kN = 64, kB = 16, kS = 4;  // matrix, block, slice per reducer

struct MatVec {
  std::vector<float> a, x;
  Graph g{*arch::find_target("small")};

  MatVec() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (uint32_t i = 0; i < kN * kN; ++i) a.push_back(d(rng));
    for (uint32_t i = 0; i < kN; ++i) x.push_back(d(rng));
    build();
  }

  static uint32_t tile(uint32_t r, uint32_t c) { return r * 4 + c; }

  void build() {
    // A in blocked layout: elements [256 (4r + c), +256) are block (r, c), row-major.
    Tensor A = g.add_variable(DType::kF32, {4, 4, kB, kB}, "A");
    std::vector<float> blocked;
    for (uint32_t r = 0; r < 4; ++r)
      for (uint32_t c = 0; c < 4; ++c)
        for (uint32_t i = 0; i < kB; ++i)
          for (uint32_t j = 0; j < kB; ++j) blocked.push_back(a[(r * kB + i) * kN + c * kB + j]);
    g.map_linearly(A, kB * kB);
    g.set_initial_value(A, blocked);
    Tensor xv = g.add_variable(DType::kF32, {kN}, "x");
    for (uint32_t c = 0; c < 4; ++c) g.set_tile_mapping(xv.slice(c * kB, (c + 1) * kB), tile(0, c));
    Tensor xb = g.add_variable(DType::kF32, {4, 4, kB}, "x_blocks");
    Tensor partial = g.add_variable(DType::kF32, {4, 4, kB}, "partial");
    Tensor gather = g.add_variable(DType::kF32, {4, 4, 4, kS}, "gather");
    Tensor y = g.add_variable(DType::kF32, {kN}, "y");
    g.map_linearly(xb, kB);
    g.map_linearly(partial, kB);
    g.map_linearly(gather, 4 * kS);
    g.map_linearly(y, kS);

    ComputeSet partials = g.add_compute_set("partials"), reduce = g.add_compute_set("reduce");
    Program body = Sequence();
    for (uint32_t r = 0; r < 4; ++r)
      for (uint32_t c = 0; c < 4; ++c) {
        const uint32_t t = tile(r, c);
        body.add(Copy(xv.slice(c * kB, (c + 1) * kB), xb.flatten().slice(t * kB, (t + 1) * kB)));
        Vertex v = g.add_vertex(partials, "matvec", t);
        g.connect(v, "y", partial.flatten().slice(t * kB, (t + 1) * kB));
        g.connect(v, "a", A.flatten().slice(t * kB * kB, (t + 1) * kB * kB));
        g.connect(v, "x", xb.flatten().slice(t * kB, (t + 1) * kB));
        g.set_field(v, "rows", kB);
        g.set_field(v, "cols", kB);
        Vertex s = g.add_vertex(reduce, "reduce_sum", t);
        g.connect(s, "out", y.slice(t * kS, (t + 1) * kS));  // rows 16r + 4c ..
        g.connect(s, "in", gather.flatten().slice(t * 4 * kS, (t + 1) * 4 * kS));
        g.set_field(s, "n", kS);
        g.set_field(s, "k", 4);
      }
    body.add(Execute(partials));
    for (uint32_t r = 0; r < 4; ++r)
      for (uint32_t c = 0; c < 4; ++c)
        for (uint32_t c2 = 0; c2 < 4; ++c2) {  // slice c2 of partial (r, c) -> slot c of tile (r, c2)
          const uint32_t src = tile(r, c) * kB + c2 * kS, dst = tile(r, c2) * 4 * kS + c * kS;
          body.add(Copy(partial.flatten().slice(src, src + kS), gather.flatten().slice(dst, dst + kS)));
        }
    body.add(Execute(reduce));
    Stream xs = g.add_stream("x", DType::kF32, {kN}), ys = g.add_stream("y", DType::kF32, {kN});
    g.add_program("main", Sequence({HostWrite(xs, xv), Repeat(2, body), HostRead(ys, y)}));
  }

  std::vector<float> reference() const {
    std::vector<float> y(kN);
    for (uint32_t row = 0; row < kN; ++row) {
      float sum = 0.0f;
      for (uint32_t c = 0; c < 4; ++c) {
        float acc = 0.0f;  // matvec: fma chain over the block's columns, from +0
        for (uint32_t j = 0; j < kB; ++j) acc = std::fmaf(a[row * kN + c * kB + j], x[c * kB + j], acc);
        sum = c == 0 ? acc : sum + acc;  // reduce_sum: first partial, then left to right
      }
      y[row] = sum;
    }
    return y;
  }
};

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// DMA segments along a stream's intervals (host buffer offsets = element offsets * 4).
std::vector<device::DmaSegment> dma_of(const exe::Stream& s) {
  std::vector<device::DmaSegment> out;
  for (const exe::Interval& i : s.intervals) out.push_back({i.tile, i.addr, i.count * 4, uint64_t{i.offset} * 4});
  return out;
}

// Loads `e` onto a fresh machine, runs program `name` with x streamed in, returns what
// streams out (`out` elements).
std::vector<float> run(const exe::Executable& e, emu::Mode mode, const std::vector<float>& x, uint32_t* supersteps,
                       const std::string& name = "main", uint32_t out = kN) {
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = mode;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  for (const exe::Segment& s : e.segments) {
    const device::DmaSegment d{s.tile, s.addr, static_cast<uint32_t>(s.bytes.size()), 0};
    m.dma_write({&d, 1}, std::as_bytes(std::span(s.bytes)));
  }
  // Point every tile's header at the program (codegen points it at the first already).
  const exe::Program& p = *e.find_program(name);
  for (uint32_t t = 0; t < e.tiles; ++t) {
    const uint32_t words[2] = {p.tile_program[t], p.words};
    const device::DmaSegment d{t, e.header_addr + 8, 8, 0};
    m.dma_write({&d, 1}, std::as_bytes(std::span(words)));
  }
  std::vector<float> y(out);
  m.write_reg(arch::kDevRegControl, device::kControlStart);
  for (uint32_t sync = 0;;) {
    const uint32_t ev = m.wait_event(device::kEventHostSync | device::kEventAllHalted | device::kEventError,
                                     std::chrono::seconds(60));
    if (ev & device::kEventError) throw std::runtime_error("device error: " + m.error_detail());
    if (ev & device::kEventAllHalted) break;
    if (!(ev & device::kEventHostSync)) throw std::runtime_error("device hung");
    const exe::Stream& s = e.streams.at(p.streams.at(sync++));
    const auto segs = dma_of(s);
    if (s.direction == exe::StreamDirection::kHostToDevice) m.dma_write(segs, std::as_bytes(std::span(x)));
    else m.dma_read(segs, std::as_writable_bytes(std::span(y)));
    m.write_reg(arch::kDevRegEvents, device::kEventHostSync);
    m.write_reg(arch::kDevRegDoorbell, 1);
  }
  *supersteps = m.superstep();
  return y;
}

exe::Executable compile_graph(const Graph& g) {
  passes::CompileOptions o;
  o.firmware = read_bytes(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  const exe::ElfImage elf = exe::parse_elf(o.firmware, "firmware");
  o.layout = exe::firmware_layout(elf);
  const exe::Executable e = passes::compile(g, o);
  exe::verify(e, "compiled");  // what the loader checks in a .tsx file
  return e;
}

class MatVecE2E : public ::testing::TestWithParam<emu::Mode> {};

TEST_P(MatVecE2E, MatchesPlainCppBitForBit) {
  const MatVec mv;
  const exe::Executable e = compile_graph(mv.g);
  EXPECT_EQ(e.supersteps, 6u);  // two host syncs, two exchanges per round, two rounds
  uint32_t supersteps = 0;
  const std::vector<float> y = run(e, GetParam(), mv.x, &supersteps), want = mv.reference();
  for (uint32_t i = 0; i < kN; ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want[i])) << "row " << i;
  EXPECT_EQ(supersteps, e.supersteps);
}

// The tiny graph of the pass tests (Repeat, a split Copy, an If on a broadcast flag) on the
// `tiny` target: out = ((in + in) + (in + in)) * 0.5, exact in binary floating point.
TEST_P(MatVecE2E, TinyGraphTakesTheBranch) {
  const exe::Executable e = compile_graph(tiny_graph());
  const std::vector<float> in = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f, 100.0f, 1e-3f};
  uint32_t supersteps = 0;
  const std::vector<float> out = run(e, GetParam(), in, &supersteps, "main", 8);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], in[i] * 2.0f) << "element " << i;
  EXPECT_EQ(supersteps, 4u);  // host sync, copy exchange, condition broadcast, host sync
}

INSTANTIATE_TEST_SUITE_P(Modes, MatVecE2E, ::testing::Values(emu::Mode::kIss, emu::Mode::kNative),
                         [](const auto& info) { return info.param == emu::Mode::kIss ? "iss" : "native"; });

}  // namespace
}  // namespace tessera::testing
