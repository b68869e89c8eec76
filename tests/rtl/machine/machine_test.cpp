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

#include "program_builder.h"
#include "examples.h"
#include "tessera/arch/device_regs.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/file.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/vlt_machine.h"
#include "firmware_fixture.h"
#include "tiny_graph.h"
#include "to_executable.h"

namespace tessera::testing {
namespace {


std::unique_ptr<emu::Machine> make_emu(emu::Mode mode) {
  emu::MachineOptions o;
  o.target = &tiny();
  o.mode = mode;
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(firmware_elf());
  return m;
}
std::unique_ptr<vlt::VltMachine> make_vlt() {
  auto m = std::make_unique<vlt::VltMachine>();
  m->load_firmware(firmware_elf());
  return m;
}

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

// A ring on the four tiles: every tile sends its 4-word `out` to the next tile's `in`
// (exchange 0), then copies `in` to `out` (compute set 0), `rounds` times; tests/machine's
// errors_test.cpp has the 16-tile original.
struct Ring {
  static constexpr uint32_t kWords = 4;
  std::vector<uint32_t> in, out;
  handbuilt::ProgramBuilder b;

  explicit Ring(uint32_t rounds = 3) : b(4, handbuilt::firmware_layout(firmware_elf(), tiny())) {
    for (uint32_t t = 0; t < 4; ++t) {
      in.push_back(b.alloc(t, kWords));
      out.push_back(b.put(t, {t * 16 + 1, t * 16 + 2, t * 16 + 3, t * 16 + 4}));
    }
    for (uint32_t t = 0; t < 4; ++t) {
      b.add_send(t, 0, out[t], kWords * 4, (t + 1) % 4, in[(t + 1) % 4]);
      b.expect((t + 1) % 4, 0, kWords);
      b.add_vertex(t, 0, handbuilt::kCodelet_copy, {out[t], in[t], kWords});
    }
    b.program() = {arch::kCtlRepeat, rounds, 4, arch::kCtlExchange, 0, arch::kCtlExecute, 0, arch::kCtlEnd};
  }
};

// Loads `r` onto `dev`, runs it to the end or an error; returns the events and the ERR_*
// registers (tile, superstep, cause, detail).
struct RunResult {
  uint32_t events = 0, err_tile = 0, err_superstep = 0, err_cause = 0, err_pc = 0, err_tval = 0, err_detail = 0;
  std::vector<uint32_t> outs;
  bool operator==(const RunResult&) const = default;
};
struct Region {
  uint32_t tile, addr, words;
};
RunResult run_program(device::Device& dev, handbuilt::ProgramBuilder& b, const std::vector<Region>& read) {
  dev.write_reg(arch::kDevRegControl, device::kControlReset);
  b.load(dev);
  dev.write_reg(arch::kDevRegControl, device::kControlStart);
  RunResult res;
  res.events = dev.wait_event(device::kEventAllHalted | device::kEventError, std::chrono::seconds(60));
  res.err_tile = dev.read_reg(arch::kDevRegErrTile);
  res.err_superstep = dev.read_reg(arch::kDevRegErrSuperstep);
  res.err_cause = dev.read_reg(arch::kDevRegErrCause);
  res.err_detail = dev.read_reg(arch::kDevRegErrDetail);
  res.err_pc = dev.read_reg(arch::kDevRegErrPc);
  res.err_tval = dev.read_reg(arch::kDevRegErrTval);
  for (const Region& r : read) {
    std::vector<uint32_t> w(r.words);
    const device::DmaSegment s{r.tile, r.addr, r.words * 4, 0};
    dev.dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
    res.outs.insert(res.outs.end(), w.begin(), w.end());
  }
  return res;
}
RunResult run_ring(device::Device& dev, Ring& r) {
  std::vector<Region> read;
  for (uint32_t t = 0; t < 4; ++t) read.push_back({t, r.out[t], Ring::kWords});
  return run_program(dev, r.b, read);
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

// All to all in one exchange, twice: every tile sends a block of 200 words to each of the
// other three (three send entries; every receiving port takes flits from three senders at
// once while its own engine reads its SRAM through the same port).
TEST(Machine, AllToAllUnderContentionIsTheSameOnEmulatorAndRtl) {
  constexpr uint32_t kBlock = 200;
  auto build = [&](handbuilt::ProgramBuilder& b, std::vector<Region>& read) {
    std::vector<uint32_t> src(4);
    std::vector<std::vector<uint32_t>> dst(4, std::vector<uint32_t>(4));
    for (uint32_t t = 0; t < 4; ++t) {
      std::vector<uint32_t> w;
      for (uint32_t i = 0; i < kBlock; ++i) w.push_back(t << 24 | i * 2654435761u >> 8);
      src[t] = b.put(t, w);
      for (uint32_t s = 0; s < 4; ++s)
        if (s != t) dst[t][s] = b.alloc(t, kBlock);
    }
    for (uint32_t t = 0; t < 4; ++t)
      for (uint32_t d = 0; d < 4; ++d)
        if (d != t) {
          b.add_send(t, 0, src[t], kBlock * 4, d, dst[d][t]);
          b.expect(d, 0, kBlock);
          read.push_back({d, dst[d][t], kBlock});
        }
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
  const std::string path = ::testing::TempDir() + "tiny_graph_rtl_machine.tsx";
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

}  // namespace
}  // namespace tessera::testing
