// rtl.machine.axil_*: the kernel's AXI4-Lite register port (rtl/host/tess_axil_regs.sv,
// docs/kernel.md) driven directly on the Verilated kernel (VltMachine::axil_write/axil_read):
// AW and W in either order, stalled responses, back-to-back reads, byte strobes, unmapped
// offsets, and the registers' behaviour on a tiny hand-written program (host sync, doorbell,
// superstep break, abort, EVENTS write-1-to-clear, the interrupt line, reset); and the
// kernel's port assertions (rtl/host: tess_axil_check, tess_host_port), each provoked by a
// host that breaks the rule: the model must stop, naming the channel.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tessera/arch/device_regs.h"
#include "tessera/arch/flit.h"
#include "tessera/arch/tile_map.h"
#include "tessera/device/device.h"
#include "tessera/vlt/vlt_machine.h"

namespace tessera {
namespace {

using vlt::VltMachine;

uint32_t rd(VltMachine& m, uint32_t off) {
  const uint32_t o[1] = {off};
  const VltMachine::AxilRead r = m.axil_read(o).front();
  EXPECT_EQ(r.resp, 0u) << "read of " << off;
  return r.data;
}

TEST(axil_write, AwBeforeW) {
  VltMachine m;
  const VltMachine::AxilWrite w = m.axil_write(arch::kDevRegEventMask, 0x5, 0xf, {0, 4, 0});
  EXPECT_EQ(w.resp, 0u);
  EXPECT_EQ(w.aw_at, 1u);  // taken at once, held until W comes
  EXPECT_EQ(w.w_at, 5u);
  EXPECT_GT(w.b_at, w.w_at);
  EXPECT_EQ(rd(m, arch::kDevRegEventMask), 0x5u);
}

TEST(axil_write, WBeforeAw) {
  VltMachine m;
  const VltMachine::AxilWrite w = m.axil_write(arch::kDevRegEventMask, 0xa, 0xf, {4, 0, 0});
  EXPECT_EQ(w.resp, 0u);
  EXPECT_EQ(w.w_at, 1u);
  EXPECT_EQ(w.aw_at, 5u);
  EXPECT_GT(w.b_at, w.aw_at);
  EXPECT_EQ(rd(m, arch::kDevRegEventMask), 0xau);
}

TEST(axil_write, TogetherAndWithAStalledResponse) {
  VltMachine m;
  VltMachine::AxilWrite w = m.axil_write(arch::kDevRegBreakSuperstep, 7);
  EXPECT_EQ(w.aw_at, 1u);
  EXPECT_EQ(w.w_at, 1u);
  EXPECT_EQ(w.b_at, 3u);  // carried out at edge 2, B taken at edge 3
  // BREADY low for 6 cycles: BVALID waits, the write itself is done.
  w = m.axil_write(arch::kDevRegBreakSuperstep, 9, 0xf, {0, 0, 6});
  EXPECT_EQ(w.resp, 0u);
  EXPECT_EQ(w.b_at, 7u);
  EXPECT_EQ(rd(m, arch::kDevRegBreakSuperstep), 9u);
  // Back to back after it.
  for (uint32_t v = 100; v < 104; ++v) {
    w = m.axil_write(arch::kDevRegBreakSuperstep, v);
    EXPECT_EQ(w.b_at, 3u);
    EXPECT_EQ(rd(m, arch::kDevRegBreakSuperstep), v);
  }
}

TEST(axil_write, ByteStrobesMaskTheValue) {
  VltMachine m;
  m.axil_write(arch::kDevRegBreakSuperstep, 0xaabbccdd, 0x5);
  EXPECT_EQ(rd(m, arch::kDevRegBreakSuperstep), 0x00bb00ddu);
  m.axil_write(arch::kDevRegEventMask, 0xffffffff, 0x0);
  EXPECT_EQ(rd(m, arch::kDevRegEventMask), 0u);
}

TEST(axil_read, BackToBack) {
  VltMachine m;
  const std::vector<uint32_t> offs = {arch::kDevRegId,    arch::kDevRegVersion, arch::kDevRegTargetHash,
                                      arch::kDevRegTileCount, arch::kDevRegState, arch::kDevRegId};
  const auto r = m.axil_read(offs);
  ASSERT_EQ(r.size(), offs.size());
  const std::array<uint32_t, 6> want = {arch::kDeviceIdMagic, arch::kDeviceVersion,      VltMachine::target().hash,
                                        VltMachine::target().tiles, device::kStateReset, arch::kDeviceIdMagic};
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].data, want[i]) << i;
    EXPECT_EQ(r[i].resp, 0u) << i;
    EXPECT_EQ(r[i].r_at, r[i].ar_at + 2) << i;  // R two cycles after AR (address, then multiplexer)
    if (i) {
      EXPECT_EQ(r[i].ar_at, r[i - 1].r_at + 1) << i;  // one read at a time, no gap
    }
  }
  EXPECT_EQ(r.back().r_at, 3 * offs.size());
}

