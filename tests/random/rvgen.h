// tessera-rvgen: writes one self-contained random RV32IMF test program (GNU assembly) for the
// ISS-versus-QEMU comparison (tests/random/run_random.sh).
//
// The program sets up a trap handler, the FPU and random register values (rich in FP
// specials), runs a random instruction stream, then prints its end state through the HTIF
// console, one `name=hex` line each: x1..x31, f0..f31, fcsr, mepc, mcause, mtval and
// checksums of the data buffer. Two correct harts print the same text.
//
// The stream: all of RV32IMF and Zicsr (every rounding mode and dyn, exception flags read
// and cleared), loads and stores into a 4 KiB buffer, forward branches and jumps (jal, jalr
// through la, odd offsets), counted loops, calls and returns, fence/fence.i, instruction
// words rewritten at run time, and traps (ecall, ebreak, illegal words of many kinds,
// access faults, misaligned jump targets, reserved rounding modes, the FPU switched off).
// The trap handler folds each trap into an accumulator register and skips the instruction;
// results are folded into it now and then too, so values overwritten later still count.
// Register roles (accumulator, handler scratch, buffer bases) are drawn per seed.
//
// Everything the program does has one architecturally defined outcome, with these
// exceptions kept out on purpose (each is a legitimate or a known QEMU 7.2 difference):
//   * counters (cycle, instret, time), mip, and writes to mie, mtvec, mcountinhibit, misa
//     and the hpm counters (QEMU stores what our hart hardwires);
//   * mstatus.MPP: QEMU 7.2 resets it to 0 and mret writes U even without U-mode, so every
//     mstatus read is preceded by a write of MPP = M;
//   * misaligned loads and stores (QEMU performs them), addresses outside our 64 KiB SRAM
//     that QEMU maps, misaligned values written to mepc (QEMU 7.2 keeps bits 1:0);
//   * mtval of breakpoints (pc or 0, both legal) and of misaligned fetches (QEMU 7.2
//     reports the jump's own pc for jal and branches), and of illegal SYSTEM and FP
//     instructions (QEMU 7.2 leaves a stale value when a CSR or rounding-mode check fails);
//     the handler folds mcause and mepc always and mtval only where both must agree;
//   * wfi (QEMU sleeps), sfence.vma (QEMU 7.2 executes it without S-mode).
//
// The sources: rvgen.h (this file: the random stream, helpers and the generator class),
// rvgen_main.cpp (the command line), rvgen_setup.cpp (prologue, epilogue, trap handler, data),
// rvgen_operands.cpp (registers, values, emission), rvgen_int.cpp, rvgen_fp.cpp,
// rvgen_trap.cpp and rvgen_control.cpp (the instruction families).
#pragma once

#include <array>
#include <bit>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

namespace tessera::rvgen {

// splitmix64-seeded xoshiro256**: the same seed gives the same program on every host.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      w = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
  // Uniform in [0, n).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) * n >> 32); }
  // Uniform in [lo, hi].
  int range(int lo, int hi) {
    return lo + static_cast<int>(below(static_cast<uint32_t>(hi - lo + 1)));
  }
  bool pct(unsigned p) { return below(100) < p; }
  template <typename T>
  T pick(std::initializer_list<T> items) {
    return items.begin()[below(static_cast<uint32_t>(items.size()))];
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(static_cast<uint32_t>(items.size()))];
  }
  // Index into a table of weights.
  size_t weighted(std::initializer_list<unsigned> weights) {
    unsigned total = 0;
    for (unsigned w : weights) total += w;
    unsigned v = below(total);
    size_t i = 0;
    for (unsigned w : weights) {
      if (v < w) return i;
      v -= w;
      ++i;
    }
    return 0;
  }

 private:
  std::array<uint64_t, 4> s_;
};

inline std::string strf(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char* f, ...) {
  va_list ap, ap2;
  va_start(ap, f);
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, f, ap);
  va_end(ap);
  std::string s(static_cast<size_t>(n), '\0');
  std::vsnprintf(s.data(), s.size() + 1, f, ap2);
  va_end(ap2);
  return s;
}

