// card-sim: an Alveo card simulated whole. The Verilated kernel of a target (`tiny` or
// `small`; sim/vlt/machine), the data movers' own C++ (hls/movers, as Vitis would synthesize
// it) on its AXI4-Stream host ports, and a model of the card's memory behind the buffers;
// the card driver (card_device.h) on top is the code that drives a real card through XRT.
//
// Timing: the kernel's clock is exact; the movers are modelled as keeping up with their
// streams (one beat a clock; card-memory latency is not modelled), so the figures are what
// the kernel's ports allow. tess_h2d runs when it is started (its flits queue in front of
// s_axis_h2d), tess_d2h once its stream holds the records it will write; while no tess_d2h
// runs, m_axis_d2h sees back-pressure after a FIFO of kD2hFifoDepth beats, as the link's
// FIFO would give.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "tessera/card/card_device.h"

namespace tessera::card {

inline constexpr unsigned kD2hFifoDepth = 32;

// The CardIo of a simulated card for `target` (throws naming the targets this build
// verilated when it has no kernel for it).
std::unique_ptr<CardIo> make_card_sim_io(const std::string& target, std::FILE* console);

// The driver over it: a device::Device with `firmware`'s layout, reset.
std::unique_ptr<CardDevice> make_card_sim(const std::string& target, const exe::ElfImage& firmware, std::FILE* console,
                                          const CardOptions& options = {});

}  // namespace tessera::card
