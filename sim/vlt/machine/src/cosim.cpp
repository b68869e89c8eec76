// Co-simulation of whole programs: see cosim.h and docs/machine-rtl.md.
#include "tessera/vlt/cosim.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/runtime/engine.h"

namespace tessera::vlt {
inline namespace TESSERA_VLT_MACHINE_NS {

namespace {

using Clock = std::chrono::steady_clock;

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Thrown out of the Engine's run at the first difference (not a DeviceError: the Engine lets
// it pass unchanged).
struct Diverged : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint64_t fnv1a(const uint32_t* w, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= w[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// Both devices behind one: every write goes to both, reads come from the emulator, and
// wait_event runs both to every superstep boundary, comparing memory there.
class Lockstep final : public device::Device {
 public:
  Lockstep(emu::Machine& iss, VltMachine& rtl, const CosimOptions& o, CosimResult& r)
      : iss_(iss), rtl_(rtl), o_(o), r_(r) {}
  std::string program;

  uint32_t read_reg(uint32_t off) override {
    const uint32_t v = iss_.read_reg(off);
    if (off == arch::kDevRegEvents) return v & ~device::kEventBreak;  // ours, not the Engine's
    return v;
  }
  void write_reg(uint32_t off, uint32_t v) override {
    if (off == arch::kDevRegBreakSuperstep) return;  // the co-simulation owns it
    if (off == arch::kDevRegEvents) v &= ~device::kEventBreak;
    iss_.write_reg(off, v);
    rtl_.write_reg(off, v);
  }
  void dma_write(std::span<const device::DmaSegment> s, std::span<const std::byte> h) override {
    iss_.dma_write(s, h);
    rtl_.dma_write(s, h);
  }
  void dma_read(std::span<const device::DmaSegment> s, std::span<std::byte> h) override {
    std::vector<std::byte> other(h.size());
    rtl_.dma_read(s, other);
    iss_.dma_read(s, h);
    for (const device::DmaSegment& g : s) {
      for (uint32_t i = 0; i < g.bytes; i += 4) {
        uint32_t a, b;
        std::memcpy(&a, h.data() + g.host_offset + i, 4);
        std::memcpy(&b, other.data() + g.host_offset + i, 4);
        if (a != b)
          throw Diverged("program '" + program + "', superstep " + std::to_string(iss_.superstep()) +
                         ": the host read tile " + std::to_string(g.tile) + " address " + hex(g.addr + i) +
                         ": emulator " + hex(a) + ", RTL " + hex(b));
      }
    }
  }
  std::string error_detail() const override { return iss_.error_detail(); }

  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override {
    for (;;) {
      // Each stops at its own next release. They differ right after a doorbell: the emulator
      // releases at the write, the RTL's barrier some cycles later (its hold and trees,
      // docs/machine-rtl.md), and that release must still meet the break set before it.
      iss_.write_reg(arch::kDevRegBreakSuperstep, iss_.superstep() + 1);
      rtl_.write_reg(arch::kDevRegBreakSuperstep, rtl_.read_reg(arch::kDevRegSuperstep) + 1);
      const uint32_t m = mask | device::kEventBreak;
      const uint32_t a = wait(iss_, m, timeout), b = wait(rtl_, m, timeout);
      if (!a && !b) return 0;
      if (a != b)
        throw Diverged("program '" + program + "', superstep " + std::to_string(iss_.superstep()) +
                       ": events differ: emulator " + hex(a) + " (" + iss_.error_detail() + "), RTL " + hex(b) + " (" +
                       rtl_.error_detail() + ")");
      if (a & device::kEventBreak) {
        // Both stop right at the release that made SUPERSTEP the break value (a doorbell the
        // Engine rang since the last call may have been that release).
        const uint32_t s = iss_.superstep() - 1;  // the superstep that just ended
        compare(s, "release");
        record(s);
        if (o_.after_superstep) o_.after_superstep(rtl_, program, s);
        iss_.write_reg(arch::kDevRegEvents, device::kEventBreak);
        rtl_.write_reg(arch::kDevRegEvents, device::kEventBreak);
        if (!(a & mask)) continue;
      }
      if (a & device::kEventHostSync) compare(iss_.superstep(), "host sync");
      if (a & device::kEventAllHalted) compare(iss_.superstep(), "end");
      return a & mask;
    }
  }

 private:
  // Waits until `d` has an event in `mask`, up to the co-simulation's timeout (the RTL is far
  // slower than the emulator; the Engine's own slices would take it for a hang).
  uint32_t wait(device::Device& d, uint32_t mask, std::chrono::milliseconds slice) {
    const auto deadline = Clock::now() + std::max(slice, o_.timeout);
    for (;;) {
      const uint32_t e = d.wait_event(mask, slice);
      if (e || Clock::now() >= deadline) return e;
      if (d.read_reg(arch::kDevRegState) != device::kStateRunning) return 0;
    }
  }

  void compare(uint32_t superstep, const char* where) {
    ++r_.compared;
    const uint32_t first = (iss_.firmware().firmware_end - arch::kSramBase) / 4;
    for (uint32_t t = 0; t < iss_.tile_count(); ++t) {
      const auto bytes = iss_.tile(t).sram();
      const size_t n = bytes.size() / 4;
      std::vector<uint32_t> want(n);
      std::memcpy(want.data(), bytes.data(), n * 4);
      const std::span<const uint32_t> got = rtl_.sram_words(t);
      if (got.size() != n) throw Diverged("SRAM sizes differ between the emulator and the RTL");
      if (fnv1a(want.data() + first, n - first) == fnv1a(got.data() + first, n - first)) continue;
      CosimMismatch mm{program, superstep, where, t, 0, 0, 0, 0};
      for (size_t i = first; i < n; ++i) {
        if (want[i] == got[i]) continue;
        if (!mm.words_differing) {
          mm.addr = arch::kSramBase + static_cast<uint32_t>(i) * 4;
          mm.emu_value = want[i];
          mm.rtl_value = got[i];
        }
        ++mm.words_differing;
      }
      if (!mm.words_differing) continue;  // a hash collision: equal after all
      r_.mismatch = mm;
      throw Diverged(describe(mm));
    }
    if (o_.log) std::fprintf(o_.log, "cosim: program '%s' superstep %u (%s): %u tiles equal\n", program.c_str(),
                             superstep, where, iss_.tile_count());
  }

  void record(uint32_t s) {
    const auto& prof = iss_.profile();
    const auto& ph = rtl_.phases();
    if (s >= prof.size() || s >= ph.size()) return;
    const emu::SuperstepProfile& p = prof[s];
    const VltMachine::Phase& q = ph[s];
    CosimStep c;
    c.program = program;
    c.superstep = s;
    c.kind = p.kind;
    c.emu_compute = p.compute_cycles;
    c.emu_sync = p.exchange_cycles;
    c.words = p.exchange_words;
    c.rtl_compute = q.all_arrived >= q.start ? q.all_arrived - q.start : 0;
    c.rtl_sync = q.release >= q.all_arrived ? q.release - q.all_arrived : 0;
    r_.steps.push_back(c);
  }

  emu::Machine& iss_;
  VltMachine& rtl_;
  const CosimOptions& o_;
  CosimResult& r_;
};

}  // namespace

std::string describe(const CosimMismatch& m) {
  return "program '" + m.program + "', superstep " + std::to_string(m.superstep) + " (" + m.where + "): tile " +
         std::to_string(m.tile) + ", address " + hex(m.addr) + ": emulator " + hex(m.emu_value) + ", RTL " +
         hex(m.rtl_value) + " (" + std::to_string(m.words_differing) + (m.words_differing == 1 ? " word differs" : " words differ") +
         " on that tile)";
}

CosimResult cosimulate(const exe::Executable& e, const CosimOptions& o) {
  CosimResult r;
  const auto t0 = Clock::now();
  try {
    if (e.target != VltMachine::target().name)
      throw std::runtime_error("the executable is for target '" + e.target + "'; the RTL model is '" +
                               std::string(VltMachine::target().name) + "'");
    const exe::ElfImage fw = exe::parse_elf(e.firmware, e.target + " firmware");
    emu::MachineOptions mo;
    mo.target = &VltMachine::target();
    mo.mode = emu::Mode::kIss;
    emu::Machine iss(mo);
    iss.load_firmware(fw);
    VltMachine rtl;
    rtl.load_firmware(fw);
    Lockstep dev(iss, rtl, o, r);
    runtime::Engine eng(dev, e);
    eng.load();
    std::map<std::string, std::vector<std::byte>> buffers;
    for (const exe::Stream& s : e.streams) {
      const uint64_t n = exe::transfer_bytes(s);
      std::vector<std::byte>& b = buffers[s.name];
      b.assign(n, std::byte{0});
      if (s.direction == exe::StreamDirection::kHostToDevice) {
        auto it = o.inputs.find(s.name);
        if (it != o.inputs.end()) {
          std::memcpy(b.data(), it->second.data(), std::min<size_t>(n, it->second.size()));
        } else {
          uint32_t x = o.seed;
          for (std::byte& v : b) {
            x = x * 1664525u + 1013904223u;
            v = static_cast<std::byte>(x >> 24);
          }
        }
      }
      eng.connect_stream(s.name, std::span(b));
    }
    std::vector<std::string> programs = o.programs;
    if (programs.empty()) programs.push_back(e.programs.at(0).name);
    for (const std::string& p : programs) {
      dev.program = p;
      eng.run(p, o.timeout);
    }
    dev.program = "(tensors)";
    for (const exe::Tensor& t : e.tensors) eng.read_tensor(t.name);  // dma_read compares
    r.rtl_cycles = rtl.cycles();
    r.ok = true;
  } catch (const Diverged& d) {
    r.error = d.what();
  } catch (const std::exception& x) {
    r.error = x.what();
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

double print_calibration(const std::vector<CosimStep>& steps, std::FILE* out, uint64_t min_cycles, uint64_t offset) {
  double worst = 0;
  std::fprintf(out, "compute: release to the last arrival; RTL less %llu cycles of pipeline (arrival seen at retire)\n",
               static_cast<unsigned long long>(offset));
  std::fprintf(out, "%-10s %5s %4s %10s %10s %8s %9s %9s %7s\n", "program", "step", "kind", "emu comp", "rtl comp",
               "error", "emu sync", "rtl sync", "words");
  for (const CosimStep& c : steps) {
    const double rtl = static_cast<double>(c.rtl_compute) - static_cast<double>(offset);
    const double err = c.emu_compute ? (rtl - static_cast<double>(c.emu_compute)) / c.emu_compute : 0.0;
    if (c.emu_compute >= min_cycles) worst = std::max(worst, std::fabs(err));
    std::fprintf(out, "%-10s %5u %4s %10llu %10llu %7.2f%% %9llu %9llu %7llu\n", c.program.c_str(), c.superstep,
                 c.kind ? "host" : "xchg", static_cast<unsigned long long>(c.emu_compute),
                 static_cast<unsigned long long>(c.rtl_compute), 100.0 * err,
                 static_cast<unsigned long long>(c.emu_sync), static_cast<unsigned long long>(c.rtl_sync),
                 static_cast<unsigned long long>(c.words));
  }
  std::fprintf(out, "worst compute-phase error: %.2f%% over %zu supersteps\n", 100.0 * worst, steps.size());
  return worst;
}

}  // namespace TESSERA_VLT_MACHINE_NS
}  // namespace tessera::vlt
