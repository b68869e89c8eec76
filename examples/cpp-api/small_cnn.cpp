// A small CNN written in C++ with Tessera's op-graph API, compiled for a target and run on
// the emulator, built against the installed package alone (CMakeLists.txt beside it).
//
//   x [4,1,12,12] -> conv 3x3 (8 channels, pad 1) -> relu (leaky_relu of slope 0)
//     -> max pool 2 -> conv 3x3 (4 channels, stride 2, pad 1, 2 groups) -> average pool 3
//     -> reshape [4,4] -> matmul [4,10] + bias -> logits [4,10]
//
// The weights come from a fixed-seed generator. The program evaluates the graph with the
// compiler's reference evaluator (opgraph::evaluate, double-checked against PyTorch by
// Tessera's own tests), compiles it for `tiny` and runs it on the emulated machine in native
// mode and on the instruction-set simulator. It prints the largest difference from the
// reference and exits 1 unless the device's logits are within 1e-5 of it and the two modes
// give the same bits. With an argument it also writes the executable there (.tsx: `tessera
// info`, `tessera run` take it).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/executable.h"
#include "tessera/exe/file.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

using namespace tessera;

namespace {

std::vector<float> seeded(size_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// The model; *logits receives its output value.
opgraph::OpGraph build_model(uint32_t batch, std::mt19937& rng, opgraph::Value* logits) {
  opgraph::OpGraph g;
  const opgraph::Value x = g.input("x", exe::DType::kF32, {batch, 1, 12, 12});
  opgraph::Conv2dAttrs c1;
  c1.pad_top = c1.pad_left = c1.pad_bottom = c1.pad_right = 1;
  opgraph::Value h = g.conv2d(x, g.constant("conv1.w", {8, 1, 3, 3}, seeded(72, 0.5f, rng)),
                              g.constant("conv1.b", {8}, seeded(8, 0.1f, rng)), c1, "conv1");
  h = g.unary(opgraph::UnaryOp::kLeakyRelu, h, 0.0f, 0.0f, "relu1");
  opgraph::Pool2dAttrs p1;
  p1.kernel_h = p1.kernel_w = p1.stride_h = p1.stride_w = 2;
  h = g.max_pool2d(h, p1, "pool1");  // [b,8,6,6]
  opgraph::Conv2dAttrs c2;
  c2.stride_h = c2.stride_w = 2;
  c2.pad_top = c2.pad_left = c2.pad_bottom = c2.pad_right = 1;
  c2.groups = 2;
  h = g.conv2d(h, g.constant("conv2.w", {4, 4, 3, 3}, seeded(144, 0.3f, rng)),
               g.constant("conv2.b", {4}, seeded(4, 0.1f, rng)), c2, "conv2");  // [b,4,3,3]
  opgraph::Pool2dAttrs p2;
  p2.kernel_h = p2.kernel_w = 3;
  p2.stride_h = p2.stride_w = 3;
  h = g.avg_pool2d(h, p2, "pool2");                    // [b,4,1,1]
  h = g.reshape(h, {batch, 4}, "flatten");
  h = g.matmul(h, g.constant("fc.w", {4, 10}, seeded(40, 0.5f, rng)), "fc");
  h = g.add_bias(h, g.constant("fc.b", {10}, seeded(10, 0.1f, rng)), "fc.bias");
  g.output("logits", h);
  *logits = h;
  return g;
}

std::vector<float> run(const exe::Executable& e, emu::Mode mode, std::vector<float> x, size_t outputs) {
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = mode;
  emu::Machine machine(mo);
  machine.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(machine, e);
  engine.load();
  std::vector<float> y(outputs);
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("logits", std::span(y));
  engine.run("infer", std::chrono::minutes(1));
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr uint32_t kBatch = 4;
  std::mt19937 rng(2024);
  opgraph::Value logits;
  const opgraph::OpGraph model = build_model(kBatch, rng, &logits);
  const std::vector<float> x = seeded(kBatch * 144, 1.0f, rng);

  // The reference: the op graph evaluated on the host (every value, by id).
  opgraph::Words xw(x.size());
  std::memcpy(xw.data(), x.data(), x.size() * 4);
  const opgraph::Words ref_words = opgraph::evaluate(model, {{"x", xw}}).at(logits.id);
  std::vector<float> ref(ref_words.size());
  std::memcpy(ref.data(), ref_words.data(), ref.size() * 4);

  // Compiled for `tiny` (4 tiles) with the package's firmware.
  const passes::CompileOptions co = passes::firmware_options(TESSERA_FIRMWARE);
  graph::Graph g(*arch::find_target("tiny"));
  opgraph::LowerOptions lo;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  opgraph::lower(model, g, lo);
  const exe::Executable e = passes::compile(g, co);
  std::printf("compiled for %s: %zu vertices, %u supersteps\n", e.target.c_str(), g.vertices().size(), e.supersteps);
  if (argc > 1) {
    exe::write_file(e, argv[1]);
    std::printf("wrote %s\n", argv[1]);
  }

  const std::vector<float> native = run(e, emu::Mode::kNative, x, ref.size());
  const std::vector<float> iss = run(e, emu::Mode::kIss, x, ref.size());
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, double(std::fabs(native[i] - ref[i])));
  const bool same_bits = std::memcmp(native.data(), iss.data(), native.size() * 4) == 0;
  std::printf("logits[0]: %.6f %.6f %.6f ...\n", native[0], native[1], native[2]);
  std::printf("largest difference from the reference %.3g; ISS and native %s\n", worst,
              same_bits ? "give the same bits" : "DIFFER");
  return worst <= 1e-5 && same_bits ? 0 : 1;
}
