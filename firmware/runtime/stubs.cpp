// The few library functions the compiler may call in freestanding tile code (it may turn
// struct copies and loops into memcpy/memset calls), and the C++ runtime stubs it can ask
// for. Built with -fno-tree-loop-distribute-patterns (CMakeLists.txt), so these loops are
// not themselves turned into calls to memset/memcpy.
#include <stddef.h>
#include <stdint.h>

extern "C" {

void* memcpy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  while (n--) *d++ = *s++;
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d < s) {
    while (n--) *d++ = *s++;
  } else {
    while (n--) d[n] = s[n];
  }
  return dst;
}

void* memset(void* dst, int c, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  while (n--) *d++ = static_cast<unsigned char>(c);
  return dst;
}

int memcmp(const void* a, const void* b, size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (; n; --n, ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

// A pure virtual call would be a firmware bug (tile code has no virtual functions): trap
// (ebreak), which the trap handler reports as kExitTrap | 3.
void __cxa_pure_virtual() { __builtin_trap(); }

}  // extern "C"
