// Stand-in for Vitis HLS's ap_int.h in C simulation with g++ (the movers of hls/movers and
// their tests): ap_uint<N> with the few operations the movers use, and no more, so that
// what compiles here compiles against the real header. Vitis builds with its own ap_int.h
// (scripts/xclbin does not put this folder on its include path).
//
//   ap_uint<N> x;  ap_uint<N> x(v);     zero, or an integer of up to 64 bits
//   x.range(hi, lo) = v;                bits hi..lo (hi - lo < 64) set from an integer
//   x.range(hi, lo).to_uint64() / .to_uint()
//   x == y, x != y
#pragma once

#include <cstdint>
#include <stdexcept>

template <int N>
class ap_uint {
  static_assert(N > 0 && N <= 1024, "ap_uint<N>: 1 <= N <= 1024 in this stand-in");
  static constexpr int kWords = (N + 63) / 64;

 public:
  ap_uint() = default;
  ap_uint(uint64_t v) {  // NOLINT: implicit, as the real type
    w_[0] = v;
    clip();
  }

  class range_ref {
   public:
    range_ref(ap_uint& x, int hi, int lo) : x_(x), hi_(hi), lo_(lo) {
      if (lo < 0 || hi < lo || hi >= N || hi - lo >= 64) throw std::out_of_range("ap_uint::range: bad bounds");
    }
    range_ref& operator=(uint64_t v) {
      for (int b = lo_; b <= hi_; ++b) x_.set_bit(b, (v >> (b - lo_)) & 1);
      return *this;
    }
    uint64_t to_uint64() const { return x_.get(hi_, lo_); }
    uint32_t to_uint() const { return static_cast<uint32_t>(to_uint64()); }

   private:
    ap_uint& x_;
    int hi_, lo_;
  };

  range_ref range(int hi, int lo) { return range_ref(*this, hi, lo); }
  uint64_t get(int hi, int lo) const {
    if (lo < 0 || hi < lo || hi >= N || hi - lo >= 64) throw std::out_of_range("ap_uint::range: bad bounds");
    uint64_t v = 0;
    for (int b = hi; b >= lo; --b) v = v << 1 | ((w_[b / 64] >> (b % 64)) & 1);
    return v;
  }

  bool operator==(const ap_uint& o) const {
    for (int i = 0; i < kWords; ++i)
      if (w_[i] != o.w_[i]) return false;
    return true;
  }
  bool operator!=(const ap_uint& o) const { return !(*this == o); }

 private:
  void set_bit(int b, bool v) {
    const uint64_t m = uint64_t{1} << (b % 64);
    w_[b / 64] = v ? (w_[b / 64] | m) : (w_[b / 64] & ~m);
  }
  void clip() {  // bits above N are zero, as in the real type
    if (N % 64) w_[kWords - 1] &= (uint64_t{1} << (N % 64)) - 1;
  }
  uint64_t w_[kWords] = {};
};
