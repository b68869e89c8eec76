// Lock-step comparison of the RTL's retire port with the emulator: see cosim.h.
#include "tessera/cosim/cosim.h"

#include <cstdio>
#include <cstring>

#include "tessera/arch/latency.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/decode.h"
#include "tessera/emu/disasm.h"

namespace tessera::cosim {

namespace {

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

bool writes_x(emu::Format f) {
  using F = emu::Format;
  switch (f) {
    case F::U: case F::J: case F::Jr: case F::Load: case F::I: case F::Shift: case F::R: case F::Csr:
    case F::CsrI: case F::XFm: case F::XF: case F::XFF:
      return true;
    default: return false;
  }
}

bool writes_f(emu::Format f) {
  using F = emu::Format;
  switch (f) {
    case F::FLoad: case F::FR4: case F::FRm: case F::FR1m: case F::FR: case F::FXm: case F::FX: return true;
    default: return false;
  }
}

// The cycle counter: the one timing value a CSR holds (minstret counts instructions, the
// same on every backend, and is compared).
bool is_counter_csr(uint32_t n) {
  switch (n) {
    case emu::kCsrCycle: case emu::kCsrCycleh: case emu::kCsrMcycle: case emu::kCsrMcycleh:
      return true;
    default: return false;
  }
}

}  // namespace

Cosim::Cosim(vlt::VltTile& rtl, emu::Tile& emu, const Options& opt) : rtl_(rtl), emu_(emu), opt_(opt) {}

bool Cosim::fail(const vlt::RetireRecord& r, const std::string& field, const std::string& rtl, const std::string& emu) {
  div_ = {n_, r.pc, r.insn, field, rtl, emu};
  return false;
}

bool Cosim::fail(const vlt::RetireRecord& r, const std::string& field, uint32_t rtl, uint32_t emu) {
  return fail(r, field, hex32(rtl), hex32(emu));
}

// The harness's writes into SRAM that the core saw before this record's memory access.
void Cosim::apply_ext_writes(uint64_t tick) {
  auto& w = rtl_.ext_writes();
  for (; ext_done_ < w.size() && w[ext_done_].tick + opt_.ext_skew <= tick; ++ext_done_) {
    const uint32_t off = w[ext_done_].addr - arch::kSramBase;
    if (off >= emu_.sram().size() || emu_.sram().size() - off < 4) continue;  // no 32-bit wrap
    for (unsigned b = 0; b < 4; ++b)
      if (w[ext_done_].be >> b & 1) emu_.sram()[off + b] = static_cast<uint8_t>(w[ext_done_].data >> (8 * b));
  }
}

bool Cosim::step(const vlt::RetireRecord& r) {
  ++n_;
  history_.push_back(std::to_string(n_) + ": " + vlt::describe(r));
  if (history_.size() > opt_.history) history_.pop_front();
  apply_ext_writes(r.tick);

  emu::Hart& h = emu_.hart();
  if (h.halted()) return fail(r, "retired after the emulator halted", "retire", "halted");
  const uint32_t pc = h.pc();
  if (r.pc != pc) return fail(r, "pc", r.pc, pc);
  const uint32_t off = pc - arch::kSramBase;
  const bool pc_in_sram = off < emu_.sram().size() && emu_.sram().size() - off >= 4;
  uint32_t raw = 0;
  if (pc_in_sram) std::memcpy(&raw, emu_.sram().data() + off, 4);
  const bool fetch_fault = r.trap && r.cause == emu::kCauseFetchAccess;
  if (!fetch_fault && r.insn != raw) return fail(r, "instruction word", r.insn, raw);

  // What the instruction will do, from the emulator's state before it executes.
  const emu::Decoded d = emu::decode(raw);
  const emu::Format fmt = emu::op_format(d.op);
  const bool is_load = fmt == emu::Format::Load || fmt == emu::Format::FLoad;
  const bool is_store = fmt == emu::Format::Store || fmt == emu::Format::FStore;
  const bool is_csr = fmt == emu::Format::Csr || fmt == emu::Format::CsrI;
  const uint32_t addr = h.x(d.rs1) + static_cast<uint32_t>(d.imm);
  const uint32_t size = 1u << ((raw >> 12) & 3);
  const uint32_t store_value = fmt == emu::Format::FStore ? h.f(d.rs2) : h.x(d.rs2);
  const uint32_t aoff = (addr & ~3u) - arch::kSramBase;
  const bool addr_in_sram = aoff < emu_.sram().size();
  uint32_t old_word = 0;
  if (is_load && addr_in_sram) std::memcpy(&old_word, emu_.sram().data() + aoff, 4);
  uint32_t flags_before = 0, flags_after = 0;
  h.csr_read(emu::kCsrFflags, flags_before);  // the value is set even while FS is Off
  const uint64_t instret_before = h.instret();

  const emu::StopReason why = h.run(1);
  if (why == emu::StopReason::kStalled) return fail(r, "emulator stalled (blocking register read)", "retired", "stalled");
  h.csr_read(emu::kCsrFflags, flags_after);

  // Did it trap? Retiring counts minstret; a trap does not. (A CSR write to minstret sets
  // minstret itself, and never traps.)
  bool emu_trap = h.instret() == instret_before;
  if (is_csr && (d.imm == emu::kCsrMinstret || d.imm == emu::kCsrMinstreth)) emu_trap = false;
  if (fetch_fault || d.op == emu::Op::kIllegal) emu_trap = true;
  uint32_t cause = 0, tval = 0;
  const bool emu_trap_halt = h.halted() && h.halt_info().kind == emu::Halt::Kind::kTrap;
  if (emu_trap_halt) {
    emu_trap = true;
    cause = h.halt_info().code;
    tval = h.halt_info().tval;
  } else if (emu_trap) {
    h.csr_read(emu::kCsrMcause, cause);
    h.csr_read(emu::kCsrMtval, tval);
  }
  if (r.trap != emu_trap)
    return fail(r, "trap", r.trap ? "trap " + std::string(emu::cause_name(r.cause)) : "no trap",
                emu_trap ? "trap " + std::string(emu::cause_name(cause)) : "no trap");
  if (emu_trap) {
    if (r.cause != cause) return fail(r, "trap cause (mcause)", r.cause, cause);
    if (r.tval != tval) return fail(r, "trap value (mtval)", r.tval, tval);
  }
  const bool emu_halted = h.halted() && (h.halt_info().kind == emu::Halt::Kind::kTrap ||
                                         h.halt_info().kind == emu::Halt::Kind::kExit);
  if (r.halt != emu_halted) return fail(r, "halt", r.halt, emu_halted);

  // The register written.
  bool exp_we = false, exp_fp = false;
  uint32_t exp_rd = 0, exp_val = 0;
  if (!emu_trap && writes_x(fmt) && d.rd != 0) {
    exp_we = true;
    exp_rd = d.rd;
  } else if (!emu_trap && writes_f(fmt)) {
    exp_we = exp_fp = true;
    exp_rd = d.rd;
  }
  if (r.rd_we && r.timing) {
    const bool timing_insn =
        (is_csr && is_counter_csr(static_cast<uint32_t>(d.imm))) ||
        (d.op == emu::Op::Lw && (addr == arch::kRegsBase + arch::kTileRegCycleLo ||
                                 addr == arch::kRegsBase + arch::kTileRegCycleHi));
    if (!timing_insn) return fail(r, "timing (retire_timing_o on an instruction that reads no counter)", "1", "0");
    if (exp_we && !exp_fp && exp_rd == r.rd) {
      h.set_x(r.rd, r.rd_wdata);
      ++timing_copies_;
    }
  }
  if (exp_we) exp_val = exp_fp ? h.f(exp_rd) : h.x(exp_rd);
  if (opt_.inject_divergence && !injected_ && n_ >= opt_.inject_divergence && exp_we && !exp_fp && !r.timing) {
    injected_ = true;  // test hook: corrupt the emulator's result
    h.set_x(exp_rd, exp_val ^ 1);
    exp_val ^= 1;
  }
  if (r.rd_we != exp_we) return fail(r, "register write enable", r.rd_we, exp_we);
  if (exp_we) {
    if (r.rd_fp != exp_fp) return fail(r, "register file (fp)", r.rd_fp ? "f" : "x", exp_fp ? "f" : "x");
    if (r.rd != exp_rd) return fail(r, "destination register", std::to_string(r.rd), std::to_string(exp_rd));
    if (r.rd_wdata != exp_val)
      return fail(r, std::string("value of ") + (exp_fp ? emu::freg_name(exp_rd) : emu::xreg_name(exp_rd)), r.rd_wdata,
                  exp_val);
  }

  // The memory access.
  if (emu_trap) {
    if (r.mem_we) return fail(r, "memory write by a trapping instruction", r.mem_we, 0);
  } else {
    if (r.mem_we != is_store) return fail(r, "memory write", r.mem_we, is_store);
    if (r.mem_re != is_load) return fail(r, "memory read", r.mem_re, is_load);
    if (is_store || is_load) {
      const uint32_t be = ((1u << size) - 1) << (addr & 3);
      // The port gives the byte address or the word's; the lanes tell the rest.
      if (r.mem_addr != addr && r.mem_addr != (addr & ~3u)) return fail(r, "memory address", r.mem_addr, addr);
      if (is_store) {
        if (r.mem_be != be) return fail(r, "store byte lanes", r.mem_be, be);
        uint32_t mask = 0;
        for (unsigned b = 0; b < 4; ++b)
          if (be >> b & 1) mask |= 0xffu << (8 * b);
        const uint32_t wdata = (store_value << (8 * (addr & 3))) & mask;
        if ((r.mem_wdata & mask) != wdata) return fail(r, "store data", r.mem_wdata & mask, wdata);
      } else if (addr_in_sram && r.mem_rdata != old_word) {
        return fail(r, "load data (word read)", r.mem_rdata, old_word);
      }
    }
  }

  // FP flags: what this instruction raised, accrued into fflags.
  if (r.flags & ~0x1fu) return fail(r, "fp flags", r.flags, flags_after & ~flags_before);
  if (emu_trap || is_csr) {
    if (r.flags) return fail(r, "fp flags", r.flags, 0);
  } else if ((flags_before | r.flags) != flags_after) {
    return fail(r, "fp flags (accrued fflags)", flags_before | r.flags, flags_after);
  }

  // The cycle models: the cycle this instruction left the issue slot in the emulator's
  // model, from its cycle count after it (hart.cpp: issue + the class's issue cycles + the
  // refetch of a taken branch/jump; a trap: issue + 1 + the refetch).
  {
    const arch::Latency& jump = arch::kLatency[static_cast<size_t>(arch::InsnClass::kJump)];
    uint64_t spent = emu_trap ? jump.taken_penalty : (h.pc() != pc + 4 ? d.lat.taken_penalty : 0u);
    // fence.i leaves the issue slot after one cycle and then refetches (docs/tile-rtl.md).
    if (!emu_trap && emu::op_class(d.op) == arch::InsnClass::kFencei) spent += d.lat.issue - 1u;
    const int64_t offset = static_cast<int64_t>(r.cycle) - static_cast<int64_t>(h.cycle() - spent);
    if (!have_offset_) {
      have_offset_ = true;
      offset_first_ = offset_last_ = offset;
    } else if (offset != offset_last_) {
      ++offset_changes_;
      if (offset_log_.size() < 20)
        offset_log_.push_back("retire " + std::to_string(n_) + " pc " + hex32(r.pc) + " " +
                              emu::disassemble(r.insn, r.pc) + ": " + std::to_string(offset_last_) + " -> " +
                              std::to_string(offset) + (is_csr ? " (CSR)" : ""));
      offset_last_ = offset;
    }
  }

  // A one-tile barrier: the arrival is released at once (the RTL harness does the same).
  emu::SyncState& s = emu_.sync();
  if (s.arrived) {
    s.arrived = false;
    s.xchg_started = false;
    emu_.set_superstep(h.superstep + 1);
  }
  return true;
}

bool Cosim::check_halt() {
  const vlt::VltHalt& rh = rtl_.halt();
  const emu::Halt& eh = emu_.hart().halt_info();
  vlt::RetireRecord none;
  none.pc = rh.pc;
  auto kind = [](bool exit, bool trap) { return exit ? "EXIT register" : trap ? "trap halt" : "running"; };
  const bool r_exit = rh.kind == vlt::VltHalt::Kind::kExit, r_trap = rh.kind == vlt::VltHalt::Kind::kTrap;
  const bool e_exit = eh.kind == emu::Halt::Kind::kExit, e_trap = eh.kind == emu::Halt::Kind::kTrap;
  if (r_exit != e_exit || r_trap != e_trap) return fail(none, "halt", kind(r_exit, r_trap), kind(e_exit, e_trap));
  if ((r_exit || r_trap) && rh.code != eh.code) return fail(none, r_exit ? "exit code" : "halt cause", rh.code, eh.code);
  return true;
}

std::string Cosim::report() const {
  std::string s = "DIVERGENCE at retire " + std::to_string(div_.retire) + ", pc " + hex32(div_.pc) + ": " +
                  hex32(div_.insn) + "  " + emu::disassemble(div_.insn, div_.pc) + "\n";
  s += "  field: " + div_.field + "\n  RTL:      " + div_.rtl + "\n  emulator: " + div_.emu + "\n";
  s += "  last retired (RTL):\n";
  for (const std::string& l : history_) s += "    " + l + "\n";
  return s;
}

}  // namespace tessera::cosim
