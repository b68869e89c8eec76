// Tensors and regions: contiguous ranges of a graph variable's flattened elements.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::graph {

using DType = exe::DType;

// Any misuse of the Graph API or a graph that cannot compile; the message names the
// tensor, vertex or field at fault.
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Elements of a shape (1 for a scalar).
uint32_t element_count(const std::vector<uint32_t>& shape);
std::string shape_string(const std::vector<uint32_t>& shape);  // "[64,64]"

// A contiguous range [begin, end) of one variable's flattened elements, without a shape:
// what the passes move and place (12 bytes, nothing on the heap).
struct Region {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t var = kNone;  // index of the variable in its Graph
  uint32_t begin = 0;    // first element of the variable's flattened storage
  uint32_t end = 0;      // one past the last

  bool valid() const { return var != kNone; }
  uint32_t size() const { return end - begin; }
  // Elements [b, e) of this range.
  Region slice(uint32_t b, uint32_t e) const;
  // Whether two ranges share an element.
  bool overlaps(const Region& o) const { return var == o.var && begin < o.end && o.begin < end; }
  bool operator==(const Region&) const = default;
};

// A view of one graph variable: a Region with a shape. Slicing and reshaping make new views;
// the data stays where the variable is.
struct Tensor : Region {
  std::vector<uint32_t> shape;

  // Elements [b, e) of this view, flattened (shape [e - b]).
  Tensor slice(uint32_t b, uint32_t e) const;
  // The same elements with another shape of equal element count.
  Tensor reshape(std::vector<uint32_t> new_shape) const;
  Tensor flatten() const { return reshape({size()}); }
  bool operator==(const Tensor&) const = default;
};

}  // namespace tessera::graph
