// Operand generation for the binary32 cross-check: special values, random bit patterns,
// structured mantissas, and per-operation constructions that land exactly on rounding
// boundaries (halfway cases), in or across the subnormal range, and at overflow.
#pragma once

#include <cstdint>

namespace tessera::fp::testing {

class OperandGen {
 public:
  explicit OperandGen(uint64_t seed);

  uint64_t next();             // xoshiro256** step
  uint32_t below(uint32_t n);  // uniform in [0, n)
  int range(int lo, int hi);   // uniform in [lo, hi]
  bool chance(uint32_t percent);

  uint32_t special();  // +-0, +-inf, NaNs, subnormal/normal extremes, 1.0, ...
  static int num_specials();
  static uint32_t special_at(int i);
  uint32_t mantissa();   // 23-bit fraction with a random structure
  uint32_t any_float();  // mixture of all of the above and plain random bits
  // sign (0/1) * sig * 2^(exp - 23) for sig in [2^23, 2^24); exp below -126 gives a
  // (truncated) subnormal or zero, exp above 127 saturates to the largest finite.
  static uint32_t make(uint32_t sign, int exp, uint32_t sig);
  uint32_t with_exp(int exp);  // random sign and mantissa at unbiased exponent exp

  void add_operands(uint32_t& a, uint32_t& b);
  void mul_operands(uint32_t& a, uint32_t& b);
  void div_operands(uint32_t& a, uint32_t& b);
  uint32_t sqrt_operand();
  void fma_operands(uint32_t& a, uint32_t& b, uint32_t& c);
  uint32_t float_to_int_operand();
  uint32_t int_operand();
  void compare_operands(uint32_t& a, uint32_t& b);

 private:
  uint32_t odd_with_bits(int nbits);  // random odd integer with exactly nbits bits
  uint64_t s_[4];
};

}  // namespace tessera::fp::testing