TEST(axil_read, StalledReadyHoldsTheData) {
  VltMachine m;
  const std::vector<uint32_t> offs = {arch::kDevRegId, arch::kDevRegTileCount};
  const auto r = m.axil_read(offs, 5);
  EXPECT_EQ(r[0].data, arch::kDeviceIdMagic);
  EXPECT_EQ(r[1].data, VltMachine::target().tiles);
  EXPECT_EQ(r[0].ar_at, 1u);
  EXPECT_EQ(r[0].r_at, 6u);
  EXPECT_GT(r[1].ar_at, r[0].r_at);  // no second AR while R waits
}

TEST(axil_read, UnmappedAndWriteOnlyOffsetsReadZeroWithOkay) {
  VltMachine m;
  const std::vector<uint32_t> offs = {0x024, 0x02c, 0x04c, 0x3fc, arch::kDevRegControl, arch::kDevRegDoorbell,
                                      arch::kDevRegArrivedBase + 4, 0xffc};
  for (const auto& r : m.axil_read(offs)) {
    EXPECT_EQ(r.data, 0u);
    EXPECT_EQ(r.resp, 0u);
  }
  // Writes to unmapped and read-only offsets are ignored, with OKAY.
  EXPECT_EQ(m.axil_write(0x02c, 0x1234).resp, 0u);
  EXPECT_EQ(m.axil_write(arch::kDevRegId, 0x1234).resp, 0u);
  EXPECT_EQ(m.axil_write(arch::kDevRegState, 3).resp, 0u);
  EXPECT_EQ(rd(m, arch::kDevRegId), arch::kDeviceIdMagic);
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateReset);
  // The byte-lane bits of the address are not decoded.
  EXPECT_EQ(rd(m, arch::kDevRegId + 2), arch::kDeviceIdMagic);
}

// Every tile: RECV_EXPECT = 0, SYNC = 1 (host sync), wait for the release, spin.
std::vector<uint32_t> host_sync_program() {
  return {
      0x80000093,  // addi x1, x0, -2048      x1 = REGS_BASE (0xfffff800)
      0x0400a823,  // sw   x0, 0x50(x1)       RECV_EXPECT = 0
      0x00100113,  // addi x2, x0, 1
      0x0220a023,  // sw   x2, 0x20(x1)       SYNC = 1
      0x0200a183,  // lw   x3, 0x20(x1)       blocks until the release
      0x0000006f,  // jal  x0, 0              spin
  };
}

TEST(axil_events, HostSyncBreakAbortWriteOneToClearInterruptReset) {
  static_assert(arch::kDevRegArrivedBase == 0x400);
  VltMachine m;
  const std::vector<uint32_t> prog = host_sync_program();
  std::vector<device::DmaSegment> segs;
  for (uint32_t t = 0; t < VltMachine::target().tiles; ++t)
    segs.push_back({t, arch::kSramBase, static_cast<uint32_t>(prog.size() * 4), 0});
  m.dma_write(segs, std::as_bytes(std::span(prog)));
  const uint32_t all = (1u << VltMachine::target().tiles) - 1;

  m.axil_write(arch::kDevRegEventMask, device::kEventHostSync);
  m.axil_write(arch::kDevRegBreakSuperstep, 1);
  EXPECT_FALSE(m.interrupt());
  // Start directly on the bus (write_reg refuses without a firmware ELF).
  m.axil_write(arch::kDevRegControl, device::kControlStart);
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateRunning);
  EXPECT_EQ(m.wait_event(device::kEventHostSync, std::chrono::seconds(10)), device::kEventHostSync);
  m.step(2);
  EXPECT_TRUE(m.interrupt());
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateHostSync);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), device::kEventHostSync);
  EXPECT_EQ(rd(m, arch::kDevRegArrivedBase), all);
  EXPECT_EQ(rd(m, arch::kDevRegSuperstep), 0u);

  // Write 1 to clear: other bits leave it, its own bit clears it (and the interrupt).
  m.axil_write(arch::kDevRegEvents, device::kEventError | device::kEventBreak);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), device::kEventHostSync);
  EXPECT_TRUE(m.interrupt());
  m.axil_write(arch::kDevRegEvents, device::kEventHostSync);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), 0u);
  EXPECT_FALSE(m.interrupt());

  // The doorbell releases the barrier: superstep 1 = BREAK_SUPERSTEP raises bit 3; the tiles spin.
  m.axil_write(arch::kDevRegDoorbell, 1);
  EXPECT_EQ(m.wait_event(device::kEventBreak, std::chrono::seconds(10)), device::kEventBreak);
  m.step(2);
  EXPECT_EQ(rd(m, arch::kDevRegSuperstep), 1u);
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateRunning);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), device::kEventBreak);
  EXPECT_FALSE(m.interrupt());  // not in EVENT_MASK
  m.axil_write(arch::kDevRegEventMask, device::kEventBreak | device::kEventError);
  EXPECT_TRUE(m.interrupt());
  EXPECT_EQ(rd(m, arch::kDevRegArrivedBase), 0u);
  EXPECT_EQ(rd(m, arch::kDevRegErrCause), 0u);  // ERR_* read 0 unless in error

  // Abort: error, ERR_CAUSE = device error bit, code 0; ERR_SUPERSTEP the superstep.
  m.axil_write(arch::kDevRegControl, device::kControlAbort);
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateError);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), device::kEventBreak | device::kEventError);
  EXPECT_EQ(rd(m, arch::kDevRegErrCause), arch::kDeviceErrorBit);
  EXPECT_EQ(rd(m, arch::kDevRegErrSuperstep), 1u);
  EXPECT_EQ(rd(m, arch::kDevRegErrTile), 0u);
  EXPECT_EQ(m.error_detail(), "aborted by the host at superstep 1");
  m.axil_write(arch::kDevRegEvents, 0xffffffff);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), 0u);
  EXPECT_FALSE(m.interrupt());
  // A stray doorbell is ignored.
  m.axil_write(arch::kDevRegDoorbell, 1);
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateError);

  // Reset: state, events, errors, BREAK_SUPERSTEP cleared; EVENT_MASK kept; SRAM kept.
  const VltMachine::AxilWrite w = m.axil_write(arch::kDevRegControl, device::kControlReset);
  EXPECT_GE(w.b_at, 6u);  // B when the reset sequence is over
  EXPECT_EQ(rd(m, arch::kDevRegState), device::kStateReset);
  EXPECT_EQ(rd(m, arch::kDevRegEvents), 0u);
  EXPECT_EQ(rd(m, arch::kDevRegErrCause), 0u);
  EXPECT_EQ(rd(m, arch::kDevRegSuperstep), 0u);
  EXPECT_EQ(rd(m, arch::kDevRegBreakSuperstep), 0u);
  EXPECT_EQ(rd(m, arch::kDevRegEventMask), device::kEventBreak | device::kEventError);
  std::vector<uint32_t> back(prog.size());
  m.dma_read(std::span(segs).first(1), std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, prog);

  // And it runs again, to the same host sync.
  m.axil_write(arch::kDevRegControl, device::kControlStart);
  EXPECT_EQ(m.wait_event(device::kEventHostSync | device::kEventError, std::chrono::seconds(10)),
            device::kEventHostSync);
}


