// The depth of the machine-wide trees (docs/machine-rtl.md, "Machine-wide trees"): the
// register levels a broadcast takes from the barrier to every tile, and the levels added to
// every reduction from the tiles back (the barrier's summaries, the count of flits in flight,
// the read credits' returns). One level per three levels of a binary tree, so that a stage
// between two registers reduces or fans out 8 ways at most (two LUT6 levels and one stretch
// of routing); 0 for a single tile. Targets: tiny (4 tiles) 1, small (16) 2, medium and
// alveo-u280 (64) 2, alveo-u250 (80) 3, the IPU sizes (1216, 1472) 4.
package tess_sync_pkg;
  function automatic integer depth(input integer tiles);
    depth = tiles > 1 ? ($clog2(tiles) + 2) / 3 : 0;
  endfunction
endpackage
