// The harness of the verilated tile: see vlt_tile.h.
#include "tessera/vlt/vlt_tile.h"

#include <cstring>
#include <random>

#include "Vtess_units.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace tessera::vlt {

std::string describe(const RetireRecord& r) {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "0x%08x (0x%08x) %-32s", r.pc, r.insn, emu::disassemble(r.insn, r.pc).c_str());
  auto add = [&](const char* fmt, auto... v) {
    if (n >= 0 && n < static_cast<int>(sizeof buf)) n += std::snprintf(buf + n, sizeof buf - n, fmt, v...);
  };
  if (r.trap) {
    add(" trap %s (mtval 0x%08x)%s", emu::cause_name(r.cause), r.tval, r.halt ? ", halted" : "");
  } else {
    if (r.rd_we) add(" %s=0x%08x%s", r.rd_fp ? emu::freg_name(r.rd) : emu::xreg_name(r.rd), r.rd_wdata, r.timing ? " (timing)" : "");
    if (r.mem_we) add(" [0x%08x/%x] <- 0x%08x", r.mem_addr, r.mem_be, r.mem_wdata);
    if (r.mem_re) add(" [0x%08x] -> 0x%08x", r.mem_addr, r.mem_rdata);
    if (r.flags) add(" fflags|=0x%02x", r.flags);
    if (r.halt) add(" halted");
  }
  return buf;
}

VltTile::VltTile(const Options& opt) : console_(opt.console) {
  ctx_ = std::make_unique<VerilatedContext>();
  std::vector<const char*> argv;
  argv.push_back("tessera-vlt");
  for (const std::string& a : opt.args) argv.push_back(a.c_str());
  ctx_->commandArgs(static_cast<int>(argv.size()), argv.data());
  // Random reset without a seed: pick one, so that the run can be repeated.
  if (ctx_->randReset() == 2 && ctx_->randSeed() == 0) {
    std::random_device rd;
    ctx_->randSeed(static_cast<int>(rd() % 0x7ffffffeu) + 1);
  }
  if (!opt.fst_path.empty()) ctx_->traceEverOn(true);
  top_ = std::make_unique<Vtess_units>(ctx_.get(), "tile");
  if (!opt.fst_path.empty()) {
    fst_ = std::make_unique<VerilatedFstC>();
    top_->trace(fst_.get(), 99);
    fst_->open(opt.fst_path.c_str());
  }
  // The model's other benches (the FPU, the mesh: sim/vlt/units) are held in reset and never
  // clocked.
  top_->fpu_clk_i = 0;
  top_->fpu_rst_ni = 0;
  top_->fpu_eval_i = 0;
  top_->noc_clk_i = 0;
  top_->noc_rst_ni = 0;
  top_->noc_eval_i = 0;
  top_->clk_i = 0;
  top_->rst_ni = 1;  // reset() pulls it low: a falling edge for the asynchronous resets
  top_->run_i = 0;
  top_->boot_pc_i = arch::kSramBase;
  top_->tile_id_i = 0;
  top_->tile_count_i = 1;
  set_ext_idle();
  top_->sync_release_i = 0;
  top_->xchg_busy_i = 0;
  top_->xchg_sent_i = 0;
  top_->recv_count_i = 0;
  top_->eval();
  if (fst_) fst_->dump(ctx_->time());
}

VltTile::~VltTile() {
  top_->final();
  if (fst_) fst_->close();
}

int VltTile::rand_reset() const { return ctx_->randReset(); }
uint64_t VltTile::rand_seed() const { return static_cast<uint64_t>(ctx_->randSeed()); }

void VltTile::set_ext_idle() {
  top_->ext_req_i = 0;
  top_->ext_we_i = 0;
  top_->ext_addr_i = 0;
  top_->ext_be_i = 0;
  top_->ext_wdata_i = 0;
}

