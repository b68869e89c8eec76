// card-sim (host/card): the card driver over the Verilated `tiny` kernel with the data
// movers' C++ on its streams. DMA round trips through the movers (random words, their seed
// printed; a small ring so that reads take several launches and the ring wraps), the
// contract's checks, and the Engine's runs bit-identical to the emulator (the tiny graph of
// tests/compiler, as rtl.machine.* runs it on VltMachine).
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <random>

#include "../rtl/machine/firmware_fixture.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/card/card_sim.h"
#include "tessera/emu/machine.h"
#include "tessera/ops/streaming.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/streamed_matmul.h"
#include "tiny_graph.h"

namespace tessera::testing {
namespace {

std::unique_ptr<card::CardDevice> make_card(uint32_t ring_records = 8192) {
  card::CardOptions o;
  o.ring_records = ring_records;
  return card::make_card_sim("tiny", firmware_elf(), stdout, o);
}

TEST(CardSim, DmaRoundTripsThroughTheMovers) {
  const uint64_t seed = tessera::testutil::random_seed("card DMA round trips");
  std::mt19937 rng(seed);
  auto card = make_card(8);  // 7 replies a launch: reads take many launches, the ring wraps
  const uint32_t base = arch::kSramBase + 0x8000;
  std::vector<device::DmaSegment> segs;
  uint64_t at = 0;
  for (uint32_t t = 0; t < 4; ++t) {
    const uint32_t words = 1 + static_cast<uint32_t>(rng() % 40);
    segs.push_back({t, base + 4 * static_cast<uint32_t>(rng() % 256), words * 4, at});
    at += words * 4;
  }
  std::vector<uint32_t> host(at / 4);
  for (uint32_t& w : host) w = static_cast<uint32_t>(rng());
  card->dma_write(segs, std::as_bytes(std::span(host)));
  std::vector<uint32_t> back(host.size(), 0xdeadbeef);
  card->dma_read(segs, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, host);
  // Reading in another order and split differently gives the same words.
  std::vector<device::DmaSegment> rev(segs.rbegin(), segs.rend());
  std::vector<uint32_t> back2(host.size(), 0);
  card->dma_read(rev, std::as_writable_bytes(std::span(back2)));
  EXPECT_EQ(back2, host);
  const card::CardTraffic& t = card->traffic();
  EXPECT_EQ(t.h2d_bytes, at);
  EXPECT_EQ(t.d2h_bytes, 2 * at);
  EXPECT_GT(t.h2d_cycles, 0u);
}

// `small` has two host nodes: writes go through both (rows 0-1 through node 0, rows 2-3
// through node 1), each tile's fence behind its words on the same node.
TEST(CardSim, WritesThroughBothHostNodesOfSmallArriveWhole) {
  const uint64_t seed = tessera::testutil::random_seed("card writes through both host nodes");
  std::mt19937 rng(seed);
  auto card = card::make_card_sim("small", firmware_elf(), stdout);
  std::vector<device::DmaSegment> segs;
  uint64_t at = 0;
  for (uint32_t t = 0; t < 16; ++t)
    for (int k = 0; k < 2; ++k) {  // two segments a tile, in a shuffled order below
      const uint32_t words = 1 + static_cast<uint32_t>(rng() % 64);
      segs.push_back({t, arch::kSramBase + 0x8000 + 0x1000 * static_cast<uint32_t>(k), words * 4, at});
      at += words * 4;
    }
  std::shuffle(segs.begin(), segs.end(), rng);
  std::vector<uint32_t> host(at / 4);
  for (uint32_t& w : host) w = static_cast<uint32_t>(rng());
  card->dma_write(segs, std::as_bytes(std::span(host)));
  std::vector<uint32_t> back(host.size(), 0);
  card->dma_read(segs, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, host);
}

TEST(CardSim, RejectsBadSegmentsAndStaysUsable) {
  auto card = make_card();
  std::vector<uint32_t> w(4, 7);
  const auto bytes = std::as_bytes(std::span(w));
  const device::DmaSegment bad[] = {
      {4, arch::kSramBase, 4, 0},                  // no such tile
      {0, arch::kSramBase + 2, 4, 0},              // misaligned
      {0, arch::kSramBase - 4, 4, 0},              // outside SRAM
      {0, arch::kSramBase + 65536 - 4, 8, 0},      // runs past SRAM
      {0, arch::kSramBase + 0x8000, 8, 12},        // past the host buffer
  };
  for (const auto& s : bad) EXPECT_THROW(card->dma_write({&s, 1}, bytes), device::DeviceError) << s.tile << " " << s.addr;
  const device::DmaSegment good{1, arch::kSramBase + 0x8000, 16, 0};
  card->dma_write({&good, 1}, bytes);
  std::vector<uint32_t> r(4);
  card->dma_read({&good, 1}, std::as_writable_bytes(std::span(r)));
  EXPECT_EQ(r, w);
}

TEST(CardSim, IdentifiesTheKernel) {
  auto card = make_card();
  EXPECT_EQ(card->read_reg(arch::kDevRegId), arch::kDeviceIdMagic);
  EXPECT_EQ(card->read_reg(arch::kDevRegTileCount), 4u);
  EXPECT_EQ(card->read_reg(arch::kDevRegState), device::kStateReset);
  // A target this build has no kernel for is named.
  try {
    card::make_card_sim("medium", firmware_elf(), stdout);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("medium"), std::string::npos) << e.what();
  }
}

// The card I/O layer alone: tess_h2d sends 200 read requests while no tess_d2h runs. The
// replies fill the stream's FIFO, the kernel's device-to-host port stalls, the mesh backs up
// and the kernel stops taking requests: waiting for tess_h2d reports the stall. Once tess_d2h
// runs, everything drains: 200 records in the ring, one per word asked (write flits to host
// node 4 whose addresses are the requests' tags, counting on from the descriptor's and
// wrapping at 2^18), and the movers' statuses say so. A bad descriptor stops tess_h2d with its code before any flit leaves.
TEST(CardSim, BackPressureStallsTheMoversUntilTheRingIsDrained) {
  auto io = card::make_card_sim_io("tiny", stdout);
  auto desc = io->alloc(64, card::Use::kH2dDesc, 0), data = io->alloc(64, card::Use::kH2dData, 0);
  auto hs = io->alloc(16, card::Use::kH2dStatus, 0), ring = io->alloc(256 * 16, card::Use::kD2hRing, 0);
  auto ds = io->alloc(16, card::Use::kD2hStatus, 0);
  const uint32_t base = arch::kSramBase + 0x8000;
  const uint32_t tag0 = (1u << 18) - 100;  // the first reply's tag: tags 262044..262143, 0..99
  const uint32_t d[4] = {200, base, 2 /* tile */ | 1u << 16 /* read */, tag0};
  desc->write(0, std::as_bytes(std::span(d)));
  io->start_h2d(0, {desc.get(), data.get(), hs.get(), 1, 64, 4, 4, 65536});
  EXPECT_THROW(io->wait_h2d(0, std::chrono::seconds(60)), device::DeviceError);
  io->start_d2h(0, {ring.get(), ds.get(), 256, 0, 0, 200});
  io->wait_h2d(0, std::chrono::seconds(60));
  io->wait_d2h(0, std::chrono::seconds(60));
  uint32_t st[4];
  hs->read(0, std::as_writable_bytes(std::span(st)));
  EXPECT_EQ(st[0], 0u);
  EXPECT_EQ(st[2], 200u) << "flits sent";
  ds->read(0, std::as_writable_bytes(std::span(st)));
  EXPECT_EQ(st[0], 0u);
  EXPECT_EQ(st[1], 200u) << "new head";
  EXPECT_EQ(st[2], 200u) << "records";
  std::vector<uint32_t> rec(200 * 4);
  ring->read(0, std::as_writable_bytes(std::span(rec)));
  std::vector<bool> seen(200);
  for (uint32_t i = 0; i < 200; ++i) {
    // The flit (docs/network.md): address 49:32, destination 60:50, kind 63:61; zero above.
    const uint32_t w1 = rec[4 * i + 1];
    const uint32_t tag = w1 & 0x3ffff, dst = w1 >> 18 & 0x7ff, kind = w1 >> 29;
    EXPECT_EQ(dst, 4u) << "record " << i;
    EXPECT_EQ(kind, 0u) << "record " << i;
    EXPECT_EQ(rec[4 * i + 2] | rec[4 * i + 3], 0u) << "record " << i;
    const uint32_t k = (tag - tag0) & 0x3ffff;
    ASSERT_LT(k, 200u) << "record " << i;
    seen[k] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 200);
  // A descriptor for tile 9 of 4: nothing sent, the code and the index reported.
  const uint32_t bad[8] = {1, base, 0, 0, 1, base, 9, 0};
  desc->write(0, std::as_bytes(std::span(bad)));
  io->start_h2d(0, {desc.get(), data.get(), hs.get(), 2, 64, 4, 4, 65536});
  io->wait_h2d(0, std::chrono::seconds(10));
  hs->read(0, std::as_writable_bytes(std::span(st)));
  EXPECT_EQ(st[0], 2u) << "kBadTile";
  EXPECT_EQ(st[1], 1u);
}

// Started with SRAM all zero (no image loaded), every core traps on an illegal instruction at
// the boot address: the error reaches the host through the card's registers (mcause 2, RISC-V's
// illegal instruction, at pc 0x8000_0000), error_detail says so, and a reset clears it.
TEST(CardSim, ATrapIsReportedThroughTheRegisters) {
  auto card = make_card();
  card->write_reg(arch::kDevRegControl, device::kControlStart);
  const uint32_t ev = card->wait_event(device::kEventError | device::kEventAllHalted, std::chrono::seconds(30));
  ASSERT_EQ(ev & device::kEventError, device::kEventError);
  EXPECT_EQ(card->read_reg(arch::kDevRegState), device::kStateError);
  EXPECT_EQ(card->read_reg(arch::kDevRegErrCause), 2u);
  EXPECT_EQ(card->read_reg(arch::kDevRegErrPc), arch::kSramBase);
  const std::string d = card->error_detail();
  EXPECT_NE(d.find("trap, mcause 0x00000002 at pc 0x80000000"), std::string::npos) << d;
  EXPECT_NE(d.find("card-sim (tiny)"), std::string::npos) << d;
  card->write_reg(arch::kDevRegControl, device::kControlReset);
  EXPECT_EQ(card->read_reg(arch::kDevRegState), device::kStateReset);
  EXPECT_EQ(card->error_detail(), "");
}

// What one Engine run leaves: every device-to-host stream and every tensor, as words.
struct Outcome {
  std::vector<uint32_t> out;
  std::map<std::string, std::vector<uint32_t>> tensors;
  uint32_t supersteps = 0;
  bool operator==(const Outcome&) const = default;
};

const exe::Executable& tiny_exe() {
  static const exe::Executable e = passes::compile(tiny_graph(), firmware_compile_options());
  return e;
}

Outcome run_tiny(device::Device& dev, const std::vector<std::string>& programs) {
  const exe::Executable& e = tiny_exe();
  runtime::Engine eng(dev, e);
  eng.load();
  std::vector<float> in = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f, 100.0f, 1e-3f};
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
  for (const exe::Tensor& t : e.tensors) {
    const std::vector<std::byte> b = eng.read_tensor(t.name);
    std::vector<uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    o.tensors[t.name] = w;
  }
  return o;
}

