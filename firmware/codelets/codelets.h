// The firmware's codelets and their table.
//
// A codelet is `void codelet_NAME(uint32_t state_addr)`: it runs one vertex, reading the
// vertex's state record at the tile address state_addr through tile_ptr. A state record is
// a sequence of 32-bit words, each a tile address (of a tensor region), a count, or the
// bits of an f32. The table's signature string is that layout, field by field:
//
//     signature := field (", " field)*        one field per state word, in order
//     field     := type " " name
//     type      := "u32" | "f32" | "u32*" | "const u32*" | "f32*" | "const f32*"
//
// where a pointer is a tile address (of an array whose length the codelet's comment
// gives; `const` arrays are only read). The table's index is what Vertex::codelet holds;
// its id, the FNV-1a hash (32-bit) of "name(signature)", is the stable name the compiler
// keys its codelets by, so a changed layout is a new id.
//
// index  name        state record (= signature)
//   0    copy        u32* dst, const u32* src, u32 n
//   1    fill        u32* dst, u32 n, u32 value
//   2    add         f32* dst, const f32* a, const f32* b, u32 n
//   3    scale       f32* dst, const f32* src, u32 n, f32 scale
//   4    mac         f32* acc, const f32* a, const f32* b, u32 n
//   5    dot         f32* out, const f32* a, const f32* b, u32 n
//   6    matvec      f32* y, const f32* a, const f32* x, u32 rows, u32 cols
//   7    reduce_sum  f32* out, const f32* in, u32 n, u32 k
//   8    relu        f32* dst, const f32* src, u32 n
//   9    exp         f32* dst, const f32* src, u32 n
//  10    log         f32* dst, const f32* src, u32 n
//  11    matmul      f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n
//  12    add_bias    f32* dst, const f32* src, const f32* bias, u32 rows, u32 cols
//  13    argmax      u32* out, const f32* src, u32 rows, u32 cols
//  14    softmax     f32* dst, const f32* src, u32 rows, u32 cols
//  15    relu_grad   f32* dx, const f32* dy, const f32* y, u32 n
//  16    softmax_xent f32* dlogits, f32* loss, const f32* logits, const u32* labels,
//                     u32 rows, u32 cols, f32 scale
//  17    matmul_tn   f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n
//  18    matmul_nt   f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n
//  19    sgd_momentum f32* w, f32* v, const f32* g, const f32* lr, u32 n, f32 momentum
//  20    lr_linear   f32* lr, u32* step, f32 lr0, u32 total
//  21    rng_uniform f32* out, const u32* seed, u32 n, u32 first, u32 stream, f32 lo,
//                    f32 step
//  22    conv2d      f32* y, const f32* x, const f32* w, const f32* b, u32 cin, u32 h,
//                    u32 wd, u32 cout, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw,
//                    u32 ph, u32 pw, u32 dh, u32 dw
//  23    conv2d_grad_input  f32* dx, const f32* dy, const f32* w, then conv2d's u32 fields
//  24    conv2d_grad_weight f32* dweight, const f32* x, const f32* dy, conv2d's u32 fields,
//                    u32 accumulate
//  25    channel_sum f32* out, const f32* src, u32 c, u32 hw, u32 accumulate
//  26    maxpool2d   f32* y, const f32* x, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh,
//                    u32 kw, u32 sh, u32 sw, u32 ph, u32 pw
//  27    maxpool2d_grad f32* dx, const f32* dy, const f32* x, then maxpool2d's u32 fields
//  28    avgpool2d   f32* y, const f32* x, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh,
//                    u32 kw, u32 sh, u32 sw, u32 pt, u32 pl, u32 pb, u32 pr,
//                    u32 count_include_pad
//  29    avgpool2d_grad f32* dx, const f32* dy, then avgpool2d's u32 fields
//  30    lrn         f32* y, const f32* x, u32 c, u32 hw, u32 size, f32 alpha, f32 beta,
//                    f32 bias
//  31    ewise2      f32* dst, const f32* a, const f32* b, u32 n, u32 bn, u32 inner, u32 op
//  32    ewise1      f32* dst, const f32* src, u32 n, u32 op, f32 p0, f32 p1
//  33    ewise1_grad f32* dx, const f32* dy, const f32* v, u32 n, u32 op, f32 p0, f32 p1
// computing, for i < n (r < rows):
//   copy dst[i] = src[i]            fill dst[i] = value          add dst[i] = a[i] + b[i]
//   scale dst[i] = src[i] * scale   mac acc[i] = fma(a[i], b[i], acc[i])
//   dot out[0] = fma chain over i   matvec y[r] = dot(row r of a (rows x cols), x)
//   reduce_sum out[i] = sum over j < k of in[j*n + i]          relu dst[i] = max(src[i], +0)
//   exp dst[i] = fp_expf(src[i])    log dst[i] = fp_logf(src[i])
//   matmul c = a b (fma chains)     add_bias dst[r][c] = src[r][c] + bias[c]
//   argmax out[r] = first index of the row's largest   softmax of each row
//   relu_grad dx[i] = y[i] > 0 ? dy[i] : +0            matmul_tn c = a^T b, matmul_nt c = a b^T
//   softmax_xent loss[r] = logsumexp(row) - x[label], dlogits = (softmax - onehot) * scale
//   sgd_momentum v = v*momentum + g, w = fma(v, -lr[0], w)
//   lr_linear lr[0] = lr0 * (total - step[0]) / total, step[0] += 1
//   rng_uniform out[i] = fma(f32(x >> 8), step, lo), x = word 0 of Philox4x32-10 of the
//               counter {first + i, stream, 0, 0}, key {seed[0], 0x54535241}
//               (step = (hi - lo) * 2^-24 for U(lo, hi))
//   conv2d y = x (*) w + b, fma chains over ci, ky, kx (zero padding skipped; pads i32)
//   conv2d_grad_input dx = the transposed convolution of dy with w (fma chains over co, ky, kx)
//   conv2d_grad_weight dweight (+)= fma chains over oy, ox of dy * x     channel_sum out (+)= sum
//   maxpool2d / maxpool2d_grad  PyTorch's pick (first, then larger or NaN), dx += dy there
//   avgpool2d / avgpool2d_grad  PyTorch's avg_pool2d with ONNX's four pads
//   lrn ONNX LRN over channels   ewise2 dst[i] = a[i] OP b[(i / inner) % bn]
//   ewise1 leaky_relu, sigmoid, tanh, clip, identity; ewise1_grad their gradients
// Each codelet's file says exactly what it computes (order of operations, zeros, NaNs).
// Field names are unique within a signature (the compiler sets fields by name): hence
// conv2d_grad_weight's `dweight` beside its dilation `dw`.
// New codelets go at the end (TESSERA_CODELETS below); indices of existing ones stay.
//
// The table is also data in the firmware ELF, for tools that read it from there: the
// symbol `tessera_codelet_count` (u32) and `tessera_codelet_table`, an array of
// CodeletInfo, which on the tile is 5 words: id, state_words, name (address of a NUL-
// terminated string), signature (likewise), function (address of codelet_NAME).
#pragma once