// Inputs set between ticks are sampled at the rising edge. The tile's outputs are sampled
// just before it, as a flop would: its pulses (sync_arrive_o, console_valid_o) are
// combinational in the cycle of the access, and a retire record sampled there belongs to
// the instruction that entered W at the previous edge (RetireRecord::tick).
void VltTile::tick() {
  top_->sync_release_i = release_next_;
  release_next_ = false;
  top_->eval();
  sample();
  ctx_->timeInc(1);
  top_->clk_i = 1;
  top_->eval();
  if (fst_) fst_->dump(ctx_->time());
  ++ticks_;
  ctx_->timeInc(1);
  top_->clk_i = 0;
  top_->eval();
  if (fst_) fst_->dump(ctx_->time());
}

void VltTile::sample() {
  if (!top_->rst_ni) return;
  if (top_->retire_valid_o) {
    RetireRecord r;
    r.tick = ticks_;
    r.pc = top_->retire_pc_o;
    r.insn = top_->retire_insn_o;
    r.trap = top_->retire_trap_o;
    r.cause = top_->retire_cause_o;
    r.tval = top_->retire_tval_o;
    r.halt = top_->retire_halt_o;
    r.rd_we = top_->retire_rd_we_o;
    r.rd_fp = top_->retire_rd_fp_o;
    r.rd = top_->retire_rd_o;
    r.rd_wdata = top_->retire_rd_wdata_o;
    r.timing = top_->retire_timing_o;
    r.mem_re = top_->retire_mem_re_o;
    r.mem_we = top_->retire_mem_we_o;
    r.mem_addr = top_->retire_mem_addr_o;
    r.mem_be = top_->retire_mem_be_o;
    r.mem_wdata = top_->retire_mem_wdata_o;
    r.mem_rdata = top_->retire_mem_rdata_o;
    r.flags = top_->retire_flags_o;
    r.cycle = top_->retire_cycle_o;
    ++retired_;
    last_cycle_ = r.cycle;
    if (r.trap) {
      if (!any_trap_) first_trap_ = r;
      any_trap_ = true;
      last_halt_rec_ = r;
      have_halt_rec_ = true;
      if (halt_.kind == VltHalt::Kind::kTrap) {  // halted_o came first
        halt_.pc = r.pc;
        halt_.tval = r.tval;
        halt_.insn = r.insn;
      }
    }
    retired_q_.push_back(r);
  }
  if (top_->console_valid_o) std::fputc(top_->console_byte_o, console_);
  if (top_->sync_arrive_o) {  // a one-tile barrier: release it in the next cycle
    release_next_ = true;
    ++syncs_;
  }
  if (top_->halted_o && halt_.kind == VltHalt::Kind::kNone) {
    halt_.kind = top_->halt_exit_o ? VltHalt::Kind::kExit : VltHalt::Kind::kTrap;
    halt_.code = top_->halt_code_o;
    if (halt_.kind == VltHalt::Kind::kTrap && have_halt_rec_) {
      halt_.pc = last_halt_rec_.pc;
      halt_.tval = last_halt_rec_.tval;
      halt_.insn = last_halt_rec_.insn;
    }
    halted_tick_ = ticks_;
  }
}

void VltTile::reset(uint32_t boot_pc, unsigned cycles) {
  running_ = false;
  top_->rst_ni = 0;
  top_->run_i = 0;
  top_->boot_pc_i = boot_pc;
  set_ext_idle();
  top_->eval();  // the asynchronous resets act now, before the first clock edge
  for (unsigned i = 0; i < cycles; ++i) tick();
  top_->rst_ni = 1;
  tick();
  tick();
  retired_q_.clear();
  ext_writes_.clear();
  halt_ = {};
  have_halt_rec_ = any_trap_ = false;
  halted_tick_ = 0;
}

