// The machine RTL (rtl/top, verilated as VltMachine) against the emulator, through the device
// contract: the host runtime's Engine runs the same compiled executable for `tiny` on the
// emulator (ISS and native) and on the RTL, and every output is bit-identical. A word
// corrupted in the RTL's SRAM between supersteps must show; words lost and duplicated reach
// ERR_CAUSE on the RTL as on the emulator.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <unistd.h>

#include "program_builder.h"
#include "examples.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/file.h"
#include "tessera/ops/streaming.h"
#include "tessera/testutil/streamed_matmul.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/vlt_machine.h"
#include "firmware_fixture.h"
#include "ring.h"
#include "tiny_graph.h"
#include "to_executable.h"

namespace tessera::testing {
namespace {


const exe::Executable& tiny_exe() {
  static const exe::Executable e = [] {
    passes::CompileOptions o = firmware_compile_options();
    return passes::compile(tiny_graph(), o);
  }();
  return e;
}

std::vector<uint32_t> words_of(const std::vector<std::byte>& b) {
  std::vector<uint32_t> w(b.size() / 4);
  std::memcpy(w.data(), b.data(), w.size() * 4);
  return w;
}

// What one Engine run leaves: the stream that came out and every tensor.
struct Outcome {
  std::vector<uint32_t> out;
  std::map<std::string, std::vector<uint32_t>> tensors;
  uint32_t supersteps = 0;
  bool operator==(const Outcome&) const = default;
};

const std::vector<float> kIn = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f, 100.0f, 1e-3f};

Outcome run_tiny(device::Device& dev, const std::vector<std::string>& programs) {
  const exe::Executable& e = tiny_exe();
  runtime::Engine eng(dev, e);
  eng.load();
  // Every stream: "in" from kIn, each device-to-host stream ("out", "out#1", ...) into its own
  // buffer (8 elements each).
  std::vector<float> in = kIn;
  std::map<std::string, std::vector<float>> outs;
  for (const exe::Stream& s : e.streams) {
    if (s.direction == exe::StreamDirection::kHostToDevice) {
      eng.connect_stream(s.name, std::span(in));
    } else {
      outs[s.name].assign(8, 0.0f);
      eng.connect_stream(s.name, std::span(outs[s.name]));
    }
  }
  Outcome o;
  for (const std::string& p : programs) {
    eng.run(p, std::chrono::seconds(120));
    o.supersteps += eng.reports().back().supersteps;
    for (const auto& [name, out] : outs)
      for (float f : out) o.out.push_back(std::bit_cast<uint32_t>(f));
  }
  for (const exe::Tensor& t : e.tensors) o.tensors[t.name] = words_of(eng.read_tensor(t.name));
  return o;
}

TEST(Machine, TinyGraphIsBitIdenticalOnEmulatorAndRtl) {
  const std::vector<std::string> programs = {"main", "back", "main"};
  auto iss = make_emu(emu::Mode::kIss);
  auto native = make_emu(emu::Mode::kNative);
  auto rtl = make_vlt();
  const Outcome a = run_tiny(*iss, programs), b = run_tiny(*native, programs), c = run_tiny(*rtl, programs);
  ASSERT_GE(a.out.size(), 24u);
  // "out" = in * 2 after "main" (as tests/compiler/matvec_test.cpp checks).
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(a.out[i], std::bit_cast<uint32_t>(kIn[i] * 2.0f)) << i;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.out, c.out);
  EXPECT_EQ(a.tensors, c.tensors);
  EXPECT_EQ(a.supersteps, c.supersteps);
  std::printf("RTL: %llu cycles for %u supersteps\n", static_cast<unsigned long long>(rtl->cycles()), c.supersteps);
}

