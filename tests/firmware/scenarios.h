// Hand-built control programs for the interpreter tests, run the same way in native mode
// (interpreter_test.cpp) and by tessera-firmware.elf on an emulated tile
// (firmware_elf_test.cpp): a tile memory image (what the compiler and loader will write:
// a TileHeader, its tables, a control program, vertex state), the expected barriers and
// exit, and what "the machine" changes between barriers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "codelets/codelets.h"
#include "tessera/arch/control.h"
#include "tessera/arch/tile_map.h"

namespace tessera::fwtest {

using namespace tessera::arch;

// A tile's SRAM seen through tile addresses, with a bump allocator above the firmware.
class TileImage {
 public:
  TileImage(std::span<uint8_t> sram, uint32_t header_addr, uint32_t free_addr)
      : sram_(sram), header_addr_(header_addr), next_(free_addr) {}

  uint32_t header_addr() const { return header_addr_; }
  uint32_t get(uint32_t addr) const {
    uint32_t v;
    std::memcpy(&v, at(addr, 4), 4);
    return v;
  }
  void set(uint32_t addr, uint32_t v) { std::memcpy(at(addr, 4), &v, 4); }
  float getf(uint32_t addr) const {
    float f;
    std::memcpy(&f, at(addr, 4), 4);
    return f;
  }
  uint32_t alloc(uint32_t words) {
    const uint32_t a = next_;
    next_ += 4 * words;
    std::memset(at(a, 4 * words), 0, 4 * words);
    return a;
  }
  uint32_t put(const std::vector<uint32_t>& words) {
    const uint32_t a = alloc(static_cast<uint32_t>(words.size()));
    for (size_t i = 0; i < words.size(); ++i) set(a + 4 * static_cast<uint32_t>(i), words[i]);
    return a;
  }
  // A vertex of codelet `name` with the given state record.
  Vertex vertex(const char* name, const std::vector<uint32_t>& state) {
    return Vertex{fw::codelet_index(name), put(state)};
  }

  // The header's content; write() lays out the tables and the header itself.
  std::vector<uint32_t> program;
  std::vector<std::vector<Vertex>> compute_sets;
  std::vector<ExchangeEntry> exchanges;
  std::vector<StreamEntry> streams;
  std::vector<uint32_t> conditions;  // tile addresses of the condition words
  uint32_t magic = kTileHeaderMagic, version = kTileHeaderVersion;

  TileHeader write() {
    TileHeader h{};
    h.magic = magic;
    h.version = version;
    h.program = put(program);
    h.program_words = static_cast<uint32_t>(program.size());
    std::vector<uint32_t> sets;
    for (const auto& cs : compute_sets) {
      std::vector<uint32_t> v;
      for (const Vertex& x : cs) v.insert(v.end(), {x.codelet, x.state});
      sets.insert(sets.end(), {put(v), static_cast<uint32_t>(cs.size())});
    }
    h.compute_sets = put(sets);
    h.num_compute_sets = static_cast<uint32_t>(compute_sets.size());
    std::vector<uint32_t> x;
    for (const ExchangeEntry& e : exchanges)
      x.insert(x.end(), {e.send_list, e.entries, e.recv_words});
    h.exchanges = put(x);
    h.num_exchanges = static_cast<uint32_t>(exchanges.size());
    std::vector<uint32_t> s;
    for (const StreamEntry& e : streams) s.push_back(e.recv_words);
    h.streams = put(s);
    h.num_streams = static_cast<uint32_t>(streams.size());
    h.conditions = put(conditions);
    h.num_conditions = static_cast<uint32_t>(conditions.size());
    return h;
  }
  void write_header(const TileHeader& h) { std::memcpy(at(header_addr_, sizeof h), &h, sizeof h); }

