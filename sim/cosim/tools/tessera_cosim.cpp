// tessera-cosim: runs a bare-metal RV32 ELF on the verilated tile RTL and on the emulator in
// lock-step (sim/cosim/include/tessera/cosim/cosim.h), comparing every retired instruction.
//
// Exit status: 0 both ran to the same HTIF exit (status 0) or EXIT; 1 the first divergence
// (reported with the retire number, pc, disassembly, field, both values and the last
// records), or, with --require-timing, cycle models that differ; 2 bad command line or ELF;
// 3 both halted on the same trap; 4 instruction or cycle limit; 6 both exited with the same
// non-zero status (the program failed on both).
//
// Verilator plusargs (+verilator+rand+reset+2 +verilator+seed+N) are passed to the model.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/arch/tile_map.h"
#include "tessera/cosim/cosim.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"

int main(int argc, char** argv) {
  using namespace tessera;
  CLI::App app{"Runs a bare-metal RV32IMF ELF on the tile RTL and the emulator in lock-step."};
  std::string elf_path, fst_path;
  bool check_timing = false, require_timing = false, trace = false;
  // Signed, so that -1 is an error rather than 2^64 - 1 (or a wrapped cycle limit).
  int64_t max_insns = 100'000'000, max_cycles = 2'000'000'000;
  cosim::Options opt;
  app.add_option("elf", elf_path, "ELF executable linked at 0x80000000")->required();
  app.add_option("--max-insns", max_insns, "stop after this many instructions (exit 4)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  app.add_option("--max-cycles", max_cycles, "stop after this many RTL clock cycles (exit 4)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  app.add_option("--fst", fst_path, "write an FST waveform of the RTL to this file");
  app.add_flag("--check-timing", check_timing,
               "compare the emulator's cycle model with the RTL's retire_cycle_o at the end (report only)");
  app.add_flag("--require-timing", require_timing, "as --check-timing, and fail (exit 1) if the RTL's cycle at any retire differs from the emulator's model by other than the constant pipeline offset");
  app.add_flag("--trace", trace, "print every retire record to stderr");
  app.add_option("--ext-skew", opt.ext_skew,
                 "clock edges from an external SRAM write to the first retire record that sees it");
  app.add_option("--inject-divergence", opt.inject_divergence,
                 "test hook: corrupt the emulator's result at the first register write from retire N on")
      ->group("");
  std::vector<std::string> plusargs;
  std::vector<const char*> cli_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '+') plusargs.emplace_back(argv[i]);
    else cli_argv.push_back(argv[i]);
  }
  try {
    app.parse(static_cast<int>(cli_argv.size()), cli_argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  check_timing |= require_timing;

  exe::ElfImage image;
  try {
    image = exe::read_elf_file(elf_path);
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-cosim: %s\n", e.what());
    return 2;
  }

  // The emulator: one tile of the RTL's SRAM size, its own HTIF off (the RTL harness's is
  // mirrored into its memory), its console silent (the RTL's goes to stdout).
  std::FILE* devnull = std::fopen("/dev/null", "w");
  emu::Tile etile(0, 1, vlt::VltTile::kSramBytes);
  etile.set_console(devnull ? devnull : stderr);
  try {
    etile.load_elf(image);
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-cosim: %s\n", e.what());
    return 2;
  }
  etile.hart().set_tohost(0, 0);
  etile.hart().set_timing(true);

  vlt::VltTile::Options vopt;
  vopt.args = plusargs;
  vopt.fst_path = fst_path;
  vlt::VltTile rtl(vopt);
  if (!rtl.rand_reset_args().empty())
    std::fprintf(stderr, "tessera-cosim: random reset: %s\n", rtl.rand_reset_args().c_str());
  try {
    rtl.boot(image);
  } catch (const exe::ElfError& e) {
    std::fprintf(stderr, "tessera-cosim: %s\n", e.what());
    return 2;
  }

  cosim::Cosim cs(rtl, etile, opt);
  const auto start = std::chrono::steady_clock::now();
  const uint64_t tick0 = rtl.ticks();
  vlt::RetireRecord r;
  bool ok = true, limit = false;
  uint64_t last_cycle = 0;
  for (;;) {
    if (!rtl.next_retire(r, tick0 + static_cast<uint64_t>(max_cycles))) {
      limit = !rtl.halted();
      break;
    }
    if (trace) std::fprintf(stderr, "%s\n", vlt::describe(r).c_str());
    last_cycle = r.cycle;
    if (!cs.step(r)) {
      ok = false;
      break;
    }
    if (rtl.htif(r) && rtl.halted()) break;
    if (cs.retired() >= static_cast<uint64_t>(max_insns)) {
      limit = true;
      break;
    }
  }
  if (ok && !limit && rtl.halt().kind != vlt::VltHalt::Kind::kTohost && rtl.halt().kind != vlt::VltHalt::Kind::kHtifError)
    ok = cs.check_halt();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fflush(stdout);
  const uint64_t cycles = rtl.ticks() - tick0;
  const unsigned long long n = cs.retired();
  if (!ok) {
    std::fprintf(stderr, "tessera-cosim: %s", cs.report().c_str());
    std::fprintf(stderr, "tessera-cosim: FAIL after %llu instructions, %llu cycles (%s)\n", n,
                 static_cast<unsigned long long>(cycles), elf_path.c_str());
    return 1;
  }
  if (limit) {
    std::fprintf(stderr, "tessera-cosim: limit reached after %llu instructions, %llu cycles, at pc 0x%08x\n", n,
                 static_cast<unsigned long long>(cycles), r.pc);
    return 4;
  }
  int status = 0;
  const vlt::VltHalt& h = rtl.halt();
  switch (h.kind) {
    case vlt::VltHalt::Kind::kTohost:
    case vlt::VltHalt::Kind::kExit:
      if (h.code != 0) {
        std::fprintf(stderr, "tessera-cosim: the program failed on both: exit status %u\n", h.code);
        status = 6;
      }
      break;
    case vlt::VltHalt::Kind::kTrap:
      std::fprintf(stderr, "tessera-cosim: both halted on %s at pc 0x%08x (mtval 0x%08x): %s\n", emu::cause_name(h.code),
                   h.pc, h.tval, emu::disassemble(h.insn, h.pc).c_str());
      status = 3;
      break;
    case vlt::VltHalt::Kind::kHtifError:
      std::fprintf(stderr, "tessera-cosim: unsupported HTIF command 0x%08x%08x at pc 0x%08x\n", h.tval, h.code, h.pc);
      status = 3;
      break;
    case vlt::VltHalt::Kind::kNone: status = 3; break;
  }
  std::fprintf(stderr,
               "tessera-cosim: %s: %llu instructions in lock-step, %llu cycles (CPI %.2f), %llu timing values copied, "
               "%.2f s (%.0f instructions/s)\n",
               status == 0 ? "PASS" : "same end on both", n, static_cast<unsigned long long>(cycles),
               n ? static_cast<double>(cycles) / static_cast<double>(n) : 0.0,
               static_cast<unsigned long long>(cs.timing_copies()), seconds, n / seconds);
  if (check_timing) {
    const uint64_t ec = etile.hart().cycle();
    const long long diff = static_cast<long long>(last_cycle) - static_cast<long long>(ec);
    std::fprintf(stderr, "tessera-cosim: timing: RTL retire_cycle %llu, emulator cycle model %llu, difference %lld\n",
                 static_cast<unsigned long long>(last_cycle), static_cast<unsigned long long>(ec), diff);
    std::fprintf(stderr,
                 "tessera-cosim: timing: RTL retire_cycle - emulator end-of-issue cycle: %lld at the first instruction, "
                 "changed %llu times%s\n",
                 static_cast<long long>(cs.timing_offset_first()),
                 static_cast<unsigned long long>(cs.timing_offset_changes()),
                 cs.timing_offset_changes() ? " (the models differ there):" : " (the models agree)");
    for (const std::string& l : cs.timing_change_log()) std::fprintf(stderr, "    %s\n", l.c_str());
    // The RTL counts the cycles before the first issue and after the last (the pipeline
    // filling and draining); the models agree when that offset never changes.
    if (require_timing && cs.timing_offset_changes() != 0) {
      std::fprintf(stderr, "tessera-cosim: FAIL: --require-timing: the cycle models differ\n");
      return 1;
    }
  }
  if (devnull) std::fclose(devnull);
  return status;
}