// Weight streaming (docs/weight-streaming.md) on the RTL: y = x B with B's 24 x 40 values in
// device memory, streamed in column chunks one product ahead (ops::streamed_matmul), a
// tensor loaded from device memory whole (ops::stream_in), and a region written back from
// the tiles and read again (a training step's updated weights). The harness holds the device
// memory, writes each read into the tiles with uncounted flits during the host sync and reads
// a write-back out through the host nodes; the emulator lands a read at the next host sync.
// Both must give the same bits, close to x B in doubles, with only x and the outputs crossing
// to the host.
TEST(Machine, WeightStreamingIsBitIdenticalOnEmulatorAndRtl) {
  graph::Graph g(tiny());
  graph::Program body = graph::Sequence();
  const testutil::StreamedMatMul mm = testutil::add_streamed_matmul(g, body, 2, 24, 40, 10, 16384);
  const uint32_t m = mm.m, k = mm.k, n = mm.n;
  const std::vector<float>& xs = mm.x_values;
  std::vector<float> t_values(40);
  for (size_t i = 0; i < t_values.size(); ++i) t_values[i] = 1.0f / float(i + 1);
  graph::Tensor t = g.add_variable(exe::DType::kF32, {40}, "t");
  g.map_linearly(t, 10);
  g.set_initial_value(t, t_values);
  ops::stream_in(g, body, t, "t");
  body.add(graph::HostRead(g.add_stream("y", exe::DType::kF32, {m, n}), mm.y));
  body.add(graph::HostRead(g.add_stream("t_out", exe::DType::kF32, {40}), t));
  testutil::add_write_back(g, body, mm);  // x's first 40 values to device memory and back
  g.add_program("main", std::move(body));
  const exe::Executable e = passes::compile(g, firmware_compile_options());
  ASSERT_GE(mm.chunks, 3u);

  auto run = [&](device::Device& dev, const char* what) {
    runtime::Engine eng(dev, e);
    eng.load();
    std::vector<float> in = xs, out(m * n), t_out(40), u_out(40);
    eng.connect_stream("x", std::span(in));
    eng.connect_stream("y", std::span(out));
    eng.connect_stream("t_out", std::span(t_out));
    eng.connect_stream("u_out", std::span(u_out));
    eng.run("main", std::chrono::seconds(120));
    const runtime::RunReport& r = eng.reports().back();
    EXPECT_EQ(r.host_bytes, 4u * (m * k + m * n + 80)) << what << ": only x and the outputs cross to the host";
    EXPECT_GE(r.device_memory_bytes, 4u * (k * n + 40 + 80)) << what;
    for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(u_out[i], xs[i]) << what << ": u[" << i << "] after the write-back";
    out.insert(out.end(), t_out.begin(), t_out.end());
    out.insert(out.end(), u_out.begin(), u_out.end());
    return out;
  };
  auto iss = make_emu(emu::Mode::kIss);
  auto native = make_emu(emu::Mode::kNative);
  auto rtl = make_vlt();
  const std::vector<float> a = run(*iss, "ISS"), c = run(*native, "native"), r = run(*rtl, "RTL");
  mm.expect_product(a, 1e-5, "ISS");
  for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(a[m * n + i], t_values[i]) << "t[" << i << "]";
  EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * 4)) << "ISS and native differ";
  EXPECT_EQ(0, std::memcmp(a.data(), r.data(), a.size() * 4)) << "the emulator and the RTL differ";
  std::printf("%u chunks; RTL: %llu cycles\n", mm.chunks, static_cast<unsigned long long>(rtl->cycles()));
}

// The harness's device memory refuses what the contract forbids, and the machine stays usable.
TEST(Machine, RtlDeviceMemoryRefusesMisuse) {
  auto rtl = make_vlt();
  const std::vector<std::byte> four(4);
  EXPECT_THROW(rtl->dram_write(uint64_t{tiny().device_memory_mib} << 20, four), device::DeviceError);
  rtl->dram_write(0, four);
  const device::DmaSegment seg{0, arch::kSramBase + 0x8000, 4, 0};
  EXPECT_THROW(rtl->dram_to_tiles(std::span(&seg, 1)), device::DeviceError) << "outside a host sync";
  const Outcome o = run_tiny(*rtl, {"main"});
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(o.out[i], std::bit_cast<uint32_t>(kIn[i] * 2.0f)) << i;
}

// y = A x for a 32 x 32 A in 2 x 2 blocks of 16 x 16 (block (r, c) on tile 2r + c), as
// tests/compiler/matvec_test.cpp does on 16 tiles: x streams in to row 0 and is copied down
// the columns, each tile forms its block's partial, slice c2 of partial (r, c) goes to tile
// (r, c2), which adds its row's partials; twice (Repeat); y streams out.
struct MatVec4 {
  static constexpr uint32_t kN = 32, kB = 16, kS = 8;
  std::vector<float> a, x;
  graph::Graph g{tiny()};

