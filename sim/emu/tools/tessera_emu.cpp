// tessera-emu: runs a bare-metal RV32 ELF on one emulated tile.
//
// Exit status (tessera/emu/tool_exit.h, docs/isa.md): 0 if the program passed, 1..63 its
// failing tohost or EXIT status (63 for 63 and above), 64 for a bad command line, 65 for an
// ELF that cannot be read or loaded, 66 if the tile halted on a trap, 67 if the instruction
// limit was reached first. The tool's own outcomes never collide with a guest status.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <CLI/CLI.hpp>

#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"
#include "tessera/emu/tile.h"
#include "tessera/emu/tool_exit.h"

int main(int argc, char** argv) {
  using namespace tessera;
  CLI::App app{"Runs a bare-metal RV32IMF ELF on one emulated Tessera tile."};
  std::string elf_path, target_name = "tiny";
  bool trace = false, stats = false, no_timing = false;
  int64_t max_insns = 1'000'000'000;  // signed, so that -1 is an error rather than 2^64 - 1
  app.add_option("elf", elf_path, "ELF executable linked at 0x80000000")->required();
  app.add_option("--target", target_name, "chip configuration (its SRAM size is used)");
  app.add_flag("--trace", trace, "print every retired instruction to stderr");
  app.add_flag("--stats", stats, "print instructions retired, cycles and speed to stderr");
  app.add_flag("--no-timing", no_timing, "no cycle model: mcycle counts instructions (faster)");
  app.add_option("--max-insns", max_insns, "stop after this many instructions (1 .. 2^62)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : emu::kToolExitUsage;
  }

  const arch::Target* target = arch::find_target(target_name);
  if (!target) {
    std::fprintf(stderr, "tessera-emu: unknown target '%s'\n", target_name.c_str());
    return emu::kToolExitUsage;
  }
  emu::Tile tile(0, 1, target->sram_bytes);
  try {
    tile.load_elf(exe::read_elf_file(elf_path));
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-emu: %s\n", e.what());
    return emu::kToolExitBadElf;
  }
  emu::Hart& hart = tile.hart();
  if (trace) hart.set_trace(stderr);
  hart.set_timing(!no_timing);

  const auto start = std::chrono::steady_clock::now();
  const emu::StopReason why = hart.run(static_cast<uint64_t>(max_insns));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fflush(stdout);
  if (stats)
    std::fprintf(stderr, "tessera-emu: %llu instructions, %llu cycles (CPI %.2f) in %.3f s (%.1f M/s)\n",
                 static_cast<unsigned long long>(hart.instret()), static_cast<unsigned long long>(hart.cycle()),
                 static_cast<double>(hart.cycle()) / static_cast<double>(hart.instret()), seconds,
                 hart.instret() / seconds / 1e6);

  if (why != emu::StopReason::kHalted) {
    std::fprintf(stderr, "tessera-emu: instruction limit (%llu) reached at pc 0x%08x\n",
                 static_cast<unsigned long long>(max_insns), hart.pc());
    return emu::kToolExitLimit;
  }
  const emu::Halt& h = hart.halt_info();
  switch (h.kind) {
    case emu::Halt::Kind::kTohost:
    case emu::Halt::Kind::kExit:
      if (h.code != 0) std::fprintf(stderr, "tessera-emu: FAIL: exit status %u\n", h.code);
      return emu::guest_exit_status(h.code);
    case emu::Halt::Kind::kTrap: {
      uint32_t raw = 0;
      // The pc may be anywhere (a jump to 0x7ffffffc faults on fetch): compare without a
      // 32-bit sum that could wrap.
      const uint32_t off = h.pc - arch::kSramBase;
      if (off < tile.sram().size() && tile.sram().size() - off >= 4)
        std::memcpy(&raw, tile.sram().data() + (h.pc - arch::kSramBase), 4);
      std::fprintf(stderr, "tessera-emu: tile 0 halted on %s at pc 0x%08x (mtval 0x%08x): %s\n",
                   emu::cause_name(h.code), h.pc, h.tval, emu::disassemble(raw, h.pc).c_str());
      const emu::TrapLatch& l = hart.trap_latch();
      if (l.pc != h.pc || l.cause != h.code)
        std::fprintf(stderr, "tessera-emu: first trap: %s at pc 0x%08x (mtval 0x%08x)\n",
                     emu::cause_name(l.cause), l.pc, l.tval);
      return emu::kToolExitTrap;
    }
    case emu::Halt::Kind::kHtifError:
      std::fprintf(stderr, "tessera-emu: unsupported HTIF command 0x%08x%08x at pc 0x%08x\n", h.tval, h.code, h.pc);
      return emu::kToolExitTrap;
    case emu::Halt::Kind::kNone: break;
  }
  return emu::kToolExitTrap;
}
