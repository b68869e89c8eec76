// A plain C++ interpreter of the op graph on the host: the reference that lowered programs
// and the autodiff rules are checked against. f32 arithmetic in float with sums in index
// order (no fused multiply-add); exp and log from <cmath>.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/opgraph/opgraph.h"

namespace tessera::opgraph {

// One value's contents as 32-bit words: f32 bits or u32, row-major.
using Words = std::vector<uint32_t>;

// Evaluates every op of `og`; `inputs` gives each input's words by name. Returns the
// contents of every value, indexed by value id. Throws OpGraphError for a missing or
// wrongly sized input.
std::vector<Words> evaluate(const OpGraph& og, const std::map<std::string, Words>& inputs);

// f32 <-> words.
Words to_words(const std::vector<float>& v);
std::vector<float> to_floats(const Words& w);

}  // namespace tessera::opgraph
