// The Verilated kernel with its AXI4-Stream host ports left to someone else: the card's
// simulation (host/card, `card-sim`) connects the data movers' C++ to them, as v++ connects
// the movers to the kernel on a card. Target-independent (no model class in sight), so that
// one program can open any target's kernel this way (sim/vlt/devices: make_kernel).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tessera::vlt {

// One beat of a host node's stream: the 64-bit flit (docs/kernel.md).
using Beat = uint64_t;

// The host side of the kernel's streams, asked at every clock edge.
class HostStreams {
 public:
  virtual ~HostStreams() = default;
  // s_axis_h2d of host node `node`: the beat offered at this edge (false: TVALID low).
  virtual bool h2d_offer(unsigned node, Beat& beat) = 0;
  // The kernel took the beat h2d_offer gave at this edge.
  virtual void h2d_taken(unsigned node) = 0;
  // m_axis_d2h of host node `node`: TREADY at this edge.
  virtual bool d2h_ready(unsigned node) = 0;
  // A beat the kernel handed over at this edge (TVALID and TREADY).
  virtual void d2h_beat(unsigned node, Beat beat) = 0;
};

// The kernel: its register port (AXI4-Lite transactions), its interrupt's events, the clock.
class KernelSim {
 public:
  virtual ~KernelSim() = default;
  virtual uint32_t read_reg(uint32_t offset) = 0;
  // One AXI4-Lite write; no harness checks (the driver above makes its own).
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;
  // As device::Device::wait_event, the clock stepped (the streams served) meanwhile.
  virtual uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) = 0;
  virtual void step(unsigned cycles) = 0;
  virtual uint64_t cycles() const = 0;
  virtual uint32_t host_nodes() const = 0;
  virtual uint32_t tiles() const = 0;
  virtual std::string error_detail() const = 0;
};

}  // namespace tessera::vlt
