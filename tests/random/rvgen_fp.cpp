// tessera-rvgen: straight-line F-extension instructions: arithmetic, fused multiply-add,
// conversions, sign injection / min / max / compare / classify / moves, and the FP CSRs,
// with operands steered toward special values and rare rounding corners.
#include <cstdint>
#include <string>

#include "rvgen.h"

namespace tessera::rvgen {

namespace {

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

}  // namespace

// Makes f register b a relative of a (or both a signed-zero pair): the operand pairs on
// which min/max, compares and add/sub have their special cases.
void Generator::relate(int a, int b, unsigned percent) {
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
void Generator::tricky(int a, int b, int c) {
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

void Generator::fp_arith() {
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

void Generator::fp_fma() {
  fp_op_ = true;
  const int a = frand();
  const int b = frand();
  const int c = frand();
  refresh_f(a, 15);
  refresh_f(b, 15);
  refresh_f(c, 15);
  if (a != b && b != c && a != c && r_.pct(8)) tricky(a, b, c);
  if (c != a && c != b && r_.pct(20)) {  // c = a*b rounded: the fma then yields the rounding error
    const char* rm = rm_name();
    ins(strf("fmul.s f%d, f%d, f%d, %s", c, a, b, rm));
  }
  const char* op = r_.pick({"fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s"});
  const int d = fd();
  const char* rm = rm_name();
  ins(strf("%s f%d, f%d, f%d, f%d, %s", op, d, a, b, c, rm));
}

void Generator::fp_cvt() {
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

void Generator::fp_misc() {
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

void Generator::fp_csr() {
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

}  // namespace tessera::rvgen
