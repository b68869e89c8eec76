// tessera-rvgen: the stream's structure: blocks (the unit forward branches target), the
// straight-line instruction mix and the observation of its results, forward branches and
// jumps, counted loops, calls and returns, misaligned jump targets and instruction words
// rewritten at run time.
#include <cstdint>
#include <string>

#include "rvgen.h"

namespace tessera::rvgen {

void Generator::simple() {
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
void Generator::observe() {
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

void Generator::block() {
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

void Generator::loop() {
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

void Generator::call() {
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
uint32_t Generator::alu_word() {
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
void Generator::self_modify() {
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

void Generator::misaligned_jump() {
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

}  // namespace tessera::rvgen
