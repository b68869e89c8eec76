// What the planners (plan_window, plan_matmul, plan_layer) minimise.
#pragma once

#include <cstdint>

namespace tessera::ops {

// What a plan is the best for. kMachine: the machine's time, the busiest tile's estimated
// cycles. kHost: the emulator's native mode (docs/speed.md, "Plans for the host"), where a
// host thread runs every tile's vertices in turn and the exchange is copies in host memory:
// the host's time, estimated from the words all tiles receive, the vertices and the
// multiply-adds, divided by the tiles' jobs up to kHostJobs (the host's threads share the
// jobs; more of them buy nothing). Both keep each output's sum in the same order, so both
// give the same bits, except that a plan over input channel blocks (a conv's pk > 1, a
// matmul's split of k) adds partial sums.
enum class PlanFor { kMachine, kHost };
inline constexpr uint32_t kHostJobs = 16;

}  // namespace tessera::ops
