// relu: dst[i] = src[i] if src[i] > 0, the canonical NaN if src[i] is a NaN (a NaN input
// stays visible, as in PyTorch), else +0 (negative numbers and -0), for i in [0, n).
// Computed on the bits, so no FP operation (and no NaN payload) is involved.
// State (codelets.h): [0] f32* dst, [1] const f32* src, [2] u32 n. dst may be src.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_relu(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_relu);
  const uint32_t n = s[2];
  uint32_t* dst = tile_ptr<uint32_t>(s[0], n);
  const uint32_t* src = tile_ptr<const uint32_t>(s[1], n);
#if !defined(__riscv)
  if (simd::enabled()) return simd::relu(dst, src, n);  // the same bits, eight at once (native_simd.h)
#endif
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = src[i];
    if ((v & 0x7fffffffu) > 0x7f800000u)
      dst[i] = kCanonicalNaN;
    else
      dst[i] = static_cast<int32_t>(v) > 0 ? v : 0u;  // sign clear and not +0
  }
}

}  // namespace tessera::fw
