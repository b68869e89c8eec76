// Two hand-built 16-tile programs: a distributed matrix-vector product and an all-reduce,
// with their host data and plain-C++ references that add in the same order as the
// codelets (so results must match bit for bit).
#pragma once

#include <cstdint>
#include <vector>

#include "codelets/codelets.h"
#include "program_builder.h"

namespace tessera::handbuilt {

// Indices into the firmware's codelet table.
enum Codelet : uint32_t {
#define TESSERA_CODELET_ENUM(name, sig) kCodelet_##name,
  TESSERA_CODELETS(TESSERA_CODELET_ENUM)
#undef TESSERA_CODELET_ENUM
};

// y = A x for a 64 x 64 A on a 4 x 4 grid of tiles: tile (r, c) = 4r + c holds the
// 16 x 16 block A[r][c]. The host streams x's blocks to the top row (host sync 0); an
// exchange broadcasts them down the columns; each tile computes its block's partial
// product (matvec); an exchange scatters the partials so that tile (r, c) holds rows
// 16r + 4c .. +4 of every partial of block row r; reduce_sum adds them; the host reads y
// (host sync 1).
class MatVec16 {
 public:
  static constexpr uint32_t kTiles = 16, kN = 64, kBlock = 16, kSlice = 4;
  // `repeat` > 1 runs the broadcast, products and reduction that many times (for
  // benchmarks; the result is the same).
  explicit MatVec16(uint32_t seed, uint32_t repeat = 1);
  void build(ProgramBuilder& b);
  // Runs the loaded program on `dev` and returns y.
  std::vector<float> run(device::Device& dev);
  std::vector<float> reference() const;  // same operation order as the codelets
  std::vector<double> exact() const;     // in double, for a sanity bound

  std::vector<float> a, x;
  uint32_t repeat;

  // Where build() put each tile's blocks (to_executable.h describes them as streams and
  // tensors).
  struct TileAddrs {
    uint32_t a, x, partial, gather, y;
  };
  const std::vector<TileAddrs>& tile_addrs() const { return addr_; }

 private:
  std::vector<TileAddrs> addr_;
};

// Each tile t holds a vector v_t of 64 floats. Three times: reduce-scatter (tile j gets
// chunk j of every v_t and sums them), all-gather (every tile gets every sum), scale by
// 1/16 back into v. Then, if the condition word says so, relu. The host reads every v.
class AllReduce16 {
 public:
  static constexpr uint32_t kTiles = 16, kLen = 64, kChunk = 4, kRounds = 3;
  AllReduce16(uint32_t seed, bool relu);
  void build(ProgramBuilder& b);
  std::vector<std::vector<float>> run(device::Device& dev);
  std::vector<float> reference() const;

  std::vector<std::vector<float>> v;
  bool relu;

 private:
  struct TileAddrs {
    uint32_t v, gather, owned, result, cond;
  };
  std::vector<TileAddrs> addr_;
};

std::vector<uint32_t> float_words(const std::vector<float>& f);
std::vector<float> word_floats(const std::vector<uint32_t>& w);

}  // namespace tessera::handbuilt