inline std::string xr(int r) { return strf("x%d", r); }

// Instruction encoders for words the assembler refuses (reserved rounding modes, ...).
inline uint32_t enc_r(uint32_t funct7, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t rd,
                      uint32_t opcode) {
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}
inline uint32_t enc_r4(uint32_t rs3, uint32_t fmt, uint32_t rs2, uint32_t rs1, uint32_t rm,
                       uint32_t rd, uint32_t opcode) {
  return rs3 << 27 | fmt << 25 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | opcode;
}
inline uint32_t enc_i(uint32_t imm, uint32_t rs1, uint32_t funct3, uint32_t rd, uint32_t opcode) {
  return (imm & 0xfff) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}

constexpr uint32_t kBufBytes = 4096;  // the data buffer; base0 -> +0, base1 -> +2048
constexpr int kChunks = 8;            // checksummed separately, to localise a difference

struct Options {
  uint64_t seed = 1;
  int length = 3000;
  bool short_illegal = true;  // illegal words whose low two bits are not 11 (16-bit encodings)
};

class Generator {
 public:
  // The data buffer has its own random stream, so that a shorter program (same seed) is a
  // prefix of a longer one: shortening bisects a difference to the instruction.
  explicit Generator(const Options& o) : o_(o), r_(o.seed), data_r_(o.seed ^ 0x5eed0fda7a5eedull) {}

  std::string generate();

 private:
  // Every random choice is made in its own statement: the order in which a call's
  // arguments are evaluated is unspecified, and a seed must mean one program everywhere.

  // The fixed parts (rvgen_setup.cpp).
  void assign_roles();
  std::string prologue();
  std::string epilogue();
  std::string handler();
  std::string data();

  // Registers, values and emission (rvgen_operands.cpp).
  bool writable(int r) const;
  int rd();
  int tmp();
  int stable_tmp();
  int rs();
  int frand();
  int fd();
  uint32_t fp_value();
  uint32_t int_value();
  void ins(const std::string& s);
  void word(uint32_t w, const char* why);
  void label(const std::string& l);
  std::string fwd_label();
  const char* rm_name();
  void li(int r, uint32_t v);
  void refresh_f(int f, unsigned percent);
  void refresh_x(int r, unsigned percent);

  // Integer, memory, system-CSR and fence instructions (rvgen_int.cpp).
  void alu_rr();
  int imm12();
  void alu_imm();
  void shift_imm();
  void upper();
  void mext();
  std::string buf_addr(int size);
  void load();
  void store();
  void sys_csr();
  void fence();

  // F instructions and the FP CSRs (rvgen_fp.cpp).
  void relate(int a, int b, unsigned percent);
  void tricky(int a, int b, int c);
  void fp_arith();
  void fp_fma();
  void fp_cvt();
  void fp_misc();
  void fp_csr();

  // Traps (rvgen_trap.cpp).
  void trap();
  void illegal_csr();
  void illegal_word();

  // The stream: blocks, the straight-line mix, control flow (rvgen_control.cpp).
  void simple();
  void observe();
  void block();
  void loop();
  void call();
  uint32_t alu_word();
  void self_modify();
  void misaligned_jump();

  Options o_;
  Rng r_, data_r_;
  std::string text_;
  int count_ = 0;      // instructions in the random part so far
  int block_ = 0;      // the current block's label number
  int max_label_ = 0;  // the furthest label a jump refers to
  int acc_ = 0, s1_ = 0, s2_ = 0, b0_ = 0, b1_ = 0;
  uint32_t reserved_ = 0;            // never written by random code
  uint32_t pinned_ = 0;              // not written inside the current loop or call body
  int last_xd_ = -1, last_fd_ = -1;  // the destinations of the current simple instruction
  bool fp_op_ = false;               // it was an F computation (that may raise flags)
};

}  // namespace tessera::rvgen
