// tessera-rvgen: the generator's building blocks: register choice (destinations, sources,
// temporaries that respect the reserved and pinned registers), random integer and FP
// values rich in special cases, and emitting instructions, words and labels.
#include <bit>
#include <cstdint>
#include <string>

#include "rvgen.h"

namespace tessera::rvgen {

bool Generator::writable(int r) const { return r != 0 && !((reserved_ | pinned_) >> r & 1); }

// A destination: any register random code may write (x0 now and then).
int Generator::rd() {
  if (r_.pct(3)) return last_xd_ = 0;
  for (;;) {
    const int r = r_.range(1, 31);
    if (writable(r)) return last_xd_ = r;
  }
}

// A writable register that is not x0.
int Generator::tmp() {
  for (;;) {
    const int r = r_.range(1, 31);
    if (writable(r)) return r;
  }
}

// A writable register the trap handler does not clobber either.
int Generator::stable_tmp() {
  for (;;) {
    const int r = tmp();
    if (r != s1_ && r != s2_) return r;
  }
}

int Generator::rs() { return r_.pct(4) ? 0 : r_.range(1, 31); }

int Generator::frand() { return r_.range(0, 31); }

// A destination f register (observed by observe()).
int Generator::fd() { return last_fd_ = frand(); }

uint32_t Generator::fp_value() {
  const uint32_t sign = r_.pct(50) ? 0x80000000u : 0;
  switch (r_.below(22)) {
    case 0:
      return sign;  // +-0
    case 1:
      return sign | 0x7f800000u;  // +-inf
    case 2:
      return 0x7fc00000u;  // canonical qNaN
    case 3:
      return sign | 0x7fc00000u | (r_.u32() & 0x3fffffu);  // qNaN with payload
    case 4: {                                              // sNaN
      uint32_t m = r_.u32() & 0x3fffffu;
      return sign | 0x7f800000u | (m ? m : 1);
    }
    case 5: {  // subnormal
      uint32_t m = r_.u32() & 0x7fffffu;
      return sign | (m ? m : 1);
    }
    case 6:
      return sign | r_.pick<uint32_t>({1u, 0x7fffffu, 0x400000u, 0x3u});  // extreme subnormals
    case 7:
      return sign | r_.pick<uint32_t>({0x00800000u, 0x00800001u, 0x7f7fffffu, 0x7f7ffffeu,
                                       0x7f000000u, 0x00ffffffu});  // min/max normal
    case 8:
      return sign | static_cast<uint32_t>(0x3f800000 + r_.range(-2, 2));  // 1.0 +- ulps
    case 9:
      return std::bit_cast<uint32_t>(static_cast<float>(r_.range(-20, 20)));  // small ints
    case 10:
      return std::bit_cast<uint32_t>(static_cast<float>(r_.range(-8, 8)) + 0.5f);  // ties
    case 11:  // conversion and rounding boundaries
      return r_.pick<uint32_t>({0x4effffffu, 0x4f000000u, 0x4f000001u, 0xcf000000u, 0xcf000001u,
                                0xceffffffu, 0x4f7fffffu, 0x4f800000u, 0x4f800001u, 0xbf800000u,
                                0xbf7fffffu, 0x3f7fffffu, 0x4b800000u, 0x4b7fffffu, 0x4b800001u,
                                0x4affffffu, 0x4b000000u, 0x4b000001u, 0xbf000000u, 0x3f000000u,
                                0x3effffffu, 0x3f000001u, 0xbf000001u, 0x4b3fffffu, 0x4b400000u});
    case 12:
    case 13: {  // ordinary numbers of moderate magnitude
      const uint32_t e = static_cast<uint32_t>(127 + r_.range(-30, 30));
      return sign | e << 23 | (r_.u32() & 0x7fffffu);
    }
    case 14:
      return r_.u32();  // any bits
    case 15: {          // near overflow or underflow
      const uint32_t e = r_.pick<uint32_t>({0xfeu, 0xfdu, 0x01u, 0x02u, 0x18u, 0xe8u});
      return sign | e << 23 | (r_.u32() & 0x7fffffu);
    }
    case 16:
      return sign | static_cast<uint32_t>(r_.range(1, 254)) << 23;  // powers of two
    case 17:
    case 18: {  // mantissas whose products and sums land on rounding boundaries
      const uint32_t e = static_cast<uint32_t>(127 + r_.range(-12, 12));
      const uint32_t low = r_.pick<uint32_t>({0x000u, 0x7ffu, 0x800u, 0x801u, 0xfffu, 0x001u});
      return sign | e << 23 | ((r_.u32() & 0x7ff000u) | low);
    }
    case 19:
      return sign | 0x3f800000u | r_.pick<uint32_t>({0x000001u, 0x400000u, 0x7fffffu, 0x000003u});
    default: {  // an integer's bit pattern, for fmv and fclass
      const uint32_t v = int_value();
      return v;
    }
  }
}

uint32_t Generator::int_value() {
  switch (r_.below(14)) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return 0xffffffffu;
    case 3:
      return 0x80000000u;
    case 4:
      return 0x7fffffffu;
    case 5:
    case 6:
      return static_cast<uint32_t>(r_.range(-16, 16));
    case 7:
      return 1u << r_.below(32);
    case 8:
      return (1u << r_.below(32)) - 1;
    case 9:
      return r_.pick<uint32_t>({0xffffu, 0x8000u, 0xffu, 0x80u, 0x7fffu, 0xffff8000u, 0xffffff80u});
    case 10: {  // around 2^24, where int -> float conversion starts to round
      const uint32_t v = static_cast<uint32_t>(r_.range((1 << 24) - 4, (1 << 24) + 4));
      return r_.pct(50) ? v : 0u - v;
    }
    case 11:
      return fp_value();
    default:
      return r_.u32();
  }
}

void Generator::ins(const std::string& s) {
  text_ += "\t" + s + "\n";
  ++count_;
}

void Generator::word(uint32_t w, const char* why) {
  text_ += strf("\t.word 0x%08x\t# %s\n", w, why);
  ++count_;
}

void Generator::label(const std::string& l) { text_ += l + ":\n"; }

std::string Generator::fwd_label() {
  const int target = block_ + r_.range(1, 6);
  if (target > max_label_) max_label_ = target;
  return strf(".Lb%d", target);
}

const char* Generator::rm_name() {
  static const char* const kChoices[] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn", "dyn", "dyn"};
  return kChoices[r_.below(8)];
}

void Generator::li(int r, uint32_t v) {
  ins(strf("li %s, %d", xr(r).c_str(), static_cast<int32_t>(v)));
}

// Sometimes load a fresh special value into f register `f` first.
void Generator::refresh_f(int f, unsigned percent) {
  if (!r_.pct(percent)) return;
  const int t = tmp();
  li(t, fp_value());
  ins(strf("fmv.w.x f%d, x%d", f, t));
}

void Generator::refresh_x(int r, unsigned percent) {
  if (r == 0 || !writable(r) || !r_.pct(percent)) return;
  li(r, int_value());
}

}  // namespace tessera::rvgen
