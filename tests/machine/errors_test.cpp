// Every exchange violation, a tile that never arrives, a tile that ends early and a trap in
// a codelet each produce their named error (naming tiles, addresses, superstep), and the
// device stays usable after a reset.
#include <gmock/gmock.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <tuple>

#include "machine_fixture.h"

namespace tessera::testing {
namespace {

using ::testing::HasSubstr;
using handbuilt::kCodelet_copy;

// A ring: every tile sends its 4-word `out` to the next tile's `in` (exchange 0), then
// copies `in` to `out` (compute set 0), twice. Variants break one thing.
struct Ring {
  static constexpr uint32_t kWords = 4;
  std::vector<uint32_t> in, out;
  handbuilt::ProgramBuilder b;

  explicit Ring(emu::Machine& m) : b(m.tile_count(), layout_of(m)) {
    const uint32_t n = m.tile_count();
    for (uint32_t t = 0; t < n; ++t) {
      in.push_back(b.alloc(t, kWords));
      out.push_back(b.put(t, {t, t + 1, t + 2, t + 3}));
    }
    for (uint32_t t = 0; t < n; ++t) {
      b.add_send(t, 0, out[t], kWords * 4, (t + 1) % n, in[(t + 1) % n]);
      b.expect((t + 1) % n, 0, kWords);
      b.add_vertex(t, 0, kCodelet_copy, {out[t], in[t], kWords});
    }
    b.program() = {arch::kCtlRepeat, 2, 4, arch::kCtlExchange, 0, arch::kCtlExecute, 0, arch::kCtlEnd};
  }
};

// A relay: tile 0's word goes to tile 1 (exchange 0), which copies it on (compute set 0) for
// exchange 1 to carry to tile 2, and so on to tile kHops: each tile works in one or two
// supersteps and does nothing in the others, which native mode passes without turns
// (MachineOptions::pass_idle_supersteps); the other tiles never work. ISS mode runs every
// superstep of every tile, so each test below holds native mode to what it does.
struct Relay {
  static constexpr uint32_t kHops = 5;
  std::vector<uint32_t> in, out;
  handbuilt::ProgramBuilder b;

