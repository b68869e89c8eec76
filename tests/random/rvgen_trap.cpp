// tessera-rvgen: instructions that trap: ecall, ebreak, illegal words of many kinds,
// nonexistent and read-only CSRs, reserved rounding modes, access faults and F
// instructions with the FPU switched off.
#include <cstdint>
#include <string>

#include "rvgen.h"

namespace tessera::rvgen {

void Generator::trap() {
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
      const uint32_t rd5 = r_.below(32), rs1 = r_.below(32), rs2 = r_.below(32), rs3 = r_.below(32);
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

void Generator::illegal_csr() {
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

void Generator::illegal_word() {
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
          const uint32_t f7 = 0x01u | r_.pick<uint32_t>({0x00u, 0x04u, 0x08u, 0x0cu, 0x10u, 0x14u});
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
      word(enc_r(bits & 0x7f, rs2, rs1, 2 + (bits >> 7 & 1), rd5, 0x63), "branch, reserved funct3");
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
          word(enc_r(0x14, rs2, rs1, 2 + (bits >> 8) % 6, rd5, 0x53), "fmin/fmax, reserved funct3");
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

}  // namespace tessera::rvgen
