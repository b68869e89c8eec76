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

  // A tree's fan-in (tess_reduce_tree, tess_bcast_tree): the smallest f >= 2 with
  // f^stages >= n leaves (the power stops growing once it reaches n).
  function automatic integer fan(input integer n, input integer stages);
    integer f, p, k, r;
    begin
      r = n > 2 ? n : 2;
      for (f = 2; f < n; f = f + 1) begin
        p = 1;
        for (k = 0; k < stages; k = k + 1) if (p < n) p = p * f;
        if (p >= n && r == (n > 2 ? n : 2)) r = f;
      end
      fan = r;
    end
  endfunction
endpackage
