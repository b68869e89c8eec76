// Tensor views: slice and reshape, checked.
#include "tessera/graph/tensor.h"

namespace tessera::graph {

uint32_t element_count(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  if (n > 0xFFFFFFFFull) throw GraphError("shape " + shape_string(shape) + " has 2^32 or more elements");
  return static_cast<uint32_t>(n);
}

std::string shape_string(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

Region Region::slice(uint32_t b, uint32_t e) const {
  if (b >= e || e > size())
    throw GraphError("slice [" + std::to_string(b) + ", " + std::to_string(e) + ") of a view of " +
                     std::to_string(size()) + " elements");
  return Region{var, begin + b, begin + e};
}

Tensor Tensor::slice(uint32_t b, uint32_t e) const { return Tensor{Region::slice(b, e), {e - b}}; }

Tensor Tensor::reshape(std::vector<uint32_t> new_shape) const {
  if (element_count(new_shape) != size())
    throw GraphError("reshape of " + std::to_string(size()) + " elements to " + shape_string(new_shape));
  return Tensor{Region{*this}, std::move(new_shape)};
}

}  // namespace tessera::graph
