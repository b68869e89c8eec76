// Program constructors: shape checks happen here, tile checks when the graph is compiled.
#include "tessera/graph/program.h"

namespace tessera::graph {

Program& Program::add(Program p) {
  if (kind != Kind::kSequence) throw GraphError("Program::add on a program that is not a Sequence");
  body.push_back(std::move(p));
  return *this;
}

Program Sequence(std::vector<Program> steps) {
  Program p;
  p.body = std::move(steps);
  return p;
}

Program Execute(ComputeSet cs) {
  Program p;
  p.kind = Program::Kind::kExecute;
  p.compute_set = cs.id;
  return p;
}

Program Copy(const Tensor& src, const Tensor& dst) {
  if (!src.valid() || !dst.valid()) throw GraphError("Copy of an empty tensor");
  if (src.size() != dst.size())
    throw GraphError("Copy of " + std::to_string(src.size()) + " elements into " + std::to_string(dst.size()));
  Program p;
  p.kind = Program::Kind::kCopy;
  p.src = src;
  p.dst = dst;
  return p;
}

Program Repeat(uint32_t count, Program body) {
  Program p;
  p.kind = Program::Kind::kRepeat;
  p.count = count;
  p.body.push_back(std::move(body));
  return p;
}

Program If(const Tensor& cond, Program then_, Program else_) {
  if (cond.size() != 1) throw GraphError("If condition must be one element, not " + std::to_string(cond.size()));
  Program p;
  p.kind = Program::Kind::kIf;
  p.src = cond;
  p.body.push_back(std::move(then_));
  p.else_body.push_back(std::move(else_));
  return p;
}

Program HostWrite(Stream stream, const Tensor& dst) {
  Program p;
  p.kind = Program::Kind::kHostWrite;
  p.stream = stream.id;
  p.dst = dst;
  return p;
}

Program HostRead(Stream stream, const Tensor& src) {
  Program p;
  p.kind = Program::Kind::kHostRead;
  p.stream = stream.id;
  p.src = src;
  return p;
}

}  // namespace tessera::graph