#include <stdint.h>

namespace tessera::arch {
struct Vertex;
}

namespace tessera::fw {

// FNV-1a, 32-bit, continued from `h` over the bytes of `s`.
constexpr uint32_t fnv1a(const char* s, uint32_t h = 2166136261u) {
  for (; *s; ++s) h = (h ^ static_cast<uint8_t>(*s)) * 16777619u;
  return h;
}

// The stable id of a codelet: FNV-1a of "name(signature)".
constexpr uint32_t codelet_id(const char* name, const char* signature) {
  return fnv1a(")", fnv1a(signature, fnv1a("(", fnv1a(name))));
}

// Words in a state record: one per field of the signature.
constexpr uint32_t state_words(const char* signature) {
  uint32_t n = *signature ? 1 : 0;
  for (; *signature; ++signature) n += *signature == ',';
  return n;
}

// X(name, signature) for every codelet, in table order.
#define TESSERA_CODELETS(X)                                           \
  X(copy, "u32* dst, const u32* src, u32 n")                          \
  X(fill, "u32* dst, u32 n, u32 value")                               \
  X(add, "f32* dst, const f32* a, const f32* b, u32 n")               \
  X(scale, "f32* dst, const f32* src, u32 n, f32 scale")              \
  X(mac, "f32* acc, const f32* a, const f32* b, u32 n")               \
  X(dot, "f32* out, const f32* a, const f32* b, u32 n")               \
  X(matvec, "f32* y, const f32* a, const f32* x, u32 rows, u32 cols") \
  X(reduce_sum, "f32* out, const f32* in, u32 n, u32 k")              \
  X(relu, "f32* dst, const f32* src, u32 n")                          \
  X(exp, "f32* dst, const f32* src, u32 n")                           \
  X(log, "f32* dst, const f32* src, u32 n")                             \
  X(matmul, "f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n")  \
  X(add_bias, "f32* dst, const f32* src, const f32* bias, u32 rows, u32 cols") \
  X(argmax, "u32* out, const f32* src, u32 rows, u32 cols")             \
  X(softmax, "f32* dst, const f32* src, u32 rows, u32 cols")             \
  X(relu_grad, "f32* dx, const f32* dy, const f32* y, u32 n")           \
  X(softmax_xent, "f32* dlogits, f32* loss, const f32* logits, const u32* labels, u32 rows, u32 cols, f32 scale") \
  X(matmul_tn, "f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n") \
  X(matmul_nt, "f32* c, const f32* a, const f32* b, u32 m, u32 k, u32 n") \
  X(sgd_momentum, "f32* w, f32* v, const f32* g, const f32* lr, u32 n, f32 momentum") \
  X(lr_linear, "f32* lr, u32* step, f32 lr0, u32 total")              \
  X(rng_uniform, "f32* out, const u32* seed, u32 n, u32 first, u32 stream, f32 lo, f32 step") \
  X(conv2d, "f32* y, const f32* x, const f32* w, const f32* b, u32 cin, u32 h, u32 wd, u32 cout, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 ph, u32 pw, u32 dh, u32 dw") \
  X(conv2d_grad_input, "f32* dx, const f32* dy, const f32* w, u32 cin, u32 h, u32 wd, u32 cout, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 ph, u32 pw, u32 dh, u32 dw") \
  X(conv2d_grad_weight, "f32* dweight, const f32* x, const f32* dy, u32 cin, u32 h, u32 wd, u32 cout, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 ph, u32 pw, u32 dh, u32 dw, u32 accumulate") \
  X(channel_sum, "f32* out, const f32* src, u32 c, u32 hw, u32 accumulate") \
  X(maxpool2d, "f32* y, const f32* x, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 ph, u32 pw") \
  X(maxpool2d_grad, "f32* dx, const f32* dy, const f32* x, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 ph, u32 pw") \
  X(avgpool2d, "f32* y, const f32* x, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 pt, u32 pl, u32 pb, u32 pr, u32 count_include_pad") \
  X(avgpool2d_grad, "f32* dx, const f32* dy, u32 c, u32 h, u32 wd, u32 oh, u32 ow, u32 kh, u32 kw, u32 sh, u32 sw, u32 pt, u32 pl, u32 pb, u32 pr, u32 count_include_pad") \
  X(lrn, "f32* y, const f32* x, u32 c, u32 hw, u32 size, f32 alpha, f32 beta, f32 bias") \
  X(ewise2, "f32* dst, const f32* a, const f32* b, u32 n, u32 bn, u32 inner, u32 op") \
  X(ewise1, "f32* dst, const f32* src, u32 n, u32 op, f32 p0, f32 p1") \
  X(ewise1_grad, "f32* dx, const f32* dy, const f32* v, u32 n, u32 op, f32 p0, f32 p1")

// kSig_NAME: the signature; kWords_NAME: its state record's length in words.
#define TESSERA_CODELET_CONSTANTS(name, sig) \
  inline constexpr char kSig_##name[] = sig; \
  inline constexpr uint32_t kWords_##name = state_words(sig);
TESSERA_CODELETS(TESSERA_CODELET_CONSTANTS)
#undef TESSERA_CODELET_CONSTANTS

using CodeletFn = void (*)(uint32_t state_addr);

struct CodeletInfo {
  uint32_t id;           // codelet_id(name, signature)
  uint32_t state_words;  // state_words(signature)
  const char* name;
  const char* signature;
  CodeletFn fn;
};

extern "C" {
#define TESSERA_CODELET_DECLARE(name, sig) void codelet_##name(uint32_t state_addr);
TESSERA_CODELETS(TESSERA_CODELET_DECLARE)
#undef TESSERA_CODELET_DECLARE

extern const CodeletInfo tessera_codelet_table[];
extern const uint32_t tessera_codelet_count;
}

#if !defined(__riscv)
// Native mode: runs conv2d vertices vs[0], vs[1], ... (n of them, the rest of a compute
// set) and returns how many it ran, at least 1: several at once where they are lone output
// channels of one x and shape (codelets/conv2d.cpp), with the bits and effects of running
// them one by one.
uint32_t native_conv2d_vertices(const arch::Vertex* vs, uint32_t n);
#endif

// Index of the codelet called `name`, or tessera_codelet_count if there is none.
inline uint32_t codelet_index(const char* name) {
  for (uint32_t i = 0; i < tessera_codelet_count; ++i) {
    const char* a = tessera_codelet_table[i].name;
    const char* b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == *b) return i;
  }
  return tessera_codelet_count;
}

}  // namespace tessera::fw
