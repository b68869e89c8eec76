// Programs over a graph's tensors, as a tree: Sequence, Execute(compute set), Copy (an
// exchange), Repeat, If (on a one-word condition tensor), HostWrite/HostRead (host streams).
// The passes lower them into the global control program (docs/control-program.md).
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/graph/tensor.h"

namespace tessera::graph {

struct ComputeSet { uint32_t id = 0; };
struct Stream { uint32_t id = 0; };

class Program {
 public:
  enum class Kind { kSequence, kExecute, kCopy, kRepeat, kIf, kHostWrite, kHostRead };

  Kind kind = Kind::kSequence;
  std::vector<Program> body;       // Sequence: its steps; Repeat: {body}; If: {then}
  std::vector<Program> else_body;  // If: {else}
  uint32_t compute_set = 0;        // Execute
  uint32_t count = 0;              // Repeat
  uint32_t stream = 0;             // HostWrite, HostRead
  Region src, dst;                 // Copy: src -> dst; If: src is the condition;
                                   // HostWrite: dst; HostRead: src

  // Appends a step to a Sequence.
  Program& add(Program p);
};

Program Sequence(std::vector<Program> steps = {});
Program Execute(ComputeSet cs);
Program Copy(const Tensor& src, const Tensor& dst);  // same element count; an exchange
Program Repeat(uint32_t count, Program body);
// `cond` is one u32/i32/f32 word anywhere; non-zero takes `then_`. The compiler broadcasts it
// to every tile before the branch.
Program If(const Tensor& cond, Program then_, Program else_ = Sequence());
Program HostWrite(Stream stream, const Tensor& dst);  // host -> the tensor's intervals
Program HostRead(Stream stream, const Tensor& src);   // the tensor's intervals -> host

}  // namespace tessera::graph