  MatVec4() {
    using namespace graph;
    uint32_t seed = 12345;
    auto next = [&] {
      seed = seed * 1664525u + 1013904223u;
      return static_cast<float>(static_cast<int32_t>(seed >> 8) % 2000) / 1000.0f;
    };
    for (uint32_t i = 0; i < kN * kN; ++i) a.push_back(next());
    for (uint32_t i = 0; i < kN; ++i) x.push_back(next());
    Tensor A = g.add_variable(DType::kF32, {2, 2, kB, kB}, "A");
    std::vector<float> blocked;
    for (uint32_t r = 0; r < 2; ++r)
      for (uint32_t c = 0; c < 2; ++c)
        for (uint32_t i = 0; i < kB; ++i)
          for (uint32_t j = 0; j < kB; ++j) blocked.push_back(a[(r * kB + i) * kN + c * kB + j]);
    g.map_linearly(A, kB * kB);
    g.set_initial_value(A, blocked);
    Tensor xv = g.add_variable(DType::kF32, {kN}, "x");
    for (uint32_t c = 0; c < 2; ++c) g.set_tile_mapping(xv.slice(c * kB, (c + 1) * kB), c);
    Tensor xb = g.add_variable(DType::kF32, {4, kB}, "x_blocks");
    Tensor partial = g.add_variable(DType::kF32, {4, kB}, "partial");
    Tensor gather = g.add_variable(DType::kF32, {4, 2, kS}, "gather");
    Tensor y = g.add_variable(DType::kF32, {kN}, "y");
    g.map_linearly(xb, kB);
    g.map_linearly(partial, kB);
    g.map_linearly(gather, 2 * kS);
    g.map_linearly(y, kS);
    ComputeSet partials = g.add_compute_set("partials"), reduce = g.add_compute_set("reduce");
    Program body = Sequence();
    for (uint32_t r = 0; r < 2; ++r)
      for (uint32_t c = 0; c < 2; ++c) {
        const uint32_t t = 2 * r + c;
        body.add(Copy(xv.slice(c * kB, (c + 1) * kB), xb.flatten().slice(t * kB, (t + 1) * kB)));
        Vertex v = g.add_vertex(partials, "matvec", t);
        g.connect(v, "y", partial.flatten().slice(t * kB, (t + 1) * kB));
        g.connect(v, "a", A.flatten().slice(t * kB * kB, (t + 1) * kB * kB));
        g.connect(v, "x", xb.flatten().slice(t * kB, (t + 1) * kB));
        g.set_field(v, "rows", kB);
        g.set_field(v, "cols", kB);
        Vertex s = g.add_vertex(reduce, "reduce_sum", t);
        g.connect(s, "out", y.slice(t * kS, (t + 1) * kS));
        g.connect(s, "in", gather.flatten().slice(t * 2 * kS, (t + 1) * 2 * kS));
        g.set_field(s, "n", kS);
        g.set_field(s, "k", 2);
      }
    body.add(Execute(partials));
    for (uint32_t r = 0; r < 2; ++r)
      for (uint32_t c = 0; c < 2; ++c)
        for (uint32_t c2 = 0; c2 < 2; ++c2) {
          const uint32_t src = (2 * r + c) * kB + c2 * kS, dst = (2 * r + c2) * 2 * kS + c * kS;
          body.add(Copy(partial.flatten().slice(src, src + kS), gather.flatten().slice(dst, dst + kS)));
        }
    body.add(Execute(reduce));
    Stream xs = g.add_stream("x", DType::kF32, {kN}), ys = g.add_stream("y", DType::kF32, {kN});
    g.add_program("main", Sequence({HostWrite(xs, xv), Repeat(2, body), HostRead(ys, y)}));
  }

  std::vector<uint32_t> reference() const {
    std::vector<uint32_t> out;
    for (uint32_t row = 0; row < kN; ++row) {
      float sum = 0.0f;
      for (uint32_t c = 0; c < 2; ++c) {
        float acc = 0.0f;
        for (uint32_t j = 0; j < kB; ++j) acc = std::fmaf(a[row * kN + c * kB + j], x[c * kB + j], acc);
        sum = c == 0 ? acc : sum + acc;
      }
      out.push_back(std::bit_cast<uint32_t>(sum));
    }
    return out;
  }
};

std::vector<uint32_t> run_matvec(device::Device& dev, const exe::Executable& e, const MatVec4& mv) {
  runtime::Engine eng(dev, e);
  eng.load();
  std::vector<float> x = mv.x, y(MatVec4::kN);
  eng.connect_stream("x", std::span(x));
  eng.connect_stream("y", std::span(y));
  eng.run("main", std::chrono::seconds(120));
  std::vector<uint32_t> out;
  for (float f : y) out.push_back(std::bit_cast<uint32_t>(f));
  for (const char* t : {"partial", "gather", "x_blocks"})
    for (uint32_t w : words_of(eng.read_tensor(t))) out.push_back(w);
  return out;
}

TEST(Machine, MatVecIsBitIdenticalOnEmulatorAndRtl) {
  const MatVec4 mv;
  passes::CompileOptions o = firmware_compile_options();
  const exe::Executable e = passes::compile(mv.g, o);
  auto iss = make_emu(emu::Mode::kIss);
  auto native = make_emu(emu::Mode::kNative);
  auto rtl = make_vlt();
  const std::vector<uint32_t> a = run_matvec(*iss, e, mv), b = run_matvec(*native, e, mv);
  const uint64_t c0 = rtl->cycles();
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<uint32_t> c = run_matvec(*rtl, e, mv);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<uint32_t> want = mv.reference();
  ASSERT_GE(a.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), a.begin()));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  std::printf("RTL: %llu cycles in %.2f s (%.0f cycles/s, load and DMA included)\n",
              static_cast<unsigned long long>(rtl->cycles() - c0), s, (rtl->cycles() - c0) / s);
}

// Forwards to a VltMachine; at the first doorbell it first corrupts one word of tensor `a`
// on its first tile (between the host write and the compute that reads it).
class CorruptAtDoorbell final : public device::Device {
 public:
  CorruptAtDoorbell(vlt::VltMachine& m, uint32_t tile, uint32_t addr) : m_(m), tile_(tile), addr_(addr) {}
  uint32_t read_reg(uint32_t o) override { return m_.read_reg(o); }
  void write_reg(uint32_t o, uint32_t v) override {
    if (o == arch::kDevRegDoorbell && !done_) {
      done_ = true;
      m_.poke_word(tile_, addr_, 0x40490fdb);  // pi
    }
    m_.write_reg(o, v);
  }
  void dma_write(std::span<const device::DmaSegment> s, std::span<const std::byte> h) override { m_.dma_write(s, h); }
  void dma_read(std::span<const device::DmaSegment> s, std::span<std::byte> h) override { m_.dma_read(s, h); }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds t) override { return m_.wait_event(mask, t); }

 private:
  vlt::VltMachine& m_;
  uint32_t tile_, addr_;
  bool done_ = false;
};