// The port assertions print through Verilator's stdout and abort: a death test matches
// stderr, so the child sends stdout there.
void stdout_to_stderr() {
  std::fflush(stdout);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

TEST(axil_contract, WithdrawnAwStopsTheModel) {
  EXPECT_DEATH(
      {
        stdout_to_stderr();
        VltMachine m;
        m.axil_drive(true, arch::kDevRegEventMask, false, false, 1);         // taken: held until W
        m.axil_drive(true, arch::kDevRegBreakSuperstep, false, false, 2);    // waits: AWREADY low
        m.axil_drive(false, 0, false, false, 2);                             // withdrawn
      },
      "AXI4-Lite AW: valid fell before ready");
}

TEST(axil_contract, ChangedAwAddressStopsTheModel) {
  EXPECT_DEATH(
      {
        stdout_to_stderr();
        VltMachine m;
        m.axil_drive(true, arch::kDevRegEventMask, false, false, 1);
        m.axil_drive(true, arch::kDevRegBreakSuperstep, false, false, 2);
        m.axil_drive(true, arch::kDevRegEventMask, false, false, 2);  // another address while waiting
      },
      "AXI4-Lite AW: payload changed while waiting");
}

// A host-to-device stream that offers a write flit at every edge and, when an offer was not
// taken, withdraws it for one edge (AXI4-Stream forbids it). TREADY is low while a CONTROL
// reset holds the port.
struct WithdrawingStream : vlt::HostStreams {
  bool armed = false, taken = true;
  bool h2d_offer(unsigned, vlt::Beat& beat) override {
    if (!armed) return false;
    if (!taken) {  // the last offer still waits: withdraw it
      taken = true;
      return false;
    }
    taken = false;
    beat = vlt::Beat{0x1234} | vlt::Beat{0x100 >> 2} << arch::kFlitAddrLsb |  // tile 0, SRAM offset 0x100
           vlt::Beat{arch::kFlitKindWrite} << arch::kFlitKindLsb;
    return true;
  }
  void h2d_taken(unsigned) override { taken = true; }
  bool d2h_ready(unsigned) override { return true; }
  void d2h_beat(unsigned, vlt::Beat) override {}
};

TEST(axis_contract, WithdrawnHostBeatStopsTheModel) {
  EXPECT_DEATH(
      {
        stdout_to_stderr();
        WithdrawingStream s;
        vlt::VltMachineOptions o;
        o.streams = &s;
        VltMachine m(o);
        s.armed = true;
        m.write_reg(arch::kDevRegControl, device::kControlReset);  // the port held: TREADY low
        m.step(8);
      },
      "AXI4-Stream host-to-device: valid fell before ready");
}

}  // namespace
}  // namespace tessera
