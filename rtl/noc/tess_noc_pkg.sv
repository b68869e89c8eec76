// The exchange network's flit (docs/network.md). A packet is one flit, a packed vector of
// FlitW bits; fields are read and written as plain slices:
//   flit[tess_noc_pkg::DstLsb +: tess_noc_pkg::NodeW]
// (yosys 0.23 takes no package struct types on ports and no struct-typed arguments).
// The layout is arch/flit.toml's, rendered into tess_flit_pkg (generated); this package
// gives the network its names for it, and the router's port numbering.
//
//   bits     field  meaning (tess_flit_pkg.sv lists them as rendered)
//   99:98    kind   0 = write; 1 = read request (the reply is a write to node `src`, same
//                   address); 2 = debug write (not counted); 3 reserved (carried unchanged)
//   97:82    dst    destination node: tiles 0..T-1 (id = y * X + x), host nodes T..T+H-1
//   81:66    src    source node
//   65:36    addr   word address (tile byte address >> 2)
//   35:32    mask   byte mask (bit i = byte i of data)
//   31:0     data
package tess_noc_pkg;
  localparam int unsigned KindW = tess_flit_pkg::KindW;
  localparam int unsigned NodeW = tess_flit_pkg::NodeW;
  localparam int unsigned AddrW = tess_flit_pkg::AddrW;
  localparam int unsigned MaskW = tess_flit_pkg::MaskW;
  localparam int unsigned DataW = tess_flit_pkg::DataW;

  localparam int unsigned DataLsb = tess_flit_pkg::DataLsb;
  localparam int unsigned MaskLsb = tess_flit_pkg::MaskLsb;
  localparam int unsigned AddrLsb = tess_flit_pkg::AddrLsb;
  localparam int unsigned SrcLsb = tess_flit_pkg::SrcLsb;
  localparam int unsigned DstLsb = tess_flit_pkg::DstLsb;
  localparam int unsigned KindLsb = tess_flit_pkg::KindLsb;
  localparam int unsigned FlitW = tess_flit_pkg::FlitW;

  localparam logic [KindW-1:0] KindWrite = tess_flit_pkg::KindWrite;
  localparam logic [KindW-1:0] KindRead = tess_flit_pkg::KindRead;
  localparam logic [KindW-1:0] KindDebugWrite = tess_flit_pkg::KindDebugWrite;

  // Router ports, in the order of every 5-wide port vector.
  localparam int unsigned NumPorts = 5;
  localparam int unsigned PortL = 0;  // local: the tile (injection and ejection)
  localparam int unsigned PortN = 1;  // towards y - 1
  localparam int unsigned PortE = 2;  // towards x + 1
  localparam int unsigned PortS = 3;  // towards y + 1
  localparam int unsigned PortW = 4;  // towards x - 1 (at x = 0, rows y < H: host node y)
endpackage