TEST(Machine, ACorruptedWordInRtlMemoryShowsInTheComparison) {
  const exe::Tensor& a = *tiny_exe().find_tensor("a");
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  CorruptAtDoorbell bad(*rtl, a.intervals.at(0).tile, a.intervals.at(0).addr);
  const Outcome want = run_tiny(*iss, {"main"}), got = run_tiny(bad, {"main"});
  EXPECT_NE(want.out, got.out);
  EXPECT_NE(want.tensors, got.tensors);
  // Only the element the word feeds differs.
  uint32_t differ = 0;
  for (size_t i = 0; i < want.out.size(); ++i) differ += want.out[i] != got.out[i];
  EXPECT_EQ(differ, 1u);
}

// The all-to-all exchange: every tile of four sends a block of `block` words to each of the
// other three (three send entries; every receiving port takes flits from three senders at once
// while its own engine reads its SRAM through the same port); `read` gets the blocks received.
// Returns each tile's source block address.
std::vector<uint32_t> all_to_all(handbuilt::ProgramBuilder& b, std::vector<Region>& read, uint32_t block) {
  std::vector<uint32_t> src(4);
  std::vector<std::vector<uint32_t>> dst(4, std::vector<uint32_t>(4));
  for (uint32_t t = 0; t < 4; ++t) {
    std::vector<uint32_t> w;
    for (uint32_t i = 0; i < block; ++i) w.push_back(t << 24 | i * 2654435761u >> 8);
    src[t] = b.put(t, w);
    for (uint32_t s = 0; s < 4; ++s)
      if (s != t) dst[t][s] = b.alloc(t, block);
  }
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t d = 0; d < 4; ++d)
      if (d != t) {
        b.add_send(t, 0, src[t], block * 4, d, dst[d][t]);
        b.expect(d, 0, block);
        read.push_back({d, dst[d][t], block});
      }
  return src;
}

TEST(Machine, RingRunsTheSameOnEmulatorAndRtl) {
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  Ring r1, r2;
  const RunResult a = run_ring(*iss, r1), b = run_ring(*rtl, r2);
  EXPECT_EQ(a.events, device::kEventAllHalted);
  EXPECT_EQ(a, b);
  // After three rounds tile t holds what tile t-3 started with.
  EXPECT_EQ(b.outs[0], 1u * 16 + 1);
  // Three exchanges of 4 words on 4 tiles: what the barrier and exchange cost on the RTL.
  ASSERT_EQ(rtl->barrier_cycles().size(), 3u);
  std::printf("RTL: all arrived -> release: %llu cycles per exchange barrier (4 words a tile)\n",
              static_cast<unsigned long long>(rtl->barrier_cycles()[0]));
}

// All to all in one exchange (all_to_all, blocks of 200 words), twice.
TEST(Machine, AllToAllUnderContentionIsTheSameOnEmulatorAndRtl) {
  constexpr uint32_t kBlock = 200;
  auto build = [&](handbuilt::ProgramBuilder& b, std::vector<Region>& read) {
    all_to_all(b, read, kBlock);
    b.program() = {arch::kCtlRepeat, 2, 2, arch::kCtlExchange, 0, arch::kCtlEnd};
  };
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  handbuilt::ProgramBuilder b1(4, handbuilt::firmware_layout(firmware_elf(), tiny())), b2 = b1;
  std::vector<Region> read1, read2;
  build(b1, read1);
  build(b2, read2);
  const RunResult a = run_program(*iss, b1, read1), c = run_program(*rtl, b2, read2);
  EXPECT_EQ(a.events, device::kEventAllHalted) << iss->error_detail();
  EXPECT_EQ(a, c) << rtl->error_detail();
  ASSERT_EQ(c.outs.size(), 12u * kBlock);
  EXPECT_EQ(c.outs[3 * kBlock], 1u << 24);  // the first block tile 1 sent (to tile 0)
}

// A host sync in which tile 1 declares 4 words and the host writes `words` (tile 0: 2 of 2):
// at the doorbell, fewer is words lost, more is words duplicated, on the RTL as on the
// emulator; exactly 4 runs to the end.
RunResult host_sync_with(device::Device& dev, uint32_t words) {
  handbuilt::ProgramBuilder b(4, handbuilt::firmware_layout(firmware_elf(), tiny()));
  const uint32_t buf0 = b.alloc(0, 2), buf1 = b.alloc(1, 8);
  for (uint32_t t = 0; t < 4; ++t) b.expect_host(t, 0, t == 0 ? 2 : t == 1 ? 4 : 0);
  b.program() = {arch::kCtlHostSync, 0, arch::kCtlEnd};
  dev.write_reg(arch::kDevRegControl, device::kControlReset);
  b.load(dev);
  dev.write_reg(arch::kDevRegControl, device::kControlStart);
  RunResult res;
  res.events = dev.wait_event(device::kEventHostSync | device::kEventError, std::chrono::seconds(60));
  if (res.events == device::kEventHostSync) {
    std::vector<uint32_t> data = {7, 8, 9, 10, 11, 12, 13, 14};
    const device::DmaSegment segs[2] = {{0, buf0, 8, 0}, {1, buf1, words * 4, 0}};
    dev.dma_write(segs, std::as_bytes(std::span(data)));
    dev.write_reg(arch::kDevRegEvents, device::kEventHostSync);
    dev.write_reg(arch::kDevRegDoorbell, 1);
    res.events = dev.wait_event(device::kEventAllHalted | device::kEventError, std::chrono::seconds(60));
  }
  res.err_tile = dev.read_reg(arch::kDevRegErrTile);
  res.err_superstep = dev.read_reg(arch::kDevRegErrSuperstep);
  res.err_cause = dev.read_reg(arch::kDevRegErrCause);
  res.err_detail = dev.read_reg(arch::kDevRegErrDetail);
  std::vector<uint32_t> w(8);
  const device::DmaSegment s{1, buf1, 32, 0};
  dev.dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
  res.outs = w;
  return res;
}

