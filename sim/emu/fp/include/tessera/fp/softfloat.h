// tessera::fp::soft -- the exact integer-only implementation behind tessera/fp/fp32.h.
//
// These are complete implementations (all rounding modes, NaN/inf/subnormal, all flags)
// that never touch the host FPU for results. fp32.h's functions call them whenever the
// host fast path cannot prove its answer; they are exposed so tests can check this path
// on its own, including the inputs the fast path would normally take.
#pragma once

#include <cstdint>

#include "tessera/fp/fp32.h"

namespace tessera::fp::soft {

uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags);
uint32_t fma(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags);  // (a*b)+c

// Rounds sign * sig * 2^(exp - 62) to binary32 under rm and raises NX/UF/OF as RISC-V
// specifies (tininess after rounding). sig != 0 may have its leading one anywhere; if bit 0
// is a sticky bit (OR of discarded lower bits), sig must be >= 2^26 so that the rounding
// point stays well above it. `sign` is 0 or 1.
uint32_t normalize_round_pack(uint32_t sign, int exp, uint64_t sig, Rm rm, uint32_t& flags);

}  // namespace tessera::fp::soft
