// conv2d's shape: words 4-17 of its state (codelets/conv2d.cpp), the pads as the u32 fields
// hold them (two's complement), and the element counts of its arrays. Read by the codelet
// and by native mode's grouping of conv2d vertices (native_conv2d_vertices).
#pragma once

#include <stdint.h>

#include "runtime/platform.h"

namespace tessera::fw {

struct Conv2dShape {
  uint32_t cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;

  static Conv2dShape of(const uint32_t* state) {
    return {state[4],  state[5],  state[6],  state[7],  state[8],  state[9],  state[10],
            state[11], state[12], state[13], state[14], state[15], state[16], state[17]};
  }
  uint64_t y_count() const { return extent(cout, oh, ow); }
  uint64_t x_count() const { return extent(cin, h, wd); }
  uint64_t w_count() const { return extent(cout, cin, kh, kw); }
};

}  // namespace tessera::fw