TEST(Machine, HostSyncWordCountsAreCheckedAtTheDoorbell) {
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  for (uint32_t words : {3u, 4u, 5u}) {
    const RunResult a = host_sync_with(*iss, words), b = host_sync_with(*rtl, words);
    EXPECT_EQ(a, b) << words << " words; emulator: " << iss->error_detail() << "; RTL: " << rtl->error_detail();
    if (words == 4) {
      EXPECT_EQ(a.events, device::kEventAllHalted);
    } else {
      EXPECT_EQ(a.err_tile, 1u);
      EXPECT_EQ(a.err_cause, arch::kDeviceErrorBit | (words < 4 ? arch::kDevErrRecvLost : arch::kDevErrRecvDuplicated));
      EXPECT_EQ(a.err_detail, words);
    }
  }
}

// The tool: the tiny graph's executable as a file, on the RTL and the emulator.
TEST(Machine, ToolComparesAnExecutableFile) {
  const std::string path = ::testing::TempDir() + "tiny_graph_rtl_machine_" + std::to_string(::getpid()) + ".tsx";
  exe::write_file(tiny_exe(), path);
  const std::string cmd = std::string(TESSERA_VLT_MACHINE_TOOL) + " " + path +
                          " --program main --program back --compare > " + path + ".log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream log(path + ".log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("bit-identical to the emulator"), std::string::npos) << text;
  std::remove(path.c_str());
  std::remove((path + ".log").c_str());
}

// A broken ring, and what the emulator reports for it (tile, cause, detail); the RTL must
// report the same in every ERR_* register (ERR_PC and ERR_TVAL included).
struct Broken {
  const char* name;
  std::function<void(Ring&)> edit;
  uint32_t tile, cause, detail;
};

const Broken kBroken[] = {
    {"WordsLost", [](Ring& r) { r.b.expect(2, 0, 1); },  // tile 2 expects a word nobody sends
     2, arch::kDeviceErrorBit | arch::kDevErrRecvLost, 4},
    {"WordsDuplicated",
     [](Ring& r) {
       const uint32_t extra = r.b.alloc(3, 1);
       r.b.add_send(0, 0, r.out[0], 4, 3, extra);  // one word tile 3 does not expect
     },
     3, arch::kDeviceErrorBit | arch::kDevErrRecvDuplicated, 5},
    {"TileThatEndsEarly", [](Ring& r) { r.b.patch_program(1, 3, arch::kCtlEnd); },
     1, arch::kDeviceErrorBit | arch::kDevErrHaltedAtBarrier, 0},
    {"InvalidControlProgram", [](Ring& r) { r.b.patch_program(2, 3, 99); },
     2, arch::kDeviceErrorBit | arch::kDevErrExitError, arch::kExitBadProgram | 3},
    {"TrapInACodelet",
     [](Ring& r) { r.b.add_vertex(2, 0, handbuilt::kCodelet_copy, {r.out[2], r.in[2] + 2, 1}); },  // misaligned
     2, 4, 0},
    {"SyncKindsDisagree",
     [](Ring& r) {
       for (uint32_t t = 0; t < 4; ++t) r.b.expect_host(t, 0, 0);  // a stream 0, so HostSync(0) is valid
       r.b.patch_program(3, 3, arch::kCtlHostSync);
     },
     3, arch::kDeviceErrorBit | arch::kDevErrSyncMismatch, 1},  // tile 3 arrives for a host sync
};

class Errors : public ::testing::TestWithParam<Broken> {};

TEST_P(Errors, ReachTheRegistersOnTheRtlAsOnTheEmulator) {
  const Broken& x = GetParam();
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  Ring r1, r2;
  x.edit(r1);
  x.edit(r2);
  const RunResult a = run_ring(*iss, r1), b = run_ring(*rtl, r2);
  EXPECT_EQ(a.events & device::kEventError, device::kEventError) << iss->error_detail();
  if (x.cause) {
    EXPECT_EQ(a.err_tile, x.tile);
    EXPECT_EQ(a.err_cause, x.cause);
    EXPECT_EQ(a.err_detail, x.detail);
  }
  EXPECT_EQ(a, b) << "emulator: " << iss->error_detail() << "\nRTL: " << rtl->error_detail();
  // The device stays usable: the good ring runs after a reset.
  Ring good;
  EXPECT_EQ(run_ring(*rtl, good).events, device::kEventAllHalted);
}

