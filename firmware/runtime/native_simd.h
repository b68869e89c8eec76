// Native mode's vector kernels (host only): the heavy codelets' loops written with the
// host's 256-bit FMA units (conv2d's also with 512-bit ones), chosen at run time. Every
// output element is still the same fma chain as in the codelet's portable loop, in the
// same order from the same start: a kernel vectorises across independent output elements
// (the columns of a matmul, the output positions of a convolution), never across the terms
// of one sum, and a vector FMA rounds each lane once as fmaf does. So the results are the
// codelets' bits, as the ISS computes them (tests/firmware compares both paths and the
// ISS).
//
// simd_enabled() is true when the CPU has AVX2 and FMA (cpuid, once) and neither
// TESSERA_NATIVE_SIMD=0 in the environment nor set_simd_enabled(false) turned it off; the
// codelets then call these kernels, else they run their portable loops (fmaf from the C
// library: correctly rounded, the same bits, slower).
#pragma once

#if defined(__riscv)
#error "runtime/native_simd.h is host-only (native mode)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "codelets/conv2d_shape.h"

namespace tessera::fw::simd {

bool enabled();
// Tests and benchmarks: force the portable loops (false) or the kernels where the CPU has
// them (true). Returns the previous setting. Not thread-safe against running codelets.
bool set_enabled(bool on);

// conv2d's AVX-512 builds of its blocks, for CPUs with AVX-512 F and VL (cpuid, once): the
// AVX2 build's 256-bit vectors (or 512-bit ones: wide_enabled), but 32 registers and the
// mask registers, for bigger blocks and masked FMAs in place of the blends; the same bits.
// avx512_enabled() is true when the CPU has them and set_avx512_enabled(false) did not turn
// them off (tests: the AVX2 blocks on such a CPU); the kernels themselves still need
// enabled(). Returns the previous setting.
bool avx512_enabled();
bool set_avx512_enabled(bool on);

// conv2d's AVX-512 build with 16-lane vectors in place of 8-lane ones: the same blocks and
// bits, twice the columns an FMA (as fast or faster for every conv of LeNet-5, AlexNet and
// ResNet-18 on the hosts measured, docs/speed.md). Used while avx512_enabled(), unless
// TESSERA_NATIVE_WIDE=0 in the environment or set_wide_enabled(false) turned it off.
// Returns the previous setting.
bool wide_enabled();
bool set_wide_enabled(bool on);

// conv2d at a column stride above 1: x copied with each row split into its stride's phases,
// so that a vector of output columns reads consecutive floats (true unless
// set_phased_enabled(false): tests, the gathers and paired loads instead). The same bits.
// Returns the previous setting.
bool phased_enabled();
bool set_phased_enabled(bool on);

// c[i*ldc + j] = fma chain over p < k, from +0, of a[i*sai + p*sap] * b[p*ldb + j],
// for i < m, j < n. c overlaps neither a nor b.
void matmul(float* c, size_t ldc, const float* a, size_t sai, size_t sap, const float* b, size_t ldb,
            uint32_t m, uint32_t k, uint32_t n);

// matmul_nt's c = a b^T (a m x k, b n x k): b is transposed into a per-thread buffer (it
// grows to the largest b seen, then is reused), then matmul.
void matmul_nt(float* c, const float* a, const float* b, uint32_t m, uint32_t k, uint32_t n);

}  // namespace tessera::fw::simd

namespace tessera::fw::simd {

using Conv2dShape = fw::Conv2dShape;  // conv2d's fields (codelets/conv2d_shape.h)

// conv2d (codelets/conv2d.cpp) with its chains, 8 or 16 output columns at once wherever the
// kernel's row lies wholly inside x, masked lanes (still with the FMA unit) elsewhere; a
// column stride above 1 reads the lanes' columns from x split into phases (phased_enabled),
// else with paired loads or a gather. Returns false, doing nothing, for shapes it does not
// take (an empty kernel, one wider than 16, sizes or strides near 2^31): the codelet then
// runs its portable loop.
bool conv2d(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s);

// conv2d over n vertices of one output channel each (s.cout 1) that share x and the shape:
// vertex i's weights w[i], bias b[i] and output y[i], as n output channels of one conv2d,
// so that each load of x feeds several channels' chains (the compiler makes a vertex per
// output channel of a block of rows: LeNet-5's convs). Every output is still its vertex's
// chain. The y[i] overlap neither each other nor x, w or b. false as conv2d.
bool conv2d_channels(float* const* y, const float* x, const float* const* w, const float* const* b, uint32_t n,
                     const Conv2dShape& s);

}  // namespace tessera::fw::simd

namespace tessera::fw::simd {

// relu (codelets/relu.cpp) on the bits, eight elements at once. dst may be src.
void relu(uint32_t* dst, const uint32_t* src, uint32_t n);

// reduce_sum (codelets/reduce_sum.cpp): out[i] = in[i] + in[n + i] + ... left to right,
// eight i at once. out may be in itself.
void reduce_sum(float* out, const float* in, uint32_t n, uint32_t k);

// sgd_momentum (codelets/sgd_momentum.cpp): v = v * momentum, v = v + g (two roundings),
// w = fma(v, alpha, w), eight elements at once.
void sgd_momentum(float* w, float* v, const float* g, uint32_t n, float momentum, float alpha);

}  // namespace tessera::fw::simd

namespace tessera::fw::simd {

// maxpool2d's fields after y and x (codelets.h), the pads as the u32 fields hold them.
struct Pool2dShape {
  uint32_t c, h, wd, oh, ow, kh, kw, sh, sw, ph, pw;
};

// maxpool2d (codelets/maxpool2d.cpp), eight output columns at once: each lane scans its
// window's elements inside x in the codelet's order and keeps the codelet's pick (the
// first, replaced by a later one that is larger or a NaN), moving bits only. Returns false,
// doing nothing, for shapes it does not take (sizes or pads near 2^31).
bool maxpool2d(uint32_t* y, const float* x, const Pool2dShape& s);

}  // namespace tessera::fw::simd
