// The exchange network's flit (docs/network.md). A packet is one flit, a packed vector of
// FlitW bits; fields are read and written as plain slices:
//   flit[tess_noc_pkg::DstLsb +: tess_noc_pkg::NodeW]
// (yosys 0.23 takes no package struct types on ports and no struct-typed arguments).
//
//   bits     field  meaning
//   99:98    kind   0 = write; 1 = read request (the reply is a write to node `src`, same
//                   address); 2, 3 reserved (carried unchanged)
//   97:82    dst    destination node: tiles 0..T-1 (id = y * X + x), host nodes T..T+H-1
//   81:66    src    source node
//   65:36    addr   word address (tile byte address >> 2)
//   35:32    mask   byte mask (bit i = byte i of data)
//   31:0     data
package tess_noc_pkg;
  localparam int unsigned KindW = 2;
  localparam int unsigned NodeW = 16;
  localparam int unsigned AddrW = 30;
  localparam int unsigned MaskW = 4;
  localparam int unsigned DataW = 32;

  localparam int unsigned DataLsb = 0;
  localparam int unsigned MaskLsb = DataLsb + DataW;  // 32
  localparam int unsigned AddrLsb = MaskLsb + MaskW;  // 36
  localparam int unsigned SrcLsb = AddrLsb + AddrW;   // 66
  localparam int unsigned DstLsb = SrcLsb + NodeW;    // 82
  localparam int unsigned KindLsb = DstLsb + NodeW;   // 98
  localparam int unsigned FlitW = KindLsb + KindW;    // 100

  localparam logic [1:0] KindWrite = 2'd0;
  localparam logic [1:0] KindRead = 2'd1;

  // Router ports, in the order of every 5-wide port vector.
  localparam int unsigned NumPorts = 5;
  localparam int unsigned PortL = 0;  // local: the tile (injection and ejection)
  localparam int unsigned PortN = 1;  // towards y - 1
  localparam int unsigned PortE = 2;  // towards x + 1
  localparam int unsigned PortS = 3;  // towards y + 1
  localparam int unsigned PortW = 4;  // towards x - 1 (at x = 0, rows y < H: host node y)
endpackage