INSTANTIATE_TEST_SUITE_P(Ring, Errors, ::testing::ValuesIn(kBroken), [](const auto& i) { return std::string(i.param.name); });

// What the host sees of a stopped device: the registers and the ring's buffers.
struct Frozen {
  uint32_t state = 0, superstep = 0, events = 0, arrived = 0;
  uint32_t err_tile = 0, err_superstep = 0, err_cause = 0, err_pc = 0, err_tval = 0, err_detail = 0;
  std::vector<uint32_t> words;
  bool operator==(const Frozen&) const = default;
};
Frozen frozen(device::Device& dev, const Ring& r) {
  Frozen f;
  f.state = dev.read_reg(arch::kDevRegState);
  f.superstep = dev.read_reg(arch::kDevRegSuperstep);
  f.events = dev.read_reg(arch::kDevRegEvents);
  f.arrived = dev.read_reg(arch::kDevRegArrivedBase);
  f.err_tile = dev.read_reg(arch::kDevRegErrTile);
  f.err_superstep = dev.read_reg(arch::kDevRegErrSuperstep);
  f.err_cause = dev.read_reg(arch::kDevRegErrCause);
  f.err_pc = dev.read_reg(arch::kDevRegErrPc);
  f.err_tval = dev.read_reg(arch::kDevRegErrTval);
  f.err_detail = dev.read_reg(arch::kDevRegErrDetail);
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t a : {r.in[t], r.out[t]}) {
      std::vector<uint32_t> w(Ring::kWords);
      const device::DmaSegment s{t, a, Ring::kWords * 4, 0};
      dev.dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
      f.words.insert(f.words.end(), w.begin(), w.end());
    }
  return f;
}
std::string show(const Frozen& f) {
  char b[256];
  std::snprintf(b, sizeof b, "STATE %u SUPERSTEP %u EVENTS %#x ARRIVED %#x ERR tile %u superstep %u cause %#x pc %#x tval %#x detail %#x",
                f.state, f.superstep, f.events, f.arrived, f.err_tile, f.err_superstep, f.err_cause, f.err_pc, f.err_tval,
                f.err_detail);
  return b;
}

// CONTROL abort at a superstep break, in the middle of a 6-round ring: the emulator stops
// where it is. The RTL must too: after 20,000 more cycles the cores, the barrier and the
// exchange engines have not moved (SUPERSTEP, ARRIVED, EVENTS, the ERR_* registers and the
// ring's buffers as the emulator has them); after a CONTROL reset the good ring runs again,
// bit-identical to the emulator.
TEST(Machine, AbortStopsTheMachineAsOnTheEmulator) {
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  auto abort_at_break = [](device::Device& dev, Ring& r, const std::function<void()>& after) {
    dev.write_reg(arch::kDevRegControl, device::kControlReset);
    r.b.load(dev);
    dev.write_reg(arch::kDevRegBreakSuperstep, 3);
    dev.write_reg(arch::kDevRegControl, device::kControlStart);
    const uint32_t ev =
        dev.wait_event(device::kEventBreak | device::kEventError | device::kEventAllHalted, std::chrono::seconds(60));
    EXPECT_EQ(ev, device::kEventBreak);
    dev.write_reg(arch::kDevRegControl, device::kControlAbort);
    after();
    return frozen(dev, r);
  };
  Ring r1(6), r2(6);
  const Frozen a = abort_at_break(*iss, r1, [&] {
    EXPECT_EQ(iss->wait_event(~0u & ~device::kEventError & ~device::kEventBreak, std::chrono::seconds(1)), 0u);
  });
  const Frozen b = abort_at_break(*rtl, r2, [&] { rtl->step(20000); });
  EXPECT_EQ(a.state, device::kStateError);
  EXPECT_EQ(a.superstep, 3u);
  EXPECT_EQ(a.err_cause, arch::kDeviceErrorBit);
  EXPECT_EQ(a, b) << "emulator: " << show(a) << "\nRTL:      " << show(b);
  EXPECT_EQ(rtl->error_detail(), "aborted by the host at superstep 3");

  // Usable again after a reset: the good ring, bit for bit as the emulator runs it.
  Ring g1, g2;
  const RunResult x = run_ring(*iss, g1), y = run_ring(*rtl, g2);
  EXPECT_EQ(x.events, device::kEventAllHalted);
  EXPECT_EQ(x, y);
}