void VltTile::load_elf(const exe::ElfImage& image) {
  std::vector<uint8_t> sram(kSramBytes);
  exe::place_elf(image, sram.data(), arch::kSramBase, kSramBytes);
  top_->boot_pc_i = image.entry;
  for (uint32_t off = 0; off < kSramBytes; off += 4) {
    uint32_t w;
    std::memcpy(&w, sram.data() + off, 4);
    write_word(arch::kSramBase + off, w);
  }
  // HTIF words count only if all 8 bytes of each lie in SRAM (as emu::Tile::load_elf).
  auto in_sram = [&](uint32_t addr) {
    const uint32_t off = addr - arch::kSramBase;
    return addr && off < kSramBytes && kSramBytes - off >= 8 && !(addr & 7);
  };
  const uint32_t tohost = image.symbol("tohost"), fromhost = image.symbol("fromhost");
  tohost_ = in_sram(tohost) ? tohost : 0;
  fromhost_ = in_sram(fromhost) ? fromhost : 0;
}

void VltTile::boot(const exe::ElfImage& image) {
  reset(image.entry);
  load_elf(image);
  start();
}

std::string VltTile::rand_reset_args() const {
  return rand_reset() == 2 ? "+verilator+rand+reset+2 +verilator+seed+" + std::to_string(rand_seed()) : "";
}

void VltTile::start() {
  top_->run_i = 1;
  running_ = true;
}

uint32_t VltTile::read_word(uint32_t addr) {
  top_->ext_req_i = 1;
  top_->ext_we_i = 0;
  top_->ext_addr_i = addr & ~3u;
  top_->ext_be_i = 0;
  tick();
  // The word is on ext_rdata_o two cycles after the request (the SRAM's read register, then
  // its output register); the port is free for the core in the second.
  set_ext_idle();
  tick();
  return top_->ext_rdata_o;
}

void VltTile::write_word(uint32_t addr, uint32_t data, uint32_t be) {
  top_->ext_req_i = 1;
  top_->ext_we_i = 1;
  top_->ext_addr_i = addr & ~3u;
  top_->ext_be_i = be & 0xf;
  top_->ext_wdata_i = data;
  tick();
  set_ext_idle();
  if (running_) ext_writes_.push_back({ticks_, addr & ~3u, be & 0xf, data});
}

bool VltTile::next_retire(RetireRecord& r, uint64_t max_tick) {
  while (retired_q_.empty()) {
    // After halted_o, drain the records still in the pipeline for a few cycles.
    if (halt_.kind != VltHalt::Kind::kNone && ticks_ >= halted_tick_ + 8) return false;
    if (ticks_ >= max_tick) return false;
    tick();
  }
  r = retired_q_.front();
  retired_q_.pop_front();
  return true;
}

// HTIF, as emu::Hart::htif_command: device 0 command 0 with payload bit 0 set exits with
// payload >> 1; device 1 command 1 prints the low byte, then the command word is cleared and
// fromhost acknowledges. Only the high word of tohost is cleared (the one a program polls):
// the program may already be storing its next character into the low word.
bool VltTile::htif(const RetireRecord& r) {
  if (!tohost_ || r.trap || !r.mem_we || (r.mem_addr & ~3u) != tohost_ + 4 || !(r.mem_be & 1)) return false;
  const uint32_t lo = read_word(tohost_), hi = read_word(tohost_ + 4);
  const uint64_t cmd = uint64_t{hi} << 32 | lo;
  const uint32_t device = hi >> 24, command = (hi >> 16) & 0xff;
  const uint64_t payload = cmd & 0xffffffffffffull;
  if (device == 0 && command == 0 && (payload & 1)) {
    halt_ = {VltHalt::Kind::kTohost, static_cast<uint32_t>(payload >> 1), r.pc, 0, r.insn};
    return true;
  }
  if (device == 1 && command == 1) {
    std::fputc(static_cast<int>(payload & 0xff), console_);
    const uint64_t ack = (cmd >> 48 << 48) | 0x100 | (payload & 0xff);
    write_word(tohost_ + 4, 0);
    if (fromhost_) {
      write_word(fromhost_, static_cast<uint32_t>(ack));
      write_word(fromhost_ + 4, static_cast<uint32_t>(ack >> 32));
    }
    return true;
  }
  halt_ = {VltHalt::Kind::kHtifError, lo, r.pc, hi, r.insn};
  return true;
}

}  // namespace tessera::vlt
