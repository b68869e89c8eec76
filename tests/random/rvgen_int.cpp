// tessera-rvgen: straight-line integer instructions: RV32I ALU and upper-immediate ops, the
// M extension with its division corners, loads and stores into the data buffer, the
// machine-mode CSRs (Zicsr) and fences.
#include <cstdint>
#include <string>

#include "rvgen.h"

namespace tessera::rvgen {

void Generator::alu_rr() {
  const char* op = r_.pick({"add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and"});
  const int a = rs();
  const int b = r_.pct(10) ? a : rs();
  const int d = rd();
  ins(strf("%s x%d, x%d, x%d", op, d, a, b));
}

int Generator::imm12() {
  switch (r_.below(5)) {
    case 0:
      return r_.pick({-2048, 2047, 0, -1, 1});
    case 1:
      return r_.range(-16, 16);
    default:
      return r_.range(-2048, 2047);
  }
}

void Generator::alu_imm() {
  const char* op = r_.pick({"addi", "slti", "sltiu", "xori", "ori", "andi"});
  const int d = rd();
  const int a = rs();
  const int imm = imm12();
  ins(strf("%s x%d, x%d, %d", op, d, a, imm));
}

void Generator::shift_imm() {
  const char* op = r_.pick({"slli", "srli", "srai"});
  const int d = rd();
  const int a = rs();
  const int sh = r_.pct(30) ? r_.pick({0, 1, 31}) : r_.range(0, 31);
  ins(strf("%s x%d, x%d, %d", op, d, a, sh));
}

void Generator::upper() {
  const uint32_t imm =
      r_.pct(30) ? r_.pick<uint32_t>({0u, 0xfffffu, 0x80000u, 0x7ffffu}) : r_.u32() >> 12;
  const char* op = r_.pct(50) ? "lui" : "auipc";
  const int d = rd();
  ins(strf("%s x%d, 0x%x", op, d, imm));
}

void Generator::mext() {
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
std::string Generator::buf_addr(int size) {
  if (r_.pct(50)) {
    const int off = static_cast<int>(r_.below(static_cast<uint32_t>(2048 / size))) * size;
    return strf("%d(x%d)", off, b0_);
  }
  const int off = static_cast<int>(r_.below(static_cast<uint32_t>(4096 / size))) * size - 2048;
  return strf("%d(x%d)", off, b1_);
}

void Generator::load() {
  const int kind = static_cast<int>(r_.below(6));
  static const char* const kOps[] = {"lb", "lbu", "lh", "lhu", "lw", "flw"};
  static const int kSize[] = {1, 1, 2, 2, 4, 4};
  const int d = kind == 5 ? fd() : rd();
  const std::string addr = buf_addr(kSize[kind]);
  ins(strf("%s %c%d, %s", kOps[kind], kind == 5 ? 'f' : 'x', d, addr.c_str()));
}

void Generator::store() {
  const int kind = static_cast<int>(r_.below(4));
  static const char* const kOps[] = {"sb", "sh", "sw", "fsw"};
  static const int kSize[] = {1, 2, 4, 4};
  const int v = kind == 3 ? frand() : rs();
  const std::string addr = buf_addr(kSize[kind]);
  ins(strf("%s %c%d, %s", kOps[kind], kind == 3 ? 'f' : 'x', v, addr.c_str()));
}

void Generator::sys_csr() {
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

void Generator::fence() {
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

}  // namespace tessera::rvgen
