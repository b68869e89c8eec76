// softmax_xent: softmax cross-entropy of a block of rows, forward and gradient in one
// vertex, in PyTorch's formulation (cross_entropy = nll_loss(log_softmax(x)), CPU kernels
// of PyTorch 1.13). For each row r of logits x (rows x cols, row-major) with label
// L = labels[r]:
//   m      = fp_max over the row (NaNs skipped as fp_max does)
//   s      = e[0] + e[1] + ... left to right, e[c] = fp_expf(x[c] - m)
//   lse    = m + fp_logf(s)                      (log_softmax[c] = x[c] - lse)
//   loss[r] = lse - x[L]                         (= -log_softmax[L]: reduction 'none')
//   p[c]   = fp_expf(x[c] - lse)                 (softmax as exp(log_softmax), as PyTorch)
//   dlogits[c] = fp_fma(p[c], scale, c == L ? -scale : +0)
// each operation rounded once (RNE). The gradient is PyTorch's log_softmax_backward of
// nll_loss_backward: g[c] = -scale at L, 0 elsewhere, dx = g - exp(logp) * sum(g), which
// its AVX2 kernel evaluates fused, i.e. fma(p, scale, g) (found by experiment: bit-exact
// against torch for every element where p is the same). scale is 1/batch for the mean
// reduction (PyTorch uses 1.0f / batch as an f32) or 1 for a sum.
// How close to torch.nn.functional.cross_entropy: the two differ only through exp, log
// and the order of the sum (PyTorch: Sleef's exp/log and an 8-lane vector sum). Measured
// by tests/firmware/torch_check.py on random rows (batch 5..64, 3..100 classes, logits
// spread up to 30): 72% of the words bit-identical, loss within 4.2e-7 relative (3.5 ulp),
// gradient within 1.5e-6 relative (about 12 ulp; the error of lse, an absolute ulp of a
// large logit, enters exp(x - lse)) and within 1.2e-6 * scale absolute.
// Special values: a row with a NaN gives NaN loss and gradient; a +inf gives NaN (inf -
// inf); a row of all -inf gives NaN; as IEEE arithmetic makes them (NaN payloads may
// differ between builds). A label out of range (L >= cols; PyTorch raises an error, and
// its ignore_index -100 is 0xffffff9c here) makes loss[r] the canonical NaN and the row's
// gradient p[c] * scale, the softmax part without the one-hot. cols = 0: every label is
// out of range, loss NaN, no gradient written.
// State (codelets.h): [0] f32* dlogits (rows*cols), [1] f32* loss (rows), [2] const f32*
// logits (rows*cols), [3] const u32* labels (rows), [4] u32 rows, [5] u32 cols, [6] f32
// scale. dlogits may be logits (in place); otherwise no overlaps.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_softmax_xent(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_softmax_xent);
  const uint32_t rows = s[4], cols = s[5];
  const float scale = u2f(s[6]);
  const uint64_t n = static_cast<uint64_t>(rows) * cols;
  float* dx = tile_ptr<float>(s[0], n);
  float* loss = tile_ptr<float>(s[1], rows);
  const float* x = tile_ptr<const float>(s[2], n);
  const uint32_t* labels = tile_ptr<const uint32_t>(s[3], rows);
  for (uint32_t r = 0; r < rows; ++r) {
    const uintptr_t base = static_cast<uintptr_t>(r) * cols;
    const uint32_t label = labels[r];
    if (cols == 0) {
      loss[r] = u2f(kCanonicalNaN);
      continue;
    }
    float m = x[base];
    for (uint32_t c = 1; c < cols; ++c) m = fp_max(m, x[base + c]);
    float sum = fp_expf(x[base] - m);
    for (uint32_t c = 1; c < cols; ++c) sum = sum + fp_expf(x[base + c] - m);
    const float lse = m + fp_logf(sum);
    loss[r] = label < cols ? lse - x[base + label] : u2f(kCanonicalNaN);
    for (uint32_t c = 0; c < cols; ++c) {
      const float p = fp_expf(x[base + c] - lse);
      dx[base + c] = fp_fma(p, scale, c == label ? -scale : 0.0f);
    }
  }
}

}  // namespace tessera::fw
