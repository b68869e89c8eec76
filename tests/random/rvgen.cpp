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
#include <array>
#include <bit>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace {

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

std::string strf(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string strf(const char* f, ...) {
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

std::string xr(int r) { return strf("x%d", r); }

// Instruction encoders for words the assembler refuses (reserved rounding modes, ...).
uint32_t enc_r(uint32_t funct7, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t rd,
               uint32_t opcode) {
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}
uint32_t enc_r4(uint32_t rs3, uint32_t fmt, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd,
                uint32_t opcode) {
  return rs3 << 27 | fmt << 25 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | opcode;
}
uint32_t enc_i(uint32_t imm, uint32_t rs1, uint32_t funct3, uint32_t rd, uint32_t opcode) {
  return (imm & 0xfff) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}

// Operand triples (a, b, c) on rare rounding corners that random values almost never hit.
struct Tricky {
  uint32_t a, b, c;
};
constexpr Tricky kTricky[] = {
    // a*b = (1 - 2^-46) 2^-126 rounds to 2^-126 and is not tiny: no UF (tininess after rounding)
    {0x3f800001u, 0x007fffffu, 0x00000000u},
    {0x3f7fffffu, 0x00800000u, 0x80000000u},  // a*b = (1 - 2^-24) 2^-126: tiny, inexact
    {0x00ffffffu, 0x40000000u, 0x00000000u},  // a/b = (1 - 2^-24) 2^-126
    {0x3f800001u, 0x3f7ffffeu, 0xbf800000u},  // a*b = 1 - 2^-46; a*b + c = -2^-46 exactly
    // a*b + c just below a binary32 midpoint: wrong if rounded through double
    {0x33800001u, 0x3f7ffffeu, 0x3f800001u},
    {0x33800001u, 0x3f800001u, 0x3f800000u},  // a*b + c just above 1 + 2^-24
    {0x7f7fffffu, 0x3f800001u, 0xff7fffffu},  // a*b overflows, a*b + c does not
    {0x7f7fffffu, 0x40000000u, 0x7f7fffffu},  // overflow
    {0x00000001u, 0x3f000000u, 0x00000001u},  // min subnormal / 2: a tie to zero
    {0x00000003u, 0x3f000000u, 0x80000001u},  // 1.5 min subnormals: a tie to even
    {0x4b7fffffu, 0x3f800000u, 0x3f000000u},  // 2^24 - 1 + 0.5: a tie where ulp = 1
    {0x5f800000u, 0x5f800000u, 0xff800000u},  // 2^64 * 2^64 - inf
};

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

  std::string generate() {
    assign_roles();
    std::string out;
    out += strf("# tessera-rvgen --seed %llu --length %d%s\n",
                static_cast<unsigned long long>(o_.seed), o_.length,
                o_.short_illegal ? "" : " --no-short-illegal");
    out += strf("# roles: accumulator x%d, handler scratch x%d x%d, buffer bases x%d x%d\n", acc_,
                s1_, s2_, b0_, b1_);
    out += "\t.option norvc\n\t.section .text.init,\"ax\",@progbits\n\t.globl _start\n_start:\n";
    out += prologue();
    while (count_ < o_.length) block();
    for (int i = block_; i <= max_label_; ++i) text_ += strf(".Lb%d:\n", i);
    out += text_;
    out += epilogue();
    out += handler();
    out += data();
    return out;
  }

 private:
  // ---- registers ----------------------------------------------------------------------
  void assign_roles() {
    std::vector<int> regs;
    for (int i = 1; i < 32; ++i) regs.push_back(i);
    for (size_t i = regs.size() - 1; i > 0; --i)
      std::swap(regs[i], regs[r_.below(static_cast<uint32_t>(i + 1))]);
    acc_ = regs[0];
    s1_ = regs[1];
    s2_ = regs[2];
    b0_ = regs[3];
    b1_ = regs[4];
    reserved_ = 1u << acc_ | 1u << b0_ | 1u << b1_;
  }
  bool writable(int r) const { return r != 0 && !((reserved_ | pinned_) >> r & 1); }
  // A destination: any register random code may write (x0 now and then).
  int rd() {
    if (r_.pct(3)) return last_xd_ = 0;
    for (;;) {
      const int r = r_.range(1, 31);
      if (writable(r)) return last_xd_ = r;
    }
  }
  // A writable register that is not x0.
  int tmp() {
    for (;;) {
      const int r = r_.range(1, 31);
      if (writable(r)) return r;
    }
  }
  // A writable register the trap handler does not clobber either.
  int stable_tmp() {
    for (;;) {
      const int r = tmp();
      if (r != s1_ && r != s2_) return r;
    }
  }
  int rs() { return r_.pct(4) ? 0 : r_.range(1, 31); }
  int frand() { return r_.range(0, 31); }
  // A destination f register (observed by observe()).
  int fd() { return last_fd_ = frand(); }

  // ---- values -------------------------------------------------------------------------
  uint32_t fp_value() {
    const uint32_t sign = r_.pct(50) ? 0x80000000u : 0;
    switch (r_.below(22)) {
      case 0:
        return sign;  // +-0
      case 1:
        return sign | 0x7f800000u;  // +-inf
      case 2:
        return 0x7fc00000u;  // canonical qNaN
      case 3:
        return sign | 0x7fc00000u | (r_.u32() & 0x3fffffu);  // qNaN with payload
      case 4: {                                              // sNaN
        uint32_t m = r_.u32() & 0x3fffffu;
        return sign | 0x7f800000u | (m ? m : 1);
      }
      case 5: {  // subnormal
        uint32_t m = r_.u32() & 0x7fffffu;
        return sign | (m ? m : 1);
      }
      case 6:
        return sign | r_.pick<uint32_t>({1u, 0x7fffffu, 0x400000u, 0x3u});  // extreme subnormals
      case 7:
        return sign | r_.pick<uint32_t>({0x00800000u, 0x00800001u, 0x7f7fffffu, 0x7f7ffffeu,
                                         0x7f000000u, 0x00ffffffu});  // min/max normal
      case 8:
        return sign | static_cast<uint32_t>(0x3f800000 + r_.range(-2, 2));  // 1.0 +- ulps
      case 9:
        return std::bit_cast<uint32_t>(static_cast<float>(r_.range(-20, 20)));  // small ints
      case 10:
        return std::bit_cast<uint32_t>(static_cast<float>(r_.range(-8, 8)) + 0.5f);  // ties
      case 11:  // conversion and rounding boundaries
        return r_.pick<uint32_t>({0x4effffffu, 0x4f000000u, 0x4f000001u, 0xcf000000u, 0xcf000001u,
                                  0xceffffffu, 0x4f7fffffu, 0x4f800000u, 0x4f800001u, 0xbf800000u,
                                  0xbf7fffffu, 0x3f7fffffu, 0x4b800000u, 0x4b7fffffu, 0x4b800001u,
                                  0x4affffffu, 0x4b000000u, 0x4b000001u, 0xbf000000u, 0x3f000000u,
                                  0x3effffffu, 0x3f000001u, 0xbf000001u, 0x4b3fffffu, 0x4b400000u});
      case 12:
      case 13: {  // ordinary numbers of moderate magnitude
        const uint32_t e = static_cast<uint32_t>(127 + r_.range(-30, 30));
        return sign | e << 23 | (r_.u32() & 0x7fffffu);
      }
      case 14:
        return r_.u32();  // any bits
      case 15: {          // near overflow or underflow
        const uint32_t e = r_.pick<uint32_t>({0xfeu, 0xfdu, 0x01u, 0x02u, 0x18u, 0xe8u});
        return sign | e << 23 | (r_.u32() & 0x7fffffu);
      }
      case 16:
        return sign | static_cast<uint32_t>(r_.range(1, 254)) << 23;  // powers of two
      case 17:
      case 18: {  // mantissas whose products and sums land on rounding boundaries
        const uint32_t e = static_cast<uint32_t>(127 + r_.range(-12, 12));
        const uint32_t low = r_.pick<uint32_t>({0x000u, 0x7ffu, 0x800u, 0x801u, 0xfffu, 0x001u});
        return sign | e << 23 | ((r_.u32() & 0x7ff000u) | low);
      }
      case 19:
        return sign | 0x3f800000u | r_.pick<uint32_t>({0x000001u, 0x400000u, 0x7fffffu, 0x000003u});
      default: {  // an integer's bit pattern, for fmv and fclass
        const uint32_t v = int_value();
        return v;
      }
    }
  }
  uint32_t int_value() {
    switch (r_.below(14)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return 0xffffffffu;
      case 3:
        return 0x80000000u;
      case 4:
        return 0x7fffffffu;
      case 5:
      case 6:
        return static_cast<uint32_t>(r_.range(-16, 16));
      case 7:
        return 1u << r_.below(32);
      case 8:
        return (1u << r_.below(32)) - 1;
      case 9:
        return r_.pick<uint32_t>(
            {0xffffu, 0x8000u, 0xffu, 0x80u, 0x7fffu, 0xffff8000u, 0xffffff80u});
      case 10: {  // around 2^24, where int -> float conversion starts to round
        const uint32_t v = static_cast<uint32_t>(r_.range((1 << 24) - 4, (1 << 24) + 4));
        return r_.pct(50) ? v : 0u - v;
      }
      case 11:
        return fp_value();
      default:
        return r_.u32();
    }
  }

  // ---- emission ------------------------------------------------------------------------
  void ins(const std::string& s) {
    text_ += "\t" + s + "\n";
    ++count_;
  }
  void word(uint32_t w, const char* why) {
    text_ += strf("\t.word 0x%08x\t# %s\n", w, why);
    ++count_;
  }
  void label(const std::string& l) { text_ += l + ":\n"; }
  std::string fwd_label() {
    const int target = block_ + r_.range(1, 6);
    if (target > max_label_) max_label_ = target;
    return strf(".Lb%d", target);
  }
  const char* rm_name() {
    static const char* const kChoices[] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn", "dyn", "dyn"};
    return kChoices[r_.below(8)];
  }
  void li(int r, uint32_t v) { ins(strf("li %s, %d", xr(r).c_str(), static_cast<int32_t>(v))); }
  // Sometimes load a fresh special value into f register `f` first.
  void refresh_f(int f, unsigned percent) {
    if (!r_.pct(percent)) return;
    const int t = tmp();
    li(t, fp_value());
    ins(strf("fmv.w.x f%d, x%d", f, t));
  }
  void refresh_x(int r, unsigned percent) {
    if (r == 0 || !writable(r) || !r_.pct(percent)) return;
    li(r, int_value());
  }

  // ---- instruction classes (straight-line: no control flow except traps) ----------------
  // Every random choice is made in its own statement: the order in which a call's
  // arguments are evaluated is unspecified, and a seed must mean one program everywhere.
  void simple() {
    last_xd_ = last_fd_ = -1;
    fp_op_ = false;
    switch (r_.weighted({12, 10, 4, 3, 10, 9, 9, 14, 6, 7, 10, 4, 4, 4, 1})) {
      case 0:
        alu_rr();
        break;
      case 1:
        alu_imm();
        break;
      case 2:
        shift_imm();
        break;
      case 3:
        upper();
        break;
      case 4:
        mext();
        break;
      case 5:
        load();
        break;
      case 6:
        store();
        break;
      case 7:
        fp_arith();
        break;
      case 8:
        fp_fma();
        break;
      case 9:
        fp_cvt();
        break;
      case 10:
        fp_misc();
        break;
      case 11:
        fp_csr();
        break;
      case 12:
        sys_csr();
        break;
      case 13:
        trap();
        break;
      case 14:
        fence();
        break;
    }
    observe();
  }
  // Folds a result into the accumulator now and then, so that a difference in a value that
  // is overwritten later still shows in the end state.
  void observe() {
    if (last_xd_ > 0 && r_.pct(40)) {
      const char* op = r_.pick({"xor", "add", "sub"});
      ins(strf("%s x%d, x%d, x%d", op, acc_, acc_, last_xd_));
    }
    if (last_fd_ >= 0 && r_.pct(40)) {
      const int t = tmp();
      ins(strf("fmv.x.w x%d, f%d", t, last_fd_));
      const char* op = r_.pick({"xor", "add", "sub"});
      ins(strf("%s x%d, x%d, x%d", op, acc_, acc_, t));
    }
    if (fp_op_ && r_.pct(35)) {  // the exception flags since the last look, which clears them
      const int t = tmp();
      ins(strf("csrrw x%d, fflags, x0", t));
      ins(strf("add x%d, x%d, x%d", acc_, acc_, t));
    }
  }
  void alu_rr() {
    const char* op =
        r_.pick({"add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and"});
    const int a = rs();
    const int b = r_.pct(10) ? a : rs();
    const int d = rd();
    ins(strf("%s x%d, x%d, x%d", op, d, a, b));
  }
  int imm12() {
    switch (r_.below(5)) {
      case 0:
        return r_.pick({-2048, 2047, 0, -1, 1});
      case 1:
        return r_.range(-16, 16);
      default:
        return r_.range(-2048, 2047);
    }
  }
  void alu_imm() {
    const char* op = r_.pick({"addi", "slti", "sltiu", "xori", "ori", "andi"});
    const int d = rd();
    const int a = rs();
    const int imm = imm12();
    ins(strf("%s x%d, x%d, %d", op, d, a, imm));
  }
  void shift_imm() {
    const char* op = r_.pick({"slli", "srli", "srai"});
    const int d = rd();
    const int a = rs();
    const int sh = r_.pct(30) ? r_.pick({0, 1, 31}) : r_.range(0, 31);
    ins(strf("%s x%d, x%d, %d", op, d, a, sh));
  }
  void upper() {
    const uint32_t imm =
        r_.pct(30) ? r_.pick<uint32_t>({0u, 0xfffffu, 0x80000u, 0x7ffffu}) : r_.u32() >> 12;
    const char* op = r_.pct(50) ? "lui" : "auipc";
    const int d = rd();
    ins(strf("%s x%d, 0x%x", op, d, imm));
  }
  void mext() {
    const char* op = r_.pick({"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"});
    int a = rs();
    int b = rs();
    if (r_.pct(30)) {  // the corner cases: divide by zero, INT_MIN / -1, extremes
      if (a == 0 || !writable(a)) a = tmp();
      if (b == 0 || !writable(b) || b == a) {
        b = tmp();
        while (b == a) b = tmp();
      }
      switch (r_.below(3)) {
        case 0:
          li(b, 0);
          refresh_x(a, 50);
          break;
        case 1:
          li(a, 0x80000000u);
          li(b, 0xffffffffu);
          break;
        default:
          li(a, int_value());
          li(b, int_value());
          break;
      }
    }
    const int d = rd();
    ins(strf("%s x%d, x%d, x%d", op, d, a, b));
  }
  // A valid, aligned address in the buffer: "offset(base)".
  std::string buf_addr(int size) {
    if (r_.pct(50)) {
      const int off = static_cast<int>(r_.below(static_cast<uint32_t>(2048 / size))) * size;
      return strf("%d(x%d)", off, b0_);
    }
    const int off = static_cast<int>(r_.below(static_cast<uint32_t>(4096 / size))) * size - 2048;
    return strf("%d(x%d)", off, b1_);
  }
  void load() {
    const int kind = static_cast<int>(r_.below(6));
    static const char* const kOps[] = {"lb", "lbu", "lh", "lhu", "lw", "flw"};
    static const int kSize[] = {1, 1, 2, 2, 4, 4};
    const int d = kind == 5 ? fd() : rd();
    const std::string addr = buf_addr(kSize[kind]);
    ins(strf("%s %c%d, %s", kOps[kind], kind == 5 ? 'f' : 'x', d, addr.c_str()));
  }
  void store() {
    const int kind = static_cast<int>(r_.below(4));
    static const char* const kOps[] = {"sb", "sh", "sw", "fsw"};
    static const int kSize[] = {1, 2, 4, 4};
    const int v = kind == 3 ? frand() : rs();
    const std::string addr = buf_addr(kSize[kind]);
    ins(strf("%s %c%d, %s", kOps[kind], kind == 3 ? 'f' : 'x', v, addr.c_str()));
  }
  // Makes f register b a relative of a (or both a signed-zero pair): the operand pairs on
  // which min/max, compares and add/sub have their special cases.
  void relate(int a, int b, unsigned percent) {
    if (a == b || !r_.pct(percent)) return;
    switch (r_.below(6)) {
      case 0: {  // +0 and -0, either way round
        ins(strf("fmv.w.x f%d, x0", a));
        ins(strf("fsgnjn.s f%d, f%d, f%d", b, a, a));
        if (r_.pct(50)) ins(strf("fsgnjn.s f%d, f%d, f%d", a, a, a));
        break;
      }
      case 1:
        ins(strf("fsgnjn.s f%d, f%d, f%d", b, a, a));
        break;  // b = -a
      case 2:
        ins(strf("fsgnj.s f%d, f%d, f%d", b, a, a));
        break;    // b = a
      default: {  // b = a a few ulps away, or with its low mantissa bits flipped
        const int t = tmp();
        ins(strf("fmv.x.w x%d, f%d", t, a));
        const int k = r_.pick({-2, -1, 1, 2, 0x400000});
        if (k == 0x400000)
          ins(strf("xori x%d, x%d, 0x7ff", t, t));
        else
          ins(strf("addi x%d, x%d, %d", t, t, k));
        ins(strf("fmv.w.x f%d, x%d", b, t));
        break;
      }
    }
  }
  // Loads a tricky operand triple into (a, b, c), or sometimes their negations.
  void tricky(int a, int b, int c) {
    const Tricky& t = kTricky[r_.below(sizeof kTricky / sizeof kTricky[0])];
    const uint32_t flip = r_.pct(50) ? 0x80000000u : 0;
    const int x = tmp();
    li(x, t.a ^ flip);
    ins(strf("fmv.w.x f%d, x%d", a, x));
    li(x, t.b);
    ins(strf("fmv.w.x f%d, x%d", b, x));
    if (c >= 0) {
      li(x, t.c ^ flip);
      ins(strf("fmv.w.x f%d, x%d", c, x));
    }
  }
  void fp_arith() {
    fp_op_ = true;
    const int a = frand();
    int b = frand();
    while (b == a) b = frand();
    refresh_f(a, 20);
    refresh_f(b, 20);
    relate(a, b, 12);
    if (r_.pct(6)) tricky(a, b, -1);
    const int d = fd();
    const char* rm = rm_name();
    if (r_.pct(12)) {
      ins(strf("fsqrt.s f%d, f%d, %s", d, a, rm));
    } else {
      const char* op = r_.pick({"fadd.s", "fsub.s", "fmul.s", "fdiv.s"});
      ins(strf("%s f%d, f%d, f%d, %s", op, d, a, b, rm));
    }
  }
  void fp_fma() {
    fp_op_ = true;
    const int a = frand();
    const int b = frand();
    const int c = frand();
    refresh_f(a, 15);
    refresh_f(b, 15);
    refresh_f(c, 15);
    if (a != b && b != c && a != c && r_.pct(8)) tricky(a, b, c);
    if (c != a && c != b &&
        r_.pct(20)) {  // c = a*b rounded: the fma then yields the rounding error
      const char* rm = rm_name();
      ins(strf("fmul.s f%d, f%d, f%d, %s", c, a, b, rm));
    }
    const char* op = r_.pick({"fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s"});
    const int d = fd();
    const char* rm = rm_name();
    ins(strf("%s f%d, f%d, f%d, f%d, %s", op, d, a, b, c, rm));
  }
  void fp_cvt() {
    fp_op_ = true;
    const bool to_int = r_.pct(50);
    const bool is_unsigned = r_.pct(50);
    if (to_int) {
      const int a = frand();
      refresh_f(a, 35);
      const int d = rd();
      const char* rm = rm_name();
      ins(strf("%s x%d, f%d, %s", is_unsigned ? "fcvt.wu.s" : "fcvt.w.s", d, a, rm));
    } else {
      const int a = rs();
      refresh_x(a, 30);
      const int d = fd();
      const char* rm = rm_name();
      ins(strf("%s f%d, x%d, %s", is_unsigned ? "fcvt.s.wu" : "fcvt.s.w", d, a, rm));
    }
  }
  void fp_misc() {
    fp_op_ = true;
    const int a = frand();
    const int b = r_.pct(15) ? a : frand();
    refresh_f(a, 15);
    refresh_f(b, 15);
    relate(a, b, 25);
    switch (r_.below(10)) {
      case 0:
      case 1: {
        const char* op = r_.pick({"fsgnj.s", "fsgnjn.s", "fsgnjx.s"});
        const int d = fd();
        ins(strf("%s f%d, f%d, f%d", op, d, a, b));
        break;
      }
      case 2:
      case 3: {
        const char* op = r_.pick({"fmin.s", "fmax.s"});
        const int d = fd();
        ins(strf("%s f%d, f%d, f%d", op, d, a, b));
        break;
      }
      case 4:
      case 5: {
        const char* op = r_.pick({"feq.s", "flt.s", "fle.s"});
        const int d = rd();
        ins(strf("%s x%d, f%d, f%d", op, d, a, b));
        break;
      }
      case 6: {
        const int d = rd();
        ins(strf("fclass.s x%d, f%d", d, a));
        break;
      }
      case 7: {
        const int d = rd();
        ins(strf("fmv.x.w x%d, f%d", d, a));
        break;
      }
      default: {
        const int x = rs();
        refresh_x(x, 30);
        const int d = fd();
        ins(strf("fmv.w.x f%d, x%d", d, x));
        break;
      }
    }
  }
  void fp_csr() {
    const char* csr = r_.pick({"fflags", "frm", "fcsr"});
    switch (r_.below(6)) {
      case 0: {
        const int d = rd();
        ins(strf("csrr x%d, %s", d, csr));
        break;
      }
      case 1: {  // a value with a valid rounding mode (bits beyond the field are ignored)
        const int t = tmp();
        const uint32_t junk = r_.pct(50) ? r_.u32() : 0;
        const uint32_t mode = static_cast<uint32_t>(r_.range(0, 4));
        const uint32_t flags = r_.below(32);
        const uint32_t v =
            std::string(csr) == "frm" ? (junk & ~7u) | mode : (junk & ~0xe0u) | mode << 5 | flags;
        li(t, v);
        const int d = rd();
        ins(strf("csrrw x%d, %s, x%d", d, csr, t));
        break;
      }
      case 2: {  // anything, including reserved rounding modes
        const char* op = r_.pick({"csrrw", "csrrs", "csrrc"});
        const int d = rd();
        const int a = rs();
        ins(strf("%s x%d, %s, x%d", op, d, csr, a));
        break;
      }
      case 3: {
        const char* op = r_.pick({"csrrwi", "csrrsi", "csrrci"});
        const int d = rd();
        const int imm = r_.range(0, 31);
        ins(strf("%s x%d, %s, %d", op, d, csr, imm));
        break;
      }
      case 4:
        ins(strf("csrwi frm, %d", r_.range(0, 4)));
        break;
      default: {
        const int d = rd();
        const int imm = r_.range(0, 31);
        ins(strf("csrrci x%d, fflags, %d", d, imm));
        break;
      }
    }
  }
  void sys_csr() {
    switch (r_.below(8)) {
      case 0:
      case 1: {  // the machine trap CSRs: read and write anything legal
        const char* csr = r_.pick({"mscratch", "mscratch", "mtval", "mcause"});
        const int d = rd();
        if (r_.pct(40)) {
          ins(strf("csrr x%d, %s", d, csr));
        } else if (r_.pct(70)) {
          const char* op = r_.pick({"csrrw", "csrrs", "csrrc"});
          const int a = rs();
          ins(strf("%s x%d, %s, x%d", op, d, csr, a));
        } else {
          const char* op = r_.pick({"csrrwi", "csrrsi", "csrrci"});
          const int imm = r_.range(0, 31);
          ins(strf("%s x%d, %s, %d", op, d, csr, imm));
        }
        break;
      }
      case 2: {  // mepc holds only 4-byte aligned values (IALIGN = 32)
        const int kind = static_cast<int>(r_.below(4));
        if (kind == 0) {
          const int d = rd();
          ins(strf("csrr x%d, mepc", d));
        } else if (kind == 1) {
          const int t = tmp();
          const int a = rs();
          ins(strf("andi x%d, x%d, -4", t, a));
          const char* op = r_.pick({"csrrw", "csrrs", "csrrc"});
          const int d = rd();
          ins(strf("%s x%d, mepc, x%d", op, d, t));
        } else if (kind == 2) {
          const int d = rd();
          const int imm = r_.range(0, 31);
          ins(strf("csrrci x%d, mepc, %d", d, imm));
        } else {
          const char* op = r_.pick({"csrrwi", "csrrsi"});
          const int d = rd();
          const int imm = r_.range(0, 7) * 4;
          ins(strf("%s x%d, mepc, %d", op, d, imm));
        }
        break;
      }
      case 3: {  // mstatus, with MPP first set to M (QEMU 7.2 lets MPP change; our hart hardwires
                 // it)
        const int t = tmp();
        li(t, 0x1800);
        ins(strf("csrs mstatus, x%d", t));
        const int d = rd();
        ins(strf("csrr x%d, mstatus", d));
        break;
      }
      case 4: {  // identification and other CSRs that read the same on both
        const uint32_t csr = r_.pick<uint32_t>({0xf11u, 0xf14u, 0xf15u, 0x304u, 0x310u, 0x320u});
        const char* op = r_.pick({"csrrs", "csrrc"});
        const int d = rd();
        ins(strf("%s x%d, 0x%03x, x0", op, d, csr));
        break;
      }
      case 5: {  // hardwired-zero performance counters and event selectors
        uint32_t csr;
        switch (r_.below(3)) {
          case 0:
            csr = 0xb03 + r_.below(29);
            break;
          case 1:
            csr = 0xb83 + r_.below(29);
            break;
          default:
            csr = 0x323 + r_.below(29);
            break;
        }
        const int d = rd();
        ins(strf("csrr x%d, 0x%03x", d, csr));
        break;
      }
      default: {
        const char* csr = r_.pick({"mscratch", "mcause", "mepc", "mtval"});
        const int d = rd();
        ins(strf("csrr x%d, %s", d, csr));
        break;
      }
    }
  }
  void fence() {
    if (r_.pct(50)) {
      ins(r_.pick({"fence", "fence.i", "fence rw, rw", "fence r, w", "fence iorw, iorw"}));
    } else {  // reserved fields set: still a fence (or fence.i) on both
      const uint32_t f3 = r_.below(2);
      const uint32_t imm = r_.u32() & 0xfff;
      const uint32_t rs1 = r_.below(32);
      const uint32_t rd5 = r_.below(32);
      word(enc_i(imm, rs1, f3, rd5, 0x0f),
           f3 ? "fence.i, reserved fields" : "fence, reserved fields");
    }
  }

  // ---- traps -----------------------------------------------------------------------------
  void trap() {
    switch (r_.weighted({5, 4, 16, 5, 4, 4, 3, 2})) {
      case 0:
        ins("ecall");
        break;
      case 1:
        ins("ebreak");
        break;
      case 2:
        illegal_word();
        break;
      case 3:
        illegal_csr();
        break;
      case 4: {  // reserved static rounding mode
        const uint32_t rm = r_.pick<uint32_t>({5u, 6u});
        const uint32_t rd5 = r_.below(32), rs1 = r_.below(32), rs2 = r_.below(32),
                       rs3 = r_.below(32);
        if (r_.pct(30)) {
          const uint32_t opcode = r_.pick<uint32_t>({0x43u, 0x47u, 0x4bu, 0x4fu});
          word(enc_r4(rs3, 0, rs2, rs1, rm, rd5, opcode), "fma with reserved rm");
        } else {
          const uint32_t f7 = r_.pick<uint32_t>({0x00u, 0x04u, 0x08u, 0x0cu, 0x2cu, 0x60u, 0x68u});
          const uint32_t r2 = f7 == 0x2c ? 0 : f7 >= 0x60 ? (rs2 & 1) : rs2;
          word(enc_r(f7, r2, rs1, rm, rd5, 0x53), "fp op with reserved rm");
        }
        break;
      }
      case 5: {  // access faults: nothing is mapped at 0..0x7ff, 0x10000000 or 0x40000000
        const int size = r_.pick({1, 2, 4});
        const int off = static_cast<int>(r_.below(static_cast<uint32_t>(2048 / size))) * size;
        const char* ld = size == 1 ? "lbu" : size == 2 ? "lh" : "lw";
        const char* st = size == 1 ? "sb" : size == 2 ? "sh" : "sw";
        if (r_.pct(50)) {
          const bool is_load = r_.pct(50);
          const int reg = is_load ? rd() : rs();
          ins(strf("%s x%d, %d(x0)", is_load ? ld : st, reg, off));
        } else {
          const int t = tmp();
          const uint32_t region = r_.pick<uint32_t>({0x10000000u, 0x40000000u});
          li(t, region + r_.below(256) * 4);
          switch (r_.below(4)) {
            case 0: {
              const int d = rd();
              ins(strf("lw x%d, 0(x%d)", d, t));
              break;
            }
            case 1: {
              const int v = rs();
              ins(strf("sw x%d, -4(x%d)", v, t));
              break;
            }
            case 2: {
              const int d = frand();
              ins(strf("flw f%d, 8(x%d)", d, t));
              break;
            }
            default: {
              const int v = frand();
              ins(strf("fsw f%d, 0(x%d)", v, t));
              break;
            }
          }
        }
        break;
      }
      case 6: {  // a reserved dynamic rounding mode: dyn instructions trap
        ins(strf("csrwi frm, %d", r_.range(5, 7)));
        const int n = r_.range(1, 3);
        for (int i = 0; i < n; ++i) {
          if (r_.pct(50)) {
            const int d = frand(), a = frand(), b = frand();
            ins(strf("fadd.s f%d, f%d, f%d, dyn", d, a, b));
          } else {
            const int d = rd(), a = frand();
            ins(strf("fcvt.w.s x%d, f%d, dyn", d, a));
          }
          if (r_.pct(50)) {  // no rounding mode: runs
            const int d = fd(), a = frand(), b = frand();
            ins(strf("fsgnjx.s f%d, f%d, f%d", d, a, b));
          }
        }
        if (r_.pct(80)) ins(strf("csrwi frm, %d", r_.range(0, 4)));
        break;
      }
      default: {  // FPU off: every F instruction and F CSR access traps
        const int t = stable_tmp();
        li(t, 0x6000);
        ins(strf("csrc mstatus, x%d", t));
        const int n = r_.range(1, 3);
        pinned_ |= 1u << t;
        for (int i = 0; i < n; ++i) {
          switch (r_.below(5)) {
            case 0: {
              const int d = frand(), a = frand(), b = frand();
              const char* rm = rm_name();
              ins(strf("fadd.s f%d, f%d, f%d, %s", d, a, b, rm));
              break;
            }
            case 1: {
              const int d = rd();
              ins(strf("csrr x%d, fcsr", d));
              break;
            }
            case 2: {
              const int d = frand();
              const std::string addr = buf_addr(4);
              ins(strf("flw f%d, %s", d, addr.c_str()));
              break;
            }
            case 3: {
              const int d = rd(), a = frand();
              ins(strf("fmv.x.w x%d, f%d", d, a));
              break;
            }
            default:
              alu_rr();
              break;
          }
        }
        pinned_ &= ~(1u << t);
        ins(strf("csrs mstatus, x%d", t));
        break;
      }
    }
  }
  void illegal_csr() {
    // Nonexistent CSRs (S-mode, PMP, debug, time, custom) and writes to read-only ones.
    const uint32_t missing =
        r_.pick<uint32_t>({0x100u, 0x180u, 0x3a0u, 0x3b0u, 0x7a0u, 0x7b0u, 0xc01u, 0xc81u, 0x7c0u,
                           0xbc0u, 0x5c0u, 0x000u, 0x004u, 0x306u, 0x30au, 0x747u});
    const uint32_t readonly =
        r_.pick<uint32_t>({0xf11u, 0xf12u, 0xf13u, 0xf14u, 0xf15u, 0xc00u, 0xc02u, 0xc03u});
    const int kind = static_cast<int>(r_.below(4));
    const int d = rd();
    const int a = rs();
    const int imm = r_.range(1, 31);
    switch (kind) {
      case 0:
        ins(strf("csrr x%d, 0x%03x", d, missing));
        break;
      case 1:
        ins(strf("csrrw x%d, 0x%03x, x%d", d, missing, a));
        break;
      case 2:
        ins(strf("csrrw x%d, 0x%03x, x%d", d, readonly, a));
        break;
      default:
        ins(strf("csrrsi x%d, 0x%03x, %d", d, readonly, imm));
        break;
    }
  }
  void illegal_word() {
    const uint32_t rd5 = r_.below(32), rs1 = r_.below(32), rs2 = r_.below(32), rs3 = r_.below(32);
    const uint32_t bits = r_.u32();  // random filler for immediates and the like
    const uint32_t rm = r_.below(5);
    const uint32_t kind = r_.below(o_.short_illegal ? 17 : 16);
    switch (kind) {
      case 0:
        word(r_.pick<uint32_t>({0x00000000u, 0xffffffffu}), "all zeros / all ones");
        break;
      case 1: {  // A extension (absent)
        const uint32_t funct5 = r_.pick<uint32_t>(
            {0x00u, 0x01u, 0x02u, 0x03u, 0x04u, 0x08u, 0x0cu, 0x10u, 0x14u, 0x18u, 0x1cu});
        word(enc_r(funct5 << 2 | (bits & 3), rs2, rs1, 2, rd5, 0x2f), "AMO (no A)");
        break;
      }
      case 2:  // D extension (absent)
        switch (bits & 3) {
          case 0: {
            const uint32_t f7 =
                0x01u | r_.pick<uint32_t>({0x00u, 0x04u, 0x08u, 0x0cu, 0x10u, 0x14u});
            word(enc_r(f7, rs2, rs1, rm % 3, rd5, 0x53), "D op");
            break;
          }
          case 1:
            word(enc_i(bits >> 8, rs1, 3, rd5, 0x07), "fld");
            break;
          case 2:
            word(enc_i(bits >> 8, rs1, 3, rd5, 0x27), "fsd");
            break;
          default: {
            const uint32_t opcode = r_.pick<uint32_t>({0x43u, 0x47u, 0x4bu, 0x4fu});
            word(enc_r4(rs3, 1, rs2, rs1, rm, rd5, opcode), "fmadd.d");
            break;
          }
        }
        break;
      case 3: {  // OP with a funct7 no extension of ours defines (includes Zb*)
        const uint32_t f7 =
            r_.pick<uint32_t>({0x20u, 0x04u, 0x05u, 0x10u, 0x14u, 0x24u, 0x30u, 0x34u, 0x7fu});
        const uint32_t f3 = r_.pick<uint32_t>({1u, 2u, 3u, 4u, 6u, 7u});
        word(enc_r(f7, rs2, rs1, f3, rd5, 0x33), "OP, reserved funct7");
        break;
      }
      case 4: {  // OP-IMM shifts with a bad funct7 (RV64 shamt, Zbb/Zbs)
        const uint32_t f3 = (bits & 1) ? 1u : 5u;
        const uint32_t f7 = f3 == 1 ? r_.pick<uint32_t>({0x01u, 0x20u, 0x30u, 0x14u, 0x24u, 0x34u})
                                    : r_.pick<uint32_t>({0x01u, 0x21u, 0x30u, 0x14u, 0x24u, 0x34u});
        word(enc_r(f7, rs2, rs1, f3, rd5, 0x13), "shift, reserved funct7");
        break;
      }
      case 5: {
        const uint32_t f7 = r_.pick<uint32_t>({0x00u, 0x20u, 0x01u});
        const uint32_t opcode = r_.pick<uint32_t>({0x3bu, 0x1bu});
        word(enc_r(f7, rs2, rs1, bits & 7, rd5, opcode), "RV64 *W op");
        break;
      }
      case 6:
        word(enc_i(bits >> 8, rs1, r_.pick<uint32_t>({3u, 6u, 7u}), rd5, 0x03),
             "load, reserved width");
        break;
      case 7:
        word(enc_i(bits >> 8, rs1, r_.pick<uint32_t>({3u, 4u, 5u, 6u, 7u}), rd5, 0x23),
             "store, reserved width");
        break;
      case 8:
        word(enc_r(bits & 0x7f, rs2, rs1, 2 + (bits >> 7 & 1), rd5, 0x63),
             "branch, reserved funct3");
        break;
      case 9:
        word(enc_i(bits >> 8, rs1, 1 + (bits & 7) % 7, rd5, 0x67), "jalr, reserved funct3");
        break;
      case 10:
        word(enc_i(bits >> 8, rs1, 2 + (bits & 7) % 6, rd5, 0x0f), "MISC-MEM, reserved funct3");
        break;
      case 11:  // SYSTEM oddities: dret, sret, uret, mret/ecall/ebreak with fields set, funct3 4
        word(r_.pick<uint32_t>({0x7b200073u, 0x10200073u, 0x00200073u, 0x30200073u | (rd5 | 1) << 7,
                                0x00000073u | (rs1 | 1) << 15, 0x00100073u | (rd5 | 1) << 7,
                                0x00004073u | rd5 << 7, 0x30500073u}),
             "SYSTEM, reserved");
        break;
      case 12: {                            // F encodings with reserved fields
        const uint32_t hi = 1 + bits % 31;  // 1..31
        switch (rm) {
          case 0:
            word(enc_r(0x10, rs2, rs1, 3, rd5, 0x53), "fsgnj, funct3 3");
            break;
          case 1:
            word(enc_r(0x14, rs2, rs1, 2 + (bits >> 8) % 6, rd5, 0x53),
                 "fmin/fmax, reserved funct3");
            break;
          case 2:
            word(enc_r(0x50, rs2, rs1, 3 + (bits >> 8) % 5, rd5, 0x53), "fcmp, reserved funct3");
            break;
          case 3:
            word(enc_r(0x60 | ((bits >> 8) & 8), hi < 2 ? 2 : hi, rs1, 0, rd5, 0x53),
                 "fcvt.w.s/fcvt.s.w, reserved rs2");
            break;
          default: {
            const uint32_t f7 = r_.pick<uint32_t>({0x2cu, 0x70u, 0x78u});
            word(enc_r(f7, hi, rs1, f7 == 0x2c ? 0 : (bits >> 8) & 1, rd5, 0x53),
                 "fsqrt/fmv/fclass, reserved rs2");
            break;
          }
        }
        break;
      }
      case 13: {
        const uint32_t f7 =
            r_.pick<uint32_t>({0x02u, 0x06u, 0x0au, 0x0eu, 0x2eu, 0x12u, 0x16u, 0x03u, 0x07u});
        word(enc_r(f7, rs2, rs1, rm, rd5, 0x53), "fp op, fmt H/Q");
        break;
      }
      case 14:
        word(enc_i(bits >> 8, rs1, r_.pick<uint32_t>({1u, 3u, 4u}), rd5, 0x07), "flh/fld/flq");
        break;
      case 15: {
        const uint32_t opcode = r_.pick<uint32_t>({0x57u, 0x0bu, 0x2bu, 0x5bu, 0x7bu, 0x77u});
        word((bits & ~0x7fu) | opcode, "reserved/custom/V major opcode");
        break;
      }
      default:  // a 16-bit encoding (low bits != 11) without C
        word((bits & ~3u) | rm % 3, "16-bit encoding (no C)");
        break;
    }
  }

  // ---- blocks (the unit forward branches target) -----------------------------------------
  void block() {
    label(strf(".Lb%d", block_));
    switch (r_.weighted({60, 12, 4, 4, 5, 3, 2, 4})) {
      case 0: {
        const int n = r_.range(1, 4);
        for (int i = 0; i < n; ++i) simple();
        break;
      }
      case 1: {  // conditional forward branch
        const char* op = r_.pick({"beq", "bne", "blt", "bge", "bltu", "bgeu"});
        const int a = rs(), b = r_.pct(10) ? a : rs();
        ins(strf("%s x%d, x%d, %s", op, a, b, fwd_label().c_str()));
        break;
      }
      case 2: {  // jal
        const int d = rd();
        ins(strf("jal x%d, %s", d, fwd_label().c_str()));
        break;
      }
      case 3: {  // jalr to a label, through a register; bit 0 of the sum is ignored
        const int t = tmp();
        const int off = r_.range(-16, 16) * 4;
        const int odd = r_.pct(30) ? 1 : 0;
        ins(strf("la x%d, %s%+d", t, fwd_label().c_str(), -off));
        ins(strf("jalr x%d, %d(x%d)", rd(), off + odd, t));
        break;
      }
      case 4:
        loop();
        break;
      case 5:
        call();
        break;
      case 6:
        misaligned_jump();
        break;
      default:
        self_modify();
        break;
    }
    ++block_;
  }
  void loop() {
    const int c = stable_tmp();
    const int n = r_.range(1, 5);
    pinned_ |= 1u << c;
    const bool up = r_.pct(30);
    li(c, up ? 0u : static_cast<uint32_t>(n));
    const std::string top = strf(".Ll%d", block_);
    label(top);
    const int body = r_.range(1, 6);
    for (int i = 0; i < body; ++i) simple();
    if (up) {
      ins(strf("addi x%d, x%d, 1", c, c));
      const int lim = stable_tmp();
      li(lim, static_cast<uint32_t>(n));
      ins(strf("%s x%d, x%d, %s", r_.pct(50) ? "blt" : "bltu", c, lim, top.c_str()));
    } else {
      ins(strf("addi x%d, x%d, -1", c, c));
      ins(strf("bnez x%d, %s", c, top.c_str()));
    }
    pinned_ &= ~(1u << c);
  }
  void call() {
    const int link = stable_tmp();
    const std::string fn = strf(".Lf%d", block_), end = strf(".Le%d", block_);
    ins(strf("jal x%d, %s", link, fn.c_str()));
    ins(strf("j %s", end.c_str()));
    label(fn);
    pinned_ |= 1u << link;
    const int body = r_.range(1, 5);
    for (int i = 0; i < body; ++i) simple();
    pinned_ &= ~(1u << link);
    ins(strf("jalr x%d, 0(x%d)", r_.pct(70) ? 0 : rd(), link));
    label(end);
  }
  // A random integer instruction word whose destination random code may write.
  uint32_t alu_word() {
    const uint32_t d = static_cast<uint32_t>(rd());
    const uint32_t a = static_cast<uint32_t>(rs());
    const uint32_t b = static_cast<uint32_t>(rs());
    const uint32_t imm = static_cast<uint32_t>(imm12());
    switch (r_.below(4)) {
      case 0:
        return enc_i(imm, a, r_.pick<uint32_t>({0u, 2u, 3u, 4u, 6u, 7u}), d, 0x13);  // OP-IMM
      case 1:
        return enc_r(0, b, a, r_.below(8), d, 0x33);  // OP
      case 2:
        return enc_r(1, b, a, r_.below(8), d, 0x33);  // M
      default:
        return (imm << 12) | d << 7 | 0x37;  // lui
    }
  }
  // Overwrites an instruction ahead with another, then fence.i: the ISS's decode cache must
  // notice. (A branch may skip the store; the slot then runs what it held before.)
  void self_modify() {
    const int t = tmp();
    int v = tmp();
    while (v == t) v = tmp();
    const std::string slot = strf(".Ls%d", block_);
    ins(strf("la x%d, %s", t, slot.c_str()));
    const uint32_t replacement = alu_word();
    li(v, replacement);
    ins(strf("sw x%d, 0(x%d)", v, t));
    ins("fence.i");
    label(slot);
    word(alu_word(), "replaced at run time");
  }
  void misaligned_jump() {
    // Targets 2 bytes past a label trap (IALIGN = 32) before anything is written; a branch
    // not taken does not trap.
    const std::string target = fwd_label() + "+2";
    switch (r_.below(4)) {
      case 0:
        ins(strf("jal x%d, %s", rd(), target.c_str()));
        break;
      case 1:
        ins(strf("beq x0, x0, %s", target.c_str()));
        break;
      case 2:
        ins(strf("bne x0, x0, %s", target.c_str()));
        break;
      default: {
        const int t = tmp();
        ins(strf("la x%d, %s", t, target.c_str()));
        ins(strf("jalr x%d, 0(x%d)", rd(), t));
        break;
      }
    }
  }

  // ---- fixed parts -------------------------------------------------------------------------
  std::string prologue() {
    std::string s;
    const std::string t = xr(s1_);
    s += "\t# trap handler, FPU on (FS = Dirty), MPP = M (QEMU 7.2 resets MPP to 0)\n";
    s += strf("\tla %s, rv_trap_handler\n\tcsrw mtvec, %s\n", t.c_str(), t.c_str());
    s += strf("\tli %s, 0x7800\n\tcsrs mstatus, %s\n", t.c_str(), t.c_str());
    const uint32_t frm = static_cast<uint32_t>(r_.range(0, 4));
    const uint32_t fflags = r_.pct(50) ? r_.below(32) : 0;
    s += strf("\tli %s, 0x%x\n\tcsrw fcsr, %s\n", t.c_str(), frm << 5 | fflags, t.c_str());
    s += "\t# f registers\n";
    for (int f = 0; f < 32; ++f) {
      s += strf("\tli %s, %d\n\tfmv.w.x f%d, %s\n", t.c_str(), static_cast<int32_t>(fp_value()), f,
                t.c_str());
    }
    s += "\t# x registers\n";
    for (int x = 1; x < 32; ++x) {
      if (x == b0_)
        s += strf("\tla x%d, rv_buf\n", x);
      else if (x == b1_)
        s += strf("\tla x%d, rv_buf+2048\n", x);
      else
        s += strf("\tli x%d, %d\n", x, static_cast<int32_t>(int_value()));
    }
    return s;
  }
  std::string epilogue() {
    std::string s = "rv_epilogue:\n\t# save the end state, then print it through HTIF\n";
    s += "\tcsrw mscratch, x1\n\tla x1, rv_save\n";
    for (int x = 2; x < 32; ++x) s += strf("\tsw x%d, %d(x1)\n", x, 4 * x);
    s += "\tcsrr x2, mscratch\n\tsw x2, 4(x1)\n";
    for (int f = 0; f < 32; ++f) s += strf("\tfsw f%d, %d(x1)\n", f, 128 + 4 * f);
    s += "\tcsrr x2, fcsr\n\tsw x2, 256(x1)\n";
    s += "\tcsrr x2, mepc\n\tsw x2, 260(x1)\n";
    s += "\tcsrr x2, mcause\n\tsw x2, 264(x1)\n";
    s += "\tcsrr x2, mtval\n\tsw x2, 268(x1)\n";
    // FNV-1a over words, per 512-byte chunk, then over the chunk sums.
    s += strf(
        "\tla x10, rv_buf\n\taddi x11, x1, 276\n\tli x12, %d\n\tli x13, 0x01000193\n\tli x16, "
        "0x811c9dc5\n"
        ".Lck_chunk:\n\tli x14, 0x811c9dc5\n\tli x15, %d\n"
        ".Lck_word:\n\tlw x5, 0(x10)\n\txor x14, x14, x5\n\tmul x14, x14, x13\n\taddi x10, x10, 4\n"
        "\taddi x15, x15, -1\n\tbnez x15, .Lck_word\n"
        "\tsw x14, 0(x11)\n\taddi x11, x11, 4\n\txor x16, x16, x14\n\tmul x16, x16, x13\n"
        "\taddi x12, x12, -1\n\tbnez x12, .Lck_chunk\n\tsw x16, 272(x1)\n",
        kChunks, static_cast<int>(kBufBytes / kChunks / 4));
    // The print list: name and offset in rv_save.
    std::vector<std::pair<std::string, int>> lines;
    for (int x = 1; x < 32; ++x) lines.emplace_back(strf("x%d", x), 4 * x);
    for (int f = 0; f < 32; ++f) lines.emplace_back(strf("f%d", f), 128 + 4 * f);
    lines.emplace_back("fcsr", 256);
    lines.emplace_back("mepc", 260);
    lines.emplace_back("mcause", 264);
    lines.emplace_back("mtval", 268);
    lines.emplace_back("mem", 272);
    for (int c = 0; c < kChunks; ++c) lines.emplace_back(strf("mem%d", c), 276 + 4 * c);
    s += "\tmv s0, x1\n";
    for (size_t i = 0; i < lines.size(); ++i) {
      s += strf("\tla a0, .Lname%zu\n\tlw a1, %d(s0)\n\tjal ra, rv_print_line\n", i,
                lines[i].second);
    }
    s += "\tla a0, .Lname_end\n\tli a1, 0\n\tjal ra, rv_print_line\n";
    s += "\t# exit 0 through HTIF\n\tla t0, tohost\n\tli t1, 1\n\tsw t1, 0(t0)\n\tsw x0, "
         "4(t0)\n1:\tj 1b\n\n";
    // rv_print_line(a0 = name, a1 = value): "name=xxxxxxxx\n".
    s += "rv_print_line:\n\tmv t6, ra\n"
         "1:\tlbu t0, 0(a0)\n\tbeqz t0, 2f\n\tjal ra, rv_putc\n\taddi a0, a0, 1\n\tj 1b\n"
         "2:\tli t0, '='\n\tjal ra, rv_putc\n\tli t2, 8\n"
         "3:\tsrli t0, a1, 28\n\tslli a1, a1, 4\n\tli t3, 10\n\tblt t0, t3, 4f\n\taddi t0, t0, "
         "'a'-'0'-10\n"
         "4:\taddi t0, t0, '0'\n\tjal ra, rv_putc\n\taddi t2, t2, -1\n\tbnez t2, 3b\n"
         "\tli t0, '\\n'\n\tjal ra, rv_putc\n\tmv ra, t6\n\tret\n";
    // rv_putc(t0): HTIF console, device 1 command 1; clobbers t1, t5.
    s += "rv_putc:\n\tla t5, tohost\n\tsw t0, 0(t5)\n\tli t1, 0x01010000\n\tsw t1, 4(t5)\n"
         "\tla t5, fromhost\n\tsw x0, 0(t5)\n\tsw x0, 4(t5)\n\tret\n\n";
    return s;
  }
  std::string handler() {
    // Folds mcause, mepc and (where both harts must agree on it) mtval into the
    // accumulator, zeroes mtval where they need not agree, then skips the trapping
    // instruction. Clobbers only the two scratch registers.
    const std::string a = xr(acc_), p = xr(s1_), q = xr(s2_);
    std::string s = "\t.align 2\nrv_trap_handler:\n";
    auto fold = [&](const std::string& v, const std::string& t) {
      return strf("\tslli %s, %s, 5\n\tadd %s, %s, %s\n\txor %s, %s, %s\n", t.c_str(), a.c_str(),
                  a.c_str(), a.c_str(), t.c_str(), a.c_str(), a.c_str(), v.c_str());
    };
    s += strf("\tcsrr %s, mcause\n", p.c_str()) + fold(p, q);
    s += strf("\tcsrr %s, mepc\n", q.c_str()) + fold(q, p);
    s += strf("\tcsrr %s, mcause\n", p.c_str());
    s += strf(
        "\tbeqz %s, .Lh_clear\t# misaligned fetch: QEMU 7.2 gives the jump's pc for jal/branches\n",
        p.c_str());
    s += strf("\taddi %s, %s, -3\n\tbeqz %s, .Lh_clear\t# breakpoint: pc or 0 are both legal\n",
              p.c_str(), p.c_str(), p.c_str());
    s += strf("\taddi %s, %s, 1\n\tbnez %s, .Lh_fold\t# not an illegal instruction\n", p.c_str(),
              p.c_str(), p.c_str());
    s += strf("\tlw %s, 0(%s)\n\tandi %s, %s, 0x7f\n", p.c_str(), q.c_str(), p.c_str(), p.c_str());
    s += strf(
        "\taddi %s, %s, -0x73\n\tbeqz %s, .Lh_clear\t# SYSTEM: QEMU 7.2 leaves mtval stale for CSR "
        "faults\n",
        p.c_str(), p.c_str(), p.c_str());
    s += strf("\taddi %s, %s, 0x73\n\tandi %s, %s, 0x63\n\taddi %s, %s, -0x43\n", p.c_str(),
              p.c_str(), p.c_str(), p.c_str(), p.c_str(), p.c_str());
    s += strf("\tbeqz %s, .Lh_clear\t# OP-FP/FMA: likewise for reserved rounding modes\n",
              p.c_str());
    s += ".Lh_fold:\n" + strf("\tcsrr %s, mtval\n", p.c_str()) + fold(p, q) + "\tj .Lh_skip\n";
    s += ".Lh_clear:\t# an mtval the two harts may legitimately disagree on: make it 0 on both\n";
    s += "\tcsrw mtval, x0\n";
    s += ".Lh_skip:\n" + strf("\tcsrr %s, mepc\n\taddi %s, %s, 4\n\tcsrw mepc, %s\n\tmret\n\n",
                              p.c_str(), p.c_str(), p.c_str(), p.c_str());
    return s;
  }
  std::string data() {
    std::string s = "\t.data\n\t.align 6\nrv_buf:\n";
    for (uint32_t i = 0; i < kBufBytes / 4; i += 4) {
      uint32_t v[4];
      for (auto& w : v) {
        w = data_r_.u32();
        if (data_r_.pct(40)) w >>= data_r_.below(32);
      }
      s += strf("\t.word 0x%08x, 0x%08x, 0x%08x, 0x%08x\n", v[0], v[1], v[2], v[3]);
    }
    s += "\t.align 4\nrv_save:\n\t.space 512\n";
    const std::vector<std::string> names = [] {
      std::vector<std::string> n;
      for (int x = 1; x < 32; ++x) n.push_back(strf("x%d", x));
      for (int f = 0; f < 32; ++f) n.push_back(strf("f%d", f));
      for (const char* c : {"fcsr", "mepc", "mcause", "mtval", "mem"}) n.push_back(c);
      for (int c = 0; c < kChunks; ++c) n.push_back(strf("mem%d", c));
      return n;
    }();
    for (size_t i = 0; i < names.size(); ++i)
      s += strf(".Lname%zu:\t.asciz \"%s\"\n", i, names[i].c_str());
    s += ".Lname_end:\t.asciz \"end\"\n";
    // HTIF: QEMU finds these by symbol and insists on 8-byte objects.
    s += "\t.section .tohost,\"aw\",@progbits\n\t.align 6\n\t.globl tohost\n\t.type tohost, "
         "@object\n"
         "\t.size tohost, 8\ntohost:\t.dword 0\n\t.align 6\n\t.globl fromhost\n\t.type fromhost, "
         "@object\n"
         "\t.size fromhost, 8\nfromhost:\t.dword 0\n";
    return s;
  }

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Writes a random RV32IMF test program (assembly) whose end state it prints through HTIF."};
  Options o;
  std::string out_path;
  bool no_short = false;
  app.add_option("--seed", o.seed, "random seed")->required();
  // About 4.5 bytes of code per instruction: 10000 leave room in the 64 KiB SRAM.
  app.add_option("--length", o.length, "number of random instructions (at most 10000)")
      ->check(CLI::Range(1, 10000));
  app.add_option("-o,--output", out_path, "output file (default: stdout)");
  app.add_flag("--no-short-illegal", no_short,
               "no illegal words with a 16-bit encoding (low bits != 11)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  o.short_illegal = !no_short;
  const std::string program = Generator(o).generate();
  if (out_path.empty()) {
    std::cout << program;
    return std::cout ? 0 : 1;
  }
  std::ofstream out(out_path);
  out << program;
  out.close();
  if (!out) {
    std::fprintf(stderr, "tessera-rvgen: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}
