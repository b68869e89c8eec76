// fw_train_tool: runs one training codelet in native mode on inputs read from stdin and
// writes its outputs to stdout, for tests/firmware/torch_check.py (which compares them with
// PyTorch). All arrays are little-endian 32-bit words, back to back.
//
//   fw_train_tool sgd_momentum N MOMENTUM LR    stdin: w[N] v[N] g[N]     stdout: w[N] v[N]
//   fw_train_tool softmax_xent ROWS COLS SCALE  stdin: x[ROWS*COLS] labels[ROWS]
//                                               stdout: dlogits[ROWS*COLS] loss[ROWS]
//   fw_train_tool lr_linear LR0 TOTAL STEPS     stdout: lr for steps 0..STEPS-1
// (MOMENTUM, SCALE, LR, LR0 are decimal numbers rounded to f32.)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "codelets/codelets.h"
#include "runtime/native.h"
#include "tessera/arch/tile_map.h"

namespace {

using namespace tessera;

constexpr uint32_t kSramBytes = 4u << 20;

struct NullRegs : fw::NativeRegs {
  void store(uint32_t, uint32_t) override {}
  uint32_t load(uint32_t) override { return 0; }
};

class Tile {
 public:
  Tile() : sram_(kSramBytes) {
    t_.sram = sram_.data();
    t_.sram_bytes = kSramBytes;
    t_.regs = &regs_;
    t_.header = arch::kSramBase;
  }
  uint32_t alloc(size_t words) {
    const uint32_t a = next_;
    next_ += static_cast<uint32_t>(4 * words);
    if (next_ - arch::kSramBase > kSramBytes) {
      std::fprintf(stderr, "fw_train_tool: inputs too large\n");
      std::exit(2);
    }
    return a;
  }
  uint32_t put(const std::vector<uint32_t>& w) {
    const uint32_t a = alloc(w.size());
    if (!w.empty()) std::memcpy(at(a), w.data(), 4 * w.size());
    return a;
  }
  std::vector<uint32_t> get(uint32_t addr, size_t n) {
    std::vector<uint32_t> w(n);
    if (n) std::memcpy(w.data(), at(addr), 4 * n);
    return w;
  }
  void run(const char* name, const std::vector<uint32_t>& state) {
    const uint32_t index = fw::codelet_index(name);
    if (fw::native_run_codelet(t_, index, put(state)) != fw::NativeStop::kSync) {
      std::fprintf(stderr, "fw_train_tool: %s halted with 0x%x\n", name, t_.exit_code);
      std::exit(2);
    }
  }

 private:
  uint8_t* at(uint32_t addr) { return sram_.data() + (addr - arch::kSramBase); }
  std::vector<uint8_t> sram_;
  NullRegs regs_;
  fw::NativeTile t_;
  uint32_t next_ = arch::kSramBase + 0x1000;
};

uint32_t f32_bits(const char* s) {
  const float f = std::strtof(s, nullptr);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::vector<uint32_t> read_words(size_t n) {
  std::vector<uint32_t> w(n);
  if (n && std::fread(w.data(), 4, n, stdin) != n) {
    std::fprintf(stderr, "fw_train_tool: short input\n");
    std::exit(2);
  }
  return w;
}

void write_words(const std::vector<uint32_t>& w) {
  if (!w.empty()) std::fwrite(w.data(), 4, w.size(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: fw_train_tool sgd_momentum|softmax_xent|lr_linear A B C\n");
    return 2;
  }
  const std::string what = argv[1];
  Tile tile;
  if (what == "sgd_momentum") {
    const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    const uint32_t w = tile.put(read_words(n)), v = tile.put(read_words(n)),
                   g = tile.put(read_words(n)), lr = tile.put({f32_bits(argv[4])});
    tile.run("sgd_momentum", {w, v, g, lr, n, f32_bits(argv[3])});
    write_words(tile.get(w, n));
    write_words(tile.get(v, n));
  } else if (what == "softmax_xent") {
    const uint32_t rows = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)),
                   cols = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
    const uint32_t x = tile.put(read_words(size_t{rows} * cols)), labels = tile.put(read_words(rows));
    const uint32_t dx = tile.alloc(size_t{rows} * cols), loss = tile.alloc(rows);
    tile.run("softmax_xent", {dx, loss, x, labels, rows, cols, f32_bits(argv[4])});
    write_words(tile.get(dx, size_t{rows} * cols));
    write_words(tile.get(loss, rows));
  } else if (what == "lr_linear") {
    const uint32_t total = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)),
                   steps = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
    const uint32_t lr = tile.alloc(1), step = tile.put({0});
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < steps; ++i) {
      tile.run("lr_linear", {lr, step, f32_bits(argv[2]), total});
      out.push_back(tile.get(lr, 1)[0]);
    }
    write_words(out);
  } else {
    std::fprintf(stderr, "fw_train_tool: unknown codelet %s\n", what.c_str());
    return 2;
  }
  return 0;
}