TEST(CardSim, EngineRunsTheTinyGraphBitIdenticalToTheEmulator) {
  const std::vector<std::string> programs = {"main", "back", "main"};
  emu::MachineOptions o;
  o.target = &tiny();
  o.mode = emu::Mode::kIss;
  emu::Machine iss(o);
  iss.load_firmware(firmware_elf());
  const Outcome want = run_tiny(iss, programs);
  auto card = make_card();
  const Outcome got = run_tiny(*card, programs);
  EXPECT_EQ(got, want);
  EXPECT_FALSE(got.out.empty());
  const card::CardTraffic& t = card->traffic();
  std::printf("card-sim (tiny): %llu cycles; host to device %llu bytes in %llu cycles, device to host %llu bytes in %llu cycles\n",
              static_cast<unsigned long long>(card->io().cycles()), static_cast<unsigned long long>(t.h2d_bytes),
              static_cast<unsigned long long>(t.h2d_cycles), static_cast<unsigned long long>(t.d2h_bytes),
              static_cast<unsigned long long>(t.d2h_cycles));
}

TEST(CardSim, DmaWhileRunningIsRefused) {
  auto card = make_card();
  runtime::Engine eng(*card, tiny_exe());
  eng.load();
  card->write_reg(arch::kDevRegControl, device::kControlStart);
  const uint32_t state = card->read_reg(arch::kDevRegState);
  if (state == device::kStateRunning) {
    std::vector<uint32_t> w(1);
    const device::DmaSegment s{0, arch::kSramBase + 0x8000, 4, 0};
    EXPECT_THROW(card->dma_write({&s, 1}, std::as_bytes(std::span(w))), device::DeviceError);
  }
  card->write_reg(arch::kDevRegControl, device::kControlReset);
  EXPECT_EQ(card->read_reg(arch::kDevRegState), device::kStateReset);
}

