// ns per call of the tessera::fp entry points the ISS uses most, with normal operands:
// under RNE (host fast path) and RTZ (software path). The soft:: rows call the software
// path directly under RNE for comparison. Calls are independent (throughput, not latency).
#include <benchmark/benchmark.h>

#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "tessera/fp/fp32.h"
#include "tessera/fp/softfloat.h"

namespace {

using tessera::fp::Rm;

constexpr size_t kN = 4096;  // power of two

// Normal operands of moderate magnitude (exponents -20..20), random signs and mantissas.
const std::vector<uint32_t>& operands(int which) {
  static const std::array<std::vector<uint32_t>, 3> sets = [] {
    std::mt19937 rng(42);
    std::array<std::vector<uint32_t>, 3> v;
    for (auto& s : v) {
      s.resize(kN);
      for (auto& x : s) {
        const uint32_t e = 127 - 20 + rng() % 41;
        x = (rng() & 0x80000000u) | (e << 23) | (rng() & 0x7fffffu);
      }
    }
    return v;
  }();
  return sets[which];
}

template <uint32_t (*Fn)(uint32_t, uint32_t, Rm, uint32_t&)>
void binary(benchmark::State& state) {
  const Rm rm = static_cast<Rm>(state.range(0));
  const auto& a = operands(0);
  const auto& b = operands(1);
  uint32_t flags = 0, acc = 0;
  size_t i = 0;
  for (auto _ : state) {
    acc ^= Fn(a[i], b[i], rm, flags);
    i = (i + 1) & (kN - 1);
  }
  benchmark::DoNotOptimize(acc);
  benchmark::DoNotOptimize(flags);
  state.SetItemsProcessed(state.iterations());
}

template <uint32_t (*Fn)(uint32_t, uint32_t, uint32_t, Rm, uint32_t&)>
void ternary(benchmark::State& state) {
  const Rm rm = static_cast<Rm>(state.range(0));
  const auto& a = operands(0);
  const auto& b = operands(1);
  const auto& c = operands(2);
  uint32_t flags = 0, acc = 0;
  size_t i = 0;
  for (auto _ : state) {
    acc ^= Fn(a[i], b[i], c[i], rm, flags);
    i = (i + 1) & (kN - 1);
  }
  benchmark::DoNotOptimize(acc);
  benchmark::DoNotOptimize(flags);
  state.SetItemsProcessed(state.iterations());
}

template <uint32_t (*Fn)(uint32_t, Rm, uint32_t&)>
void unary(benchmark::State& state) {
  const Rm rm = static_cast<Rm>(state.range(0));
  const auto& a = operands(0);
  uint32_t flags = 0, acc = 0;
  size_t i = 0;
  for (auto _ : state) {
    acc ^= Fn(a[i] & 0x7fffffffu, rm, flags);  // positive: sqrt stays valid
    i = (i + 1) & (kN - 1);
  }
  benchmark::DoNotOptimize(acc);
  benchmark::DoNotOptimize(flags);
  state.SetItemsProcessed(state.iterations());
}

// Calibration: a bare host addss behind the same non-inlined call, no flags.
[[gnu::noinline]] uint32_t host_add(uint32_t a, uint32_t b, Rm, uint32_t&) {
  return std::bit_cast<uint32_t>(std::bit_cast<float>(a) + std::bit_cast<float>(b));
}

namespace fp = tessera::fp;
constexpr int kRne = 0, kRtz = 1;

BENCHMARK(binary<host_add>)->Name("host_addss_baseline")->Arg(kRne);
BENCHMARK(binary<fp::add>)->Name("add")->Arg(kRne)->Arg(kRtz);
BENCHMARK(binary<fp::mul>)->Name("mul")->Arg(kRne)->Arg(kRtz);
BENCHMARK(ternary<fp::fmadd>)->Name("fmadd")->Arg(kRne)->Arg(kRtz);
BENCHMARK(binary<fp::div>)->Name("div")->Arg(kRne)->Arg(kRtz);
BENCHMARK(unary<fp::sqrt>)->Name("sqrt")->Arg(kRne)->Arg(kRtz);
BENCHMARK(binary<fp::soft::add>)->Name("soft::add")->Arg(kRne);
BENCHMARK(binary<fp::soft::mul>)->Name("soft::mul")->Arg(kRne);
BENCHMARK(ternary<fp::soft::fma>)->Name("soft::fma")->Arg(kRne);
BENCHMARK(binary<fp::soft::div>)->Name("soft::div")->Arg(kRne);

}  // namespace
