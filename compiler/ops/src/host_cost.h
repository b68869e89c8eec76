// Native mode's costs, what the plans for the host (PlanFor::kHost, window.h) minimise:
// from profiles of LeNet-5, AlexNet and ResNet-18 on one host thread (docs/speed.md).
#pragma once

#include <algorithm>
#include <cmath>

#include "tessera/ops/plan_for.h"

namespace tessera::ops::detail {

// A word a tile receives is read from its send list, checked and copied (about 1 ns:
// ResNet-18's 169 M words took 0.7 ns each in the copies and 0.35 ns in the lists' reading
// and checks); a vertex costs the interpreter's step and its kernel's set-up; a
// multiply-add in a vector kernel about 0.1 ns.
inline constexpr double kHostNsPerWord = 1.0, kHostNsPerVertex = 100.0, kHostNsPerMac = 0.1;

// Work that `jobs` tiles each do, spread over the host's threads (up to kHostJobs).
inline double host_jobs_ns(double jobs, double ns_per_job) {
  return jobs * ns_per_job / std::min<double>(jobs, kHostJobs);
}

// One matmul vertex of bm x bk by bk x bn (simd::matmul, firmware/runtime/native_simd.cpp):
// its blocks of rows by columns (1 x 64, 2 x 32, else 4 x 16) are bk steps each, a step
// bound by the FMA's latency (about 1 ns); b, cold when big (a classifier's weights), is
// read at about 40 GB/s in one pass, and at half of that when its rows are read in several
// (measured: 1,843 x 64 at 43 GB/s, 1,843 x 128 in two passes at 19).
inline double host_matmul_vertex_ns(double bm, double bk, double bn) {
  const double block_cols = bm == 1 ? 64 : bm == 2 ? 32 : 16;
  const double row_blocks = bm < 4 ? 1 : std::ceil(bm / 4), col_blocks = std::ceil(bn / block_cols);
  const double bytes = 4 * bk * bn;
  const double ns_per_byte = col_blocks > 1 && bytes > 256 * 1024 ? 0.05 : 0.025;
  return std::max(bk * row_blocks * col_blocks * 1.0, bytes * ns_per_byte);
}

// A matmul plan over `jobs` tiles, each receiving `words` and running one vertex of
// (bm, bk, bn), then, when the sums are split, receiving `reduce_words` partial words and
// adding them in one more vertex.
inline double host_matmul_ns(double jobs, double bm, double bk, double bn, double words, double reduce_words) {
  double per_job = host_matmul_vertex_ns(bm, bk, bn) + kHostNsPerVertex + words * kHostNsPerWord;
  if (reduce_words > 0) per_job += kHostNsPerVertex + reduce_words * (kHostNsPerWord + kHostNsPerMac);
  return host_jobs_ns(jobs, per_job);
}

}  // namespace tessera::ops::detail