// CONTROL abort while the exchange engines walk their send lists (every tile sends 3 x 600
// words): the engines stop (not every word arrives), the barrier never releases, SUPERSTEP
// stays 0 and ARRIVED shows every tile arrived; the network drains. Then the device runs the
// good ring as the emulator does.
TEST(Machine, AbortInTheMiddleOfAnExchangeStopsTheEngines) {
  constexpr uint32_t kBlock = 600;
  auto rtl = make_vlt();
  handbuilt::ProgramBuilder b(4, handbuilt::firmware_layout(firmware_elf(), tiny()));
  std::vector<Region> read;
  std::vector<uint32_t> src(4);
  for (uint32_t t = 0; t < 4; ++t) {
    std::vector<uint32_t> w(kBlock, 0x5a5a0000u | t);
    src[t] = b.put(t, w);
  }
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t d = 0; d < 4; ++d)
      if (d != t) {
        const uint32_t dst = b.alloc(d, kBlock);
        b.add_send(t, 0, src[t], kBlock * 4, d, dst);
        b.expect(d, 0, kBlock);
        read.push_back({d, dst, kBlock});
      }
  b.program() = {arch::kCtlExchange, 0, arch::kCtlEnd};
  rtl->write_reg(arch::kDevRegControl, device::kControlReset);
  b.load(*rtl);
  rtl->write_reg(arch::kDevRegControl, device::kControlStart);
  for (int i = 0; i < 100000 && !(rtl->phases().size() == 1 && rtl->phases()[0].all_arrived); ++i) rtl->step(1);
  ASSERT_TRUE(rtl->phases().size() == 1 && rtl->phases()[0].all_arrived);
  rtl->step(60);  // the engines are walking now
  rtl->write_reg(arch::kDevRegControl, device::kControlAbort);
  rtl->step(20000);
  EXPECT_EQ(rtl->read_reg(arch::kDevRegState), device::kStateError);
  EXPECT_EQ(rtl->read_reg(arch::kDevRegSuperstep), 0u);
  EXPECT_EQ(rtl->read_reg(arch::kDevRegArrivedBase), 0xfu);
  EXPECT_EQ(rtl->read_reg(arch::kDevRegErrSuperstep), 0u);
  EXPECT_EQ(rtl->phases().size(), 1u);  // no release
  uint32_t arrived = 0;
  for (const Region& r : read) {
    std::vector<uint32_t> w(r.words);
    const device::DmaSegment s{r.tile, r.addr, r.words * 4, 0};
    rtl->dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
    for (uint32_t x : w) arrived += (x >> 16) == 0x5a5a;
  }
  EXPECT_LT(arrived, 12 * kBlock) << "the engines did not stop";
  EXPECT_GT(arrived, 0u) << "the exchange had not begun";
  auto iss = make_emu(emu::Mode::kIss);
  Ring g1, g2;
  const RunResult x = run_ring(*iss, g1), y = run_ring(*rtl, g2);
  EXPECT_EQ(x.events, device::kEventAllHalted);
  EXPECT_EQ(x, y);
}

// The mesh port contract on the NIs' side, and "network idle": the all-to-all exchange of
// 200-word blocks (the injection ports stall under contention) while the host keeps reading
// tile memory through the host node (the replies compete with the engines' flits for the
// injection port). The harness watches every cycle (VltMachine::checks): no offered flit may
// change before the mesh takes it, and net_idle_o may not be high while an NI holds a reply.
// The run's results equal the emulator's.
TEST(Machine, NiInjectionIsStableAndIdleCoversRepliesUnderHostReads) {
  constexpr uint32_t kBlock = 200;
  auto build = [&](handbuilt::ProgramBuilder& b, std::vector<Region>& read) {
    const std::vector<uint32_t> src = all_to_all(b, read, kBlock);
    read.push_back({0, src[0], kBlock});
    b.program() = {arch::kCtlRepeat, 3, 2, arch::kCtlExchange, 0, arch::kCtlEnd};
    return src;
  };
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  handbuilt::ProgramBuilder b1(4, handbuilt::firmware_layout(firmware_elf(), tiny())), b2 = b1;
  std::vector<Region> read1, read2;
  build(b1, read1);
  const std::vector<uint32_t> src = build(b2, read2);
  const RunResult a = run_program(*iss, b1, read1);

  rtl->write_reg(arch::kDevRegControl, device::kControlReset);
  b2.load(*rtl);
  rtl->write_reg(arch::kDevRegControl, device::kControlStart);
  std::vector<uint32_t> sink(4 * kBlock);
  uint32_t issued = 0;
  uint32_t state = device::kStateRunning;
  // In bursts of 400 cycles with 400 quiet ones between: the barrier waits for the network
  // to be idle, which the host's reads would otherwise never let it be.
  for (uint64_t c = 0; state == device::kStateRunning && c < 400000; ++c) {
    if (c % 800 < 400 && rtl->reads_pending() < 6) {
      const uint32_t t = issued % 4, i = issued / 4 % kBlock;
      rtl->queue_read(0, t, src[t] + 4 * i, &sink[issued % sink.size()]);
      ++issued;
    }
    rtl->step(1);
    if (c % 256 == 0) state = rtl->read_reg(arch::kDevRegState);
  }
  std::printf("RTL: %u host reads during the run; checks: NI injection unstable %llu, idle with a reply in an NI %llu\n",
              issued, static_cast<unsigned long long>(rtl->checks().ni_inject_unstable),
              static_cast<unsigned long long>(rtl->checks().idle_with_reply));
  ASSERT_EQ(state, device::kStateHalted);
  rtl->step(2000);  // the last replies
  RunResult c;
  c.events = device::kEventAllHalted;
  for (const Region& r : read2) {
    std::vector<uint32_t> w(r.words);
    const device::DmaSegment s{r.tile, r.addr, r.words * 4, 0};
    rtl->dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
    c.outs.insert(c.outs.end(), w.begin(), w.end());
  }
  EXPECT_EQ(a.events, device::kEventAllHalted);
  EXPECT_EQ(a.outs, c.outs);
  EXPECT_GT(issued, 1000u);
  EXPECT_EQ(rtl->checks().ni_inject_unstable, 0u) << "an NI changed its injection flit while valid and not ready";
  EXPECT_EQ(rtl->checks().idle_with_reply, 0u) << "net_idle_o while an NI held a read reply";
  EXPECT_EQ(rtl->checks().d2h_dropped, 0u);
}

