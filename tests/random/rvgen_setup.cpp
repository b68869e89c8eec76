// tessera-rvgen: the program's fixed parts around the random stream: generate() (the
// whole program), the register roles, the prologue (trap vector, FPU, initial register
// values), the epilogue that saves and prints the end state through HTIF, the trap handler
// and the data section.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rvgen.h"

namespace tessera::rvgen {

std::string Generator::generate() {
  assign_roles();
  std::string out;
  out +=
      strf("# tessera-rvgen --seed %llu --length %d%s\n", static_cast<unsigned long long>(o_.seed),
           o_.length, o_.short_illegal ? "" : " --no-short-illegal");
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

void Generator::assign_roles() {
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

std::string Generator::prologue() {
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

std::string Generator::epilogue() {
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
    s += strf("\tla a0, .Lname%zu\n\tlw a1, %d(s0)\n\tjal ra, rv_print_line\n", i, lines[i].second);
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

std::string Generator::handler() {
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
  s += strf("\tbeqz %s, .Lh_clear\t# OP-FP/FMA: likewise for reserved rounding modes\n", p.c_str());
  s += ".Lh_fold:\n" + strf("\tcsrr %s, mtval\n", p.c_str()) + fold(p, q) + "\tj .Lh_skip\n";
  s += ".Lh_clear:\t# an mtval the two harts may legitimately disagree on: make it 0 on both\n";
  s += "\tcsrw mtval, x0\n";
  s += ".Lh_skip:\n" + strf("\tcsrr %s, mepc\n\taddi %s, %s, 4\n\tcsrw mepc, %s\n\tmret\n\n",
                            p.c_str(), p.c_str(), p.c_str(), p.c_str());
  return s;
}

std::string Generator::data() {
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

}  // namespace tessera::rvgen
