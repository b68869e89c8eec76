// The exchange network's flit (docs/network.md). A packet is one flit, a packed vector of
// FlitW bits; fields are read and written as plain slices:
//   flit[tess_flit_pkg::DstLsb +: tess_flit_pkg::NodeW]
// (yosys 0.23 takes no package struct types on ports and no struct-typed arguments).
// The layout is arch/flit.toml's, rendered into tess_flit_pkg (generated), whose names
// (widths, offsets, kinds) the network uses as they are: yosys 0.23 cannot read a package
// that refers to another package ("implicitly declared outside of a module"), so this one
// holds only what is the network's own, the router's port numbering.
//
//   bits     field  meaning (tess_flit_pkg.sv lists them as rendered)
//   63:61    kind   0 = write; 1 = read request (the reply is a write to the node and word
//                   address in its data: node in bits 10:0, address in 28:11); 2 = debug
//                   write (not counted); 3..7 reserved (carried unchanged)
//   60:50    dst    destination node: tiles 0..T-1 (id = y * X + x), host nodes T..T+H-1
//   49:32    addr   word address in the tile's SRAM (byte offset >> 2)
//   31:0     data   the word (writes are whole words)
package tess_noc_pkg;
  // Router ports, in the order of every 5-wide port vector.
  localparam int unsigned NumPorts = 5;
  localparam int unsigned PortL = 0;  // local: the tile (injection and ejection)
  localparam int unsigned PortN = 1;  // towards y - 1
  localparam int unsigned PortE = 2;  // towards x + 1
  localparam int unsigned PortS = 3;  // towards y + 1
  localparam int unsigned PortW = 4;  // towards x - 1 (at x = 0, rows y < H: host node y)
endpackage
