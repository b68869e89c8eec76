// tessera-vlt: runs a bare-metal RV32 ELF on the verilated tile RTL, as tessera-emu runs it
// on the emulator (the same HTIF tohost convention, console and exit statuses).
//
// Exit status (tessera/emu/tool_exit.h, docs/isa.md): 0 if the program passed, 1..63 its
// failing tohost or EXIT status (63 for 63 and above), 64 for a bad command line, 65 for an
// ELF that cannot be read or loaded, 66 if the tile halted on a trap (or wrote an
// unsupported HTIF command), 67 if the cycle or instruction limit was reached first.
//
// Verilator plusargs are passed to the model: +verilator+rand+reset+2 +verilator+seed+N
// start it from random state (the seed used is printed).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"
#include "tessera/emu/tool_exit.h"
#include "tessera/vlt/vlt_tile.h"

int main(int argc, char** argv) {
  using namespace tessera;
  CLI::App app{"Runs a bare-metal RV32IMF ELF on the verilated Tessera tile RTL."};
  std::string elf_path, fst_path;
  bool trace = false, stats = false;
  // Signed, so that -1 is an error rather than 2^64 - 1 (or a wrapped cycle limit).
  int64_t max_cycles = 2'000'000'000, max_insns = int64_t{1} << 62;
  app.add_option("elf", elf_path, "ELF executable linked at 0x80000000")->required();
  app.add_option("--max-cycles", max_cycles, "stop after this many clock cycles (1 .. 2^62)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  app.add_option("--max-insns", max_insns, "stop after this many retired instructions (1 .. 2^62)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  app.add_option("--fst", fst_path, "write an FST waveform to this file");
  app.add_flag("--trace", trace, "print every retired instruction to stderr");
  app.add_flag("--stats", stats, "print instructions retired, cycles and speed to stderr");
  // Verilator's plusargs go to the model, everything else to the command line parser.
  std::vector<std::string> plusargs;
  std::vector<const char*> cli_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '+') plusargs.emplace_back(argv[i]);
    else cli_argv.push_back(argv[i]);
  }
  try {
    app.parse(static_cast<int>(cli_argv.size()), cli_argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : emu::kToolExitUsage;
  }

  exe::ElfImage image;
  try {
    image = exe::read_elf_file(elf_path);
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-vlt: %s\n", e.what());
    return emu::kToolExitBadElf;
  }
  vlt::VltTile::Options opt;
  opt.args = plusargs;
  opt.fst_path = fst_path;
  vlt::VltTile tile(opt);
  if (!tile.rand_reset_args().empty())
    std::fprintf(stderr, "tessera-vlt: random reset, %s\n", tile.rand_reset_args().c_str());
  try {
    tile.boot(image);
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-vlt: %s\n", e.what());
    return emu::kToolExitBadElf;
  }

  const auto start = std::chrono::steady_clock::now();
  const uint64_t tick0 = tile.ticks(), limit = tick0 + static_cast<uint64_t>(max_cycles);
  vlt::RetireRecord r;
  uint64_t insns = 0;
  bool limit_hit = false;
  for (;;) {
    if (!tile.next_retire(r, limit)) {
      limit_hit = !tile.halted();
      break;
    }
    ++insns;
    if (trace) std::fprintf(stderr, "%s\n", vlt::describe(r).c_str());
    if (tile.htif(r) && tile.halted()) break;
    if (insns >= static_cast<uint64_t>(max_insns)) {
      limit_hit = true;
      break;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fflush(stdout);
  const uint64_t cycles = tile.ticks() - tick0;
  if (stats)
    std::fprintf(stderr, "tessera-vlt: %llu instructions, %llu cycles (CPI %.2f) in %.3f s (%.1f k cycles/s)\n",
                 static_cast<unsigned long long>(insns), static_cast<unsigned long long>(cycles),
                 insns ? static_cast<double>(cycles) / static_cast<double>(insns) : 0.0, seconds,
                 cycles / seconds / 1e3);

  if (limit_hit) {
    std::fprintf(stderr, "tessera-vlt: %s limit reached at pc 0x%08x\n", insns >= static_cast<uint64_t>(max_insns) ? "instruction" : "cycle",
                 r.pc);
    return emu::kToolExitLimit;
  }
  const vlt::VltHalt& h = tile.halt();
  switch (h.kind) {
    case vlt::VltHalt::Kind::kTohost:
    case vlt::VltHalt::Kind::kExit:
      if (h.code != 0) std::fprintf(stderr, "tessera-vlt: FAIL: exit status %u\n", h.code);
      return emu::guest_exit_status(h.code);
    case vlt::VltHalt::Kind::kTrap: {
      std::fprintf(stderr, "tessera-vlt: tile 0 halted on %s at pc 0x%08x (mtval 0x%08x): %s\n",
                   emu::cause_name(h.code), h.pc, h.tval, emu::disassemble(h.insn, h.pc).c_str());
      const vlt::RetireRecord& l = tile.first_trap();
      if (tile.any_trap() && (l.pc != h.pc || l.cause != h.code))
        std::fprintf(stderr, "tessera-vlt: first trap: %s at pc 0x%08x (mtval 0x%08x)\n", emu::cause_name(l.cause),
                     l.pc, l.tval);
      return emu::kToolExitTrap;
    }
    case vlt::VltHalt::Kind::kHtifError:
      std::fprintf(stderr, "tessera-vlt: unsupported HTIF command 0x%08x%08x at pc 0x%08x\n", h.tval, h.code, h.pc);
      return emu::kToolExitTrap;
    case vlt::VltHalt::Kind::kNone: break;
  }
  return emu::kToolExitTrap;
}