 private:
  uint8_t* at(uint32_t addr, uint32_t bytes) const {
    if (addr < kSramBase || addr - kSramBase + uint64_t{bytes} > sram_.size())
      throw std::out_of_range("TileImage: address outside SRAM");
    return sram_.data() + (addr - kSramBase);
  }
  std::span<uint8_t> sram_;
  uint32_t header_addr_, next_;
};

// What a tile did up to one stop, as its register block latched it: a barrier (the SYNC
// value, the exchange registers and RECV_EXPECT written since the last barrier) or a halt.
struct Stop {
  bool halted = false;
  uint32_t exit_code = 0;
  uint32_t sync = 0;
  bool xchg_started = false;
  uint32_t xchg_list = 0, xchg_entries = 0, recv_expect = 0;
  bool operator==(const Stop&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Stop& s) {
  if (s.halted) return os << "halt(EXIT 0x" << std::hex << s.exit_code << std::dec << ")";
  os << "sync(" << s.sync << ", recv " << s.recv_expect;
  if (s.xchg_started)
    os << ", list 0x" << std::hex << s.xchg_list << std::dec << " x " << s.xchg_entries;
  return os << ")";
}

inline Stop exchange_stop(const ExchangeEntry& e) {
  return Stop{false, 0, 0, true, e.send_list, e.entries, e.recv_words};
}
inline Stop host_sync_stop(uint32_t recv) { return Stop{false, 0, 1, false, 0, 0, recv}; }
inline Stop sync_stop() { return Stop{}; }
inline Stop halt_stop(uint32_t code) { return Stop{true, code, 0, false, 0, 0, 0}; }

struct Scenario {
  std::string name;
  std::function<void(TileImage&)> build;  // fills the image (calls write_header)
  std::vector<Stop> expected;
  std::function<void(size_t stop, TileImage&)> between;  // the machine, after each barrier
  std::function<void(TileImage&)> check;                 // memory after the run (gtest EXPECTs)
};

// The main program: Execute, Repeat with an Exchange and an If inside, nested Repeats, a
// HostSync in each If branch, Sync, End. The If's condition changes between barriers.
//
//   0  Execute 0                 c += 1
//   2  Repeat 3, 12 {
//   5    Execute 1               d += 1
//   7    Exchange 1
//   9    If cond 0, 2, 2 { 13 HostSync 0 } else { 15 HostSync 1 }
//      }
//  17  Sync
//  18  Repeat 2, 5 { 21 Repeat 2, 2 { 24 Exchange 0 } }
//  26  End
inline Scenario main_scenario() {
  static const ExchangeEntry x0{0x8000f000u, 0, 3}, x1{0x8000f100u, 2, 5};
  struct Addrs {
    uint32_t c, d, cond;
  };
  auto addrs = std::make_shared<Addrs>();
  Scenario s;
  s.name = "main";
  s.build = [addrs](TileImage& m) {
    const uint32_t one = m.put({0x3f800000u});
    addrs->c = m.alloc(1);
    addrs->d = m.alloc(1);
    addrs->cond = m.put({1});
    m.program = {kCtlExecute,
                 0,
                 kCtlRepeat,
                 3,
                 12,
                 kCtlExecute,
                 1,
                 kCtlExchange,
                 1,
                 kCtlIf,
                 0,
                 2,
                 2,
                 kCtlHostSync,
                 0,
                 kCtlHostSync,
                 1,
                 kCtlSync,
                 kCtlRepeat,
                 2,
                 5,
                 kCtlRepeat,
                 2,
                 2,
                 kCtlExchange,
                 0,
                 kCtlEnd};
    m.compute_sets = {{m.vertex("add", {addrs->c, addrs->c, one, 1})},
                      {m.vertex("add", {addrs->d, addrs->d, one, 1})}};
    m.exchanges = {x0, x1};
    m.streams = {{11}, {13}};
    m.conditions = {addrs->cond};
    m.write_header(m.write());
  };
  s.expected = {exchange_stop(x1), host_sync_stop(11), exchange_stop(x1), host_sync_stop(13),
                exchange_stop(x1), host_sync_stop(11), sync_stop(),       exchange_stop(x0),
                exchange_stop(x0), exchange_stop(x0),  exchange_stop(x0), halt_stop(0)};
  // The condition, broadcast before each If: 1, 0, 1.
  s.between = [addrs](size_t stop, TileImage& m) {
    if (stop == 1) m.set(addrs->cond, 0);
    if (stop == 3) m.set(addrs->cond, 1);
  };
  s.check = [addrs](TileImage& m) {
    EXPECT_EQ(m.getf(addrs->c), 1.0f);  // Execute 0 once
    EXPECT_EQ(m.getf(addrs->d), 3.0f);  // Execute 1 in each of 3 iterations
  };
  return s;
}

// A program with an error, expected to halt with `code` after `syncs` plain barriers.
// `tables` may add compute sets and the like before the header is written.
inline Scenario error_scenario(std::string name, std::vector<uint32_t> program, uint32_t code,
                               int syncs = 0, std::function<void(TileImage&)> tables = {},
                               std::function<void(TileImage&, TileHeader&)> patch = {}) {
  Scenario s;
  s.name = std::move(name);
  s.build = [program, tables, patch](TileImage& m) {
    m.program = program;
    m.streams = {{1}};
    m.conditions = {m.put({1})};
    if (tables) tables(m);
    TileHeader h = m.write();
    if (patch) patch(m, h);
    m.write_header(h);
  };
  for (int i = 0; i < syncs; ++i) s.expected.push_back(sync_stop());
  s.expected.push_back(halt_stop(code));
  return s;
}

// n Repeat-1 headers nested around one Sync, then End.
inline std::vector<uint32_t> nested_repeats(uint32_t n) {
  std::vector<uint32_t> p;
  for (uint32_t i = 0; i < n; ++i) p.insert(p.end(), {kCtlRepeat, 1, 3 * (n - 1 - i) + 1});
  p.push_back(kCtlSync);
  p.push_back(kCtlEnd);
  return p;
}

inline std::vector<Scenario> all_scenarios() {
  const uint32_t bad = kExitBadProgram;
  auto add_vertex = [](uint32_t dst, uint32_t state_offset) {
    return [dst, state_offset](TileImage& m) {
      const uint32_t src = m.put({0x3f800000u});
      Vertex v = m.vertex("add", {dst, src, src, 1});
      v.state += state_offset;
      m.compute_sets = {{v}};
    };
  };
  return {
      main_scenario(),
      error_scenario("bad opcode", {kCtlExecute, 0, 99}, bad | 2, 0, add_vertex(0x8000e000u, 0)),
      error_scenario("no End", {kCtlSync}, bad | 1, 1),
      error_scenario("operand past the program", {kCtlSync, kCtlExchange}, bad | 1, 1),
      error_scenario("Repeat body past the program", {kCtlRepeat, 1, 5, kCtlSync, kCtlEnd},
                     bad | 0),
      error_scenario(
          "If else part past its Repeat body",
          {kCtlRepeat, 1, 6, kCtlIf, 0, 1, 3, kCtlSync, kCtlSync, kCtlEnd, kCtlEnd, kCtlEnd},
          bad | 3),
      error_scenario("8 nested Repeats are fine", nested_repeats(8), 0, 1),
      error_scenario("9 nested Repeats are not", nested_repeats(9), bad | 24),
      error_scenario("Repeat 0 times", {kCtlRepeat, 0, 1, kCtlSync, kCtlSync, kCtlEnd}, 0, 1),
      error_scenario("If false with empty else", {kCtlIf, 1, 1, 0, kCtlSync, kCtlEnd}, 0, 0,
                     [](TileImage& m) { m.conditions.push_back(m.put({0})); }),
      error_scenario("codelet index out of range", {kCtlSync, kCtlExecute, 0, kCtlEnd}, bad | 1, 1,
                     [](TileImage& m) {
                       m.compute_sets = {{Vertex{fw::tessera_codelet_count, 0}}};
                     }),
      error_scenario("compute set out of range", {kCtlExecute, 0, kCtlEnd}, bad | 0),
      error_scenario("exchange out of range", {kCtlSync, kCtlExchange, 3, kCtlEnd}, bad | 1, 1),
      error_scenario("stream out of range", {kCtlHostSync, 1, kCtlEnd}, bad | 0),
      error_scenario("condition out of range", {kCtlIf, 1, 0, 0, kCtlEnd}, bad | 0),
      error_scenario("bad magic", {kCtlEnd}, kExitBadHeader, 0, {},
                     [](TileImage&, TileHeader& h) { h.magic = 0; }),
      error_scenario("bad version", {kCtlEnd}, kExitBadHeader, 0, {},
                     [](TileImage&, TileHeader& h) { h.version = 2; }),
      error_scenario("program outside SRAM", {kCtlEnd}, kExitTrap | 5, 0, {},
                     [](TileImage&, TileHeader& h) { h.program = 0x40000000u; }),
      error_scenario("vertex table outside SRAM", {kCtlExecute, 0, kCtlEnd}, kExitTrap | 5, 0, {},
                     [](TileImage& m, TileHeader& h) {  // one compute set of 2 vertices at 0x100
                       h.compute_sets = m.put({0x100u, 2});
                       h.num_compute_sets = 1;
                     }),
      error_scenario("condition word outside SRAM", {kCtlIf, 1, 0, 0, kCtlEnd}, kExitTrap | 5, 0,
                     [](TileImage& m) { m.conditions.push_back(0x20000000u); }),
      error_scenario("codelet stores outside SRAM", {kCtlExecute, 0, kCtlEnd}, kExitTrap | 7, 0,
                     add_vertex(0x40000000u, 0)),
      error_scenario("misaligned vertex state", {kCtlExecute, 0, kCtlEnd}, kExitTrap | 4, 0,
                     add_vertex(0x8000e000u, 2)),
  };
}

}  // namespace tessera::fwtest
