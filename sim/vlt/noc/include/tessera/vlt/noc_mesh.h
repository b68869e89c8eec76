// Cycle-level C++ harness around the Verilated tess_mesh (rtl/noc, docs/network.md; the noc_*
// ports of the unit-bench model tess_units, sim/vlt/units): the `small` shape (4 x 4 tiles,
// 2 host nodes) with the link latency it was built with.
// Nodes are numbered as on the mesh: tiles 0..T-1, host nodes T..T+H-1.
//
// One cycle: set every injection port (set_inject) and every ejection ready (set_eject_ready),
// eval(), read what moves this cycle (inject_ready, eject_valid, eject_flit), clock().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

class Vtess_units;
class VerilatedContext;

namespace tessera::vlt {

// One flit, field by field (arch/flit.toml).
struct NocFlit {
  uint8_t kind = 0;    // 3 bits
  uint16_t dst = 0;    // 11 bits
  uint32_t addr = 0;   // 18 bits: word address
  uint32_t data = 0;
  bool operator==(const NocFlit&) const = default;
};
std::string to_string(const NocFlit& f);

struct NocShape {
  int x, y, hosts, link_latency, fifo_depth;
  int tiles() const { return x * y; }
  int nodes() const { return x * y + hosts; }
};

class NocMesh {
 public:
  NocMesh();
  ~NocMesh();
  NocMesh(const NocMesh&) = delete;
  NocMesh& operator=(const NocMesh&) = delete;

  // The parameters the model was verilated with.
  static NocShape shape();

  // Holds rst_ni low for two clock edges with every port idle.
  void reset();
  void set_inject(int node, bool valid, const NocFlit& flit);
  void set_eject_ready(int node, bool ready);
  void eval();
  bool inject_ready(int node) const;
  bool eject_valid(int node) const;
  NocFlit eject_flit(int node) const;
  void clock();
  uint64_t cycle() const { return cycle_; }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtess_units> top_;  // its noc_* ports (sim/vlt/units)
  uint64_t cycle_ = 0;
};

}  // namespace tessera::vlt