  explicit Relay(emu::Machine& m) : b(m.tile_count(), layout_of(m)) {
    for (uint32_t t = 0; t <= kHops; ++t) {
      in.push_back(b.alloc(t, 1));
      out.push_back(t == 0 ? b.put(0, {42}) : b.alloc(t, 1));
    }
    for (uint32_t h = 0; h < kHops; ++h) {
      b.add_send(h, h, out[h], 4, h + 1, in[h + 1]);
      b.expect(h + 1, h, 1);
      b.add_vertex(h + 1, h, kCodelet_copy, {out[h + 1], in[h + 1], 1});
    }
    b.program().clear();
    for (uint32_t h = 0; h < kHops; ++h) b.program().insert(b.program().end(), {arch::kCtlExchange, h, arch::kCtlExecute, h});
    b.program().push_back(arch::kCtlEnd);
  }
};

// Runs the loaded machine and returns the error text ("" if it finished).
std::string run_for_error(emu::Machine& m, int timeout_ms = 20000) {
  try {
    handbuilt::run(m, [](uint32_t) {}, timeout_ms);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Each mode with one host thread, and native mode with two too: the exchange checks each
// destination, and copies, on the pool (exchange.cpp), and still names the first tile.
class Errors : public ::testing::TestWithParam<std::tuple<emu::Mode, unsigned>> {
 protected:
  void SetUp() override { m = make_machine(mode(), std::get<1>(GetParam())); }
  emu::Mode mode() const { return std::get<0>(GetParam()); }
  uint32_t err(uint32_t reg) { return m->read_reg(reg); }
  std::unique_ptr<emu::Machine> m;
};

TEST_P(Errors, TheGoodRingRuns) {
  Ring r(*m);
  r.b.load(*m);
  EXPECT_EQ(run_for_error(*m), "");
  // After two rounds tile t holds what tile t-2 started with.
  auto got = handbuilt::read_words(*m, 5, r.out[5], 4);
  EXPECT_EQ(got, (std::vector<uint32_t>{3, 4, 5, 6}));
}

TEST_P(Errors, RunsAgainAfterAResetThatKeepsMemory) {
  Ring r(*m);
  r.b.load(*m);
  ASSERT_EQ(run_for_error(*m), "");
  m->write_reg(arch::kDevRegControl, device::kControlReset);  // SRAM kept: the ring turns on
  ASSERT_EQ(run_for_error(*m), "");
  EXPECT_EQ(handbuilt::read_words(*m, 5, r.out[5], 4), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST_P(Errors, TheRelayPassesTilesThatDoNothing) {
  Relay r(*m);
  r.b.load(*m);
  EXPECT_EQ(run_for_error(*m), "");
  EXPECT_EQ(handbuilt::read_words(*m, Relay::kHops, r.out[Relay::kHops], 1), (std::vector<uint32_t>{42}));
  EXPECT_EQ(m->superstep(), Relay::kHops);
}

// Tile 0 does nothing in supersteps 1 and 2 (passed) and sends to tile 12 in superstep 3,
// where tile 12, which never works and so passes every superstep, expects nothing: tile 12
// is named for the stray word at that barrier.
TEST_P(Errors, AStraySendToATilePassingItsSupersteps) {
  Relay r(*m);
  r.b.add_send(0, 3, r.out[0], 4, 12, r.b.alloc(12, 1));
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m),
              HasSubstr("tile 12 expected 0 words at the barrier of superstep 3 but received 1 (words duplicated)"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrRecvDuplicated);
  EXPECT_EQ(err(arch::kDevRegErrTile), 12u);
}

TEST_P(Errors, TwoWritesToOneAddress) {
  Ring r(*m);
  r.b.add_send(7, 0, r.out[7], 8, 3, r.in[3] + 4);  // overlaps tile 2's write into tile 3
  r.b.expect(3, 0, 2);
  r.b.load(*m);
  const std::string e = run_for_error(*m);
  EXPECT_THAT(e, HasSubstr("both write tile 3"));
  EXPECT_THAT(e, HasSubstr("superstep 0"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrXchgDoubleWrite);
  EXPECT_EQ(err(arch::kDevRegErrTile), 3u);
  EXPECT_EQ(err(arch::kDevRegErrDetail), r.in[3] + 4);
}

// The exchange skips its checks for send lists that passed them before, byte for byte
// (exchange.cpp): a list changed after the ring's exchange passed them several times is
// checked again.
TEST_P(Errors, ASendListChangedAfterItsExchangePassedIsCheckedAgain) {
  Ring r(*m);
  r.b.load(*m);
  for (int run = 0; run < 3; ++run) {  // the same exchange 6 times
    ASSERT_EQ(run_for_error(*m), "");
    m->write_reg(arch::kDevRegControl, device::kControlReset);
  }
  // Tile 7's entry now writes tile 3's `in`, as tile 2's does.
  auto word = [&](uint32_t tile, uint32_t addr) -> uint32_t& {
    return *reinterpret_cast<uint32_t*>(m->tile(tile).sram().data() + (addr - arch::kSramBase));
  };
  const uint32_t header = m->firmware().header;
  const uint32_t exchanges = word(7, header + offsetof(arch::TileHeader, exchanges));
  const uint32_t list = word(7, exchanges + offsetof(arch::ExchangeEntry, send_list));
  word(7, list + offsetof(arch::SendEntry, dst_node)) = 3;
  word(7, list + offsetof(arch::SendEntry, dst_addr)) = r.in[3];
  const std::string e = run_for_error(*m);
  EXPECT_THAT(e, HasSubstr("both write tile 3"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrXchgDoubleWrite);
  EXPECT_EQ(err(arch::kDevRegErrDetail), r.in[3]);
}

TEST_P(Errors, WriteWhereASendListReads) {
  Ring r(*m);
  r.b.add_send(9, 0, r.out[9], 4, 4, r.out[4]);  // tile 4 sends from out[4]
  r.b.expect(4, 0, 1);
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("which tile 4's send list reads"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrXchgWriteSource);
}

TEST_P(Errors, WriteIntoFirmware) {
  Ring r(*m);
  r.b.add_send(2, 0, r.out[2], 4, 6, m->firmware().header);
  r.b.expect(6, 0, 1);
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("inside the firmware's code, data or stack"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrXchgWriteProtected);
  EXPECT_EQ(err(arch::kDevRegErrTile), 6u);
}

TEST_P(Errors, NoSuchDestination) {
  Ring r(*m);
  r.b.add_send(2, 0, r.out[2], 4, 999, r.in[0]);
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("destination node 999 does not exist"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrXchgBadDestination);
}

TEST_P(Errors, LostWords) {
  Ring r(*m);
  r.b.expect(8, 0, 3);  // tile 8 waits for 7 words; only 4 come
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("tile 8 expected 7 words at the barrier of superstep 0 but received 4"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrRecvLost);
  EXPECT_EQ(err(arch::kDevRegErrDetail), 4u);
}

TEST_P(Errors, DuplicatedWords) {
  Ring r(*m);
  r.b.add_send(0, 0, r.out[0], 8, 10, r.b.alloc(10, 2));  // 2 words tile 10 does not expect
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("(words duplicated)"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrRecvDuplicated);
  EXPECT_EQ(err(arch::kDevRegErrTile), 10u);
}

TEST_P(Errors, TileThatEndsEarly) {
  Ring r(*m);
  r.b.patch_program(5, 3, arch::kCtlEnd);  // tile 5 skips its first exchange and ends
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("tile 5 finished its program while 15 tiles wait"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrHaltedAtBarrier);
}

TEST_P(Errors, InvalidControlProgram) {
  Ring r(*m);
  r.b.patch_program(2, 3, 99);  // tile 2: an opcode that does not exist, at word 3
  r.b.load(*m);
  EXPECT_THAT(run_for_error(*m), HasSubstr("tile 2 stopped on an invalid control program at word 3"));
  EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | arch::kDevErrExitError);
}

TEST_P(Errors, TrapInACodeletNamesTileSuperstepAndPc) {
  Ring r(*m);
  r.b.add_vertex(6, 0, kCodelet_copy, {r.out[6], r.in[6] + 2, 1});  // misaligned source
  r.b.load(*m);
  const std::string e = run_for_error(*m);
  EXPECT_EQ(err(arch::kDevRegErrTile), 6u);
  EXPECT_EQ(err(arch::kDevRegErrCause), 4u);  // load address misaligned
  EXPECT_EQ(err(arch::kDevRegErrSuperstep), 1u);
  EXPECT_THAT(e, HasSubstr("load address misaligned"));
  if (mode() == emu::Mode::kIss) {
    EXPECT_THAT(e, HasSubstr("superstep 1"));
    const uint32_t copy = firmware_elf().symbol("codelet_copy");
    EXPECT_GE(err(arch::kDevRegErrPc), copy);
    EXPECT_LT(err(arch::kDevRegErrPc), copy + 256);
    EXPECT_EQ(err(arch::kDevRegErrTval), r.in[6] + 2);
  }
}

TEST_P(Errors, DeviceStaysUsableAfterAnError) {
  {
    Ring bad(*m);
    bad.b.expect(8, 0, 1);
    bad.b.load(*m);
    EXPECT_NE(run_for_error(*m), "");
  }
  m->write_reg(arch::kDevRegControl, device::kControlReset);
  m->load_firmware(firmware_elf());
  Ring good(*m);
  good.b.load(*m);
  EXPECT_EQ(run_for_error(*m), "");
}

TEST_P(Errors, BadDmaIsRejectedAndChangesNothing) {
  const device::DmaSegment seg{3, arch::kSramBase + static_cast<uint32_t>(m->tile(3).sram().size()) - 4, 8, 0};
  std::vector<std::byte> buf(8);
  EXPECT_THROW(m->dma_write({&seg, 1}, buf), device::DeviceError);
  const device::DmaSegment odd{3, m->firmware().firmware_end + 2, 4, 0};
  EXPECT_THROW(m->dma_write({&odd, 1}, buf), device::DeviceError);
  Ring r(*m);
  r.b.load(*m);
  EXPECT_EQ(run_for_error(*m), "");
}

INSTANTIATE_TEST_SUITE_P(Modes, Errors,
                         ::testing::Values(std::make_tuple(emu::Mode::kIss, 1u), std::make_tuple(emu::Mode::kNative, 1u),
                                           std::make_tuple(emu::Mode::kNative, 2u)),
                         [](const auto& info) {
                           return std::string(mode_name(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "thread";
                         });

// ISS only: a native tile cannot be made to spin, and there is no instruction to patch.
TEST(Hang, ATileThatNeverArrivesIsNamed) {
  auto m = make_machine(emu::Mode::kIss);
  Ring r(*m);
  r.b.load(*m);
  handbuilt::write_words(*m, 5, firmware_elf().symbol("codelet_copy"), {0x0000006fu});  // j .
  const std::string e = run_for_error(*m, 300);
  EXPECT_THAT(e, HasSubstr("device hung: tile 5 did not arrive at the barrier of superstep 1"));
}

// A control program that loops without a barrier: native mode runs it as host code, with no
// instruction budget, so only the watchdog between control-program ops can stop it (before
// it, `--device emu-native` hung for ever). Both modes must time out the same way.
TEST(Hang, AControlProgramThatNeverSyncsTimesOutInEveryMode) {
  for (emu::Mode mode : {emu::Mode::kNative, emu::Mode::kIss}) {
    auto m = make_machine(mode);
    Ring r(*m);
    r.b.program() = {arch::kCtlRepeat, 0xffffffffu, 5, arch::kCtlRepeat, 0xffffffffu, 2, arch::kCtlExecute, 0,
                     arch::kCtlEnd};
    r.b.load(*m);
    // A hang here would hang the test, not fail it: run on a thread and give up loudly.
    auto done = std::make_shared<std::promise<std::string>>();
    std::future<std::string> result = done->get_future();
    std::thread([&m, done] { done->set_value(run_for_error(*m, 300)); }).detach();
    if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      std::fprintf(stderr, "FAIL: mode %d: the run did not time out within 30 s (the watchdog never fired)\n",
                   static_cast<int>(mode));
      std::_Exit(1);
    }
    EXPECT_THAT(result.get(), HasSubstr("device hung")) << static_cast<int>(mode);
  }
}

}  // namespace
}  // namespace tessera::testing