// Weight streaming on the card (docs/weight-streaming.md): y = x B with B's 24 x 40 values
// in card memory, streamed in column chunks one product ahead by tess_h2d pointed at device
// memory, and a region written back from the tiles (a training step's updated weights), read
// into the tiles again and read by the host (dram_read). The same bits as the emulator, and
// only x and the outputs cross to the host.
TEST(CardSim, WeightStreamingIsBitIdenticalToTheEmulator) {
  graph::Graph g(tiny());
  graph::Program body = graph::Sequence();
  const testutil::StreamedMatMul mm = testutil::add_streamed_matmul(g, body, 2, 24, 40, 10, 16384);
  const uint32_t m = mm.m, n = mm.n;
  body.add(graph::HostRead(g.add_stream("y", exe::DType::kF32, {m, n}), mm.y));
  testutil::add_write_back(g, body, mm);
  g.add_program("main", std::move(body));
  const exe::Executable e = passes::compile(g, firmware_compile_options());
  ASSERT_GE(mm.chunks, 3u);
  const exe::Stream* back = e.find_stream("back");
  ASSERT_NE(back, nullptr);

  auto run = [&](device::Device& dev, const char* what) {
    runtime::Engine eng(dev, e);
    eng.load();
    std::vector<float> in = mm.x_values, out(m * n), u_out(40);
    eng.connect_stream("x", std::span(in));
    eng.connect_stream("y", std::span(out));
    eng.connect_stream("u_out", std::span(u_out));
    eng.run("main", std::chrono::seconds(120));
    EXPECT_EQ(eng.reports().back().host_bytes, 4u * (m * mm.k + m * n + 40)) << what << ": only x and the outputs";
    for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(u_out[i], mm.x_values[i]) << what << ": u[" << i << "]";
    std::vector<float> written(40);
    dev.dram_read(back->source_offset, std::as_writable_bytes(std::span(written)));
    for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(written[i], mm.x_values[i]) << what << ": device memory " << i;
    return out;
  };
  emu::MachineOptions o;
  o.target = &tiny();
  o.mode = emu::Mode::kIss;
  emu::Machine iss(o);
  iss.load_firmware(firmware_elf());
  const std::vector<float> want = run(iss, "emulator");
  auto card = make_card();
  const std::vector<float> got = run(*card, "card-sim");
  mm.expect_product(got, 1e-5, "card-sim");
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4)) << "the emulator and card-sim differ";
  const card::CardTraffic& t = card->traffic();
  EXPECT_GE(t.dram_bytes, 4u * mm.k * mm.n) << "B streamed from card memory";
  std::printf("%u chunks; card-sim: %llu cycles, %llu bytes from device memory in %llu cycles, %llu of them waited "
              "for in host syncs\n",
              mm.chunks, static_cast<unsigned long long>(card->io().cycles()),
              static_cast<unsigned long long>(t.dram_bytes), static_cast<unsigned long long>(t.dram_cycles),
              static_cast<unsigned long long>(t.dram_wait_cycles));
  // Each chunk streams while the tiles compute the chunk before: the host syncs wait for less
  // than the transfers take.
  EXPECT_LT(2 * t.dram_wait_cycles, t.dram_cycles) << "device memory's words did not stream while the tiles computed";
}

// The card's device memory refuses what the contract forbids, and the card stays usable.
TEST(CardSim, DeviceMemoryRefusesMisuse) {
  auto card = make_card();
  const std::vector<std::byte> four(4);
  std::vector<std::byte> out(8);
  EXPECT_THROW(card->dram_write(uint64_t{tiny().device_memory_mib} << 20, four), device::DeviceError);
  EXPECT_THROW(card->dram_read(0, out), device::DeviceError) << "never written";
  card->dram_write(4, four);
  card->dram_read(0, out);  // the gap reads as zeros
  EXPECT_EQ(out, std::vector<std::byte>(8));
  const device::DmaSegment seg{0, arch::kSramBase + 0x8000, 4, 0};
  EXPECT_THROW(card->dram_to_tiles(std::span(&seg, 1)), device::DeviceError) << "outside a host sync";
  EXPECT_THROW(card->tiles_to_dram(std::span(&seg, 1)), device::DeviceError) << "outside a host sync";
  const Outcome o = run_tiny(*card, {"main"});
  EXPECT_FALSE(o.out.empty());
}

}  // namespace
}  // namespace tessera::testing