// A plain dma_read of single words (the network otherwise empty): the request leaves the
// network when the NI takes it, its reply enters a cycle or two later. "Network idle" must
// cover the reply in between.
TEST(Machine, NetworkIdleCoversAReadReplyInsideTheNi) {
  auto rtl = make_vlt();
  auto iss = make_emu(emu::Mode::kIss);
  for (uint32_t t = 0; t < 4; ++t) {
    uint32_t x = 0, y = 1;
    const device::DmaSegment s{t, arch::kSramBase + 4 * t, 4, 0};
    rtl->dma_read({&s, 1}, std::as_writable_bytes(std::span(&x, 1)));
    iss->dma_read({&s, 1}, std::as_writable_bytes(std::span(&y, 1)));
    EXPECT_EQ(x, y);
  }
  EXPECT_EQ(rtl->checks().idle_with_reply, 0u) << "net_idle_o while an NI held a read reply";
}

// The flit's address field and a read reply's tag (docs/network.md): words written to the
// first and the last word of every tile's SRAM (the highest word address the flit carries on
// this target) and one debug write in the middle, then read back from every tile at once:
// the requests for the same address on different tiles are answered out of order (the nearer
// tiles first), so only the replies' tags put each word where it belongs. Both backends must
// hold what was written.
TEST(Machine, SramEdgesRoundTripThroughTheFlitsAddressesAndTags) {
  auto rtl = make_vlt();
  auto iss = make_emu(emu::Mode::kIss);
  const uint32_t tiles = rtl->tile_count(), last = arch::kSramBase + vlt::VltMachine::target().sram_bytes - 4;
  std::vector<uint32_t> w(2 * tiles);
  std::vector<device::DmaSegment> segs;
  for (uint32_t t = 0; t < tiles; ++t) {
    w[2 * t] = 0x5a000000u + t;
    w[2 * t + 1] = ~(0x5a000000u + t);
    segs.push_back({t, arch::kSramBase, 4, 8 * t});
    segs.push_back({t, last, 4, 8 * t + 4});
  }
  rtl->dma_write(segs, std::as_bytes(std::span(w)));
  iss->dma_write(segs, std::as_bytes(std::span(w)));
  const uint32_t mid = arch::kSramBase + vlt::VltMachine::target().sram_bytes / 2;
  rtl->poke_word(tiles - 1, mid, 0x0ddba11u);
  const uint32_t poke = 0x0ddba11u;
  const device::DmaSegment ps{tiles - 1, mid, 4, 0};
  iss->dma_write({&ps, 1}, std::as_bytes(std::span(&poke, 1)));
  // Read back the farthest tile first: its replies come after those of nearer tiles asked later.
  std::vector<device::DmaSegment> reads(segs.rbegin(), segs.rend());
  reads.push_back(ps);
  reads.back().host_offset = 8 * tiles;
  std::vector<uint32_t> x(2 * tiles + 1, 0), y(2 * tiles + 1, 1);
  rtl->dma_read(reads, std::as_writable_bytes(std::span(x)));
  iss->dma_read(reads, std::as_writable_bytes(std::span(y)));
  std::vector<uint32_t> want = w;
  want.push_back(poke);
  EXPECT_EQ(x, want);
  EXPECT_EQ(y, want);
}

// AXI4-Stream on m_axis_d2h across a CONTROL reset: the host stalls the stream (TREADY low)
// while replies wait in the host port's slice (TVALID high), then resets the device. TVALID
// must stay high, with the same TDATA, until the host takes the beat; afterwards the device
// reads memory as the emulator does.
TEST(Machine, ControlResetKeepsTheDeviceToHostStreamValidUntilTaken) {
  auto rtl = make_vlt();
  auto iss = make_emu(emu::Mode::kIss);
  rtl->set_d2h_ready(0);
  std::vector<uint32_t> sink(8);
  for (uint32_t i = 0; i < 8; ++i) rtl->queue_read(0, 3, arch::kSramBase + 4 * i, &sink[i]);
  rtl->step(200);
  rtl->write_reg(arch::kDevRegControl, device::kControlReset);
  rtl->step(50);
  rtl->set_d2h_ready(1);
  rtl->step(50);
  EXPECT_EQ(rtl->checks().d2h_dropped, 0u) << "TVALID fell (or TDATA changed) without a handshake";
  std::vector<uint32_t> x(16), y(16);
  const device::DmaSegment s{3, arch::kSramBase, 64, 0};
  rtl->dma_read({&s, 1}, std::as_writable_bytes(std::span(x)));
  iss->dma_read({&s, 1}, std::as_writable_bytes(std::span(y)));
  EXPECT_EQ(x, y);
  EXPECT_EQ(rtl->read_reg(arch::kDevRegState), device::kStateReset);
}

}  // namespace
}  // namespace tessera::testing
